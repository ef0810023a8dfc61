#!/usr/bin/env python3
"""How the distilled sentence model weighs its tokens (crates/embed/src/distilled.rs,
`rarity_weights`), chosen and scored by retrieval by meaning alone.

For each question set, every passage of its library is embedded as the distilled model embeds it
(the sum of its tokens' distilled vectors, each weighed, set to unit length), and so is the
question; the files of the nearest passages, best first, give the rank of the first answering page.
Reported per weighting: answering pages in the first five (hit@5) and the mean reciprocal rank.
The weighting is chosen on the SQLite retrieval set and scored on the PostgreSQL and Python answer
sets (and the Japanese GIMP set), which the choice never sees.

Weightings: `log` (the first: the logarithm of the token's place in the vocabulary), and
`sif:A` (the second: A / (A + p), p the token's share of running text by Zipf's law from its
rank among words; single ASCII characters and reserved entries as the commonest word; other
single letters, a Han character or a kana, weigh 1).

Needs: the libraries, made by `research library add --keywords-only --db DIR/NAME.db FOLDER` for
each set (`sq`, `pg`, `py`, `ja`; the folders in the sets' files); the distilled table the app
makes (`research library embed` on a library of 20,000 passages or more, or the embed bench),
read from ~/.cache/research-studio/models/all-MiniLM-L6-v2.distilled whatever its weighting.
numpy and tokenizers are installed into a virtual environment of their own under the project's
cache the first time (pinned versions below).

Usage: scripts/distilled-weights.py --db-dir DIR [--sets sq,pg,py,ja] [--weights log,sif:1e-4,...]
"""
import argparse
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("RESEARCH_STUDIO_CACHE", Path.home() / ".cache" / "research-studio"))
VENV = CACHE / "tools" / "distilled-weights-venv"
PINNED = ["numpy==2.4.6", "tokenizers==0.23.3"]
SETS = {
    "sq": ("benches/retrieval/sqlite.json", "answers"),
    "pg": ("benches/answers/postgresql.json", "pages"),
    "py": ("benches/answers/python.json", "pages"),
    "ja": ("benches/retrieval/ja.json", "answers"),
}


def in_venv():
    """Runs this script again inside its own environment (made the first time)."""
    python = VENV / "bin" / "python"
    if Path(sys.prefix) == VENV:
        return
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PINNED], check=True)
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db-dir", required=True)
    ap.add_argument("--sets", default="sq,pg,py,ja")
    ap.add_argument("--weights", default="log,sif:3e-5,sif:1e-4,sif:3e-4,sif:1e-3,sif:1e-2")
    args = ap.parse_args()
    in_venv()
    import sqlite3

    import numpy as np
    from tokenizers import Tokenizer

    models = CACHE / "models"
    tok = Tokenizer.from_file(str(models / "all-MiniLM-L6-v2" / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(1024)
    raw = (models / "all-MiniLM-L6-v2.distilled").read_bytes()
    at = 8
    (id_len,) = struct.unpack("<I", raw[at : at + 4])
    at += 4 + id_len
    vocab, dims = struct.unpack("<II", raw[at : at + 8])
    at += 8
    skipped = np.frombuffer(raw[at : at + vocab], dtype=np.uint8).astype(bool)
    at += vocab
    table = np.frombuffer(raw[at : at + vocab * dims * 4], dtype="<f4").reshape(vocab, dims)
    # The table's rows are unit vectors times their weight: set back to unit length.
    table = table / np.linalg.norm(table, axis=1, keepdims=True).clip(1e-12)
    ids = np.arange(vocab)
    tokens = {i: s for s, i in tok.get_vocab().items()}
    first_word = min(
        i
        for i, t in tokens.items()
        if len(t.removeprefix("##")) > 1 and not (t.startswith("[") and t.endswith("]"))
    )
    letters = np.array(
        [
            len(t := tokens[i].removeprefix("##")) == 1 and t.isalpha() and not t.isascii()
            for i in range(vocab)
        ]
    )

    def weights(name):
        if name == "log":
            return np.log(ids + 2.0)
        a = float(name.split(":")[1])
        rank = np.maximum(ids - first_word, 0) + 1.0
        share = 1.0 / (rank * (np.log(vocab) + 0.577))
        w = a / (a + share)
        w[letters] = 1.0
        return w

    def embed(texts, w):
        out = np.zeros((len(texts), dims), dtype=np.float32)
        for i, e in enumerate(tok.encode_batch(texts, add_special_tokens=False)):
            t = np.array([x for x in e.ids if x < vocab and not skipped[x]], dtype=int)
            if len(t):
                v = (table[t] * w[t][:, None]).sum(0)
                out[i] = v / max(np.linalg.norm(v), 1e-12)
        return out

    for name in args.sets.split(","):
        questions_file, key = SETS[name]
        qset = json.loads((ROOT / questions_file).read_text())
        db = sqlite3.connect(Path(args.db_dir) / f"{name}.db")
        rows = db.execute(
            "SELECT f.path, p.text FROM library_passages p JOIN library_files f ON f.id = p.file_id"
        ).fetchall()
        files = [os.path.relpath(p, qset["folder"]) for p, _ in rows]
        for wname in args.weights.split(","):
            w = weights(wname)
            vectors = embed([t for _, t in rows], w)
            ranks = []
            for q in qset["questions"]:
                s = vectors @ embed([q["question"]], w)[0]
                seen = []
                for i in np.argsort(-s):
                    if files[i] not in seen:
                        seen.append(files[i])
                    if len(seen) == 20:
                        break
                gold = q[key]
                rank = next((k + 1 for k, f in enumerate(seen) if f in gold), None)
                ranks.append(rank)
            hit5 = sum(1 for r in ranks if r and r <= 5)
            mrr = sum(1 / r for r in ranks if r) / len(ranks)
            print(
                json.dumps(
                    {"set": name, "weights": wname, "hit_at_5": hit5, "questions": len(ranks),
                     "mrr": round(mrr, 3), "ranks": ranks}
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Fits and scores the answering measure (crates/pipeline/src/steps/relevance/answers.rs) on the
gold answers of benches/answers/: does a sentence state a fact of its question's answer?

For each question, every sentence of its answering pages and of the library's next pages for it
(`research library search`, up to DISTRACTORS pages that are not answering ones: the pages a run
reads beside the answer) gets the measure's signals from the `answer_signals` example, and a label:
1 when it states one of the answer's gold sentences or a `bearing` one (answer-bench.py's STATES
rule) or one a reader judged to state a fact or bear on it (the pooled `judged` sentences), else 0. A logistic regression (attribution-bench.py's Newton fit) is fitted on the
questions of one half (even positions in each set) and scored on the other; the threshold is the
highest probability at which RECALL_TARGET of the gold sentences of the fitting half answer. Reported for the held-out half: precision and
recall of "answers" at the threshold, and per question the facts stated by its TOP_K best sentences
(fact recall) and the share of them that are gold (precision) — against BM25 alone, the ranking
before issue 50.

Usage: scripts/answer-fit.py [--bin research] [--db-dir DIR] [--write-weights] [--signals FILE]
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "benches" / "answers"
WEIGHTS = ROOT / "crates" / "pipeline" / "answers-weights.txt"
NAMES = ["bm25", "cover", "meaning", "asked", "document", "little", "short"]
# Signals that decide by rule (answers.rs RULES): a passage with one never answers. Left out of the
# fit; scored as answering nothing.
RULES = {"document", "little"}
FITTED = [i for i, n in enumerate(NAMES) if n not in RULES]
DISTRACTORS = 4
TOP_K = 8
# The share of gold sentences that must answer at the threshold (on the fitting half).
RECALL_TARGET = 0.6


def gold_sets():
    """The gold answer sets (benches/answers/*.json holds the benchmark's results too)."""
    for gold_file in sorted(GOLD.glob("*.json")):
        gold = json.loads(gold_file.read_text())
        if "questions" in gold:
            yield gold


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ab = load("answer_bench", "answer-bench.py")
att = load("attribution_bench", "attribution-bench.py")
rb = ab.rb


def distractors(bin_path, db, question, folder, gold_pages):
    out = subprocess.run([bin_path, "library", "search", question, "--json", "--db", str(db)],
                         capture_output=True, text=True)
    pages = []
    for hit in json.loads(out.stdout or "[]") if out.returncode == 0 else []:
        page = rb.page_of(hit.get("url"), folder)
        if page and page not in gold_pages and page not in pages:
            pages.append(page)
    return pages[:DISTRACTORS]


def signal_rows(a):
    """Every question's sentences with their signals, from the example (cached in --signals)."""
    cache = Path(a.signals)
    if cache.is_file() and not a.fresh:
        return [json.loads(l) for l in cache.read_text().splitlines() if l.strip()]
    asks = []
    for gold in gold_sets():
        db = rb.library_db(a.bin, gold, Path(a.db_dir))[0]
        for q in gold["questions"]:
            pages = list(dict.fromkeys((q.get("pages") or []) + [e["page"] for f in q["facts"] for e in f["evidence"]]))
            pages += distractors(a.bin, db, q["question"], gold["folder"], set(pages))
            asks.append({"id": q["id"], "question": q["question"],
                         "pages": [str(Path(gold["folder"]) / p) for p in pages]})
    # Built where the project builds (scripts/env.sh sets the target directory outside the clone).
    built = subprocess.run(["bash", "-c", ". scripts/env.sh && cargo build --release -q -p research-pipeline "
                            "--example answer_signals && echo \"$CARGO_TARGET_DIR\""],
                           check=True, cwd=ROOT, capture_output=True, text=True)
    target = built.stdout.strip().splitlines()[-1]
    out = subprocess.run([str(Path(target) / "release" / "examples" / "answer_signals")],
                         input="\n".join(json.dumps(x, ensure_ascii=False) for x in asks), capture_output=True,
                         text=True)
    if out.returncode != 0:
        sys.exit(f"answer-fit: answer_signals failed ({out.returncode}):\n{out.stderr[-2000:]}")
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(out.stdout)
    return [json.loads(l) for l in out.stdout.splitlines() if l.strip()]


def labelled(rows):
    questions = {}
    for gold in gold_sets():
        for i, q in enumerate(gold["questions"]):
            questions[q["id"]] = (q, i % 2)
    for r in rows:
        q, half = questions[r["id"]]
        r["half"] = half
        r["facts"] = [k for k, said in enumerate(ab.fact_sentences(q)) if any(ab.states(r["sentence"], s) for s in said)]
        r["label"] = int(bool(r["facts"]) or any(ab.states(r["sentence"], s) for s in ab.bearing_sentences(q)))
    return rows, {k: v[0] for k, v in questions.items()}


def threshold(ps, ys):
    """The highest probability at which RECALL_TARGET of the gold sentences still answer: the
    measure decides what a report may quote and what counts as coverage, and a fact's sentence
    cut from both is worse than a passage too many (the ranking puts the best first)."""
    gold = sum(ys)
    found = 0
    for p, y in sorted(zip(ps, ys), reverse=True):
        found += y
        if gold and found / gold >= RECALL_TARGET:
            return round(p, 3)
    return 0.0


def scored(rows, questions, score, t):
    tp = sum(1 for r in rows if score(r) >= t and r["label"])
    fp = sum(1 for r in rows if score(r) >= t and not r["label"])
    fn = sum(1 for r in rows if score(r) < t and r["label"])
    by_q = {}
    for r in rows:
        by_q.setdefault(r["id"], []).append(r)
    recalls, precisions = [], []
    for qid, rs in by_q.items():
        top = sorted(rs, key=score, reverse=True)[:TOP_K]
        facts = {k for r in top for k in r["facts"]}
        recalls.append(len(facts) / len(questions[qid]["facts"]))
        precisions.append(sum(r["label"] for r in top) / len(top))
    return {"precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None,
            f"fact_recall@{TOP_K}": round(sum(recalls) / len(recalls), 3),
            f"precision@{TOP_K}": round(sum(precisions) / len(precisions), 3),
            "questions": len(by_q)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin", default=str(Path(os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))) / "release" / "research"))
    p.add_argument("--db-dir", default=str(Path.home() / ".cache" / "research-studio" / "answer-bench"))
    p.add_argument("--signals", default=str(Path.home() / ".cache" / "research-studio" / "answer-fit" / "signals.jsonl"))
    p.add_argument("--fresh", action="store_true", help="compute the signals again")
    p.add_argument("--write-weights", action="store_true")
    a = p.parse_args()
    rows, questions = labelled(signal_rows(a))
    print(f"{len(rows)} sentences of {len(questions)} questions, {sum(r['label'] for r in rows)} gold", file=sys.stderr)
    report = {}
    sections = {}
    for reading in ("words", "meaning"):
        usable = [r for r in rows if r[reading] is not None]
        if not usable:
            continue
        fit_rows = [r for r in usable if r["half"] == 0]
        held = [r for r in usable if r["half"] == 1]
        ruled = lambda r, k=reading: any(r[k][i] > 0 for i, n in enumerate(NAMES) if n in RULES)
        x = lambda r, k=reading: [r[k][i] for i in FITTED]
        fitted = [r for r in fit_rows if not ruled(r)]
        model = att.fit([x(r) for r in fitted], [r["label"] for r in fitted], l2=1.0)
        score = lambda r, m=model: 0.0 if ruled(r) else att.prob(m, x(r))
        t = threshold([score(r) for r in fit_rows], [r["label"] for r in fit_rows])
        # The other way round too: how much the figure depends on the half.
        fitted_b = [r for r in held if not ruled(r)]
        model_b = att.fit([x(r) for r in fitted_b], [r["label"] for r in fitted_b], l2=1.0)
        score_b = lambda r, m=model_b: 0.0 if ruled(r) else att.prob(m, x(r))
        t_b = threshold([score_b(r) for r in held], [r["label"] for r in held])
        bm25 = lambda r, k=reading: r[k][0]
        t_bm = threshold([bm25(r) for r in fit_rows], [r["label"] for r in fit_rows])
        report[reading] = {
            "weights": dict(zip(["bias"] + [NAMES[i] for i in FITTED], [round(model[0], 4)] + [round(w, 4) for w in model[1]])),
            "ruled_out": {"sentences": sum(1 for r in usable if ruled(r)), "gold": sum(r["label"] for r in usable if ruled(r))},
            "threshold": t,
            "held_out": scored(held, questions, score, t),
            "held_out_other_way": scored(fit_rows, questions, score_b, t_b),
            "fitted_on": scored(fit_rows, questions, score, t),
            "bm25_alone_held_out": scored(held, questions, bm25, t_bm),
        }
        sections[reading] = (model, t, len(fit_rows), len(held))
    print(json.dumps(report, indent=1))
    if a.write_weights:
        lines = ["# The answering measure's weights: a logistic regression over the signals of",
                 "# crates/pipeline/src/steps/relevance/answers.rs, written by scripts/answer-fit.py",
                 "# --write-weights. Labels: a sentence states a gold sentence of its question's answer, a",
                 "# bearing one or one a reader judged so (benches/answers/, written by reading the pages; the",
                 "# judged pool: README.md there). Fitted on the even-numbered questions of",
                 "# each set (Newton's method, L2 1.0 on standardised signals); `answers` is the probability",
                 "# at which 60% of the gold sentences there answer. Held-out figures (odd-numbered questions): BENCHMARKS.md.",
                 "# `document` and `little` decide by rule (a passage with one never answers): not fitted."]
        for reading, (model, t, n_fit, n_held) in sections.items():
            lines += ["", f"[{reading}]", f"# {n_fit} sentences fitted on, {n_held} held out;"
                      f" held out: {json.dumps(report[reading]['held_out'])}",
                      f"bias {model[0]:.6f}"] + [f"{NAMES[i]} {w:.6f}" for i, w in zip(FITTED, model[1])] + [f"answers {t:.3f}"]
        if "meaning" not in sections:
            sys.exit("answer-fit: no sentence model, so no meaning weights; not written")
        WEIGHTS.write_text("\n".join(lines) + "\n")
        print(f"written {WEIGHTS}", file=sys.stderr)


if __name__ == "__main__":
    main()

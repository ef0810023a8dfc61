#!/usr/bin/env python3
"""Loads documentation folders straight into a team library on PostgreSQL, for measuring its
search at a size the app takes hours to index (BENCHMARKS, "The team library's keyword search").

Not the app's indexing: tags are stripped crudely (a block element's end starts a paragraph),
PDFs read by `pdftotext`, paragraphs packed into passages of up to 1,500 characters and a longer
one cut at sentence ends (as the library does), every passage stemmed `english`, Sphinx
`_sources/` copies left out. Good enough for what it is for: real text with real word frequencies, and the
tables and indexes the app's migrations make.

    DATABASE_URL="host=… dbname=library" research library list   # makes the schema once
    python3 scripts/load-pg-library.py --psql "host=… dbname=library" --machine bench \\
        [--max 1000000] DIR [DIR …]

Then measure with the scale bench (`SCALE_BENCH_POSTGRES_URL`, `SCALE_BENCH_RESUME=1`,
`SCALE_BENCH_KEYWORDS_ONLY=1`, and `SCALE_BENCH_DIRS` listing the same folders; its machine is
`bench`), or search it as the app would with `RESEARCH_STUDIO_MACHINE` set to the machine given.
"""

import argparse
import html
import os
import re
import subprocess
import sys
import tempfile

PASSAGE_CHARS = 1500
TAG = re.compile(r"<script.*?</script>|<style.*?</style>|<[^>]+>", re.S | re.I)
BLOCK_END = re.compile(r"</(?:p|div|li|h[1-6]|pre|tr|table|dd|dt|section|blockquote)\s*>|<br\s*/?>", re.I)
SENTENCE = re.compile(r"[^.!?\n]*[.!?\n]+|[^.!?\n]+$")
KINDS = (".html", ".htm", ".txt", ".rst", ".md", ".tex", ".pdf")


def tsv(text):
    return (
        text.replace("\x00", "")
        .replace("\\", "\\\\")
        .replace("\t", " ")
        .replace("\n", "\\n")
        .replace("\r", " ")
    )


def pieces(para):
    """A paragraph longer than a passage, cut at sentence ends (and at the limit if one is longer)."""
    if len(para) <= PASSAGE_CHARS:
        yield para
        return
    piece = ""
    for sentence in SENTENCE.findall(para):
        if piece and len(piece) + len(sentence) > PASSAGE_CHARS:
            yield piece.strip()
            piece = ""
        while len(sentence) > PASSAGE_CHARS:
            yield sentence[:PASSAGE_CHARS].strip()
            sentence = sentence[PASSAGE_CHARS:]
        piece += sentence
    if piece.strip():
        yield piece.strip()


def passages(text):
    paras = [re.sub(r"[ \t]+", " ", p).strip() for p in re.split(r"\n\s*\n", text)]
    current = ""
    for para in (piece for p in paras if len(p) > 20 for piece in pieces(p)):
        if current and len(current) + len(para) + 2 > PASSAGE_CHARS:
            yield current
            current = ""
        current = f"{current}\n\n{para}" if current else para
    if current:
        yield current


def read(path):
    """A file's text: HTML with its tags stripped, a PDF through pdftotext, anything else as is."""
    if path.endswith(".pdf"):
        done = subprocess.run(
            ["pdftotext", "-q", "-enc", "UTF-8", path, "-"],
            capture_output=True,
            timeout=120,
        )
        return done.stdout.decode("utf-8", "replace")
    raw = open(path, errors="replace").read()
    if path.endswith((".html", ".htm")):
        return html.unescape(TAG.sub(" ", BLOCK_END.sub("\n\n", raw)))
    return raw


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--psql", required=True, help="a libpq connection string")
    ap.add_argument("--machine", default="bench")
    ap.add_argument("--max", type=int, default=1_000_000, help="passages at most")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="pg-library-")
    os.chmod(work, 0o755)
    files_path, passages_path = f"{work}/files.tsv", f"{work}/passages.tsv"
    file_id = passage_id = 0
    roots = []
    with open(files_path, "w") as files, open(passages_path, "w") as out:
        for folder in args.dirs:
            root = os.path.realpath(folder)
            roots.append(root)
            for here, _, names in os.walk(root, followlinks=True):
                if "/_sources/" in here + "/":
                    continue
                for name in sorted(names):
                    if passage_id >= args.max:
                        break
                    if not name.endswith(KINDS):
                        continue
                    path = os.path.join(here, name)
                    try:
                        text = read(path)
                    except (OSError, subprocess.SubprocessError):
                        continue
                    found = list(passages(text))[: args.max - passage_id]
                    if not found:
                        continue
                    file_id += 1
                    files.write(f"{file_id}\t{args.machine}\t{tsv(root)}\t{tsv(path)}\n")
                    for order, passage in enumerate(found):
                        passage_id += 1
                        out.write(f"{passage_id}\t{file_id}\t{args.machine}\t{order}\tenglish\t{tsv(passage)}\n")
    for path in (files_path, passages_path):
        os.chmod(path, 0o644)
    print(f"{file_id} files, {passage_id} passages", file=sys.stderr)

    m = args.machine.replace("'", "''")
    root_rows = ", ".join("('{}', '{}', 0)".format(m, r.replace("'", "''")) for r in roots)
    sql = f"""
\\set ON_ERROR_STOP on
SET search_path = research;
BEGIN;
-- Ids after what the library holds, so a second load adds rather than collides.
CREATE TEMP TABLE f (id BIGINT, machine TEXT, root TEXT, path TEXT);
CREATE TEMP TABLE p (id BIGINT, file_id BIGINT, machine TEXT, ord INTEGER, config TEXT, text TEXT);
\\copy f FROM '{files_path}'
\\copy p FROM '{passages_path}'
INSERT INTO library_roots (machine, path, added_at_ms) VALUES {root_rows} ON CONFLICT DO NOTHING;
SELECT coalesce(max(id), 0) AS fbase FROM library_files \\gset
SELECT coalesce(max(id), 0) AS pbase FROM library_passages \\gset
INSERT INTO library_files (id, machine, root, path, mtime_ns, size, sha256, kind, indexed_at_ms)
  SELECT id + :fbase, machine, root, path, 0, 0, '', 'text', 0 FROM f;
DROP INDEX library_passages_words;
INSERT INTO library_passages (id, file_id, machine, ord, config, text, words)
  SELECT id + :pbase, file_id + :fbase, machine, ord, config, text, to_tsvector('english', text) FROM p;
CREATE INDEX library_passages_words ON library_passages USING GIN (words);
SELECT setval('library_files_id_seq', (SELECT max(id) FROM library_files));
SELECT setval('library_passages_id_seq', (SELECT max(id) FROM library_passages));
COMMIT;
VACUUM ANALYZE library_passages;
VACUUM ANALYZE library_files;
"""
    subprocess.run(["psql", args.psql, "-q", "-o", "/dev/null"], input=sql, text=True, check=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Validate benches/near-miss/cases.jsonl.

Checks (any failure -> exit 1):
  * every line is a JSON object with the required fields and allowed values;
  * ids are unique;
  * each passage is plain text (no HTML tags, whitespace already collapsed) and
    occurs verbatim in the visible text of its page (same extraction as the
    README: drop <script>/<style>, replace tags by spaces, unescape entities,
    collapse whitespace). A page that is not installed is skipped with a warning;
  * counts: >= 45 "true" and >= 45 "near-miss" rows; >= 3 corpora with >= 12 of
    each label; >= 6 near-misses each of comparison, exclusive,
    negation-synonym and opposed-state;
  * the two required rows "issue-true" / "issue-near-miss" are present with the
    exact claims;
  * lexical shape: a "true" claim must not copy a run of 6 or more consecutive
    passage words, and must reuse at most 60% of its own content words from the
    passage; a near-miss claim must take at least 50% of its content words from
    the passage (so it looks supported to a word-overlap checker).

Usage: python3 validate.py [cases.jsonl]
"""
import html
import json
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
REQUIRED = ["id", "corpus", "page", "passage", "claim", "label", "relation", "note"]
NEAR_MISS_RELATIONS = {"comparison", "exclusive", "negation-synonym",
                       "opposed-state", "role-swap", "number"}
MAIN_CORPORA = {"sqlite", "postgresql", "python"}
MIN_PER_LABEL = 45
MIN_PER_CORPUS_LABEL = 12
MIN_CORPORA = 3
MIN_PER_RELATION = {"comparison": 6, "exclusive": 6, "negation-synonym": 6,
                    "opposed-state": 6}
ISSUE_ROWS = {
    "issue-true": ("true", "SQLite uses a rollback journal to make commits atomic.",
                   "atomiccommit.html"),
    "issue-near-miss": ("near-miss",
                        "For transactions larger than about 100 megabytes, WAL mode is "
                        "likely to be faster than the rollback journal modes.",
                        "wal.html"),
}
TRUE_MAX_RUN = 6            # a true claim may not copy >= this many consecutive words
TRUE_MAX_COPIED = 0.60      # share of a true claim's content words found in passage
NEAR_MIN_COPIED = 0.50      # share of a near-miss claim's content words found in passage

STOP = set("""a an the and or but nor of to in on at by for from with without into onto
as is are was were be been being it its this that these those there their they them
he she we you your our i if then than so such do does did done not no can could may
might must should would will shall has have had having also any all each every which
who whom whose what when where while up out over under about after before per via
one only just very more most less much many some other another same own""".split())


def collapse(s):
    return re.sub(r"\s+", " ", s).strip()


_page_cache = {}


def page_text(path):
    if path not in _page_cache:
        t = open(path, encoding="utf-8", errors="replace").read()
        t = re.sub(r"(?is)<(script|style).*?</\1>", "", t)
        t = re.sub(r"<[^>]+>", " ", t)
        _page_cache[path] = collapse(html.unescape(t))
    return _page_cache[path]


def words(s):
    return re.findall(r"[a-z0-9_]+", s.lower().replace("’", "'"))


def stem(w):
    for suf in ("ing", "ed", "es", "s"):
        if len(w) > len(suf) + 3 and w.endswith(suf):
            return w[: -len(suf)]
    return w


def content(s):
    return [stem(w) for w in words(s) if w not in STOP and len(w) > 1]


def copied_share(claim, passage):
    c = content(claim)
    p = set(content(passage))
    return (sum(1 for w in c if w in p) / len(c)) if c else 0.0


def longest_common_run(claim, passage):
    a, b = words(claim), words(passage)
    best = 0
    prev = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "cases.jsonl")
    errors, warnings, rows = [], [], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"line {n}: bad JSON: {e}")
                continue
            if not isinstance(row, dict):
                errors.append(f"line {n}: not an object")
                continue
            missing = [k for k in REQUIRED if not isinstance(row.get(k), str) or not row[k].strip()]
            if missing:
                errors.append(f"line {n}: missing/empty fields {missing}")
                continue
            row["_line"] = n
            rows.append(row)

    ids = Counter(r["id"] for r in rows)
    for i, c in ids.items():
        if c > 1:
            errors.append(f"duplicate id {i!r} ({c} times)")

    skipped_pages = set()
    true_shares, near_shares = [], []
    for r in rows:
        where = f"{r['id']} (line {r['_line']})"
        if r["label"] not in ("true", "near-miss"):
            errors.append(f"{where}: bad label {r['label']!r}")
        if r["label"] == "true" and r["relation"] != "paraphrase":
            errors.append(f"{where}: true rows must have relation 'paraphrase'")
        if r["label"] == "near-miss" and r["relation"] not in NEAR_MISS_RELATIONS:
            errors.append(f"{where}: bad near-miss relation {r['relation']!r}")
        p = r["passage"]
        if re.search(r"<[A-Za-z/!][^>]*>", p):
            errors.append(f"{where}: passage contains an HTML tag")
        if p != collapse(p):
            errors.append(f"{where}: passage whitespace is not collapsed")
        if r["claim"] != collapse(r["claim"]):
            errors.append(f"{where}: claim whitespace is not collapsed")
        if r["claim"].strip() == p.strip():
            errors.append(f"{where}: claim identical to passage")
        if os.path.exists(r["page"]):
            if collapse(p) not in page_text(r["page"]):
                errors.append(f"{where}: passage not found verbatim in {r['page']}")
        else:
            skipped_pages.add(r["page"])

        share = copied_share(r["claim"], p)
        run = longest_common_run(r["claim"], p)
        if r["label"] == "true":
            true_shares.append(share)
            if run >= TRUE_MAX_RUN:
                errors.append(f"{where}: true claim copies {run} consecutive passage words")
            if share > TRUE_MAX_COPIED:
                errors.append(f"{where}: true claim takes {share:.0%} of its content words "
                              f"from the passage (max {TRUE_MAX_COPIED:.0%})")
        else:
            near_shares.append(share)
            if share < NEAR_MIN_COPIED:
                errors.append(f"{where}: near-miss claim takes only {share:.0%} of its content "
                              f"words from the passage (min {NEAR_MIN_COPIED:.0%})")

    for rid, (label, claim, page_end) in ISSUE_ROWS.items():
        r = next((x for x in rows if x["id"] == rid), None)
        if r is None:
            errors.append(f"required row {rid!r} missing")
            continue
        if r["label"] != label or r["claim"] != claim or not r["page"].endswith("/" + page_end):
            errors.append(f"required row {rid!r} has wrong label/claim/page")

    labels = Counter(r["label"] for r in rows)
    per_corpus = Counter((r["corpus"], r["label"]) for r in rows)
    relations = Counter(r["relation"] for r in rows if r["label"] == "near-miss")
    corpora = sorted({r["corpus"] for r in rows})

    for label in ("true", "near-miss"):
        if labels[label] < MIN_PER_LABEL:
            errors.append(f"only {labels[label]} {label!r} rows (need {MIN_PER_LABEL})")
    good_corpora = [c for c in corpora
                    if per_corpus[(c, "true")] >= MIN_PER_CORPUS_LABEL
                    and per_corpus[(c, "near-miss")] >= MIN_PER_CORPUS_LABEL]
    if len(good_corpora) < MIN_CORPORA:
        errors.append(f"only {len(good_corpora)} corpora with >= {MIN_PER_CORPUS_LABEL} rows "
                      f"of each label (need {MIN_CORPORA})")
    for c in MAIN_CORPORA:
        if c not in good_corpora:
            warnings.append(f"corpus {c!r} lacks {MIN_PER_CORPUS_LABEL} rows of each label")
    for rel, need in MIN_PER_RELATION.items():
        if relations[rel] < need:
            errors.append(f"only {relations[rel]} near-misses with relation {rel!r} (need {need})")

    for pth in sorted(skipped_pages):
        warnings.append(f"page not installed, passage check skipped: {pth}")

    print(f"rows: {len(rows)}  true: {labels['true']}  near-miss: {labels['near-miss']}")
    for c in corpora:
        print(f"  {c:12s} true {per_corpus[(c, 'true')]:3d}  near-miss {per_corpus[(c, 'near-miss')]:3d}")
    print("near-miss relations: " + ", ".join(f"{k} {v}" for k, v in sorted(relations.items())))
    if true_shares and near_shares:
        print(f"mean share of claim content words found in passage: "
              f"true {sum(true_shares) / len(true_shares):.2f}, "
              f"near-miss {sum(near_shares) / len(near_shares):.2f}")
    for w in warnings:
        print("WARNING:", w)
    for e in errors:
        print("ERROR:", e)
    if errors:
        print(f"FAILED ({len(errors)} errors)")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

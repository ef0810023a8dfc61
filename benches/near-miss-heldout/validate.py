#!/usr/bin/env python3
"""Check benches/near-miss-heldout/cases.jsonl.

Run: python3 benches/near-miss-heldout/validate.py [path/to/cases.jsonl]
Exits 1 on any error. Pages that are not installed are skipped with a warning.
"""
import collections
import html
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIELDS = ["id", "corpus", "page", "passage", "claim", "label", "relation", "note"]
CORPORA = {"sqlite", "postgresql", "python", "debian"}
LABELS = {"true", "near-miss"}
NEAR_MISS_RELATIONS = {"comparison", "exclusive", "negation-synonym",
                       "opposed-state", "role-swap", "number"}
MIN_PER_LABEL = 45          # rows of each label overall
MIN_PER_CORPUS_LABEL = 12   # rows of each label in each required corpus
REQUIRED_CORPORA = ("sqlite", "postgresql", "python")
MIN_RELATION = {"comparison": 6, "exclusive": 6, "negation-synonym": 6,
                "opposed-state": 6, "role-swap": 4, "number": 4}
# lexical shape (see README): true claims are paraphrases, near-misses are close copies
MAX_TRUE_RUN = 6            # a true claim may not copy 6+ consecutive passage words
MAX_TRUE_OVERLAP = 0.60     # share of true-claim content words found in the passage
MIN_NEAR_MISS_OVERLAP = 0.50

STOP = set("""a an the and or but nor of to in on at by for with from into onto
over under as is are was were be been being it its this that these those there
their they them he she his her we our you your i not no so if then than when
while which who whom whose what where how all any each every some such can could
may might must shall should will would do does did done has have had having also
only just very more most less least one other another own same both either
neither too up down out about above below after before again further once here
s t""".split())


def visible_text(path):
    """Visible text of an HTML page, exactly as used to copy the passages."""
    t = open(path, encoding="utf-8", errors="replace").read()
    t = re.sub(r"(?is)<(script|style).*?</\1>", "", t)
    t = re.sub(r"<[^>]+>", " ", t)
    return re.sub(r"\s+", " ", html.unescape(t))


def words(s):
    return re.findall(r"[a-z0-9_]+", s.lower())


def stem(w):
    for suf in ("ing", "ed", "es", "s", "ly"):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            return w[: -len(suf)]
    return w


def content(s):
    return [stem(w) for w in words(s) if w not in STOP]


def overlap(claim, passage):
    c = content(claim)
    p = set(content(passage))
    return sum(1 for w in c if w in p) / len(c) if c else 0.0


def longest_run(claim, passage):
    c, p = words(claim), words(passage)
    best = 0
    prev = [0] * (len(p) + 1)
    for i in range(1, len(c) + 1):
        cur = [0] * (len(p) + 1)
        for j in range(1, len(p) + 1):
            if c[i - 1] == p[j - 1]:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "cases.jsonl")
    errors, warnings = [], []
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                errors.append(f"line {n}: empty line")
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"line {n}: bad JSON: {e}")
                continue
            if not isinstance(obj, dict):
                errors.append(f"line {n}: not a JSON object")
                continue
            rows.append((n, obj))

    ids = collections.Counter()
    pages = {}
    ov = collections.defaultdict(list)
    for n, r in rows:
        where = f"line {n} ({r.get('id', '?')})"
        missing = [k for k in FIELDS if not isinstance(r.get(k), str) or not r.get(k).strip()]
        if missing:
            errors.append(f"{where}: missing or empty fields {missing}")
            continue
        extra = set(r) - set(FIELDS)
        if extra:
            errors.append(f"{where}: unexpected fields {sorted(extra)}")
        ids[r["id"]] += 1
        if r["corpus"] not in CORPORA:
            errors.append(f"{where}: bad corpus {r['corpus']!r}")
        if r["label"] not in LABELS:
            errors.append(f"{where}: bad label {r['label']!r}")
        if r["label"] == "true" and r["relation"] != "paraphrase":
            errors.append(f"{where}: true rows need relation 'paraphrase'")
        if r["label"] == "near-miss" and r["relation"] not in NEAR_MISS_RELATIONS:
            errors.append(f"{where}: bad near-miss relation {r['relation']!r}")
        if not r["id"].endswith("-" + r["label"]):
            warnings.append(f"{where}: id does not end with its label")
        psg = r["passage"]
        if re.search(r"<[^>]+>", psg):
            errors.append(f"{where}: passage contains an HTML tag")
        if psg != re.sub(r"\s+", " ", psg).strip():
            errors.append(f"{where}: passage whitespace is not collapsed")
        page = r["page"]
        if page not in pages:
            pages[page] = visible_text(page) if os.path.isfile(page) else None
            if pages[page] is None:
                warnings.append(f"page not installed, passage check skipped: {page}")
        if pages[page] is not None and psg not in pages[page]:
            errors.append(f"{where}: passage not found in {page}")
        # lexical shape
        o = overlap(r["claim"], psg)
        ov[r["label"]].append(o)
        if r["label"] == "true":
            run = longest_run(r["claim"], psg)
            if run >= MAX_TRUE_RUN:
                errors.append(f"{where}: true claim copies {run} consecutive passage words")
            if o > MAX_TRUE_OVERLAP:
                errors.append(f"{where}: true claim content-word overlap {o:.2f} > {MAX_TRUE_OVERLAP}")
        elif r["label"] == "near-miss":
            if o < MIN_NEAR_MISS_OVERLAP:
                errors.append(f"{where}: near-miss content-word overlap {o:.2f} < {MIN_NEAR_MISS_OVERLAP}")
            if r["claim"].strip() == psg.strip():
                errors.append(f"{where}: near-miss claim equals its passage")

    for i, k in ids.items():
        if k > 1:
            errors.append(f"duplicate id {i!r} ({k} times)")

    good = [r for _, r in rows if all(isinstance(r.get(k), str) for k in FIELDS)]
    by_label = collections.Counter(r["label"] for r in good)
    by_cl = collections.Counter((r["corpus"], r["label"]) for r in good)
    by_rel = collections.Counter(r["relation"] for r in good if r["label"] == "near-miss")
    by_crel = collections.Counter((r["corpus"], r["relation"]) for r in good)
    for lab in sorted(LABELS):
        if by_label[lab] < MIN_PER_LABEL:
            errors.append(f"only {by_label[lab]} {lab} rows (need {MIN_PER_LABEL})")
    for corp in REQUIRED_CORPORA:
        for lab in sorted(LABELS):
            if by_cl[(corp, lab)] < MIN_PER_CORPUS_LABEL:
                errors.append(f"only {by_cl[(corp, lab)]} {lab} rows in {corp} (need {MIN_PER_CORPUS_LABEL})")
    for rel, k in MIN_RELATION.items():
        if by_rel[rel] < k:
            errors.append(f"only {by_rel[rel]} {rel} near-misses (need {k})")

    passages = collections.defaultdict(set)
    for r in good:
        passages[(r["page"], r["passage"])].add(r["label"])
    paired = sum(1 for v in passages.values() if v == LABELS)

    print(f"rows: {len(good)}  true: {by_label['true']}  near-miss: {by_label['near-miss']}")
    for corp in sorted({r['corpus'] for r in good}):
        rels = ", ".join(f"{rel} {by_crel[(corp, rel)]}" for rel in sorted(NEAR_MISS_RELATIONS))
        print(f"  {corp:<11} true {by_cl[(corp, 'true')]:3}  near-miss {by_cl[(corp, 'near-miss')]:3}  [{rels}]")
    print("near-miss relations: " + ", ".join(f"{k} {by_rel[k]}" for k in sorted(NEAR_MISS_RELATIONS)))
    print(f"distinct passages: {len(passages)}  with both labels: {paired}  pages: {len(pages)}")
    if ov["true"] and ov["near-miss"]:
        print("mean share of claim content words found in passage: "
              f"true {sum(ov['true'])/len(ov['true']):.2f}, "
              f"near-miss {sum(ov['near-miss'])/len(ov['near-miss']):.2f}")
    for w in warnings:
        print("warning:", w)
    for e in errors:
        print("ERROR:", e)
    if errors:
        print(f"FAILED with {len(errors)} error(s)")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

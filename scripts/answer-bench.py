#!/usr/bin/env python3
"""The answer benchmark of issue 50: does a report give the answer, not only share its words?

For each question of benches/answers/<set>.json — answers written by reading the set's pages, as
2–5 facts with the sentences that state them (benches/answers/README.md) — runs the real
`research run --json` over the set as a library (`research library add`, `--search local`,
`--depth quick`) with the scripted model, SmolLM2-135M and/or Gemma 3 270M, and scores what the
report quotes (the evidence of the sentences its audit kept):

  fact recall       the share of the answer's facts that a quoted passage states: the passage and
                    one of the fact's gold sentences overlap (STATES below);
  passage precision the share of quoted passages that state an answer fact or bear directly on
                    one (a gold `bearing` sentence);
  read an answer    whether the run read one of the question's answering pages at all (what
  page              retrieval gave the rest to work with);
  coverage honest   the coverage the report's method section states is no more than the fact
                    recall allows (COVERAGE_SLACK above it at most);
  headings          the report's section headings and research questions that read as one
                    question (no list numbering, no "No, no, no!");
  usable/grounded   tests/tools/check_usable.py and check_grounding.py --require-audit pass.

Usage:
  scripts/answer-bench.py [--model scripted,smollm2,gemma] [--set sqlite,postgresql,python,ja]
                          [--only ID,...] [--bin PATH] [--out DIR] [--summary FILE] [--fresh] [--cached]
The runs themselves are retrieval-bench.py's (one database per set, indexed once; each run on a
copy); results are kept in --out and reused, so a long benchmark can be run in pieces.
"""
import argparse
import importlib.util
import json
import re
import sys
import time
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "benches" / "answers"

_spec = importlib.util.spec_from_file_location("retrieval_bench", ROOT / "scripts" / "retrieval-bench.py")
rb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rb)

# A quote states a gold sentence when this share of the shorter one's tokens is in the other, and
# at least MIN_SHARED tokens are (a quote may be part of a long sentence, or hold it and more).
STATES = 0.7
MIN_SHARED = 4
MIN_SHARED_CJK = 6
# The coverage a report may state above its fact recall (levels are coarse: a research question
# is missing, partly or well covered).
COVERAGE_SLACK = 0.1
COVERAGE = re.compile(r"(?:Coverage of the research questions|網羅度)\s*[:：]\s*(\d+)\s*%")
CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")
WORD = re.compile(r"[^\W_]+")
# A heading or research question a reader would not take for one question.
NOT_ONE_QUESTION = re.compile(r"(?:^|\s)\d+[.)]\s+\S.*(?:^|\s)\d+[.)]\s|!\s*\d|(\b\w+\b)[,!.]?\s+\1[,!.]?\s+\1\b", re.I)


def tokens(text):
    """Words (lower-cased, NFKC), and for CJK runs character bigrams: the units two texts share."""
    text = unicodedata.normalize("NFKC", text).lower()
    out = set()
    for m in WORD.finditer(text):
        w = m.group()
        if CJK.search(w):
            chars = [c for c in w if CJK.match(c) or c.isalnum()]
            out.update(a + b for a, b in zip(chars, chars[1:]))
        elif len(w) > 1 or w.isdigit():
            out.add(w)
    return out


def states(quote, sentence):
    """Whether `quote` says `sentence` (or the part of it it holds)."""
    q, s = tokens(quote), tokens(sentence)
    if not q or not s:
        return False
    shared = len(q & s)
    need = MIN_SHARED_CJK if CJK.search(sentence) else MIN_SHARED
    return shared >= min(need, len(s)) and shared / min(len(q), len(s)) >= STATES


def fact_sentences(question):
    """For each fact of `question`'s answer, the sentences that state it: its evidence, and the
    pooled sentences a reader judged to state it (`judged`, README.md)."""
    out = [[ev["sentence"] for ev in f["evidence"]] for f in question["facts"]]
    for j in question.get("judged") or []:
        if j["label"].startswith("fact "):
            out[int(j["label"].split()[1]) - 1].append(j["sentence"])
    return out


def bearing_sentences(question):
    """The sentences that bear directly on `question`'s answer without stating a fact of it."""
    return [b["sentence"] for b in question.get("bearing") or []] + [
        j["sentence"] for j in question.get("judged") or [] if j["label"] == "bearing"]


def score(result, question, folder):
    cited = rb.cited_evidence(result)
    quotes = [(e.get("quote") or "", rb.page_of(e.get("source_url"), folder)) for e in cited]
    facts = question["facts"]
    stating = fact_sentences(question)
    found = [any(states(q, sentence) for q, _ in quotes for sentence in said) for said in stating]
    gold = [sentence for said in stating for sentence in said] + bearing_sentences(question)
    precise = [any(states(q, g) for g in gold) for q, _ in quotes]
    recall = sum(found) / len(facts)
    report = result.get("report") or ""
    m = COVERAGE.search(report)
    stated = int(m.group(1)) / 100 if m else None
    headings = [h.strip("# ").strip() for h in report.splitlines() if h.startswith("## ") or h.startswith("### ")]
    asked = [q if isinstance(q, str) else q.get("question", "") for q in result.get("research_questions") or []]
    bad = [t for t in headings + asked if NOT_ONE_QUESTION.search(t)]
    return {
        "facts": len(facts),
        "facts_found": sum(found),
        "fact_recall": round(recall, 3),
        "found": [f["fact"] for f, ok in zip(facts, found) if ok],
        "missed": [f["fact"] for f, ok in zip(facts, found) if not ok],
        "quoted": len(quotes),
        "quoted_precise": sum(precise),
        "precision": round(sum(precise) / len(quotes), 3) if quotes else None,
        "imprecise": [q[:160] for (q, _), ok in zip(quotes, precise) if not ok][:8],
        "on_gold_page": sum(1 for _, p in quotes if p in set(question.get("pages") or [])),
        "read_gold_page": any(rb.page_of(src.get("url"), folder) in set(question.get("pages") or [])
                              for src in result.get("sources") or []),
        "coverage_stated": stated,
        "coverage_honest": stated is None or stated <= recall + COVERAGE_SLACK,
        "not_one_question": bad[:4],
    }


def totals(records):
    ok = [r for r in records if "error" not in r]
    n = len(records)
    quoted = sum(r["quoted"] for r in ok)
    mean = lambda k: round(sum(r[k] for r in ok) / n, 3) if n else None
    return {
        "runs": n,
        "failed": n - len(ok),
        "fact_recall": mean("fact_recall"),
        "facts": f"{sum(r['facts_found'] for r in ok)}/{sum(r['facts'] for r in ok)}",
        "precision": round(sum(r["quoted_precise"] for r in ok) / quoted, 3) if quoted else None,
        "quoted": quoted,
        "on_gold_page": round(sum(r["on_gold_page"] for r in ok) / quoted, 3) if quoted else None,
        "read_gold_page": sum(1 for r in ok if r.get("read_gold_page")),
        "coverage_honest": sum(1 for r in ok if r["coverage_honest"]),
        "coverage_stated_mean": round(sum(r["coverage_stated"] or 0 for r in ok) / len(ok), 3) if ok else None,
        "not_one_question": sum(1 for r in ok if r["not_one_question"]),
        "usable_pass": sum(1 for r in ok if r["usable"]),
        "grounded_pass": sum(1 for r in ok if r["grounded"]),
        "mean_run_s": round(sum(r.get("seconds") or 0 for r in records) / n, 1) if n else None,
    }


def table(summary):
    rows = ["| set | model | runs | fact recall | facts found | passage precision | quoted from an answer page "
            "| read an answer page | coverage stated (mean) | coverage honest | headings not one question | check_usable | check_grounding "
            "| mean run |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    f = lambda v: "—" if v is None else f"{v:.2f}"
    for key, t in summary["totals"].items():
        s, m = key.split("/", 1)
        rows.append(f"| {s} | {m} | {t['runs']}{' (' + str(t['failed']) + ' failed)' if t['failed'] else ''} "
                    f"| {f(t['fact_recall'])} | {t['facts']} | {f(t['precision'])} of {t['quoted']} "
                    f"| {f(t['on_gold_page'])} | {t['read_gold_page']}/{t['runs']} | {f(t['coverage_stated_mean'])} | {t['coverage_honest']}/{t['runs']} "
                    f"| {t['not_one_question']} | {t['usable_pass']}/{t['runs']} | {t['grounded_pass']}/{t['runs']} "
                    f"| {t['mean_run_s']} s |")
    return "\n".join(rows)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="scripted", help="comma list: scripted, smollm2, gemma, or an --llm spec")
    p.add_argument("--set", default="sqlite,postgresql,python,ja", help="comma list (benches/answers/NAME.json)")
    p.add_argument("--only", help="comma list of question ids")
    p.add_argument("--bin", default=str(Path(rb.os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))) / "release" / "research"))
    p.add_argument("--out", default=str(Path.home() / ".cache" / "research-studio" / "answer-bench"))
    p.add_argument("--summary", help="write the summary JSON here (default OUT/summary.json)")
    p.add_argument("--fresh", action="store_true", help="run again even when OUT has a result")
    p.add_argument("--cached", action="store_true", help="run nothing: score the results OUT already has")
    p.add_argument("--library-meaning", action="store_true",
                   help="the library indexed by meaning too (as `library add` does with the sentence model installed)")
    a = p.parse_args()
    if not a.cached and not Path(a.bin).is_file():
        sys.exit(f"answer-bench: no research binary at {a.bin} (cargo build --release -p research-cli, or --bin)")
    out_dir = Path(a.out)
    only = set(a.only.split(",")) if a.only else None
    summary = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "bin": a.bin, "totals": {}, "runs": []}
    for set_name in a.set.split(","):
        gold = json.loads((GOLD / f"{set_name}.json").read_text())
        folder = gold["folder"]
        if not Path(folder).is_dir():
            sys.exit(f"answer-bench: {folder} is missing; scripts/fetch-corpora.sh {set_name} installs it")
        questions = [q for q in gold["questions"] if not only or q["id"] in only]
        if not questions:
            continue
        db = None if a.cached else rb.library_db(a.bin, gold, out_dir, a.library_meaning)[0]
        for model in a.model.split(","):
            spec = None if a.cached else rb.model_spec(model)
            run_dir = out_dir / set_name / re.sub(r"[^\w.-]+", "_", model)
            run_dir.mkdir(parents=True, exist_ok=True)
            records = []
            for q in questions:
                result_file = run_dir / f"{q['id']}.json"
                if a.cached and not result_file.is_file():
                    continue
                result, error, seconds = rb.result_of(a.bin, spec, db, q, run_dir, a.fresh, a.cached)
                if result is not None:
                    record = score(result, q, folder)
                    record["usable"], record["usable_line"] = rb.checker("check_usable.py", result_file)
                    record["grounded"], record["grounded_line"] = rb.checker(
                        "check_grounding.py", result_file, folder, "--require-audit")
                    record["seconds"] = seconds
                else:
                    record = {"error": error, "seconds": seconds}
                record.update({"set": set_name, "model": model, "id": q["id"], "kind": q.get("kind")})
                records.append(record)
                print(f"{set_name}/{model}/{q['id']}: " + (
                    f"recall={record['fact_recall']:.2f} ({record['facts_found']}/{record['facts']}) "
                    f"precision={record['precision']} of {record['quoted']} coverage={record['coverage_stated']} "
                    f"honest={record['coverage_honest']} usable={record['usable']} grounded={record['grounded']} "
                    f"{record['seconds']}s" if "error" not in record else f"FAILED {record['error'][:200]}"),
                    file=sys.stderr, flush=True)
            if records:
                summary["totals"][f"{set_name}/{model}"] = totals(records)
            summary["runs"] += records
    target = Path(a.summary) if a.summary else out_dir / "summary.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n")
    print(table(summary))
    print(f"summary written to {target}", file=sys.stderr)


if __name__ == "__main__":
    main()

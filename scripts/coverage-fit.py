#!/usr/bin/env python3
"""Scores the coverage a report states (crates/pipeline/src/steps/gaps.rs, `answered`) against
the gold answers of benches/answers/: how much of a question's answer do the passages a run found
state?

Reads saved runs (`research run --json` results that scripts/answer-bench.py wrote:
OUT/SET/MODEL/ID.json), gives each run's evidence to the `coverage_signals` example (the share of a
complete answer the code states for it; which items back the question, with their answering
probability, and how close in meaning each pair of them is), and scores against the run's fact
recall (answer-bench.py's measure): a coverage is *honest* when it is at most fact recall +
answer-bench's slack. Scored: the coverage line the saved report states (the code that ran), the
share the code now states for the same evidence (its constants are derived from the gold answers,
not fitted on runs), and with `--alternatives` a grid of other groupings and scales, each fitted on
the even-numbered questions of each set and scored on the odd ones (and the other way round).

The sentence model must be installed as the program installs it (RESEARCH_STUDIO_EMBEDDER or the
cache folder), or the shares are the words-only reading's.

Usage: scripts/coverage-fit.py RUNS_DIR [RUNS_DIR …] [--alternatives] [--json OUT]
"""
import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "benches" / "answers"


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ab = load("answer_bench", "answer-bench.py")


def gold():
    out = {}
    for f in sorted(GOLD.glob("*.json")):
        g = json.loads(f.read_text())
        for i, q in enumerate(g.get("questions") or []):
            out[q["id"]] = (q, g["folder"], i % 2)
    return out


def runs(dirs, questions):
    for d in dirs:
        for f in sorted(Path(d).glob("*/*/*.json")):
            qid = f.stem
            if qid not in questions:
                continue
            r = json.loads(f.read_text())
            if not r.get("evidence") or not r.get("report"):
                continue
            q, folder, half = questions[qid]
            s = ab.score(r, q, folder)
            yield {"file": str(f), "id": qid, "half": half, "question": q["question"], "gold": q, "folder": folder,
                   "recall": s["fact_recall"], "stated": s["coverage_stated"],
                   "evidence": [{"fact": e.get("fact") or "", "quote": e.get("quote") or ""}
                                for e in (ab.rb.cited_evidence(r) if CITED else r["evidence"])]}


def signals(rows):
    built = subprocess.run(["bash", "-c", ". scripts/env.sh && cargo build --release -q -p research-pipeline "
                            "--example coverage_signals && echo \"$CARGO_TARGET_DIR\""],
                           check=True, cwd=ROOT, capture_output=True, text=True)
    target = built.stdout.strip().splitlines()[-1]
    out = subprocess.run([str(Path(target) / "release" / "examples" / "coverage_signals")],
                         input="\n".join(json.dumps({"id": i, "question": r["question"], "evidence": r["evidence"]},
                                                    ensure_ascii=False) for i, r in enumerate(rows)),
                         capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        s = json.loads(line)
        rows[s["id"]]["share"] = s["share"]
        rows[s["id"]]["answering"] = s["answering"]
        rows[s["id"]]["backing"] = s["backing"]
        rows[s["id"]]["close"] = s["close"]


def points(row, merge):
    """The backing items grouped into distinct points as gaps.rs groups them: most probable first,
    an item within `merge` of a point's first item makes that point; each point weighs its first."""
    ps = {b["index"]: b["p"] for b in row["backing"]}
    close = {(a, b): c for a, b, c in row["close"]}
    leaders = []
    for i in sorted(ps, key=lambda i: -ps[i]):
        if not any(close.get((min(i, j), max(i, j)), 0.0) >= merge for j in leaders):
            leaders.append(i)
    return [ps[i] for i in leaders]


def share(row, merge):
    """The share of a complete answer with points grouped at `merge` (gaps.rs's rule)."""
    return min(1.0, sum(points(row, merge)) / COMPLETE_ANSWER_POINTS)


def score(rows, f):
    honest = sum(1 for r in rows if f(r) <= r["recall"] + ab.COVERAGE_SLACK)
    err = sum(abs(f(r) - r["recall"]) for r in rows) / len(rows)
    mean = sum(f(r) for r in rows) / len(rows)
    n = len(rows)
    mx, my = mean, sum(r["recall"] for r in rows) / n
    cov = sum((f(r) - mx) * (r["recall"] - my) for r in rows)
    vx = sum((f(r) - mx) ** 2 for r in rows) ** 0.5
    vy = sum((r["recall"] - my) ** 2 for r in rows) ** 0.5
    return {"runs": n, "honest": honest, "honest_share": round(honest / n, 3), "mean_abs_error": round(err, 3),
            "mean_stated": round(mean, 3), "mean_recall": round(my, 3),
            "correlation": round(cov / (vx * vy), 3) if vx and vy else None}


def loss(rows, f):
    # Stating more than the facts found is what a reader would call wrong; stating less costs
    # only how far it is off.
    return sum(3.0 * max(0.0, f(r) - r["recall"] - ab.COVERAGE_SLACK) + abs(f(r) - r["recall"]) for r in rows)


# gaps.rs's COMPLETE_ANSWER_POINTS (derived from the gold answers, not fitted) and the groupings tried
# for SAME_POINT (the one constant fitted on runs).
COMPLETE_ANSWER_POINTS = 6.7
MERGES = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 1.01)
CITED = False


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dirs", nargs="+")
    p.add_argument("--json")
    p.add_argument("--cited", action="store_true", help="read only the evidence the report cites")
    p.add_argument("--alternatives", action="store_true", help="fit and score other estimators too")
    a = p.parse_args()
    global CITED
    CITED = a.cited
    rows = list(runs(a.dirs, gold()))
    signals(rows)
    report = {"before (the report's own line)": {}}
    stated = [r for r in rows if r["stated"] is not None]
    for half in (0, 1):
        held = [r for r in stated if r["half"] != half]
        report["before (the report's own line)"][f"held_out_{1 - half}"] = score(held, lambda r: r["stated"])
    report["now (gaps::answered)"] = {"all": score(rows, lambda r: r["share"])}
    for name in sorted({r["file"].split("/")[-3] for r in rows}):
        part = [r for r in rows if r["file"].split("/")[-3] == name]
        report["now (gaps::answered)"][name] = score(part, lambda r: r["share"])
        stated_part = [r for r in part if r["stated"] is not None]
        if stated_part:
            report["before (the report's own line)"][name] = score(stated_part, lambda r: r["stated"])
    report["before (the report's own line)"]["all"] = score(stated, lambda r: r["stated"])
    for half in (0, 1) if a.alternatives else ():
        fit = [r for r in rows if r["half"] == half]
        held = [r for r in rows if r["half"] != half]
        best = min(MERGES, key=lambda m: loss(fit, lambda r, m=m: share(r, m)))
        report[f"SAME_POINT fitted on half {half}"] = {"merge": best,
                                                       "fitted": score(fit, lambda r, m=best: share(r, m)),
                                                       "held_out": score(held, lambda r, m=best: share(r, m))}
    if a.alternatives:
        report["loss on all runs by SAME_POINT"] = {m: round(loss(rows, lambda r, m=m: share(r, m)), 2) for m in MERGES}
    print(json.dumps(report, indent=1))
    if a.json:
        Path(a.json).write_text(json.dumps({"report": report, "runs": [
            {k: r[k] for k in ("file", "id", "half", "recall", "stated", "share", "backing")} for r in rows]}, indent=1))


if __name__ == "__main__":
    main()

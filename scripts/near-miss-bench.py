#!/usr/bin/env python3
"""The citation checker on sentences written by reading documentation no one here wrote
(benches/near-miss/cases.jsonl): true sentences in a writer's own words, and near-misses that
change one relation of their passage (a comparison's sides, an exclusive, a negation with a
synonym, an opposed state, who did what, a number). Never fitted on: a held-out set.

Usage:
  near-miss-bench.py CHECK_MANY [--cases benches/near-miss/cases.jsonl] [--weights FILE] [--show]

CHECK_MANY is the check_many example's binary (cargo build --release -p research-cli --example
check_many); with RESEARCH_STUDIO_EMBEDDER set it reads meaning, without it words alone. Each
row is a one-sentence document "CLAIM [1]." citing its passage as a file. Prints, per label and
per relation: how many are verified, kept (verified, or partly at a calibrated probability of at
least one half: what a report keeps), and cut; with --show, every row's verdict.
"""
import argparse, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "benches", "near-miss", "cases.jsonl")
LIKELY = 0.5


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("check_many")
    ap.add_argument("--cases", default=CASES)
    ap.add_argument("--weights")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--json", metavar="OUT")
    a = ap.parse_args()
    rows = [json.loads(l) for l in open(a.cases, encoding="utf-8") if l.strip()]
    tmp = tempfile.mkdtemp(prefix="near-miss-")
    proc = subprocess.Popen([a.check_many], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    for i, r in enumerate(rows):
        folder = os.path.join(tmp, str(i))
        os.makedirs(folder)
        claim = r["claim"].strip()
        end = claim[-1] if claim[-1:] in ".!?" else "."
        body = claim[:-1] if claim[-1:] in ".!?" else claim
        with open(os.path.join(folder, "claim.md"), "w", encoding="utf-8") as f:
            f.write(f"{body} [1]{end}\n")
        with open(os.path.join(folder, "source1.txt"), "w", encoding="utf-8") as f:
            f.write(r["passage"] + "\n")
        request = {"document": os.path.join(folder, "claim.md"),
                   "sources": ["1=" + os.path.join(folder, "source1.txt")], "weights": a.weights}
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        if "error" in answer:
            r["status"], r["score"], r["check"] = "refused", 0.0, answer["error"]
        else:
            e = min(answer["audit"], key=lambda e: e["score"])
            r["status"], r["score"], r["check"] = e["status"], e["score"], e["check"]
            r["signals"] = e.get("signals")
        r["kept"] = r["status"] == "verified" or (r["status"] == "partly" and r["score"] >= LIKELY)
    proc.stdin.close()
    proc.wait()

    def line(name, rs):
        if not rs:
            return
        n = len(rs)
        v = sum(r["status"] == "verified" for r in rs)
        k = sum(r["kept"] for r in rs)
        c = sum(r["status"] in ("unsupported", "contradicted") or (r["status"] == "partly" and r["score"] < LIKELY) for r in rs)
        con = sum(r["status"] == "contradicted" for r in rs)
        print(f"| {name} | {n} | {v} ({v / n:.0%}) | {k} ({k / n:.0%}) | {c} ({c / n:.0%}) | {con} |")

    print("| rows | n | verified | kept (verified, or partly ≥ 0.5) | cut (under 0.5, unsupported, contradicted) | contradicted |")
    print("|---|---:|---:|---:|---:|---:|")
    true = [r for r in rows if r["label"] == "true"]
    miss = [r for r in rows if r["label"] != "true"]
    line("true, in a writer's own words", true)
    line("near-misses", miss)
    for rel in sorted({r["relation"] for r in miss}):
        line(f"near-miss: {rel}", [r for r in miss if r["relation"] == rel])
    for corpus in sorted({r["corpus"] for r in rows}):
        line(f"{corpus}: true", [r for r in true if r["corpus"] == corpus])
        line(f"{corpus}: near-misses", [r for r in miss if r["corpus"] == corpus])
    for r in rows:
        if r["id"].startswith("issue-"):
            print(f"{r['id']}: {r['status']} {r['score']:.2f} — {r['claim']}")
    if a.show:
        for r in rows:
            flag = "ok " if (r["label"] == "true") == r["kept"] else "BAD"
            print(f"{flag} [{r['label']}/{r['relation']}] {r['status']} {r['score']:.2f} {r['claim']}\n      {r['check']}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()

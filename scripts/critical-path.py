#!/usr/bin/env python3
"""How much of a research run's wall time waits on the model: the model-call critical path.

    scripts/critical-path.py BIN [--model smollm2|gemma|SPEC] [--question Q] [--corpus DIR]
                             [--runs N] [--json FILE]

Runs `research run` N times (the question over the corpus folder, as the library, `--search
local`, in a fresh data folder each), reads each run's model calls (`research sessions show
--calls --json`: each call's start and latency) and reports per run: the wall time, the calls,
the sum of their latencies, the time at least one call was in flight (the union of their
intervals: the model-call critical path), the most calls in flight at once, and the share of the
wall time the critical path takes. What is left is the pipeline's own work (search, fetching,
checks, storage).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def model_spec(name):
    """The model as `--llm` takes it: retrieval-bench.py's rule (it fetches the test models)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("retrieval_bench", ROOT / "scripts" / "retrieval-bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench.model_spec(name)


def union_ms(intervals):
    """The length of the union of [start, end) intervals, and the most that overlap at once."""
    total, most, end = 0, 0, None
    for s, e in sorted(intervals):
        if end is None or s >= end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    points = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])
    now = 0
    for _, d in points:
        now += d
        most = max(most, now)
    return total, most


def one_run(bin_, llm, question, corpus):
    with tempfile.TemporaryDirectory(prefix="critical-path-") as d:
        db = Path(d) / "db.sqlite"
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        add = subprocess.run([bin_, "library", "add", str(corpus), "--db", str(db)], capture_output=True, text=True, env=env)
        if add.returncode != 0:
            sys.exit(f"critical-path: library add failed:\n{add.stderr}")
        started = time.time()
        run = subprocess.run([bin_, "run", question, "--llm", llm, "--search", "local", "--no-input", "--json", "--db", str(db)],
                             capture_output=True, text=True, env=env)
        wall_ms = (time.time() - started) * 1000
        if run.returncode != 0:
            sys.exit(f"critical-path: the run failed:\n{run.stderr[-2000:]}")
        result = json.loads(run.stdout)
        shown = subprocess.run([bin_, "sessions", "show", result["session_id"], "--calls", "--json", "--db", str(db)],
                               capture_output=True, text=True, env=env)
        if shown.returncode != 0:
            sys.exit(f"critical-path: the run's calls could not be read:\n{shown.stderr[-2000:]}")
        calls = [c for r in json.loads(shown.stdout) for c in r["calls"]]
    # Calls recorded before start times were kept count in the sums, not in the path.
    timed = [(c["started_at_ms"], c["started_at_ms"] + c["latency_ms"]) for c in calls if c.get("started_at_ms")]
    path_ms, most = union_ms(timed) if timed else (0, 0)
    return {
        "wall_ms": round(wall_ms),
        "calls": len(calls),
        "latency_sum_ms": sum(c["latency_ms"] for c in calls),
        "critical_path_ms": path_ms,
        "most_in_flight": most,
        "critical_share": round(path_ms / wall_ms, 3) if wall_ms else None,
        "status": result.get("status"),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin")
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--question", default="How does SQLite make a transaction atomic when the power fails during a commit?")
    ap.add_argument("--corpus", default="/usr/share/doc/sqlite3")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--json")
    a = ap.parse_args()
    llm = model_spec(a.model)
    rows = [one_run(a.bin, llm, a.question, a.corpus) for _ in range(a.runs)]
    print("| run | wall | calls | sum of call latencies | model-call critical path | most in flight | critical path ÷ wall |")
    print("|---|---|---|---|---|---|---|")
    for i, r in enumerate(rows, 1):
        print(f"| {i} | {r['wall_ms'] / 1000:.1f} s | {r['calls']} | {r['latency_sum_ms'] / 1000:.1f} s | "
              f"{r['critical_path_ms'] / 1000:.1f} s | {r['most_in_flight']} | {r['critical_share']:.0%} |")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Peak memory and wall time of `research` on the hostile corpus (scripts/hostile-corpus.py).

    scripts/hostile-bench.py [--research PATH] [--corpus DIR]

Each page and PDF of the corpus is served from 127.0.0.1 and fetched with
`research fetch URL --allow-host 127.0.0.1:PORT --json`; then the corpus's library folder is
indexed with `research library add`. While each command runs, the peak resident set (VmHWM in
/proc/PID/status) of the `research` process and of every extraction child it starts is sampled
every 2 ms; the last sample before a process ends is its peak (VmHWM never goes down). Prints
one Markdown table. Standard library only; Linux only (reads /proc).
"""

import argparse
import http.server
import os
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PAGES = [
    ("nested-divs.html", "600,000 nested `<div>`s (3.0 MB)"),
    ("paragraphs.html", "400,000 sibling paragraphs (3.6 MB)"),
    ("table.html", "table of 200,000 cells (2.0 MB)"),
    ("page-tree-loop.pdf", "PDF, page tree that contains itself"),
    ("xobject-loop.pdf", "PDF, form XObject that draws itself"),
    ("flate-bomb.pdf", "PDF, 2 FlateDecode streams → 400 MB each (0.8 MB)"),
]


def hwm_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def children(pid):
    out = set()
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.update(int(c) for c in f.read().split())
    except OSError:
        pass
    return out


def measure(cmd, env):
    started = time.monotonic()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    parent_peak, child_peaks = 0, {}
    out_chunks = []
    reader = threading.Thread(target=lambda: out_chunks.append(proc.communicate()))
    reader.start()
    while proc.poll() is None:
        parent_peak = max(parent_peak, hwm_kib(proc.pid) or 0)
        for c in children(proc.pid):
            child_peaks[c] = max(child_peaks.get(c, 0), hwm_kib(c) or 0)
        time.sleep(0.002)
    wall = time.monotonic() - started
    reader.join()
    _, err = out_chunks[0]
    return proc.returncode, wall, parent_peak, child_peaks, err.decode(errors="replace")


class Pages(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def mib(kib):
    return f"{kib / 1024:.0f} MiB" if kib else "–"


def main():
    ap = argparse.ArgumentParser()
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    ap.add_argument("--research", default=os.path.join(target, "debug", "research"))
    ap.add_argument("--corpus")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="hostile-bench-")
    corpus = args.corpus or os.path.join(work, "corpus")
    if not os.path.isdir(os.path.join(corpus, "pages")):
        subprocess.run([sys.executable, os.path.join(HERE, "hostile-corpus.py"), corpus], check=True)
    pages = os.path.join(corpus, "pages")
    handler = lambda *a, **k: Pages(*a, directory=pages, **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    env = dict(os.environ)
    db = os.path.join(work, "db.sqlite3")

    rows = []
    for name, what in PAGES:
        code, wall, parent, kids, err = measure(
            [args.research, "fetch", f"http://127.0.0.1:{port}/{name}",
             "--allow-host", f"127.0.0.1:{port}", "--json"],
            env,
        )
        outcome = "text extracted" if code == 0 else err.strip().splitlines()[-1]
        outcome = outcome.split("could not extract: ", 1)[-1]
        rows.append((f"fetch: {what}", outcome, wall, parent, max(kids.values(), default=0), len(kids)))
    code, wall, parent, kids, err = measure(
        [args.research, "library", "add", os.path.join(corpus, "library"), "--db", db], env
    )
    skipped = sum(1 for l in err.splitlines() if l.startswith("skipped "))
    rows.append(("library add: the 6 documents + huge.txt, fifo.txt, loop.md",
                 f"exit {code}, {skipped} files skipped with a reason",
                 wall, parent, max(kids.values(), default=0), len(kids)))
    server.shutdown()

    print("| input | outcome | wall time | parent peak RSS | child peak RSS | children |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for what, outcome, wall, parent, child, n in rows:
        print(f"| {what} | {outcome} | {wall:.2f} s | {mib(parent)} | {mib(child)} | {n} |")


if __name__ == "__main__":
    main()

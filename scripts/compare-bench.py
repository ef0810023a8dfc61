#!/usr/bin/env python3
"""Compare mode on the scripted corpus, served as web pages: what each side spends, and what the
shared search and page cache saves.

Usage: compare-bench.py BINARY [--a SPEC] [--b SPEC] [--runs N]

Serves the CLI tests' corpus (crates/cli/tests/fixtures/corpus) from a local HTTP server that
also answers SearXNG's JSON search API, counts the searches and page fetches that reach it, and
runs `research compare` with the scripted model (`--search searxng`) on a fresh database. The
cache's saving is the pages both sides read minus the fetches that reached the server (and the
same for searches). Prints a Markdown table row per side and the saving.
"""
import argparse, http.server, json, os, subprocess, tempfile, threading, time, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "crates", "cli", "tests", "fixtures", "corpus")
SCRIPT = os.path.join(HERE, "..", "crates", "cli", "tests", "fixtures", "script.json")
QUESTION = "How do honeybees communicate and organise their colonies?"

hits = {"search": 0, "page": 0}
pages = []
searches = []


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        if url.path == "/search":
            hits["search"] += 1
            q = urllib.parse.parse_qs(url.query).get("q", [""])[0].lower()
            searches.append(q)
            results = []
            for name in sorted(os.listdir(CORPUS)):
                text = open(os.path.join(CORPUS, name), encoding="utf-8").read()
                words = [w for w in q.split() if len(w) > 3]
                if any(w.rstrip("s") in text.lower() for w in words):
                    results.append({
                        "url": f"http://{self.headers['Host']}/pages/{name}",
                        "title": name,
                        "content": text[:200],
                    })
            body = json.dumps({"results": results}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
        elif url.path.startswith("/pages/"):
            hits["page"] += 1
            name = os.path.basename(url.path)
            pages.append(name)
            body = open(os.path.join(CORPUS, name), "rb").read()
            self.send_response(200)
            kind = "text/html" if name.endswith(".html") else "text/plain"
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
        else:
            body = b"not found"
            self.send_response(404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--a", default="pipeline=standard,label=single")
    ap.add_argument("--b", default="pipeline=standard,mode=multi,label=multi")
    args = ap.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.time()
        out = subprocess.run(
            [args.binary, "compare", QUESTION, "--llm", f"scripted:{SCRIPT}",
             "--search", "searxng", "--searxng-url", f"http://127.0.0.1:{port}",
             "--allow-host", f"127.0.0.1:{port}", "--a", args.a, "--b", args.b,
             "--json", "--db", os.path.join(tmp, "db.sqlite")],
            capture_output=True, text=True)
        wall = time.time() - start
    server.shutdown()
    if out.returncode != 0:
        raise SystemExit(f"compare failed: {out.stderr}")
    table = json.loads(out.stdout)
    print("| side | pipeline | sources | evidence | rounds | verified sentences | calls | tokens | wall (run) |")
    print("|---|---|---|---|---|---|---|---|---|")
    read = 0
    for c in table["columns"]:
        read += c["sources"]
        print(f"| {c['label']} | {c['pipeline']} | {c['sources']} | {c['evidence']} | {c['iterations']} "
              f"| {c['verified_sentences']}/{c['audited_sentences']} | {c['calls']} | {c['tokens']} "
              f"| {c['wall_ms']} ms |")
    print()
    print(f"concurrent: {table['concurrent']}; both read {len(table['shared_sources'])} page(s); "
          f"pages read by the two sides: {read}; page fetches that reached the server: "
          f"{hits['page']} of {len(set(pages))} distinct pages ({hits['page'] - len(set(pages))} "
          f"fetched twice); searches that reached the server: {hits['search']} of "
          f"{len(set(searches))} distinct ({hits['search'] - len(set(searches))} twice); "
          f"whole command {wall:.2f} s")


if __name__ == "__main__":
    main()

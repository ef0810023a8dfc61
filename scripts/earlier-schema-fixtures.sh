#!/usr/bin/env bash
# Makes the databases in crates/cli/tests/fixtures/earlier-schemas/: for each schema an earlier
# release last wrote, that release's own `research` CLI is built from this repository's history
# and used as a person used it — a library added, a finished run, a follow-up in the same
# conversation, a report revised at its review, a run left waiting at the plan review, a fork,
# a recheck, a schedule, a run on the web — each with that release's own fixtures (scripted model,
# corpus). What a release could not do yet is skipped and said in the manifest beside the file.
#
# Not run by the test suite (it builds eight releases: about an hour on two cores); the files it
# makes are committed, and `crates/cli/tests/upgrade.rs` opens each with today's build.
#
#   bash scripts/earlier-schema-fixtures.sh [SCHEMA...]   # default: every release below
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/crates/cli/tests/fixtures/earlier-schemas"
work=${RS_OLD_WORK:-/tmp/rs-old}
bins=${RS_OLD_BINS:-$HOME/.cache/research-studio/old-bins}
export CARGO_TARGET_DIR=${RS_OLD_TARGET:-$HOME/.cache/research-studio/old-target}
export CARGO_PROFILE_DEV_DEBUG=0 CARGO_INCREMENTAL=0
# The sentence model (scripts/fetch-embedder.sh), so releases that index by meaning store vectors.
export RESEARCH_STUDIO_EMBEDDER=${RESEARCH_STUDIO_EMBEDDER:-$HOME/.cache/research-studio/models/all-MiniLM-L6-v2}
mkdir -p "$out" "$work" "$bins"

# schema → the last commit whose build wrote it (the parent of the commit that added the next
# migration; `git log -S 'M::up(' -- crates/store/src/lib.rs` lists those).
declare -A release=(
  [3]=4df8aef [4]=5a560c4 [5]=9725ec5 [6]=9ef02c5
  [7]=6bcda1a [8]=4cd465f [9]=f22e06d [10]=d43e1a0
)
# Worktrees of an earlier call whose folders are gone (a reboot cleared /tmp) are forgotten.
git worktree prune
schemas=("$@")
[ ${#schemas[@]} -gt 0 ] || schemas=(3 4 5 6 7 8 9 10)

question="How do honeybees communicate and organise their colonies?"

for n in "${schemas[@]}"; do
  commit=${release[$n]}
  tree="$work/schema-$n"
  bin="$bins/schema-$n"
  [ -d "$tree" ] || git worktree add -q --detach "$tree" "$commit"
  if [ ! -x "$bin" ]; then
    (cd "$tree" && cargo build -q -p research-cli --bin research)
    cp "$CARGO_TARGET_DIR/debug/research" "$bin"
  fi
  fixtures="$tree/crates/cli/tests/fixtures"
  llm="scripted:$fixtures/script.json"
  scratch=$(mktemp -d)
  db="$scratch/research.sqlite3"
  log="$scratch/log.jsonl"
  : > "$log"
  # One step: its name, then the command's arguments; its JSON result (or its failure) logged.
  step() {
    local name=$1; shift
    local result status=ok
    if result=$(cd "$scratch" && env -u RESEARCH_LLM -u DATABASE_URL HOME="$scratch/home" \
        XDG_DATA_HOME="$scratch/home" XDG_CONFIG_HOME="$scratch/home" \
        "$bin" "$@" --db "$db" 2>"$scratch/stderr"); then :; else status=failed; fi
    printf '%s' "$result" > "$scratch/stdout"
    python3 - "$name" "$status" "$scratch/stdout" "$scratch/stderr" "$log" <<'PY'
import json, sys
name, status, stdout, stderr, log = sys.argv[1:6]
text = open(stdout, errors="replace").read()
try:
    value = json.loads(text)
except ValueError:
    value = None
entry = {"step": name, "status": status}
if isinstance(value, dict):
    for key in ("session_id", "thread_id", "status"):
        if key in value:
            entry["result_" + key] = value[key]
if status == "failed":
    lines = open(stderr, errors="replace").read().strip().splitlines()
    entry["error"] = [l for l in lines if l.startswith("error:")][:1] or lines[-1:]
with open(log, "a") as f:
    f.write(json.dumps(entry) + "\n")
PY
    [ $status = ok ]
  }
  # A logged step's result field: `field STEP KEY`.
  field() {
    python3 - "$log" "$1" "$2" <<'PY'
import json, sys
log, name, key = sys.argv[1:4]
for line in open(log):
    entry = json.loads(line)
    if entry["step"] == name:
        print(entry.get("result_" + key, ""))
PY
  }

  step library-add library add "$fixtures/corpus" || true
  step finished run "$question" --llm "$llm" --search local --no-input --json || true
  session=$(field finished session_id); thread=$(field finished thread_id)
  step follow-up run "And how do they pollinate crops?" --follow-up "$session" --llm "$llm" \
    --search local --no-input --json || true
  step revised-waiting run "What does the queen do in a honeybee colony?" --llm "$llm" \
    --search local --review report --json || true
  waiting=$(field revised-waiting thread_id)
  step revised resume "$waiting" --revise "Mention the queen first." --json || true
  step paused run "Why do honeybees swarm?" --llm "$llm" --search local --review plan --json || true
  step fork fork "$thread" --at reading --reading "Only the waggle dance of honeybee foragers" \
    --llm "$llm" --no-input --json || true
  step recheck recheck "$session" --json || true
  step schedule watch "$session" --every 1d --json || true
  # A run on the web: a local SearXNG answering with the corpus's pages, served beside it (the
  # search and page caches fill).
  python3 - "$fixtures/corpus" > "$scratch/server.log" 2>&1 <<'PY' &
import http.server, json, os, sys
corpus = sys.argv[1]
class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **k):
        super().__init__(*a, directory=corpus, **k)
    def do_GET(self):
        if self.path.startswith("/search"):
            base = "http://127.0.0.1:%d" % self.server.server_port
            hits = [{"url": f"{base}/{name}", "title": name, "content": name}
                    for name in sorted(os.listdir(corpus)) if "unrelated" not in name]
            body = json.dumps({"results": hits}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            super().do_GET()
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("port", server.server_port, flush=True)
server.serve_forever()
PY
  server=$!
  trap 'kill $server 2>/dev/null || true' EXIT
  for _ in $(seq 50); do grep -q "^port" "$scratch/server.log" 2>/dev/null && break; sleep 0.1; done
  port=$(sed -n 's/^port \([0-9]*\).*/\1/p' "$scratch/server.log" | head -1)
  step web run "Where do honeybee foragers find food?" --llm "$llm" --search searxng \
    --searxng-url "http://127.0.0.1:$port" --allow-host "127.0.0.1:$port" --no-input --json || true
  kill $server 2>/dev/null || true

  # Closed as the release closes it: the log folded into the file.
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" "$db"
  rm -f "$db-wal" "$db-shm"
  version=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA user_version').fetchone()[0])" "$db")
  [ "$version" = "$n" ] || { echo "schema $n: the release wrote schema $version" >&2; exit 1; }
  gzip -9 -n -c "$db" > "$out/schema-$n.sqlite3.gz"
  # The manifest: what was done, and the library folder as the release read it (its files'
  # text, so a test can check quotes against them where the file URLs point).
  python3 - "$log" "$n" "$commit" "$(git log -1 --format=%cs "$commit")" "$fixtures/corpus" \
    > "$out/schema-$n.json" <<'PY'
import json, os, sys
log, schema, commit, date, corpus = sys.argv[1:6]
steps = [json.loads(l) for l in open(log)]
files = {name: open(os.path.join(corpus, name)).read() for name in sorted(os.listdir(corpus))}
print(json.dumps({"schema": int(schema), "release": commit, "date": date, "steps": steps,
                  "corpus": {"path": corpus, "files": files}}, indent=2, ensure_ascii=False))
PY
  echo "schema $n: $(grep -c '"ok"' "$log") of $(wc -l < "$log") steps"
  rm -rf "$scratch"
done

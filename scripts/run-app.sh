#!/usr/bin/env bash
# Installs everything Research Studio needs, builds it and starts the desktop app.
# With --cli: builds the `research` command alone and starts nothing (no UI build, no window).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
cli_only=false
case "${1:-}" in
  --cli) cli_only=true ;;
  "") ;;
  *) echo "usage: scripts/run-app.sh [--cli]" >&2; exit 2 ;;
esac
bash scripts/install-deps.sh
if $cli_only; then
  cargo build --release -p research-cli
  echo "Research Studio: the research command is $CARGO_TARGET_DIR/release/research"
  exit 0
fi
(cd ui && npm run build --silent)
cargo build --release -p research-studio -p research-cli
echo "Research Studio: the research CLI is at $CARGO_TARGET_DIR/release/research"
exec "$CARGO_TARGET_DIR/release/research-studio"

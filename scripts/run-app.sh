#!/usr/bin/env bash
# Installs everything Research Studio needs, builds it and starts the desktop app.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
bash scripts/install-deps.sh
(cd ui && npm run build --silent)
cargo build --release -p research-studio -p research-cli
echo "Research Studio: the research CLI is at $CARGO_TARGET_DIR/release/research"
exec "$CARGO_TARGET_DIR/release/research-studio"

#!/usr/bin/env bash
# Builds the installable bundles (.deb and AppImage on Linux) with the Tauri CLI, which is
# installed once into the project's tool cache. Prints the bundle folder as its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
tools="$HOME/.cache/research-studio/tools"
if [ ! -x "$tools/bin/cargo-tauri" ]; then
  echo "package: installing the Tauri CLI into $tools (about 10 minutes, once)"
  cargo install tauri-cli --version "^2" --locked --root "$tools"
fi
bundles="${BUNDLES:-deb,appimage}"
(cd ui && npm run build --silent)
"$tools/bin/cargo-tauri" build --bundles "$bundles"
echo "$CARGO_TARGET_DIR/release/bundle"

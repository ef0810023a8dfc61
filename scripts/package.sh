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
(cd ui && npm run build --silent)
"$tools/bin/cargo-tauri" build --no-bundle
# Symbols and debug info are a fifth of the binary and no use to someone running it (logs carry
# the context), so the bundles get a stripped copy, as Debian's own packages do.
strip "$CARGO_TARGET_DIR/release/research-studio"
"$tools/bin/cargo-tauri" bundle --bundles "${BUNDLES:-deb}"
# The AppImage needs linuxdeploy and AppRun, which the Tauri CLI downloads from GitHub: try it,
# and say so plainly where GitHub cannot be reached instead of losing the .deb.
if [ -z "${BUNDLES:-}" ]; then
  if ! "$tools/bin/cargo-tauri" bundle --bundles appimage; then
    echo "package: no AppImage (its tooling is downloaded from github.com, which could not be reached); the .deb is built" >&2
  fi
fi
# The bundler names the .deb after the product ("Research Studio_…"); a name without a space is
# what the README's `apt install ./research-studio_*.deb` expects.
for deb in "$CARGO_TARGET_DIR/release/bundle/deb/"*" "*.deb; do
  [ -e "$deb" ] || continue
  name=$(basename "$deb" | tr 'A-Z ' 'a-z-')
  mv -f "$deb" "$(dirname "$deb")/$name"
done
echo "$CARGO_TARGET_DIR/release/bundle"

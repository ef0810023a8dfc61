#!/usr/bin/env bash
# Installs `tauri-driver` (the WebDriver server the end-to-end tests drive the app through; it
# wraps WebKitWebDriver from apt's webkit2gtk-driver) from crates.io into the cache, once.
# Prints the binary's path on the last line. Takes about a minute on two cores, once.
set -euo pipefail
cache="${RESEARCH_STUDIO_CACHE:-$HOME/.cache/research-studio}"
root="$cache/tools"
bin="$root/bin/tauri-driver"
if [ -x "$bin" ] && "$bin" --help >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
mkdir -p "$root"
# Its own throwaway build folder: installing never waits for (or dirties) the project's build cache.
env -u CARGO_TARGET_DIR cargo install tauri-driver --version "^2" --locked --root "$root" --quiet
if ! [ -x "$bin" ]; then
  echo "fetch-tauri-driver: cargo install did not produce $bin" >&2
  exit 1
fi
echo "$bin"

#!/usr/bin/env bash
# The whole test suite: formatting, lints, the UI's type check and build, every Rust test
# (engine, stores, CLI with its crash test, the desktop app under Xvfb), and the doc tests.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
start=$(date +%s)
step() { printf '\n== %s (%ss)\n' "$1" "$(( $(date +%s) - start ))"; }

step "dependencies"
bash scripts/install-deps.sh

step "test models (SmolLM2-135M, Gemma 3 270M)"
RS_TEST_MODEL="$(bash scripts/fetch-model.sh | tail -n 1)"
RS_TEST_MODEL_GEMMA="$(bash scripts/fetch-model.sh gemma3-270m | tail -n 1)"
export RS_TEST_MODEL RS_TEST_MODEL_GEMMA

step "sentence-embedding model (all-MiniLM-L6-v2, for the library's hybrid search tests)"
RESEARCH_STUDIO_EMBEDDER="$(bash scripts/fetch-embedder.sh | tail -n 1)"
export RESEARCH_STUDIO_EMBEDDER

step "entailment reader (a DeBERTa-v3 cross-encoder and ONNX Runtime, for the checker's tests)"
RESEARCH_STUDIO_ENTAILMENT="$(bash scripts/fetch-entailment.sh | tail -n 1)"
export RESEARCH_STUDIO_ENTAILMENT

step "llama.cpp server (built once into the cache)"
RS_LLAMA_SERVER="$(bash scripts/fetch-llama-server.sh | tail -n 1)"
export RS_LLAMA_SERVER

step "tauri-driver (installed once into the cache, for the end-to-end tests)"
RS_TAURI_DRIVER="$(bash scripts/fetch-tauri-driver.sh | tail -n 1)"
export RS_TAURI_DRIVER

step "UI: type check, build and unit tests"
(cd ui && npm run build --silent && npm test --silent)

step "rustfmt"
cargo fmt --all -- --check

step "clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "doc tests"
cargo test --workspace --locked --doc

# Last, so that its summary closes the log.
step "tests"
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --locked --no-fail-fast
else
  cargo test --workspace --locked --no-fail-fast
fi
echo "test suite finished in $(( $(date +%s) - start ))s"

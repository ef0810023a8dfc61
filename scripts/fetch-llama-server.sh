#!/usr/bin/env bash
# Builds llama.cpp's OpenAI-compatible server (`llama-server`) from the llama.cpp sources that the
# PyPI sdist of llama-cpp-python carries (nothing but PyPI is reachable from CI), into the cache,
# once. The OpenAI-compatible client is tested against it with the small test model.
# Prints the server binary's path on the last line. Takes about ten minutes on two cores, once.
set -euo pipefail
cache="${RESEARCH_STUDIO_CACHE:-$HOME/.cache/research-studio}"
version="0.3.36"
sha="832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
out="$cache/llama-server-$version"
if [ -x "$out/llama-server" ]; then
  echo "$out/llama-server"
  exit 0
fi
mkdir -p "$cache/sdist"
pip="pip3"
command -v pip3 >/dev/null 2>&1 || pip="python3 -m pip"
tarball="$cache/sdist/llama_cpp_python-$version.tar.gz"
if [ ! -f "$tarball" ]; then
  # The sdist itself, by its link in the package index: `pip download --no-binary :all:` first
  # prepares its metadata, building every build requirement from source on the way (cmake
  # among them: more than ten minutes of a cold CI run). pip is the fallback.
  python3 - "${PIP_INDEX_URL:-https://pypi.org/simple}" "$version" "$tarball" <<'PY' \
    || $pip download --quiet --no-deps --no-binary :all: "llama-cpp-python==$version" -d "$cache/sdist"
import os, re, sys, urllib.parse, urllib.request
index, version, target = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
with urllib.request.urlopen(f"{index}/llama-cpp-python/", timeout=120) as r:
    page = r.read().decode()
name = re.escape(f"llama_cpp_python-{version}.tar.gz")
link = re.search(rf'href="([^"]*{name})(#[^"]*)?"', page)
if not link:
    sys.exit(f"fetch-llama-server: no {version} sdist in {index}")
url = urllib.parse.urljoin(f"{index}/llama-cpp-python/", link.group(1))
urllib.request.urlretrieve(url, target + ".part")
os.replace(target + ".part", target)
PY
fi
if ! echo "$sha  $tarball" | sha256sum -c --status; then
  echo "fetch-llama-server: $tarball does not have the expected sha256" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar xzf "$tarball" -C "$work"
src="$work/llama_cpp_python-$version/vendor/llama.cpp"
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_SERVER=ON -DGGML_NATIVE=OFF >"$work/cmake.log" 2>&1 \
  || { tail -n 30 "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" --target llama-server -j"$(nproc)" >"$work/build.log" 2>&1 \
  || { tail -n 30 "$work/build.log" >&2; exit 1; }
mkdir -p "$out.part"
cp "$work/build/bin/llama-server" "$out.part/"
rm -rf "$out"
mv "$out.part" "$out"
echo "$out/llama-server"

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
  $pip download --quiet --no-deps --no-binary :all: "llama-cpp-python==$version" -d "$cache/sdist"
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

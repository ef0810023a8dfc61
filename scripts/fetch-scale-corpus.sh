#!/usr/bin/env bash
# Installs the library scale benchmark's corpus — documentation no one here wrote, packaged by
# Debian: about 9 GB of HTML and PDF, a million passages — and prints its folders on the last line,
# `:`-separated, in the order the benchmark adds them (the three with gold questions first):
#
#   SCALE_BENCH_DIRS=$(bash scripts/fetch-scale-corpus.sh | tail -n 1) cargo bench -p research-bench --bench scale
#
# Packages: sqlite3-doc, postgresql-doc-15, python3.11-doc, python-pandas-doc, libboost1.74-doc,
# erlang-doc, linux-doc-6.1, ghc-doc, racket-doc, lilypond-doc-html, cppreference-doc-en-html,
# openjdk-17-doc, sagemath-doc, rust-doc, sumo-doc, scala-doc, castle-game-engine-doc,
# petsc3.18-doc, libdeal.ii-doc, texlive-latex-extra-doc (PDFs), trilinos-doc, libreoffice-dev-doc,
# libstdc++-12-doc, octave-doc, python-scipy-doc, qtbase5-doc-html, python-django-doc,
# libeigen3-doc, python-sqlalchemy-doc, gnucash-docs, python-sklearn-doc, python-astropy-doc,
# python-statsmodels-doc, python-sympy-doc, llvm-14-doc, libgtk-4-doc, python-dask-doc,
# python-skimage-doc, maxima-doc, apache2-doc, libgtk-3-doc (with libglib2.0-doc, one folder),
# python-biopython-doc, python-xarray-doc, clang-14-doc (the last twenty-three since 2026-12-07:
# scripts/load-pg-library.py cuts the first twenty-two into 854,895 passages). Not nodejs-doc: it
# brings Debian's Node.js 18 and removes a newer one (the UI needs 20.19 or newer).
# (openjdk-17-doc brings a JDK with it.) Safe to run again:
# it installs only what is missing. BENCHMARKS.md, "The library at scale", says what was measured.
set -euo pipefail

corpus=(
  "sqlite3-doc /usr/share/doc/sqlite3"
  "postgresql-doc-15 /usr/share/doc/postgresql-doc-15/html"
  "python3.11-doc /usr/share/doc/python3.11/html"
  "python-pandas-doc /usr/share/doc/python-pandas-doc"
  "libboost1.74-doc /usr/share/doc/libboost1.74-doc"
  "erlang-doc /usr/share/doc/erlang-doc"
  "linux-doc-6.1 /usr/share/doc/linux-doc-6.1"
  "ghc-doc /usr/share/doc/ghc-doc"
  "racket-doc /usr/share/doc/racket"
  "lilypond-doc-html /usr/share/doc/lilypond"
  "cppreference-doc-en-html /usr/share/cppreference/doc"
  "openjdk-17-doc /usr/share/doc/openjdk-17-jre-headless"
  "sagemath-doc /usr/share/doc/sagemath"
  "rust-doc /usr/share/doc/rust-doc"
  "sumo-doc /usr/share/doc/sumo"
  "scala-doc /usr/share/doc/scala-2.11"
  "castle-game-engine-doc /usr/share/doc/castle-game-engine-doc"
  "petsc3.18-doc /usr/share/doc/petsc3.18-doc"
  "libdeal.ii-doc /usr/share/doc/libdeal.ii-doc"
  "texlive-latex-extra-doc /usr/share/doc/texlive-doc"
  "trilinos-doc /usr/share/doc/trilinos"
  "libreoffice-dev-doc /usr/share/doc/libreoffice"
  "libstdc++-12-doc /usr/share/doc/gcc-12-base/libstdc++"
  "octave-doc /usr/share/doc/octave"
  "python-scipy-doc /usr/share/doc/python-scipy-doc"
  "qtbase5-doc-html /usr/share/qt5/doc"
  "python-django-doc /usr/share/doc/python-django-doc"
  "libeigen3-doc /usr/share/doc/libeigen3-dev"
  "python-sqlalchemy-doc /usr/share/doc/python-sqlalchemy-doc"
  "gnucash-docs /usr/share/doc/gnucash-docs"
  "python-sklearn-doc /usr/share/doc/python-sklearn-doc"
  "python-astropy-doc /usr/share/doc/python-astropy-doc"
  "python-statsmodels-doc /usr/share/doc/python-statsmodels-doc"
  "python-sympy-doc /usr/share/doc/python-sympy-doc"
  "llvm-14-doc /usr/share/doc/llvm-14-doc"
  "libgtk-4-doc /usr/share/doc/libgtk-4-doc"
  "python-dask-doc /usr/share/doc/python-dask-doc"
  "python-skimage-doc /usr/share/doc/python-skimage-doc"
  "maxima-doc /usr/share/doc/maxima-doc"
  "apache2-doc /usr/share/doc/apache2-doc"
  "libgtk-3-doc,libglib2.0-doc /usr/share/gtk-doc/html"
  "python-biopython-doc /usr/share/doc/python-biopython-doc"
  "python-xarray-doc /usr/share/doc/python-xarray-doc"
  "clang-14-doc /usr/share/doc/clang-14"
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for entry in "${corpus[@]}"; do
  pkgs=${entry%% *}  # a folder two packages fill names both, `,`-separated
  for pkg in ${pkgs//,/ }; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "fetch-scale-corpus: installing ${missing[*]} (a few GB; minutes)" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
folders=()
for entry in "${corpus[@]}"; do
  dir=${entry#* }
  if [ -z "$(find "$dir" -name '*.html' -type f -print -quit 2>/dev/null)" ]; then
    echo "fetch-scale-corpus: $dir has no HTML pages after installing ${entry%% *}" >&2
    exit 1
  fi
  folders+=("$dir")
done
(IFS=:; echo "${folders[*]}")

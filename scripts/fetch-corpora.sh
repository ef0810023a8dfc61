#!/usr/bin/env bash
# Installs the retrieval benchmark's public document sets (Debian packages, none of them written here)
# and prints each set's name and folder, one per line: "sqlite /usr/share/doc/sqlite3".
#   sqlite  sqlite3-doc   the SQLite documentation, English HTML (about 770 pages)
#   ja      gimp-help-ja  the GIMP user manual in Japanese, HTML (about 690 pages)
#   postgresql  postgresql-doc-15  the PostgreSQL 15 manual, English HTML (about 1,170 pages)
#   python  python3.11-doc  the Python 3.11 documentation, English HTML (about 530 pages)
# The answer benchmark's gold answers (benches/answers/) were written by reading these versions.
# Name sets as arguments to install only those (default: all).
# Safe to run again: it installs only what is missing. See benches/retrieval/README.md.
set -euo pipefail

declare -A PACKAGE=([sqlite]=sqlite3-doc [ja]=gimp-help-ja [postgresql]=postgresql-doc-15 [python]=python3.11-doc)
declare -A FOLDER=([sqlite]=/usr/share/doc/sqlite3 [ja]=/usr/share/gimp/2.0/help/ja
  [postgresql]=/usr/share/doc/postgresql-doc-15/html [python]=/usr/share/doc/python3.11/html)
sets=("$@")
if [ "${#sets[@]}" -eq 0 ]; then sets=(sqlite ja postgresql python); fi
for set in "${sets[@]}"; do
  if [ -z "${PACKAGE[$set]:-}" ]; then
    echo "fetch-corpora: no set '$set' (sets: ${!PACKAGE[*]})" >&2
    exit 2
  fi
done

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for set in "${sets[@]}"; do
  pkg=${PACKAGE[$set]}
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "fetch-corpora: installing ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for set in "${sets[@]}"; do
  dir=${FOLDER[$set]}
  if ! ls "$dir"/*.html >/dev/null 2>&1; then
    echo "fetch-corpora: $dir has no HTML pages after installing ${PACKAGE[$set]}" >&2
    exit 1
  fi
  echo "$set $dir"
done

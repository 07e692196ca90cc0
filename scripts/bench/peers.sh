#!/usr/bin/env bash
# `make bench`, section `peers`: kerai's HTML extraction beside trafilatura (the Python
# package, in a virtualenv under .kerai/) and rs-trafilatura (the Rust crate, built from
# scripts/bench/peers/), on AEB, the Readability pages and WCXB dev, in one run;
# scripts/bench/peers.py runs and scores them, and writes the figures to .kerai/bench/extraction.json.
# Each set-up step is skipped when done.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$KERAI_ROOT"
TRAFILATURA_VERSION=2.3.1
venv="${KERAI_STATE}/bench-venv"
if ! "$venv/bin/python" -c "import sys, trafilatura; sys.exit(trafilatura.__version__ != '$TRAFILATURA_VERSION')" 2>/dev/null; then
  say "installing trafilatura ${TRAFILATURA_VERSION} in ${venv}"
  python3 -m venv "$venv" >/dev/null \
    || die "python3 -m venv failed: install Debian's python3-venv, then run make bench again"
  # jusText (a trafilatura dependency) needs lxml's HTML cleaner, a package of its own since lxml 5.2.
  "$venv/bin/pip" install -q "trafilatura==${TRAFILATURA_VERSION}" lxml_html_clean \
    || die "pip could not install trafilatura ${TRAFILATURA_VERSION}; see its message above"
fi
cargo build -q --release -p kerai-core --example aeb --example wcxb
target="${KERAI_STATE}/bench-peers-target"
# No lock file is kept (it would name a registry): rs-trafilatura is pinned exactly in
# Cargo.toml, and cargo resolves the rest through this machine's own registry configuration.
CARGO_TARGET_DIR="$target" cargo build -q --release \
  --manifest-path scripts/bench/peers/Cargo.toml
"$venv/bin/python" scripts/bench/peers.py "$KERAI_SHARED" "${KERAI_STATE}/bench-peers" \
  "$KERAI_ROOT" "$target/release/kerai-bench-peers" "${KERAI_STATE}/bench"

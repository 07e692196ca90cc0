#!/usr/bin/env bash
# `make bench`, section `crawl`: the peer crawlers run on the same site as kerai
# (tests/src/bin/crawl_bench.rs): Scrapy from PyPI in a virtualenv under .kerai/, and the
# `spider` crate, built from scripts/bench/crawl-peer/. Each set-up step is skipped when done.
# Prints the two commands, Scrapy's then spider's, one per line (crawl_bench reads them from
# KERAI_BENCH_SCRAPY and KERAI_BENCH_SPIDER).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$KERAI_ROOT"
SCRAPY_VERSION=2.19.0
venv="${KERAI_STATE}/bench-crawl-venv"
if ! "$venv/bin/python" -c "import sys, scrapy; sys.exit(scrapy.__version__ != '$SCRAPY_VERSION')" 2>/dev/null; then
  say "installing Scrapy ${SCRAPY_VERSION} in ${venv}" >&2
  python3 -m venv "$venv" >/dev/null \
    || die "python3 -m venv failed: install Debian's python3-venv, then run make bench again"
  "$venv/bin/pip" install -q "scrapy==${SCRAPY_VERSION}" >&2 \
    || die "pip could not install Scrapy ${SCRAPY_VERSION}; see its message above"
fi
target="${KERAI_STATE}/bench-spider-target"
# No lock file is kept (it would name a registry): spider is pinned exactly in Cargo.toml, and
# cargo resolves the rest through this machine's own registry configuration.
CARGO_TARGET_DIR="$target" cargo build -q --release --manifest-path scripts/bench/crawl-peer/Cargo.toml >&2 \
  || die "building the spider crate failed; see cargo's message above"
echo "${venv}/bin/python ${KERAI_ROOT}/scripts/bench/crawl_scrapy.py"
echo "${target}/release/kerai-bench-spider"

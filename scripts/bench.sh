#!/usr/bin/env bash
# `make bench`: the speed figures, each against a baseline measured in the same run.
#   KERAI_BENCH_ONLY="core peers graph markdown crawl search citus" picks sections;
#   KERAI_BENCH_SCALE=0.1 shrinks the generated corpora (for a quick look).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KERAI_ROOT"

only="${KERAI_BENCH_ONLY:-core peers graph markdown crawl search citus}"
scale="${KERAI_BENCH_SCALE:-1}"
port="${KERAI_BENCH_PGPORT:-28817}"
wants() { [[ " $only " == *" $1 "* ]]; }
n() { python3 -c "print(max(1, int($1 * $scale)))"; }

if wants core; then
  say "── kerai-core benchmarks (cargo bench, release)"
  for b in html_extract citations crawl convert embed; do
    cargo bench -q -p kerai-core --bench "$b" 2>/dev/null | grep -v '^$' | sed "s/^/    [$b] /"
  done
fi

if wants peers; then
  say "── HTML extraction beside trafilatura and rs-trafilatura, same run (AEB, Readability pages, WCXB dev)"
  scripts/bench/peers.sh 2>&1 | sed 's/^/    /'
fi

if wants graph || wants markdown || wants crawl || wants search || wants citus; then
  say "── release build of the extension"
  KERAI_RELEASE=1 scripts/install.sh >/dev/null || die "install failed; see .kerai/install.log"
fi
if wants graph || wants markdown || wants crawl || wants search; then
  say "── bench cluster on port ${port}"
  scripts/cluster.sh fresh bench "$port" kerai_bench >/dev/null
  # shared_buffers a quarter of the memory (256 MB to 8 GB), as one sizes a database server:
  # the million-chunk search reads 7 GB of chunks, vectors and indexes.
  buffers_mb=$(awk '/^MemTotal:/ { m = int($2 / 4096); print (m < 256 ? 256 : (m > 8192 ? 8192 : m)) }' /proc/meminfo)
  as_postgres psql -X -q -h 127.0.0.1 -p "$port" -U postgres -c "ALTER SYSTEM SET max_wal_size = '8GB'" \
    -c "ALTER SYSTEM SET shared_buffers = '${buffers_mb}MB'" >/dev/null
  scripts/cluster.sh restart bench "$port" kerai_bench >/dev/null
fi

fresh_db() {
  psql_b -d postgres -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1"
  psql_b -d "$1" -c "CREATE EXTENSION kerai CASCADE" -f scripts/bench/timing.sql
}

if wants graph; then
  docs=$(n 100000); refs=$(n 1000000)
  say "── frontier and dashboard: ${docs} documents, ${refs} references, 5 cites per paragraph"
  fresh_db kerai_bench_graph
  psql_b -d kerai_bench_graph -v docs="$docs" -v refs="$refs" -v cites_per_paragraph=5 -f scripts/bench/graph_data.sql
  psql_b -d kerai_bench_graph -f scripts/bench/graph_measure.sql | sed 's/^/    /'
  say "   the seed's per-row SQL on the same data:"
  psql_b -d kerai_bench_graph -f scripts/bench/graph_naive.sql | sed 's/^/    /'
  small_refs=$(n 10000); small_docs=$(n 1000)
  say "   the priority queue at ${small_refs} references (where the seed's ORDER BY score_reference(id) finishes):"
  fresh_db kerai_bench_small
  psql_b -d kerai_bench_small -v docs="$small_docs" -v refs="$small_refs" -v cites_per_paragraph=5 -f scripts/bench/graph_data.sql
  psql_b -d kerai_bench_small -f scripts/bench/graph_measure.sql | grep -E 'frontier|priority' | sed 's/^/    /'
  psql_b -d kerai_bench_small -f scripts/bench/graph_naive_queue.sql | sed 's/^/    /'
fi

if wants markdown; then
  say "── parse_markdown over a 10 MB markdown corpus vs COPY of the same rows"
  fresh_db kerai_bench_md
  corpus="${KERAI_STATE}/bench-corpus.copy"
  python3 scripts/bench/markdown_corpus.py "$KERAI_SHARED" "$(python3 -c "print(10 * $scale)")" >"$corpus" 2>/dev/null
  nodes_file="/tmp/kerai-bench-nodes-$$.copy"
  psql_b -d kerai_bench_md -c "CREATE TABLE kerai_bench.md (markdown text, metadata jsonb)" -c "\\copy kerai_bench.md FROM '${corpus}'"
  psql_b -d kerai_bench_md -v nodes_file="$nodes_file" -f scripts/bench/markdown_measure.sql | sed 's/^/    /'
  rm -f "$nodes_file"
  say "   one 50 MB document: the backend's peak memory (VmHWM) before and after parse_markdown"
  scripts/bench/markdown_50mb.sh "$port" kerai_bench_md "$(python3 -c "print(max(1, int(50 * $scale)))")" \
    | grep -v '^\s*$' | sed 's/^/    /'
fi

if wants crawl; then
  pages=$(n 10000)
  say "── crawl of a generated ${pages}-page site (politeness off), an unchanged re-crawl, then Scrapy and the spider crate on the same site"
  cargo build -q --release -p kerai-fetch -p kerai-e2e --bin kerai --bin crawl_bench
  peers=$(scripts/bench/crawl_peers.sh) || die "setting up the peer crawlers failed; see above"
  KERAI_BENCH_SCRAPY=$(sed -n 1p <<<"$peers") KERAI_BENCH_SPIDER=$(sed -n 2p <<<"$peers") \
    KERAI_TEST_DATABASE_URL="postgresql://postgres@127.0.0.1:${port}/postgres" KERAI_BIN="${KERAI_ROOT}/target/release/kerai" \
    target/release/crawl_bench "$pages" | sed 's/^/    /'
fi

if wants search && [ -f scripts/bench/search.sh ]; then
  scripts/bench/search.sh "$port" "$scale"
fi
scripts/cluster.sh stop bench >/dev/null 2>&1 || true

if wants citus; then
  pages=$(n 1000); documents=$(n 2000)
  say "── one node against a Citus cluster (a coordinator, two workers; same machine, same run): crawl of a ${pages}-page site, ${documents} documents for hybrid search"
  if why=$(scripts/citus.sh available); then
    cport=$((port + 100))
    scripts/citus.sh fresh "$cport" >/dev/null || die "starting the Citus cluster failed"
    cargo build -q --release -p kerai-fetch -p kerai-e2e --bin kerai --bin citus_bench
    mkdir -p "${KERAI_STATE}/bench"
    KERAI_TEST_DATABASE_URL="postgresql://postgres@127.0.0.1:${cport}/postgres" KERAI_BIN="${KERAI_ROOT}/target/release/kerai" \
      target/release/citus_bench "$pages" "$documents" "${KERAI_STATE}/bench/citus.json" | sed 's/^/    /'
    scripts/citus.sh stop >/dev/null 2>&1 || true
  else
    say "   skipped: ${why}"
  fi
fi
mkdir -p "${KERAI_STATE}/bench"
python3 scripts/bench/report.py "${KERAI_STATE}/bench" | sed 's/^/    /'

#!/usr/bin/env bash
# The retrieval benchmark, called by scripts/bench.sh with the bench cluster's port:
#   1. quality: nDCG@10 of kerai.search (full text, vector, hybrid) on BEIR SciFact, scored by
#      the benchmark's own scorer, beside the plain BM25 baseline run in the same pass;
#   2. latency: p50 / p95 of kerai.search at 1M chunks (KERAI_BENCH_SCALE shrinks it).
# KERAI_BENCH_SEARCH="quality latency" picks parts.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$KERAI_ROOT"
port="$1"; scale="${2:-1}"
parts="${KERAI_BENCH_SEARCH:-quality latency}"
data="${KERAI_SHARED}/bench/retrieval/scifact"
scorer="${KERAI_SHARED}/bench/retrieval/score_ndcg.py"
work="${KERAI_STATE}/bench-search"
mkdir -p "$work"; chmod 777 "$work"
db=kerai_bench_search
url="postgresql://postgres@127.0.0.1:${port}/${db}"
ndcg() { python3 "$scorer" "${data}/qrels_test.tsv" "$1" | sed -n 's/^nDCG@10: //p'; }

if [[ " $parts " == *" quality "* ]]; then
  say "── retrieval quality: BEIR SciFact (5,183 abstracts, 300 queries), nDCG@10"
  psql_b -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  psql_b -d "$db" -c "CREATE EXTENSION kerai CASCADE" -c "CREATE SCHEMA kerai_bench" \
    -c "CREATE TABLE kerai_bench.corpus (markdown text, metadata jsonb)" \
    -c "CREATE TABLE kerai_bench.queries (id text, text text)"
  python3 scripts/bench/scifact_load.py "$data" corpus >"$work/corpus.copy"
  python3 scripts/bench/scifact_load.py "$data" queries >"$work/queries.copy"
  psql_b -d "$db" -c "\\copy kerai_bench.corpus FROM '$work/corpus.copy'" -c "\\copy kerai_bench.queries FROM '$work/queries.copy'"
  start=$SECONDS
  psql_b -d "$db" -c "SELECT count(kerai.parse_markdown(markdown, metadata)) FROM kerai_bench.corpus" \
    -c "SELECT kerai.chunk_pending(100000)" >/dev/null
  chunks=$(psql_b -d "$db" -tAc "SELECT count(*) FROM kerai.chunks")
  say "   ingested and chunked into ${chunks} chunks in $((SECONDS - start)) s; embedding them with the local model (kerai embed)"
  cargo build -q --release -p kerai-fetch --bin kerai
  start=$SECONDS
  target/release/kerai --database-url "$url" embed --json >"$work/embed.json"
  secs=$((SECONDS - start))
  say "   embedded ${chunks} chunks in ${secs} s ($(python3 -c "print(round($chunks / max(1, $secs), 1))") chunks/s)"
  # Full-text IDF comes from the column statistics (autovacuum would gather them soon anyway).
  psql_b -d "$db" -c "ANALYZE kerai.chunks"
  for mode in fts vector hybrid; do
    start=$SECONDS
    psql_b -d "$db" -v mode="$mode" -f scripts/bench/scifact_runs.sql >"$work/run-$mode.txt"
    printf '    kerai.search mode %-7s nDCG@10 %s  (300 queries in %s s)\n' "$mode" "$(ndcg "$work/run-$mode.txt")" "$((SECONDS - start))"
  done
  python3 "${data}/bm25_baseline.py" --data "$data" --out "$work/run-bm25.txt" --stopwords >/dev/null 2>&1
  printf '    baseline: plain BM25 (bm25_baseline.py, same run)  nDCG@10 %s\n' "$(ndcg "$work/run-bm25.txt")"
  # Answers: is the first passage an extractive answer cites relevant, and is its first
  # sentence a sentence (issue 17 goals: >= 0.75 and 0).
  psql_b -d "$db" -c "CREATE TABLE kerai_bench.qrels (qid text, docid text, score integer)" \
    -c "\\copy kerai_bench.qrels FROM '${data}/qrels_test.tsv' WITH (FORMAT csv, DELIMITER E'\\t', HEADER true)"
  start=$SECONDS
  psql_b -d "$db" -A -F ' ' -f scripts/bench/scifact_answers.sql | sed -n 2p | {
    read -r n relevant fragments
    printf '    kerai.answer (extractive), %s queries in %s s: first cited passage relevant %s (goal >= 0.75); first sentence a heading or navigation fragment %s (goal 0)\n' \
      "$n" "$((SECONDS - start))" "$relevant" "$fragments"
  }
fi

if [[ " $parts " == *" latency "* ]]; then
  rows=$(python3 -c "print(max(1000, int(1000000 * $scale)))")
  say "── kerai.search latency at ${rows} chunks (texts from SciFact sentences, vectors around real ones)"
  as_postgres psql -X -q -h 127.0.0.1 -p "$port" -U postgres -c "ALTER SYSTEM SET maintenance_work_mem = '6GB'" \
    -c "ALTER SYSTEM SET max_parallel_maintenance_workers = 2" -c "SELECT pg_reload_conf()" >/dev/null
  psql_b -d "$db" -v rows="$rows" -f scripts/bench/search_data.sql | sed 's/^/    /'
  psql_b -d "$db" -f scripts/bench/search_latency.sql | sed 's/^/    /'
fi

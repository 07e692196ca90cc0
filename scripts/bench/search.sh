#!/usr/bin/env bash
# The retrieval benchmark, called by scripts/bench.sh with the bench cluster's port:
#   1. quality: nDCG@10 of kerai.search (full text, vector, hybrid) on BEIR SciFact, scored by
#      the benchmark's own scorer, beside the plain BM25 baseline run in the same pass;
#   2. latency: p50 / p95 of kerai.search at 1M chunks (KERAI_BENCH_SCALE shrinks it).
# KERAI_BENCH_SEARCH="quality latency" picks parts. Each part's figures go under its name in
# .kerai/bench/search.json (for scripts/bench/report.py); a part not run keeps its last figures.
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
figures="${KERAI_STATE}/bench/search.json"

# json_of KEY=VALUE...: a JSON object of numbers; a dotted KEY nests (ndcg10.fts=0.691), and
# a VALUE that is not a number (a step that failed printed nothing) is null.
json_of() {
  python3 -c '
import json, sys
out = {}
for arg in sys.argv[1:]:
    key, _, value = arg.partition("=")
    *outer, leaf = key.split(".")
    node = out
    for k in outer:
        node = node.setdefault(k, {})
    try:
        node[leaf] = json.loads(value)
    except ValueError:
        node[leaf] = None
print(json.dumps(out))' "$@"
}

# record PART JSON: the object JSON, dated, becomes PART of search.json; the other parts stay.
record() {
  mkdir -p "$(dirname "$figures")"
  python3 -c '
import datetime, json, os, sys
path, part, figures = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
old = {}
if os.path.exists(path):
    with open(path) as f:
        old = json.load(f)
figures["measured_at"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
old[part] = figures
with open(path, "w") as f:
    json.dump(old, f, indent=1)' "$figures" "$1" "$2"
}

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
  # The same chunks for the float32 model, the baseline of the same run.
  psql_b -d postgres -c "DROP DATABASE IF EXISTS ${db}_float32 WITH (FORCE)" -c "CREATE DATABASE ${db}_float32 TEMPLATE $db"
  cargo build -q --release -p kerai-fetch --bin kerai
  model=$(psql_b -d "$db" -tAc "SELECT kerai.setting('embedding_model') #>> '{}'")
  start=$SECONDS
  target/release/kerai --database-url "$url" embed --json >"$work/embed.json"
  secs=$((SECONDS - start))
  embed_rate=$(python3 -c "print(round($chunks / max(1, $secs), 1))")
  say "   embedded ${chunks} chunks in ${secs} s (${embed_rate} chunks/s, ${model})"
  # Full-text IDF comes from the column statistics (autovacuum would gather them soon anyway).
  psql_b -d "$db" -c "ANALYZE kerai.chunks"
  quality=("chunks=$chunks" "embedding.seconds=$secs" "embedding.chunks_per_second=$embed_rate")
  for mode in fts vector hybrid; do
    start=$SECONDS
    psql_b -d "$db" -v mode="$mode" -f scripts/bench/scifact_runs.sql >"$work/run-$mode.txt"
    score=$(ndcg "$work/run-$mode.txt"); took=$((SECONDS - start))
    printf '    kerai.search mode %-7s nDCG@10 %s  (300 queries in %s s)\n' "$mode" "$score" "$took"
    quality+=("ndcg10.$mode=$score" "run_seconds.$mode=$took")
  done
  python3 "${data}/bm25_baseline.py" --data "$data" --out "$work/run-bm25.txt" --stopwords >/dev/null 2>&1
  score=$(ndcg "$work/run-bm25.txt")
  printf '    baseline: plain BM25 (bm25_baseline.py, same run)  nDCG@10 %s\n' "$score"
  quality+=("ndcg10.bm25=$score")
  # Answers: is the first passage an extractive answer cites relevant, and is its first
  # sentence a sentence (issue 17 goals: >= 0.75 and 0).
  psql_b -d "$db" -c "CREATE TABLE kerai_bench.qrels (qid text, docid text, score integer)" \
    -c "\\copy kerai_bench.qrels FROM '${data}/qrels_test.tsv' WITH (FORMAT csv, DELIMITER E'\\t', HEADER true)"
  start=$SECONDS
  read -r n relevant fragments cited_fragments < <(psql_b -d "$db" -A -F ' ' -f scripts/bench/scifact_answers.sql | sed -n 2p)
  took=$((SECONDS - start))
  printf '    kerai.answer (extractive), %s queries in %s s: first cited passage relevant %s (goal >= 0.75); first sentence a heading or navigation fragment %s, a cited passage'"'"'s text one %s (goal 0)\n' \
    "$n" "$took" "$relevant" "$fragments" "$cited_fragments"
  quality+=("answers.queries=$n" "answers.seconds=$took"
            "answers.first_cited_relevant=$relevant" "answers.heading_or_navigation=$fragments"
            "answers.cited_text_fragment=$cited_fragments")
  # Baseline: the float32 variant of the model on the same chunks (issue 15: int8 must be
  # faster with nDCG within 0.005).
  f32="sentence-transformers/all-MiniLM-L6-v2"
  psql_b -d "${db}_float32" -c "SELECT kerai.configure_embeddings('local', '$f32')" >/dev/null
  start=$SECONDS
  target/release/kerai --database-url "${url%/*}/${db}_float32" embed --json >"$work/embed-float32.json"
  f32_secs=$((SECONDS - start))
  f32_rate=$(python3 -c "print(round($chunks / max(1, $f32_secs), 1))")
  psql_b -d "${db}_float32" -c "ANALYZE kerai.chunks"
  printf '    baseline: the float32 model embedded the same %s chunks in %s s (%s chunks/s); %s is %sx faster\n' \
    "$chunks" "$f32_secs" "$f32_rate" "$model" "$(python3 -c "print(round($f32_secs / max(1, $secs), 2))")"
  quality+=("embedding.model=\"$model\"" "embedding.float32_seconds=$f32_secs" "embedding.float32_chunks_per_second=$f32_rate")
  for mode in vector hybrid; do
    psql_b -d "${db}_float32" -v mode="$mode" -f scripts/bench/scifact_runs.sql >"$work/run-f32-$mode.txt"
    score=$(ndcg "$work/run-f32-$mode.txt")
    printf '    baseline: kerai.search mode %-7s with the float32 model nDCG@10 %s\n' "$mode" "$score"
    quality+=("ndcg10_float32.$mode=$score")
  done
  psql_b -d postgres -c "DROP DATABASE ${db}_float32 WITH (FORCE)" >/dev/null
  record quality "$(json_of "${quality[@]}")"
fi

if [[ " $parts " == *" latency "* ]]; then
  rows=$(python3 -c "print(max(1000, int(1000000 * $scale)))")
  say "── kerai.search latency at ${rows} chunks (texts from SciFact sentences, vectors around real ones)"
  as_postgres psql -X -q -h 127.0.0.1 -p "$port" -U postgres -c "ALTER SYSTEM SET maintenance_work_mem = '6GB'" \
    -c "ALTER SYSTEM SET max_parallel_maintenance_workers = 2" -c "SELECT pg_reload_conf()" >/dev/null
  psql_b -d "$db" -v rows="$rows" -f scripts/bench/search_data.sql | sed 's/^/    /'
  rm -f "$work/latency.json"
  psql_b -d "$db" -v json_out="$work/latency.json" -f scripts/bench/search_latency.sql | sed 's/^/    /'
  if [ -s "$work/latency.json" ]; then
    record latency "$(cat "$work/latency.json")"
  fi
fi

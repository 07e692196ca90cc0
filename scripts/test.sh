#!/usr/bin/env bash
# `make test`: every test layer, in order; each runs even if an earlier one failed.
#   1. cargo test      pure crates (kerai-core, kerai-fetch)
#   2. pgrx test       #[pg_test] functions in a pgrx-managed cluster (run as postgres)
#   3. pg_regress      golden SQL files in pg_regress/ against the test cluster
#   4. e2e             tests/ : fetcher + extension + HTTP fixture sites on 127.0.0.1
#   5. citus           tests/tests/citus.rs on a coordinator and two workers (scripts/citus.sh),
#                      when Citus is installed or can be built; else one line says why
# KERAI_TEST_ONLY="cargo regress" runs a subset.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KERAI_ROOT"

only="${KERAI_TEST_ONLY:-cargo pgrx regress e2e citus}"
port="${KERAI_TEST_PGPORT:-28816}"
results=()
failed=0
logdir="${KERAI_STATE}/test-logs"
mkdir -p "$logdir"

wants() { [[ " $only " == *" $1 "* ]]; }

# run NAME LOG SUMMARY_REGEX CMD...: run a layer, keep its log, print its summary lines.
run_layer() {
  local name="$1" log="$2" pattern="$3"; shift 3
  say "── ${name}: $*"
  local start=$SECONDS rc
  "$@" >"$log" 2>&1
  rc=$?
  grep -E "$pattern" "$log" | sed 's/^/    /' | tail -n 40
  if [ "$rc" -ne 0 ]; then
    tail -n 60 "$log" | sed 's/^/    | /'
    results+=("FAIL  ${name} ($((SECONDS - start))s, log: ${log})")
    failed=1
  else
    results+=("ok    ${name} ($((SECONDS - start))s)")
  fi
}

if wants cargo; then
  run_layer "cargo test (kerai-core, kerai-kernels, kerai-fetch)" "${logdir}/cargo.log" '^test result:|^error|panicked|FAILED' \
    cargo test --locked -p kerai-core -p kerai-kernels -p kerai-fetch
fi

if wants pgrx; then
  pgdata="$(pg_owned_dir pgrx-test)"
  run_layer "cargo pgrx test pg${PG_MAJOR}" "${logdir}/pgrx.log" '^test result:|^error|panicked|FAILED' \
    cargo pgrx test "pg${PG_MAJOR}" --runas postgres --pgdata "${pgdata}/data"
fi

# pg_cron works in one database per cluster (cron.database_name = kerai_cron). Made here, before
# any test, with the extensions in it, and the cluster restarted so that the scheduler starts
# with its job table already there: made while the scheduler ran (by a test), the scheduler
# sometimes never saw the jobs a test scheduled.
prepare_cron_database() {
  local q=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres)
  "${q[@]}" -d postgres -c "CREATE DATABASE kerai_cron" &&
    "${q[@]}" -d kerai_cron -c "CREATE EXTENSION pg_cron" -c "CREATE EXTENSION kerai CASCADE" &&
    scripts/cluster.sh restart test "$port" kerai_cron || return 1
  for _ in $(seq 1 60); do
    if [ "$("${q[@]}" -At -d postgres -c "SELECT count(*) FROM pg_stat_activity
          WHERE backend_type = 'pg_cron launcher' AND datname = 'kerai_cron'")" = 1 ]; then
      return 0
    fi
    sleep 0.5
  done
  echo "the pg_cron scheduler did not start in database kerai_cron within 30 s" >&2
  return 1
}

if wants regress || wants e2e || wants citus; then
  say "── installing the extension and starting the test cluster (port ${port})"
  if scripts/install.sh >"${logdir}/install.log" 2>&1 && scripts/cluster.sh fresh test "$port" kerai_cron >>"${logdir}/install.log" 2>&1 \
     && prepare_cron_database >>"${logdir}/install.log" 2>&1; then
    cluster_ok=1
  else
    tail -n 30 "${logdir}/install.log" | sed 's/^/    | /'
    results+=("FAIL  install + test cluster (log: ${logdir}/install.log)")
    failed=1
    cluster_ok=0
  fi
fi

if wants regress && [ "${cluster_ok:-0}" = 1 ]; then
  pgxs="$("$PG_CONFIG" --pgxs)"
  pg_regress="$(dirname "$pgxs")/../test/regress/pg_regress"
  mapfile -t tests < <(find pg_regress/sql -name '*.sql' -printf '%f\n' | sed 's/\.sql$//' | sort)
  run_layer "pg_regress (${#tests[@]} files)" "${logdir}/regress.log" '^(ok|not ok|test |#|.*tests (passed|failed))|FAILED|failed' \
    "$pg_regress" --host=127.0.0.1 --port="$port" --user=postgres \
      --inputdir=pg_regress --outputdir=pg_regress --bindir="$PG_BIN" \
      --dbname=kerai_regress --load-extension=vector --load-extension=pg_trgm --load-extension=kerai \
      "${tests[@]}"
  if [ -f pg_regress/regression.diffs ] && [ -s pg_regress/regression.diffs ]; then
    say "    differences: pg_regress/regression.diffs"
  fi
  # The same golden files against databases made by each released version and brought up to
  # date with ALTER EXTENSION kerai UPDATE.
  for old in sql/archive/kerai--*.sql; do
    v="${old#sql/archive/kerai--}"; v="${v%.sql}"
    db="kerai_regress_from_${v//./_}"
    out="${logdir}/regress-from-${v}"
    mkdir -p "$out"
    psql -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "DROP DATABASE IF EXISTS ${db}" -c "CREATE DATABASE ${db}" >/dev/null
    run_layer "pg_regress on a database updated from ${v}" "${logdir}/regress-from-${v}.log" '^(ok|not ok|test |#|.*tests (passed|failed))|FAILED|failed|ERROR' \
      bash -c "psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p $port -U postgres -d ${db} -c \"CREATE EXTENSION kerai VERSION '${v}' CASCADE\" -c 'ALTER EXTENSION kerai UPDATE' \
               && \"$pg_regress\" --host=127.0.0.1 --port=$port --user=postgres --inputdir=pg_regress --outputdir=$out \
                    --bindir=$PG_BIN --use-existing --dbname=${db} ${tests[*]}"
  done
fi

if wants e2e && [ "${cluster_ok:-0}" = 1 ]; then
  export KERAI_TEST_DATABASE_URL="postgresql://postgres@127.0.0.1:${port}/postgres"
  export KERAI_BIN="${KERAI_ROOT}/target/debug/kerai"
  run_layer "e2e (tests/)" "${logdir}/e2e.log" '^test result:|^error|panicked|FAILED' \
    bash -c 'cargo build --locked -p kerai-fetch && cargo test --locked -p kerai-e2e -- --test-threads=2'
fi

if wants citus && [ "${cluster_ok:-0}" = 1 ]; then
  cport="${KERAI_TEST_CITUS_PORT:-$((port + 30))}"
  if why="$(scripts/citus.sh available)"; then
    run_layer "citus (a coordinator and two workers, ports ${cport}-$((cport + 2)))" "${logdir}/citus.log" '^test result:|^error|panicked|FAILED|^kerai: (building|Citus)' \
      bash -c "scripts/citus.sh build && scripts/citus.sh fresh ${cport} \
               && KERAI_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:${cport}/postgres KERAI_BIN='${KERAI_ROOT}/target/debug/kerai' \
                  cargo build --locked -p kerai-fetch \
               && KERAI_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:${cport}/postgres KERAI_BIN='${KERAI_ROOT}/target/debug/kerai' \
                  cargo test --locked -p kerai-e2e --test citus -- --ignored --test-threads=1"
    scripts/citus.sh stop >/dev/null 2>&1 || true
  else
    why="${why:-scripts/citus.sh available failed without saying why}"
    say "── citus: skipped: ${why}"
    results+=("skip  citus (${why})")
  fi
fi

if [ "${cluster_ok:-0}" = 1 ] && [ "${KERAI_KEEP_TEST_CLUSTER:-0}" != 1 ]; then
  scripts/cluster.sh stop test >/dev/null 2>&1 || true
fi

echo
say "summary"
for r in "${results[@]}"; do printf '  %s\n' "$r"; done
exit "$failed"

# Shared helpers for kerai's scripts. Source it; do not run it.
# shellcheck shell=bash

KERAI_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KERAI_STATE="${KERAI_ROOT}/.kerai"
PG_MAJOR="${KERAI_PG_MAJOR:-15}"
PG_BIN="/usr/lib/postgresql/${PG_MAJOR}/bin"
PG_CONFIG="${PG_BIN}/pg_config"
export PATH="${HOME}/.cargo/bin:${PATH}"

say()  { printf 'kerai: %s\n' "$*"; }
warn() { printf 'kerai: warning: %s\n' "$*" >&2; }
die()  { printf 'kerai: error: %s\n' "$*" >&2; exit 2; }

# wait_for PID SECONDS: true when process PID (a child) has ended, false after SECONDS.
wait_for() {
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  return 1
}

# run_logged WHAT LOG CMD...: run CMD with its output in LOG, saying (with the caller's `say`)
# every 30 s how long WHAT has taken and how many crates it compiled, so a long build is not a
# silent one; on failure, the log's tail and the command's status.
run_logged() {
  local what="$1" log="$2" started=$SECONDS pid
  shift 2
  "$@" >"$log" 2>&1 &
  pid=$!
  while ! wait_for "$pid" 30; do
    say "still ${what} ($((SECONDS - started)) s so far; $(grep -c '^ *Compiling' "$log" || true) crates compiled)"
  done
  if ! wait "$pid"; then
    tail -n 40 "$log" >&2
    return 1
  fi
  [ $((SECONDS - started)) -lt 10 ] || say "${what}: done in $((SECONDS - started)) s"
}

# Run a command as the postgres user (initdb and postgres refuse root).
as_postgres() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# A directory that the postgres user owns, under .kerai/. If postgres cannot reach the
# repository (a checkout under /root, say), the directory lives under /var/tmp and .kerai/NAME
# is a link to it.
pg_owned_dir() {
  local name="$1" dir="${KERAI_STATE}/$1"
  mkdir -p "$KERAI_STATE"
  if [ -L "$dir" ]; then
    mkdir -p "$(readlink "$dir")"
  elif [ ! -d "$dir" ]; then
    if as_postgres test -x "$KERAI_STATE" 2>/dev/null; then
      mkdir -p "$dir"
    else
      local alt
      alt="/var/tmp/kerai-$(printf '%s' "$KERAI_ROOT" | sha1sum | cut -c1-10)/${name}"
      mkdir -p "$alt"
      ln -s "$alt" "$dir"
    fi
  fi
  chown postgres:postgres "$(readlink -f "$dir")" 2>/dev/null || true
  readlink -f "$dir"
}

# True when something accepts TCP connections on 127.0.0.1:PORT.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# The measuring data beside the repository (benchmarks, suites): $KERAI_SHARED, else ../shared.
if [ -z "${KERAI_SHARED:-}" ]; then
  if [ -d "${KERAI_ROOT}/../shared" ]; then KERAI_SHARED="$(cd "${KERAI_ROOT}/../shared" && pwd)"; else KERAI_SHARED=/work/shared; fi
fi
export KERAI_SHARED

# psql on the benchmark cluster (the caller sets $port), quiet, stopping at the first error.
psql_b() {
  PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${port:?}" -U postgres "$@"
}

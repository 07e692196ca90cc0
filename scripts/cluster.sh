#!/usr/bin/env bash
# A private Postgres cluster under .kerai/NAME, run as the postgres user.
#   cluster.sh start NAME PORT [CRON_DB]   create or reuse, then start (idempotent)
#   cluster.sh stop NAME                    stop if running
#   cluster.sh fresh NAME PORT [CRON_DB]    stop, delete, create, start
#   cluster.sh restart NAME PORT [CRON_DB]
#   cluster.sh running NAME                 exit 0 when running
# With KERAI_PRELOAD_FIRST=LIB, LIB is preloaded first (Citus must be); KERAI_EXTRA_CONF holds
# more settings, one per line.
# With KERAI_SUPERVISE=/path/to/kerai, kerai is preloaded too, with kerai.autostart = on and
# kerai.fetcher_path set to it: kerai.start_crawler() works, and comes back after a restart.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd="${1:?usage: cluster.sh start|stop|fresh|restart|running NAME [PORT] [CRON_DB]}"
name="${2:?cluster name}"
port="${3:-}"
cron_db="${4:-kerai}"

dir="$(pg_owned_dir "$name")"
data="${dir}/data"
sock="${dir}/run"
log="${dir}/postgres.log"
# Unix socket paths are limited to 107 bytes.
if [ "$(printf '%s/.s.PGSQL.%s' "$sock" "${port:-99999}" | wc -c)" -gt 100 ]; then
  sock="/tmp/kerai-$(printf '%s' "$dir" | sha1sum | cut -c1-10)"
fi

running() {
  [ -f "${data}/postmaster.pid" ] && as_postgres "${PG_BIN}/pg_ctl" status -D "$data" >/dev/null 2>&1
}

running_port() {
  sed -n '4p' "${data}/postmaster.pid" 2>/dev/null
}

stop() {
  if running; then
    as_postgres "${PG_BIN}/pg_ctl" stop -D "$data" -m fast -w >/dev/null
    say "stopped cluster ${name}"
  fi
}

create() {
  if [ -f "${data}/PG_VERSION" ] && [ -f "${data}/kerai.conf" ]; then
    return
  fi
  # A half-made data directory (initdb interrupted) is removed and made again.
  rm -rf "$data"
  say "creating cluster ${name} in ${data}"
  as_postgres "${PG_BIN}/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"${dir}/initdb.log" 2>&1 \
    || die "initdb failed for ${data}; see ${dir}/initdb.log"
  echo "include = 'kerai.conf'" | as_postgres tee -a "${data}/postgresql.conf" >/dev/null
  as_postgres touch "${data}/kerai.conf"
}

conf_text() {
  local preload="'pg_cron'" supervise=""
  # Citus must come first in the list (scripts/citus.sh sets KERAI_PRELOAD_FIRST=citus).
  if [ -n "${KERAI_PRELOAD_FIRST:-}" ]; then
    preload="'${KERAI_PRELOAD_FIRST},pg_cron'"
  fi
  if [ -n "${KERAI_SUPERVISE:-}" ]; then
    preload="${preload%\'},kerai'"
    supervise="kerai.autostart = on
kerai.fetcher_path = '${KERAI_SUPERVISE}'"
  fi
  cat <<CONF
# written by scripts/cluster.sh on every start
port = ${port}
listen_addresses = '127.0.0.1'
unix_socket_directories = '${sock}'
shared_preload_libraries = ${preload}
${supervise}
cron.database_name = '${cron_db}'
max_connections = 100
shared_buffers = 256MB
fsync = off
synchronous_commit = off
full_page_writes = off
log_min_messages = warning
log_min_error_statement = panic
log_line_prefix = '%m [%p] %q%u@%d '
${KERAI_EXTRA_CONF:-}
CONF
}

configure() {
  mkdir -p "$sock"
  chown postgres:postgres "$sock"
  conf_text | as_postgres tee "${data}/kerai.conf" >/dev/null
}

start() {
  [ -n "$port" ] || die "cluster.sh start needs a port"
  if running; then
    local p
    p="$(running_port)"
    if [ "$p" = "$port" ] && [ "$(conf_text)" = "$(cat "${data}/kerai.conf" 2>/dev/null)" ]; then
      say "reusing running cluster ${name} on port ${port}"
      return
    fi
    if [ "$p" = "$port" ]; then
      say "cluster ${name}: its configuration changed: restarting"
    else
      say "cluster ${name} runs on port ${p}, wanted ${port}: restarting"
    fi
    stop
  fi
  if port_in_use "$port"; then
    die "port ${port} is already in use by another program; pick a free one, e.g. KERAI_PGPORT=$((port + 100)) (test cluster: KERAI_TEST_PGPORT)"
  fi
  create
  configure
  rm -f "${data}/postmaster.pid"
  if ! as_postgres "${PG_BIN}/pg_ctl" start -D "$data" -l "$log" -w -t 60 >/dev/null; then
    tail -n 20 "$log" >&2 || true
    die "the ${name} cluster did not start; see ${log}"
  fi
  say "started cluster ${name} on 127.0.0.1:${port}"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  fresh) stop; rm -rf "$data"; start ;;
  running) running ;;
  *) die "unknown command ${cmd}" ;;
esac

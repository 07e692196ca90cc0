#!/usr/bin/env bash
# The demo's servers: examples/site/ on 127.0.0.1:${KERAI_SITE_PORT:-28880}, and the offline
# stand-ins for the scholarly services (catalogue examples/scholarly/works.json) on
# 127.0.0.1:${KERAI_SCHOLAR_PORT:-28881}. Both are the test suite's own fakes (tests/src/site.rs,
# tests/src/scholarly.rs), run by the kerai-fixtures binary that scripts/demo.sh builds.
#   site.sh start | stop | url | scholar-url
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

port="${KERAI_SITE_PORT:-28880}"
scholar_port="${KERAI_SCHOLAR_PORT:-28881}"
pidfile="${KERAI_STATE}/site.pid"
scholar_pidfile="${KERAI_STATE}/scholar.pid"
fixtures="${KERAI_ROOT}/target/debug/kerai-fixtures"
mkdir -p "$KERAI_STATE"

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# start_server NAME PIDFILE PORT LOG CMD...: start CMD in the background unless it runs.
start_server() {
  local name="$1" pid="$2" p="$3" log="$4"; shift 4
  if alive "$pid"; then
    say "reusing ${name} on http://127.0.0.1:${p}/"
    return
  fi
  if port_in_use "$p"; then
    die "port ${p} (${name}) is already in use by another program; pick a free one with ${PORT_VAR}"
  fi
  nohup "$@" >"$log" 2>&1 &
  for _ in $(seq 50); do port_in_use "$p" && break; sleep 0.1; done
  port_in_use "$p" || die "the ${name} did not start; see ${log}"
  say "serving ${name} on http://127.0.0.1:${p}/"
}

case "${1:-}" in
  start)
    [ -x "$fixtures" ] || die "${fixtures} is missing; build it with: cargo build -p kerai-e2e --bins"
    PORT_VAR=KERAI_SITE_PORT start_server "demo site (examples/site/)" "$pidfile" "$port" "${KERAI_STATE}/site.log" \
      "$fixtures" site "${KERAI_ROOT}/examples/site" "$port" --pidfile "$pidfile"
    PORT_VAR=KERAI_SCHOLAR_PORT start_server "scholarly services (offline stand-ins)" "$scholar_pidfile" "$scholar_port" \
      "${KERAI_STATE}/scholar.log" \
      "$fixtures" scholarly "${KERAI_ROOT}/examples/scholarly/works.json" "$scholar_port" \
      --site "http://127.0.0.1:${port}" --pidfile "$scholar_pidfile"
    ;;
  stop)
    if alive "$pidfile"; then kill "$(cat "$pidfile")"; say "stopped demo site server"; fi
    if alive "$scholar_pidfile"; then kill "$(cat "$scholar_pidfile")"; say "stopped scholarly services"; fi
    rm -f "$pidfile" "$scholar_pidfile"
    ;;
  url) echo "http://127.0.0.1:${port}/" ;;
  scholar-url) echo "http://127.0.0.1:${scholar_port}" ;;
  *) die "usage: site.sh start|stop|url|scholar-url" ;;
esac

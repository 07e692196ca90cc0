#!/usr/bin/env bash
# The demo site server: examples/site/ on 127.0.0.1:${KERAI_SITE_PORT:-28880}.
#   site.sh start | stop | url
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

port="${KERAI_SITE_PORT:-28880}"
pidfile="${KERAI_STATE}/site.pid"
mkdir -p "$KERAI_STATE"

alive() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

case "${1:-}" in
  start)
    if alive; then
      say "reusing demo site server on http://127.0.0.1:${port}/"
      exit 0
    fi
    if port_in_use "$port"; then
      die "port ${port} (demo site) is already in use by another program; pick a free one with KERAI_SITE_PORT"
    fi
    nohup python3 "${KERAI_ROOT}/scripts/serve_site.py" "${KERAI_ROOT}/examples/site" "$port" --pidfile "$pidfile" \
      >"${KERAI_STATE}/site.log" 2>&1 &
    for _ in $(seq 50); do port_in_use "$port" && break; sleep 0.1; done
    port_in_use "$port" || die "the demo site server did not start; see ${KERAI_STATE}/site.log"
    say "serving examples/site/ on http://127.0.0.1:${port}/"
    ;;
  stop)
    if alive; then kill "$(cat "$pidfile")"; say "stopped demo site server"; fi
    rm -f "$pidfile"
    ;;
  url) echo "http://127.0.0.1:${port}/" ;;
  *) die "usage: site.sh start|stop|url" ;;
esac

#!/usr/bin/env bash
# Database helpers for a cluster started by cluster.sh.
#   db.sh url PORT DB          print the connection string
#   db.sh ensure PORT DB       create the database and the extension when missing; update it when older
#   db.sh login PORT DB ROLE   make ROLE a login (not a superuser) in kerai_editor and kerai_fetcher;
#                              print its connection string
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cmd="${1:?usage: db.sh url|ensure PORT DB}"
port="${2:?port}"
db="${3:?database}"
url="postgresql://postgres@127.0.0.1:${port}/${db}"
# A digest of an install script that ignores the order of its lines: pgrx may emit independent
# files in another order on each build, which is not a change of schema.
schema_sum() { LC_ALL=C sort "$1" 2>/dev/null | sha1sum | cut -c1-40; }
psql_q() { PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -At -h 127.0.0.1 -p "$port" -U postgres "$@"; }

case "$cmd" in
  url) echo "$url" ;;
  login)
    role="${4:?role}"
    psql_q -d "$db" -c "DO \$\$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE \"${role}\" LOGIN; END IF;
      END \$\$" -c "GRANT kerai_editor, kerai_fetcher TO \"${role}\"" >/dev/null
    echo "postgresql://${role}@127.0.0.1:${port}/${db}"
    ;;
  ensure)
    if [ -z "$(psql_q -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '${db}'")" ]; then
      psql_q -d postgres -c "CREATE DATABASE \"${db}\""
      say "created database ${db}"
    fi
    installed="$(psql_q -d "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'kerai'")"
    if [ -z "$installed" ]; then
      psql_q -d "$db" -c "CREATE EXTENSION kerai CASCADE"
      say "created extension kerai $(psql_q -d "$db" -c "SELECT kerai.version()") in ${db}"
    else
      psql_q -d "$db" -c "ALTER EXTENSION kerai UPDATE" >/dev/null 2>&1 || true
      # Same version, different install script: a development build. Recreate the extension.
      ver="$(psql_q -d "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'kerai'")"
      script="$("$PG_CONFIG" --sharedir)/extension/kerai--${ver}.sql"
      stamp="${KERAI_STATE}/schema-${port}-${db}.sha1"
      now="$(schema_sum "$script")"
      if [ -f "$stamp" ] && [ "$(cat "$stamp")" != "$now" ]; then
        warn "the installed kerai ${ver} schema changed since ${db} was made (a development build): recreating the extension, which drops its data"
        psql_q -d "$db" -c "DROP EXTENSION kerai CASCADE" -c "CREATE EXTENSION kerai CASCADE"
      fi
    fi
    script="$("$PG_CONFIG" --sharedir)/extension/kerai--$(psql_q -d "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'kerai'").sql"
    schema_sum "$script" >"${KERAI_STATE}/schema-${port}-${db}.sha1"
    ;;
  *) die "unknown command ${cmd}" ;;
esac

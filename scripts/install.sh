#!/usr/bin/env bash
# Build the kerai extension and install it into the system Postgres (${PG_CONFIG}).
# Prints "changed" on the last line when the installed library changed, "same" otherwise.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

libdir="$("$PG_CONFIG" --pkglibdir)"
before="$(sha1sum "${libdir}/kerai.so" 2>/dev/null | cut -c1-40 || true)"
profile_flag=()
[ "${KERAI_RELEASE:-0}" = 1 ] && profile_flag=(--release)
cd "$KERAI_ROOT"
say "building and installing the extension into $("$PG_CONFIG" --sharedir)/extension"
if ! cargo pgrx install --pg-config "$PG_CONFIG" "${profile_flag[@]}" >"${KERAI_STATE}/install.log" 2>&1; then
  tail -n 40 "${KERAI_STATE}/install.log" >&2
  die "cargo pgrx install failed; full log in ${KERAI_STATE}/install.log"
fi
after="$(sha1sum "${libdir}/kerai.so" | cut -c1-40)"
if [ "$before" = "$after" ]; then echo same; else echo changed; fi

#!/usr/bin/env bash
# Build the kerai extension and install it into the system Postgres (${PG_CONFIG}).
# KERAI_RELEASE=1 builds a release library (optimised: what `make install` builds); the default
# is a debug one (quicker to build, several times slower to run: the demo and the tests).
# Progress goes to standard error; standard output gets one line, "changed" when the installed
# library changed, "same" otherwise.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Messages on standard error: standard output is the one-line answer.
say() { printf 'kerai: %s\n' "$*" >&2; }

mkdir -p "$KERAI_STATE"
libdir="$("$PG_CONFIG" --pkglibdir)"
before="$(sha1sum "${libdir}/kerai.so" 2>/dev/null | cut -c1-40 || true)"
profile_flag=(--debug)
build=debug
[ "${KERAI_RELEASE:-0}" = 1 ] && { profile_flag=(); build=release; }
cd "$KERAI_ROOT"
say "building the extension (a ${build} build; the first build takes several minutes, later ones seconds; log: ${KERAI_STATE}/install.log)"
# Build into a staging directory, then put each file in place by renaming a fresh copy: a
# running server keeps the library it has mapped (overwriting it in place, as `cargo pgrx
# install` does, can crash those backends with SIGBUS).
stage="${KERAI_STATE}/package"
rm -rf "$stage"
run_logged "building the extension" "${KERAI_STATE}/install.log" \
  cargo pgrx package --pg-config "$PG_CONFIG" "${profile_flag[@]}" --out-dir "$stage" \
  || die "cargo pgrx package failed; full log in ${KERAI_STATE}/install.log"
# Upgrade scripts to this version that are not frozen in sql/ (released versions' are) are
# generated from the previous version's install script, this one's, and the hand-written parts
# in sql/upgrade/ (scripts/upgrade_script.py says what it cannot derive).
ext_stage="${stage}$("$PG_CONFIG" --sharedir)/extension"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)"
for manual in sql/upgrade/kerai--*--"${version}".manual.sql; do
  [ -e "$manual" ] || continue
  name="$(basename "$manual" .manual.sql)"
  from="${name#kerai--}"; from="${from%%--*}"
  [ -e "sql/${name}.sql" ] && continue
  post="sql/upgrade/${name}.post.sql"
  python3 scripts/upgrade_script.py "sql/archive/kerai--${from}.sql" "${ext_stage}/kerai--${version}.sql" "$manual" \
    $([ -e "$post" ] && echo "$post") >"${ext_stage}/${name}.sql" \
    || die "cannot draft ${name}.sql; write what scripts/upgrade_script.py names into ${manual}"
done
while IFS= read -r -d '' f; do
  dest="/${f#"$stage"/}"
  mkdir -p "$(dirname "$dest")"
  cp "$f" "${dest}.kerai-new"
  chmod "$([ "${dest##*.}" = so ] && echo 0755 || echo 0644)" "${dest}.kerai-new"
  mv -f "${dest}.kerai-new" "$dest"
done < <(find "$stage" -type f -print0)
# Install scripts of released versions, and the upgrade scripts between them (frozen in sql/),
# so `CREATE EXTENSION kerai VERSION 'x'` and `ALTER EXTENSION kerai UPDATE` from them work.
for f in sql/archive/kerai--*.sql sql/kerai--*--*.sql; do
  [ -e "$f" ] || continue
  dest="$("$PG_CONFIG" --sharedir)/extension/$(basename "$f")"
  cp "$f" "${dest}.kerai-new" && chmod 0644 "${dest}.kerai-new" && mv -f "${dest}.kerai-new" "$dest"
done
say "installed the ${build} build into $("$PG_CONFIG" --sharedir)/extension"
after="$(sha1sum "${libdir}/kerai.so" | cut -c1-40)"
if [ "$before" = "$after" ]; then echo same; else echo changed; fi

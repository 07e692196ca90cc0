#!/usr/bin/env bash
# `make demo`: the main job on an embedded default. Idempotent; a second run reuses what runs.
#   private cluster under .kerai/demo (port ${KERAI_PGPORT:-28815}), extension installed,
#   examples/site/ served on 127.0.0.1:${KERAI_SITE_PORT:-28880}, a crawl, the report.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KERAI_ROOT"

port="${KERAI_PGPORT:-28815}"
db=kerai

"${KERAI_ROOT}/scripts/setup.sh"
changed="$(scripts/install.sh | tail -n1)"
if [ "$changed" = changed ] && scripts/cluster.sh running demo; then
  say "the extension library changed: restarting the demo cluster to load it"
  scripts/cluster.sh restart demo "$port" "$db"
else
  scripts/cluster.sh start demo "$port" "$db"
fi
scripts/db.sh ensure "$port" "$db"
scripts/site.sh start

say "building the kerai CLI"
cargo build --locked -q -p kerai-fetch
export DATABASE_URL
DATABASE_URL="$(scripts/db.sh url "$port" "$db")"
kerai="${KERAI_ROOT}/target/debug/kerai"

site="http://127.0.0.1:${KERAI_SITE_PORT:-28880}/"
say "target 'example': the bundled site at ${site}"
"$kerai" config set example --base-url "$site" file_types=html,pdf,docx,xlsx rate_limit_rps=20 max_pages=100 >/dev/null
say "crawling (a second make demo finds the pages unchanged)"
"$kerai" run example --plain
echo
"$kerai" status
echo
say "the corpus as SQL sees it (kerai.corpus_overview)"
psql "$DATABASE_URL" -X -q -P pager=off -c "select * from kerai.corpus_overview"
say "demo ready: make psql (SQL), make dburl (connection string), make demo-stop (stop everything)"

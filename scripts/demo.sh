#!/usr/bin/env bash
# `make demo`: the main job on an embedded default. Idempotent; a second run reuses what runs.
#   private cluster under .kerai/demo (port ${KERAI_PGPORT:-28815}), extension installed,
#   examples/site/ served on 127.0.0.1:${KERAI_SITE_PORT:-28880}, a crawl, the report; then the
#   citation loop grows the corpus from the example article, resolving its references through
#   offline stand-ins of the scholarly services on 127.0.0.1:${KERAI_SCHOLAR_PORT:-28881};
#   the chunks are embedded, searched and used to answer a question; finally the crawler is left
#   running under Postgres (pg_cron schedules, kerai.start_crawler()).
#   demo.sh stop: stop the supervised crawler, the servers and the cluster (make demo-stop).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$KERAI_ROOT"

port="${KERAI_PGPORT:-28815}"
db=kerai
# The supervised daemon runs as the postgres user: a copy of the CLI it can reach.
demo_dir="$(pg_owned_dir demo)"
export KERAI_SUPERVISE="${demo_dir}/kerai"

if [ "${1:-}" = stop ]; then
  if scripts/cluster.sh running demo; then
    stopped="$(psql -X -q -At -h 127.0.0.1 -p "$port" -U postgres -d "$db" \
      -c "SELECT kerai.stop_crawler()" 2>/dev/null || true)"
    if [ "$stopped" = t ]; then
      say "stopping the supervised crawler"
      for _ in $(seq 100); do
        [ "$(psql -X -q -At -h 127.0.0.1 -p "$port" -U postgres -d "$db" \
              -c "SELECT supervisor_pid IS NULL FROM kerai.crawler_supervisor" 2>/dev/null)" = t ] && break
        sleep 0.5
      done
    fi
  fi
  scripts/site.sh stop
  scripts/cluster.sh stop demo
  exit 0
fi

"${KERAI_ROOT}/scripts/setup.sh"
if [ "${KERAI_RELEASE:-0}" != 1 ]; then
  say "the demo uses a debug build of the extension: quicker to build, several times slower to run (KERAI_RELEASE=1 make demo, or make install, builds a release)"
fi
changed="$(scripts/install.sh | tail -n1)"
if [ "$changed" = changed ] && scripts/cluster.sh running demo; then
  say "the extension library changed: restarting the demo cluster to load it"
  scripts/cluster.sh restart demo "$port" "$db"
else
  scripts/cluster.sh start demo "$port" "$db"
fi
scripts/db.sh ensure "$port" "$db"
say "building the kerai CLI and the fixture servers"
cargo build --locked -q -p kerai-fetch -p kerai-e2e --bins
install -m 0755 -o postgres target/debug/kerai "${KERAI_SUPERVISE}.new"
mv -f "${KERAI_SUPERVISE}.new" "$KERAI_SUPERVISE"
scripts/site.sh start
export DATABASE_URL
# The CLI logs in as kerai_demo: not a superuser, a member of kerai_editor and kerai_fetcher
# (docs/roles.md). `make psql` stays the superuser.
DATABASE_URL="$(scripts/db.sh login "$port" "$db" kerai_demo)"
kerai="${KERAI_ROOT}/target/debug/kerai"

site="http://127.0.0.1:${KERAI_SITE_PORT:-28880}/"
say "target 'example': the bundled site at ${site}"
"$kerai" config set example --base-url "$site" file_types=html,pdf,docx,xlsx rate_limit_rps=20 max_pages=100 >/dev/null
say "crawling (a second make demo finds the pages unchanged)"
"$kerai" run example --no-progress
echo
"$kerai" status
echo
say "the corpus as SQL sees it (kerai.corpus_overview)"
psql "$DATABASE_URL" -X -q -P pager=off -c "select * from kerai.corpus_overview"

scholar="$(scripts/site.sh scholar-url)"
say "growing the corpus along citations: kerai crawl resolves the references of the site's documents"
say "through offline stand-ins of CrossRef, Unpaywall, Semantic Scholar, arXiv, the Internet Archive"
say "and a concept search (${scholar}); open copies come from the site's papers/ (demo stand-ins)"
psql "$DATABASE_URL" -X -q -v ON_ERROR_STOP=1 -v scholar="$scholar" -v site="$site" >/dev/null <<'SQL'
SELECT kerai.register_agent('kerai_crawl', 'tool', NULL, jsonb_build_object(
    'crossref_url', :'scholar' || '/crossref', 'unpaywall_url', :'scholar' || '/unpaywall',
    'semantic_scholar_url', :'scholar' || '/semantic_scholar', 'arxiv_url', :'scholar' || '/arxiv',
    'internet_archive_url', :'scholar' || '/internet_archive', 'concept_search_url', :'scholar' || '/concept',
    -- local stand-ins: no pacing needed (the public services keep their published limits)
    'crossref_rps', 0, 'unpaywall_rps', 0, 'semantic_scholar_rps', 0, 'arxiv_rps', 0,
    'internet_archive_rps', 0, 'concept_search_rps', 0,
    'contact_email', 'demo@northwind.example',
    'rate_limit_seconds', 0, 'claims_per_cycle', 10, 'min_score', 0.2,
    'retry_base_seconds', 2, 'max_retries', 3,
    'ref_types', '["doi", "arxiv", "url", "author_year", "bibliography", "concept"]'::jsonb));
SQL
# kerai refuses loopback and private addresses found in documents and settings (the SSRF
# guard); the demo's stand-ins and site run on loopback, so allow them by host and port.
# Settings are kerai_admin's: the superuser sets this one, not the demo's login.
psql "$(scripts/db.sh url "$port" "$db")" -X -q -v ON_ERROR_STOP=1 -v scholar="$scholar" -v site="$site" >/dev/null <<'SQL'
SELECT kerai.set_setting('allowed_private_hosts', jsonb_build_array(
    substring(:'scholar' from '^https?://([^/]+)'), substring(:'site' from '^https?://([^/]+)')));
SQL
"$kerai" crawl --rate 0.5 --until-idle
echo
say "the corpus by citation-chain depth (0: the site's own documents)"
psql "$DATABASE_URL" -X -q -P pager=off -c "select * from kerai.documents_by_depth order by chain_depth"
say "references by status"
psql "$DATABASE_URL" -X -q -P pager=off -c "select status, count(*) as \"references\" from kerai.references group by status order by 2 desc, 1"
say "what the loop found from the article (kerai.citation_chain)"
psql "$DATABASE_URL" -X -q -P pager=off -c "select c.depth, c.title, d.metadata->>'content_type' as content, d.metadata->>'license' as license
  from kerai.citation_chain((select id from kerai.nodes where kind = 'document'
                              and metadata->>'source_url' like '%/research/active-inference.html'
                              order by created_at desc limit 1)) c
  join kerai.nodes d on d.id = c.document where c.depth > 0 order by c.depth, c.title"
say "and what it decided not to fetch"
psql "$DATABASE_URL" -X -q -P pager=off -c "select left(content, 48) as reference, status, left(last_error, 64) as why
  from kerai.references where status in ('skipped', 'not_found') order by status, content"
say "retrieval: every document is chunked, its chunks embedded (the local all-MiniLM-L6-v2 model)"
"$kerai" embed
psql "$DATABASE_URL" -X -q -P pager=off -c "select chunks, embedded, pending, failed, entities, claims from kerai.retrieval_overview"
say "hybrid search (full text + vectors): kerai search 'how does the brain predict its inputs'"
"$kerai" search "how does the brain predict its inputs" -k 5
say "an answer with its sources (extractive: no chat model is configured; see docs/guide.md, Search and answer)"
"$kerai" answer "What does the good regulator theorem say?" -k 2
say "claims found without a language model"
psql "$DATABASE_URL" -X -q -P pager=off -c "select source, left(statement, 70) as statement, round(confidence::numeric, 2) as confidence
  from kerai.claims order by source, confidence desc, statement limit 8"
say "the corpus as a page: kerai report --html ${KERAI_STATE}/report.html (open it in a browser)"
"$kerai" report --html "${KERAI_STATE}/report.html"
say "running by itself: pg_cron recrawls the site weekly and runs the citation cycle, and a supervised"
say "kerai daemon (kerai.start_crawler()) does the work, with no process of yours in the foreground"
psql "$(scripts/db.sh url "$port" "$db")" -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION IF NOT EXISTS pg_cron;
SELECT cron.schedule('kerai:example', '0 3 * * 1', $$SELECT kerai.enqueue_job('example', 'incremental', '{}'::jsonb, 'pg_cron')$$);
SELECT kerai.schedule_crawl('5 minutes');
SQL
psql "$(scripts/db.sh url "$port" "$db")" -X -q -At -c "SELECT kerai.start_crawler('kerai_demo')"
psql "$DATABASE_URL" -X -q -P pager=off -c "select worker, state, work from kerai.crawler_status()"
say "watch it: kerai status, or SELECT * FROM kerai.crawler_status(); its log: ${demo_dir}/data/log/kerai-daemon-${db}.log"
say "stop it: SELECT kerai.stop_crawler() (make demo-stop stops it with everything else)"
say "demo ready: make psql (SQL), make dburl (connection string), make demo-stop (stop everything)"

-- The dashboard views over the counters and the frontier, and the citation loop's pg_cron
-- schedule.

-- ---------------------------------------------------------------- dashboard views

CREATE VIEW kerai.corpus_overview AS
SELECT kerai.counter('kind:document') AS documents,
       kerai.counter('kind:reference') AS "references",
       kerai.counter('references:resolved') AS resolved,
       kerai.counter('references:unresolved') AS frontier,
       kerai.counter('nodes') AS total_nodes;
COMMENT ON VIEW kerai.corpus_overview IS
    'The corpus at a glance, in constant time from the counters: documents, references, resolved (references '
    'resolved), frontier (references unresolved), total_nodes.';

CREATE VIEW kerai.documents_by_depth AS
SELECT split_part(name, ':', 2)::integer AS chain_depth, value AS documents
  FROM kerai.counters WHERE name LIKE 'documents\_at\_depth:%' AND value > 0;
COMMENT ON VIEW kerai.documents_by_depth IS
    'Documents per citation-chain depth (chain_depth, documents; seeds are depth 0), from the counters.';

CREATE VIEW kerai.priority_queue AS
SELECT f.content, f.cite_count AS citations, f.score, f.ref_type, f.ref FROM kerai.frontier(20) f;
COMMENT ON VIEW kerai.priority_queue IS
    'The 20 best unresolved references, kerai.frontier(20): content, citations (cite_count), score, ref_type, ref.';

CREATE VIEW kerai.hourly_ingestion AS
SELECT date_trunc('hour', resolved_at) AS hour, count(*) AS ingested
  FROM kerai.reference_state
 WHERE resolved_at >= date_trunc('hour', now()) - interval '23 hours'
 GROUP BY 1;
COMMENT ON VIEW kerai.hourly_ingestion IS
    'References resolved per hour, over the current hour and the 23 before it (hour, ingested), from '
    'reference_state.resolved_at.';

CREATE VIEW kerai.references AS
SELECT n.id, n.content, rs.ref_type, rs.status, rs.score, rs.cite_count, rs.chain_depth, rs.chain_root,
       rs.doi, rs.url, rs.arxiv, rs.year, rs.first_author, rs.retries, rs.next_retry_after, rs.last_error,
       rs.resolved_doc, rs.resolved_at, n.metadata, n.created_at
  FROM kerai.reference_state rs JOIN kerai.nodes n ON n.document_id = rs.node_id AND n.id = rs.node_id;
COMMENT ON VIEW kerai.references IS
    'Reference nodes with their crawl state: id, content, ref_type, status, score, cite_count, chain_depth, '
    'chain_root, doi, url, arxiv, year, first_author, retries, next_retry_after, last_error, resolved_doc, '
    'resolved_at, metadata, created_at.';

-- ---------------------------------------------------------------- pg_cron

-- Accepts a cron expression ('*/5 * * * *'), pg_cron seconds ('30 seconds'), or a plain
-- interval in seconds or minutes ('60 seconds', '5 minutes', '1 minute').
CREATE FUNCTION kerai._cron_expression(spec text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    m text[];
    n integer;
BEGIN
    spec := btrim(lower(spec));
    m := regexp_match(spec, '^(\d+)\s*(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hour|hours)$');
    IF m IS NULL THEN
        RETURN spec;
    END IF;
    n := m[1]::integer;
    IF m[2] LIKE 's%' THEN
        IF n BETWEEN 1 AND 59 THEN RETURN n || ' seconds'; END IF;
        IF n % 60 = 0 THEN n := n / 60; m[2] := 'm'; ELSE
            RAISE EXCEPTION 'cannot schedule every % seconds', n USING ERRCODE = '22023',
                HINT = 'use 1 to 59 seconds, or whole minutes';
        END IF;
    END IF;
    IF m[2] LIKE 'h%' THEN n := n * 60; END IF;
    IF n = 1 THEN RETURN '* * * * *'; END IF;
    IF n < 60 THEN RETURN '*/' || n || ' * * * *'; END IF;
    IF n % 60 = 0 AND n / 60 < 24 THEN RETURN '0 */' || (n / 60) || ' * * *'; END IF;
    RAISE EXCEPTION 'cannot schedule every % minutes', n USING ERRCODE = '22023', HINT = 'use a cron expression';
END
$$;

CREATE FUNCTION kerai.schedule_crawl("interval" text DEFAULT '1 minute') RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    expr text := kerai._cron_expression("interval");
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_cron') THEN
        RAISE EXCEPTION 'pg_cron is not installed in database %', current_database() USING ERRCODE = '55000',
            HINT = 'CREATE EXTENSION pg_cron; it needs shared_preload_libraries = ''pg_cron'' and cron.database_name = '''
                   || current_database() || '''';
    END IF;
    IF expr LIKE '% seconds' AND string_to_array((SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'), '.')::int[]
                                   < ARRAY[1, 5] THEN
        RAISE EXCEPTION 'pg_cron % cannot schedule every %', (SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'), expr
            USING ERRCODE = '22023', HINT = 'pg_cron 1.5 or later schedules in seconds; use whole minutes, e.g. ''1 minute''';
    END IF;
    RETURN cron.schedule('kerai_crawl', expr, 'SELECT kerai.crawl_cycle()');
END
$$;

CREATE FUNCTION kerai.unschedule_crawl() RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_cron') THEN
        RETURN false;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM cron.job WHERE jobname = 'kerai_crawl') THEN
        RETURN false;
    END IF;
    RETURN cron.unschedule('kerai_crawl');
END
$$;

-- p50 / p95 of kerai.search(query, 10) over the 300 SciFact queries, per mode; "hybrid" embeds
-- the query inside the database (the local model), "hybrid (vector given)" passes the query
-- vector as a caller would (kerai search, or an application holding the model).
-- psql -v json_out=FILE also writes the figures to FILE as one JSON object (search.sh keeps it):
-- {"chunks": N, "modes": [{"mode", "queries", "p50_ms", "p95_ms", "ms": [each query's ms, sorted]}]}.
\set ON_ERROR_STOP on
\if :{?json_out}
\else
\set json_out /dev/null
\endif
CREATE TEMP TABLE modes AS
SELECT * FROM unnest(ARRAY['fts', 'vector', 'hybrid', 'hybrid (vector given)', 'hybrid, filtered'])
                WITH ORDINALITY AS m(mode, ord);
CREATE TEMP TABLE qv AS SELECT q.id, q.text, kerai.embed(q.text) AS v FROM kerai_bench.queries q;
CREATE TEMP TABLE timings (mode text, ms float8);
DO $$
DECLARE
    q record;
    m text;
    t0 timestamptz;
    n integer;
BEGIN
    -- Warm-up: every query once, both halves of hybrid search (pages and indexes in memory).
    FOR q IN SELECT * FROM qv ORDER BY id LOOP
        PERFORM count(*) FROM kerai.search(q.text, 10, jsonb_build_object('query_embedding', q.v::text::jsonb));
    END LOOP;
    FOR m IN SELECT mode FROM modes ORDER BY ord LOOP
        FOR q IN SELECT * FROM qv ORDER BY id LOOP
            t0 := clock_timestamp();
            IF m = 'hybrid (vector given)' THEN
                SELECT count(*) INTO n FROM kerai.search(q.text, 10, jsonb_build_object('query_embedding', q.v::text::jsonb));
            ELSIF m = 'hybrid, filtered' THEN
                SELECT count(*) INTO n FROM kerai.search(q.text, 10, jsonb_build_object('query_embedding', q.v::text::jsonb,
                    'language', 'de', 'since', (now() - interval '90 days')::text));
            ELSE
                SELECT count(*) INTO n FROM kerai.search(q.text, 10, jsonb_build_object('mode', m));
            END IF;
            INSERT INTO timings VALUES (m, extract(epoch FROM clock_timestamp() - t0) * 1000);
        END LOOP;
    END LOOP;
END $$;
CREATE TEMP TABLE latency AS
SELECT t.mode, count(*) AS queries,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY t.ms)::numeric, 1) AS p50_ms,
       round(percentile_cont(0.95) WITHIN GROUP (ORDER BY t.ms)::numeric, 1) AS p95_ms,
       json_agg(round(t.ms::numeric, 1) ORDER BY t.ms) AS ms,
       m.ord
  FROM timings t JOIN modes m USING (mode)
 GROUP BY t.mode, m.ord;
SELECT mode, queries, p50_ms, p95_ms FROM latency ORDER BY ord;
-- Unaligned and without header or footer, the one row is the JSON text alone; \o sends it to the file.
\pset format unaligned
\pset tuples_only on
\o :json_out
SELECT json_build_object(
         'chunks', (SELECT count(*) FROM kerai.chunks),
         'modes', json_agg(json_build_object('mode', mode, 'queries', queries, 'p50_ms', p50_ms,
                                             'p95_ms', p95_ms, 'ms', ms) ORDER BY ord))
  FROM latency;
\o

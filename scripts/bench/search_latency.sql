-- p50 / p95 of kerai.search(query, 10) over the 300 SciFact queries, per mode; "hybrid" embeds
-- the query inside the database (the local model), "hybrid (vector given)" passes the query
-- vector as a caller would (kerai search, or an application holding the model).
\set ON_ERROR_STOP on
CREATE TEMP TABLE qv AS SELECT q.id, q.text, kerai.embed(q.text) AS v FROM kerai_bench.queries q;
CREATE TEMP TABLE timings (mode text, ms float8);
DO $$
DECLARE
    q record;
    m text;
    t0 timestamptz;
    n integer;
BEGIN
    PERFORM count(*) FROM kerai.search('warm up the caches', 10);
    FOR m IN SELECT unnest(ARRAY['fts', 'vector', 'hybrid', 'hybrid (vector given)', 'hybrid, filtered']) LOOP
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
SELECT mode, count(*) AS queries,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS p50_ms,
       round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS p95_ms
  FROM timings GROUP BY mode
 ORDER BY array_position(ARRAY['fts', 'vector', 'hybrid', 'hybrid (vector given)', 'hybrid, filtered'], mode);

-- Timing helpers for the SQL benchmarks (a schema of their own, dropped by the next run).
DROP SCHEMA IF EXISTS kerai_bench CASCADE;
CREATE SCHEMA kerai_bench;

-- Median wall time in ms of `runs` executions of `query` (after one warm-up run).
CREATE FUNCTION kerai_bench.median_ms(query text, runs integer DEFAULT 15) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    times float8[] := '{}';
BEGIN
    EXECUTE query;
    FOR i IN 1..runs LOOP
        t0 := clock_timestamp();
        EXECUTE query;
        times := times || extract(epoch FROM clock_timestamp() - t0) * 1000;
    END LOOP;
    RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY t) FROM unnest(times) t);
END
$$;

CREATE FUNCTION kerai_bench.p95_ms(query text, runs integer DEFAULT 40) RETURNS float8[]
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    times float8[] := '{}';
BEGIN
    EXECUTE query;
    FOR i IN 1..runs LOOP
        t0 := clock_timestamp();
        EXECUTE query;
        times := times || extract(epoch FROM clock_timestamp() - t0) * 1000;
    END LOOP;
    RETURN ARRAY[(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY t) FROM unnest(times) t),
                 (SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY t) FROM unnest(times) t)];
END
$$;

-- "label ........ median 12.34 ms"
CREATE FUNCTION kerai_bench.line(label text, ms float8) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT rpad(label, 30) || ' median ' || lpad(round(ms::numeric, 2)::text, 10) || ' ms' $$;

-- The seed's per-row SQL (seed 004, 21.9), on the same data: the baseline the maintained
-- scores and counters are compared against.
\set ON_ERROR_STOP on
\pset format unaligned
\pset tuples_only on
SELECT kerai_bench.line('naive corpus overview', kerai_bench.median_ms($q$
    SELECT (SELECT count(*) FROM kerai.nodes WHERE kind = 'document'),
           (SELECT count(*) FROM kerai.nodes WHERE kind = 'reference'),
           (SELECT count(*) FROM kerai.reference_state WHERE status = 'resolved'),
           (SELECT count(*) FROM kerai.reference_state WHERE status = 'unresolved'),
           (SELECT count(*) FROM kerai.nodes) $q$, 3));
SELECT kerai_bench.line('naive documents by depth', kerai_bench.median_ms($q$
    SELECT metadata->>'chain_depth', count(*) FROM kerai.nodes WHERE kind = 'document'
       AND metadata->>'chain_root' IS NULL GROUP BY 1 $q$, 3));
SELECT kerai_bench.line('naive hourly ingestion', kerai_bench.median_ms($q$
    SELECT date_trunc('hour', resolved_at), count(*) FROM kerai.reference_state rs JOIN kerai.nodes n ON n.id = rs.node_id
     WHERE rs.status = 'resolved' GROUP BY 1 ORDER BY 1 DESC LIMIT 24 $q$, 3));

-- The seed's priority queue (ORDER BY kerai.score_reference(id)), computed per row per query.
\set ON_ERROR_STOP on
\pset format unaligned
\pset tuples_only on
SELECT kerai_bench.line('naive priority queue', kerai_bench.median_ms($q$
    SELECT n.content, rs.cite_count, kerai.score_reference(n.id) AS score
      FROM kerai.nodes n JOIN kerai.reference_state rs ON rs.node_id = n.id
     WHERE n.kind = 'reference' AND rs.status = 'unresolved'
     ORDER BY kerai.score_reference(n.id) DESC LIMIT 20 $q$, 3));

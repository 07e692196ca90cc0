-- Frontier and dashboard latency on the generated corpus.
\set ON_ERROR_STOP on
\pset format unaligned
\pset tuples_only on
SELECT format('corpus: %s documents, %s references, %s cites edges, %s nodes',
              (SELECT documents FROM kerai.corpus_overview), (SELECT "references" FROM kerai.corpus_overview),
              (SELECT count(*) FROM kerai.edges WHERE relation = 'cites'), (SELECT total_nodes FROM kerai.corpus_overview));
SELECT kerai_bench.line(q, kerai_bench.median_ms('SELECT * FROM ' || q))
FROM unnest(ARRAY['kerai.frontier(20)', 'kerai.corpus_overview', 'kerai.documents_by_depth',
                  'kerai.priority_queue', 'kerai.hourly_ingestion']) q;

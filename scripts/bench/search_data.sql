-- :rows synthetic chunks for the latency benchmark, beside the SciFact corpus already loaded:
-- texts of four random SciFact sentences, vectors the normalised sum of two real abstract
-- vectors (so they cluster like real ones), spread over a year of crawl times. The HNSW and
-- GIN indexes are built after the load, as one would for a bulk import.
\set ON_ERROR_STOP on
SET maintenance_work_mem = '6GB';
-- Idempotent: a previous run's synthetic rows go first.
DELETE FROM kerai.chunks WHERE chunk_key LIKE 'synthetic:%';
DELETE FROM kerai.nodes WHERE kind = 'document' AND metadata->>'source_url' LIKE 'synthetic:%';
SET max_parallel_maintenance_workers = 2;
CREATE TEMP TABLE sentences AS
SELECT row_number() OVER () AS i, s
  FROM (SELECT regexp_split_to_table(content, '\.\s+') AS s FROM kerai.chunks) x
 WHERE length(s) > 30;
CREATE UNIQUE INDEX ON sentences (i);
CREATE TEMP TABLE reals AS
SELECT row_number() OVER () AS i, embedding FROM kerai.embeddings;
CREATE UNIQUE INDEX ON reals (i);
ANALYZE sentences;
ANALYZE reals;
SELECT count(*) AS sentences FROM sentences \gset
SELECT count(*) AS reals FROM reals \gset
CREATE TEMP TABLE docs AS
SELECT n, gen_random_uuid() AS id FROM generate_series(0, (:rows - 1) / 100) n;
\timing on
INSERT INTO kerai.documents (id) SELECT id FROM docs;
INSERT INTO kerai.nodes (id, kind, content, document_id, metadata)
SELECT id, 'document', 'synthetic ' || n, id,
       jsonb_build_object('source_url', 'synthetic:' || n, 'content_hash', md5(n::text))
  FROM docs;
DROP INDEX IF EXISTS kerai.chunks_fts_idx;
INSERT INTO kerai.chunks (id, chunk_key, document_id, chunk_index, chunk_total, chunk_strategy, content,
                          token_count, content_hash, source_url, language, crawl_timestamp, embedding_status)
SELECT gen_random_uuid(), 'synthetic:' || g, d.id, 0, 1, 'paragraph', t.txt, 120, md5(t.txt),
       'https://synthetic.example.org/' || (g % 50) || '/' || g, CASE WHEN g % 10 = 0 THEN 'de' ELSE 'en' END,
       now() - (g % 365) * interval '1 day', 'done'
  FROM generate_series(1, :rows) g
  JOIN docs d ON d.n = (g - 1) / 100
  CROSS JOIN LATERAL (
      SELECT string_agg(s.s, '. ') || '.' AS txt
        FROM sentences s
       WHERE s.i IN (1 + (hashint4(g) & 2147483647) % :sentences, 1 + (hashint4(g + 7) & 2147483647) % :sentences,
                     1 + (hashint4(g + 13) & 2147483647) % :sentences, 1 + (hashint4(g + 29) & 2147483647) % :sentences)
  ) t;
-- Fresh statistics first: with a previous run's rows just deleted, the planner joined the
-- million new chunks to the real vectors by a nested loop (13 minutes instead of one).
ANALYZE kerai.chunks;
DO $$
DECLARE i record;
BEGIN
    FOR i IN SELECT indexname FROM pg_indexes WHERE schemaname = 'kerai' AND indexname LIKE 'embeddings_hnsw_%' LOOP
        EXECUTE format('DROP INDEX kerai.%I', i.indexname);
    END LOOP;
END $$;
-- The synthetic vectors carry the configured model's name, as the real ones do.
SELECT kerai.setting('embedding_model') #>> '{}' AS model \gset
INSERT INTO kerai.embeddings (chunk_id, model_name, dimensions, embedding)
SELECT c.id, :'model', 384, l2_normalize(a.embedding + b.embedding)
  FROM kerai.chunks c
  JOIN reals a ON a.i = 1 + (hashtext(c.id::text) & 2147483647) % :reals
  JOIN reals b ON b.i = 1 + (hashtext(c.content_hash) & 2147483647) % :reals
 WHERE c.chunk_key LIKE 'synthetic:%';
CREATE INDEX chunks_fts_idx ON kerai.chunks USING gin (fts);
SELECT kerai.create_embedding_index(:'model', 384) AS hnsw_index;
VACUUM ANALYZE kerai.chunks;
VACUUM ANALYZE kerai.embeddings;
\timing off
SELECT count(*) AS chunks, pg_size_pretty(pg_total_relation_size('kerai.chunks')) AS chunks_size,
       pg_size_pretty(pg_total_relation_size('kerai.embeddings')) AS embeddings_size
  FROM kerai.chunks;

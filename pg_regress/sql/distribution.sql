-- Scale-out on paper (docs/scale-out.md): kerai.distribution_plan against the schema, and every
-- row's distribution key against its parent row's.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
SET client_min_messages = warning;
BEGIN;

-- Every kerai table (partitions aside) is in the plan once, and the plan names no other table.
SELECT coalesce(c.relname, p.table_name) AS table_name,
       CASE WHEN c.relname IS NULL THEN 'in the plan, not in the schema' ELSE 'not in the plan' END AS problem
  FROM (SELECT relname FROM pg_class WHERE relnamespace = 'kerai'::regnamespace AND relkind IN ('r', 'p')
           AND NOT relispartition) c
  FULL JOIN kerai.distribution_plan p ON p.table_name = c.relname
 WHERE c.relname IS NULL OR p.table_name IS NULL;
SELECT table_name, count(*) FROM kerai.distribution_plan GROUP BY 1 HAVING count(*) > 1;

-- Every distributed table has its column, NOT NULL; reference and coordinator tables name none.
SELECT p.table_name, p.distribution_column, a.attname IS NOT NULL AS exists, a.attnotnull AS not_null
  FROM kerai.distribution_plan p
  LEFT JOIN pg_attribute a ON a.attrelid = ('kerai.' || p.table_name)::regclass AND a.attname = p.distribution_column
                          AND NOT a.attisdropped
 WHERE (p.placement = 'distributed') <> coalesce(a.attnotnull, false)
    OR (p.placement = 'distributed') <> (p.distribution_column IS NOT NULL);

-- A co-location group's keys are all of one type (uuid here).
SELECT p.colocation, array_agg(DISTINCT format_type(a.atttypid, a.atttypmod)) AS types
  FROM kerai.distribution_plan p
  JOIN pg_attribute a ON a.attrelid = ('kerai.' || p.table_name)::regclass AND a.attname = p.distribution_column
 WHERE p.placement = 'distributed'
 GROUP BY 1 ORDER BY 1;

-- Keys Citus accepts: a distributed table's primary key and unique keys (every unique index)
-- hold its distribution column, and a foreign key between two distributed tables stays in one
-- co-location group and pairs the two columns. Nothing is listed: every key follows the rules.
SELECT p.table_name, i.indexrelid::regclass AS unique_index
  FROM kerai.distribution_plan p
  JOIN pg_index i ON i.indrelid = ('kerai.' || p.table_name)::regclass AND i.indisunique
  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attname = p.distribution_column
 WHERE p.placement = 'distributed' AND NOT a.attnum = ANY (i.indkey)
 ORDER BY 1, 2;
SELECT p.table_name, c.conname, f.table_name AS refers_to
  FROM kerai.distribution_plan p
  JOIN pg_constraint c ON c.conrelid = ('kerai.' || p.table_name)::regclass AND c.contype = 'f'
  JOIN kerai.distribution_plan f ON ('kerai.' || f.table_name)::regclass = c.confrelid
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attname = p.distribution_column
  JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attname = f.distribution_column
 WHERE p.placement = 'distributed' AND f.placement = 'distributed'
   AND (p.colocation IS DISTINCT FROM f.colocation
        OR NOT EXISTS (SELECT 1 FROM unnest(c.conkey, c.confkey) AS k(mine, theirs)
                        WHERE k.mine = a.attnum AND k.theirs = fa.attnum))
 ORDER BY 1, 2;

-- What a dump keeps (user data) is distributed or a reference table, never coordinator-only.
SELECT p.table_name, p.placement
  FROM pg_extension e, unnest(e.extconfig) AS x(oid)
  JOIN pg_class c ON c.oid = x.oid AND c.relkind IN ('r', 'p') AND NOT c.relispartition
  JOIN kerai.distribution_plan p ON p.table_name = c.relname
 WHERE e.extname = 'kerai' AND p.placement = 'coordinator';
SELECT placement, colocation, count(*) FROM kerai.distribution_plan GROUP BY 1, 2 ORDER BY 1, 2;

-- Rows: a document with references, a hand-made edge, a chunk with a vector and entities,
-- a target's page version and job URL, an answer with a citation.
SELECT kerai.parse_markdown($md$# Scaling notes

Sharding by document keeps a tree on one machine (Corbett, 2012). See doi:10.1145/2491245.

## References

1. Corbett, J. C. (2012). Spanner: Google's globally-distributed database. OSDI. https://doi.org/10.1145/2491245
$md$, '{"source_url": "https://example.org/scaling"}') AS doc \gset
SELECT (kerai.extract_references(:'doc')->>'references')::integer > 0 AS references_made;
INSERT INTO kerai.edges (source_id, target_id, relation)
SELECT n.id, :'doc', 'mentions' FROM kerai.nodes n WHERE n.document_id = :'doc' AND n.kind = 'paragraph' LIMIT 1;
SELECT (kerai.chunk_document(:'doc')->>'chunks')::integer > 0 AS chunked;
SELECT kerai.embed_pending(10) > 0 AS embedded;
INSERT INTO kerai.entities (chunk_id, text, kind, start_char, end_char, confidence)
SELECT id, 'Spanner', 'product', 0, 7, 0.9 FROM kerai.chunks WHERE document_id = :'doc' LIMIT 1;
INSERT INTO kerai.claims (document_id, chunk_id, statement, subject, predicate, object, confidence, source)
SELECT :'doc', id, 'Spanner is a database', 'Spanner', 'is', 'a database', 0.7, 'llm'
  FROM kerai.chunks WHERE document_id = :'doc' LIMIT 1;
SELECT kerai.write_perspective('kerai_crawl', :'doc', 0.5, 'scaling');
SELECT (kerai.set_target('shards', 'https://shards.example.org/')).name;
SELECT kerai.enqueue_job('shards') AS job \gset
INSERT INTO kerai.job_logs (job_id, level, event, message) VALUES (:'job', 'INFO', 'NOTE', 'written by hand');
INSERT INTO kerai.job_urls (job_id, url, url_hash, host) VALUES (:'job', 'https://shards.example.org/', 'h0', 'shards.example.org');
INSERT INTO kerai.pages (id, target_id, url, url_hash)
SELECT '00000000-0000-4000-8000-0000000000d1', id, 'https://shards.example.org/', 'h0' FROM kerai.targets WHERE name = 'shards';
INSERT INTO kerai.page_versions (page_id, content_hash) VALUES ('00000000-0000-4000-8000-0000000000d1', 'v1');
SELECT kerai._record_answer('how are documents sharded', 'By document.', 'test', 'extractive', 0, 0,
       jsonb_build_array(jsonb_build_object('chunk_id', (SELECT id FROM kerai.chunks WHERE document_id = :'doc' LIMIT 1),
                                            'relevance_score', 0.8))) IS NOT NULL AS answered;

-- A second version of the page with the same text (fetched again with force): its chunks move
-- to the new document, and their vectors and entities with them.
SELECT kerai.parse_markdown($md$# Scaling notes

Sharding by document keeps a tree on one machine (Corbett, 2012). See doi:10.1145/2491245.

## References

1. Corbett, J. C. (2012). Spanner: Google's globally-distributed database. OSDI. https://doi.org/10.1145/2491245
$md$, '{"source_url": "https://example.org/scaling"}') AS doc2 \gset
SELECT (kerai.chunk_document(:'doc2')->>'chunks')::integer > 0 AS rechunked;
SELECT count(*) > 0 AS vectors_moved FROM kerai.embeddings WHERE document_id = :'doc2';
SELECT count(*) > 0 AS entities_moved FROM kerai.entities WHERE document_id = :'doc2';
SELECT count(*) > 0 AS claims_moved FROM kerai.claims WHERE document_id = :'doc2';

-- Every row's key is its parent row's: (table, rows, rows whose key disagrees).
SELECT 'nodes' AS t, count(*) > 0 AS has_rows,
       count(*) FILTER (WHERE n.document_id IS DISTINCT FROM CASE WHEN n.parent_id IS NULL THEN n.id ELSE p.document_id END) AS wrong
  FROM kerai.nodes n LEFT JOIN kerai.nodes p ON p.id = n.parent_id
UNION ALL
SELECT 'edges', count(*) > 0, count(*) FILTER (WHERE e.document_id IS DISTINCT FROM s.document_id)
  FROM kerai.edges e LEFT JOIN kerai.nodes s ON s.id = e.source_id
UNION ALL
SELECT 'embeddings', count(*) > 0, count(*) FILTER (WHERE e.document_id IS DISTINCT FROM c.document_id)
  FROM kerai.embeddings e LEFT JOIN kerai.chunks c ON c.id = e.chunk_id
UNION ALL
SELECT 'entities', count(*) > 0, count(*) FILTER (WHERE e.document_id IS DISTINCT FROM c.document_id)
  FROM kerai.entities e LEFT JOIN kerai.chunks c ON c.id = e.chunk_id
UNION ALL
SELECT 'claims of a chunk', count(*) > 0, count(*) FILTER (WHERE x.document_id IS DISTINCT FROM c.document_id)
  FROM kerai.claims x JOIN kerai.chunks c ON c.id = x.chunk_id
UNION ALL
SELECT 'perspectives', count(*) > 0, count(*) FILTER (WHERE x.document_id IS DISTINCT FROM n.document_id)
  FROM kerai.perspectives x LEFT JOIN kerai.nodes n ON n.id = x.node_id
UNION ALL
SELECT 'reference_state', count(*) > 0, count(*) FILTER (WHERE r.node_id IS DISTINCT FROM n.document_id)
  FROM kerai.reference_state r LEFT JOIN kerai.nodes n ON n.id = r.node_id
UNION ALL
SELECT 'page_versions', count(*) > 0, count(*) FILTER (WHERE v.target_id IS DISTINCT FROM p.target_id)
  FROM kerai.page_versions v LEFT JOIN kerai.pages p ON p.id = v.page_id
UNION ALL
SELECT 'job_urls', count(*) > 0, count(*) FILTER (WHERE u.target_id IS DISTINCT FROM j.target_id)
  FROM kerai.job_urls u LEFT JOIN kerai.scrape_jobs j ON j.id = u.job_id
UNION ALL
SELECT 'job_logs', count(*) > 0, count(*) FILTER (WHERE l.job_id IS NOT NULL AND l.target_id IS DISTINCT FROM j.target_id)
  FROM kerai.job_logs l LEFT JOIN kerai.scrape_jobs j ON j.id = l.job_id
UNION ALL
SELECT 'citations', count(*) > 0, count(*) FILTER (WHERE c.request_id IS DISTINCT FROM r.request_id)
  FROM kerai.citations c LEFT JOIN kerai.ai_responses r ON r.id = c.response_id;

-- A reference node is its own document.
SELECT count(*) > 0 AS references, bool_and(document_id = id) AS name_themselves
  FROM kerai.nodes WHERE kind = 'reference';

-- A row naming a parent that does not exist gets an error naming it.
INSERT INTO kerai.edges (source_id, target_id, relation)
VALUES ('00000000-0000-4000-8000-00000000dead', :'doc', 'mentions');
INSERT INTO kerai.page_versions (page_id, content_hash) VALUES ('00000000-0000-4000-8000-00000000dead', 'v1');

-- Making the plan needs Citus (tests/tests/citus.rs makes it on a cluster); without it,
-- kerai.distribute() says what to do.
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT kerai.distribute();
\set VERBOSITY terse

ROLLBACK;

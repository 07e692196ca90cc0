-- Monthly partitioning of the tables that grow: converted in place, rows kept, everything that
-- reads or writes them still working.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
SET client_min_messages = warning;
BEGIN;
SELECT table_name, time_column, threshold, partitioned, advised FROM kerai.partitioning_status ORDER BY table_name;

-- A page with a version from March, its chunks, an answer citing them.
SELECT (kerai.set_target('wiki', 'https://wiki.example.org/', '{"chunk_size": 24, "chunk_overlap": 4}')).name;
INSERT INTO kerai.pages (id, target_id, url, url_hash)
SELECT '00000000-0000-4000-8000-000000000001', id, 'https://wiki.example.org/travel', 'h1' FROM kerai.targets WHERE name = 'wiki';
INSERT INTO kerai.page_versions (id, page_id, content_hash, raw_html, scraped_at)
VALUES ('00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-000000000001', 'v1', '<p>travel</p>', '2026-03-14 09:00+00');
UPDATE kerai.pages SET current_version = '00000000-0000-4000-8000-0000000000a1';
SELECT kerai.parse_markdown($md$# Travel policy

Book train travel through the travel office at least two weeks ahead. Economy class is the rule
for trips under six hours.

## Expenses

Claim expenses within thirty days of your return, with receipts.
$md$, '{"source_url": "https://wiki.example.org/travel", "target": "wiki",
        "page_version": "00000000-0000-4000-8000-0000000000a1"}') AS doc1 \gset
SELECT (kerai.chunk_document(:'doc1'))->>'chunks' AS chunks;
SELECT kerai.embed_pending(10) AS embedded;
SELECT jsonb_array_length(kerai.answer('When must I claim expenses?', 1)->'citations') AS cited;

-- Convert the three tables.
SELECT r->>'partitioned_on' AS on_column, r->>'rows_moved' AS rows_moved, r->>'references_kept_by_trigger' AS refs,
       (r->>'partitions')::int >= 5 AS has_months
  FROM kerai.partition_by_month('page_versions') r;
SELECT r->>'partitioned_on' AS on_column, r->>'rows_moved' AS rows_moved, r->>'references_kept_by_trigger' AS refs
  FROM kerai.partition_by_month('chunks') r;
SELECT r->>'partitioned_on' AS on_column, r->>'rows_moved' AS rows_moved, r->>'references_kept_by_trigger' AS refs
  FROM kerai.partition_by_month('ai_requests') r;
SELECT kerai.partition_by_month('chunks') ->> 'already_partitioned' AS again;
-- The rebuilt tables, and the views and functions made again on them, keep their descriptions.
SELECT o AS without_description
  FROM unnest(ARRAY['kerai.page_versions', 'kerai.chunks', 'kerai.ai_requests', 'kerai.answer_citations',
                    'kerai.retrieval_overview']) AS o
 WHERE obj_description(o::regclass, 'pg_class') IS NULL
UNION ALL
SELECT 'kerai.html(kerai.page_versions)' WHERE obj_description('kerai.html(kerai.page_versions)'::regprocedure, 'pg_proc') IS NULL;
SELECT kerai.partition_by_month('nodes');
SELECT table_name, partitioned, partitions > 3 AS has_partitions FROM kerai.partitioning_status ORDER BY table_name;
SELECT parent_table, child_table, child_column, on_delete FROM kerai.partition_references ORDER BY 1, 2, 3;
SELECT tableoid::regclass AS partition FROM kerai.page_versions WHERE content_hash = 'v1';
SELECT kerai.add_month_partitions(2) >= 0 AS ok;
SELECT kerai.add_month_partitions(-1);

-- Everything keeps working on the partitioned tables: a new version re-chunks in place,
-- search, answers and their log, the citation query, raw HTML out of line.
SELECT kerai.parse_markdown($md$# Travel policy

Book train travel through the travel office at least two weeks ahead. Economy class is the rule
for trips under six hours.

## Expenses

Claim expenses within sixty days of your return, with receipts.
$md$, '{"source_url": "https://wiki.example.org/travel", "target": "wiki"}') AS doc2 \gset
SELECT r->>'chunks' AS chunks, r->>'changed' AS changed, r->>'unchanged' AS unchanged FROM kerai.chunk_document(:'doc2') r;
SELECT count(*) AS chunk_rows, count(DISTINCT id) AS distinct_ids FROM kerai.chunks;
SELECT kerai.embed_pending(10) AS embedded;
SELECT heading_path FROM kerai.search('claim expenses receipts', 1);
SELECT jsonb_array_length(kerai.answer('When must I claim expenses?', 1)->'citations') AS cited;
SELECT count(*) AS citations_with_sources FROM kerai.answer_citations WHERE source_url IS NOT NULL;
SELECT chunks, embedded, ai_requests FROM kerai.retrieval_overview;
INSERT INTO kerai.page_versions (page_id, content_hash, raw_html)
VALUES ('00000000-0000-4000-8000-000000000001', 'big', repeat('y', 1100000));
SELECT raw_html IS NULL AS out_of_line, length(kerai.html(v)) AS html_length
  FROM kerai.page_versions v WHERE content_hash = 'big';
-- On Citus a shard's rows have a type of their own, which kerai.html also reads; nothing else.
SELECT kerai.html(42);

-- Deleting rows still cascades or clears what pointed at them.
SELECT count(*) AS vectors_of_chunk_1 FROM kerai.embeddings e JOIN kerai.chunks c ON c.id = e.chunk_id WHERE c.chunk_index = 1;
DELETE FROM kerai.chunks WHERE chunk_index = 1;
SELECT count(*) AS orphan_vectors FROM kerai.embeddings e WHERE NOT EXISTS (SELECT 1 FROM kerai.chunks c WHERE c.id = e.chunk_id);
SELECT count(*) AS orphan_entities FROM kerai.entities e WHERE NOT EXISTS (SELECT 1 FROM kerai.chunks c WHERE c.id = e.chunk_id);
DELETE FROM kerai.page_versions WHERE content_hash = 'v1';
SELECT current_version IS NULL AS page_cleared FROM kerai.pages;
DELETE FROM kerai.ai_requests;
SELECT count(*) AS responses_left FROM kerai.ai_responses;
ROLLBACK;

-- Generated corpus for the frontier and dashboard benchmarks:
--   :docs documents with 10 paragraphs each, :refs references (with state), :cites cites edges.
-- Statuses: 80 % unresolved, 10 % resolved (resolved in the last 48 h), 5 % failed, 5 % skipped.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SELECT setseed(0.42);

CREATE TEMP TABLE bench_docs AS SELECT kerai.uuid7() AS id, g FROM generate_series(1, :docs) g;
INSERT INTO kerai.documents (id) SELECT id FROM bench_docs;
INSERT INTO kerai.nodes (id, kind, content, document_id, metadata)
SELECT d.id, 'document', 'Generated document ' || d.g, d.id,
       jsonb_build_object('source_url', 'https://bench.example/doc/' || d.g, 'content_hash', md5(d.g::text),
                          'chain_depth', (d.g % 6)::text)
FROM bench_docs d;

INSERT INTO kerai.nodes (kind, content, parent_id, position, document_id)
SELECT 'paragraph', 'Paragraph ' || p || ' of ' || d.content, d.id, p, d.id
FROM kerai.nodes d, generate_series(0, 9) p WHERE d.kind = 'document';

CREATE TEMP TABLE bench_refs AS
SELECT gen_random_uuid() AS id, g FROM generate_series(1, :refs) g;

INSERT INTO kerai.nodes (id, kind, content, metadata)
SELECT id, 'reference', 'Author' || (g % 50000) || ' (' || (1950 + g % 70) || '). Generated work number ' || g,
       jsonb_build_object('ref_type', 'bibliography')
FROM bench_refs;

INSERT INTO kerai.reference_state (node_id, ref_type, status, ay_key, title_norm, year, first_author,
                                   score, score_terms, score_dirty, chain_depth, resolved_at, next_retry_after, retries)
SELECT id, 'bibliography',
       CASE WHEN g % 20 < 16 THEN 'unresolved' WHEN g % 20 < 18 THEN 'resolved' WHEN g % 20 = 18 THEN 'failed' ELSE 'skipped' END,
       'author' || (g % 50000) || '|' || (1950 + g % 70) || '|', 'generated work number ' || g, 1950 + g % 70,
       'author' || (g % 50000),
       random() * 3, jsonb_build_object('frequency', random(), 'entropy', random(), 'novelty', random(), 'depth', g % 6, 'demand', 0),
       false, g % 6,
       CASE WHEN g % 20 IN (16, 17) THEN now() - random() * interval '48 hours' END,
       CASE WHEN g % 20 = 18 THEN now() + interval '1 hour' END,
       CASE WHEN g % 20 = 18 THEN 1 ELSE 0 END
FROM bench_refs;

-- Cites: each paragraph cites :cites_per_paragraph references, skewed towards low numbers.
INSERT INTO kerai.edges (source_id, target_id, relation, metadata)
SELECT p.id, r.id, 'cites', '{}'::jsonb
FROM (SELECT id, row_number() OVER () AS n FROM kerai.nodes WHERE kind = 'paragraph') p
CROSS JOIN generate_series(1, :cites_per_paragraph) k
JOIN bench_refs r ON r.g = 1 + ((p.n * 7919 + k * 104729) % :refs) * ((p.n + k) % 3 + 1) % :refs
ON CONFLICT DO NOTHING;

SELECT kerai._compact_counters();
VACUUM ANALYZE;

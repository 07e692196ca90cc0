-- The foundation: kerai.version() and the graph tables, as a psql user sees them.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
BEGIN;
SELECT kerai.version() = extversion AS version_matches_extension
FROM pg_extension WHERE extname = 'kerai';

SELECT extname FROM pg_extension WHERE extname IN ('vector', 'pg_trgm', 'kerai') ORDER BY extname;

-- A document with two paragraphs, linked by contains edges.
WITH d AS (
    INSERT INTO kerai.nodes (kind, content, metadata)
    VALUES ('document', 'Example', '{"source_url": "https://example.org/"}')
    RETURNING id
), p AS (
    INSERT INTO kerai.nodes (kind, content, parent_id, position)
    SELECT 'paragraph', c, d.id, n FROM d, (VALUES ('First.', 0), ('Second.', 1)) v(c, n)
    RETURNING id, parent_id
)
INSERT INTO kerai.edges (source_id, target_id, relation)
SELECT parent_id, id, 'contains' FROM p;

SELECT child.position, child.kind, child.content
FROM kerai.nodes doc JOIN kerai.nodes child ON child.parent_id = doc.id
WHERE doc.kind = 'document'
ORDER BY child.position;

SELECT relation, count(*) FROM kerai.edges GROUP BY relation;

-- Bad input is refused with the constraint's name.
INSERT INTO kerai.nodes (kind) VALUES ('Not a kind');
INSERT INTO kerai.nodes (kind, metadata) VALUES ('document', '[1, 2]');
INSERT INTO kerai.edges (source_id, target_id, relation)
SELECT parent_id, id, 'contains' FROM kerai.nodes WHERE kind = 'paragraph' LIMIT 1;

-- Every document, reference or concept has its kerai.documents row: made for a node inserted
-- by hand without a document_id; one inserted with it needs the row first.
INSERT INTO kerai.nodes (id, kind, content, document_id)
VALUES ('00000000-0000-0000-0000-00000000d0c5', 'reference', 'By hand', '00000000-0000-0000-0000-00000000d0c5');
INSERT INTO kerai.documents (id) VALUES ('00000000-0000-0000-0000-00000000d0c5');
INSERT INTO kerai.nodes (id, kind, content, document_id)
VALUES ('00000000-0000-0000-0000-00000000d0c5', 'reference', 'By hand', '00000000-0000-0000-0000-00000000d0c5');
SELECT count(*) AS roots, count(d.id) AS with_row
  FROM kerai.nodes n LEFT JOIN kerai.documents d ON d.id = n.id WHERE n.parent_id IS NULL;

-- Deleting a document (its root node, or its kerai.documents row) removes its children, their
-- edges and its row.
DELETE FROM kerai.nodes WHERE kind = 'document';
DELETE FROM kerai.documents WHERE id = '00000000-0000-0000-0000-00000000d0c5';
SELECT count(*) AS nodes_left FROM kerai.nodes;
SELECT count(*) AS edges_left FROM kerai.edges;
SELECT count(*) AS documents_left FROM kerai.documents;
ROLLBACK;

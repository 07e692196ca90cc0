-- kerai.parse_markdown: CommonMark + GFM into a document tree, idempotent per source.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
BEGIN;
SELECT kerai.parse_markdown($md$# Active inference

Perception is inference (Helmholtz, 1866).

## Tools

- [x] a task, done
- [ ] a task, open
  - nested item

| term | meaning |
|:-----|--------:|
| EFE  | expected free energy |

```python
print("hello")
```

> A quote with a [link](https://example.org/q).

Footnoted.[^1]

[^1]: The footnote.

### Deeper

Text in a subsection.

## Back up

Last paragraph.
$md$, '{"source_url": "https://example.org/ai", "title": "Active inference guide"}') AS doc \gset

-- The tree, in document order, with depth and heading path.
WITH RECURSIVE t AS (
    SELECT id, kind, content, metadata, 0 AS depth, ARRAY[position] AS path
      FROM kerai.nodes WHERE parent_id = :'doc'
    UNION ALL
    SELECT n.id, n.kind, n.content, n.metadata, t.depth + 1, t.path || n.position
      FROM kerai.nodes n JOIN t ON n.parent_id = t.id
)
SELECT repeat('  ', depth) || kind AS node, left(replace(content, E'\n', ' / '), 48) AS content,
       metadata->'heading_path' AS heading_path
  FROM t ORDER BY path;

-- The document: title from the metadata, counts, hash.
SELECT kind, content, metadata->>'node_count' AS nodes, length(metadata->>'content_hash') AS hash_len,
       metadata->>'source_url' AS source_url
  FROM kerai.nodes WHERE id = :'doc';

-- Kind-specific facts.
SELECT kind, metadata - 'heading_path' AS facts FROM kerai.nodes
 WHERE document_id = :'doc' AND kind IN ('list', 'list_item', 'code', 'table', 'footnote') ORDER BY id;

-- The same content from the same source is the same document; another source is another.
SELECT kerai.parse_markdown('# X', '{"source_url": "https://example.org/x"}') = kerai.parse_markdown('# X', '{"source_url": "https://example.org/x"}') AS idempotent;
SELECT kerai.parse_markdown('# X', '{"source_url": "https://example.org/y"}') <> kerai.parse_markdown('# X', '{"source_url": "https://example.org/x"}') AS per_source;

-- Any text parses; empty markdown is an empty document.
SELECT kerai.parse_markdown('', '{"source_url": "empty"}') AS empty \gset
SELECT kind, coalesce(content, '(no title)') AS content, metadata->>'node_count' AS nodes FROM kerai.nodes WHERE id = :'empty';
SELECT kerai.parse_markdown(E'* \n> \n|\n```\n#', '{}') AS odd \gset
SELECT kind, count(*) FROM kerai.nodes WHERE document_id = :'odd' GROUP BY kind ORDER BY kind;
SELECT count(*) AS documents FROM kerai.nodes WHERE kind = 'document';

-- Bad input.
SELECT kerai.parse_markdown('x', '[1, 2]');
SELECT kerai.parse_markdown('x', '"text"');
SELECT kerai.parse_markdown(NULL);
-- Markdown as bytes: UTF-8 without NUL bytes, else an error naming the input and the offset.
SELECT kerai.parse_markdown(convert_to(E'# Bytes\n\nFrom a file.\n', 'UTF8'), '{"source_url": "file:///notes/bytes.md"}') IS NOT NULL AS parsed;
SELECT kerai.parse_markdown('\x4869ff21'::bytea, '{"source_url": "file:///notes/latin1.md"}');
SELECT kerai.parse_markdown('\x48690021'::bytea);
ROLLBACK;

-- kerai.max_input_bytes bounds one call's input; above it, an error names the function.
SET kerai.max_input_bytes = '1kB';
SELECT kerai.parse_markdown(repeat('word ', 1000));
SELECT count(*) FROM kerai.chunk_text(repeat('word ', 1000));
SELECT kerai.html_to_markdown('<p>' || repeat('word ', 1000) || '</p>');
SELECT count(*) FROM kerai.detect_citations(repeat('word ', 1000));
SELECT count(*) FROM kerai.extract_claims(repeat('word ', 1000));
SELECT count(*) AS small_input_passes FROM kerai.detect_citations('see doi:10.1000/xyz123');
SET kerai.max_input_bytes = 0;
SELECT count(*) > 0 AS no_limit FROM kerai.chunk_text(repeat('word ', 1000));
RESET kerai.max_input_bytes;
SHOW kerai.max_input_bytes;

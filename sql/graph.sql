-- kerai graph: every document becomes a tree of nodes; edges carry everything else
-- (citations, resolutions, links). Loaded first, before any Rust function exists.

CREATE TABLE kerai.nodes (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    instance_id uuid,
    kind        text NOT NULL,
    content     text,
    parent_id   uuid REFERENCES kerai.nodes (id) ON DELETE CASCADE,
    position    integer NOT NULL DEFAULT 0,
    document_id uuid,
    metadata    jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT nodes_kind_is_a_word CHECK (kind ~ '^[a-z][a-z0-9_]*$'),
    CONSTRAINT nodes_metadata_is_object CHECK (jsonb_typeof(metadata) = 'object'),
    CONSTRAINT nodes_not_own_parent CHECK (parent_id IS DISTINCT FROM id)
);
COMMENT ON TABLE kerai.nodes IS
    'One row per document, section, heading, paragraph, list, list item, code block, table, '
    'block quote, footnote, reference or concept. Children point at their parent and are ordered '
    'by position; document_id names the document a node belongs to (a document names itself).';

CREATE INDEX nodes_parent_position_idx ON kerai.nodes (parent_id, position);
CREATE INDEX nodes_kind_idx ON kerai.nodes (kind);
CREATE INDEX nodes_document_idx ON kerai.nodes (document_id, kind);
-- The same content from the same source is one document (kerai.parse_markdown relies on it).
CREATE UNIQUE INDEX nodes_document_identity_idx ON kerai.nodes
    ((coalesce(metadata->>'source_url', '')), (metadata->>'content_hash'))
    WHERE kind = 'document';
-- Document titles, for topic novelty and fuzzy lookups.
CREATE INDEX nodes_document_title_trgm_idx ON kerai.nodes USING gin (content gin_trgm_ops)
    WHERE kind = 'document';

CREATE TABLE kerai.edges (
    id          uuid NOT NULL DEFAULT gen_random_uuid(),
    document_id uuid NOT NULL,
    source_id   uuid NOT NULL REFERENCES kerai.nodes (id) ON DELETE CASCADE,
    target_id   uuid NOT NULL REFERENCES kerai.nodes (id) ON DELETE CASCADE,
    relation    text NOT NULL,
    metadata    jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT edges_relation_is_a_word CHECK (relation ~ '^[a-z][a-z0-9_]*$'),
    CONSTRAINT edges_metadata_is_object CHECK (jsonb_typeof(metadata) = 'object'),
    PRIMARY KEY (document_id, id),
    CONSTRAINT edges_one_per_relation UNIQUE (document_id, source_id, relation, target_id)
);
COMMENT ON TABLE kerai.edges IS
    'Directed, typed links between nodes: cites (a paragraph cites a reference), resolves_to '
    '(a reference resolves to an ingested document), links_to (a page links to a page), contains '
    '(a page contains an attached document), ... At most one edge per (source, relation, target).';

CREATE INDEX edges_target_relation_idx ON kerai.edges (target_id, relation);
CREATE INDEX edges_source_relation_idx ON kerai.edges (source_id, relation);

-- kerai graph: every document becomes a tree of nodes; edges carry everything else
-- (citations, resolutions, links). Loaded first, before any Rust function exists.

-- One row per document, and per reference or concept (each is its own document): the key that
-- a document's rows share (docs/scale-out.md). Deleting it deletes the document's nodes, edges,
-- passages, vectors, entities and claims, and a reference's frontier rows.
CREATE TABLE kerai.documents (
    id         uuid PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE kerai.documents IS
    'One row per document, reference or concept: the key its nodes, edges, chunks, vectors, entities, '
    'claims and frontier rows share (docs/scale-out.md). Deleting it deletes them all.';

-- The keys a document is known by, each naming one document: its identity,
-- `content:<content hash>:<md5 of the source_url>` (the same content from the same source is
-- one document; kerai.parse_markdown), and for a work the crawl loop ingested `doi:<doi>`,
-- `arxiv:<id>` and `url:<normalised URL>` (kerai._work_keys; kerai._known_document reads
-- them). On a distributed database it is a table of its own, by key (docs/scale-out.md), so no
-- foreign key names the document: kerai._delete_documents deletes a document's keys, and a key
-- whose document is gone is taken over by the next document that claims it.
CREATE TABLE kerai.document_keys (
    key         text PRIMARY KEY,
    document_id uuid NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_keys_document_idx ON kerai.document_keys (document_id);
COMMENT ON TABLE kerai.document_keys IS
    'The keys a document is known by, one document each: its identity (`content:<hash>:<md5 of source_url>`), and '
    'the DOIs, arXiv ids and normalised URLs of works the crawl loop ingested (deduplication at resolution time).';

CREATE TABLE kerai.nodes (
    id          uuid NOT NULL DEFAULT gen_random_uuid(),
    instance_id uuid,
    kind        text NOT NULL,
    content     text,
    parent_id   uuid,
    position    integer NOT NULL DEFAULT 0,
    document_id uuid NOT NULL REFERENCES kerai.documents (id) ON DELETE CASCADE,
    metadata    jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT nodes_kind_is_a_word CHECK (kind ~ '^[a-z][a-z0-9_]*$'),
    CONSTRAINT nodes_metadata_is_object CHECK (jsonb_typeof(metadata) = 'object'),
    CONSTRAINT nodes_not_own_parent CHECK (parent_id IS DISTINCT FROM id),
    PRIMARY KEY (document_id, id),
    FOREIGN KEY (document_id, parent_id) REFERENCES kerai.nodes (document_id, id) ON DELETE CASCADE
);
COMMENT ON TABLE kerai.nodes IS
    'One row per document, section, heading, paragraph, list, list item, code block, table, '
    'block quote, footnote, reference or concept. Children point at their parent and are ordered '
    'by position; document_id names the document a node belongs to (a document names itself).';

-- Lookups by id alone (the key starts with the document).
CREATE INDEX nodes_id_idx ON kerai.nodes (id);
CREATE INDEX nodes_parent_position_idx ON kerai.nodes (parent_id, position);
CREATE INDEX nodes_kind_idx ON kerai.nodes (kind);
CREATE INDEX nodes_document_idx ON kerai.nodes (document_id, kind);
-- Documents by source (kerai._known_document; a document's identity is in kerai.document_keys).
CREATE INDEX nodes_document_source_idx ON kerai.nodes
    ((coalesce(metadata->>'source_url', '')), (metadata->>'content_hash'))
    WHERE kind = 'document';
-- Document titles, for topic novelty and fuzzy lookups.
CREATE INDEX nodes_document_title_trgm_idx ON kerai.nodes USING gin (content gin_trgm_ops)
    WHERE kind = 'document';

-- An edge lives with its source node's document. Its target may be in another document (a
-- reference, a resolved document), so no foreign key names it: kerai.delete_target removes the
-- edges into the documents it deletes (docs/scale-out.md).
CREATE TABLE kerai.edges (
    id          uuid NOT NULL DEFAULT gen_random_uuid(),
    document_id uuid NOT NULL,
    source_id   uuid NOT NULL,
    target_id   uuid NOT NULL,
    relation    text NOT NULL,
    metadata    jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT edges_relation_is_a_word CHECK (relation ~ '^[a-z][a-z0-9_]*$'),
    CONSTRAINT edges_metadata_is_object CHECK (jsonb_typeof(metadata) = 'object'),
    PRIMARY KEY (document_id, id),
    CONSTRAINT edges_one_per_relation UNIQUE (document_id, source_id, relation, target_id),
    FOREIGN KEY (document_id, source_id) REFERENCES kerai.nodes (document_id, id) ON DELETE CASCADE
);
COMMENT ON TABLE kerai.edges IS
    'Directed, typed links between nodes: cites (a paragraph cites a reference), resolves_to '
    '(a reference resolves to an ingested document), links_to (a page links to a page), contains '
    '(a page contains an attached document), ... At most one edge per (source, relation, target).';

CREATE INDEX edges_target_relation_idx ON kerai.edges (target_id, relation);
CREATE INDEX edges_source_relation_idx ON kerai.edges (source_id, relation);

-- Delete documents (or references) with everything of theirs, which their kerai.documents rows
-- cascade to, and the links other documents and pages hold into them, which no foreign key
-- keeps (docs/scale-out.md): edges into their nodes, resolved references, page versions, and
-- the keys they are known by.
CREATE FUNCTION kerai._delete_documents(docs uuid[]) RETURNS integer
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    deleted integer;
BEGIN
    docs := array_remove(docs, NULL);
    DELETE FROM kerai.edges e
     WHERE e.target_id IN (SELECT n.id FROM kerai.nodes n WHERE n.document_id = ANY (docs))
       AND e.document_id <> ALL (docs);
    UPDATE kerai.reference_state rs SET resolved_doc = NULL WHERE rs.resolved_doc = ANY (docs);
    UPDATE kerai.page_versions v SET document_id = NULL WHERE v.document_id = ANY (docs);
    DELETE FROM kerai.document_keys k WHERE k.document_id = ANY (docs);
    DELETE FROM kerai.reference_keys k WHERE k.node_id = ANY (docs);
    DELETE FROM kerai.documents d WHERE d.id = ANY (docs);
    GET DIAGNOSTICS deleted = ROW_COUNT;
    -- The references the deleted documents cited lose those citations; the deleted
    -- references themselves have nothing left to count.
    DELETE FROM kerai.cite_count_queue q WHERE q.reference_id = ANY (docs);
    PERFORM kerai._recount_cites(docs);
    RETURN deleted;
END
$$;

-- Delete one document (or reference, or concept) with everything of it, as
-- kerai._delete_documents does: true when it was there.
CREATE FUNCTION kerai.delete_document(document uuid) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    allowed boolean := kerai._require('kerai_admin', 'kerai.delete_document');
BEGIN
    RETURN coalesce(kerai._delete_documents(ARRAY[document]) > 0, false);
END
$$;

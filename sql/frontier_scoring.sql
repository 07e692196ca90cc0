-- Expected-free-energy scoring of references (seed 004, 21.2), maintained incrementally.
--
-- score = epistemic_weight * (0.4 * frequency + 0.3 * entropy + 0.2 * novelty)
--       + pragmatic_weight * (0.1 * depth + 0.2 * demand)
--   frequency = ln(1 + cite_count)
--   entropy   = mean kerai.node_entropy() of the nodes that cite the reference
--   novelty   = (author_novelty + topic_novelty) / 2
--               author_novelty: 1.0 when no ingested document has the first author, else 0.1
--               topic_novelty:  1 - the best trigram similarity of the title to a document title
--   depth     = chain depth of the documents that cite it (frontier references explore further)
--   demand    = mean perspective weight agents gave the citing nodes
-- Weights come from the kerai_crawl agent's config (epistemic_weight 1.0, pragmatic_weight 0.5).

-- Uncertainty, in bits, about whether the work a reference names is known to the corpus:
-- resolved p = 1 (0 bits); open (unresolved, in progress, failed awaiting retry) p = 1/2 (1 bit);
-- closed without content (not_found, skipped, failed and out of retries) p = 0.05 (0.286 bits).
CREATE FUNCTION kerai._reference_entropy(status text, next_retry_after timestamptz, retries integer)
RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN status = 'resolved' THEN 0.0
        WHEN status IN ('not_found', 'skipped') THEN 0.2864
        WHEN status = 'failed' AND next_retry_after IS NULL AND retries > 0 THEN 0.2864
        ELSE 1.0
    END
$$;

-- node_entropy(node): the mean uncertainty (bits, 0..1) over the references the node cites.
-- A node that cites nothing has entropy 0. High entropy marks a poorly understood region of
-- the graph: resolving its references teaches the most.
-- The references come first, then their states: on a distributed database the two sit in
-- different documents' shards (a join of them would have to repartition).
CREATE FUNCTION kerai._node_entropy(node uuid) RETURNS float8
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
    h float8;
BEGIN
    WITH cited AS MATERIALIZED (
        SELECT e.target_id FROM kerai.edges e WHERE e.source_id = node AND e.relation = 'cites'
    ), states AS MATERIALIZED (
        SELECT rs.node_id, kerai._reference_entropy(rs.status, rs.next_retry_after, rs.retries) AS h
          FROM kerai.reference_state rs WHERE rs.node_id IN (SELECT c.target_id FROM cited c)
    )
    SELECT coalesce(avg(s.h), 0.0) INTO h FROM cited c JOIN states s ON s.node_id = c.target_id;
    RETURN h;
END
$$;

-- The same for callers: an unknown node is an error naming it (scoring uses _node_entropy).
CREATE FUNCTION kerai.node_entropy(node uuid) RETURNS float8
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM kerai.nodes n WHERE n.id = node) THEN
        RAISE EXCEPTION 'kerai.node_entropy: there is no node %', node USING ERRCODE = '22023',
            HINT = 'pass the id of a node that cites references (a paragraph, a list item, ...)';
    END IF;
    RETURN kerai._node_entropy(node);
END
$$;

-- Documents' authors, by family-name key: what "novel author" is measured against.
CREATE TABLE kerai.corpus_authors (
    author_key text PRIMARY KEY,
    documents  integer NOT NULL DEFAULT 0
);
COMMENT ON TABLE kerai.corpus_authors IS
    'Family-name keys (kerai.family_key) of the authors of ingested documents, from metadata.authors and '
    'metadata.author: author_key, documents (how many it appears in). A reference whose first author is here '
    'has an author novelty of 0.1 instead of 1.0; a trigger on nodes keeps it.';

CREATE FUNCTION kerai._document_authors(metadata jsonb) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT DISTINCT k FROM (
        SELECT kerai.family_key(CASE jsonb_typeof(a) WHEN 'string' THEN a #>> '{}'
                                     ELSE coalesce(a->>'family', a->>'name') END) AS k
          FROM jsonb_array_elements(CASE jsonb_typeof(metadata->'authors') WHEN 'array' THEN metadata->'authors'
                                         ELSE '[]'::jsonb END) a
        UNION ALL
        SELECT kerai.family_key(metadata->>'author') WHERE jsonb_typeof(metadata->'author') = 'string'
    ) x WHERE k <> ''
$$;

-- A new document's authors join kerai.corpus_authors, and the references it makes less novel
-- (by the same authors, or on its topic) are rescored. kerai.parse_markdown calls it once the
-- document has its title. Not a trigger: on a distributed database a trigger on the document's
-- shard cannot reach corpus_authors or the references' shards (docs/scale-out.md).
CREATE FUNCTION kerai._track_document_authors(doc uuid) RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    d record;
    dirty uuid[];
BEGIN
    SELECT n.content, n.metadata INTO d FROM kerai.nodes n
     WHERE n.document_id = doc AND n.id = doc AND n.kind = 'document';
    IF NOT FOUND THEN
        RETURN;
    END IF;
    INSERT INTO kerai.corpus_authors AS ca (author_key, documents)
    SELECT k, 1 FROM kerai._document_authors(d.metadata) k
    ON CONFLICT (author_key) DO UPDATE SET documents = ca.documents + 1;
    -- References by these authors are no longer novel: rescore them. Nor are references on
    -- this document's topic. Found first, then marked by key: Citus takes no stable function of
    -- a column (the similarity operator %) in an UPDATE.
    -- Most documents make none less novel: then nothing is written (on a distributed database
    -- an UPDATE with no key to route by is a statement on every shard).
    dirty := ARRAY(SELECT x.node_id FROM kerai.reference_state x
                    WHERE NOT x.score_dirty
                      AND (x.first_author IN (SELECT kerai._document_authors(d.metadata))
                           OR (d.content IS NOT NULL AND length(d.content) >= 12
                               AND x.title_norm % kerai.normalize_title(d.content))));
    IF cardinality(dirty) > 0 THEN
        UPDATE kerai.reference_state rs SET score_dirty = true
         WHERE rs.node_id = ANY (dirty) AND NOT rs.score_dirty;
    END IF;
END
$$;

CREATE FUNCTION kerai._crawler_weights(OUT epistemic float8, OUT pragmatic float8)
LANGUAGE sql STABLE AS $$
    SELECT coalesce((config->>'epistemic_weight')::float8, 1.0), coalesce((config->>'pragmatic_weight')::float8, 0.5)
      FROM (SELECT config FROM kerai.agents WHERE name = 'kerai_crawl'
            UNION ALL SELECT '{}'::jsonb) c LIMIT 1
$$;

-- Every term of a reference's score, and the score, as jsonb.
CREATE FUNCTION kerai.score_terms(ref uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_variable
DECLARE
    rs kerai.reference_state;
    w record;
    frequency float8;
    entropy float8;
    author_novelty float8;
    topic_novelty float8;
    novelty float8;
    depth float8;
    demand float8;
    epistemic float8;
    pragmatic float8;
    citing uuid;
    citations integer := 0;
BEGIN
    SELECT * INTO rs FROM kerai.reference_state WHERE node_id = ref;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'reference % does not exist', ref USING ERRCODE = '22023',
            HINT = 'reference ids are kerai.nodes ids of kind ''reference''; see kerai.frontier()';
    END IF;
    w := kerai._crawler_weights();
    frequency := ln(1 + rs.cite_count);
    -- The mean entropy of the nodes citing it, one node at a time (kerai._node_entropy reads
    -- other documents' shards on a distributed database: no query may call it per row).
    entropy := 0.0;
    FOR citing IN SELECT e.source_id FROM kerai.edges e WHERE e.target_id = ref AND e.relation = 'cites' LOOP
        entropy := entropy + kerai._node_entropy(citing);
        citations := citations + 1;
    END LOOP;
    entropy := CASE WHEN citations > 0 THEN entropy / citations ELSE 0.0 END;
    author_novelty := CASE WHEN rs.first_author IS NULL THEN 1.0
                           WHEN EXISTS (SELECT 1 FROM kerai.corpus_authors ca WHERE ca.author_key = rs.first_author) THEN 0.1
                           ELSE 1.0 END;
    IF rs.title_norm IS NULL OR length(rs.title_norm) < 12 THEN
        topic_novelty := 1.0;
    ELSE
        SELECT 1.0 - coalesce(max(similarity(n.content, rs.title_norm)), 0.0) INTO topic_novelty
          FROM kerai.nodes n WHERE n.kind = 'document' AND n.content % rs.title_norm;
    END IF;
    novelty := (author_novelty + topic_novelty) / 2.0;
    depth := rs.chain_depth;
    SELECT coalesce(avg(p.weight), 0.0) INTO demand
      FROM kerai.edges e JOIN kerai.perspectives p ON p.document_id = e.document_id AND p.node_id = e.source_id
     WHERE e.target_id = ref AND e.relation = 'cites';
    epistemic := 0.4 * frequency + 0.3 * entropy + 0.2 * novelty;
    pragmatic := 0.1 * depth + 0.2 * demand;
    RETURN jsonb_build_object(
        'score', round((w.epistemic * epistemic + w.pragmatic * pragmatic)::numeric, 6),
        'frequency', round(frequency::numeric, 6), 'entropy', round(entropy::numeric, 6),
        'novelty', round(novelty::numeric, 6), 'author_novelty', author_novelty,
        'topic_novelty', round(topic_novelty::numeric, 6),
        'depth', depth, 'demand', round(demand::numeric, 6),
        'epistemic', round(epistemic::numeric, 6), 'pragmatic', round(pragmatic::numeric, 6),
        'epistemic_weight', w.epistemic, 'pragmatic_weight', w.pragmatic);
END
$$;

CREATE FUNCTION kerai.score_reference(ref uuid) RETURNS float8
LANGUAGE sql STABLE AS $$
    SELECT (kerai.score_terms(ref)->>'score')::float8
$$;

-- Recompute and store the scores of the given references.
-- PL/pgSQL, as every function with parameters over the distributed tables: Citus cannot plan
-- such a query inside an SQL-language function (docs/scale-out.md).
CREATE FUNCTION kerai._rescore_references(refs uuid[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer := 0;
    ref uuid;
    terms jsonb;
BEGIN
    -- One reference at a time: its terms read other documents' shards, its row is in its own.
    FOR ref IN SELECT DISTINCT r FROM unnest(refs) r WHERE r IS NOT NULL LOOP
        terms := kerai.score_terms(ref);
        UPDATE kerai.reference_state rs
           SET score = (terms->>'score')::float8, score_terms = terms, score_dirty = false
         WHERE rs.node_id = ref;
        IF FOUND THEN
            n := n + 1;
        END IF;
    END LOOP;
    RETURN n;
END
$$;

-- Rescore up to `max` references whose inputs changed (score_dirty). The candidates are read
-- without locks (on a distributed database they span shards, where Citus takes no row lock),
-- then each is locked by its key, skipped when another rescore holds it.
CREATE FUNCTION kerai._rescore_dirty(max integer DEFAULT 1000) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    mine uuid[] := '{}';
    ref uuid;
BEGIN
    FOR ref IN SELECT rs.node_id FROM kerai.reference_state rs WHERE rs.score_dirty LIMIT max LOOP
        PERFORM 1 FROM kerai.reference_state rs WHERE rs.node_id = ref AND rs.score_dirty FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            mine := mine || ref;
        END IF;
    END LOOP;
    RETURN kerai._rescore_references(mine);
END
$$;

-- The top unresolved references, best first, with every term of their score.
CREATE FUNCTION kerai.frontier("limit" integer DEFAULT 20)
RETURNS TABLE (ref uuid, content text, ref_type text, score float8, cite_count integer,
               chain_depth integer, frequency float8, entropy float8, novelty float8,
               depth float8, demand float8)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT rs.node_id, n.content, rs.ref_type, rs.score, rs.cite_count, rs.chain_depth,
           (rs.score_terms->>'frequency')::float8, (rs.score_terms->>'entropy')::float8,
           (rs.score_terms->>'novelty')::float8, (rs.score_terms->>'depth')::float8,
           (rs.score_terms->>'demand')::float8
      FROM kerai.reference_state rs JOIN kerai.nodes n ON n.document_id = rs.node_id AND n.id = rs.node_id
     WHERE rs.status = 'unresolved'
     ORDER BY rs.score DESC NULLS LAST, rs.node_id
     LIMIT frontier."limit";
END
$$;

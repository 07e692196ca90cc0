-- The citation frontier: one row of state per reference node, the state machine that moves
-- it, and the log of every move.

CREATE TABLE kerai.reference_states (
    state       text PRIMARY KEY,
    terminal    boolean NOT NULL,
    description text NOT NULL
);
COMMENT ON TABLE kerai.reference_states IS
    'The states of a reference (state, terminal, description): unresolved, searching, found, fetching, '
    'converting, ingesting, resolved, not_found, skipped, failed; resolved, not_found and skipped are terminal. '
    'kerai.reference_moves lists the legal moves between them.';
INSERT INTO kerai.reference_states VALUES
    ('unresolved', false, 'found in a document, not yet looked for'),
    ('searching',  false, 'claimed: the fetcher is looking for an open copy'),
    ('found',      false, 'an open copy was found'),
    ('fetching',   false, 'the copy is being downloaded'),
    ('converting', false, 'the copy is being converted to markdown'),
    ('ingesting',  false, 'the markdown waits to be ingested by kerai.crawl_cycle()'),
    ('resolved',   true,  'ingested and linked by a resolves_to edge'),
    ('not_found',  true,  'no public copy is available'),
    ('skipped',    true,  'excluded by policy (license, size, content type, depth, score)'),
    ('failed',     false, 'a fetch or conversion error; retried after next_retry_after');

CREATE TABLE kerai.reference_moves (
    from_state text NOT NULL REFERENCES kerai.reference_states (state),
    to_state   text NOT NULL REFERENCES kerai.reference_states (state),
    PRIMARY KEY (from_state, to_state)
);
COMMENT ON TABLE kerai.reference_moves IS 'The legal transitions of kerai.transition().';
INSERT INTO kerai.reference_moves VALUES
    ('unresolved', 'searching'), ('unresolved', 'skipped'), ('unresolved', 'resolved'),
    ('searching', 'found'), ('searching', 'not_found'), ('searching', 'skipped'), ('searching', 'failed'),
    ('searching', 'resolved'),
    ('found', 'fetching'), ('found', 'not_found'), ('found', 'skipped'), ('found', 'failed'),
    ('fetching', 'converting'), ('fetching', 'not_found'), ('fetching', 'skipped'), ('fetching', 'failed'),
    ('converting', 'ingesting'), ('converting', 'skipped'), ('converting', 'failed'),
    ('ingesting', 'resolved'), ('ingesting', 'failed'),
    ('failed', 'searching'), ('failed', 'unresolved'),
    ('not_found', 'unresolved'), ('skipped', 'unresolved');

CREATE TABLE kerai.reference_state (
    node_id          uuid PRIMARY KEY REFERENCES kerai.documents (id) ON DELETE CASCADE,
    ref_type         text NOT NULL
        CHECK (ref_type IN ('url', 'doi', 'arxiv', 'author_year', 'bibliography', 'concept')),
    status           text NOT NULL DEFAULT 'unresolved' REFERENCES kerai.reference_states (state),
    doi              text,
    url              text,
    arxiv            text,
    ay_key           text,
    title_norm       text,
    year             integer,
    first_author     text,
    cite_count       integer NOT NULL DEFAULT 0,
    chain_depth      integer NOT NULL DEFAULT 0,
    chain_root       uuid,
    first_seen_in    uuid,
    score            float8,
    score_terms      jsonb,
    score_dirty      boolean NOT NULL DEFAULT true,
    retries          integer NOT NULL DEFAULT 0,
    next_retry_after timestamptz,
    last_error       text,
    resolved_doc     uuid,
    resolved_at      timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE kerai.reference_state IS
    'Crawl state of each reference node: identity keys for deduplication, cite_count, chain '
    'depth, the maintained score and its terms, retries and backoff.';

-- (A DOI and an arXiv id name one reference each: kerai.reference_keys keeps that.)
CREATE INDEX reference_state_doi_idx ON kerai.reference_state (doi) WHERE doi IS NOT NULL;
CREATE INDEX reference_state_arxiv_idx ON kerai.reference_state (arxiv) WHERE arxiv IS NOT NULL;
CREATE INDEX reference_state_url_idx ON kerai.reference_state (url) WHERE url IS NOT NULL;
CREATE INDEX reference_state_ay_key_idx ON kerai.reference_state (ay_key) WHERE ay_key IS NOT NULL;
CREATE INDEX reference_state_first_author_idx ON kerai.reference_state (first_author) WHERE first_author IS NOT NULL;
CREATE INDEX reference_state_title_trgm_idx ON kerai.reference_state USING gin (title_norm gin_trgm_ops)
    WHERE title_norm IS NOT NULL;
-- The frontier: eligible references by score (kerai.frontier, kerai.crawl_cycle).
CREATE INDEX reference_state_frontier_idx ON kerai.reference_state (score DESC NULLS LAST, node_id)
    WHERE status IN ('unresolved', 'failed');
CREATE INDEX reference_state_dirty_idx ON kerai.reference_state (node_id) WHERE score_dirty;
CREATE INDEX reference_state_resolved_at_idx ON kerai.reference_state (resolved_at) WHERE resolved_at IS NOT NULL;

-- The DOI (`doi:<doi>`) and arXiv id (`arxiv:<id>`) of each reference, each naming one
-- reference: how kerai._upsert_reference finds the reference a citation denotes. On a
-- distributed database it is a table of its own, by key (docs/scale-out.md), so no foreign key
-- names the reference: kerai._delete_documents deletes a reference's keys, and a key whose
-- reference was deleted by hand is dropped when next found.
CREATE TABLE kerai.reference_keys (
    key        text PRIMARY KEY,
    node_id    uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX reference_keys_node_idx ON kerai.reference_keys (node_id);
COMMENT ON TABLE kerai.reference_keys IS
    'The DOI (`doi:<doi>`) and arXiv id (`arxiv:<id>`) of each reference, one reference each: how a citation '
    'finds the reference it denotes (deduplication).';

CREATE TABLE kerai.reference_transitions (
    id         bigserial,
    node_id    uuid NOT NULL REFERENCES kerai.documents (id) ON DELETE CASCADE,
    from_state text NOT NULL,
    to_state   text NOT NULL,
    info       jsonb NOT NULL DEFAULT '{}'::jsonb,
    at         timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (node_id, id)
);
COMMENT ON TABLE kerai.reference_transitions IS 'Every state change of every reference, with when and why.';

-- Reference status counters for the dashboard (sql/ops_counters.sql), each delta next to one of
-- the references it counts.
CREATE FUNCTION kerai._count_reference_states() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    docs uuid[];
    names text[];
    deltas bigint[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(d), array_agg(name), array_agg(n) INTO docs, names, deltas FROM (
            SELECT (array_agg(node_id))[1] AS d, 'references:' || status AS name, count(*) AS n
              FROM new_rows GROUP BY status) x;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(d), array_agg(name), array_agg(n) INTO docs, names, deltas FROM (
            SELECT (array_agg(node_id))[1] AS d, 'references:' || status AS name, -count(*) AS n
              FROM old_rows GROUP BY status) x;
    ELSE
        SELECT array_agg(d), array_agg(name), array_agg(n) INTO docs, names, deltas FROM (
            SELECT (array_agg(node_id))[1] AS d, name, sum(v)::bigint AS n FROM (
                SELECT o.node_id, 'references:' || o.status AS name, -1 AS v
                  FROM old_rows o JOIN new_rows n USING (node_id) WHERE o.status <> n.status
                UNION ALL
                SELECT n.node_id, 'references:' || n.status, 1
                  FROM old_rows o JOIN new_rows n USING (node_id) WHERE o.status <> n.status
            ) x GROUP BY name HAVING sum(v) <> 0) y;
    END IF;
    PERFORM kerai._add_deltas(docs, names, deltas);
    RETURN NULL;
END
$$;
CREATE TRIGGER reference_state_count_insert AFTER INSERT ON kerai.reference_state
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kerai._count_reference_states();
CREATE TRIGGER reference_state_count_delete AFTER DELETE ON kerai.reference_state
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kerai._count_reference_states();
CREATE TRIGGER reference_state_count_update AFTER UPDATE ON kerai.reference_state
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION kerai._count_reference_states();

-- Documents waiting for kerai.extract_references (filled by kerai.parse_markdown).
CREATE TABLE kerai.extraction_queue (
    document_id uuid PRIMARY KEY REFERENCES kerai.documents (id) ON DELETE CASCADE,
    queued_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE kerai.extraction_queue IS
    'Documents waiting for kerai.extract_references (document_id, queued_at): filled by kerai.parse_markdown, '
    'worked off by kerai.crawl_cycle (oldest first) or by a direct call of extract_references.';

-- The work queue between kerai.crawl_cycle() (which claims references) and the fetcher
-- (which finds, fetches and converts them, and deposits markdown for the next cycle).
CREATE TABLE kerai.crawl_queue (
    id           bigserial,
    node_id      uuid NOT NULL REFERENCES kerai.documents (id) ON DELETE CASCADE,
    agent_id     uuid REFERENCES kerai.agents (id) ON DELETE SET NULL,
    status       text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'leased', 'deposited', 'done', 'failed')),
    request      jsonb NOT NULL,
    leased_by    text,
    lease_until  timestamptz,
    attempts     integer NOT NULL DEFAULT 0,
    markdown     text,
    result       jsonb,
    error        text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (node_id, id)
);
CREATE INDEX crawl_queue_id_idx ON kerai.crawl_queue (id);
CREATE UNIQUE INDEX crawl_queue_one_open_per_reference_idx ON kerai.crawl_queue (node_id)
    WHERE status IN ('pending', 'leased', 'deposited');
CREATE INDEX crawl_queue_pending_idx ON kerai.crawl_queue (id) WHERE status IN ('pending', 'leased');
CREATE INDEX crawl_queue_deposited_idx ON kerai.crawl_queue (id) WHERE status = 'deposited';
COMMENT ON TABLE kerai.crawl_queue IS
    'Work handed to the fetcher: pending -> leased (with lease_until) -> deposited (markdown) -> done, or failed.';


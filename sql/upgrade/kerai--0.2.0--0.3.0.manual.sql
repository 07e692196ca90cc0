-- Hand-written part of the 0.2.0 -> 0.3.0 upgrade, run before the generated part: changes to
-- tables and rows 0.2.0 already had (scripts/upgrade_script.py cannot guess those).
-- Besides this, 0.3.0 adds functions, triggers, roles, grants and the registration of every
-- user-data table for pg_dump (sql/ops_backups.sql), all of which the generated part copies.

-- 0.2.0 had: ALTER TABLE kerai.pages ADD CONSTRAINT pages_current_version_fk ...
-- The key from pages to their current version made a cycle with page_versions.page_id that no
-- restore order loads; a delete trigger (site.sql) replaces it. (A table partitioned at 0.2.0
-- already had it replaced by a row of kerai.partition_references.)
ALTER TABLE kerai.pages DROP CONSTRAINT IF EXISTS pages_current_version_fk;

-- job_logs is partitioned by week from 0.3.0 (site.sql). 0.2.0's plain table is replaced: its
-- rows go into the default partition (kerai.maintain_job_logs moves them into their weeks), its
-- sequence is kept.
-- covers: CREATE TABLE kerai.job_logs (
-- covers: CREATE TABLE kerai.job_logs_default PARTITION OF kerai.job_logs DEFAULT
-- covers: ALTER TABLE kerai.job_logs_default ADD PRIMARY KEY (id, target_id)
-- covers: CREATE INDEX job_logs_default_job_idx ON kerai.job_logs_default (job_id, id)
-- covers: CREATE INDEX job_logs_default_created_idx ON kerai.job_logs_default (created_at)
ALTER SEQUENCE kerai.job_logs_id_seq OWNED BY NONE;
ALTER TABLE kerai.job_logs RENAME TO job_logs_0_2_0;
ALTER EXTENSION kerai DROP TABLE kerai.job_logs_0_2_0;
DO $$
DECLARE
    c text;
BEGIN
    -- Its constraints' names are the new table's.
    FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = 'kerai.job_logs_0_2_0'::regclass LOOP
        EXECUTE format('ALTER TABLE kerai.job_logs_0_2_0 DROP CONSTRAINT %I', c);
    END LOOP;
END
$$;
CREATE TABLE kerai.job_logs (
    id         bigint NOT NULL DEFAULT nextval('kerai.job_logs_id_seq'::regclass),
    job_id     uuid,
    target_id  uuid REFERENCES kerai.targets (id) ON DELETE CASCADE,
    level      text NOT NULL CHECK (level IN ('INFO', 'WARN', 'ERROR')),
    event      text NOT NULL,
    message    text NOT NULL,
    url        text,
    details    jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now()
) PARTITION BY RANGE (created_at);
ALTER SEQUENCE kerai.job_logs_id_seq OWNED BY kerai.job_logs.id;
CREATE TABLE kerai.job_logs_default PARTITION OF kerai.job_logs DEFAULT;
ALTER TABLE kerai.job_logs_default ADD PRIMARY KEY (id);
CREATE INDEX job_logs_default_job_idx ON kerai.job_logs_default (job_id, id);
CREATE INDEX job_logs_default_created_idx ON kerai.job_logs_default (created_at);
INSERT INTO kerai.job_logs (id, job_id, target_id, level, event, message, url, details, created_at)
SELECT id, job_id, target_id, level, event, message, url, details, created_at FROM kerai.job_logs_0_2_0;
DROP TABLE kerai.job_logs_0_2_0;
COMMENT ON TABLE kerai.job_logs IS
    'Structured logs per job and per item (INFO / WARN / ERROR). Events: CRAWL_STARTED, CRAWL_COMPLETED, '
    'CRAWL_FAILED, PAGE_FETCHED, DOC_DOWNLOADED, ITEM_NEW, ITEM_UPDATED, ITEM_UNCHANGED, ITEM_FAILED, ... '
    'No secrets or personal data: URLs in the url, message and details columns are logged without userinfo '
    '(user:password@) and with the values of credential-like query parameters replaced by *** (kerai.redact_secrets).';

-- Users own targets, jobs and AI requests (sql/ops_users.sql). The columns go onto tables 0.2.0 had,
-- and their defaults need the users table and kerai.current_user_id() first.
-- covers: CREATE TABLE kerai.users (
CREATE TABLE kerai.users (
    id         uuid PRIMARY KEY DEFAULT kerai.uuid7(),
    email      text NOT NULL UNIQUE,
    role_name  text NOT NULL UNIQUE,
    role       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_email_is_an_address CHECK (email ~ '^[^@[:space:]]+@[^@[:space:]]+$'),
    CONSTRAINT users_role_is_known CHECK (role IN ('admin', 'editor', 'reader'))
);
COMMENT ON TABLE kerai.users IS
    'kerai users: an e-mail, the database login role it is, and a role (admin, editor, reader). '
    'Add them with kerai.add_user(email, login, role).';
-- covers: CREATE FUNCTION kerai.current_user_id() RETURNS uuid
CREATE FUNCTION kerai.current_user_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT u.id FROM kerai.users u WHERE u.role_name = current_user
$$;
-- covers: ALTER TABLE kerai.targets ADD COLUMN owner_id
ALTER TABLE kerai.targets ADD COLUMN owner_id uuid DEFAULT kerai.current_user_id()
    REFERENCES kerai.users (id) ON DELETE SET NULL;
-- covers: ALTER TABLE kerai.scrape_jobs ADD COLUMN user_id
ALTER TABLE kerai.scrape_jobs ADD COLUMN user_id uuid DEFAULT kerai.current_user_id()
    REFERENCES kerai.users (id) ON DELETE SET NULL;
-- covers: ALTER TABLE kerai.ai_requests ADD COLUMN user_id
ALTER TABLE kerai.ai_requests ADD COLUMN user_id uuid DEFAULT kerai.current_user_id()
    REFERENCES kerai.users (id) ON DELETE SET NULL;
-- Row-level security on tables 0.2.0 had (the policies come in the generated part).
-- covers: ALTER TABLE kerai.targets ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.scrape_jobs ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.pages ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.job_logs ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.job_urls ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.page_versions ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.chunks ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.embeddings ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.ai_requests ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.ai_responses ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.citations ENABLE ROW LEVEL SECURITY
ALTER TABLE kerai.targets ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.scrape_jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.pages ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.job_logs ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.job_urls ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.page_versions ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.chunks ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.embeddings ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.ai_requests ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.ai_responses ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.citations ENABLE ROW LEVEL SECURITY;

-- Every row carries its distribution key (sql/ops_distribution.sql, docs/scale-out.md). The new
-- columns are filled from their parent rows, then made NOT NULL. A node without a document (a
-- reference or a concept, or a node made by hand) names itself when it has no parent, and
-- takes its parent's document otherwise.
-- covers: ALTER TABLE kerai.edges ADD COLUMN document_id
-- covers: ALTER TABLE kerai.embeddings ADD COLUMN document_id
-- covers: ALTER TABLE kerai.entities ADD COLUMN document_id
-- covers: ALTER TABLE kerai.perspectives ADD COLUMN document_id
-- covers: ALTER TABLE kerai.page_versions ADD COLUMN target_id
-- covers: ALTER TABLE kerai.job_urls ADD COLUMN target_id
-- covers: ALTER TABLE kerai.citations ADD COLUMN request_id
-- covers: ALTER TABLE kerai.job_logs ALTER COLUMN target_id SET NOT NULL
UPDATE kerai.nodes SET document_id = id WHERE document_id IS NULL AND parent_id IS NULL;
DO $$
BEGIN
    LOOP
        UPDATE kerai.nodes c SET document_id = p.document_id
          FROM kerai.nodes p
         WHERE c.parent_id = p.id AND c.document_id IS NULL AND p.document_id IS NOT NULL;
        EXIT WHEN NOT FOUND;
    END LOOP;
END
$$;
ALTER TABLE kerai.nodes ALTER COLUMN document_id SET NOT NULL;
ALTER TABLE kerai.edges ADD COLUMN document_id uuid;
UPDATE kerai.edges e SET document_id = n.document_id FROM kerai.nodes n WHERE n.id = e.source_id;
ALTER TABLE kerai.edges ALTER COLUMN document_id SET NOT NULL;
ALTER TABLE kerai.embeddings ADD COLUMN document_id uuid;
UPDATE kerai.embeddings e SET document_id = c.document_id FROM kerai.chunks c WHERE c.id = e.chunk_id;
ALTER TABLE kerai.embeddings ALTER COLUMN document_id SET NOT NULL;
ALTER TABLE kerai.entities ADD COLUMN document_id uuid;
UPDATE kerai.entities e SET document_id = c.document_id FROM kerai.chunks c WHERE c.id = e.chunk_id;
ALTER TABLE kerai.entities ALTER COLUMN document_id SET NOT NULL;
ALTER TABLE kerai.perspectives ADD COLUMN document_id uuid;
UPDATE kerai.perspectives p SET document_id = n.document_id FROM kerai.nodes n WHERE n.id = p.node_id;
ALTER TABLE kerai.perspectives ALTER COLUMN document_id SET NOT NULL;
ALTER TABLE kerai.page_versions ADD COLUMN target_id uuid;
UPDATE kerai.page_versions v SET target_id = p.target_id FROM kerai.pages p WHERE p.id = v.page_id;
ALTER TABLE kerai.page_versions ALTER COLUMN target_id SET NOT NULL;
ALTER TABLE kerai.job_urls ADD COLUMN target_id uuid;
UPDATE kerai.job_urls u SET target_id = j.target_id FROM kerai.scrape_jobs j WHERE j.id = u.job_id;
ALTER TABLE kerai.job_urls ALTER COLUMN target_id SET NOT NULL;
ALTER TABLE kerai.citations ADD COLUMN request_id uuid;
UPDATE kerai.citations c SET request_id = r.request_id FROM kerai.ai_responses r WHERE r.id = c.response_id;
ALTER TABLE kerai.citations ALTER COLUMN request_id SET NOT NULL;
UPDATE kerai.job_logs l SET target_id = j.target_id FROM kerai.scrape_jobs j WHERE j.id = l.job_id AND l.target_id IS NULL;
ALTER TABLE kerai.job_logs ALTER COLUMN target_id SET NOT NULL;

-- Keys that hold the distribution column (docs/scale-out.md), as Citus requires: every primary
-- and unique key begins with the row's target_id, request_id, document_id or node_id, and so do
-- the foreign keys inside the target and request groups. Foreign keys that cross groups (a
-- version's document, a passage's version, a citation's chunk) go: kerai's functions keep
-- those links. The foreign keys into the changed keys are found in the catalog (a table
-- partitioned at 0.2.0 has its own names), dropped, and made again on both columns.
-- covers: CREATE TABLE kerai.scrape_jobs (
-- covers: CREATE TABLE kerai.chunks (
-- covers: CREATE TABLE kerai.ai_requests (
-- covers: CREATE TABLE kerai.ai_responses (
-- covers: CREATE TABLE kerai.citations (
-- covers: CREATE TABLE kerai.edges (
-- covers: CREATE TABLE kerai.perspectives (
-- covers: CREATE TABLE kerai.reference_transitions (
-- covers: CREATE TABLE kerai.crawl_queue (
-- covers: CREATE TABLE kerai.embeddings (
-- covers: CREATE TABLE kerai.entities (
-- covers: CREATE TABLE kerai.claims (
DO $$
DECLARE
    r record;
    cols text;
BEGIN
    FOR r IN SELECT c.conname, c.conrelid::regclass AS rel
               FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
              WHERE c.contype = 'f' AND c.conparentid = 0
                AND (c.confrelid IN ('kerai.pages'::regclass, 'kerai.scrape_jobs'::regclass,
                                     'kerai.page_versions'::regclass, 'kerai.ai_responses'::regclass)
                     OR (c.conrelid, a.attname) IN (('kerai.page_versions'::regclass, 'document_id'),
                                                    ('kerai.citations'::regclass, 'chunk_id'))) LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.rel, r.conname);
    END LOOP;
    -- The same links, where partition_by_month had made them rows of partition_references.
    DELETE FROM kerai.partition_references
     WHERE (child_table, child_column) IN (('chunks', 'page_version_id'), ('citations', 'chunk_id'));
    IF NOT EXISTS (SELECT 1 FROM kerai.partition_references WHERE parent_table = 'page_versions') THEN
        DROP TRIGGER IF EXISTS page_versions_references_on_delete ON kerai.page_versions;
    END IF;
    -- Primary keys: the group's key first, then the columns they had (id, and the month of a
    -- table partitioned by month).
    FOR r IN SELECT * FROM (VALUES ('pages', 'target_id'), ('scrape_jobs', 'target_id'),
                                   ('page_versions', 'target_id'), ('job_urls', 'target_id'),
                                   ('ai_responses', 'request_id'), ('citations', 'request_id'),
                                   ('edges', 'document_id'), ('perspectives', 'document_id'),
                                   ('embeddings', 'document_id'), ('entities', 'document_id'),
                                   ('claims', 'document_id'), ('reference_transitions', 'node_id'),
                                   ('crawl_queue', 'node_id')) AS v(tbl, key) LOOP
        SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.n) INTO cols
          FROM pg_constraint c CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
          JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
         WHERE c.conrelid = format('kerai.%I', r.tbl)::regclass AND c.contype = 'p';
        EXECUTE format('ALTER TABLE kerai.%I DROP CONSTRAINT %I, ADD CONSTRAINT %I PRIMARY KEY (%I, %s)',
                       r.tbl, r.tbl || '_pkey', r.tbl || '_pkey', r.key, cols);
    END LOOP;
END
$$;
ALTER TABLE kerai.edges DROP CONSTRAINT edges_one_per_relation,
    ADD CONSTRAINT edges_one_per_relation UNIQUE (document_id, source_id, relation, target_id);
DROP INDEX kerai.reference_transitions_node_idx;
ALTER TABLE kerai.job_urls DROP CONSTRAINT job_urls_once_per_job,
    ADD CONSTRAINT job_urls_once_per_job UNIQUE (job_id, url_hash, target_id);
ALTER TABLE kerai.citations DROP CONSTRAINT citations_once_per_order,
    ADD CONSTRAINT citations_once_per_order UNIQUE (request_id, response_id, citation_order);
ALTER TABLE kerai.job_logs_default DROP CONSTRAINT job_logs_default_pkey, ADD PRIMARY KEY (id, target_id);
ALTER TABLE kerai.page_versions
    ADD FOREIGN KEY (target_id, page_id) REFERENCES kerai.pages (target_id, id) ON DELETE CASCADE;
ALTER TABLE kerai.job_urls
    ADD FOREIGN KEY (target_id, job_id) REFERENCES kerai.scrape_jobs (target_id, id) ON DELETE CASCADE;
ALTER TABLE kerai.job_logs
    ADD FOREIGN KEY (target_id, job_id) REFERENCES kerai.scrape_jobs (target_id, id) ON DELETE CASCADE;
ALTER TABLE kerai.citations
    ADD FOREIGN KEY (request_id, response_id) REFERENCES kerai.ai_responses (request_id, id) ON DELETE CASCADE;

-- Documents (sql/graph.sql): one row per document, reference or concept, the key a document's
-- rows share. Links to a document's root node become links to its row; links to another node
-- or passage of the same document hold the document too; links into another document (an
-- edge's target, a resolved reference, a reward's node) become plain columns, kept by kerai's
-- functions, and so does a document's keys' link to it (kerai.document_keys is found by key).
-- Foreign keys into a table partitioned at 0.2.0 (chunks) stay rows of partition_references.
-- covers: CREATE TABLE kerai.documents (
-- covers: CREATE TABLE kerai.nodes (
-- covers: CREATE TABLE kerai.reference_state (
-- covers: CREATE TABLE kerai.extraction_queue (
-- covers: CREATE TABLE kerai.document_keys (
-- covers: CREATE TABLE kerai.reward_ledger (
CREATE TABLE kerai.documents (
    id         uuid PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- 0.2.0 moved an unchanged chunk to its page's new document without the chunk's claims: they
-- follow their chunk now.
UPDATE kerai.claims x SET document_id = c.document_id
  FROM kerai.chunks c WHERE c.id = x.chunk_id AND x.document_id <> c.document_id;
INSERT INTO kerai.documents (id, created_at)
SELECT d, min(at) FROM (
    SELECT document_id, created_at FROM kerai.nodes
    UNION ALL SELECT document_id, created_at FROM kerai.chunks
    UNION ALL SELECT document_id, created_at FROM kerai.claims
    UNION ALL SELECT node_id, created_at FROM kerai.reference_state
    UNION ALL SELECT node_id, at FROM kerai.reference_transitions
    UNION ALL SELECT node_id, created_at FROM kerai.crawl_queue
    UNION ALL SELECT document_id, queued_at FROM kerai.extraction_queue
    UNION ALL SELECT document_id, created_at FROM kerai.document_keys) AS u(d, at)
GROUP BY d;
DO $$
DECLARE
    r record;
    tbl regclass;
    pk text;
    cols text;
    chunks_partitioned boolean := (SELECT c.relkind = 'p' FROM pg_class c WHERE c.oid = 'kerai.chunks'::regclass);
BEGIN
    FOR r IN SELECT c.conname, c.conrelid::regclass AS rel FROM pg_constraint c
              WHERE c.contype = 'f' AND c.conparentid = 0
                AND c.confrelid IN ('kerai.nodes'::regclass, 'kerai.chunks'::regclass) LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.rel, r.conname);
    END LOOP;
    FOREACH tbl IN ARRAY ARRAY['kerai.nodes'::regclass, 'kerai.chunks'::regclass] LOOP
        SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.n), min(c.conname) INTO cols, pk
          FROM pg_constraint c CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
          JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
         WHERE c.conrelid = tbl AND c.contype = 'p';
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I, ADD PRIMARY KEY (document_id, %s)', tbl, pk, cols);
    END LOOP;
    IF NOT chunks_partitioned THEN
        ALTER TABLE kerai.embeddings
            ADD FOREIGN KEY (document_id, chunk_id) REFERENCES kerai.chunks (document_id, id) ON DELETE CASCADE;
        ALTER TABLE kerai.entities
            ADD FOREIGN KEY (document_id, chunk_id) REFERENCES kerai.chunks (document_id, id) ON DELETE CASCADE;
        ALTER TABLE kerai.claims
            ADD FOREIGN KEY (document_id, chunk_id) REFERENCES kerai.chunks (document_id, id) ON DELETE CASCADE;
    END IF;
END
$$;
ALTER TABLE kerai.nodes ADD FOREIGN KEY (document_id) REFERENCES kerai.documents (id) ON DELETE CASCADE,
    ADD FOREIGN KEY (document_id, parent_id) REFERENCES kerai.nodes (document_id, id) ON DELETE CASCADE;
ALTER TABLE kerai.edges
    ADD FOREIGN KEY (document_id, source_id) REFERENCES kerai.nodes (document_id, id) ON DELETE CASCADE;
ALTER TABLE kerai.perspectives
    ADD FOREIGN KEY (document_id, node_id) REFERENCES kerai.nodes (document_id, id) ON DELETE CASCADE;
ALTER TABLE kerai.reference_state ADD FOREIGN KEY (node_id) REFERENCES kerai.documents (id) ON DELETE CASCADE;
ALTER TABLE kerai.reference_transitions ADD FOREIGN KEY (node_id) REFERENCES kerai.documents (id) ON DELETE CASCADE;
ALTER TABLE kerai.crawl_queue ADD FOREIGN KEY (node_id) REFERENCES kerai.documents (id) ON DELETE CASCADE;
ALTER TABLE kerai.extraction_queue ADD FOREIGN KEY (document_id) REFERENCES kerai.documents (id) ON DELETE CASCADE;
ALTER TABLE kerai.chunks ADD FOREIGN KEY (document_id) REFERENCES kerai.documents (id) ON DELETE CASCADE;
ALTER TABLE kerai.claims ADD FOREIGN KEY (document_id) REFERENCES kerai.documents (id) ON DELETE CASCADE;
DROP INDEX kerai.chunks_document_idx;
DROP INDEX kerai.claims_document_idx;
-- A document's identity (the same content from the same source is one document) is a key of
-- kerai.document_keys, which a distributed database finds by key, not a unique index on nodes.
INSERT INTO kerai.document_keys (key, document_id, created_at)
SELECT 'content:' || (n.metadata->>'content_hash') || ':' || md5(coalesce(n.metadata->>'source_url', '')), n.id, n.created_at
  FROM kerai.nodes n
 WHERE n.kind = 'document' AND n.metadata->>'content_hash' IS NOT NULL
ON CONFLICT (key) DO NOTHING;
DROP INDEX kerai.nodes_document_identity_idx;

-- Duplicate pages (site.sql, docs/sql.md#duplicate-pages): aliases, near-duplicate
-- signatures and the duplicate outcome. Pages stored before the update are judged again when
-- they are next fetched.
-- covers: CREATE TABLE kerai.pages (
-- covers: CREATE TABLE kerai.page_versions (
-- covers: CREATE TABLE kerai.job_urls (
ALTER TABLE kerai.pages ADD COLUMN alias_of uuid,
    ADD COLUMN alias_reason text CHECK (alias_reason IN ('canonical', 'duplicate')),
    DROP CONSTRAINT pages_last_status_check,
    ADD CONSTRAINT pages_last_status_check CHECK (last_status IN ('new', 'updated', 'unchanged', 'failed', 'duplicate'));
ALTER TABLE kerai.page_versions ADD COLUMN minhash bigint[], ADD COLUMN minhash_bands bigint[],
    ADD COLUMN near_duplicate_of uuid, ADD COLUMN similarity real;
ALTER TABLE kerai.job_urls DROP CONSTRAINT job_urls_outcome_check,
    ADD CONSTRAINT job_urls_outcome_check
        CHECK (outcome IN ('new', 'updated', 'unchanged', 'failed', 'skipped', 'duplicate'));

-- 0.3.0's default local model is the int8 variant of all-MiniLM-L6-v2, whose vectors have
-- their own model name. A database that holds vectors of 0.2.0's float32 model, and never chose
-- a model itself, keeps the float32 model: its vectors go on serving searches. Switching is one
-- call, which re-embeds every chunk: SELECT kerai.configure_embeddings('local').
INSERT INTO kerai.settings (key, value)
SELECT 'embedding_model', '"sentence-transformers/all-MiniLM-L6-v2"'
 WHERE EXISTS (SELECT 1 FROM kerai.embeddings WHERE model_name = 'sentence-transformers/all-MiniLM-L6-v2')
ON CONFLICT (key) DO NOTHING;

-- A new document's authors are recorded by kerai.parse_markdown (frontier_scoring.sql), not by
-- a trigger on its title's update, which a distributed database cannot run.
DROP TRIGGER nodes_track_document_authors ON kerai.nodes;
DROP FUNCTION kerai._track_document_authors();

-- A blob of large raw HTML belongs to the target of the versions that keep it (retrieval.sql):
-- on a distributed database it lives next to them. A blob that versions of several targets
-- kept is copied for each; one that no version keeps any more goes.
-- covers: CREATE TABLE kerai.blobs (
ALTER TABLE kerai.blobs DROP CONSTRAINT blobs_pkey;
ALTER TABLE kerai.blobs ADD COLUMN target_id uuid REFERENCES kerai.targets (id) ON DELETE CASCADE;
INSERT INTO kerai.blobs (uri, data, created_at, target_id)
SELECT b.uri, b.data, b.created_at, v.target_id
  FROM kerai.blobs b
  JOIN (SELECT DISTINCT raw_html_uri, target_id FROM kerai.page_versions WHERE raw_html_uri IS NOT NULL) v
    ON v.raw_html_uri = b.uri
 WHERE b.target_id IS NULL;
DELETE FROM kerai.blobs WHERE target_id IS NULL;
ALTER TABLE kerai.blobs ALTER COLUMN target_id SET NOT NULL, ADD PRIMARY KEY (target_id, uri);

-- A counter delta names one document of the rows it counts, so that on a distributed database
-- it lands on their shard, where the trigger that writes it runs (sql/ops_counters.sql). Last
-- here: the rows changed above were counted by 0.2.0's triggers, which write no document. The
-- deltas 0.2.0 wrote name the nil uuid (which document does not matter for the sums).
-- covers: CREATE TABLE kerai.counter_deltas (
ALTER TABLE kerai.counter_deltas ADD COLUMN document_id uuid;
UPDATE kerai.counter_deltas SET document_id = '00000000-0000-0000-0000-000000000000';
ALTER TABLE kerai.counter_deltas ALTER COLUMN document_id SET NOT NULL,
    DROP CONSTRAINT counter_deltas_pkey, ADD PRIMARY KEY (document_id, id);
DROP FUNCTION kerai._add_node_deltas(integer, text[], text[]);

-- kerai._extractive_answer takes the passages' headings from 0.3.0 (src/answer.rs); the
-- generated part makes the new signature, so 0.2.0's goes (it would make calls ambiguous).
DROP FUNCTION kerai._extractive_answer(text, text[], integer);

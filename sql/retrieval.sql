-- Retrieval: chunks of documents, their embeddings (pgvector), hybrid search, answers with
-- citations and the AI request log (seed 001), entities and claims (seed 000).

CREATE TABLE kerai.chunks (
    id              uuid PRIMARY KEY,
    chunk_key       text NOT NULL,
    document_id     uuid NOT NULL REFERENCES kerai.nodes (id) ON DELETE CASCADE,
    page_version_id uuid REFERENCES kerai.page_versions (id) ON DELETE SET NULL,
    target_id       uuid REFERENCES kerai.targets (id) ON DELETE SET NULL,
    chunk_index     integer NOT NULL,
    chunk_total     integer NOT NULL,
    chunk_strategy  text NOT NULL,
    content         text NOT NULL,
    token_count     integer NOT NULL,
    content_hash    text NOT NULL,
    heading_path    text[] NOT NULL DEFAULT '{}',
    source_url      text,
    parent_url      text,
    source_type     text,
    title           text,
    language        text,
    version_hint    text,
    last_modified   text,
    crawl_timestamp timestamptz,
    tags            text[] NOT NULL DEFAULT '{}',
    embedding_status text NOT NULL DEFAULT 'pending' CHECK (embedding_status IN ('pending', 'done', 'failed')),
    embedding_error text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    fts tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', coalesce(title, '') || ' ' || array_to_string(heading_path, ' ')), 'B')
        || setweight(to_tsvector('english', content), 'A')) STORED,
    CONSTRAINT chunks_once_per_document UNIQUE (document_id, chunk_index)
);
COMMENT ON TABLE kerai.chunks IS
    'Token-aware chunks of documents. id is deterministic (a hash of source_url, chunk_index and the document''s '
    'content hash), so a new version gets fresh chunks and re-ingesting the same one makes none; chunk_key (a hash '
    'of source_url and chunk_index) is the same across versions, for upserts into outside stores.';
CREATE INDEX chunks_fts_idx ON kerai.chunks USING gin (fts);
CREATE INDEX chunks_document_idx ON kerai.chunks (document_id);
CREATE INDEX chunks_pending_idx ON kerai.chunks (created_at) WHERE embedding_status = 'pending';
CREATE INDEX chunks_content_hash_idx ON kerai.chunks (content_hash);
CREATE INDEX chunks_source_url_idx ON kerai.chunks (source_url text_pattern_ops);

CREATE TABLE kerai.embeddings (
    chunk_id   uuid PRIMARY KEY REFERENCES kerai.chunks (id) ON DELETE CASCADE,
    model_name text NOT NULL,
    dimensions integer NOT NULL,
    embedding  vector NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT embeddings_dimensions_match CHECK (vector_dims(embedding) = dimensions)
);
COMMENT ON TABLE kerai.embeddings IS
    'One embedding per chunk, with the model that made it. Each model gets its own HNSW index '
    '(kerai.create_embedding_index); all-MiniLM-L6-v2 (384 dimensions) has one from the start.';

-- An HNSW index (cosine) for one model's vectors.
CREATE FUNCTION kerai.create_embedding_index(model text, dims integer) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    name text := 'embeddings_hnsw_' || substr(md5(model), 1, 10) || '_' || dims;
BEGIN
    IF dims < 1 OR dims > 2000 THEN
        RAISE EXCEPTION 'an HNSW index takes 1 to 2000 dimensions, not %', dims USING ERRCODE = '22023';
    END IF;
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON kerai.embeddings USING hnsw ((embedding::vector(%s)) vector_cosine_ops) WHERE model_name = %L',
                   name, dims, model);
    RETURN name;
END
$$;
SELECT kerai.create_embedding_index('all-MiniLM-L6-v2', 384);

-- Settings for retrieval and answers, one row per key (kerai.settings).
CREATE TABLE kerai.settings (
    key        text PRIMARY KEY,
    value      jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO kerai.settings VALUES
    ('embedding_model', '"all-MiniLM-L6-v2"'),
    ('embedding_dimensions', '384'),
    ('search_rrf_k', '60'),
    ('search_candidates', '50');

CREATE FUNCTION kerai.setting(key text) RETURNS jsonb
LANGUAGE sql STABLE AS $$ SELECT value FROM kerai.settings s WHERE s.key = setting.key $$;

-- ---------------------------------------------------------------- the AI request log (seed 001)

CREATE TABLE kerai.ai_requests (
    id           uuid PRIMARY KEY DEFAULT kerai.uuid7(),
    user_name    text NOT NULL DEFAULT current_user,
    target_id    uuid REFERENCES kerai.targets (id) ON DELETE SET NULL,
    query        text NOT NULL,
    purpose      text NOT NULL DEFAULT 'answer',
    filters      jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ai_requests_created_idx ON kerai.ai_requests (created_at);

CREATE TABLE kerai.ai_responses (
    id                uuid PRIMARY KEY DEFAULT kerai.uuid7(),
    request_id        uuid NOT NULL UNIQUE REFERENCES kerai.ai_requests (id) ON DELETE CASCADE,
    response          text NOT NULL,
    model             text NOT NULL,
    mode              text NOT NULL CHECK (mode IN ('extractive', 'llm')),
    prompt_tokens     integer NOT NULL DEFAULT 0,
    completion_tokens integer NOT NULL DEFAULT 0,
    tokens_used       integer GENERATED ALWAYS AS (prompt_tokens + completion_tokens) STORED,
    created_at        timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE kerai.citations (
    id              uuid PRIMARY KEY DEFAULT kerai.uuid7(),
    response_id     uuid NOT NULL REFERENCES kerai.ai_responses (id) ON DELETE CASCADE,
    chunk_id        uuid REFERENCES kerai.chunks (id) ON DELETE SET NULL,
    relevance_score numeric(5, 4) NOT NULL,
    citation_order  integer NOT NULL,
    CONSTRAINT citations_once_per_order UNIQUE (response_id, citation_order)
);
CREATE INDEX citations_response_idx ON kerai.citations (response_id);

-- ---------------------------------------------------------------- entities and claims

CREATE TABLE kerai.entities (
    id          bigserial PRIMARY KEY,
    chunk_id    uuid NOT NULL REFERENCES kerai.chunks (id) ON DELETE CASCADE,
    text        text NOT NULL,
    kind        text NOT NULL,
    start_char  integer NOT NULL,
    end_char    integer NOT NULL,
    confidence  real NOT NULL
);
CREATE INDEX entities_chunk_idx ON kerai.entities (chunk_id);
CREATE INDEX entities_kind_text_idx ON kerai.entities (kind, text);

CREATE TABLE kerai.claims (
    id          bigserial PRIMARY KEY,
    document_id uuid NOT NULL REFERENCES kerai.nodes (id) ON DELETE CASCADE,
    chunk_id    uuid REFERENCES kerai.chunks (id) ON DELETE CASCADE,
    statement   text NOT NULL,
    subject     text NOT NULL,
    predicate   text NOT NULL,
    object      text NOT NULL,
    confidence  real NOT NULL,
    source      text NOT NULL CHECK (source IN ('json_ld', 'pattern', 'llm')),
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX claims_document_idx ON kerai.claims (document_id);
CREATE INDEX claims_subject_idx ON kerai.claims (lower(subject));

-- ---------------------------------------------------------------- large raw HTML out of line

CREATE TABLE kerai.blobs (
    uri        text PRIMARY KEY,
    data       bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE kerai.blobs IS
    'Raw HTML over 1 MB, stored once per content (uri = kerai-blob:sha256:<hex>); page_versions keeps the URI.';

CREATE FUNCTION kerai._page_html_out_of_line() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    uri text;
BEGIN
    IF NEW.raw_html IS NOT NULL AND octet_length(NEW.raw_html) > 1048576 THEN
        uri := 'kerai-blob:sha256:' || encode(sha256(convert_to(NEW.raw_html, 'UTF8')), 'hex');
        INSERT INTO kerai.blobs (uri, data) VALUES (uri, convert_to(NEW.raw_html, 'UTF8')) ON CONFLICT DO NOTHING;
        NEW.raw_html_uri := uri;
        NEW.raw_html := NULL;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER page_versions_html_out_of_line BEFORE INSERT OR UPDATE OF raw_html ON kerai.page_versions
    FOR EACH ROW EXECUTE FUNCTION kerai._page_html_out_of_line();

-- The raw HTML of a version wherever it is kept: `SELECT v.html FROM kerai.page_versions v`.
CREATE FUNCTION kerai.html(v kerai.page_versions) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(v.raw_html, (SELECT convert_from(b.data, 'UTF8') FROM kerai.blobs b WHERE b.uri = v.raw_html_uri))
$$;

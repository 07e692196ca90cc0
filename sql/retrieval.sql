-- Retrieval: settings, chunks of documents, their embeddings (pgvector), the embedding
-- worker's contract, entities and claims (seed 000), the AI request log (seed 001) and raw
-- HTML over 1 MB kept out of line.

-- ---------------------------------------------------------------- settings

-- Defaults live in code; the table holds only what was changed, so a database dump restores
-- cleanly over a fresh CREATE EXTENSION.
CREATE FUNCTION kerai.setting_defaults() RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT '{
        "chunk_tokens": 512, "chunk_overlap": 64, "chunk_strategy": "section", "chunk_on_ingest": true,
        "embedding_provider": "local", "embedding_model": "sentence-transformers/all-MiniLM-L6-v2:int8",
        "embedding_dimensions": 384, "embedding_base_url": null, "embedding_api_key_env": "KERAI_EMBEDDING_API_KEY",
        "embedding_batch": 32, "embedding_timeout_seconds": 30, "embedding_max_attempts": 5,
        "chat_base_url": null, "chat_model": null, "chat_api_key_env": "KERAI_CHAT_API_KEY", "chat_timeout_seconds": 60,
        "llm_claims": false, "llm_claims_domain": "general",
        "search_rrf_k": 60, "search_candidates": 100, "search_fts_budget": 5000, "answer_passages": 5,
        "allowed_private_hosts": [], "job_log_retention_days": 90
    }'::jsonb
$$;

CREATE TABLE kerai.settings (
    key        text PRIMARY KEY,
    value      jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE kerai.settings IS
    'Retrieval settings changed from their defaults (kerai.setting_defaults()); kerai.settings_all shows every one. '
    'Change them with kerai.set_setting(key, value), kerai.configure_embeddings(...) or kerai.configure_chat(...). '
    'Secrets are never stored here: API keys come from the environment variable a *_api_key_env setting names.';

-- (PL/pgSQL, whose plan is kept for the session: a SQL function with a subquery is parsed
-- again each time a statement calls it.)
CREATE FUNCTION kerai.setting(key text) RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    RETURN coalesce((SELECT s.value FROM kerai.settings s WHERE s.key = setting.key), kerai.setting_defaults() -> key);
END
$$;

CREATE VIEW kerai.settings_all AS
SELECT d.key, coalesce(s.value, d.value) AS value, d.value AS default_value, s.key IS NOT NULL AS changed, s.updated_at
  FROM jsonb_each(kerai.setting_defaults()) d
  LEFT JOIN kerai.settings s ON s.key = d.key
 ORDER BY d.key;
COMMENT ON VIEW kerai.settings_all IS 'Every retrieval setting: its value, its default, and whether it was changed.';

CREATE FUNCTION kerai.reset_setting(key text) RETURNS jsonb
LANGUAGE sql AS $$
    SELECT kerai._require('kerai_admin', 'kerai.reset_setting');
    DELETE FROM kerai.settings s WHERE s.key = reset_setting.key;
    SELECT kerai.setting(key);
$$;

CREATE FUNCTION kerai.set_setting(key text, value jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_admin', 'kerai.set_setting');
BEGIN
    IF NOT kerai.setting_defaults() ? key THEN
        RAISE EXCEPTION 'kerai.set_setting: unknown setting "%"', key USING ERRCODE = '22023',
            HINT = 'SELECT key, value FROM kerai.settings_all lists them';
    END IF;
    IF value IS NULL THEN
        RAISE EXCEPTION 'kerai.set_setting: the value of % is NULL', key USING ERRCODE = '22023',
            HINT = 'use JSON null (''null''::jsonb) to clear a URL, or kerai.reset_setting(key) for the default';
    END IF;
    IF key IN ('chunk_tokens', 'chunk_overlap', 'embedding_dimensions', 'embedding_batch', 'embedding_timeout_seconds',
               'embedding_max_attempts', 'chat_timeout_seconds', 'search_rrf_k', 'search_candidates', 'search_fts_budget',
               'answer_passages', 'job_log_retention_days')
       AND (jsonb_typeof(value) <> 'number' OR (value #>> '{}')::numeric <= 0 OR (value #>> '{}')::numeric % 1 <> 0) THEN
        RAISE EXCEPTION 'kerai.set_setting: % must be a positive whole number, not %', key, value USING ERRCODE = '22023';
    END IF;
    IF key IN ('chunk_on_ingest', 'llm_claims') AND jsonb_typeof(value) <> 'boolean' THEN
        RAISE EXCEPTION 'kerai.set_setting: % must be true or false, not %', key, value USING ERRCODE = '22023';
    END IF;
    IF key = 'embedding_provider' AND NOT value ?| ARRAY['local', 'openai', 'none'] THEN
        RAISE EXCEPTION 'kerai.set_setting: embedding_provider must be "local", "openai" or "none", not %', value
            USING ERRCODE = '22023';
    END IF;
    IF key = 'chunk_strategy' AND NOT value ?| ARRAY['section', 'paragraph', 'length'] THEN
        RAISE EXCEPTION 'kerai.set_setting: chunk_strategy must be "section", "paragraph" or "length", not %', value
            USING ERRCODE = '22023';
    END IF;
    IF key = 'allowed_private_hosts' THEN
        -- Raises, naming the bad entry, unless every entry is a host, host:port, network or *.
        PERFORM kerai._check_allowed_private_hosts(value);
    END IF;
    IF key LIKE '%_url' AND jsonb_typeof(value) NOT IN ('string', 'null') THEN
        RAISE EXCEPTION 'kerai.set_setting: % must be a URL string or null', key USING ERRCODE = '22023';
    END IF;
    IF key LIKE '%_url' AND jsonb_typeof(value) = 'string' AND value #>> '{}' !~ '^https?://[^/]+' THEN
        RAISE EXCEPTION 'kerai.set_setting: % must be an http(s) URL, not %', key, value USING ERRCODE = '22023';
    END IF;
    -- No credentials in an endpoint: keys come from the environment variable *_api_key_env names.
    IF key LIKE '%_url' AND jsonb_typeof(value) = 'string' AND value #>> '{}' ~ '^https?://[^/?#]*@' THEN
        RAISE EXCEPTION 'kerai.set_setting: % must not hold credentials (user:password@)', key USING ERRCODE = '22023',
            HINT = 'put the key in an environment variable of the server and name it in the matching *_api_key_env setting';
    END IF;
    INSERT INTO kerai.settings AS s (key, value) VALUES (key, value)
    ON CONFLICT ON CONSTRAINT settings_pkey DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at;
    RETURN value;
END
$$;

CREATE FUNCTION kerai._embedding_config() RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object(
        'provider', kerai.setting('embedding_provider'),
        'model', kerai.setting('embedding_model'),
        'dimensions', kerai.setting('embedding_dimensions'),
        'base_url', kerai.setting('embedding_base_url'),
        'api_key_env', kerai.setting('embedding_api_key_env'),
        'batch', kerai.setting('embedding_batch'),
        'timeout_seconds', kerai.setting('embedding_timeout_seconds'),
        'max_attempts', kerai.setting('embedding_max_attempts'),
        'allowed_private_hosts', kerai.setting('allowed_private_hosts'))
$$;

CREATE FUNCTION kerai._chat_config() RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object(
        'base_url', kerai.setting('chat_base_url'),
        'model', kerai.setting('chat_model'),
        'api_key_env', kerai.setting('chat_api_key_env'),
        'timeout_seconds', kerai.setting('chat_timeout_seconds'),
        'allowed_private_hosts', kerai.setting('allowed_private_hosts'))
$$;

-- Chunk options for a document of `target`: the settings, then the target's config (and its
-- tags, copied onto every chunk).
CREATE FUNCTION kerai._chunk_options(target text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN jsonb_build_object('target_tokens', kerai.setting('chunk_tokens'),
                              'overlap_tokens', kerai.setting('chunk_overlap'),
                              'strategy', kerai.setting('chunk_strategy'))
        || coalesce((SELECT jsonb_strip_nulls(jsonb_build_object('target_tokens', t.config->'chunk_size',
                                                                 'overlap_tokens', t.config->'chunk_overlap',
                                                                 'strategy', t.config->'chunk_strategy',
                                                                 'tags', t.config->'tags'))
                       FROM kerai.targets t WHERE t.name = _chunk_options.target), '{}'::jsonb);
END
$$;

-- ---------------------------------------------------------------- chunks

-- Headings joined by spaces, for the full-text column. array_to_string is only STABLE in
-- general (element output functions), but for text[] it cannot change.
CREATE FUNCTION kerai._join_headings(path text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT array_to_string(path, ' ') $$;

CREATE TABLE kerai.chunks (
    id                 uuid NOT NULL,
    chunk_key          text NOT NULL,
    document_id        uuid NOT NULL REFERENCES kerai.documents (id) ON DELETE CASCADE,
    page_version_id    uuid,
    target_id          uuid REFERENCES kerai.targets (id) ON DELETE SET NULL,
    chunk_index        integer NOT NULL CHECK (chunk_index >= 0),
    chunk_total        integer NOT NULL CHECK (chunk_total > chunk_index),
    chunk_strategy     text NOT NULL,
    content            text NOT NULL,
    token_count        integer NOT NULL,
    content_hash       text NOT NULL,
    heading_path       text[] NOT NULL DEFAULT '{}',
    source_url         text,
    parent_url         text,
    source_type        text,
    title              text,
    language           text,
    version_hint       text,
    last_modified      text,
    crawl_timestamp    timestamptz,
    tags               text[] NOT NULL DEFAULT '{}',
    embedding_status   text NOT NULL DEFAULT 'pending' CHECK (embedding_status IN ('pending', 'done', 'failed')),
    embedding_attempts integer NOT NULL DEFAULT 0,
    embedding_error    text,
    embedding_next_try timestamptz,
    leased_by          text,
    lease_until        timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    fts tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', coalesce(title, '') || ' ' || kerai._join_headings(heading_path)), 'B')
        || setweight(to_tsvector('english', content), 'A')) STORED,
    PRIMARY KEY (document_id, id)
);
COMMENT ON TABLE kerai.chunks IS
    'Token-aware chunks of documents (kerai.chunk_document). id = a hash of source_url and chunk_index (chunk_key is '
    'the source_url, or kerai:document:<id> without one), so a new version of a page replaces its chunks in place; '
    'a chunk whose text changed waits for a new embedding (embedding_status pending), an unchanged one keeps its own.';
CREATE INDEX chunks_fts_idx ON kerai.chunks USING gin (fts);
-- Full-text ranking weighs lexemes by IDF estimated from these statistics (kerai._fts_terms):
-- 1,000 gives about ten thousand tracked lexemes, as good as exact frequencies on SciFact.
ALTER TABLE kerai.chunks ALTER COLUMN fts SET STATISTICS 1000;
-- Lookups by id alone (the key starts with the document).
CREATE INDEX chunks_id_idx ON kerai.chunks (id);
CREATE INDEX chunks_key_idx ON kerai.chunks (chunk_key, chunk_index);
CREATE INDEX chunks_to_embed_idx ON kerai.chunks (created_at, id) WHERE embedding_status <> 'done';
CREATE INDEX chunks_page_version_idx ON kerai.chunks (page_version_id);
CREATE INDEX chunks_source_url_idx ON kerai.chunks (source_url text_pattern_ops);

-- ---------------------------------------------------------------- embeddings

CREATE TABLE kerai.embeddings (
    document_id uuid NOT NULL,
    chunk_id   uuid NOT NULL,
    model_name text NOT NULL,
    dimensions integer NOT NULL,
    embedding  vector NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT embeddings_dimensions_match CHECK (vector_dims(embedding) = dimensions),
    PRIMARY KEY (document_id, chunk_id),
    FOREIGN KEY (document_id, chunk_id) REFERENCES kerai.chunks (document_id, id) ON DELETE CASCADE
);
CREATE INDEX embeddings_chunk_idx ON kerai.embeddings (chunk_id);
COMMENT ON TABLE kerai.embeddings IS
    'One embedding per chunk, with the model that made it. Each model has its own HNSW index '
    '(kerai.create_embedding_index, called by kerai.configure_embeddings).';

-- An HNSW index (cosine) over one model's vectors; returns its name. Creating an index takes
-- the table's owner, so this runs as the extension's owner (SECURITY DEFINER, search_path
-- pinned, pgvector's names qualified); only kerai_admin may call it (sql/ops_roles.sql).
CREATE FUNCTION kerai._create_embedding_index(model text, dims integer) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    name text := 'embeddings_hnsw_' || substr(md5(model), 1, 10) || '_' || dims;
    vec text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                  WHERE e.extname = 'vector');
BEGIN
    IF dims IS NULL OR dims < 1 OR dims > 2000 THEN
        RAISE EXCEPTION 'kerai.create_embedding_index: an HNSW index takes 1 to 2000 dimensions, not %', dims
            USING ERRCODE = '22023';
    END IF;
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON kerai.embeddings USING hnsw ((embedding::%I.vector(%s)) %I.vector_cosine_ops) WHERE model_name = %L',
                   name, vec, dims, vec, model);
    RETURN name;
END
$$;
-- Both variants of the local model have their index from the start (empty partial indexes
-- cost nothing): the default int8 one, and the float32 one that databases made before 0.3.0
-- use.
SELECT kerai._create_embedding_index('sentence-transformers/all-MiniLM-L6-v2:int8', 384);
SELECT kerai._create_embedding_index('sentence-transformers/all-MiniLM-L6-v2', 384);

-- Every chunk back to `pending`, for a new model or size: as the extension's owner, like the
-- index kerai.configure_embeddings has just made (on a distributed database one transaction may
-- touch a shard as one role only, docs/scale-out.md). Only kerai_admin may call it.
CREATE FUNCTION kerai._embed_all_again() RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    UPDATE kerai.chunks SET embedding_status = 'pending', embedding_attempts = 0, embedding_error = NULL,
           embedding_next_try = NULL, leased_by = NULL, lease_until = NULL
$$;

CREATE FUNCTION kerai.create_embedding_index(model text, dims integer) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    allowed boolean := kerai._require('kerai_admin', 'kerai.create_embedding_index');
BEGIN
    RETURN kerai._create_embedding_index(model, dims);
END
$$;

-- Choose the embedding provider. A different model or size sends every chunk back to be
-- embedded again (old vectors are kept until the new ones replace them).
CREATE FUNCTION kerai.configure_embeddings(provider text, model text DEFAULT NULL, dimensions integer DEFAULT NULL,
                                           base_url text DEFAULT NULL, api_key_env text DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    allowed boolean := kerai._require('kerai_admin', 'kerai.configure_embeddings');
    old_model text := kerai.setting('embedding_model') #>> '{}';
    old_dims integer := (kerai.setting('embedding_dimensions') #>> '{}')::integer;
BEGIN
    IF provider = 'local' THEN
        -- Two variants of all-MiniLM-L6-v2: int8 (the default, several times faster) and
        -- float32 (the reference). Their vectors differ slightly, so each has its own name.
        IF model IS NOT NULL AND model NOT IN ('sentence-transformers/all-MiniLM-L6-v2:int8',
                                               'sentence-transformers/all-MiniLM-L6-v2') THEN
            RAISE EXCEPTION 'kerai.configure_embeddings: the local provider runs sentence-transformers/all-MiniLM-L6-v2:int8 (the default) or sentence-transformers/all-MiniLM-L6-v2 (float32), not %', model
                USING ERRCODE = '22023', HINT = 'use the openai provider for other models';
        END IF;
        model := coalesce(model, 'sentence-transformers/all-MiniLM-L6-v2:int8');
        dimensions := 384;
    ELSIF provider = 'openai' THEN
        IF model IS NULL OR dimensions IS NULL OR base_url IS NULL THEN
            RAISE EXCEPTION 'kerai.configure_embeddings: the openai provider needs a model, its dimensions and a base URL'
                USING ERRCODE = '22023',
                      HINT = 'SELECT kerai.configure_embeddings(''openai'', ''text-embedding-3-small'', 1536, ''https://api.openai.com/v1'')';
        END IF;
    ELSIF provider = 'none' THEN
        PERFORM kerai.set_setting('embedding_provider', '"none"');
        RETURN kerai._embedding_config();
    ELSE
        RAISE EXCEPTION 'kerai.configure_embeddings: provider must be local, openai or none, not "%"', provider
            USING ERRCODE = '22023';
    END IF;
    PERFORM kerai.set_setting('embedding_provider', to_jsonb(provider));
    PERFORM kerai.set_setting('embedding_model', to_jsonb(model));
    PERFORM kerai.set_setting('embedding_dimensions', to_jsonb(dimensions));
    PERFORM kerai.set_setting('embedding_base_url', coalesce(to_jsonb(base_url), 'null'::jsonb));
    IF api_key_env IS NOT NULL THEN
        PERFORM kerai.set_setting('embedding_api_key_env', to_jsonb(api_key_env));
    END IF;
    PERFORM kerai._create_embedding_index(model, dimensions);
    IF model IS DISTINCT FROM old_model OR dimensions IS DISTINCT FROM old_dims THEN
        PERFORM kerai._embed_all_again();
    END IF;
    RETURN kerai._embedding_config();
END
$$;

CREATE FUNCTION kerai.configure_chat(base_url text, model text, api_key_env text DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    allowed boolean := kerai._require('kerai_admin', 'kerai.configure_chat');
BEGIN
    PERFORM kerai.set_setting('chat_base_url', coalesce(to_jsonb(base_url), 'null'::jsonb));
    PERFORM kerai.set_setting('chat_model', coalesce(to_jsonb(model), 'null'::jsonb));
    IF api_key_env IS NOT NULL THEN
        PERFORM kerai.set_setting('chat_api_key_env', to_jsonb(api_key_env));
    END IF;
    RETURN kerai._chat_config();
END
$$;

-- The text's embedding under the configured provider (kerai._embed does the work).
CREATE FUNCTION kerai.embed(text text) RETURNS vector
LANGUAGE sql STABLE STRICT PARALLEL RESTRICTED AS $$ SELECT kerai._embed(text)::vector $$;

-- The embedding worker's contract (the fetcher's `kerai embed`, and kerai.embed_pending):
-- claim chunks that wait for an embedding, store vectors, or report a failure.
-- Lock up to `n` chunks that wait for an embedding, oldest first, for this transaction. The
-- candidates are read without locks (on a distributed database they span shards), then each
-- is locked by its key (one shard), skipped when another worker holds it.
CREATE FUNCTION kerai._embed_lock(n integer) RETURNS TABLE (document_id uuid, id uuid, content text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    tries integer := (kerai.setting('embedding_max_attempts') #>> '{}')::integer;
    c record;
    got integer := 0;
BEGIN
    FOR c IN SELECT x.document_id AS doc, x.id AS chunk FROM kerai.chunks x
              WHERE x.embedding_status <> 'done' AND x.embedding_attempts < tries
                AND coalesce(x.embedding_next_try, '-infinity') <= now()
                AND coalesce(x.lease_until, '-infinity') < now()
              ORDER BY x.created_at, x.id LIMIT greatest(n, 0) * 2 LOOP
        EXIT WHEN got >= n;
        RETURN QUERY
            SELECT x.document_id, x.id, x.content FROM kerai.chunks x
             WHERE x.document_id = c.doc AND x.id = c.chunk
               AND x.embedding_status <> 'done' AND x.embedding_attempts < tries
               AND coalesce(x.embedding_next_try, '-infinity') <= now()
               AND coalesce(x.lease_until, '-infinity') < now()
               FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            got := got + 1;
        END IF;
    END LOOP;
END
$$;

CREATE FUNCTION kerai._embed_claim(worker text, n integer DEFAULT 32, lease_seconds integer DEFAULT 120)
RETURNS TABLE (id uuid, content text)
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    c record;
BEGIN
    FOR c IN SELECT * FROM kerai._embed_lock(n) LOOP
        UPDATE kerai.chunks x SET leased_by = worker, lease_until = now() + make_interval(secs => lease_seconds)
         WHERE x.document_id = c.document_id AND x.id = c.id;
        id := c.id;
        content := c.content;
        RETURN NEXT;
    END LOOP;
END
$$;

-- Store vectors (pgvector text form) for chunks; worker NULL stores without a lease (the
-- caller holds the rows locked). A vector of the wrong size is refused whole: nothing is
-- half-written. Chunks whose text changed since the claim are left for the next claim.
CREATE FUNCTION kerai._embed_store(worker text, model text, ids uuid[], vectors text[]) RETURNS integer
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    dims integer := (kerai.setting('embedding_dimensions') #>> '{}')::integer;
    want text := kerai.setting('embedding_model') #>> '{}';
    bad integer;
    n integer;
BEGIN
    IF cardinality(ids) IS DISTINCT FROM cardinality(vectors) THEN
        RAISE EXCEPTION 'kerai._embed_store: % chunk ids but % vectors', cardinality(ids), cardinality(vectors)
            USING ERRCODE = '22023';
    END IF;
    IF model IS DISTINCT FROM want THEN
        RAISE EXCEPTION 'kerai._embed_store: vectors from model "%" but the configured model is "%"', model, want
            USING ERRCODE = '22023', HINT = 'restart the fetcher after kerai.configure_embeddings';
    END IF;
    SELECT min(o) INTO bad FROM unnest(vectors) WITH ORDINALITY AS u(v, o) WHERE vector_dims(v::vector) <> dims;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'kerai._embed_store: vector % has % dimensions, the model "%" has %', bad,
            vector_dims(vectors[bad]::vector), want, dims USING ERRCODE = '22023',
            HINT = 'set embedding_dimensions to the model''s size with kerai.configure_embeddings';
    END IF;
    WITH mine AS (
        SELECT c.id, c.document_id, u.v FROM unnest(ids, vectors) AS u(id, v)
          JOIN kerai.chunks c ON c.id = u.id
         WHERE c.embedding_status <> 'done' AND (worker IS NULL OR c.leased_by = worker)
    ), stored AS (
        INSERT INTO kerai.embeddings AS e (chunk_id, document_id, model_name, dimensions, embedding)
        SELECT id, document_id, model, dims, v::vector FROM mine
        ON CONFLICT (document_id, chunk_id) DO UPDATE SET model_name = EXCLUDED.model_name, dimensions = EXCLUDED.dimensions,
               embedding = EXCLUDED.embedding, created_at = EXCLUDED.created_at
        RETURNING e.chunk_id
    )
    UPDATE kerai.chunks c SET embedding_status = 'done', embedding_error = NULL, embedding_next_try = NULL,
           leased_by = NULL, lease_until = NULL
      FROM stored WHERE c.id = stored.chunk_id;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;

-- A failed embedding attempt: retried after 30 s x 2^(attempts - 1), up to
-- embedding_max_attempts; kerai.retry_embeddings() brings them all back.
CREATE FUNCTION kerai._embed_fail(worker text, ids uuid[], error text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    UPDATE kerai.chunks c SET embedding_status = 'failed', embedding_attempts = c.embedding_attempts + 1,
           embedding_error = left(error, 2000),
           embedding_next_try = now() + make_interval(secs => 30 * power(2, c.embedding_attempts)),
           leased_by = NULL, lease_until = NULL
     WHERE c.id = ANY(ids) AND c.embedding_status <> 'done' AND (worker IS NULL OR c.leased_by = worker);
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;

CREATE FUNCTION kerai.retry_embeddings() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    UPDATE kerai.chunks SET embedding_status = 'pending', embedding_attempts = 0, embedding_next_try = NULL,
           leased_by = NULL, lease_until = NULL
     WHERE embedding_status = 'failed';
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;

-- Chunk a document right after it is ingested (site crawls and the citation loop call it),
-- when chunk_on_ingest is on.
CREATE FUNCTION kerai._document_ingested(doc uuid) RETURNS jsonb
LANGUAGE plpgsql AS $$
BEGIN
    IF doc IS NULL OR NOT coalesce((kerai.setting('chunk_on_ingest'))::text::boolean, true) THEN
        RETURN NULL;
    END IF;
    -- The ingest paths know this is the current content (a page may return to an older text).
    RETURN kerai.chunk_document(doc, '{"force": true}');
END
$$;

-- Documents without chunks (ingested before chunking was on, or with parse_markdown alone),
-- the newest of each source URL.
CREATE FUNCTION kerai.chunk_pending(max integer DEFAULT 100) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    d uuid;
    n integer := 0;
BEGIN
    FOR d IN SELECT x.id FROM kerai.nodes x
              WHERE x.kind = 'document'
                AND NOT EXISTS (SELECT 1 FROM kerai.chunks c WHERE c.document_id = x.id)
                AND EXISTS (SELECT 1 FROM kerai.nodes b WHERE b.document_id = x.id AND b.kind <> 'document')
                AND NOT EXISTS (SELECT 1 FROM kerai.nodes newer
                                 WHERE newer.kind = 'document' AND newer.id > x.id
                                   AND newer.metadata->>'source_url' = x.metadata->>'source_url')
                -- nor the last text of a page that became an alias of another (sql/site.sql)
                AND NOT EXISTS (SELECT 1 FROM kerai.pages p
                                 WHERE p.alias_of IS NOT NULL
                                   AND p.id = CASE WHEN x.metadata->>'page_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                                                   THEN (x.metadata->>'page_id')::uuid END)
              ORDER BY x.id LIMIT max LOOP
        PERFORM kerai.chunk_document(d);
        n := n + 1;
    END LOOP;
    RETURN n;
END
$$;

-- ---------------------------------------------------------------- entities and claims

CREATE TABLE kerai.entities (
    id          bigserial,
    document_id uuid NOT NULL,
    chunk_id    uuid NOT NULL,
    text        text NOT NULL,
    kind        text NOT NULL,
    start_char  integer NOT NULL,
    end_char    integer NOT NULL,
    confidence  real NOT NULL,
    PRIMARY KEY (document_id, id),
    FOREIGN KEY (document_id, chunk_id) REFERENCES kerai.chunks (document_id, id) ON DELETE CASCADE
);
COMMENT ON TABLE kerai.entities IS
    'Named entities found by rules in each chunk (organization, person, product, location, date, money, number, '
    'email, url, other), with character offsets into the chunk''s content.';
CREATE INDEX entities_chunk_idx ON kerai.entities (chunk_id);
CREATE INDEX entities_kind_text_idx ON kerai.entities (kind, lower(text));

CREATE TABLE kerai.claims (
    id          bigserial,
    document_id uuid NOT NULL REFERENCES kerai.documents (id) ON DELETE CASCADE,
    chunk_id    uuid,
    statement   text NOT NULL,
    subject     text NOT NULL,
    predicate   text NOT NULL,
    object      text NOT NULL,
    confidence  real NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    source      text NOT NULL CHECK (source IN ('json_ld', 'pattern', 'llm')),
    request_id  uuid,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (document_id, id),
    FOREIGN KEY (document_id, chunk_id) REFERENCES kerai.chunks (document_id, id) ON DELETE CASCADE
);
COMMENT ON TABLE kerai.claims IS
    'Claims (statement, subject / predicate / object, confidence) with their source chunk: from the page''s JSON-LD '
    '(json_ld), from sentence patterns (pattern), or from a chat model (llm, request_id names the logged call).';
CREATE INDEX claims_chunk_idx ON kerai.claims (chunk_id);
CREATE INDEX claims_subject_idx ON kerai.claims (lower(subject));

-- ---------------------------------------------------------------- the AI request log (seed 001)

CREATE TABLE kerai.ai_requests (
    id           uuid PRIMARY KEY DEFAULT kerai.uuid7(),
    user_name    text NOT NULL DEFAULT current_user,
    target_id    uuid REFERENCES kerai.targets (id) ON DELETE SET NULL,
    query        text NOT NULL,
    purpose      text NOT NULL DEFAULT 'answer' CHECK (purpose IN ('answer', 'claims')),
    filters      jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE kerai.ai_requests IS 'What was asked: questions (kerai.answer) and LLM claim extractions.';
CREATE INDEX ai_requests_created_idx ON kerai.ai_requests (created_at);

CREATE TABLE kerai.ai_responses (
    id                uuid NOT NULL DEFAULT kerai.uuid7(),
    request_id        uuid NOT NULL UNIQUE REFERENCES kerai.ai_requests (id) ON DELETE CASCADE,
    response          text NOT NULL,
    model             text NOT NULL,
    mode              text NOT NULL CHECK (mode IN ('extractive', 'llm')),
    prompt_tokens     integer NOT NULL DEFAULT 0,
    completion_tokens integer NOT NULL DEFAULT 0,
    tokens_used       integer GENERATED ALWAYS AS (prompt_tokens + completion_tokens) STORED,
    created_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (request_id, id)
);
COMMENT ON TABLE kerai.ai_responses IS
    'What was answered, by which model (extractive: no model), and the tokens it cost.';

CREATE TABLE kerai.citations (
    id              uuid NOT NULL DEFAULT kerai.uuid7(),
    request_id      uuid NOT NULL,
    response_id     uuid NOT NULL,
    chunk_id        uuid,
    relevance_score numeric(5, 4) NOT NULL,
    citation_order  integer NOT NULL,
    cited_text      text NOT NULL,
    page_version_id uuid,
    source_url      text,
    PRIMARY KEY (request_id, id),
    FOREIGN KEY (request_id, response_id) REFERENCES kerai.ai_responses (request_id, id) ON DELETE CASCADE,
    CONSTRAINT citations_once_per_order UNIQUE (request_id, response_id, citation_order)
);
COMMENT ON TABLE kerai.citations IS
    'The chunks an answer cites, in order. cited_text, page_version_id and source_url keep what was cited even after '
    'a new version of the page replaces the chunk''s text.';
CREATE INDEX citations_response_idx ON kerai.citations (response_id);
CREATE INDEX ai_responses_id_idx ON kerai.ai_responses (id);
CREATE INDEX citations_chunk_idx ON kerai.citations (chunk_id);

-- Record an answer: the request, the response, and its citations (in order, with relevance in
-- 0..1). citations: [{chunk_id, relevance_score, text}], text being what the citation quotes
-- (the chunk's whole text when absent). Returns the request id.
CREATE FUNCTION kerai._record_answer(query text, response text, model text, mode text,
                                     prompt_tokens integer, completion_tokens integer,
                                     citations jsonb, filters jsonb DEFAULT '{}'::jsonb,
                                     purpose text DEFAULT 'answer')
RETURNS uuid
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    req uuid;
    resp uuid;
    -- Before the INSERT: Citus evaluates every function of an INSERT's values, whatever the CASE.
    target uuid := CASE WHEN filters ? 'target' THEN (kerai._target(filters->>'target')).id END;
BEGIN
    INSERT INTO kerai.ai_requests (query, filters, purpose, target_id)
    VALUES (query, coalesce(filters, '{}'::jsonb) - 'query_embedding', purpose, target)
    RETURNING id INTO req;
    INSERT INTO kerai.ai_responses (request_id, response, model, mode, prompt_tokens, completion_tokens)
    VALUES (req, response, model, mode, coalesce(prompt_tokens, 0), coalesce(completion_tokens, 0))
    RETURNING id INTO resp;
    INSERT INTO kerai.citations (response_id, request_id, chunk_id, relevance_score, citation_order, cited_text,
                                 page_version_id, source_url)
    SELECT resp, req, ch.id, round(least(1, greatest(0, (x.c->>'relevance_score')::numeric)), 4), x.o::integer,
           coalesce(x.c->>'text', ch.content), ch.page_version_id, ch.source_url
      FROM jsonb_array_elements(coalesce(citations, '[]'::jsonb)) WITH ORDINALITY AS x(c, o)
      JOIN kerai.chunks ch ON ch.id = (x.c->>'chunk_id')::uuid
    -- There is no conflict (the response is new): ON CONFLICT makes Citus insert the rows with
    -- INSERT, not COPY, which row-level security refuses.
    ON CONFLICT DO NOTHING;
    RETURN req;
END
$$;

-- Claims a chat model extracted from a chunk: validated (kerai.parse_llm_claims) and stored,
-- the call logged as an AI request with its token counts either way, so an invalid answer
-- still shows what it cost. Returns {claims, request} or {claims: 0, request, error}.
CREATE FUNCTION kerai.record_llm_claims(chunk uuid, prompt text, response text, model text,
                                        prompt_tokens integer DEFAULT NULL, completion_tokens integer DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    c kerai.chunks;
    req uuid;
    n integer;
BEGIN
    SELECT * INTO c FROM kerai.chunks x WHERE x.id = chunk;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'kerai.record_llm_claims: there is no chunk %', chunk USING ERRCODE = '22023';
    END IF;
    req := kerai._record_answer(prompt, response, coalesce(model, 'unknown'), 'llm',
                                coalesce(prompt_tokens, kerai.count_tokens(prompt)),
                                coalesce(completion_tokens, kerai.count_tokens(response)),
                                jsonb_build_array(jsonb_build_object('chunk_id', chunk, 'relevance_score', 1)),
                                '{}'::jsonb, 'claims');
    BEGIN
        DELETE FROM kerai.claims x WHERE x.chunk_id = chunk AND x.source = 'llm';
        INSERT INTO kerai.claims (document_id, chunk_id, statement, subject, predicate, object, confidence, source, request_id)
        SELECT c.document_id, chunk, p.statement, p.subject, p.predicate, p.object, p.confidence, 'llm', req
          FROM kerai.parse_llm_claims(response) p;
        GET DIAGNOSTICS n = ROW_COUNT;
    EXCEPTION WHEN invalid_parameter_value THEN
        RETURN jsonb_build_object('claims', 0, 'request', req, 'error', SQLERRM);
    END;
    RETURN jsonb_build_object('claims', n, 'request', req);
END
$$;

-- Chunks no chat model was asked about in their current text, with the prompt to send.
CREATE FUNCTION kerai._llm_claims_todo(n bigint DEFAULT 20) RETURNS TABLE (id uuid, prompt text)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
    domain text := coalesce(kerai.setting('llm_claims_domain') #>> '{}', 'general');
BEGIN
    -- The chunks already asked about first: they are in the requests' group, the chunks in the
    -- documents' (on a distributed database no query joins the two).
    RETURN QUERY
    WITH asked AS MATERIALIZED (
        SELECT ci.chunk_id, ci.cited_text FROM kerai.citations ci
          JOIN kerai.ai_requests q ON q.id = ci.request_id
         WHERE q.purpose = 'claims'
    ), todo AS MATERIALIZED (
        SELECT c.id, c.content, c.created_at FROM kerai.chunks c
          LEFT JOIN asked a ON a.chunk_id = c.id AND a.cited_text = c.content
         WHERE a.chunk_id IS NULL
         ORDER BY c.created_at, c.id
         LIMIT _llm_claims_todo.n
    )
    SELECT t.id, kerai.llm_claims_prompt(domain, t.content) FROM todo t ORDER BY t.created_at, t.id;
END
$$;

-- Claims of one chunk by the configured chat model (kerai._chat does the call).
CREATE FUNCTION kerai.extract_llm_claims(chunk uuid, domain text DEFAULT NULL) RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    c kerai.chunks;
    prompt text;
    a jsonb;
BEGIN
    SELECT * INTO c FROM kerai.chunks x WHERE x.id = chunk;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'kerai.extract_llm_claims: there is no chunk %', chunk USING ERRCODE = '22023';
    END IF;
    prompt := kerai.llm_claims_prompt(coalesce(domain, kerai.setting('llm_claims_domain') #>> '{}', 'general'), c.content);
    a := kerai._chat('You extract factual claims and answer with JSON only.', prompt);
    RETURN kerai.record_llm_claims(chunk, prompt, a->>'text', a->>'model',
                                   (a->>'prompt_tokens')::integer, (a->>'completion_tokens')::integer);
END
$$;

-- ---------------------------------------------------------------- large raw HTML out of line

-- A blob belongs to the target of the versions that keep it, stored once per content within the
-- target: on a distributed database it lives next to them, where their trigger writes it
-- (docs/scale-out.md), and deleting the target deletes it.
CREATE TABLE kerai.blobs (
    uri        text NOT NULL,
    data       bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    target_id  uuid NOT NULL REFERENCES kerai.targets (id) ON DELETE CASCADE,
    PRIMARY KEY (target_id, uri)
);
COMMENT ON TABLE kerai.blobs IS
    'Raw HTML over 1 MB, stored once per content and target (uri = kerai-blob:sha256:<hex>); page_versions keeps '
    'the URI and kerai.html(version) reads either place.';

CREATE FUNCTION kerai._page_html_out_of_line() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    uri text;
    bytes bytea;
BEGIN
    IF NEW.raw_html IS NOT NULL AND octet_length(NEW.raw_html) > 1048576 THEN
        bytes := convert_to(NEW.raw_html, 'UTF8');
        uri := 'kerai-blob:sha256:' || encode(sha256(bytes), 'hex');
        INSERT INTO kerai.blobs (target_id, uri, data) VALUES (NEW.target_id, uri, bytes) ON CONFLICT DO NOTHING;
        NEW.raw_html_uri := uri;
        NEW.raw_html := NULL;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER page_versions_html_out_of_line BEFORE INSERT OR UPDATE OF raw_html ON kerai.page_versions
    FOR EACH ROW EXECUTE FUNCTION kerai._page_html_out_of_line();

-- The raw HTML of a version wherever it is kept: `SELECT kerai.html(v) FROM kerai.page_versions v`
-- (or `v.html` with kerai on the search_path).
CREATE FUNCTION kerai.html(v kerai.page_versions) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
    RETURN coalesce(v.raw_html, (SELECT convert_from(b.data, 'UTF8') FROM kerai.blobs b
                                  WHERE b.target_id = v.target_id AND b.uri = v.raw_html_uri));
END
$$;

-- The same for a row whose type is another table's of the same columns: on Citus a query over
-- kerai.page_versions runs on its shards, whose rows are of the shard's own type
-- (`kerai.page_versions_102008`), so `kerai.html(v)` reaches this one there.
CREATE FUNCTION kerai.html(v anyelement) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
    r jsonb := to_jsonb(v);
BEGIN
    IF jsonb_typeof(r) IS DISTINCT FROM 'object' OR NOT (r ? 'raw_html' AND r ? 'raw_html_uri' AND r ? 'target_id') THEN
        RAISE EXCEPTION 'kerai.html: % is not a row of kerai.page_versions', pg_typeof(v) USING ERRCODE = '42804',
            HINT = 'call it on a page version: SELECT kerai.html(v) FROM kerai.page_versions v WHERE ...';
    END IF;
    RETURN coalesce(r->>'raw_html', (SELECT convert_from(b.data, 'UTF8') FROM kerai.blobs b
                                      WHERE b.target_id = (r->>'target_id')::uuid AND b.uri = r->>'raw_html_uri'));
END
$$;

-- ---------------------------------------------------------------- dashboard

CREATE VIEW kerai.retrieval_overview AS
SELECT (SELECT count(*) FROM kerai.chunks) AS chunks,
       (SELECT count(*) FROM kerai.chunks WHERE embedding_status = 'done') AS embedded,
       (SELECT count(*) FROM kerai.chunks WHERE embedding_status = 'pending') AS pending,
       (SELECT count(*) FROM kerai.chunks WHERE embedding_status = 'failed') AS failed,
       (SELECT count(*) FROM kerai.entities) AS entities,
       (SELECT count(*) FROM kerai.claims) AS claims,
       (SELECT count(*) FROM kerai.ai_requests) AS ai_requests,
       kerai.setting('embedding_provider') #>> '{}' AS embedding_provider,
       kerai.setting('embedding_model') #>> '{}' AS embedding_model;
COMMENT ON VIEW kerai.retrieval_overview IS 'Chunks, embeddings (done / pending / failed), facts and AI requests.';

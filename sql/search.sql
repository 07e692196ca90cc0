-- Hybrid search (full text + vectors, fused by reciprocal rank) and answers with citations.

-- The query's embedding, or NULL (with a notice) when the embedding model is not available.
CREATE FUNCTION kerai._query_embedding(query text) RETURNS vector
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RETURN kerai.embed(query);
EXCEPTION WHEN others THEN
    RAISE NOTICE 'kerai.search: vector search skipped (%); full text only', SQLERRM;
    RETURN NULL;
END
$$;

-- An OR query of the text's lexemes: every word counts, more words rank higher (like BM25),
-- instead of the AND that plainto_tsquery builds.
CREATE FUNCTION kerai._or_query(query text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(string_agg(quote_literal(lexeme), ' | '), '')::tsquery
      FROM unnest(to_tsvector('english', query))
$$;

-- filters: target (name), domain (host, subdomains included), url_prefix, language,
-- source_type, document (uuid), since / until (ISO 8601, on the crawl time), and mode
-- ('hybrid' (default), 'fts' or 'vector').
CREATE FUNCTION kerai.search(query text, k integer DEFAULT 10, filters jsonb DEFAULT '{}'::jsonb)
RETURNS TABLE (chunk_id uuid, content text, score float8, fts_rank integer, vector_rank integer,
               url text, title text, heading_path text[], version_date timestamptz, document_id uuid)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
    mode text := coalesce(filters->>'mode', 'hybrid');
    model text := kerai.setting('embedding_model')#>>'{}';
    dims integer := (kerai.setting('embedding_dimensions'))::text::integer;
    rrf_k float8 := (kerai.setting('search_rrf_k'))::text::float8;
    n integer := greatest(k, (kerai.setting('search_candidates'))::text::integer);
    qv vector;
    tsq tsquery;
    target_id uuid;
    where_sql text := 'true';
BEGIN
    IF query IS NULL OR btrim(query) = '' THEN
        RAISE EXCEPTION 'kerai.search: the query is empty' USING ERRCODE = '22023', HINT = 'pass some words to search for';
    END IF;
    IF k IS NULL OR k < 1 OR k > 1000 THEN
        RAISE EXCEPTION 'kerai.search: k must be between 1 and 1000, not %', k USING ERRCODE = '22023';
    END IF;
    IF jsonb_typeof(filters) <> 'object' THEN
        RAISE EXCEPTION 'kerai.search: filters must be a JSON object' USING ERRCODE = '22023',
            HINT = 'e.g. ''{"domain": "example.org", "language": "en"}''';
    END IF;
    IF mode NOT IN ('hybrid', 'fts', 'vector') THEN
        RAISE EXCEPTION 'kerai.search: mode must be hybrid, fts or vector, not "%"', mode USING ERRCODE = '22023';
    END IF;
    IF filters ? 'target' THEN
        target_id := (kerai._target(filters->>'target')).id;
        where_sql := where_sql || format(' AND c.target_id = %L', target_id);
    END IF;
    IF filters ? 'domain' THEN
        where_sql := where_sql || format(' AND (substring(c.source_url from ''^[a-z]+://([^/:]+)'') = %1$L OR substring(c.source_url from ''^[a-z]+://([^/:]+)'') LIKE ''%%.'' || %1$L)',
                                         lower(filters->>'domain'));
    END IF;
    IF filters ? 'url_prefix' THEN
        where_sql := where_sql || format(' AND c.source_url LIKE %L', replace(replace(filters->>'url_prefix', '%', '\%'), '_', '\_') || '%');
    END IF;
    IF filters ? 'language' THEN
        where_sql := where_sql || format(' AND c.language = %L', filters->>'language');
    END IF;
    IF filters ? 'source_type' THEN
        where_sql := where_sql || format(' AND c.source_type = %L', filters->>'source_type');
    END IF;
    IF filters ? 'document' THEN
        where_sql := where_sql || format(' AND c.document_id = %L', (filters->>'document')::uuid);
    END IF;
    IF filters ? 'since' THEN
        where_sql := where_sql || format(' AND c.crawl_timestamp >= %L', (filters->>'since')::timestamptz);
    END IF;
    IF filters ? 'until' THEN
        where_sql := where_sql || format(' AND c.crawl_timestamp < %L', (filters->>'until')::timestamptz);
    END IF;
    IF mode IN ('hybrid', 'vector') THEN
        qv := kerai._query_embedding(query);
    END IF;
    IF mode IN ('hybrid', 'fts') THEN
        tsq := kerai._or_query(query);
    END IF;
    -- Filtered HNSW scans keep looking until they have enough rows.
    PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);
    PERFORM set_config('hnsw.ef_search', greatest(40, n)::text, true);
    RETURN QUERY EXECUTE format($q$
        WITH fts AS (
            SELECT c.id, row_number() OVER (ORDER BY ts_rank(c.fts, $1) DESC, c.id) AS r
              FROM kerai.chunks c
             WHERE $1 IS NOT NULL AND c.fts @@ $1 AND %1$s
             ORDER BY ts_rank(c.fts, $1) DESC, c.id
             LIMIT $3
        ), vec AS (
            SELECT x.id, row_number() OVER (ORDER BY x.d, x.id) AS r FROM (
                SELECT e.chunk_id AS id, (e.embedding::vector(%2$s)) <=> $2 AS d
                  FROM kerai.embeddings e JOIN kerai.chunks c ON c.id = e.chunk_id
                 WHERE $2 IS NOT NULL AND e.model_name = $4 AND %1$s
                 ORDER BY (e.embedding::vector(%2$s)) <=> $2
                 LIMIT $3) x
        ), fused AS (
            SELECT coalesce(f.id, v.id) AS id,
                   coalesce(1.0 / ($5 + f.r), 0) + coalesce(1.0 / ($5 + v.r), 0) AS s,
                   f.r::integer AS fr, v.r::integer AS vr
              FROM fts f FULL JOIN vec v ON v.id = f.id
        )
        SELECT c.id, c.content, fu.s::float8, fu.fr, fu.vr, c.source_url, c.title, c.heading_path,
               coalesce(pv.scraped_at, c.crawl_timestamp, c.created_at), c.document_id
          FROM fused fu JOIN kerai.chunks c ON c.id = fu.id
          LEFT JOIN kerai.page_versions pv ON pv.id = c.page_version_id
         ORDER BY fu.s DESC, c.id
         LIMIT $6 $q$, where_sql, dims)
    USING tsq, qv, n, model, rrf_k, k;
END
$$;

-- Record an answer: the request, the response, and its citations (in order, with relevance).
-- citations: [{chunk_id, relevance_score}]. Returns the request id.
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
BEGIN
    INSERT INTO kerai.ai_requests (query, filters, purpose, target_id)
    VALUES (query, coalesce(filters, '{}'::jsonb), purpose,
            CASE WHEN filters ? 'target' THEN (kerai._target(filters->>'target')).id END)
    RETURNING id INTO req;
    INSERT INTO kerai.ai_responses (request_id, response, model, mode, prompt_tokens, completion_tokens)
    VALUES (req, response, model, mode, coalesce(prompt_tokens, 0), coalesce(completion_tokens, 0))
    RETURNING id INTO resp;
    INSERT INTO kerai.citations (response_id, chunk_id, relevance_score, citation_order)
    SELECT resp, (c->>'chunk_id')::uuid, round(least(9.9999, greatest(0, (c->>'relevance_score')::numeric)), 4), o::integer
      FROM jsonb_array_elements(coalesce(citations, '[]'::jsonb)) WITH ORDINALITY AS x(c, o);
    RETURN req;
END
$$;

-- Answer a question from the corpus without a language model: the best passages, cited.
-- (`kerai answer` in the CLI uses an OpenAI-compatible chat endpoint when one is configured;
-- the extension itself does no network I/O.) Returns {request, answer, citations}.
CREATE FUNCTION kerai.answer(query text, k integer DEFAULT 3, filters jsonb DEFAULT '{}'::jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_variable
DECLARE
    hits jsonb;
    text_out text;
    req uuid;
    top float8;
BEGIN
    SELECT jsonb_agg(jsonb_build_object('chunk_id', s.chunk_id, 'content', s.content, 'score', s.score,
                                        'url', s.url, 'version_date', s.version_date) ORDER BY s.score DESC)
      INTO hits FROM kerai.search(query, k, filters) s;
    hits := coalesce(hits, '[]'::jsonb);
    top := coalesce((hits->0->>'score')::float8, 1.0);
    IF jsonb_array_length(hits) = 0 THEN
        text_out := 'No passage in the corpus answers this question.';
    ELSE
        SELECT string_agg(format('[%s] %s', o, h->>'content'), E'\n\n' ORDER BY o)
          INTO text_out FROM jsonb_array_elements(hits) WITH ORDINALITY AS x(h, o);
    END IF;
    req := kerai._record_answer(query, text_out, 'extractive', 'extractive', kerai.count_tokens(query),
                                kerai.count_tokens(text_out),
                                (SELECT coalesce(jsonb_agg(jsonb_build_object('chunk_id', h->>'chunk_id',
                                        'relevance_score', (h->>'score')::float8 / top) ORDER BY o), '[]'::jsonb)
                                   FROM jsonb_array_elements(hits) WITH ORDINALITY AS x(h, o)),
                                filters);
    RETURN jsonb_build_object('request', req, 'answer', text_out, 'citations',
        (SELECT coalesce(jsonb_agg(jsonb_build_object('order', o, 'chunk_id', h->>'chunk_id', 'url', h->>'url',
                                                      'version_date', h->>'version_date', 'text', left(h->>'content', 200))
                                   ORDER BY o), '[]'::jsonb)
           FROM jsonb_array_elements(hits) WITH ORDINALITY AS x(h, o)));
END
$$;

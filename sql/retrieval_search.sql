-- Hybrid search (full text + vectors, fused by reciprocal rank) and answers with citations.

-- The query's embedding: the caller's (filters.query_embedding), else the provider's, else
-- NULL with a notice (search then runs on full text alone).
CREATE FUNCTION kerai._query_embedding(query text, filters jsonb) RETURNS vector
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF filters ? 'query_embedding' THEN
        RETURN (filters->'query_embedding')::text::vector;
    END IF;
    IF kerai.setting('embedding_provider') #>> '{}' = 'none' THEN
        RETURN NULL;
    END IF;
    RETURN kerai.embed(query);
EXCEPTION WHEN others THEN
    RAISE NOTICE 'kerai.search: vector search skipped (%); full text only', SQLERRM;
    RETURN NULL;
END
$$;

-- ---------------------------------------------------------------- statistics of distributed chunks

-- The full-text statistics of kerai.chunks once it is distributed (docs/scale-out.md). Each
-- shard keeps its own, on its worker, and the coordinator's planner never reads them, so
-- kerai.refresh_search_statistics merges them here: the most common lexemes and the share of
-- rows holding each, as ANALYZE lists them for one table. One row, or none: on one server
-- kerai._fts_terms reads ANALYZE's own statistics.
CREATE TABLE kerai.search_statistics (
    only_row     boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    row_count    float8 NOT NULL,
    lexemes      text[] NOT NULL,
    frequencies  float8[] NOT NULL,
    unlisted     float8 NOT NULL,
    shards       integer NOT NULL,
    refreshed_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE kerai.search_statistics IS
    'The full-text statistics of a distributed kerai.chunks, merged from its shards by '
    'kerai.refresh_search_statistics: row count, most common lexemes and the share of rows holding each '
    '(unlisted: the share taken for any other). kerai.search weighs query words by them; empty on one server.';

-- One shard's statistics, on its worker (kerai.refresh_search_statistics runs it on every
-- shard), analyzed first when asked or when it grew (as kerai._analyze_grown counts growth).
-- `complete`: ANALYZE read every row and listed every lexeme, so a lexeme it does not list is
-- in none of the shard's rows.
CREATE FUNCTION kerai._shard_search_statistics(shard regclass, analyze_all boolean) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    grown boolean;
    target integer;
    out jsonb;
BEGIN
    SELECT c.reltuples < 100000 AND pg_stat_get_mod_since_analyze(c.oid) > greatest(c.reltuples, 0) + 50
      INTO grown FROM pg_class c WHERE c.oid = shard;
    IF analyze_all OR grown THEN
        EXECUTE format('ANALYZE %s', shard);
    END IF;
    SELECT CASE WHEN a.attstattarget < 0 THEN current_setting('default_statistics_target')::integer
                ELSE a.attstattarget END
      INTO target FROM pg_attribute a WHERE a.attrelid = shard AND a.attname = 'fts';
    SELECT jsonb_build_object(
               'rows', greatest(c.reltuples, 0),
               'lexemes', coalesce(to_jsonb(s.most_common_elems::text::text[]), '[]'),
               'frequencies', coalesce(to_jsonb(s.most_common_elem_freqs), '[]'),
               'complete', c.reltuples >= 0 AND c.reltuples <= 300 * target
                           AND coalesce(cardinality(s.most_common_elems::text::text[]), 0) < 10 * target)
      INTO out
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = 'fts'
     WHERE c.oid = shard;
    RETURN out;
END
$$;

-- The one row of kerai.search_statistics, made or replaced (kerai.refresh_search_statistics,
-- kerai.distribute).
CREATE FUNCTION kerai._store_search_statistics(row_count float8, lexemes text[], frequencies float8[],
                                               unlisted float8, shards integer) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO kerai.search_statistics (row_count, lexemes, frequencies, unlisted, shards)
    VALUES (row_count, lexemes, frequencies, unlisted, shards)
        ON CONFLICT (only_row) DO UPDATE
       SET row_count = EXCLUDED.row_count, lexemes = EXCLUDED.lexemes, frequencies = EXCLUDED.frequencies,
           unlisted = EXCLUDED.unlisted, shards = EXCLUDED.shards, refreshed_at = EXCLUDED.refreshed_at
$$;

-- Merge the shards' statistics into kerai.search_statistics (a distributed kerai.chunks), or
-- on one server ANALYZE kerai.chunks when asked. A lexeme's share is the shards' shares
-- weighted by their rows; a shard that does not list it counts it at half its least listed
-- share, as for one table (none when its list is complete). Keeps the 10,000 most common.
CREATE FUNCTION kerai.refresh_search_statistics(analyze_all boolean DEFAULT false) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    distributed boolean := false;
    failed text;
    result jsonb;
    row_count float8;
    shards integer;
    lexemes text[];
    frequencies float8[];
    unlisted float8;
BEGIN
    IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = ''kerai.chunks''::regclass)'
           INTO distributed;
    END IF;
    IF NOT distributed THEN
        IF analyze_all THEN
            ANALYZE kerai.chunks;
        END IF;
        DELETE FROM kerai.search_statistics;
        RETURN jsonb_build_object('distributed', false, 'analyzed', analyze_all);
    END IF;
    CREATE TEMP TABLE kerai_shard_statistics ON COMMIT DROP AS
    SELECT r.shardid, r.success, r.result
      FROM run_command_on_shards('kerai.chunks',
               'SELECT kerai._shard_search_statistics(''%s'', ' || analyze_all::text || ')') r;
    SELECT string_agg(format('shard %s: %s', x.shardid, x.result), '; ') INTO failed
      FROM kerai_shard_statistics x WHERE NOT x.success;
    IF failed IS NOT NULL THEN
        RAISE EXCEPTION 'kerai.refresh_search_statistics: could not read the statistics of every shard: %', failed
            USING ERRCODE = '55000', HINT = 'check that every worker is up, then call it again';
    END IF;
    CREATE TEMP TABLE kerai_shard_weights ON COMMIT DROP AS
    SELECT s.n, s.lex, s.fr,
           CASE WHEN s.complete OR cardinality(s.lex) = 0 THEN 0 ELSE s.fr[cardinality(s.lex) + 1] / 2 END AS u
      FROM (SELECT (x.result::jsonb->>'rows')::float8 AS n,
                   ARRAY(SELECT jsonb_array_elements_text(x.result::jsonb->'lexemes')) AS lex,
                   ARRAY(SELECT (jsonb_array_elements_text(x.result::jsonb->'frequencies'))::float8) AS fr,
                   (x.result::jsonb->>'complete')::boolean AS complete
              FROM kerai_shard_statistics x) s;
    WITH total AS (
        SELECT sum(w.n) AS n, sum(w.u * w.n) AS un, count(*) AS shards FROM kerai_shard_weights w
    ), merged AS (
        SELECT e.lexeme, (sum((e.f - w.u) * w.n) + max(t.un)) / max(t.n) AS f
          FROM kerai_shard_weights w CROSS JOIN total t
         CROSS JOIN LATERAL unnest(w.lex, w.fr[1:cardinality(w.lex)]) AS e(lexeme, f)
         WHERE t.n > 0
         GROUP BY e.lexeme
         ORDER BY 2 DESC, 1
         LIMIT 10000
    ), agg AS (
        SELECT array_agg(m.lexeme ORDER BY m.f DESC, m.lexeme) AS lexemes,
               array_agg(m.f ORDER BY m.f DESC, m.lexeme) AS frequencies, min(m.f) / 2 AS unlisted
          FROM merged m
    )
    SELECT t.n, t.shards, a.lexemes, a.frequencies, a.unlisted
      INTO row_count, shards, lexemes, frequencies, unlisted
      FROM total t CROSS JOIN agg a;
    IF lexemes IS NULL THEN
        DELETE FROM kerai.search_statistics;
    ELSE
        PERFORM kerai._store_search_statistics(row_count, lexemes, frequencies, unlisted, shards);
    END IF;
    result := jsonb_build_object('distributed', true, 'analyzed', analyze_all, 'shards', shards,
                                 'rows', row_count, 'lexemes', coalesce(cardinality(lexemes), 0));
    DROP TABLE kerai_shard_weights;
    DROP TABLE kerai_shard_statistics;
    RETURN result;
END
$$;

-- The shares kerai._fts_terms weighs the query's lexemes by on a distributed database, from
-- kerai.search_statistics; for a caller who may read the chunks' statistics (as
-- kerai._lexeme_frequencies decides on one server: SELECT on the table, no row-level security
-- applies), else no row.
CREATE FUNCTION kerai._merged_lexeme_frequencies(words text[])
RETURNS TABLE (row_count float8, frequencies float8[])
LANGUAGE sql STABLE AS $$
    SELECT s.row_count,
           ARRAY(SELECT coalesce(s.frequencies[array_position(s.lexemes, w.word)], s.unlisted)
                   FROM unnest(words) WITH ORDINALITY AS w(word, i) ORDER BY w.i)
      FROM kerai.search_statistics s
     WHERE has_table_privilege('kerai.chunks', 'SELECT') AND NOT row_security_active('kerai.chunks')
$$;

-- The query's lexemes with their inverse document frequency, estimated from the statistics
-- ANALYZE keeps for the full-text column (its most common lexemes and their frequencies; a
-- lexeme not among them is rarer than the rarest listed; kerai._lexeme_frequencies). Before
-- the first ANALYZE, or for a caller who may not read the statistics, every lexeme weighs 1.
-- A distributed kerai.chunks has its shards' statistics, merged (kerai.search_statistics).
-- `candidate` marks the rarest lexemes whose estimated matches stay within
-- `search_fts_budget` rows together (the rarest one always): only they select candidate chunks,
-- all of them score. When the rarest lexeme alone matches more than the budget (a query of
-- common words in a large corpus), a candidate must hold it and one of the next rarest too:
-- the rarest is `required`, and the next rarest are candidates while the chunks holding the
-- rarest and any of them, estimated as if words were independent, stay within the budget (the
-- second rarest always). Chunks holding two query words outrank almost all that hold one, and
-- kerai.search falls back to the rarest alone when too few chunks hold two.
CREATE FUNCTION kerai._fts_terms(query text)
RETURNS TABLE (lexeme text, idf float8, df float8, candidate boolean, required boolean)
LANGUAGE sql STABLE AS $$
    WITH q AS (
        SELECT array_agg(t.lexeme) AS lexemes FROM unnest(to_tsvector('english', query)) t
    ), merged AS (
        -- A distributed kerai.chunks: its shards' statistics, merged.
        SELECT m.row_count, m.frequencies FROM q CROSS JOIN kerai._merged_lexeme_frequencies(q.lexemes) m
    ), n AS (
        SELECT coalesce((SELECT m.row_count FROM merged m),
                        greatest(c.reltuples,
                                 coalesce((SELECT sum(greatest(p.reltuples, 0)) FROM pg_inherits i
                                             JOIN pg_class p ON p.oid = i.inhrelid
                                            WHERE i.inhparent = c.oid), 0)))::float8 AS n
          FROM pg_class c WHERE c.oid = 'kerai.chunks'::regclass
    ), w AS (
        SELECT x.lexeme, n.n AS n, n.n * x.freq AS df,
               CASE WHEN x.freq IS NULL OR n.n < 1 THEN 1.0
                    ELSE ln(1 + (n.n - n.n * x.freq + 0.5) / (n.n * x.freq + 0.5)) END AS idf
          FROM q CROSS JOIN n
          CROSS JOIN LATERAL unnest(q.lexemes, coalesce((SELECT m.frequencies FROM merged m),
                                                        kerai._lexeme_frequencies('kerai.chunks'::regclass, 'fts', q.lexemes)))
                     AS x(lexeme, freq)
    ), f AS (
        SELECT w.*, first_value(w.lexeme) OVER rarest AS lex1, first_value(w.df) OVER rarest AS df1,
               (kerai.setting('search_fts_budget') #>> '{}')::float8 AS budget
          FROM w
        WINDOW rarest AS (ORDER BY w.df NULLS FIRST, w.lexeme)
    ), p AS (
        -- A hyphenated word brings its parts ("N-terminal": n-termin, n, termin), which every
        -- chunk holding it holds too: they are not a second word.
        SELECT f.*, f.lexeme <> f.lex1 AND f.lex1 LIKE '%-%'
                    AND f.lexeme = ANY (tsvector_to_array(to_tsvector('english', replace(f.lex1, '-', ' ')))) AS part
          FROM f
    ), r AS (
        SELECT p.*, row_number() OVER rarest AS i, coalesce(sum(p.df) OVER rarest, 0) AS cum,
               row_number() OVER others AS j, coalesce(sum(p.df) OVER others, 0) AS cum_others,
               count(*) FILTER (WHERE p.lexeme <> p.lex1 AND NOT p.part) OVER () AS other_words
          FROM p
        WINDOW rarest AS (ORDER BY p.df NULLS FIRST, p.lexeme ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
               others AS (PARTITION BY p.lexeme = p.lex1 OR p.part
                          ORDER BY p.df NULLS FIRST, p.lexeme ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
    ), m AS (
        SELECT r.*, coalesce(r.df1 > r.budget, false) AND r.other_words > 0 AS pairs, r.lexeme = r.lex1 OR r.part AS own FROM r
    )
    SELECT m.lexeme, m.idf, m.df,
           CASE WHEN m.pairs THEN m.i = 1 OR (NOT m.own AND (m.j = 1 OR m.df1 * m.cum_others / greatest(m.n, 1) <= m.budget))
                ELSE m.cum <= m.budget OR m.i = 1 END,
           m.pairs AND m.i = 1
      FROM m
$$;

-- The WHERE clause (on chunks c) of search filters; errors name a bad filter.
CREATE FUNCTION kerai._search_where(filters jsonb) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    w text := 'true';
    k text;
BEGIN
    IF filters IS NULL THEN
        RETURN w;
    END IF;
    IF jsonb_typeof(filters) <> 'object' THEN
        RAISE EXCEPTION 'kerai.search: filters must be a JSON object, not %', filters USING ERRCODE = '22023',
            HINT = 'e.g. ''{"domain": "example.org", "language": "en"}''';
    END IF;
    FOR k IN SELECT jsonb_object_keys(filters) LOOP
        IF k NOT IN ('target', 'domain', 'url_prefix', 'language', 'source_type', 'document', 'since', 'until',
                     'mode', 'query_embedding') THEN
            RAISE EXCEPTION 'kerai.search: unknown filter "%"', k USING ERRCODE = '22023',
                HINT = 'filters are target, domain, url_prefix, language, source_type, document, since, until, mode and query_embedding';
        END IF;
    END LOOP;
    IF filters ? 'target' THEN
        w := w || format(' AND c.target_id = %L', (kerai._target(filters->>'target')).id);
    END IF;
    IF filters ? 'domain' THEN
        w := w || format(' AND (substring(c.source_url from ''^[a-z][a-z0-9+.-]*://([^/:?#]+)'') = %1$L'
                         ' OR substring(c.source_url from ''^[a-z][a-z0-9+.-]*://([^/:?#]+)'') LIKE %2$L)',
                         lower(filters->>'domain'), '%.' || lower(filters->>'domain'));
    END IF;
    IF filters ? 'url_prefix' THEN
        w := w || format(' AND c.source_url LIKE %L',
                         replace(replace(replace(filters->>'url_prefix', '\', '\\'), '%', '\%'), '_', '\_') || '%');
    END IF;
    IF filters ? 'language' THEN
        w := w || format(' AND c.language = %L', filters->>'language');
    END IF;
    IF filters ? 'source_type' THEN
        w := w || format(' AND c.source_type = %L', filters->>'source_type');
    END IF;
    IF filters ? 'document' THEN
        BEGIN
            w := w || format(' AND c.document_id = %L', (filters->>'document')::uuid);
        EXCEPTION WHEN invalid_text_representation THEN
            RAISE EXCEPTION 'kerai.search: filter document must be a uuid, not "%"', filters->>'document' USING ERRCODE = '22023';
        END;
    END IF;
    FOR k IN SELECT unnest(ARRAY['since', 'until']) LOOP
        IF filters ? k THEN
            BEGIN
                w := w || format(' AND coalesce(c.crawl_timestamp, c.created_at) %s %L',
                                 CASE k WHEN 'since' THEN '>=' ELSE '<' END, (filters->>k)::timestamptz);
            EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow THEN
                RAISE EXCEPTION 'kerai.search: filter % must be an ISO 8601 date or time, not "%"', k, filters->>k
                    USING ERRCODE = '22023';
            END;
        END IF;
    END LOOP;
    RETURN w;
END
$$;

-- filters: target (name), domain (host, subdomains included), url_prefix, language,
-- source_type, document (uuid), since / until (ISO 8601, on the crawl time), mode ('hybrid'
-- (default), 'fts' or 'vector') and query_embedding (a vector as a JSON array, when the caller
-- embedded the query itself).
CREATE FUNCTION kerai.search(query text, k integer DEFAULT 10, filters jsonb DEFAULT '{}'::jsonb)
RETURNS TABLE (chunk_id uuid, content text, score float8, fts_rank integer, vector_rank integer,
               url text, title text, heading_path text[], version_date timestamptz, document_id uuid)
-- Compiling a search's query with JIT took longer (30 to 60 ms at a million chunks) than running it.
LANGUAGE plpgsql VOLATILE SET jit = off AS $$
#variable_conflict use_column
DECLARE
    allowed boolean := kerai._require('kerai_reader', 'kerai.search');
    mode text := coalesce(filters->>'mode', 'hybrid');
    model text := kerai.setting('embedding_model') #>> '{}';
    dims integer := (kerai.setting('embedding_dimensions') #>> '{}')::integer;
    rrf_k float8 := (kerai.setting('search_rrf_k') #>> '{}')::float8;
    n integer;
    qv vector;
    tsq tsquery;
    rarest tsquery;
    fts_ids uuid[];
    fts_sql text;
    term_lexemes text[];
    term_idfs float8[];
    where_sql text;
BEGIN
    IF query IS NULL OR btrim(query) = '' THEN
        RAISE EXCEPTION 'kerai.search: the query is empty' USING ERRCODE = '22023', HINT = 'pass some words to search for';
    END IF;
    IF k IS NULL OR k < 1 OR k > 1000 THEN
        RAISE EXCEPTION 'kerai.search: k must be between 1 and 1000, not %', coalesce(k::text, 'NULL') USING ERRCODE = '22023';
    END IF;
    IF mode NOT IN ('hybrid', 'fts', 'vector') THEN
        RAISE EXCEPTION 'kerai.search: mode must be hybrid, fts or vector, not "%"', mode USING ERRCODE = '22023';
    END IF;
    where_sql := kerai._search_where(filters);
    -- Twice k at least: the same text at several URLs is returned once, and the candidates
    -- must still hold k distinct texts.
    n := greatest(2 * k, (kerai.setting('search_candidates') #>> '{}')::integer);
    IF mode IN ('hybrid', 'vector') THEN
        qv := kerai._query_embedding(query, coalesce(filters, '{}'::jsonb));
        IF qv IS NOT NULL AND vector_dims(qv) <> dims THEN
            RAISE EXCEPTION 'kerai.search: the query vector has % dimensions, the model "%" has %', vector_dims(qv), model, dims
                USING ERRCODE = '22023';
        END IF;
    END IF;
    IF mode IN ('hybrid', 'fts') THEN
        SELECT CASE WHEN bool_or(t.required)
                    THEN string_agg(quote_literal(t.lexeme), '') FILTER (WHERE t.required) || ' & ('
                         || string_agg(quote_literal(t.lexeme), ' | ') FILTER (WHERE t.candidate AND NOT t.required) || ')'
                    ELSE string_agg(quote_literal(t.lexeme), ' | ') FILTER (WHERE t.candidate) END::tsquery,
               string_agg(quote_literal(t.lexeme), '') FILTER (WHERE t.required)::tsquery,
               array_agg(t.lexeme), array_agg(t.idf)
          INTO tsq, rarest, term_lexemes, term_idfs
          FROM kerai._fts_terms(query) t;
        -- The full-text half's candidates, best first.
        fts_sql := format($q$
            SELECT array_agg(x.id ORDER BY x.r DESC, x.h, x.id) FROM (
                SELECT c.id, kerai._fts_score(c.fts, $2, $3) AS r, c.content_hash AS h
                  FROM kerai.chunks c
                 WHERE c.fts @@ $1 AND %s
                 ORDER BY 2 DESC, c.content_hash, c.id
                 LIMIT $4) x $q$, where_sql);
        IF tsq IS NOT NULL THEN
            EXECUTE fts_sql INTO fts_ids USING tsq, term_lexemes, term_idfs, n;
            -- Too few chunks hold two of the words: rank those holding the rarest.
            IF rarest IS NOT NULL AND coalesce(cardinality(fts_ids), 0) < n THEN
                EXECUTE fts_sql INTO fts_ids USING rarest, term_lexemes, term_idfs, n;
            END IF;
        END IF;
    END IF;
    -- Filtered HNSW scans keep looking until they have enough rows.
    PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);
    PERFORM set_config('hnsw.ef_search', least(1000, greatest(40, n))::text, true);
    RETURN QUERY EXECUTE format($q$
        WITH fts AS (
            SELECT u.id, u.r FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, r)
        ), vec AS (
            SELECT x.id, row_number() OVER (ORDER BY x.d, x.h, x.id) AS r FROM (
                SELECT e.chunk_id AS id, (e.embedding::vector(%2$s)) <=> $2 AS d, c.content_hash AS h
                  FROM kerai.embeddings e JOIN kerai.chunks c ON c.document_id = e.document_id AND c.id = e.chunk_id
                 WHERE $2 IS NOT NULL AND e.model_name = %3$L AND %1$s
                 ORDER BY (e.embedding::vector(%2$s)) <=> $2
                 LIMIT $3) x
        ), fused AS MATERIALIZED (
            SELECT coalesce(f.id, v.id) AS id,
                   coalesce(1.0 / ($4 + f.r), 0) + coalesce(1.0 / ($4 + v.r), 0) AS s,
                   f.r::integer AS fr, v.r::integer AS vr
              FROM fts f FULL JOIN vec v ON v.id = f.id
        ), hit AS MATERIALIZED (
            SELECT c.id, c.content, c.content_hash, c.source_url, c.title, c.heading_path, c.crawl_timestamp,
                   c.created_at, c.page_version_id, c.document_id
              FROM kerai.chunks c WHERE c.id IN (SELECT fu.id FROM fused fu)
        ), version AS MATERIALIZED (
            -- Apart from the chunks: a page's versions are in its target's shard.
            SELECT pv.id, pv.scraped_at FROM kerai.page_versions pv
             WHERE pv.id IN (SELECT h.page_version_id FROM hit h)
        )
        -- The same text (the same chunk hash, as on two URLs of one page or in two copies of
        -- a work) is returned once, at its best place. Equal scores (full-text rank 2 and vector rank 3
        -- against the reverse) go to the better full-text rank, and equal full-text scores or
        -- distances to the text's hash, so the order does not depend on random ids or on the
        -- order in which a crawl stored the pages.
        SELECT d.id, d.content, d.s, d.fr, d.vr, d.source_url, d.title, d.heading_path, d.version_date, d.document_id
          FROM (SELECT DISTINCT ON (c.content_hash)
                       c.id, c.content_hash, c.content, fu.s::float8 AS s, fu.fr, fu.vr, c.source_url, c.title, c.heading_path,
                       coalesce(pv.scraped_at, c.crawl_timestamp, c.created_at) AS version_date, c.document_id
                  FROM fused fu JOIN hit c ON c.id = fu.id
                  LEFT JOIN version pv ON pv.id = c.page_version_id
                 ORDER BY c.content_hash, fu.s DESC, c.id) d
         ORDER BY d.s DESC, d.fr NULLS LAST, d.vr NULLS LAST, d.content_hash, d.id
         LIMIT $5 $q$, where_sql, dims, model)
    USING fts_ids, qv, n, rrf_k, k;
END
$$;

-- The prompt kerai.answer sends a chat model: the question and the numbered passages.
CREATE FUNCTION kerai._answer_prompt(query text, hits jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT 'Question: ' || query || E'\n\nPassages:\n\n'
        || coalesce(string_agg(format('[%s] (%s) %s', o, coalesce(h->>'url', 'no url'), h->>'content'), E'\n\n' ORDER BY o), '')
        || E'\n\nAnswer the question using only these passages. Cite each passage you use as [n]. '
        || 'If the passages do not answer the question, say so.'
      FROM jsonb_array_elements(hits) WITH ORDINALITY AS x(h, o)
$$;

-- The passages an answer cites: the search's best `k` (answer_passages by default), best first,
-- as [{chunk_id, content, score, url, version_date}].
CREATE FUNCTION kerai._answer_passages(query text, k integer, filters jsonb) RETURNS jsonb
LANGUAGE sql VOLATILE AS $$
    -- In kerai.search's order, which settles equal scores by the full-text rank (not by the
    -- random chunk ids).
    SELECT coalesce(jsonb_agg(jsonb_build_object('chunk_id', s.chunk_id, 'content', s.content, 'score', s.score,
                                                 'url', s.url, 'version_date', s.version_date,
                                                 'headings', concat_ws(E'\n', s.title,
                                                                       array_to_string(s.heading_path, E'\n')))
                              ORDER BY s.i), '[]'::jsonb)
      FROM kerai.search(query, coalesce(k, (kerai.setting('answer_passages') #>> '{}')::integer), filters)
           WITH ORDINALITY AS s(chunk_id, content, score, fts_rank, vector_rank, url, title, heading_path,
                                version_date, document_id, i)
$$;

-- Log an answer built from `hits` (kerai._answer_passages): the request, the response with its
-- token counts, the citations with their relevance to the best passage. Returns what
-- kerai.answer returns (kerai answer, with a chat model, calls it too). The citations are the
-- passages the text cites as [n] (or [n, m]), keeping their numbers, so every number in the
-- text is in the list and the list holds no passage the text does not cite; a text that cites
-- no passage it was given lists them all. Each quotes its hit's `span` (the paragraphs that
-- answered), or else a clean span of its passage; the passage as it is when it has none.
CREATE FUNCTION kerai._answer_result(query text, hits jsonb, answer text, model text, mode text,
                                     prompt_tokens integer, completion_tokens integer, filters jsonb)
RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    top float8 := coalesce(nullif((hits->0->>'score')::float8, 0), 1.0);
    cited integer[] := ARRAY(
        SELECT DISTINCT n::integer
          FROM regexp_matches(coalesce(answer, ''), '\[(\d{1,6}(?:\s*[,;]\s*\d{1,6})*)\]', 'g') m,
               regexp_split_to_table(m[1], '\s*[,;]\s*') n
         WHERE n::integer BETWEEN 1 AND jsonb_array_length(hits));
    cites jsonb;
    req uuid;
    spans jsonb;
    contents text[];
    headings text[];
BEGIN
    -- What each citation quotes: a clean span of its passage (kerai._answer_spans), for the
    -- passages that come without one (a chat answer, the CLI's chat path).
    IF jsonb_array_length(hits) > 0 AND EXISTS (SELECT 1 FROM jsonb_array_elements(hits) h WHERE NOT h ? 'span') THEN
        SELECT array_agg(h->>'content' ORDER BY o), array_agg(h->>'headings' ORDER BY o)
          INTO contents, headings
          FROM jsonb_array_elements(hits) WITH ORDINALITY AS x(h, o);
        spans := kerai._answer_spans(query, contents, 0, headings)->'spans';
        hits := (SELECT jsonb_agg(CASE WHEN h ? 'span' THEN h ELSE h || jsonb_build_object('span', spans->>(o::integer - 1)) END
                                  ORDER BY o)
                   FROM jsonb_array_elements(hits) WITH ORDINALITY AS x(h, o));
    END IF;
    SELECT coalesce(jsonb_agg(jsonb_build_object('order', o, 'chunk_id', h->>'chunk_id', 'url', h->>'url',
                                                 'version_date', h->>'version_date',
                                                 'text', coalesce(nullif(btrim(h->>'span'), ''), h->>'content'),
                                                 'relevance', round(((h->>'score')::float8 / top)::numeric, 4))
                              ORDER BY o), '[]'::jsonb)
      INTO cites FROM jsonb_array_elements(hits) WITH ORDINALITY AS x(h, o)
     WHERE cardinality(cited) = 0 OR o = ANY (cited);
    req := kerai._record_answer(query, answer, model, mode, prompt_tokens, completion_tokens,
                                (SELECT coalesce(jsonb_agg(jsonb_build_object('chunk_id', c->>'chunk_id',
                                                                              'relevance_score', c->'relevance',
                                                                              'text', c->>'text')
                                                           ORDER BY (c->>'order')::integer), '[]'::jsonb)
                                   FROM jsonb_array_elements(cites) c),
                                filters);
    RETURN jsonb_build_object('request', req, 'answer', answer, 'mode', mode, 'model', model,
                              'prompt_tokens', prompt_tokens, 'completion_tokens', completion_tokens,
                              'citations', cites);
END
$$;

-- Answer a question from the corpus: the best passages, then a chat model's answer citing them
-- when one is configured (kerai.configure_chat), else the sentences of those passages that
-- answer best, each marked with its passage (extractive).
-- Logs the request, the response (with token counts) and the citations. Returns
-- {request, answer, mode, model, citations: [{order, chunk_id, url, version_date, text, relevance}]}.
CREATE FUNCTION kerai.answer(query text, k integer DEFAULT NULL, filters jsonb DEFAULT '{}'::jsonb) RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_reader', 'kerai.answer');
    hits jsonb := kerai._answer_passages(query, k, filters);
    chat jsonb;
    picked jsonb;
    text_out text;
    contents text[];
    headings text[];
BEGIN
    IF jsonb_array_length(hits) = 0 THEN
        RETURN kerai._answer_result(query, hits, 'No passage in the corpus answers this question.', 'extractive',
                                    'extractive', kerai.count_tokens(query), 0, filters);
    END IF;
    IF coalesce(kerai.setting('chat_base_url') #>> '{}', '') <> '' THEN
        chat := kerai._chat('You answer questions from the passages given, citing them as [n].',
                            kerai._answer_prompt(query, hits));
        RETURN kerai._answer_result(query, hits, chat->>'text', chat->>'model', 'llm',
                                    (chat->>'prompt_tokens')::integer, (chat->>'completion_tokens')::integer, filters);
    END IF;
    -- The sentences that answer best, marked with their passage, and what each citation quotes
    -- (kerai._answer_spans: the paragraphs that answered); else the best passage's clean text.
    SELECT array_agg(h->>'content' ORDER BY o), array_agg(h->>'headings' ORDER BY o)
      INTO contents, headings
      FROM jsonb_array_elements(hits) WITH ORDINALITY AS x(h, o);
    picked := kerai._answer_spans(query, contents, 3, headings);
    hits := (SELECT jsonb_agg(h || jsonb_build_object('span', picked->'spans'->>(o::integer - 1)) ORDER BY o)
               FROM jsonb_array_elements(hits) WITH ORDINALITY AS x(h, o));
    text_out := coalesce(picked->>'answer',
                         left(coalesce(nullif(btrim(hits->0->>'span'), ''), hits->0->>'content'), 600) || ' [1]');
    RETURN kerai._answer_result(query, hits, text_out, 'extractive', 'extractive', kerai.count_tokens(query),
                                kerai.count_tokens(text_out), filters);
END
$$;

-- The seed's full citation query, as a view over the log: one row per citation.
-- The page URL and fetch time of a cited version, as the caller may see it. The version is in
-- its target's group, not the request's (docs/scale-out.md): read on its own, for each row.
CREATE FUNCTION kerai._cited_version(version uuid, OUT url text, OUT scraped_at timestamptz)
LANGUAGE plpgsql STABLE PARALLEL SAFE SET citus.allow_nested_distributed_execution = on AS $$
BEGIN
    SELECT p.url, pv.scraped_at INTO url, scraped_at
      FROM kerai.page_versions pv JOIN kerai.pages p ON p.target_id = pv.target_id AND p.id = pv.page_id
     WHERE pv.id = version;
END
$$;

CREATE VIEW kerai.answer_citations AS
SELECT ar.id AS request_id, ar.query, resp.response, cit.citation_order, cit.cited_text, cit.relevance_score,
       coalesce(v.url, cit.source_url) AS source_url, v.scraped_at AS version_date, cit.page_version_id AS version_id,
       cit.chunk_id, ar.created_at AS asked_at
  FROM kerai.ai_requests ar
  JOIN kerai.ai_responses resp ON resp.request_id = ar.id
  JOIN kerai.citations cit ON cit.request_id = resp.request_id AND cit.response_id = resp.id
  LEFT JOIN LATERAL kerai._cited_version(cit.page_version_id) v ON true;
COMMENT ON VIEW kerai.answer_citations IS
    'What each answer cited, in order, with the page version it came from (the seed''s full citation query).';

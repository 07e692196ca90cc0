-- Reference extraction: citations hit in a document's text become deduplicated reference
-- nodes, linked from the citing nodes by cites edges.

-- cite_count is the number of cites edges into a reference (the nodes citing it). A reference
-- is another document than the ones citing it, so the edges' triggers do not update it: on a
-- distributed database it can live on another machine, which Citus does not let a trigger on a
-- shard reach (docs/scale-out.md). They note the references whose cites edges changed in
-- kerai.cite_count_queue, next to the citing document, and kerai._recount_cites counts those
-- references' edges again: kerai.extract_references and kerai._delete_documents for their own
-- documents as they go, kerai.crawl_cycle for the rest (edges written or deleted by hand). A
-- recount is exact whatever happened before it (a restore that brings back the edges and the
-- counts both counts nothing twice).
CREATE TABLE kerai.cite_count_queue (
    document_id  uuid NOT NULL,
    reference_id uuid NOT NULL,
    PRIMARY KEY (document_id, reference_id)
);
COMMENT ON TABLE kerai.cite_count_queue IS
    'References whose cites edges a document gained or lost, to count again (kerai._recount_cites); next to the '
    'citing document.';

CREATE FUNCTION kerai._count_cites() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    docs uuid[];
    refs uuid[];
BEGIN
    -- One plain insert per pair (see kerai._add_deltas for why).
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(document_id), array_agg(target_id) INTO docs, refs
          FROM (SELECT DISTINCT document_id, target_id FROM new_rows WHERE relation = 'cites') x;
    ELSE
        SELECT array_agg(document_id), array_agg(target_id) INTO docs, refs
          FROM (SELECT DISTINCT document_id, target_id FROM old_rows WHERE relation = 'cites') x;
    END IF;
    FOR i IN 1 .. coalesce(cardinality(refs), 0) LOOP
        INSERT INTO kerai.cite_count_queue (document_id, reference_id) VALUES (docs[i], refs[i])
        ON CONFLICT DO NOTHING;
    END LOOP;
    RETURN NULL;
END
$$;
CREATE TRIGGER edges_count_cites_insert AFTER INSERT ON kerai.edges
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kerai._count_cites();
CREATE TRIGGER edges_count_cites_delete AFTER DELETE ON kerai.edges
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kerai._count_cites();

-- Count again the cites edges into the references queued by the given citing documents (all
-- queued references when NULL), and mark the ones whose count changed for rescoring. Returns
-- how many counts changed.
CREATE FUNCTION kerai._recount_cites(docs uuid[] DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    refs uuid[];
    ref uuid;
    ids uuid[];
    counts integer[];
    changed integer;
BEGIN
    WITH due AS (
        DELETE FROM kerai.cite_count_queue q WHERE docs IS NULL OR q.document_id = ANY (docs)
        RETURNING q.reference_id
    )
    SELECT array_agg(DISTINCT reference_id ORDER BY reference_id) INTO refs FROM due;
    IF refs IS NULL THEN
        RETURN 0;
    END IF;
    -- Each reference's row locked first, in one order, and its edges counted after: a writer
    -- that counted the same reference waits here until it commits, so its edges are counted
    -- too (an absolute count from an older snapshot would drop them). One key at a time: a
    -- distributed database locks rows by key only.
    FOREACH ref IN ARRAY refs LOOP
        PERFORM 1 FROM kerai.reference_state rs WHERE rs.node_id = ref FOR UPDATE;
    END LOOP;
    SELECT array_agg(r.id ORDER BY r.id), array_agg(coalesce(c.n, 0)::integer ORDER BY r.id) INTO ids, counts
      FROM unnest(refs) AS r(id)
      LEFT JOIN (SELECT e.target_id, count(*) AS n FROM kerai.edges e
                  WHERE e.relation = 'cites' AND e.target_id = ANY (refs) GROUP BY e.target_id) c
        ON c.target_id = r.id;
    UPDATE kerai.reference_state rs SET cite_count = u.n, score_dirty = true
      FROM unnest(ids, counts) AS u(id, n)
     WHERE rs.node_id = u.id AND rs.cite_count <> u.n;
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$$;

-- A URL in kerai's normal form (kerai.normalize_url), and the same with or without a trailing
-- slash when it has a path and no query: the forms one page is cited in. NULL for NULL; a
-- string that is not an http(s) URL is kept as it is. (plpgsql: normalize_url is a Rust
-- function made after this file.)
CREATE FUNCTION kerai._url_variants(url text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    n text;
BEGIN
    IF url IS NULL OR btrim(url) = '' THEN
        RETURN NULL;
    END IF;
    n := coalesce(kerai.normalize_url(btrim(url)), btrim(url));
    IF n !~ '^https?://[^/]+/.+' OR position('?' IN n) > 0 THEN
        RETURN ARRAY[n];
    ELSIF right(n, 1) = '/' THEN
        RETURN ARRAY[n, left(n, -1)];
    END IF;
    RETURN ARRAY[n, n || '/'];
END
$$;

-- Find the reference a citation denotes, or make it. Lookup order: DOI, arXiv id, normalised
-- URL (kerai._url_variants: fragment, default port, tracking parameters, case of scheme and
-- host, trailing slash do not matter), title (trigram similarity >= 0.8, same year when both
-- have one), author-year key, concept term. A match learns what the new citation knows and
-- takes the shallower chain.
CREATE FUNCTION kerai._upsert_reference(
    ref_type text, content text, fields jsonb, seen_in uuid, depth integer, root uuid
) RETURNS uuid
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    v_doi   text := nullif(lower(btrim(fields->>'doi')), '');
    v_arxiv text := nullif(btrim(fields->>'arxiv'), '');
    v_urls  text[] := kerai._url_variants(fields->>'url');
    v_url   text := v_urls[1];
    v_ay    text := nullif(fields->>'ay_key', '');
    v_title text := nullif(kerai.normalize_title(coalesce(fields->>'title', CASE WHEN ref_type = 'concept' THEN content END)), '');
    v_year  integer := CASE WHEN fields->>'year' ~ '^\d{4}$' THEN (fields->>'year')::integer END;
    v_first text := nullif(kerai.family_key(coalesce(fields->'authors'->0->>'family', fields->'authors'->>0, '')), '');
    hit   uuid;
    had_doi   text;
    had_arxiv text;
    new_doi   text;
    new_arxiv text;
BEGIN
    FOR attempt IN 1..3 LOOP
        hit := NULL;
        IF v_doi IS NOT NULL THEN
            SELECT k.node_id INTO hit FROM kerai.reference_keys k WHERE k.key = 'doi:' || v_doi;
        END IF;
        IF hit IS NULL AND v_arxiv IS NOT NULL THEN
            SELECT k.node_id INTO hit FROM kerai.reference_keys k WHERE k.key = 'arxiv:' || v_arxiv;
        END IF;
        IF hit IS NOT NULL AND NOT EXISTS (SELECT 1 FROM kerai.reference_state rs WHERE rs.node_id = hit) THEN
            -- The keys of a reference deleted by hand (not by kerai) name nothing.
            DELETE FROM kerai.reference_keys k WHERE k.node_id = hit;
            hit := NULL;
        END IF;
        IF hit IS NULL AND v_url IS NOT NULL THEN
            SELECT rs.node_id INTO hit FROM kerai.reference_state rs WHERE rs.url = ANY (v_urls)
             ORDER BY rs.created_at LIMIT 1;
        END IF;
        IF hit IS NULL AND v_title IS NOT NULL AND ref_type = 'concept' THEN
            SELECT rs.node_id INTO hit FROM kerai.reference_state rs
             WHERE rs.ref_type = 'concept' AND rs.title_norm = v_title LIMIT 1;
        ELSIF hit IS NULL AND v_title IS NOT NULL AND length(v_title) >= 12 THEN
            SELECT rs.node_id INTO hit FROM kerai.reference_state rs
             WHERE rs.ref_type <> 'concept' AND rs.title_norm % v_title
               AND similarity(rs.title_norm, v_title) >= 0.8
               AND (v_year IS NULL OR rs.year IS NULL OR rs.year = v_year)
             ORDER BY similarity(rs.title_norm, v_title) DESC LIMIT 1;
        END IF;
        IF hit IS NULL AND v_ay IS NOT NULL THEN
            SELECT rs.node_id INTO hit FROM kerai.reference_state rs WHERE rs.ay_key = v_ay
             ORDER BY (rs.doi IS NOT NULL) DESC, (rs.title_norm IS NOT NULL) DESC, rs.created_at LIMIT 1;
        END IF;

        IF hit IS NOT NULL THEN
            -- It learns a DOI or arXiv id that no other reference has.
            SELECT rs.doi, rs.arxiv INTO had_doi, had_arxiv FROM kerai.reference_state rs WHERE rs.node_id = hit;
            new_doi := NULL;
            new_arxiv := NULL;
            IF had_doi IS NULL AND v_doi IS NOT NULL THEN
                INSERT INTO kerai.reference_keys (key, node_id) VALUES ('doi:' || v_doi, hit) ON CONFLICT (key) DO NOTHING;
                new_doi := CASE WHEN FOUND THEN v_doi END;
            END IF;
            IF had_arxiv IS NULL AND v_arxiv IS NOT NULL THEN
                INSERT INTO kerai.reference_keys (key, node_id) VALUES ('arxiv:' || v_arxiv, hit) ON CONFLICT (key) DO NOTHING;
                new_arxiv := CASE WHEN FOUND THEN v_arxiv END;
            END IF;
            UPDATE kerai.reference_state rs SET
                doi = coalesce(rs.doi, new_doi),
                arxiv = coalesce(rs.arxiv, new_arxiv),
                url = coalesce(rs.url, v_url),
                ay_key = coalesce(rs.ay_key, v_ay),
                title_norm = coalesce(rs.title_norm, v_title),
                year = coalesce(rs.year, v_year),
                first_author = coalesce(rs.first_author, v_first),
                ref_type = CASE WHEN rs.ref_type = 'author_year' AND ref_type = 'bibliography' THEN 'bibliography' ELSE rs.ref_type END,
                chain_root = CASE WHEN depth < rs.chain_depth THEN root ELSE rs.chain_root END,
                chain_depth = least(rs.chain_depth, depth),
                updated_at = now()
             WHERE rs.node_id = hit;
            -- A bibliography entry is a fuller description than an in-text callout.
            IF ref_type = 'bibliography' THEN
                UPDATE kerai.nodes n SET content = content, metadata = n.metadata || fields || jsonb_build_object('ref_type', 'bibliography')
                 WHERE n.id = hit AND n.metadata->>'ref_type' = 'author_year';
            END IF;
            RETURN hit;
        END IF;

        BEGIN
            -- A reference is its own document (docs/scale-out.md).
            hit := kerai.uuid7();
            INSERT INTO kerai.documents (id) VALUES (hit);
            INSERT INTO kerai.nodes (id, kind, content, document_id, metadata)
            VALUES (hit, 'reference', content, hit,
                    jsonb_strip_nulls(fields || jsonb_build_object('ref_type', ref_type, 'first_seen_in', seen_in)));
            -- A DOI or arXiv id another session took at the same moment is a unique violation.
            INSERT INTO kerai.reference_keys (key, node_id)
            SELECT k, hit FROM unnest(ARRAY['doi:' || v_doi, 'arxiv:' || v_arxiv]) AS k WHERE k IS NOT NULL;
            INSERT INTO kerai.reference_state
                (node_id, ref_type, doi, url, arxiv, ay_key, title_norm, year, first_author,
                 chain_depth, chain_root, first_seen_in)
            VALUES (hit, ref_type, v_doi, v_url, v_arxiv, v_ay, v_title, v_year, v_first,
                    depth, root, seen_in);
            RETURN hit;
        EXCEPTION WHEN unique_violation THEN
            -- Another session made the same reference at the same moment: look again.
            NULL;
        END;
    END LOOP;
    RAISE EXCEPTION 'kerai: could not record reference "%"', left(content, 80)
        USING HINT = 'retry kerai.extract_references; concurrent writers kept colliding';
END
$$;

-- Section headings that introduce a bibliography.
CREATE FUNCTION kerai._is_bibliography_heading(heading text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT lower(btrim(regexp_replace(coalesce(heading, ''), '^[0-9.\s]+', ''))) IN
        ('references', 'reference list', 'bibliography', 'works cited', 'literature', 'literature cited',
         'cited literature', 'sources', 'citations', 'notes and references', 'references and notes',
         'further reading', 'select bibliography', 'referencias', 'bibliografía', 'bibliographie',
         'literatur', 'literaturverzeichnis', 'références')
$$;

-- About 100 characters around a citation, for the cites edge.
CREATE FUNCTION kerai._citation_context(content text, start_char integer, end_char integer) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT btrim(regexp_replace(
        substr(content, greatest(1, start_char + 1 - greatest(0, (100 - (end_char - start_char)) / 2)),
               greatest(100, end_char - start_char)),
        '\s+', ' ', 'g'))
$$;

CREATE FUNCTION kerai.extract_references(doc uuid) RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    d         kerai.nodes;
    depth     integer;
    root      uuid;
    bib_nodes uuid[] := '{}';
    bib_keys  jsonb := '{}'::jsonb;
    e         record;
    c         record;
    item      jsonb;
    parsed    jsonb;
    ref       uuid;
    key       text;
    src       uuid[] := '{}';
    dst       uuid[] := '{}';
    ctx       jsonb[] := '{}';
    n_bib     integer := 0;
    prev_authors jsonb;
    n_cit     integer := 0;
    n_edges   integer;
    n_refs    integer;
BEGIN
    SELECT * INTO d FROM kerai.nodes WHERE document_id = doc AND id = doc;
    IF NOT FOUND OR d.kind <> 'document' THEN
        RAISE EXCEPTION 'document % does not exist', doc USING ERRCODE = '22023',
            HINT = 'pass the id kerai.parse_markdown returned';
    END IF;
    depth := CASE WHEN d.metadata->>'chain_depth' ~ '^\d+$' THEN (d.metadata->>'chain_depth')::integer ELSE 0 END;
    root := CASE WHEN d.metadata->>'chain_root' ~ '^[0-9a-f-]{36}$' THEN (d.metadata->>'chain_root')::uuid ELSE doc END;

    -- 1. Bibliography entries: the items (or paragraphs) under a References-like section, in
    -- the document's order. An entry that opens with a run of dashes (`———. 1836. Tales of a
    -- Grandfather.`) has the authors of the entry before it.
    FOR e IN
        WITH RECURSIVE under AS (
            SELECT n.id, n.kind, n.content, ARRAY[n.position] AS path FROM kerai.nodes n
             WHERE n.document_id = doc AND n.kind = 'section' AND kerai._is_bibliography_heading(n.content)
            UNION ALL
            SELECT n.id, n.kind, n.content, u.path || n.position FROM kerai.nodes n JOIN under u ON n.parent_id = u.id
             WHERE n.document_id = doc AND (n.kind <> 'section' OR NOT kerai._is_bibliography_heading(n.content))
        )
        SELECT u.id, u.kind, u.content FROM under u
         WHERE u.kind IN ('list_item', 'paragraph') AND coalesce(btrim(u.content), '') <> ''
         ORDER BY u.path, u.id
    LOOP
        bib_nodes := bib_nodes || e.id;
        FOR key IN SELECT kerai.split_bibliography(e.content) LOOP
            parsed := kerai.parse_reference(key);
            IF jsonb_array_length(parsed->'authors') = 0 AND prev_authors IS NOT NULL
               AND coalesce((parsed->>'same_authors_as_before')::boolean, false) THEN
                parsed := jsonb_set(parsed, '{authors}', prev_authors);
            END IF;
            IF jsonb_array_length(parsed->'authors') > 0 THEN
                prev_authors := parsed->'authors';
            END IF;
            parsed := parsed || jsonb_build_object('ay_key', kerai.author_year_key(
                coalesce(parsed->'authors'->0->>'family', ''), (parsed->>'year')::integer, parsed->>'year_suffix'));
            ref := kerai._upsert_reference('bibliography', key, parsed, doc, depth, root);
            n_bib := n_bib + 1;
            IF parsed->>'ay_key' IS NOT NULL AND NOT bib_keys ? (parsed->>'ay_key') THEN
                bib_keys := bib_keys || jsonb_build_object(parsed->>'ay_key', ref);
            END IF;
            src := src || e.id; dst := dst || ref;
            ctx := ctx || jsonb_build_object('context', left(key, 100), 'bibliography', true);
        END LOOP;
    END LOOP;

    -- 2. Citations in the running text (bibliography entries excluded).
    FOR c IN
        SELECT n.id AS node_id, n.content, dc.*
          FROM kerai.nodes n, LATERAL kerai.detect_citations(n.content) dc
         WHERE n.document_id = doc
           AND n.kind IN ('paragraph', 'list_item', 'heading', 'table', 'footnote')
           AND n.content IS NOT NULL AND NOT n.id = ANY (bib_nodes)
         ORDER BY n.id, dc.start_char
    LOOP
        IF c.kind = 'author_year' THEN
            FOR item IN SELECT jsonb_array_elements(c.detail->'items') LOOP
                key := item->>'key';
                IF key IS NOT NULL AND bib_keys ? key THEN
                    ref := (bib_keys->>key)::uuid;
                ELSE
                    ref := kerai._upsert_reference('author_year',
                        concat_ws(' ', array_to_string(ARRAY(SELECT jsonb_array_elements_text(item->'authors')), ', ')
                                       || CASE WHEN (item->>'et_al')::boolean THEN ' et al.' ELSE '' END,
                                  item->>'year' || coalesce(item->>'suffix', '')),
                        jsonb_build_object('authors', item->'authors', 'year', item->'year', 'ay_key', key,
                                           'citation', c.text),
                        doc, depth, root);
                END IF;
                src := src || c.node_id; dst := dst || ref;
                ctx := ctx || jsonb_build_object('context', kerai._citation_context(c.content, c.start_char, c.end_char),
                                                 'citation', c.text);
                n_cit := n_cit + 1;
            END LOOP;
        ELSE
            ref := kerai._upsert_reference(c.kind, c.text, c.detail, doc, depth, root);
            src := src || c.node_id; dst := dst || ref;
            ctx := ctx || jsonb_build_object('context', kerai._citation_context(c.content, c.start_char, c.end_char),
                                             'citation', c.text);
            n_cit := n_cit + 1;
        END IF;
    END LOOP;

    -- 3. One cites edge per (citing node, reference); the first context wins.
    WITH pairs AS (
        SELECT DISTINCT ON (s, t) s, t, x FROM unnest(src, dst, ctx) AS u(s, t, x)
    ), ins AS (
        INSERT INTO kerai.edges (source_id, target_id, relation, metadata, document_id)
        SELECT s, t, 'cites', x, doc FROM pairs
        ON CONFLICT ON CONSTRAINT edges_one_per_relation DO NOTHING
        RETURNING 1
    )
    SELECT count(*) INTO n_edges FROM ins;

    SELECT count(DISTINCT t) INTO n_refs FROM unnest(dst) t;
    PERFORM kerai._recount_cites(ARRAY[doc]);
    PERFORM kerai._rescore_references(dst);
    DELETE FROM kerai.extraction_queue WHERE document_id = doc;
    RETURN jsonb_build_object('document', doc, 'bibliography_entries', n_bib, 'citations', n_cit,
                              'references', n_refs, 'new_cites_edges', n_edges);
END
$$;

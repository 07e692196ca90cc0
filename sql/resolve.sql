-- Resolving references: the state machine's moves, one work fetched once, the fetcher's side
-- of the work queue, ingestion of deposits, the citation loop's cycle and the citation chain.

-- Move a reference to another state. Illegal moves are refused with both states named.
-- Failures back off exponentially: retry n waits retry_base_seconds * 2^(n-1); after
-- max_retries the reference is dead (failed, no next_retry_after) until kerai.retry_reference.
CREATE FUNCTION kerai.transition(ref uuid, to_state text, info jsonb DEFAULT '{}'::jsonb)
RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    cur kerai.reference_state;
    cfg jsonb;
    max_retries integer;
    base_seconds float8;
    next_at timestamptz;
    legal text;
BEGIN
    info := coalesce(info, '{}'::jsonb);
    SELECT * INTO cur FROM kerai.reference_state WHERE node_id = ref FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'reference % does not exist', ref USING ERRCODE = '22023',
            HINT = 'reference ids are kerai.nodes ids of kind ''reference''; see kerai.frontier()';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM kerai.reference_states s WHERE s.state = to_state) THEN
        RAISE EXCEPTION 'unknown reference state "%"', to_state USING ERRCODE = '22023',
            HINT = 'states: ' || (SELECT string_agg(state, ', ') FROM kerai.reference_states);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM kerai.reference_moves m WHERE m.from_state = cur.status AND m.to_state = to_state) THEN
        SELECT string_agg(m.to_state, ', ') INTO legal FROM kerai.reference_moves m WHERE m.from_state = cur.status;
        RAISE EXCEPTION 'illegal transition for reference %: % -> %', ref, cur.status, to_state
            USING ERRCODE = '22023', HINT = 'from ' || cur.status || ' a reference may go to: ' || coalesce(legal, 'nothing');
    END IF;

    SELECT a.config INTO cfg FROM kerai.agents a WHERE a.name = coalesce(info->>'agent', 'kerai_crawl');
    max_retries := coalesce((cfg->>'max_retries')::integer, 5);
    base_seconds := coalesce((cfg->>'retry_base_seconds')::float8, 60);

    IF to_state = 'failed' THEN
        next_at := CASE WHEN cur.retries + 1 >= max_retries THEN NULL
                        ELSE now() + make_interval(secs => base_seconds * power(2, cur.retries)) END;
        UPDATE kerai.reference_state SET status = 'failed', retries = retries + 1, next_retry_after = next_at,
               last_error = coalesce(info->>'error', info->>'reason', 'failed'), updated_at = now()
         WHERE node_id = ref;
        info := info || jsonb_build_object('retries', cur.retries + 1, 'next_retry_after', next_at,
                                           'dead', next_at IS NULL);
    ELSIF to_state = 'resolved' THEN
        UPDATE kerai.reference_state SET status = 'resolved', resolved_at = now(), next_retry_after = NULL,
               resolved_doc = CASE WHEN info->>'document' ~ '^[0-9a-f-]{36}$' THEN (info->>'document')::uuid END,
               updated_at = now()
         WHERE node_id = ref;
    ELSIF to_state = 'unresolved' THEN
        UPDATE kerai.reference_state SET status = 'unresolved', retries = 0, next_retry_after = NULL,
               last_error = NULL, updated_at = now()
         WHERE node_id = ref;
    ELSIF to_state IN ('skipped', 'not_found') THEN
        UPDATE kerai.reference_state SET status = to_state, next_retry_after = NULL,
               last_error = coalesce(info->>'reason', info->>'error', to_state), updated_at = now()
         WHERE node_id = ref;
    ELSE
        UPDATE kerai.reference_state SET status = to_state, updated_at = now() WHERE node_id = ref;
    END IF;

    INSERT INTO kerai.reference_transitions (node_id, from_state, to_state, info)
    VALUES (ref, cur.status, to_state, info);

    -- The uncertainty of the nodes citing this reference changed: their other references
    -- need new scores.
    IF to_state IN ('resolved', 'not_found', 'skipped', 'unresolved', 'failed') THEN
        -- In steps: the citing nodes' other references are in the citing documents' shards,
        -- their states in their own.
        UPDATE kerai.reference_state rs SET score_dirty = true
         WHERE rs.node_id = ANY (ARRAY(
                   SELECT e2.target_id
                     FROM kerai.edges e1 JOIN kerai.edges e2
                       ON e2.document_id = e1.document_id AND e2.source_id = e1.source_id AND e2.relation = 'cites'
                    WHERE e1.target_id = ref AND e1.relation = 'cites'))
           AND NOT rs.score_dirty;
    END IF;

    PERFORM pg_notify('kerai_progress', jsonb_build_object(
        'event', 'reference', 'ref', ref, 'from', cur.status, 'to', to_state)::text);
    RETURN jsonb_build_object('ref', ref, 'from', cur.status, 'to', to_state) || info;
END
$$;

-- Give a dead, skipped or not-found reference another chance.
CREATE FUNCTION kerai.retry_reference(ref uuid) RETURNS jsonb
LANGUAGE sql AS $$
    SELECT kerai.transition(ref, 'unresolved', '{"reason": "retried by hand"}'::jsonb)
$$;

-- Walk a reference forward along the happy path to `target` (no-op when already there or past
-- it). The fetcher uses it, so work re-leased after a crash never makes an illegal move.
CREATE FUNCTION kerai._advance(ref uuid, target text, info jsonb DEFAULT '{}'::jsonb) RETURNS text
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    path text[] := ARRAY['unresolved', 'searching', 'found', 'fetching', 'converting', 'ingesting', 'resolved'];
    cur text;
    i integer;
    goal integer := array_position(path, target);
BEGIN
    IF goal IS NULL THEN
        RAISE EXCEPTION '"%" is not on the path unresolved -> ... -> resolved', target USING ERRCODE = '22023';
    END IF;
    SELECT status INTO cur FROM kerai.reference_state WHERE node_id = ref FOR UPDATE;
    IF cur = 'failed' THEN
        PERFORM kerai.transition(ref, 'searching', info);
        cur := 'searching';
    END IF;
    i := array_position(path, cur);
    IF i IS NULL THEN
        RETURN cur;  -- not_found / skipped: leave it
    END IF;
    WHILE i < goal LOOP
        i := i + 1;
        PERFORM kerai.transition(ref, path[i], CASE WHEN i = goal THEN info ELSE '{}'::jsonb END);
    END LOOP;
    RETURN path[greatest(i, array_position(path, cur))];
END
$$;

-- ---------------------------------------------------------------- one work, fetched once

-- The keys a work is known by, from {doi, arxiv, url} (each a string or an array of strings):
-- 'doi:<lower-case DOI>', 'arxiv:<id>', 'url:<normalised URL>' (with and without a trailing
-- slash, see kerai._url_variants).
CREATE FUNCTION kerai._work_keys(keys jsonb) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    out text[] := '{}';
    v text;
    field text;
BEGIN
    IF keys IS NULL OR jsonb_typeof(keys) <> 'object' THEN
        RETURN out;
    END IF;
    FOREACH field IN ARRAY ARRAY['doi', 'arxiv', 'url'] LOOP
        FOR v IN SELECT btrim(x) FROM jsonb_array_elements_text(
                     CASE jsonb_typeof(keys->field) WHEN 'array' THEN keys->field
                                                    WHEN 'string' THEN jsonb_build_array(keys->field)
                                                    ELSE '[]'::jsonb END) x
                  WHERE btrim(x) <> '' LOOP
            IF field = 'doi' THEN
                out := out || ('doi:' || lower(regexp_replace(v, '^(https?://(dx\.)?doi\.org/|doi:\s*)', '', 'i')));
            ELSIF field = 'arxiv' THEN
                out := out || ('arxiv:' || lower(regexp_replace(v, 'v\d+$', '')));
            ELSE
                out := out || ARRAY(SELECT 'url:' || u FROM unnest(kerai._url_variants(v)) u);
            END IF;
        END LOOP;
    END LOOP;
    RETURN ARRAY(SELECT DISTINCT k FROM unnest(out) k ORDER BY k);
END
$$;

-- An ingested document that is the work with these keys ({doi, arxiv, url}): one the crawl
-- loop ingested (kerai.document_keys), or any document whose source_url is the URL.
CREATE FUNCTION kerai._known_document(keys jsonb) RETURNS uuid
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN kerai._known_document_by_keys(kerai._work_keys(keys));
END
$$;

-- The same, from keys as kerai._work_keys writes them.
CREATE FUNCTION kerai._known_document_by_keys(k text[]) RETURNS uuid
LANGUAGE plpgsql STABLE AS $$
DECLARE
    urls text[];
    doc uuid;
BEGIN
    IF k IS NULL OR cardinality(k) = 0 THEN
        RETURN NULL;
    END IF;
    -- The oldest key that names a document still there (a key of a document deleted by hand,
    -- not by kerai, names nothing).
    FOR doc IN SELECT dk.document_id FROM kerai.document_keys dk WHERE dk.key = ANY (k)
                ORDER BY dk.created_at, dk.key LOOP
        IF EXISTS (SELECT 1 FROM kerai.documents d WHERE d.id = doc) THEN
            RETURN doc;
        END IF;
    END LOOP;
    doc := NULL;
    urls := ARRAY(SELECT substr(x, 5) FROM unnest(k) x WHERE x LIKE 'url:%');
    IF cardinality(urls) > 0 THEN
        SELECT n.id INTO doc FROM kerai.nodes n
         WHERE n.kind = 'document' AND coalesce(n.metadata->>'source_url', '') = ANY (urls)
         ORDER BY n.created_at LIMIT 1;
    END IF;
    RETURN doc;
END
$$;

-- Link a reference to a document already in the corpus: a resolves_to edge, the reference
-- resolved (no fetch, no new document, no reward).
CREATE FUNCTION kerai._link_reference(ref uuid, doc uuid, info jsonb DEFAULT '{}'::jsonb) RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
    cur text;
BEGIN
    INSERT INTO kerai.edges (source_id, target_id, relation, document_id, metadata)
    VALUES (ref, doc, 'resolves_to', ref, jsonb_strip_nulls(coalesce(info, '{}'::jsonb) || '{"reused": true}'::jsonb))
    ON CONFLICT ON CONSTRAINT edges_one_per_relation DO NOTHING;
    SELECT status INTO cur FROM kerai.reference_state WHERE node_id = ref FOR UPDATE;
    IF cur = 'failed' THEN
        PERFORM kerai.transition(ref, 'searching', '{}'::jsonb);
        cur := 'searching';
    END IF;
    IF cur IN ('unresolved', 'searching', 'ingesting') THEN
        PERFORM kerai.transition(ref, 'resolved', coalesce(info, '{}'::jsonb) || jsonb_build_object('document', doc, 'reused', true));
    ELSIF cur <> 'resolved' THEN
        PERFORM kerai._advance(ref, 'resolved', coalesce(info, '{}'::jsonb) || jsonb_build_object('document', doc, 'reused', true));
    END IF;
    PERFORM pg_notify('kerai_progress', jsonb_build_object('event', 'linked', 'ref', ref, 'document', doc)::text);
    RETURN doc;
END
$$;

-- ---------------------------------------------------------------- the fetcher's side

-- Lease up to `max` pending items (or items whose lease expired: a crashed fetcher's work).
-- The candidates are read without locks (on a distributed database they span shards), then
-- each is leased by its key (one shard), skipped when another fetcher holds it.
CREATE FUNCTION kerai._worker_claim(worker text, lease_seconds integer DEFAULT 300, max integer DEFAULT 1)
RETURNS SETOF kerai.crawl_queue
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    c record;
    item kerai.crawl_queue;
    got integer := 0;
BEGIN
    FOR c IN SELECT x.node_id, x.id FROM kerai.crawl_queue x
              WHERE x.status = 'pending' OR (x.status = 'leased' AND x.lease_until < now())
              ORDER BY x.id LIMIT max * 4 LOOP
        EXIT WHEN got >= max;
        PERFORM 1 FROM kerai.crawl_queue x
          WHERE x.node_id = c.node_id AND x.id = c.id
            AND (x.status = 'pending' OR (x.status = 'leased' AND x.lease_until < now()))
            FOR UPDATE SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;
        UPDATE kerai.crawl_queue q
           SET status = 'leased', leased_by = worker, attempts = q.attempts + 1,
               lease_until = now() + make_interval(secs => lease_seconds), updated_at = now()
         WHERE q.node_id = c.node_id AND q.id = c.id
        RETURNING q.* INTO item;
        got := got + 1;
        RETURN NEXT item;
    END LOOP;
END
$$;

CREATE FUNCTION kerai._worker_heartbeat(item bigint, worker text, lease_seconds integer DEFAULT 300) RETURNS boolean
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    kept boolean;
BEGIN
    UPDATE kerai.crawl_queue q SET lease_until = now() + make_interval(secs => lease_seconds), updated_at = now()
     WHERE q.id = item AND q.status = 'leased' AND q.leased_by = worker
    RETURNING true INTO kept;
    RETURN kept;
END
$$;

CREATE FUNCTION kerai._queue_item(item bigint) RETURNS kerai.crawl_queue
LANGUAGE plpgsql AS $$
DECLARE
    q kerai.crawl_queue;
    ref uuid := (SELECT x.node_id FROM kerai.crawl_queue x WHERE x.id = item);
BEGIN
    -- By its reference (the key it is kept by): one shard on a distributed database.
    SELECT * INTO q FROM kerai.crawl_queue WHERE node_id = ref AND id = item FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'crawl queue item % does not exist', item USING ERRCODE = '22023';
    END IF;
    RETURN q;
END
$$;

-- Report progress on a leased item: found, fetching or converting.
CREATE FUNCTION kerai._worker_progress(item bigint, state text, info jsonb DEFAULT '{}'::jsonb) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    q kerai.crawl_queue := kerai._queue_item(item);
BEGIN
    IF state NOT IN ('found', 'fetching', 'converting') THEN
        RAISE EXCEPTION 'progress state must be found, fetching or converting, not "%"', state USING ERRCODE = '22023';
    END IF;
    UPDATE kerai.crawl_queue SET result = coalesce(result, '{}'::jsonb) || coalesce(info, '{}'::jsonb), updated_at = now()
     WHERE id = item;
    RETURN kerai._advance(q.node_id, state, info);
END
$$;

-- Before fetching, the fetcher asks whether the work it found ({doi, arxiv, url}) is already
-- in the corpus. Ingested: the item's reference is linked to that document now and the item is
-- done ({"status": "linked", "document"}). Deposited by another item and not yet ingested: the
-- item waits for that deposit and is linked when the next cycle ingests it ({"status":
-- "waiting", "item"}). Unknown: NULL, and the fetcher fetches.
CREATE FUNCTION kerai._worker_known(item bigint, keys jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    q kerai.crawl_queue := kerai._queue_item(item);
    k text[] := kerai._work_keys(keys);
    doc uuid;
    other bigint;
BEGIN
    IF q.status <> 'leased' OR cardinality(k) = 0 THEN
        RETURN NULL;
    END IF;
    doc := kerai._known_document(keys);
    IF doc IS NOT NULL THEN
        PERFORM kerai._link_reference(q.node_id, doc, jsonb_build_object('via', 'known', 'keys', to_jsonb(k)));
        UPDATE kerai.crawl_queue
           SET status = 'done', lease_until = NULL, updated_at = now(),
               result = coalesce(result, '{}'::jsonb) || jsonb_build_object('linked_to', doc, 'keys', to_jsonb(k))
         WHERE id = item;
        RETURN jsonb_build_object('status', 'linked', 'document', doc);
    END IF;
    SELECT o.id INTO other FROM kerai.crawl_queue o
     WHERE o.status = 'deposited' AND o.id <> item AND o.result->'keys' ?| k AND NOT o.result ? 'same_as'
     ORDER BY o.id LIMIT 1;
    IF other IS NOT NULL THEN
        PERFORM kerai._advance(q.node_id, 'ingesting', jsonb_build_object('same_as_item', other));
        UPDATE kerai.crawl_queue
           SET status = 'deposited', markdown = NULL, lease_until = NULL, updated_at = now(),
               result = coalesce(result, '{}'::jsonb) || jsonb_build_object('same_as', other, 'keys', to_jsonb(k))
         WHERE id = item;
        PERFORM pg_notify('kerai_progress', jsonb_build_object('event', 'deposited', 'item', item, 'ref', q.node_id, 'same_as', other)::text);
        RETURN jsonb_build_object('status', 'waiting', 'item', other);
    END IF;
    RETURN NULL;
END
$$;

-- Hand over converted markdown; the next kerai.crawl_cycle() ingests it.
CREATE FUNCTION kerai._worker_deposit(item bigint, markdown text, result jsonb DEFAULT '{}'::jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    q kerai.crawl_queue := kerai._queue_item(item);
    rs kerai.reference_state;
    keys jsonb;
BEGIN
    IF markdown IS NULL OR btrim(markdown) = '' THEN
        RAISE EXCEPTION 'crawl queue item %: the deposited markdown is empty', item USING ERRCODE = '22023',
            HINT = 'report an empty document with kerai._worker_fail(item, ''skipped'', ''empty document'')';
    END IF;
    SELECT * INTO rs FROM kerai.reference_state WHERE node_id = q.node_id;
    -- What this copy will be known by once ingested (its DOI, arXiv id, URLs and the
    -- reference's own), so that another reference to the same work waits for it.
    keys := to_jsonb(kerai._work_keys(jsonb_build_object(
        'doi', jsonb_build_array(result->'metadata'->>'doi', rs.doi),
        'arxiv', jsonb_build_array(result->'metadata'->>'arxiv', rs.arxiv),
        'url', jsonb_build_array(result->>'source_url', rs.url))));
    PERFORM kerai._advance(q.node_id, 'ingesting', coalesce(result, '{}'::jsonb) - 'metadata');
    UPDATE kerai.crawl_queue
       SET status = 'deposited', markdown = _worker_deposit.markdown,
           result = coalesce(q.result, '{}'::jsonb) || coalesce(_worker_deposit.result, '{}'::jsonb)
                    || jsonb_build_object('keys', keys),
           lease_until = NULL, updated_at = now()
     WHERE id = item;
    PERFORM pg_notify('kerai_progress', jsonb_build_object('event', 'deposited', 'item', item, 'ref', q.node_id)::text);
END
$$;

-- The fetcher gave up on an item: failed (retried with backoff), not_found or skipped.
CREATE FUNCTION kerai._worker_fail(item bigint, outcome text, reason text, info jsonb DEFAULT '{}'::jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    q kerai.crawl_queue := kerai._queue_item(item);
    cur text;
    moved jsonb;
BEGIN
    IF outcome NOT IN ('failed', 'not_found', 'skipped') THEN
        RAISE EXCEPTION 'outcome must be failed, not_found or skipped, not "%"', outcome USING ERRCODE = '22023';
    END IF;
    UPDATE kerai.crawl_queue SET status = 'failed', error = reason, lease_until = NULL, updated_at = now(),
           result = coalesce(result, '{}'::jsonb) || coalesce(info, '{}'::jsonb)
     WHERE id = item;
    SELECT status INTO cur FROM kerai.reference_state WHERE node_id = q.node_id;
    IF cur = 'unresolved' THEN
        PERFORM kerai.transition(q.node_id, 'searching', '{}'::jsonb);
    END IF;
    moved := kerai.transition(q.node_id, outcome,
        coalesce(info, '{}'::jsonb) || jsonb_build_object('reason', reason, 'error', reason));
    RETURN moved;
END
$$;

-- ---------------------------------------------------------------- ingestion of deposits

CREATE FUNCTION kerai._ingest_deposit(item bigint) RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
    q kerai.crawl_queue := kerai._queue_item(item);
    rs kerai.reference_state;
    agent kerai.agents;
    meta jsonb;
    doc uuid;
    ref_text text;
    keys text[] := ARRAY(SELECT jsonb_array_elements_text(coalesce(q.result->'keys', '[]'::jsonb)));
    dead record;
BEGIN
    SELECT * INTO rs FROM kerai.reference_state WHERE node_id = q.node_id FOR UPDATE;
    SELECT * INTO agent FROM kerai.agents WHERE id = q.agent_id;
    agent := coalesce(agent, kerai._agent('kerai_crawl'));
    -- The same work reached the corpus another way since this copy was fetched (another
    -- fetcher, another reference): link to it rather than ingest it twice.
    doc := kerai._known_document_by_keys(keys);
    IF doc IS NOT NULL THEN
        PERFORM kerai._link_reference(rs.node_id, doc, jsonb_build_object('via', 'known', 'item', item));
        UPDATE kerai.crawl_queue SET status = 'done', markdown = NULL, updated_at = now(),
               result = coalesce(result, '{}'::jsonb) || jsonb_build_object('linked_to', doc)
         WHERE id = item;
        RETURN doc;
    END IF;
    SELECT content INTO ref_text FROM kerai.nodes WHERE id = q.node_id;
    meta := coalesce(q.result->'metadata', '{}'::jsonb) || jsonb_strip_nulls(jsonb_build_object(
        'source_url', q.result->>'source_url',
        'source_type', q.result->>'source_type',
        'fetched_at', coalesce(q.result->>'fetched_at', now()::text),
        'license', q.result->>'license',
        'content_type', coalesce(q.result->>'content_type', 'full'),
        'found_via', q.result->>'found_via',
        'chain_depth', rs.chain_depth + 1,
        'chain_root', rs.chain_root,
        'resolved_from', rs.node_id,
        'crawler_agent', agent.id));
    doc := kerai.parse_markdown(q.markdown, meta);
    PERFORM kerai._document_ingested(doc);
    -- Its keys; one that names a document deleted by hand is taken over.
    FOR dead IN SELECT dk.key, dk.document_id FROM kerai.document_keys dk WHERE dk.key = ANY (keys) LOOP
        IF NOT EXISTS (SELECT 1 FROM kerai.documents d WHERE d.id = dead.document_id) THEN
            DELETE FROM kerai.document_keys dk WHERE dk.key = dead.key AND dk.document_id = dead.document_id;
        END IF;
    END LOOP;
    INSERT INTO kerai.document_keys (key, document_id)
    SELECT k, doc FROM unnest(keys) k
    ON CONFLICT (key) DO NOTHING;
    INSERT INTO kerai.edges (source_id, target_id, relation, document_id, metadata)
    VALUES (rs.node_id, doc, 'resolves_to', rs.node_id,
            jsonb_strip_nulls(jsonb_build_object('fetched_at', meta->>'fetched_at', 'source_url', meta->>'source_url')))
    ON CONFLICT ON CONSTRAINT edges_one_per_relation DO NOTHING;
    PERFORM kerai.mint_reward(agent.name, 'crawl_ingest', doc, jsonb_build_object('reference', rs.node_id));
    PERFORM kerai.write_perspective(agent.name, doc, least(1.0, greatest(0.0, coalesce(rs.score, 0) / 2.0)),
        format('resolved from %s "%s" (score %s, chain depth %s)', rs.ref_type, left(ref_text, 120),
               round(coalesce(rs.score, 0)::numeric, 3), rs.chain_depth + 1));
    PERFORM kerai._advance(rs.node_id, 'resolved', jsonb_build_object('document', doc, 'source_url', meta->>'source_url'));
    UPDATE kerai.crawl_queue SET status = 'done', markdown = NULL, updated_at = now() WHERE id = item;
    PERFORM pg_notify('kerai_progress', jsonb_build_object('event', 'ingested', 'ref', rs.node_id, 'document', doc)::text);
    RETURN doc;
END
$$;

-- A deposit that waits for another item's copy of the same work (kerai._worker_known): link
-- its reference to the document that copy became. NULL while that copy is not ingested yet;
-- an error when it failed to be (the reference then fails and is retried with backoff).
CREATE FUNCTION kerai._link_deposit(item bigint) RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
    q kerai.crawl_queue := kerai._queue_item(item);
    other kerai.crawl_queue;
    doc uuid;
BEGIN
    SELECT * INTO other FROM kerai.crawl_queue WHERE id = (q.result->>'same_as')::bigint;
    IF other.status = 'deposited' THEN
        RETURN NULL;
    END IF;
    doc := kerai._known_document_by_keys(ARRAY(SELECT jsonb_array_elements_text(coalesce(q.result->'keys', '[]'::jsonb))));
    IF doc IS NULL THEN
        RAISE EXCEPTION 'the copy deposited by crawl queue item % for the same work was not ingested (%)',
            q.result->>'same_as', coalesce(other.error, other.status, 'gone') USING ERRCODE = '22023';
    END IF;
    PERFORM kerai._link_reference(q.node_id, doc, jsonb_build_object('via', 'same_as', 'item', other.id));
    UPDATE kerai.crawl_queue SET status = 'done', updated_at = now(),
           result = coalesce(result, '{}'::jsonb) || jsonb_build_object('linked_to', doc)
     WHERE id = item;
    RETURN doc;
END
$$;

-- ---------------------------------------------------------------- the cycle

-- One crawl cycle: extract references from newly ingested documents, ingest what the fetcher
-- deposited, rescore what changed, skip what is too deep, and claim the best eligible
-- reference for the fetcher (work queue + pg_notify('kerai_crawl')). Safe to run concurrently.
-- Up to `n` documents waiting for reference extraction, oldest first, locked for this
-- transaction. The candidates are read without locks (on a distributed database they span
-- shards), then each is locked by its key (one shard), skipped when another cycle holds it.
CREATE FUNCTION kerai._extraction_claim(n integer) RETURNS SETOF uuid
LANGUAGE plpgsql AS $$
DECLARE
    doc uuid;
    got integer := 0;
BEGIN
    FOR doc IN SELECT x.document_id FROM kerai.extraction_queue x ORDER BY x.queued_at LIMIT n * 2 LOOP
        EXIT WHEN got >= n;
        PERFORM 1 FROM kerai.extraction_queue x WHERE x.document_id = doc FOR UPDATE SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;
        got := got + 1;
        RETURN NEXT doc;
    END LOOP;
END
$$;

CREATE FUNCTION kerai.crawl_cycle(agent text DEFAULT 'kerai_crawl') RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_fetcher', 'kerai.crawl_cycle');
    a kerai.agents := kerai._agent(agent);
    cfg jsonb := kerai.crawler_defaults() || a.config;
    max_depth integer := (cfg->>'max_chain_depth')::integer;
    min_score float8 := (cfg->>'min_score')::float8;
    rate float8 := (cfg->>'rate_limit_seconds')::float8;
    claims integer := coalesce((cfg->>'claims_per_cycle')::integer, 1);
    ref_types text[] := ARRAY(SELECT jsonb_array_elements_text(
        coalesce(cfg->'ref_types', '["doi", "arxiv", "url", "author_year", "bibliography"]'::jsonb)));
    doc uuid;
    item bigint;
    extracted jsonb := '[]'::jsonb;
    ingested jsonb := '[]'::jsonb;
    failed jsonb := '[]'::jsonb;
    claimed jsonb := '[]'::jsonb;
    claimed_count integer := 0;
    cited_in text;
    linked jsonb := '[]'::jsonb;
    skipped integer := 0;
    rescored integer;
    last_claim timestamptz;
    known uuid;
    r record;
    dep record;
    summary jsonb;
BEGIN
    -- 1. Extract references from documents ingested since the last cycle.
    FOR doc IN SELECT kerai._extraction_claim(20) LOOP
        extracted := extracted || kerai.extract_references(doc);
    END LOOP;

    -- 2. Ingest what the fetcher deposited (or link a deposit that waited for another copy of
    -- the same work). One bad deposit fails alone.
    FOR dep IN SELECT q.node_id, q.id, q.result ? 'same_as' AS same_as FROM kerai.crawl_queue q
                WHERE q.status = 'deposited' ORDER BY q.id LIMIT 10 LOOP
        -- Locked by its key (one shard on a distributed database), skipped when another cycle
        -- holds it or took it since.
        PERFORM 1 FROM kerai.crawl_queue q WHERE q.node_id = dep.node_id AND q.id = dep.id
                                             AND q.status = 'deposited' FOR UPDATE SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;
        BEGIN
            IF dep.same_as THEN
                doc := kerai._link_deposit(dep.id);
                IF doc IS NOT NULL THEN
                    linked := linked || jsonb_build_object('item', dep.id, 'document', doc);
                END IF;
            ELSE
                ingested := ingested || jsonb_build_object('item', dep.id, 'document', kerai._ingest_deposit(dep.id));
            END IF;
        EXCEPTION WHEN others THEN
            failed := failed || jsonb_build_object('item', dep.id, 'error', SQLERRM);
            UPDATE kerai.crawl_queue SET status = 'failed', error = 'ingest: ' || SQLERRM, markdown = NULL,
                   updated_at = now() WHERE id = dep.id;
            PERFORM kerai.transition(node_id, 'failed', jsonb_build_object('error', 'ingest: ' || SQLERRM))
               FROM kerai.crawl_queue WHERE id = dep.id;
        END;
    END LOOP;
    FOR doc IN SELECT kerai._extraction_claim(20) LOOP
        extracted := extracted || kerai.extract_references(doc);
    END LOOP;

    -- 3. Rescore what changed (citations added or removed by hand are counted first).
    PERFORM kerai._recount_cites();
    rescored := kerai._rescore_dirty(5000);

    -- 4. Too deep to follow: record the decision.
    FOR r IN SELECT node_id, chain_depth FROM kerai.reference_state
              WHERE status = 'unresolved' AND chain_depth >= max_depth LIMIT 200 LOOP
        PERFORM 1 FROM kerai.reference_state rs WHERE rs.node_id = r.node_id AND rs.status = 'unresolved'
           FOR UPDATE SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;
        PERFORM kerai.transition(r.node_id, 'skipped',
            jsonb_build_object('reason', format('chain depth %s reaches max_chain_depth %s', r.chain_depth + 1, max_depth)));
        skipped := skipped + 1;
    END LOOP;

    -- 5. Claim the best eligible references, at most claims_per_cycle per rate_limit_seconds.
    -- A reference to a work already in the corpus (same DOI, arXiv id or URL) is linked to it
    -- on the spot instead.
    SELECT max(created_at) INTO last_claim FROM kerai.crawl_queue WHERE agent_id = a.id;
    IF last_claim IS NULL OR now() - last_claim >= make_interval(secs => rate) THEN
        FOR r IN
            SELECT rs.node_id, rs.ref_type, rs.doi, rs.url, rs.arxiv, rs.title_norm, rs.year, rs.first_author,
                   rs.ay_key, rs.score, rs.chain_depth, rs.status, n.content, n.metadata
              FROM kerai.reference_state rs JOIN kerai.nodes n ON n.document_id = rs.node_id AND n.id = rs.node_id
             WHERE (rs.status = 'unresolved' OR (rs.status = 'failed' AND rs.next_retry_after <= now()))
               AND rs.chain_depth < max_depth
               AND coalesce(rs.score, 0) >= min_score
               AND rs.ref_type = ANY (ref_types)
               AND NOT EXISTS (SELECT 1 FROM kerai.crawl_queue q
                                WHERE q.node_id = rs.node_id AND q.status IN ('pending', 'leased', 'deposited'))
             ORDER BY rs.score DESC NULLS LAST, rs.node_id
             LIMIT claims * 2
        LOOP
            EXIT WHEN claimed_count >= claims;
            -- Locked by its key (one shard on a distributed database), skipped when another
            -- cycle holds it or claimed it since.
            PERFORM 1 FROM kerai.reference_state rs
              WHERE rs.node_id = r.node_id AND rs.status = r.status AND rs.chain_depth < max_depth
                AND NOT EXISTS (SELECT 1 FROM kerai.crawl_queue q
                                 WHERE q.node_id = rs.node_id AND q.status IN ('pending', 'leased', 'deposited'))
                FOR UPDATE OF rs SKIP LOCKED;
            CONTINUE WHEN NOT FOUND;
            claimed_count := claimed_count + 1;
            known := kerai._known_document(jsonb_build_object('doi', r.doi, 'arxiv', r.arxiv, 'url', r.url));
            IF known IS NOT NULL THEN
                PERFORM kerai._link_reference(r.node_id, known, jsonb_build_object('via', 'known', 'agent', a.name));
                linked := linked || jsonb_build_object('ref', r.node_id, 'document', known);
                CONTINUE;
            END IF;
            PERFORM kerai.transition(r.node_id, 'searching', jsonb_build_object('agent', a.name));
            -- The first citation's context, before the INSERT (Citus takes no subquery in one).
            cited_in := (SELECT e.metadata->>'context' FROM kerai.edges e
                          WHERE e.target_id = r.node_id AND e.relation = 'cites' ORDER BY e.created_at, e.id LIMIT 1);
            INSERT INTO kerai.crawl_queue (node_id, agent_id, request)
            VALUES (r.node_id, a.id, jsonb_strip_nulls(jsonb_build_object(
                'ref', r.node_id, 'ref_type', r.ref_type, 'text', r.content, 'doi', r.doi, 'url', r.url,
                'arxiv', r.arxiv, 'title', r.metadata->>'title', 'year', r.year,
                'authors', r.metadata->'authors', 'first_author', r.first_author,
                'year_suffix', nullif(split_part(coalesce(r.ay_key, ''), '|', 3), ''),
                'container', r.metadata->>'container', 'publisher', r.metadata->>'publisher',
                'location', r.metadata->>'location', 'term', r.metadata->>'term',
                'context', cited_in,
                'score', r.score, 'chain_depth', r.chain_depth, 'policy', cfg)))
            RETURNING id INTO item;
            PERFORM pg_notify('kerai_crawl', jsonb_build_object('item', item, 'ref', r.node_id, 'ref_type', r.ref_type)::text);
            claimed := claimed || jsonb_build_object('item', item, 'ref', r.node_id, 'ref_type', r.ref_type,
                                                     'text', left(r.content, 120), 'score', r.score);
        END LOOP;
    END IF;

    PERFORM kerai._compact_counters();
    -- A distributed corpus: the shards' full-text statistics, merged at most once a minute.
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')
       AND NOT EXISTS (SELECT 1 FROM kerai.search_statistics WHERE refreshed_at > now() - interval '1 minute') THEN
        PERFORM kerai.refresh_search_statistics();
    END IF;
    summary := jsonb_build_object(
        'extracted', extracted, 'ingested', ingested, 'linked', linked, 'ingest_failures', failed,
        'rescored', rescored, 'skipped_too_deep', skipped, 'claimed', claimed,
        'frontier', kerai.counter('references:unresolved'),
        'pending', (SELECT count(*) FROM kerai.crawl_queue WHERE status IN ('pending', 'leased')),
        'deposited', (SELECT count(*) FROM kerai.crawl_queue WHERE status = 'deposited'),
        -- What is left to claim now (the rate limit aside) and what waits for its retry.
        'eligible', (SELECT count(*) FROM kerai.reference_state rs
                      WHERE (rs.status = 'unresolved' OR (rs.status = 'failed' AND rs.next_retry_after <= now()))
                        AND rs.chain_depth < max_depth AND coalesce(rs.score, 0) >= min_score
                        AND rs.ref_type = ANY (ref_types)
                        AND NOT EXISTS (SELECT 1 FROM kerai.crawl_queue q
                                         WHERE q.node_id = rs.node_id AND q.status IN ('pending', 'leased', 'deposited'))),
        'retries_waiting', (SELECT count(*) FROM kerai.reference_state rs
                             WHERE rs.status = 'failed' AND rs.next_retry_after > now()
                               AND rs.chain_depth < max_depth AND rs.ref_type = ANY (ref_types)));
    PERFORM pg_notify('kerai_progress', jsonb_build_object(
        'event', 'cycle', 'agent', a.name, 'extracted', jsonb_array_length(extracted),
        'ingested', jsonb_array_length(ingested), 'linked', jsonb_array_length(linked),
        'claimed', jsonb_array_length(claimed), 'frontier', summary->'frontier',
        'pending', summary->'pending')::text);
    RETURN summary;
END
$$;

-- ---------------------------------------------------------------- provenance

-- The documents reached from `seed` along cites -> resolves_to, breadth first, each once at its
-- shallowest depth, with the document and reference it was reached through.
CREATE FUNCTION kerai.citation_chain(seed uuid, max_depth integer DEFAULT 5)
RETURNS TABLE (document uuid, title text, depth integer, parent_document uuid, via_reference uuid)
LANGUAGE plpgsql STABLE AS $fn$
#variable_conflict use_column
DECLARE
    reached uuid[];
    level uuid[];
    next_level uuid[];
    step record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM kerai.nodes d WHERE d.document_id = seed AND d.id = seed AND d.kind = 'document') THEN
        RAISE EXCEPTION 'kerai.citation_chain: there is no document %', seed USING ERRCODE = '22023',
            HINT = 'pass the id of a document (SELECT id FROM kerai.nodes WHERE kind = ''document'')';
    END IF;
    IF max_depth IS NULL OR max_depth < 0 THEN
        RAISE EXCEPTION 'kerai.citation_chain: max_depth must be 0 or more, not %', coalesce(max_depth::text, 'NULL')
            USING ERRCODE = '22023';
    END IF;
    -- One depth at a time (a recursive query cannot run over distributed tables): the cites
    -- edges of the last level's documents (each document's own shard), then the resolves_to
    -- edges of those references (each reference is its own document). A document is kept at the
    -- first depth that reaches it, through its smallest parent and then reference.
    reached := ARRAY[seed];
    level := ARRAY[seed];
    document := seed;
    title := (SELECT n.content FROM kerai.nodes n WHERE n.document_id = seed AND n.id = seed);
    depth := 0;
    parent_document := NULL;
    via_reference := NULL;
    RETURN NEXT;
    WHILE depth < max_depth AND cardinality(level) > 0 LOOP
        depth := depth + 1;
        next_level := '{}';
        FOR step IN
            WITH cite AS MATERIALIZED (
                SELECT e.document_id AS parent, e.target_id AS ref FROM kerai.edges e
                 WHERE e.document_id = ANY (level) AND e.relation = 'cites'
            ), res AS MATERIALIZED (
                SELECT e.document_id AS ref, e.target_id AS doc FROM kerai.edges e
                 WHERE e.document_id IN (SELECT c.ref FROM cite c) AND e.relation = 'resolves_to'
            )
            SELECT DISTINCT ON (r.doc) r.doc, c.parent, c.ref
              FROM cite c JOIN res r ON r.ref = c.ref
             WHERE NOT r.doc = ANY (reached)
             ORDER BY r.doc, c.parent, c.ref
        LOOP
            next_level := next_level || step.doc;
            document := step.doc;
            title := (SELECT n.content FROM kerai.nodes n WHERE n.document_id = step.doc AND n.id = step.doc);
            parent_document := step.parent;
            via_reference := step.ref;
            RETURN NEXT;
        END LOOP;
        reached := reached || next_level;
        level := next_level;
    END LOOP;
END
$fn$;

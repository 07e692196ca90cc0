-- Site crawling: targets and their versioned scrape config, discovered pages and their
-- versions, scrape jobs with leased URL queues, and structured job logs (seeds 001 and 003).
-- The fetcher (`kerai` CLI) does the HTTP; everything it learns is written through these
-- tables and the kerai._job_* functions, in transactions, so a killed fetcher loses nothing.

CREATE TABLE kerai.targets (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name           text NOT NULL UNIQUE,
    base_url       text NOT NULL,
    config         jsonb NOT NULL DEFAULT '{}'::jsonb,
    config_version integer NOT NULL DEFAULT 1,
    is_active      boolean NOT NULL DEFAULT true,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT targets_name_is_a_word CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]*$'),
    CONSTRAINT targets_base_url_is_http CHECK (base_url ~* '^https?://'),
    CONSTRAINT targets_config_is_object CHECK (jsonb_typeof(config) = 'object')
);
COMMENT ON TABLE kerai.targets IS 'What to crawl: a base URL and its scrape config (seeds, domains, limits, politeness).';

CREATE TABLE kerai.target_config_versions (
    target_id  uuid NOT NULL REFERENCES kerai.targets (id) ON DELETE CASCADE,
    version    integer NOT NULL,
    base_url   text NOT NULL,
    config     jsonb NOT NULL,
    changed_by text NOT NULL DEFAULT current_user,
    changed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (target_id, version)
);
COMMENT ON TABLE kerai.target_config_versions IS
    'Every version of each target''s base URL and scrape config, one per change made by kerai.set_target: '
    'target_id, version (the target''s config_version then), base_url, config, changed_by, changed_at. A scrape '
    'job names the version it ran with.';

-- Create or change a target. A change of base URL or config makes a new config version.
CREATE FUNCTION kerai.set_target(name text, base_url text, config jsonb DEFAULT '{}'::jsonb,
                                 changed_by text DEFAULT current_user)
RETURNS kerai.targets
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_editor', 'kerai.set_target');
    t kerai.targets;
BEGIN
    IF config IS NULL OR jsonb_typeof(config) <> 'object' THEN
        RAISE EXCEPTION 'config of target "%" must be a JSON object', name USING ERRCODE = '22023';
    END IF;
    IF base_url IS NULL OR base_url !~* '^https?://[^/\s]+' THEN
        RAISE EXCEPTION 'base URL "%" of target "%" is not an http(s) URL', base_url, name USING ERRCODE = '22023',
            HINT = 'for example https://intranet.example.com/';
    END IF;
    SELECT * INTO t FROM kerai.targets tg WHERE tg.name = name FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO kerai.targets (name, base_url, config) VALUES (name, base_url, config) RETURNING * INTO t;
    ELSIF t.config IS DISTINCT FROM config OR t.base_url IS DISTINCT FROM base_url THEN
        UPDATE kerai.targets tg SET base_url = base_url, config = config, config_version = tg.config_version + 1,
               updated_at = now()
         WHERE tg.id = t.id RETURNING * INTO t;
    ELSE
        RETURN t;
    END IF;
    INSERT INTO kerai.target_config_versions (target_id, version, base_url, config, changed_by)
    VALUES (t.id, t.config_version, t.base_url, t.config, coalesce(changed_by, current_user));
    RETURN t;
END
$$;

CREATE FUNCTION kerai._target(target text) RETURNS kerai.targets
LANGUAGE plpgsql STABLE AS $$
DECLARE
    t kerai.targets;
BEGIN
    SELECT * INTO t FROM kerai.targets tg WHERE tg.name = target OR tg.id::text = target;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'target "%" does not exist', target USING ERRCODE = '22023',
            HINT = 'create it with `kerai config set ' || target || ' --base-url URL`, or list targets with SELECT name FROM kerai.targets';
    END IF;
    RETURN t;
END
$$;

-- Disable (or enable again) a target: a disabled target's schedule queues nothing, no worker
-- or daemon starts its jobs, and kerai.enqueue_job refuses it. Its queued jobs are cancelled;
-- a running one goes on (kerai.cancel_job stops it). Returns whether it was active before.
CREATE FUNCTION kerai.set_target_active(target text, active boolean) RETURNS boolean
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_editor', 'kerai.set_target_active');
    t kerai.targets := kerai._target(target);
    job uuid;
BEGIN
    IF active IS NULL THEN
        RAISE EXCEPTION 'active must be true or false' USING ERRCODE = '22023';
    END IF;
    UPDATE kerai.targets tg SET is_active = active, updated_at = now() WHERE tg.id = t.id;
    IF NOT active THEN
        FOR job IN SELECT j.id FROM kerai.scrape_jobs j WHERE j.target_id = t.id AND j.status = 'PENDING' LOOP
            PERFORM kerai.cancel_job(job);
        END LOOP;
    END IF;
    IF t.is_active IS DISTINCT FROM active THEN
        INSERT INTO kerai.job_logs (target_id, level, event, message)
        VALUES (t.id, 'INFO', CASE WHEN active THEN 'TARGET_ENABLED' ELSE 'TARGET_DISABLED' END,
                format('target %s %s by %s', t.name, CASE WHEN active THEN 'enabled' ELSE 'disabled' END, current_user));
    END IF;
    RETURN t.is_active;
END
$$;

-- Delete a target with its pages, versions, jobs, logs and config history. Its documents
-- (nodes, chunks, vectors) stay in the corpus unless keep_documents is false (kerai_admin).
-- Refused while a job of it runs. Returns what was removed.
CREATE FUNCTION kerai.delete_target(target text, keep_documents boolean DEFAULT true) RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_editor', 'kerai.delete_target');
    t kerai.targets := kerai._target(target);
    running uuid;
    out jsonb;
    docs uuid[];
BEGIN
    IF NOT coalesce(keep_documents, true) THEN
        PERFORM kerai._require('kerai_admin', 'kerai.delete_target(…, keep_documents => false)');
    END IF;
    PERFORM 1 FROM kerai.targets tg WHERE tg.id = t.id FOR UPDATE;
    SELECT j.id INTO running FROM kerai.scrape_jobs j WHERE j.target_id = t.id AND j.status = 'RUNNING' LIMIT 1;
    IF running IS NOT NULL THEN
        RAISE EXCEPTION 'target "%" has a running job (%)', t.name, running USING ERRCODE = '55006',
            HINT = format('cancel it first: kerai cancel %s (or SELECT kerai.cancel_job(%L))', running, running);
    END IF;
    SELECT array_agg(DISTINCT v.document_id) FILTER (WHERE v.document_id IS NOT NULL) INTO docs
      FROM kerai.page_versions v JOIN kerai.pages p ON p.id = v.page_id WHERE p.target_id = t.id;
    out := jsonb_build_object(
        'target', t.name,
        'pages', (SELECT count(*) FROM kerai.pages p WHERE p.target_id = t.id),
        'versions', (SELECT count(*) FROM kerai.page_versions v JOIN kerai.pages p ON p.id = v.page_id
                      WHERE p.target_id = t.id),
        'jobs', (SELECT count(*) FROM kerai.scrape_jobs j WHERE j.target_id = t.id),
        'documents', coalesce(cardinality(docs), 0),
        'documents_kept', coalesce(keep_documents, true));
    IF NOT coalesce(keep_documents, true) AND docs IS NOT NULL THEN
        -- A document that a page of another target holds too stays.
        PERFORM kerai._delete_documents(ARRAY(
            SELECT d FROM unnest(docs) AS d
            EXCEPT
            SELECT v.document_id FROM kerai.page_versions v WHERE v.target_id <> t.id AND v.document_id = ANY (docs)));
    END IF;
    -- Kept passages forget the deleted versions: no foreign key spans groups (docs/scale-out.md).
    -- Their target_id, and that of the requests, is cleared by its foreign key (targets is a
    -- reference table).
    UPDATE kerai.chunks c SET page_version_id = NULL
     WHERE c.page_version_id IN (SELECT v.id FROM kerai.page_versions v WHERE v.target_id = t.id);
    DELETE FROM kerai.targets tg WHERE tg.id = t.id;
    RETURN out;
END
$$;

CREATE TABLE kerai.pages (
    id               uuid NOT NULL DEFAULT gen_random_uuid(),
    target_id        uuid NOT NULL REFERENCES kerai.targets (id) ON DELETE CASCADE,
    url              text NOT NULL,
    url_hash         text NOT NULL,
    first_seen_at    timestamptz NOT NULL DEFAULT now(),
    last_seen_at     timestamptz NOT NULL DEFAULT now(),
    last_scraped_at  timestamptz,
    scrape_count     integer NOT NULL DEFAULT 0,
    last_status      text CHECK (last_status IN ('new', 'updated', 'unchanged', 'failed', 'duplicate')),
    http_status      integer,
    etag             text,
    last_modified    text,
    content_type     text,
    source_type      text,
    sitemap_lastmod  timestamptz,
    changefreq       text,
    priority         float8,
    current_version  uuid,
    last_error       text,
    outlinks         jsonb,
    alias_of         uuid,
    alias_reason     text CHECK (alias_reason IN ('canonical', 'duplicate')),
    PRIMARY KEY (target_id, id),
    CONSTRAINT pages_one_per_url UNIQUE (target_id, url_hash)
);
COMMENT ON TABLE kerai.pages IS
    'One row per normalised URL per target (url_hash = SHA-256 of the normalised URL). outlinks keeps the '
    'in-scope links of the last fetched version, so a page found unchanged still leads the crawl to them. '
    'alias_of: the page this URL shows, stored once (alias_reason canonical: its rel=canonical names it; '
    'duplicate: the same text); an alias has no version of its own (last_status duplicate).';
CREATE INDEX pages_alias_of_idx ON kerai.pages (alias_of) WHERE alias_of IS NOT NULL;
-- The target group's keys (pages, jobs, versions, job URLs) begin with target_id, as Citus
-- requires of a distributed table's unique keys (docs/scale-out.md); ids stay unique by their
-- generator, and this index (and its like on the other tables) serves lookups by id alone.
-- Links inside the group that were ON DELETE SET NULL (alias_of, page_versions.job_id and
-- near_duplicate_of) are plain columns: Citus refuses SET NULL on a key that holds the
-- distribution column. They are only read joined to the row they name.
CREATE INDEX pages_id_idx ON kerai.pages (id);

CREATE TABLE kerai.scrape_jobs (
    id             uuid NOT NULL DEFAULT gen_random_uuid(),
    target_id      uuid NOT NULL REFERENCES kerai.targets (id) ON DELETE CASCADE,
    status         text NOT NULL DEFAULT 'PENDING'
        CHECK (status IN ('PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')),
    mode           text NOT NULL DEFAULT 'incremental'
        CHECK (mode IN ('incremental', 'full', 'since', 'url', 'retry', 'dry_run')),
    options        jsonb NOT NULL DEFAULT '{}'::jsonb,
    config_version integer NOT NULL,
    config         jsonb NOT NULL,
    launched_by    text NOT NULL DEFAULT current_user,
    scheduled_at   timestamptz NOT NULL DEFAULT now(),
    started_at     timestamptz,
    finished_at    timestamptz,
    worker         text,
    lease_until    timestamptz,
    heartbeat_at   timestamptz,
    retry_count    integer NOT NULL DEFAULT 0,
    max_retries    integer NOT NULL DEFAULT 3,
    urls_enqueued  integer NOT NULL DEFAULT 0,
    metrics        jsonb NOT NULL DEFAULT '{}'::jsonb,
    error          text,
    exit_code      integer,
    PRIMARY KEY (target_id, id)
);
COMMENT ON TABLE kerai.scrape_jobs IS
    'Crawl runs: PENDING -> RUNNING -> COMPLETED / FAILED / CANCELLED. Completion is final; a failed job '
    'with retry_count < max_retries goes back to PENDING.';
CREATE UNIQUE INDEX scrape_jobs_one_pending_per_target_idx ON kerai.scrape_jobs (target_id) WHERE status = 'PENDING';
CREATE INDEX scrape_jobs_pending_idx ON kerai.scrape_jobs (scheduled_at) WHERE status = 'PENDING';
CREATE INDEX scrape_jobs_target_idx ON kerai.scrape_jobs (target_id, scheduled_at DESC);
CREATE INDEX scrape_jobs_id_idx ON kerai.scrape_jobs (id);

CREATE TABLE kerai.page_versions (
    id             uuid NOT NULL DEFAULT gen_random_uuid(),
    target_id      uuid NOT NULL,
    page_id        uuid NOT NULL,
    job_id         uuid,
    content_hash   text NOT NULL,
    raw_html       text,
    raw_html_uri   text,
    http_metadata  jsonb NOT NULL DEFAULT '{}'::jsonb,
    source_type    text,
    title          text,
    language       text,
    content_length integer,
    metadata       jsonb NOT NULL DEFAULT '{}'::jsonb,
    document_id    uuid,
    scraped_at     timestamptz NOT NULL DEFAULT now(),
    minhash           bigint[],
    minhash_bands     bigint[],
    near_duplicate_of uuid,
    similarity        real,
    PRIMARY KEY (target_id, id),
    FOREIGN KEY (target_id, page_id) REFERENCES kerai.pages (target_id, id) ON DELETE CASCADE
);
COMMENT ON TABLE kerai.page_versions IS
    'A snapshot each time a page''s content changes: content_hash = SHA-256 of the normalised extracted text; '
    'raw HTML (out of line above 1 MB, see raw_html_uri); the document it produced. minhash (64 values) and '
    'minhash_bands (8 keys) are the text''s near-duplicate signature; near_duplicate_of names another page of '
    'the target whose current text it resembles (estimated Jaccard similarity >= 0.9, in similarity).';
CREATE INDEX page_versions_id_idx ON kerai.page_versions (id);
CREATE INDEX page_versions_page_idx ON kerai.page_versions (page_id, scraped_at DESC);
CREATE INDEX page_versions_content_hash_idx ON kerai.page_versions (content_hash);
CREATE INDEX page_versions_minhash_bands_idx ON kerai.page_versions USING gin (minhash_bands);
CREATE INDEX page_versions_near_duplicate_idx ON kerai.page_versions (job_id) WHERE near_duplicate_of IS NOT NULL;
CREATE INDEX page_versions_near_duplicate_of_idx ON kerai.page_versions (near_duplicate_of) WHERE near_duplicate_of IS NOT NULL;
-- pages.current_version points at the page's latest version. It is not a foreign key: with
-- page_versions.page_id that would be a cycle, and no restore order loads a cycle (pg_restore
-- -j, or any restore not in one transaction, would fail). This trigger does what the key did:
-- the pointer is cleared when its version is deleted.
CREATE INDEX pages_current_version_idx ON kerai.pages (current_version);
CREATE FUNCTION kerai._clear_current_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE kerai.pages SET current_version = NULL WHERE target_id = OLD.target_id AND current_version = OLD.id;
    RETURN OLD;
END
$$;
CREATE TRIGGER page_versions_clear_current_version AFTER DELETE ON kerai.page_versions
    FOR EACH ROW EXECUTE FUNCTION kerai._clear_current_version();

-- The URLs of one job, leased to fetchers in batches.
CREATE TABLE kerai.job_urls (
    id             bigserial,
    target_id      uuid NOT NULL,
    job_id         uuid NOT NULL,
    url            text NOT NULL,
    url_hash       text NOT NULL,
    host           text NOT NULL,
    depth          integer NOT NULL DEFAULT 0,
    discovered_from text,
    via            text NOT NULL DEFAULT 'seed' CHECK (via IN ('seed', 'sitemap', 'link', 'retry', 'redirect')),
    sitemap        jsonb,
    status         text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'leased', 'done', 'failed', 'skipped')),
    outcome        text CHECK (outcome IN ('new', 'updated', 'unchanged', 'failed', 'skipped', 'duplicate')),
    source_type    text,
    leased_by      text,
    lease_until    timestamptz,
    attempts       integer NOT NULL DEFAULT 0,
    error_kind     text,
    error          text,
    finished_at    timestamptz,
    PRIMARY KEY (target_id, id),
    FOREIGN KEY (target_id, job_id) REFERENCES kerai.scrape_jobs (target_id, id) ON DELETE CASCADE,
    CONSTRAINT job_urls_once_per_job UNIQUE (job_id, url_hash, target_id)
);
COMMENT ON TABLE kerai.job_urls IS
    'The URLs of one crawl job, each once (by url_hash), leased to fetchers in batches: url, host, depth, via '
    '(seed, sitemap, link, retry, redirect), discovered_from, status (pending, leased, done, failed, skipped), '
    'outcome (new, updated, unchanged, failed, skipped, duplicate: stored as an alias of another page), attempts (how many times it was requested: a lease '
    'that ends before a request counts none), error_kind (a resource error code, '
    'not_reached or cancelled) and error.';
-- In the order URLs are claimed (kerai._job_claim_urls: lowest depth first), so that a claim
-- reads the few it takes, not every URL the job has left.
CREATE INDEX job_urls_claim_idx ON kerai.job_urls (job_id, depth, id) WHERE status IN ('pending', 'leased');
CREATE INDEX job_urls_id_idx ON kerai.job_urls (id);

-- Logs grow with every run, so they are partitioned by week (seed 001): kerai.maintain_job_logs
-- (ops_partitions.sql) makes the weeks ahead and drops those past the retention. The default
-- partition holds what falls outside them. The partitioned table has no key or index of its
-- own, each partition has its own (id is unique by its sequence): a dump then restores weekly
-- partitions (which are not extension members, so pg_dump writes them) without the indexes
-- an attach would make colliding with the ones the dump makes.
CREATE TABLE kerai.job_logs (
    id         bigserial,
    job_id     uuid,
    target_id  uuid NOT NULL REFERENCES kerai.targets (id) ON DELETE CASCADE,
    level      text NOT NULL CHECK (level IN ('INFO', 'WARN', 'ERROR')),
    event      text NOT NULL,
    message    text NOT NULL,
    url        text,
    details    jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (target_id, job_id) REFERENCES kerai.scrape_jobs (target_id, id) ON DELETE CASCADE
) PARTITION BY RANGE (created_at);
CREATE TABLE kerai.job_logs_default PARTITION OF kerai.job_logs DEFAULT;
ALTER TABLE kerai.job_logs_default ADD PRIMARY KEY (id, target_id);
CREATE INDEX job_logs_default_job_idx ON kerai.job_logs_default (job_id, id);
CREATE INDEX job_logs_default_created_idx ON kerai.job_logs_default (created_at);
COMMENT ON TABLE kerai.job_logs IS
    'Structured logs per job and per item (INFO / WARN / ERROR), partitioned by week (job_logs_wYYYYMMDD, from '
    'Monday 00:00 UTC; job_logs_default for the rest) and kept job_log_retention_days (kerai.maintain_job_logs). Events: CRAWL_STARTED, CRAWL_COMPLETED, '
    'CRAWL_FAILED, PAGE_FETCHED, DOC_DOWNLOADED, ITEM_NEW, ITEM_UPDATED, ITEM_UNCHANGED, ITEM_FAILED, ... '
    'No secrets or personal data: URLs in the url, message and details columns are logged without userinfo '
    '(user:password@) and with the values of credential-like query parameters replaced by *** (kerai.redact_secrets).';

-- Credentials out of text that contains URLs, before it is logged: userinfo (`user:password@`
-- after `scheme://`) is dropped, and the value of every query or fragment parameter whose name
-- has a credential word as one of its `_` / `-` / `.` separated parts (token, key, password,
-- secret, sig, signature, auth, session, sid, code, credential, ...: access_token, api_key,
-- X-Amz-Signature, client_secret) or is one of the run-together forms (apikey, sessionid,
-- jsessionid, phpsessid, accesstoken, ...) becomes ***. A value ends at &, #, ;, ?, a quote, a
-- backslash, <, > or white space, so the function is safe on JSON text. Over-redaction
-- (country_code=***) is the price of never logging a secret.
CREATE FUNCTION kerai.redact_secrets(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT regexp_replace(
             regexp_replace(t, '([a-z][a-z0-9+.-]*://)[^/?#[:space:]@"\\<>'']+@', '\1', 'gi'),
             '([?&;#](?:[^=&#;[:space:]"\\<>'']*[_.-])?'
             '(?:token|key|apikey|accesstoken|authtoken|password|passwd|pwd|pass|passphrase|secret|clientsecret|'
             'sig|signature|auth|authorization|session|sessionid|jsessionid|phpsessid|sessid|sid|code|'
             'credential|credentials|jwt|bearer|otp|privatekey)'
             '(?:[_.-][^=&#;[:space:]"\\<>'']*)?=)[^&#;?[:space:]"\\<>'']*',
             '\1***', 'gi')
$$;

-- A sitemap's <lastmod> (W3C datetime: a date, or a time with its zone) as a time; a time
-- without a zone is UTC, whatever the session's TimeZone, so the function is immutable (which
-- Citus asks of a function inside a CASE or coalesce of an UPDATE). NULL when it is no date.
CREATE FUNCTION kerai._sitemap_time(lastmod text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET TimeZone = 'UTC' AS $$
    SELECT CASE WHEN lastmod ~ '^\d{4}-' THEN lastmod::timestamptz END
$$;

-- The target of a job: the key its rows are kept by (docs/scale-out.md), so that the job's
-- queries, row locks included, go to one shard on a distributed database. NULL for an unknown
-- job. A job's target never changes, so the last one found is kept for the session and only
-- checked again by its key: a crawl asks on every batch, and on a distributed database a
-- lookup by the job alone reads every shard of the jobs, one by the target a single shard.
CREATE FUNCTION kerai._job_target(job uuid) RETURNS uuid
LANGUAGE plpgsql STABLE AS $$
DECLARE
    seen text := current_setting('kerai.job_target', true);
    t uuid;
BEGIN
    IF seen IS NOT NULL AND split_part(seen, ' ', 1) = job::text THEN
        t := split_part(seen, ' ', 2)::uuid;
        IF EXISTS (SELECT 1 FROM kerai.scrape_jobs s WHERE s.target_id = t AND s.id = job) THEN
            RETURN t;
        END IF;
    END IF;
    t := (SELECT s.target_id FROM kerai.scrape_jobs s WHERE s.id = job);
    IF t IS NOT NULL THEN
        PERFORM set_config('kerai.job_target', job::text || ' ' || t::text, false);
    END IF;
    RETURN t;
END
$$;

CREATE FUNCTION kerai._job_log(job uuid, level text, event text, message text, url text DEFAULT NULL,
                               details jsonb DEFAULT '{}'::jsonb) RETURNS void
-- PL/pgSQL, not SQL: its plan is kept for the session (a crawl logs twice per page).
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    t uuid := kerai._job_target(job);
BEGIN
    IF t IS NOT NULL THEN
        INSERT INTO kerai.job_logs (job_id, target_id, level, event, message, url, details)
        VALUES (job, t, upper(level), event, kerai.redact_secrets(message), kerai.redact_secrets(url),
                kerai.redact_secrets(coalesce(details, '{}'::jsonb)::text)::jsonb);
    END IF;
END
$$;

-- Log lines of a job in one INSERT, in the order given: logs is [{level, event, message, url,
-- details}] (kerai._job_record writes a batch's lines with it).
CREATE FUNCTION kerai._job_log_many(job uuid, logs jsonb) RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    t uuid := kerai._job_target(job);
BEGIN
    -- ON CONFLICT (there is none: the ids are new) makes Citus insert the rows with INSERT, not
    -- COPY, which row-level security refuses.
    INSERT INTO kerai.job_logs (job_id, target_id, level, event, message, url, details)
    SELECT job, t, upper(l->>'level'), l->>'event', kerai.redact_secrets(l->>'message'),
           kerai.redact_secrets(l->>'url'), kerai.redact_secrets(coalesce(l->'details', '{}'::jsonb)::text)::jsonb
      FROM jsonb_array_elements(logs) WITH ORDINALITY x(l, ord)
     WHERE t IS NOT NULL
     ORDER BY x.ord
    ON CONFLICT DO NOTHING;
END
$$;

-- ---------------------------------------------------------------- jobs

-- Queue a crawl of `target`. At most one PENDING job per target: asking again returns it.
-- When a job of the target is RUNNING, if_running = 'refuse' raises an error naming it and
-- 'queue' queues this one behind it.
CREATE FUNCTION kerai.enqueue_job(target text, mode text DEFAULT 'incremental', options jsonb DEFAULT '{}'::jsonb,
                                  launched_by text DEFAULT current_user, if_running text DEFAULT 'queue')
RETURNS uuid
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_editor', 'kerai.enqueue_job');
    t kerai.targets := kerai._target(target);
    running uuid;
    job uuid;
BEGIN
    IF if_running NOT IN ('refuse', 'queue') THEN
        RAISE EXCEPTION 'if_running must be refuse or queue, not "%"', if_running USING ERRCODE = '22023';
    END IF;
    IF NOT t.is_active THEN
        -- A schedule of a disabled target queues nothing, and says so once a run.
        IF launched_by = 'pg_cron' THEN
            INSERT INTO kerai.job_logs (target_id, level, event, message)
            VALUES (t.id, 'INFO', 'SCHEDULE_SKIPPED', format('target %s is disabled: the scheduled crawl was not queued', t.name));
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'target "%" is disabled', t.name USING ERRCODE = '55000',
            HINT = format('enable it: kerai config enable %s (or SELECT kerai.set_target_active(%L, true))', t.name, t.name);
    END IF;
    PERFORM 1 FROM kerai.targets WHERE id = t.id FOR UPDATE;
    SELECT j.id INTO running FROM kerai.scrape_jobs j WHERE j.target_id = t.id AND j.status = 'RUNNING'
     ORDER BY j.started_at LIMIT 1;
    IF running IS NOT NULL AND if_running = 'refuse' THEN
        RAISE EXCEPTION 'a crawl of target "%" is already running (job %)', t.name, running USING ERRCODE = '55006',
            HINT = 'wait for it (kerai status), join it (kerai run --join), or queue another (kerai run --queue)';
    END IF;
    SELECT j.id INTO job FROM kerai.scrape_jobs j WHERE j.target_id = t.id AND j.status = 'PENDING';
    IF job IS NOT NULL THEN
        RETURN job;
    END IF;
    INSERT INTO kerai.scrape_jobs (target_id, mode, options, config_version, config, launched_by)
    VALUES (t.id, mode, coalesce(options, '{}'::jsonb), t.config_version, t.config, coalesce(launched_by, current_user))
    RETURNING id INTO job;
    PERFORM pg_notify('kerai_jobs', jsonb_build_object('job', job, 'target', t.name)::text);
    RETURN job;
END
$$;

-- Take a job to run: a given one, else the oldest PENDING one (of a target when given), or a
-- RUNNING one whose fetcher stopped renewing its lease (a crash): the caller resumes it.
CREATE FUNCTION kerai._job_begin(worker text, job uuid DEFAULT NULL, target text DEFAULT NULL,
                                 lease_seconds integer DEFAULT 60)
RETURNS SETOF kerai.scrape_jobs
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_fetcher', 'kerai._job_begin (the fetcher)');
    j kerai.scrape_jobs;
    t uuid := CASE WHEN target IS NULL THEN NULL ELSE (kerai._target(target)).id END;
    c record;
    found_one boolean := false;
    begun timestamptz := now();
BEGIN
    -- The candidates are read without locks (on a distributed database they span shards), then
    -- each is locked by its key (one shard) and checked again, skipped when another fetcher
    -- holds it.
    FOR c IN SELECT s.target_id, s.id FROM kerai.scrape_jobs s
              WHERE (job IS NULL OR s.id = job) AND (t IS NULL OR s.target_id = t)
                AND ((s.status = 'PENDING' AND (s.scheduled_at <= now() OR s.id = job))
                     OR (s.status = 'RUNNING' AND (s.lease_until < now() OR s.id = job)))
                AND s.target_id IN (SELECT tg.id FROM kerai.targets tg WHERE tg.is_active)
              ORDER BY (s.status = 'RUNNING') DESC, s.scheduled_at
              LIMIT 8 LOOP
        SELECT * INTO j FROM kerai.scrape_jobs s
         WHERE s.target_id = c.target_id AND s.id = c.id
           AND ((s.status = 'PENDING' AND (s.scheduled_at <= now() OR s.id = job))
                OR (s.status = 'RUNNING' AND (s.lease_until < now() OR s.id = job)))
           FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            found_one := true;
            EXIT;
        END IF;
    END LOOP;
    IF NOT found_one THEN
        RETURN;
    END IF;
    -- now() as a value: Citus refuses a function that is not immutable inside coalesce.
    UPDATE kerai.scrape_jobs s SET status = 'RUNNING', worker = worker, started_at = coalesce(s.started_at, begun),
           lease_until = now() + make_interval(secs => lease_seconds), heartbeat_at = now()
     WHERE s.target_id = j.target_id AND s.id = j.id RETURNING * INTO j;
    IF j.started_at >= now() - interval '1 second' AND j.heartbeat_at = j.started_at THEN
        PERFORM kerai._job_log(j.id, 'INFO', 'CRAWL_STARTED',
            format('crawl of %s started (%s, config version %s, launched by %s)',
                   (SELECT name FROM kerai.targets WHERE id = j.target_id), j.mode, j.config_version, j.launched_by),
            NULL, jsonb_build_object('mode', j.mode, 'options', j.options, 'config_version', j.config_version,
                                     'launched_by', j.launched_by, 'worker', worker));
    ELSE
        PERFORM kerai._job_log(j.id, 'WARN', 'CRAWL_RESUMED', format('worker %s resumed the job', worker));
    END IF;
    RETURN NEXT j;
END
$$;

-- Keep a job's lease (and the leases of the URLs this worker holds) alive.
CREATE FUNCTION kerai._job_heartbeat(job uuid, worker text, lease_seconds integer DEFAULT 60) RETURNS text
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    st text;
    t uuid;
BEGIN
    UPDATE kerai.scrape_jobs s SET lease_until = now() + make_interval(secs => lease_seconds), heartbeat_at = now()
     WHERE s.id = job AND s.status = 'RUNNING' RETURNING s.status, s.target_id INTO st, t;
    -- Rows the recorder holds are being finished: skip them, never wait (waiting here while the
    -- recorder waits for the job row would deadlock). By the job's target: one shard.
    UPDATE kerai.job_urls u SET lease_until = now() + make_interval(secs => lease_seconds)
     WHERE u.target_id = t
       AND u.id IN (SELECT x.id FROM kerai.job_urls x
                     WHERE x.target_id = t AND x.job_id = job AND x.status = 'leased' AND x.leased_by = worker
                     FOR UPDATE SKIP LOCKED);
    RETURN coalesce(st, (SELECT s.status FROM kerai.scrape_jobs s WHERE s.id = job));
END
$$;

-- The lock that orders a job's writers, until the transaction ends: batches of results being
-- recorded (kerai._job_record) take it shared, side by side; finishing, cancelling, taking over
-- or handing back the job (which change URLs another fetcher may be recording) take it alone,
-- after the batches in hand and before any that comes later. An advisory lock (the lock manager
-- queues it fairly: a steady stream of batches cannot starve a cancel), keyed by the job.
CREATE FUNCTION kerai._job_writers(job uuid, alone boolean) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF alone THEN
        PERFORM pg_advisory_xact_lock(8317, hashtext(job::text));
    ELSE
        PERFORM pg_advisory_xact_lock_shared(8317, hashtext(job::text));
    END IF;
END
$$;

-- The URLs of `urls` (a jsonb array of {url, url_hash, ...}) that job does not have yet, in
-- their order (NULL when none): looked up by their hashes in the job's index (a join would read
-- all the job's URLs). A URL without a hash is kept (adding it then fails).
CREATE FUNCTION kerai._job_new_urls(job uuid, urls jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
    t uuid := kerai._job_target(job);
    known text[] := ARRAY(SELECT k.url_hash FROM kerai.job_urls k
                           WHERE k.target_id = t AND k.job_id = job
                             AND k.url_hash = ANY (ARRAY(SELECT e->>'url_hash' FROM jsonb_array_elements(urls) e)));
BEGIN
    RETURN (SELECT jsonb_agg(x.u ORDER BY x.ord)
              FROM jsonb_array_elements(urls) WITH ORDINALITY x(u, ord)
             WHERE NOT coalesce(x.u->>'url_hash' = ANY (known), false));
END
$$;

-- Add URLs to a job (seeds, sitemap entries, discovered links); at most max_pages per job.
-- urls: [{url, url_hash, host, depth, discovered_from, via, sitemap}]. Returns how many were new.
CREATE FUNCTION kerai._job_add_urls(job uuid, urls jsonb) RETURNS integer
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    j kerai.scrape_jobs;
    room integer;
    added integer;
    t uuid := kerai._job_target(job);
BEGIN
    IF urls IS NULL OR jsonb_array_length(urls) = 0 THEN
        RETURN 0;
    END IF;
    -- URLs the job has already are left out first, before taking the job's row: a job's URL,
    -- once made, stays. A re-crawl's links are nearly all known, and then nothing waits for it.
    urls := kerai._job_new_urls(job, urls);
    IF urls IS NULL THEN
        RETURN 0;
    END IF;
    -- The job's row, for its budget (urls_enqueued): recorders of the job add their links in
    -- turn, at the end of their batch.
    SELECT * INTO j FROM kerai.scrape_jobs s WHERE s.target_id = t AND s.id = job FOR NO KEY UPDATE;
    room := coalesce((j.config->>'max_pages')::integer, 1000000) - j.urls_enqueued;
    IF room <= 0 THEN
        added := 0;
    ELSE
    WITH ins AS (
        INSERT INTO kerai.job_urls (job_id, target_id, url, url_hash, host, depth, discovered_from, via, sitemap)
        SELECT job, j.target_id, u->>'url', u->>'url_hash', u->>'host', coalesce((u->>'depth')::integer, 0),
               u->>'discovered_from', coalesce(u->>'via', 'link'), u->'sitemap'
          -- Known URLs are left out before the INSERT (again: another recorder may have added
          -- some since): ON CONFLICT would wait for another recorder finishing that URL's row
          -- while this one holds the job's row, and that one waits for the job's row (a
          -- deadlock). New rows are only made under the job's row.
          FROM (SELECT u, min(ord) AS ord
                  FROM jsonb_array_elements(coalesce(kerai._job_new_urls(job, urls), '[]')) WITH ORDINALITY x(u, ord)
                GROUP BY u) d
         ORDER BY d.ord
         LIMIT room
        ON CONFLICT ON CONSTRAINT job_urls_once_per_job DO NOTHING
        RETURNING 1
    )
    SELECT count(*) INTO added FROM ins;
    UPDATE kerai.scrape_jobs s SET urls_enqueued = s.urls_enqueued + added WHERE s.target_id = j.target_id AND s.id = job;
    END IF;
    -- The budget cut the crawl short: say so once (the job then exits 1, see job_metrics).
    IF added >= room AND NOT coalesce((j.metrics->>'max_pages_reached')::boolean, false)
       AND EXISTS (SELECT 1 FROM jsonb_array_elements(urls) u
                    WHERE NOT EXISTS (SELECT 1 FROM kerai.job_urls x WHERE x.job_id = job AND x.url_hash = u->>'url_hash')) THEN
        UPDATE kerai.scrape_jobs s SET metrics = s.metrics || '{"max_pages_reached": true}' WHERE s.id = job;
        PERFORM kerai._job_log(job, 'WARN', 'MAX_PAGES',
            format('max_pages %s reached: further URLs were not queued', j.config->>'max_pages'));
    END IF;
    RETURN added;
END
$$;

-- Lease up to `n` URLs of a job, taking hosts in turn (fair across hosts), lowest depth
-- first; with what the last scrape of each page left (validators for conditional GET).
CREATE FUNCTION kerai._job_claim_urls(job uuid, worker text, n integer DEFAULT 32, lease_seconds integer DEFAULT 120)
RETURNS TABLE (id bigint, url text, url_hash text, host text, depth integer, via text, discovered_from text,
               sitemap jsonb, attempts integer, etag text, last_modified text, last_scraped_at timestamptz,
               last_status text, source_type text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    t uuid := kerai._job_target(_job_claim_urls.job);
    picked bigint[];
    claimed bigint[] := '{}';
    item bigint;
BEGIN
    -- Every query by the job's target: one shard on a distributed database. The turn first:
    -- each host's next URL, shallowest first, so that one host does not take every fetch.
    picked := ARRAY(
        SELECT c.id FROM (
            SELECT u.id, u.depth, row_number() OVER (PARTITION BY u.host ORDER BY u.depth, u.id) AS turn
              FROM (SELECT x.id, x.host, x.depth FROM kerai.job_urls x
                     WHERE x.target_id = t AND x.job_id = _job_claim_urls.job
                       AND (x.status = 'pending' OR (x.status = 'leased' AND x.lease_until < now()))
                     ORDER BY x.depth, x.id
                     LIMIT greatest(_job_claim_urls.n * 8, 256)) u) c
         ORDER BY c.turn, c.depth, c.id
         LIMIT _job_claim_urls.n);
    -- Then the lease, skipping a URL another fetcher took meanwhile.
    FOR item IN
        UPDATE kerai.job_urls u SET status = 'leased', leased_by = _job_claim_urls.worker,
               lease_until = now() + make_interval(secs => _job_claim_urls.lease_seconds)
         WHERE u.target_id = t
           AND u.id IN (SELECT x.id FROM kerai.job_urls x
                         WHERE x.target_id = t AND x.id = ANY (picked)
                           AND (x.status = 'pending' OR (x.status = 'leased' AND x.lease_until < now()))
                           FOR UPDATE SKIP LOCKED)
        RETURNING u.id
    LOOP
        claimed := claimed || item;
    END LOOP;
    RETURN QUERY
    SELECT c.id, c.url, c.url_hash, c.host, c.depth, c.via, c.discovered_from, c.sitemap, c.attempts,
           p.etag, p.last_modified, p.last_scraped_at, p.last_status, p.source_type
      FROM kerai.job_urls c
      LEFT JOIN kerai.pages p ON p.target_id = c.target_id AND p.url_hash = c.url_hash
     WHERE c.target_id = t AND c.id = ANY (claimed)
     ORDER BY c.id;
END
$$;

-- Take job `job` over from `holder`, a fetcher the caller knows is gone (on the caller's host,
-- with no such process): the URLs it held go back to the queue at once instead of when their
-- leases end, and the caller then starts the job with kerai._job_begin. False when the job is
-- not running under `holder` (it ended, or another fetcher took it).
CREATE FUNCTION kerai._job_take_over(job uuid, worker text, holder text) RETURNS boolean
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_fetcher', 'kerai._job_take_over (the fetcher)');
    released integer;
    t uuid := kerai._job_target(job);
BEGIN
    PERFORM kerai._job_writers(job, true);
    PERFORM 1 FROM kerai.scrape_jobs s
      WHERE s.target_id = t AND s.id = job AND s.status = 'RUNNING' AND s.worker = holder FOR UPDATE;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    UPDATE kerai.job_urls u SET status = 'pending', leased_by = NULL, lease_until = NULL
     WHERE u.target_id = t AND u.job_id = job AND u.status = 'leased' AND u.leased_by = holder;
    GET DIAGNOSTICS released = ROW_COUNT;
    PERFORM kerai._job_log(job, 'WARN', 'CRAWL_TAKEN_OVER',
        format('fetcher %s is gone; %s takes the job over (%s URLs it held are queued again)', holder, worker, released),
        NULL, jsonb_build_object('holder', holder, 'worker', worker, 'released', released));
    RETURN true;
END
$$;

-- Hand job `job` back: a fetcher that stops (SIGTERM) or lost its connection mid-job ends its
-- lease now and returns the URLs it held to the queue, so the next fetcher (or itself, once
-- reconnected) resumes the job at once (kerai._job_begin takes a RUNNING job whose lease ended)
-- instead of when the leases run out. The URLs `worker` held go back to the queue whether or not
-- it holds the job (one that joined it holds URLs only): what it fetched and had not written is
-- gone with its run, and left leased, its next run's heartbeat would keep them from everyone.
-- True when the job ran under `worker` and was handed back.
CREATE FUNCTION kerai._job_release(job uuid, worker text, reason text) RETURNS boolean
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_fetcher', 'kerai._job_release (the fetcher)');
    held boolean;
    released integer;
BEGIN
    PERFORM kerai._job_writers(job, true);
    UPDATE kerai.scrape_jobs s SET lease_until = now() - interval '1 millisecond'
     WHERE s.id = job AND s.status = 'RUNNING' AND s.worker = worker;
    held := FOUND;
    UPDATE kerai.job_urls u SET status = 'pending', leased_by = NULL, lease_until = NULL
     WHERE u.job_id = job AND u.status = 'leased' AND u.leased_by = worker;
    GET DIAGNOSTICS released = ROW_COUNT;
    IF NOT held AND released = 0 THEN
        RETURN false;
    END IF;
    PERFORM kerai._job_log(job, 'INFO', 'CRAWL_RELEASED',
        format('%s handed %s back (%s); %s URL%s it held %s queued again', worker,
               CASE WHEN held THEN 'the job' ELSE 'its part of the job' END, reason, released,
               CASE WHEN released = 1 THEN '' ELSE 's' END, CASE WHEN released = 1 THEN 'is' ELSE 'are' END),
        NULL, jsonb_build_object('worker', worker, 'reason', reason, 'released', released, 'held_the_job', held));
    PERFORM pg_notify('kerai_jobs', jsonb_build_object('job', job)::text);
    RETURN held;
END
$$;

-- Make a page an alias of another: it keeps no version of its own (earlier ones stay, as
-- history), the chunks made from its own URL go (chunks of a URL it redirected to are that
-- page's), and the pages that were its aliases follow it.
CREATE FUNCTION kerai._page_alias(page uuid, alias uuid, why text) RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    own_url text;
    t uuid;
BEGIN
    SELECT p.url, p.target_id INTO own_url, t FROM kerai.pages p WHERE p.id = page;
    -- The versions first (the target's shard), then their chunks (the documents' shards).
    DELETE FROM kerai.chunks c
     WHERE c.page_version_id = ANY (ARRAY(SELECT v.id FROM kerai.page_versions v
                                           WHERE v.target_id = t AND v.page_id = page))
       AND c.chunk_key = own_url;
    UPDATE kerai.pages x SET alias_of = alias, alias_reason = why, current_version = NULL, last_status = 'duplicate',
           etag = NULL, last_modified = NULL
     WHERE x.target_id = t AND x.id = page;
    UPDATE kerai.pages x SET alias_of = alias WHERE x.target_id = t AND x.alias_of = page;
END
$$;

-- The live page of a target whose current text is nearest a signature: sharing a band, at an
-- estimated similarity of 0.9 or more (kerai_core::site::near_duplicates). At most 64 pages
-- that share a band are compared (those stored first), so that a site of many pages of one
-- template costs no more per page than any other. It reads past row-level security, so that
-- the band index serves the fetcher (&& is not leakproof), and answers a page id and a
-- similarity only; for the fetcher role (sql/ops_roles.sql).
CREATE FUNCTION kerai._near_duplicate(target uuid, page uuid, sig bigint[], sig_bands bigint[],
                                      OUT near uuid, OUT similarity real)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    SELECT c.id, c.sim INTO near, similarity FROM (
        SELECT o.id, o.first_seen_at, kerai._minhash_similarity(v.minhash, sig) AS sim
          FROM kerai.page_versions v JOIN kerai.pages o ON o.target_id = v.target_id AND o.current_version = v.id
         WHERE v.minhash_bands && sig_bands AND v.target_id = target AND o.id <> page AND o.alias_of IS NULL
         LIMIT 64) c
     WHERE c.sim >= 0.9
     ORDER BY c.sim DESC, c.first_seen_at, c.id LIMIT 1;
END
$$;

-- Fresh statistics for the tables a crawl grows, while they are young. Autovacuum analyzes a
-- table at most once a minute; the first crawl of a site grows pages, versions, URLs, nodes and
-- chunks from nothing faster than that, and a plan made while a table looked empty (PL/pgSQL
-- keeps its plans for the session) then reads the whole table, or a whole index, for every
-- page. A table is analyzed here when its changes since the last ANALYZE reach twice its size
-- (a few times in a first crawl), and only below 100,000 rows, where autovacuum's own pace is
-- enough. With `settle` (a crawl job's end, kerai._job_finish), every such young table is
-- analyzed (the counts of changes lag the fetchers' last writes by seconds), so what the crawl
-- stored is in the statistics search weighs words by (kerai._fts_terms), whatever autovacuum's
-- timing. It gives way at once to an
-- ANALYZE already running. Runs as the owner (ANALYZE needs it), for the fetcher's
-- kerai._job_record and kerai._job_finish (sql/ops_roles.sql). Returns how many tables it
-- analyzed.
CREATE FUNCTION kerai._analyze_grown(settle boolean DEFAULT false) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '100ms' AS $$
DECLARE
    t regclass;
    n integer := 0;
    distributed boolean := false;
BEGIN
    -- On a distributed database the shards keep their own statistics (each worker's
    -- autovacuum); the coordinator's tables hold no rows.
    IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = ''kerai.nodes''::regclass)'
           INTO distributed;
        IF distributed THEN
            RETURN 0;
        END IF;
    END IF;
    FOREACH t IN ARRAY ARRAY['kerai.pages', 'kerai.page_versions', 'kerai.job_urls', 'kerai.nodes',
                             'kerai.chunks']::regclass[] LOOP
        IF (SELECT c.reltuples < 100000
                   AND (settle OR pg_stat_get_mod_since_analyze(c.oid) > 2 * greatest(c.reltuples, 0) + 200)
              FROM pg_class c WHERE c.oid = t) THEN
            BEGIN
                EXECUTE format('ANALYZE %s', t);
                n := n + 1;
            EXCEPTION WHEN lock_not_available THEN
                NULL;
            END;
        END IF;
    END LOOP;
    RETURN n;
END
$$;

-- Record a batch of results from a fetcher. Each result:
--   {url_id, outcome: fetched | not_modified | failed | skipped, final_url, http: {status, etag,
--    last_modified, content_type, ...}, content_hash, raw_html, markdown, source_type, metadata,
--    links: [...] (as for _job_add_urls), error: {kind, message}, attempts: how many times the
--    URL was requested (absent: once, none when skipped), canonical: {url, url_hash, ...} (its
--    rel=canonical, another URL of the scope), signature: {minhash, bands}}
--    (kerai_core::wire::site_result)
-- A result for a URL whose lease this worker lost (it expired and another fetcher took it) is
-- dropped, so a slow or killed fetcher never writes a page twice.
-- Duplicates (docs/sql.md#duplicate-pages): a fetched page becomes an alias of another
-- page of the target (outcome duplicate, no version or document of its own) when its
-- rel=canonical names that page, or when its text is that page's current text; a new version
-- whose signature resembles another page's current one (>= 0.9) is flagged near_duplicate_of.
CREATE FUNCTION kerai._job_record(job uuid, worker text, results jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    j kerai.scrape_jobs;
    r jsonb;
    u kerai.job_urls;
    p_id uuid;
    p_current uuid;
    p_alias uuid;
    p_first timestamptz;
    was_new boolean;
    canon kerai.pages;
    declared uuid;
    alias uuid;
    alias_why text;
    note text;
    sig bigint[];
    bands bigint[];
    near uuid;
    near_sim real;
    kept_type text;
    kept_links jsonb;
    prev_hash text;
    version uuid;
    doc uuid;
    outcome text;
    st text;
    meta jsonb;
    -- The batch's log lines and discovered links, written once at the end (one INSERT each
    -- instead of several per page).
    logs jsonb := '[]';
    links jsonb := '[]';
    counts jsonb := '{"new": 0, "updated": 0, "unchanged": 0, "duplicate": 0, "failed": 0, "skipped": 0, "stale": 0, "links": 0}';
    handled bigint[] := '{}';
BEGIN
    -- Recorders of one job work side by side (a fetcher writes on two connections, and several
    -- fetchers may share a job; kerai._job_writers). The links are added at the end
    -- (kerai._job_add_urls takes the job's row, in turn); two pages with one text are judged in
    -- turn (a lock on the text below).
    PERFORM kerai._job_writers(job, false);
    SELECT * INTO j FROM kerai.scrape_jobs s WHERE s.id = job;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'scrape job % does not exist', job USING ERRCODE = '22023';
    END IF;
    -- Unchanged pages (a 304, or the sitemap's lastmod) are most of a re-crawl: they are
    -- recorded together, one statement per table, instead of one by one in the loop below,
    -- which takes what this leaves (a URL not leased to this worker, a page not stored yet).
    WITH res AS (
        SELECT DISTINCT ON ((e->>'url_id')::bigint) (e->>'url_id')::bigint AS url_id, e AS r
          FROM jsonb_array_elements(results) e
         WHERE e->>'outcome' = 'not_modified'
    ), mine AS (
        SELECT x.id, x.url, x.url_hash, x.depth, x.sitemap, res.r
          FROM res JOIN kerai.job_urls x ON x.id = res.url_id
         WHERE x.target_id = j.target_id AND x.job_id = job AND x.status = 'leased' AND x.leased_by = worker
           FOR UPDATE OF x
    ), seen AS (
        UPDATE kerai.pages pg
           SET last_seen_at = now(),
               sitemap_lastmod = coalesce(kerai._sitemap_time(m.sitemap->>'lastmod'),
                                          pg.sitemap_lastmod),
               changefreq = coalesce(m.sitemap->>'changefreq', pg.changefreq),
               priority = coalesce((m.sitemap->>'priority')::float8, pg.priority),
               last_status = CASE WHEN pg.alias_of IS NULL THEN 'unchanged' ELSE 'duplicate' END,
               last_scraped_at = now(), scrape_count = pg.scrape_count + 1,
               http_status = coalesce((m.r->'http'->>'status')::integer, pg.http_status), last_error = NULL
          FROM mine m
         WHERE pg.target_id = j.target_id AND pg.url_hash = m.url_hash
        RETURNING m.id, m.url, m.depth, m.r, pg.last_status AS outcome,
                  coalesce(m.r->>'source_type', pg.source_type) AS source_type, pg.outlinks
    ), done AS (
        UPDATE kerai.job_urls x
           SET status = 'done', outcome = s.outcome, source_type = coalesce(s.source_type, x.source_type),
               error_kind = s.r->'error'->>'kind', error = s.r->'error'->>'message', finished_at = now(),
               lease_until = NULL, attempts = x.attempts + coalesce((s.r->>'attempts')::integer, 1)
          FROM seen s
         WHERE x.target_id = j.target_id AND x.id = s.id
        RETURNING s.*
    )
    SELECT coalesce((SELECT array_agg(d.id) FROM done d), '{}'),
           jsonb_set(jsonb_set(counts,
               '{unchanged}', to_jsonb((SELECT count(*) FROM done d WHERE d.outcome = 'unchanged'))),
               '{duplicate}', to_jsonb((SELECT count(*) FROM done d WHERE d.outcome = 'duplicate'))),
           coalesce((SELECT jsonb_agg(x.line ORDER BY d.id, x.n)
                       FROM done d,
                            LATERAL (SELECT 0::bigint AS n,
                                            jsonb_build_object('level', 'INFO', 'event', 'ITEM_' || upper(d.outcome),
                                                'message', d.outcome || ': ' || d.url, 'url', d.url,
                                                'details', jsonb_strip_nulls(jsonb_build_object('source_type', d.source_type))) AS line
                                     UNION ALL
                                     SELECT e.n, e.line
                                       FROM jsonb_array_elements(CASE WHEN jsonb_typeof(d.r->'logs') = 'array'
                                                                      THEN d.r->'logs' ELSE '[]' END) WITH ORDINALITY AS e(line, n)) x), '[]'),
           coalesce((SELECT jsonb_agg(l || jsonb_build_object('depth', d.depth + 1, 'discovered_from', d.url))
                       FROM done d, jsonb_array_elements(d.outlinks) l
                      WHERE d.depth + 1 <= coalesce((j.config->>'max_depth')::integer, 5)
                        AND coalesce((j.config->>'follow_links')::boolean, true)), '[]')
      INTO handled, counts, logs, links;
    FOR r IN SELECT jsonb_array_elements(results) LOOP
        IF (r->>'url_id')::bigint = ANY (handled) THEN
            CONTINUE;
        END IF;
        SELECT * INTO u FROM kerai.job_urls x WHERE x.target_id = j.target_id AND x.id = (r->>'url_id')::bigint FOR UPDATE;
        IF NOT FOUND OR u.job_id <> job OR u.status <> 'leased' OR u.leased_by IS DISTINCT FROM worker THEN
            counts := jsonb_set(counts, '{stale}', to_jsonb((counts->>'stale')::integer + 1));
            CONTINUE;
        END IF;
        st := r->>'outcome';
        IF st = 'skipped' THEN
            UPDATE kerai.job_urls x SET status = 'skipped', outcome = 'skipped', error_kind = r->'error'->>'kind',
                   error = r->'error'->>'message', source_type = r->>'source_type', finished_at = now(), lease_until = NULL,
                   attempts = x.attempts + coalesce((r->>'attempts')::integer, 0)
             WHERE x.id = u.id;
            logs := logs || jsonb_build_object('level', 'WARN', 'event', 'ITEM_SKIPPED',
                'message', coalesce(r->'error'->>'message', 'skipped: ' || u.url), 'url', u.url,
                'details', jsonb_strip_nulls(jsonb_build_object('kind', r->'error'->>'kind')));
            counts := jsonb_set(counts, '{skipped}', to_jsonb((counts->>'skipped')::integer + 1));
            CONTINUE;
        END IF;

        INSERT INTO kerai.pages AS pg (target_id, url, url_hash, last_seen_at, sitemap_lastmod, changefreq, priority)
        VALUES (j.target_id, u.url, u.url_hash, now(),
                kerai._sitemap_time(u.sitemap->>'lastmod'),
                u.sitemap->>'changefreq', (u.sitemap->>'priority')::float8)
        ON CONFLICT ON CONSTRAINT pages_one_per_url DO UPDATE
            -- The new row's time, not now(): Citus takes no function but an immutable one here.
            SET last_seen_at = EXCLUDED.last_seen_at,
                sitemap_lastmod = coalesce(EXCLUDED.sitemap_lastmod, pg.sitemap_lastmod),
                changefreq = coalesce(EXCLUDED.changefreq, pg.changefreq),
                priority = coalesce(EXCLUDED.priority, pg.priority)
        RETURNING pg.id, pg.current_version, (pg.xmax = 0), pg.alias_of, pg.first_seen_at
             INTO p_id, p_current, was_new, p_alias, p_first;
        -- (xmax = 0): the row was inserted just now. A page that never got a version is new too.
        was_new := was_new OR p_current IS NULL;

        IF st = 'failed' THEN
            outcome := 'failed';
            UPDATE kerai.pages x SET last_status = 'failed', last_error = r->'error'->>'message',
                   http_status = coalesce((r->'http'->>'status')::integer, x.http_status),
                   last_scraped_at = now(), scrape_count = x.scrape_count + 1
             WHERE x.id = p_id;
            logs := logs || jsonb_build_object('level', 'ERROR', 'event', 'ITEM_FAILED',
                'message', coalesce(r->'error'->>'message', 'failed: ' || u.url), 'url', u.url,
                'details', jsonb_strip_nulls(jsonb_build_object('kind', r->'error'->>'kind',
                                                                'http_status', r->'http'->'status')));
        ELSIF st = 'not_modified' THEN
            outcome := CASE WHEN p_alias IS NULL THEN 'unchanged' ELSE 'duplicate' END;
            UPDATE kerai.pages x SET last_status = outcome, last_scraped_at = now(), scrape_count = x.scrape_count + 1,
                   http_status = coalesce((r->'http'->>'status')::integer, x.http_status), last_error = NULL
             WHERE x.id = p_id
            RETURNING coalesce(r->>'source_type', x.source_type),
                      CASE WHEN u.depth + 1 <= coalesce((j.config->>'max_depth')::integer, 5)
                                AND coalesce((j.config->>'follow_links')::boolean, true)
                           THEN (SELECT jsonb_agg(l || jsonb_build_object('depth', u.depth + 1, 'discovered_from', u.url))
                                   FROM jsonb_array_elements(x.outlinks) l) END
              INTO kept_type, kept_links;
            r := r || jsonb_strip_nulls(jsonb_build_object('source_type', kept_type, 'links', kept_links));
        ELSIF st = 'fetched' THEN
            SELECT v.content_hash INTO prev_hash FROM kerai.page_versions v WHERE v.id = p_current;
            -- Its rel=canonical names another page of the target (made, and queued, when not
            -- known yet). An alias only of a page that has text (or is itself an alias), and
            -- never of an alias of this one; until then it is stored, naming the page it
            -- declared (metadata canonical_page), and judged again on its next fetch.
            IF r->'canonical'->>'url_hash' IS NOT NULL AND r->'canonical'->>'url_hash' <> u.url_hash THEN
                INSERT INTO kerai.pages (target_id, url, url_hash) VALUES (j.target_id, r->'canonical'->>'url', r->'canonical'->>'url_hash')
                ON CONFLICT ON CONSTRAINT pages_one_per_url DO NOTHING;
                SELECT * INTO canon FROM kerai.pages c WHERE c.target_id = j.target_id AND c.url_hash = r->'canonical'->>'url_hash';
                links := links || jsonb_build_array(r->'canonical');
                IF coalesce(canon.alias_of, canon.id) <> p_id THEN
                    IF canon.current_version IS NOT NULL OR canon.alias_of IS NOT NULL THEN
                        alias := coalesce(canon.alias_of, canon.id);
                        alias_why := 'canonical';
                    ELSE
                        declared := canon.id;
                    END IF;
                END IF;
            END IF;
            -- Its text and title are the current text and title of another live page of the
            -- target (not one that declared this page its canonical page): pages of one
            -- template that differ only by their title are different pages. A page already
            -- stored with this text gives way only to one first seen before it.
            IF alias IS NULL AND coalesce(btrim(r->>'markdown'), '') <> '' AND r->>'content_hash' IS NOT NULL THEN
                -- Another recorder with the same text waits here until this batch is written,
                -- then finds this page.
                PERFORM pg_advisory_xact_lock(hashtextextended(j.target_id::text || ':' || (r->>'content_hash'), 0));
                SELECT o.id INTO alias
                  FROM kerai.page_versions v JOIN kerai.pages o ON o.target_id = v.target_id AND o.current_version = v.id
                 WHERE v.content_hash = r->>'content_hash' AND v.target_id = j.target_id AND o.target_id = j.target_id
                   AND v.title IS NOT DISTINCT FROM r->'metadata'->>'title'
                   AND o.id <> p_id AND o.alias_of IS NULL AND o.last_status IN ('new', 'updated', 'unchanged')
                   AND (v.metadata->>'canonical_page') IS DISTINCT FROM p_id::text
                   AND (prev_hash IS DISTINCT FROM r->>'content_hash' OR (o.first_seen_at, o.id) < (p_first, p_id))
                 ORDER BY o.first_seen_at, o.id LIMIT 1;
                alias_why := CASE WHEN alias IS NOT NULL THEN 'duplicate' END;
            END IF;
            IF alias IS NOT NULL THEN
                outcome := 'duplicate';
                PERFORM kerai._page_alias(p_id, alias, alias_why);
                UPDATE kerai.pages x SET last_scraped_at = now(), scrape_count = x.scrape_count + 1,
                       http_status = (r->'http'->>'status')::integer, content_type = r->'http'->>'content_type',
                       source_type = r->>'source_type', last_error = NULL, outlinks = r->'links'
                 WHERE x.id = p_id;
                note := format(' (alias of %s, %s)', (SELECT o.url FROM kerai.pages o WHERE o.id = alias),
                               CASE alias_why WHEN 'canonical' THEN 'its canonical page' ELSE 'the same text' END);
            ELSIF prev_hash IS NOT NULL AND prev_hash = r->>'content_hash' AND NOT coalesce((r->>'force')::boolean, false) THEN
                outcome := 'unchanged';
                UPDATE kerai.pages x SET last_status = 'unchanged', last_scraped_at = now(), scrape_count = x.scrape_count + 1,
                       http_status = (r->'http'->>'status')::integer,
                       -- no validators for a page waiting on its canonical page: fetched whole next time
                       etag = CASE WHEN declared IS NULL THEN r->'http'->>'etag' END,
                       last_modified = CASE WHEN declared IS NULL THEN r->'http'->>'last_modified' END, last_error = NULL, outlinks = r->'links'
                 WHERE x.id = p_id;
            ELSE
                outcome := CASE WHEN was_new THEN 'new' ELSE 'updated' END;
                version := gen_random_uuid();
                meta := coalesce(r->'metadata', '{}'::jsonb) || jsonb_strip_nulls(jsonb_build_object(
                    'source_url', coalesce(r->>'final_url', u.url),
                    'parent_url', u.discovered_from,
                    'source_type', r->>'source_type',
                    'target', (SELECT name FROM kerai.targets WHERE id = j.target_id),
                    'page_id', p_id,
                    'page_version', version,
                    'last_modified', r->'http'->>'last_modified',
                    'crawl_timestamp', now(),
                    'fetched_at', now(),
                    'canonical_page', declared));
                doc := NULL;
                IF coalesce(btrim(r->>'markdown'), '') <> '' THEN
                    doc := kerai.parse_markdown(r->>'markdown', meta);
                END IF;
                -- A near-duplicate: another live page's current text shares a band and reaches
                -- an estimated similarity of 0.9 (kerai_core::site::near_duplicates).
                bands := NULL;
                IF jsonb_typeof(r->'signature'->'minhash') = 'array' AND jsonb_typeof(r->'signature'->'bands') = 'array' THEN
                    sig := ARRAY(SELECT x::bigint FROM jsonb_array_elements_text(r->'signature'->'minhash') x);
                    bands := ARRAY(SELECT x::bigint FROM jsonb_array_elements_text(r->'signature'->'bands') x);
                    SELECT n.near, n.similarity INTO near, near_sim FROM kerai._near_duplicate(j.target_id, p_id, sig, bands) n;
                END IF;
                INSERT INTO kerai.page_versions (id, page_id, target_id, job_id, content_hash, raw_html, http_metadata,
                                                 source_type, title, language, content_length, metadata, document_id,
                                                 minhash, minhash_bands, near_duplicate_of, similarity)
                VALUES (version, p_id, j.target_id, job, r->>'content_hash', r->>'raw_html', coalesce(r->'http', '{}'::jsonb),
                        r->>'source_type', meta->>'title', meta->>'language', length(r->>'markdown'), meta, doc,
                        sig, bands, near, near_sim);
                PERFORM kerai._document_ingested(doc);
                UPDATE kerai.pages x SET last_status = outcome, last_scraped_at = now(), scrape_count = x.scrape_count + 1,
                       http_status = (r->'http'->>'status')::integer,
                       -- no validators for a page waiting on its canonical page: fetched whole next time
                       etag = CASE WHEN declared IS NULL THEN r->'http'->>'etag' END,
                       last_modified = CASE WHEN declared IS NULL THEN r->'http'->>'last_modified' END, content_type = r->'http'->>'content_type',
                       source_type = r->>'source_type', current_version = version, last_error = NULL,
                       outlinks = r->'links', alias_of = NULL, alias_reason = NULL
                 WHERE x.id = p_id;
                logs := logs || jsonb_build_object('level', 'INFO',
                    'event', CASE WHEN coalesce(r->>'source_type', 'html') = 'html' THEN 'PAGE_FETCHED' ELSE 'DOC_DOWNLOADED' END,
                    'message', format('%s %s (%s bytes)', CASE WHEN coalesce(r->>'source_type', 'html') = 'html' THEN 'fetched' ELSE 'downloaded' END,
                                      u.url, coalesce(r->'http'->>'bytes', '?')),
                    'url', u.url, 'details', jsonb_strip_nulls(jsonb_build_object('http_status', r->'http'->'status',
                           'source_type', r->>'source_type', 'elapsed_ms', r->'http'->'elapsed_ms')));
            END IF;
        ELSE
            RAISE EXCEPTION 'result for % has unknown outcome "%"', u.url, st USING ERRCODE = '22023',
                HINT = 'outcome is fetched, not_modified, failed or skipped';
        END IF;

        IF outcome <> 'failed' THEN
            logs := logs || jsonb_build_object('level', 'INFO', 'event', 'ITEM_' || upper(outcome),
                'message', outcome || ': ' || u.url || coalesce(note, ''), 'url', u.url,
                'details', jsonb_strip_nulls(jsonb_build_object('source_type', r->>'source_type', 'document', doc,
                                                                'alias_of', alias, 'near_duplicate_of', near,
                                                                'similarity', near_sim)));
        END IF;
        UPDATE kerai.job_urls x SET status = CASE WHEN outcome = 'failed' THEN 'failed' ELSE 'done' END,
               outcome = outcome, source_type = coalesce(r->>'source_type', x.source_type),
               error_kind = r->'error'->>'kind', error = r->'error'->>'message', finished_at = now(), lease_until = NULL,
               attempts = x.attempts + coalesce((r->>'attempts')::integer, 1)
         WHERE x.id = u.id;
        counts := jsonb_set(counts, ARRAY[outcome], to_jsonb((counts->>outcome)::integer + 1));
        IF jsonb_typeof(r->'logs') = 'array' THEN
            logs := logs || (r->'logs');
        END IF;
        IF jsonb_typeof(r->'links') = 'array' THEN
            links := links || (r->'links');
        END IF;
        -- What one result set is cleared for the next (a skipped or stale result sets none).
        doc := NULL;
        note := NULL;
        alias := NULL;
        alias_why := NULL;
        declared := NULL;
        sig := NULL;
        near := NULL;
        near_sim := NULL;
    END LOOP;
    PERFORM kerai._job_log_many(job, logs);
    IF jsonb_array_length(links) > 0 THEN
        counts := jsonb_set(counts, '{links}', to_jsonb((counts->>'links')::integer + kerai._job_add_urls(job, links)));
    END IF;
    PERFORM kerai._analyze_grown();
    RETURN counts;
END
$$;

-- Per-run metrics, computed from the job's URLs and logs.
-- Views and queries over the jobs call it for each row, which Citus runs on the job's shard:
-- the queries here then run from there (citus.allow_nested_distributed_execution; they only
-- read, and the job's rows are on that shard's machine).
CREATE FUNCTION kerai.job_metrics(job uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE SET citus.allow_nested_distributed_execution = on AS $$
#variable_conflict use_column
DECLARE
    t uuid := kerai._job_target(job_metrics.job);
    metrics jsonb;
BEGIN
    -- Every table by the job's target: one shard on a distributed database.
    WITH u AS (SELECT * FROM kerai.job_urls x WHERE x.target_id = t AND x.job_id = job_metrics.job),
    j AS (SELECT * FROM kerai.scrape_jobs x WHERE x.target_id = t AND x.id = job_metrics.job),
    m AS (
        SELECT count(*) FILTER (WHERE u.status IN ('done', 'failed')) AS items,
               count(*) FILTER (WHERE u.status IN ('done', 'failed') AND coalesce(u.source_type, 'html') = 'html') AS pages,
               count(*) FILTER (WHERE coalesce(u.source_type, 'html') <> 'html') AS docs_discovered,
               count(*) FILTER (WHERE u.status = 'done' AND coalesce(u.source_type, 'html') <> 'html') AS docs_processed,
               count(*) FILTER (WHERE u.outcome = 'new') AS new_count,
               count(*) FILTER (WHERE u.outcome = 'updated') AS updated_count,
               count(*) FILTER (WHERE u.outcome = 'unchanged') AS unchanged_count,
               count(*) FILTER (WHERE u.outcome = 'duplicate') AS duplicate_count,
               count(*) FILTER (WHERE u.outcome = 'failed') AS error_count,
               count(*) FILTER (WHERE u.status = 'skipped') AS skipped_count,
               count(*) FILTER (WHERE u.status IN ('pending', 'leased')) AS remaining,
               count(*) FILTER (WHERE u.error_kind = 'not_reached') AS not_reached,
               count(*) FILTER (WHERE u.via = 'seed' AND u.error_kind = 'robots_disallowed') AS robots_seeds
          FROM u
    ), logged AS (
        SELECT count(*) FILTER (WHERE l.event = 'MAX_RUNTIME') AS runtime,
               count(*) FILTER (WHERE l.event = 'MAX_PAGES') AS budget,
               count(*) FILTER (WHERE l.event = 'CRAWLER_TRAP') AS traps
          FROM kerai.job_logs l WHERE l.target_id = t AND l.job_id = job_metrics.job AND l.event IN ('MAX_RUNTIME', 'MAX_PAGES', 'CRAWLER_TRAP')
    ), left_out AS (
        -- What the run left out of its scope: any of it makes a finished job exit 1.
        SELECT coalesce(jsonb_agg(x.r ORDER BY x.ord), '[]'::jsonb) AS reasons FROM m, logged, j, LATERAL (
            SELECT 1, jsonb_build_object('reason', 'errors', 'count', m.error_count,
                                         'detail', format('%s URLs failed', m.error_count))
             WHERE m.error_count > 0
            UNION ALL
            SELECT 2, jsonb_build_object('reason', 'max_runtime', 'count', m.not_reached,
                                         'detail', format('max_runtime %s reached: %s URLs not fetched',
                                                          j.config->>'max_runtime', m.not_reached))
             WHERE logged.runtime > 0
            UNION ALL
            SELECT 3, jsonb_build_object('reason', 'not_reached', 'count', m.not_reached,
                                         'detail', format('%s URLs not reached before the job ended', m.not_reached))
             WHERE logged.runtime = 0 AND m.not_reached > 0
            UNION ALL
            SELECT 4, jsonb_build_object('reason', 'max_pages', 'count', j.urls_enqueued,
                                         'detail', format('max_pages %s reached: further URLs were not queued',
                                                          j.config->>'max_pages'))
             WHERE logged.budget > 0
            UNION ALL
            SELECT 5, jsonb_build_object('reason', 'crawler_trap', 'count', logged.traps,
                                         'detail', format('%s URL shapes stopped as crawler traps (trap_limit %s)',
                                                          logged.traps, j.config->>'trap_limit'))
             WHERE logged.traps > 0
            UNION ALL
            SELECT 6, jsonb_build_object('reason', 'robots_blocked_seeds', 'count', m.robots_seeds,
                                         'detail', format('%s seeds disallowed by robots.txt', m.robots_seeds))
             WHERE m.robots_seeds > 0
        ) x(ord, r)
    ), per_type AS (
        SELECT coalesce(jsonb_object_agg(t, c), '{}'::jsonb) AS subtotals FROM (
            SELECT coalesce(source_type, 'unknown') AS t,
                   jsonb_build_object('new', count(*) FILTER (WHERE outcome = 'new'),
                                      'updated', count(*) FILTER (WHERE outcome = 'updated'),
                                      'unchanged', count(*) FILTER (WHERE outcome = 'unchanged'),
                                      'duplicate', count(*) FILTER (WHERE outcome = 'duplicate'),
                                      'failed', count(*) FILTER (WHERE outcome = 'failed'),
                                      'skipped', count(*) FILTER (WHERE outcome = 'skipped'),
                                      'total', count(*)) AS c
              FROM u WHERE u.status IN ('done', 'failed', 'skipped') GROUP BY 1) x
    )
    SELECT jsonb_build_object(
        'duration_sec', round(extract(epoch FROM coalesce(j.finished_at, now()) - coalesce(j.started_at, now()))::numeric, 3),
        'pages_crawled', m.pages, 'items_processed', m.items,
        'docs_discovered', m.docs_discovered, 'docs_processed', m.docs_processed,
        'new_count', m.new_count, 'updated_count', m.updated_count, 'unchanged_count', m.unchanged_count,
        'duplicate_count', m.duplicate_count,
        'near_duplicate_count', (SELECT count(*) FROM kerai.page_versions v
                                  WHERE v.target_id = t AND v.job_id = job_metrics.job
                                    AND v.near_duplicate_of IS NOT NULL),
        'error_count', m.error_count, 'skipped_count', m.skipped_count, 'remaining', m.remaining,
        'warning_count', (SELECT count(*) FROM kerai.job_logs l
                           WHERE l.target_id = t AND l.job_id = job_metrics.job AND l.level = 'WARN'),
        'throughput_items_per_min', CASE WHEN extract(epoch FROM coalesce(j.finished_at, now()) - j.started_at) > 0
            THEN round((m.items * 60 / extract(epoch FROM coalesce(j.finished_at, now()) - j.started_at))::numeric, 1)
            ELSE 0 END,
        'subtotals', per_type.subtotals, 'left_out', left_out.reasons)
    INTO metrics
    FROM m, j, per_type, left_out;
    RETURN metrics;
END
$$;

-- The work a job still has, as `worker` sees it before finishing: `claimable`, its URLs that
-- nobody is fetching (pending, or leased by a fetcher whose lease ran out: a killed one), and
-- `held`, those other fetchers are fetching now (their results may add links). A fetcher
-- finishes a job only when both are 0 (site/runner.rs); kerai._job_finish checks again.
CREATE FUNCTION kerai._job_work_left(job uuid, worker text, OUT claimable bigint, OUT held bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    t uuid := kerai._job_target(job);
BEGIN
    SELECT count(*) FILTER (WHERE u.status = 'pending' OR u.lease_until < now()),
           count(*) FILTER (WHERE u.status = 'leased' AND u.lease_until >= now() AND u.leased_by IS DISTINCT FROM $2)
      INTO claimable, held
      FROM kerai.job_urls u WHERE u.target_id = t AND u.job_id = $1 AND u.status IN ('pending', 'leased');
END
$$;

-- Finish a job. status COMPLETED: exit code 0 when everything in scope was fetched or found
-- unchanged, 1 when something was left out (metrics->'left_out' says what). A COMPLETED
-- finish leaves the job RUNNING, unchanged, while work is left that nobody does (URLs pending,
-- or leased by a fetcher that is gone) and the job was not stopped by its max_runtime: the
-- caller crawls on (kerai._job_work_left). A job that is not RUNNING (queued again for a
-- retry by another worker's failure) is left as it is. FAILED:
-- retried (back to PENDING, after 30 s x 2^retry_count) while retry_count + 1 < max_retries,
-- keeping its unfinished URLs (leases released) for the retry to fetch; else final with exit
-- code 2. URLs left unfetched by a final job (max_runtime, failure) are marked skipped.
CREATE FUNCTION kerai._job_finish(job uuid, worker text, status text, error text DEFAULT NULL) RETURNS kerai.scrape_jobs
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    j kerai.scrape_jobs;
    m jsonb;
    code integer;
    fetched bigint;
    failed bigint;
    first_error text;
    final boolean := false;
    t uuid := kerai._job_target(job);
BEGIN
    PERFORM kerai._job_writers(job, true);
    SELECT * INTO j FROM kerai.scrape_jobs s WHERE s.target_id = t AND s.id = job FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'scrape job % does not exist', job USING ERRCODE = '22023';
    END IF;
    IF j.status IN ('COMPLETED', 'FAILED', 'CANCELLED') THEN
        RETURN j;
    END IF;
    IF status NOT IN ('COMPLETED', 'FAILED') THEN
        RAISE EXCEPTION 'a job finishes COMPLETED or FAILED, not %', status USING ERRCODE = '22023';
    END IF;
    -- Queued again for a retry while this worker still ran it: the retry runs it.
    IF j.status <> 'RUNNING' THEN
        RETURN j;
    END IF;
    -- Work nobody does is fetched, not skipped, unless the job ran out of time.
    IF status = 'COMPLETED' AND (kerai._job_work_left(job, worker)).claimable > 0
       AND NOT EXISTS (SELECT 1 FROM kerai.job_logs l WHERE l.job_id = job AND l.event = 'MAX_RUNTIME') THEN
        RETURN j;
    END IF;
    -- Another fetcher joined the job and still works on it: the last one out finishes it.
    IF status = 'COMPLETED' AND EXISTS (SELECT 1 FROM kerai.job_urls u WHERE u.job_id = job AND u.status = 'leased'
                                          AND u.leased_by IS DISTINCT FROM worker AND u.lease_until > now()) THEN
        RETURN j;
    END IF;
    -- A run that fetched nothing at all, every URL failing, could not do its job: FAILED
    -- (exit 2), not retried (the next run, or retry-failures, tries again).
    IF status = 'COMPLETED' THEN
        SELECT count(*) FILTER (WHERE u.outcome IN ('new', 'updated', 'unchanged', 'duplicate')),
               count(*) FILTER (WHERE u.outcome = 'failed'),
               min(u.url || ': ' || u.error) FILTER (WHERE u.outcome = 'failed')
          INTO fetched, failed, first_error
          FROM kerai.job_urls u WHERE u.job_id = job;
        IF fetched = 0 AND failed > 0 THEN
            status := 'FAILED';
            error := format('no URL could be fetched: %s failed (%s)', failed, first_error);
            final := true;
        END IF;
    END IF;
    IF status = 'FAILED' AND NOT final AND j.retry_count + 1 < j.max_retries
       AND NOT EXISTS (SELECT 1 FROM kerai.scrape_jobs o WHERE o.target_id = j.target_id AND o.status = 'PENDING') THEN
        UPDATE kerai.job_urls u SET status = 'pending', leased_by = NULL, lease_until = NULL
         WHERE u.job_id = job AND u.status = 'leased';
        UPDATE kerai.scrape_jobs s SET status = 'PENDING', retry_count = s.retry_count + 1, worker = NULL,
               lease_until = NULL, error = error, scheduled_at = now() + make_interval(secs => 30 * power(2, j.retry_count))
         WHERE s.id = job RETURNING * INTO j;
        PERFORM kerai._job_log(job, 'WARN', 'CRAWL_RETRY', format('crawl failed (%s); retry %s of %s queued',
                               error, j.retry_count, j.max_retries));
        RETURN j;
    END IF;
    UPDATE kerai.job_urls u SET status = 'skipped', outcome = 'skipped', error_kind = 'not_reached',
           error = coalesce(error, 'not reached before the job ended'), lease_until = NULL, finished_at = now()
     WHERE u.job_id = job AND u.status IN ('pending', 'leased');
    UPDATE kerai.scrape_jobs s SET finished_at = now() WHERE s.id = job;
    m := kerai.job_metrics(job);
    code := CASE WHEN status = 'FAILED' THEN 2 WHEN jsonb_array_length(m->'left_out') > 0 THEN 1 ELSE 0 END;
    UPDATE kerai.scrape_jobs s SET status = status, metrics = m, error = error, exit_code = code, lease_until = NULL
     WHERE s.id = job RETURNING * INTO j;
    PERFORM kerai._job_log(job, CASE WHEN status = 'FAILED' THEN 'ERROR' WHEN code = 1 THEN 'WARN' ELSE 'INFO' END,
        CASE WHEN status = 'FAILED' THEN 'CRAWL_FAILED' ELSE 'CRAWL_COMPLETED' END,
        CASE WHEN status = 'FAILED' THEN 'crawl failed: ' || coalesce(error, 'unknown error')
             ELSE format('crawl completed: %s new, %s updated, %s unchanged, %s duplicates, %s failed in %s s',
                         m->>'new_count', m->>'updated_count', m->>'unchanged_count', m->>'duplicate_count',
                         m->>'error_count', m->>'duration_sec') END,
        NULL, m);
    -- What the crawl stored, in the statistics search reads.
    PERFORM kerai._analyze_grown(true);
    PERFORM pg_notify('kerai_jobs', jsonb_build_object('job', job, 'status', status)::text);
    RETURN j;
END
$$;

CREATE FUNCTION kerai.cancel_job(job uuid) RETURNS text
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_editor', 'kerai.cancel_job');
    st text;
BEGIN
    PERFORM kerai._job_writers(job, true);
    UPDATE kerai.scrape_jobs s SET status = 'CANCELLED', finished_at = now(), lease_until = NULL
     WHERE s.id = job AND s.status IN ('PENDING', 'RUNNING') RETURNING s.status INTO st;
    IF st IS NULL THEN
        SELECT s.status INTO st FROM kerai.scrape_jobs s WHERE s.id = job;
        IF st IS NULL THEN
            RAISE EXCEPTION 'scrape job % does not exist', job USING ERRCODE = '22023';
        END IF;
        RETURN st;
    END IF;
    UPDATE kerai.job_urls u SET status = 'skipped', outcome = 'skipped', error_kind = 'cancelled',
           error = 'job cancelled', lease_until = NULL
     WHERE u.job_id = job AND u.status IN ('pending', 'leased');
    PERFORM kerai._job_log(job, 'WARN', 'CRAWL_CANCELLED', 'crawl cancelled');
    RETURN st;
END
$$;

-- A finished job never changes status again.
CREATE FUNCTION kerai._jobs_finish_is_final() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'scrape job % is % and cannot become %', OLD.id, OLD.status, NEW.status USING ERRCODE = '55000',
        HINT = 'completion is final; queue a new job with kerai.enqueue_job';
END
$$;
CREATE TRIGGER scrape_jobs_finish_is_final BEFORE UPDATE OF status ON kerai.scrape_jobs
    FOR EACH ROW WHEN (OLD.status IN ('COMPLETED', 'FAILED', 'CANCELLED') AND NEW.status IS DISTINCT FROM OLD.status)
    EXECUTE FUNCTION kerai._jobs_finish_is_final();

CREATE VIEW kerai.job_summary AS
SELECT j.id AS job_id, t.name AS target, j.status, j.mode, j.config_version, j.launched_by,
       j.scheduled_at, j.started_at, j.finished_at, j.exit_code, j.error,
       CASE WHEN j.status IN ('COMPLETED', 'FAILED', 'CANCELLED') THEN j.metrics ELSE kerai.job_metrics(j.id) END AS metrics
  FROM kerai.scrape_jobs j JOIN kerai.targets t ON t.id = j.target_id;
COMMENT ON VIEW kerai.job_summary IS
    'One row per crawl job: job_id, target (its name), status, mode, config_version, launched_by, scheduled_at, '
    'started_at, finished_at, exit_code, error, metrics (kept for a finished job, computed live by '
    'kerai.job_metrics for an unfinished one).';

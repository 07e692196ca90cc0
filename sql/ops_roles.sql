-- Roles: four NOLOGIN group roles, made here when the cluster does not have them yet (roles
-- belong to the cluster: they outlive DROP EXTENSION and serve every database with kerai).
-- Grant them to login roles:
--   kerai_reader   search, answer, the dashboards, read the corpus
--   kerai_editor   + targets, crawl runs, schedules, agents and perspectives
--   kerai_fetcher  what the companion process (`kerai worker`, `kerai crawl`, `kerai embed`) does
--   kerai_admin    + settings and HTTP endpoints, partitioning; every table
-- A human who runs crawls with `kerai run` needs kerai_editor and kerai_fetcher (the CLI runs
-- the job it queues). docs/roles.md has the whole table.

DO $$
DECLARE
    r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['kerai_reader', 'kerai_editor', 'kerai_fetcher', 'kerai_admin'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN', r);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                NULL; -- another database's CREATE EXTENSION made it meanwhile
            END;
        END IF;
    END LOOP;
END
$$;

-- True when the caller is a member of `needed` (superusers are); otherwise an error naming the
-- role to grant. Entry points call it first, in their DECLARE section.
CREATE FUNCTION kerai._require(needed text, what text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
    IF NOT pg_has_role(current_user, needed, 'USAGE') THEN
        RAISE EXCEPTION 'permission denied for %: role % is not a member of %', what, current_user, needed
            USING ERRCODE = '42501',
                  HINT = format('an administrator can grant it: GRANT %I TO %I', needed, current_user);
    END IF;
    RETURN true;
END
$$;

-- Every grant, in one place. Run by CREATE EXTENSION and ALTER EXTENSION UPDATE, and again by
-- kerai.partition_by_month, which rebuilds a table with its views and functions.
CREATE FUNCTION kerai._grant_roles() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    t text;
    f regprocedure;
    all_roles CONSTANT text := 'kerai_reader, kerai_editor, kerai_fetcher, kerai_admin';
BEGIN
    EXECUTE 'GRANT USAGE ON SCHEMA kerai TO ' || all_roles;

    -- Functions: every kerai role may call every function; what it may do is decided by its
    -- table privileges, and the entry points of editors, fetchers and admins check membership
    -- first (kerai._require) so that a refusal names the role to grant. The functions that act
    -- as the extension's owner (SECURITY DEFINER) are for kerai_admin alone.
    FOR f IN SELECT p.oid::regprocedure FROM pg_proc p WHERE p.pronamespace = 'kerai'::regnamespace LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
        IF f::oid IN ('kerai._create_embedding_index(text, integer)'::regprocedure,
                      'kerai._partition_by_month(text, integer)'::regprocedure,
                      'kerai._month_partition(text, date)'::regprocedure,
                      'kerai._keep_in_dumps(regclass)'::regprocedure,
                      'kerai._leave_extension(text, text)'::regprocedure,
                      'kerai._job_logs_week(date)'::regprocedure,
                      'kerai._grant_kerai_role(text, text)'::regprocedure,
                      'kerai._shard_search_statistics(regclass, boolean)'::regprocedure,
                      'kerai._embed_all_again()'::regprocedure) THEN
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO kerai_admin', f);
        ELSIF f::oid IN ('kerai._job_logs_maintain()'::regprocedure,
                         'kerai._near_duplicate(uuid, uuid, bigint[], bigint[])'::regprocedure,
                         'kerai._analyze_grown(boolean)'::regprocedure) THEN
            -- Act as the owner for the fetchers: the log retention (kerai.maintain_job_logs),
            -- the near-duplicate lookup and the statistics of young tables (kerai._job_record,
            -- kerai._job_finish).
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO kerai_fetcher, kerai_admin', f);
        ELSE
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', f, all_roles);
        END IF;
    END LOOP;

    -- Views check row-level security as the role that reads them (sql/ops_users.sql).
    FOR t IN SELECT c.relname FROM pg_class c
              WHERE c.relnamespace = 'kerai'::regnamespace AND c.relkind = 'v' LOOP
        EXECUTE format('ALTER VIEW kerai.%I SET (security_invoker = true)', t);
    END LOOP;

    -- Readers: the corpus, the crawl history, the dashboards; asking writes the AI log.
    FOR t IN SELECT c.relname FROM pg_class c
              WHERE c.relnamespace = 'kerai'::regnamespace AND c.relkind IN ('r', 'p', 'v')
                AND c.relname NOT IN ('crawl_queue', 'extraction_queue', 'cite_count_queue', 'partition_references')
                AND NOT c.relispartition LOOP
        EXECUTE format('GRANT SELECT ON kerai.%I TO kerai_reader', t);
    END LOOP;
    GRANT INSERT ON kerai.ai_requests, kerai.ai_responses, kerai.citations TO kerai_reader;

    -- Editors: targets and their config versions, runs, schedules, agents, perspectives, retries.
    GRANT INSERT, UPDATE, DELETE ON kerai.targets TO kerai_editor;
    GRANT INSERT ON kerai.target_config_versions, kerai.job_logs, kerai.reference_transitions,
                    kerai.counter_deltas TO kerai_editor;
    GRANT INSERT, UPDATE ON kerai.scrape_jobs, kerai.agents TO kerai_editor;
    GRANT UPDATE ON kerai.job_urls, kerai.reference_state TO kerai_editor;
    -- kerai.delete_target clears kept passages' links to the target's versions (no foreign key
    -- spans the document and target groups, docs/scale-out.md).
    GRANT UPDATE (page_version_id) ON kerai.chunks TO kerai_editor;
    GRANT INSERT, UPDATE, DELETE ON kerai.perspectives TO kerai_editor;
    GRANT USAGE ON SEQUENCE kerai.job_logs_id_seq, kerai.reference_transitions_id_seq,
                            kerai.counter_deltas_id_seq TO kerai_editor;

    -- Fetchers: they write the corpus (pages, versions, documents, references, chunks,
    -- vectors, facts) and work the queues; they read the targets and settings they run with.
    FOR t IN SELECT unnest(ARRAY['documents', 'nodes', 'edges', 'counter_deltas', 'corpus_authors', 'reference_state',
                                 'reference_keys', 'reference_transitions', 'extraction_queue', 'crawl_queue', 'cite_count_queue',
                                 'document_keys',
                                 'pages', 'page_versions', 'blobs', 'job_urls', 'job_logs', 'chunks',
                                 'embeddings', 'entities', 'claims', 'perspectives', 'reward_ledger', 'daemons']) LOOP
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON kerai.%I TO kerai_fetcher', t);
    END LOOP;
    GRANT SELECT, UPDATE ON kerai.scrape_jobs TO kerai_fetcher;
    GRANT SELECT, INSERT ON kerai.ai_requests, kerai.ai_responses, kerai.citations TO kerai_fetcher;
    GRANT SELECT ON kerai.targets, kerai.settings, kerai.agents, kerai.reward_schedule,
                    kerai.reference_states, kerai.reference_moves TO kerai_fetcher;
    GRANT USAGE ON ALL SEQUENCES IN SCHEMA kerai TO kerai_fetcher;

    -- Admins: everything. (Monthly partitions are reached through their table and get no
    -- grants of their own: a dump would grant on tables a restore does not make.)
    FOR t IN SELECT c.relname FROM pg_class c
              WHERE c.relnamespace = 'kerai'::regnamespace AND c.relkind IN ('r', 'p', 'v')
                AND NOT c.relispartition LOOP
        EXECUTE format('GRANT ALL ON kerai.%I TO kerai_admin', t);
    END LOOP;
    GRANT ALL ON ALL SEQUENCES IN SCHEMA kerai TO kerai_admin;
END
$$;

GRANT kerai_reader TO kerai_editor;
GRANT kerai_reader TO kerai_fetcher;
GRANT kerai_editor TO kerai_admin;
GRANT kerai_fetcher TO kerai_admin;
SELECT kerai._grant_roles();

-- Admins and the fetcher see every row (sql/ops_users.sql): a policy of their own on each table
-- with row-level security, so that their statements carry no per-row check. Permissive
-- policies are ORed, and `true OR ...` is folded away when a statement is planned; without it
-- a crawl ran the target check about 70 times per page.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['users', 'targets', 'scrape_jobs', 'pages', 'job_logs', 'job_urls', 'page_versions',
                             'chunks', 'embeddings', 'ai_requests', 'ai_responses', 'citations'] LOOP
        EXECUTE format('CREATE POLICY %I ON kerai.%I TO kerai_admin, kerai_fetcher USING (true)', t || '_all_rows', t);
    END LOOP;
END
$$;


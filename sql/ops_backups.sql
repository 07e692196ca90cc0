-- Backups: pg_dump writes the rows of an extension's tables only when the extension registers
-- them (pg_extension_config_dump). Every table that holds user data is registered whole, with
-- its sequence, so `pg_dump` / `pg_restore` (or `pg_dump` / `psql`) keep the corpus, the crawl
-- history and the AI log. Not registered, because a fresh CREATE EXTENSION makes them:
--   reference_states, reference_moves   the frontier's state machine (fixed definitions)
--   counter_deltas                      derived: the restored rows' triggers count them again
--   cite_count_queue                    derived: the restored edges' triggers queue their recount
--   partition_references                the foreign keys partition_by_month replaced; a restore
--                                       brings tables back unpartitioned (docs/backups.md)
--   daemons, crawler_supervisor         runtime state: the companion processes at work now and
--                                       the supervised one (a restored copy starts none)
-- Rows the install script seeds (the kerai_crawl agent, the crawl_ingest reward) are dumped like
-- any other; when a restore inserts them again, the row replaces the seeded one
-- (kerai._replace_seeded_*), so changes made to them survive the round trip.

CREATE FUNCTION kerai._replace_seeded_agent() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE kerai.agents a
       SET id = NEW.id, kind = NEW.kind, parent_id = NEW.parent_id, config = NEW.config,
           created_at = NEW.created_at, updated_at = NEW.updated_at
     WHERE a.name = NEW.name;
    IF FOUND THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION kerai._replace_seeded_agent() IS
    'A restored kerai_crawl row replaces the one CREATE EXTENSION seeded (see sql/ops_backups.sql).';
CREATE TRIGGER agents_replace_seeded BEFORE INSERT ON kerai.agents
    FOR EACH ROW WHEN (NEW.name = 'kerai_crawl') EXECUTE FUNCTION kerai._replace_seeded_agent();

CREATE FUNCTION kerai._replace_seeded_reward() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE kerai.reward_schedule s SET reward_nkoi = NEW.reward_nkoi WHERE s.work_type = NEW.work_type;
    IF FOUND THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION kerai._replace_seeded_reward() IS
    'A restored crawl_ingest reward replaces the one CREATE EXTENSION seeded (see sql/ops_backups.sql).';
CREATE TRIGGER reward_schedule_replace_seeded BEFORE INSERT ON kerai.reward_schedule
    FOR EACH ROW WHEN (NEW.work_type = 'crawl_ingest') EXECUTE FUNCTION kerai._replace_seeded_reward();

-- The tables and sequences a dump keeps, in the order of the pipeline (one statement each:
-- each call rewrites the extension's catalog row).
-- graph
SELECT pg_catalog.pg_extension_config_dump('kerai.documents', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.nodes', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.edges', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.corpus_authors', '');
-- agents
SELECT pg_catalog.pg_extension_config_dump('kerai.agents', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.reward_schedule', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.reward_ledger', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.reward_ledger_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.perspectives', '');
-- references and the frontier
SELECT pg_catalog.pg_extension_config_dump('kerai.reference_state', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.reference_keys', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.reference_transitions', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.reference_transitions_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.extraction_queue', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.crawl_queue', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.crawl_queue_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.document_keys', '');
-- site crawl
SELECT pg_catalog.pg_extension_config_dump('kerai.targets', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.target_config_versions', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.pages', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.scrape_jobs', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.page_versions', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.blobs', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.job_urls', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.job_urls_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.job_logs', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.job_logs_default', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.job_logs_id_seq', '');
-- retrieval
SELECT pg_catalog.pg_extension_config_dump('kerai.settings', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.chunks', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.embeddings', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.entities', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.entities_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.claims', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.claims_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.ai_requests', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.ai_responses', '');
SELECT pg_catalog.pg_extension_config_dump('kerai.citations', '');

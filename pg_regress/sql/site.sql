-- Targets, versioned configs and jobs, as the fetcher and pg_cron use them.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
BEGIN;
-- Errors that name a generated id are shown with the id masked.
CREATE FUNCTION pg_temp.try(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RETURN 'ok';
EXCEPTION WHEN others THEN
    RETURN 'ERROR: ' || regexp_replace(SQLERRM, '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', '<id>', 'g');
END
$$;
SELECT name, base_url, config_version FROM kerai.set_target('intranet', 'https://intranet.example.com/', '{"max_pages": 10}');
SELECT config_version FROM kerai.set_target('intranet', 'https://intranet.example.com/', '{"max_pages": 10}');
SELECT config_version FROM kerai.set_target('intranet', 'https://intranet.example.com/', '{"max_pages": 20}');
SELECT version, config FROM kerai.target_config_versions ORDER BY version;
SELECT kerai.set_target('bad', 'ftp://x', '{}');
SELECT kerai.set_target('bad', 'https://x/', '[]');

-- One pending job per target; a running one refuses or queues, by flag.
SELECT kerai.enqueue_job('intranet') = kerai.enqueue_job('intranet') AS one_pending;
SELECT status, mode, config_version, launched_by = current_user AS audited FROM kerai.scrape_jobs;
SELECT status FROM kerai._job_begin('w1', NULL, 'intranet', 60);
SELECT pg_temp.try($$SELECT kerai.enqueue_job('intranet', 'full', '{}', 'me', 'refuse')$$);
SELECT kerai.enqueue_job('intranet', 'full', '{}', 'me', 'queue') IS NOT NULL AS queued;
SELECT status, mode FROM kerai.scrape_jobs ORDER BY scheduled_at;
SELECT kerai.enqueue_job('nowhere');

-- Completion is final.
SELECT status, exit_code FROM kerai._job_finish((SELECT id FROM kerai.scrape_jobs WHERE status = 'RUNNING'), 'w1', 'COMPLETED');
SELECT pg_temp.try($$UPDATE kerai.scrape_jobs SET status = 'RUNNING' WHERE status = 'COMPLETED'$$);
SELECT event, level FROM kerai.job_logs ORDER BY id;
ROLLBACK;

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

-- Logs keep no credentials: userinfo is dropped, credential-like parameters are masked.
SELECT kerai.redact_secrets('resource unreachable: http://user:pw@127.0.0.1:8080/x?a=1&token=abc&b=2 (HTTP 500)');
SELECT kerai.redact_secrets('https://h.example/p?api_key=K1&apikey=K2&keyword=kept&X-Amz-Signature=S&access_token=T#id_token=F');
SELECT kerai.redact_secrets('https://h.example/login;jsessionid=ABC?page=2&code=xyz&state=s1&monkey=3&author=me');
SELECT kerai.redact_secrets('mailto:a@b.example, https://h.example/a@b?q=x, no URL at all');
SELECT kerai._job_log(id, 'error', 'ITEM_FAILED', 'resource unreachable: https://bob:hunter2@h.example/x?session=s3cr3t (HTTP 500)',
                      'https://bob:hunter2@h.example/x?session=s3cr3t',
                      '{"from": "https://h.example/?password=hunter2&q=1", "note": "a \"quoted\" https://u:p@h.example/?sig=1"}')
  FROM kerai.scrape_jobs WHERE status = 'COMPLETED';
SELECT level, message, url, details FROM kerai.job_logs WHERE event = 'ITEM_FAILED';
SELECT count(*) AS leaked FROM kerai.job_logs WHERE message || url || details::text ~ '(hunter2|s3cr3t|bob:)';
-- A job is finished only when no work is left that nobody does. URLs pending, or leased by a
-- fetcher that is gone, keep it RUNNING (the fetcher that asked crawls on); a URL another
-- fetcher holds makes that one the last out; max_runtime ends it, skipping what is left.
SELECT config_version FROM kerai.set_target('left', 'https://left.example.com/', '{}');
SELECT kerai.enqueue_job('left') AS left_job \gset
SELECT status FROM kerai._job_begin('w1', :'left_job', NULL, 60);
SELECT kerai._job_add_urls(:'left_job', '[{"url": "https://left.example.com/a", "url_hash": "la", "host": "left.example.com"},
                                          {"url": "https://left.example.com/b", "url_hash": "lb", "host": "left.example.com"}]');
SELECT url FROM kerai._job_claim_urls(:'left_job', 'w2', 1, 60);
SELECT * FROM kerai._job_work_left(:'left_job', 'w1');
SELECT status FROM kerai._job_finish(:'left_job', 'w1', 'COMPLETED');
UPDATE kerai.job_urls SET status = 'done' WHERE job_id = :'left_job' AND status = 'pending';
SELECT * FROM kerai._job_work_left(:'left_job', 'w1');
SELECT status FROM kerai._job_finish(:'left_job', 'w1', 'COMPLETED');
-- w2 is gone: its lease ran out, and its URL is work nobody does.
UPDATE kerai.job_urls SET lease_until = now() - interval '1 second' WHERE job_id = :'left_job' AND status = 'leased';
SELECT * FROM kerai._job_work_left(:'left_job', 'w1');
SELECT status FROM kerai._job_finish(:'left_job', 'w1', 'COMPLETED');
SELECT kerai._job_log(:'left_job', 'WARN', 'MAX_RUNTIME', 'max_runtime 1h reached: stopping');
SELECT status, exit_code FROM kerai._job_finish(:'left_job', 'w1', 'COMPLETED');
SELECT url, status, error_kind FROM kerai.job_urls WHERE job_id = :'left_job' ORDER BY url;
-- A job queued again for a retry (one fetcher failed) is not completed by another.
SELECT kerai.enqueue_job('left') AS retried \gset
SELECT status FROM kerai._job_begin('w1', :'retried', NULL, 60);
SELECT status, retry_count FROM kerai._job_finish(:'retried', 'w1', 'FAILED', 'lost the site');
SELECT status FROM kerai._job_finish(:'retried', 'w2', 'COMPLETED');
ROLLBACK;

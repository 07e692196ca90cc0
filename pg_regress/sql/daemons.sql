-- The daemon registry (kerai.crawler_status()) and handing a job back (kerai._job_release).
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
BEGIN;
-- A daemon registers on its first heartbeat and says what each lane does.
SELECT kerai._daemon_beat('db-1.example:4242', '{"site": {"target": "intranet"}, "resolve": null}', '0.3.0');
SELECT worker, host, pid, state, work, last_error, version FROM kerai.crawler_status();
-- An error is kept until a later one replaces it; later beats without one leave it.
SELECT kerai._daemon_beat('db-1.example:4242', '{}', NULL, 'site: job failed');
SELECT kerai._daemon_beat('db-1.example:4242', '{"embed": {"waiting": 3}}');
SELECT state, work, last_error, last_error_at IS NOT NULL AS error_dated FROM kerai.crawler_status();
-- No heartbeat for over 30 s: stalled. Stopped: listed after the running ones, for a day.
UPDATE kerai.daemons SET heartbeat_at = now() - interval '31 seconds';
SELECT kerai._daemon_beat('db-2.example:7', '{}');
SELECT worker, state FROM kerai.crawler_status();
SELECT kerai._daemon_stopped('db-2.example:7');
SELECT worker, state, work FROM kerai.crawler_status();
UPDATE kerai.daemons SET stopped_at = now() - interval '2 days' WHERE worker = 'db-2.example:7';
SELECT kerai._daemon_beat('db-1.example:4242', '{}');
SELECT worker FROM kerai.crawler_status();

-- A fetcher hands a job back: its lease ends now and the URLs it held are queued again.
SELECT name FROM kerai.set_target('intranet', 'https://intranet.example.com/', '{}');
SELECT kerai.enqueue_job('intranet') IS NOT NULL AS queued;
SELECT status FROM kerai._job_begin('host:1', NULL, 'intranet', 60);
SELECT kerai._job_add_urls((SELECT id FROM kerai.scrape_jobs),
    '[{"url": "https://intranet.example.com/a", "url_hash": "a", "host": "intranet.example.com"},
      {"url": "https://intranet.example.com/b", "url_hash": "b", "host": "intranet.example.com"}]') AS added;
SELECT count(*) AS leased FROM kerai._job_claim_urls((SELECT id FROM kerai.scrape_jobs), 'host:1', 1, 60);
SELECT kerai._job_release((SELECT id FROM kerai.scrape_jobs), 'host:2', 'not the holder') AS released;
-- One that joined the job (it holds URLs, not the job) hands back the URLs it held.
SELECT count(*) AS leased FROM kerai._job_claim_urls((SELECT id FROM kerai.scrape_jobs), 'host:2', 1, 60);
SELECT kerai._job_release((SELECT id FROM kerai.scrape_jobs), 'host:2', 'it lost the database') AS released;
SELECT url, status, leased_by FROM kerai.job_urls ORDER BY url;
SELECT kerai._job_release((SELECT id FROM kerai.scrape_jobs), 'host:1', 'the daemon stopped') AS released;
SELECT status, lease_until <= now() AS lease_over FROM kerai.scrape_jobs;
SELECT status, count(*) FROM kerai.job_urls GROUP BY 1 ORDER BY 1;
SELECT level, event, message FROM kerai.job_logs WHERE event = 'CRAWL_RELEASED';
-- The next fetcher takes it at once.
SELECT status, worker FROM kerai._job_begin('host:3', NULL, NULL, 60);

-- Only fetchers beat or hand jobs back.
CREATE ROLE kerai_regress_reader;
GRANT kerai_reader TO kerai_regress_reader;
SET ROLE kerai_regress_reader;
SELECT kerai._daemon_beat('x:1', '{}');
SELECT count(*) >= 0 AS readers_see_the_status FROM kerai.crawler_status();
RESET ROLE;
ROLLBACK;

-- The supervised daemon: kerai.start_crawler() refuses a fetcher it cannot run, naming the
-- setting; stop_crawler() with none running says so.
\set ON_ERROR_ROLLBACK on
BEGIN;
SELECT kerai.start_crawler();
SET kerai.fetcher_path = 'target/debug/kerai';
SELECT kerai.start_crawler();
SET kerai.fetcher_path = '/nonexistent/kerai';
SELECT kerai.start_crawler();
SET kerai.fetcher_path = '/etc/passwd';
SELECT kerai.start_crawler();
-- The login the daemon connects as must exist, log in and be a fetcher.
SET kerai.fetcher_path = '/bin/true';
SELECT kerai.start_crawler('kerai_regress_nobody');
CREATE ROLE kerai_regress_nologin;
SELECT kerai.start_crawler('kerai_regress_nologin');
ALTER ROLE kerai_regress_nologin LOGIN;
SELECT kerai.start_crawler('kerai_regress_nologin');
SELECT wanted FROM kerai.crawler_supervisor;
SELECT kerai.stop_crawler();
SELECT count(*) AS supervisor_rows FROM kerai.crawler_status() WHERE worker = 'supervisor';
CREATE ROLE kerai_regress_editor;
GRANT kerai_editor TO kerai_regress_editor;
SET ROLE kerai_regress_editor;
SELECT kerai.start_crawler();
SELECT kerai.stop_crawler();
RESET ROLE;
ROLLBACK;

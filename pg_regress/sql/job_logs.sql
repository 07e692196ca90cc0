-- job_logs: partitioned by week, kept job_log_retention_days (default 90) by
-- kerai.maintain_job_logs, which the daemon runs every hour.
\set VERBOSITY terse
\set ON_ERROR_ROLLBACK on
SET client_min_messages = warning;
BEGIN;

SELECT c.relkind, pg_get_partkeydef(c.oid) AS partitioned_on,
       (SELECT array_agg(p.relname ORDER BY p.relname) FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid
         WHERE i.inhparent = c.oid) AS partitions
  FROM pg_class c WHERE c.oid = 'kerai.job_logs'::regclass;
SELECT value FROM kerai.settings_all WHERE key = 'job_log_retention_days';

-- Lines of every age, before any weekly partition exists: they land in the default partition.
SELECT (kerai.set_target('logs', 'https://logs.example.org/')).name;
INSERT INTO kerai.job_logs (target_id, level, event, message, created_at)
SELECT t.id, 'INFO', a.event, 'a line', now() - a.age
  FROM kerai.targets t,
       (VALUES ('AGE_200_DAYS', interval '200 days'), ('AGE_95_DAYS', interval '95 days'),
               ('AGE_30_DAYS', interval '30 days'), ('NOW', interval '0')) AS a(event, age)
 WHERE t.name = 'logs';

-- The policy: this week and four ahead made (this week's line moves in), lines past 90 days gone.
SELECT kerai.maintain_job_logs();
SELECT count(*) AS weekly_partitions FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid
 WHERE i.inhparent = 'kerai.job_logs'::regclass AND p.relname ~ '^job_logs_w[0-9]{8}$';
SELECT l.event, l.tableoid::regclass::text ~ '^kerai\.job_logs_w[0-9]{8}$' AS in_a_week
  FROM kerai.job_logs l WHERE l.message = 'a line' ORDER BY l.event;
-- Each weekly partition has its own key and index; new lines go to this week's.
SELECT count(*) FILTER (WHERE i.indisprimary) AS keys, count(*) FILTER (WHERE NOT i.indisprimary) AS indexes
  FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname ~ '^job_logs_w[0-9]{8}$';
INSERT INTO kerai.job_logs (target_id, level, event, message) SELECT id, 'WARN', 'LATER', 'new' FROM kerai.targets;
SELECT tableoid::regclass::text = 'kerai.job_logs_w' || to_char(date_trunc('week', now() AT TIME ZONE 'UTC'), 'YYYYMMDD')
       AS in_this_week
  FROM kerai.job_logs WHERE event = 'LATER';

-- Again: nothing to do.
SELECT kerai.maintain_job_logs();

-- A shorter retention drops whole weeks that are past it.
-- (The week of a UTC day: pg_regress runs in PST8PDT, where Monday early UTC is still Sunday.)
SELECT kerai._job_logs_week((now() AT TIME ZONE 'UTC' - interval '21 days')::date) AS made_an_old_week;
INSERT INTO kerai.job_logs (target_id, level, event, message, created_at)
SELECT id, 'INFO', 'AGE_21_DAYS', 'old week', now() - interval '21 days' FROM kerai.targets;
SELECT kerai.set_setting('job_log_retention_days', '7');
SELECT kerai.maintain_job_logs() - 'retention_days' AS done;
SELECT event FROM kerai.job_logs ORDER BY event;

-- Bad retention values are refused.
SELECT kerai.set_setting('job_log_retention_days', '0');
SELECT kerai.set_setting('job_log_retention_days', '"90"');

-- Only the fetcher role (or an admin) applies the policy; the helper that makes a week is the owner's.
CREATE ROLE kerai_logs_reader NOLOGIN IN ROLE kerai_reader;
SET ROLE kerai_logs_reader;
SELECT kerai.maintain_job_logs();
SELECT kerai._job_logs_week(current_date);
SELECT kerai._job_logs_maintain();
RESET ROLE;

ROLLBACK;

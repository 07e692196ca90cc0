-- Companion processes at work on this database: each `kerai daemon` registers itself, beats
-- every few seconds with what each of its lanes is doing, and says when it stops. Runtime state,
-- not user data: a dump leaves it out (sql/ops_backups.sql).

CREATE TABLE kerai.daemons (
    worker        text PRIMARY KEY,
    host          text NOT NULL,
    pid           integer NOT NULL,
    version       text,
    started_at    timestamptz NOT NULL DEFAULT now(),
    heartbeat_at  timestamptz NOT NULL DEFAULT now(),
    stopped_at    timestamptz,
    work          jsonb NOT NULL DEFAULT '{}'::jsonb,
    last_error    text,
    last_error_at timestamptz
);
COMMENT ON TABLE kerai.daemons IS
    'The kerai daemons (companion processes) working on this database: host and pid, when each '
    'started, its last heartbeat, what each lane (site, resolve, embed) is doing and its last '
    'error. Read it through kerai.crawler_status().';

-- Seconds without a heartbeat after which a daemon counts as stalled (it beats every 5 s).
CREATE FUNCTION kerai._daemon_stall_seconds() RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 30 $$;

-- A daemon's heartbeat: register it on the first, then record what it does now. An error is
-- kept until a later one replaces it. Stopped daemons are forgotten after a day.
CREATE FUNCTION kerai._daemon_beat(worker text, work jsonb, version text DEFAULT NULL,
                                   error text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_fetcher', 'kerai._daemon_beat (the fetcher)');
    host text := split_part(worker, ':', 1);
    pid integer := CASE WHEN split_part(worker, ':', 2) ~ '^[0-9]+$' THEN split_part(worker, ':', 2)::integer ELSE 0 END;
BEGIN
    INSERT INTO kerai.daemons AS d (worker, host, pid, version, work, last_error, last_error_at)
    VALUES (worker, host, pid, version, coalesce(work, '{}'::jsonb), error,
            CASE WHEN error IS NOT NULL THEN now() END)
    ON CONFLICT ON CONSTRAINT daemons_pkey DO UPDATE
       SET heartbeat_at = now(), stopped_at = NULL, work = coalesce(EXCLUDED.work, d.work),
           version = coalesce(EXCLUDED.version, d.version),
           last_error = coalesce(EXCLUDED.last_error, d.last_error),
           last_error_at = CASE WHEN EXCLUDED.last_error IS NOT NULL THEN now() ELSE d.last_error_at END;
    DELETE FROM kerai.daemons d
     WHERE d.stopped_at < now() - interval '1 day' OR d.heartbeat_at < now() - interval '7 days';
END
$$;

-- A daemon stops: it keeps its row (with stopped_at) so crawler_status() shows how it ended.
CREATE FUNCTION kerai._daemon_stopped(worker text, error text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_fetcher', 'kerai._daemon_stopped (the fetcher)');
BEGIN
    UPDATE kerai.daemons d SET stopped_at = now(), heartbeat_at = now(), work = '{}'::jsonb,
           last_error = coalesce(error, d.last_error),
           last_error_at = CASE WHEN error IS NOT NULL THEN now() ELSE d.last_error_at END
     WHERE d.worker = worker;
END
$$;

-- The supervised daemon of this database (sql/../src/crawler.rs): kerai.start_crawler() sets
-- wanted, the supervisor (a background worker) records what happens. One row.
CREATE TABLE kerai.crawler_supervisor (
    id              boolean PRIMARY KEY DEFAULT true CHECK (id),
    wanted          boolean NOT NULL DEFAULT false,
    login           text,
    supervisor_pid  integer,
    daemon_pid      integer,
    starts          integer NOT NULL DEFAULT 0,
    last_start_at   timestamptz,
    last_exit       text,
    last_exit_at    timestamptz,
    last_error      text,
    backoff_seconds integer NOT NULL DEFAULT 0,
    next_start_at   timestamptz,
    log_file        text,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE kerai.crawler_supervisor IS
    'The supervised daemon of this database, one row: whether it is wanted (kerai.start_crawler() / '
    'stop_crawler()), the login it connects as, the supervisor''s and the daemon''s pids, how many times it '
    'started, its last exit and error, the backoff before the next start and its log file. '
    'Read it through kerai.crawler_status().';
INSERT INTO kerai.crawler_supervisor DEFAULT VALUES;

CREATE FUNCTION kerai.crawler_status()
RETURNS TABLE (worker text, host text, pid integer, state text, started_at timestamptz,
               heartbeat_at timestamptz, stopped_at timestamptz, work jsonb, last_error text,
               last_error_at timestamptz, version text)
LANGUAGE sql STABLE AS $$
    SELECT x.worker, x.host, x.pid, x.state, x.started_at, x.heartbeat_at, x.stopped_at, x.work,
           x.last_error, x.last_error_at, x.version
      FROM (
        -- The supervisor, when kerai.start_crawler() has been used.
        SELECT 'supervisor' AS worker, NULL::text AS host, s.supervisor_pid AS pid,
               CASE WHEN NOT s.wanted AND s.supervisor_pid IS NULL THEN 'stopped'
                    WHEN NOT s.wanted THEN 'stopping'
                    WHEN s.supervisor_pid IS NULL THEN 'not running'
                    WHEN s.daemon_pid IS NULL THEN 'restarting'
                    ELSE 'supervising' END AS state,
               s.last_start_at AS started_at, s.updated_at AS heartbeat_at, NULL::timestamptz AS stopped_at,
               jsonb_strip_nulls(jsonb_build_object('daemon_pid', s.daemon_pid, 'starts', s.starts,
                   'last_exit', s.last_exit, 'backoff_seconds', nullif(s.backoff_seconds, 0),
                   'next_start_at', s.next_start_at, 'login', s.login, 'log_file', s.log_file)) AS work,
               s.last_error, s.last_exit_at AS last_error_at, NULL::text AS version, 0 AS rank
          FROM kerai.crawler_supervisor s
         WHERE s.wanted OR s.supervisor_pid IS NOT NULL OR s.starts > 0
        UNION ALL
        SELECT d.worker, d.host, d.pid,
               CASE WHEN d.stopped_at IS NOT NULL THEN 'stopped'
                    WHEN d.heartbeat_at < now() - make_interval(secs => kerai._daemon_stall_seconds()) THEN 'stalled'
                    ELSE 'running' END,
               d.started_at, d.heartbeat_at, d.stopped_at, d.work, d.last_error, d.last_error_at, d.version,
               CASE WHEN d.stopped_at IS NULL THEN 1 ELSE 2 END
          FROM kerai.daemons d
      ) x
     ORDER BY x.rank, x.started_at DESC NULLS LAST
$$;

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

CREATE FUNCTION kerai.crawler_status()
RETURNS TABLE (worker text, host text, pid integer, state text, started_at timestamptz,
               heartbeat_at timestamptz, stopped_at timestamptz, work jsonb, last_error text,
               last_error_at timestamptz, version text)
LANGUAGE sql STABLE AS $$
    SELECT d.worker, d.host, d.pid,
           CASE WHEN d.stopped_at IS NOT NULL THEN 'stopped'
                WHEN d.heartbeat_at < now() - make_interval(secs => kerai._daemon_stall_seconds()) THEN 'stalled'
                ELSE 'running' END,
           d.started_at, d.heartbeat_at, d.stopped_at, d.work, d.last_error, d.last_error_at, d.version
      FROM kerai.daemons d
     ORDER BY d.stopped_at IS NOT NULL, d.started_at DESC
$$;

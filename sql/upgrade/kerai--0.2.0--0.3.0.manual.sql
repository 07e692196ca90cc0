-- Hand-written part of the 0.2.0 -> 0.3.0 upgrade, run before the generated part: changes to
-- tables and rows 0.2.0 already had (scripts/upgrade_script.py cannot guess those).
-- Besides this, 0.3.0 adds functions, triggers, roles, grants and the registration of every
-- user-data table for pg_dump (sql/ops_backups.sql), all of which the generated part copies.

-- 0.2.0 had: ALTER TABLE kerai.pages ADD CONSTRAINT pages_current_version_fk ...
-- The key from pages to their current version made a cycle with page_versions.page_id that no
-- restore order loads; a delete trigger (site.sql) replaces it. (A table partitioned at 0.2.0
-- already had it replaced by a row of kerai.partition_references.)
ALTER TABLE kerai.pages DROP CONSTRAINT IF EXISTS pages_current_version_fk;

-- Users own targets, jobs and AI requests (sql/ops_users.sql). The columns go onto tables 0.2.0 had,
-- and their defaults need the users table and kerai.current_user_id() first.
-- covers: CREATE TABLE kerai.users (
CREATE TABLE kerai.users (
    id         uuid PRIMARY KEY DEFAULT kerai.uuid7(),
    email      text NOT NULL UNIQUE,
    role_name  text NOT NULL UNIQUE,
    role       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_email_is_an_address CHECK (email ~ '^[^@[:space:]]+@[^@[:space:]]+$'),
    CONSTRAINT users_role_is_known CHECK (role IN ('admin', 'editor', 'reader'))
);
COMMENT ON TABLE kerai.users IS
    'kerai users: an e-mail, the database login role it is, and a role (admin, editor, reader). '
    'Add them with kerai.add_user(email, login, role).';
-- covers: CREATE FUNCTION kerai.current_user_id() RETURNS uuid
CREATE FUNCTION kerai.current_user_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT u.id FROM kerai.users u WHERE u.role_name = current_user
$$;
-- covers: ALTER TABLE kerai.targets ADD COLUMN owner_id
ALTER TABLE kerai.targets ADD COLUMN owner_id uuid DEFAULT kerai.current_user_id()
    REFERENCES kerai.users (id) ON DELETE SET NULL;
-- covers: ALTER TABLE kerai.scrape_jobs ADD COLUMN user_id
ALTER TABLE kerai.scrape_jobs ADD COLUMN user_id uuid DEFAULT kerai.current_user_id()
    REFERENCES kerai.users (id) ON DELETE SET NULL;
-- covers: ALTER TABLE kerai.ai_requests ADD COLUMN user_id
ALTER TABLE kerai.ai_requests ADD COLUMN user_id uuid DEFAULT kerai.current_user_id()
    REFERENCES kerai.users (id) ON DELETE SET NULL;
-- Row-level security on tables 0.2.0 had (the policies come in the generated part).
-- covers: ALTER TABLE kerai.targets ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.scrape_jobs ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.pages ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.job_logs ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.job_urls ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.page_versions ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.chunks ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.embeddings ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.ai_requests ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.ai_responses ENABLE ROW LEVEL SECURITY
-- covers: ALTER TABLE kerai.citations ENABLE ROW LEVEL SECURITY
ALTER TABLE kerai.targets ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.scrape_jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.pages ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.job_logs ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.job_urls ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.page_versions ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.chunks ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.embeddings ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.ai_requests ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.ai_responses ENABLE ROW LEVEL SECURITY;
ALTER TABLE kerai.citations ENABLE ROW LEVEL SECURITY;

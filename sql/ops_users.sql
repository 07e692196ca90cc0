-- Users (seed 001) and row-level security. A user is a database login role with an e-mail and
-- a kerai role; what they crawl and ask is theirs:
--   targets             a user sees their own and the shared ones (no owner)
--   scrape_jobs, pages, job_urls, job_logs, page_versions    follow their target
--   chunks, embeddings  follow their target; chunks of no target (the corpus grown along
--                       citations) are shared
--   ai_requests, ai_responses, citations                    the asker's own
-- Admins (kerai_admin) and the fetcher (kerai_fetcher, which works for everyone) see all rows.
-- The graph itself (nodes, edges) is shared: policies guard what users reach through targets,
-- search and answers. Views check the policies as their caller (security_invoker, set by
-- kerai._grant_roles). docs/roles.md has the whole story.

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
SELECT pg_catalog.pg_extension_config_dump('kerai.users', '');

-- A user sees their own row; admins see all.
ALTER TABLE kerai.users ENABLE ROW LEVEL SECURITY;

-- The kerai user the current database role is, or NULL.
CREATE FUNCTION kerai.current_user_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT u.id FROM kerai.users u WHERE u.role_name = current_user
$$;

-- True for roles that see every row: admins, and the fetcher, which works for every user.
CREATE FUNCTION kerai._sees_all_rows() RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT pg_has_role(current_user, 'kerai_admin', 'USAGE') OR pg_has_role(current_user, 'kerai_fetcher', 'USAGE')
$$;

-- Register a user: the login role must exist; it is granted the kerai role's group role.
CREATE FUNCTION kerai.add_user(email text, login text, role text DEFAULT 'reader') RETURNS uuid
LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    allowed boolean := kerai._require('kerai_admin', 'kerai.add_user');
    id uuid;
BEGIN
    IF role NOT IN ('admin', 'editor', 'reader') THEN
        RAISE EXCEPTION 'kerai.add_user: role must be admin, editor or reader, not "%"', role USING ERRCODE = '22023';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = login) THEN
        RAISE EXCEPTION 'kerai.add_user: there is no database role "%"', login USING ERRCODE = '22023',
            HINT = format('create the login first: CREATE ROLE %I LOGIN PASSWORD ...', login);
    END IF;
    INSERT INTO kerai.users AS u (email, role_name, role) VALUES (lower(email), login, role)
    ON CONFLICT (role_name) DO UPDATE SET email = EXCLUDED.email, role = EXCLUDED.role
    RETURNING u.id INTO id;
    PERFORM kerai._grant_kerai_role(login, role);
    RETURN id;
END
$$;

-- Granting a group role takes its admin option, which the extension's owner has: this runs as
-- the owner (kerai_admin alone may call it) and grants only the three kerai roles.
CREATE FUNCTION kerai._grant_kerai_role(login text, role text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF role NOT IN ('admin', 'editor', 'reader') THEN
        RAISE EXCEPTION 'kerai._grant_kerai_role: role must be admin, editor or reader, not "%"', role
            USING ERRCODE = '22023';
    END IF;
    EXECUTE format('GRANT %I TO %I', 'kerai_' || role, login);
END
$$;

CREATE POLICY users_own_row ON kerai.users
    USING (role_name = current_user OR kerai._sees_all_rows());

ALTER TABLE kerai.targets ADD COLUMN owner_id uuid DEFAULT kerai.current_user_id()
    REFERENCES kerai.users (id) ON DELETE SET NULL;
ALTER TABLE kerai.scrape_jobs ADD COLUMN user_id uuid DEFAULT kerai.current_user_id()
    REFERENCES kerai.users (id) ON DELETE SET NULL;
ALTER TABLE kerai.ai_requests ADD COLUMN user_id uuid DEFAULT kerai.current_user_id()
    REFERENCES kerai.users (id) ON DELETE SET NULL;
CREATE INDEX targets_owner_idx ON kerai.targets (owner_id);
CREATE INDEX ai_requests_user_idx ON kerai.ai_requests (user_id);

-- A target this role may see (its targets' policy applies inside).
CREATE FUNCTION kerai._target_visible(target uuid) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT target IS NULL OR EXISTS (SELECT 1 FROM kerai.targets t WHERE t.id = target)
$$;

-- A policy holds no subquery (a distributed database refuses one on a distributed table,
-- docs/scale-out.md): a row whose visibility is its parent's asks through a function, which
-- reads the parent in the same group, so on a distributed database on the same machine (Citus
-- runs such a nested query when allowed, which these functions do for themselves).
-- A passage this role may see (the chunks' policy applies inside).
CREATE FUNCTION kerai._chunk_visible(doc uuid, chunk uuid) RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE SET citus.allow_nested_distributed_execution = on AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM kerai.chunks c WHERE c.document_id = doc AND c.id = chunk);
END
$$;
-- A question this role may see (the requests' policy applies inside).
CREATE FUNCTION kerai._request_visible(request uuid) RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE SET citus.allow_nested_distributed_execution = on AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM kerai.ai_requests r WHERE r.id = request);
END
$$;

ALTER TABLE kerai.targets ENABLE ROW LEVEL SECURITY;
CREATE POLICY targets_by_owner ON kerai.targets
    USING (owner_id IS NULL OR owner_id = kerai.current_user_id() OR kerai._sees_all_rows());

ALTER TABLE kerai.scrape_jobs ENABLE ROW LEVEL SECURITY;
CREATE POLICY scrape_jobs_by_target ON kerai.scrape_jobs USING (kerai._target_visible(target_id));
ALTER TABLE kerai.pages ENABLE ROW LEVEL SECURITY;
CREATE POLICY pages_by_target ON kerai.pages USING (kerai._target_visible(target_id));
ALTER TABLE kerai.job_logs ENABLE ROW LEVEL SECURITY;
CREATE POLICY job_logs_by_target ON kerai.job_logs USING (kerai._target_visible(target_id));
ALTER TABLE kerai.job_urls ENABLE ROW LEVEL SECURITY;
CREATE POLICY job_urls_by_target ON kerai.job_urls USING (kerai._target_visible(target_id));
ALTER TABLE kerai.page_versions ENABLE ROW LEVEL SECURITY;
CREATE POLICY page_versions_by_target ON kerai.page_versions USING (kerai._target_visible(target_id));
ALTER TABLE kerai.chunks ENABLE ROW LEVEL SECURITY;
CREATE POLICY chunks_by_target ON kerai.chunks USING (kerai._target_visible(target_id));
ALTER TABLE kerai.embeddings ENABLE ROW LEVEL SECURITY;
CREATE POLICY embeddings_by_chunk ON kerai.embeddings USING (kerai._chunk_visible(document_id, chunk_id));

ALTER TABLE kerai.ai_requests ENABLE ROW LEVEL SECURITY;
CREATE POLICY ai_requests_by_asker ON kerai.ai_requests
    USING (user_id = kerai.current_user_id() OR (user_id IS NULL AND user_name = current_user)
           OR kerai._sees_all_rows());
ALTER TABLE kerai.ai_responses ENABLE ROW LEVEL SECURITY;
CREATE POLICY ai_responses_by_request ON kerai.ai_responses USING (kerai._request_visible(request_id));
ALTER TABLE kerai.citations ENABLE ROW LEVEL SECURITY;
CREATE POLICY citations_by_request ON kerai.citations USING (kerai._request_visible(request_id));

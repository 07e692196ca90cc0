-- Roles: the four group roles, what each may do, and refusals that name the role to grant.
SELECT r.rolname, r.rolcanlogin,
       array(SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
              WHERE m.member = r.oid ORDER BY 1) AS member_of
  FROM pg_roles r WHERE r.rolname IN ('kerai_reader', 'kerai_editor', 'kerai_fetcher', 'kerai_admin') ORDER BY 1;

-- Table privileges of each role on a few tables (r = SELECT, a = INSERT, w = UPDATE, d = DELETE).
SELECT t AS "table",
       concat_ws('', CASE WHEN has_table_privilege(role, 'kerai.' || t, 'SELECT') THEN 'r' END,
                     CASE WHEN has_table_privilege(role, 'kerai.' || t, 'INSERT') THEN 'a' END,
                     CASE WHEN has_table_privilege(role, 'kerai.' || t, 'UPDATE') THEN 'w' END,
                     CASE WHEN has_table_privilege(role, 'kerai.' || t, 'DELETE') THEN 'd' END) AS privileges,
       role
  FROM unnest(ARRAY['targets', 'nodes', 'chunks', 'settings', 'ai_requests']) t,
       unnest(ARRAY['kerai_reader', 'kerai_editor', 'kerai_fetcher', 'kerai_admin']) role
 ORDER BY 1, 3;

-- Nothing for PUBLIC.
SELECT has_schema_privilege('public', 'kerai', 'USAGE') AS public_schema_usage,
       has_function_privilege('public', 'kerai.search(text, integer, jsonb)', 'EXECUTE') AS public_search;

-- SECURITY DEFINER only where the owner is needed, each with a pinned search_path.
SELECT p.oid::regprocedure AS function, p.proconfig AS settings
  FROM pg_proc p WHERE p.pronamespace = 'kerai'::regnamespace AND p.prosecdef ORDER BY p.proname;

SELECT kerai.parse_markdown(E'# Roles\n\nReaders search the corpus.', '{"source_url": "https://example.org/roles"}') IS NOT NULL AS ingested;
SELECT kerai.chunk_document(id) IS NOT NULL AS chunked FROM kerai.nodes WHERE kind = 'document';

-- Full-text IDF reads the column statistics only for a role that may read them in pg_stats:
-- row-level security on the chunks hides them from a reader (every lexeme then weighs 1).
ANALYZE kerai.chunks;
SELECT kerai._lexeme_frequencies('kerai.chunks'::regclass, 'fts', '{reader}') IS NOT NULL AS owner_reads_statistics;
SET ROLE kerai_reader;
SELECT count(*) AS hits FROM kerai.search('readers', 3, '{"mode": "fts"}');
SELECT kerai._lexeme_frequencies('kerai.chunks'::regclass, 'fts', '{reader}') IS NULL AS statistics_hidden_from_reader;
SELECT kerai.set_target('roles_demo', 'http://127.0.0.1:9/');
DELETE FROM kerai.chunks;
RESET ROLE;

SET ROLE kerai_editor;
SELECT (kerai.set_target('roles_demo', 'http://127.0.0.1:9/')).name;
SELECT kerai.delete_target('roles_demo') ->> 'target' AS deleted_by_editor;
SELECT (kerai.set_target('roles_demo', 'http://127.0.0.1:9/')).name;
SELECT kerai.set_setting('answer_passages', '3');
SELECT kerai.configure_chat('http://127.0.0.1:9/v1', 'chat-model');
RESET ROLE;

SET ROLE kerai_admin;
SELECT kerai.set_setting('answer_passages', '3');
SELECT kerai.set_setting('chat_base_url', '"https://user:secret@api.example/v1"');
SELECT kerai.reset_setting('answer_passages');
RESET ROLE;

-- Users own their targets; row-level security shows each user their own and the shared ones.
CREATE ROLE regress_alice;
CREATE ROLE regress_bob;
SELECT kerai.add_user('Alice@Example.org', 'regress_alice', 'editor') IS NOT NULL AS added;
SELECT kerai.add_user('bob@example.org', 'regress_bob', 'editor') IS NOT NULL AS added;
SELECT kerai.add_user('carol@example.org', 'regress_nobody', 'editor');
SELECT kerai.add_user('dan@example.org', 'regress_bob', 'owner');
SELECT email, role_name, role FROM kerai.users ORDER BY email;
SET ROLE regress_alice;
SELECT (kerai.set_target('alice_wiki', 'https://alice.example/')).name;
SELECT email FROM kerai.users;
SET ROLE regress_bob;
SELECT (kerai.set_target('bob_wiki', 'https://bob.example/')).name;
SELECT name FROM kerai.targets ORDER BY name;
RESET ROLE;
SELECT t.name, u.email AS owner FROM kerai.targets t LEFT JOIN kerai.users u ON u.id = t.owner_id ORDER BY t.name;

-- Leave nothing behind for the files that follow.
DELETE FROM kerai.targets WHERE name IN ('alice_wiki', 'bob_wiki');
DELETE FROM kerai.users WHERE role_name IN ('regress_alice', 'regress_bob');
DROP ROLE regress_alice;
DROP ROLE regress_bob;
DELETE FROM kerai.targets WHERE name = 'roles_demo';
DELETE FROM kerai.nodes WHERE document_id = (SELECT id FROM kerai.nodes WHERE kind = 'document' AND metadata->>'source_url' = 'https://example.org/roles');

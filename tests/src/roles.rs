//! The roles and row-level security, asserted on any kerai database: the single-node tests
//! (tests/roles.rs) and the Citus cluster (tests/citus.rs) run the same checks.

use crate::TestDb;
use postgres::error::SqlState;
use postgres::{Client, NoTls};

/// Login roles made by a test, dropped at its end.
pub struct Logins {
    admin_url: String,
    names: Vec<String>,
}

impl Logins {
    pub fn new() -> Logins {
        Logins {
            admin_url: crate::db::admin_url(),
            names: Vec::new(),
        }
    }

    /// A fresh login role in `groups`; returns the URL of `db` as it. Made from `db` itself (a
    /// Citus coordinator sends the role and its grants to the workers of that database).
    pub fn login(&mut self, db: &TestDb, who: &str, groups: &[&str]) -> String {
        let name = format!("{who}_{}", std::process::id());
        let mut admin = db.client();
        admin
            .batch_execute(&format!(
                "DROP ROLE IF EXISTS {name}; CREATE ROLE {name} LOGIN"
            ))
            .unwrap();
        for g in groups {
            admin
                .batch_execute(&format!("GRANT {g} TO {name}"))
                .unwrap();
        }
        self.names.push(name.clone());
        crate::run::as_role(&db.url, &name)
    }
}

impl Default for Logins {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Logins {
    fn drop(&mut self) {
        if let Ok(mut admin) = Client::connect(&self.admin_url, NoTls) {
            for n in &self.names {
                let _ = admin.batch_execute(&format!("DROP ROLE IF EXISTS {n}"));
            }
        }
    }
}

pub fn connect(url: &str) -> Client {
    Client::connect(url, NoTls).unwrap_or_else(|e| panic!("connect as {url}: {e}"))
}

/// `sql` fails with `permission denied` (42501); the message, detail and hint as one string.
pub fn denied(c: &mut Client, sql: &str) -> String {
    let err = c
        .batch_execute(sql)
        .expect_err(&format!("{sql} should be refused"));
    let db = err.as_db_error().unwrap_or_else(|| panic!("{sql}: {err}"));
    assert_eq!(
        db.code(),
        &SqlState::INSUFFICIENT_PRIVILEGE,
        "{sql}: {}",
        db.message()
    );
    format!("{} | {}", db.message(), db.hint().unwrap_or(""))
}

const DOC: &str = "# Regulators\n\nEvery good regulator of a system must be a model of that system (Conant and Ashby, 1970).\n";

/// The logins `each_role_does_its_part` made (dropped with this), and the URLs of the reader
/// and the admin, for further checks.
pub struct RoleLogins {
    _logins: Logins,
    pub reader: String,
    pub admin: String,
}

/// kerai_reader, kerai_editor and kerai_admin, granted to login roles that are not superusers:
/// each may do its part and no more, and a refusal names the role to grant.
pub fn each_role_does_its_part(db: &TestDb) -> RoleLogins {
    db.client()
        .execute(
            "SELECT kerai.chunk_document(kerai.parse_markdown($1, '{\"source_url\": \"https://example.org/r\"}'))",
            &[&DOC],
        )
        .unwrap();
    let mut logins = Logins::new();
    let nobody = logins.login(db, "kerai_t_nobody", &[]);
    let reader = logins.login(db, "kerai_t_reader", &["kerai_reader"]);
    let editor = logins.login(db, "kerai_t_editor", &["kerai_editor"]);
    let admin = logins.login(db, "kerai_t_admin", &["kerai_admin"]);

    // A role without any kerai role sees nothing.
    let msg = denied(&mut connect(&nobody), "SELECT count(*) FROM kerai.chunks");
    assert!(msg.contains("schema kerai"), "{msg}");

    // Readers search, answer and read the dashboards; they change nothing.
    let mut r = connect(&reader);
    let hits: i64 = r
        .query_one(
            "SELECT count(*) FROM kerai.search('good regulator', 5, '{\"mode\": \"fts\"}')",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(hits >= 1);
    r.batch_execute("SELECT kerai.answer('What must a good regulator be?')")
        .unwrap();
    r.batch_execute("SELECT * FROM kerai.corpus_overview; SELECT * FROM kerai.retrieval_overview")
        .unwrap();
    let msg = denied(
        &mut r,
        "SELECT kerai.set_target('site', 'http://127.0.0.1:9/')",
    );
    assert!(
        msg.contains("kerai.set_target") && msg.contains("GRANT kerai_editor TO kerai_t_reader_"),
        "{msg}"
    );
    denied(&mut r, "DELETE FROM kerai.chunks");
    denied(&mut r, "UPDATE kerai.nodes SET content = 'x'");

    // Editors manage targets and runs, not settings or endpoints.
    let mut e = connect(&editor);
    e.batch_execute("SELECT kerai.set_target('site', 'http://127.0.0.1:9/')")
        .unwrap();
    let job: uuid::Uuid = e
        .query_one("SELECT kerai.enqueue_job('site')", &[])
        .unwrap()
        .get(0);
    let st: String = e
        .query_one("SELECT kerai.cancel_job($1)", &[&job])
        .unwrap()
        .get(0);
    assert_eq!(st, "CANCELLED");
    let msg = denied(
        &mut e,
        "SELECT kerai.configure_chat('http://127.0.0.1:9/v1', 'chat-model')",
    );
    assert!(
        msg.contains("GRANT kerai_admin TO kerai_t_editor_"),
        "{msg}"
    );
    let msg = denied(&mut e, "SELECT kerai.set_setting('answer_passages', '3')");
    assert!(msg.contains("kerai_admin"), "{msg}");
    denied(&mut e, "SELECT kerai.partition_by_month('ai_requests')");
    denied(&mut e, "SELECT kerai._partition_by_month('ai_requests', 1)");
    denied(&mut e, "DELETE FROM kerai.settings");

    // Admins set endpoints; an endpoint carrying credentials is refused with what to do.
    let mut a = connect(&admin);
    a.batch_execute(
        "SELECT kerai.configure_chat('http://127.0.0.1:9/v1', 'chat-model', 'MY_CHAT_KEY')",
    )
    .unwrap();
    let err = a
        .batch_execute(
            "SELECT kerai.configure_chat('https://user:secret@api.example/v1', 'chat-model')",
        )
        .unwrap_err();
    let dbe = err.as_db_error().unwrap();
    assert_eq!(dbe.code(), &SqlState::INVALID_PARAMETER_VALUE);
    assert!(
        dbe.message().contains("must not hold credentials"),
        "{}",
        dbe.message()
    );
    assert!(dbe.hint().unwrap_or("").contains("_api_key_env"));
    // Choosing an embedding model builds its index, which needs the extension's owner: the
    // admin gets it through a SECURITY DEFINER function no one else may call.
    a.batch_execute(
        "SELECT kerai.configure_embeddings('openai', 'fake-embed', 16, 'http://127.0.0.1:9/v1')",
    )
    .unwrap();
    let indexed: bool = db.one(
        "SELECT EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = 'kerai' AND indexdef LIKE '%vector(16)%')",
    );
    assert!(indexed);
    let msg = denied(&mut e, "SELECT kerai._create_embedding_index('m', 8)");
    assert!(msg.contains("_create_embedding_index"), "{msg}");
    // No key in any table: the settings name environment variables.
    let leaked: i64 =
        db.one("SELECT count(*) FROM kerai.settings WHERE value::text ILIKE '%secret%'");
    assert_eq!(leaked, 0);
    RoleLogins {
        _logins: logins,
        reader,
        admin,
    }
}

/// Users (seed 001) and row-level security: a user sees their own targets and what was crawled
/// for them, plus what is shared; never another user's, through tables, views, search or
/// answers. Admins see everything.
pub fn users_see_their_own_crawls_and_questions(db: &TestDb) {
    let mut logins = Logins::new();
    let alice = logins.login(db, "kerai_t_alice", &[]);
    let bob = logins.login(db, "kerai_t_bob", &[]);
    let admin = logins.login(db, "kerai_t_boss", &["kerai_admin"]);
    let pid = std::process::id();
    let mut a_admin = connect(&admin);
    for (who, role) in [("alice", "editor"), ("bob", "editor")] {
        a_admin
            .execute(
                "SELECT kerai.add_user($1, $2, $3)",
                &[
                    &format!("{who}@example.org"),
                    &format!("kerai_t_{who}_{pid}"),
                    &role,
                ],
            )
            .unwrap();
    }
    // Each creates a target; their crawls' pages, versions, chunks and logs are written by the
    // fetcher (here the superuser stands in for it).
    let mut a = connect(&alice);
    let mut b = connect(&bob);
    a.batch_execute("SELECT kerai.set_target('alice-wiki', 'https://alice.example/')")
        .unwrap();
    b.batch_execute("SELECT kerai.set_target('bob-wiki', 'https://bob.example/')")
        .unwrap();
    let mut su = db.client();
    for (target, word) in [("alice-wiki", "aardvark"), ("bob-wiki", "bobolink")] {
        // (Written as a distributed database takes them: no subquery in INSERT ... VALUES.)
        su.batch_execute(&format!(
            "SELECT kerai._job_log(kerai.enqueue_job('{target}'), 'info', 'PAGE_NEW', 'fetched {word}', 'https://{target}.example/p');
             INSERT INTO kerai.pages (target_id, url, url_hash)
             SELECT t.id, 'https://{target}.example/p', md5('{target}') FROM kerai.targets t WHERE t.name = '{target}';
             SELECT kerai.chunk_document(kerai.parse_markdown(E'# {word}\\n\\nThe {word} is the subject of this page.\\n',
                                                              '{{\"source_url\": \"https://{target}.example/p\"}}'));
             UPDATE kerai.chunks c SET target_id = t.id FROM kerai.targets t
              WHERE t.name = '{target}' AND c.target_id IS NULL;"
        ))
        .unwrap_or_else(|e| panic!("{target}: {e:?}"));
    }
    // A shared document (the corpus grown along citations has no target).
    su.batch_execute(
        "SELECT kerai.chunk_document(kerai.parse_markdown(E'# Commons\\n\\nThe aardvark and the bobolink share this commons page.\\n',
                                                          '{\"source_url\": \"https://commons.example/c\"}'))",
    )
    .unwrap();
    let count = |c: &mut Client, sql: &str| -> i64 {
        c.query_one(sql, &[])
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"))
            .get(0)
    };
    for (c, own, other) in [
        (&mut a, "alice-wiki", "bob-wiki"),
        (&mut b, "bob-wiki", "alice-wiki"),
    ] {
        let seen: Vec<String> = c
            .query("SELECT name FROM kerai.targets ORDER BY name", &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(seen, vec![own.to_string()], "targets");
        let q = |t: &str| format!("(SELECT id FROM kerai.targets WHERE name = '{t}')");
        assert_eq!(
            count(
                c,
                &format!(
                    "SELECT count(*) FROM kerai.pages WHERE target_id = {}",
                    q(other)
                )
            ),
            0
        );
        assert_eq!(count(c, "SELECT count(*) FROM kerai.pages"), 1, "own pages");
        assert_eq!(
            count(c, "SELECT count(*) FROM kerai.scrape_jobs"),
            1,
            "own jobs"
        );
        assert_eq!(
            count(c, "SELECT count(*) FROM kerai.job_logs"),
            1,
            "own logs"
        );
        assert_eq!(
            count(c, "SELECT count(*) FROM kerai.job_summary"),
            1,
            "views check as the caller"
        );
        // Own chunks and the shared ones; never the other's, even searched for by name.
        assert_eq!(
            count(c, "SELECT count(*) FROM kerai.chunks"),
            2,
            "own and shared chunks"
        );
        let other_word = if own == "alice-wiki" {
            "bobolink"
        } else {
            "aardvark"
        };
        let own_word = if own == "alice-wiki" {
            "aardvark"
        } else {
            "bobolink"
        };
        let hits: Vec<String> = c
            .query(
                &format!(
                    "SELECT url FROM kerai.search('{other_word}', 10, '{{\"mode\": \"fts\"}}')"
                ),
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get::<_, Option<String>>(0).unwrap_or_default())
            .collect();
        assert_eq!(
            hits,
            vec!["https://commons.example/c".to_string()],
            "search of the other's word"
        );
        let own_hits = count(
            c,
            &format!(
                "SELECT count(*) FROM kerai.search('{own_word}', 10, '{{\"mode\": \"fts\"}}')"
            ),
        );
        assert_eq!(own_hits, 2, "own page and the commons");
        let answer: String = c
            .query_one(
                &format!("SELECT kerai.answer('What is the {other_word}?')::text"),
                &[],
            )
            .unwrap()
            .get(0);
        assert!(
            !answer.contains(&format!("{other}.example")),
            "an answer cited the other user's page: {answer}"
        );
        assert_eq!(
            count(c, "SELECT count(*) FROM kerai.ai_requests"),
            1,
            "own questions only"
        );
        assert_eq!(
            count(c, "SELECT count(*) FROM kerai.answer_citations"),
            count(c, "SELECT count(*) FROM kerai.citations")
        );
        // Writing into the other's target is refused by the policy.
        let err = c
            .batch_execute(&format!(
                "UPDATE kerai.targets SET is_active = false WHERE name = '{other}'"
            ))
            .map(|_| ());
        assert!(err.is_ok());
        assert_eq!(
            count(
                &mut db.client(),
                &format!("SELECT count(*) FROM kerai.targets WHERE name = '{other}' AND is_active")
            ),
            1
        );
    }
    // Admins see everyone's.
    assert_eq!(count(&mut a_admin, "SELECT count(*) FROM kerai.targets"), 2);
    assert_eq!(
        count(&mut a_admin, "SELECT count(*) FROM kerai.ai_requests"),
        2
    );
    assert_eq!(count(&mut a_admin, "SELECT count(*) FROM kerai.users"), 2);
    // Users see their own user row only.
    assert_eq!(count(&mut a, "SELECT count(*) FROM kerai.users"), 1);
    // The owner columns say who: targets, jobs and questions reference their user.
    let owners: i64 = db.one(
        "SELECT count(*) FROM kerai.targets t JOIN kerai.users u ON u.id = t.owner_id
          WHERE u.email IN ('alice@example.org', 'bob@example.org')",
    );
    assert_eq!(owners, 2);
    let askers: i64 = db.one("SELECT count(DISTINCT user_id) FROM kerai.ai_requests");
    assert_eq!(askers, 2);
}

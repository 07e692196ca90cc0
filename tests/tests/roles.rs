//! Roles: kerai_reader, kerai_editor, kerai_fetcher and kerai_admin, granted to login roles that
//! are not superusers. Each may do its part and no more; a refusal names the role to grant; only
//! admins set HTTP endpoints, and an endpoint with credentials in it is refused.

use kerai_e2e::{kerai, TestDb};
use postgres::error::SqlState;
use postgres::{Client, NoTls};

/// Login roles made by a test, dropped at its end.
struct Logins {
    admin_url: String,
    names: Vec<String>,
}

impl Logins {
    fn new() -> Logins {
        Logins {
            admin_url: kerai_e2e::db::admin_url(),
            names: Vec::new(),
        }
    }

    /// A fresh login role in `groups`; returns the URL of `db` as it.
    fn login(&mut self, db: &TestDb, who: &str, groups: &[&str]) -> String {
        let name = format!("{who}_{}", std::process::id());
        let mut admin = Client::connect(&self.admin_url, NoTls).unwrap();
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
        db.url.replacen(
            "postgresql://postgres@",
            &format!("postgresql://{name}@"),
            1,
        )
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

fn connect(url: &str) -> Client {
    Client::connect(url, NoTls).unwrap_or_else(|e| panic!("connect as {url}: {e}"))
}

/// `sql` fails with `permission denied` (42501); the message, detail and hint as one string.
fn denied(c: &mut Client, sql: &str) -> String {
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

#[test]
fn each_role_does_its_part_and_a_refusal_names_the_role_to_grant() {
    let db = TestDb::new("roles");
    db.client()
        .execute(
            "SELECT kerai.chunk_document(kerai.parse_markdown($1, '{\"source_url\": \"https://example.org/r\"}'))",
            &[&DOC],
        )
        .unwrap();
    let mut logins = Logins::new();
    let nobody = logins.login(&db, "kerai_t_nobody", &[]);
    let reader = logins.login(&db, "kerai_t_reader", &["kerai_reader"]);
    let editor = logins.login(&db, "kerai_t_editor", &["kerai_editor"]);
    let admin = logins.login(&db, "kerai_t_admin", &["kerai_admin"]);

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
    // Partitioning, as an admin that is not a superuser.
    a.batch_execute("SELECT kerai.partition_by_month('ai_requests')")
        .unwrap();
    let partitioned: bool =
        db.one("SELECT relkind = 'p' FROM pg_class WHERE oid = 'kerai.ai_requests'::regclass");
    assert!(partitioned);
    // The rebuilt table kept its grants: readers still ask (extractively, once the chat
    // endpoint is reset).
    a.batch_execute("SELECT kerai.reset_setting('chat_base_url')")
        .unwrap();
    r.batch_execute("SELECT kerai.answer('What must a good regulator be?')")
        .unwrap();

    // No key in any table: the settings name environment variables.
    let leaked: i64 =
        db.one("SELECT count(*) FROM kerai.settings WHERE value::text ILIKE '%secret%'");
    assert_eq!(leaked, 0);
}

#[test]
fn the_cli_runs_as_a_login_that_is_not_a_superuser() {
    let db = TestDb::new("roles_cli");
    let who: String = {
        let out = kerai(&db.url, &["status", "--format", "json"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let mut c = connect(&kerai_e2e::run::as_cli_role(&db.url));
        c.query_one("SELECT current_user::text || ' ' || rolsuper::text FROM pg_roles WHERE rolname = current_user", &[])
            .unwrap()
            .get(0)
    };
    assert_eq!(who, format!("{} false", kerai_e2e::db::CLI_ROLE));
}

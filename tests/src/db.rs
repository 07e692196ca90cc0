//! A fresh database per test, with `CREATE EXTENSION kerai CASCADE`.

use postgres::{Client, NoTls};
use std::sync::atomic::{AtomicU32, Ordering};

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// The maintenance connection string `make test` exports.
pub fn admin_url() -> String {
    std::env::var("KERAI_TEST_DATABASE_URL").unwrap_or_else(|_| {
        panic!("KERAI_TEST_DATABASE_URL is not set: run the end-to-end tests through `make test`")
    })
}

/// The login role the tests run the `kerai` CLI as: not a superuser, a member of kerai_editor
/// and kerai_fetcher, as a user who crawls would be (see [`crate::run::command`]).
pub const CLI_ROLE: &str = "kerai_cli";

/// Let the SSRF guard reach the servers at `urls` (their `host:port`), as an administrator who
/// runs services on private addresses does: appends them to the `allowed_private_hosts`
/// setting. The tests' servers all listen on loopback, which kerai refuses by default.
pub fn allow_private(c: &mut Client, urls: &[&str]) {
    let entries: Vec<String> = urls
        .iter()
        .map(|u| {
            let rest = u.split_once("://").map_or(*u, |(_, r)| r);
            let hostport = rest.split('/').next().unwrap_or(rest);
            assert!(hostport.contains(':'), "{u}: give the port");
            hostport.to_string()
        })
        .collect();
    c.execute(
        "SELECT kerai.set_setting('allowed_private_hosts', (
             SELECT coalesce(jsonb_agg(DISTINCT e), '[]')
               FROM (SELECT jsonb_array_elements_text(kerai.setting('allowed_private_hosts'))
                     UNION SELECT unnest($1::text[])) x(e)))",
        &[&entries],
    )
    .expect("kerai.set_setting('allowed_private_hosts', ...)");
}

/// Make [`CLI_ROLE`] when the cluster lacks it (after CREATE EXTENSION made the group roles).
pub fn cli_role(c: &mut Client) {
    c.batch_execute(&format!(
        "DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{CLI_ROLE}') THEN
                CREATE ROLE {CLI_ROLE} LOGIN;
            END IF;
            IF NOT pg_has_role('{CLI_ROLE}', 'kerai_editor', 'MEMBER') OR NOT pg_has_role('{CLI_ROLE}', 'kerai_fetcher', 'MEMBER') THEN
                GRANT kerai_editor, kerai_fetcher TO {CLI_ROLE};
            END IF;
         EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
         END $$"
    ))
    .expect("create the CLI's login role");
}

/// Make pg_cron's scheduler read its job table again (`pg_reload_conf()`; pg_cron rereads its
/// jobs on SIGHUP). Call it after scheduling, as a superuser. pg_cron (1.4 to 1.6) drops a job
/// change whose notice was lost because its scheduler fell behind the server's invalidation
/// queue while another session made many catalog changes (here: a test creating a database
/// with the extension); the job then never fires until the server restarts (pg_cron issue 406).
pub fn pg_cron_reread_jobs(c: &mut Client) {
    c.batch_execute("SELECT pg_reload_conf()")
        .expect("ask pg_cron to reread its jobs");
}

pub struct TestDb {
    pub name: String,
    pub url: String,
    admin_url: String,
    keep: bool,
}

impl TestDb {
    /// Create database `e2e_<label>_<pid>_<n>` with the extension installed.
    pub fn new(label: &str) -> TestDb {
        let db = TestDb::empty(label);
        db.client()
            .batch_execute("CREATE EXTENSION kerai CASCADE")
            .expect("CREATE EXTENSION kerai CASCADE");
        cli_role(&mut db.client());
        db
    }

    /// Create database `e2e_<label>_<pid>_<n>` without the extension.
    pub fn empty(label: &str) -> TestDb {
        let admin_url = admin_url();
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let name = format!("e2e_{label}_{}_{n}", std::process::id());
        let mut admin = Client::connect(&admin_url, NoTls).expect("connect to the test cluster");
        admin
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
            .unwrap();
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        let url = match admin_url.rsplit_once('/') {
            Some((base, _)) => format!("{base}/{name}"),
            None => panic!("KERAI_TEST_DATABASE_URL must end in /DATABASE"),
        };
        TestDb {
            name,
            url,
            admin_url,
            keep: false,
        }
    }

    /// A database that outlives the test (made when missing, never dropped): for pg_cron,
    /// which works in the one database named by cron.database_name.
    pub fn existing(name: &str) -> TestDb {
        let admin_url = admin_url();
        let mut admin = Client::connect(&admin_url, NoTls).expect("connect to the test cluster");
        let exists = admin
            .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
            .unwrap()
            .is_some();
        if !exists {
            // Tests side by side may both find it missing: the second CREATE meets the first's.
            if let Err(e) = admin.batch_execute(&format!("CREATE DATABASE {name}")) {
                let made_meanwhile = e.code()
                    == Some(&postgres::error::SqlState::DUPLICATE_DATABASE)
                    || e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION);
                assert!(made_meanwhile, "CREATE DATABASE {name}: {e}");
            }
        }
        let url = match admin_url.rsplit_once('/') {
            Some((base, _)) => format!("{base}/{name}"),
            None => panic!("KERAI_TEST_DATABASE_URL must end in /DATABASE"),
        };
        TestDb {
            name: name.to_string(),
            url,
            admin_url,
            keep: true,
        }
    }

    pub fn client(&self) -> Client {
        Client::connect(&self.url, NoTls).expect("connect to the test database")
    }

    /// The database goes away for `lasting`, as a restart looks to its clients: new connections
    /// are refused and every session but the `keep` backends' is ended. Returns how many ended.
    pub fn outage(&self, keep: &[i32], lasting: std::time::Duration) -> i64 {
        let mut admin =
            Client::connect(&self.admin_url, NoTls).expect("connect to the test cluster");
        admin
            .batch_execute(&format!(
                "ALTER DATABASE {} ALLOW_CONNECTIONS false",
                self.name
            ))
            .unwrap();
        let ended: i64 = admin
            .query_one(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                  WHERE datname = $1 AND NOT pid = ANY ($2)",
                &[&self.name, &keep],
            )
            .unwrap()
            .get(0);
        std::thread::sleep(lasting);
        admin
            .batch_execute(&format!(
                "ALTER DATABASE {} ALLOW_CONNECTIONS true",
                self.name
            ))
            .unwrap();
        ended
    }

    /// Run one query returning one value.
    pub fn one<T: for<'a> postgres::types::FromSql<'a>>(&self, sql: &str) -> T {
        self.client()
            .query_one(sql, &[])
            .unwrap_or_else(|e| panic!("{sql}: {}", error_text(&e)))
            .get(0)
    }
}

/// A database error as psql shows it: the server's message, detail, hint and context (the
/// client's own `Display` says only "db error").
pub fn error_text(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => {
            let mut out = format!("{}: {}", d.severity(), d.message());
            for (label, part) in [
                ("DETAIL", d.detail()),
                ("HINT", d.hint()),
                ("CONTEXT", d.where_()),
            ] {
                if let Some(p) = part {
                    out.push_str(&format!("\n{label}: {p}"));
                }
            }
            out
        }
        None => e.to_string(),
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if self.keep || std::env::var("KERAI_KEEP_TEST_DBS").is_ok() {
            return;
        }
        if let Ok(mut admin) = Client::connect(&self.admin_url, NoTls) {
            let _ = admin.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

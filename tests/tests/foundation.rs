//! The whole path: extension installed in a real cluster, reached by the `kerai` CLI.

use kerai_e2e::{kerai, TestDb};

#[test]
fn cli_reads_the_installed_extension() {
    let db = TestDb::new("foundation");
    let version: String = db.one("SELECT kerai.version()");
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    let out = kerai(&db.url, &["status"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(
        out.stdout.contains(&format!("kerai {version}")),
        "stdout: {}",
        out.stdout
    );
}

#[test]
fn cli_names_an_unreachable_database_and_exits_2() {
    let out = kerai("postgresql://nobody@127.0.0.1:1/nowhere", &["status"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("cannot connect to the database postgresql://nobody@127.0.0.1:1/nowhere"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint:"), "{}", out.stderr);
}

#[test]
fn cli_says_why_the_server_refused_a_connection() {
    let db = TestDb::new("foundation_refused");
    let url = kerai_e2e::run::as_role(&db.url, "no_such_login_role");
    let out = kerai(&url, &["status"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    // The server's own reason, not a bare "db error", and what to fix.
    assert!(
        out.stderr
            .contains("role \"no_such_login_role\" does not exist"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("check the role and database"),
        "{}",
        out.stderr
    );
}

//! Roles: kerai_reader, kerai_editor, kerai_fetcher and kerai_admin, granted to login roles that
//! are not superusers. Each may do its part and no more; a refusal names the role to grant; only
//! admins set HTTP endpoints, and an endpoint with credentials in it is refused. The checks
//! live in kerai_e2e::roles, which the Citus suite runs on distributed tables too.

use kerai_e2e::roles::{
    connect, each_role_does_its_part, users_see_their_own_crawls_and_questions,
};
use kerai_e2e::{kerai, TestDb};

#[test]
fn each_role_does_its_part_and_a_refusal_names_the_role_to_grant() {
    let db = TestDb::new("roles");
    let logins = each_role_does_its_part(&db);
    // Partitioning, as an admin that is not a superuser.
    let mut a = connect(&logins.admin);
    a.batch_execute("SELECT kerai.partition_by_month('ai_requests')")
        .unwrap();
    let partitioned: bool =
        db.one("SELECT relkind = 'p' FROM pg_class WHERE oid = 'kerai.ai_requests'::regclass");
    assert!(partitioned);
    // The rebuilt table kept its grants: readers still ask (extractively, once the chat
    // endpoint is reset).
    a.batch_execute("SELECT kerai.reset_setting('chat_base_url')")
        .unwrap();
    connect(&logins.reader)
        .batch_execute("SELECT kerai.answer('What must a good regulator be?')")
        .unwrap();
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

/// Users (seed 001) and row-level security: a user sees their own targets and what was crawled
/// for them, plus what is shared; never another user's, through tables, views, search or
/// answers. Admins see everything.
#[test]
fn users_see_their_own_crawls_and_questions_and_the_shared_corpus() {
    users_see_their_own_crawls_and_questions(&TestDb::new("roles_rls"));
}

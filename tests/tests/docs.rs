//! The generated SQL reference: every public function, table and view of a fresh install has a
//! `COMMENT ON`, and `docs/reference/sql.md` is what `tests/sql/reference.sql` makes of them.
//! `KERAI_WRITE_DOCS=1` rewrites the file (commit it).

use kerai_e2e::{repo_root, TestDb};

#[test]
fn every_public_function_table_and_view_has_a_description() {
    let db = TestDb::new("comments");
    let missing: Vec<String> = db
        .client()
        .query(
            "SELECT p.oid::regprocedure::text FROM pg_proc p
              WHERE p.pronamespace = 'kerai'::regnamespace AND p.proname !~ '^_'
                AND obj_description(p.oid, 'pg_proc') IS NULL
             UNION ALL
             SELECT c.oid::regclass::text FROM pg_class c
              WHERE c.relnamespace = 'kerai'::regnamespace AND c.relkind IN ('r', 'p', 'v')
                AND NOT c.relispartition AND c.relname !~ '^_'
                AND obj_description(c.oid, 'pg_class') IS NULL
             ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(
        missing.is_empty(),
        "give these a COMMENT ON (sql/comments.sql for functions, beside the CREATE for relations): {missing:?}"
    );
}

#[test]
fn docs_reference_sql_md_is_current() {
    let db = TestDb::new("reference");
    let sql = std::fs::read_to_string(repo_root().join("tests/sql/reference.sql")).unwrap();
    let want: String = db.one(&sql);
    let want = format!("{}\n", want.trim_end());
    let path = repo_root().join("docs/reference/sql.md");
    if std::env::var_os("KERAI_WRITE_DOCS").is_some() {
        std::fs::write(&path, &want).expect("write docs/reference/sql.md");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/reference/sql.md is stale: run `make docs` and commit it"
    );
}

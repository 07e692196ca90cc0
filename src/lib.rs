//! kerai: a knowledge corpus inside Postgres.
//!
//! This crate is the SQL face only: schema files from `sql/` (loaded in the order below) and
//! thin `#[pg_extern]` wrappers over `kerai-core`. The logic lives in `crates/kerai-core`.

use pgrx::prelude::*;

::pgrx::pg_module_magic!(name, version);

mod citations;
mod crawl;
mod errors;
mod extraction;
mod markdown;
mod version;

use citations::{
    author_year_key, detect_citations, normalize_title, parse_reference, split_bibliography,
};
use crawl::family_key;
use markdown::parse_markdown;
use version::uuid7;

// Tables first; functions written in SQL after the Rust functions they call.
extension_sql_file!("../sql/graph.sql", name = "graph", bootstrap);
extension_sql_file!(
    "../sql/defaults.sql",
    name = "defaults",
    requires = ["graph", uuid7]
);
extension_sql_file!(
    "../sql/counters.sql",
    name = "counters",
    requires = ["defaults"]
);
extension_sql_file!("../sql/agents.sql", name = "agents", requires = ["graph"]);
extension_sql_file!(
    "../sql/references.sql",
    name = "references",
    requires = ["counters", "agents"]
);
extension_sql_file!(
    "../sql/scoring.sql",
    name = "scoring",
    requires = ["references", family_key, normalize_title]
);
extension_sql_file!(
    "../sql/extract.sql",
    name = "extract",
    requires = [
        "scoring",
        detect_citations,
        parse_reference,
        split_bibliography,
        author_year_key
    ]
);
extension_sql_file!(
    "../sql/crawl.sql",
    name = "crawl",
    requires = ["extract", parse_markdown]
);
extension_sql_file!(
    "../sql/site.sql",
    name = "site",
    requires = ["crawl", parse_markdown]
);

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    #[pg_test]
    fn version_matches_the_crate() {
        assert_eq!(crate::version::version(), env!("CARGO_PKG_VERSION"));
    }

    #[pg_test]
    fn nodes_and_edges_round_trip() {
        let n = Spi::get_one::<i64>(
            "WITH d AS (INSERT INTO kerai.nodes (kind, content) VALUES ('document', 'd') RETURNING id),
                  p AS (INSERT INTO kerai.nodes (kind, content, parent_id)
                        SELECT 'paragraph', 'p', id FROM d RETURNING id, parent_id)
             INSERT INTO kerai.edges (source_id, target_id, relation)
             SELECT parent_id, id, 'contains' FROM p RETURNING 1::bigint",
        )
        .expect("insert works");
        assert_eq!(n, Some(1));
        let edges =
            Spi::get_one::<i64>("SELECT count(*) FROM kerai.edges WHERE relation = 'contains'")
                .expect("count works");
        assert_eq!(edges, Some(1));
    }

    #[pg_test]
    fn parse_markdown_is_idempotent_and_nests_sections() {
        let md = "# Title\n\nIntro with a citation (Friston, 2010).\n\n## Part\n\n- one\n- two\n";
        let a = Spi::get_one_with_args::<pgrx::Uuid>(
            "SELECT kerai.parse_markdown($1, '{\"source_url\": \"https://ex.org/a\"}')",
            &[md.into()],
        )
        .unwrap()
        .unwrap();
        let b = Spi::get_one_with_args::<pgrx::Uuid>(
            "SELECT kerai.parse_markdown($1, '{\"source_url\": \"https://ex.org/a\"}')",
            &[md.into()],
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            a, b,
            "the same content from the same source is the same document"
        );
        let title = Spi::get_one_with_args::<String>(
            "SELECT content FROM kerai.nodes WHERE id = $1",
            &[a.into()],
        )
        .unwrap()
        .unwrap();
        assert_eq!(title, "Title");
        let items = Spi::get_one_with_args::<i64>(
            "SELECT count(*) FROM kerai.nodes WHERE document_id = $1 AND kind = 'list_item'
               AND metadata->'heading_path' = '[\"Title\", \"Part\"]'",
            &[a.into()],
        )
        .unwrap()
        .unwrap();
        assert_eq!(items, 2);
    }

    #[pg_test(error = "kerai.parse_markdown: metadata must be a JSON object")]
    fn parse_markdown_refuses_non_object_metadata() {
        Spi::run("SELECT kerai.parse_markdown('x', '[1]')").unwrap();
    }
}

/// Required by `cargo pgrx test`.
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![]
    }
}

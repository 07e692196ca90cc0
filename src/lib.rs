//! kerai: a knowledge corpus inside Postgres.
//!
//! This crate is the SQL face only: schema files from `sql/` (loaded in the order below) and
//! thin `#[pg_extern]` wrappers over `kerai-core`. The logic lives in `crates/kerai-core`.

use pgrx::prelude::*;

::pgrx::pg_module_magic!(name, version);

mod answer;
mod chat;
mod chunk_moves;
mod chunks;
mod citations;
mod convert;
mod crawler;
mod embedding;
mod errors;
mod facts;
mod http;
mod interrupts;
mod limits;
mod markdown;
mod plans;
mod rank;
mod site;
mod version;

/// Runs once when a backend loads the library: long loops in `kerai-core` become places where
/// Postgres can cancel the query (`statement_timeout`, `pg_cancel_backend`, …).
#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    interrupts::install();
    limits::define();
    crawler::init();
}

// The Rust functions the SQL files need, named in their `requires` lists below; those lists
// are read only when the schema is generated, so the imports look unused to other builds.
#[allow(unused_imports)]
use {
    answer::{_answer_spans, _extractive_answer},
    chat::_chat,
    chunks::{chunk_document, chunk_id_sql, chunk_text},
    citations::{
        author_year_key, detect_citations, normalize_title, parse_reference, split_bibliography,
    },
    convert::{
        count_tokens, detect_language, extract_structured, html_to_markdown, source_records,
    },
    crawler::{start_crawler, stop_crawler},
    embedding::{_embed, embed_pending},
    facts::{extract_claims, extract_entities, llm_claims_prompt, parse_llm_claims},
    markdown::{parse_markdown, parse_markdown_bytes},
    rank::{_fts_score, _lexeme_frequencies},
    site::{_minhash_similarity, family_key, normalize_url, robots_allowed, url_hash},
    version::{build_info, uuid7, version},
};

// The SQL files, named by pipeline stage (graph, references, frontier, resolve, site,
// retrieval, ops). Each one's `requires` names what it needs when it is created: the files
// whose tables, views and functions it refers to, and the Rust functions it calls. (A PL/pgSQL
// body may also call functions of a file created later: those are looked up when it runs.)
extension_sql_file!("../sql/graph.sql", name = "graph", bootstrap);
extension_sql_file!(
    "../sql/graph_ids.sql",
    name = "graph_ids",
    requires = ["graph", uuid7]
);
extension_sql_file!(
    "../sql/ops_counters.sql",
    name = "ops_counters",
    requires = ["graph"]
);
extension_sql_file!(
    "../sql/frontier_agents.sql",
    name = "frontier_agents",
    requires = ["graph"]
);
extension_sql_file!(
    "../sql/frontier_states.sql",
    name = "frontier_states",
    requires = ["graph", "ops_counters", "frontier_agents"]
);
extension_sql_file!(
    "../sql/frontier_scoring.sql",
    name = "frontier_scoring",
    requires = [
        "graph",
        "frontier_agents",
        "frontier_states",
        family_key,
        normalize_title
    ]
);
extension_sql_file!(
    "../sql/references.sql",
    name = "references",
    requires = [
        "graph",
        "frontier_states",
        "frontier_scoring",
        author_year_key,
        detect_citations,
        family_key,
        normalize_title,
        normalize_url,
        parse_reference,
        split_bibliography
    ]
);
extension_sql_file!(
    "../sql/resolve.sql",
    name = "resolve",
    requires = [
        "graph",
        "ops_counters",
        "frontier_agents",
        "frontier_states",
        "frontier_scoring",
        "references",
        parse_markdown
    ]
);
extension_sql_file!(
    "../sql/ops_dashboards.sql",
    name = "ops_dashboards",
    requires = [
        "graph",
        "ops_counters",
        "frontier_states",
        "frontier_scoring",
        "resolve"
    ]
);
extension_sql_file!(
    "../sql/site.sql",
    name = "site",
    requires = ["graph", parse_markdown, _minhash_similarity]
);
extension_sql_file!(
    "../sql/retrieval.sql",
    name = "retrieval",
    requires = [
        "graph",
        "site",
        uuid7,
        chunk_document,
        _embed,
        _chat,
        count_tokens,
        llm_claims_prompt,
        parse_llm_claims
    ]
);
extension_sql_file!(
    "../sql/retrieval_search.sql",
    name = "retrieval_search",
    requires = [
        "site",
        "retrieval",
        _chat,
        _extractive_answer,
        _answer_spans,
        count_tokens
    ]
);
extension_sql_file!("../sql/ops_partitions.sql", name = "ops_partitions");
extension_sql_file!(
    "../sql/ops_backups.sql",
    name = "ops_backups",
    requires = [
        "graph",
        "frontier_agents",
        "frontier_states",
        "frontier_scoring",
        "site",
        "retrieval"
    ]
);
extension_sql_file!(
    "../sql/ops_users.sql",
    name = "ops_users",
    requires = ["site", "retrieval", uuid7]
);
// After the users: its functions and table come at a fixed place in the install script.
extension_sql_file!(
    "../sql/ops_daemons.sql",
    name = "ops_daemons",
    requires = ["site", "ops_users"]
);
// Scale-out on paper: every table's distribution key (docs/scale-out.md), once every table exists.
extension_sql_file!(
    "../sql/ops_distribution.sql",
    name = "ops_distribution",
    requires = [
        "graph",
        "frontier_agents",
        "frontier_states",
        "references",
        "resolve",
        "site",
        "retrieval",
        "ops_users",
        "ops_daemons"
    ]
);
// The description of every public function (`COMMENT ON`; docs/reference/sql.md is made from
// them), once every function exists.
extension_sql_file!(
    "../sql/comments.sql",
    name = "comments",
    requires = [
        "graph",
        "graph_ids",
        "ops_counters",
        "frontier_agents",
        "frontier_states",
        "frontier_scoring",
        "references",
        "resolve",
        "ops_dashboards",
        "site",
        "retrieval",
        "retrieval_search",
        "ops_partitions",
        "ops_backups",
        "ops_users",
        "ops_daemons",
        "ops_distribution",
        start_crawler,
        stop_crawler,
        author_year_key,
        chunk_document,
        chunk_id_sql,
        chunk_text,
        count_tokens,
        detect_citations,
        detect_language,
        embed_pending,
        extract_claims,
        extract_entities,
        extract_structured,
        family_key,
        html_to_markdown,
        llm_claims_prompt,
        normalize_title,
        normalize_url,
        parse_llm_claims,
        parse_markdown,
        parse_markdown_bytes,
        parse_reference,
        robots_allowed,
        source_records,
        split_bibliography,
        url_hash,
        uuid7,
        version,
        build_info
    ]
);
// Last of all: the grants cover every function and table above.
extension_sql_file!("../sql/ops_roles.sql", name = "ops_roles", finalize);

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

    #[pg_test]
    fn chunks_are_keyed_by_url_and_index_and_upserted_in_place() {
        let md = "# Guide\n\nFirst part of the guide.\n\n## More\n\nSecond part.\n";
        let doc = Spi::get_one_with_args::<pgrx::Uuid>(
            "SELECT kerai.parse_markdown($1, '{\"source_url\": \"https://ex.org/g\"}')",
            &[md.into()],
        )
        .unwrap()
        .unwrap();
        let first =
            Spi::get_one_with_args::<pgrx::JsonB>("SELECT kerai.chunk_document($1)", &[doc.into()])
                .unwrap()
                .unwrap()
                .0;
        assert!(first["new"].as_u64().unwrap() >= 1);
        let again =
            Spi::get_one_with_args::<pgrx::JsonB>("SELECT kerai.chunk_document($1)", &[doc.into()])
                .unwrap()
                .unwrap()
                .0;
        assert_eq!(again["new"], 0);
        assert_eq!(again["changed"], 0);
        assert_eq!(again["unchanged"], first["chunks"]);
        let keyed = Spi::get_one::<bool>(
            "SELECT bool_and(id = kerai.chunk_id('https://ex.org/g', chunk_index)) FROM kerai.chunks",
        )
        .unwrap()
        .unwrap();
        assert!(keyed);
    }

    #[pg_test(error = "kerai.embed: the text is empty or only whitespace")]
    fn embed_refuses_blank_text() {
        Spi::run("SELECT kerai.embed(' \n ')").unwrap();
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

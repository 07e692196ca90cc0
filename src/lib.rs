//! kerai: a knowledge corpus inside Postgres.
//!
//! This crate is the SQL face only: schema files from `sql/` and thin `#[pg_extern]`
//! wrappers over `kerai-core`. The logic lives in `crates/kerai-core`.

use pgrx::prelude::*;

::pgrx::pg_module_magic!(name, version);

mod version;

extension_sql_file!("../sql/graph.sql", name = "graph", bootstrap);

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

//! Upgrades: each released version's install script (`sql/archive/`), brought up to date with
//! `ALTER EXTENSION kerai UPDATE`, gives exactly the catalog of a fresh install and keeps the
//! data it held, which the new functions then serve.

use kerai_e2e::{repo_root, TestDb};
use std::collections::BTreeSet;

fn catalog(db: &TestDb) -> BTreeSet<String> {
    let sql = std::fs::read_to_string(repo_root().join("tests/sql/catalog.sql")).unwrap();
    db.client()
        .query(sql.as_str(), &[])
        .unwrap()
        .iter()
        .map(|r| r.get::<_, String>(0))
        .collect()
}

fn released_versions() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(repo_root().join("sql/archive"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().into_string().ok()?;
            Some(n.strip_prefix("kerai--")?.strip_suffix(".sql")?.to_string())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_released_version_updates_to_exactly_a_fresh_install() {
    let versions = released_versions();
    assert!(
        !versions.is_empty(),
        "sql/archive holds the released install scripts"
    );
    let fresh = TestDb::new("fresh");
    let want = catalog(&fresh);
    let current: String = fresh.one("SELECT extversion FROM pg_extension WHERE extname = 'kerai'");
    assert_eq!(current, env!("CARGO_PKG_VERSION"));
    for version in versions {
        let old = TestDb::empty("upgraded");
        old.client()
            .batch_execute(&format!(
                "CREATE EXTENSION kerai VERSION '{version}' CASCADE"
            ))
            .unwrap_or_else(|e| panic!("CREATE EXTENSION kerai VERSION '{version}': {e:?}"));
        // Data written by the old version.
        let doc: String = old.one(
            "SELECT kerai.parse_markdown(E'# Travel policy\\n\\nBook trains two weeks ahead. Claim expenses within thirty days.\\n',
                                         '{\"source_url\": \"https://wiki.example.org/travel\"}')::text",
        );
        old.client()
            .batch_execute("SELECT kerai.set_target('wiki', 'https://wiki.example.org/')")
            .unwrap();
        // A reference the old citation loop resolved: cited by DOI, resolved to a document.
        let resolved: String = old.one(
            "WITH seed AS (SELECT kerai.parse_markdown(E'# Seed\\n\\nSee doi:10.5555/kept.1 for details.\\n',
                                                       '{\"source_url\": \"https://wiki.example.org/seed\"}') AS id),
                  cycle AS (SELECT kerai.crawl_cycle() FROM seed),
                  copy AS (SELECT kerai.parse_markdown(E'# The cited paper\\n\\nIts text.\\n',
                                                       '{\"source_url\": \"https://papers.example.org/kept\"}') AS id FROM cycle)
             SELECT copy.id::text FROM copy",
        );
        old.client()
            .batch_execute(&format!(
                "INSERT INTO kerai.edges (source_id, target_id, relation)
                 SELECT node_id, '{resolved}', 'resolves_to' FROM kerai.reference_state WHERE doi = '10.5555/kept.1'"
            ))
            .unwrap();
        let edges: i64 = old.one("SELECT count(*) FROM kerai.edges WHERE relation = 'resolves_to'");
        assert_eq!(edges, 1, "the old version made the DOI reference");
        // A vector of 0.2.0's float32 model: the update keeps that model (0.3.0's default is
        // int8), so the vector goes on serving searches.
        if version != "0.1.0" {
            old.client()
                .batch_execute(
                    "SELECT kerai.chunk_document(kerai.parse_markdown(E'# Vectors\\n\\nA chunk with a float32 vector.\\n',
                                                                      '{\"source_url\": \"https://wiki.example.org/vectors\"}'));
                     INSERT INTO kerai.embeddings (chunk_id, model_name, dimensions, embedding)
                     SELECT id, 'sentence-transformers/all-MiniLM-L6-v2', 384, array_fill(0.05::real, ARRAY[384])::vector
                       FROM kerai.chunks WHERE source_url = 'https://wiki.example.org/vectors'",
                )
                .unwrap();
        }
        old.client()
            .batch_execute("ALTER EXTENSION kerai UPDATE")
            .unwrap_or_else(|e| panic!("ALTER EXTENSION kerai UPDATE from {version}: {e:?}"));
        let got = catalog(&old);
        let missing: Vec<&String> = want.difference(&got).collect();
        let extra: Vec<&String> = got.difference(&want).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "updating from {version} differs from a fresh install:\n  missing after the update:\n    {}\n  only after the update:\n    {}",
            missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n    "),
            extra.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n    ")
        );
        // The old data is there and the new layer serves it.
        let now: String = old.one("SELECT kerai.version()");
        assert_eq!(now, env!("CARGO_PKG_VERSION"));
        let same: bool = old.one(&format!(
            "SELECT EXISTS (SELECT 1 FROM kerai.nodes WHERE id = '{doc}')"
        ));
        assert!(same);
        let model: String = old.one("SELECT kerai.setting('embedding_model') #>> '{}'");
        let want_model = match version.as_str() {
            "0.1.0" => "sentence-transformers/all-MiniLM-L6-v2:int8",
            _ => "sentence-transformers/all-MiniLM-L6-v2",
        };
        assert_eq!(
            model, want_model,
            "the local model after updating from {version}"
        );
        let chunked: i32 = old.one("SELECT kerai.chunk_pending()");
        assert_eq!(chunked, 3, "the documents from {version} get their chunks");
        let hits: i64 = old
            .one("SELECT count(*) FROM kerai.search('claim expenses', 3, '{\"mode\": \"fts\"}')");
        assert_eq!(hits, 1);
        // 0.2.0 keys documents by their works' identifiers; the update from 0.1.0 backfills
        // them from the old resolves_to edges (a 0.2.0 database keys them as it ingests).
        if version == "0.1.0" {
            let known: String = old.one(
                "SELECT document_id::text FROM kerai.document_keys WHERE key = 'doi:10.5555/kept.1'",
            );
            assert_eq!(
                known, resolved,
                "the resolved work is known by its DOI after the update"
            );
        }
        // 0.3.0 gives every row its distribution key (docs/scale-out.md): the reference the
        // old version made names itself, its resolves_to edge and the target's rows carry theirs.
        let keyed: bool = old.one(
            "SELECT bool_and(n.document_id = n.id) AND count(*) > 0
               FROM kerai.nodes n WHERE n.kind = 'reference'",
        );
        assert!(keyed, "reference nodes name themselves after the update");
        let edge_keys: bool = old.one(
            "SELECT bool_and(e.document_id = s.document_id) AND count(*) > 0
               FROM kerai.edges e JOIN kerai.nodes s ON s.id = e.source_id",
        );
        assert!(
            edge_keys,
            "every edge carries its source node's document after the update"
        );
        // 0.3.0 registers every user-data table for pg_dump and grants the kerai roles.
        let dumped: i64 = old
            .one("SELECT cardinality(extconfig)::bigint FROM pg_extension WHERE extname = 'kerai'");
        assert!(dumped >= 30, "only {dumped} relations are kept in dumps");
    }
}

//! `kerai.parse_markdown`: markdown into a document node and its tree, written in batches.

use crate::errors::{invalid, raise, OrRaise};
use kerai_core::markdown::{self, Node};
use pgrx::prelude::*;
use pgrx::JsonB;
use pgrx::PgMemoryContexts;
use serde_json::{json, Map, Value};

/// Rows written per INSERT: bounds memory whatever the document's size.
const BATCH: usize = 5000;

const INSERT_NODES: &str =
    "INSERT INTO kerai.nodes (id, kind, content, parent_id, position, document_id, metadata)
     SELECT u.id, u.kind, u.content, u.parent_id, u.position, $6, u.metadata::jsonb
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::int[], $7::text[])
          AS u(id, kind, content, parent_id, position, metadata)";

/// Parse `markdown` (CommonMark + GFM) into a `document` node with sections, headings,
/// paragraphs, lists, list items, code, tables, block quotes and footnotes below it.
/// The same content from the same `source_url` returns the existing document.
#[pg_extern(name = "parse_markdown")]
pub(crate) fn parse_markdown(markdown: &str, metadata: default!(JsonB, "'{}'")) -> pgrx::Uuid {
    crate::limits::check("kerai.parse_markdown", "markdown", markdown.len());
    let Value::Object(mut meta) = metadata.0 else {
        invalid(
            "kerai.parse_markdown: metadata must be a JSON object",
            "pass for example '{\"source_url\": \"https://example.org/page\"}'::jsonb",
        )
    };
    let hash = markdown::content_hash(markdown);
    meta.insert("content_hash".into(), json!(hash));
    meta.entry("content_length")
        .or_insert(json!(markdown.chars().count()));

    let doc_id = new_id();
    let at_0_3 = schema_has_documents();
    let existing = if at_0_3 {
        let source_url = meta.get("source_url").cloned().unwrap_or(Value::Null);
        let existing = claim_identity(doc_id, &source_url, &hash);
        if existing.is_none() {
            Spi::run_with_args(
                "WITH d AS (INSERT INTO kerai.documents (id) VALUES ($1))
                 INSERT INTO kerai.nodes (id, kind, document_id, metadata) VALUES ($1, 'document', $1, $2)",
                &[doc_id.into(), JsonB(Value::Object(meta.clone())).into()],
            )
            .or_raise("inserting the document node");
        }
        existing
    } else {
        insert_root_before_0_3(doc_id, &meta, &hash)
    };
    if let Some(existing) = existing {
        return existing;
    }

    let mut writer = NodeWriter::new(doc_id);
    let summary = markdown::parse(markdown, |node| writer.push(node));
    writer.flush();

    let mut done = Map::new();
    if let Some(t) = &summary.title {
        done.insert("title".into(), json!(t));
    }
    done.insert("node_count".into(), json!(summary.nodes));
    if let Some(fm) = summary.front_matter {
        done.insert("front_matter".into(), json!(fm));
    }
    let title = meta
        .get("title")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or(summary.title);
    // The document node is its own document: by the distribution column too, one shard on a
    // distributed database (by id alone, a statement over every shard).
    let title_sql = if at_0_3 {
        "UPDATE kerai.nodes SET content = $2, metadata = $3 || metadata WHERE document_id = $1 AND id = $1"
    } else {
        "UPDATE kerai.nodes SET content = $2, metadata = $3 || metadata WHERE id = $1"
    };
    Spi::run_with_args(
        title_sql,
        &[
            doc_id.into(),
            title.into(),
            JsonB(Value::Object(done)).into(),
        ],
    )
    .or_raise("recording the document's title");
    if at_0_3 {
        // A 0.2.0 schema does this in a trigger on the title's update.
        Spi::run_with_args("SELECT kerai._track_document_authors($1)", &[doc_id.into()])
            .or_raise("recording the document's authors");
    }
    Spi::run_with_args(
        "INSERT INTO kerai.extraction_queue (document_id) VALUES ($1) ON CONFLICT DO NOTHING",
        &[doc_id.into()],
    )
    .or_raise("queueing the document for reference extraction");
    doc_id
}

/// Whether the database's kerai schema has `kerai.documents` (0.3.0 on): this library also
/// serves a database still at 0.2.0 until `ALTER EXTENSION kerai UPDATE`.
fn schema_has_documents() -> bool {
    Spi::get_one::<bool>("SELECT to_regclass('kerai.documents') IS NOT NULL")
        .or_raise("reading the schema's version")
        == Some(true)
}

/// The document node of a 0.2.0 schema, whose identity is a unique index on the nodes:
/// `None` when `doc` was written, else the document that holds the content.
fn insert_root_before_0_3(
    doc: pgrx::Uuid,
    meta: &Map<String, Value>,
    hash: &str,
) -> Option<pgrx::Uuid> {
    let inserted: Option<pgrx::Uuid> = Spi::get_one_with_args(
        "INSERT INTO kerai.nodes (id, kind, document_id, metadata) VALUES ($1, 'document', $1, $2)
         ON CONFLICT ((coalesce(metadata->>'source_url', '')), (metadata->>'content_hash'))
         WHERE kind = 'document' DO NOTHING RETURNING id",
        &[doc.into(), JsonB(Value::Object(meta.clone())).into()],
    )
    .or_raise("inserting the document node");
    if inserted.is_some() {
        return None;
    }
    Spi::get_one_with_args(
        "SELECT id FROM kerai.nodes WHERE kind = 'document'
           AND coalesce(metadata->>'source_url', '') = coalesce($2::jsonb->>'source_url', '')
           AND metadata->>'content_hash' = $1",
        &[hash.into(), JsonB(Value::Object(meta.clone())).into()],
    )
    .or_raise("finding the existing document")
}

/// The same content from the same source is one document: its identity is a row of
/// `kerai.document_keys` (`content:<hash>:<md5 of the source_url>`), a table of its own on a
/// distributed database (docs/scale-out.md). Returns the document that holds it, or `None`
/// when `doc` now does (also when the document that held it was deleted).
fn claim_identity(doc: pgrx::Uuid, source_url: &Value, hash: &str) -> Option<pgrx::Uuid> {
    let key: String = Spi::get_one_with_args(
        "SELECT 'content:' || $1 || ':' || md5(coalesce($2::jsonb #>> '{}', ''))",
        &[hash.into(), JsonB(source_url.clone()).into()],
    )
    .or_raise("naming the document's identity")
    .unwrap_or_default();
    let claimed: Option<bool> = Spi::get_one_with_args(
        "WITH k AS (INSERT INTO kerai.document_keys (key, document_id) VALUES ($1, $2)
                    ON CONFLICT (key) DO NOTHING RETURNING 1)
         SELECT EXISTS (SELECT 1 FROM k)",
        &[key.as_str().into(), doc.into()],
    )
    .or_raise("recording the document's identity");
    if claimed == Some(true) {
        return None;
    }
    let holder: Option<pgrx::Uuid> = Spi::get_one_with_args(
        "SELECT document_id FROM kerai.document_keys WHERE key = $1",
        &[key.as_str().into()],
    )
    .or_raise("finding the existing document");
    let alive = holder.filter(|&h| {
        Spi::get_one_with_args::<bool>(
            "SELECT EXISTS (SELECT 1 FROM kerai.documents WHERE id = $1)",
            &[h.into()],
        )
        .or_raise("finding the existing document")
            == Some(true)
    });
    if alive.is_none() {
        Spi::run_with_args(
            "UPDATE kerai.document_keys SET document_id = $2, created_at = now() WHERE key = $1",
            &[key.as_str().into(), doc.into()],
        )
        .or_raise("recording the document's identity");
    }
    alive
}

/// `kerai.parse_markdown(data bytea, metadata)`: the same for markdown that arrives as bytes
/// (a file read with `pg_read_binary_file`, a client sending raw bytes). Text must be UTF-8
/// without NUL bytes; anything else is an error naming the input (its `source_url`, else
/// "the markdown") and the byte offset, and nothing is written.
#[pg_extern(name = "parse_markdown")]
pub(crate) fn parse_markdown_bytes(data: &[u8], metadata: default!(JsonB, "'{}'")) -> pgrx::Uuid {
    crate::limits::check("kerai.parse_markdown", "markdown", data.len());
    let name = match metadata.0.get("source_url").and_then(Value::as_str) {
        Some(u) => format!("the markdown of {u}"),
        None => "the markdown".to_string(),
    };
    match markdown::validate_text(data, &name) {
        Ok(text) => parse_markdown(text, metadata),
        Err(e) => raise(
            PgSqlErrorCode::ERRCODE_CHARACTER_NOT_IN_REPERTOIRE,
            format!("kerai.parse_markdown: {e}"),
            "decode it first (e.g. convert_from(data, 'LATIN1')) or strip the NUL bytes",
        ),
    }
}

/// A time-ordered UUID (v7): inserts land at the end of the primary-key index.
pub fn new_id() -> pgrx::Uuid {
    pgrx::Uuid::from_bytes(*uuid::Uuid::now_v7().as_bytes())
}

/// Buffers nodes column by column and writes them in batches.
struct NodeWriter {
    document: pgrx::Uuid,
    /// Node ids by parser index (index 0 is the document).
    ids: Vec<pgrx::Uuid>,
    kinds: Vec<&'static str>,
    contents: Vec<Option<String>>,
    parents: Vec<pgrx::Uuid>,
    positions: Vec<i32>,
    metas: Vec<String>,
    row_ids: Vec<pgrx::Uuid>,
}

impl NodeWriter {
    fn new(document: pgrx::Uuid) -> Self {
        NodeWriter {
            document,
            ids: vec![document],
            kinds: Vec::with_capacity(BATCH),
            contents: Vec::with_capacity(BATCH),
            parents: Vec::with_capacity(BATCH),
            positions: Vec::with_capacity(BATCH),
            metas: Vec::with_capacity(BATCH),
            row_ids: Vec::with_capacity(BATCH),
        }
    }

    fn push(&mut self, node: Node) {
        let id = new_id();
        debug_assert_eq!(node.index, self.ids.len());
        self.ids.push(id);
        let mut meta = node.meta;
        if !node.heading_path.is_empty() {
            meta.insert("heading_path".into(), json!(node.heading_path));
        }
        self.row_ids.push(id);
        self.kinds.push(node.kind.as_str());
        self.contents.push(node.content);
        self.parents.push(self.ids[node.parent]);
        self.positions.push(node.position as i32);
        self.metas.push(Value::Object(meta).to_string());
        if self.row_ids.len() >= BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.row_ids.is_empty() {
            return;
        }
        let kinds: Vec<String> = self.kinds.drain(..).map(str::to_string).collect();
        let (ids, contents, parents, positions, metas) = (
            std::mem::take(&mut self.row_ids),
            std::mem::take(&mut self.contents),
            std::mem::take(&mut self.parents),
            std::mem::take(&mut self.positions),
            std::mem::take(&mut self.metas),
        );
        let document = self.document;
        // The batch's array arguments live in a context of their own, freed after the INSERT:
        // memory stays bounded by one batch whatever the document's size.
        let mut batch = PgMemoryContexts::new("kerai parse_markdown batch");
        // SAFETY: the closure allocates only the INSERT's arguments and results in `batch`;
        // nothing allocated there outlives it (the INSERT returns no rows).
        unsafe {
            batch.switch_to(|_| {
                Spi::run_with_args(
                    INSERT_NODES,
                    &[
                        ids.into(),
                        kinds.into(),
                        contents.into(),
                        parents.into(),
                        positions.into(),
                        document.into(),
                        metas.into(),
                    ],
                )
            })
        }
        .or_raise("writing document nodes");
    }
}

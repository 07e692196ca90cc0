//! Chunks in SQL: `kerai.chunk_text` (pure) and `kerai.chunk_document`, which turns a
//! document's nodes into token-aware chunks and upserts them by their deterministic ids, with
//! the entities and claims found in them.

use crate::chunk_moves;
use crate::errors::{invalid, OrRaise};
use crate::facts::{document_claims, ChunkFacts};
use crate::plans;
use kerai_core::markdown::NodeKind;
use kerai_core::retrieval::chunk::{self, Chunk, ChunkInput, ChunkOptions, ChunkStrategy};
use kerai_core::retrieval::tokens::count_tokens;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// `kerai.chunk_text(markdown, options)`: the chunks `chunk_document` would make of this
/// markdown, without writing anything. Options: `target_tokens` (512), `overlap_tokens` (64),
/// `strategy` (`section`, `paragraph` or `length`).
#[pg_extern(immutable, parallel_safe)]
#[allow(clippy::type_complexity)]
pub(crate) fn chunk_text(
    markdown: &str,
    options: default!(JsonB, "'{}'"),
) -> TableIterator<
    'static,
    (
        name!(chunk_index, i32),
        name!(chunk_total, i32),
        name!(content, String),
        name!(token_count, i32),
        name!(heading_path, Vec<String>),
        name!(chunk_strategy, String),
        name!(content_hash, String),
    ),
> {
    crate::limits::check("kerai.chunk_text", "markdown", markdown.len());
    let opts = options_or_raise("kerai.chunk_text", &options.0, ChunkOptions::default());
    let blocks = chunk::blocks_from_markdown(markdown);
    let rows: Vec<_> = chunk::chunk_document(&blocks, &opts, &count_tokens)
        .into_iter()
        .map(|c| {
            (
                c.index as i32,
                c.total as i32,
                c.text,
                c.token_count as i32,
                c.heading_path,
                c.strategy.to_string(),
                c.content_hash,
            )
        })
        .collect();
    TableIterator::new(rows)
}

/// Chunk options from JSON over `base`: `target_tokens` (or `chunk_size`), `overlap_tokens`
/// (or `chunk_overlap`), `strategy` (or `chunk_strategy`). Errors name the bad option.
pub fn parse_options(v: &Value, base: ChunkOptions) -> Result<ChunkOptions, String> {
    let Some(o) = v.as_object() else {
        return Err("options must be a JSON object".into());
    };
    let mut opts = base;
    let number = |names: [&str; 2]| -> Result<Option<usize>, String> {
        for n in names {
            if let Some(x) = o.get(n) {
                if x.is_null() {
                    continue;
                }
                return x
                    .as_u64()
                    .or_else(|| x.as_str().and_then(|s| s.trim().parse().ok()))
                    .map(|n| Some(n as usize))
                    .ok_or_else(|| format!("{n} must be a whole number of tokens, not {x}"));
            }
        }
        Ok(None)
    };
    if let Some(n) = number(["target_tokens", "chunk_size"])? {
        opts.target_tokens = n;
    }
    if let Some(n) = number(["overlap_tokens", "chunk_overlap"])? {
        opts.overlap_tokens = n;
    }
    for n in ["strategy", "chunk_strategy"] {
        if let Some(s) = o.get(n).and_then(Value::as_str) {
            opts.strategy = ChunkStrategy::parse(s)?;
            break;
        }
    }
    opts.check()?;
    Ok(opts)
}

fn options_or_raise(func: &str, v: &Value, base: ChunkOptions) -> ChunkOptions {
    parse_options(v, base).unwrap_or_else(|e| {
        invalid(
            format!("{func}: {e}"),
            "options are target_tokens (16 or more), overlap_tokens (at most half the target) and strategy (section, paragraph or length)",
        )
    })
}

fn node_kind(kind: &str) -> Option<NodeKind> {
    Some(match kind {
        "heading" => NodeKind::Heading,
        "paragraph" => NodeKind::Paragraph,
        "list_item" => NodeKind::ListItem,
        "code" => NodeKind::Code,
        "table" => NodeKind::Table,
        "html" => NodeKind::Html,
        _ => return None,
    })
}

/// What a document says about itself, for the chunks' provenance columns.
struct Provenance {
    key: String,
    meta: Map<String, Value>,
    title: Option<String>,
}

/// `kerai.chunk_document(doc, options)`: chunk a document (made by `kerai.parse_markdown`) and
/// upsert its chunks. Chunk ids are a hash of the document's `source_url` and the chunk index,
/// so a new version of a page replaces the chunks of the old one in place: a chunk whose text
/// is unchanged keeps its embedding, a changed one waits for a new embedding
/// (`embedding_status = 'pending'`), chunks beyond the new count are deleted. Options override
/// the document's target (`chunk_size`, `chunk_overlap`, `chunk_strategy`) and the settings
/// (`chunk_tokens`, `chunk_overlap`, `chunk_strategy`). A document older than the one holding
/// the chunks is left alone unless `force` is true. Returns what it did.
#[pg_extern]
pub(crate) fn chunk_document(doc: pgrx::Uuid, options: default!(JsonB, "'{}'")) -> JsonB {
    let Some((meta, title)) = plans::rows(
        // A document node is its own document (the distribution column: one shard).
        "SELECT metadata, content FROM kerai.nodes WHERE document_id = $1 AND id = $1 AND kind = 'document'",
        &[doc.into()],
        |rows| {
            let mut out = None;
            for r in rows {
                let m: Option<JsonB> = r.get(1)?;
                let t: Option<String> = r.get(2)?;
                out = Some((m.map(|j| j.0).unwrap_or_default(), t));
            }
            Ok(out)
        },
    )
    .or_raise("reading the document") else {
        invalid(
            format!("kerai.chunk_document: there is no document {doc}"),
            "pass the id kerai.parse_markdown returned (SELECT id FROM kerai.nodes WHERE kind = 'document')",
        )
    };
    let meta = match meta {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let settings: Value = plans::one::<JsonB>(
        "SELECT kerai._chunk_options($1)",
        &[meta.get("target").and_then(Value::as_str).into()],
    )
    .or_raise("reading the chunk settings")
    .map(|j| j.0)
    .unwrap_or_default();
    let base = parse_options(&settings, ChunkOptions::default()).unwrap_or_else(|e| {
        invalid(
            format!("kerai.chunk_document: the chunk settings are invalid: {e}"),
            "fix them with kerai.set_setting('chunk_tokens', ...) or the target's chunk_size / chunk_overlap",
        )
    });
    let opts = options_or_raise("kerai.chunk_document", &options.0, base);

    let key = meta
        .get("source_url")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| format!("kerai:document:{doc}"));
    let mut meta = meta;
    if let Some(Value::Array(target_tags)) = settings.get("tags") {
        let mut tags: Vec<Value> = meta
            .get("tags")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for t in target_tags {
            if !tags.contains(t) {
                tags.push(t.clone());
            }
        }
        meta.insert("tags".into(), Value::Array(tags));
    }
    let prov = Provenance { key, meta, title };

    // One chunker per page at a time: the UPDATE-then-INSERT below relies on it.
    plans::run(
        "SELECT pg_advisory_xact_lock(hashtextextended($1, 7243))",
        &[prov.key.as_str().into()],
    )
    .or_raise("locking the page's chunks");
    let force = options
        .0
        .get("force")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if let Some(newer) = (!force)
        .then(|| newer_document_holding(&prov.key, doc))
        .flatten()
    {
        pgrx::notice!(
            "kerai.chunk_document: {} already has chunks from a newer document ({newer}); nothing done",
            prov.key
        );
        return JsonB(
            json!({"document": doc.to_string(), "skipped": "a newer version holds the chunks", "newer": newer.to_string()}),
        );
    }

    let blocks = read_blocks(doc);
    let chunks = chunk::chunk_document(&blocks, &opts, &count_tokens);
    let ids: Vec<pgrx::Uuid> = chunks
        .iter()
        .map(|c| chunk_uuid(&prov.key, c.index))
        .collect();
    let held = held_chunks(&prov.key, chunks.len());
    let before = held.hashes;
    let changed: Vec<usize> = chunks
        .iter()
        .enumerate()
        .filter(|(i, c)| before.get(&ids[*i]).is_none_or(|h| *h != c.content_hash))
        .map(|(i, _)| i)
        .collect();
    let new = changed
        .iter()
        .filter(|i| !before.contains_key(&ids[**i]))
        .count();

    // Chunks an older version's document holds move to this one first; those whose text is
    // the same keep their vectors and facts.
    let (mut moved, mut kept) = (Vec::new(), Vec::new());
    for (c, id) in chunks.iter().zip(&ids) {
        if held.holders.get(id).is_some_and(|d| *d != doc) {
            moved.push(*id);
            if before.get(id) == Some(&c.content_hash) {
                kept.push(*id);
            }
        }
    }
    if !moved.is_empty() {
        let mut from: Vec<pgrx::Uuid> = moved.iter().map(|id| held.holders[id]).collect();
        from.sort_unstable_by_key(|u| *u.as_bytes());
        from.dedup();
        chunk_moves::move_chunks(doc, &from, &moved, &kept);
    }
    upsert_chunks(doc, &prov, &chunks, &ids, &before);
    let removed = if held.beyond {
        Spi::get_one_with_args::<i64>(
            "WITH d AS (DELETE FROM kerai.chunks WHERE chunk_key = $1 AND chunk_index >= $2 RETURNING 1)
             SELECT count(*) FROM d",
            &[prov.key.as_str().into(), (chunks.len() as i32).into()],
        )
        .or_raise("deleting chunks beyond the new count")
        .unwrap_or(0)
    } else {
        0
    };

    // Stale vectors and facts of changed chunks go; unchanged chunks keep theirs. Only chunks
    // that were there can have them (their keys cascade): none for a page's first chunks.
    let changed_ids: Vec<pgrx::Uuid> = changed
        .iter()
        .map(|i| ids[*i])
        .filter(|id| before.contains_key(id))
        .collect();
    if !changed_ids.is_empty() {
        drop_facts_of(&changed_ids);
    }

    let mut facts = ChunkFacts::default();
    for i in &changed {
        facts.add_entities(ids[*i], &chunks[*i].text);
    }
    let entities = facts.write_entities();
    let claims = if changed.is_empty() && removed == 0 {
        0
    } else {
        // With no chunk held before, no rule-based claim of the page exists to replace.
        document_claims(doc, &prov.meta, &chunks, &ids, held.any)
    };

    JsonB(json!({
        "document": doc.to_string(),
        "chunks": chunks.len(),
        "new": new,
        "changed": changed.len() - new,
        "unchanged": chunks.len() - changed.len(),
        "removed": removed,
        "entities": entities,
        "claims": claims,
        "options": {"target_tokens": opts.target_tokens, "overlap_tokens": opts.overlap_tokens,
                    "strategy": opts.strategy.as_str()},
    }))
}

/// Drop the embeddings, entities and LLM claims of chunks whose text changed.
fn drop_facts_of(changed_ids: &[pgrx::Uuid]) {
    plans::run(
        "DELETE FROM kerai.embeddings WHERE chunk_id = ANY($1)",
        &[changed_ids.to_vec().into()],
    )
    .or_raise("dropping the embeddings of changed chunks");
    plans::run(
        "DELETE FROM kerai.entities WHERE chunk_id = ANY($1)",
        &[changed_ids.to_vec().into()],
    )
    .or_raise("dropping the entities of changed chunks");
    plans::run(
        "DELETE FROM kerai.claims WHERE chunk_id = ANY($1) AND source = 'llm'",
        &[changed_ids.to_vec().into()],
    )
    .or_raise("dropping the LLM claims of changed chunks");
}

/// `kerai.chunk_id(source_url, chunk_index)`: the deterministic id of a chunk (a name-based
/// UUID, version 8, of the URL and index), for upserts into stores outside Postgres.
#[pg_extern(immutable, strict, parallel_safe, name = "chunk_id")]
pub(crate) fn chunk_id_sql(source_url: &str, chunk_index: i32) -> pgrx::Uuid {
    if chunk_index < 0 {
        invalid(
            format!("kerai.chunk_id: chunk_index must be 0 or more, not {chunk_index}"),
            "chunks are numbered from 0",
        );
    }
    chunk_uuid(source_url, chunk_index as usize)
}

/// The chunk id as a Postgres uuid.
pub fn chunk_uuid(key: &str, index: usize) -> pgrx::Uuid {
    let s = chunk::chunk_id(key, index);
    let u = uuid::Uuid::parse_str(&s).expect("chunk_id returns a uuid");
    pgrx::Uuid::from_bytes(*u.as_bytes())
}

/// A document newer than `doc` that already holds the chunks of `key`, if any (document ids
/// are time-ordered UUIDs, so a larger id is a later document).
fn newer_document_holding(key: &str, doc: pgrx::Uuid) -> Option<pgrx::Uuid> {
    Spi::get_one_with_args::<pgrx::Uuid>(
        "SELECT (SELECT c.document_id FROM kerai.chunks c WHERE c.id = $1 AND c.document_id > $2)",
        &[chunk_uuid(key, 0).into(), doc.into()],
    )
    .or_raise("checking for a newer version")
}

/// The document's text blocks in document order (node ids are time-ordered UUIDs written in
/// parse order).
fn read_blocks(doc: pgrx::Uuid) -> Vec<ChunkInput> {
    plans::rows(
        "SELECT kind, content, metadata->'heading_path' FROM kerai.nodes
          WHERE document_id = $1 AND kind IN ('heading', 'paragraph', 'list_item', 'code', 'table', 'html')
            AND content IS NOT NULL AND btrim(content) <> ''
          ORDER BY id",
        &[doc.into()],
        |rows| {
        let mut out = Vec::new();
        for r in rows {
            let kind: String = r.get(1)?.unwrap_or_default();
            let text: String = r.get(2)?.unwrap_or_default();
            let path: Option<JsonB> = r.get(3)?;
            let Some(kind) = node_kind(&kind) else { continue };
            let heading_path = path
                .and_then(|p| p.0.as_array().cloned())
                .unwrap_or_default()
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            out.push(ChunkInput { text, heading_path, kind });
        }
        Ok(out)
    })
    .or_raise("reading the document's blocks")
}

/// The chunks a page's key holds now: the hash of each (by id), whether any lies beyond the
/// new count `n`, and whether there is any at all.
struct Held {
    hashes: HashMap<pgrx::Uuid, String>,
    /// The document that holds each of them.
    holders: HashMap<pgrx::Uuid, pgrx::Uuid>,
    beyond: bool,
    any: bool,
}

fn held_chunks(key: &str, n: usize) -> Held {
    plans::rows(
        "SELECT id, content_hash, chunk_index, document_id FROM kerai.chunks WHERE chunk_key = $1",
        &[key.into()],
        |rows| {
            let mut held = Held {
                hashes: HashMap::new(),
                holders: HashMap::new(),
                beyond: false,
                any: false,
            };
            for r in rows {
                held.any = true;
                let index = r.get::<i32>(3)?.unwrap_or(0);
                if index as usize >= n {
                    held.beyond = true;
                } else if let (Some(id), Some(h), Some(d)) = (
                    r.get::<pgrx::Uuid>(1)?,
                    r.get::<String>(2)?,
                    r.get::<pgrx::Uuid>(4)?,
                ) {
                    held.hashes.insert(id, h);
                    held.holders.insert(id, d);
                }
            }
            Ok(held)
        },
    )
    .or_raise("reading the current chunks")
}

fn text_of(meta: &Map<String, Value>, key: &str) -> Option<String> {
    match meta.get(key)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Insert or update the chunks: provenance from the document, `embedding_status` back to
/// `pending` only where the text changed. An UPDATE of the ids that exist, then an INSERT of
/// the others (no `ON CONFLICT`, which a table partitioned by month could not use).
fn upsert_chunks(
    doc: pgrx::Uuid,
    p: &Provenance,
    chunks: &[Chunk],
    ids: &[pgrx::Uuid],
    existing: &HashMap<pgrx::Uuid, String>,
) {
    if chunks.is_empty() {
        return;
    }
    let m = &p.meta;
    let tags: Vec<String> = m
        .get("tags")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let crawl_ts = text_of(m, "crawl_timestamp").or_else(|| text_of(m, "fetched_at"));
    let version_hint = text_of(m, "version_hint")
        .or_else(|| text_of(m, "version"))
        .or_else(|| text_of(m, "modified"));
    let title = text_of(m, "title").or_else(|| p.title.clone());
    let (version, target) = version_and_target(text_of(m, "page_version"), text_of(m, "target"));
    let common: [pgrx::datum::DatumWithOid; 15] = [
        ids.to_vec().into(),
        p.key.as_str().into(),
        doc.into(),
        version.into(),
        target.into(),
        (chunks.len() as i32).into(),
        text_of(m, "source_url").into(),
        text_of(m, "parent_url").into(),
        text_of(m, "source_type").into(),
        title.into(),
        text_of(m, "language").into(),
        version_hint.into(),
        text_of(m, "last_modified").into(),
        crawl_ts.into(),
        tags.into(),
    ];
    let per_chunk: [pgrx::datum::DatumWithOid; 6] = [
        chunks
            .iter()
            .map(|c| c.index as i32)
            .collect::<Vec<_>>()
            .into(),
        chunks
            .iter()
            .map(|c| c.strategy.to_string())
            .collect::<Vec<_>>()
            .into(),
        chunks
            .iter()
            .map(|c| c.text.clone())
            .collect::<Vec<_>>()
            .into(),
        chunks
            .iter()
            .map(|c| c.token_count as i32)
            .collect::<Vec<_>>()
            .into(),
        chunks
            .iter()
            .map(|c| c.content_hash.clone())
            .collect::<Vec<_>>()
            .into(),
        chunks
            .iter()
            .map(|c| Value::from(c.heading_path.clone()).to_string())
            .collect::<Vec<_>>()
            .into(),
    ];
    let new_rows: Vec<bool> = ids.iter().map(|id| !existing.contains_key(id)).collect();
    let args: Vec<pgrx::datum::DatumWithOid> = common
        .into_iter()
        .chain(per_chunk)
        .chain(std::iter::once(new_rows.into()))
        .collect();
    // A page's first chunks: a plain INSERT (the upsert below costs a millisecond to plan).
    let sql = if existing.is_empty() {
        INSERT_CHUNKS
    } else {
        UPSERT_CHUNKS
    };
    plans::run(sql, &args).or_raise("writing the chunks");
}

/// The page version and the target the document names, when they exist (ids, looked up on
/// their own: a subquery into another group inside the chunks' UPDATE is a join Citus cannot
/// plan, docs/scale-out.md).
fn version_and_target(
    version: Option<String>,
    target: Option<String>,
) -> (Option<pgrx::Uuid>, Option<pgrx::Uuid>) {
    let target: Option<pgrx::Uuid> = match target {
        Some(name) => plans::one(
            "SELECT t.id FROM kerai.targets t WHERE t.name = $1",
            &[name.as_str().into()],
        )
        .or_raise("reading the chunks' target"),
        None => None,
    };
    // A version is kept by its target (one shard on a distributed database).
    let version: Option<pgrx::Uuid> = match (target, version) {
        (Some(t), Some(v)) => plans::one(
            "SELECT v.id FROM kerai.page_versions v WHERE v.target_id = $1 AND v.id = ($2)::uuid",
            &[t.into(), v.as_str().into()],
        )
        .or_raise("reading the chunks' page version"),
        _ => None,
    };
    (version, target)
}

/// The chunk rows, one per element of the arrays bound as $1 and $16..$22.
macro_rules! chunk_rows {
    () => {
        "unnest($1::uuid[], $16::int[], $17::text[], $18::text[], $19::int[], $20::text[], $21::text[], $22::bool[])
        AS u(id, ix, strat, content, tokens, hash, path, is_new)"
    };
}

/// INSERT of the chunks `u` (rows read from `$from`), with the document's provenance. With
/// RETURNING, Citus inserts the rows into the shards with INSERT, not COPY, which row-level
/// security refuses (docs/scale-out.md).
macro_rules! insert_chunks {
    ($from:expr) => {
        concat!(
            "INSERT INTO kerai.chunks (id, chunk_key, document_id, page_version_id, target_id, chunk_index,
        chunk_total, chunk_strategy, content, token_count, content_hash, heading_path, source_url,
        parent_url, source_type, title, language, version_hint, last_modified, crawl_timestamp, tags)
 SELECT u.id, $2, $3, $4, $5, u.ix, $6, u.strat, u.content, u.tokens,
        u.hash, ARRAY(SELECT jsonb_array_elements_text(u.path::jsonb)), $7, $8, $9, $10, $11, $12, $13,
        ($14)::timestamptz, $15
   ",
            $from,
            "
 RETURNING 1"
        )
    };
}

const INSERT_CHUNKS: &str = insert_chunks!(concat!("FROM ", chunk_rows!()));

const UPSERT_CHUNKS: &str = concat!(
    "WITH u AS (SELECT * FROM ",
    chunk_rows!(),
    "
         ), upd AS (
            UPDATE kerai.chunks c SET
                chunk_key = $2,
                page_version_id = $4, target_id = $5,
                chunk_index = u.ix, chunk_total = $6, chunk_strategy = u.strat, content = u.content,
                token_count = u.tokens, content_hash = u.hash,
                heading_path = ARRAY(SELECT jsonb_array_elements_text(u.path::jsonb)),
                source_url = $7, parent_url = $8, source_type = $9, title = $10, language = $11,
                version_hint = $12, last_modified = $13, crawl_timestamp = ($14)::timestamptz, tags = $15,
                updated_at = now(),
                embedding_status = CASE WHEN c.content_hash = u.hash THEN c.embedding_status ELSE 'pending' END,
                embedding_attempts = CASE WHEN c.content_hash = u.hash THEN c.embedding_attempts ELSE 0 END,
                embedding_error = CASE WHEN c.content_hash = u.hash THEN c.embedding_error END,
                embedding_next_try = CASE WHEN c.content_hash = u.hash THEN c.embedding_next_try END,
                leased_by = CASE WHEN c.content_hash = u.hash THEN c.leased_by END,
                lease_until = CASE WHEN c.content_hash = u.hash THEN c.lease_until END
              -- Chunks an older document held were moved to this one (chunk_moves.rs).
              FROM u WHERE c.document_id = $3 AND c.id = u.id AND NOT u.is_new
               -- A chunk with the same text and settings is left as it is.
               AND (c.content_hash <> u.hash OR c.chunk_total <> $6
                    OR c.chunk_strategy <> u.strat OR c.tags IS DISTINCT FROM $15)
         )
         ",
    insert_chunks!("FROM u WHERE u.is_new")
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_read_both_spellings_and_name_bad_values() {
        let o = parse_options(
            &json!({"chunk_size": 300, "chunk_overlap": "30"}),
            ChunkOptions::default(),
        )
        .unwrap();
        assert_eq!((o.target_tokens, o.overlap_tokens), (300, 30));
        let o = parse_options(&json!({"strategy": "paragraph"}), o).unwrap();
        assert_eq!(o.strategy, ChunkStrategy::Paragraph);
        assert!(
            parse_options(&json!({"target_tokens": "many"}), ChunkOptions::default())
                .unwrap_err()
                .contains("target_tokens")
        );
        assert!(
            parse_options(&json!({"overlap_tokens": 400}), ChunkOptions::default())
                .unwrap_err()
                .contains("more than half")
        );
        assert!(parse_options(&json!([1]), ChunkOptions::default()).is_err());
    }
}

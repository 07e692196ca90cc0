//! Chunks that move to a page's newer document. A chunk's id comes from its page's URL and
//! index, so a new version of a page takes over the chunks the older version's document held.
//! `document_id` is the chunks' distribution column (docs/scale-out.md), which Citus never
//! changes in place: the rows are copied under the new document, with the vectors, entities
//! and claims of the chunks whose text stays the same, and the old rows deleted (their
//! vectors and facts go with them). The same statements run on one server.

use crate::errors::OrRaise;
use crate::plans;

/// Copies of the moved chunks under `doc`, as they are (the upsert that follows writes the
/// new version's text and provenance). RETURNING makes Citus insert the rows, not COPY them,
/// which row-level security refuses.
const COPY_CHUNKS: &str = "
INSERT INTO kerai.chunks (id, chunk_key, document_id, page_version_id, target_id, chunk_index, chunk_total,
       chunk_strategy, content, token_count, content_hash, heading_path, source_url, parent_url, source_type,
       title, language, version_hint, last_modified, crawl_timestamp, tags, embedding_status,
       embedding_attempts, embedding_error, embedding_next_try, leased_by, lease_until, created_at, updated_at)
SELECT c.id, c.chunk_key, $3, c.page_version_id, c.target_id, c.chunk_index, c.chunk_total, c.chunk_strategy,
       c.content, c.token_count, c.content_hash, c.heading_path, c.source_url, c.parent_url, c.source_type,
       c.title, c.language, c.version_hint, c.last_modified, c.crawl_timestamp, c.tags, c.embedding_status,
       c.embedding_attempts, c.embedding_error, c.embedding_next_try, c.leased_by, c.lease_until,
       c.created_at, c.updated_at
  FROM kerai.chunks c WHERE c.document_id = ANY($1) AND c.id = ANY($2)
RETURNING 1";

/// The vectors of the chunks whose text stays the same.
const COPY_EMBEDDINGS: &str = "
INSERT INTO kerai.embeddings (document_id, chunk_id, model_name, dimensions, embedding, created_at)
SELECT $3, e.chunk_id, e.model_name, e.dimensions, e.embedding, e.created_at
  FROM kerai.embeddings e WHERE e.document_id = ANY($1) AND e.chunk_id = ANY($2)
RETURNING 1";

const COPY_ENTITIES: &str = "
INSERT INTO kerai.entities (document_id, chunk_id, text, kind, start_char, end_char, confidence)
SELECT $3, e.chunk_id, e.text, e.kind, e.start_char, e.end_char, e.confidence
  FROM kerai.entities e WHERE e.document_id = ANY($1) AND e.chunk_id = ANY($2)
RETURNING 1";

const COPY_CLAIMS: &str = "
INSERT INTO kerai.claims (document_id, chunk_id, statement, subject, predicate, object, confidence, source,
       request_id, created_at)
SELECT $3, x.chunk_id, x.statement, x.subject, x.predicate, x.object, x.confidence, x.source, x.request_id,
       x.created_at
  FROM kerai.claims x WHERE x.document_id = ANY($1) AND x.chunk_id = ANY($2)
RETURNING 1";

/// The old rows; their keys cascade to the old vectors, entities and claims.
const DELETE_OLD: &str = "DELETE FROM kerai.chunks WHERE document_id = ANY($1) AND id = ANY($2)";

/// Move the chunks `moved` (held by the documents `from`) to `doc`; `kept` are those among
/// them whose text stays the same, which keep their vectors and facts.
pub fn move_chunks(
    doc: pgrx::Uuid,
    from: &[pgrx::Uuid],
    moved: &[pgrx::Uuid],
    kept: &[pgrx::Uuid],
) {
    if moved.is_empty() {
        return;
    }
    let run = |sql: &'static str, ids: &[pgrx::Uuid], what: &str| {
        plans::run(
            sql,
            &[from.to_vec().into(), ids.to_vec().into(), doc.into()],
        )
        .or_raise(what);
    };
    run(
        COPY_CHUNKS,
        moved,
        "copying the chunks to the page's new document",
    );
    if !kept.is_empty() {
        run(
            COPY_EMBEDDINGS,
            kept,
            "copying the embeddings of unchanged chunks",
        );
        run(
            COPY_ENTITIES,
            kept,
            "copying the entities of unchanged chunks",
        );
        run(COPY_CLAIMS, kept, "copying the claims of unchanged chunks");
    }
    plans::run(DELETE_OLD, &[from.to_vec().into(), moved.to_vec().into()])
        .or_raise("deleting the chunks the page's older document held");
}

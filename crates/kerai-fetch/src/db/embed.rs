//! Embeddings and LLM claims: the settings (`kerai._embedding_config`, `kerai._chat_config`)
//! and the work functions (`kerai._embed_*`, `kerai._llm_claims_todo`).

use kerai_core::wire::embed::{ChatConfig, EmbeddingConfig};
use tokio_postgres::{Client, Error};
use uuid::Uuid;

/// The query that shows the embedding settings, for hints.
pub const SHOW_EMBEDDING_CONFIG: &str = "SELECT kerai._embedding_config()";

/// The query that shows the chat endpoint settings, for hints.
pub const SHOW_CHAT_CONFIG: &str = "SELECT kerai._chat_config()";

/// The embedding settings (`kerai._embedding_config()`).
pub async fn embedding_config(client: &Client) -> Result<EmbeddingConfig, Error> {
    client
        .query_one("SELECT kerai._embedding_config()", &[])
        .await
        .map(|r| EmbeddingConfig::from_json(r.get(0)))
}

/// The chat endpoint settings (`kerai._chat_config()`).
pub async fn chat_config(client: &Client) -> Result<ChatConfig, Error> {
    client
        .query_one("SELECT kerai._chat_config()", &[])
        .await
        .map(|r| ChatConfig::from_json(r.get(0)))
}

/// Lease up to `n` chunks to embed for `lease` seconds: (chunk id, content)
/// (`kerai._embed_claim`).
pub async fn claim(
    client: &Client,
    worker: &str,
    n: i32,
    lease: i32,
) -> Result<Vec<(Uuid, String)>, Error> {
    let rows = client
        .query(
            "SELECT id, content FROM kerai._embed_claim($1, $2, $3)",
            &[&worker, &n, &lease],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Store the vectors (pgvector literals) of leased chunks; how many were stored
/// (`kerai._embed_store`).
pub async fn store(
    client: &Client,
    worker: &str,
    model: &str,
    ids: &[Uuid],
    vectors: &[String],
) -> Result<i32, Error> {
    client
        .query_one(
            "SELECT kerai._embed_store($1, $2, $3, $4)",
            &[&worker, &model, &ids, &vectors],
        )
        .await
        .map(|r| r.get(0))
}

/// Record that embedding leased chunks failed (`kerai._embed_fail`).
pub async fn fail(client: &Client, worker: &str, ids: &[Uuid], error: &str) -> Result<u64, Error> {
    client
        .execute(
            "SELECT kerai._embed_fail($1, $2, $3)",
            &[&worker, &ids, &error],
        )
        .await
}

/// Up to `limit` chunks not yet asked about for claims: (chunk id, prompt)
/// (`kerai._llm_claims_todo`).
pub async fn llm_claims_todo(client: &Client, limit: i64) -> Result<Vec<(Uuid, String)>, Error> {
    let rows = client
        .query(
            "SELECT id, prompt FROM kerai._llm_claims_todo($1)",
            &[&limit],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// The `llm_claims` setting: ask the chat model for claims after embedding.
pub async fn llm_claims_on(client: &Client) -> Result<bool, Error> {
    client
        .query_one(
            "SELECT coalesce((kerai.setting('llm_claims'))::text::boolean, false)",
            &[],
        )
        .await
        .map(|r| r.get(0))
}

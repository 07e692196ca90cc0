//! The fetcher's retrieval work: embed the chunks that wait for a vector, and ask the chat
//! model for the claims of chunks when `llm_claims` is on. Both go through the extension's
//! worker functions (`db::embed::claim/store/fail`, `db::embed::llm_claims_todo`,
//! `kerai.record_llm_claims`), so several fetchers split the work
//! and a killed one loses nothing.

use super::embedder::{self, Embedder};
use super::Endpoint;
use crate::db;
use crate::progress::{Meter, Show};
use kerai_core::retrieval::embed::vector_literal;
use serde_json::{json, Value};
use tokio_postgres::Client;
use uuid::Uuid;

#[derive(Debug, Default, Clone, Copy)]
pub struct EmbedSummary {
    pub embedded: u64,
    pub failed: u64,
    /// Chunks still without an embedding afterwards (failed ones wait for their retry).
    pub remaining: i64,
}

impl EmbedSummary {
    pub fn to_json(self) -> Value {
        json!({"embedded": self.embedded, "failed": self.failed, "remaining": self.remaining})
    }
}

/// After this many failed batches in a row the endpoint is taken to be down: stop, leave the
/// rest pending (with its backoff) for the next run.
const FAILED_BATCHES_BEFORE_GIVING_UP: u32 = 3;

/// Embed waiting chunks until none is left (or `limit` were done). `Ok(None)` when embeddings
/// are off. `on_batch` hears after every batch, with `remaining` the number to do in all.
pub async fn embed_pending(
    client: &Client,
    worker: &str,
    limit: Option<u64>,
    on_batch: &(dyn Fn(&EmbedSummary) + Sync),
) -> Result<Option<EmbedSummary>, String> {
    let settings = embedder::settings(client).await?;
    if settings.provider == "none" {
        return Ok(None);
    }
    let batch = settings.batch as i32;
    let mut s = EmbedSummary::default();
    // The model is loaded only when something waits for it.
    let waiting: i64 = client
        .query_one(
            "SELECT count(*) FROM kerai.chunks WHERE embedding_status <> 'done'",
            &[],
        )
        .await
        .map_err(|e| db::message(&e))?
        .get(0);
    if waiting == 0 {
        return Ok(Some(s));
    }
    // Until the end, `remaining` is what waited at the start (the callers' total).
    s.remaining = match limit {
        Some(l) => waiting.min(l as i64),
        None => waiting,
    };
    let Some(embedder) = Embedder::for_settings(&settings).await? else {
        return Ok(None);
    };
    let model = embedder.model_name();
    let mut failed_in_a_row = 0;
    loop {
        let n = match limit {
            Some(l) if s.embedded + s.failed >= l => break,
            Some(l) => batch.min((l - s.embedded - s.failed) as i32),
            None => batch,
        };
        let rows = db::embed::claim(client, worker, n, 300)
            .await
            .map_err(|e| db::message(&e))?;
        if rows.is_empty() {
            break;
        }
        let (ids, texts): (Vec<Uuid>, Vec<String>) = rows.into_iter().unzip();
        let outcome = match embedder.embed(&texts).await {
            Ok(vectors) => {
                let lits: Vec<String> = vectors.iter().map(|v| vector_literal(v)).collect();
                db::embed::store(client, worker, &model, &ids, &lits)
                    .await
                    .map(|stored| stored as u64)
                    .map_err(|e| db::message(&e))
            }
            Err(e) => Err(e),
        };
        match outcome {
            Ok(stored) => {
                s.embedded += stored;
                failed_in_a_row = 0;
            }
            Err(e) => {
                db::embed::fail(client, worker, &ids, &e)
                    .await
                    .map_err(|e| db::message(&e))?;
                eprintln!("kerai: warning: embedding {} chunks failed: {e}", ids.len());
                s.failed += ids.len() as u64;
                failed_in_a_row += 1;
                if failed_in_a_row >= FAILED_BATCHES_BEFORE_GIVING_UP {
                    eprintln!("kerai: warning: {failed_in_a_row} batches failed in a row; the rest waits for the next run");
                    break;
                }
            }
        }
        on_batch(&s);
    }
    s.remaining = client
        .query_one(
            "SELECT count(*) FROM kerai.chunks WHERE embedding_status <> 'done'",
            &[],
        )
        .await
        .map_err(|e| db::message(&e))?
        .get(0);
    Ok(Some(s))
}

/// Show an embedding run's progress on `meter`.
pub fn progress(meter: &std::sync::Mutex<Meter>, s: &EmbedSummary) {
    if let Ok(mut m) = meter.lock() {
        m.set_total(s.remaining.max(0) as u64);
        m.set(s.embedded + s.failed, format!("{} failed", s.failed));
    }
}

/// Embed what a crawl chunked and say so on standard error: `Some(true)` when every chunk got
/// its vector, `Some(false)` when some failed, `None` when embeddings are off. `quiet` (a daemon
/// calling it every cycle) says nothing when nothing happened and gives no progress lines.
pub async fn embed_and_report(
    client: &Client,
    worker: &str,
    limit: Option<u64>,
    quiet: bool,
) -> Option<bool> {
    let show = if quiet { Show::Nothing } else { Show::Auto };
    let meter = std::sync::Mutex::new(Meter::new("embedding", "chunks", None, show));
    let progress = |s: &EmbedSummary| progress(&meter, s);
    let result = embed_pending(client, worker, limit, &progress).await;
    if let Ok(mut m) = meter.lock() {
        m.finish();
    }
    match result {
        Ok(Some(s)) => {
            if !quiet || s.embedded + s.failed > 0 {
                eprintln!(
                    "kerai: embedded {} chunks ({} failed, {} still without an embedding)",
                    s.embedded, s.failed, s.remaining
                );
            }
            Some(s.failed == 0)
        }
        Ok(None) => None,
        Err(e) => {
            eprintln!("kerai: warning: embedding skipped: {e}");
            if !quiet {
                eprintln!(
                    "hint: `kerai embed` retries; for the local model run scripts/install-model.sh"
                );
            }
            Some(false)
        }
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct ClaimsSummary {
    pub chunks: u64,
    pub claims: u64,
    pub failed: u64,
}

/// Ask the chat model for the claims of chunks not yet asked about (at most `limit`).
/// `Ok(None)` when no chat endpoint is configured.
pub async fn llm_claims(client: &Client, limit: i64) -> Result<Option<ClaimsSummary>, String> {
    let cfg = db::embed::chat_config(client)
        .await
        .map_err(|e| db::message(&e))?;
    let Some(endpoint) = Endpoint::from_config(&cfg, "KERAI_CHAT_API_KEY", 60) else {
        return Ok(None);
    };
    let rows = db::embed::llm_claims_todo(client, limit)
        .await
        .map_err(|e| db::message(&e))?;
    let mut s = ClaimsSummary::default();
    for (chunk, prompt) in rows {
        s.chunks += 1;
        match endpoint
            .chat(
                "You extract factual claims and answer with JSON only.",
                &prompt,
            )
            .await
        {
            Ok((text, usage)) => {
                let p = (usage.prompt_tokens > 0).then_some(usage.prompt_tokens as i32);
                let c = (usage.completion_tokens > 0).then_some(usage.completion_tokens as i32);
                let out: Value = client
                    .query_one(
                        "SELECT kerai.record_llm_claims($1, $2, $3, $4, $5, $6)",
                        &[&chunk, &prompt, &text, &endpoint.model, &p, &c],
                    )
                    .await
                    .map_err(|e| db::message(&e))?
                    .get(0);
                s.claims += out["claims"].as_u64().unwrap_or(0);
                if let Some(err) = out["error"].as_str() {
                    eprintln!("kerai: warning: chunk {chunk}: {err}");
                    s.failed += 1;
                }
            }
            Err(e) => {
                eprintln!("kerai: warning: claims of chunk {chunk}: {e}");
                s.failed += 1;
            }
        }
    }
    Ok(Some(s))
}

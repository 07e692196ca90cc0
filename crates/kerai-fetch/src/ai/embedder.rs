//! The embedding provider the settings name: the local model (all-MiniLM-L6-v2, run on a
//! blocking thread) or an OpenAI-compatible endpoint.

use super::Endpoint;
use kerai_core::embed::{self, EmbeddingProvider, MiniLm};
use serde_json::Value;
use std::sync::Arc;
use tokio_postgres::Client;

pub enum Embedder {
    Local(Arc<MiniLm>),
    Remote {
        endpoint: Endpoint,
        dimensions: usize,
    },
}

/// Text beyond this many bytes is not sent (the local model reads 256 word pieces; remote
/// models a few thousand tokens).
const MAX_TEXT_BYTES: usize = 32 * 1024;

impl Embedder {
    /// The configured provider; `Ok(None)` when embeddings are off (`embedding_provider = none`).
    pub async fn configured(client: &Client) -> Result<Option<(Embedder, Value)>, String> {
        let cfg: Value = client
            .query_one("SELECT kerai._embedding_config()", &[])
            .await
            .map_err(|e| crate::db::message(&e))?
            .get(0);
        let provider = cfg["provider"].as_str().unwrap_or("local").to_string();
        let e = match provider.as_str() {
            "none" => return Ok(None),
            "local" => {
                let dir = embed::model_dir();
                let m = tokio::task::spawn_blocking(move || MiniLm::load(&dir))
                    .await
                    .map_err(|e| format!("loading the local model: {e}"))?
                    .map_err(|e| format!("{e}"))?;
                Embedder::Local(Arc::new(m))
            }
            "openai" => {
                let endpoint = Endpoint::from_config(&cfg, "KERAI_EMBEDDING_API_KEY", 30).ok_or(
                    "embedding_provider is openai but embedding_base_url is not set \
                     (SELECT kerai.configure_embeddings('openai', MODEL, DIMENSIONS, BASE_URL))",
                )?;
                Embedder::Remote {
                    endpoint,
                    dimensions: cfg["dimensions"].as_u64().unwrap_or(0) as usize,
                }
            }
            other => return Err(format!("unknown embedding_provider \"{other}\"")),
        };
        Ok(Some((e, cfg)))
    }

    /// The model name stored beside each vector.
    pub fn model_name(&self) -> String {
        match self {
            Embedder::Local(m) => m.model_name().to_string(),
            Embedder::Remote { endpoint, .. } => endpoint.model.clone(),
        }
    }

    /// One vector per text, in order.
    pub async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        let cut: Vec<String> = texts.iter().map(|t| clip(t)).collect();
        match self {
            Embedder::Local(m) => {
                let m = m.clone();
                tokio::task::spawn_blocking(move || {
                    let refs: Vec<&str> = cut.iter().map(String::as_str).collect();
                    m.embed_batch(&refs)
                        .map_err(|e| format!("the local model failed: {e}"))
                })
                .await
                .map_err(|e| format!("the local model stopped: {e}"))?
            }
            Embedder::Remote {
                endpoint,
                dimensions,
            } => {
                let refs: Vec<&str> = cut.iter().map(String::as_str).collect();
                endpoint.embed(&refs, *dimensions).await.map(|(v, _)| v)
            }
        }
    }
}

fn clip(t: &str) -> String {
    if t.trim().is_empty() {
        return " ".into();
    }
    let mut end = t.len().min(MAX_TEXT_BYTES);
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    t[..end].to_string()
}

/// pgvector's text form.
pub fn vector_literal(v: &[f32]) -> String {
    let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", parts.join(","))
}

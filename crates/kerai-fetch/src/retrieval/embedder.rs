//! The embedding provider the settings name: the local model (all-MiniLM-L6-v2, run on a
//! blocking thread, loaded once per process) or an OpenAI-compatible endpoint.

use super::Endpoint;
use kerai_core::retrieval::embed::{
    self, EmbeddingProvider, LoadedModels, MiniLm, Precision, Settings,
};
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres::Client;

pub enum Embedder {
    Local(Arc<MiniLm>),
    Remote {
        endpoint: Endpoint,
        dimensions: usize,
    },
}

/// The local model's variants, loaded on first use: a daemon embedding every cycle reads the
/// 90 MB of weights once.
static LOCAL: LoadedModels = LoadedModels::new();

/// The local model in the variant the `embedding_model` setting names.
async fn local_model(model: &str) -> Result<Arc<MiniLm>, String> {
    let precision = Precision::for_setting(model).map_err(|e| {
        format!("{e} (SELECT kerai.configure_embeddings('local') chooses the default)")
    })?;
    if let Some(m) = LOCAL.get(precision) {
        return Ok(m);
    }
    if let Some(w) = precision.cpu_warning() {
        eprintln!("kerai: warning: {w}");
    }
    let dir = embed::model_dir();
    let m = tokio::task::spawn_blocking(move || MiniLm::load_precision(&dir, precision))
        .await
        .map_err(|e| format!("loading the local model: {e}"))?
        .map_err(|e| format!("{e}"))?;
    Ok(LOCAL.keep(m))
}

/// The embedding settings stored in the database.
pub async fn settings(client: &Client) -> Result<Settings, String> {
    let cfg = crate::db::embed::embedding_config(client)
        .await
        .map_err(|e| crate::db::message(&e))?;
    Ok(Settings::from_config(&cfg))
}

impl Embedder {
    /// The provider `s` names; `Ok(None)` when embeddings are off (`embedding_provider = none`).
    pub async fn for_settings(s: &Settings) -> Result<Option<Embedder>, String> {
        Ok(Some(match s.provider.as_str() {
            "none" => return Ok(None),
            "local" => Embedder::Local(local_model(&s.model).await?),
            "openai" => Embedder::Remote {
                endpoint: Endpoint {
                    base_url: s.base_url.clone().ok_or(
                        "embedding_provider is openai but embedding_base_url is not set \
                         (SELECT kerai.configure_embeddings('openai', MODEL, DIMENSIONS, BASE_URL))",
                    )?,
                    model: s.model.clone(),
                    api_key_env: s.api_key_env.clone(),
                    timeout: Duration::from_secs(s.timeout_seconds),
                    allowed_private_hosts: s.allowed_private_hosts.clone(),
                },
                dimensions: s.dimensions,
            },
            other => return Err(format!("unknown embedding_provider \"{other}\"")),
        }))
    }

    /// The configured provider; `Ok(None)` when embeddings are off.
    pub async fn configured(client: &Client) -> Result<Option<Embedder>, String> {
        Embedder::for_settings(&settings(client).await?).await
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
        let cut: Vec<String> = texts
            .iter()
            .map(|t| embed::model_input(t).to_string())
            .collect();
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

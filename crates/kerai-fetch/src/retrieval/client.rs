//! JSON POSTs to an OpenAI-compatible endpoint, with a timeout and the bearer key from the
//! environment variable the settings name.

use crate::http::guard::{self, GuardedClients};
use kerai_core::ops::ssrf::AddressGuard;
use kerai_core::retrieval::openai::{self, Usage};
use kerai_core::wire::embed::ChatConfig;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use url::Url;

/// An OpenAI-compatible API: where it is, which model, how long to wait, which variable
/// holds the key.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub base_url: String,
    pub model: String,
    pub api_key_env: String,
    pub timeout: Duration,
    /// Non-public hosts it may be on (the `allowed_private_hosts` setting; the SSRF guard).
    pub allowed_private_hosts: Vec<String>,
}

impl Endpoint {
    /// From `db::embed::chat_config` / `db::embed::embedding_config`; `None` when no base URL is set.
    pub fn from_config(
        cfg: &ChatConfig,
        default_key_env: &str,
        default_timeout: u64,
    ) -> Option<Endpoint> {
        let base = cfg.base_url.as_deref().filter(|s| !s.is_empty())?;
        Some(Endpoint {
            base_url: base.to_string(),
            model: cfg.model.clone().unwrap_or_default(),
            api_key_env: cfg
                .api_key_env
                .clone()
                .unwrap_or_else(|| default_key_env.to_string()),
            timeout: Duration::from_secs(cfg.timeout_seconds.unwrap_or(default_timeout).max(1)),
            allowed_private_hosts: cfg.allowed_private_hosts.clone(),
        })
    }

    async fn post(&self, path: &str, body: &Value) -> Result<Vec<u8>, String> {
        let url = openai::endpoint(&self.base_url, path);
        let guard = AddressGuard::parse(&self.allowed_private_hosts)?;
        let clients = GuardedClients::build(Arc::new(guard), |b| {
            b.timeout(self.timeout)
                .connect_timeout(self.timeout.min(Duration::from_secs(30)))
        })?;
        let parsed = Url::parse(&url).map_err(|e| format!("{url}: not a URL ({e})"))?;
        let client = clients
            .pick(&parsed)
            .map_err(|r| format!("{url} is refused: {r}"))?;
        let mut req = client.post(&url).json(body);
        if let Ok(key) = std::env::var(&self.api_key_env) {
            if !key.is_empty() {
                req = req.bearer_auth(key);
            }
        }
        let secs = self.timeout.as_secs();
        let resp = req
            .send()
            .await
            .map_err(|e| match guard::refusal_in(&e, &parsed) {
                Some(r) => format!("{url} is refused: {r}"),
                None => describe(&url, secs, &e),
            })?;
        let status = resp.status();
        let bytes = resp.bytes().await.map_err(|e| describe(&url, secs, &e))?;
        if !status.is_success() {
            let detail = serde_json::from_slice::<Value>(&bytes)
                .ok()
                .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
                .unwrap_or_else(|| String::from_utf8_lossy(&bytes).chars().take(200).collect());
            return Err(format!("{url} answered HTTP {}: {detail}", status.as_u16()));
        }
        Ok(bytes.to_vec())
    }

    /// Vectors of `texts`, each of `dimensions` numbers, in order.
    pub async fn embed(
        &self,
        texts: &[&str],
        dimensions: usize,
    ) -> Result<(Vec<Vec<f32>>, Usage), String> {
        let body = self
            .post(
                "embeddings",
                &openai::embeddings_request(&self.model, texts),
            )
            .await?;
        openai::parse_embeddings(&body, texts.len(), dimensions)
            .map_err(|e| format!("{}: {e}", openai::endpoint(&self.base_url, "embeddings")))
    }

    /// The chat model's answer to a system and a user message.
    pub async fn chat(&self, system: &str, user: &str) -> Result<(String, Usage), String> {
        let body = self
            .post(
                "chat/completions",
                &openai::chat_request(&self.model, system, user),
            )
            .await?;
        openai::parse_chat(&body).map_err(|e| {
            format!(
                "{}: {e}",
                openai::endpoint(&self.base_url, "chat/completions")
            )
        })
    }
}

fn describe(url: &str, secs: u64, e: &reqwest::Error) -> String {
    if e.is_timeout() {
        format!("{url} did not answer within {secs} s (timeout)")
    } else if e.is_connect() {
        format!("{url} is unreachable (resource unreachable)")
    } else {
        format!("{url}: {e}")
    }
}

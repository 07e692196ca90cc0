//! Sentence embeddings for semantic search.
//!
//! [`EmbeddingProvider`] is the interface (synchronous: the fetcher runs it on a blocking
//! thread); [`MiniLm`] is the local provider, sentence-transformers' all-MiniLM-L6-v2 run on
//! the CPU with candle: 384 dimensions, unit length, so cosine similarity is a dot product.
//! The model files are installed by `scripts/install-model.sh` and found by [`model_dir`].

mod bert_int8;
mod error;
mod loaded;
mod minilm;
mod pool;

pub use error::EmbedError;
pub use kerai_kernels::Kernel;
pub use loaded::LoadedModels;
pub use minilm::{MiniLm, Precision};
pub use pool::{cosine, mean_pool_normalised};

use std::path::PathBuf;

/// Where the model files are installed when `$KERAI_MODEL_DIR` is not set.
pub const DEFAULT_MODEL_DIR: &str = "/usr/local/share/kerai/models/all-MiniLM-L6-v2";

/// Something that turns texts into vectors of a fixed dimension.
pub trait EmbeddingProvider: Send + Sync {
    /// The provider's short name, e.g. `"local"`.
    fn name(&self) -> &str;
    /// The model, stored beside each vector (e.g. `"sentence-transformers/all-MiniLM-L6-v2"`).
    fn model_name(&self) -> &str;
    /// Length of every vector.
    fn dimensions(&self) -> usize;
    /// One vector per text, in order.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// The vector of one text.
    fn embed(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let mut v = self.embed_batch(&[text])?;
        v.pop()
            .ok_or_else(|| EmbedError::Model("the model returned no vector".into()))
    }
}

/// The directory holding the model files: `$KERAI_MODEL_DIR`, else [`DEFAULT_MODEL_DIR`].
pub fn model_dir() -> PathBuf {
    match std::env::var_os("KERAI_MODEL_DIR") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(DEFAULT_MODEL_DIR),
    }
}

/// Text beyond this many bytes is never sent to a model: the local one reads its first 256
/// word pieces, remote ones a few thousand tokens, both far less than this.
pub const MAX_TEXT_BYTES: usize = 32 * 1024;

/// What a model is given for `text`: at most [`MAX_TEXT_BYTES`], cut at a character boundary;
/// blank text becomes a single space (callers that must refuse blank text check first).
pub fn model_input(text: &str) -> &str {
    if text.trim().is_empty() {
        return " ";
    }
    let mut end = text.len().min(MAX_TEXT_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A vector in pgvector's text form, `[0.1,0.2,...]`.
pub fn vector_literal(v: &[f32]) -> String {
    let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("[{}]", parts.join(","))
}

/// The embedding settings as `kerai._embedding_config()` returns them.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// `local`, `openai` or `none`.
    pub provider: String,
    pub model: String,
    pub dimensions: usize,
    pub base_url: Option<String>,
    /// The environment variable holding the endpoint's key.
    pub api_key_env: String,
    pub timeout_seconds: u64,
    /// Texts per request when embedding in bulk.
    pub batch: usize,
    /// Non-public hosts the endpoint may be on (the `allowed_private_hosts` setting).
    pub allowed_private_hosts: Vec<String>,
}

impl Settings {
    pub fn from_json(v: &serde_json::Value) -> Settings {
        Settings::from_config(&crate::wire::embed::EmbeddingConfig::from_json(v.clone()))
    }

    /// From `kerai._embedding_config()`, with the defaults for what is unset.
    pub fn from_config(c: &crate::wire::embed::EmbeddingConfig) -> Settings {
        let s = |v: &Option<String>| v.as_deref().filter(|s| !s.is_empty()).map(str::to_string);
        Settings {
            provider: s(&c.provider).unwrap_or_else(|| "local".into()),
            model: s(&c.model).unwrap_or_default(),
            dimensions: c.dimensions.unwrap_or(384) as usize,
            base_url: s(&c.base_url),
            api_key_env: s(&c.api_key_env).unwrap_or_else(|| "KERAI_EMBEDDING_API_KEY".into()),
            timeout_seconds: c.timeout_seconds.unwrap_or(30).max(1),
            batch: c.batch.unwrap_or(32).clamp(1, 2048) as usize,
            allowed_private_hosts: c.allowed_private_hosts.clone(),
        }
    }
}

#[cfg(test)]
mod helper_tests {
    use super::*;

    #[test]
    fn model_input_is_bounded_and_never_blank() {
        assert_eq!(model_input("  \n"), " ");
        assert_eq!(model_input("abc"), "abc");
        let long = "é".repeat(MAX_TEXT_BYTES);
        let cut = model_input(&long);
        assert!(cut.len() <= MAX_TEXT_BYTES && cut.chars().all(|c| c == 'é'));
    }

    #[test]
    fn settings_and_literals() {
        let s = Settings::from_json(&serde_json::json!({"provider": "openai", "dimensions": 16,
                                                        "base_url": "http://h/v1", "batch": 0}));
        assert_eq!(
            (s.provider.as_str(), s.dimensions, s.batch),
            ("openai", 16, 1)
        );
        assert_eq!(s.api_key_env, "KERAI_EMBEDDING_API_KEY");
        assert_eq!(vector_literal(&[1.0, 0.5]), "[1,0.5]");
    }
}

//! Sentence embeddings for semantic search.
//!
//! [`EmbeddingProvider`] is the interface (synchronous: the fetcher runs it on a blocking
//! thread); [`MiniLm`] is the local provider, sentence-transformers' all-MiniLM-L6-v2 run on
//! the CPU with candle: 384 dimensions, unit length, so cosine similarity is a dot product.
//! The model files are installed by `scripts/install-model.sh` and found by [`model_dir`].

mod error;
mod minilm;
mod pool;

pub use error::EmbedError;
pub use minilm::MiniLm;
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

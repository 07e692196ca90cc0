//! The fetcher's side of retrieval: embedding providers (the local model, or an
//! OpenAI-compatible endpoint) and the chat endpoint, configured by the database's settings
//! (`db::embed::embedding_config`, `db::embed::chat_config`), with API keys from this process's
//! environment.

pub mod client;
pub mod embedder;
pub mod query;
pub mod work;

pub use client::Endpoint;
pub use embedder::Embedder;

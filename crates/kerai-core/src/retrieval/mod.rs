//! Retrieval: chunks of a document, their embeddings, token counts, the OpenAI-compatible API
//! the embeddings and answers may come from, extractive answers when no model writes one, and
//! the full-text score of a chunk.

pub mod answer;
pub mod chunk;
pub mod embed;
pub mod openai;
pub mod rank;
pub mod tokens;

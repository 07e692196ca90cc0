//! Retrieval: chunks of a document, their embeddings, token counts, the OpenAI-compatible API
//! the embeddings and answers may come from, and extractive answers when no model writes one.

pub mod answer;
pub mod chunk;
pub mod embed;
pub mod openai;
pub mod tokens;

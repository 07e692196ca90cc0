//! `kerai answer` with a chat model: the passages, the prompt and the recorded answer
//! (`kerai._answer_*`).

use serde_json::Value;
use tokio_postgres::{Client, Error};

/// The passages to answer `question` from (a JSON array) (`kerai._answer_passages`).
pub async fn passages(
    client: &Client,
    question: &str,
    k: Option<i32>,
    filters: &Value,
) -> Result<Value, Error> {
    client
        .query_one(
            "SELECT kerai._answer_passages($1, $2, $3)",
            &[&question, &k, filters],
        )
        .await
        .map(|r| r.get(0))
}

/// The prompt asking the model to answer `question` from `hits` (`kerai._answer_prompt`).
pub async fn prompt(client: &Client, question: &str, hits: &Value) -> Result<String, Error> {
    client
        .query_one("SELECT kerai._answer_prompt($1, $2)", &[&question, hits])
        .await
        .map(|r| r.get(0))
}

/// The model's answer to `question`.
pub struct ModelAnswer<'a> {
    pub text: &'a str,
    pub model: &'a str,
    pub prompt_tokens: i32,
    pub completion_tokens: i32,
}

/// Record the model's answer and give the answer with its citations (`kerai._answer_result`,
/// mode `llm`).
pub async fn result(
    client: &Client,
    question: &str,
    hits: &Value,
    answer: &ModelAnswer<'_>,
    filters: &Value,
) -> Result<Value, Error> {
    client
        .query_one(
            "SELECT kerai._answer_result($1, $2, $3, $4, 'llm', $5, $6, $7)",
            &[
                &question,
                hits,
                &answer.text,
                &answer.model,
                &answer.prompt_tokens,
                &answer.completion_tokens,
                filters,
            ],
        )
        .await
        .map(|r| r.get(0))
}

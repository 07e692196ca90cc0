//! `kerai answer` with a chat model: the passages, the prompt and the recorded answer
//! (`kerai._answer_*`).

use kerai_core::wire::answer::{Answer, Passage};
use serde_json::Value;
use tokio_postgres::{Client, Error};

/// A JSON answer the extension wrote that is not what the contract says: a bug on one side.
fn contract(what: &str, e: serde_json::Error) -> String {
    format!("the extension's {what} does not match this kerai ({e}); upgrade the older of the two")
}

/// The outcome of a call: the database's error, or an answer that breaks the contract.
pub enum CallError {
    Db(Error),
    Contract(String),
}

impl CallError {
    pub fn message(&self) -> String {
        match self {
            CallError::Db(e) => super::message(e),
            CallError::Contract(m) => m.clone(),
        }
    }
}

fn parse<T: serde::de::DeserializeOwned>(what: &str, v: Value) -> Result<T, CallError> {
    serde_json::from_value(v).map_err(|e| CallError::Contract(contract(what, e)))
}

/// The passages to answer `question` from (a JSON array) (`kerai._answer_passages`).
pub async fn passages(
    client: &Client,
    question: &str,
    k: Option<i32>,
    filters: &Value,
) -> Result<Vec<Passage>, CallError> {
    let v: Value = client
        .query_one(
            "SELECT kerai._answer_passages($1, $2, $3)",
            &[&question, &k, filters],
        )
        .await
        .map_err(CallError::Db)?
        .get(0);
    parse("kerai._answer_passages", v)
}

/// The extractive answer `kerai.answer` gives (no chat model).
pub async fn extractive(
    client: &Client,
    question: &str,
    k: Option<i32>,
    filters: &Value,
) -> Result<Answer, CallError> {
    let v: Value = client
        .query_one("SELECT kerai.answer($1, $2, $3)", &[&question, &k, filters])
        .await
        .map_err(CallError::Db)?
        .get(0);
    parse("kerai.answer", v)
}

fn hits_json(hits: &[Passage]) -> Value {
    serde_json::to_value(hits).expect("passages serialise")
}

/// The prompt asking the model to answer `question` from `hits` (`kerai._answer_prompt`).
pub async fn prompt(client: &Client, question: &str, hits: &[Passage]) -> Result<String, Error> {
    client
        .query_one(
            "SELECT kerai._answer_prompt($1, $2)",
            &[&question, &hits_json(hits)],
        )
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
    hits: &[Passage],
    answer: &ModelAnswer<'_>,
    filters: &Value,
) -> Result<Answer, CallError> {
    let v: Value = client
        .query_one(
            "SELECT kerai._answer_result($1, $2, $3, $4, 'llm', $5, $6, $7)",
            &[
                &question,
                &hits_json(hits),
                &answer.text,
                &answer.model,
                &answer.prompt_tokens,
                &answer.completion_tokens,
                filters,
            ],
        )
        .await
        .map_err(CallError::Db)?
        .get(0);
    parse("kerai._answer_result", v)
}

//! `kerai answer`: answer a question from the corpus with cited passages. The passages come
//! from `kerai.search`; with a chat endpoint configured (`kerai.configure_chat`), this process
//! asks the model (with the key from its own environment) and records the exchange through
//! `kerai._record_answer`; otherwise `kerai.answer` answers extractively.

use crate::ai::Endpoint;
use crate::cli::AnswerArgs;
use crate::commands::search::{filters_of, snippet, with_query_embedding};
use crate::db;
use crate::exit::{Code, Failure};
use crate::output::print_json;
use serde_json::{json, Value};

pub async fn run(url: &str, args: AnswerArgs) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    let filters = filters_of(&args.filter, None)?;
    let filters = with_query_embedding(&client, &args.question, filters).await;
    let chat: Value = client
        .query_one("SELECT kerai._chat_config()", &[])
        .await
        .map_err(|e| Failure::critical(db::message(&e)))?
        .get(0);
    let k: Option<i32> = args.k;
    let out: Value = match Endpoint::from_config(&chat, "KERAI_CHAT_API_KEY", 60) {
        None => client
            .query_one(
                "SELECT kerai.answer($1, $2, $3)",
                &[&args.question, &k, &filters],
            )
            .await
            .map_err(|e| Failure::critical(db::message(&e)))?
            .get(0),
        Some(endpoint) => {
            answer_with_model(&client, &endpoint, &args.question, k, &filters).await?
        }
    };
    if args.json {
        print_json(&out);
        return Ok(Code::Success);
    }
    println!("{}\n", out["answer"].as_str().unwrap_or("").trim());
    for c in out["citations"].as_array().into_iter().flatten() {
        let date = c["version_date"]
            .as_str()
            .map(|d| d.chars().take(10).collect::<String>());
        println!(
            "[{}] \"{}\"\n    Source: {}{}",
            c["order"],
            snippet(c["text"].as_str().unwrap_or(""), 160),
            c["url"].as_str().unwrap_or("(no url)"),
            date.map(|d| format!(" (scraped {d})")).unwrap_or_default()
        );
    }
    eprintln!(
        "kerai: {} answer, model {}, {} + {} tokens, request {}",
        out["mode"].as_str().unwrap_or("?"),
        out["model"].as_str().unwrap_or("?"),
        out["prompt_tokens"],
        out["completion_tokens"],
        out["request"].as_str().unwrap_or("?")
    );
    Ok(Code::Success)
}

async fn answer_with_model(
    client: &tokio_postgres::Client,
    endpoint: &Endpoint,
    question: &str,
    k: Option<i32>,
    filters: &Value,
) -> Result<Value, Failure> {
    let db_err = |e: tokio_postgres::Error| Failure::critical(db::message(&e));
    let hits: Value = client
        .query_one(
            "SELECT coalesce(jsonb_agg(jsonb_build_object('chunk_id', s.chunk_id, 'content', s.content, 'score', s.score,
                        'url', s.url, 'version_date', s.version_date) ORDER BY s.score DESC, s.chunk_id), '[]')
               FROM kerai.search($1, coalesce($2, (kerai.setting('answer_passages') #>> '{}')::integer), $3) s",
            &[&question, &k, filters],
        )
        .await
        .map_err(db_err)?
        .get(0);
    let passages = hits.as_array().cloned().unwrap_or_default();
    if passages.is_empty() {
        return client
            .query_one("SELECT kerai.answer($1, $2, $3)", &[&question, &k, filters])
            .await
            .map(|r| r.get(0))
            .map_err(db_err);
    }
    let prompt: String = client
        .query_one("SELECT kerai._answer_prompt($1, $2)", &[&question, &hits])
        .await
        .map_err(db_err)?
        .get(0);
    let (text, usage) = endpoint
        .chat(
            "You answer questions from the passages given, citing them as [n].",
            &prompt,
        )
        .await
        .map_err(|e| {
            Failure::critical(format!("the chat endpoint failed: {e}")).with_hint(
                "check chat_base_url (SELECT kerai._chat_config()) and the key variable it names",
            )
        })?;
    let top = passages[0]["score"]
        .as_f64()
        .unwrap_or(1.0)
        .max(f64::MIN_POSITIVE);
    let cites: Vec<Value> = passages
        .iter()
        .map(|h| json!({"chunk_id": h["chunk_id"], "relevance_score": h["score"].as_f64().unwrap_or(0.0) / top}))
        .collect();
    let tokens = |n: u32, text: &str| -> i32 {
        if n > 0 {
            n as i32
        } else {
            kerai_core::tokens::count_tokens(text) as i32
        }
    };
    let (pt, ct) = (
        tokens(usage.prompt_tokens, &prompt),
        tokens(usage.completion_tokens, &text),
    );
    let request: uuid::Uuid = client
        .query_one(
            "SELECT kerai._record_answer($1, $2, $3, 'llm', $4, $5, $6, $7)",
            &[
                &question,
                &text,
                &endpoint.model,
                &pt,
                &ct,
                &Value::Array(cites),
                filters,
            ],
        )
        .await
        .map_err(db_err)?
        .get(0);
    let citations: Vec<Value> = passages
        .iter()
        .enumerate()
        .map(|(i, h)| {
            json!({"order": i + 1, "chunk_id": h["chunk_id"], "url": h["url"], "version_date": h["version_date"],
                   "text": h["content"], "relevance": h["score"].as_f64().unwrap_or(0.0) / top})
        })
        .collect();
    Ok(
        json!({"request": request.to_string(), "answer": text, "mode": "llm", "model": endpoint.model,
              "prompt_tokens": pt, "completion_tokens": ct, "citations": citations}),
    )
}

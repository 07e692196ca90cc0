//! `kerai answer`: answer a question from the corpus with cited passages. The passages come
//! from `kerai.search`; with a chat endpoint configured (`kerai.configure_chat`), this process
//! asks the model (with the key from its own environment) and records the exchange through
//! `db::answer::result`; otherwise `kerai.answer` answers extractively.

use crate::args::AnswerArgs;
use crate::db;
use crate::exit::{Code, Failure};
use crate::output::print_json;
use crate::output::snippet;
use crate::retrieval::query::{filters_of, with_query_embedding};
use crate::retrieval::Endpoint;
use kerai_core::wire::answer::Answer;
use serde_json::Value;

pub async fn run(url: &str, args: AnswerArgs) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    let filters = filters_of(&args.filter, None)?;
    let filters = with_query_embedding(&client, &args.question, filters).await;
    let chat = db::embed::chat_config(&client)
        .await
        .map_err(|e| Failure::critical(db::message(&e)))?;
    let k: Option<i32> = args.k;
    let out: Answer = match Endpoint::from_config(&chat, "KERAI_CHAT_API_KEY", 60) {
        None => db::answer::extractive(&client, &args.question, k, &filters)
            .await
            .map_err(|e| Failure::critical(e.message()))?,
        Some(endpoint) => {
            answer_with_model(&client, &endpoint, &args.question, k, &filters).await?
        }
    };
    if args.json {
        print_json(&serde_json::to_value(&out).expect("an answer serialises"));
        return Ok(Code::Success);
    }
    println!("{}\n", out.answer.trim());
    for c in &out.citations {
        let date = c
            .version_date
            .as_deref()
            .map(|d| d.chars().take(10).collect::<String>());
        println!(
            "[{}] \"{}\"\n    Source: {}{}",
            c.order,
            snippet(&c.text, 160),
            c.url.as_deref().unwrap_or("(no url)"),
            date.map(|d| format!(" (scraped {d})")).unwrap_or_default()
        );
    }
    eprintln!(
        "kerai: {} answer, model {}, {} + {} tokens, request {}",
        out.mode, out.model, out.prompt_tokens, out.completion_tokens, out.request
    );
    Ok(Code::Success)
}

async fn answer_with_model(
    client: &tokio_postgres::Client,
    endpoint: &Endpoint,
    question: &str,
    k: Option<i32>,
    filters: &Value,
) -> Result<Answer, Failure> {
    let db_err = |e: tokio_postgres::Error| Failure::critical(db::message(&e));
    let call_err = |e: db::answer::CallError| Failure::critical(e.message());
    let hits = db::answer::passages(client, question, k, filters)
        .await
        .map_err(call_err)?;
    if hits.is_empty() {
        return db::answer::extractive(client, question, k, filters)
            .await
            .map_err(call_err);
    }
    let prompt: String = db::answer::prompt(client, question, &hits)
        .await
        .map_err(db_err)?;
    let system = "You answer questions from the passages given, citing them as [n].";
    let (text, usage) = endpoint.chat(system, &prompt).await.map_err(|e| {
        Failure::critical(format!("the chat endpoint failed: {e}")).with_hint(format!(
            "check chat_base_url ({}) and the key variable it names",
            db::embed::SHOW_CHAT_CONFIG
        ))
    })?;
    let (pt, ct) = usage.or_counted(&[system, &prompt], &text);
    let answer = db::answer::ModelAnswer {
        text: &text,
        model: &endpoint.model,
        prompt_tokens: pt as i32,
        completion_tokens: ct as i32,
    };
    db::answer::result(client, question, &hits, &answer, filters)
        .await
        .map_err(call_err)
}

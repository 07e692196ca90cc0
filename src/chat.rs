//! `kerai._chat`: one call to the OpenAI-compatible chat endpoint the settings name, for
//! `kerai.answer` and LLM claims. Returns the text and the token counts.

use crate::errors::{invalid, raise, OrRaise};
use crate::http;
use kerai_core::retrieval::openai;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{json, Value};

/// `kerai._chat(system, user)`: `{text, model, prompt_tokens, completion_tokens}`; an error
/// naming the endpoint when it is not configured, unreachable, slow or answers nonsense.
#[pg_extern(strict)]
pub(crate) fn _chat(system: &str, user: &str) -> JsonB {
    let cfg: Value = Spi::get_one::<JsonB>("SELECT kerai._chat_config()")
        .or_raise("reading the chat settings")
        .map(|j| j.0)
        .unwrap_or_default();
    let Some(base) = cfg["base_url"].as_str().filter(|s| !s.is_empty()) else {
        invalid(
            "kerai: no chat endpoint is configured",
            "SELECT kerai.configure_chat('https://HOST/v1', 'MODEL') (an OpenAI-compatible API)",
        )
    };
    let model = cfg["model"].as_str().unwrap_or("");
    let key_env = cfg["api_key_env"].as_str().unwrap_or("KERAI_CHAT_API_KEY");
    let timeout = cfg["timeout_seconds"].as_u64().unwrap_or(60);
    let url = openai::endpoint(base, "chat/completions");
    let body = openai::chat_request(model, system, user);
    let allowed: Vec<String> =
        serde_json::from_value(cfg["allowed_private_hosts"].clone()).unwrap_or_default();
    let guard = http::guard(&allowed)
        .unwrap_or_else(|e| invalid(format!("kerai: {e}"), "fix it with kerai.set_setting"));
    let answer = http::post_json(&url, &body, key_env, timeout, guard).unwrap_or_else(|e| {
        raise(
            PgSqlErrorCode::ERRCODE_CONNECTION_FAILURE,
            format!("kerai: the chat endpoint failed: {e}"),
            "check chat_base_url and that the endpoint runs; the key is read from the server's environment variable named by chat_api_key_env",
        )
    });
    let (text, usage) =
        openai::parse_chat(&answer).unwrap_or_else(|e| invalid(format!("kerai: {url}: {e}"), ""));
    // Endpoints that report no usage are counted with cl100k.
    let (prompt, completion) = usage.or_counted(&[system, user], &text);
    JsonB(
        json!({"text": text, "model": model, "prompt_tokens": prompt, "completion_tokens": completion}),
    )
}

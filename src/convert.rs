//! The extraction layer in SQL: HTML main content as markdown, structured data, language,
//! S0 source records, and token counts.

use crate::errors::invalid;
use kerai_core::convert::html::{self, PageInput, SourceOptions};
use pgrx::prelude::*;
use pgrx::JsonB;

/// `kerai.html_to_markdown(html, url)`: the page's main content as markdown (navigation,
/// headers, footers, sidebars, banners, ads, share bars and comments removed; links resolved
/// against `url`).
#[pg_extern(immutable, parallel_safe)]
pub(crate) fn html_to_markdown(html: &str, url: default!(Option<&str>, "NULL")) -> String {
    crate::limits::check("kerai.html_to_markdown", "HTML", html.len());
    html::to_markdown(html, url.unwrap_or("")).markdown
}

/// `kerai.extract_structured(html)`: JSON-LD (with `@graph` and arrays flattened; malformed
/// blocks reported in `json_ld_errors`), OpenGraph, Twitter cards, meta tags, canonical URL,
/// hreflang alternates.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn extract_structured(html: &str) -> JsonB {
    crate::limits::check("kerai.extract_structured", "HTML", html.len());
    JsonB(serde_json::to_value(html::extract_structured(html)).unwrap_or_default())
}

/// `kerai.detect_language(text)`: candidate languages (ISO 639-1), best first, with a
/// confidence in 0..1.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn detect_language(
    text: &str,
) -> TableIterator<'static, (name!(lang, String), name!(confidence, f64))> {
    TableIterator::new(html::language::detect_language(text))
}

/// `kerai.source_records(html, url, options)`: seed 002's S0 records of one page
/// (`{records, counters, samples}`); options as in docs/sql.md (`target_language`,
/// `min_chars`, `max_chars`, `whitelist`, `institution`, ...).
#[pg_extern(immutable, parallel_safe)]
pub(crate) fn source_records(html: &str, url: &str, options: default!(JsonB, "'{}'")) -> JsonB {
    crate::limits::check("kerai.source_records", "HTML", html.len());
    let opts = options.0;
    if !opts.is_object() {
        invalid(
            "kerai.source_records: options must be a JSON object",
            "pass for example '{\"target_language\": \"en\"}'",
        );
    }
    let institution = opts
        .get("institution")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .or_else(|| {
            url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
        })
        .unwrap_or_default();
    let page = PageInput {
        html: html.to_string(),
        url: url.to_string(),
        institution,
        fetched_at: opts
            .get("fetched_at")
            .and_then(|v| v.as_str())
            .map(str::to_string),
    };
    let mut opts = opts;
    if let Some(o) = opts.as_object_mut() {
        o.remove("institution");
        o.remove("fetched_at");
    }
    let opts: SourceOptions = match serde_json::from_value(opts) {
        Ok(o) => o,
        Err(e) => invalid(
            format!("kerai.source_records: bad options: {e}"),
            "see docs/sql.md (Extraction) for the options",
        ),
    };
    JsonB(serde_json::to_value(html::source_records(&[page], &opts)).unwrap_or_default())
}

/// `kerai.count_tokens(text)`: tokens under cl100k (the tokenizer of OpenAI's embedding and
/// chat models), not characters / 4.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn count_tokens(text: &str) -> i32 {
    crate::limits::check("kerai.count_tokens", "text", text.len());
    i32::try_from(kerai_core::retrieval::tokens::count_tokens(text)).unwrap_or(i32::MAX)
}

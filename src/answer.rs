//! `kerai._extractive_answer`: the sentences of the retrieved passages that best answer a
//! question, each marked with its passage number, for `kerai.answer` without a chat model;
//! `kerai._answer_spans`: the same answer and what each passage's citation quotes.

use kerai_core::retrieval::answer::{best_sentences, citation_spans, render, Picked};
use pgrx::prelude::*;

/// The passages as texts (NULL as empty) and the sentences picked from them.
fn pick(
    question: &str,
    passages: Vec<Option<String>>,
    max_sentences: i32,
) -> (Vec<String>, Vec<Picked>) {
    let texts: Vec<String> = passages
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let picked = best_sentences(question, &refs, max_sentences.clamp(0, 20) as usize);
    (texts, picked)
}

/// Up to `max_sentences` sentences of `passages` (best-ranked first) with `[n]` after each;
/// NULL when no sentence shares a content word with the question.
#[pg_extern(immutable, parallel_safe)]
pub(crate) fn _extractive_answer(
    question: &str,
    passages: Vec<Option<String>>,
    max_sentences: default!(i32, 3),
) -> Option<String> {
    let (_, picked) = pick(question, passages, max_sentences);
    (!picked.is_empty()).then(|| render(&picked))
}

/// `{"answer": text or null, "spans": [text, ...]}`: the extractive answer (as
/// [`_extractive_answer`]; `max_sentences` 0 gives none) and, per passage, what its citation
/// quotes: the paragraphs that gave the answer's sentences, else the passage's paragraphs and
/// list items without headings, navigation, tables or reference-list entries.
#[pg_extern(immutable, parallel_safe)]
pub(crate) fn _answer_spans(
    question: &str,
    passages: Vec<Option<String>>,
    max_sentences: default!(i32, 3),
) -> pgrx::JsonB {
    let (texts, picked) = pick(question, passages, max_sentences);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let spans = citation_spans(&picked, &refs);
    let answer = (!picked.is_empty()).then(|| render(&picked));
    pgrx::JsonB(serde_json::json!({"answer": answer, "spans": spans}))
}

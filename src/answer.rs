//! `kerai._extractive_answer`: the sentences of the retrieved passages that best answer a
//! question, each marked with its passage number, for `kerai.answer` without a chat model;
//! `kerai._answer_spans`: the same answer and what each passage's citation quotes.

use pgrx::prelude::*;

/// Up to `max_sentences` sentences of `passages` (best-ranked first) with `[n]` after each;
/// NULL when no sentence shares a content word with the question.
#[pg_extern(immutable, parallel_safe)]
pub(crate) fn _extractive_answer(
    question: &str,
    passages: Vec<Option<String>>,
    max_sentences: default!(i32, 3),
) -> Option<String> {
    let texts: Vec<String> = passages
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let picked = kerai_core::retrieval::answer::best_sentences(
        question,
        &refs,
        max_sentences.clamp(0, 20) as usize,
    );
    (!picked.is_empty()).then(|| kerai_core::retrieval::answer::render(&picked))
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
    let texts: Vec<String> = passages
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let picked = kerai_core::retrieval::answer::best_sentences(
        question,
        &refs,
        max_sentences.clamp(0, 20) as usize,
    );
    let spans = kerai_core::retrieval::answer::citation_spans(&picked, &refs);
    let answer = (!picked.is_empty()).then(|| kerai_core::retrieval::answer::render(&picked));
    pgrx::JsonB(serde_json::json!({"answer": answer, "spans": spans}))
}

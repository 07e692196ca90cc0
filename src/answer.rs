//! `kerai._extractive_answer`: the sentences of the retrieved passages that best answer a
//! question, each marked with its passage number, for `kerai.answer` without a chat model;
//! `kerai._answer_spans`: the same answer and what each passage's citation quotes.

use kerai_core::retrieval::answer::{best_sentences_under, citation_spans_under, render, Picked};
use pgrx::prelude::*;

/// NULLs as empty texts.
fn texts(values: Vec<Option<String>>) -> Vec<String> {
    values.into_iter().map(Option::unwrap_or_default).collect()
}

/// The sentences of `passages` picked for `question`, and the views of the passages and their
/// headings (one text per passage, a heading per line) they were picked from.
fn pick<'a>(
    question: &str,
    passages: &'a [String],
    headings: &'a [String],
    max_sentences: i32,
) -> (Vec<Picked>, Vec<&'a str>, Vec<&'a str>) {
    let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
    let head_refs: Vec<&str> = headings.iter().map(String::as_str).collect();
    let picked = best_sentences_under(
        question,
        &refs,
        &head_refs,
        max_sentences.clamp(0, 20) as usize,
    );
    (picked, refs, head_refs)
}

/// Up to `max_sentences` sentences of `passages` (best-ranked first) with `[n]` after each;
/// NULL when no sentence shares a content word with the question. `headings[i]`, when given,
/// holds passage `i`'s document title and heading path, one per line: such a line in the
/// passage is a heading however long, and never answers.
#[pg_extern(immutable, parallel_safe)]
pub(crate) fn _extractive_answer(
    question: &str,
    passages: Vec<Option<String>>,
    max_sentences: default!(i32, 3),
    headings: default!(Option<Vec<Option<String>>>, "NULL"),
) -> Option<String> {
    let (passages, headings) = (texts(passages), texts(headings.unwrap_or_default()));
    let (picked, _, _) = pick(question, &passages, &headings, max_sentences);
    (!picked.is_empty()).then(|| render(&picked))
}

/// `{"answer": text or null, "spans": [text, ...]}`: the extractive answer (as
/// [`_extractive_answer`], `headings` too; `max_sentences` 0 gives none) and, per passage, what its citation
/// quotes: the paragraphs that gave the answer's sentences, else the passage's paragraphs and
/// list items without headings, navigation, tables or reference-list entries.
#[pg_extern(immutable, parallel_safe)]
pub(crate) fn _answer_spans(
    question: &str,
    passages: Vec<Option<String>>,
    max_sentences: default!(i32, 3),
    headings: default!(Option<Vec<Option<String>>>, "NULL"),
) -> pgrx::JsonB {
    let (passages, headings) = (texts(passages), texts(headings.unwrap_or_default()));
    let (picked, refs, head_refs) = pick(question, &passages, &headings, max_sentences);
    let spans = citation_spans_under(&picked, &refs, &head_refs);
    let answer = (!picked.is_empty()).then(|| render(&picked));
    pgrx::JsonB(serde_json::json!({"answer": answer, "spans": spans}))
}

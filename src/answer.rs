//! `kerai._extractive_answer`: the sentences of the retrieved passages that best answer a
//! question, each marked with its passage number, for `kerai.answer` without a chat model.

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

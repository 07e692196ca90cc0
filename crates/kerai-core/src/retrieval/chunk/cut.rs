//! Cutting text that has no sentence boundary where one is needed: at word boundaries, and
//! inside a word only when one word alone is over the budget.
//!
//! The token counter is opaque, so a "token boundary" is taken to be a word boundary (every
//! common tokenizer starts a token at a word). The largest prefix or suffix that fits is found
//! by a galloping search (probes of 1, 2, 4, … words, then bisection), so a cut of `k` words
//! counts O(k log k) text and a whole text is cut in near-linear time, however long.

use crate::interrupt;
use std::ops::Range;

/// A token counter: the number of tokens of a text.
pub type CountTokens<'a> = &'a dyn Fn(&str) -> usize;

/// The largest `k` in `0..=max` for which `fits(k)` holds, for a `fits` that holds up to some
/// `k` and not beyond (`fits(0)` is taken to hold). Probes grow 1, 2, 4, … then bisect, so
/// no probe is more than twice the answer.
fn largest_fitting(max: usize, fits: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, max);
    let mut probe = 1;
    while probe <= max {
        interrupt::check();
        if fits(probe) {
            lo = probe;
            probe = probe.saturating_mul(2);
        } else {
            hi = probe - 1;
            break;
        }
    }
    if probe > max {
        hi = max;
    }
    while lo < hi {
        interrupt::check();
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Byte ranges of the whitespace-separated words of `text[range]` (absolute offsets).
pub(super) fn word_ranges(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    let mut tick = interrupt::Ticker::new();
    for (i, c) in text[range.clone()].char_indices() {
        tick.tick();
        let at = range.start + i;
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push(s..at);
            }
        } else if start.is_none() {
            start = Some(at);
        }
    }
    if let Some(s) = start {
        out.push(s..range.end);
    }
    out
}

/// Cut `text[range]` into consecutive pieces of at most `limit` tokens each, at word
/// boundaries, and inside a word only when the word alone is over the limit.
pub(super) fn cut_to_limit(
    text: &str,
    range: Range<usize>,
    limit: usize,
    count: CountTokens,
) -> Vec<Range<usize>> {
    let words = word_ranges(text, range);
    let mut out = Vec::new();
    let mut w = 0;
    while w < words.len() {
        // Largest k ≥ 1 with words[w..w+k] within the limit.
        let fits = |k: usize| count(&text[words[w].start..words[w + k - 1].end]) <= limit;
        let k = largest_fitting(words.len() - w, fits);
        if k == 0 {
            out.extend(cut_word(text, words[w].clone(), limit, count));
            w += 1;
        } else {
            out.push(words[w].start..words[w + k - 1].end);
            w += k;
        }
    }
    out
}

/// Cut one over-long word at character boundaries into pieces within the limit (at least
/// one character each).
fn cut_word(text: &str, word: Range<usize>, limit: usize, count: CountTokens) -> Vec<Range<usize>> {
    // Byte offsets of the word's character boundaries after its start, and its end.
    let ends: Vec<usize> = text[word.clone()]
        .char_indices()
        .skip(1)
        .map(|(i, _)| word.start + i)
        .chain(std::iter::once(word.end))
        .collect();
    let mut out = Vec::new();
    let mut start = word.start;
    let mut first = 0; // index into `ends` of the first boundary after `start`
    while first < ends.len() {
        let fits = |k: usize| count(&text[start..ends[first + k - 1]]) <= limit;
        let k = largest_fitting(ends.len() - first, fits).max(1);
        let end = ends[first + k - 1];
        out.push(start..end);
        start = end;
        first += k;
    }
    out
}

/// The longest run of trailing words of `text[range]` within `limit` tokens (may be empty).
pub(super) fn tail_words(
    text: &str,
    range: Range<usize>,
    limit: usize,
    count: CountTokens,
) -> Option<Range<usize>> {
    let words = word_ranges(text, range.clone());
    let n = words.len();
    let fits = |k: usize| count(&text[words[n - k].start..range.end]) <= limit;
    let k = largest_fitting(n, fits);
    (k > 0).then(|| words[n - k].start..range.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(t: &str) -> usize {
        t.split_whitespace().count()
    }

    #[test]
    fn cuts_at_words() {
        let t = "one two three four five six seven";
        let r = cut_to_limit(t, 0..t.len(), 3, &words);
        let parts: Vec<&str> = r.into_iter().map(|r| &t[r]).collect();
        assert_eq!(parts, vec!["one two three", "four five six", "seven"]);
    }

    #[test]
    fn cuts_inside_a_word_only_when_it_alone_is_too_long() {
        let chars = |t: &str| t.chars().count();
        let t = "ab cdefghij k";
        let r = cut_to_limit(t, 0..t.len(), 4, &chars);
        let parts: Vec<&str> = r.into_iter().map(|r| &t[r]).collect();
        assert_eq!(parts, vec!["ab", "cdef", "ghij", "k"]);
        let t = "ééééé";
        let r = cut_to_limit(t, 0..t.len(), 2, &chars);
        let parts: Vec<&str> = r.into_iter().map(|r| &t[r]).collect();
        assert_eq!(parts, vec!["éé", "éé", "é"]);
    }

    #[test]
    fn tail_takes_the_last_words() {
        let t = "alpha beta gamma delta";
        let r = tail_words(t, 0..t.len(), 2, &words).unwrap();
        assert_eq!(&t[r], "gamma delta");
        assert_eq!(tail_words(t, 0..t.len(), 0, &words), None);
    }
}

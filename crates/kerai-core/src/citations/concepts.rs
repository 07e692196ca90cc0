//! Named concepts: short quoted terms (`"Bayesian brain hypothesis"`, `“predictive coding”`)
//! and acronym definitions, both `expected free energy (EFE)` and `TOTE (Test, Operate,
//! Test, Exit)`, matched with the Schwartz–Hearst algorithm (PSB 2003). Long quotations and
//! quoted sentences are not concepts.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::json;

use super::{CitationKind, Found};
use crate::lexicon;

static OPEN_QUOTE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("[\"'\u{201C}\u{201E}\u{00AB}\u{2018}]").unwrap_or_else(|_| unreachable!())
});

/// Most words in a quoted term.
const MAX_TERM_WORDS: usize = 8;
/// Longest quoted term, in characters.
const MAX_TERM_CHARS: usize = 80;
/// How far a closing quote is looked for, in bytes.
const QUOTE_WINDOW: usize = 400;

/// All concept citations in `text` (byte offsets), left to right, non-overlapping.
pub fn find_concepts(text: &str) -> Vec<Found> {
    let mut out = find_quoted(text);
    out.extend(find_acronyms(text));
    out.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut kept: Vec<Found> = Vec::with_capacity(out.len());
    for f in out {
        if kept.last().is_none_or(|l| f.start >= l.end) {
            kept.push(f);
        }
    }
    kept
}

fn closing_for(open: char) -> Option<&'static [char]> {
    match open {
        '"' => Some(&['"', '\u{201D}']),
        '\u{201C}' => Some(&['\u{201D}', '"']),
        '\u{201E}' => Some(&['\u{201C}', '\u{201D}']),
        '\u{00AB}' => Some(&['\u{00BB}']),
        '\u{2018}' => Some(&['\u{2019}']),
        '\'' => Some(&['\'']),
        _ => None,
    }
}

fn find_quoted(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut i = 0;
    // Per opening quote: how far a search already went without finding a closer, and whether
    // it stopped at a line end. Later openers resume there, so every byte is scanned once.
    let mut searched: [(usize, bool); 6] = [(0, false); 6];
    let mut tick = crate::interrupt::Ticker::new();
    while let Some(m) = OPEN_QUOTE_RE.find_at(text, i) {
        tick.tick();
        let open = m.start();
        let Some(q) = text[open..].chars().next() else {
            break;
        };
        let inner = open + q.len_utf8();
        i = inner;
        let prev = text[..open].chars().next_back();
        if prev.is_some_and(|p| p.is_alphanumeric()) {
            continue;
        }
        let Some(closers) = closing_for(q) else {
            continue;
        };
        let kind = ['"', '\u{201C}', '\u{201E}', '\u{00AB}', '\u{2018}', '\'']
            .iter()
            .position(|&o| o == q)
            .unwrap_or(0);
        let (seen_to, at_newline) = searched[kind];
        if at_newline && inner <= seen_to {
            continue;
        }
        let from = inner.max(seen_to);
        let mut limit = text.len().min(inner + QUOTE_WINDOW);
        // The window may end inside a character; resume positions must be on boundaries.
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        let mut close = None;
        let mut stop = (limit, false);
        for (k, c) in text[from..].char_indices() {
            let k = from + k - inner;
            if inner + k >= limit {
                break;
            }
            if c == '\n' {
                stop = (inner + k, true);
                break;
            }
            if closers.contains(&c) {
                let after = text[inner + k + c.len_utf8()..].chars().next();
                let apostrophe =
                    matches!(c, '\'' | '\u{2019}') && after.is_some_and(char::is_alphabetic);
                if !apostrophe {
                    close = Some(inner + k);
                    break;
                }
            }
        }
        let Some(close) = close else {
            searched[kind] = stop;
            continue;
        };
        let end = close + text[close..].chars().next().map_or(1, char::len_utf8);
        if let Some(term) = concept_term(&text[inner..close], q) {
            out.push(Found {
                start: open,
                end,
                kind: CitationKind::Concept,
                detail: json!({ "term": term, "acronym": null }),
            });
        }
        i = end;
    }
    out
}

/// The term inside quotes, when it is a short name rather than a quotation or a sentence.
fn concept_term(inner: &str, quote: char) -> Option<String> {
    if inner.starts_with(char::is_whitespace) || inner.ends_with(char::is_whitespace) {
        return None;
    }
    let term = inner.trim_end_matches([',', ';']);
    let words = term.split_whitespace().count();
    let max_words = if quote == '\'' { 5 } else { MAX_TERM_WORDS };
    if words == 0 || words > max_words || term.chars().count() > MAX_TERM_CHARS {
        return None;
    }
    let letters = term.chars().filter(|c| c.is_alphabetic()).count();
    if letters < 3
        || letters * 2 < term.chars().count()
        || term.ends_with(['.', '!', '?', ':', '\u{2026}'])
    {
        return None;
    }
    if term.starts_with(['\'', '"', '\u{2018}', '\u{201C}']) || is_date(term) {
        return None;
    }
    if term.contains("://") || term.contains("www.") || term.contains(['"', '\u{201C}', '\u{201D}'])
    {
        return None;
    }
    Some(term.to_string())
}

/// `September 2018`, `12 May 2020`: a date in quotes is not a concept.
fn is_date(term: &str) -> bool {
    let lower = term.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    words.iter().any(|w| lexicon::is_month(w))
        && words
            .iter()
            .any(|w| w.chars().all(|c| c.is_ascii_digit() || c == ','))
}

/// Words a long form never starts with (the match ran too far back: `in which … (IDPR)`).
const NOT_LONG_FORM_START: &[&str] = &[
    "in", "which", "the", "a", "an", "of", "and", "or", "with", "for", "to", "by", "on", "at",
    "as", "is", "are", "was", "were", "that", "this", "these", "from", "using", "use", "we", "our",
    "its", "their",
];

/// A short form: 2–10 characters, starts with a letter, at least two capitals (`EFE`, `fMRI`,
/// `HDAC8i`), no spaces.
fn is_short_form(s: &str) -> bool {
    let n = s.chars().count();
    (2..=10).contains(&n)
        && s.starts_with(char::is_alphabetic)
        && s.chars().all(|c| c.is_alphanumeric() || c == '-')
        && s.chars().filter(|c| c.is_uppercase()).count() >= 2
}

/// Schwartz–Hearst: the shortest end of `long` whose letters spell `short` in order, the first
/// letter of `short` starting a word. Returns the byte offset where the long form starts.
fn match_long_form(short: &str, long: &str) -> Option<usize> {
    let s: Vec<char> = short.chars().flat_map(char::to_lowercase).collect();
    let l: Vec<(usize, char)> = long
        .char_indices()
        .flat_map(|(i, c)| c.to_lowercase().map(move |d| (i, d)))
        .collect();
    let mut si = s.len() as isize - 1;
    let mut li = l.len() as isize - 1;
    while si >= 0 {
        let c = s[si as usize];
        if !c.is_alphanumeric() {
            si -= 1;
            continue;
        }
        while li >= 0
            && (l[li as usize].1 != c
                || (si == 0 && li > 0 && l[(li - 1) as usize].1.is_alphanumeric()))
        {
            li -= 1;
        }
        if li < 0 {
            return None;
        }
        li -= 1;
        si -= 1;
    }
    let at = l[(li + 1) as usize].0;
    let word_start = long[..at].rfind(char::is_whitespace).map_or(0, |w| {
        w + long[w..].chars().next().map_or(1, char::len_utf8)
    });
    Some(word_start)
}

/// The largest char boundary at or below `i`.
fn floor_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn first_lower(s: &str) -> Option<char> {
    s.chars().next().and_then(|c| c.to_lowercase().next())
}

fn find_acronyms(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut prev_open = 0;
    let mut tick = crate::interrupt::Ticker::new();
    for (open, _) in text.match_indices('(') {
        tick.tick();
        let floor = prev_open;
        prev_open = open + 1;
        let window_end = floor_boundary(text, text.len().min(open + 200));
        let Some(close_off) = text[open + 1..window_end].find([')', '(', '\n']) else {
            continue;
        };
        let close = open + 1 + close_off;
        if text.as_bytes()[close] != b')' {
            continue;
        }
        let inner = text[open + 1..close].trim();
        let look_from = floor_boundary(text, open.saturating_sub(300)).max(floor);
        let before = text[look_from..open].trim_end();
        if let Some(f) = long_form_before(text, look_from, before, inner, close) {
            out.push(f);
            continue;
        }
        if let Some(f) = long_form_inside(look_from, before, inner, close) {
            out.push(f);
        }
    }
    out
}

/// `expected free energy (EFE)`: the long form ends right before the bracket.
fn long_form_before(
    text: &str,
    look_from: usize,
    before: &str,
    inner: &str,
    close: usize,
) -> Option<Found> {
    if !is_short_form(inner) {
        return None;
    }
    let n = inner.chars().count();
    let words_max = (n + 5).min(n * 2);
    let sentence_start = before
        .rfind([
            '.', ';', ':', '(', ')', '[', ']', '"', '\u{201C}', '\u{201D}', '\n',
        ])
        .map_or(0, |p| {
            p + before[p..].chars().next().map_or(1, char::len_utf8)
        });
    let candidate = &before[sentence_start..];
    let words: Vec<usize> = candidate
        .split_whitespace()
        .map(|w| w.as_ptr() as usize - candidate.as_ptr() as usize)
        .collect();
    let first = *words.get(words.len().checked_sub(words_max.min(words.len()))?)?;
    let window = &candidate[first..];
    let ls = match_long_form(inner, window)?;
    let long = &window[ls..];
    let first_word = long.split_whitespace().next().unwrap_or("").to_lowercase();
    let ok = long.chars().count() > n
        && !long.contains(inner)
        && long.split_whitespace().count() >= 2
        && !NOT_LONG_FORM_START.contains(&first_word.as_str());
    let start = look_from + sentence_start + first + ls;
    debug_assert!(text.is_char_boundary(start));
    ok.then(|| Found {
        start,
        end: close + 1,
        kind: CitationKind::Concept,
        detail: json!({ "term": long, "acronym": inner }),
    })
}

/// `TOTE (Test, Operate, Test, Exit)`: the short form right before the bracket, the long form inside.
fn long_form_inside(look_from: usize, before: &str, inner: &str, close: usize) -> Option<Found> {
    let sf_start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map_or(0, |p| {
            p + before[p..].chars().next().map_or(1, char::len_utf8)
        });
    let sf = &before[sf_start..];
    if !is_short_form(sf) {
        return None;
    }
    let n = sf.chars().count();
    let words = inner.split_whitespace().count();
    if words < 2 || words > (n + 5).min(n * 2) || first_lower(inner) != first_lower(sf) {
        return None;
    }
    (match_long_form(sf, inner)? == 0).then(|| Found {
        start: look_from + sf_start,
        end: close + 1,
        kind: CitationKind::Concept,
        detail: json!({ "term": inner, "acronym": sf }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<(String, String)> {
        find_concepts(text)
            .iter()
            .map(|f| {
                (
                    text[f.start..f.end].to_string(),
                    f.detail["term"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn quoted_terms() {
        let t =
            terms("the \u{201C}Bayesian brain hypothesis\u{201D} and \"predictive coding\" are");
        assert_eq!(t[0].1, "Bayesian brain hypothesis");
        assert_eq!(t[1].1, "predictive coding");
        assert!(terms(
            "he said \"This is a full sentence that goes on and on for a long while.\" ok"
        )
        .is_empty());
        assert!(terms("it's the students' work and don't").is_empty());
    }

    #[test]
    fn acronym_definitions() {
        let t = terms("we minimise expected free energy (EFE) here");
        assert_eq!(
            t,
            vec![(
                "expected free energy (EFE)".to_string(),
                "expected free energy".to_string()
            )]
        );
        let t = terms("the TOTE (Test, Operate, Test, Exit) unit");
        assert_eq!(
            t,
            vec![(
                "TOTE (Test, Operate, Test, Exit)".to_string(),
                "Test, Operate, Test, Exit".to_string()
            )]
        );
        assert!(terms("patients (n = 12) and (Smith, 2001) and the data (DNA)").is_empty());
    }
}

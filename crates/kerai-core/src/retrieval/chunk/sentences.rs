//! A rule-based sentence splitter for English-like prose.
//!
//! A sentence ends at `.`, `!`, `?` or `…` (optionally followed by closing quotes or brackets)
//! when whitespace follows and the next word does not start with a lower-case letter; and at
//! every blank line. A full stop does not end a sentence after a known abbreviation ("e.g.",
//! "Dr.", "et al.", "Fig."), an initial ("J. R. Tolkien"), a list number at the start of a
//! line ("1. "), a month abbreviation or "No." before a number. Decimals, URLs and e-mail
//! addresses never have whitespace after their dots, so they are never cut.

use std::ops::Range;

use crate::lexicon;

/// Abbreviations (lower case, without the final dot) after which a full stop never ends a
/// sentence, because a name or a word always follows them; besides the shared
/// [`lexicon::ABBREVIATIONS`] ("Dr.", "e.g.", "Fig.").
const ALWAYS_ABBREV: &[&str] = &[
    "mx", "col", "lt", "capt", "rev", "hon", "sgt", "gov", "sen", "rep", "pres", "viz", "eq",
    "eqs", "vols", "resp", "dept", "univ", "assoc", "est", "ref", "refs", "sec", "ch", "tab", "op",
    "cit", "ibid",
];

/// Abbreviations that do not end a sentence when a number follows ("No. 5", "Sept. 2024"),
/// besides the month abbreviations of [`lexicon::MONTH_ABBREVIATIONS`].
const BEFORE_NUMBER: &[&str] = &["no", "nos", "nr", "p", "art", "ver", "v"];

/// The byte ranges of the sentences of `text`, trimmed, in order, never empty.
pub fn sentence_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for cut in boundaries(text) {
        push_trimmed(text, start..cut, &mut out);
        start = cut;
    }
    push_trimmed(text, start..text.len(), &mut out);
    out
}

/// The sentences of `text` as string slices.
pub fn sentences(text: &str) -> Vec<&str> {
    sentence_ranges(text)
        .into_iter()
        .map(|r| &text[r])
        .collect()
}

fn push_trimmed(text: &str, r: Range<usize>, out: &mut Vec<Range<usize>>) {
    let s = &text[r.clone()];
    let lead = s.len() - s.trim_start().len();
    let trail = s.len() - s.trim_end().len();
    if lead + trail < s.len() {
        out.push(r.start + lead..r.end - trail);
    }
}

/// Byte offsets where a new sentence may start (just after the terminal punctuation).
fn boundaries(text: &str) -> Vec<usize> {
    let mut tick = crate::interrupt::Ticker::new();
    // Collected with cancellation points: tens of megabytes take a noticeable time.
    let chars: Vec<(usize, char)> = text.char_indices().inspect(|_| tick.tick()).collect();
    let mut cuts = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        tick.tick();
        let (pos, c) = chars[i];
        if c == '\n' {
            // A blank line always ends a sentence.
            let mut j = i + 1;
            while j < chars.len() && chars[j].1 != '\n' && chars[j].1.is_whitespace() {
                j += 1;
            }
            if j < chars.len() && chars[j].1 == '\n' {
                cuts.push(pos);
                i = j + 1;
                continue;
            }
        }
        if !matches!(c, '.' | '!' | '?' | '…') {
            i += 1;
            continue;
        }
        // Run of terminal punctuation and closing marks: "?!", "...", ".)", ".\"".
        let mut end = i + 1;
        while end < chars.len() && matches!(chars[end].1, '.' | '!' | '?' | '…') {
            end += 1;
        }
        while end < chars.len() && is_closing(chars[end].1) {
            end += 1;
        }
        let cut = chars.get(end).map_or(text.len(), |&(p, _)| p);
        if end < chars.len() && !chars[end].1.is_whitespace() {
            i = end;
            continue;
        }
        let next = chars[end..]
            .iter()
            .map(|&(_, ch)| ch)
            .find(|ch| !ch.is_whitespace());
        let Some(next) = next else {
            break; // punctuation at the end of the text
        };
        if next.is_lowercase() {
            i = end;
            continue;
        }
        let single_stop = c == '.' && (end == i + 1 || is_closing_run(&chars[i + 1..end]));
        if single_stop && !ends_sentence_at_stop(text, pos, next) {
            i = end;
            continue;
        }
        cuts.push(cut);
        i = end;
    }
    cuts
}

fn is_closing(c: char) -> bool {
    matches!(c, '"' | '\'' | ')' | ']' | '}' | '”' | '’' | '»')
}

fn is_closing_run(chars: &[(usize, char)]) -> bool {
    chars.iter().all(|&(_, c)| is_closing(c))
}

/// Whether the full stop at byte `dot` ends a sentence, given the first character after it.
fn ends_sentence_at_stop(text: &str, dot: usize, next: char) -> bool {
    let before = &text[..dot];
    // The word just before the dot, with inner dots ("e.g", "i.e").
    let word_start = before
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '.'))
        .map_or(0, |(p, c)| p + c.len_utf8());
    let word = &before[word_start..];
    if word.is_empty() {
        return true;
    }
    let lower = word.to_lowercase();
    if lexicon::is_abbreviation(&lower) || ALWAYS_ABBREV.contains(&lower.as_str()) {
        return false;
    }
    if next.is_ascii_digit()
        && (lexicon::is_month_abbreviation(&lower) || BEFORE_NUMBER.contains(&lower.as_str()))
    {
        return false;
    }
    let first = word.chars().next().unwrap_or(' ');
    // An initial: one capital letter ("J. Smith"), or dotted initials ("U.S", "J.R.R").
    if first.is_uppercase() && word.chars().count() == 1 {
        return false;
    }
    if word.contains('.')
        && word
            .split('.')
            .all(|p| p.chars().count() == 1 && p.chars().all(char::is_uppercase))
    {
        return false;
    }
    // A list number at the start of a line: "1. First step".
    if word.chars().all(|c| c.is_ascii_digit()) && word.len() <= 3 {
        let line_start = before[..word_start].rfind('\n').map_or(0, |p| p + 1);
        if before[line_start..word_start].trim().is_empty() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_sentences() {
        assert_eq!(
            sentences("The lab opened. It has ten staff! Does it work? Yes."),
            vec![
                "The lab opened.",
                "It has ten staff!",
                "Does it work?",
                "Yes."
            ]
        );
    }

    #[test]
    fn abbreviations_do_not_end_sentences() {
        let s = sentences(
            "Dr. Amara Okafor leads it, e.g. the soil work. Smith et al. reported 3.5 times more. \
             Prof. J. R. Reed agreed (see Fig. 2). It cost approx. 40 pounds.",
        );
        assert_eq!(
            s,
            vec![
                "Dr. Amara Okafor leads it, e.g. the soil work.",
                "Smith et al. reported 3.5 times more.",
                "Prof. J. R. Reed agreed (see Fig. 2).",
                "It cost approx. 40 pounds."
            ]
        );
    }

    #[test]
    fn decimals_urls_and_emails_stay_whole() {
        let s = sentences(
            "Growth was 4.2 per cent. Write to info@northwind.example or see https://northwind.example/a.b. Done.",
        );
        assert_eq!(
            s,
            vec![
                "Growth was 4.2 per cent.",
                "Write to info@northwind.example or see https://northwind.example/a.b.",
                "Done."
            ]
        );
    }

    #[test]
    fn quotes_brackets_and_blank_lines() {
        let s = sentences("He said \"Stop.\" Then he left. (It rained.) Next\n\nline without stop");
        assert_eq!(
            s,
            vec![
                "He said \"Stop.\"",
                "Then he left.",
                "(It rained.)",
                "Next",
                "line without stop"
            ]
        );
    }

    #[test]
    fn lower_case_after_a_stop_continues_the_sentence() {
        assert_eq!(
            sentences("It is 5 p.m. now. The U.S. team won in Sept. 2024. No. 5 came."),
            vec![
                "It is 5 p.m. now.",
                "The U.S. team won in Sept. 2024.",
                "No. 5 came."
            ]
        );
    }

    #[test]
    fn list_numbers_and_ellipses() {
        assert_eq!(
            sentences("1. Mix the soil.\n2. Water it... Then wait."),
            vec!["1. Mix the soil.", "2. Water it...", "Then wait."]
        );
    }

    #[test]
    fn ranges_index_the_text() {
        let t = "  One.  Two.  ";
        let r = sentence_ranges(t);
        assert_eq!(r, vec![2..6, 8..12]);
        assert!(sentence_ranges("   ").is_empty());
    }
}

//! Patterns that start (and may end) at a word boundary, matched on the regex engine's fast
//! path on any text.
//!
//! A Unicode `\b` makes the regex crate leave its lazy DFA for its NFA as soon as the text holds
//! a non-ASCII character (ten times slower or worse), and an ASCII `\b` does not see a word
//! start before a capital such as `Ö` or `Ł`. So a pattern's leading and trailing `\b` are
//! checked here, with the Unicode meaning of a word character, and the pattern runs without
//! them. Word boundaries inside the pattern stand next to ASCII words and become ASCII ones.
//! One difference remains: a match that would end inside a word is dropped, where the Unicode
//! pattern could fall back to a shorter match ("Jean" of "Jean Dupont_x").

use regex::{Captures, Match, Regex};

/// Cache of each pattern's lazy DFA. The regex crate's default (2 MiB) is too small for the
/// long alternations of names and places on text with many non-ASCII letters: the DFA gives up
/// and the NFA runs, several times slower. With this much, the fuzz corpus of `facts` runs
/// about 2.5 times faster; the cache grows only as far as a text needs.
const DFA_CACHE: usize = 4 << 20;

/// A pattern compiled without its outer `\b`, which are checked around each match.
pub(super) struct Bounded {
    re: Regex,
    /// The pattern began with `\b`: a match starts a word.
    start: bool,
    /// The pattern ended with `\b` (or `(?:\b|$)`): a match ends a word.
    end: bool,
}

fn is_word(c: char) -> bool {
    regex_syntax::is_word_character(c)
}

impl Bounded {
    pub(super) fn new(pattern: &str) -> Self {
        let (start, rest) = match pattern.strip_prefix(r"\b") {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        let (end, rest) = if let Some(r) = rest.strip_suffix(r"(?:\b|$)") {
            (true, r)
        } else if let Some(r) = rest.strip_suffix(r"\b") {
            (true, r)
        } else {
            (false, rest)
        };
        let re = regex::RegexBuilder::new(&rest.replace(r"\b", r"(?-u:\b)"))
            .dfa_size_limit(DFA_CACHE)
            .build()
            .expect("name pattern compiles");
        Bounded { re, start, end }
    }

    /// Whether `start..end` of `text` begins and ends where the pattern's `\b` require.
    fn bounded(&self, text: &str, start: usize, end: usize) -> bool {
        (!self.start || !text[..start].chars().next_back().is_some_and(is_word))
            && (!self.end || !text[end..].chars().next().is_some_and(is_word))
    }

    /// Where to search again after a match at `start..end` that does not stand at word
    /// boundaries: past the word the match started in (a match must start a word, and that
    /// word starts before it), or past the match's first character.
    fn resume(text: &str, start: usize, end: usize) -> usize {
        let first = text[start..]
            .chars()
            .next()
            .map_or(start + 1, |c| start + c.len_utf8());
        let word_end = text[start..]
            .char_indices()
            .find(|&(_, c)| !is_word(c))
            .map_or(text.len(), |(i, _)| start + i);
        word_end.max(first).min(end.max(first))
    }

    /// The matches of `search` (a regex's `find_at` or `captures_at`) at word boundaries,
    /// searched with cancellation points ([`crate::interrupt::search_from`]).
    fn matches<'t, T: 't>(
        &'t self,
        text: &'t str,
        search: impl Fn(&'t Regex, &'t str, usize) -> Option<T> + Copy + 't,
        span: impl Fn(&T) -> (usize, usize) + Copy + 't,
    ) -> impl Iterator<Item = T> + 't {
        let mut pos = 0;
        std::iter::from_fn(move || {
            while pos <= text.len() {
                let found = crate::interrupt::search_from(
                    text,
                    pos,
                    |hay, at| search(&self.re, hay, at),
                    span,
                )?;
                let (s, e) = span(&found);
                if self.bounded(text, s, e) {
                    pos = if e > s {
                        e
                    } else {
                        Self::resume(text, s, s + 1)
                    };
                    return Some(found);
                }
                pos = Self::resume(text, s, e);
            }
            None
        })
    }

    /// Like [`Regex::find_iter`] with the pattern's outer `\b` in force.
    pub(super) fn find_iter<'t>(&'t self, text: &'t str) -> impl Iterator<Item = Match<'t>> + 't {
        self.matches(
            text,
            |re, hay, at| re.find_at(hay, at),
            |m| (m.start(), m.end()),
        )
    }

    /// Like [`Regex::captures_iter`] with the pattern's outer `\b` in force.
    pub(super) fn captures_iter<'t>(
        &'t self,
        text: &'t str,
    ) -> impl Iterator<Item = Captures<'t>> + 't {
        self.matches(
            text,
            |re, hay, at| re.captures_at(hay, at),
            |c| {
                let m = c.get(0).expect("group 0");
                (m.start(), m.end())
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Bounded;

    fn all(p: &str, text: &str) -> Vec<String> {
        Bounded::new(p)
            .find_iter(text)
            .map(|m| m.as_str().to_string())
            .collect()
    }

    #[test]
    fn outer_boundaries_have_their_unicode_meaning() {
        let name = r"\b\p{Lu}\p{Ll}+\b";
        assert_eq!(all(name, "Öberg met Łukasz"), ["Öberg", "Łukasz"]);
        // No word starts inside a word, ASCII or not.
        assert_eq!(all(name, "éOberg xŁukasz"), Vec::<String>::new());
        assert_eq!(all(name, "Oberg3 Łukasz"), ["Łukasz"]);
        assert_eq!(
            all(r"\b(?:Bogotá|Zürich)(?:\b|$)", "to Bogotá, Zürich"),
            ["Bogotá", "Zürich"]
        );
        assert_eq!(
            all(r"\b(?:Bogotá)(?:\b|$)", "Bogotáx"),
            Vec::<String>::new()
        );
        // A rejected match mid-word does not hide the next one.
        assert_eq!(
            all(r"\bDr\. \p{Lu}\p{Ll}+", "xDr. Aaa Dr. Bbb"),
            ["Dr. Bbb"]
        );
    }

    #[test]
    fn equals_the_unicode_pattern_on_mixed_text() {
        let p = r"\b\p{Lu}[\p{Ll}\p{Lu}]*\p{Ll}(?:[ \t]+\p{Lu}\p{Ll}+){0,2}\b";
        let text = "Über Ærø and Straße, Śmigły-Rydz mét Jean Dupont Émile Zola 3Abc Abc3 ÖÖa";
        let slow: Vec<String> = regex::Regex::new(p)
            .unwrap()
            .find_iter(text)
            .map(|m| m.as_str().to_string())
            .collect();
        assert_eq!(all(p, text), slow);
    }
}

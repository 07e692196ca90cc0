//! Regex search with cancellation points.
//!
//! One `find_iter` over a long text that holds no match runs to the end without returning:
//! a quarter of a second on 30 MB for the entity patterns, longer on bigger input. These
//! searches look at a window of [`WINDOW`] bytes at a time, with a check before each window
//! and each match. They find what the search over the whole text finds, for every match
//! shorter than [`REACH`]; a longer match (no pattern of kerai's comes near) may be cut short.

use regex::{Captures, Match, Regex};

/// Bytes of text one search looks at before the next cancellation point.
const WINDOW: usize = 256 << 10;
/// Matches up to this long are found exactly as a search of the whole text finds them.
const REACH: usize = 16 << 10;

/// The first char boundary of `text` at or after `at` (or its end).
fn boundary_after(text: &str, at: usize) -> usize {
    (at..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len())
}

/// The last char boundary of `text` at or before `at`.
fn boundary_before(text: &str, at: usize) -> usize {
    (0..=at.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// The first match of `search` (a regex's `find_at` or `captures_at`, given a prefix of
/// `text` and a start) at or after `at`, looking at one window at a time; `span` gives a
/// match's byte range. A match that ends near a window's end is searched for again from its
/// start, with a full window ahead, so that text past the window cannot change it.
pub fn search_from<'t, T>(
    text: &'t str,
    mut at: usize,
    search: impl Fn(&'t str, usize) -> Option<T>,
    span: impl Fn(&T) -> (usize, usize),
) -> Option<T> {
    loop {
        super::check();
        let cut = boundary_after(text, at.saturating_add(WINDOW));
        match search(&text[..cut], at) {
            Some(found) => {
                let (start, end) = span(&found);
                if cut == text.len() || end + REACH <= cut || start == at {
                    return Some(found);
                }
                at = start;
            }
            None if cut == text.len() => return None,
            None => at = boundary_before(text, cut - REACH),
        }
    }
}

/// Where the next search starts after a match at `start..end`: its end, or past the next
/// character after an empty match.
fn after(text: &str, start: usize, end: usize) -> usize {
    if end > start {
        end
    } else {
        text[end..]
            .chars()
            .next()
            .map_or(text.len() + 1, |c| end + c.len_utf8())
    }
}

/// [`Regex::find_iter`] with cancellation points (see the module).
pub fn find_iter<'t>(re: &'t Regex, text: &'t str) -> impl Iterator<Item = Match<'t>> + 't {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at > text.len() {
            return None;
        }
        let m = search_from(
            text,
            at,
            |hay, at| re.find_at(hay, at),
            |m| (m.start(), m.end()),
        )?;
        at = after(text, m.start(), m.end());
        Some(m)
    })
}

/// [`Regex::captures_iter`] with cancellation points (see the module).
pub fn captures_iter<'t>(re: &'t Regex, text: &'t str) -> impl Iterator<Item = Captures<'t>> + 't {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at > text.len() {
            return None;
        }
        let c = search_from(text, at, |hay, at| re.captures_at(hay, at), whole)?;
        let (start, end) = whole(&c);
        at = after(text, start, end);
        Some(c)
    })
}

fn whole(c: &Captures) -> (usize, usize) {
    let m = c.get(0).expect("group 0 is the match");
    (m.start(), m.end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(pattern: &str, text: &str) {
        let re = Regex::new(pattern).unwrap();
        let want: Vec<(usize, usize)> = re.find_iter(text).map(|m| (m.start(), m.end())).collect();
        let got: Vec<(usize, usize)> = find_iter(&re, text).map(|m| (m.start(), m.end())).collect();
        assert_eq!(got, want, "find_iter of {pattern}");
        let caps: Vec<(usize, usize)> = captures_iter(&re, text).map(|c| whole(&c)).collect();
        assert_eq!(caps, want, "captures_iter of {pattern}");
    }

    #[test]
    fn matches_are_those_of_the_whole_text_across_windows() {
        // Several windows of text, matches straddling every window edge, multi-byte letters
        // next to the edges, word boundaries and a match longer than a window's margin.
        let unit = "Ünïcode Smith 2020 x@y.org 12345 ";
        let mut text = unit.repeat(3 * WINDOW / unit.len());
        text.push_str(&"7".repeat(REACH - 1));
        text.push_str(" Jones 1999");
        for pattern in [
            r"\b\d+\b",
            r"\p{Lu}\p{Ll}+",
            r"[A-Za-z]+@[a-z]+\.[a-z]+",
            r"(?:Smith|Jones) (\d{4})",
            r"\d{4}$",
            r"Jones",
            r"nowhere",
        ] {
            both(pattern, &text);
        }
    }

    #[test]
    fn a_short_text_is_one_window() {
        both(r"\w+", "été à Zürich");
        both(r"x*", "abc");
        both(r"a", "");
    }
}

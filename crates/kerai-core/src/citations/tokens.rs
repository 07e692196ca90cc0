//! A small tokenizer for callout parsing: words (letters with inner apostrophes and hyphens),
//! numbers (digits with a letter suffix, as in `2012a`) and single punctuation marks.
//! Offsets are absolute byte offsets into the text.

use crate::keys::is_mark;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokKind {
    Word,
    Num,
    Punct,
}

/// One token.
#[derive(Debug, Clone, Copy)]
pub struct Tok<'a> {
    pub kind: TokKind,
    pub start: usize,
    pub end: usize,
    pub text: &'a str,
}

impl Tok<'_> {
    /// True for the punctuation mark `c`.
    pub fn is_punct(&self, c: char) -> bool {
        self.kind == TokKind::Punct && self.text.starts_with(c)
    }

    /// True for a word equal to `w`, ignoring ASCII case.
    pub fn is_word(&self, w: &str) -> bool {
        self.kind == TokKind::Word && self.text.eq_ignore_ascii_case(w)
    }
}

/// Characters that may join two parts of a word: apostrophes, hyphens, and the spacing accents
/// PDF text leaves inside names (`Arbel´aez`).
fn is_joiner(c: char) -> bool {
    matches!(
        c,
        '\'' | '\u{2019}'
            | '-'
            | '\u{2010}'
            | '\u{2011}'
            | '\u{00B4}'
            | '\u{00A8}'
            | '\u{02C6}'
            | '\u{02DC}'
            | '\u{02D8}'
            | '\u{02C7}'
    )
}

/// Tokens of `text[from..to]` (both char boundaries).
pub fn tokenize(text: &str, from: usize, to: usize) -> Vec<Tok<'_>> {
    let s = &text[from..to];
    let mut out = Vec::new();
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c.is_whitespace() || is_mark(c) {
            continue;
        }
        let mut end = i + c.len_utf8();
        let kind = if c.is_alphabetic() {
            while let Some(&(j, d)) = it.peek() {
                // U+21B5 stands for a lost ligature (`a↵ects`) in PDF text.
                let letter = d.is_alphabetic() || is_mark(d) || d == '\u{21B5}';
                let joins = is_joiner(d) && s[j + d.len_utf8()..].starts_with(char::is_alphabetic);
                if !(letter || joins) {
                    break;
                }
                end = j + d.len_utf8();
                it.next();
            }
            TokKind::Word
        } else if c.is_ascii_digit() {
            while let Some(&(j, d)) = it.peek() {
                if d.is_ascii_digit() {
                    end = j + 1;
                    it.next();
                } else {
                    break;
                }
            }
            // A one- or two-letter suffix glued to the number (`2012a`), not a longer word.
            let rest = &s[end..];
            let letters = rest.chars().take_while(|c| c.is_ascii_lowercase()).count();
            if (1..=2).contains(&letters) && !rest[letters..].starts_with(char::is_alphabetic) {
                for _ in 0..letters {
                    it.next();
                }
                end += letters;
            }
            TokKind::Num
        } else {
            TokKind::Punct
        };
        out.push(Tok {
            kind,
            start: from + i,
            end: from + end,
            text: &s[i..end],
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_numbers_and_marks() {
        let text = "(O'Brain & Gre-goretti, 2012a,b; Sedláková)";
        let toks = tokenize(text, 0, text.len());
        let parts: Vec<_> = toks.iter().map(|t| t.text).collect();
        assert_eq!(
            parts,
            vec![
                "(",
                "O'Brain",
                "&",
                "Gre-goretti",
                ",",
                "2012a",
                ",",
                "b",
                ";",
                "Sedláková",
                ")"
            ]
        );
        assert_eq!(toks[5].kind, TokKind::Num);
        let toks = tokenize("2012abc", 0, 7);
        assert_eq!(toks[0].text, "2012");
    }
}

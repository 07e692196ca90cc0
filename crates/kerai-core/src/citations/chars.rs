//! Character classes the link scanner needs, defined as linkify-it defines them:
//! `Z` (space separators), `P` (Unicode punctuation), `Cc` (controls) and the text
//! separators `<`, `>` and the full-width vertical line.

use std::sync::LazyLock;

/// Sorted ranges of General_Category=Punctuation outside ASCII, read from regex-syntax's tables.
static NON_ASCII_PUNCT: LazyLock<Vec<(char, char)>> = LazyLock::new(|| {
    use regex_syntax::hir::{Class, HirKind};
    match regex_syntax::Parser::new().parse(r"\p{P}") {
        Ok(hir) => match hir.kind() {
            HirKind::Class(Class::Unicode(cls)) => cls
                .ranges()
                .iter()
                .map(|r| (r.start(), r.end()))
                .filter(|&(_, e)| !e.is_ascii())
                .collect(),
            _ => Vec::new(),
        },
        Err(_) => Vec::new(),
    }
});

/// Unicode punctuation (General_Category P*). ASCII `$+<=>^`|~` are symbols, not punctuation.
pub fn is_punct(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation()
            && !matches!(c, '$' | '+' | '<' | '=' | '>' | '^' | '`' | '|' | '~');
    }
    let table = &*NON_ASCII_PUNCT;
    let idx = table.partition_point(|&(_, e)| e < c);
    idx < table.len() && table[idx].0 <= c
}

/// Space separators (Z), as uc.micro lists them.
pub fn is_space_sep(c: char) -> bool {
    matches!(
        c,
        ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// Control characters (Cc).
pub fn is_control(c: char) -> bool {
    c <= '\u{1F}' || ('\u{7F}'..='\u{9F}').contains(&c)
}

/// Z or Cc: characters that always end a link.
pub fn is_zcc(c: char) -> bool {
    is_space_sep(c) || is_control(c)
}

/// Z, P or Cc.
pub fn is_zpcc(c: char) -> bool {
    is_zcc(c) || is_punct(c)
}

/// linkify-it's text separators: `<`, `>` and the full-width vertical line.
pub fn is_text_separator(c: char) -> bool {
    matches!(c, '<' | '>' | '\u{FF5C}')
}

/// A character that may appear in a host name label.
pub fn is_pseudo_letter(c: char) -> bool {
    !is_text_separator(c) && !is_zpcc(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_follows_unicode_categories() {
        for c in [
            '.', ',', '(', '_', '-', '@', '\u{2010}', '\u{3002}', '\u{00BF}', '\u{201C}',
        ] {
            assert!(is_punct(c), "{c:?} is punctuation");
        }
        for c in ['$', '+', '|', 'a', '9', '\u{FF5C}', '\u{2795}', 'ж'] {
            assert!(!is_punct(c), "{c:?} is not punctuation");
        }
    }

    #[test]
    fn pseudo_letters_exclude_separators() {
        assert!(is_pseudo_letter('a'));
        assert!(is_pseudo_letter('\u{272A}'));
        assert!(is_pseudo_letter('$'));
        assert!(!is_pseudo_letter('-'));
        assert!(!is_pseudo_letter(' '));
        assert!(!is_pseudo_letter('>'));
        assert!(!is_pseudo_letter('\u{A0}'));
    }
}

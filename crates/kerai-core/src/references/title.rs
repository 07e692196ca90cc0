//! Where the title of a reference ends, and whether a segment is a journal abbreviation
//! rather than a title (`Phys. Rev. D 92, 034519`).

use std::sync::LazyLock;

use regex::Regex;

use crate::lexicon;

static JOURNAL_ABBREV_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?:\p{Lu}[\p{L}&]*\s*\.\s*,?\s*){1,7}(?:\p{Lu}\s*)?,?\s*\(?\p{Lu}?\d|\p{Lu}[\p{L}&]{1,8},?\s+\p{Lu}?\d+\p{Lu}?\s*[,(:]|(?:\p{Lu}[\p{L}]*\s*\.?\s*){0,3}(?:Lett|Rev|Phys|Chem|Math|Sci|Res|Soc|Ser|Proc|Astron|Astrophys|Nucl|Mater|Mech|Biol|Med|Eng|Opt|Acta|Ann|Appl|Comput|Stat|Geophys|Geol|Trans|Electr|Dev|Conf|Int|Natl|Acad|Rep|Commun|Phil|Mag|Bull|Zh|Zeit|Jpn|Eur)\s*\.)",
    )
    .unwrap_or_else(|e| unreachable!("{e}"))
});

/// Words after which a full stop does not end the title, besides the shared
/// [`lexicon::ABBREVIATIONS`]: "etc.", "no.", "Inc.", "U.S.", taxonomic "sp. nov.".
const TITLE_ABBREVIATIONS: &[&str] = &[
    "v", "eg", "ie", "etc", "no", "nos", "p", "inc", "ltd", "co", "u.s", "u.k", "sp", "spp", "var",
    "subsp", "ssp", "nov", "comb",
];

/// True when `s` opens with an abbreviated journal name and a volume, as in physics and
/// chemistry references that carry no title.
pub fn looks_like_journal(s: &str) -> bool {
    JOURNAL_ABBREV_RE.is_match(s)
}

/// Quote pairs a title may be wrapped in.
pub fn closing_quote(open: char) -> Option<&'static [char]> {
    match open {
        '"' => Some(&['"', '\u{201D}']),
        '\u{201C}' => Some(&['\u{201D}', '"', '\u{201C}']),
        '\u{201E}' => Some(&['\u{201C}', '\u{201D}', '"']),
        '\u{00AB}' => Some(&['\u{00BB}']),
        '\u{2018}' => Some(&['\u{2019}']),
        '\'' => Some(&['\'']),
        _ => None,
    }
}

/// A quoted title at `s[p..]`: `(inner start, inner end, end after the closing quote)`.
pub fn quoted(s: &str, p: usize) -> Option<(usize, usize, usize)> {
    if s[p..].starts_with("``") {
        let inner = p + 2;
        let close = s[inner..].find("''")?;
        return (close > 0).then_some((inner, inner + close, inner + close + 2));
    }
    let open = s[p..].chars().next()?;
    let closers = closing_quote(open)?;
    let inner = p + open.len_utf8();
    for (k, c) in s[inner..].char_indices() {
        if closers.contains(&c) {
            let after = s[inner + k + c.len_utf8()..].chars().next();
            if matches!(c, '\'' | '\u{2019}') && after.is_some_and(char::is_alphanumeric) {
                continue;
            }
            if k == 0 {
                return None;
            }
            return Some((inner, inner + k, inner + k + c.len_utf8()));
        }
    }
    None
}

fn previous_word(s: &str, end: usize) -> &str {
    let head = &s[..end];
    let start = head
        .rfind(|c: char| c.is_whitespace() || c == '(' || c == '[')
        .map_or(0, |i| i + 1);
    &head[start..]
}

/// Where a title that starts at `p` ends: at a full stop, `?` or `!` before the next
/// sentence, at `, ` before a capital in comma-separated styles, or before a bracketed note
/// such as `(Unpublished doctoral dissertation)`. Returns `(title end, rest start)`.
pub fn title_end(s: &str, p: usize, comma_style: bool) -> (usize, usize) {
    let bytes = s.as_bytes();
    for (off, c) in s[p..].char_indices() {
        let i = p + off;
        let next = s[i + c.len_utf8()..].chars().next();
        let after_space = s[i + c.len_utf8()..].trim_start();
        match c {
            // `<italic>Microtus montanus.</italic> Mammalian Species`: a full stop closing markup.
            '.' if s[i + 1..].starts_with("</") => {
                let tag_end = s[i + 1..].find('>').map(|k| i + 1 + k + 1);
                if let Some(e) =
                    tag_end.filter(|&e| e - i <= 12 && s[e..].starts_with(char::is_whitespace))
                {
                    return (e, e);
                }
            }
            '.' | '?' | '!' if next.is_none_or(char::is_whitespace) => {
                let keep = if c == '.' { i } else { i + 1 };
                if c == '.' {
                    let prev = previous_word(s, i);
                    let initial = prev.chars().count() == 1 && prev.chars().all(char::is_uppercase);
                    let word = prev.to_lowercase();
                    let word = word.trim_end_matches('.');
                    if initial
                        || lexicon::is_abbreviation(word)
                        || TITLE_ABBREVIATIONS.contains(&word)
                    {
                        continue;
                    }
                }
                let next_word_lower = after_space.starts_with(char::is_lowercase);
                let next_in = after_space.starts_with("in ") || after_space.starts_with("in:");
                if next_word_lower && !next_in && c == '.' {
                    continue;
                }
                return (keep, i + c.len_utf8());
            }
            ',' if next.is_some_and(char::is_whitespace) => {
                let in_next = (after_space.starts_with("in ")
                    || after_space.starts_with("In ")
                    || after_space.starts_with("in:"))
                    && after_space[3..]
                        .trim_start()
                        .starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit());
                let locator = [
                    "pp.",
                    "pp ",
                    "p. ",
                    "pages ",
                    "page ",
                    "vol.",
                    "vol ",
                    "no. ",
                    "trans.",
                    "transl.",
                    "ed.",
                    "eds.",
                    "edited by",
                    "translated by",
                ]
                .iter()
                .any(|w| after_space.starts_with(w));
                if in_next
                    || (comma_style
                        && (locator
                            || after_space.starts_with(|c: char| {
                                c.is_uppercase() || c.is_ascii_digit() || "\"“«‘(`".contains(c)
                            })))
                {
                    return (i, i + 1);
                }
            }
            '(' | '[' if i > p && bytes[i - 1] == b' ' => {
                let inner = &s[i + 1..];
                let year_only = inner.len() >= 5
                    && inner.as_bytes()[..4].iter().all(u8::is_ascii_digit)
                    && (inner[4..].starts_with(')')
                        || (inner[4..].starts_with(|c: char| c.is_ascii_lowercase())
                            && inner[5..].starts_with(')')));
                let ordinal = inner.starts_with(|c: char| c.is_ascii_digit())
                    && ["st ", "nd ", "rd ", "th "].iter().any(|o| {
                        inner
                            .trim_start_matches(|c: char| c.is_ascii_digit())
                            .starts_with(o)
                    });
                let mut body_end = inner.find([')', ']']).unwrap_or(inner.len()).min(80);
                while !inner.is_char_boundary(body_end) {
                    body_end -= 1;
                }
                let paren_body = &inner[..body_end];
                let credited = ["Trans.", "Ed.", "Eds.", "trans.", "ed.", "eds."]
                    .iter()
                    .any(|w| paren_body.contains(&format!(" {w}")));
                let body = paren_body.trim_end();
                let with_year = body.len() >= 4
                    && body.is_char_boundary(body.len() - 4)
                    && body[body.len() - 4..].bytes().all(|b| b.is_ascii_digit())
                    && body.contains(':');
                let note = year_only
                    || credited
                    || with_year
                    || ordinal
                    || c == '['
                    || [
                        "translated",
                        "Translated",
                        "trans.",
                        "edited",
                        "Edited",
                        "rev.",
                        "revised",
                        "Revised",
                        "Motion",
                        "DVD",
                        "Video",
                        "Film",
                        "Audio",
                        "CD",
                        "Computer",
                        "Software",
                        "Data set",
                        "Poster",
                    ]
                    .iter()
                    .any(|w| inner.starts_with(w))
                    || [
                        "Unpublished",
                        "unpublished",
                        "Doctoral",
                        "doctoral",
                        "Master",
                        "PhD",
                        "Ph.D",
                        "Vol",
                        "vol",
                        "pp",
                        "Ed",
                        "ed.",
                        "Eds",
                        "eds",
                        "in ",
                        "In ",
                        "Trans",
                        "trans",
                        "Abstract",
                        "abstract",
                        "Report",
                        "Technical",
                        "Thesis",
                        "thesis",
                        "Dissertation",
                        "dissertation",
                        "Paper",
                        "Working",
                        "No.",
                        "Series",
                    ]
                    .iter()
                    .any(|w| inner.starts_with(w));
                if note {
                    return (i, i);
                }
            }
            _ => {}
        }
    }
    (s.len(), s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_abbreviations() {
        for s in [
            "Phys. Rev. D 92, 034519 (2015).",
            "Nucl. Phys. B178,421 ( 1981).",
            "ApJ, 607, 200",
            "Acc. Chem. Res. 10, 265",
            "Phys .Rev .D85 ,054512",
        ] {
            assert!(looks_like_journal(s), "{s}");
        }
        for s in [
            "Using tickets to enforce serializability. IEEE",
            "The Th1/Th2 paradigm. Immunol Today 1997",
        ] {
            assert!(!looks_like_journal(s), "{s}");
        }
    }

    #[test]
    fn title_ends() {
        let s = "Using tickets to enforce the serializability of multidatabase transactions. IEEE Trans.";
        assert_eq!(
            &s[..title_end(s, 0, false).0],
            "Using tickets to enforce the serializability of multidatabase transactions"
        );
        let s = "Is it real? Journal 5";
        assert_eq!(&s[..title_end(s, 0, false).0], "Is it real?");
        let s = "The Information Visualizer, an Information Workspace, Proceedings of CHI";
        assert_eq!(
            &s[..title_end(s, 0, true).0],
            "The Information Visualizer, an Information Workspace"
        );
        let s = "Towards Optimal Rhythm (Unpublished doctoral dissertation). Stanford";
        assert_eq!(&s[..title_end(s, 0, false).0], "Towards Optimal Rhythm ");
    }
}

//! Diacritic folding and the keys references are matched by: `author_year_key` (dedup of
//! author-year citations across documents) and `normalize_title` (trigram matching). Used by
//! citation detection and reference parsing alike, so it belongs to neither.

use unicode_normalization::UnicodeNormalization;

/// Combining marks that may follow a letter inside a word (decomposed accents).
pub fn is_mark(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}' | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// Letters that do not decompose into base + accent but have a usual ASCII spelling.
fn fold_special(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' => "ss",
        'æ' => "ae",
        'Æ' => "AE",
        'œ' => "oe",
        'Œ' => "OE",
        'ø' => "o",
        'Ø' => "O",
        'ł' => "l",
        'Ł' => "L",
        'đ' => "d",
        'Đ' => "D",
        'ð' => "d",
        'Ð' => "D",
        'þ' => "th",
        'Þ' => "Th",
        'ı' => "i",
        'ħ' => "h",
        'Ħ' => "H",
        '\u{2019}' | '\u{2018}' | '\u{02BC}' => "'",
        _ => return None,
    })
}

/// `text` without diacritics: decomposed (NFKD), combining marks dropped, `ß`/`æ`/`ø`/`ł`…
/// spelled out. Other scripts are kept as they are.
pub fn fold_diacritics(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.nfkd() {
        if is_mark(c) {
            continue;
        }
        match fold_special(c) {
            Some(s) => out.push_str(s),
            None => out.push(c),
        }
    }
    out
}

/// The key an author-year citation is deduplicated by, across documents:
/// `<first author's family name>|<year>|<suffix>`. The family name is folded (no diacritics),
/// lowercased and stripped of everything but letters and digits (`Da Costa` → `dacosta`,
/// `O'Brain` → `obrain`, `Gre-goretti` → `gregoretti`); a missing year (`in press`, `n.d.`)
/// is `nd`; the suffix is the lowercase letter or empty. `("Bell", 2002, "a")` → `bell|2002|a`.
pub fn author_year_key(family: &str, year: Option<i32>, suffix: Option<&str>) -> String {
    let fam: String = fold_diacritics(family)
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect();
    let year = year.map_or_else(|| "nd".to_string(), |y| y.to_string());
    format!("{fam}|{year}|{}", suffix.unwrap_or("").to_lowercase())
}

/// A title for fuzzy matching: folded, lowercased, punctuation removed (hyphens become
/// spaces), spaces collapsed. `"Être et Temps: A Study"` → `etre et temps a study`.
pub fn normalize_title(title: &str) -> String {
    let folded = fold_diacritics(&strip_tags(title)).to_lowercase();
    let mut out = String::with_capacity(folded.len());
    let mut space = false;
    for c in folded.chars() {
        if c.is_alphanumeric() {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        } else if c.is_whitespace()
            || c == '-'
            || c == '/'
            || c == '\u{2013}'
            || c == '\u{2014}'
            || c == '_'
        {
            space = true;
        } else if c == '\'' {
            // apostrophes join: `l'homme` → `lhomme`
        } else {
            space = true;
        }
    }
    out
}

/// `text` without simple markup tags such as `<italic>` and `</sup>`.
fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let tail = &rest[lt + 1..];
        let name = tail.strip_prefix('/').unwrap_or(tail);
        let n = name.bytes().take_while(u8::is_ascii_alphanumeric).count();
        let tag_len = tail.len() - name.len() + n;
        if n > 0 && n <= 12 && tail[tag_len..].starts_with('>') {
            out.push(' ');
            rest = &tail[tag_len + 1..];
        } else {
            out.push('<');
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_fold_names() {
        assert_eq!(
            author_year_key("Bell", Some(2002), Some("a")),
            "bell|2002|a"
        );
        assert_eq!(
            author_year_key("Da Costa", Some(2020), None),
            "dacosta|2020|"
        );
        assert_eq!(
            author_year_key("Bębenek", Some(2016), None),
            "bebenek|2016|"
        );
        assert_eq!(author_year_key("Grönroos", None, None), "gronroos|nd|");
        assert_eq!(
            author_year_key("Øster-Łukasz", Some(1999), Some("B")),
            "osterlukasz|1999|b"
        );
    }

    #[test]
    fn titles_normalise() {
        assert_eq!(
            normalize_title("Être et Temps: A  Study—of  X-rays!"),
            "etre et temps a study of x rays"
        );
        assert_eq!(normalize_title("  L'homme   "), "lhomme");
        assert_eq!(
            normalize_title("<italic>Microtus</italic> montanus."),
            "microtus montanus"
        );
    }
}

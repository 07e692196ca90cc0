//! Word lists shared by kerai-core's extractors: calendar words, personal titles and given
//! names, organisation words, places and abbreviations.
//!
//! Each list is kept once, in one canonical form (capitalised as in prose for names and
//! calendar words; lower case for abbreviations), with a doc comment saying what it is and
//! who uses it. Callers that see lower-cased text compare with the `is_*` helpers, which
//! ignore ASCII case, or build their own sets from these lists at startup; regexes are built
//! from them with [`alternation`]. Lists that only make sense for one rule (the stop words of
//! citation callouts, venue words after a reference title) stay next to that rule.

mod abbreviations;
mod dates;
mod organisations;
mod people;
mod places;

pub use abbreviations::{is_abbreviation, ABBREVIATIONS};
pub use dates::{
    is_month, is_month_abbreviation, is_month_or_abbreviation, is_season, is_weekday, MONTHS,
    MONTH_ABBREVIATIONS, SEASONS, WEEKDAYS,
};
pub use organisations::{
    is_org_noun, is_org_suffix, org_suffixes, COMPANY_WORDS, ORG_ENDINGS, ORG_HEADS, ORG_NOUNS,
};
pub use people::{FIRST_NAMES, STRONG_TITLES, TITLES};
pub use places::{AMBIGUOUS_PLACES, PLACES};

/// Whether `list` holds `word`, ignoring ASCII case (`"may"` and `"MAY"` find `"May"`).
pub fn contains_ignore_case(list: &[&str], word: &str) -> bool {
    list.iter().any(|w| w.eq_ignore_ascii_case(word))
}

/// A regex alternation `(?:…|…)` of `words`, escaped, longest first (so that "Sept" is tried
/// before "Sep" and "Royal Society" before "Society").
pub fn alternation<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> String {
    let mut w: Vec<S> = words.into_iter().collect();
    w.sort_by_key(|s| std::cmp::Reverse(s.as_ref().len()));
    let parts: Vec<String> = w.iter().map(|s| regex::escape(s.as_ref())).collect();
    format!("(?:{})", parts.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_unique(name: &str, list: &[&str]) {
        let mut seen = std::collections::HashSet::new();
        for w in list {
            assert!(seen.insert(*w), "{name} lists {w:?} twice");
        }
    }

    #[test]
    fn lists_hold_each_word_once() {
        for (name, list) in [
            ("ABBREVIATIONS", ABBREVIATIONS),
            ("MONTHS", MONTHS),
            ("MONTH_ABBREVIATIONS", MONTH_ABBREVIATIONS),
            ("WEEKDAYS", WEEKDAYS),
            ("SEASONS", SEASONS),
            ("ORG_HEADS", ORG_HEADS),
            ("TITLES", TITLES),
            ("STRONG_TITLES", STRONG_TITLES),
            ("FIRST_NAMES", FIRST_NAMES),
            ("PLACES", PLACES),
            ("AMBIGUOUS_PLACES", AMBIGUOUS_PLACES),
        ] {
            assert_unique(name, list);
        }
        assert_unique("org_suffixes", &org_suffixes().collect::<Vec<_>>());
    }

    #[test]
    fn strong_titles_are_titles() {
        for t in STRONG_TITLES {
            assert!(TITLES.contains(t), "{t}");
        }
    }

    #[test]
    fn lookups_ignore_case_where_documented() {
        assert!(is_month("may") && is_month("MAY") && is_month("May"));
        assert!(
            !is_month("Jan") && is_month_abbreviation("jan") && is_month_or_abbreviation("SEPT")
        );
        assert!(is_weekday("wednesday") && is_season("fall"));
        assert!(is_org_noun("university"));
        assert!(is_org_suffix("GmbH") && !is_org_suffix("gmbh"));
        assert!(is_abbreviation("e.g") && is_abbreviation("Dr"));
    }

    #[test]
    fn alternation_is_longest_first_and_escaped() {
        assert_eq!(alternation(["Sep", "Sept", "U.S"]), r"(?:Sept|Sep|U\.S)");
    }
}

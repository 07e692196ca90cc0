//! Entities that are names: people, organisations, places and products.

use super::bounded::Bounded;
use super::{Candidate, EntityKind};
use crate::lexicon::{
    self, alternation, is_month_or_abbreviation, is_org_suffix, is_season, is_weekday,
    AMBIGUOUS_PLACES, FIRST_NAMES, ORG_HEADS, PLACES, STRONG_TITLES, TITLES,
};
use std::sync::LazyLock;

/// A capitalised name word: "Okafor", "O'Neill", "Lindqvist-Berg".
const NAME: &str = r"\p{Lu}[\p{Ll}\p{Lu}'’]*\p{Ll}[\p{Ll}'’]*(?:-\p{Lu}?[\p{Ll}'’]+)?";
/// Space between the words of a name: spaces, or one line break (never a blank line).
const SP: &str = r"(?:[ \t\u{00A0}]+|[ \t]*\n[ \t]*)";
/// Lower-case name particles ("van der", "de", "bin").
const PARTICLE: &str = r"(?:de|da|del|della|di|du|van|von|der|den|la|le|bin|ibn|al|dos|das)";
/// A capitalised word inside an organisation or product name ("MIT", "St.", "Co-op", "3M").
/// A trailing dot only on short abbreviations ("St.", "Co."), never on a sentence's last word.
const CAPWORD: &str = r"(?:\p{Lu}[\p{L}\p{N}'’&-]*|\p{Lu}\p{Ll}{0,2}\.|\d+\p{Lu}\p{L}*)";

/// Words that look like the start of a name at the beginning of a sentence but are not.
const LEADING_NON_NAMES: &[&str] = &[
    "The", "A", "An", "In", "At", "On", "Since", "From", "By", "For", "Our", "Its", "Their", "His",
    "Her", "This", "That", "These", "Those", "When", "While", "If", "After", "Before", "During",
    "And", "But", "Or", "With", "Both", "Each", "Every", "New", "Dear", "About", "Visit",
    "Contact", "Join", "See", "Read", "Welcome", "Under", "Through", "Into", "Only",
];

/// Capitalised words that follow "in" without being places (besides months, weekdays,
/// seasons, given names and organisation words, which come from [`crate::lexicon`]).
const NOT_PLACES: &[&str] = &[
    "The",
    "A",
    "An",
    "This",
    "That",
    "These",
    "Those",
    "Figure",
    "Fig",
    "Table",
    "Section",
    "Chapter",
    "Appendix",
    "Part",
    "Volume",
    "Vol",
    "Issue",
    "Step",
    "Phase",
    "Stage",
    "English",
    "French",
    "German",
    "Spanish",
    "Italian",
    "Chinese",
    "Japanese",
    "Latin",
    "Greek",
    "Arabic",
    "Nature",
    "Science",
    "Cell",
    "Journal",
    "Proceedings",
    "Practice",
    "Theory",
    "Action",
    "Addition",
    "Contrast",
    "General",
    "Particular",
    "Total",
    "Summary",
    "Conclusion",
    "Brief",
    "Short",
    "Response",
    "Order",
    "Fact",
    "Turn",
    "Time",
    "Future",
    "Python",
    "Rust",
    "Java",
    "JavaScript",
    "Excel",
    "Word",
    "PDF",
    "HTML",
    "Markdown",
    "Google",
    "Windows",
    "Linux",
    "Mind",
    "Brain",
    "Behavior",
    "Behaviour",
];

struct NameRules {
    titled: Bounded,
    first_last: Bounded,
    et_al: Bounded,
    apa: Bounded,
    cited: Bounded,
    org_suffix: Bounded,
    org_head: Bounded,
    place: Bounded,
    place_cue: Bounded,
    place_in: Bounded,
    product_mark: Bounded,
    product_version: Bounded,
}

static RULES: LazyLock<NameRules> = LazyLock::new(|| {
    let titles = alternation(TITLES);
    let firsts = alternation(FIRST_NAMES);
    let suffixes = alternation(lexicon::org_suffixes());
    let heads = alternation(ORG_HEADS);
    let places = alternation(PLACES);
    let person_tail = format!(
        r"(?:{SP}(?:\p{{Lu}}\.[ \t]*)+)?(?:{SP}{PARTICLE})*{SP}{NAME}(?:{SP}(?:{PARTICLE}{SP})*{NAME}){{0,2}}"
    );
    let re = |p: &str| Bounded::new(p);
    NameRules {
        titled: re(&format!(
            r"\b{titles}\.?(?:{SP}(?:\p{{Lu}}\.[ \t]*)+)?(?:{SP}{PARTICLE})*{SP}{NAME}(?:{SP}(?:\p{{Lu}}\.{SP})?(?:{PARTICLE}{SP})*{NAME}){{0,2}}"
        )),
        first_last: re(&format!(r"\b{firsts}{person_tail}\b")),
        et_al: re(&format!(
            r"\b(?:(?:Da|De|Van|Von|Le|La|Di|Del) )?{NAME}{SP}et al\b"
        )),
        apa: re(&format!(
            r"\b{NAME}(?:{SP}{NAME})?,{SP}(?:\p{{Lu}}\.(?:[ \t]?\p{{Lu}}\.){{0,2}})"
        )),
        cited: re(&format!(r"\b{NAME}{SP}\((?:1[5-9]|20)\d\d[a-e]?\)")),
        org_suffix: re(&format!(
            r"\b(?:(?:{CAPWORD}{SP}){{1,5}}(?:&{SP})?{suffixes}\b(?:{SP}(?:of|for){SP}(?:the{SP})?{CAPWORD}(?:{SP}(?:and{SP}|&{SP}|of{SP}|for{SP})?{CAPWORD}){{0,4}})?|{CAPWORD}(?:{SP}{CAPWORD}){{0,3}},?{SP}(?:Inc|Ltd|LLC|GmbH|AG|plc|Corp|S\.A|N\.V|B\.V)\b\.?)"
        )),
        org_head: re(&format!(
            r"\b(?:The{SP})?{heads}{SP}(?:of|for){SP}(?:the{SP})?{CAPWORD}(?:{SP}(?:and{SP}|&{SP}|of{SP}|for{SP})?{CAPWORD}){{0,4}}"
        )),
        place: re(&format!(r"\b{places}(?:\b|$)")),
        place_cue: re(&format!(
            r"\b(?:based|located|headquartered|situated|born|lives|living|held|settled|offices?){SP}in{SP}({NAME}(?:{SP}{NAME})?)"
        )),
        place_in: re(&format!(r"\b(?:in|near){SP}({NAME})\b")),
        product_mark: re(&format!(
            r"({CAPWORD}(?:{SP}{CAPWORD}){{0,3}})[ \t]?(?:™|®|\(TM\)|\(R\))"
        )),
        product_version: re(&format!(
            r"\b{CAPWORD}(?:{SP}{CAPWORD}){{0,2}}{SP}(?:version|Version|release|Release|v\.?)[ \t]?\d+(?:\.\d+){{1,3}}\b"
        )),
    }
});

/// A capitalised word that follows "in" without being a place: [`NOT_PLACES`], a weekday or a
/// season.
fn is_not_place(word: &str) -> bool {
    NOT_PLACES.contains(&word) || is_weekday(word) || is_season(word)
}

/// Drop leading words that start sentences but not names ("The", "Since").
fn trim_leading(text: &str, start: usize, end: usize) -> usize {
    let mut s = start;
    loop {
        let rest = &text[s..end];
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..word_end];
        if word_end < rest.len() && LEADING_NON_NAMES.contains(&word) {
            s += word_end;
            s += text[s..end].len() - text[s..end].trim_start().len();
        } else {
            return s;
        }
    }
}

fn push(out: &mut Vec<Candidate>, start: usize, end: usize, kind: EntityKind, confidence: f32) {
    out.push(Candidate {
        start,
        end,
        kind,
        confidence,
    });
}

pub(super) fn propose(text: &str, out: &mut Vec<Candidate>) {
    let r = &*RULES;
    for m in r.titled.find_iter(text) {
        let title = m.as_str().split(['.', ' ']).next().unwrap_or("");
        // "Dr." and "Prof." are sure; "General", "Dean" or "King" may start other names.
        let confidence = if STRONG_TITLES.contains(&title) {
            0.95
        } else {
            0.8
        };
        push(out, m.start(), m.end(), EntityKind::Person, confidence);
    }
    for m in r.first_last.find_iter(text) {
        let last_word = m.as_str().rsplit(char::is_whitespace).next().unwrap_or("");
        if is_org_suffix(last_word) || is_month_or_abbreviation(last_word) {
            continue;
        }
        push(out, m.start(), m.end(), EntityKind::Person, 0.75);
    }
    for m in r.et_al.find_iter(text) {
        let end = m.end() - " et al".len();
        let name_end = text[m.start()..end].trim_end().len() + m.start();
        push(out, m.start(), name_end, EntityKind::Person, 0.6);
    }
    // Reference lists: "Friston, K.", "Bell, G. S."
    for m in r.apa.find_iter(text) {
        let surname = m.as_str().split(',').next().unwrap_or("");
        if !LEADING_NON_NAMES.contains(&surname) && !is_month_or_abbreviation(surname) {
            push(out, m.start(), m.end(), EntityKind::Person, 0.6);
        }
    }
    for m in r.cited.find_iter(text) {
        let name_end = m.start() + m.as_str().find(" (").unwrap_or(0);
        let word = &text[m.start()..name_end];
        if !LEADING_NON_NAMES.contains(&word) && !is_month_or_abbreviation(word) {
            push(out, m.start(), name_end, EntityKind::Person, 0.55);
        }
    }
    for m in r.org_suffix.find_iter(text) {
        let start = trim_leading(text, m.start(), m.end());
        let end = m.end();
        // At least one word before the suffix must remain ("The Institute" is no name).
        if text[start..end].split_whitespace().count() >= 2 {
            push(out, start, end, EntityKind::Organization, 0.9);
        }
    }
    for m in r.org_head.find_iter(text) {
        let start = trim_leading(text, m.start(), m.end());
        push(out, start, m.end(), EntityKind::Organization, 0.85);
        // "University of Aberdeen and Northwind Institute": also the name cut before each
        // "and", in case the longer reading loses to a surer name after it.
        let span = &text[start..m.end()];
        for (i, _) in span.match_indices(" and ").chain(span.match_indices(" & ")) {
            push(out, start, start + i, EntityKind::Organization, 0.85);
        }
    }
    for m in r.place.find_iter(text) {
        let confidence = if AMBIGUOUS_PLACES.contains(&m.as_str()) {
            0.6
        } else {
            0.85
        };
        push(out, m.start(), m.end(), EntityKind::Location, confidence);
    }
    for c in r.place_cue.captures_iter(text) {
        let g = c.get(1).expect("group 1");
        if !is_not_place(g.as_str()) && !is_month_or_abbreviation(g.as_str()) {
            push(out, g.start(), g.end(), EntityKind::Location, 0.7);
        }
    }
    for c in r.place_in.captures_iter(text) {
        let g = c.get(1).expect("group 1");
        let w = g.as_str();
        let after = &text[g.end()..];
        // "in Aberdeen" but not "in Figure 2", "in March", "in Nature Reviews".
        let next_capital = after
            .strip_prefix(' ')
            .and_then(|a| a.chars().next())
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
        // Words shaped like abstract nouns are fields and topics, not places.
        let abstract_noun = [
            "ences", "ics", "ogy", "ism", "ment", "ness", "tion", "ing", "ity",
        ]
        .iter()
        .any(|s| w.ends_with(s));
        if !is_not_place(w)
            && !abstract_noun
            && !is_month_or_abbreviation(w)
            && !FIRST_NAMES.contains(&w)
            && !is_org_suffix(w)
            && !next_capital
        {
            push(out, g.start(), g.end(), EntityKind::Location, 0.45);
        }
    }
    for c in r.product_mark.captures_iter(text) {
        let g = c.get(1).expect("group 1");
        let start = trim_leading(text, g.start(), g.end());
        push(out, start, g.end(), EntityKind::Product, 0.9);
    }
    for m in r.product_version.find_iter(text) {
        let start = trim_leading(text, m.start(), m.end());
        push(out, start, m.end(), EntityKind::Product, 0.75);
    }
}

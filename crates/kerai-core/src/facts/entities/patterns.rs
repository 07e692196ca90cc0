//! Entities with a fixed shape: e-mail addresses, URLs, identifiers, dates, money, numbers.

use super::{Candidate, EntityKind};
use crate::lexicon::{alternation, is_season, MONTHS, MONTH_ABBREVIATIONS, WEEKDAYS};
use regex::Regex;
use std::sync::LazyLock;

/// Space inside an entity: spaces, or one line break (never a blank line).
const SP: &str = r"(?:[ \t\u{00A0}]+|[ \t]*\n[ \t]*)";
const DAY: &str = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?";
const YEAR: &str = r"(?:1[0-9]\d\d|20\d\d|21\d\d)";
/// A number: 1,234,567.89 / 12 000 / 4.2 / 1998.
const NUM: &str = r"(?:\d{1,3}(?:[,\u{00A0}\u{202F} ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)";
const SCALE: &str = r"(?:[ \u{00A0}]?(?:million|billion|trillion|thousand|bn|mn|m|k|M|B|K)\b)?";
const CODES: &str = r"(?:USD|EUR|GBP|CHF|JPY|CNY|CAD|AUD|SEK|NOK|DKK|INR|NZD|PLN|CZK|HUF|BRL|ZAR|KRW|SGD|HKD|MXN|TRY)";
const NUMWORD: &str = r"(?i:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|a hundred|hundreds of|a thousand|thousands of|a dozen|dozens of)";
const COUNTED: &str = r"(?:people|persons|participants|patients|staff|employees|workers|students|researchers|scientists|members|positions|posts|jobs|trustees|hospitals|beds|sites|countries|cities|programmes|programs|projects|papers|publications|users|customers|visitors|children|adults|volunteers|subjects|labs|laboratories|offices|branches|stores|schools)";
const UNITS: &str = r"(?:km|cm|mm|µm|nm|mi|ft|kg|mg|µg|tonnes?|tons?|lbs?|ml|mL|litres?|liters?|metres?|meters?|tesla|Hz|kHz|MHz|GHz|kW|MW|GW|kWh|MWh|GWh|kV|mA|°C|°F|ms|seconds?|minutes?|hours?|days?|weeks?|months?|years?|GB|MB|TB|KB|kB|GiB|MiB|TiB|bits?|bytes?|px|dpi|acres?|hectares?|m²|km²|mph|km/h|miles?|kilometres?|kilometers?|calories|kcal|volts?|watts?|degrees)";

struct Rule {
    re: Regex,
    kind: EntityKind,
    confidence: f32,
}

fn rule(pattern: &str, kind: EntityKind, confidence: f32) -> Rule {
    Rule {
        re: crate::facts::ascii_bounded(pattern),
        kind,
        confidence,
    }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    use EntityKind::*;
    // A month name, or an abbreviation with an optional full stop ("Sept.", "Jan").
    let month = format!(
        r"(?:{}|{}\.?)",
        alternation(MONTHS),
        alternation(MONTH_ABBREVIATIONS)
    );
    let month = month.as_str();
    // An optional weekday before a date ("Wednesday, ").
    let weekday = format!(r"(?:{},?[ \t]+)?", alternation(WEEKDAYS));
    let weekday = weekday.as_str();
    vec![
        rule(
            r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b",
            Email,
            0.99,
        ),
        rule(
            r#"\b(?:https?://|www\.)[^\s<>"'\]\)]+[^\s<>"'\]\).,;:!?]"#,
            Url,
            0.98,
        ),
        rule(
            r"\bdoi:[ \t\u{00A0}]?10\.\d{4,9}/[^\s]+[^\s.,;:)]",
            Other,
            0.95,
        ),
        rule(r"\barXiv:\d{4}\.\d{4,5}(?:v\d+)?", Other, 0.95),
        // Dates
        rule(
            r"\b\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b",
            Date,
            0.95,
        ),
        rule(
            &format!(r"\b{weekday}{DAY}(?:{SP}of)?{SP}{month},?{SP}{YEAR}\b"),
            Date,
            0.95,
        ),
        rule(
            &format!(r"\b{weekday}{month}{SP}{DAY},?{SP}{YEAR}\b"),
            Date,
            0.95,
        ),
        rule(&format!(r"\b{month}{SP}{YEAR}\b"), Date, 0.9),
        rule(&format!(r"\b{DAY}{SP}{month}\b"), Date, 0.7),
        rule(&format!(r"\b{month}{SP}{DAY}\b"), Date, 0.65),
        rule(
            r"\b\d{4}/(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])\b",
            Date,
            0.85,
        ),
        rule(
            r"\b(?:0?[1-9]|[12]\d|3[01])[/.](?:0?[1-9]|1[0-2])[/.](?:1[0-9]|20)\d\d\b",
            Date,
            0.75,
        ),
        // Money
        rule(
            &format!(r"(?:US\$|A\$|C\$|NZ\$|HK\$|[£$€¥₹₩₽])[ \t\u{{00A0}}]?{NUM}{SCALE}"),
            Money,
            0.95,
        ),
        rule(
            &format!(r"\b{CODES}[ \t\u{{00A0}}]?{NUM}{SCALE}"),
            Money,
            0.9,
        ),
        rule(
            &format!(r"\b{NUM}{SCALE}[ \t\u{{00A0}}]?{CODES}\b"),
            Money,
            0.9,
        ),
        rule(
            &format!(
                r"\b{NUM}{SCALE} (?:euros?|dollars?|pounds sterling|yen|francs|kronor|kroner)\b"
            ),
            Money,
            0.85,
        ),
        // Numbers
        rule(
            &format!(r"\b{NUM}[ \t\u{{00A0}}]?(?:%|per ?cent\b|percent\b|percentage points?\b)"),
            Number,
            0.95,
        ),
        rule(
            &format!(r"\b{NUM}(?:[ \t\u{{00A0}}]|-)?{UNITS}\b"),
            Number,
            0.9,
        ),
        rule(
            &format!(
                r"\b{NUM}(?:{SP}(?:new|more|full-time|part-time|additional|clinical|research|permanent|young|older|adult|other))?{SP}{COUNTED}\b"
            ),
            Number,
            0.85,
        ),
        rule(
            &format!(
                r"\b{NUMWORD}(?:{SP}(?:new|more|full-time|part-time|additional|clinical|research|permanent|young|older|adult|other))?{SP}{COUNTED}\b"
            ),
            Number,
            0.75,
        ),
    ]
});

static YEAR_RE: LazyLock<Regex> =
    LazyLock::new(|| crate::facts::ascii_bounded(r"\b(?:1[5-9]|20)\d\d(?:s|[a-e])?\b"));

/// Words before a bare year that make it a date ("in 1998", "since 2019"); so do seasons
/// ("spring 2019").
const YEAR_CUES: &[&str] = &[
    "in", "since", "from", "until", "till", "by", "before", "after", "during", "of", "to",
    "between", "and", "circa", "c.", "ca.", "around", "early", "late", "mid", "year", "for", "the",
];

pub(super) fn propose(text: &str, out: &mut Vec<Candidate>) {
    for r in RULES.iter() {
        for m in crate::interrupt::find_iter(&r.re, text) {
            out.push(Candidate {
                start: m.start(),
                end: m.end(),
                kind: r.kind,
                confidence: r.confidence,
            });
        }
    }
    for m in crate::interrupt::find_iter(&YEAR_RE, text) {
        let before = text[..m.start()].trim_end();
        let prev_word = before
            .rsplit(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("")
            .to_lowercase();
        let after = &text[m.end()..];
        let in_brackets = before.ends_with('(')
            || (before.ends_with(',') && after.starts_with([')', ';']))
            || after.starts_with(')');
        let confidence = if YEAR_CUES.contains(&prev_word.as_str()) || is_season(&prev_word) {
            0.8
        } else if in_brackets || m.as_str().ends_with('s') {
            0.75
        } else {
            0.5
        };
        out.push(Candidate {
            start: m.start(),
            end: m.end(),
            kind: EntityKind::Date,
            confidence,
        });
    }
}

//! Named entities by rules, without a model: fast, predictable, explainable.
//!
//! Each rule proposes spans with a confidence that reflects how often that rule is right;
//! where spans overlap the surer (then the longer) one wins. Rules: e-mail addresses, URLs,
//! DOIs and arXiv ids; dates (ISO, "12 March 2026", "March 12, 2026", "March 2026",
//! numeric, bare years in context); money (£4.2 million, $3.5bn, 12 000 EUR); numbers with
//! units, percentages and counted things; people (title + name; given name from a list +
//! surname; "Surname et al."); organisations (capitalised names ending in Institute,
//! University, Ltd, GmbH, Council, Lab, ...; "University of X"); places (a gazetteer of
//! countries, regions and major cities; "based in X"); products (™/® marks, "X version 2.1").

mod bounded;
mod names;
mod patterns;

use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::Range;

/// What an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EntityKind {
    Organization,
    Person,
    Product,
    Location,
    Date,
    Money,
    Number,
    Email,
    Url,
    Other,
}

impl EntityKind {
    /// The lower-case name: `organization`, `person`, ..., `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            EntityKind::Organization => "organization",
            EntityKind::Person => "person",
            EntityKind::Product => "product",
            EntityKind::Location => "location",
            EntityKind::Date => "date",
            EntityKind::Money => "money",
            EntityKind::Number => "number",
            EntityKind::Email => "email",
            EntityKind::Url => "url",
            EntityKind::Other => "other",
        }
    }
}

/// An entity mention in a text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entity {
    /// The mention as written.
    pub text: String,
    pub kind: EntityKind,
    /// Character (not byte) offset of the first character.
    pub start: usize,
    /// Character offset just past the last character.
    pub end: usize,
    /// How sure the rule is, 0 to 1.
    pub confidence: f32,
}

/// A proposed span, in bytes.
#[derive(Debug, Clone)]
struct Candidate {
    start: usize,
    end: usize,
    kind: EntityKind,
    confidence: f32,
}

/// The entities of `text`, in order, without overlaps.
pub fn entities(text: &str) -> Vec<Entity> {
    // Spans come in order and never overlap, so character offsets are counted as we go.
    let (mut byte, mut char) = (0, 0);
    let mut char_at = |at: usize| {
        char += text[byte..at].chars().count();
        byte = at;
        char
    };
    let mut tick = crate::interrupt::Ticker::new();
    spans(text)
        .into_iter()
        .map(|(r, kind, confidence)| {
            tick.tick();
            Entity {
                text: text[r.clone()].to_string(),
                kind,
                start: char_at(r.start),
                end: char_at(r.end),
                confidence,
            }
        })
        .collect()
}

/// The entities of `text` as byte ranges, in order, without overlaps.
pub(in crate::facts) fn spans(text: &str) -> Vec<(Range<usize>, EntityKind, f32)> {
    let mut cands = Vec::new();
    patterns::propose(text, &mut cands);
    names::propose(text, &mut cands);
    // Surest first, then longest, then earliest; keep what does not overlap a kept span.
    crate::interrupt::sort_by(&mut cands, |a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then((b.end - b.start).cmp(&(a.end - a.start)))
            .then(a.start.cmp(&b.start))
    });
    // The kept spans by start: they never overlap, so a candidate overlaps one only if the
    // last kept span starting before its end reaches past its start (a lookup, not a scan).
    let mut kept: BTreeMap<usize, Candidate> = BTreeMap::new();
    let mut tick = crate::interrupt::Ticker::new();
    for c in cands {
        tick.tick();
        if c.start >= c.end {
            continue;
        }
        let overlaps = kept
            .range(..c.end)
            .next_back()
            .is_some_and(|(_, k)| k.end > c.start);
        if !overlaps {
            kept.insert(c.start, c);
        }
    }
    kept.into_values()
        .map(|c| {
            tick.tick();
            (c.start..c.end, c.kind, c.confidence)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(EntityKind, String)> {
        entities(text)
            .into_iter()
            .map(|e| (e.kind, e.text))
            .collect()
    }

    #[test]
    fn offsets_are_characters() {
        let t = "Café Zürich: write to info@northwind.example";
        let e = entities(t);
        let mail = e.iter().find(|e| e.kind == EntityKind::Email).unwrap();
        let chars: Vec<char> = t.chars().collect();
        let s: String = chars[mail.start..mail.end].iter().collect();
        assert_eq!(s, "info@northwind.example");
    }

    #[test]
    fn contacts_and_links() {
        use EntityKind::*;
        assert_eq!(
            found("Mail info@northwind.example or see https://www.northwind.example/about.html, doi:10.1038/nrn2787."),
            vec![
                (Email, "info@northwind.example".into()),
                (Url, "https://www.northwind.example/about.html".into()),
                (Other, "doi:10.1038/nrn2787".into()),
            ]
        );
    }

    #[test]
    fn dates_in_many_forms() {
        use EntityKind::*;
        let got = found(
            "On 12 March 2026 (2026-03-12) it opened; by March 2026 work began. \
             Founded in 1998. Meeting on Monday, 4 May 2026 and on May 4, 2026; due 12/03/2026.",
        );
        let dates: Vec<String> = got
            .iter()
            .filter(|(k, _)| *k == Date)
            .map(|(_, t)| t.clone())
            .collect();
        assert_eq!(
            dates,
            vec![
                "12 March 2026",
                "2026-03-12",
                "March 2026",
                "1998",
                "Monday, 4 May 2026",
                "May 4, 2026",
                "12/03/2026"
            ]
        );
    }

    #[test]
    fn dates_next_to_text_without_spaces() {
        // Chinese and Japanese write numbers against the next word; the boundaries around a
        // date are ASCII word boundaries, so the year is found there too, and the same dates
        // as before are found in text with spaces and accents.
        let dates = |t: &str| -> Vec<String> {
            found(t)
                .into_iter()
                .filter(|(k, _)| *k == EntityKind::Date)
                .map(|(_, t)| t)
                .collect()
        };
        assert_eq!(
            dates("该研究所成立于1998年，2026-03-12开放。"),
            vec!["1998", "2026-03-12"]
        );
        assert_eq!(
            dates("The café in Zürich opened on 4 May 2026."),
            vec!["4 May 2026"]
        );
        assert_eq!(dates("Zürich1998 x2026y"), Vec::<String>::new());
    }

    #[test]
    fn money_and_numbers() {
        use EntityKind::*;
        let got = found(
            "A grant of £4.2 million, a $3.5bn deal and 12 000 EUR; 61% of funds; a 7 tesla scanner; \
             142 people and twelve new positions.",
        );
        assert_eq!(
            got,
            vec![
                (Money, "£4.2 million".into()),
                (Money, "$3.5bn".into()),
                (Money, "12 000 EUR".into()),
                (Number, "61%".into()),
                (Number, "7 tesla".into()),
                (Number, "142 people".into()),
                (Number, "twelve new positions".into()),
            ]
        );
    }

    #[test]
    fn people_organisations_places_products() {
        use EntityKind::*;
        let got = found(
            "Dr. Amara Okafor and Prof. Jonas Reed met Margaret Lindqvist at the University of \
             Aberdeen and Northwind Institute for Cognitive Science in Aberdeen, Scotland. \
             Acme Ltd sells SoilSense™ and Kerai version 2.1.",
        );
        assert_eq!(
            got,
            vec![
                (Person, "Dr. Amara Okafor".into()),
                (Person, "Prof. Jonas Reed".into()),
                (Person, "Margaret Lindqvist".into()),
                (Organization, "University of Aberdeen".into()),
                (
                    Organization,
                    "Northwind Institute for Cognitive Science".into()
                ),
                (Location, "Aberdeen".into()),
                (Location, "Scotland".into()),
                (Organization, "Acme Ltd".into()),
                (Product, "SoilSense".into()),
                (Product, "Kerai version 2.1".into()),
            ]
        );
        let e = entities("Dr. Amara Okafor met Margaret Lindqvist.");
        assert!(e[0].confidence > e[1].confidence, "{e:?}");
    }
}

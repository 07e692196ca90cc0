//! Organisations: the words that name a kind of body, company words and legal forms, and the
//! other words that end or open an organisation's name.
//!
//! The last words of organisation names ("Northwind Institute", "Acme Ltd", "Kew Gardens
//! Trust") are [`ORG_NOUNS`], [`COMPANY_WORDS`] and [`ORG_ENDINGS`] together: see
//! [`org_suffixes`] and [`is_org_suffix`].

use super::contains_ignore_case;

/// Nouns that name a kind of public, academic or civic body and are not personal names
/// ("University", "Ministry", "Foundation"), capitalised. Companies are
/// [`COMPANY_WORDS`].
///
/// Used by: `facts::entities` (last words of organisation names, through [`is_org_suffix`]),
/// `references` (an author segment with one of these is an organisation: `World Health
/// Organization.`), `references::names` (never a word of an author's name).
pub const ORG_NOUNS: &[&str] = &[
    "University",
    "Institute",
    "Department",
    "Ministry",
    "Office",
    "Committee",
    "Society",
    "Association",
    "Organization",
    "Organisation",
    "Agency",
    "Council",
    "Commission",
    "Bureau",
    "Center",
    "Centre",
    "Foundation",
    "Board",
];

/// Words that end company names ("Acme Company", "Acme Ltd", "Siemens AG"): "Company",
/// "Corporation" and legal forms without their full stops, in the case they are usually
/// written ("GmbH", "plc" and "PLC").
///
/// Used by: `facts::entities` (last words of organisation names, through [`is_org_suffix`]).
pub const COMPANY_WORDS: &[&str] = &[
    "Company",
    "Corporation",
    "Corp",
    "Co",
    "Inc",
    "Ltd",
    "LLC",
    "LLP",
    "GmbH",
    "AG",
    "SA",
    "SAS",
    "BV",
    "NV",
    "plc",
    "PLC",
];

/// Further last words of organisation names that are not in [`ORG_NOUNS`] or
/// [`COMPANY_WORDS`]: kinds of body that can also be surnames or ordinary words ("Bank",
/// "Church", "Court", "Press", "Library"), so that only a capitalised word before them makes a
/// name.
///
/// Used by: `facts::entities` (last words of organisation names, through [`is_org_suffix`]).
pub const ORG_ENDINGS: &[&str] = &[
    "Institution",
    "College",
    "School",
    "Academy",
    "Lab",
    "Labs",
    "Laboratory",
    "Laboratories",
    "Hospital",
    "Clinic",
    "Trust",
    "Press",
    "Group",
    "Bank",
    "Museum",
    "Library",
    "Authority",
    "Observatory",
    "Network",
    "Alliance",
    "Federation",
    "Union",
    "Partners",
    "Holdings",
    "Systems",
    "Technologies",
    "Industries",
    "Enterprises",
    "Consortium",
    "Collaborative",
    "Initiative",
    "Service",
    "Services",
    "Parliament",
    "Senate",
    "Court",
    "Church",
    "Cooperative",
    "Fund",
    "Programme",
    "Program",
    "Project",
    "Studio",
    "Studios",
];

/// Words that open `<Word> of/for <Name>` organisation names ("University of Aberdeen",
/// "Royal Society of Chemistry", "League of Nations").
///
/// Used by: `facts::entities` (the "Head of Name" organisation regex).
pub const ORG_HEADS: &[&str] = &[
    "University",
    "Institute",
    "Ministry",
    "Department",
    "Bank",
    "Museum",
    "Academy",
    "School",
    "College",
    "Council",
    "Federation",
    "Society",
    "Association",
    "Foundation",
    "Embassy",
    "Church",
    "Office",
    "Bureau",
    "Court",
    "Hospital",
    "Board",
    "Commission",
    "Centre",
    "Center",
    "Library",
    "Agency",
    "Royal Society",
    "League",
    "Order",
];

/// Every last word of an organisation name: [`ORG_NOUNS`], [`COMPANY_WORDS`] and
/// [`ORG_ENDINGS`].
pub fn org_suffixes() -> impl Iterator<Item = &'static str> {
    ORG_NOUNS
        .iter()
        .chain(COMPANY_WORDS)
        .chain(ORG_ENDINGS)
        .copied()
}

/// A last word of an organisation name ([`org_suffixes`]), exactly as written: case matters
/// here ("AG" but not "Ag", "Trust" but not "trust").
pub fn is_org_suffix(word: &str) -> bool {
    ORG_NOUNS.contains(&word) || COMPANY_WORDS.contains(&word) || ORG_ENDINGS.contains(&word)
}

/// A noun of [`ORG_NOUNS`], in any ASCII case.
pub fn is_org_noun(word: &str) -> bool {
    contains_ignore_case(ORG_NOUNS, word)
}

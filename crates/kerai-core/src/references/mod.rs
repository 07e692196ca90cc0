//! Bibliography entries: parsing one reference string into fields, splitting a references
//! section into entries, and the keys references are matched by.
//!
//! ```
//! use kerai_core::references::parse_reference;
//!
//! let r = parse_reference("[3] Friston, K. (2010). The free-energy principle: a unified brain theory? \
//!                          Nature Reviews Neuroscience, 11(2), 127-138. doi:10.1038/nrn2787");
//! assert_eq!(r.authors[0].family, "Friston");
//! assert_eq!(r.year, Some(2010));
//! assert_eq!(r.title.as_deref(), Some("The free-energy principle: a unified brain theory?"));
//! assert_eq!(r.container.as_deref(), Some("Nature Reviews Neuroscience"));
//! assert_eq!(r.doi.as_deref(), Some("10.1038/nrn2787"));
//! ```
//!
//! The rules read first: identifiers (DOI, URL, arXiv, ISBN) are cut out, then the author
//! list is read from the head (its first name fixes the style), the year is the one right
//! after the authors, else the first in brackets, else the last; the title follows the
//! authors/year (quoted, or up to the next full stop, or comma in comma-separated styles),
//! unless what follows is an abbreviated journal with a volume; the container runs from the
//! title to the first volume/pages/year; `Place: Publisher` is read from the rest. Then the
//! learned [`tagger`] labels every token, with the rules' reading among its features, and
//! its year, title, container, volume, issue, pages, publisher and place replace the rules'
//! ([`TAGGED_FIELDS`]); authors and identifiers stay with the rules.

mod fields;
mod names;
mod repair;
mod split;
pub mod tagged;
pub mod tagger;
mod title;

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

pub use crate::keys::{author_year_key, fold_diacritics, normalize_title};
pub use split::split_bibliography;

use crate::citations::{identifier_spans, CitationKind};
use crate::lexicon;
use fields::{find_isbn, locators, numbering_len, place_publisher, year_candidates, ID_LABEL_RE};
use names::parse_names;
use title::{looks_like_journal, quoted, title_end};

/// One author: family name and, when written, given names or initials.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Author {
    pub family: String,
    pub given: Option<String>,
}

/// The fields of one bibliography entry. Strings are as written (trimmed of surrounding
/// punctuation), except `doi` (lowercase), `arxiv` (identifier without version) and `isbn`
/// (digits only).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Reference {
    pub authors: Vec<Author>,
    /// Editors, when the entry names them (`(Eds.)`) — for an edited volume, instead of authors.
    pub editors: Vec<Author>,
    pub year: Option<i32>,
    pub year_suffix: Option<String>,
    pub title: Option<String>,
    pub container: Option<String>,
    pub volume: Option<String>,
    pub issue: Option<String>,
    pub pages: Option<String>,
    pub publisher: Option<String>,
    pub location: Option<String>,
    pub doi: Option<String>,
    pub url: Option<String>,
    pub arxiv: Option<String>,
    pub isbn: Option<String>,
    /// The entry opens with a "same authors as above" mark (`———.`, `---`, `______ .`): its
    /// authors are the entry's before it, which a bibliography fills in.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub same_authors_as_before: bool,
}

static SPACE_BEFORE_PUNCT_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\S)\s+([,.;])").unwrap_or_else(|e| unreachable!("{e}")));
static GLUED_AFTER_PUNCT_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"([,;])(\p{L})|(\p{Ll}{2})\.(\p{Lu}\p{Ll})").unwrap_or_else(|e| unreachable!("{e}"))
});

/// Undoes PDF-extraction spacing: `Title ,Phys .Rev .B 31` → `Title, Phys. Rev. B 31`,
/// `at a glance.J Cell Sci` → `at a glance. J Cell Sci`.
fn respace(s: &str) -> String {
    let s = SPACE_BEFORE_PUNCT_RE.replace_all(s, "$1$2");
    GLUED_AFTER_PUNCT_RE
        .replace_all(&s, |c: &regex::Captures<'_>| {
            match (c.get(1), c.get(2), c.get(3), c.get(4)) {
                (Some(p), Some(l), _, _) => format!("{} {}", p.as_str(), l.as_str()),
                (_, _, Some(a), Some(b)) => format!("{}. {}", a.as_str(), b.as_str()),
                _ => c[0].to_string(),
            }
        })
        .into_owned()
}

/// Collapses whitespace runs into single spaces and trims.
fn collapse_ws(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn tidy(s: &str) -> Option<String> {
    let t = s
        .trim()
        .trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '.' | ' ' | '(' | ')' | '[' | ']'));
    let t = t.trim();
    (t.chars().any(char::is_alphanumeric)).then(|| t.to_string())
}

/// Removes identifiers (and the labels before them) from the entry, filling their fields.
fn cut_identifiers(s: &str, r: &mut Reference) -> String {
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for f in identifier_spans(s) {
        let raw = &s[f.start..f.end];
        match f.kind {
            CitationKind::Doi => {
                if r.doi.is_none() {
                    r.doi = f.detail["doi"].as_str().map(str::to_string);
                }
                if r.url.is_none() && f.detail.get("url").is_some() {
                    r.url = Some(raw.to_string());
                }
            }
            CitationKind::Arxiv => {
                if r.arxiv.is_none() {
                    r.arxiv = f.detail["arxiv"].as_str().map(str::to_string);
                }
            }
            CitationKind::Url => {
                let lower = raw.to_ascii_lowercase();
                let explicit =
                    lower.contains("://") || lower.starts_with("www.") || lower.starts_with("//");
                if !explicit {
                    continue;
                }
                if r.url.is_none() {
                    r.url = Some(raw.to_string());
                }
            }
            _ => continue,
        }
        cuts.push((f.start, f.end));
    }
    if let Some((a, b, isbn)) = find_isbn(s) {
        r.isbn = Some(isbn);
        cuts.push((a, b));
    }
    cuts.sort();
    let mut out = String::with_capacity(s.len());
    let mut pos = 0;
    for (a, b) in cuts {
        if a < pos {
            continue;
        }
        let head = &s[pos..a];
        let head = match ID_LABEL_RE.find(head) {
            Some(m) => &head[..m.start()],
            None => head,
        };
        out.push_str(head.trim_end_matches(['<', '(', '[']));
        out.push(' ');
        pos = b;
    }
    out.push_str(s[pos..].trim_start_matches(['>', ')', ']']));
    collapse_ws(&out)
}

/// Words that make an author segment an organisation (`World Health Organization.`), besides
/// the organisation nouns of [`lexicon::ORG_NOUNS`]. Not all of [`lexicon::org_suffixes`]:
/// "Press", "Library" or "SA" there would read more personal authors as organisations.
const ORG_WORDS: &[&str] = &[
    "Corporation",
    "Company",
    "Inc",
    "Ltd",
    "Authority",
    "Service",
    "Survey",
    "Administration",
    "Federation",
    "Union",
    "Bank",
    "Fund",
    "Programme",
    "Program",
    "Network",
    "Consortium",
    "Group",
    "Team",
];

/// A word of an organisation author: an organisation noun or one of [`ORG_WORDS`].
fn is_org_word(word: &str) -> bool {
    ORG_WORDS.contains(&word) || lexicon::ORG_NOUNS.contains(&word)
}

/// An organisation as author: `World Health Organization. Title…` (a segment with an
/// organisation word, [`is_org_word`], or a single acronym).
fn organisation(main: &str) -> Option<(String, usize)> {
    let (end, rest) = title_end(main, 0, false);
    let seg = main[..end].trim();
    let words = seg.split_whitespace().count();
    let org = seg
        .split_whitespace()
        .any(|w| is_org_word(w.trim_matches(|c: char| !c.is_alphabetic())))
        || (words == 1 && seg.chars().filter(|c| c.is_uppercase()).count() >= 2);
    (org && words <= 10 && seg.starts_with(char::is_uppercase)).then(|| (seg.to_string(), rest))
}

/// Index of the first non-space, non-punctuation character at or after `p`.
fn skip_punct(s: &str, p: usize) -> usize {
    s[p..]
        .find(|c: char| !(c.is_whitespace() || matches!(c, '.' | ',' | ':' | ';' | ')' | ']')))
        .map_or(s.len(), |i| p + i)
}

static LOCATOR_HINT_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bpp?\.\s*\d|\bvol\.|\d+\s*\(\d+\)|\d+\s*:\s*\d+|\b(?:1[5-9]|20)\d\d\b\s*[.;,]\s*\d|\b\d{1,3}\s*[-–]\s*\d+\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});
/// Sentences after a title that are not its subtitle.
const NOT_SUBTITLE: &[&str] = &[
    "In ",
    "Edited",
    "Translated",
    "Trans.",
    "Ed.",
    "Eds.",
    "Reprint",
    "Revised",
    "Rev.",
    "Compiled",
    "Introduction",
    "Foreword",
    "Preface",
    "Illustrated",
    "Vol",
    "Part ",
    "Chapter",
    "Editio",
    "Edition",
    "Proceedings",
    "Journal",
    "Conference",
    "Symposium",
    "Workshop",
    "Transactions",
    "Annals",
    "Bulletin",
    "Technical",
    "Tech.",
    "Report",
    "Thesis",
    "PhD",
    "Ph.D",
    "Master",
    "Dissertation",
    "Doctoral",
    "Paper",
    "Presented",
    "Available",
    "Retrieved",
    "Accessed",
    "Unpublished",
    "Personal",
    "Abstract",
    "Series",
    "Lecture",
    "Notes",
    "DVD",
    "CD",
    "Motion picture",
    "Film",
    "Video",
    "Television",
    "Radio",
    "Audio",
    "Podcast",
    "Map",
    "Exhibition",
    "Catalogue",
];

static TRAILING_YEAR_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:,\s*|\s\()(?:1[5-9]|20)\d\d[a-z]?\)?\s*[.,]?\s*$")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

fn strip_trailing_year(title: &str) -> &str {
    match TRAILING_YEAR_RE.find(title) {
        Some(m) if m.start() > 0 => &title[..m.start()],
        _ => title,
    }
}

/// The title that starts at `t`: `(end, rest start)`.
///
/// Comma-separated styles end it at the next `, Capital`; full-stop styles at the next
/// sentence end, falling back to the comma rule when that would swallow the volume, pages or
/// year; a following short sentence is a subtitle when `In …` or `Place: Publisher` comes next
/// (`The authentic heart. An eightfold path to midlife love. New York: Wiley.`).
fn title_bounds(main: &str, t: usize, comma_style: bool) -> (usize, usize) {
    let (mut end, mut next) = title_end(main, t, comma_style);
    if comma_style {
        return (end, next);
    }
    let ran_to_end = main[next.min(main.len())..].trim().is_empty();
    if ran_to_end || LOCATOR_HINT_RE.is_match(&main[t..end]) {
        if let Some((e2, n2)) = comma_cut(main, t, end) {
            return (e2, n2);
        }
    }
    if end < main.len() {
        let s2 = skip_punct(main, next);
        let (e3, n3) = title_end(main, s2, false);
        let seg = &main[s2..e3];
        let after = &main[skip_punct(main, n3)..];
        let seg_ok = !seg.is_empty()
            && !seg.chars().any(|c| c.is_ascii_digit())
            && seg.split_whitespace().count() <= 12
            && !looks_like_journal(seg)
            && !seg.starts_with(['[', '('])
            && !NOT_SUBTITLE.iter().any(|w| seg.starts_with(w));
        let followed = after.starts_with("In ")
            || after.starts_with("In:")
            || place_publisher(after).is_some_and(|(_, _, at)| at == 0);
        if seg_ok && followed {
            end = e3;
            next = n3;
        }
    }
    (end, next)
}

/// Words that mark a venue, publisher or locator after a title.
pub(crate) const VENUE_WORDS: &[&str] = &[
    "press",
    "publisher",
    "publishers",
    "publishing",
    "university",
    "universität",
    "université",
    "universidad",
    "institute",
    "journal",
    "proceedings",
    "proc",
    "conference",
    "conf",
    "symposium",
    "workshop",
    "transactions",
    "trans",
    "review",
    "letters",
    "bulletin",
    "report",
    "thesis",
    "dissertation",
    "verlag",
    "editions",
    "éditions",
    "books",
    "society",
    "company",
    "co",
    "inc",
    "ltd",
    "lecture",
    "notes",
    "series",
    "magazine",
    "quarterly",
    "annals",
    "acta",
    "vol",
    "pp",
    "technical",
    "tech",
    "phd",
    "ph",
    "master",
    "masters",
    "acm",
    "ieee",
    "springer",
    "elsevier",
    "wiley",
    "academic",
    "appear",
    "submitted",
    "available",
    "unpublished",
    "manuscript",
    "paper",
    "preprint",
    "arxiv",
    "edition",
    "ed",
    "eds",
    "chapter",
    "in",
    "pages",
    "page",
    "no",
    "volume",
];

/// Whether the comma-separated segment at the head of `s` is a venue, publisher or locator.
fn venue_like(s: &str) -> bool {
    let seg = s.split(',').next().unwrap_or(s);
    seg.chars().any(|c| c.is_ascii_digit())
        || looks_like_journal(s)
        || seg
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| VENUE_WORDS.contains(&w.to_lowercase().as_str()))
        || seg.trim_start().chars().nth(1) == Some('.')
}

/// The first `, ` in `main[t..limit]` after which a venue follows (`Title, Lecture Notes…`,
/// `Title, Oxford University Press`); else the first `, Capital`.
fn comma_cut(main: &str, t: usize, limit: usize) -> Option<(usize, usize)> {
    let region = &main[t..limit.min(main.len())];
    let mut first_cap = None;
    for (off, _) in region.match_indices(", ") {
        let after = &main[t + off + 2..];
        if venue_like(after) {
            return Some((t + off, t + off + 1));
        }
        if first_cap.is_none()
            && after.starts_with(|c: char| c.is_uppercase() || "\"“«‘(`".contains(c))
        {
            first_cap = Some((t + off, t + off + 1));
        }
    }
    first_cap
}

/// The fields the tagger reads better than the rules (measured on the shared sets' held-out
/// fifth, `tests/references_fields.rs`).
pub const TAGGED_FIELDS: &[&str] = &[
    "year",
    "title",
    "container",
    "volume",
    "issue",
    "pages",
    "publisher",
    "location",
];

/// Parses one bibliography entry (APA, Vancouver, Chicago, Harvard, IEEE, physics styles,
/// with or without an entry number such as `[12]` or `12.`).
pub fn parse_reference(text: &str) -> Reference {
    parse_reference_with(text, tagger::shipped(), TAGGED_FIELDS)
}

/// [`parse_reference`] with a given tagger model (None: the rules alone) and the fields taken
/// from it.
pub fn parse_reference_with(
    text: &str,
    model: Option<&tagger::Model>,
    fields: &[&str],
) -> Reference {
    let text = &text[..entry_end(text)];
    let mut r = parse_by_rules(text);
    // A real entry is under 200 tokens; a longer string keeps the rules' reading, which
    // bounds the tagger's work on hostile input.
    if let Some(m) = model.filter(|_| text.len() <= tagger::MAX_TEXT_BYTES) {
        let runs = tagger::tag_with(m, text, &r);
        tagged::merge(&mut r, &tagged::read(text, &runs), fields);
    }
    repair::after_reading(text, &mut r);
    r
}

/// The runs `model` (the shipped one when None) tags over `text`, as [`parse_reference`]
/// reads them before the fields are merged: for tools that show why a field came out as it did.
pub fn tagged_runs(text: &str, model: Option<&tagger::Model>) -> Vec<tagger::Run> {
    let text = &text[..entry_end(text)];
    match model.or(tagger::shipped()) {
        Some(m) if text.len() <= tagger::MAX_TEXT_BYTES => {
            tagger::tag_with(m, text, &parse_by_rules(text))
        }
        _ => Vec::new(),
    }
}

/// The most of one string the parser reads (bytes). A real entry is under 4 KB; the rest of a
/// longer string is left unread, which bounds the work (about 5 ms) and keeps it short of a
/// cancellation point's reach on hostile input of many megabytes.
pub const MAX_ENTRY_BYTES: usize = 64 * 1024;

/// The end of the part of `text` the parser reads: [`MAX_ENTRY_BYTES`] at most, on a character
/// boundary.
fn entry_end(text: &str) -> usize {
    let mut end = text.len().min(MAX_ENTRY_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// The end of a "same authors as above" mark at the head of `s`: two or more dashes or
/// underscores, then spaces and one `.`, `,` or `:` at most. None when `s` does not open with one.
pub(crate) fn same_authors_mark(s: &str) -> Option<usize> {
    let dash = |c: char| matches!(c, '-' | '_' | '\u{2010}'..='\u{2015}' | '\u{2212}');
    let run = s.find(|c: char| !dash(c)).unwrap_or(s.len());
    if s[..run].chars().count() < 2 {
        return None;
    }
    let rest = &s[run..];
    let spaced = rest.len() - rest.trim_start().len();
    let after = &rest[spaced..];
    let end = if after.starts_with(['.', ',', ':']) {
        run + spaced + 1
    } else {
        run
    };
    Some(skip_space(s, end))
}

fn skip_space(s: &str, p: usize) -> usize {
    s[p..]
        .find(|c: char| !c.is_whitespace())
        .map_or(s.len(), |i| p + i)
}

pub(crate) fn parse_by_rules(text: &str) -> Reference {
    let mut r = Reference::default();
    let collapsed = collapse_ws(text);
    let body = &collapsed[numbering_len(&collapsed)..];
    let main = respace(&cut_identifiers(body, &mut r));
    let main = main.as_str();

    // Authors (or editors) at the head. A run of dashes there (`———.`, `---`, `______ .`)
    // stands for the authors of the entry before, which a bibliography fills in
    // ([`same_authors_mark`]).
    let mut pos = 0;
    if let Some(end) = same_authors_mark(main) {
        pos = end;
        r.same_authors_as_before = true;
    } else {
        match parse_names(main, 0, main.len()) {
            Some(n) => {
                if n.editors {
                    r.editors = n.authors;
                } else {
                    r.authors = n.authors;
                }
                pos = n.end;
            }
            None => {
                // An author group before an APA date: `Alliance for Excellent Education. (2007).`
                let (end, rest) = title_end(main, 0, false);
                // Title-case words and a full stop before the date; a title in sentence case
                // (`Good chemistry. (1996).`) is not an author.
                let seg = &main[..end];
                let title_case = seg
                    .split_whitespace()
                    .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 4)
                    .all(|w| w.starts_with(char::is_uppercase));
                let group_author = main[end..].starts_with('.')
                    && main[skip_punct(main, rest)..].starts_with('(')
                    && year_candidates(&main[rest..])
                        .first()
                        .is_some_and(|y| y.in_paren && y.start < 4)
                    && seg.split_whitespace().count() <= 10
                    && !seg.chars().any(|c| c.is_ascii_digit())
                    && title_case;
                if group_author {
                    r.authors = vec![Author {
                        family: main[..end].trim().to_string(),
                        given: None,
                    }];
                    pos = rest;
                } else if let Some((org, rest)) = organisation(main) {
                    r.authors = vec![Author {
                        family: org,
                        given: None,
                    }];
                    pos = rest;
                }
            }
        }
    }

    // Year: right after the authors (bare or in a bracketed date such as `(December 1998)`),
    // else the first in brackets, else the last.
    let years = year_candidates(main);
    let head = skip_punct(main, pos);
    let mut t = head;
    let mut after_authors = None;
    if main[head..].starts_with(['(', '[']) {
        if let Some(close) = main[head..]
            .find([')', ']'])
            .filter(|&c| c <= 40)
            .map(|c| head + c)
        {
            if let Some(y) = years.iter().find(|y| y.start > head && y.end <= close) {
                after_authors = Some(y);
                t = skip_punct(main, close + 1);
            } else {
                let inner = main[head + 1..close].trim().to_lowercase();
                if [
                    "forthcoming",
                    "in press",
                    "n.d.",
                    "n.d",
                    "nd",
                    "s.d.",
                    "undated",
                    "in preparation",
                    "submitted",
                    "in print",
                ]
                .contains(&inner.as_str())
                {
                    t = skip_punct(main, close + 1);
                }
            }
        }
    } else if let Some(y) = years.iter().find(|y| y.start == head) {
        after_authors = Some(y);
        t = skip_punct(main, y.end);
    }
    let chosen = after_authors
        .or_else(|| years.iter().find(|y| y.in_paren && y.start >= pos))
        .or_else(|| years.iter().rev().find(|y| y.start >= pos))
        .or_else(|| years.last());
    if let Some(y) = chosen {
        r.year = Some(y.year);
        r.year_suffix = y.suffix.clone();
    }

    // `In A. Editor (Ed.), Title…` with no title of its own before it.
    if main[t..].starts_with("In ") {
        if let Some(n) = parse_names(main, t + 3, main.len()).filter(|n| n.editors) {
            r.editors = n.authors;
            t = skip_punct(main, n.end);
        }
    }

    // Title.
    let comma_style = main[..t].trim_end().ends_with(',');
    let mut rest_start = t;
    if t < main.len() {
        if let Some((a, b, end)) = quoted(main, t) {
            r.title = tidy(&main[a..b]);
            rest_start = end;
        } else if !looks_like_journal(&main[t..]) {
            let (end, next) = title_bounds(main, t, comma_style);
            r.title = tidy(strip_trailing_year(&main[t..end]));
            rest_start = next;
        }
    }

    // The rest: container, locators, place and publisher.
    let rest = &main[skip_punct(main, rest_start.min(main.len()))..];
    let mut rest = rest
        .strip_prefix("In: ")
        .or_else(|| rest.strip_prefix("In "))
        .or_else(|| rest.strip_prefix("in: "))
        .or_else(|| rest.strip_prefix("in "))
        .unwrap_or(rest);
    if let Some(n) = parse_names(rest, 0, rest.len()).filter(|n| n.editors) {
        r.editors = n.authors;
        rest = &rest[skip_punct(rest, n.end)..];
    }
    let loc = locators(rest);
    r.volume = loc.volume.clone();
    r.issue = loc.issue.clone();
    r.pages = loc.pages.clone();
    let pp = place_publisher(rest);
    let year_in_rest = year_candidates(rest).first().map(|y| y.start);
    let mut container_end = [loc.start, year_in_rest, pp.as_ref().map(|p| p.2)]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
    if let Some(i) = rest[..container_end].find(" (") {
        container_end = container_end.min(i);
    }
    let (cend, _) = title_end(rest, 0, true);
    container_end = container_end.min(cend.max(rest.find(", ").unwrap_or(0)).min(rest.len()));
    if let Some((place, publisher, _)) = pp {
        r.location = Some(place);
        r.publisher = Some(publisher);
    }
    r.container = tidy(&rest[..container_end]).filter(|c| c.chars().any(char::is_alphabetic));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apa_journal_article() {
        let r = parse_reference("Buntine, W. (1994). Operations for learning with graphical models. Journal of Artificial Intelligence Research, 2, 159-225.");
        assert_eq!(
            r.authors,
            vec![Author {
                family: "Buntine".into(),
                given: Some("W.".into())
            }]
        );
        assert_eq!(r.year, Some(1994));
        assert_eq!(
            r.title.as_deref(),
            Some("Operations for learning with graphical models")
        );
        assert_eq!(
            r.container.as_deref(),
            Some("Journal of Artificial Intelligence Research")
        );
        assert_eq!(
            (r.volume.as_deref(), r.pages.as_deref()),
            (Some("2"), Some("159-225"))
        );
    }

    #[test]
    fn vancouver_and_ieee() {
        let r = parse_reference(
            "12. Romagnani S. The Th1/Th2 paradigm. Immunol Today 1997; 18:263-266.",
        );
        assert_eq!(r.authors[0].family, "Romagnani");
        assert_eq!(r.year, Some(1997));
        assert_eq!(r.title.as_deref(), Some("The Th1/Th2 paradigm"));
        let r = parse_reference("[7] L. Sha, R. Rajkumar, and J. Lehoczky, \"Priority Inheritance Protocols,\" IEEE Transactions on Computers, Vol. 39, No. 9, 1990, pp. 1175-1185.");
        assert_eq!(r.authors.len(), 3);
        assert_eq!(r.title.as_deref(), Some("Priority Inheritance Protocols"));
        assert_eq!(
            (r.volume.as_deref(), r.issue.as_deref(), r.pages.as_deref()),
            (Some("39"), Some("9"), Some("1175-1185"))
        );
    }

    #[test]
    fn physics_without_title() {
        let r =
            parse_reference("G. Royer, J. Mignen, J. Phys. G, Nucl. Part. Phys. 18 (1992) 1781.");
        assert_eq!(r.authors[1].family, "Mignen");
        assert_eq!(r.year, Some(1992));
        assert_eq!(r.title, None);
        let r = parse_reference("E. Zohar, M. Burrello, Building Projected Entangled Pair States, New J. Phys. 18( 4)( 2016)043008 .arXiv :1511.08426,doi :10.1088/1367-2630/18/4/043008.");
        assert_eq!(r.arxiv.as_deref(), Some("1511.08426"));
        assert_eq!(r.doi.as_deref(), Some("10.1088/1367-2630/18/4/043008"));
        assert_eq!(
            r.title.as_deref(),
            Some("Building Projected Entangled Pair States")
        );
    }

    #[test]
    fn books() {
        let r = parse_reference("Lakoff, George, and Mark Johnson. Metaphors We Live By. Chicago: University of Chicago Press, 2003.");
        assert_eq!(r.authors[1].family, "Johnson");
        assert_eq!(r.title.as_deref(), Some("Metaphors We Live By"));
        assert_eq!(r.location.as_deref(), Some("Chicago"));
        assert_eq!(r.publisher.as_deref(), Some("University of Chicago Press"));
        assert_eq!(r.year, Some(2003));
        let r = parse_reference(
            "Helmholtz, H. von (1866). Handbuch der physiologischen Optik. Leipzig: Voss.",
        );
        assert_eq!(r.authors[0].family, "Helmholtz");
        assert_eq!(r.authors[0].given.as_deref(), Some("H. von"));
        assert_eq!(
            r.title.as_deref(),
            Some("Handbuch der physiologischen Optik")
        );
        assert_eq!(r.year, Some(1866));
        assert_eq!(r.location.as_deref(), Some("Leipzig"));
    }

    #[test]
    fn a_dash_for_the_same_authors_is_not_the_title() {
        let r = parse_reference("———. 1836. Tales of a Grandfather. Edinburgh: R. Cadell.");
        assert!(r.authors.is_empty());
        assert!(r.same_authors_as_before);
        assert!(!parse_reference("Scott, W. 1836. Tales.").same_authors_as_before);
        assert!(parse_reference("[4] ---. 1999. Later work.").same_authors_as_before);
        assert_eq!(r.year, Some(1836));
        assert_eq!(r.title.as_deref(), Some("Tales of a Grandfather"));
        assert_eq!(r.location.as_deref(), Some("Edinburgh"));
        let r = parse_reference(
            "--- (2005). 'Three factors in language design', Linguistic Inquiry 36: 1-22.",
        );
        assert_eq!(r.title.as_deref(), Some("Three factors in language design"));
        assert_eq!(r.year, Some(2005));
        let r =
            parse_reference("__________ . The Evolution of Corporate Planning. Stanford, 1967.");
        assert_eq!(
            r.title.as_deref(),
            Some("The Evolution of Corporate Planning")
        );
        assert_eq!(same_authors_mark("———, 1999"), Some("———, ".len()));
        assert_eq!(same_authors_mark("- one dash"), None);
        assert_eq!(same_authors_mark("Smith, J."), None);
    }

    #[test]
    fn garbage_does_not_panic() {
        for s in [
            "",
            "   ",
            "(((",
            "2019",
            "10.1000/x",
            "\u{0}\u{FFFF}",
            "a.b.c",
            "[1]",
        ] {
            let _ = parse_reference(s);
        }
    }
}

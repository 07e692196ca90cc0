//! Fields read from the tagger's runs ([`super::tagger`]): the text of the first run of each
//! label, normalised the way the rules normalise theirs (labels such as `Vol.` or `pp.`
//! dropped, `4(2)` split into volume and issue, an `In` before a container dropped).

use std::sync::LazyLock;

use regex::Regex;

use super::fields::year_candidates;
use super::names::parse_names;
use super::tagger::{Label, Run};
use super::{tidy, Author};

/// What the tagger read from one reference string.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tagged {
    pub authors: Vec<Author>,
    pub editors: Vec<Author>,
    pub year: Option<(i32, Option<String>)>,
    pub title: Option<String>,
    pub container: Option<String>,
    pub volume: Option<String>,
    pub issue: Option<String>,
    pub pages: Option<String>,
    pub publisher: Option<String>,
    pub location: Option<String>,
}

fn first<'a>(text: &'a str, runs: &[Run], label: Label) -> Option<&'a str> {
    runs.iter()
        .find(|r| r.label == label)
        .map(|r| &text[r.start..r.end])
}

/// Drops a leading label word (`Vol.`, `pp.`, `No.`) from a locator.
fn strip_label<'a>(s: &'a str, labels: &[&str]) -> &'a str {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    for l in labels {
        if let Some(rest) = lower.strip_prefix(l) {
            let rest_t = &t[t.len() - rest.len()..];
            // A label is a word: `pp. 12`, `Vol 3`, not the `S` of `S08002`.
            if rest_t.starts_with(['.', ' ']) {
                return rest_t.trim_start_matches(['.', ' ', ':']);
            }
        }
    }
    t
}

const VOLUME_LABELS: &[&str] = &[
    "volume", "vols", "vol", "bd", "band", "tome", "jg", "t", "v",
];
const ISSUE_LABELS: &[&str] = &["number", "issue", "heft", "no", "nr", "n°", "n"];
const PAGE_LABELS: &[&str] = &["pages", "page", "pp", "pg", "p", "s"];

fn compact(s: &str) -> Option<String> {
    let t: String = s.split_whitespace().collect::<Vec<_>>().join("");
    let t = t.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
    (!t.is_empty()).then_some(t)
}

static PAGE_LABEL_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:pp?|pages?|pg|s)(?:\.\s*|\s+)\d").unwrap_or_else(|e| unreachable!("{e}"))
});
static RANGE_TAIL_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*[-–—]+\s*[A-Za-z]?\d+").unwrap_or_else(|e| unreachable!("{e}"))
});

/// The pages of a pages run: from its last page label on (`XII pp. 16-18` is `16-18`), and
/// through the rest of a range the tagger cut (`1` before `-38`).
fn pages(text: &str, r: &Run) -> Option<String> {
    let mut end = r.end;
    if text[..end].ends_with(|c: char| c.is_ascii_digit()) {
        if let Some(m) = RANGE_TAIL_RE.find(&text[end..]) {
            end += m.end();
        }
    }
    let p = &text[r.start..end];
    let p = match PAGE_LABEL_RE.find_iter(p).last() {
        Some(m) => &p[m.start()..],
        None => p,
    };
    compact(strip_label(p, PAGE_LABELS))
}

/// Reads the fields of `text` from its runs.
pub fn read(text: &str, runs: &[Run]) -> Tagged {
    let mut t = Tagged::default();
    if let Some(a) = first(text, runs, Label::Author) {
        if let Some(n) = parse_names(a, 0, a.len()) {
            t.authors = n.authors;
        }
    }
    if let Some(e) = first(text, runs, Label::Editor) {
        let e = e.strip_prefix("In ").unwrap_or(e);
        if let Some(n) = parse_names(e, 0, e.len()) {
            t.editors = n.authors;
        }
    }
    t.year = runs
        .iter()
        .filter(|r| r.label == Label::Date)
        .find_map(|r| year_candidates(&text[r.start..r.end]).into_iter().next())
        .map(|y| (y.year, y.suffix));
    let tidy = |s: &str| tidy(&super::collapse_ws(s));
    t.title = first(text, runs, Label::Title).and_then(tidy);
    t.container = first(text, runs, Label::Container).and_then(|c| {
        let c = ["In: ", "in: ", "In ", "in "]
            .iter()
            .find_map(|p| c.strip_prefix(p))
            .unwrap_or(c);
        tidy(c)
    });
    if let Some(v) = first(text, runs, Label::Volume) {
        // AnyStyle's convention labels the whole locator as volume: `vol. 20, no. 5`, `44(4)`.
        let v = strip_label(v, VOLUME_LABELS);
        let lower = v.to_ascii_lowercase();
        let split = [
            ", no", " no.", " no ", ", n°", " n°", ", issue", ", nr", ", heft",
        ]
        .iter()
        .filter_map(|sep| lower.find(sep))
        .min();
        match (v.find('('), split) {
            (Some(i), _) => {
                t.volume = compact(&v[..i]);
                t.issue = compact(&v[i + 1..]);
            }
            (None, Some(i)) => {
                t.volume = compact(&v[..i]);
                t.issue = compact(strip_label(
                    v[i..].trim_start_matches([',', ' ']),
                    ISSUE_LABELS,
                ));
            }
            (None, None) => t.volume = compact(v),
        }
    }
    if let Some(i) = first(text, runs, Label::Issue) {
        t.issue = compact(strip_label(i, ISSUE_LABELS));
    }
    t.pages = runs
        .iter()
        .find(|r| r.label == Label::Pages)
        .and_then(|r| pages(text, r));
    t.publisher = first(text, runs, Label::Publisher).and_then(tidy);
    t.location = first(text, runs, Label::Location).and_then(tidy);
    t
}

/// Puts the tagger's value of each field in `fields` into `r`. Authors, editors and year are
/// taken only where the tagger found them; the other fields take the tagger's reading even
/// when it found none (that is the mix the figures in `docs/benchmarks.md` measure).
pub fn merge(r: &mut super::Reference, t: &Tagged, fields: &[&str]) {
    for f in fields {
        match *f {
            "authors" if !t.authors.is_empty() => r.authors = t.authors.clone(),
            "editors" if !t.editors.is_empty() => r.editors = t.editors.clone(),
            "year" => {
                if let Some((y, s)) = &t.year {
                    r.year = Some(*y);
                    r.year_suffix = s.clone();
                }
            }
            "title" => r.title = t.title.clone(),
            "container" => r.container = t.container.clone(),
            "volume" => r.volume = t.volume.clone(),
            "issue" => r.issue = t.issue.clone(),
            "pages" => r.pages = t.pages.clone(),
            "publisher" => r.publisher = t.publisher.clone(),
            "location" => r.location = t.location.clone(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, label: Label, part: &str) -> Run {
        let start = text.find(part).expect("part in text");
        Run {
            label,
            start,
            end: start + part.len(),
        }
    }

    #[test]
    fn locators_are_read_without_their_labels() {
        let text = "Vol. 39, No. 9, pp. 1175 - 1185";
        let t = read(
            text,
            &[
                run(text, Label::Volume, "Vol. 39, No. 9"),
                run(text, Label::Pages, "pp. 1175"),
            ],
        );
        assert_eq!(
            (t.volume.as_deref(), t.issue.as_deref(), t.pages.as_deref()),
            (Some("39"), Some("9"), Some("1175-1185"))
        );
    }

    #[test]
    fn page_prefixes_are_not_labels() {
        for (part, pages) in [
            ("S08002", "S08002"),
            ("S1–S4", "S1–S4"),
            ("pp. 12-19", "12-19"),
        ] {
            let text = format!("x {part} y");
            let t = read(&text, &[run(&text, Label::Pages, part)]);
            assert_eq!(t.pages.as_deref(), Some(pages), "{part}");
        }
        let text = "Journal of\n   Things";
        let t = read(text, &[run(text, Label::Container, text)]);
        assert_eq!(t.container.as_deref(), Some("Journal of Things"));
    }

    #[test]
    fn letters_that_lowercase_longer_do_not_shift_offsets() {
        // `İ` lowercases to two characters: offsets must come from the text itself.
        for part in ["vol İİİİ(2)", "İİ, no İ", "pp İİİİ 1-2", "V İ"] {
            let text = format!("x {part} y");
            for label in [Label::Volume, Label::Issue, Label::Pages] {
                let _ = read(&text, &[run(&text, label, part)]);
            }
        }
    }
}

//! Per-field soft F1 of `parse_reference` on the shared reference sets, GROBID-style micro
//! counts. Shared by the `references_fields` test and the `citations` benchmark.

#![allow(dead_code)]

use kerai_core::references::{parse_reference, Reference};
use kerai_core::shared_data::shared_path;
use serde_json::Value;

pub const FIELDS: [&str; 14] = [
    "year",
    "doi",
    "first_author",
    "authors",
    "title",
    "container",
    "volume",
    "issue",
    "pages",
    "publisher",
    "location",
    "url",
    "arxiv",
    "isbn",
];

/// Soft form: letters and digits only, lowercased.
fn soft(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn is_initials(w: &str) -> bool {
    let letters: Vec<char> = w.chars().filter(|c| c.is_alphabetic()).collect();
    !letters.is_empty()
        && letters.len() <= 3
        && letters.iter().all(|c| c.is_uppercase())
        && (w.contains('.') || letters.len() <= 3)
}

const ORG: &[&str] = &[
    "Department",
    "Ministry",
    "Organization",
    "Organisation",
    "Association",
    "Society",
    "Institute",
    "Agency",
    "Office",
    "Council",
    "Commission",
    "Bureau",
    "University",
    "Committee",
];

/// The first author's family name in a gold author span.
pub fn gold_first_family(raw: &str) -> Option<String> {
    let mut s = raw.trim();
    for p in ["In ", "in ", "By ", "by "] {
        s = s.strip_prefix(p).unwrap_or(s);
    }
    let s = s.split(';').next()?.trim();
    let first_seg = s.split(['.', ',']).next().unwrap_or(s);
    if first_seg.split_whitespace().any(|w| ORG.contains(&w)) {
        return Some(s.trim_end_matches(['.', ',']).to_string());
    }
    let words: Vec<&str> = s.split_whitespace().collect();
    words.first()?;
    const PARTICLES: &[&str] = &[
        "van", "von", "der", "den", "de", "da", "di", "del", "della", "du", "dos", "das", "la",
        "le", "ter", "ten",
    ];
    if let Some(comma) = s.find(',') {
        // `Family, Given`; the family may have particles before it (`van der Berg, J.`, `Di Michele, A.`).
        let pre: Vec<&str> = s[..comma].split_whitespace().collect();
        let particles = pre
            .iter()
            .take_while(|w| PARTICLES.contains(&w.to_lowercase().as_str()))
            .count();
        let core = &pre[particles..];
        if core.len() == 1
            && core[0].chars().filter(|c| c.is_alphabetic()).count() > 1
            && !is_initials(core[0])
        {
            return Some(s[..comma].trim().to_string());
        }
    }
    let cut = [",", " and ", " & ", " et ", " und ", ":"]
        .iter()
        .filter_map(|sep| s.find(sep))
        .min()
        .unwrap_or(s.len());
    let seg: Vec<&str> = s[..cut]
        .split_whitespace()
        .map(|w| w.trim_end_matches([',', ':', ';']))
        .filter(|w| !w.is_empty())
        .collect();
    if seg.is_empty() {
        return None;
    }
    if seg.len() == 1 {
        return Some(seg[0].to_string());
    }
    if is_initials(seg[0]) {
        let rest: Vec<&str> = seg.iter().copied().skip_while(|w| is_initials(w)).collect();
        return (!rest.is_empty()).then(|| rest.join(" "));
    }
    if seg.iter().skip(1).all(|w| is_initials(w)) {
        return Some(seg[0].to_string());
    }
    // Vancouver with a two-word family: `Guha Mazumder DN`, `Klein Gunnewiek JMT`.
    if seg.len() >= 3 && is_initials(seg[seg.len() - 1]) && !seg[seg.len() - 1].contains('.') {
        return Some(seg[..seg.len() - 1].join(" "));
    }
    let caps = |w: &str| {
        w.chars().filter(|c| c.is_alphabetic()).count() > 1 && w.chars().all(|c| !c.is_lowercase())
    };
    if caps(seg[0]) && !caps(seg[1]) {
        return Some(seg[0].to_string());
    }
    // Given names first: the last word, with the particles before it.
    let mut k = seg.len() - 1;
    while k > 0 && seg[k - 1].starts_with(char::is_lowercase) {
        k -= 1;
    }
    Some(seg[k..].join(" "))
}

/// Strips a leading label word (`Vol. 3`, `pp. 12-19`, `No. 4`) from a locator value.
fn strip_label<'a>(s: &'a str, labels: &[&str]) -> &'a str {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    for l in labels {
        if let Some(rest) = lower.strip_prefix(l) {
            // A label is a whole word: `pp. 5`, `Vol 3`, `S. 12`, not the `p` of `p12a`.
            let cut = t.len() - rest.len();
            let rest_t = &t[cut..];
            if rest_t.starts_with(['.', ' ']) {
                return rest_t.trim_start_matches(['.', ' ']);
            }
        }
    }
    t
}

const VOLUME_LABELS: &[&str] = &[
    "volumes", "volume", "vols", "vol", "bd", "band", "tome", "jg", "t", "v",
];
const ISSUE_LABELS: &[&str] = &["number", "issue", "heft", "no", "nr", "n°", "n"];
const PAGE_LABELS: &[&str] = &["pages", "page", "pp", "pg", "p", "s"];

/// The byte range of a span of the shared sets, whose `start` and `end` count characters;
/// None when they fall outside `text` or run backwards.
pub fn byte_span(text: &str, span: &Value) -> Option<(usize, usize)> {
    let (a, b) = (
        span["start"].as_u64()? as usize,
        span["end"].as_u64()? as usize,
    );
    let byte_at = |k: usize| {
        text.char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(text.len()))
            .nth(k)
    };
    let (a, b) = (byte_at(a)?, byte_at(b)?);
    (a <= b).then_some((a, b))
}

/// The gold volume and the issue written inside it. AnyStyle labels the whole locator
/// (`Vol. 39, No. 9`, `4(2`) as volume and leaves its normaliser to split it; this does the
/// same split, so the gold is `39` / `9` and `4` / `2`. GROBID's `biblScope` without a unit
/// (`scope` spans) is the volume when no span says `volume`, and the next one the issue.
fn gold_volume_issue(fields: &Value, row: &Value) -> (Option<String>, Option<String>) {
    let scopes: Vec<String> = row["spans"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|s| s["label"] == "scope")
                .filter_map(|s| {
                    let text = row["text"].as_str()?;
                    let (a, b) = byte_span(text, s)?;
                    Some(text[a..b].to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    let mut issue = fields["issue"].as_str().map(str::to_string);
    let raw = match fields["volume"].as_str() {
        Some(v) => v.to_string(),
        None => {
            if issue.is_none() {
                issue = scopes.get(1).cloned();
            }
            match scopes.first() {
                Some(v) => v.clone(),
                None => return (None, issue),
            }
        }
    };
    let v = strip_label(&raw, VOLUME_LABELS);
    let (vol, inner) = match v.find('(') {
        Some(i) => (
            &v[..i],
            Some(v[i + 1..].trim_end_matches([')', '.', ',', ' '])),
        ),
        None => {
            let lower = v.to_ascii_lowercase();
            match [
                ", no", " no.", " no ", ", n°", " n°", ", issue", ", nr", ", heft",
            ]
            .iter()
            .filter_map(|sep| lower.find(sep))
            .min()
            {
                Some(i) => (
                    &v[..i],
                    Some(strip_label(
                        v[i..].trim_start_matches([',', ' ']),
                        ISSUE_LABELS,
                    )),
                ),
                None => (v, None),
            }
        }
    };
    if issue.is_none() {
        issue = inner.filter(|s| !s.is_empty()).map(str::to_string);
    }
    (Some(vol.to_string()), issue)
}

/// The words of an author list that name people or bodies, lowercased and sorted: every
/// word of two letters or more, without initials (up to three capitals: `ED`, `JF`) and the
/// words that join names (`and`, `et al.`, `eds`). The same for the gold span and the parsed
/// authors, so `authors` scores the whole list: every name found, and nothing else read as one.
fn name_words<'a>(parts: impl Iterator<Item = &'a str>) -> Option<String> {
    const JOINS: &[&str] = &[
        "and", "und", "et", "al", "eds", "ed", "edited", "by", "in", "with", "others", "y",
    ];
    let mut words: Vec<String> = parts
        .flat_map(|p| p.split(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .filter(|w| !(w.len() <= 3 && w.chars().all(|c| c.is_uppercase())))
        .map(str::to_lowercase)
        .filter(|w| !JOINS.contains(&w.as_str()))
        .collect();
    words.sort();
    (!words.is_empty()).then(|| words.join(" "))
}

fn gold_value(fields: &Value, row: &Value, field: &str) -> Option<String> {
    let v = match field {
        "volume" => gold_volume_issue(fields, row).0?,
        "issue" => strip_label(&gold_volume_issue(fields, row).1?, ISSUE_LABELS).to_string(),
        "pages" => strip_label(fields["pages"].as_str()?, PAGE_LABELS).to_string(),
        // AnyStyle's container spans keep the `In` before them (`In Proceedings of…`); its
        // normaliser drops it, and so does this.
        "container" => {
            let c = fields["container"].as_str()?.trim();
            ["In: ", "in: ", "In ", "in "]
                .iter()
                .find_map(|p| c.strip_prefix(p))
                .unwrap_or(c)
                .to_string()
        }
        "first_author" => gold_first_family(fields["authors"].as_array()?.first()?.as_str()?)?,
        "authors" => name_words(
            fields["authors"]
                .as_array()?
                .iter()
                .filter_map(Value::as_str),
        )?,
        // The label is not part of the value: `arXiv:1609.04406`, `ISBN 0-486-67260-3`, `URL: www…`.
        f @ ("arxiv" | "isbn" | "url") => {
            let a = soft(fields[f].as_str()?);
            a.strip_prefix(f).unwrap_or(&a).to_string()
        }
        f => fields[f].as_str()?.to_string(),
    };
    let v = soft(&v);
    (!v.is_empty()).then_some(v)
}

fn pred_value(r: &Reference, field: &str) -> Option<String> {
    let v = match field {
        "year" => r.year.map(|y| y.to_string()),
        "doi" => r.doi.clone(),
        "first_author" => r.authors.first().map(|a| a.family.clone()),
        "authors" => name_words(
            r.authors
                .iter()
                .flat_map(|a| [a.family.as_str(), a.given.as_deref().unwrap_or("")]),
        ),
        "title" => r.title.clone(),
        "container" => r.container.clone(),
        "volume" => r.volume.clone(),
        "issue" => r.issue.clone(),
        "pages" => r.pages.clone(),
        "publisher" => r.publisher.clone(),
        "location" => r.location.clone(),
        "url" => r.url.clone(),
        "arxiv" => r.arxiv.clone(),
        "isbn" => r.isbn.clone(),
        _ => None,
    }?;
    let v = soft(&v);
    (!v.is_empty()).then_some(v)
}

#[derive(Default, Clone, Copy)]
pub struct Counts {
    pub tp: usize,
    pub fp: usize,
    pub fn_: usize,
}

impl Counts {
    pub fn f1(&self) -> (f64, f64, f64) {
        let p = if self.tp + self.fp > 0 {
            self.tp as f64 / (self.tp + self.fp) as f64
        } else {
            0.0
        };
        let r = if self.tp + self.fn_ > 0 {
            self.tp as f64 / (self.tp + self.fn_) as f64
        } else {
            0.0
        };
        (
            p,
            r,
            if p + r > 0.0 {
                2.0 * p * r / (p + r)
            } else {
                0.0
            },
        )
    }
}

/// Scores every `stride`-th line of the set (1 = all of it) and prints the table.
pub fn evaluate(rel: &str, stride: usize) -> Vec<(&'static str, Counts)> {
    let label = format!("{rel} (every {stride})");
    evaluate_by(
        rel,
        &label,
        |i| i.is_multiple_of(stride.max(1)),
        parse_reference,
    )
}

/// Which lines of a set the tagger was trained on: all but every fifth (`index % 5 == 0` is
/// held out).
pub fn held_out(index: usize) -> bool {
    index.is_multiple_of(5)
}

/// Scores the lines whose index `select` accepts, parsed by `parse`, and prints the table.
pub fn evaluate_by(
    rel: &str,
    label: &str,
    select: impl Fn(usize) -> bool,
    parse: impl Fn(&str) -> Reference,
) -> Vec<(&'static str, Counts)> {
    let data = std::fs::read_to_string(shared_path(rel)).expect("read reference set");
    let show = std::env::var("KERAI_SHOW_FIELD").ok();
    let mut counts = vec![Counts::default(); FIELDS.len()];
    let mut n = 0;
    for (i, line) in data.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        if !select(i) {
            continue;
        }
        let row: Value = serde_json::from_str(line).expect("json line");
        let text = row["text"].as_str().unwrap_or("");
        let r = parse(text);
        n += 1;
        for (i, f) in FIELDS.iter().enumerate() {
            let g = gold_value(&row["fields"], &row, f);
            let p = pred_value(&r, f);
            let c = &mut counts[i];
            match (&g, &p) {
                (Some(g), Some(p)) if g == p => c.tp += 1,
                (Some(_), Some(_)) => {
                    c.fp += 1;
                    c.fn_ += 1;
                }
                (Some(_), None) => c.fn_ += 1,
                (None, Some(_)) => c.fp += 1,
                (None, None) => {}
            }
            if show.as_deref() == Some(*f) && g != p {
                let gold_raw = if *f == "first_author" || *f == "authors" {
                    row["fields"]["authors"].to_string()
                } else {
                    row["fields"][*f].to_string()
                };
                println!("{text}\n    gold {gold_raw}  ->  {g:?}\n    got  {p:?}");
            }
        }
    }
    println!("{label}: {n} references");
    println!("{:<13} {:>6} {:>6} {:>6}", "field", "P", "R", "F1");
    for (i, f) in FIELDS.iter().enumerate() {
        let (p, r, f1) = counts[i].f1();
        println!("{f:<13} {p:>6.3} {r:>6.3} {f1:>6.3}");
    }
    FIELDS.iter().copied().zip(counts).collect()
}

pub fn f1_of(res: &[(&str, Counts)], field: &str) -> f64 {
    res.iter()
        .find(|(f, _)| *f == field)
        .map_or(0.0, |(_, c)| c.f1().2)
}

//! S0 raw extraction: institutional pages to [`SourceRecord`]s with clean text and provenance.
//!
//! Rules, in order, for each page (pages are independent; a page that cannot be read is
//! quarantined with an error record and the batch goes on):
//! 1. **Check** the input looks like HTML: empty, binary (NUL or control bytes), PDF and
//!    markup-free inputs fail with a `corrupt or unsupported document` error.
//! 2. **Segment** by DOM cues with the block typer: headings, paragraphs, list items, table
//!    rows (cells joined by ` | `), code, quotes; paragraphs made of bullet lines (`•`, `-`,
//!    `*`, `–`, `▪`, `►`) are split into one record per line. Only main-content blocks (and
//!    sidebar blocks, unless `include_sidebars` is off) are used: navigation, page header,
//!    footer, share bars, ads, comments are boilerplate. Headings are not records; they are
//!    the `section` (the heading path, `H1 > H2`) of the records that follow.
//! 3. **Normalise**: whitespace collapsed, markup stripped; list structure is kept as markers
//!    (`- ` / `1. `) inside multi-line texts, and as hints (`list_item`, `bullet`,
//!    `table_row`, ...) in `meta.hints`.
//! 4. **Section heuristic** (seed example A): inside a section whose heading names a list of
//!    things (a plural noun phrase: "Departments", "Schools", "Our Programs", or "Staff",
//!    "Faculty", "People", "Leadership"), a list item or table row that is only a site
//!    navigation / administration target ("Admissions", "Apply", "Contact us", "News",
//!    "Login", "Careers", "Giving", ...; see `ADMIN_TERMS`) is dropped.
//! 5. **Length bounds**: texts shorter than `min_chars` (12) or longer than `max_chars` (2000)
//!    are dropped unless they contain a `whitelist` term (case-insensitive).
//! 6. **De-duplication** within the page: MinHash (64 hashes of character 4-grams) finds a
//!    block at least `dedup_threshold` (0.95) similar to an earlier one; the later is dropped,
//!    so the first occurrence and its (earliest) section are kept.
//! 7. **Language**: with `target_language` set, a record whose text is the target with
//!    P ≥ `min_language_probability` (0.8) is kept, one that is another language with
//!    P ≥ 0.8 is dropped. Texts of fewer than `short_text_words` (4) words, and texts for
//!    which no language reaches 0.8, are judged by their page's language (detected on all
//!    its candidate texts when that reaches 0.8, else the declared `<html lang>`); when the
//!    page's language is unknown too, the text is kept and its language left empty
//!    (trigram detectors cannot tell "Computer Science" from French; dropping it would be
//!    a guess).
//! 8. Order within a page is preserved.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::blocks::{Block, BlockKind, SectionType};
use super::dom::{Document, Tag};
use super::extract::segment;
use super::language::{declared_language, detect_language_among, DEFAULT_LANGUAGES};
use super::minhash::{signature, DedupIndex};
use super::shell::parse_page;
use crate::error::ResourceError;

/// One page to turn into records.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageInput {
    /// The page as fetched (decoded to UTF-8).
    pub html: String,
    /// Where it was fetched from (base for links, provenance).
    pub url: String,
    /// The institution id the page belongs to.
    pub institution: String,
    /// When it was fetched (RFC 3339 text, passed through).
    #[serde(default)]
    pub fetched_at: Option<String>,
}

/// Options (every field has a default, so `{}` is a valid JSON options object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SourceOptions {
    /// Keep only records in this language (ISO 639-1); `None` keeps every language.
    pub target_language: Option<String>,
    /// Minimum P(target) to keep a record.
    pub min_language_probability: f64,
    /// Texts with fewer words are judged by their page's language (rule 7).
    pub short_text_words: usize,
    /// Candidate languages of the detector (ISO 639-1; empty: all it knows).
    pub languages: Vec<String>,
    /// Shortest text kept (characters).
    pub min_chars: usize,
    /// Longest text kept (characters).
    pub max_chars: usize,
    /// Terms that exempt a text from the length bounds (case-insensitive substring).
    pub whitelist: Vec<String>,
    /// Estimated Jaccard similarity at which a later block is a duplicate of an earlier one.
    pub dedup_threshold: f64,
    /// Use sidebar blocks besides the main content.
    pub include_sidebars: bool,
    /// Apply the section heuristic (rule 4).
    pub drop_admin_items: bool,
    /// Sample records kept per institution.
    pub samples_per_institution: usize,
}

impl Default for SourceOptions {
    fn default() -> Self {
        SourceOptions {
            target_language: None,
            min_language_probability: 0.8,
            short_text_words: 4,
            languages: DEFAULT_LANGUAGES.iter().map(|s| s.to_string()).collect(),
            min_chars: 12,
            max_chars: 2000,
            whitelist: Vec::new(),
            dedup_threshold: 0.95,
            include_sidebars: true,
            drop_admin_items: true,
            samples_per_institution: 5,
        }
    }
}

/// Where a record comes from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The page's institution id.
    pub institution: String,
    /// The page's URL.
    pub url: String,
    /// The heading path of the block (`H1 > H2`), when it has headings above it.
    pub section: Option<String>,
    /// The `id` of the nearest heading (a URL fragment), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// When the page was fetched.
    pub fetched_at: Option<String>,
}

/// What is known about a record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordMeta {
    /// Language (ISO 639-1): the text's when detected with confidence, else the page's
    /// (hint `short_text_page_language` / `uncertain_text_page_language`); `None` when
    /// unknown.
    pub language: Option<String>,
    /// The page's declared charset (`utf-8` when none is declared).
    pub charset: Option<String>,
    /// Structure cues: `list_item`, `ordered`, `bullet`, `table_row`, `paragraph`, `quote`,
    /// `code`, `sidebar`, `short_text_page_language`.
    pub hints: Vec<String>,
    /// Set on the error record of a page that could not be read.
    pub error: Option<String>,
}

/// One S0 record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SourceRecord {
    /// Clean text (empty on an error record).
    pub text: String,
    /// Where it comes from.
    pub provenance: Provenance,
    /// Language, charset, hints, error.
    pub meta: RecordMeta,
}

/// Counters of a batch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// Pages given.
    pub pages_seen: u64,
    /// Pages that could not be read (quarantined).
    pub pages_failed: u64,
    /// Candidate blocks after segmentation.
    pub blocks_total: u64,
    /// Records made.
    pub blocks_kept: u64,
    /// Dropped as near-duplicates of an earlier block of the page.
    pub blocks_deduped: u64,
    /// Dropped by the length bounds (rule 5).
    pub blocks_dropped_length: u64,
    /// Dropped by the language filter (rule 7).
    pub blocks_dropped_language: u64,
    /// Dropped by the section heuristic (rule 4).
    pub blocks_dropped_section: u64,
    /// Records kept per language (`und` when undetermined).
    pub by_language: BTreeMap<String, u64>,
}

/// The result of [`source_records`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SourceRecordsOutput {
    /// Records in page order then block order; error records of failed pages included.
    pub records: Vec<SourceRecord>,
    /// What happened, in numbers.
    pub counters: Counters,
    /// First records (texts) of each institution, for spot checks.
    pub samples: BTreeMap<String, Vec<String>>,
    /// URLs of pages that failed and were quarantined.
    pub quarantined: Vec<String>,
}

/// Targets that are site navigation or administration rather than entities (rule 4).
const ADMIN_TERMS: &[&str] = &[
    "admission",
    "admissions",
    "apply",
    "apply now",
    "about",
    "about us",
    "contact",
    "contact us",
    "home",
    "news",
    "events",
    "news and events",
    "news events",
    "login",
    "log in",
    "sign in",
    "search",
    "menu",
    "careers",
    "jobs",
    "giving",
    "give",
    "donate",
    "make a gift",
    "directory",
    "calendar",
    "privacy",
    "privacy policy",
    "terms",
    "terms of use",
    "sitemap",
    "site map",
    "accessibility",
    "faq",
    "faqs",
    "help",
    "support",
    "visit",
    "visit us",
    "tuition",
    "financial aid",
    "tuition and financial aid",
    "registrar",
    "bookstore",
    "parking",
    "maps",
    "map",
    "emergency",
    "policies",
    "more",
    "read more",
    "learn more",
    "view all",
    "see all",
    "back",
    "back to top",
    "subscribe",
    "newsletter",
    "follow us",
    "share",
    "email",
    "print",
    "portal",
    "my account",
    "webmail",
    "intranet",
    "request info",
    "request information",
];

/// Heading last words that name a group of people rather than a plural.
const GROUP_NOUNS: &[&str] = &[
    "staff",
    "faculty",
    "people",
    "leadership",
    "personnel",
    "team",
    "directory",
];

fn words_of(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect()
}

/// Whether a heading names a list of things ("Departments", "Our Schools", "Faculty").
fn is_listing_heading(h: &str) -> bool {
    let w = words_of(h);
    let Some(last) = w.last() else { return false };
    if w.len() > 6 {
        return false;
    }
    GROUP_NOUNS.contains(&last.as_str())
        || (last.len() > 3
            && last.ends_with('s')
            && !last.ends_with("ss")
            && !last.ends_with("us")
            && !last.ends_with("is"))
}

fn is_admin_item(text: &str) -> bool {
    let norm = words_of(text).join(" ");
    ADMIN_TERMS.contains(&norm.as_str())
}

/// Markers that start a bullet line.
const BULLETS: &[char] = &[
    '•', '·', '-', '*', '–', '▪', '►', '‣', '◦', '●', '○', '■', '□',
];

fn bullet_body(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let mut chars = t.chars();
    let c = chars.next()?;
    if BULLETS.contains(&c) {
        let rest = chars.as_str();
        if rest.starts_with(char::is_whitespace) {
            return Some(rest.trim());
        }
    }
    None
}

/// Checks that `html` looks like an HTML page (rule 1).
fn check_page(html: &str, url: &str) -> Result<(), ResourceError> {
    let t = html.trim_start_matches('\u{feff}').trim();
    if t.is_empty() {
        return Err(ResourceError::corrupt(url, "empty page"));
    }
    if t.starts_with("%PDF") {
        return Err(ResourceError::corrupt(url, "a PDF document, not HTML"));
    }
    let head: String = t.chars().take(4096).collect();
    let n = head.chars().count().max(1);
    let bad = head
        .chars()
        .filter(|&c| c == '\u{0}' || c == '\u{FFFD}' || (c.is_control() && !c.is_whitespace()))
        .count();
    if bad * 20 > n {
        return Err(ResourceError::corrupt(url, "binary data, not HTML"));
    }
    if !t.contains('<') || !t.contains('>') {
        return Err(ResourceError::corrupt(url, "no HTML markup"));
    }
    Ok(())
}

/// The declared charset of a page (`utf-8` when none).
fn charset_of(doc: &Document) -> String {
    for m in doc.find_all(Tag::Meta) {
        if let Some(c) = doc.attr(m, "charset") {
            return c.trim().to_ascii_lowercase();
        }
        if doc
            .attr(m, "http-equiv")
            .is_some_and(|h| h.eq_ignore_ascii_case("content-type"))
        {
            if let Some(c) = doc.attr(m, "content").and_then(|c| {
                c.to_ascii_lowercase()
                    .split("charset=")
                    .nth(1)
                    .map(str::to_string)
            }) {
                return c
                    .trim()
                    .trim_matches(|c| c == '"' || c == '\'' || c == ';')
                    .to_string();
            }
        }
    }
    "utf-8".to_string()
}

/// A record candidate before filtering.
struct Candidate {
    text: String,
    section: Option<String>,
    heading: Option<String>,
    anchor: Option<String>,
    hints: Vec<String>,
    item: bool,
}

fn candidates(blocks: &[Block], opts: &SourceOptions) -> Vec<Candidate> {
    let mut out = Vec::new();
    for b in blocks {
        let sidebar = b.section_type == SectionType::Sidebar && !b.main;
        if !(b.main || (opts.include_sidebars && sidebar)) || b.kind == BlockKind::Heading {
            continue;
        }
        let section = if b.section_path.is_empty() {
            None
        } else {
            Some(b.section_path.join(" > "))
        };
        let mut hints: Vec<String> = Vec::new();
        if sidebar {
            hints.push("sidebar".to_string());
        }
        let mut push = |text: String, mut h: Vec<String>, item: bool| {
            h.extend(hints.iter().cloned());
            out.push(Candidate {
                text,
                section: section.clone(),
                heading: b.heading.clone(),
                anchor: b.anchor.clone(),
                hints: h,
                item,
            });
        };
        match b.kind {
            BlockKind::ListItem => {
                let mut h = vec!["list_item".to_string()];
                if b.markdown
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_digit())
                {
                    h.push("ordered".to_string());
                }
                if b.list_depth > 0 {
                    h.push(format!("list_depth:{}", b.list_depth));
                }
                push(normalize_lines(&b.text), h, true);
            }
            BlockKind::Table => {
                for row in b.text.lines().filter(|l| !l.trim().is_empty()) {
                    push(collapse(row), vec!["table_row".to_string()], true);
                }
            }
            BlockKind::Code => push(b.text.trim().to_string(), vec!["code".to_string()], false),
            _ => {
                let lines: Vec<&str> = b.text.lines().filter(|l| !l.trim().is_empty()).collect();
                let bullets = lines.iter().filter(|l| bullet_body(l).is_some()).count();
                if lines.len() >= 2 && bullets * 2 >= lines.len() {
                    for l in lines {
                        match bullet_body(l) {
                            Some(body) => push(collapse(body), vec!["bullet".to_string()], true),
                            None => push(collapse(l), vec!["paragraph".to_string()], false),
                        }
                    }
                } else {
                    let kind = if b.kind == BlockKind::Quote {
                        "quote"
                    } else {
                        "paragraph"
                    };
                    push(normalize_lines(&b.text), vec![kind.to_string()], false);
                }
            }
        }
    }
    out
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whitespace collapsed within lines; bullet lines get a `- ` marker.
fn normalize_lines(s: &str) -> String {
    s.lines()
        .map(|l| match bullet_body(l) {
            Some(b) => format!("- {}", collapse(b)),
            None => collapse(l),
        })
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The language of a page for records too short or uncertain to judge alone: detected on
/// its candidate texts when confident, else the declared `<html lang>`, else unknown.
fn page_language(doc: &Document, text: &str, langs: &[&str], min_p: f64) -> Option<String> {
    let detected = detect_language_among(text, langs);
    match detected.first() {
        Some((l, p)) if *p >= min_p => Some(l.clone()),
        _ => declared_language(doc),
    }
}

/// Turns pages into S0 source records (see the module docs for the rules).
pub fn source_records(pages: &[PageInput], options: &SourceOptions) -> SourceRecordsOutput {
    let mut out = SourceRecordsOutput::default();
    let langs: Vec<&str> = options.languages.iter().map(String::as_str).collect();
    for page in pages {
        out.counters.pages_seen += 1;
        let provenance = |section: Option<String>, anchor: Option<String>| Provenance {
            institution: page.institution.clone(),
            url: page.url.clone(),
            section,
            anchor,
            fetched_at: page.fetched_at.clone(),
        };
        if let Err(e) = check_page(&page.html, &page.url) {
            out.counters.pages_failed += 1;
            out.quarantined.push(page.url.clone());
            out.records.push(SourceRecord {
                text: String::new(),
                provenance: provenance(None, None),
                meta: RecordMeta {
                    error: Some(e.to_string()),
                    ..Default::default()
                },
            });
            continue;
        }
        let doc = parse_page(&page.html);
        let charset = charset_of(&doc);
        let (blocks, _, _) = segment(&doc, &page.url, false);
        let cands = candidates(&blocks, options);
        out.counters.blocks_total += cands.len() as u64;
        // The page's language, for texts too short to judge alone.
        let page_text: String = cands
            .iter()
            .map(|c| c.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
            .chars()
            .take(3000)
            .collect();
        let page_lang = page_language(&doc, &page_text, &langs, options.min_language_probability);
        let mut index = DedupIndex::default();
        for c in cands {
            if options.drop_admin_items
                && c.item
                && c.heading.as_deref().is_some_and(is_listing_heading)
                && is_admin_item(&c.text)
            {
                out.counters.blocks_dropped_section += 1;
                continue;
            }
            let len = c.text.chars().count();
            if len < options.min_chars || len > options.max_chars {
                let lower = c.text.to_lowercase();
                if !options
                    .whitelist
                    .iter()
                    .any(|w| !w.is_empty() && lower.contains(&w.to_lowercase()))
                {
                    out.counters.blocks_dropped_length += 1;
                    continue;
                }
            }
            if index
                .check_and_add(signature(&c.text), options.dedup_threshold)
                .is_some()
            {
                out.counters.blocks_deduped += 1;
                continue;
            }
            let mut hints = c.hints;
            let short = words_of(&c.text).len() < options.short_text_words;
            let own = if short {
                Vec::new()
            } else {
                detect_language_among(&c.text, &langs)
            };
            let confident = own
                .first()
                .filter(|d| d.1 >= options.min_language_probability)
                .map(|d| d.0.clone());
            let language = match &confident {
                Some(l) => Some(l.clone()),
                None => {
                    hints.push(
                        if short {
                            "short_text_page_language"
                        } else {
                            "uncertain_text_page_language"
                        }
                        .to_string(),
                    );
                    page_lang.clone()
                }
            };
            if let Some(target) = &options.target_language {
                // Confidently the target: keep; confidently another language: drop; too
                // short or uncertain: the page's language decides, and an unknown one is
                // not held against the text.
                let keep = match &language {
                    Some(l) => l.eq_ignore_ascii_case(target),
                    None => true,
                };
                if !keep {
                    out.counters.blocks_dropped_language += 1;
                    continue;
                }
            }
            out.counters.blocks_kept += 1;
            *out.counters
                .by_language
                .entry(language.clone().unwrap_or_else(|| "und".to_string()))
                .or_default() += 1;
            let samples = out.samples.entry(page.institution.clone()).or_default();
            if samples.len() < options.samples_per_institution {
                samples.push(c.text.clone());
            }
            out.records.push(SourceRecord {
                text: c.text,
                provenance: provenance(c.section, c.anchor),
                meta: RecordMeta {
                    language,
                    charset: Some(charset.clone()),
                    hints,
                    error: None,
                },
            });
        }
    }
    out
}

/// [`source_records`] with options given as JSON (as SQL passes a `jsonb`); a malformed
/// options object is an error naming it.
pub fn source_records_json(
    pages: &[PageInput],
    options_json: &str,
) -> Result<SourceRecordsOutput, ResourceError> {
    let opts: SourceOptions = if options_json.trim().is_empty() {
        SourceOptions::default()
    } else {
        serde_json::from_str(options_json).map_err(|e| {
            ResourceError::corrupt(
                "source_records options",
                format!("{e}; expected a JSON object like {{\"target_language\": \"en\"}}"),
            )
        })?
    };
    Ok(source_records(pages, &opts))
}

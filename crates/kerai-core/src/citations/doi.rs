//! DOI detection, validation and normalisation.
//!
//! A DOI is `10.<registrant>/<suffix>`. The registrant is digits with optional dotted
//! sub-parts (`10.1000`, `10.0001.112`) holding four digits or more in all. The suffix follows
//! Crossref's character set (`-._;()/:`, letters, digits) plus the `<…>` of old Wiley SICI
//! DOIs; `%XX` escapes are decoded. What PDF text extraction glues onto a DOI is cut off: an
//! unbalanced `)`, trailing `.,;:`, `.URL`/`.PMID…` joins, a trailing `(2019)` year and an
//! unclosed `(` that opens a word. A DOI that a line break cuts after `-`, `/`, `_` or `.`
//! (where no DOI ends) reads on across the break.

use std::sync::LazyLock;

use regex::Regex;

/// Longest suffix considered, in bytes.
const MAX_SUFFIX: usize = 300;

/// `10.` + registrant + `/` (or `%2F`).
static PREFIX_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"10\.(\d{2,9}(?:\.\d+)*)(?:/|%2[fF])").unwrap_or_else(|_| unreachable!())
});
/// `doi: 10. 1107/…`: a space after `10.` in PDF text, accepted only after a `doi` label.
static SPACED_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)doi\s*[:=]?\s*10\.\s+(\d{4,9}(?:\.\d+)*)(?:/|%2[fF])")
        .unwrap_or_else(|_| unreachable!())
});
/// `doi = "12345/12345.3"`: python-doi's DOIs without the `10.` directory, only after a label.
static UNPREFIXED_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)(?-u:\b)doi\s*[:=]\s*["']?(\d{4,9})(?:/|%2[fF])"#)
        .unwrap_or_else(|_| unreachable!())
});
/// Words that PDF extraction glues to the end of a DOI with a dot: `…2863.URL`, `….PMID:…`.
static JOIN_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\.(?:URL|Url|PMID|PMCID|PubMed|Pubmed|Epub|EPUB|ISBN|ISSN|Available|Accessed|Retrieved|Published|arXiv|ArXiv|http|HTTP|www|WWW|Google|CrossRef|Crossref|Medline|MEDLINE|Scopus|Abstract|Full|PDF)",
    )
    .unwrap_or_else(|_| unreachable!())
});
static TRAILING_YEAR_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9]\((?:1[89]|20)\d\d\)$").unwrap_or_else(|_| unreachable!())
});

/// A DOI found in text: byte offsets of the whole match (label included) and the DOI itself,
/// decoded, case preserved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoiMatch {
    pub start: usize,
    pub end: usize,
    pub doi: String,
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// The suffix scanned from `i`: decoded text and, per decoded byte, the raw end offset.
struct Scanned {
    decoded: String,
    raw_ends: Vec<usize>,
}

impl Scanned {
    fn raw_end(&self, decoded_len: usize, start: usize) -> usize {
        if decoded_len == 0 {
            start
        } else {
            self.raw_ends[decoded_len - 1]
        }
    }
}

fn push(sc: &mut Scanned, c: char, raw_end: usize) {
    sc.decoded.push(c);
    for _ in 0..c.len_utf8() {
        sc.raw_ends.push(raw_end);
    }
}

/// Whether the first word of the next line goes on with a DOI cut by the line break: it
/// starts with a letter or digit (after a `.`, not a capital: that opens a sentence), holds a
/// digit or a DOI separator (`cell.2009.01.042`, `2728(89)90006-4`, `nrn2787`), and is not an
/// entry number (`2.`, `3)`, `[4]`) or a year.
fn continues_doi(token: &str, after_dot: bool) -> bool {
    let Some(first) = token.chars().next() else {
        return false;
    };
    let starts = if after_dot {
        first.is_ascii_lowercase() || first.is_ascii_digit()
    } else {
        first.is_ascii_alphanumeric()
    };
    let digits = token.bytes().take_while(u8::is_ascii_digit).count();
    let numbered = (1..=3).contains(&digits)
        && matches!(
            token.as_bytes().get(digits),
            Some(b'.' | b')' | b']') | None
        )
        && token.len() <= digits + 1;
    let year =
        digits == 4 && token.len() <= 5 && (token.starts_with("19") || token.starts_with("20"));
    let doi_like = token
        .chars()
        .any(|c| c.is_ascii_digit() || matches!(c, '.' | '/' | '-' | '(' | '_' | ';'));
    starts && doi_like && !numbered && !year
}

/// Reads suffix characters from `i` until a character no DOI suffix holds.
fn scan_suffix(text: &str, i: usize) -> Scanned {
    let b = text.as_bytes();
    let limit = text.len().min(i + MAX_SUFFIX);
    let mut sc = Scanned {
        decoded: String::new(),
        raw_ends: Vec::new(),
    };
    let mut depth = 0usize;
    let mut k = i;
    while k < limit {
        let Some(c) = text[k..].chars().next() else {
            break;
        };
        let len = c.len_utf8();
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '.' | '_' | ';' | '/' | ':' => {
                push(&mut sc, c, k + len)
            }
            '\u{2010}' | '\u{2011}' => push(&mut sc, '-', k + len),
            '(' => {
                depth += 1;
                push(&mut sc, c, k + len);
            }
            ')' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                push(&mut sc, c, k + len);
            }
            '<' => {
                // Only a SICI segment such as `<483::AID-AJPA4>`: digits, letters, `:` and `-`.
                let window = &b[k + 1..b.len().min(k + 64)];
                let body = window
                    .iter()
                    .take_while(|x| x.is_ascii_alphanumeric() || **x == b':' || **x == b'-')
                    .count();
                let sici = window.get(body) == Some(&b'>')
                    && window[..body].contains(&b':')
                    && window.first().is_some_and(u8::is_ascii_digit);
                if !sici {
                    break;
                }
                push(&mut sc, c, k + len);
            }
            '>' => {
                if !sc.decoded.contains('<') {
                    break;
                }
                push(&mut sc, c, k + len);
            }
            '#' if sc.decoded.ends_with(";2-") => push(&mut sc, c, k + len),
            // A DOI broken across lines in PDF text: after `-`, `/`, `.` or `_` (where no DOI
            // ends), or right after the prefix, one line break and its spaces are skipped.
            c if c.is_whitespace()
                && (sc.decoded.is_empty() || sc.decoded.ends_with(['-', '/', '.', '_'])) =>
            {
                // Measured on the rest of the text: `limit` may fall inside a character.
                let rest = &text[k..];
                let gap = rest
                    .find(|x: char| !x.is_whitespace())
                    .unwrap_or(rest.len());
                let breaks = rest[..gap].matches('\n').count();
                let token = rest[gap..].split_whitespace().next().unwrap_or("");
                let ok = gap <= 64 && continues_doi(token, sc.decoded.ends_with('.'));
                if breaks != 1 || !ok {
                    break;
                }
                k += gap;
                continue;
            }
            '%' => match (
                b.get(k + 1).copied().and_then(hex),
                b.get(k + 2).copied().and_then(hex),
            ) {
                (Some(h), Some(l)) if (h << 4 | l).is_ascii_graphic() => {
                    let d = (h << 4 | l) as char;
                    if d == '/' || d.is_ascii_alphanumeric() || "-._;:()<>".contains(d) {
                        push(&mut sc, d, k + 3);
                        k += 3;
                        continue;
                    }
                    break;
                }
                _ => break,
            },
            _ => break,
        }
        k += len;
    }
    sc
}

/// Cuts what does not belong to the DOI off the end of a scanned suffix; returns the kept length.
fn trim_suffix(s: &str) -> usize {
    let mut keep = s.len();
    if let Some(m) = JOIN_RE.find(s) {
        keep = keep.min(m.start());
    }
    // An unclosed `(` that opens a word is prose glued on: `…551(inkoreanwith…`.
    let mut open: Vec<usize> = Vec::new();
    for (i, c) in s[..keep].char_indices() {
        match c {
            '(' => open.push(i),
            ')' => {
                open.pop();
            }
            _ => {}
        }
    }
    if let Some(&p) = open.first() {
        if s[p + 1..keep].starts_with(|c: char| c.is_ascii_alphabetic()) {
            keep = p;
        }
    }
    loop {
        let before = keep;
        while keep > 0 && matches!(s.as_bytes()[keep - 1], b'.' | b',' | b';' | b':' | b'/') {
            keep -= 1;
        }
        if let Some(m) = TRAILING_YEAR_RE.find(&s[..keep]) {
            keep = m.start() + 1;
        }
        if keep == before {
            break;
        }
    }
    keep
}

/// Scans and trims a suffix that starts at `i`; `(decoded suffix, raw end)` when it holds a
/// letter or digit.
fn read_suffix(text: &str, i: usize) -> Option<(String, usize)> {
    let sc = scan_suffix(text, i);
    let keep = trim_suffix(&sc.decoded);
    let suffix = &sc.decoded[..keep];
    if !suffix.bytes().any(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    Some((suffix.to_string(), sc.raw_end(keep, i)))
}

fn registrant_ok(registrant: &str) -> bool {
    registrant.bytes().filter(u8::is_ascii_digit).count() >= 4
}

/// Every DOI in `text`, left to right, non-overlapping (byte offsets).
pub fn find_dois(text: &str) -> Vec<DoiMatch> {
    let mut out: Vec<DoiMatch> = Vec::new();
    let mut tick = crate::interrupt::Ticker::new();
    for caps in crate::interrupt::captures_iter(&PREFIX_RE, text) {
        tick.tick();
        let (Some(m), Some(reg)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        if out.last().is_some_and(|d| m.start() < d.end) {
            continue;
        }
        if text[..m.start()].ends_with(|c: char| c.is_ascii_digit()) || !registrant_ok(reg.as_str())
        {
            continue;
        }
        if let Some((suffix, end)) = read_suffix(text, m.end()) {
            out.push(DoiMatch {
                start: m.start(),
                end,
                doi: format!("10.{}/{}", reg.as_str(), suffix),
            });
        }
    }
    let mut tick = crate::interrupt::Ticker::new();
    for (re, with_dir) in [(&*SPACED_RE, true), (&*UNPREFIXED_RE, false)] {
        for caps in crate::interrupt::captures_iter(re, text) {
            tick.tick();
            let (Some(m), Some(reg)) = (caps.get(0), caps.get(1)) else {
                continue;
            };
            if out.iter().any(|d| m.start() < d.end && d.start < m.end()) {
                continue;
            }
            if let Some((suffix, end)) = read_suffix(text, m.end()) {
                let doi = if with_dir {
                    format!("10.{}/{}", reg.as_str(), suffix)
                } else {
                    format!("{}/{}", reg.as_str(), suffix)
                };
                out.push(DoiMatch {
                    start: m.start(),
                    end,
                    doi,
                });
            }
        }
    }
    crate::interrupt::sort_by(&mut out, |a, b| a.start.cmp(&b.start));
    out
}

/// The DOI a URL carries (`https://doi.org/10.…`, `…/doi/abs/10.…`), decoded, case preserved.
pub fn doi_in_url(url: &str) -> Option<String> {
    let caps = PREFIX_RE.captures(url)?;
    let (m, reg) = (caps.get(0)?, caps.get(1)?);
    if url[..m.start()].ends_with(|c: char| c.is_ascii_digit()) || !registrant_ok(reg.as_str()) {
        return None;
    }
    let (suffix, _) = read_suffix(url, m.end())?;
    Some(format!("10.{}/{}", reg.as_str(), suffix))
}

/// True when the whole of `s` is one well-formed DOI (`10.1000/xyz`), nothing before or after.
pub fn is_valid_doi(s: &str) -> bool {
    let Some(caps) = PREFIX_RE.captures(s) else {
        return false;
    };
    let (Some(m), Some(reg)) = (caps.get(0), caps.get(1)) else {
        return false;
    };
    if m.start() != 0 || !registrant_ok(reg.as_str()) {
        return false;
    }
    let sc = scan_suffix(s, m.end());
    let keep = trim_suffix(&sc.decoded);
    keep == sc.decoded.len() && keep > 0 && sc.raw_end(keep, m.end()) == s.len()
}

/// The canonical form of a DOI written in any usual way (`doi:10.…`, `https://doi.org/10.…`,
/// `10.…`, percent-encoded): lowercase, `None` when there is no DOI.
pub fn normalize_doi(s: &str) -> Option<String> {
    find_dois(s.trim())
        .into_iter()
        .next()
        .map(|d| d.doi.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(s: &str) -> Option<String> {
        find_dois(s).into_iter().next().map(|d| d.doi)
    }

    #[test]
    fn trims_pdf_junk() {
        assert_eq!(
            first("doi :10.1103/PhysRevD.92.034519.URL https: //x").as_deref(),
            Some("10.1103/PhysRevD.92.034519")
        );
        assert_eq!(
            first("doi:10.1126/science.1193063.PMID:20847271.").as_deref(),
            Some("10.1126/science.1193063")
        );
        assert_eq!(
            first("<(DOI:10.1002/9780470915.CH2)/S/URI,").as_deref(),
            Some("10.1002/9780470915.CH2")
        );
        assert_eq!(
            first("doi(10.1038/s41535-018-0103-6;)").as_deref(),
            Some("10.1038/s41535-018-0103-6")
        );
        assert_eq!(
            first("doi:10.1039/c9ee00453j(2019).").as_deref(),
            Some("10.1039/c9ee00453j")
        );
        assert_eq!(
            first("10.1016/0304-3975(94)00281-M").as_deref(),
            Some("10.1016/0304-3975(94)00281-M")
        );
        assert_eq!(
            first("x 10.1063%2F1.881498 y").as_deref(),
            Some("10.1063/1.881498")
        );
    }

    #[test]
    fn validity_of_whole_strings() {
        assert!(is_valid_doi(
            "10.1002/(SICI)1096-8644(199808)106:4<483::AID-AJPA4>3.0.CO;2-K"
        ));
        assert!(is_valid_doi("10.10.123/456"));
        assert_eq!(
            first("<dc:identifier>doi:10.1063/1.5079474</dc:identifier>").as_deref(),
            Some("10.1063/1.5079474")
        );
        assert!(!is_valid_doi("10..1000/journal.pone.0011111"));
        assert!(!is_valid_doi("10/134980"));
        assert!(!is_valid_doi("10.001/001#00"));
        assert!(!is_valid_doi("10.1000/abc."));
    }

    #[test]
    fn labelled_forms() {
        assert_eq!(
            first("qer var doi = \"12345/12345.3\"").as_deref(),
            Some("12345/12345.3")
        );
        assert_eq!(
            first("doi: 10. 1107/S0108270100000123").as_deref(),
            Some("10.1107/S0108270100000123")
        );
        assert_eq!(
            normalize_doi("https://doi.org/10.1093/Analys/anw053").as_deref(),
            Some("10.1093/analys/anw053")
        );
        assert_eq!(first("in 2010.1234/5678 we"), None);
    }

    #[test]
    fn text_in_other_scripts_after_a_doi() {
        for tail in [
            "Дальше идёт текст статьи. ",
            "я",
            "日本語のテキスト。",
            "é ",
        ] {
            for head in [
                "doi:10.1038/nrn2787. ",
                "doi: 10.1038/ ",
                "10.1038/x- ",
                "10.1038/x_\n",
            ] {
                for n in 0..80 {
                    let text = format!("{head}{}", tail.repeat(n));
                    let _ = find_dois(&text);
                }
            }
        }
    }

    #[test]
    fn dois_broken_across_lines() {
        for (text, doi) in [
            (
                "doi:10.1016/0005-\n2728(89)90006-4 next",
                "10.1016/0005-2728(89)90006-4",
            ),
            (
                "doi:10.1016/j.\n  cell.2009.01.042",
                "10.1016/j.cell.2009.01.042",
            ),
            ("doi:10.1038/\nnrn2787", "10.1038/nrn2787"),
            (
                "doi: 10.1038/nrn2787.\nThe next sentence.",
                "10.1038/nrn2787",
            ),
            ("doi:10.1038/nrn2787/\n\nNew paragraph", "10.1038/nrn2787"),
            ("doi:10.1038/nrn2787 and\nmore", "10.1038/nrn2787"),
            (
                "doi:10.1038/nrn2787.\n2. Smith J. Title.",
                "10.1038/nrn2787",
            ),
            ("doi:10.1038/nrn2787/\n2) Smith J.", "10.1038/nrn2787"),
            ("doi:10.1038/nrn2787.\n2010. Next", "10.1038/nrn2787"),
            ("doi:10.1038/nrn2787.\nin which we", "10.1038/nrn2787"),
        ] {
            assert_eq!(first(text).as_deref(), Some(doi), "{text:?}");
        }
    }
}

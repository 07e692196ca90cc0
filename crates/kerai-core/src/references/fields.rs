//! Field patterns of a reference string: entry numbers, identifiers, years, volume/issue/pages,
//! place and publisher.

use std::sync::LazyLock;

use regex::Regex;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("{e}"))
}

static NUMBERING_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:\[[^\]\s]{1,30}\]\s*|\(\s*\d+\s*\)\s*|\d{1,3}\s*[.)]\s+|\d{1,3}\s+\p{Lu}|\d{1,3}\.?\s*\p{Lu})",
    )
});
static ISBN_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bISBN(?:-1[03])?\s*:?\s*((?:97[89][-\s]?)?\d{1,5}[-\s]?\d{1,7}[-\s]?\d{1,7}[-\s]?[\dX])\b",
    )
});
static YEAR_RE: LazyLock<Regex> = LazyLock::new(|| re(r"\b((?:1[5-9]|20)\d\d)([a-z])?\b"));
/// Labels left in front of an identifier once it is cut out.
pub static ID_LABEL_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:\[?online\]?\.?\s*)?(?:doi|url|uri|link|available(?:\s+online)?(?:\s+(?:at|from))?|retrieved(?:\s+[\w ,]{0,30}?)?\s+from|accessed|arxiv(?:\s+preprint)?|e-?print|pmid|pmcid|isbn)\s*[:>.]?\s*$",
    )
});
static VOL_ISSUE_PAGES_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:vol(?:ume)?\.?\s*|v\.\s*)?\b([A-Z]?\d{1,5})\s*\(\s*([\w/–-]{1,12})\s*\)\s*[:,.]?\s*(?:pp?\.?\s*)?([A-Z]?\d+(?:\s*[-–—]+\s*[A-Z]?\d+)?)?",
    )
});
static VOL_COLON_PAGES_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b(\d{1,5})\s*:\s*([A-Z]?\d+(?:\s*[-–—]+\s*[A-Z]?\d+)?)\b"));
static VOL_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:vol(?:ume)?s?\.?|v\.|bd\.|t\.|tome)\s*(\d+|[IVXLC]+\b)"));
static ISSUE_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(?:\bno\.?|\bnr\.?|\bissue|\bheft|n°|№)\s*(\d+(?:[-–/]\d+)?)"));
static PAGES_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)(?:\bpp?\.?|\bpages?|\bs\.|\bpg\.?)\s*([A-Z]?\d+(?:\s*[-–—]+\s*[A-Z]?\d+)?)")
});
static RANGE_RE: LazyLock<Regex> = LazyLock::new(|| re(r"\b([A-Z]?\d+)\s*[-–—]+\s*([A-Z]?\d+)\b"));
/// `Journal 12, 345` or `Phys. Rev. D 92, 034519`: volume, then pages after a comma.
static VOL_COMMA_PAGES_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b([A-Z]?\d{1,5})\s*,\s*([A-Z]?\d+(?:\s*[-–—]+\s*[A-Z]?\d+)?)\b"));
/// Physics: `87 (2013) 044603`.
static VOL_YEAR_PAGES_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\b([A-Z]?\d{1,5})\s*\(\s*(?:1[5-9]|20)\d\d\s*\)\s*([A-Z]?\d+(?:\s*[-–—]+\s*[A-Z]?\d+)?)\b")
});

/// Byte length of an entry number at the start: `[12] `, `(3) `, `12. `.
pub fn numbering_len(s: &str) -> usize {
    match NUMBERING_RE.find(s) {
        Some(m) => {
            let t = m.as_str();
            // Keep a capital the pattern looked at (`12 Smith`).
            let last = t
                .chars()
                .next_back()
                .filter(|c| c.is_uppercase())
                .map_or(0, char::len_utf8);
            m.end() - last
        }
        None => 0,
    }
}

/// The first ISBN: `(start, end, digits)`.
pub fn find_isbn(s: &str) -> Option<(usize, usize, String)> {
    let caps = ISBN_RE.captures(s)?;
    let m = caps.get(0)?;
    let digits: String = caps
        .get(1)?
        .as_str()
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == 'X' || *c == 'x')
        .collect();
    Some((m.start(), m.end(), digits.to_uppercase()))
}

/// A year candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct YearCand {
    pub start: usize,
    pub end: usize,
    pub year: i32,
    pub suffix: Option<String>,
    pub in_paren: bool,
}

/// Years in `s` that are not page ranges (`1761–1800`), volumes or parts of other numbers.
pub fn year_candidates(s: &str) -> Vec<YearCand> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    for caps in YEAR_RE.captures_iter(s) {
        let (Some(m), Some(y)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        let before = s[..m.start()].trim_end();
        let after = s[m.end()..].trim_start();
        let dash_after = after.starts_with(['-', '–', '—'])
            && after[after.chars().next().map_or(1, char::len_utf8)..]
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit());
        let dash_before = before.ends_with(['-', '–', '—'])
            && before[..before.len() - before.chars().next_back().map_or(1, char::len_utf8)]
                .trim_end()
                .ends_with(|c: char| c.is_ascii_digit());
        // `2009-2010` is a year range, `1761-1800` pages: keep ranges only in brackets or after a comma.
        if dash_after || dash_before {
            continue;
        }
        let last_word = before
            .rsplit(|c: char| c.is_whitespace() || c == '(' || c == ',')
            .next()
            .unwrap_or("");
        if [
            "pp.", "p.", "pp", "vol.", "Vol.", "vol", "no.", "No.", "nr.", "pages", "page", "S.",
        ]
        .contains(&last_word)
        {
            continue;
        }
        if m.start() > 0
            && matches!(b[m.start() - 1], b'.' | b'/' | b':')
            && m.start() > 1
            && b[m.start() - 2].is_ascii_digit()
        {
            continue;
        }
        if s[m.end()..].starts_with(['.', '/'])
            && s[m.end() + 1..].starts_with(|c: char| c.is_ascii_digit())
        {
            continue;
        }
        let in_paren = before.ends_with(['(', '[']);
        out.push(YearCand {
            start: m.start(),
            end: m.end(),
            year: y.as_str().parse().unwrap_or(0),
            suffix: caps.get(2).map(|x| x.as_str().to_string()),
            in_paren,
        });
    }
    out
}

/// Volume, issue and pages found in `s` (the part of the reference after the title).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Locators {
    pub volume: Option<String>,
    pub issue: Option<String>,
    pub pages: Option<String>,
    /// Where the first locator starts (the container ends before it).
    pub start: Option<usize>,
}

fn clean_range(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join("")
}

/// Reads volume, issue and pages with the usual patterns, explicit labels first.
pub fn locators(s: &str) -> Locators {
    let mut l = Locators::default();
    let mut first = usize::MAX;
    if let Some(c) = VOL_RE.captures(s) {
        l.volume = c.get(1).map(|m| m.as_str().to_string());
        first = first.min(c.get(0).map_or(usize::MAX, |m| m.start()));
    }
    if let Some(c) = ISSUE_RE.captures(s) {
        l.issue = c.get(1).map(|m| m.as_str().to_string());
        first = first.min(c.get(0).map_or(usize::MAX, |m| m.start()));
    }
    if let Some(c) = PAGES_RE.captures(s) {
        l.pages = c.get(1).map(|m| clean_range(m.as_str()));
        first = first.min(c.get(0).map_or(usize::MAX, |m| m.start()));
    }
    if l.volume.is_none() {
        if let Some(c) = VOL_ISSUE_PAGES_RE.captures(s) {
            l.volume = c.get(1).map(|m| m.as_str().to_string());
            if l.issue.is_none()
                && !c
                    .get(2)
                    .is_some_and(|m| YEAR_RE.is_match(m.as_str()) && m.as_str().len() == 4)
            {
                l.issue = c.get(2).map(|m| m.as_str().to_string());
            }
            if l.pages.is_none() {
                l.pages = c.get(3).map(|m| clean_range(m.as_str()));
            }
            first = first.min(c.get(0).map_or(usize::MAX, |m| m.start()));
        }
    }
    if l.volume.is_none() {
        let patterns: [&Regex; 3] = [&VOL_YEAR_PAGES_RE, &VOL_COLON_PAGES_RE, &VOL_COMMA_PAGES_RE];
        for r in patterns {
            if let Some(c) = r.captures(s) {
                let vol = c.get(1).map(|m| m.as_str().to_string());
                if vol
                    .as_deref()
                    .is_some_and(|v| v.len() == 4 && YEAR_RE.is_match(v))
                {
                    continue;
                }
                l.volume = vol;
                if l.pages.is_none() {
                    l.pages = c.get(2).map(|m| clean_range(m.as_str()));
                }
                first = first.min(c.get(0).map_or(usize::MAX, |m| m.start()));
                break;
            }
        }
    }
    if l.pages.is_none() {
        if let Some(c) = RANGE_RE.captures(s) {
            let a = c.get(1).map_or("", |m| m.as_str());
            if !(a.len() == 4 && YEAR_RE.is_match(a)) {
                l.pages = c.get(0).map(|m| clean_range(m.as_str()));
                first = first.min(c.get(0).map_or(usize::MAX, |m| m.start()));
            }
        }
    }
    l.start = (first != usize::MAX).then_some(first);
    l
}

fn in_place_class(c: char) -> bool {
    c.is_alphabetic() || matches!(c, '.' | '\'' | '\u{2019}' | ' ' | '-')
}

fn in_publisher_class(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '&' | '.' | '\'' | '\u{2019}' | ' ' | '-')
}

/// The place before a `:` that ends at `colon`: an optional `, NY` / `, Word` part, then up
/// to 41 letters, dots, apostrophes, spaces and hyphens starting with a capital.
fn place_before(s: &str, colon: usize) -> Option<usize> {
    let before = s[..colon].trim_end();
    let mut core = before;
    if let Some(comma) = before.rfind(", ") {
        let tail = &before[comma + 2..];
        let state = tail.chars().count() == 2 && tail.chars().all(char::is_uppercase);
        let word = tail.starts_with(char::is_uppercase)
            && tail.chars().count() >= 2
            && tail.chars().all(char::is_alphabetic);
        if state || word {
            core = &before[..comma];
        }
    }
    let mut start = None;
    for (n, (i, c)) in core.char_indices().rev().enumerate() {
        if !in_place_class(c) || n > 41 {
            break;
        }
        if c.is_uppercase() {
            start = Some(i);
        }
    }
    start.filter(|&st| core[st..].chars().count() >= 2)
}

/// The publisher after a `:` at `colon`: a capital, then letters, digits, `&`, dots,
/// apostrophes, spaces and hyphens up to the first `,`, `.`, `;` or `)` (or the end).
fn publisher_after(s: &str, colon: usize) -> Option<(usize, usize)> {
    let rest = &s[colon + 1..];
    let lead = rest.len() - rest.trim_start().len();
    let from = colon + 1 + lead;
    let body = &s[from..];
    if !body.starts_with(char::is_uppercase) {
        return None;
    }
    let mut count = 0;
    for (i, c) in body.char_indices() {
        if count >= 1 && matches!(c, ',' | '.' | ';' | ')') && i > 1 {
            return Some((from, from + body[..i].trim_end().len()));
        }
        if !in_publisher_class(c) || count > 71 {
            return None;
        }
        count += 1;
    }
    (count >= 2).then(|| (from, from + body.trim_end().len()))
}

/// `Place: Publisher` (`Chicago: University of Chicago Press`, `New York, NY: Dover`):
/// `(place, publisher, start of the place)`.
pub fn place_publisher(s: &str) -> Option<(String, String, usize)> {
    for (colon, _) in s.match_indices(':') {
        let Some(place_start) = place_before(s, colon) else {
            continue;
        };
        let Some((a, b)) = publisher_after(s, colon) else {
            continue;
        };
        let place = s[place_start..colon]
            .trim()
            .trim_end_matches(['.', ','])
            .to_string();
        let publisher = s[a..b].trim().trim_end_matches(['.', ',']).to_string();
        if !place.is_empty() && !publisher.is_empty() {
            return Some((place, publisher, place_start));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering() {
        assert_eq!(numbering_len("[12] Smith"), 5);
        assert_eq!(numbering_len("12. Smith"), 4);
        assert_eq!(numbering_len("(63) Kamerlin"), 5);
        assert_eq!(numbering_len("91. Roughton F"), 4);
        assert_eq!(numbering_len("Smith 12."), 0);
    }

    #[test]
    fn years_skip_page_ranges() {
        let ys: Vec<i32> = year_candidates("Vassouras, 1850–1900. Press, 1957. pp. 1761–1800")
            .iter()
            .map(|y| y.year)
            .collect();
        assert_eq!(ys, vec![1957]);
        assert!(year_candidates("(2011).")[0].in_paren);
    }

    #[test]
    fn volume_issue_pages() {
        let l = locators("Journal of AI Research, 2, 159-225.");
        assert_eq!(
            (l.volume.as_deref(), l.pages.as_deref()),
            (Some("2"), Some("159-225"))
        );
        let l = locators("Ecol Evol. 42(4):1315-23.");
        assert_eq!(
            (l.volume.as_deref(), l.issue.as_deref(), l.pages.as_deref()),
            (Some("42"), Some("4"), Some("1315-23"))
        );
        let l = locators("IEEE Trans, Vol. 39, No. 9, 1990, pp. 1175-1185.");
        assert_eq!(
            (l.volume.as_deref(), l.issue.as_deref(), l.pages.as_deref()),
            (Some("39"), Some("9"), Some("1175-1185"))
        );
        let l = locators("Phys. Rev. C 87 (2013) 044603.");
        assert_eq!(
            (l.volume.as_deref(), l.pages.as_deref()),
            (Some("87"), Some("044603"))
        );
    }

    #[test]
    fn place_and_publisher() {
        let (p, q, _) = place_publisher("Chicago: University of Chicago Press, 2003.").unwrap();
        assert_eq!(
            (p.as_str(), q.as_str()),
            ("Chicago", "University of Chicago Press")
        );
    }
}

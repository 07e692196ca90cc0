//! arXiv identifiers: `arXiv:2107.12979v2` (label required for the new scheme, whose bare
//! form looks like any decimal number), old-style `hep-th/9901001` (distinctive enough bare)
//! and arxiv.org URLs.

use std::sync::LazyLock;

use regex::Regex;

/// The archives of the pre-2007 scheme (`archive[.SUBJECT]/YYMMNNN`).
const ARCHIVES: &str = "astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nucl-ex|nucl-th|quant-ph|nlin|physics|math|cs|q-bio|q-fin|stat|chao-dyn|solv-int|patt-sol|adap-org|comp-gas|alg-geom|dg-ga|funct-an|q-alg|mtrl-th|supr-con|chem-ph|atom-ph|acc-phys|ao-sci|bayes-an|plasm-ph|cmp-lg";

static LABELLED_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)(?-u:\b)arxiv(?:\s+preprint|\s+e-prints?)?\s*[:.]?\s*(?:arxiv\s*:\s*)?(?:(?P<new>\d{{4}}\.\d{{4,5}})|(?P<old>(?:{ARCHIVES})(?:\.[A-Z]{{2}})?/\d{{7}}))(?:v(?P<v>\d+))?(?-u:\b)"
    ))
    .unwrap_or_else(|_| unreachable!())
});
/// A slash and seven digits: where an old-style identifier may end.
static SLASH_DIGITS_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"/\d{7}").unwrap_or_else(|_| unreachable!()));
static URL_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)^(?:[a-z]+:)?//(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html|format)/(?:(?P<new>\d{{4}}\.\d{{4,5}})|(?P<old>(?:{ARCHIVES})(?:\.[A-Z]{{2}})?/\d{{7}}))(?:v(?P<v>\d+))?"
    ))
    .unwrap_or_else(|_| unreachable!())
});

/// An arXiv identifier found in text (byte offsets), without its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArxivMatch {
    pub start: usize,
    pub end: usize,
    pub id: String,
    pub version: Option<u32>,
}

fn from_caps(caps: &regex::Captures<'_>) -> Option<(String, Option<u32>)> {
    let id = caps
        .name("new")
        .or_else(|| caps.name("old"))?
        .as_str()
        .to_string();
    let version = caps.name("v").and_then(|v| v.as_str().parse().ok());
    Some((id, version))
}

/// Every arXiv identifier written in `text` (not counting arxiv.org URLs), left to right.
pub fn find_arxiv(text: &str) -> Vec<ArxivMatch> {
    let b = text.as_bytes();
    let mut out: Vec<ArxivMatch> = Vec::new();
    // Labelled identifiers, found through the rare `x` of `arXiv`.
    let mut next = 0;
    let mut tick = crate::interrupt::Ticker::new();
    for x in memchr::memchr2_iter(b'x', b'X', b) {
        tick.tick();
        if x < 2
            || x - 2 < next
            || !b[x - 2..]
                .get(..5)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"arxiv"))
        {
            continue;
        }
        let s = x - 2;
        let Some(caps) = LABELLED_RE.captures_at(text, s) else {
            continue;
        };
        let (Some(m), Some((id, version))) = (caps.get(0), from_caps(&caps)) else {
            continue;
        };
        if m.start() != s {
            continue;
        }
        next = m.end();
        out.push(ArxivMatch {
            start: m.start(),
            end: m.end(),
            id,
            version,
        });
    }
    // Old-style identifiers: `archive[.XX]/YYMMNNN[vN]`, the archive read backwards from the slash.
    for m in crate::interrupt::find_iter(&SLASH_DIGITS_RE, text) {
        let slash = m.start();
        let mut end = m.end();
        if b.get(end).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        let subject = slash >= 3
            && b[slash - 3] == b'.'
            && b[slash - 2].is_ascii_uppercase()
            && b[slash - 1].is_ascii_uppercase();
        let arch_end = if subject { slash - 3 } else { slash };
        let mut a = arch_end;
        while a > 0 && arch_end - a < 11 && (b[a - 1].is_ascii_lowercase() || b[a - 1] == b'-') {
            a -= 1;
        }
        if a > 0 && b[a - 1].is_ascii_alphanumeric() {
            continue;
        }
        if !ARCHIVES.split('|').any(|x| x.as_bytes() == &b[a..arch_end]) {
            continue;
        }
        let id = text[a..end].to_string();
        let mut version = None;
        if b.get(end) == Some(&b'v') {
            let digits = b[end + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if digits > 0
                && !b
                    .get(end + 1 + digits)
                    .is_some_and(u8::is_ascii_alphanumeric)
            {
                version = text[end + 1..end + 1 + digits].parse().ok();
                end += 1 + digits;
            }
        } else if b.get(end).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        if out.iter().any(|x| a < x.end && x.start < end) {
            continue;
        }
        out.push(ArxivMatch {
            start: a,
            end,
            id,
            version,
        });
    }
    out.sort_by_key(|a| a.start);
    out
}

/// The identifier of an arxiv.org abstract/PDF URL, with its version if written.
pub fn arxiv_in_url(url: &str) -> Option<(String, Option<u32>)> {
    from_caps(&URL_RE.captures(url)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labelled_and_old_style() {
        let found = find_arxiv("see arXiv:2107.12979v2 and hep-th/9901001, arXiv :1503.02312.");
        let ids: Vec<_> = found.iter().map(|a| (a.id.as_str(), a.version)).collect();
        assert_eq!(
            ids,
            vec![
                ("2107.12979", Some(2)),
                ("hep-th/9901001", None),
                ("1503.02312", None)
            ]
        );
        assert!(find_arxiv("a ratio of 2107.12979 was seen").is_empty());
    }

    #[test]
    fn urls() {
        assert_eq!(
            arxiv_in_url("https://arxiv.org/abs/2003.04035"),
            Some(("2003.04035".into(), None))
        );
        assert_eq!(
            arxiv_in_url("http://arxiv.org/pdf/hep-th/9901001v3"),
            Some(("hep-th/9901001".into(), Some(3)))
        );
        assert_eq!(arxiv_in_url("https://example.org/abs/2003.04035"), None);
    }
}

//! Splitting a robots.txt body into directives, byte for byte as google/robotstxt does
//! (`RobotsTxtParser::Parse`, `GetKeyAndValueFrom`, `ParsedRobotsKey::Parse`).

use super::url_path::escape_pattern_bytes;

/// Bytes kept from one line; Google's line buffer is `2083 * 8` bytes, the last one reserved
/// for the terminating NUL, so longer lines are cut after 16 663 bytes.
pub const MAX_LINE_BYTES: usize = 2083 * 8 - 1;

const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// What a line's key was recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// `user-agent` (and the tolerated typos `useragent`, `user agent`).
    UserAgent,
    /// `allow`.
    Allow,
    /// `disallow` (and the tolerated typos `dissallow`, `dissalow`, `disalow`, `diasllow`, `disallaw`).
    Disallow,
    /// `sitemap` or `site-map`.
    Sitemap,
    /// Anything else (for example `crawl-delay`).
    Unknown,
}

/// One `key: value` line of a robots.txt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// 1-based line number.
    pub line: u32,
    /// The recognised key.
    pub kind: KeyKind,
    /// The key as written (kept for unknown keys only, empty otherwise).
    pub key: Vec<u8>,
    /// The value; for `allow`, `disallow` and unknown keys it is percent-escaped as Google does
    /// (octets >= 0x80 escaped, existing escapes upper-cased).
    pub value: Vec<u8>,
}

/// Splits `body` into lines (LF, CR and CRLF endings), skips a leading (possibly partial)
/// UTF-8 BOM, cuts overlong lines, and returns the directives in order.
pub fn directives(body: &[u8]) -> Vec<Directive> {
    let mut out = Vec::new();
    let mut line: Vec<u8> = Vec::with_capacity(256);
    let mut line_num: u32 = 0;
    let mut bom_pos = 0usize;
    let mut last_was_cr = false;
    for &ch in body {
        // Google skips any prefix of the BOM; a mismatching byte ends the BOM check (and is kept).
        if bom_pos < UTF8_BOM.len() {
            let expected = UTF8_BOM[bom_pos];
            bom_pos += 1;
            if ch == expected {
                continue;
            }
        }
        bom_pos = UTF8_BOM.len();
        if ch != b'\n' && ch != b'\r' {
            if line.len() < MAX_LINE_BYTES {
                line.push(ch);
            }
        } else {
            let crlf_continuation = line.is_empty() && last_was_cr && ch == b'\n';
            if !crlf_continuation {
                line_num = line_num.saturating_add(1);
                emit(line_num, &line, &mut out);
            }
            line.clear();
            last_was_cr = ch == b'\r';
        }
    }
    line_num = line_num.saturating_add(1);
    emit(line_num, &line, &mut out);
    out
}

fn emit(line_num: u32, line: &[u8], out: &mut Vec<Directive>) {
    let Some((key, value)) = key_and_value(line) else {
        return;
    };
    let kind = classify(key);
    let value = match kind {
        KeyKind::UserAgent | KeyKind::Sitemap => value.to_vec(),
        _ => escape_pattern_bytes(value),
    };
    let key = if kind == KeyKind::Unknown {
        key.to_vec()
    } else {
        Vec::new()
    };
    out.push(Directive {
        line: line_num,
        kind,
        key,
        value,
    });
}

/// C's `isspace` in the "C" locale.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

fn strip(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !is_space(*first) {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if !is_space(*last) {
            break;
        }
        s = rest;
    }
    s
}

/// `<key>[ \t]*:[ \t]*<value>`, with Google's tolerance of a missing colon when the line has
/// exactly two whitespace-separated words. Comments (`#` to the end of line) are dropped.
fn key_and_value(line: &[u8]) -> Option<(&[u8], &[u8])> {
    // The C++ works on NUL-terminated strings: a NUL byte ends the line.
    let line = match line.iter().position(|&b| b == 0) {
        Some(nul) => &line[..nul],
        None => line,
    };
    let line = match line.iter().position(|&b| b == b'#') {
        Some(hash) => &line[..hash],
        None => line,
    };
    let line = strip(line);
    let sep = match line.iter().position(|&b| b == b':') {
        Some(colon) => colon,
        None => {
            let ws = line.iter().position(|&b| b == b' ' || b == b'\t')?;
            let rest = &line[ws..];
            let skip = rest
                .iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
            if rest[skip..].iter().any(|&b| b == b' ' || b == b'\t') {
                return None;
            }
            ws
        }
    };
    let key = strip(&line[..sep]);
    if key.is_empty() {
        return None;
    }
    Some((key, strip(&line[sep + 1..])))
}

fn starts_with_ignore_case(s: &[u8], prefix: &str) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

fn classify(key: &[u8]) -> KeyKind {
    let any = |prefixes: &[&str]| prefixes.iter().any(|p| starts_with_ignore_case(key, p));
    if any(&["user-agent", "useragent", "user agent"]) {
        KeyKind::UserAgent
    } else if any(&["allow"]) {
        KeyKind::Allow
    } else if any(&[
        "disallow",
        "dissallow",
        "dissalow",
        "disalow",
        "diasllow",
        "disallaw",
    ]) {
        KeyKind::Disallow
    } else if any(&["sitemap", "site-map"]) {
        KeyKind::Sitemap
    } else {
        KeyKind::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(body: &str) -> Vec<(u32, KeyKind, String)> {
        directives(body.as_bytes())
            .into_iter()
            .map(|d| {
                (
                    d.line,
                    d.kind,
                    String::from_utf8_lossy(&d.value).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn colon_is_optional_for_two_words() {
        assert_eq!(
            kinds("user-agent FooBot\ndisallow /\nallow a b\n"),
            vec![
                (1, KeyKind::UserAgent, "FooBot".into()),
                (2, KeyKind::Disallow, "/".into())
            ]
        );
    }

    #[test]
    fn comments_and_typos() {
        assert_eq!(
            kinds("# c\nUseragent: x # c\nDisalow: /p#q\nSite-map: http://h/s\nCrawl-delay: 3"),
            vec![
                (2, KeyKind::UserAgent, "x".into()),
                (3, KeyKind::Disallow, "/p".into()),
                (4, KeyKind::Sitemap, "http://h/s".into()),
                (5, KeyKind::Unknown, "3".into()),
            ]
        );
    }

    #[test]
    fn values_are_escaped() {
        assert_eq!(kinds("allow: /ツ%aa")[0].2, "/%E3%83%84%AA");
    }

    #[test]
    fn long_lines_are_cut() {
        let body = format!("allow: /{}", "a".repeat(20_000));
        let d = directives(body.as_bytes());
        assert_eq!(d[0].value.len(), MAX_LINE_BYTES - "allow: ".len());
    }
}

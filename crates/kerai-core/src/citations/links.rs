//! Link detection with linkify-it's rules (markdown-it/linkify-it): `http:`, `https:`, `ftp:`,
//! `mailto:` and `//` links, scheme-less ("fuzzy") links whose host ends with a known TLD, and
//! e-mail addresses. The regular expressions of linkify-it rely on look-ahead and backtracking;
//! here they are written out as small scanners over the text, each bounded by a length cap so
//! that the whole pass stays linear in the input.

use super::chars::{is_pseudo_letter, is_text_separator, is_zcc, is_zpcc};
use super::tlds::is_known_tld;

/// Longest host, auth or e-mail name considered, in bytes.
const MAX_HOST: usize = 255;
/// Longest path (after the host) considered, in bytes.
const MAX_PATH: usize = 8192;
/// Longest e-mail local part, in bytes (RFC 5321).
const MAX_EMAIL_NAME: usize = 64;

/// Which link rules are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkOptions {
    /// Scheme-less links such as `example.com/page` (needs a known TLD).
    pub fuzzy_links: bool,
    /// Scheme-less IPv4 addresses such as `192.168.1.1/abc`.
    pub fuzzy_ip: bool,
    /// E-mail addresses without `mailto:`.
    pub fuzzy_email: bool,
}

impl Default for LinkOptions {
    fn default() -> Self {
        LinkOptions {
            fuzzy_links: true,
            fuzzy_ip: false,
            fuzzy_email: true,
        }
    }
}

/// How a link was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkSource {
    /// `http:`, `https:` or `ftp:`.
    Scheme,
    /// `//host`.
    SchemeRelative,
    /// `mailto:`.
    Mailto,
    /// A bare host with a known TLD (or an IPv4 address).
    Fuzzy,
    /// A bare e-mail address.
    Email,
}

/// A link found in the text, as byte offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    pub start: usize,
    pub end: usize,
    pub source: LinkSource,
}

fn char_at(text: &str, i: usize) -> Option<char> {
    text.get(i..).and_then(|s| s.chars().next())
}

fn char_before(text: &str, i: usize) -> Option<char> {
    text.get(..i).and_then(|s| s.chars().next_back())
}

/// All links in `text`, left to right, non-overlapping.
pub fn find_links(text: &str, opts: LinkOptions) -> Vec<Link> {
    let mut cands = scheme_candidates(text);
    if opts.fuzzy_links {
        cands.extend(fuzzy_candidates(text, opts.fuzzy_ip));
    }
    if opts.fuzzy_email {
        cands.extend(email_candidates(text));
    }
    select(cands)
}

/// Picks the earliest link at each point, with linkify-it's ties: a scheme link beats a fuzzy
/// one that starts at the same place, an e-mail address beats both when it is longer.
fn select(mut cands: Vec<Link>) -> Vec<Link> {
    let rank = |s: LinkSource| match s {
        LinkSource::Scheme | LinkSource::SchemeRelative | LinkSource::Mailto => 0,
        LinkSource::Fuzzy => 1,
        LinkSource::Email => 2,
    };
    crate::interrupt::sort_by(&mut cands, |a, b| {
        (a.start, rank(a.source)).cmp(&(b.start, rank(b.source)))
    });
    let mut out: Vec<Link> = Vec::new();
    let mut i = 0;
    let mut tick = crate::interrupt::Ticker::new();
    while i < cands.len() {
        tick.tick();
        let start = cands[i].start;
        let mut j = i;
        while j < cands.len() && cands[j].start == start {
            j += 1;
        }
        let group = &cands[i..j];
        let mut best = group[0];
        for c in &group[1..] {
            if c.source == LinkSource::Email && c.end > best.end {
                best = *c;
            }
        }
        if out.last().is_none_or(|l| best.start >= l.end) {
            out.push(best);
        }
        i = j;
    }
    out
}

/// Where schemes are written: `http:`/`https:`/`ftp:` before `//`, a bare `//`, `mailto:`
/// (any case). Returns `(start, end of the scheme, kind)` sorted by start.
fn scheme_hits(text: &str) -> Vec<(usize, usize, LinkSource)> {
    let b = text.as_bytes();
    let ends_with = |p: usize, w: &[u8]| p >= w.len() && b[p - w.len()..p].eq_ignore_ascii_case(w);
    let mut hits = Vec::new();
    let mut tick = crate::interrupt::Ticker::new();
    for p in memchr::memmem::find_iter(b, b"//") {
        tick.tick();
        let scheme = [&b"https:"[..], b"http:", b"ftp:"]
            .into_iter()
            .find(|w| ends_with(p, w));
        match scheme {
            Some(w) => hits.push((p - w.len(), p, LinkSource::Scheme)),
            None => hits.push((p, p + 2, LinkSource::SchemeRelative)),
        }
    }
    let mut tick = crate::interrupt::Ticker::new();
    for p in memchr::memchr_iter(b':', b) {
        tick.tick();
        if ends_with(p, b"mailto") {
            hits.push((p - 6, p + 1, LinkSource::Mailto));
        }
    }
    hits.sort_unstable_by_key(|h| h.0);
    hits
}

fn scheme_candidates(text: &str) -> Vec<Link> {
    let mut out: Vec<Link> = Vec::new();
    let mut tick = crate::interrupt::Ticker::new();
    for (s, scheme_end, scheme) in scheme_hits(text) {
        tick.tick();
        // Inside a link already found (`http://a/http://b`): it could never be chosen.
        if out.last().is_some_and(|l| s < l.end) {
            continue;
        }
        if let Some(p) = char_before(text, s) {
            if !(is_text_separator(p) || (is_zpcc(p) && p != '_')) {
                continue;
            }
        }
        let found = match scheme {
            LinkSource::SchemeRelative => match char_before(text, s) {
                Some(':') | Some('/') => None,
                _ => match_scheme_relative(text, scheme_end).map(|e| (e, scheme)),
            },
            LinkSource::Mailto => match_mailto(text, scheme_end).map(|e| (e, scheme)),
            _ => match_http(text, scheme_end).map(|e| (e, scheme)),
        };
        if let Some((end, source)) = found {
            out.push(Link {
                start: s,
                end,
                source,
            });
        }
    }
    out
}

/// The character before a fuzzy link must be a separator, punctuation or a few symbols, but
/// not `.`, `:`, `/`, `-`, `_` or `@` (which would make the link part of something else).
fn fuzzy_prefix_ok(p: Option<char>) -> bool {
    match p {
        None => true,
        Some(c) => {
            !matches!(c, '.' | ':' | '/' | '-' | '_' | '@')
                && (matches!(
                    c,
                    '$' | '+' | '<' | '=' | '>' | '^' | '`' | '|' | '\u{FF5C}'
                ) || is_zpcc(c))
        }
    }
}

/// Dots where a fuzzy host may end: before a known TLD that ends the word (`.com/`, `.рф`),
/// or inside a dotted quad of digits. The host itself is checked by `match_fuzzy`.
fn fuzzy_hints(text: &str) -> impl Iterator<Item = usize> + '_ {
    let b = text.as_bytes();
    memchr::memchr_iter(b'.', b).filter(move |&i| {
        let rest = &text[i + 1..];
        let label_len = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        let label = &rest[..label_len];
        if label.is_empty() || label_len > 24 {
            return false;
        }
        let after = rest[label_len..].chars().next();
        if label.chars().all(char::is_alphabetic) {
            return is_known_tld(label) && !after.is_some_and(|c| c == '_' || c == '-');
        }
        // `1.2.3.4`: digits on both sides and another dot ahead.
        i > 0
            && b[i - 1].is_ascii_digit()
            && label_len <= 3
            && label.bytes().all(|c| c.is_ascii_digit())
            && after == Some('.')
    })
}

fn fuzzy_candidates(text: &str, fuzzy_ip: bool) -> Vec<Link> {
    let mut out = Vec::new();
    let mut floor = 0usize;
    let mut tick = crate::interrupt::Ticker::new();
    for h in fuzzy_hints(text) {
        tick.tick();
        if h < floor {
            continue;
        }
        let lower = floor.max(h.saturating_sub(MAX_HOST));
        let mut run_start = h;
        for (i, c) in text[..h].char_indices().rev() {
            if i < lower || !(is_pseudo_letter(c) || c == '.' || c == '-') {
                break;
            }
            run_start = i;
        }
        let mut found = None;
        let upto = h + text[h..].chars().next().map_or(0, char::len_utf8);
        for (off, c) in text[run_start..upto].char_indices() {
            let s = run_start + off;
            if !is_pseudo_letter(c) || matches!(c, '$' | '+' | '=' | '^' | '`' | '|') {
                continue;
            }
            if !fuzzy_prefix_ok(char_before(text, s)) {
                continue;
            }
            if let Some(e) = match_fuzzy(text, s, fuzzy_ip) {
                found = Some((s, e));
                break;
            }
        }
        floor = h + 1;
        if let Some((s, e)) = found {
            out.push(Link {
                start: s,
                end: e,
                source: LinkSource::Fuzzy,
            });
            floor = floor.max(e);
        }
    }
    out
}

fn is_email_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            '-' | ';' | ':' | '&' | '=' | '+' | '$' | ',' | '.' | '_' | '"'
        )
}

fn email_candidates(text: &str) -> Vec<Link> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut floor = 0usize;
    let mut tick = crate::interrupt::Ticker::new();
    for (a, _) in text.match_indices('@') {
        tick.tick();
        if a < floor {
            continue;
        }
        floor = a + 1;
        let lower = a
            .saturating_sub(MAX_EMAIL_NAME)
            .max(out.last().map_or(0, |l: &Link| l.end));
        let mut run_start = a;
        while run_start > lower && is_email_name_char(bytes[run_start - 1] as char) {
            run_start -= 1;
        }
        for (s, &byte) in bytes.iter().enumerate().take(a).skip(run_start) {
            if byte == b'"' {
                continue;
            }
            let prefix_ok = match char_before(text, s) {
                None => true,
                Some(p) => is_text_separator(p) || p == '"' || p == '(' || is_zcc(p),
            };
            if !prefix_ok {
                continue;
            }
            if let Some(e) = match_fuzzy_host_strict(text, a + 1, true) {
                out.push(Link {
                    start: s,
                    end: e,
                    source: LinkSource::Email,
                });
                floor = e;
            }
            break;
        }
    }
    out
}

/// Labels of a host name starting at `s`: `(end, label count, last label range)`.
struct Host {
    end: usize,
    labels: usize,
    last: (usize, usize),
}

/// Scans `label(.label)*` from `s`. A label is pseudo-letters and inner hyphens, at most 63
/// characters; `None` when the first label is missing or a label is malformed.
fn scan_labels(text: &str, s: usize) -> Option<Host> {
    let limit = text.len().min(s + MAX_HOST);
    let mut i = s;
    let mut labels = 0;
    let mut last = (s, s);
    loop {
        let ls = i;
        let mut count = 0usize;
        let mut last_char = '-';
        for (off, c) in text[ls..].char_indices() {
            if ls + off >= limit || !(is_pseudo_letter(c) || c == '-') {
                break;
            }
            if count == 0 && c == '-' {
                break;
            }
            count += 1;
            last_char = c;
            i = ls + off + c.len_utf8();
        }
        if count == 0 {
            break;
        }
        if last_char == '-' || count > 63 {
            return None;
        }
        labels += 1;
        last = (ls, i);
        let dot_next = text.as_bytes().get(i) == Some(&b'.')
            && char_at(text, i + 1).is_some_and(is_pseudo_letter);
        if dot_next && i + 1 < limit {
            i += 1;
        } else {
            break;
        }
    }
    (labels > 0).then_some(Host {
        end: i,
        labels,
        last,
    })
}

/// linkify-it's host terminator: the host ends at the end of the text, a separator, space or
/// punctuation, but not before `-`, `_`, `:digit`, `.-` or a `.` that continues a word.
fn terminator_ok(text: &str, i: usize) -> bool {
    let Some(c) = char_at(text, i) else {
        return true;
    };
    if !(is_text_separator(c) || is_zpcc(c)) {
        return false;
    }
    let next = char_at(text, i + c.len_utf8());
    match c {
        '-' | '_' => false,
        ':' => !next.is_some_and(|n| n.is_ascii_digit()),
        '.' => next.is_none_or(|n| n != '-' && is_zpcc(n)),
        _ => true,
    }
}

fn port_valid(digits: &str) -> bool {
    match digits.len() {
        1..=4 => true,
        5 => match digits.as_bytes()[0] {
            b'1'..=b'5' => true,
            b'6' => digits.parse::<u32>().is_ok_and(|v| v <= 65535),
            _ => false,
        },
        _ => false,
    }
}

/// An optional `:port` and the host terminator after `e`; returns where the path may start.
fn port_and_terminator(text: &str, e: usize) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(e) == Some(&b':') && b.get(e + 1).is_some_and(u8::is_ascii_digit) {
        let mut d = e + 1;
        while d < b.len() && b[d].is_ascii_digit() && d - e <= 6 {
            d += 1;
        }
        if port_valid(&text[e + 1..d]) && terminator_ok(text, d) {
            return Some(d);
        }
        return None;
    }
    terminator_ok(text, e).then_some(e)
}

/// `ip4` as linkify-it writes it: four octets 0-255 (leading zeros allowed, as in its pattern).
fn match_ip4(text: &str, s: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = s;
    for octet in 0..4 {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() && i - start < 4 {
            i += 1;
        }
        let n = i - start;
        let ok = match n {
            1 | 2 => true,
            3 => {
                matches!(b[start], b'0' | b'1')
                    || text[start..i].parse::<u32>().is_ok_and(|v| v <= 255)
            }
            _ => false,
        };
        if !ok {
            return None;
        }
        if octet < 3 {
            if b.get(i) != Some(&b'.') {
                return None;
            }
            i += 1;
        }
    }
    Some(i)
}

/// A fuzzy host (IPv4 when allowed, else labels ending with a known TLD), port, terminator, path.
fn match_fuzzy(text: &str, s: usize, fuzzy_ip: bool) -> Option<usize> {
    if fuzzy_ip {
        if let Some(e) = match_ip4(text, s).and_then(|e| port_and_terminator(text, e)) {
            return Some(match_path(text, e));
        }
    }
    let host = scan_labels(text, s)?;
    let tld = &text[host.last.0..host.last.1];
    if host.labels < 2 || !is_known_tld(tld) {
        return None;
    }
    let e = port_and_terminator(text, host.end)?;
    let end = match_path(text, e);
    // `coords2hp.py`, `run.sh`: a file name whose extension is also a country code.
    let www = text[s..]
        .get(..4)
        .is_some_and(|w| w.eq_ignore_ascii_case("www."));
    if end == e && !www && FILE_EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(tld)) {
        return None;
    }
    Some(end)
}

/// Two-letter TLDs that are far more often file extensions in running text.
const FILE_EXTENSIONS: &[&str] = &[
    "py", "pl", "sh", "md", "rs", "ps", "mk", "ml", "cc", "cs", "hs", "rb", "gz", "xz", "so", "pm",
    "tf", "sc",
];

/// The host of a bare e-mail address: IPv4 or labels ending with a known TLD, then the
/// terminator; no port, no path.
fn match_fuzzy_host_strict(text: &str, s: usize, allow_ip: bool) -> Option<usize> {
    if allow_ip {
        if let Some(e) = match_ip4(text, s) {
            if terminator_ok(text, e) {
                return Some(e);
            }
        }
    }
    let host = scan_labels(text, s)?;
    (host.labels >= 2
        && is_known_tld(&text[host.last.0..host.last.1])
        && terminator_ok(text, host.end))
    .then_some(host.end)
}

/// The end of an optional `user[:pass]@` part starting at `p`.
fn auth_end(text: &str, p: usize) -> Option<usize> {
    let limit = text.len().min(p + MAX_HOST);
    for (off, c) in text[p..].char_indices() {
        let i = p + off;
        if i >= limit || is_zcc(c) || matches!(c, '/' | '[' | ']' | '(' | ')') {
            return None;
        }
        if c == '@' {
            return (i > p).then_some(i + 1);
        }
    }
    None
}

/// After `http:`, `https:` or `ftp:`: `//`, optional auth, any host, port, terminator, path.
fn match_http(text: &str, after_colon: usize) -> Option<usize> {
    if !text[after_colon..].starts_with("//") {
        return None;
    }
    let p = after_colon + 2;
    let attempt = |s: usize| -> Option<usize> {
        let host = scan_labels(text, s)?;
        let e = port_and_terminator(text, host.end)?;
        Some(match_path(text, e))
    };
    auth_end(text, p).and_then(attempt).or_else(|| attempt(p))
}

/// After `//`: optional auth, `localhost` or a host of two labels or more, port, terminator, path.
fn match_scheme_relative(text: &str, p: usize) -> Option<usize> {
    let attempt = |s: usize| -> Option<usize> {
        let rest = &text[s..];
        if rest.len() >= 9
            && rest.is_char_boundary(9)
            && rest[..9].eq_ignore_ascii_case("localhost")
        {
            if let Some(e) = port_and_terminator(text, s + 9) {
                return Some(match_path(text, e));
            }
        }
        let host = scan_labels(text, s)?;
        let last = &text[host.last.0..host.last.1];
        let root_ok = !last.contains('-')
            || last
                .get(..4)
                .is_some_and(|x| x.eq_ignore_ascii_case("xn--"));
        if host.labels < 2 || !root_ok {
            return None;
        }
        let e = port_and_terminator(text, host.end)?;
        Some(match_path(text, e))
    };
    auth_end(text, p).and_then(attempt).or_else(|| attempt(p))
}

/// After `mailto:`: an e-mail name, `@`, any host and the terminator.
fn match_mailto(text: &str, p: usize) -> Option<usize> {
    let b = text.as_bytes();
    let first = *b.get(p)?;
    if first == b'"' || !is_email_name_char(first as char) {
        return None;
    }
    let mut i = p;
    while i < b.len() && i - p <= MAX_EMAIL_NAME && is_email_name_char(b[i] as char) {
        i += 1;
    }
    if b.get(i) != Some(&b'@') {
        return None;
    }
    let host = scan_labels(text, i + 1)?;
    terminator_ok(text, host.end).then_some(host.end)
}

/// Index after a bracketed or quoted run that opens at `k` and closes with `close` before any
/// space or control character.
fn closing(text: &str, k: usize, close: char, limit: usize, nonempty: bool) -> Option<usize> {
    let open_len = char_at(text, k).map_or(1, char::len_utf8);
    let inner = k + open_len;
    for (off, c) in text[inner..].char_indices() {
        let i = inner + off;
        if i >= limit || is_zcc(c) {
            return None;
        }
        if c == close {
            return (!nonempty || i > inner).then_some(i + c.len_utf8());
        }
    }
    None
}

/// linkify-it's `src_path`: `[/?#]` followed by path characters, or a lone `/`.
fn match_path(text: &str, i: usize) -> usize {
    match char_at(text, i) {
        Some(c @ ('/' | '?' | '#')) => {
            let j = i + 1;
            let e = path_body(text, j);
            if e > j {
                e
            } else if c == '/' {
                j
            } else {
                i
            }
        }
        _ => i,
    }
}

fn path_body(text: &str, j: usize) -> usize {
    let limit = text.len().min(j + MAX_PATH);
    let b = text.as_bytes();
    let mut k = j;
    while k < limit {
        let Some(c) = char_at(text, k) else { break };
        let next = char_at(text, k + c.len_utf8());
        let ends = |n: Option<char>| n.is_none_or(is_zcc);
        match c {
            _ if is_zcc(c) || is_text_separator(c) => break,
            '[' | '(' | '{' => {
                let close = match c {
                    '[' => ']',
                    '(' => ')',
                    _ => '}',
                };
                match closing(text, k, close, limit, false) {
                    Some(e) => k = e,
                    None => break,
                }
            }
            '"' => match closing(text, k, '"', limit, true) {
                Some(e) => k = e,
                None => break,
            },
            '\'' => match closing(text, k, '\'', limit, true) {
                Some(e) => k = e,
                None if next.is_some_and(|n| is_pseudo_letter(n) || n == '-') => k += 1,
                None => break,
            },
            ']' | ')' | '}' => break,
            '.' => {
                let mut n = 0;
                while b.get(k + n) == Some(&b'.') {
                    n += 1;
                }
                if n >= 2 {
                    match b.get(k + n) {
                        Some(x) if x.is_ascii_alphanumeric() || matches!(x, b'%' | b'/' | b'&') => {
                            k += n + 1
                        }
                        _ => break,
                    }
                } else if !ends(next) && next != Some('.') {
                    k += 1;
                } else {
                    break;
                }
            }
            ',' | ';' => {
                if ends(next) {
                    break;
                }
                k += 1;
            }
            '-' => {
                while b.get(k) == Some(&b'-') {
                    k += 1;
                }
            }
            '!' => {
                let mut n = 0;
                while b.get(k + n) == Some(&b'!') {
                    n += 1;
                }
                if ends(char_at(text, k + n)) {
                    break;
                }
                k += n;
            }
            '?' => {
                if ends(next) || next == Some('?') {
                    break;
                }
                k += 1;
            }
            _ => k += c.len_utf8(),
        }
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(text: &str) -> Option<&str> {
        let opts = LinkOptions {
            fuzzy_ip: true,
            ..LinkOptions::default()
        };
        find_links(text, opts)
            .first()
            .map(|l| &text[l.start..l.end])
    }

    #[test]
    fn schemes_and_paths() {
        assert_eq!(
            first("My http://example.com/ site"),
            Some("http://example.com/")
        );
        assert_eq!(
            first("http://example.com/foo_bar_(wiki)"),
            Some("http://example.com/foo_bar_(wiki)")
        );
        assert_eq!(
            first("http://example.com/foo_bar..."),
            Some("http://example.com/foo_bar")
        );
        assert_eq!(
            first("http://localhost:8000?"),
            Some("http://localhost:8000")
        );
        assert_eq!(
            first("See http://example.com/123; Example link."),
            Some("http://example.com/123")
        );
        assert_eq!(
            first("http://example.com/123!!!"),
            Some("http://example.com/123")
        );
        assert_eq!(
            first("<mailto:user@domain.com>"),
            Some("mailto:user@domain.com")
        );
    }

    #[test]
    fn fuzzy_hosts_need_a_known_tld() {
        assert_eq!(first("google.com: // no port"), Some("google.com"));
        assert_eq!(first("GOOGLE.COM."), Some("GOOGLE.COM"));
        assert_eq!(first("президент.рф"), Some("президент.рф"));
        assert_eq!(first("node.js and io.js"), None);
        assert_eq!(first("example.coma"), None);
        assert_eq!(first("path:to:file.pm"), None);
        assert_eq!(first("google.com:500000 // invalid port"), None);
    }

    #[test]
    fn emails_and_ips() {
        assert_eq!(
            first("192.168.1.1@gmail.com"),
            Some("192.168.1.1@gmail.com")
        );
        assert_eq!(
            first("(email@example.com foobar)"),
            Some("email@example.com")
        );
        assert_eq!(first("1.2.3.400"), None);
        assert_eq!(first("4.4.4.4"), Some("4.4.4.4"));
        assert_eq!(first("foo@bar"), None);
    }
}

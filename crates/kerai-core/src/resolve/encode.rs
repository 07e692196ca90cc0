//! Percent-encoding for the request URLs (RFC 3986): everything but the unreserved characters
//! `A-Z a-z 0-9 - . _ ~` is escaped, so DOIs with `;`, `#`, `?`, `<`, `(` and spaces survive.

use std::fmt::Write;

fn encode(s: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~')
            || (keep_slash && b == b'/')
        {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A query-string value (or key): every reserved character escaped, space as `%20`.
pub fn encode_component(s: &str) -> String {
    encode(s, false)
}

/// A path made of segments (a DOI, an Internet Archive file name): like
/// [`encode_component`] but `/` stays, as the services' own examples write DOIs
/// (`/works/10.1038/nrn2787`).
pub fn encode_path(s: &str) -> String {
    encode(s, true)
}

/// `base` + `path` + `?k=v&...` with every key and value encoded; pairs with an empty value
/// are left out.
pub fn build_url(base: &str, path: &str, query: &[(&str, &str)]) -> String {
    let mut url = format!("{base}{path}");
    let mut sep = '?';
    for (k, v) in query {
        if v.is_empty() {
            continue;
        }
        url.push(sep);
        url.push_str(&encode_component(k));
        url.push('=');
        url.push_str(&encode_component(v));
        sep = '&';
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_characters_are_escaped() {
        assert_eq!(encode_component("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
        assert_eq!(
            encode_path("10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0"),
            "10.1002/%28SICI%291097-4571%28199806%2949%3A8%3C693%3A%3AAID-ASI4%3E3.0.CO%3B2-0"
        );
        assert_eq!(
            build_url(
                "http://h",
                "/p",
                &[("q", "x y"), ("empty", ""), ("fl[]", "id")]
            ),
            "http://h/p?q=x%20y&fl%5B%5D=id"
        );
    }
}

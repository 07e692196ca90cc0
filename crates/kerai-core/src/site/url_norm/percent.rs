//! Percent-encoding normalisation (RFC 3986 §6.2.2.2): escapes of unreserved characters are
//! decoded, all other escapes get upper-case hex. Malformed `%` sequences are left alone.

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `s` with `%7e` -> `~`, `%41` -> `A`, `%2f` -> `%2F`.
pub fn normalize_percent(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex_value(b[i + 1]), hex_value(b[i + 2])) {
                let byte = h * 16 + l;
                if is_unreserved(byte) {
                    out.push(char::from(byte));
                } else {
                    out.push('%');
                    out.push(char::from(b[i + 1].to_ascii_uppercase()));
                    out.push(char::from(b[i + 2].to_ascii_uppercase()));
                }
                i += 3;
                continue;
            }
        }
        // Copy one whole UTF-8 character.
        let ch_len = s[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&s[i..i + ch_len]);
        i += ch_len;
    }
    out
}

/// Percent-decodes `s` (lossily) for comparisons such as parameter names.
pub fn decode_lossy(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex_value(b[i + 1]), hex_value(b[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises() {
        assert_eq!(
            normalize_percent("/%7euser/%2fa%2Fb/%41%zz%"),
            "/~user/%2Fa%2Fb/A%zz%"
        );
        assert_eq!(normalize_percent("é%e9"), "é%E9");
        assert_eq!(decode_lossy("utm%5Fsource"), "utm_source");
    }
}

//! The URL side of matching: which part of a URL robots.txt rules see, and how patterns are
//! percent-escaped before matching (google/robotstxt `GetPathParamsQuery`, `MaybeEscapePattern`).

/// The path, params and query of `url` (everything from the first `/`, `;` or `?` after the
/// authority up to `#`), always starting with `/`; `/` when there is none.
///
/// The URL is not normalised: callers pass it already percent-encoded, as Google requires.
pub fn path_params_query(url: &str) -> String {
    let b = url.as_bytes();
    let find_from = |from: usize, pred: &dyn Fn(u8) -> bool| -> Option<usize> {
        b.get(from..)?
            .iter()
            .position(|&c| pred(c))
            .map(|p| p + from)
    };
    let is_path_start = |c: u8| c == b'/' || c == b'?' || c == b';';
    // Initial two slashes are ignored.
    let search_start = if b.starts_with(b"//") { 2 } else { 0 };
    let early_path = find_from(search_start, &is_path_start);
    let mut protocol_end = url
        .get(search_start..)
        .and_then(|s| s.find("://"))
        .map(|p| p + search_start);
    if let (Some(early), Some(proto)) = (early_path, protocol_end) {
        if early < proto {
            // A path, param or query starts before "://", so "://" is not the scheme separator.
            protocol_end = None;
        }
    }
    let protocol_end = protocol_end.map_or(search_start, |p| p + 3);
    let Some(path_start) = find_from(protocol_end, &is_path_start) else {
        return "/".to_string();
    };
    let hash_pos = find_from(search_start, &|c| c == b'#');
    if let Some(hash) = hash_pos {
        if hash < path_start {
            return "/".to_string();
        }
    }
    let path_end = hash_pos.unwrap_or(b.len());
    let part = &url[path_start..path_end];
    if b[path_start] != b'/' {
        // Prepend a slash if the result would start with '?' or ';'.
        return format!("/{part}");
    }
    part.to_string()
}

/// A robots.txt pattern with octets >= 0x80 percent-escaped and existing `%xx` escapes
/// upper-cased (`%aa` -> `%AA`, `á` -> `%C3%A1`); other characters are kept.
pub fn escape_pattern(pattern: &str) -> String {
    // Every byte of the result is ASCII.
    String::from_utf8_lossy(&escape_pattern_bytes(pattern.as_bytes())).into_owned()
}

/// [`escape_pattern`] over raw bytes (robots.txt bodies need not be UTF-8).
pub fn escape_pattern_bytes(src: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(src.len());
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        if c == b'%'
            && i + 2 < src.len()
            && src[i + 1].is_ascii_hexdigit()
            && src[i + 2].is_ascii_hexdigit()
        {
            out.push(b'%');
            out.push(src[i + 1].to_ascii_uppercase());
            out.push(src[i + 2].to_ascii_uppercase());
            i += 3;
            continue;
        }
        if c & 0x80 != 0 {
            out.push(b'%');
            out.push(HEX[usize::from(c >> 4)]);
            out.push(HEX[usize::from(c & 0xF)]);
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_pattern("%aa%"), "%AA%");
        assert_eq!(escape_pattern("%a"), "%a");
        assert_eq!(escape_pattern("/ü"), "/%C3%BC");
    }

    #[test]
    fn paths() {
        assert_eq!(path_params_query("http://h/a?b#c"), "/a?b");
        assert_eq!(path_params_query("http://h#x/y"), "/");
        assert_eq!(path_params_query("h;p"), "/;p");
    }
}

//! Decoding of character references (`&amp;`, `&#233;`, `&#x1F600;`, legacy `&copy`).

use super::entity_table::ENTITIES;

/// Windows-1252 meanings of the C1 code points 0x80..0x9F, as browsers apply them to numeric
/// references (`&#150;` is an en dash).
const C1: [char; 32] = [
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{2C6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}', '\u{8F}',
    '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}', '\u{178}',
];

fn lookup(name: &str) -> Option<(&'static str, bool)> {
    ENTITIES
        .binary_search_by(|(n, _, _)| (*n).cmp(name))
        .ok()
        .map(|i| (ENTITIES[i].1, ENTITIES[i].2))
}

/// Appends `s` to `out` with character references decoded. In attribute values a legacy
/// reference without `;` followed by an alphanumeric or `=` is left as it is (as browsers do).
pub fn decode_into(s: &str, out: &mut String, in_attribute: bool) {
    let bytes = s.as_bytes();
    let mut last = 0;
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'&', &bytes[i..]) {
        let amp = i + off;
        i = amp + 1;
        if let Some((text, consumed)) = reference_at(s, amp + 1, in_attribute) {
            out.push_str(&s[last..amp]);
            match text {
                Decoded::Str(t) => out.push_str(t),
                Decoded::Char(c) => out.push(c),
            }
            i = amp + 1 + consumed;
            last = i;
        }
    }
    out.push_str(&s[last..]);
}

/// `s` with character references decoded (borrowed unchanged when it has no `&`).
pub fn decode(s: &str, in_attribute: bool) -> String {
    let mut out = String::with_capacity(s.len());
    decode_into(s, &mut out, in_attribute);
    out
}

enum Decoded {
    Str(&'static str),
    Char(char),
}

/// The reference starting at byte `at` (just after `&`): its text and how many bytes it used.
fn reference_at(s: &str, at: usize, in_attribute: bool) -> Option<(Decoded, usize)> {
    let b = s.as_bytes();
    if at >= b.len() {
        return None;
    }
    if b[at] == b'#' {
        let (hex, start) = if at + 1 < b.len() && (b[at + 1] | 0x20) == b'x' {
            (true, at + 2)
        } else {
            (false, at + 1)
        };
        let mut j = start;
        let mut value: u32 = 0;
        while j < b.len() {
            let d = match b[j] {
                c @ b'0'..=b'9' => (c - b'0') as u32,
                c @ (b'a'..=b'f' | b'A'..=b'F') if hex => ((c | 0x20) - b'a' + 10) as u32,
                _ => break,
            };
            value = value
                .saturating_mul(if hex { 16 } else { 10 })
                .saturating_add(d);
            j += 1;
        }
        if j == start {
            return None;
        }
        if j < b.len() && b[j] == b';' {
            j += 1;
        }
        let c = match value {
            0 => '\u{FFFD}',
            0x80..=0x9F => C1[(value - 0x80) as usize],
            v => char::from_u32(v).unwrap_or('\u{FFFD}'),
        };
        return Some((Decoded::Char(c), j - at));
    }
    let mut j = at;
    while j < b.len() && j - at < 40 && b[j].is_ascii_alphanumeric() {
        j += 1;
    }
    if j == at {
        return None;
    }
    if j < b.len() && b[j] == b';' {
        if let Some((t, _)) = lookup(&s[at..j]) {
            return Some((Decoded::Str(t), j + 1 - at));
        }
    }
    // Legacy references without `;`: the longest known prefix.
    let mut k = j;
    while k > at {
        if let Some((t, true)) = lookup(&s[at..k]) {
            let next = b.get(k).copied();
            if in_attribute && matches!(next, Some(c) if c.is_ascii_alphanumeric() || c == b'=') {
                return None;
            }
            return Some((Decoded::Str(t), k - at));
        }
        k -= 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn named_numeric_and_legacy() {
        assert_eq!(decode("a &amp; b &lt;c&gt;", false), "a & b <c>");
        assert_eq!(
            decode("caf&eacute; &#233; &#xE9; &#150;", false),
            "café é é \u{2013}"
        );
        assert_eq!(decode("&copy 2020 &nbsp;x", false), "\u{a9} 2020 \u{a0}x");
        assert_eq!(decode("&notin; &notit;", false), "\u{2209} \u{ac}it;");
        assert_eq!(decode("?a=1&copy=2", true), "?a=1&copy=2");
        assert_eq!(
            decode("& &; &#; &#xZZ; &unknown;", false),
            "& &; &#; &#xZZ; &unknown;"
        );
        assert_eq!(decode("&#99999999999;", false), "\u{FFFD}");
    }
}

//! Text from the services' fields: markup (JATS, HTML) removed, entities decoded, whitespace
//! collapsed.

/// `s` with whitespace runs collapsed to one space and the ends trimmed.
pub fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Plain text from JATS or HTML: tags removed, entities decoded, `<title>` elements (JATS puts
/// "Abstract" there) dropped, paragraphs (`p`, `sec`, `div`, `br`, `li`) separated by a blank
/// line, whitespace collapsed inside each paragraph. Text without markup comes back collapsed.
pub fn strip_markup(s: &str) -> String {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut skip_depth = 0usize;
    let mut rest = s;
    while let Some(lt) = rest.find('<') {
        if skip_depth == 0 {
            current.push_str(&rest[..lt]);
        }
        let after = &rest[lt + 1..];
        let Some(gt) = after.find('>') else {
            // A lone '<' is text ("p < 0.05").
            if skip_depth == 0 {
                current.push('<');
            }
            rest = after;
            continue;
        };
        let tag = &after[..gt];
        rest = &after[gt + 1..];
        let closing = tag.starts_with('/');
        let name = tag
            .trim_start_matches('/')
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or("");
        let local = name.rsplit(':').next().unwrap_or(name).to_ascii_lowercase();
        let self_closing = tag.ends_with('/');
        if local == "title" && !self_closing {
            if closing {
                skip_depth = skip_depth.saturating_sub(1);
            } else {
                skip_depth += 1;
            }
            continue;
        }
        // Inline elements (italics, sub/superscripts) join their text: "CO<sub>2</sub>" → "CO2".
        if matches!(local.as_str(), "p" | "sec" | "div" | "br" | "li" | "para") {
            push_paragraph(&mut paragraphs, &mut current);
        }
    }
    if skip_depth == 0 {
        current.push_str(rest);
    }
    push_paragraph(&mut paragraphs, &mut current);
    paragraphs.join("\n\n")
}

fn push_paragraph(paragraphs: &mut Vec<String>, current: &mut String) {
    let text = collapse_ws(&decode_entities(current));
    if !text.is_empty() {
        paragraphs.push(text);
    }
    current.clear();
}

/// `s` with the XML entities, `&nbsp;` and numeric character references decoded; unknown
/// entities stay as written.
pub fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let end = after.find(';').filter(|&e| e <= 10);
        let decoded = end.and_then(|e| {
            let ent = &after[..e];
            let ch = match ent {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ => ent.strip_prefix('#').and_then(|n| {
                    let code = match n.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => n.parse().ok(),
                    };
                    code.and_then(char::from_u32)
                }),
            };
            ch.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &after[e + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The words of `s`: runs of alphanumeric characters, everything else a separator (pg_trgm's
/// and the search services' notion of a word).
pub fn alnum_words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// Non-empty text, collapsed; `None` for empty or whitespace.
pub fn non_empty(s: &str) -> Option<String> {
    let s = collapse_ws(s);
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jats_abstracts_become_paragraphs() {
        let jats = "<jats:title>Abstract</jats:title><jats:p>Active inference is a \
                    <jats:italic>normative</jats:italic>, principled\n   account.</jats:p>\
                    <jats:p>It  uses p &lt; 0.05 &amp; &#x3B1;.</jats:p>";
        assert_eq!(
            strip_markup(jats),
            "Active inference is a normative, principled account.\n\nIt uses p < 0.05 & α."
        );
        assert_eq!(strip_markup("plain  text\n here"), "plain text here");
        assert_eq!(strip_markup("a < b and c"), "a < b and c");
        assert_eq!(strip_markup("x<sup>2</sup>+1 <br/>next"), "x2+1\n\nnext");
    }

    #[test]
    fn entities() {
        assert_eq!(decode_entities("&amp;&#65;&#x42;&bogus;&"), "&AB&bogus;&");
        assert_eq!(non_empty("  "), None);
        assert_eq!(non_empty(" a  b "), Some("a b".into()));
    }
}

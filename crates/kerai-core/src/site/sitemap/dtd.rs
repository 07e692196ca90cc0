//! Looking at a DOCTYPE's internal subset without ever expanding it: entity-expansion bombs
//! ("billion laughs") are recognised so the document can be refused. External entities are
//! never fetched and custom entity references are never expanded anywhere in the parser.

/// Entity declarations allowed before a DTD counts as hostile.
const MAX_ENTITY_DECLARATIONS: usize = 256;

/// Why a DOCTYPE looks like an entity-expansion attack, or `None` when it does not.
///
/// The rule: an internal entity whose replacement text refers to another entity (`&name;`,
/// character references aside) is the building block of every expansion bomb, and no
/// sitemap needs one; so are hundreds of entity declarations.
pub fn expansion_bomb(doctype: &str) -> Option<String> {
    let mut count = 0;
    let mut rest = doctype;
    while let Some(at) = rest.find("<!ENTITY") {
        count += 1;
        if count > MAX_ENTITY_DECLARATIONS {
            return Some(format!(
                "more than {MAX_ENTITY_DECLARATIONS} entity declarations"
            ));
        }
        let decl = &rest[at + "<!ENTITY".len()..];
        let (value, after) = quoted_value(decl);
        if let Some(v) = value {
            if refers_to_entity(v) {
                let name = decl.split_whitespace().find(|w| *w != "%").unwrap_or("?");
                return Some(format!(
                    "entity '{name}' refers to other entities (expansion bomb)"
                ));
            }
        }
        rest = after;
    }
    None
}

/// The first quoted literal of a declaration (its replacement text, or a SYSTEM id) and the
/// text after it.
fn quoted_value(decl: &str) -> (Option<&str>, &str) {
    let end_of_decl = decl.find('>').unwrap_or(decl.len());
    let Some(q) = decl[..end_of_decl].find(['"', '\'']) else {
        return (None, &decl[end_of_decl..]);
    };
    let quote = &decl[q..q + 1];
    let body = &decl[q + 1..];
    match body.find(quote) {
        Some(close) => (Some(&body[..close]), &body[close + 1..]),
        None => (Some(body), ""),
    }
}

fn refers_to_entity(value: &str) -> bool {
    let b = value.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        (c == b'&' || c == b'%')
            && b.get(i + 1)
                .is_some_and(|&n| n.is_ascii_alphabetic() || n == b'_' || n == b':')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn billion_laughs_is_a_bomb() {
        let d = r#"lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;">]"#;
        assert!(expansion_bomb(d).unwrap().contains("lol1"));
    }

    #[test]
    fn external_and_plain_entities_are_not() {
        assert_eq!(
            expansion_bomb(
                r#"foo [<!ELEMENT foo ANY ><!ENTITY xxe SYSTEM "file:///etc/passwd" >]"#
            ),
            None
        );
        assert_eq!(expansion_bomb(r#"foo [<!ENTITY c "&#169; ACME">]"#), None);
        assert_eq!(expansion_bomb("html"), None);
    }

    #[test]
    fn parameter_entity_chains_are_bombs() {
        assert!(expansion_bomb(r#"x [<!ENTITY % a "x"><!ENTITY % b "%a;%a;">]"#).is_some());
    }
}

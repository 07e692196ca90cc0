//! A small pull parser over quick-xml that hands out local names, unescaped attribute values
//! and text with entities resolved: what the OOXML, OPF and XHTML readers need.

use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};
use std::borrow::Cow;

/// One step through an XML document. An empty element `<a/>` gives `Start` then `End`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ev {
    Start(Tag),
    End(String),
    Text(String),
}

/// An element's local name (prefix dropped) and its attributes, also by local name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tag {
    pub name: String,
    pub attrs: Vec<(String, String)>,
}

impl Tag {
    /// The value of the attribute whose local name is `key`.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Pulls [`Ev`]s from a document; errors are plain descriptions for a `corrupt` message.
pub(crate) struct Pull<'a> {
    reader: Reader<&'a [u8]>,
    pending_end: Option<String>,
}

impl<'a> Pull<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut reader = Reader::from_str(text);
        let config = reader.config_mut();
        config.check_end_names = false;
        config.trim_text(false);
        Pull {
            reader,
            pending_end: None,
        }
    }

    /// The next event, `Ok(None)` at the end.
    pub fn next(&mut self) -> Result<Option<Ev>, String> {
        if let Some(name) = self.pending_end.take() {
            return Ok(Some(Ev::End(name)));
        }
        loop {
            let event = self.reader.read_event().map_err(|e| {
                format!(
                    "malformed XML at byte {}: {e}",
                    self.reader.buffer_position()
                )
            })?;
            return Ok(Some(match event {
                Event::Start(e) => Ev::Start(tag(&e)?),
                Event::Empty(e) => {
                    let t = tag(&e)?;
                    self.pending_end = Some(t.name.clone());
                    Ev::Start(t)
                }
                Event::End(e) => Ev::End(local(e.name().as_ref())),
                Event::Text(t) => Ev::Text(t.xml10_content().into_owned()),
                Event::CData(t) => Ev::Text(t.into_inner().into_owned()),
                Event::GeneralRef(r) => {
                    let name = r.xml10_content();
                    match resolve_entity(&name) {
                        Some(s) => Ev::Text(s),
                        None => continue,
                    }
                }
                Event::Eof => return Ok(None),
                _ => continue,
            }));
        }
    }

    /// Collects the text inside the element just started, up to its end tag.
    pub fn text_until_end(&mut self) -> Result<String, String> {
        let mut depth = 1usize;
        let mut out = String::new();
        while let Some(ev) = self.next()? {
            match ev {
                Ev::Start(_) => depth += 1,
                Ev::End(_) => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Ev::Text(t) => out.push_str(&t),
            }
        }
        Ok(out)
    }
}

fn local(qname: &str) -> String {
    match qname.rsplit_once(':') {
        Some((_, l)) => l.to_string(),
        None => qname.to_string(),
    }
}

fn tag(e: &quick_xml::events::BytesStart<'_>) -> Result<Tag, String> {
    let mut attrs = Vec::new();
    for a in e.attributes().with_checks(false) {
        let a = a.map_err(|e| format!("malformed XML attribute: {e}"))?;
        let value = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map(Cow::into_owned)
            .unwrap_or_else(|_| a.value.to_string());
        attrs.push((local(a.key.as_ref()), value));
    }
    Ok(Tag {
        name: local(e.name().as_ref()),
        attrs,
    })
}

/// The XML predefined entities, character references and the HTML entities XHTML books use.
fn resolve_entity(name: &str) -> Option<String> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code).map(String::from);
    }
    let s = match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => "\u{a0}",
        "shy" => "",
        "mdash" => "—",
        "ndash" => "–",
        "hellip" => "…",
        "lsquo" => "‘",
        "rsquo" => "’",
        "ldquo" => "“",
        "rdquo" => "”",
        "laquo" => "«",
        "raquo" => "»",
        "copy" => "©",
        "reg" => "®",
        "eacute" => "é",
        "aacute" => "á",
        "iacute" => "í",
        "oacute" => "ó",
        "uacute" => "ú",
        "ntilde" => "ñ",
        "uuml" => "ü",
        "euro" => "€",
        "bull" => "•",
        _ => return None,
    };
    Some(s.to_string())
}

/// Decodes an XML part to text: UTF-16 with a BOM, else UTF-8 (invalid bytes replaced).
pub(crate) fn decode(bytes: &[u8]) -> Cow<'_, str> {
    if let Some((enc, _)) = encoding_rs::Encoding::for_bom(bytes) {
        let (text, _, _) = enc.decode(bytes);
        return text;
    }
    String::from_utf8_lossy(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pulls_local_names_attributes_and_entities() {
        let mut p =
            Pull::new(r#"<w:p a:x="1 &amp; 2"><w:t>Tom &amp; Jerry &#233;</w:t><w:br/></w:p>"#);
        let mut evs = vec![];
        while let Some(e) = p.next().unwrap() {
            evs.push(e);
        }
        assert_eq!(
            evs[0],
            Ev::Start(Tag {
                name: "p".into(),
                attrs: vec![("x".into(), "1 & 2".into())]
            })
        );
        let text: String = evs
            .iter()
            .filter_map(|e| {
                if let Ev::Text(t) = e {
                    Some(t.as_str())
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(text, "Tom & Jerry é");
        assert_eq!(evs.last(), Some(&Ev::End("p".into())));
        assert!(evs.contains(&Ev::End("br".into())));
    }

    #[test]
    fn malformed_xml_is_an_error() {
        let mut p = Pull::new("<a><b attr=></a>");
        let mut r = Ok(None);
        for _ in 0..10 {
            r = p.next();
            if r.is_err() {
                break;
            }
        }
        assert!(r.is_err());
    }
}

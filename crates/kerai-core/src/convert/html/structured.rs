//! Structured data of a page: JSON-LD blocks (flattened, malformed ones repaired when a light
//! repair suffices, otherwise reported), Open Graph and Twitter cards, other meta tags,
//! canonical URL, hreflang alternates, title and declared language.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::dom::{parse, Document, Tag};
use super::links::Resolver;

/// Structured data found in a page (serialisable to JSON).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Structured {
    /// Every JSON-LD item: each `application/ld+json` block, top-level arrays and `@graph`
    /// lists flattened into their items (`@context` copied onto `@graph` items lacking one).
    pub json_ld: Vec<Value>,
    /// One message per block that could not be read even after repairs.
    pub json_ld_errors: Vec<String>,
    /// `og:*` properties (first value of each), keys without the `og:` prefix.
    pub open_graph: BTreeMap<String, String>,
    /// `twitter:*` cards (first value of each), keys without the prefix.
    pub twitter: BTreeMap<String, String>,
    /// Other meta tags by lower-case `name`/`property`/`itemprop`/`http-equiv` (description,
    /// keywords, author, article:published_time, date, last-modified, dc.*, citation_*, ...);
    /// repeated names have their values joined with `; `.
    pub meta: BTreeMap<String, String>,
    /// `<link rel=canonical>` (resolved when a page URL was given).
    pub canonical: Option<String>,
    /// `(hreflang, url)` of `<link rel=alternate hreflang=..>`.
    pub hreflang: Vec<(String, String)>,
    /// `<title>`, whitespace collapsed.
    pub title: Option<String>,
    /// `<html lang>` as written.
    pub lang: Option<String>,
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The structured data of `html` (URLs as written in the page).
pub fn extract_structured(html: &str) -> Structured {
    structured_of(&parse(html), None)
}

/// The structured data of `html` fetched from `url` (canonical and hreflang URLs resolved).
pub fn extract_structured_at(html: &str, url: &str) -> Structured {
    let doc = parse(html);
    let r = Resolver::new(&doc, url);
    structured_of(&doc, Some(&r))
}

/// The structured data of a parsed page.
pub fn structured_of(doc: &Document, resolver: Option<&Resolver>) -> Structured {
    let mut s = Structured::default();
    let resolve = |h: &str| -> String {
        resolver
            .and_then(|r| r.resolve(h))
            .unwrap_or_else(|| h.trim().to_string())
    };
    if let Some(html) = doc.find(Tag::Html) {
        s.lang = doc
            .attr(html, "lang")
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty());
    }
    s.title = doc
        .find(Tag::Title)
        .map(|t| collapse(&doc.text_content(t)))
        .filter(|t| !t.is_empty());
    let mut block = 0;
    for id in 0..doc.nodes.len() as u32 {
        match doc.tag(id) {
            Some(Tag::Script) => {
                let ty = doc.attr(id, "type").unwrap_or("").to_ascii_lowercase();
                if !ty.contains("ld+json") {
                    continue;
                }
                block += 1;
                let raw = doc.text_content(id);
                match read_json_ld(&raw) {
                    Ok(values) => {
                        for v in values {
                            flatten(v, &mut s.json_ld);
                        }
                    }
                    Err(e) => s.json_ld_errors.push(format!("JSON-LD block {block}: {e}")),
                }
            }
            Some(Tag::Meta) => {
                let Some(content) = doc.attr(id, "content") else {
                    continue;
                };
                let content = content.trim();
                let key = ["property", "name", "itemprop", "http-equiv"]
                    .iter()
                    .find_map(|a| doc.attr(id, a))
                    .map(|k| k.trim().to_ascii_lowercase());
                let Some(key) = key.filter(|k| !k.is_empty()) else {
                    continue;
                };
                if content.is_empty() {
                    continue;
                }
                if let Some(k) = key.strip_prefix("og:") {
                    s.open_graph
                        .entry(k.to_string())
                        .or_insert_with(|| content.to_string());
                } else if let Some(k) = key.strip_prefix("twitter:") {
                    s.twitter
                        .entry(k.to_string())
                        .or_insert_with(|| content.to_string());
                } else {
                    s.meta
                        .entry(key)
                        .and_modify(|v| {
                            if !v.split("; ").any(|x| x == content) {
                                v.push_str("; ");
                                v.push_str(content);
                            }
                        })
                        .or_insert_with(|| content.to_string());
                }
            }
            Some(Tag::Link) => {
                let rel = doc.attr(id, "rel").unwrap_or("").to_ascii_lowercase();
                let Some(href) = doc.attr(id, "href").filter(|h| !h.trim().is_empty()) else {
                    continue;
                };
                let rels: Vec<&str> = rel.split_whitespace().collect();
                if rels.contains(&"canonical") && s.canonical.is_none() {
                    s.canonical = Some(resolve(href));
                }
                if rels.contains(&"alternate") {
                    if let Some(lang) = doc
                        .attr(id, "hreflang")
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                    {
                        s.hreflang.push((lang.to_string(), resolve(href)));
                    }
                }
            }
            _ => {}
        }
    }
    s
}

impl Structured {
    /// Whether the page says it is one article (`og:type` `article`, or a JSON-LD item of an
    /// article type) and not a collection (`CollectionPage`, `ItemList`, search results) or a
    /// discussion (`DiscussionForumPosting`, `QAPage`).
    pub fn declares_article(&self) -> bool {
        let og = self
            .open_graph
            .get("type")
            .is_some_and(|t| t.eq_ignore_ascii_case("article"));
        (og && self.page_kind_open()) || self.declares_article_in_json_ld()
    }

    /// Whether nothing in the JSON-LD says the page is a collection or a discussion.
    fn page_kind_open(&self) -> bool {
        !self.types().any(|t| {
            matches!(
                t,
                "CollectionPage"
                    | "ItemList"
                    | "SearchResultsPage"
                    | "ProfilePage"
                    | "DiscussionForumPosting"
                    | "QAPage"
                    | "Question"
            )
        })
    }

    /// The `@type`s of the page's JSON-LD items.
    fn types(&self) -> impl Iterator<Item = &str> {
        self.json_ld.iter().flat_map(type_names)
    }

    /// Whether the page's JSON-LD says it is a discussion: a forum thread
    /// (`DiscussionForumPosting`) or a question with its answers (`QAPage`).
    /// Its items are read, and the `mainEntity` of each (a `WebPage` whose main entity is the
    /// thread).
    pub fn declares_discussion_in_json_ld(&self) -> bool {
        let main = self
            .json_ld
            .iter()
            .filter_map(|v| v.get("mainEntity"))
            .flat_map(|m| match m {
                Value::Array(items) => items.iter().collect(),
                m => vec![m],
            })
            .flat_map(type_names);
        self.types()
            .chain(main)
            .any(|t| matches!(t, "DiscussionForumPosting" | "QAPage"))
    }

    /// Whether the page's JSON-LD (not only `og:type`, which forum software sets on threads
    /// too) says it is one article, and nothing says it is a collection or a discussion.
    pub fn declares_article_in_json_ld(&self) -> bool {
        self.types()
            .any(|t| t.ends_with("Article") || t == "BlogPosting")
            && self.page_kind_open()
    }
}

/// The `@type` names of one JSON-LD item (a string or an array of them).
fn type_names(v: &Value) -> Vec<&str> {
    match v.get("@type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Items of a JSON-LD value: arrays and `@graph` lists are opened.
fn flatten(v: Value, out: &mut Vec<Value>) {
    match v {
        Value::Array(items) => {
            for i in items {
                flatten(i, out);
            }
        }
        Value::Object(mut map) if map.get("@graph").is_some_and(Value::is_array) => {
            let context = map.get("@context").cloned();
            if let Some(Value::Array(items)) = map.remove("@graph") {
                for i in items {
                    match (i, &context) {
                        (Value::Object(mut o), Some(c)) if !o.contains_key("@context") => {
                            o.insert("@context".to_string(), c.clone());
                            out.push(Value::Object(o));
                        }
                        (i, _) => flatten(i, out),
                    }
                }
            }
            // What else the object says besides its graph is an item too.
            map.remove("@context");
            if !map.is_empty() {
                if let Some(c) = context {
                    map.insert("@context".to_string(), c);
                }
                out.push(Value::Object(map));
            }
        }
        Value::Null => {}
        other => out.push(other),
    }
}

/// Parses a JSON-LD block, trying light repairs when it is malformed: HTML comment and CDATA
/// wrappers, trailing commas, raw control characters inside strings, several concatenated
/// values. Returns the values, or the parser's message for the original text.
pub fn read_json_ld(raw: &str) -> Result<Vec<Value>, String> {
    let text = raw.trim().trim_start_matches('\u{feff}');
    if text.is_empty() {
        return Err("empty block".to_string());
    }
    let first_error = match serde_json::from_str::<Value>(text) {
        Ok(v) => return Ok(vec![v]),
        Err(e) => e.to_string(),
    };
    let unwrapped = strip_wrappers(text);
    let repaired = fix_control_chars(&remove_trailing_commas(&unwrapped));
    if let Ok(v) = serde_json::from_str::<Value>(&repaired) {
        return Ok(vec![v]);
    }
    // Several values one after another (`{...}{...}` or `{...};`).
    // `base` is where the current stream starts in `repaired`: a stream's offsets are its own,
    // and each restart must move strictly forward so the loop ends.
    let mut values = Vec::new();
    let mut base = 0;
    let mut stream = serde_json::Deserializer::from_str(&repaired).into_iter::<Value>();
    loop {
        match stream.next() {
            Some(Ok(v)) => values.push(v),
            Some(Err(_)) => {
                // Skip separators such as `;` or `,` between values.
                let off = base + stream.byte_offset();
                let rest = repaired[off..]
                    .trim_start_matches(|c: char| c == ';' || c == ',' || c.is_whitespace());
                let next = repaired.len() - rest.len();
                if next <= base || next == off || rest.is_empty() {
                    break;
                }
                base = next;
                stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
            }
            None => break,
        }
    }
    if values.is_empty() {
        Err(first_error)
    } else {
        Ok(values)
    }
}

fn strip_wrappers(text: &str) -> String {
    let mut t = text.to_string();
    for w in [
        "<!--",
        "-->",
        "//<![CDATA[",
        "//]]>",
        "<![CDATA[",
        "]]>",
        "/*<![CDATA[*/",
        "/*]]>*/",
    ] {
        t = t.replace(w, "");
    }
    t.trim().trim_end_matches(';').trim().to_string()
}

/// Removes commas directly before `}` or `]` (outside strings).
fn remove_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut in_str = false;
    let mut escaped = false;
    for (i, &c) in chars.iter().enumerate() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        if c == '"' {
            in_str = true;
        }
        if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Escapes raw newlines, tabs and other control characters inside strings.
fn fix_control_chars(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_str = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_str {
            if escaped {
                escaped = false;
                out.push(c);
                continue;
            }
            match c {
                '\\' => escaped = true,
                '"' => in_str = false,
                '\n' => {
                    out.push_str("\\n");
                    continue;
                }
                '\r' => continue,
                '\t' => {
                    out.push_str("\\t");
                    continue;
                }
                c if (c as u32) < 0x20 => continue,
                _ => {}
            }
            out.push(c);
        } else {
            if c == '"' {
                in_str = true;
            }
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_json_ld_ends_on_broken_value_sequences() {
        // A stream restarted after a separator reports offsets from its own start; reading
        // them as offsets into the whole block once looped for ever (found by fuzzing).
        let broken = ",\n{\n  \"@context\": \"x\",\n  \"nale/\">\n <a \u{1}\">,;{\"b\":2}";
        assert!(read_json_ld(broken).is_err());
        let two = read_json_ld("{\"a\":1};, {\"b\":2} ;{\"c\":3}").unwrap();
        assert_eq!(two.len(), 3);
        let after_junk = read_json_ld("{\"a\":1}, x {\"b\":2}").unwrap();
        assert_eq!(after_junk.len(), 1);
    }

    #[test]
    fn reads_every_kind() {
        let html = r#"<html lang="en-GB"><head><title> A  page </title>
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"U1"},{"@type":"WebPage","name":"P"}]}</script>
            <script type="application/ld+json">[{"@type":"Person","name":"A"},{"@type":"Person","name":"B",}]</script>
            <script type="application/ld+json"><!-- {"@type":"Event","name":"line
            two"} --></script>
            <script type="application/ld+json">{"@type": broken</script>
            <meta property="og:title" content="OG title"><meta property="og:image" content="a.jpg"><meta property="og:image" content="b.jpg">
            <meta name="twitter:card" content="summary"><meta name="description" content="Desc">
            <meta property="article:published_time" content="2020-01-02"><meta name="citation_author" content="X"><meta name="citation_author" content="Y">
            <meta http-equiv="last-modified" content="2020-02-03"><meta name="DC.Title" content="DC">
            <link rel="canonical" href="/canon"><link rel="alternate" hreflang="de" href="/de/">
            </head><body></body></html>"#;
        let s = extract_structured_at(html, "https://u1.edu/x/page");
        let types: Vec<&str> = s
            .json_ld
            .iter()
            .map(|v| v["@type"].as_str().unwrap())
            .collect();
        assert_eq!(
            types,
            ["Organization", "WebPage", "Person", "Person", "Event"]
        );
        assert_eq!(s.json_ld[0]["@context"], "https://schema.org");
        assert!(s.json_ld[4]["name"].as_str().unwrap().starts_with("line\n"));
        assert_eq!(s.json_ld_errors.len(), 1);
        assert!(
            s.json_ld_errors[0].starts_with("JSON-LD block 4:"),
            "{:?}",
            s.json_ld_errors
        );
        assert_eq!(s.open_graph["title"], "OG title");
        assert_eq!(s.open_graph["image"], "a.jpg");
        assert_eq!(s.twitter["card"], "summary");
        assert_eq!(s.meta["description"], "Desc");
        assert_eq!(s.meta["article:published_time"], "2020-01-02");
        assert_eq!(s.meta["citation_author"], "X; Y");
        assert_eq!(s.meta["last-modified"], "2020-02-03");
        assert_eq!(s.meta["dc.title"], "DC");
        assert_eq!(s.canonical.as_deref(), Some("https://u1.edu/canon"));
        assert_eq!(
            s.hreflang,
            [("de".to_string(), "https://u1.edu/de/".to_string())]
        );
        assert_eq!(s.title.as_deref(), Some("A page"));
        assert_eq!(s.lang.as_deref(), Some("en-GB"));
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"json_ld\""));
        let plain = extract_structured(html);
        assert_eq!(plain.canonical.as_deref(), Some("/canon"));
    }

    #[test]
    fn concatenated_values() {
        let v = read_json_ld(r#"{"a":1} {"b":2};"#).unwrap();
        assert_eq!(v.len(), 2);
    }
}

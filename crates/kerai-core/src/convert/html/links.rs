//! Links for the crawler: every `<a href>`, `<area href>`, `<link rel=alternate>`,
//! `<iframe src>` / `<frame src>`, resolved against `<base href>` and the page URL, without
//! fragments; `javascript:`, `mailto:`, `tel:` and `data:` targets are skipped.

use serde::{Deserialize, Serialize};
use url::Url;

use super::dom::{parse, Document, NodeId, Tag};

/// A link found on a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// Absolute URL, fragment removed.
    pub url: String,
    /// The link text (whitespace collapsed; an image's `alt` when the link holds only one).
    pub text: String,
    /// The `rel` attribute, lower case (empty when absent).
    pub rel: String,
    /// `rel` says `nofollow`/`ugc`/`sponsored`, or the page's robots meta says `nofollow`.
    pub nofollow: bool,
    /// The element: `a`, `area`, `link`, `iframe` or `frame`.
    pub tag: String,
    /// For `<link rel=alternate hreflang=..>`: the language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hreflang: Option<String>,
    /// The document type when the path names one (`pdf`, `docx`, `xlsx`, `epub`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
}

/// Resolves hrefs against a page's base URL.
pub struct Resolver {
    base: Option<Url>,
}

impl Resolver {
    /// A resolver for `doc` fetched from `page_url` (honours the first `<base href>`).
    pub fn new(doc: &Document, page_url: &str) -> Resolver {
        let page = Url::parse(page_url.trim()).ok();
        let base_href = doc
            .find(Tag::Base)
            .and_then(|b| doc.attr(b, "href"))
            .map(str::trim)
            .filter(|h| !h.is_empty());
        let base = match (base_href, &page) {
            (Some(h), Some(p)) => p.join(h).ok().or(page.clone()),
            (Some(h), None) => Url::parse(h).ok(),
            (None, p) => p.clone(),
        };
        Resolver { base }
    }

    /// `href` as an absolute http(s)/ftp URL without fragment; `None` for `javascript:`,
    /// `mailto:`, `tel:`, `data:`, fragment-only and unparsable references.
    pub fn resolve(&self, href: &str) -> Option<String> {
        let h = href.trim_matches(|c: char| c.is_whitespace() || c.is_control());
        if h.is_empty() || h.starts_with('#') {
            return None;
        }
        let lower_scheme = h.split(':').next().unwrap_or("").to_ascii_lowercase();
        if matches!(
            lower_scheme.as_str(),
            "javascript"
                | "mailto"
                | "tel"
                | "data"
                | "about"
                | "blob"
                | "sms"
                | "callto"
                | "vbscript"
        ) {
            return None;
        }
        let mut u = match &self.base {
            Some(b) => b.join(h).ok()?,
            None => Url::parse(h).ok()?,
        };
        if !matches!(u.scheme(), "http" | "https" | "ftp") {
            return None;
        }
        u.set_fragment(None);
        Some(u.into())
    }

    /// Whether [`Self::resolve`] would give a URL for `href`, without building it (cheap; a
    /// relative reference is assumed to resolve).
    pub fn is_link(&self, href: &str) -> bool {
        let h = href.trim_matches(|c: char| c.is_whitespace() || c.is_control());
        if h.is_empty() || h.starts_with('#') {
            return false;
        }
        match h.split_once(':') {
            Some((scheme, _))
                if scheme
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)) =>
            {
                let s = scheme.to_ascii_lowercase();
                matches!(s.as_str(), "http" | "https" | "ftp")
            }
            _ => self.base.is_some() || h.starts_with("//"),
        }
    }

    /// Like [`Self::resolve`], for links in markdown.
    pub fn resolve_link(&self, href: &str) -> Option<String> {
        self.resolve(href)
    }
}

/// Document types a crawler fetches besides pages, by path extension.
const DOCUMENT_TYPES: &[&str] = &[
    "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "epub", "rtf", "csv",
    "txt", "xml",
];

fn document_type(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit('/').next().unwrap_or("");
    let (_, ext) = last.rsplit_once('.')?;
    let ext = ext.to_ascii_lowercase();
    DOCUMENT_TYPES.contains(&ext.as_str()).then_some(ext)
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The links of a parsed page.
pub fn links_of(doc: &Document, base_url: &str) -> Vec<Link> {
    let resolver = Resolver::new(doc, base_url);
    let page_nofollow = doc.find_all(Tag::Meta).any(|m| {
        doc.attr(m, "name")
            .is_some_and(|n| n.eq_ignore_ascii_case("robots"))
            && doc
                .attr(m, "content")
                .is_some_and(|c| c.to_ascii_lowercase().contains("nofollow"))
    });
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for id in 0..doc.nodes.len() as NodeId {
        let Some(tag) = doc.tag(id) else { continue };
        let (attr, text) = match tag {
            Tag::A | Tag::Area => ("href", link_text(doc, id)),
            Tag::Link => {
                let rel = doc.attr(id, "rel").unwrap_or("").to_ascii_lowercase();
                if !rel.split_whitespace().any(|r| r == "alternate") {
                    continue;
                }
                (
                    "href",
                    doc.attr(id, "title").map(collapse).unwrap_or_default(),
                )
            }
            Tag::Iframe | Tag::Frame => (
                "src",
                doc.attr(id, "title").map(collapse).unwrap_or_default(),
            ),
            _ => continue,
        };
        let Some(href) = doc.attr(id, attr) else {
            continue;
        };
        let Some(url) = resolver.resolve(href) else {
            continue;
        };
        if !seen.insert(url.clone()) {
            continue;
        }
        let rel = doc
            .attr(id, "rel")
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let nofollow = page_nofollow
            || rel
                .split_whitespace()
                .any(|r| matches!(r, "nofollow" | "ugc" | "sponsored"));
        let hreflang = if tag == Tag::Link {
            doc.attr(id, "hreflang").map(|s| s.trim().to_string())
        } else {
            None
        };
        out.push(Link {
            document: document_type(&url),
            url,
            text,
            rel,
            nofollow,
            tag: tag.name().to_string(),
            hreflang,
        });
    }
    out
}

fn link_text(doc: &Document, id: NodeId) -> String {
    let t = collapse(&doc.text_content(id));
    if !t.is_empty() {
        return t;
    }
    for d in id..doc.subtree_end(id) {
        if doc.tag(d) == Some(Tag::Img) {
            if let Some(alt) = doc.attr(d, "alt") {
                return collapse(alt);
            }
        }
    }
    doc.attr(id, "title")
        .or_else(|| doc.attr(id, "aria-label"))
        .map(collapse)
        .unwrap_or_default()
}

/// All links of `html` (a page fetched from `base_url`), first occurrence of each URL, in
/// document order.
pub fn links(html: &str, base_url: &str) -> Vec<Link> {
    links_of(&parse(html), base_url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_against_base_and_skips_pseudo_schemes() {
        let html = r##"<head><base href="/docs/"><link rel="alternate" hreflang="de" href="https://x.org/de/"></head>
            <a href="a.html#top">A</a> <a href="javascript:void(0)">J</a> <a href="mailto:a@b">M</a>
            <a href="tel:1">T</a> <a href="data:text/plain,x">D</a> <a href="#frag">F</a>
            <a rel="nofollow sponsored" href="//cdn.x.org/r.PDF">report</a><a href="a.html"><img alt="again"></a>
            <iframe src="https://v.x.org/embed/1"></iframe>"##;
        let l = links(html, "https://x.org/start/page.html");
        let urls: Vec<&str> = l.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://x.org/de/",
                "https://x.org/docs/a.html",
                "https://cdn.x.org/r.PDF",
                "https://v.x.org/embed/1"
            ]
        );
        assert_eq!(l[0].hreflang.as_deref(), Some("de"));
        assert_eq!(l[1].text, "A");
        assert!(!l[1].nofollow);
        assert!(l[2].nofollow);
        assert_eq!(l[2].document.as_deref(), Some("pdf"));
        assert_eq!(l[3].tag, "iframe");
    }

    #[test]
    fn robots_nofollow_applies_to_all() {
        let l = links(
            "<meta name=robots content='noindex, nofollow'><a href=/x>x</a>",
            "http://h.org/",
        );
        assert!(l[0].nofollow);
        assert_eq!(l[0].url, "http://h.org/x");
    }
}

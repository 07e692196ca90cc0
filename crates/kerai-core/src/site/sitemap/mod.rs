//! Sitemaps: one document at a time ([`parse`]) and a whole site ([`SitemapWalk`]).
//!
//! [`parse`] takes the bytes a fetch returned and tells what they are: a `<urlset>`, a
//! `<sitemapindex>`, a plain-text list, an RSS or Atom feed, a robots.txt, or invalid. It
//! follows ultimate-sitemap-parser's rules (the body's bytes decide, not the headers; field
//! normalisation; entries before a truncation are kept) and is safe on hostile input:
//! gzip is capped, custom XML entities are never expanded, external entities are never
//! resolved, and entity-expansion DTDs are refused.

mod body;
mod dtd;
mod fields;
mod text;
mod types;
mod walk;
mod xml;

pub use body::is_gzip;
pub use fields::{is_http_url, parse_date};
pub use text::is_robots_url;
pub use types::{
    Alternate, ChangeFreq, Image, Limits, NewsStory, Page, ParseNotes, ResponseMeta, SitemapDoc,
    SitemapKind, SitemapRef, DEFAULT_PRIORITY,
};
pub use walk::{FetchResult, SitemapWalk, WalkNode, WalkOptions, KNOWN_SITEMAP_PATHS};

/// Parses one fetched document. `url` is where it came from (used to recognise a robots.txt
/// and to resolve its relative `Sitemap:` lines; may be empty for a document from a string).
///
/// XML if the first non-blank character is `<`; otherwise a robots.txt when `url`'s path ends
/// in `/robots.txt`, else a plain-text sitemap.
pub fn parse(url: &str, meta: &ResponseMeta, body: &[u8], limits: &Limits) -> SitemapDoc {
    let mut notes = ParseNotes::default();
    let bytes = match body::decompress(body, limits.max_decompressed_bytes, &mut notes) {
        Ok(b) => b,
        Err(why) => {
            return SitemapDoc {
                kind: SitemapKind::Invalid(why),
                notes,
            }
        }
    };
    let text = body::decode_text(&bytes, meta.content_type);
    let first = text
        .trim_start_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}')
        .chars()
        .next();
    let kind = if first == Some('<') {
        xml::parse(text.trim_start_matches('\u{FEFF}'), limits, &mut notes)
    } else if text::is_robots_url(url) {
        SitemapKind::Robots(text::robots_sitemaps(url, &bytes, limits, &mut notes))
    } else {
        SitemapKind::Text(text::text_pages(&text, limits, &mut notes))
    };
    SitemapDoc { kind, notes }
}

/// [`parse`] for a whole HTTP answer: a status outside 2xx makes the document invalid
/// ("unable to fetch … HTTP 404") without looking at the body.
pub fn parse_response(
    url: &str,
    status: u16,
    meta: &ResponseMeta,
    body: &[u8],
    limits: &Limits,
) -> SitemapDoc {
    if !(200..300).contains(&status) {
        return SitemapDoc {
            kind: SitemapKind::Invalid(format!("unable to fetch {url}: HTTP {status}")),
            notes: ParseNotes::default(),
        };
    }
    parse(url, meta, body, limits)
}

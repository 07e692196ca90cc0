//! Streaming parse of XML sitemaps and feeds (`<urlset>`, `<sitemapindex>`, RSS, Atom) with
//! quick-xml. Elements are matched by local name and parent, so missing or wrong namespaces
//! do not matter. Entries are kept only once their closing tag is read, so a truncated
//! document yields the entries before the cut.

use std::collections::HashSet;

use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::dtd;
use super::fields::{changefreq, is_http_url, parse_date, priority, split_list};
use super::types::{
    Alternate, Image, Limits, NewsStory, Page, ParseNotes, SitemapKind, SitemapRef,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Root {
    Urlset,
    Index,
    Rss,
    Atom,
}

/// Fields of one `<url>` while it is read.
#[derive(Default)]
struct UrlEntry {
    loc: Option<String>,
    lastmod: Option<String>,
    changefreq: Option<String>,
    priority: Option<String>,
    news_title: Option<String>,
    news_date: Option<String>,
    news_name: Option<String>,
    news_language: Option<String>,
    news_access: Option<String>,
    news_genres: Option<String>,
    news_keywords: Option<String>,
    news_tickers: Option<String>,
    images: Vec<Image>,
    alternates: Vec<Alternate>,
}

/// Fields of one RSS `<item>` or Atom `<entry>` while it is read.
#[derive(Default)]
struct FeedEntry {
    link: Option<String>,
    self_link: Option<String>,
    guid: Option<String>,
    title: Option<String>,
    description: Option<String>,
    published: Option<String>,
    updated: Option<String>,
}

struct Parser<'l> {
    root: Option<Root>,
    /// Local names of the open elements, as interned lower-case names ("" when unknown).
    stack: Vec<&'static str>,
    text: String,
    url: Option<UrlEntry>,
    image: Option<Image>,
    sitemap: Option<(Option<String>, Option<String>)>,
    feed: Option<FeedEntry>,
    pages: Vec<Page>,
    refs: Vec<SitemapRef>,
    seen_refs: HashSet<String>,
    limits: &'l Limits,
    notes: &'l mut ParseNotes,
}

/// Parses an XML document (already decoded to text).
pub fn parse(text: &str, limits: &Limits, notes: &mut ParseNotes) -> SitemapKind {
    let mut reader = Reader::from_str(text);
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    let mut p = Parser {
        root: None,
        stack: Vec::new(),
        text: String::new(),
        url: None,
        image: None,
        sitemap: None,
        feed: None,
        pages: Vec::new(),
        refs: Vec::new(),
        seen_refs: HashSet::new(),
        limits,
        notes,
    };
    loop {
        let event = match reader.read_event() {
            Ok(ev) => ev,
            Err(e) => {
                let at = reader.error_position();
                if p.root.is_none() {
                    return SitemapKind::Invalid(format!(
                        "not a readable XML document (error at byte {at}: {e})"
                    ));
                }
                p.notes.truncated = Some(format!(
                    "XML error at byte {at}: {e}; entries before it were kept"
                ));
                break;
            }
        };
        match event {
            Event::Start(e) | Event::Empty(e) if p.root.is_none() => {
                let name = intern(e.local_name().as_ref());
                p.root = Some(match name {
                    "urlset" => Root::Urlset,
                    "sitemapindex" => Root::Index,
                    "rss" | "rdf" => Root::Rss,
                    "feed" => Root::Atom,
                    _ => {
                        let name = e.local_name().as_ref().to_string();
                        return SitemapKind::Invalid(format!(
                            "unsupported root element <{name}> (not a sitemap or feed)"
                        ));
                    }
                });
                p.stack.push(name);
            }
            Event::Start(e) => p.start(&e),
            Event::Empty(e) => {
                p.start(&e);
                p.end();
            }
            Event::End(e) => {
                let name = intern(e.local_name().as_ref());
                // Close up to the matching open element; ignore a stray end tag.
                if let Some(at) = p.stack.iter().rposition(|n| *n == name) {
                    while p.stack.len() > at {
                        p.end();
                    }
                }
            }
            Event::Text(t) => p.text.push_str(&t.xml10_content()),
            Event::CData(c) => p.text.push_str(&c.xml10_content()),
            Event::GeneralRef(r) => match r.resolve_char_ref() {
                Ok(Some(ch)) => p.text.push(ch),
                Ok(None) => match resolve_xml_entity(&r.xml10_content()) {
                    Some(s) => p.text.push_str(s),
                    None => p.notes.dropped_entities += 1,
                },
                Err(_) => p.notes.dropped_entities += 1,
            },
            Event::DocType(d) => {
                if let Some(why) = dtd::expansion_bomb(&d.xml10_content()) {
                    return SitemapKind::Invalid(format!("refused hostile DTD: {why}"));
                }
            }
            Event::Eof => {
                if let Some(open) = p.stack.last() {
                    p.notes.truncated = Some(format!(
                        "document ends inside <{open}>; complete entries were kept"
                    ));
                }
                break;
            }
            _ => {}
        }
        if p.full() {
            p.notes.truncated = Some(format!(
                "more than {} entries; the rest were ignored",
                p.limits.max_urls
            ));
            break;
        }
    }
    match p.root {
        None => SitemapKind::Invalid("no root element (empty or not XML)".to_string()),
        Some(Root::Urlset) => SitemapKind::Urlset(p.pages),
        Some(Root::Index) => SitemapKind::Index(p.refs),
        Some(Root::Rss) => SitemapKind::Rss(p.pages),
        Some(Root::Atom) => SitemapKind::Atom(p.pages),
    }
}

/// Every element name the parser looks at.
const KNOWN_NAMES: &[&str] = &[
    "urlset",
    "sitemapindex",
    "rss",
    "rdf",
    "feed",
    "url",
    "loc",
    "lastmod",
    "changefreq",
    "priority",
    "news",
    "publication",
    "name",
    "language",
    "publication_date",
    "title",
    "access",
    "genres",
    "keywords",
    "stock_tickers",
    "image",
    "caption",
    "geo_location",
    "license",
    "link",
    "sitemap",
    "item",
    "entry",
    "guid",
    "description",
    "summary",
    "tagline",
    "pubdate",
    "published",
    "issued",
    "date",
    "updated",
    "modified",
    "channel",
];

/// `name` as one of [`KNOWN_NAMES`] (ASCII case ignored), or "" for any other element; no
/// allocation per element.
fn intern(name: &str) -> &'static str {
    KNOWN_NAMES
        .iter()
        .find(|k| k.eq_ignore_ascii_case(name))
        .copied()
        .unwrap_or("")
}

/// An attribute's value with predefined and character references resolved and any other
/// entity reference dropped (never expanded).
fn attr(e: &BytesStart, name: &str) -> Option<String> {
    e.attributes()
        .with_checks(false)
        .flatten()
        .find(|a| a.key.local_name().as_ref().eq_ignore_ascii_case(name))
        .map(|a| {
            a.normalized_value_with(quick_xml::XmlVersion::Implicit1_0, 1, |ent| {
                Some(resolve_xml_entity(ent).unwrap_or(""))
            })
            .map(|v| v.into_owned())
            .unwrap_or_else(|_| a.value.into_owned())
        })
}

fn clean(s: &str) -> Option<String> {
    Some(s.trim().to_string())
}

impl Parser<'_> {
    fn full(&self) -> bool {
        self.pages.len() >= self.limits.max_urls || self.refs.len() >= self.limits.max_urls
    }

    fn start(&mut self, e: &BytesStart) {
        let name = intern(e.local_name().as_ref());
        let parent = self.stack.last().copied().unwrap_or("");
        match (self.root, name) {
            (Some(Root::Urlset), "url") if self.url.is_none() => {
                self.url = Some(UrlEntry::default())
            }
            (Some(Root::Urlset), "image") if parent == "url" && self.url.is_some() => {
                self.image = Some(Image::default())
            }
            (Some(Root::Urlset), "link") if parent == "url" => {
                if let (Some(url), Some(href)) = (self.url.as_mut(), attr(e, "href")) {
                    url.alternates.push(Alternate {
                        href: href.trim().to_string(),
                        hreflang: attr(e, "hreflang"),
                        rel: attr(e, "rel"),
                    });
                }
            }
            (Some(Root::Index), "sitemap") if self.sitemap.is_none() => {
                self.sitemap = Some((None, None))
            }
            (Some(Root::Rss), "item") | (Some(Root::Atom), "entry") if self.feed.is_none() => {
                self.feed = Some(FeedEntry::default())
            }
            (Some(Root::Atom), "link") if parent == "entry" => {
                if let (Some(entry), Some(href)) = (self.feed.as_mut(), attr(e, "href")) {
                    let rel = attr(e, "rel").map(|r| r.trim().to_ascii_lowercase());
                    match rel.as_deref() {
                        None | Some("alternate") if entry.link.is_none() => entry.link = Some(href),
                        Some("self") if entry.self_link.is_none() => entry.self_link = Some(href),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        self.stack.push(name);
        self.text.clear();
    }

    /// Closes the innermost open element.
    fn end(&mut self) {
        let Some(name) = self.stack.pop() else {
            return;
        };
        let parent = self.stack.last().copied().unwrap_or("");
        let text = std::mem::take(&mut self.text);
        match self.root {
            Some(Root::Urlset) => self.end_urlset(name, parent, &text),
            Some(Root::Index) => self.end_index(name, parent, &text),
            Some(Root::Rss) | Some(Root::Atom) => self.end_feed(name, parent, &text),
            None => {}
        }
        // Keep the buffer's allocation for the next element.
        let mut text = text;
        text.clear();
        self.text = text;
    }

    fn end_urlset(&mut self, name: &str, parent: &str, text: &str) {
        if let Some(img) = self.image.as_mut() {
            match (parent, name) {
                ("image", "loc") => img.loc = text.trim().to_string(),
                ("image", "caption") => img.caption = clean(text),
                ("image", "geo_location") => img.geo_location = clean(text),
                ("image", "title") => img.title = clean(text),
                ("image", "license") => img.license = clean(text),
                (_, "image") => {
                    let img = self.image.take().unwrap_or_default();
                    if let (false, Some(url)) = (img.loc.is_empty(), self.url.as_mut()) {
                        url.images.push(img);
                    }
                }
                _ => {}
            }
            return;
        }
        if name == "url" {
            if let Some(entry) = self.url.take() {
                self.finish_url(entry);
            }
            return;
        }
        let Some(u) = self.url.as_mut() else {
            return;
        };
        let slot = match (parent, name) {
            ("url", "loc") => &mut u.loc,
            ("url", "lastmod") => &mut u.lastmod,
            ("url", "changefreq") => &mut u.changefreq,
            ("url", "priority") => &mut u.priority,
            ("news", "title") => &mut u.news_title,
            ("news", "publication_date") => &mut u.news_date,
            ("news", "access") => &mut u.news_access,
            ("news", "genres") => &mut u.news_genres,
            ("news", "keywords") => &mut u.news_keywords,
            ("news", "stock_tickers") => &mut u.news_tickers,
            ("publication", "name") => &mut u.news_name,
            ("publication", "language") => &mut u.news_language,
            _ => return,
        };
        *slot = clean(text);
    }

    fn finish_url(&mut self, u: UrlEntry) {
        let Some(loc) = u.loc.filter(|l| is_http_url(l)) else {
            self.notes.skipped_urls += 1;
            return;
        };
        let mut page = Page::new(loc);
        page.lastmod = u.lastmod.as_deref().and_then(parse_date);
        page.lastmod_raw = u.lastmod;
        page.changefreq = changefreq(u.changefreq.as_deref());
        page.changefreq_raw = u.changefreq;
        page.priority = priority(u.priority.as_deref());
        page.priority_raw = u.priority;
        let date = u.news_date.as_deref().and_then(parse_date);
        if let (Some(title), Some(_)) = (u.news_title.filter(|t| !t.is_empty()), date) {
            page.news = Some(NewsStory {
                title,
                publish_date_raw: u.news_date,
                publish_date: date,
                publication_name: u.news_name.filter(|s| !s.is_empty()),
                publication_language: u.news_language.filter(|s| !s.is_empty()),
                access: u.news_access.filter(|s| !s.is_empty()),
                genres: split_list(u.news_genres.as_deref()),
                keywords: split_list(u.news_keywords.as_deref()),
                stock_tickers: split_list(u.news_tickers.as_deref()),
            });
        }
        page.images = u.images;
        page.alternates = u.alternates;
        self.pages.push(page);
    }

    fn end_index(&mut self, name: &str, parent: &str, text: &str) {
        match (parent, name) {
            ("sitemap", "loc") => {
                if let Some(s) = self.sitemap.as_mut() {
                    s.0 = clean(text);
                }
            }
            ("sitemap", "lastmod") => {
                if let Some(s) = self.sitemap.as_mut() {
                    s.1 = clean(text);
                }
            }
            (_, "sitemap") => {
                let Some((loc, lastmod)) = self.sitemap.take() else {
                    return;
                };
                match loc.filter(|l| is_http_url(l)) {
                    Some(url) => {
                        if self.seen_refs.insert(url.clone()) {
                            let parsed = lastmod.as_deref().and_then(parse_date);
                            self.refs.push(SitemapRef {
                                url,
                                lastmod_raw: lastmod,
                                lastmod: parsed,
                            });
                        }
                    }
                    None => self.notes.skipped_urls += 1,
                }
            }
            _ => {}
        }
    }

    fn end_feed(&mut self, name: &str, parent: &str, text: &str) {
        if (name == "item" || name == "entry") && self.feed.is_some() {
            let entry = self.feed.take().unwrap_or_default();
            self.finish_feed(entry);
            return;
        }
        let Some(f) = self.feed.as_mut() else {
            return;
        };
        if parent != "item" && parent != "entry" {
            return;
        }
        let slot = match name {
            "link" if self.root == Some(Root::Rss) => &mut f.link,
            "guid" => &mut f.guid,
            "title" => &mut f.title,
            "description" | "summary" | "tagline" => &mut f.description,
            "pubdate" | "published" | "issued" | "date" => &mut f.published,
            "updated" | "modified" => &mut f.updated,
            _ => return,
        };
        if slot.is_none() {
            *slot = clean(text);
        }
    }

    fn finish_feed(&mut self, f: FeedEntry) {
        let link = [f.link, f.self_link, f.guid]
            .into_iter()
            .flatten()
            .map(|l| l.trim().to_string())
            .find(|l| is_http_url(l));
        let Some(link) = link else {
            self.notes.skipped_urls += 1;
            return;
        };
        let mut page = Page::new(link);
        let title = f
            .title
            .filter(|t| !t.is_empty())
            .or(f.description.filter(|d| !d.is_empty()));
        let date_raw = f
            .published
            .filter(|d| !d.is_empty())
            .or(f.updated.filter(|d| !d.is_empty()));
        let date = date_raw.as_deref().and_then(parse_date);
        if let Some(title) = title {
            page.news = Some(NewsStory {
                title,
                publish_date_raw: date_raw,
                publish_date: date,
                ..NewsStory::default()
            });
        }
        self.pages.push(page);
    }
}

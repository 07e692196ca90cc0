//! What a parsed sitemap document holds.

use chrono::{DateTime, FixedOffset};

/// How often a page changes, per the sitemaps protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeFreq {
    Always,
    Hourly,
    Daily,
    Weekly,
    Monthly,
    Yearly,
    Never,
}

impl ChangeFreq {
    /// The protocol's lower-case spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeFreq::Always => "always",
            ChangeFreq::Hourly => "hourly",
            ChangeFreq::Daily => "daily",
            ChangeFreq::Weekly => "weekly",
            ChangeFreq::Monthly => "monthly",
            ChangeFreq::Yearly => "yearly",
            ChangeFreq::Never => "never",
        }
    }

    /// Parses a protocol value, ignoring case and surrounding whitespace.
    pub fn from_value(value: &str) -> Option<ChangeFreq> {
        let v = value.trim().to_ascii_lowercase();
        [
            ChangeFreq::Always,
            ChangeFreq::Hourly,
            ChangeFreq::Daily,
            ChangeFreq::Weekly,
            ChangeFreq::Monthly,
            ChangeFreq::Yearly,
            ChangeFreq::Never,
        ]
        .into_iter()
        .find(|f| f.as_str() == v)
    }
}

/// The priority a page gets when its `<priority>` is missing, unreadable or outside 0..=1.
pub const DEFAULT_PRIORITY: f64 = 0.5;

/// A Google News `<news:news>` block, or the title and date of an RSS/Atom item.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewsStory {
    pub title: String,
    /// The date as written.
    pub publish_date_raw: Option<String>,
    /// The date parsed (W3C datetime, RFC 3339 or RFC 2822; no zone means UTC).
    pub publish_date: Option<DateTime<FixedOffset>>,
    pub publication_name: Option<String>,
    pub publication_language: Option<String>,
    pub access: Option<String>,
    /// Comma-separated lists, split and trimmed.
    pub genres: Vec<String>,
    pub keywords: Vec<String>,
    pub stock_tickers: Vec<String>,
}

/// A Google Image `<image:image>` block.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Image {
    pub loc: String,
    pub caption: Option<String>,
    pub geo_location: Option<String>,
    pub title: Option<String>,
    pub license: Option<String>,
}

/// An `<xhtml:link>` inside a `<url>` (hreflang alternates); only links with an `href` are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternate {
    pub href: String,
    pub hreflang: Option<String>,
    pub rel: Option<String>,
}

impl Alternate {
    /// A language alternate proper: `rel="alternate"` with an `hreflang`.
    pub fn is_hreflang(&self) -> bool {
        self.hreflang.is_some()
            && self
                .rel
                .as_deref()
                .is_some_and(|r| r.eq_ignore_ascii_case("alternate"))
    }
}

/// One page listed by a sitemap.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The URL as written (whitespace trimmed); always an absolute http(s) URL.
    pub url: String,
    /// `<lastmod>` as written (`Some("")` for an empty element).
    pub lastmod_raw: Option<String>,
    /// `<lastmod>` parsed; `None` when missing or unreadable.
    pub lastmod: Option<DateTime<FixedOffset>>,
    /// `<changefreq>` as written.
    pub changefreq_raw: Option<String>,
    /// `<changefreq>` normalised: `None` when missing or empty, `Always` when unrecognised.
    pub changefreq: Option<ChangeFreq>,
    /// `<priority>` as written.
    pub priority_raw: Option<String>,
    /// `<priority>` normalised to 0..=1; [`DEFAULT_PRIORITY`] when missing, unreadable or out of range.
    pub priority: f64,
    pub news: Option<NewsStory>,
    pub images: Vec<Image>,
    pub alternates: Vec<Alternate>,
}

impl Page {
    /// A page with only its URL known.
    pub fn new(url: impl Into<String>) -> Page {
        Page {
            url: url.into(),
            lastmod_raw: None,
            lastmod: None,
            changefreq_raw: None,
            changefreq: None,
            priority_raw: None,
            priority: DEFAULT_PRIORITY,
            news: None,
            images: Vec::new(),
            alternates: Vec::new(),
        }
    }
}

/// A child sitemap listed by a sitemap index.
#[derive(Debug, Clone, PartialEq)]
pub struct SitemapRef {
    pub url: String,
    pub lastmod_raw: Option<String>,
    pub lastmod: Option<DateTime<FixedOffset>>,
}

/// What a document turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum SitemapKind {
    /// `<urlset>`: pages.
    Urlset(Vec<Page>),
    /// `<sitemapindex>`: child sitemaps.
    Index(Vec<SitemapRef>),
    /// A plain-text sitemap: one URL per line.
    Text(Vec<Page>),
    /// RSS 2.0 / 1.0 feed items.
    Rss(Vec<Page>),
    /// Atom 0.3 / 1.0 feed entries.
    Atom(Vec<Page>),
    /// A robots.txt: the absolute sitemap URLs it lists.
    Robots(Vec<String>),
    /// Not a usable sitemap, and why.
    Invalid(String),
}

impl SitemapKind {
    /// The pages, for the page-bearing kinds (empty otherwise).
    pub fn pages(&self) -> &[Page] {
        match self {
            SitemapKind::Urlset(p)
            | SitemapKind::Text(p)
            | SitemapKind::Rss(p)
            | SitemapKind::Atom(p) => p,
            _ => &[],
        }
    }

    /// The child sitemap URLs, for indexes and robots.txt (empty otherwise).
    pub fn sub_sitemap_urls(&self) -> Vec<String> {
        match self {
            SitemapKind::Index(refs) => refs.iter().map(|r| r.url.clone()).collect(),
            SitemapKind::Robots(urls) => urls.clone(),
            _ => Vec::new(),
        }
    }

    /// A short stable name: `urlset`, `index`, `text`, `rss`, `atom`, `robots`, `invalid`.
    pub fn name(&self) -> &'static str {
        match self {
            SitemapKind::Urlset(_) => "urlset",
            SitemapKind::Index(_) => "index",
            SitemapKind::Text(_) => "text",
            SitemapKind::Rss(_) => "rss",
            SitemapKind::Atom(_) => "atom",
            SitemapKind::Robots(_) => "robots",
            SitemapKind::Invalid(_) => "invalid",
        }
    }
}

/// Things worth logging that did not stop the parse.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseNotes {
    /// Why the document was cut short (XML error, size or URL-count cap), if it was.
    pub truncated: Option<String>,
    /// The body was gzip-compressed (detected by its magic bytes).
    pub gzipped: bool,
    /// Entries skipped because their URL was missing or not an absolute http(s) URL.
    pub skipped_urls: usize,
    /// Custom entity references dropped (never expanded).
    pub dropped_entities: usize,
}

/// A parsed document: its kind and the notes.
#[derive(Debug, Clone, PartialEq)]
pub struct SitemapDoc {
    pub kind: SitemapKind,
    pub notes: ParseNotes,
}

/// Caps that keep a hostile or broken document from exhausting memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes kept after decompression (the protocol allows 50 MB; default 100 MiB, like USP).
    pub max_decompressed_bytes: usize,
    /// Pages or child sitemaps kept from one document (the protocol allows 50 000; default 100 000).
    pub max_urls: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_decompressed_bytes: 100 * 1024 * 1024,
            max_urls: 100_000,
        }
    }
}

/// The HTTP headers the parser looks at (both optional and advisory: the body's bytes decide).
#[derive(Debug, Clone, Copy, Default)]
pub struct ResponseMeta<'a> {
    /// `Content-Type`; its `charset` is used to decode text when the body does not declare one.
    pub content_type: Option<&'a str>,
    /// `Content-Encoding`; informational, gzip is recognised by its magic bytes.
    pub content_encoding: Option<&'a str>,
}

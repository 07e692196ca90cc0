//! What a page region is, from its tag, ARIA role and class/id words: navigation, page
//! header, footer, sidebar, comments, share bars, ads, cookie banners, hidden text, or
//! (by default) nothing special. The main-content finder drops the boilerplate kinds and
//! the block typer maps them to a [`SectionType`](super::blocks::SectionType).

use super::dom::{Document, NodeId, Tag};

/// The boilerplate kind of an element (`None` when it is not boilerplate by itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    None,
    Navigation,
    Header,
    Footer,
    Sidebar,
    Comments,
    Share,
    Ad,
    /// Teasers, "related", "most popular", newsletter sign-ups, cookie and consent banners,
    /// pop-ups, bylines, tag lists and other page furniture next to the article.
    Furniture,
    /// Not shown (`hidden`, `display:none`, screen-reader-only, ...).
    Hidden,
    /// Scripts, forms, media, figures: nothing of it is article text.
    NonText,
}

impl Region {
    /// Whether text inside is never main content.
    pub fn is_boilerplate(self) -> bool {
        self != Region::None
    }
}

/// How strongly the class/id words say "content" (positive) or "boilerplate" (negative),
/// readability-style; used to weight candidate containers.
pub fn class_weight(doc: &Document, id: NodeId) -> i32 {
    let mut w = 0;
    if doc.attr(id, "itemprop").is_some_and(|v| v.eq_ignore_ascii_case("articleBody")) {
        w += 50;
    }
    for attr in ["class", "id"] {
        let Some(v) = doc.attr(id, attr) else { continue };
        let v = v.to_ascii_lowercase();
        if NEGATIVE.iter().any(|p| v.contains(p)) {
            w -= 25;
        }
        if POSITIVE.iter().any(|p| v.contains(p)) {
            w += 25;
        }
        if is_content_marker(&v) {
            w += 25;
        }
    }
    w
}

const POSITIVE: &[&str] = &[
    "article", "body", "content", "entry", "hentry", "main", "page", "post", "text", "blog", "story",
];
const NEGATIVE: &[&str] = &[
    "hidden", "banner", "combx", "comment", "com-", "contact", "foot", "footer", "footnote", "masthead",
    "media", "meta", "outbrain", "promo", "related", "scroll", "share", "shoutbox", "sidebar",
    "skyscraper", "sponsor", "shopping", "tags", "tool", "widget", "byline", "social", "caption",
];

/// The region kind of element `id` from its own tag and attributes (not its ancestors').
pub fn region_of(doc: &Document, id: NodeId) -> Region {
    let Some(el) = doc.element(id) else { return Region::None };
    match el.tag {
        Tag::Script
        | Tag::Style
        | Tag::Noscript
        | Tag::Template
        | Tag::Svg
        | Tag::Math
        | Tag::Canvas
        | Tag::Iframe
        | Tag::Object
        | Tag::Embed
        | Tag::Video
        | Tag::Audio
        | Tag::Map
        | Tag::Head
        | Tag::Title
        | Tag::Select
        | Tag::Option
        | Tag::Textarea
        | Tag::Input
        | Tag::Button
        | Tag::Figure
        | Tag::Figcaption
        | Tag::Picture
        | Tag::Dialog
        | Tag::Noembed
        | Tag::Noframes
        | Tag::Frameset => return Region::NonText,
        Tag::Nav => return Region::Navigation,
        Tag::Footer => return Region::Footer,
        Tag::Aside => return Region::Sidebar,
        Tag::Header => return Region::Header,
        Tag::Menu => return Region::Navigation,
        _ => {}
    }
    if el.tag == Tag::Other {
        let name = doc.name(id);
        if name.contains('-') && (name.contains("ad") || name.contains("share") || name.contains("social")) {
            // Custom elements such as <amp-ad>, <social-share>.
            if name.contains("amp-ad") || name.contains("share") || name.contains("social") {
                return Region::Ad;
            }
        }
    }
    let mut class = "";
    let mut ident = "";
    for (n, v) in doc.attrs(id) {
        match n {
            "hidden" => return Region::Hidden,
            "aria-hidden" if v.eq_ignore_ascii_case("true") => return Region::Hidden,
            "style" if is_hidden_style(v) => return Region::Hidden,
            "role" => match v.to_ascii_lowercase().as_str() {
                "navigation" | "menu" | "menubar" => return Region::Navigation,
                "banner" => return Region::Header,
                "contentinfo" => return Region::Footer,
                "complementary" => return Region::Sidebar,
                "dialog" | "alertdialog" => return Region::Furniture,
                _ => {}
            },
            "class" => class = v,
            "id" => ident = v,
            "itemprop" if v.contains("comment") => return Region::Comments,
            "itemprop" if v.eq_ignore_ascii_case("articleBody") => return Region::None,
            _ => {}
        }
    }
    let r = words_region(class);
    if r != Region::None {
        return r;
    }
    words_region(ident)
}

fn is_hidden_style(style: &str) -> bool {
    if !style.contains("none") && !style.contains("hidden") {
        return false;
    }
    let s: String = style.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    s.contains("display:none") || s.contains("visibility:hidden")
}

/// Class names that hide an element (matched whole, not as words: `field-label-hidden` is
/// not hidden).
const HIDDEN_CLASSES: &[&str] = &[
    "hidden", "hide", "is-hidden", "u-hidden", "d-none", "sr-only", "visually-hidden", "visuallyhidden",
    "screen-reader-text", "screen-reader-only", "screenreader", "offscreen", "invisible", "element-invisible",
    "hidden-xs-up", "a11y-hidden", "accessibility", "sr-text",
];

/// Whether a class/id names the article body itself (`article-body`, `entry-content`,
/// `itemprop=articleBody` ...): such an element is never boilerplate.
pub fn is_content_marker(v: &str) -> bool {
    let squashed: String = v.chars().filter(|c| c.is_ascii_alphanumeric() || c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    CONTENT_MARKERS.iter().any(|m| squashed.contains(m))
}

const CONTENT_MARKERS: &[&str] = &[
    "articlebody", "articlecontent", "articletext", "entrycontent", "postcontent", "postbody", "storybody",
    "storycontent", "storytext", "maincontent", "bodytext", "contentbody", "articlebd", "newsarticle",
    "postentry", "entrybody", "blogpost", "posttext",
];

/// The region named by the words of a class or id attribute.
fn words_region(v: &str) -> Region {
    if v.is_empty() {
        return Region::None;
    }
    let lower = v.to_ascii_lowercase();
    if lower.split_whitespace().any(|c| HIDDEN_CLASSES.contains(&c)) {
        return Region::Hidden;
    }
    if is_content_marker(&lower) {
        return Region::None;
    }
    // Embedded posts (`social-media-embed`, `twitter-tweet`) are quoted content.
    let embed = lower.contains("embed") || lower.contains("tweet") || lower.contains("instagram-media");
    let mut best = Region::None;
    for word in lower.split(|c: char| !c.is_ascii_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let r = word_region(word);
        if r == Region::Share && embed {
            continue;
        }
        if r != Region::None {
            best = r;
            if r == Region::Hidden || r == Region::Comments {
                break;
            }
        }
    }
    best
}

fn word_region(w: &str) -> Region {
    match w {
        "nav" | "navbar" | "navigation" | "menu" | "menubar" | "breadcrumb" | "breadcrumbs" | "pagination"
        | "pager" | "skiplink" | "topnav" | "subnav" | "toolbar" => Region::Navigation,
        "header" | "masthead" | "topbar" => Region::Header,
        "footer" | "colophon" | "copyright" => Region::Footer,
        "sidebar" | "widget" | "widgets" | "rail" | "aside" => Region::Sidebar,
        "comment" | "comments" | "disqus" | "respond" | "replies" => Region::Comments,
        "share" | "sharing" | "social" | "sharebar" | "addthis" | "shares" => Region::Share,
        "ad" | "ads" | "advert" | "adverts" | "advertisement" | "adslot" | "adunit" | "sponsored" | "sponsor"
        | "dfp" | "gpt" | "outbrain" | "taboola" | "promo" | "promotion" => Region::Ad,
        "related" | "recommended" | "recommendations" | "popular" | "trending" | "newsletter" | "subscribe"
        | "signup" | "cookie" | "cookies" | "consent" | "gdpr" | "modal" | "popup" | "overlay" | "byline"
        | "tags" | "taglist" | "teaser" | "teasers" | "author" | "authors" | "dateline" | "timestamp" | "meta"
        | "caption" | "credit" | "credits" | "gallery" | "slideshow" | "carousel" | "lightbox" | "tooltip"
        | "popover" | "rollover" | "print" | "keywords" => Region::Furniture,
        _ => compound_region(w),
    }
}

/// Long words that contain a boilerplate word (`sharebuttons`, `relatedposts`, ...).
fn compound_region(w: &str) -> Region {
    if w.len() < 6 {
        return Region::None;
    }
    if w.starts_with("comment") && !w.starts_with("commentary") {
        return Region::Comments;
    }
    const PARTS: &[(&str, Region)] = &[
        ("sidebar", Region::Sidebar),
        ("footer", Region::Footer),
        ("breadcrumb", Region::Navigation),
        ("navbar", Region::Navigation),
        ("share", Region::Share),
        ("social", Region::Share),
        ("advert", Region::Ad),
        ("sponsor", Region::Ad),
        ("outbrain", Region::Ad),
        ("taboola", Region::Ad),
        ("related", Region::Furniture),
        ("newsletter", Region::Furniture),
        ("subscribe", Region::Furniture),
        ("cookie", Region::Furniture),
        ("recommend", Region::Furniture),
        ("popular", Region::Furniture),
    ];
    for (p, r) in PARTS {
        if w.contains(p) {
            return *r;
        }
    }
    Region::None
}

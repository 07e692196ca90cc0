//! What a page region is, from its tag, ARIA role and class/id words: navigation, page
//! header, footer, sidebar, comments, share bars, ads, cookie banners, hidden text, or
//! (by default) nothing special. The main-content finder drops the boilerplate kinds and
//! the block typer maps them to a [`SectionType`](super::blocks::SectionType).

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};

use super::dom::{Document, NodeId, Tag};

/// The boilerplate kind of an element (`None` when it is not boilerplate by itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// Not boilerplate by itself.
    None,
    /// Menus, breadcrumbs, pagination, previous/next links.
    Navigation,
    /// The page header / banner.
    Header,
    /// The page footer.
    Footer,
    /// Sidebars and widgets.
    Sidebar,
    /// Comment sections.
    Comments,
    /// Share and social bars.
    Share,
    /// Advertising and promotions.
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
    if doc
        .attr(id, "itemprop")
        .is_some_and(|v| v.eq_ignore_ascii_case("articleBody"))
    {
        w += 50;
    }
    for attr in ["class", "id"] {
        if let Some(v) = doc.attr(id, attr) {
            w += scan(v).weight;
        }
    }
    w
}

/// The region kind of element `id` from its own tag and attributes (not its ancestors').
/// A collapsed panel of an accordion or of tabs is not hidden: a reader opens it with a
/// click, and it holds the page's text (the answers of an FAQ, a service's details).
/// `text_inside`: whether the element holds a `<blockquote>`, or link text outside a
/// `<figcaption>` (a `<figure>` that does is text: a testimonial, a product card's name).
pub fn region_of(doc: &Document, id: NodeId, text_inside: bool) -> Region {
    match own_region(doc, id, text_inside) {
        Region::Hidden if is_disclosure_panel(doc, id) => Region::None,
        r => r,
    }
}

/// The ARIA landmarks kerai reads, by an element's tag or `role`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Landmark {
    /// `<header>`, `role=banner`.
    Banner,
    /// `<nav>`, `role=navigation`.
    Navigation,
    /// `<main>`, `role=main`.
    Main,
    /// `<aside>`, `role=complementary`.
    Complementary,
    /// `<footer>`, `role=contentinfo`.
    ContentInfo,
}

/// The landmark a `role` value names, if any (case-insensitive).
pub fn landmark_role(role: &str) -> Option<Landmark> {
    const ROLES: [(&str, Landmark); 5] = [
        ("banner", Landmark::Banner),
        ("navigation", Landmark::Navigation),
        ("main", Landmark::Main),
        ("complementary", Landmark::Complementary),
        ("contentinfo", Landmark::ContentInfo),
    ];
    ROLES
        .iter()
        .find(|(r, _)| role.eq_ignore_ascii_case(r))
        .map(|&(_, l)| l)
}

/// The landmark element `id` is: by its `role` when that names one (an explicit role overrides
/// the tag's, as in ARIA), else by its tag. `<header>` and `<footer>` count wherever they sit,
/// as in the region rules (ARIA makes them landmarks only outside `<article>` and
/// `<section>`).
pub fn landmark(doc: &Document, id: NodeId) -> Option<Landmark> {
    doc.attr(id, "role")
        .and_then(landmark_role)
        .or(match doc.tag(id) {
            Some(Tag::Header) => Some(Landmark::Banner),
            Some(Tag::Nav) => Some(Landmark::Navigation),
            Some(Tag::Main) => Some(Landmark::Main),
            Some(Tag::Aside) => Some(Landmark::Complementary),
            Some(Tag::Footer) => Some(Landmark::ContentInfo),
            _ => None,
        })
}

/// Whether `id` is the panel of an accordion or of tabs: `role=tabpanel`, a class that says
/// so (`accordion__panel`, `collapse`, `tab-pane`, ...), or the answer right after a question
/// (see [`is_question`]).
fn is_disclosure_panel(doc: &Document, id: NodeId) -> bool {
    if is_question(doc, id) {
        return true;
    }
    if doc
        .attr(id, "role")
        .is_some_and(|r| r.eq_ignore_ascii_case("tabpanel"))
    {
        return true;
    }
    let class = doc.attr(id, "class").unwrap_or("").to_ascii_lowercase();
    [
        "accordion",
        "collaps",
        "tabpanel",
        "tab-pane",
        "tab-panel",
        "tabs__panel",
        "tab__panel",
    ]
    .iter()
    .any(|w| class.contains(w))
}

/// A question is at most this many characters...
const QUESTION_CHARS: usize = 200;
/// ... in an element of at most this many nodes.
const QUESTION_NODES: NodeId = 40;

/// Whether the element just before `id` (its previous element sibling) is a short question,
/// its text ending in a question mark: an FAQ whose answers stay hidden until the question is
/// clicked, whatever its markup calls them.
fn is_question(doc: &Document, id: NodeId) -> bool {
    let mut prev = doc.node(id).prev_sibling;
    while prev != super::dom::NONE && doc.tag(prev).is_none() {
        prev = doc.node(prev).prev_sibling;
    }
    if prev == super::dom::NONE || doc.subtree_end(prev) - prev > QUESTION_NODES {
        return false;
    }
    let text = doc.text_content(prev);
    let text = text.trim();
    text.chars().count() <= QUESTION_CHARS && text.ends_with(['?', '\u{FF1F}', '\u{061F}'])
}

/// Whether `id` is a consent or cookie banner, or a modal dialog, by its ARIA role
/// (`dialog`, `alertdialog`) or its class/id words (`consent`, `gdpr`, `cookie` with `banner`,
/// `notice`, `bar`, `policy`, `settings`, ...), and holds no `<h1>`, `<main>` or `<article>`.
/// Such an overlay is furniture however much of the page's text it holds: a consent manager's
/// purposes can outweigh a short forum thread.
pub fn is_overlay(doc: &Document, id: NodeId) -> bool {
    let role = doc
        .attr(id, "role")
        .is_some_and(|r| r.eq_ignore_ascii_case("dialog") || r.eq_ignore_ascii_case("alertdialog"));
    let said = role
        || ["class", "id"].iter().any(|a| {
            let v = doc.attr(id, a).unwrap_or("").to_ascii_lowercase();
            v.contains("consent")
                || v.contains("gdpr")
                || (v.contains("cookie")
                    && [
                        "banner",
                        "notice",
                        "bar",
                        "law",
                        "policy",
                        "settings",
                        "preferences",
                        "popup",
                        "modal",
                        "dialog",
                        "wall",
                        "message",
                        "alert",
                        "notification",
                        "overlay",
                    ]
                    .iter()
                    .any(|w| v.contains(w)))
        });
    said && !(id + 1..doc.subtree_end(id))
        .any(|i| matches!(doc.tag(i), Some(Tag::H1 | Tag::Main | Tag::Article)))
}

/// Whether a heading element lies inside `id`.
fn holds_heading(doc: &Document, id: NodeId) -> bool {
    (id + 1..doc.subtree_end(id)).any(|i| {
        matches!(
            doc.tag(i),
            Some(Tag::H1 | Tag::H2 | Tag::H3 | Tag::H4 | Tag::H5 | Tag::H6)
        )
    })
}

fn own_region(doc: &Document, id: NodeId, text_inside: bool) -> Region {
    let Some(el) = doc.element(id) else {
        return Region::None;
    };
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
        | Tag::Figcaption
        | Tag::Picture
        | Tag::Dialog
        | Tag::Noembed
        | Tag::Noframes
        | Tag::Frameset => return Region::NonText,
        Tag::Figure if !text_inside => return Region::NonText,
        // The toggle of an accordion that holds a heading (an FAQ's question) is text.
        Tag::Button if !holds_heading(doc, id) => return Region::NonText,
        Tag::Nav => return Region::Navigation,
        Tag::Footer => return Region::Footer,
        Tag::Aside => return Region::Sidebar,
        Tag::Header => return Region::Header,
        Tag::Menu => return Region::Navigation,
        _ => {}
    }
    if el.tag == Tag::Other {
        let name = doc.name(id);
        if name.contains('-')
            && (name.contains("ad") || name.contains("share") || name.contains("social"))
        {
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
            "role" => match landmark_role(v) {
                Some(Landmark::Navigation) => return Region::Navigation,
                Some(Landmark::Banner) => return Region::Header,
                Some(Landmark::ContentInfo) => return Region::Footer,
                Some(Landmark::Complementary) => return Region::Sidebar,
                _ => match v.to_ascii_lowercase().as_str() {
                    "menu" | "menubar" => return Region::Navigation,
                    "dialog" | "alertdialog" => return Region::Furniture,
                    _ => {}
                },
            },
            "class" => class = v,
            "id" => ident = v,
            "itemprop" if v.contains("comment") => return Region::Comments,
            "itemprop" if v.eq_ignore_ascii_case("articleBody") => return Region::None,
            _ => {}
        }
    }
    let c = scan(class);
    if c.marker {
        return Region::None;
    }
    if c.region != Region::None {
        return c.region;
    }
    let i = scan(ident);
    if i.marker {
        Region::None
    } else {
        i.region
    }
}

fn is_hidden_style(style: &str) -> bool {
    if !style.contains("none") && !style.contains("hidden") {
        return false;
    }
    let s: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    s.contains("display:none") || s.contains("visibility:hidden")
}

/// Class names that hide an element (matched whole, not as words: `field-label-hidden` is
/// not hidden).
const HIDDEN_CLASSES: &[&str] = &[
    "hidden",
    "hide",
    "is-hidden",
    "u-hidden",
    "d-none",
    "sr-only",
    "visually-hidden",
    "visuallyhidden",
    "screen-reader-text",
    "screen-reader-only",
    "screenreader",
    "offscreen",
    "invisible",
    "element-invisible",
    "hidden-xs-up",
    "a11y-hidden",
    "accessibility",
    "sr-text",
];

/// Substrings of class/id values that name the article body itself (`article-body`,
/// `entry-content`, ...): such an element is never boilerplate. Matched with `-`/`_` or
/// nothing between the two words.
const CONTENT_MARKERS: &[(&str, &str)] = &[
    ("article", "body"),
    ("article", "content"),
    ("article", "text"),
    ("entry", "content"),
    ("post", "content"),
    ("post", "body"),
    ("story", "body"),
    ("story", "content"),
    ("story", "text"),
    ("main", "content"),
    ("body", "text"),
    ("content", "body"),
    ("article", "bd"),
    ("news", "article"),
    ("post", "entry"),
    ("entry", "body"),
    ("blog", "post"),
    ("post", "text"),
];

/// Whole words (between non-alphanumerics) and the region they name.
const WORDS: &[(&str, Region)] = &[
    ("nav", Region::Navigation),
    ("navbar", Region::Navigation),
    ("navigation", Region::Navigation),
    ("menu", Region::Navigation),
    ("menubar", Region::Navigation),
    ("breadcrumb", Region::Navigation),
    ("breadcrumbs", Region::Navigation),
    ("pagination", Region::Navigation),
    ("pager", Region::Navigation),
    ("skiplink", Region::Navigation),
    ("topnav", Region::Navigation),
    ("subnav", Region::Navigation),
    ("toolbar", Region::Navigation),
    ("header", Region::Header),
    ("masthead", Region::Header),
    ("topbar", Region::Header),
    ("footer", Region::Footer),
    ("colophon", Region::Footer),
    ("copyright", Region::Footer),
    ("sidebar", Region::Sidebar),
    ("widget", Region::Sidebar),
    ("widgets", Region::Sidebar),
    ("aside", Region::Sidebar),
    ("disqus", Region::Comments),
    ("respond", Region::Comments),
    ("replies", Region::Comments),
    ("share", Region::Share),
    ("sharing", Region::Share),
    ("social", Region::Share),
    ("sharebar", Region::Share),
    ("addthis", Region::Share),
    ("shares", Region::Share),
    ("ad", Region::Ad),
    ("ads", Region::Ad),
    ("advert", Region::Ad),
    ("adverts", Region::Ad),
    ("advertisement", Region::Ad),
    ("adslot", Region::Ad),
    ("adunit", Region::Ad),
    ("sponsored", Region::Ad),
    ("sponsor", Region::Ad),
    ("dfp", Region::Ad),
    ("gpt", Region::Ad),
    ("outbrain", Region::Ad),
    ("taboola", Region::Ad),
    ("promo", Region::Ad),
    ("promotion", Region::Ad),
    ("related", Region::Furniture),
    ("recommended", Region::Furniture),
    ("recommendations", Region::Furniture),
    ("popular", Region::Furniture),
    ("trending", Region::Furniture),
    ("newsletter", Region::Furniture),
    ("subscribe", Region::Furniture),
    ("signup", Region::Furniture),
    ("cookie", Region::Furniture),
    ("cookies", Region::Furniture),
    ("consent", Region::Furniture),
    ("gdpr", Region::Furniture),
    ("modal", Region::Furniture),
    ("popup", Region::Furniture),
    ("overlay", Region::Furniture),
    ("byline", Region::Furniture),
    ("tags", Region::Furniture),
    ("taglist", Region::Furniture),
    ("teaser", Region::Furniture),
    ("teasers", Region::Furniture),
    ("author", Region::Furniture),
    ("authors", Region::Furniture),
    ("dateline", Region::Furniture),
    ("timestamp", Region::Furniture),
    ("meta", Region::Furniture),
    ("caption", Region::Furniture),
    ("credit", Region::Furniture),
    ("credits", Region::Furniture),
    ("gallery", Region::Furniture),
    ("slideshow", Region::Furniture),
    ("carousel", Region::Furniture),
    ("lightbox", Region::Furniture),
    ("tooltip", Region::Furniture),
    ("popover", Region::Furniture),
    ("rollover", Region::Furniture),
    ("print", Region::Furniture),
    ("keywords", Region::Furniture),
    ("prevnext", Region::Navigation),
    ("nextprev", Region::Navigation),
    ("next-prev", Region::Navigation),
    ("prev-next", Region::Navigation),
    ("post-navigation", Region::Navigation),
    ("postnav", Region::Navigation),
];

/// Parts of longer words (`sharebuttons`, `relatedposts`) and the region they name.
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
    ("caption", Region::Furniture),
    ("imagecredit", Region::Furniture),
    ("photocredit", Region::Furniture),
    ("embedcredit", Region::Furniture),
    ("signature", Region::Furniture),
    ("usertitle", Region::Furniture),
    ("userbanner", Region::Furniture),
    ("userrank", Region::Furniture),
];

const POSITIVE: &[&str] = &[
    "article", "body", "content", "entry", "hentry", "main", "page", "post", "text", "blog",
    "story",
];
const NEGATIVE: &[&str] = &[
    "hidden",
    "banner",
    "combx",
    "comment",
    "com-",
    "contact",
    "foot",
    "footer",
    "footnote",
    "masthead",
    "media",
    "meta",
    "outbrain",
    "promo",
    "related",
    "scroll",
    "share",
    "shoutbox",
    "sidebar",
    "skyscraper",
    "sponsor",
    "shopping",
    "tags",
    "tool",
    "widget",
    "byline",
    "social",
    "caption",
];
/// Substrings that make the whole-class hidden check worth doing.
const HIDDEN_HINTS: &[&str] = &[
    "hid",
    "sr-",
    "invisible",
    "offscreen",
    "d-none",
    "screen",
    "a11y",
    "accessib",
];
/// Substrings of embedded posts (`social-media-embed`, `twitter-tweet`): not share bars.
const EMBED_HINTS: &[&str] = &["embed", "tweet", "instagram-media"];

/// What one pattern of the matcher means.
#[derive(Default, Clone, Copy)]
struct Meaning {
    word: Option<Region>,
    part: Option<Region>,
    /// Index into CONTENT_MARKERS' first words (`article` in `article-body`) -- handled by
    /// `marker` patterns which are the joined forms.
    marker: bool,
    positive: bool,
    negative: bool,
    hidden_hint: bool,
    embed: bool,
    comment: bool,
}

struct Matcher {
    ac: AhoCorasick,
    meanings: Vec<Meaning>,
}

fn matcher() -> &'static Matcher {
    static M: OnceLock<Matcher> = OnceLock::new();
    M.get_or_init(|| {
        let mut pats: Vec<String> = Vec::new();
        let mut meanings: Vec<Meaning> = Vec::new();
        let mut add = |p: &str, f: &dyn Fn(&mut Meaning)| {
            let i = match pats.iter().position(|q| q == p) {
                Some(i) => i,
                None => {
                    pats.push(p.to_string());
                    meanings.push(Meaning::default());
                    pats.len() - 1
                }
            };
            f(&mut meanings[i]);
        };
        for &(w, r) in WORDS {
            add(w, &|m| m.word = Some(r));
        }
        for &(w, r) in PARTS {
            add(w, &|m| m.part = Some(r));
        }
        for &(a, b) in CONTENT_MARKERS {
            for sep in ["", "-", "_", "__"] {
                add(&format!("{a}{sep}{b}"), &|m| m.marker = true);
            }
        }
        for &p in POSITIVE {
            add(p, &|m| m.positive = true);
        }
        for &p in NEGATIVE {
            add(p, &|m| m.negative = true);
        }
        for &p in HIDDEN_HINTS {
            add(p, &|m| m.hidden_hint = true);
        }
        for &p in EMBED_HINTS {
            add(p, &|m| m.embed = true);
        }
        add("comment", &|m| m.comment = true);
        let ac = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&pats)
            .expect("class-word patterns build");
        Matcher { ac, meanings }
    })
}

/// What a class or id value says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassInfo {
    /// The boilerplate region named (`None` when none, or when `marker`).
    pub region: Region,
    /// The value names the article body (`article-body`, `entry-content`, ...).
    pub marker: bool,
    /// readability-style weight: -25 for boilerplate words, +25 for content words, +25 for a marker.
    pub weight: i32,
}

fn is_alnum(b: Option<&u8>) -> bool {
    b.is_some_and(|c| c.is_ascii_alphanumeric())
}

/// Reads a class or id value in one pass of the pattern matcher.
pub fn scan(v: &str) -> ClassInfo {
    let mut info = ClassInfo {
        region: Region::None,
        marker: false,
        weight: 0,
    };
    if v.is_empty() {
        return info;
    }
    let m = matcher();
    let b = v.as_bytes();
    let (mut pos, mut neg, mut embed, mut hidden_hint) = (false, false, false, false);
    // (start, region) of word and part matches, in order.
    let mut found: Vec<(usize, Region, bool)> = Vec::new();
    for mat in m.ac.find_overlapping_iter(v) {
        let meaning = m.meanings[mat.pattern().as_usize()];
        let (s, e) = (mat.start(), mat.end());
        if in_variant_utility(v, s, e) {
            continue;
        }
        let word_start = s == 0 || !is_alnum(b.get(s - 1));
        let word_end = !is_alnum(b.get(e));
        info.marker |= meaning.marker;
        pos |= meaning.positive;
        neg |= meaning.negative;
        embed |= meaning.embed;
        hidden_hint |= meaning.hidden_hint;
        if let Some(r) = meaning.word {
            if word_start && word_end {
                found.push((s, r, true));
            }
        }
        if let Some(r) = meaning.part {
            found.push((s, r, false));
        }
        if meaning.comment
            && word_start
            && !v[s..]
                .get(..10)
                .is_some_and(|t| t.eq_ignore_ascii_case("commentary"))
        {
            found.push((s, Region::Comments, true));
        }
    }
    info.weight =
        if neg { -25 } else { 0 } + if pos { 25 } else { 0 } + if info.marker { 25 } else { 0 };
    if hidden_hint
        && v.split_ascii_whitespace()
            .any(|c| HIDDEN_CLASSES.iter().any(|h| h.eq_ignore_ascii_case(c)))
    {
        info.region = Region::Hidden;
        return info;
    }
    if info.marker {
        return info;
    }
    for (_, r, _) in found {
        if embed && matches!(r, Region::Share | Region::Sidebar) {
            continue;
        }
        info.region = r;
        if r == Region::Comments {
            break;
        }
    }
    info
}

/// Whether the class token around `s..e` is a utility with a variant (Tailwind's
/// `print:break-inside-avoid`, `lg:sticky`, `[&>*]:mx-0`): it says how the element looks on
/// some screen or state, not what the element is.
fn in_variant_utility(v: &str, s: usize, e: usize) -> bool {
    let start = v[..s]
        .rfind(|c: char| c.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    let end = v[e..]
        .find(|c: char| c.is_ascii_whitespace())
        .map_or(v.len(), |i| e + i);
    v[start..end].contains(':')
}

/// Whether a class/id value names the article body itself (see [`ClassInfo::marker`]).
pub fn is_content_marker(v: &str) -> bool {
    scan(v).marker
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn landmarks_by_tag_and_role() {
        let doc = super::super::dom::parse(
            "<html><body><header>a</header><div role='Banner'>b</div><main>c</main>\
             <div role='main'>d</div><aside>e</aside><div role='contentinfo'>f</div>\
             <nav>g</nav><div role='menu'>h</div><footer role='main'>i</footer></body></html>",
        );
        let body = doc.find(Tag::Body).expect("body");
        let got: Vec<Option<Landmark>> = doc.children(body).map(|c| landmark(&doc, c)).collect();
        use Landmark::*;
        assert_eq!(
            got,
            [
                Some(Banner),
                Some(Banner),
                Some(Main),
                Some(Main),
                Some(Complementary),
                Some(ContentInfo),
                Some(Navigation),
                None,
                // An explicit role overrides the tag's.
                Some(Main),
            ]
        );
    }

    #[test]
    fn class_words() {
        assert_eq!(scan("site-footer").region, Region::Footer);
        assert_eq!(scan("article-body pagination-first").region, Region::None);
        assert!(scan("article-body pagination-first").marker);
        assert_eq!(scan("field-label-hidden").region, Region::None);
        assert_eq!(scan("foo hidden").region, Region::Hidden);
        assert_eq!(scan("commentary").region, Region::None);
        assert_eq!(scan("comment-list").region, Region::Comments);
        assert_eq!(scan("header").region, Region::Header);
        assert_eq!(scan("shadow read-more").region, Region::None);
        assert_eq!(scan("relatedPosts").region, Region::Furniture);
        assert_eq!(scan("social-media-embed").region, Region::None);
        assert_eq!(scan("ad-slot").region, Region::Ad);
        assert_eq!(scan("loaded").region, Region::None);
        assert_eq!(scan("mx-0 print:break-inside-avoid").region, Region::None);
        assert_eq!(scan("lg:sidebar-open site-footer").region, Region::Footer);
        assert_eq!(scan("grid-container next-prev").region, Region::Navigation);
        assert_eq!(scan("message-signature").region, Region::Furniture);
        assert_eq!(scan("postsignature postmsg").region, Region::Furniture);
        assert_eq!(
            scan("userTitle message-userTitle").region,
            Region::Furniture
        );
        assert_eq!(scan("status userRankStatus").region, Region::Furniture);
        assert_eq!(
            scan("InlineImage-imageEmbedCaption").region,
            Region::Furniture
        );
    }
}

//! Per-node facts computed once per page: the boilerplate region each node lies in, and
//! text, link-text and comma counts of every subtree with boilerplate left out.

use super::classify::{is_content_marker, is_overlay, region_of, Region};
use super::dom::{Document, NodeData, NodeId, Tag, NONE};

/// Facts about every node of a [`Document`], indexed by node id.
pub struct Analysis {
    /// The node's own region kind (from its tag and attributes).
    pub own: Vec<Region>,
    /// The region the node lies in: its own, else its nearest classified ancestor's.
    pub region: Vec<Region>,
    /// Non-whitespace characters of text in the subtree, boilerplate left out.
    pub text: Vec<u32>,
    /// Of those, characters inside links.
    pub link: Vec<u32>,
    /// Commas (`,` and CJK/Arabic commas) in the subtree, boilerplate left out.
    pub commas: Vec<u32>,
    /// Non-whitespace characters in the subtree, boilerplate included.
    pub raw: Vec<u32>,
    /// The `<body>` element (or the document node).
    pub body: NodeId,
    /// Whether the page's schema.org data says it is a discussion (see `declares_discussion`).
    pub discussion: bool,
    /// Whether its metadata says it is one article, and whether its JSON-LD does, read once
    /// ([`Analysis::declares_article`]).
    article: std::cell::OnceCell<(bool, bool)>,
}

/// Boilerplate regions are not dropped when they hold at least this share of the page text
/// (a class like `has-sidebar` on the wrapper of everything).
const GUARD_SHARE: f64 = 0.6;
/// ... or at least this share of the page's paragraph (`<p>`) text.
const GUARD_P_SHARE: f64 = 0.5;

/// Characters a paragraph needs to count for the guard.
const MIN_PARA: u32 = 60;

/// A `<p>`, or a `<div>` with no block-level children.
fn is_paragraph(doc: &Document, id: NodeId) -> bool {
    match doc.tag(id) {
        Some(Tag::P) => true,
        Some(Tag::Div) => !doc
            .children(id)
            .any(|c| doc.tag(c).is_some_and(|t| t.is_block() && t != Tag::Br)),
        _ => false,
    }
}

fn is_article_marker(doc: &Document, id: NodeId) -> bool {
    match doc.tag(id) {
        Some(Tag::H1) => true,
        Some(_) => doc.attrs(id).any(|(n, v)| match n {
            "itemprop" => v.eq_ignore_ascii_case("articlebody"),
            "class" | "id" => is_content_marker(v),
            _ => false,
        }),
        None => false,
    }
}

fn count_text(s: &str) -> (u32, u32) {
    let mut chars = 0u32;
    let mut commas = 0u32;
    for c in s.chars() {
        if !c.is_whitespace() {
            chars += 1;
            if matches!(c, ',' | '\u{3001}' | '\u{FF0C}' | '\u{060C}') {
                commas += 1;
            }
        }
    }
    (chars, commas)
}

/// Elements that another element says it opens (`aria-controls` naming their `id`): the
/// panels of tabs and accordions, hidden until a reader clicks, and part of the page's text
/// however they are hidden.
fn controlled(doc: &Document) -> Vec<bool> {
    let n = doc.nodes.len();
    let mut ids = std::collections::HashSet::new();
    for i in 0..n as NodeId {
        if let Some(v) = doc.attr(i, "aria-controls") {
            ids.extend(v.split_whitespace());
        }
    }
    let mut out = vec![false; n];
    if ids.is_empty() {
        return out;
    }
    for i in 0..n as NodeId {
        if doc.attr(i, "id").is_some_and(|v| ids.contains(v)) {
            out[i as usize] = true;
        }
    }
    out
}

/// Replies of a discussion thread are marked up as comments (`itemprop=comment`, a `comment`
/// class) but built like its first post: an element marked a comment whose tag and class are
/// those of an element that is not one is a post of the thread, and content.
fn open_thread_replies(doc: &Document, own: &mut [Region]) {
    let class_of = |i: usize| {
        doc.attr(i as NodeId, "class")
            .map(str::trim)
            .filter(|c| !c.is_empty())
    };
    if !own.contains(&Region::Comments) {
        return;
    }
    let mut posts = std::collections::HashSet::new();
    for (i, r) in own.iter().enumerate() {
        if *r == Region::None {
            if let (Some(t), Some(c)) = (doc.tag(i as NodeId), class_of(i)) {
                posts.insert((t, c));
            }
        }
    }
    for (i, r) in own.iter_mut().enumerate() {
        if *r == Region::Comments {
            if let (Some(t), Some(c)) = (doc.tag(i as NodeId), class_of(i)) {
                if posts.contains(&(t, c)) {
                    *r = Region::None;
                }
            }
        }
    }
}

/// Items of a list page (posts of a blog index, cards of a catalogue) carry class words
/// that elsewhere mark furniture (`author-jane`, `tag-energy`, `teaser`): items of one tag and
/// first class word, siblings or at one depth under one element (a caption in each card of a
/// grid), that together hold at least this share of the text outside the page's frame are the
/// page's content.
const REPEATED_SHARE: f64 = 0.4;
/// ... when there are at least this many of them.
const REPEATED_MIN: usize = 3;
/// Items also repeat at one place inside repeated cards, up to this many levels below them.
const CARD_DEPTH: usize = 3;

/// Clears the class-word region of repeated items (siblings, or items at one depth under one
/// element, as in sibling cards) holding most of the text outside the page's frame, `unframed` (see
/// [`REPEATED_SHARE`]), and of a page builder's blocks holding most of all the text a reader
/// sees, `seen_total` ([`WIDGET_SHARE`]). Regions from tags, roles and hiding stay.
fn open_repeated_items(
    doc: &Document,
    own: &mut [Region],
    seen: &[u32],
    seen_total: f64,
    unframed: f64,
) {
    use std::collections::HashMap;
    let first_class = |i: NodeId| {
        doc.attr(i, "class")
            .and_then(|c| c.split_whitespace().next())
    };
    // Items repeat as siblings, or at one depth inside sibling cards (a caption inside each
    // card of a grid): (the parent of the item's ancestor `k` levels up, k, tag, first class
    // word) -> (items, text a reader sees), for k up to CARD_DEPTH. Items at one depth under
    // one element count together whether or not they sit in separate cards.
    let up = |i: NodeId, k: usize| {
        let mut a = i;
        for _ in 0..k {
            a = doc.node(a).parent;
            if a == NONE {
                return NONE;
            }
        }
        doc.node(a).parent
    };
    let mut groups: HashMap<(NodeId, usize, Tag, &str), (usize, u32)> = HashMap::new();
    for i in 0..doc.nodes.len() as NodeId {
        // Only items that class words make boilerplate are ever cleared: only they are counted.
        if !soft_region(doc, i, own[i as usize]) {
            continue;
        }
        let (Some(tag), Some(class)) = (doc.tag(i), first_class(i)) else {
            continue;
        };
        for k in 0..=CARD_DEPTH {
            let p = up(i, k);
            if p == NONE {
                break;
            }
            let g = groups.entry((p, k, tag, class)).or_default();
            g.0 += 1;
            g.1 += seen[i as usize];
        }
    }
    // Page builders mark every block of a page a "widget" (Elementor's `elementor-widget-text`,
    // nested in columns and sections, not siblings): blocks of one tag and first class word
    // read as a sidebar by their class words, holding most of the page between them wherever
    // they sit, are the page. Blocks are counted innermost (a wrapper of the same class around
    // all of them does not hide them), their text outermost (nested text counts once).
    let mut members: HashMap<(Tag, &str), Vec<NodeId>> = HashMap::new();
    for i in 0..doc.nodes.len() as NodeId {
        if own[i as usize] != Region::Sidebar || !soft_tag(doc, i) {
            continue;
        }
        let (Some(tag), Some(class)) = (doc.tag(i), first_class(i)) else {
            continue;
        };
        members.entry((tag, class)).or_default().push(i);
    }
    // (tag, first class word) -> (innermost blocks, text of the outermost)
    let widgets: HashMap<(Tag, &str), (usize, u32)> = members
        .into_iter()
        .map(|(key, ids)| {
            // In document order a block's nested members follow it directly.
            let n = ids
                .iter()
                .enumerate()
                .filter(|&(k, &i)| ids.get(k + 1).is_none_or(|&j| j >= doc.subtree_end(i)))
                .count();
            let (mut text, mut outer_end) = (0, 0);
            for &i in &ids {
                if i >= outer_end {
                    text += seen[i as usize];
                    outer_end = doc.subtree_end(i);
                }
            }
            (key, (n, text))
        })
        .collect();
    for i in 0..doc.nodes.len() as NodeId {
        let r = own[i as usize];
        // Most elements have no class-word region: skip them before reading their classes.
        let widget = r == Region::Sidebar && soft_tag(doc, i);
        if !widget && !soft_region(doc, i, r) {
            continue;
        }
        let (Some(tag), Some(class)) = (doc.tag(i), first_class(i)) else {
            continue;
        };
        let clear = if widget {
            widgets.get(&(tag, class)).is_some_and(|&(n, text)| {
                n >= REPEATED_MIN && text as f64 >= WIDGET_SHARE * seen_total
            })
        } else {
            (0..=CARD_DEPTH).any(|k| {
                groups
                    .get(&(up(i, k), k, tag, class))
                    .is_some_and(|&(n, text)| {
                        n >= REPEATED_MIN && text as f64 >= REPEATED_SHARE * unframed
                    })
            })
        };
        if clear {
            own[i as usize] = Region::None;
            // The card is content as a whole: so are its parts that class words give the same
            // region (`promo-card` > `promo-card__text`, the component's name on every part).
            for d in i + 1..doc.subtree_end(i) {
                if own[d as usize] == r && soft_region(doc, d, r) {
                    own[d as usize] = Region::None;
                }
            }
        }
    }
}

/// Blocks read as a sidebar by their class words, wherever they sit, that together hold at
/// least this share of the text a reader sees are the page's content (see
/// `open_repeated_items`).
const WIDGET_SHARE: f64 = 0.5;

/// An element whose tag and role say nothing of boilerplate: its region came from class words.
fn soft_tag(doc: &Document, id: NodeId) -> bool {
    !matches!(
        doc.tag(id),
        Some(Tag::Aside | Tag::Nav | Tag::Footer | Tag::Header)
    ) && doc.attr(id, "role").is_none()
}

/// A region that class words gave an element not marked boilerplate by its tag or role.
fn soft_region(doc: &Document, id: NodeId, r: Region) -> bool {
    matches!(r, Region::Furniture | Region::Ad | Region::Share) && soft_tag(doc, id)
}

/// A page whose visible text outside boilerplate is under this (non-whitespace characters)...
const SHELL_TEXT: u32 = 200;
/// ... reads its largest hidden element when that holds at least this much.
const HIDDEN_TEXT: u32 = 500;
/// A page that shows under `SHELL_RATIO_UNTIL` times [`SHELL_TEXT`] also reads its largest
/// hidden element when that holds this many times what the page shows (a shell with a
/// sentence or two of visible text).
const SHELL_RATIO: u32 = 10;
const SHELL_RATIO_UNTIL: u32 = 5;

/// Text outside comments under this share of the comments' text makes a page a thread...
const THREAD_SHARE: f64 = 0.25;
/// ... when it is also under this many characters (not a story with its discussion).
const THREAD_OUTSIDE: u32 = 1200;

/// Whether the comments of the page (elements marked as comments, inside no boilerplate)
/// hold more than `1 / THREAD_SHARE` times `outside`, the page's text outside boilerplate,
/// and under [`THREAD_OUTSIDE`], and the page's JSON-LD does not say it is an article (a short
/// story with a long discussion). A page whose schema.org data says it is a discussion is a
/// thread when its comments hold more than the rest.
fn is_thread(
    doc: &Document,
    own: &[Region],
    region: &[Region],
    seen: &[u32],
    outside: u32,
    discussion: bool,
    declares_article_in_json_ld: impl FnOnce() -> bool,
) -> bool {
    let comments: u32 = (0..doc.nodes.len())
        .filter(|&i| {
            own[i] == Region::Comments && {
                let p = doc.nodes[i].parent;
                p == NONE || !region[p as usize].is_boilerplate()
            }
        })
        .map(|i| seen[i])
        .sum();
    if comments < SHELL_TEXT {
        return false;
    }
    if discussion {
        return outside < comments;
    }
    (outside as f64) < THREAD_SHARE * comments as f64
        && outside < THREAD_OUTSIDE
        && !declares_article_in_json_ld()
}

/// Whether `doc`'s metadata says it is one article, and whether its JSON-LD does: read into
/// `cell` the first time only.
fn article_claims(cell: &std::cell::OnceCell<(bool, bool)>, doc: &Document) -> (bool, bool) {
    *cell.get_or_init(|| {
        let data = super::structured::structured_of(doc, None);
        (data.declares_article(), data.declares_article_in_json_ld())
    })
}

/// Whether the page's schema.org data, JSON-LD or microdata (`itemtype`), says it is a forum
/// thread or a question with its answers.
fn declares_discussion(doc: &Document) -> bool {
    let named = |s: &str| s.contains("DiscussionForumPosting") || s.contains("QAPage");
    let mut json_ld = false;
    for i in 0..doc.nodes.len() as NodeId {
        match doc.tag(i) {
            // Parsed only when a JSON-LD block names the type.
            Some(Tag::Script) if !json_ld => {
                json_ld = doc
                    .attr(i, "type")
                    .is_some_and(|t| t.to_ascii_lowercase().contains("ld+json"))
                    && named(&doc.text_content(i));
            }
            Some(_)
                if doc.attr(i, "itemtype").is_some_and(|t| {
                    t.split_whitespace().any(|u| {
                        matches!(
                            u.trim_end_matches('/').rsplit('/').next(),
                            Some("DiscussionForumPosting" | "QAPage")
                        )
                    })
                }) =>
            {
                return true;
            }
            _ => {}
        }
    }
    json_ld && super::structured::structured_of(doc, None).declares_discussion_in_json_ld()
}

/// The hidden element (hidden itself, inside no boilerplate) with the most text, if it holds
/// at least [`HIDDEN_TEXT`].
fn largest_hidden(
    doc: &Document,
    own: &[Region],
    region: &[Region],
    raw: &[u32],
) -> Option<NodeId> {
    (0..doc.nodes.len())
        .filter(|&i| {
            own[i] == Region::Hidden && raw[i] >= HIDDEN_TEXT && {
                let p = doc.nodes[i].parent;
                p == NONE || !region[p as usize].is_boilerplate()
            }
        })
        .max_by_key(|&i| raw[i])
        .map(|i| i as NodeId)
}

impl Analysis {
    /// Whether the page's metadata (`og:type`, JSON-LD) says it is one article; the structured
    /// data is read the first time only.
    pub fn declares_article(&self, doc: &Document) -> bool {
        self.article_claims(doc).0
    }

    /// Whether the page's JSON-LD says it is one article (`og:type` alone does not: WordPress
    /// sets it on category and shop pages too).
    pub fn declares_article_in_json_ld(&self, doc: &Document) -> bool {
        self.article_claims(doc).1
    }

    fn article_claims(&self, doc: &Document) -> (bool, bool) {
        article_claims(&self.article, doc)
    }

    /// Computes the analysis of `doc`.
    pub fn new(doc: &Document) -> Analysis {
        let n = doc.nodes.len();
        // The page's article claims, read at most once: by the thread test here, later by
        // [`Analysis::declares_article`].
        let article = std::cell::OnceCell::new();
        let mut own = vec![Region::None; n];
        let mut raw = vec![0u32; n];
        // Non-whitespace characters a reader sees: `raw` without hidden and non-text subtrees.
        let mut seen = vec![0u32; n];
        // Whether the subtree holds an element that marks the article (`<article>`, `<main>`,
        // `itemprop=articleBody`, a class like `article-body`).
        let mut marked = vec![false; n];
        // Text inside paragraphs (`<p>` and leaf `<div>`s of some length), boilerplate
        // included: where articles keep their text.
        let mut ptext = vec![0u32; n];
        let mut own_text = vec![(0u32, 0u32); n];
        // Whether the subtree holds a `<blockquote>`.
        let mut quoted = vec![false; n];
        // Whether the subtree holds link text outside a `<figcaption>`.
        let mut linked = vec![false; n];
        // Hidden panels that a tab or toggle opens are text (see `controlled`).
        let panels = controlled(doc);
        for i in (0..n).rev() {
            let node = &doc.nodes[i];
            match node.data {
                NodeData::Text(_) => {
                    let t = doc.text(i as NodeId).unwrap_or("");
                    let c = count_text(t);
                    own_text[i] = c;
                    raw[i] = c.0;
                    seen[i] = c.0;
                }
                NodeData::Element(_) => {
                    if doc.tag(i as NodeId) == Some(Tag::A) && raw[i] > 0 {
                        linked[i] = true;
                    }
                    // A figure that holds a quotation (a testimonial, a pull quote) or link
                    // text outside its caption (a product card's name) is text, not an
                    // image: its attributes decide its region as for any element.
                    own[i] = region_of(doc, i as NodeId, quoted[i] || linked[i]);
                    if panels[i] && own[i] == Region::Hidden {
                        own[i] = Region::None;
                    }
                    if doc.tag(i as NodeId) == Some(Tag::Blockquote) {
                        quoted[i] = true;
                    }
                }
                NodeData::Document => {}
            }
            if raw[i] >= MIN_PARA && is_paragraph(doc, i as NodeId) {
                ptext[i] = raw[i];
            }
            if !marked[i] && is_article_marker(doc, i as NodeId) {
                marked[i] = true;
            }
            if node.parent != NONE {
                raw[node.parent as usize] += raw[i];
                if !matches!(own[i], Region::Hidden | Region::NonText) {
                    seen[node.parent as usize] += seen[i];
                }
                ptext[node.parent as usize] += ptext[i];
                if marked[i] {
                    marked[node.parent as usize] = true;
                }
                if quoted[i] {
                    quoted[node.parent as usize] = true;
                }
                if linked[i] && doc.tag(i as NodeId) != Some(Tag::Figcaption) {
                    linked[node.parent as usize] = true;
                }
            }
        }
        open_thread_replies(doc, &mut own);
        let discussion = declares_discussion(doc);
        let body = doc.find(Tag::Body).unwrap_or(Document::ROOT);
        let total = raw[body as usize].max(1) as f64;
        let seen_total = seen[body as usize].max(1) as f64;
        // Shares of repeated items are of the text outside the page's header, navigation,
        // footer and sidebar as their tags and roles mark them.
        let mut framed = 0u32;
        let mut skip_to = 0usize;
        for i in 0..n {
            if i < skip_to {
                continue;
            }
            let r = own[i];
            if !matches!(r, Region::Hidden | Region::NonText)
                && r.is_boilerplate()
                && !soft_tag(doc, i as NodeId)
            {
                framed += seen[i];
                skip_to = doc.subtree_end(i as NodeId) as usize;
            } else if matches!(r, Region::Hidden | Region::NonText) {
                skip_to = doc.subtree_end(i as NodeId) as usize;
            }
        }
        let unframed = (seen_total - framed as f64).max(1.0);
        open_repeated_items(doc, &mut own, &seen, seen_total, unframed);
        let ptotal = ptext[body as usize] as f64;
        // A page that shows no text outside its boilerplate may keep it in an element that
        // scripts reveal (`display:none` until loaded): then its largest hidden element is
        // read, once.
        let mut revealed = false;
        // A page whose comments hold several times the text of everything else, and that does
        // not say it is an article, is a thread: its posts are marked as comments
        // (`itemprop=comment`) and are the content.
        let mut thread = false;
        let (region, text, link, commas) = loop {
            let mut region = vec![Region::None; n];
            for i in 0..n {
                let parent = doc.nodes[i].parent;
                let inherited = if parent == NONE {
                    Region::None
                } else {
                    region[parent as usize]
                };
                let mut r = own[i];
                // A consent banner or a modal dialog is never guarded as the page's article.
                let hard = matches!(r, Region::NonText)
                    || (r == Region::Furniture && is_overlay(doc, i as NodeId));
                // Shares of the page are of the text a reader sees; a hidden element's, of all.
                let share = if r == Region::Hidden {
                    raw[i] as f64 / total
                } else {
                    seen[i] as f64 / seen_total
                };
                let holds_article = share >= GUARD_SHARE
                    || (r != Region::Hidden
                        && ptotal >= 200.0
                        && ptext[i] as f64 >= GUARD_P_SHARE * ptotal)
                    // An <article> that class words call furniture (`author-jane`,
                    // `tag-jobs`: a CMS's labels) and that holds an article body.
                    || (marked[i] && r == Region::Furniture && doc.tag(i as NodeId) == Some(Tag::Article))
                    || (marked[i]
                        && matches!(
                            r,
                            Region::Sidebar | Region::Navigation | Region::Ad | Region::Share
                        )
                        && doc
                            .tag(i as NodeId)
                            .is_some_and(|t| !matches!(t, Tag::Aside | Tag::Nav)));
                // A page footer by its tag stays out however much of the page it holds: a
                // page whose only text is its footer (a script-built shell) has no content.
                let footer_tag = doc.tag(i as NodeId) == Some(Tag::Footer);
                if r != Region::None && !hard && !footer_tag && holds_article {
                    r = Region::None;
                    own[i] = Region::None;
                }
                region[i] = if inherited != Region::None {
                    inherited
                } else {
                    r
                };
            }
            let mut text = vec![0u32; n];
            let mut link = vec![0u32; n];
            let mut commas = vec![0u32; n];
            for i in (0..n).rev() {
                let node = &doc.nodes[i];
                if region[i].is_boilerplate() {
                    continue;
                }
                if let NodeData::Text(_) = node.data {
                    text[i] = own_text[i].0;
                    commas[i] = own_text[i].1;
                }
                if doc.tag(i as NodeId) == Some(Tag::A) {
                    link[i] = text[i];
                }
                let p = node.parent;
                if p != NONE {
                    text[p as usize] += text[i];
                    link[p as usize] += link[i];
                    commas[p as usize] += commas[i];
                }
            }
            let shown = text[body as usize];
            if !revealed && shown < SHELL_TEXT * SHELL_RATIO_UNTIL {
                if let Some(h) = largest_hidden(doc, &own, &region, &raw)
                    .filter(|&h| shown < SHELL_TEXT || raw[h as usize] >= SHELL_RATIO * shown)
                {
                    own[h as usize] = Region::None;
                    revealed = true;
                    continue;
                }
            }
            if !thread
                && is_thread(
                    doc,
                    &own,
                    &region,
                    &seen,
                    text[body as usize],
                    discussion,
                    || article_claims(&article, doc).1,
                )
            {
                for r in own.iter_mut().filter(|r| **r == Region::Comments) {
                    *r = Region::None;
                }
                thread = true;
                continue;
            }
            break (region, text, link, commas);
        };
        Analysis {
            own,
            region,
            text,
            link,
            commas,
            raw,
            body,
            discussion,
            article,
        }
    }

    /// Share of link text in the subtree (0 when it has no text).
    pub fn link_density(&self, id: NodeId) -> f64 {
        let t = self.text[id as usize];
        if t == 0 {
            0.0
        } else {
            self.link[id as usize] as f64 / t as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::convert::html::to_text;

    fn post(class: &str, marked_comment: bool, who: &str, text: &str) -> String {
        let itemprop = if marked_comment {
            " itemprop='comment'"
        } else {
            ""
        };
        format!("<div class='{class}'{itemprop}><span class='author'>{who}</span><div class='body'><p>{text}</p></div></div>")
    }

    #[test]
    fn thread_replies_built_like_the_first_post_are_content() {
        let page = format!(
            "<html><body><nav><a href='/'>Home</a></nav><main><h1>Which laptop for travel?</h1>{}{}{}</main></body></html>",
            post("topic-post", false, "ann", "I need a light laptop for travelling, with a good screen and a battery that lasts a whole day of work, what would you suggest?"),
            post("topic-post", true, "bob", "Look at the thirteen inch models from last year, they weigh about a kilogram and the battery lasts around fourteen hours."),
            post("topic-post", true, "cy", "Whatever you pick, check the screen brightness in reviews, many cheap models are too dim to use outdoors or on a train."),
        );
        let text = to_text(&page, "https://forum.example/t/1");
        assert!(text.contains("light laptop"), "{text}");
        assert!(text.contains("thirteen inch models"), "{text}");
        assert!(text.contains("screen brightness"), "{text}");
    }

    /// Forum software that marks every post of a thread as a comment, the first one too.
    #[test]
    fn a_thread_of_posts_all_marked_as_comments_is_content() {
        let posts: String = [
            ("ann", "Is it possible to show a route saved on the website in the phone app? I have many routes saved on my laptop and would like them on my phone while walking."),
            ("bob", "Not yet: routes saved on the website stay there for now, but you can export one as a file and open that file in the app from your phone's downloads."),
            ("cy", "Thanks, exporting the file worked, and the app keeps it offline too, which is exactly what I needed on the hills without any signal."),
        ]
        .iter()
        .map(|(who, text)| {
            format!("<li itemprop='comment'><span>{who}</span><div class='content'><p>{text}</p></div></li>")
        })
        .collect();
        let page = format!(
            "<html><body><nav><a href='/'>Forum</a></nav><h1>Routes in the app</h1><ul class='posts'>{posts}</ul></body></html>"
        );
        let text = to_text(&page, "https://forum.example/topic/1");
        for part in [
            "saved on my laptop",
            "export one as a file",
            "without any signal",
        ] {
            assert!(text.contains(part), "{part} missing: {text}");
        }
    }

    #[test]
    fn a_thread_that_declares_itself_a_discussion_reads_its_posts_beside_much_other_text() {
        let posts: String = (0..8)
            .map(|i| {
                format!(
                    "<li itemprop='comment'><span>member{i}</span><div class='content'><p>Reply {i}: \
                     the release candidate fixed the upgrade path for me, and the new theme \
                     loads faster on my old phone than the last beta did, so thanks to everyone \
                     who tested it and wrote up what broke along the way.</p></div></li>"
                )
            })
            .collect();
        // More text outside the posts than a thread without schema.org data may have.
        let prompt = "It looks like you are interested in this conversation, but you do not \
                      have an account yet. Register to follow topics, get notified of replies \
                      and keep your place in every thread you read. ";
        let page = format!(
            "<html><head><script type='application/ld+json'>\
             {{\"@context\":\"https://schema.org\",\"@type\":\"DiscussionForumPosting\",\"headline\":\"RC1\"}}\
             </script></head><body><h1>RC1 is out</h1><div class='intro'><p>{}</p></div>\
             <ul class='posts'>{posts}</ul></body></html>",
            prompt.repeat(6)
        );
        let text = to_text(&page, "https://forum.example/topic/2");
        for i in 0..8 {
            assert!(
                text.contains(&format!("Reply {i}:")),
                "reply {i} missing: {text}"
            );
        }
    }

    #[test]
    fn the_posts_of_a_declared_thread_join_a_summary_chosen_above_them() {
        let summary: String = (0..6)
            .map(|i| {
                format!(
                    "<li>Point {i} of the summary, with commas, clauses, and asides, written long \
                     enough, in full sentences, to outscore, on its own, any single post below.</li>"
                )
            })
            .collect();
        let posts: String = (0..6)
            .map(|i| {
                format!(
                    "<article class='message post'><div class='user'>user{i}</div>\
                     <div class='body'><p>Post {i}: I bought the cheaper key last year and it \
                     activated without trouble, though support would not help when it stopped \
                     working after a reinstall.</p></div></article>"
                )
            })
            .collect();
        let page = format!(
            "<html><head><script type='application/ld+json'>\
             {{\"@context\":\"https://schema.org\",\"@type\":\"WebPage\",\
             \"mainEntity\":{{\"@type\":\"DiscussionForumPosting\",\"headline\":\"Keys\"}}}}\
             </script></head><body><main><h1>Cheap keys?</h1>\
             <div class='summary'><ul>{summary}</ul></div>\
             <div class='thread'>{posts}</div></main></body></html>"
        );
        let text = to_text(&page, "https://forum.example/threads/3");
        for i in 0..6 {
            assert!(
                text.contains(&format!("Post {i}:")),
                "post {i} missing: {text}"
            );
        }
    }

    #[test]
    fn comments_under_an_article_stay_out() {
        let body = "The council approved the new cycling lanes on Tuesday, after two years of consultation with residents and shop owners along the route. ".repeat(4);
        let page = format!(
            "<html><body><article class='story'><h1>Cycle lanes approved</h1><p>{body}</p><p>{body}</p></article>\
             <section class='comments'>{}{}</section></body></html>",
            post("comment", true, "dee", "Great news, about time the council did something for cyclists in this town."),
            post("comment", true, "eve", "This will ruin business for the shops, nobody asked the people who drive."),
        );
        let text = to_text(&page, "https://news.example/cycle-lanes");
        assert!(text.contains("cycling lanes"), "{text}");
        assert!(!text.contains("about time"), "{text}");
        assert!(!text.contains("ruin business"), "{text}");
    }
}

#[cfg(test)]
mod list_tests {
    use crate::convert::html::to_text;

    /// A blog index: each post carries CMS classes (`author-...`, `tag-...`) that elsewhere
    /// mark bylines and tag lists.
    #[test]
    fn posts_of_a_blog_index_are_content() {
        let posts: String = [
            ("Moving a clinic's records to new servers", "Last month we moved eleven years of patient records to new servers without a minute of downtime, and this is how we planned it."),
            ("What a nightly backup really costs", "Storage is cheap, but the time to restore is not: we worked out what a nightly copy costs a small practice over five years."),
            ("Five questions to ask a backup provider", "Before you sign, ask where the copies live, how often restores are tested, and who answers the phone at night."),
            ("Why we test restores every week", "A backup that was never restored is a hope, not a plan, so every Friday we restore one client's server from scratch."),
        ]
        .iter()
        .map(|(h, p)| format!("<article class='entry author-jane tag-backups'><h2>{h}</h2><p>{p}</p></article>"))
        .collect();
        let page = format!(
            "<html><body><nav><a href='/'>Home</a></nav><div id='posts'>{posts}</div>\
             <footer>Copyright</footer></body></html>"
        );
        let text = to_text(&page, "https://backup.example/blog");
        for part in [
            "eleven years",
            "five years",
            "answers the phone",
            "every Friday",
        ] {
            assert!(text.contains(part), "{part} missing: {text}");
        }
    }

    /// A blog post whose `<article>` carries its CMS's labels (`author-...`, `tag-...`, words
    /// that elsewhere mark bylines and tag lists) around its `entry-content`.
    #[test]
    fn a_post_labelled_with_author_and_tags_is_content() {
        let body = "<p>Stack Overflow published its yearly analysis of the jobs developers look at and the ones they apply to.</p>\
                    <p>Demand for developers who know a language was measured against the people available in each city.</p>";
        let page = format!(
            "<html><body><header><a href='/'>Blog</a></header><main><article class='entry author-sarah post type-post tag-jobs category-news'>\
             <h1>What developers want</h1><div class='entry-content'>{body}</div></article></main>\
             <aside class='sidebar'>{}</aside></body></html>",
            "<p>Subscribe to the newsletter and never miss a post from this blog, with a summary of the week's news every Friday morning in your inbox.</p>".repeat(4)
        );
        let text = to_text(&page, "https://blog.example/2017/03/jobs");
        assert!(text.contains("yearly analysis"), "{text}");
        assert!(text.contains("people available"), "{text}");
        assert!(!text.contains("newsletter"), "{text}");
    }

    /// A service page's offers are cards named after a promotion component, on every part of
    /// each card, however deep: the cards are the page, descriptions and all.
    #[test]
    fn the_parts_of_promotion_cards_that_are_the_page_are_content() {
        use super::super::dom::parse;
        use super::{Analysis, Region};
        let card = |name: &str, text: &str| {
            format!(
                "<div class='promo-card'><div><div><h3 class='promo-card__title'>{name}</h3>\
                 <div><div class='promo-card__text'><p>{text}</p></div></div></div></div></div>"
            )
        };
        let page = format!(
            "<html><body><nav><a href='/'>Home</a></nav><main><h1>Our services</h1>\
             <p>We are a firm of accountants and advisers with offices in four cities. Since 1990 \
             we have worked for families, small firms and some of the largest companies of the \
             region.</p>{}{}{}</main><footer>Copyright</footer></body></html>",
            card("Audit", "We review the accounts of companies of every size and report on them to their boards and owners."),
            card("Tax", "We prepare the returns of companies and their staff, and advise on the rules that change every year."),
            card("Consulting", "We help firms plan their growth, from new markets to the systems they run their business on."),
        );
        let doc = parse(&page);
        let an = Analysis::new(&doc);
        let parts: Vec<u32> = (0..doc.nodes.len() as u32)
            .filter(|&i| {
                doc.attr(i, "class")
                    .is_some_and(|c| c.starts_with("promo-card"))
            })
            .collect();
        assert_eq!(parts.len(), 9);
        for i in parts {
            assert_eq!(
                an.region[i as usize],
                Region::None,
                "{:?}",
                doc.attr(i, "class")
            );
        }
        // All the text a reader sees is content: the heading, the intro and the three cards.
        assert!(
            an.text[an.body as usize] > 400,
            "{}",
            an.text[an.body as usize]
        );
    }

    /// A page builder's page: every block a "widget", each in a column of its own section.
    #[test]
    fn the_blocks_of_a_page_builder_are_content() {
        let block = |text: &str| {
            format!(
                "<section class='elementor-section'><div class='elementor-column'>\
                 <div class='elementor-element elementor-widget elementor-widget-text-editor'>\
                 <div class='elementor-widget-container'><p>{text}</p></div></div></div></section>"
            )
        };
        let page = format!(
            "<html><body><nav><a href='/'>Home</a></nav><main>{}{}{}</main><footer>Copyright</footer></body></html>",
            block("We repair bicycles of every make in our workshop by the station, most of them on the day you bring them in."),
            block("A service costs forty euros and covers the brakes, the gears, the chain and both wheels, with parts extra."),
            block("Book a slot online or just come by: we open at seven so that you can leave your bike on the way to work."),
        );
        let text = to_text(&page, "https://bikes.example/service");
        for part in ["every make", "forty euros", "open at seven"] {
            assert!(text.contains(part), "{part} missing: {text}");
        }
    }

    #[test]
    fn page_builder_blocks_inside_a_wrapper_of_their_own_class_are_content() {
        let block = |text: &str| {
            format!("<div class='span12 widget-span widget-type-custom_widget'><p>{text}</p></div>")
        };
        let page = format!(
            "<html><body><nav><a href='/'>Home</a></nav><main>\
             <div class='span12 widget-span widget-type-cell'>{}{}{}</div>\
             </main><footer>Copyright</footer></body></html>",
            block("We repair bicycles of every make in our workshop by the station, most of them on the day you bring them in."),
            block("A service costs forty euros and covers the brakes, the gears, the chain and both wheels, with parts extra."),
            block("Book a slot online or just come by: we open at seven so that you can leave your bike on the way to work."),
        );
        let text = to_text(&page, "https://bikes.example/service");
        for part in ["every make", "forty euros", "open at seven"] {
            assert!(text.contains(part), "{part} missing: {text}");
        }
    }

    /// Sidebar widgets beside an article hold less than half of the page: they stay out.
    #[test]
    fn sidebar_widgets_beside_an_article_stay_out() {
        let body = "The museum reopens on Saturday after a two year renovation that added a new wing for the city's maritime collection and a roof garden. ".repeat(5);
        let widget = |text: &str| format!("<div class='widget widget-text'><p>{text}</p></div>");
        let page = format!(
            "<html><body><div class='content'><h1>Museum reopens</h1><p>{body}</p></div><div class='side'>{}{}{}</div></body></html>",
            widget("Subscribe to our newsletter for weekly picks of exhibitions and events in town."),
            widget("Follow us on every network you use, we post there every single day of the week."),
            widget("Advertise with us and reach thousands of readers who love culture and the arts."),
        );
        let text = to_text(&page, "https://news.example/museum");
        assert!(text.contains("maritime collection"), "{text}");
        assert!(!text.contains("newsletter"), "{text}");
        assert!(!text.contains("every network"), "{text}");
    }

    /// Text held in hidden elements (streamed page parts, templates) does not count when
    /// deciding whether a region holds most of what a reader sees.
    #[test]
    fn hidden_text_does_not_outweigh_what_is_shown() {
        let shown = "Every night each device in the clinic is backed up to two data centres in the country, and a single file comes back in minutes. ";
        let hidden = "<div hidden>".to_string() + &"streamed data ".repeat(25) + "</div>";
        let page = format!(
            "<html><body><div class='page-header'><h1>Backups for clinics</h1><p>{shown}</p><p>{shown}</p></div>{hidden}</body></html>"
        );
        let text = to_text(&page, "https://backup.example/");
        assert!(text.contains("two data centres"), "{text}");
        assert!(!text.contains("streamed data"), "{text}");
    }

    /// A product page whose details wait hidden for a script to show them.
    #[test]
    fn a_page_showing_nothing_reads_its_hidden_content() {
        let details = "This standing desk lifts from sixty to one hundred and twenty centimetres in twelve seconds, carries one hundred and fifty kilograms, and remembers four heights. ".repeat(4);
        let page = format!(
            "<html><body><header><a href='/'>Shop</a> <a href='/desks'>Desks</a></header>\
             <div class='product' style='display: none'><h2>Standing desk</h2><p>{details}</p></div>\
             <footer>Terms</footer></body></html>"
        );
        let text = to_text(&page, "https://shop.example/desk");
        assert!(text.contains("remembers four heights"), "{text}");
        assert!(!text.contains("Terms"), "{text}");
    }

    /// A shell that shows a few lines outside its frame (over 200 characters), keeps its
    /// listing hidden for scripts and the data of its next pages in a `<template>`: the
    /// listing, ten times what the page shows, is read.
    #[test]
    fn a_shell_with_a_few_lines_of_text_reads_its_hidden_listing() {
        let items: String = (1..=60)
            .map(|i| format!("<li><a href='/item/{i}'>Hand-painted enamel sign number {i}, 1950s</a> <span>£{i}5.00</span></li>"))
            .collect();
        let next = format!(
            "<template><p>{}</p></template>",
            "Next page item, price on request. ".repeat(100)
        );
        let page = format!(
            "<html><body><header><a href='/'>Market</a> <a href='/sell'>Sell</a></header>\
             <p>Skip to the main content of this page, or sign in to see your saved searches and watched items.</p>\
             <p>Prices include tax, and shipping is shown at the checkout.</p>\
             <p>Sellers ship from many countries; each listing says where an item is and how long it takes to arrive.</p>\
             {next}<div style='display:none'><h1>Vintage signs</h1><ul>{items}</ul></div></body></html>"
        );
        let text = to_text(&page, "https://market.example/b/signs");
        assert!(text.contains("enamel sign number 7"), "{text}");
        assert!(!text.contains("Next page item"), "{text}");
    }
}

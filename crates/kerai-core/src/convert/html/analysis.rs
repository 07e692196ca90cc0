//! Per-node facts computed once per page: the boilerplate region each node lies in, and
//! text, link-text and comma counts of every subtree with boilerplate left out.

use super::classify::{is_content_marker, region_of, Region};
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

impl Analysis {
    /// Computes the analysis of `doc`.
    pub fn new(doc: &Document) -> Analysis {
        let n = doc.nodes.len();
        let mut own = vec![Region::None; n];
        let mut raw = vec![0u32; n];
        // Whether the subtree holds an element that marks the article (`<article>`, `<main>`,
        // `itemprop=articleBody`, a class like `article-body`).
        let mut marked = vec![false; n];
        // Text inside paragraphs (`<p>` and leaf `<div>`s of some length), boilerplate
        // included: where articles keep their text.
        let mut ptext = vec![0u32; n];
        let mut own_text = vec![(0u32, 0u32); n];
        for i in (0..n).rev() {
            let node = &doc.nodes[i];
            match node.data {
                NodeData::Text(_) => {
                    let t = doc.text(i as NodeId).unwrap_or("");
                    let c = count_text(t);
                    own_text[i] = c;
                    raw[i] = c.0;
                }
                NodeData::Element(_) => own[i] = region_of(doc, i as NodeId),
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
                ptext[node.parent as usize] += ptext[i];
                if marked[i] {
                    marked[node.parent as usize] = true;
                }
            }
        }
        open_thread_replies(doc, &mut own);
        let body = doc.find(Tag::Body).unwrap_or(Document::ROOT);
        let total = raw[body as usize].max(1) as f64;
        let ptotal = ptext[body as usize] as f64;
        let mut region = vec![Region::None; n];
        for i in 0..n {
            let parent = doc.nodes[i].parent;
            let inherited = if parent == NONE {
                Region::None
            } else {
                region[parent as usize]
            };
            let mut r = own[i];
            let hard = matches!(r, Region::NonText);
            let holds_article = raw[i] as f64 >= GUARD_SHARE * total
                || (ptotal >= 200.0 && ptext[i] as f64 >= GUARD_P_SHARE * ptotal)
                || (marked[i]
                    && matches!(
                        r,
                        Region::Sidebar | Region::Navigation | Region::Ad | Region::Share
                    )
                    && doc
                        .tag(i as NodeId)
                        .is_some_and(|t| !matches!(t, Tag::Aside | Tag::Nav)));
            if r != Region::None && !hard && holds_article {
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
        Analysis {
            own,
            region,
            text,
            link,
            commas,
            raw,
            body,
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

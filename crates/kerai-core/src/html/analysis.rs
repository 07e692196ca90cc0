//! Per-node facts computed once per page: the boilerplate region each node lies in, and
//! text, link-text and comma counts of every subtree with boilerplate left out.

use super::classify::{region_of, Region};
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

impl Analysis {
    /// Computes the analysis of `doc`.
    pub fn new(doc: &Document) -> Analysis {
        let n = doc.nodes.len();
        let mut own = vec![Region::None; n];
        let mut raw = vec![0u32; n];
        // Text inside paragraphs (`<p>`), boilerplate included: where articles keep their text.
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
            if doc.tag(i as NodeId) == Some(Tag::P) {
                ptext[i] = raw[i];
            }
            if node.parent != NONE {
                raw[node.parent as usize] += raw[i];
                ptext[node.parent as usize] += ptext[i];
            }
        }
        let body = doc.find(Tag::Body).unwrap_or(Document::ROOT);
        let total = raw[body as usize].max(1) as f64;
        let ptotal = ptext[body as usize] as f64;
        let mut region = vec![Region::None; n];
        for i in 0..n {
            let parent = doc.nodes[i].parent;
            let inherited = if parent == NONE { Region::None } else { region[parent as usize] };
            let mut r = own[i];
            let hard = matches!(r, Region::NonText);
            let holds_article =
                raw[i] as f64 >= GUARD_SHARE * total || (ptotal >= 200.0 && ptext[i] as f64 >= GUARD_P_SHARE * ptotal);
            if r != Region::None && !hard && holds_article {
                r = Region::None;
                own[i] = Region::None;
            }
            region[i] = if inherited != Region::None { inherited } else { r };
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
        Analysis { own, region, text, link, commas, raw, body }
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

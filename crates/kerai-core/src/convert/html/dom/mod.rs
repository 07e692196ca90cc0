//! HTML parsed into an arena DOM, [`Document`].
//!
//! The own parser (`parser.rs`) is small, fast and forgiving. It tokenizes with `memchr` and
//! builds the tree with the parts of the HTML5 tree-building rules that change what text lands
//! where: void and raw-text elements, implied end tags (`<p>`, `<li>`, `<dd>`/`<dt>`, table
//! rows and cells, `<option>`, nested `<a>` and `<button>`, headings), end tags matched within
//! scope, `<html>`/`<body>` merged, content after `</body>` kept in the body. It does not do
//! foster parenting or the adoption agency, but it notices markup that needs them, and by
//! default ([`Engine::Auto`]) such a page is parsed again by html5ever's spec-compliant tree
//! builder ([`html5`]). (Some repairs that keep the text where it was, such as reopening a
//! `<b>` in the next paragraph, are not looked for.)
//!
//! Limits, for both (so that any input parses in bounded time and memory): the first
//! [`MAX_INPUT_BYTES`] of the input are parsed, at most [`MAX_NODES`] nodes are built, and
//! elements nested deeper than [`MAX_DEPTH`] are attached to the deepest allowed ancestor.
//! [`Document::truncated`] tells when a limit cut the input.

mod entities;
mod entity_table;
pub mod html5;
pub mod parser;
mod tag;

use std::sync::atomic::{AtomicU8, Ordering};

pub use entities::decode;
pub use tag::Tag;

/// Which tree builder [`parse`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// The default: the own parser, and html5ever's tree for pages that hold markup the HTML5
    /// tree builder repairs and the own parser does not ([`parser::parse_checked`]). The spec's
    /// tree for every page, at about the own parser's speed.
    Auto,
    /// html5ever's spec-compliant tree builder ([`html5`]) for every page.
    Html5ever,
    /// The own tokenizer and tree builder (`parser.rs`) for every page: no foster parenting,
    /// no adoption agency.
    Own,
}

static ENGINE: AtomicU8 = AtomicU8::new(0);

/// Chooses the tree builder for every later [`parse`] in this process. For measuring them
/// against each other (the `aeb` and `wcxb` examples' `--parser`); the extension and the
/// fetcher keep the default.
pub fn set_engine(engine: Engine) {
    ENGINE.store(engine as u8, Ordering::Relaxed);
}

/// The tree builder [`parse`] uses now.
pub fn engine() -> Engine {
    match ENGINE.load(Ordering::Relaxed) {
        1 => Engine::Html5ever,
        2 => Engine::Own,
        _ => Engine::Auto,
    }
}

/// Parses `input` into a [`Document`] with the chosen [`Engine`]. Never fails: any byte
/// sequence gives some tree, within the limits below.
pub fn parse(input: &str) -> Document {
    match engine() {
        Engine::Auto => match parser::parse_checked(input) {
            (_, true) => html5::parse(input),
            (doc, false) => doc,
        },
        Engine::Html5ever => html5::parse(input),
        Engine::Own => parser::parse(input),
    }
}

/// Index of a node in [`Document::nodes`].
pub type NodeId = u32;
/// "No node" (no parent, no child, no sibling).
pub const NONE: NodeId = u32::MAX;
/// Bytes of input parsed at most (16 MiB); the rest is ignored and `truncated` set.
pub const MAX_INPUT_BYTES: usize = 16 << 20;
/// Nodes built at most; parsing stops there and `truncated` is set.
pub const MAX_NODES: usize = 2_000_000;
/// Open elements nested at most; deeper elements become children of the deepest one.
pub const MAX_DEPTH: usize = 512;

/// A byte range of [`Document::buf`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// Byte offset.
    pub start: u32,
    /// Length in bytes.
    pub len: u32,
}

/// One attribute: lower-case name and decoded value, as spans of [`Document::buf`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr {
    /// Lower-case name.
    pub name: Span,
    /// Decoded value.
    pub value: Span,
}

/// An element: its tag, its name when the tag is not a known one, and its attributes
/// (`attrs_start..attrs_end` in [`Document::attrs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element {
    /// The element's tag.
    pub tag: Tag,
    /// The lower-case name for `Tag::Other` (empty otherwise; use [`Document::name`]).
    pub other_name: Span,
    /// First attribute in [`Document::attrs`].
    pub attrs_start: u32,
    /// One past the last attribute.
    pub attrs_end: u32,
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeData {
    /// The document node (node 0).
    Document,
    /// An element.
    Element(Element),
    /// Decoded text. The contents of `<script>` are kept only for JSON types
    /// (`application/ld+json`, `application/json`, ...); `<style>` contents are dropped.
    Text(Span),
}

/// A node with its tree links.
#[derive(Debug, Clone)]
pub struct Node {
    /// Parent ([`NONE`] for the document node).
    pub parent: NodeId,
    /// First child or [`NONE`].
    pub first_child: NodeId,
    /// Last child or [`NONE`].
    pub last_child: NodeId,
    /// Next sibling or [`NONE`].
    pub next_sibling: NodeId,
    /// Previous sibling or [`NONE`].
    pub prev_sibling: NodeId,
    /// What the node is.
    pub data: NodeData,
}

/// A parsed document: node 0 is the document node; nodes are stored in document order
/// (a parent always before its descendants). Strings live in one buffer, `buf`.
#[derive(Debug, Clone)]
pub struct Document {
    /// All nodes, in document order.
    pub nodes: Vec<Node>,
    /// All attributes, each element's contiguous.
    pub attrs: Vec<Attr>,
    /// All strings (text, names, values).
    pub buf: String,
    /// True when the input was larger than [`MAX_INPUT_BYTES`], had more than [`MAX_NODES`]
    /// nodes or nested deeper than [`MAX_DEPTH`].
    pub truncated: bool,
}

impl Document {
    /// The document node.
    pub const ROOT: NodeId = 0;

    /// The node with id `id`.
    #[inline]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The string of a span.
    #[inline]
    pub fn str(&self, s: Span) -> &str {
        &self.buf[s.start as usize..(s.start + s.len) as usize]
    }

    /// The element data of `id`, if it is an element.
    #[inline]
    pub fn element(&self, id: NodeId) -> Option<&Element> {
        match &self.nodes[id as usize].data {
            NodeData::Element(e) => Some(e),
            _ => None,
        }
    }

    /// The tag of `id` (`None` for text and the document node).
    #[inline]
    pub fn tag(&self, id: NodeId) -> Option<Tag> {
        self.element(id).map(|e| e.tag)
    }

    /// The lower-case element name of `id` (`""` for non-elements).
    pub fn name(&self, id: NodeId) -> &str {
        match self.element(id) {
            Some(e) if e.tag == Tag::Other => self.str(e.other_name),
            Some(e) => e.tag.name(),
            None => "",
        }
    }

    /// The text of a text node.
    #[inline]
    pub fn text(&self, id: NodeId) -> Option<&str> {
        match &self.nodes[id as usize].data {
            NodeData::Text(t) => Some(self.str(*t)),
            _ => None,
        }
    }

    /// The attributes of element `id` as (name, value) pairs.
    pub fn attrs(&self, id: NodeId) -> impl Iterator<Item = (&str, &str)> + '_ {
        let range = match self.element(id) {
            Some(e) => e.attrs_start as usize..e.attrs_end as usize,
            None => 0..0,
        };
        self.attrs[range]
            .iter()
            .map(|a| (self.str(a.name), self.str(a.value)))
    }

    /// Attribute `name` (lower case) of element `id`.
    pub fn attr(&self, id: NodeId, name: &str) -> Option<&str> {
        self.attrs(id).find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The children of `id`, in order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            doc: self,
            next: self.node(id).first_child,
        }
    }

    /// The end of `id`'s subtree: `id` and its descendants are exactly the ids `id..end`.
    pub fn subtree_end(&self, id: NodeId) -> NodeId {
        // Nodes are allocated in document order, so a subtree is a contiguous id range that
        // ends where the next sibling of the nearest ancestor-or-self with one begins.
        let mut n = id;
        loop {
            let node = self.node(n);
            if node.next_sibling != NONE {
                return node.next_sibling;
            }
            if node.parent == NONE {
                return self.nodes.len() as NodeId;
            }
            n = node.parent;
        }
    }

    /// The first element with tag `tag` in document order.
    pub fn find(&self, tag: Tag) -> Option<NodeId> {
        (0..self.nodes.len() as NodeId).find(|&i| self.tag(i) == Some(tag))
    }

    /// All elements with tag `tag`, in document order.
    pub fn find_all(&self, tag: Tag) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.nodes.len() as NodeId).filter(move |&i| self.tag(i) == Some(tag))
    }

    /// The concatenated text of `id`'s descendants (raw, whitespace as in the source).
    pub fn text_content(&self, id: NodeId) -> String {
        let mut out = String::new();
        for i in id..self.subtree_end(id) {
            if let Some(t) = self.text(i) {
                out.push_str(t);
            }
        }
        out
    }
}

/// Iterator over the children of a node.
pub struct Children<'a> {
    doc: &'a Document,
    next: NodeId,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        self.next = self.doc.node(id).next_sibling;
        Some(id)
    }
}

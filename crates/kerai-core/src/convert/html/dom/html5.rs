//! The [`Document`] built by html5ever's spec-compliant tree builder (foster parenting, the
//! adoption agency, the insertion modes), as a browser builds it: for the pages whose markup
//! needs those repairs ([`super::Engine::Auto`]), or for every page
//! ([`super::Engine::Html5ever`]).
//!
//! The tree builder writes into a scratch arena (it moves nodes around after creating them);
//! the arena is then copied into a [`Document`] in document order with the own parser's
//! conventions: text of `<script>` kept only for JSON types, `<style>`, `<noscript>`,
//! `<iframe>`, `<noembed>` and `<noframes>` text dropped, comments and doctypes dropped,
//! template contents kept in place, adjacent text merged, U+0000 dropped, at most 64
//! attributes an element, and the same limits ([`MAX_INPUT_BYTES`], [`MAX_NODES`],
//! [`MAX_DEPTH`]).
//!
//! html5ever's scope checks walk the whole stack of open elements, so its time grows with the
//! square of the nesting depth. A page that nests elements deeper than [`MAX_DEPTH`] is
//! therefore handed to the own parser (which flattens what lies deeper) as soon as that depth
//! is reached. Likewise a page on which the tree builder makes more elements than its tags
//! could (it reopens every formatting element left open in each new paragraph: more than one
//! element per two bytes read): no page costs more than a bounded amount of work and memory
//! per byte.
//!
//! html5ever reads the bodies of `<script>` and `<style>` one character at a time, and on the
//! web they are most of a page's bytes. Their text is not kept (JSON scripts aside), so they
//! are cut out before parsing ([`drop_raw_bodies`]), which makes parsing several times faster.

use std::borrow::Cow;
use std::cell::{Ref, RefCell};

use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::{ns, Attribute, QualName};

use super::{
    Attr, Document, Element, Node, NodeData, NodeId, Span, Tag, MAX_DEPTH, MAX_INPUT_BYTES,
    MAX_NODES, NONE,
};

/// Input is fed to the tokenizer in pieces of this size, with a cancellation point and a
/// node-count check between them.
/// Small, so that a page found too deep is handed over early.
const PIECE: usize = 4 << 10;

#[derive(Debug)]
enum Scratch {
    Document,
    Element(QualName, Vec<Attribute>),
    Text(String),
    /// A comment, doctype or processing instruction: not kept.
    Dropped,
}

#[derive(Debug)]
struct ScratchNode {
    /// The deepest it has been inserted at (the document is 0).
    depth: u32,
    parent: u32,
    first: u32,
    last: u32,
    next: u32,
    prev: u32,
    data: Scratch,
}

#[derive(Debug)]
struct Arena {
    nodes: Vec<ScratchNode>,
    fallback: QualName,
    /// The deepest element inserted so far.
    deepest: u32,
}

impl Arena {
    fn push(&mut self, data: Scratch) -> u32 {
        self.nodes.push(ScratchNode {
            depth: 0,
            parent: NONE,
            first: NONE,
            last: NONE,
            next: NONE,
            prev: NONE,
            data,
        });
        (self.nodes.len() - 1) as u32
    }

    fn detach(&mut self, id: u32) {
        let (parent, prev, next) = {
            let n = &self.nodes[id as usize];
            (n.parent, n.prev, n.next)
        };
        if parent == NONE {
            return;
        }
        if prev == NONE {
            self.nodes[parent as usize].first = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NONE {
            self.nodes[parent as usize].last = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
        let n = &mut self.nodes[id as usize];
        n.parent = NONE;
        n.prev = NONE;
        n.next = NONE;
    }

    /// Links the detached `id` under `parent`, before `before` (or last when [`NONE`]).
    fn link(&mut self, parent: u32, id: u32, before: u32) {
        let prev = if before == NONE {
            self.nodes[parent as usize].last
        } else {
            self.nodes[before as usize].prev
        };
        // A moved node keeps the depth it had if that is deeper: the adoption agency moves
        // children under an element before attaching it, and the depth must not restart there.
        let depth = (self.nodes[parent as usize].depth + 1).max(self.nodes[id as usize].depth);
        self.deepest = self.deepest.max(depth);
        {
            let n = &mut self.nodes[id as usize];
            n.depth = depth;
            n.parent = parent;
            n.prev = prev;
            n.next = before;
        }
        if prev == NONE {
            self.nodes[parent as usize].first = id;
        } else {
            self.nodes[prev as usize].next = id;
        }
        if before == NONE {
            self.nodes[parent as usize].last = id;
        } else {
            self.nodes[before as usize].prev = id;
        }
    }

    /// Inserts a node or text under `parent` before `before`, merging text with a text
    /// sibling right before the insertion point.
    fn insert(&mut self, parent: u32, child: NodeOrText<u32>, before: u32) {
        match child {
            NodeOrText::AppendNode(id) => {
                self.detach(id);
                self.link(parent, id, before);
            }
            NodeOrText::AppendText(t) => {
                let prev = if before == NONE {
                    self.nodes[parent as usize].last
                } else {
                    self.nodes[before as usize].prev
                };
                if prev != NONE {
                    if let Scratch::Text(s) = &mut self.nodes[prev as usize].data {
                        s.push_str(&t);
                        return;
                    }
                }
                let id = self.push(Scratch::Text(t.to_string()));
                self.link(parent, id, before);
            }
        }
    }
}

struct Sink {
    arena: RefCell<Arena>,
}

impl TreeSink for Sink {
    type Handle = u32;
    type Output = Arena;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Arena {
        self.arena.into_inner()
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> u32 {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a u32) -> Ref<'a, QualName> {
        Ref::map(self.arena.borrow(), |a| {
            match &a.nodes[*target as usize].data {
                Scratch::Element(name, _) => name,
                _ => &a.fallback,
            }
        })
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, _: ElementFlags) -> u32 {
        self.arena.borrow_mut().push(Scratch::Element(name, attrs))
    }

    fn create_comment(&self, _text: StrTendril) -> u32 {
        self.arena.borrow_mut().push(Scratch::Dropped)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> u32 {
        self.arena.borrow_mut().push(Scratch::Dropped)
    }

    fn append(&self, parent: &u32, child: NodeOrText<u32>) {
        self.arena.borrow_mut().insert(*parent, child, NONE);
    }

    fn append_based_on_parent_node(&self, element: &u32, prev: &u32, child: NodeOrText<u32>) {
        let mut a = self.arena.borrow_mut();
        if a.nodes[*element as usize].parent != NONE {
            let parent = a.nodes[*element as usize].parent;
            a.insert(parent, child, *element);
        } else {
            a.insert(*prev, child, NONE);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {}

    fn get_template_contents(&self, target: &u32) -> u32 {
        // Template contents stay in place, as the own parser keeps them.
        *target
    }

    fn same_node(&self, x: &u32, y: &u32) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &u32, child: NodeOrText<u32>) {
        let mut a = self.arena.borrow_mut();
        let parent = a.nodes[*sibling as usize].parent;
        if parent != NONE {
            a.insert(parent, child, *sibling);
        }
    }

    fn add_attrs_if_missing(&self, target: &u32, attrs: Vec<Attribute>) {
        if let Scratch::Element(_, have) = &mut self.arena.borrow_mut().nodes[*target as usize].data
        {
            for new in attrs {
                if !have.iter().any(|h| h.name == new.name) {
                    have.push(new);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &u32) {
        self.arena.borrow_mut().detach(*target);
    }

    fn reparent_children(&self, node: &u32, new_parent: &u32) {
        let mut a = self.arena.borrow_mut();
        let mut c = a.nodes[*node as usize].first;
        while c != NONE {
            let next = a.nodes[c as usize].next;
            a.detach(c);
            a.link(*new_parent, c, NONE);
            c = next;
        }
    }
}

/// Parses `input` with html5ever into a [`Document`] (see the module docs). Never fails.
pub fn parse(input: &str) -> Document {
    let mut truncated = false;
    let without_nul;
    let mut input = input;
    if input.contains('\0') {
        without_nul = input.replace('\0', "");
        input = &without_nul;
    }
    if input.len() > MAX_INPUT_BYTES {
        let mut cut = MAX_INPUT_BYTES;
        while !input.is_char_boundary(cut) {
            cut -= 1;
        }
        input = &input[..cut];
        truncated = true;
    }
    let stripped = drop_raw_bodies(input);
    let input: &str = &stripped;
    let mut arena = Arena {
        nodes: Vec::with_capacity(input.len() / 40 + 16),
        fallback: QualName::new(None, ns!(html), html5ever::local_name!("div")),
        deepest: 0,
    };
    arena.push(Scratch::Document);
    let sink = Sink {
        arena: RefCell::new(arena),
    };
    let mut parser = html5ever::parse_document(sink, Default::default());
    let mut rest = input;
    while !rest.is_empty() {
        let mut cut = rest.len().min(PIECE);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        parser.process(StrTendril::from_slice(&rest[..cut]));
        rest = &rest[cut..];
        crate::interrupt::check();
        let arena = parser.tokenizer.sink.sink.arena.borrow();
        let fed = input.len() - rest.len();
        if arena.deepest as usize > MAX_DEPTH || arena.nodes.len() > fed / 2 + 1024 {
            // The own parser reports its own flattening of deep elements.
            let mut doc = super::parser::parse(input);
            doc.truncated |= truncated;
            return doc;
        }
        if arena.nodes.len() > MAX_NODES {
            truncated = true;
            break;
        }
    }
    let arena = parser.finish();
    let mut doc = copy(&arena);
    doc.truncated |= truncated;
    doc
}

/// Elements whose content is text up to their end tag, as the own parser reads them.
const RAW_TEXT: [&str; 10] = [
    "script",
    "style",
    "title",
    "textarea",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "plaintext",
];

/// `input` with the bodies of `<style>` elements and of `<script>` elements that are not JSON
/// removed (their tags kept). Tags are read the way the own parser's tokenizer reads them:
/// comments, `<!…>`, `<?…>` and end tags skipped, quoted attribute values skipped, and the
/// content of every raw-text element (`<title>`, `<textarea>`, `<noscript>` ...) skipped up to
/// its end tag, so a `<script>` in a title or an attribute is not one.
fn drop_raw_bodies(input: &str) -> Cow<'_, str> {
    let b = input.as_bytes();
    let n = b.len();
    let mut out = String::new();
    let mut copied = 0;
    let mut pos = 0;
    let to_gt = |from: usize| memchr::memchr(b'>', &b[from..]).map_or(n, |i| from + i + 1);
    while let Some(off) = memchr::memchr(b'<', &b[pos..]) {
        pos += off + 1;
        if pos >= n {
            break;
        }
        let c = b[pos];
        if b[pos..].starts_with(b"!--") {
            let body = pos + 3;
            pos = if b[body..].starts_with(b">") {
                body + 1
            } else if b[body..].starts_with(b"->") {
                body + 2
            } else {
                memchr::memmem::find(&b[body..], b"-->").map_or(n, |i| body + i + 3)
            };
            continue;
        }
        if matches!(c, b'!' | b'?' | b'/') {
            pos = to_gt(pos);
            continue;
        }
        if !c.is_ascii_alphabetic() {
            continue;
        }
        let mut e = pos;
        while e < n && !matches!(b[e], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>') {
            e += 1;
        }
        let tag_end = start_tag_end(b, e);
        let name = &b[pos..e];
        pos = tag_end;
        let Some(raw) = RAW_TEXT
            .iter()
            .find(|r| name.eq_ignore_ascii_case(r.as_bytes()))
        else {
            continue;
        };
        if *raw == "plaintext" {
            break;
        }
        let Some((close, _)) = super::parser::find_end_tag(b, tag_end, raw) else {
            break;
        };
        let json = || {
            b[tag_end.min(e)..tag_end]
                .to_ascii_lowercase()
                .windows(4)
                .any(|w| w == b"json")
        };
        let drop = *raw == "style" || (*raw == "script" && !json());
        if drop && close > tag_end {
            out.push_str(&input[copied..tag_end]);
            copied = close;
        }
        pos = close;
    }
    if copied == 0 {
        return Cow::Borrowed(input);
    }
    out.push_str(&input[copied..]);
    Cow::Owned(out)
}

/// The position after the `>` that ends a start tag whose attributes begin at `from`.
fn start_tag_end(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'>' => return i + 1,
            b'=' => {
                i += 1;
                while i < b.len() && b[i].is_ascii_whitespace() {
                    i += 1;
                }
                if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                    let q = b[i];
                    i = memchr::memchr(q, &b[i + 1..]).map_or(b.len(), |j| i + 1 + j + 1);
                    continue;
                }
            }
            _ => i += 1,
        }
    }
    b.len()
}

/// Whether text under an element named `name` (with attributes `attrs`) is kept.
fn keeps_text(tag: Tag, attrs: &[Attribute]) -> bool {
    match tag {
        Tag::Script => attrs
            .iter()
            .any(|a| &*a.name.local == "type" && a.value.to_ascii_lowercase().contains("json")),
        Tag::Style | Tag::Noscript | Tag::Iframe | Tag::Noembed | Tag::Noframes => false,
        _ => true,
    }
}

struct Out {
    doc: Document,
}

impl Out {
    fn append(&mut self, parent: NodeId, data: NodeData) -> Option<NodeId> {
        if self.doc.nodes.len() >= MAX_NODES {
            self.doc.truncated = true;
            return None;
        }
        let nodes = &mut self.doc.nodes;
        let id = nodes.len() as NodeId;
        let prev = nodes[parent as usize].last_child;
        nodes.push(Node {
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            prev_sibling: prev,
            data,
        });
        if prev == NONE {
            nodes[parent as usize].first_child = id;
        } else {
            nodes[prev as usize].next_sibling = id;
        }
        nodes[parent as usize].last_child = id;
        Some(id)
    }

    fn text(&mut self, parent: NodeId, text: &str) {
        if text.is_empty() {
            return;
        }
        let last = self.doc.nodes[parent as usize].last_child;
        if last != NONE {
            if let NodeData::Text(span) = self.doc.nodes[last as usize].data {
                let buf = &mut self.doc.buf;
                if (span.start + span.len) as usize != buf.len() {
                    let old = span.start as usize..(span.start + span.len) as usize;
                    buf.extend_from_within(old);
                }
                let start = buf.len() as u32 - span.len;
                buf.push_str(text);
                let len = buf.len() as u32 - start;
                self.doc.nodes[last as usize].data = NodeData::Text(Span { start, len });
                return;
            }
        }
        let start = self.doc.buf.len() as u32;
        self.doc.buf.push_str(text);
        let len = self.doc.buf.len() as u32 - start;
        self.append(parent, NodeData::Text(Span { start, len }));
    }

    fn string(&mut self, s: &str, lower: bool) -> Span {
        let start = self.doc.buf.len();
        self.doc.buf.push_str(s);
        if lower {
            self.doc.buf[start..].make_ascii_lowercase();
        }
        Span {
            start: start as u32,
            len: (self.doc.buf.len() - start) as u32,
        }
    }

    fn element(&mut self, parent: NodeId, name: &QualName, attrs: &[Attribute]) -> Option<NodeId> {
        let local: &str = &name.local;
        let lower = local.to_ascii_lowercase();
        let tag = Tag::from_name(&lower);
        let other_name = if tag == Tag::Other {
            self.string(&lower, false)
        } else {
            Span::default()
        };
        let attrs_start = self.doc.attrs.len() as u32;
        for a in attrs.iter().take(64) {
            let name = match &a.name.prefix {
                // `xlink:href`, `xml:lang`, as the own parser keeps them.
                Some(prefix) => self.string(&format!("{}:{}", &**prefix, &*a.name.local), true),
                None => self.string(&a.name.local, true),
            };
            let value = self.string(&a.value, false);
            self.doc.attrs.push(Attr { name, value });
        }
        let attrs_end = self.doc.attrs.len() as u32;
        self.append(
            parent,
            NodeData::Element(Element {
                tag,
                other_name,
                attrs_start,
                attrs_end,
            }),
        )
    }
}

/// Copies the scratch tree into a [`Document`] in document order (iteratively: any depth).
fn copy(arena: &Arena) -> Document {
    let mut out = Out {
        doc: Document {
            nodes: Vec::with_capacity(arena.nodes.len()),
            attrs: Vec::new(),
            buf: String::new(),
            truncated: false,
        },
    };
    out.doc.nodes.push(Node {
        parent: NONE,
        first_child: NONE,
        last_child: NONE,
        next_sibling: NONE,
        prev_sibling: NONE,
        data: NodeData::Document,
    });
    // (scratch node whose children come next, its copy, whether its text is kept, depth)
    let mut stack: Vec<(u32, NodeId, bool, usize)> = vec![(arena.nodes[0].first, 0, true, 0)];
    let mut tick = crate::interrupt::Ticker::new();
    while let Some(top) = stack.last_mut() {
        tick.tick();
        let id = top.0;
        if id == NONE {
            stack.pop();
            continue;
        }
        let (parent, keep, depth) = (top.1, top.2, top.3);
        let node = &arena.nodes[id as usize];
        top.0 = node.next;
        match &node.data {
            Scratch::Text(t) if keep => out.text(parent, t),
            Scratch::Element(name, attrs) => {
                let Some(copy) = out.element(parent, name, attrs) else {
                    break;
                };
                let tag = out.doc.tag(copy).unwrap_or(Tag::Other);
                let keep = keep && keeps_text(tag, attrs);
                if node.first != NONE {
                    if depth + 1 >= MAX_DEPTH {
                        // Too deep: its children go to its parent's level, as in the own parser.
                        out.doc.truncated = true;
                        stack.push((node.first, parent, keep, depth));
                    } else {
                        stack.push((node.first, copy, keep, depth + 1));
                    }
                }
            }
            _ => {}
        }
        if out.doc.nodes.len() >= MAX_NODES {
            out.doc.truncated = true;
            break;
        }
    }
    out.doc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(doc: &Document, id: NodeId, out: &mut String) {
        match &doc.node(id).data {
            NodeData::Document => {}
            NodeData::Text(_) => out.push_str(&format!("\"{}\"", doc.text(id).unwrap())),
            NodeData::Element(_) => out.push_str(doc.name(id)),
        }
        let kids: Vec<_> = doc.children(id).collect();
        if !kids.is_empty() {
            out.push('(');
            for (i, k) in kids.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                outline(doc, *k, out);
            }
            out.push(')');
        }
    }

    fn tree(html: &str) -> String {
        let doc = parse(html);
        let mut s = String::new();
        outline(&doc, Document::ROOT, &mut s);
        s
    }

    #[test]
    fn spec_tree_with_the_own_parsers_conventions() {
        assert_eq!(
            tree("<p>a<!-- c -->b<p>c<script>x</script><style>y</style><noscript>z</noscript>"),
            "(html(head body(p(\"ab\") p(\"c\" script style noscript))))"
        );
        // Foster parenting: text misplaced in a table goes before it.
        assert_eq!(
            tree("<body><table>lost<tr><td>a</table>"),
            "(html(head body(\"lost\" table(tbody(tr(td(\"a\")))))))"
        );
        // The adoption agency: misnested formatting.
        assert_eq!(
            tree("<body><b>1<p>2</b>3</p>"),
            "(html(head body(b(\"1\") p(b(\"2\") \"3\"))))"
        );
        let doc = parse("<body><script type=application/ld+json>{\"a\":1}</script><template><p>t</p></template><P CLASS=x data-Q=1>&amp;</P>");
        let p = doc.find_all(Tag::P).last().unwrap();
        assert_eq!(doc.attr(p, "class"), Some("x"));
        assert_eq!(doc.attr(p, "data-q"), Some("1"));
        assert_eq!(doc.text_content(p), "&");
        let s = doc.find(Tag::Script).unwrap();
        assert_eq!(doc.text_content(s), "{\"a\":1}");
        let t = doc.find(Tag::Template).unwrap();
        assert_eq!(doc.text_content(t), "t");
    }

    #[test]
    fn raw_bodies_are_cut_out_before_parsing() {
        assert_eq!(
            drop_raw_bodies("<p>a<SCRIPT src='x>y'>if (a<b) {}</script ><style>p{}</style>b"),
            "<p>a<SCRIPT src='x>y'></script ><style></style>b"
        );
        let json = "<script type=\"application/ld+json\">{\"a\":1}</script>";
        assert_eq!(drop_raw_bodies(json), json);
        assert_eq!(
            drop_raw_bodies("<!-- <script> --><p>kept</p><scripts>x</scripts>"),
            "<!-- <script> --><p>kept</p><scripts>x</scripts>"
        );
        assert_eq!(drop_raw_bodies("<script>unclosed"), "<script>unclosed");
        // A `<script>` or `<style>` in a title, an attribute or a textarea is not one.
        for kept in [
            "<title>The <style> element</title><p>Body</p>",
            "<a title=\"<script>\">Read</a><p>Text</p>",
            "<textarea><script>x</textarea><p>y</p>",
        ] {
            assert_eq!(drop_raw_bodies(kept), kept);
        }
        assert_eq!(
            drop_raw_bodies("<title>The <style> element</title><p>B</p><style>p{}</style>"),
            "<title>The <style> element</title><p>B</p><style></style>"
        );
        assert_eq!(
            tree("<body><script>document.write('<p>no</p>')</script><p>yes"),
            "(html(head body(script p(\"yes\"))))"
        );
    }

    #[test]
    fn subtrees_are_contiguous_and_limits_hold() {
        let doc = parse("<table><tr><td>a<div>b</table>c<b>d<i>e</b>f</i>");
        for id in 0..doc.nodes.len() as NodeId {
            for k in doc.children(id) {
                assert!(k > id && k < doc.subtree_end(id));
            }
        }
        let deep = "<div>".repeat(2_000) + "x";
        let doc = parse(&deep);
        assert!(doc.truncated);
        assert!(doc.text_content(0).contains('x'));
        for garbage in [
            "<",
            "</",
            "<!",
            "<!--",
            "<a b='",
            "&#",
            "<x/><//><<>>",
            "\u{0}<\u{1F600}>",
        ] {
            let _ = parse(garbage);
        }
    }
}

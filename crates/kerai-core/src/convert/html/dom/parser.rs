//! Tokenizer and tree builder (see the module docs of `dom` for what is and is not done).

use super::entities::decode_into;
use super::{
    Attr, Document, Element, Node, NodeData, NodeId, Span, Tag, MAX_DEPTH, MAX_INPUT_BYTES,
    MAX_NODES, NONE,
};

/// Parses `input` into a [`Document`]. Never fails: any byte sequence gives some tree.
/// U+0000 characters are dropped, as HTML5 tree construction ignores them in text (so no text
/// of the document holds one: Postgres text cannot).
pub fn parse(input: &str) -> Document {
    parse_checked(input).0
}

/// [`parse`], and whether the page holds markup that the HTML5 tree builder repairs and this
/// parser does not: a formatting element (`<b>`, `<a>`, `<font>` ...) closed while another
/// element opened inside it is still open (the adoption agency), or text or an element other
/// than a table part placed directly in a table (foster parenting).
pub fn parse_checked(input: &str) -> (Document, bool) {
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
    let mut b = Builder::new(input.len());
    b.run(input);
    let repairable = b.repairable;
    let mut doc = b.finish();
    doc.truncated |= truncated;
    (doc, repairable)
}

struct Builder {
    nodes: Vec<Node>,
    attrs: Vec<Attr>,
    buf: String,
    /// Lower-cased name of the tag being read.
    name: String,
    /// Open elements (ids) and their tags, bottom first; the document node is not in it.
    stack: Vec<(NodeId, Tag)>,
    html: NodeId,
    head: NodeId,
    body: NodeId,
    /// Open `<svg>`/`<math>` elements (self-closing `/>` is honoured inside them).
    foreign: usize,
    truncated: bool,
    /// Markup the HTML5 tree builder would repair was seen (see [`parse_checked`]).
    repairable: bool,
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

impl Builder {
    fn new(len: usize) -> Self {
        let mut nodes = Vec::with_capacity(len / 40 + 16);
        nodes.push(Node {
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            prev_sibling: NONE,
            data: NodeData::Document,
        });
        Builder {
            nodes,
            attrs: Vec::with_capacity(len / 60 + 16),
            buf: String::with_capacity(len / 3 + 16),
            name: String::new(),
            stack: Vec::with_capacity(64),
            html: NONE,
            head: NONE,
            body: NONE,
            foreign: 0,
            truncated: false,
            repairable: false,
        }
    }

    fn finish(self) -> Document {
        Document {
            nodes: self.nodes,
            attrs: self.attrs,
            buf: self.buf,
            truncated: self.truncated,
        }
    }

    fn current(&self) -> NodeId {
        self.stack.last().map_or(Document::ROOT, |s| s.0)
    }

    fn append(&mut self, parent: NodeId, data: NodeData) -> Option<NodeId> {
        if self.nodes.len() >= MAX_NODES {
            self.truncated = true;
            return None;
        }
        let id = self.nodes.len() as NodeId;
        let prev = self.nodes[parent as usize].last_child;
        self.nodes.push(Node {
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            prev_sibling: prev,
            data,
        });
        if prev == NONE {
            self.nodes[parent as usize].first_child = id;
        } else {
            self.nodes[prev as usize].next_sibling = id;
        }
        self.nodes[parent as usize].last_child = id;
        Some(id)
    }

    fn push_str(&mut self, text: &str, decode: bool) {
        if decode {
            decode_into(text, &mut self.buf, false);
        } else {
            self.buf.push_str(text);
        }
    }

    fn add_text(&mut self, text: &str, decode: bool) {
        if text.is_empty() {
            return;
        }
        if !self.repairable
            && self.stack.last().is_some_and(|s| in_table_body(s.1))
            && !text.bytes().all(is_ws)
        {
            self.repairable = true;
        }
        let parent = self.current();
        let last = self.nodes[parent as usize].last_child;
        if last != NONE {
            if let NodeData::Text(span) = self.nodes[last as usize].data {
                if (span.start + span.len) as usize != self.buf.len() {
                    // Not at the end of the buffer: move the old text there first.
                    let old = span.start as usize..(span.start + span.len) as usize;
                    self.buf.extend_from_within(old);
                }
                let start = self.buf.len() as u32 - span.len;
                self.push_str(text, decode);
                let len = self.buf.len() as u32 - start;
                self.nodes[last as usize].data = NodeData::Text(Span { start, len });
                return;
            }
        }
        let start = self.buf.len() as u32;
        self.push_str(text, decode);
        let len = self.buf.len() as u32 - start;
        self.append(parent, NodeData::Text(Span { start, len }));
    }

    fn pop(&mut self) {
        if let Some((_, tag)) = self.stack.pop() {
            if matches!(tag, Tag::Svg | Tag::Math) {
                self.foreign = self.foreign.saturating_sub(1);
            }
        }
    }

    fn pop_to(&mut self, index: usize) {
        while self.stack.len() > index {
            self.pop();
        }
    }

    /// Stack index of the nearest open `tag` above any element for which `stop` holds.
    fn find_open(&self, tag: Tag, name: &str, stop: impl Fn(Tag) -> bool) -> Option<usize> {
        for i in (0..self.stack.len()).rev() {
            let (id, t) = self.stack[i];
            if t == tag && (tag != Tag::Other || self.element_name(id) == name) {
                return Some(i);
            }
            if stop(t) {
                return None;
            }
        }
        None
    }

    fn element_name(&self, id: NodeId) -> &str {
        match &self.nodes[id as usize].data {
            NodeData::Element(e) if e.tag == Tag::Other => {
                &self.buf
                    [e.other_name.start as usize..(e.other_name.start + e.other_name.len) as usize]
            }
            NodeData::Element(e) => e.tag.name(),
            _ => "",
        }
    }

    fn attr_value(&self, id: NodeId, name: &str) -> Option<&str> {
        let NodeData::Element(e) = &self.nodes[id as usize].data else {
            return None;
        };
        let span = |s: Span| &self.buf[s.start as usize..(s.start + s.len) as usize];
        self.attrs[e.attrs_start as usize..e.attrs_end as usize]
            .iter()
            .find(|a| span(a.name) == name)
            .map(|a| span(a.value))
    }

    fn close_if_open(&mut self, tag: Tag, stop: impl Fn(Tag) -> bool) {
        if let Some(i) = self.find_open(tag, "", stop) {
            self.pop_to(i);
        }
    }

    /// Adds the attributes `attrs_start..` (just read) to an existing element that has
    /// none of that name. Attributes are stored per element contiguously, so the merged
    /// list is copied to the end.
    fn merge_attrs(&mut self, id: NodeId, attrs_start: u32) {
        let NodeData::Element(e) = self.nodes[id as usize].data else {
            return;
        };
        let new: Vec<Attr> = self.attrs[attrs_start as usize..].to_vec();
        self.attrs.truncate(attrs_start as usize);
        let mut merged: Vec<Attr> =
            self.attrs[e.attrs_start as usize..e.attrs_end as usize].to_vec();
        for a in new {
            let name = &self.buf[a.name.start as usize..(a.name.start + a.name.len) as usize];
            if self.attr_value(id, name).is_none() {
                merged.push(a);
            }
        }
        let start = self.attrs.len() as u32;
        self.attrs.extend(merged);
        let end = self.attrs.len() as u32;
        if let NodeData::Element(e) = &mut self.nodes[id as usize].data {
            e.attrs_start = start;
            e.attrs_end = end;
        }
    }

    /// Handles a start tag whose attributes are `attrs_start..` of `self.attrs`; returns the
    /// id of the element when it was pushed on the open stack.
    fn start_tag(
        &mut self,
        tag: Tag,
        other_name: Span,
        attrs_start: u32,
        self_closing: bool,
    ) -> Option<NodeId> {
        match tag {
            Tag::Html if self.html != NONE => {
                self.merge_attrs(self.html, attrs_start);
                return None;
            }
            Tag::Body | Tag::Frameset if self.body != NONE => {
                self.merge_attrs(self.body, attrs_start);
                return None;
            }
            Tag::Body | Tag::Frameset if self.head != NONE => {
                self.close_if_open(Tag::Head, |_| false);
            }
            Tag::Head if self.head != NONE || self.body != NONE => {
                self.attrs.truncate(attrs_start as usize);
                return None;
            }
            _ => {}
        }
        if !self.repairable
            && self.foreign == 0
            && self.stack.last().is_some_and(|s| in_table_body(s.1))
            && !matches!(
                tag,
                Tag::Caption
                    | Tag::Colgroup
                    | Tag::Col
                    | Tag::Tbody
                    | Tag::Thead
                    | Tag::Tfoot
                    | Tag::Tr
                    | Tag::Td
                    | Tag::Th
                    | Tag::Script
                    | Tag::Style
                    | Tag::Template
                    | Tag::Input
                    | Tag::Form
            )
        {
            self.repairable = true;
        }
        if tag.closes_p() {
            self.close_if_open(Tag::P, is_button_scope);
        }
        match tag {
            Tag::Li => self.close_if_open(Tag::Li, stops_li),
            Tag::Dd | Tag::Dt => {
                if let Some(i) = (0..self.stack.len())
                    .rev()
                    .take_while(|&i| {
                        !stops_li(self.stack[i].1) || matches!(self.stack[i].1, Tag::Dd | Tag::Dt)
                    })
                    .find(|&i| matches!(self.stack[i].1, Tag::Dd | Tag::Dt))
                {
                    self.pop_to(i);
                }
            }
            Tag::H1 | Tag::H2 | Tag::H3 | Tag::H4 | Tag::H5 | Tag::H6
                if self
                    .stack
                    .last()
                    .is_some_and(|s| s.1.heading_level().is_some()) =>
            {
                self.pop();
            }
            Tag::A => self.close_if_open(Tag::A, |t| t.is_scope_boundary()),
            // A button inside an open button closes it (outside HTML, `<![CDATA[` is a comment
            // that ends at the next `>`, like any `<!…>`).
            Tag::Button => {
                self.close_if_open(Tag::Button, |t| t != Tag::Button && t.is_scope_boundary())
            }
            Tag::Tr => {
                self.close_cells();
                self.close_if_open(Tag::Tr, |t| t == Tag::Table);
            }
            Tag::Td | Tag::Th => self.close_cells(),
            Tag::Tbody | Tag::Thead | Tag::Tfoot => {
                self.close_cells();
                self.close_if_open(Tag::Tr, |t| t == Tag::Table);
                for t in [Tag::Tbody, Tag::Thead, Tag::Tfoot] {
                    self.close_if_open(t, |t| t == Tag::Table);
                }
            }
            Tag::Option if self.stack.last().is_some_and(|s| s.1 == Tag::Option) => self.pop(),
            Tag::Optgroup => {
                while self
                    .stack
                    .last()
                    .is_some_and(|s| matches!(s.1, Tag::Option | Tag::Optgroup))
                {
                    self.pop();
                }
            }
            Tag::Caption => self.close_cells(),
            _ => {}
        }
        let parent = match tag {
            Tag::Html => Document::ROOT,
            Tag::Head | Tag::Body | Tag::Frameset if self.html != NONE => self.html,
            _ => self.current(),
        };
        let attrs_end = self.attrs.len() as u32;
        let data = NodeData::Element(Element {
            tag,
            other_name,
            attrs_start,
            attrs_end,
        });
        let id = self.append(parent, data)?;
        match tag {
            Tag::Html => self.html = id,
            Tag::Head => self.head = id,
            Tag::Body | Tag::Frameset => self.body = id,
            _ => {}
        }
        let closes_itself = tag.is_void()
            || (self_closing && (self.foreign > 0 || tag == Tag::Svg || tag == Tag::Math));
        if closes_itself {
            return None;
        }
        if self.stack.len() >= MAX_DEPTH {
            self.truncated = true;
            return None;
        }
        if matches!(tag, Tag::Body | Tag::Frameset) {
            // The body sits under <html>, whatever else is open.
            let keep = self
                .stack
                .iter()
                .position(|s| s.0 == self.html)
                .map_or(0, |i| i + 1);
            self.pop_to(keep);
        }
        if matches!(tag, Tag::Svg | Tag::Math) {
            self.foreign += 1;
        }
        self.stack.push((id, tag));
        Some(id)
    }

    fn close_cells(&mut self) {
        if let Some(i) = (0..self.stack.len())
            .rev()
            .take_while(|&i| {
                !matches!(self.stack[i].1, Tag::Table | Tag::Tr)
                    || matches!(self.stack[i].1, Tag::Td | Tag::Th)
            })
            .find(|&i| matches!(self.stack[i].1, Tag::Td | Tag::Th | Tag::Caption))
        {
            self.pop_to(i);
        }
    }

    fn end_tag(&mut self, tag: Tag, name: &str) {
        match tag {
            Tag::Html | Tag::Body => return,
            Tag::Br => {
                let at = self.attrs.len() as u32;
                self.start_tag(Tag::Br, Span::default(), at, false);
                return;
            }
            _ => {}
        }
        if !self.repairable
            && tag.is_formatting()
            && self.stack.last().is_some_and(|s| s.1 != tag)
            && self.stack.iter().any(|s| s.1 == tag)
        {
            self.repairable = true;
        }
        let special = tag.is_block() || tag.is_scope_boundary() || matches!(tag, Tag::Head);
        let found = if tag == Tag::P {
            self.find_open(tag, name, is_button_scope)
        } else if tag == Tag::Li {
            self.find_open(tag, name, stops_li)
        } else if special {
            // "In scope": a `<button>` (a boundary only for `<p>`) does not stop it.
            self.find_open(tag, name, |t| {
                t.is_scope_boundary() && t != tag && t != Tag::Button
            })
        } else {
            // "Any other end tag": do not close across a special (block) element.
            self.find_open(tag, name, |t| {
                t != tag && (t.is_block() || t.is_scope_boundary())
            })
        };
        if let Some(i) = found {
            self.pop_to(i);
        }
    }

    fn run(&mut self, s: &str) {
        let b = s.as_bytes();
        let n = b.len();
        let mut pos = 0;
        let mut text_start = 0;
        let mut tick = crate::interrupt::Ticker::new();
        while pos < n {
            tick.tick();
            let Some(off) = memchr::memchr(b'<', &b[pos..]) else {
                break;
            };
            let lt = pos + off;
            pos = lt + 1;
            if pos >= n {
                break;
            }
            let c = b[pos];
            if c == b'!' {
                self.add_text(&s[text_start..lt], true);
                if b[pos..].starts_with(b"!--") {
                    let body = pos + 3;
                    // `<!-->` and `<!--->` are empty comments.
                    pos = if b[body..].starts_with(b">") {
                        body + 1
                    } else if b[body..].starts_with(b"->") {
                        body + 2
                    } else {
                        memchr::memmem::find(&b[body..], b"-->").map_or(n, |i| body + i + 3)
                    };
                } else if self.foreign > 0 && b[pos..].starts_with(b"![CDATA[") {
                    let body = pos + 8;
                    let end = memchr::memmem::find(&b[body..], b"]]>").map_or(n, |i| body + i);
                    self.add_text(&s[body..end], false);
                    pos = (end + 3).min(n);
                } else {
                    pos = memchr::memchr(b'>', &b[pos..]).map_or(n, |i| pos + i + 1);
                }
                text_start = pos;
            } else if c == b'?' {
                self.add_text(&s[text_start..lt], true);
                pos = memchr::memchr(b'>', &b[pos..]).map_or(n, |i| pos + i + 1);
                text_start = pos;
            } else if c == b'/' {
                let name_start = pos + 1;
                if name_start < n && b[name_start].is_ascii_alphabetic() {
                    self.add_text(&s[text_start..lt], true);
                    let mut e = name_start;
                    while e < n && !is_ws(b[e]) && b[e] != b'/' && b[e] != b'>' {
                        e += 1;
                    }
                    let name = lower(&mut self.name, &s[name_start..e]);
                    let tag = Tag::from_name(&name);
                    pos = memchr::memchr(b'>', &b[e..]).map_or(n, |i| e + i + 1);
                    text_start = pos;
                    self.end_tag(tag, &name);
                    self.name = name;
                } else if name_start < n && b[name_start] == b'>' {
                    self.add_text(&s[text_start..lt], true);
                    pos = name_start + 1;
                    text_start = pos;
                } else if name_start < n {
                    self.add_text(&s[text_start..lt], true);
                    pos = memchr::memchr(b'>', &b[pos..]).map_or(n, |i| pos + i + 1);
                    text_start = pos;
                }
            } else if c.is_ascii_alphabetic() {
                self.add_text(&s[text_start..lt], true);
                let (tag, other_name, attrs_start, self_closing, end) = self.read_start_tag(s, pos);
                pos = end;
                text_start = pos;
                let pushed = self.start_tag(tag, other_name, attrs_start, self_closing);
                if tag.is_raw_text() {
                    let close = if tag == Tag::Plaintext {
                        None
                    } else {
                        find_end_tag(b, pos, tag.name())
                    };
                    let (text_end, after) = close.unwrap_or((n, n));
                    if let Some(id) = pushed {
                        let keep = match tag {
                            Tag::Script => self
                                .attr_value(id, "type")
                                .is_some_and(|t| t.to_ascii_lowercase().contains("json")),
                            Tag::Style
                            | Tag::Noscript
                            | Tag::Iframe
                            | Tag::Noembed
                            | Tag::Noframes => false,
                            _ => true,
                        };
                        if keep {
                            self.add_text(&s[pos..text_end], tag.decodes_entities());
                        }
                        self.pop();
                    }
                    pos = after;
                    text_start = pos;
                } else if matches!(tag, Tag::Pre | Tag::Textarea) {
                    // A newline right after <pre> is not content.
                    if b.get(pos) == Some(&b'\n') {
                        pos += 1;
                    } else if b[pos..].starts_with(b"\r\n") {
                        pos += 2;
                    }
                    text_start = pos;
                }
            }
            if self.truncated && self.nodes.len() >= MAX_NODES {
                return;
            }
        }
        self.add_text(&s[text_start..], true);
    }
}

/// Table elements in which only table parts may sit (others are foster-parented).
fn in_table_body(t: Tag) -> bool {
    matches!(
        t,
        Tag::Table | Tag::Tbody | Tag::Thead | Tag::Tfoot | Tag::Tr
    )
}

/// Elements that stop the search for an open `<p>` (button scope).
fn is_button_scope(t: Tag) -> bool {
    t.is_scope_boundary()
}

/// Elements that stop the search for an open `<li>` (or `<dd>`/`<dt>`).
fn stops_li(t: Tag) -> bool {
    matches!(
        t,
        Tag::Ul
            | Tag::Ol
            | Tag::Menu
            | Tag::Dl
            | Tag::Dir
            | Tag::Table
            | Tag::Td
            | Tag::Th
            | Tag::Body
            | Tag::Html
    ) || t.is_scope_boundary()
}

/// Finds `</name` (ASCII case-insensitive, followed by space, `/` or `>`) from `from`;
/// returns (start of the end tag, position after its `>`).
pub(super) fn find_end_tag(b: &[u8], from: usize, name: &str) -> Option<(usize, usize)> {
    let nb = name.as_bytes();
    let mut i = from;
    while let Some(off) = memchr::memmem::find(&b[i..], b"</") {
        let at = i + off;
        let ns = at + 2;
        let ne = ns + nb.len();
        if ne <= b.len()
            && b[ns..ne].eq_ignore_ascii_case(nb)
            && (ne == b.len() || is_ws(b[ne]) || b[ne] == b'/' || b[ne] == b'>')
        {
            let after = memchr::memchr(b'>', &b[ne..]).map_or(b.len(), |j| ne + j + 1);
            return Some((at, after));
        }
        i = at + 2;
    }
    None
}

/// `s` lower-cased into `scratch` (reused), returned by value so the caller can put it back.
fn lower(scratch: &mut String, s: &str) -> String {
    let mut out = std::mem::take(scratch);
    out.clear();
    out.push_str(s);
    out.make_ascii_lowercase();
    out
}

impl Builder {
    /// Reads a start tag whose name begins at `pos`, storing its attributes at the end of
    /// `self.attrs`; returns the tag, its name span (for unknown tags), the index of its
    /// first attribute, whether it ended with `/>`, and the position after `>`.
    fn read_start_tag(&mut self, s: &str, pos: usize) -> (Tag, Span, u32, bool, usize) {
        let b = s.as_bytes();
        let n = b.len();
        let mut e = pos;
        while e < n && !is_ws(b[e]) && b[e] != b'/' && b[e] != b'>' {
            e += 1;
        }
        let name = lower(&mut self.name, &s[pos..e]);
        let tag = Tag::from_name(&name);
        let mut other_name = Span::default();
        if tag == Tag::Other {
            let start = self.buf.len() as u32;
            self.buf.push_str(&name);
            other_name = Span {
                start,
                len: name.len() as u32,
            };
        }
        self.name = name;
        let attrs_start = self.attrs.len() as u32;
        let mut i = e;
        let mut self_closing = false;
        loop {
            while i < n && (is_ws(b[i]) || b[i] == b'/') {
                self_closing = b[i] == b'/';
                i += 1;
            }
            if i >= n {
                return (tag, other_name, attrs_start, self_closing, n);
            }
            if b[i] == b'>' {
                return (tag, other_name, attrs_start, self_closing, i + 1);
            }
            self_closing = false;
            let ns = i;
            i += 1;
            while i < n && !is_ws(b[i]) && b[i] != b'/' && b[i] != b'>' && b[i] != b'=' {
                i += 1;
            }
            let name_start = self.buf.len();
            self.buf.push_str(&s[ns..i]);
            self.buf[name_start..].make_ascii_lowercase();
            let name_span = Span {
                start: name_start as u32,
                len: (i - ns) as u32,
            };
            while i < n && is_ws(b[i]) {
                i += 1;
            }
            let value_start = self.buf.len();
            if i < n && b[i] == b'=' {
                i += 1;
                while i < n && is_ws(b[i]) {
                    i += 1;
                }
                if i < n && (b[i] == b'"' || b[i] == b'\'') {
                    let q = b[i];
                    let vs = i + 1;
                    let ve = memchr::memchr(q, &b[vs..]).map_or(n, |j| vs + j);
                    decode_into(&s[vs..ve], &mut self.buf, true);
                    i = (ve + 1).min(n);
                } else {
                    let vs = i;
                    while i < n && !is_ws(b[i]) && b[i] != b'>' {
                        i += 1;
                    }
                    decode_into(&s[vs..i], &mut self.buf, true);
                }
            }
            let value_span = Span {
                start: value_start as u32,
                len: (self.buf.len() - value_start) as u32,
            };
            let count = self.attrs.len() - attrs_start as usize;
            let dup = {
                let nm =
                    &self.buf[name_start..name_start + (i - ns).min(self.buf.len() - name_start)];
                let nm = &nm[..name_span.len as usize];
                self.attrs[attrs_start as usize..].iter().any(|a| {
                    &self.buf[a.name.start as usize..(a.name.start + a.name.len) as usize] == nm
                })
            };
            if count < 64 && !dup {
                self.attrs.push(Attr {
                    name: name_span,
                    value: value_span,
                });
            } else {
                self.buf.truncate(name_start);
            }
        }
    }
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
    fn implied_end_tags() {
        assert_eq!(
            tree("<p>a<p>b<div>c</div>"),
            "(p(\"a\") p(\"b\") div(\"c\"))"
        );
        assert_eq!(tree("<ul><li>a<li>b</ul>"), "(ul(li(\"a\") li(\"b\")))");
        assert_eq!(
            tree("<table><tr><td>a<td>b<tr><td>c</table>"),
            "(table(tr(td(\"a\") td(\"b\")) tr(td(\"c\"))))"
        );
        assert_eq!(
            tree("<dl><dt>a<dd>b<dt>c</dl>"),
            "(dl(dt(\"a\") dd(\"b\") dt(\"c\")))"
        );
        assert_eq!(tree("<a href=x>a<a>b"), "(a(\"a\") a(\"b\"))");
    }

    #[test]
    fn raw_text_comments_and_attributes() {
        let doc = parse("<script type=\"application/ld+json\">if (a<b) {}</script><script>x</script><style>p{}</style><!-- c --><p class=\"x &amp; y\" id=z data-q='1'>t&amp;u</p>");
        let p = doc.find(Tag::P).unwrap();
        assert_eq!(doc.attr(p, "class"), Some("x & y"));
        assert_eq!(doc.attr(p, "id"), Some("z"));
        assert_eq!(doc.attr(p, "data-q"), Some("1"));
        assert_eq!(doc.text_content(p), "t&u");
        let s = doc.find(Tag::Script).unwrap();
        assert_eq!(doc.text_content(s), "if (a<b) {}");
        assert_eq!(
            tree("<!DOCTYPE html><html lang=en><body>x</body></html>after"),
            "(html(body(\"xafter\")))"
        );
    }

    #[test]
    fn end_tags_stay_in_scope() {
        assert_eq!(tree("<div><span>a</div>b"), "(div(span(\"a\")) \"b\")");
        assert_eq!(tree("<div><p>a</span>b</p></div>"), "(div(p(\"ab\")))");
        assert_eq!(
            tree("<svg><path d=\"x\"/><g>t</g></svg><p>x"),
            "(svg(path g(\"t\")) p(\"x\"))"
        );
        assert_eq!(
            tree("<![CDATA[ c ]]><p>a</p><svg><![CDATA[b]]></svg><![CDATA[<p>d"),
            "(p(\"a\") svg(\"b\") \"d\")"
        );
        assert_eq!(
            tree("<button>menu<div>x</div><button>b</button>"),
            "(button(\"menu\" div(\"x\")) button(\"b\"))"
        );
        assert_eq!(
            tree("<div><button>open</div><p>after"),
            "(div(button(\"open\")) p(\"after\"))"
        );
        assert_eq!(tree("<pre>\nline</pre>"), "(pre(\"line\"))");
    }

    #[test]
    fn markup_the_spec_repairs_is_flagged() {
        for (html, repairable) in [
            (
                "<p><b>a</b> <i>b</i></p><table><tr><td>c</td></tr></table>",
                false,
            ),
            ("<b>a<i>b</b>c</i>", true),
            ("<a href=x><div>a</a></div>", true),
            ("<table> <tr><td>a</td></tr></table>", false),
            ("<table>lost<tr><td>a</td></tr></table>", true),
            ("<table><tr><div>lost</div><td>a</td></tr></table>", true),
        ] {
            assert_eq!(parse_checked(html).1, repairable, "{html}");
        }
    }

    #[test]
    fn limits_hold() {
        let deep = "<div>".repeat(100_000) + "x";
        let doc = parse(&deep);
        assert!(doc.truncated);
        assert!(doc.nodes.len() > MAX_DEPTH);
        for garbage in [
            "<",
            "</",
            "<!",
            "<!--",
            "<a b='",
            "<a b=",
            "&#",
            "<x/><//><<>>",
            "\u{0}\u{ff}<\u{1F600}>",
        ] {
            let _ = parse(garbage);
        }
    }

    #[test]
    fn nul_characters_are_dropped() {
        assert_eq!(
            tree("<p title=\"a\u{0}b\">x\u{0}\u{0}y &#0;</p>\u{0}<b\u{0}>z</b>"),
            "(p(\"xy \u{FFFD}\") b(\"z\"))"
        );
        let doc = parse("<p title=\"a\u{0}b\">x</p>");
        let p = doc.find(Tag::P).unwrap();
        assert_eq!(doc.attr(p, "title"), Some("ab"));
    }
}

//! Block typing: the whole page cut into headings, paragraphs, list items, tables, code and
//! quotes, each with its nearest heading, heading path and section type (hero, navigation,
//! content, sidebar, footer, other). Blocks under the main-content roots that are not
//! boilerplate are marked `main`; they make the markdown.

use serde::{Deserialize, Serialize};

use super::analysis::Analysis;
use super::classify::Region;
use super::dom::{Document, NodeData, NodeId, Tag};
use super::inline::Inline;
use super::links::Resolver;

/// What a block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    /// `<h1>`..`<h6>`.
    Heading,
    /// A paragraph, or a run of text between blocks.
    Paragraph,
    /// A definition list (`<dl>`), as one block.
    List,
    /// One item of a `<ul>`/`<ol>` (nested lists give items of greater `list_depth`).
    ListItem,
    /// A data table (GFM table in markdown).
    Table,
    /// A `<pre>` block (fenced in markdown).
    Code,
    /// Text inside `<blockquote>`.
    Quote,
}

/// The part of the page a block lies in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionType {
    /// The page header / banner (logo, site name, hero text).
    Hero,
    /// Menus, breadcrumbs, pagination.
    Navigation,
    /// The main content.
    Content,
    /// `<aside>` and sidebars, widgets.
    Sidebar,
    /// The page footer.
    Footer,
    /// Anything else: comments, share bars, ads, teasers, text outside the main content.
    Other,
}

/// A block of the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// What the block is.
    pub kind: BlockKind,
    /// Plain text (whitespace collapsed; list items without marker; table cells joined by ` | `).
    pub text: String,
    /// The block as markdown (ATX heading, `- ` item, GFM table, fenced code, `> ` quote).
    pub markdown: String,
    /// The nearest heading before the block (for a heading, itself).
    pub heading: Option<String>,
    /// Texts of the enclosing headings, outermost first (H1 > H2 > ...).
    pub section_path: Vec<String>,
    /// Level of the nearest heading (1..6; 0 when there is none).
    pub depth: u8,
    /// The part of the page the block lies in.
    pub section_type: SectionType,
    /// Whether the block belongs to the main content.
    pub main: bool,
    /// The `id` of the nearest heading (or of its section), usable as a URL fragment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// Nesting level of a list item (0 for top-level items and non-list blocks).
    #[serde(default)]
    pub list_depth: u8,
    /// Items of the same list share a number (0 for non-list blocks).
    #[serde(default)]
    pub list_id: u32,
    /// Non-whitespace characters of the block, and how many of them are link text.
    #[serde(default)]
    pub chars: u32,
    /// ... and how many of them are link text (links to other resources).
    #[serde(default)]
    pub link_chars: u32,
    /// The element that produced the block.
    #[serde(skip)]
    pub node: NodeId,
}

fn section_of(r: Region) -> SectionType {
    match r {
        Region::Navigation => SectionType::Navigation,
        Region::Header => SectionType::Hero,
        Region::Footer => SectionType::Footer,
        Region::Sidebar => SectionType::Sidebar,
        _ => SectionType::Other,
    }
}

#[derive(Clone, Copy)]
struct Ctx {
    main: bool,
    section: SectionType,
    quote: bool,
    pre: bool,
    /// Depth of list nesting (0 outside lists).
    list_depth: u8,
}

#[derive(Clone)]
struct Heading {
    level: u8,
    text: String,
    anchor: Option<String>,
}

/// Cuts a page into blocks.
pub struct Segmenter<'a> {
    doc: &'a Document,
    an: &'a Analysis,
    is_root: Vec<bool>,
    resolver: &'a Resolver,
    /// The blocks made so far.
    pub blocks: Vec<Block>,
    inline: Inline,
    main_headings: Vec<Heading>,
    page_headings: Vec<Heading>,
    /// Kind of the block being built (set by `<li>`, headings, `<pre>`).
    pending: Option<Pending>,
    next_list: u32,
    /// Current list: id, ordered, next number.
    lists: Vec<(u32, bool, u32)>,
    block_node: NodeId,
    /// Roots of the main content, sorted.
    roots: Vec<NodeId>,
    /// Only the main content's text is wanted: skip subtrees outside it, write no link URLs
    /// (block markdown then lacks links).
    pub main_only: bool,
}

#[derive(Clone)]
enum Pending {
    Item {
        marker: String,
        depth: u8,
        list: u32,
    },
    Heading(u8),
}

impl<'a> Segmenter<'a> {
    /// A segmenter for `doc`; `roots` are the main-content roots.
    pub fn new(
        doc: &'a Document,
        an: &'a Analysis,
        roots: &[NodeId],
        resolver: &'a Resolver,
    ) -> Self {
        let mut is_root = vec![false; doc.nodes.len()];
        for &r in roots {
            is_root[r as usize] = true;
        }
        Segmenter {
            doc,
            an,
            is_root,
            resolver,
            blocks: Vec::new(),
            inline: Inline::default(),
            main_headings: Vec::new(),
            page_headings: Vec::new(),
            pending: None,
            next_list: 1,
            lists: Vec::new(),
            block_node: Document::ROOT,
            roots: {
                let mut r = roots.to_vec();
                r.sort_unstable();
                r
            },
            main_only: false,
        }
    }

    /// Seeds the heading path of main blocks with the page title (as level 1).
    pub fn seed_title(&mut self, title: &str) {
        self.main_headings.push(Heading {
            level: 1,
            text: title.to_string(),
            anchor: None,
        });
    }

    /// Segments the subtree of `root` (normally the document).
    pub fn run(&mut self, root: NodeId) {
        // A document without a `<body>` element (bare text) has the document itself as root.
        let main = self.is_root[root as usize];
        let ctx = Ctx {
            main,
            section: if main {
                SectionType::Content
            } else {
                SectionType::Other
            },
            quote: false,
            pre: false,
            list_depth: 0,
        };
        self.walk(root, ctx);
        self.flush(ctx);
    }

    fn flush(&mut self, ctx: Ctx) {
        if self.inline.is_empty() {
            self.pending = match self.pending.take() {
                Some(p @ Pending::Item { .. }) => Some(p),
                _ => None,
            };
            return;
        }
        let chars = self.inline.chars;
        let link_chars = self.inline.link_chars;
        let (text, md) = self.inline.take();
        if text.is_empty() {
            return;
        }
        let mut list_depth = 0;
        let mut list_id = 0;
        let (kind, markdown) = match self.pending.take() {
            Some(Pending::Heading(level)) => {
                let heading = Heading {
                    level,
                    text: text.clone(),
                    anchor: self.doc.attr(self.block_node, "id").map(str::to_string),
                };
                let stack = if ctx.main {
                    &mut self.main_headings
                } else {
                    &mut self.page_headings
                };
                while stack.last().is_some_and(|h| h.level >= level) {
                    stack.pop();
                }
                stack.push(heading);
                (
                    BlockKind::Heading,
                    format!("{} {}", "#".repeat(level as usize), md),
                )
            }
            Some(Pending::Item {
                marker,
                depth,
                list,
            }) => {
                list_depth = depth;
                list_id = list;
                let indent = "  ".repeat(depth as usize);
                // Continuation lines of a multi-line item are indented under the marker.
                let pad = " ".repeat(indent.len() + marker.len() + 1);
                let body = md.replace('\n', &format!("\n{pad}"));
                // Later flushes inside the same item continue it without a new marker.
                self.pending = Some(Pending::Item {
                    marker: String::new(),
                    depth,
                    list,
                });
                if marker.is_empty() {
                    (BlockKind::ListItem, format!("{pad}{body}"))
                } else {
                    (BlockKind::ListItem, format!("{indent}{marker} {body}"))
                }
            }
            None if ctx.quote => (BlockKind::Quote, quote_md(&md)),
            None => (BlockKind::Paragraph, md),
        };
        self.push_block(
            kind, text, markdown, ctx, chars, link_chars, list_depth, list_id,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn push_block(
        &mut self,
        kind: BlockKind,
        text: String,
        markdown: String,
        ctx: Ctx,
        chars: u32,
        link_chars: u32,
        list_depth: u8,
        list_id: u32,
    ) {
        let stack = if ctx.main {
            &self.main_headings
        } else {
            &self.page_headings
        };
        let last = stack.last();
        self.blocks.push(Block {
            kind,
            text,
            markdown,
            heading: last.map(|h| h.text.clone()),
            section_path: stack.iter().map(|h| h.text.clone()).collect(),
            depth: last.map_or(0, |h| h.level),
            section_type: if ctx.main {
                SectionType::Content
            } else {
                ctx.section
            },
            main: ctx.main,
            anchor: last.and_then(|h| h.anchor.clone()),
            list_depth,
            list_id,
            chars,
            link_chars,
            node: self.block_node,
        });
    }

    fn child_ctx(&self, id: NodeId, ctx: Ctx) -> Option<Ctx> {
        let mut c = ctx;
        let own = self.an.own[id as usize];
        if matches!(own, Region::NonText | Region::Hidden) {
            return None;
        }
        if self.is_root[id as usize] {
            c.main = true;
            c.section = SectionType::Content;
        }
        if own.is_boilerplate() {
            c.main = false;
            c.section = section_of(own);
        }
        Some(c)
    }

    fn walk_children(&mut self, id: NodeId, ctx: Ctx) {
        let mut child = self.doc.node(id).first_child;
        while child != super::dom::NONE {
            self.walk(child, ctx);
            child = self.doc.node(child).next_sibling;
        }
    }

    fn walk(&mut self, id: NodeId, ctx: Ctx) {
        let doc = self.doc;
        let tag = match &doc.node(id).data {
            NodeData::Text(_) => {
                let t = doc.text(id).unwrap_or("");
                if ctx.pre {
                    self.inline.push_pre(t);
                } else {
                    self.inline.push_text(t);
                }
                return;
            }
            NodeData::Document => {
                self.walk_children(id, ctx);
                return;
            }
            NodeData::Element(e) => e.tag,
        };
        let Some(c) = self.child_ctx(id, ctx) else {
            return;
        };
        if self.main_only && !c.main {
            let end = doc.subtree_end(id);
            if !self.roots.iter().any(|&r| r > id && r < end) {
                return;
            }
        }
        if ctx.main && !c.main && !tag.is_block() {
            // Inline boilerplate inside main text (a share link in a paragraph): dropped.
            return;
        }
        if ctx.pre {
            if tag == Tag::Br {
                self.inline.push_pre("\n");
            } else {
                self.walk_children(id, c);
            }
            return;
        }
        if let Some(level) = tag.heading_level() {
            self.flush(ctx);
            self.block_node = id;
            self.pending = Some(Pending::Heading(level));
            self.walk_children(id, c);
            self.flush(c);
            return;
        }
        match tag {
            Tag::Br => {
                if self.inline.text.ends_with('\n') {
                    self.flush(ctx);
                } else {
                    self.inline.line_break();
                }
            }
            Tag::Hr => self.flush(ctx),
            Tag::Img | Tag::Wbr => {}
            Tag::A => self.link(id, c),
            Tag::B | Tag::Strong => self.marked(id, c, "**", "**"),
            Tag::I | Tag::Em => self.marked(id, c, "*", "*"),
            Tag::Code | Tag::Kbd | Tag::Samp | Tag::Tt => self.marked(id, c, "`", "`"),
            Tag::Ul | Tag::Ol | Tag::Menu | Tag::Dir => {
                self.flush(ctx);
                let list = self.next_list;
                self.next_list += 1;
                let start = doc
                    .attr(id, "start")
                    .and_then(|s| s.trim().parse::<u32>().ok())
                    .unwrap_or(1);
                self.lists.push((list, tag == Tag::Ol, start));
                let mut inner = c;
                inner.list_depth = ctx.list_depth.saturating_add(1);
                self.walk_children(id, inner);
                self.flush(inner);
                self.lists.pop();
                self.pending = None;
            }
            Tag::Li => {
                self.flush(ctx);
                let saved = self.pending.take();
                let (list, marker) = match self.lists.last_mut() {
                    Some((list, true, n)) => {
                        let m = format!("{n}.");
                        *n = n.saturating_add(1);
                        (*list, m)
                    }
                    Some((list, false, _)) => (*list, "-".to_string()),
                    None => (0, "-".to_string()),
                };
                self.block_node = id;
                self.pending = Some(Pending::Item {
                    marker,
                    depth: c.list_depth.saturating_sub(1),
                    list,
                });
                self.walk_children(id, c);
                self.flush(c);
                self.pending = saved;
            }
            Tag::Table => {
                self.flush(ctx);
                if let Some((text, md, chars, link_chars)) =
                    super::table::data_table(doc, id, self.an, self.resolver)
                {
                    self.block_node = id;
                    self.push_block(BlockKind::Table, text, md, c, chars, link_chars, 0, 0);
                } else {
                    self.walk_children(id, c);
                    self.flush(c);
                }
            }
            Tag::Pre => {
                self.flush(ctx);
                self.block_node = id;
                let mut inner = c;
                inner.pre = true;
                self.walk_children(id, inner);
                let chars = self.inline.chars;
                let (_, _) = (chars, 0);
                let raw = std::mem::take(&mut self.inline.text);
                self.inline.take();
                let code = raw.trim_matches('\n').to_string();
                if !code.trim().is_empty() {
                    let md = fenced(&code, code_language(doc, id).as_deref());
                    self.push_block(BlockKind::Code, code, md, c, chars, 0, 0, 0);
                }
            }
            Tag::Blockquote => {
                self.flush(ctx);
                self.block_node = id;
                let mut inner = c;
                inner.quote = true;
                self.walk_children(id, inner);
                self.flush(inner);
            }
            Tag::Dl if self.is_simple_dl(id) => {
                self.flush(ctx);
                self.block_node = id;
                let (text, md, chars, link_chars) = self.definition_list(id);
                if !text.is_empty() {
                    self.push_block(BlockKind::List, text, md, c, chars, link_chars, 0, 0);
                }
            }
            Tag::Dt => {
                self.flush(ctx);
                self.block_node = id;
                let t = self.inline.open("**");
                self.walk_children(id, c);
                self.inline.close(t, 2, "**");
                self.flush(c);
            }
            _ if tag.is_block()
                || self.is_root[id as usize]
                || c.section != ctx.section
                || c.main != ctx.main =>
            {
                self.flush(ctx);
                if self.pending.is_none() {
                    self.block_node = id;
                }
                self.walk_children(id, c);
                self.flush(c);
            }
            _ => self.walk_children(id, c),
        }
    }

    /// A `<dl>` of terms and short definitions (no nested blocks of their own).
    fn is_simple_dl(&self, id: NodeId) -> bool {
        let doc = self.doc;
        let end = doc.subtree_end(id);
        let mut items = 0;
        for d in id + 1..end {
            match doc.tag(d) {
                Some(Tag::Dt | Tag::Dd) => items += 1,
                Some(t) if t.is_block() && t != Tag::Br => return false,
                _ => {}
            }
        }
        items > 0 && self.an.text[id as usize] < 4000
    }

    /// A definition list as one block: `term: definition` lines, `**term**: definition` in
    /// markdown (several definitions of a term joined by `; `).
    fn definition_list(&self, id: NodeId) -> (String, String, u32, u32) {
        let mut text_lines: Vec<String> = Vec::new();
        let mut md_lines: Vec<String> = Vec::new();
        let (mut chars, mut link_chars) = (0, 0);
        let mut after_term = false;
        for c in self.doc.children(id) {
            let Some(tag @ (Tag::Dt | Tag::Dd)) = self.doc.tag(c) else {
                continue;
            };
            if matches!(self.an.own[c as usize], Region::NonText | Region::Hidden) {
                continue;
            }
            let mut b = Inline::default();
            super::table::render(self.doc, c, self.an, self.resolver, &mut b);
            chars += b.chars;
            link_chars += b.link_chars;
            let (t, m) = b.take();
            if t.is_empty() {
                continue;
            }
            match tag {
                Tag::Dt => {
                    text_lines.push(t);
                    md_lines.push(format!("**{m}**"));
                    after_term = true;
                }
                _ => {
                    let (tl, ml) = (text_lines.last_mut(), md_lines.last_mut());
                    match (tl, ml) {
                        (Some(tl), Some(ml)) if after_term || !tl.is_empty() => {
                            let sep = if after_term { ": " } else { "; " };
                            tl.push_str(sep);
                            tl.push_str(&t);
                            ml.push_str(sep);
                            ml.push_str(&m);
                        }
                        _ => {
                            text_lines.push(t);
                            md_lines.push(m);
                        }
                    }
                    after_term = false;
                }
            }
        }
        (
            text_lines.join("\n"),
            md_lines.join("\n"),
            chars,
            link_chars,
        )
    }

    fn marked(&mut self, id: NodeId, ctx: Ctx, open: &str, close: &str) {
        let t = self.inline.open(open);
        self.walk_children(id, ctx);
        self.inline.close(t, open.len(), close);
    }

    fn link(&mut self, id: NodeId, ctx: Ctx) {
        if self.main_only {
            // Text only: no URL is written, only whether this is a link matters.
            let counts = self
                .doc
                .attr(id, "href")
                .is_some_and(|h| self.resolver.is_link(h));
            self.inline.in_link += counts as u32;
            self.walk_children(id, ctx);
            self.inline.in_link -= counts as u32;
            return;
        }
        let href = self
            .doc
            .attr(id, "href")
            .and_then(|h| self.resolver.resolve_link(h));
        let has_block = (id + 1..self.doc.subtree_end(id))
            .any(|d| self.doc.tag(d).is_some_and(|t| t.is_block()));
        // Only links to another resource count as link text (not `#anchors` or scripts).
        let counts = href.is_some();
        if counts {
            self.inline.in_link += 1;
        }
        match href {
            Some(url) if !has_block => {
                let t = self.inline.open("[");
                self.walk_children(id, ctx);
                self.inline
                    .close(t, 1, &format!("]({})", markdown_url(&url)));
            }
            _ => self.walk_children(id, ctx),
        }
        if counts {
            self.inline.in_link -= 1;
        }
    }
}

/// A URL as a markdown link destination (spaces and parentheses escaped).
fn markdown_url(url: &str) -> String {
    url.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

fn quote_md(md: &str) -> String {
    md.lines()
        .map(|l| {
            if l.is_empty() {
                ">".to_string()
            } else {
                format!("> {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A fenced code block whose fence is longer than any backtick run inside.
pub fn fenced(code: &str, lang: Option<&str>) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in code.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{}\n{code}\n{fence}", lang.unwrap_or(""))
}

/// The language of a `<pre>` from `class="language-x"` / `lang-x` on it or its `<code>`.
fn code_language(doc: &Document, pre: NodeId) -> Option<String> {
    let mut ids = vec![pre];
    ids.extend(doc.children(pre).filter(|&c| doc.tag(c) == Some(Tag::Code)));
    for id in ids {
        if let Some(class) = doc.attr(id, "class") {
            for w in class.split_whitespace() {
                let lang = w
                    .strip_prefix("language-")
                    .or_else(|| w.strip_prefix("lang-"));
                if let Some(l) = lang.filter(|l| {
                    !l.is_empty()
                        && l.chars()
                            .all(|c| c.is_ascii_alphanumeric() || "+-#_.".contains(c))
                }) {
                    return Some(l.to_string());
                }
            }
        }
    }
    None
}

//! The streaming markdown → node tree parser.

use super::inline::Inline;
use super::node::{Node, NodeKind};
use pulldown_cmark::{Alignment, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde_json::{json, Map, Value};

/// What the parser learned about the document as a whole.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// The first level-1 heading (or the first heading of any level when there is none).
    pub title: Option<String>,
    /// Number of nodes emitted (the document itself not counted).
    pub nodes: usize,
    /// A YAML front-matter block, verbatim.
    pub front_matter: Option<String>,
}

/// Parse `markdown` and hand every node to `emit`, parents before children.
/// Markdown never fails to parse: any text is a valid document.
pub fn parse(markdown: &str, emit: impl FnMut(Node)) -> Summary {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut state = State::new(emit);
    let mut tick = crate::interrupt::Ticker::new();
    for event in Parser::new_ext(markdown, options) {
        tick.tick();
        state.event(event);
    }
    state.finish()
}

/// An open block container (inside a section).
enum Container {
    List {
        index: usize,
    },
    /// A list item is emitted when its first nested block opens, or when it closes; until
    /// then its own text accumulates here.
    Item {
        index: Option<usize>,
        text: Vec<String>,
        meta: Map<String, Value>,
        parent: usize,
        position: u32,
    },
    Blockquote {
        index: usize,
    },
    Footnote {
        index: usize,
    },
}

/// What the inline buffer is collecting for.
enum Leaf {
    Paragraph,
    Heading {
        level: u8,
    },
    /// Text directly inside a tight list item.
    ItemText,
    Code {
        lang: Option<String>,
        text: String,
    },
    Html {
        text: String,
    },
    Table {
        align: Vec<Alignment>,
        rows: Vec<Vec<String>>,
        row: Vec<String>,
        head_rows: usize,
    },
    FrontMatter {
        text: String,
    },
}

struct State<F: FnMut(Node)> {
    emit: F,
    next_index: usize,
    /// Children counted so far, by parent index.
    children: Vec<u32>,
    /// Open sections: (level, node index, heading text).
    sections: Vec<(u8, usize, String)>,
    containers: Vec<Container>,
    leaf: Option<Leaf>,
    inline: Inline,
    summary: Summary,
    first_heading: Option<(u8, String)>,
}

impl<F: FnMut(Node)> State<F> {
    fn new(emit: F) -> Self {
        State {
            emit,
            next_index: 1,
            children: vec![0],
            sections: Vec::new(),
            containers: Vec::new(),
            leaf: None,
            inline: Inline::default(),
            summary: Summary::default(),
            first_heading: None,
        }
    }

    fn heading_path(&self) -> Vec<String> {
        self.sections.iter().map(|(_, _, h)| h.clone()).collect()
    }

    /// The parent for a new block: the innermost container, else the section, else the document.
    /// An item that has not been written yet is written now.
    fn parent(&mut self) -> usize {
        let path = self.heading_path();
        let next = self.next_index;
        let mut written = None;
        if let Some(Container::Item {
            index,
            text,
            meta,
            parent,
            position,
        }) = self.containers.last_mut()
        {
            if index.is_none() {
                *index = Some(next);
                written = Some(Node {
                    index: next,
                    parent: *parent,
                    position: *position,
                    kind: NodeKind::ListItem,
                    content: Some(text.join("\n\n")),
                    heading_path: path,
                    meta: std::mem::take(meta),
                });
            }
        }
        if let Some(node) = written {
            self.write(node);
        }
        match self.containers.last() {
            Some(Container::List { index })
            | Some(Container::Blockquote { index })
            | Some(Container::Footnote { index }) => *index,
            Some(Container::Item { index, .. }) => index.expect("item written above"),
            None => self.sections.last().map(|s| s.1).unwrap_or(0),
        }
    }

    fn position_under(&mut self, parent: usize) -> u32 {
        let p = self.children[parent];
        self.children[parent] += 1;
        p
    }

    fn write(&mut self, node: Node) {
        debug_assert_eq!(node.index, self.next_index);
        self.next_index += 1;
        self.children.push(0);
        self.summary.nodes += 1;
        (self.emit)(node);
    }

    /// Emit a new node under the current parent.
    fn add(&mut self, kind: NodeKind, content: Option<String>, meta: Map<String, Value>) -> usize {
        let parent = self.parent();
        let position = self.position_under(parent);
        let index = self.next_index;
        let heading_path = self.heading_path();
        self.write(Node {
            index,
            parent,
            position,
            kind,
            content,
            heading_path,
            meta,
        });
        index
    }

    /// Text collected directly inside a tight list item goes to the item's own text.
    fn flush_item_text(&mut self) {
        if matches!(self.leaf, Some(Leaf::ItemText)) {
            self.leaf = None;
            let md = self.inline.take();
            if let Some(Container::Item {
                text, index: None, ..
            }) = self.containers.last_mut()
            {
                if !md.is_empty() {
                    text.push(md);
                }
            } else if !md.is_empty() {
                self.add(NodeKind::Paragraph, Some(md), Map::new());
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        // Inside a code block, HTML block, or front matter: raw text only.
        match (&mut self.leaf, &event) {
            (Some(Leaf::Code { text, .. }), Event::Text(t)) => return text.push_str(t),
            (Some(Leaf::Html { text }), Event::Html(t))
            | (Some(Leaf::Html { text }), Event::Text(t)) => return text.push_str(t),
            (Some(Leaf::FrontMatter { text }), Event::Text(t)) => return text.push_str(t),
            _ => {}
        }
        if self.leaf.is_some()
            && !matches!(self.leaf, Some(Leaf::ItemText))
            && self.inline.push(&event)
        {
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::TaskListMarker(checked) => {
                if let Some(Container::Item { meta, .. }) = self.containers.last_mut() {
                    meta.insert("task".into(), json!(true));
                    meta.insert("checked".into(), json!(checked));
                }
            }
            Event::Html(h) => {
                // An HTML block without its Start tag does not happen; keep it anyway.
                self.add(NodeKind::Html, Some(h.trim_end().to_string()), Map::new());
            }
            Event::Rule => {}
            other => {
                // Inline content directly inside a list item (tight list), or stray text.
                if self.leaf.is_none() {
                    self.leaf = Some(Leaf::ItemText);
                }
                self.inline.push(&other);
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        // A block starting inside a tight list item ends the item's running text; an inline tag
        // (emphasis, a link) is part of it.
        if !is_inline(&tag) {
            self.flush_item_text();
        }
        match tag {
            Tag::Paragraph => {
                self.leaf = Some(Leaf::Paragraph);
            }
            Tag::Heading { level, .. } => {
                self.leaf = Some(Leaf::Heading { level: level as u8 });
            }
            Tag::CodeBlock(kind) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().map(str::to_string)
                    }
                    CodeBlockKind::Indented => None,
                };
                self.leaf = Some(Leaf::Code {
                    lang,
                    text: String::new(),
                });
            }
            Tag::HtmlBlock => {
                self.leaf = Some(Leaf::Html {
                    text: String::new(),
                })
            }
            Tag::Table(align) => {
                self.leaf = Some(Leaf::Table {
                    align,
                    rows: Vec::new(),
                    row: Vec::new(),
                    head_rows: 0,
                })
            }
            Tag::TableHead | Tag::TableRow | Tag::TableCell => {}
            Tag::MetadataBlock(_) => {
                self.leaf = Some(Leaf::FrontMatter {
                    text: String::new(),
                })
            }
            Tag::List(start) => {
                let mut meta = Map::new();
                meta.insert("ordered".into(), json!(start.is_some()));
                if let Some(s) = start {
                    meta.insert("start".into(), json!(s));
                }
                let index = self.add(NodeKind::List, None, meta);
                self.containers.push(Container::List { index });
            }
            Tag::Item => {
                let parent = self.parent();
                let position = self.position_under(parent);
                self.containers.push(Container::Item {
                    index: None,
                    text: Vec::new(),
                    meta: Map::new(),
                    parent,
                    position,
                });
            }
            Tag::BlockQuote(_) => {
                let index = self.add(NodeKind::Blockquote, None, Map::new());
                self.containers.push(Container::Blockquote { index });
            }
            Tag::FootnoteDefinition(label) => {
                let mut meta = Map::new();
                meta.insert("label".into(), json!(label.to_string()));
                let index = self.add(NodeKind::Footnote, None, meta);
                self.containers.push(Container::Footnote { index });
            }
            // Inline tags outside a paragraph (tight list items): collect as item text.
            other => {
                if self.leaf.is_none() {
                    self.leaf = Some(Leaf::ItemText);
                }
                self.inline.push(&Event::Start(other));
            }
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.leaf = None;
                let md = self.inline.take();
                if md.is_empty() {
                    return;
                }
                if let Some(Container::Item {
                    index: None, text, ..
                }) = self.containers.last_mut()
                {
                    text.push(md);
                } else {
                    self.add(NodeKind::Paragraph, Some(md), Map::new());
                }
            }
            TagEnd::Heading(_) => {
                let Some(Leaf::Heading { level }) = self.leaf.take() else {
                    return;
                };
                let (md, plain) = self.inline.take_with_plain();
                self.heading(level, md, plain);
            }
            TagEnd::CodeBlock => {
                if let Some(Leaf::Code { lang, text }) = self.leaf.take() {
                    let mut meta = Map::new();
                    if let Some(l) = lang {
                        meta.insert("lang".into(), json!(l));
                    }
                    let text = text.strip_suffix('\n').unwrap_or(&text).to_string();
                    self.add(NodeKind::Code, Some(text), meta);
                }
            }
            TagEnd::HtmlBlock => {
                if let Some(Leaf::Html { text }) = self.leaf.take() {
                    let t = text.trim_end().to_string();
                    if !t.is_empty() {
                        self.add(NodeKind::Html, Some(t), Map::new());
                    }
                }
            }
            TagEnd::TableCell => {
                let md = self.inline.take();
                if let Some(Leaf::Table { row, .. }) = &mut self.leaf {
                    row.push(md.replace('|', "\\|"));
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(Leaf::Table {
                    rows,
                    row,
                    head_rows,
                    ..
                }) = &mut self.leaf
                {
                    rows.push(std::mem::take(row));
                    if tag == TagEnd::TableHead {
                        *head_rows = rows.len();
                    }
                }
            }
            TagEnd::Table => {
                if let Some(Leaf::Table {
                    align,
                    rows,
                    head_rows,
                    ..
                }) = self.leaf.take()
                {
                    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
                    let mut meta = Map::new();
                    meta.insert("rows".into(), json!(rows.len().saturating_sub(head_rows)));
                    meta.insert("columns".into(), json!(columns));
                    self.add(
                        NodeKind::Table,
                        Some(render_table(&align, &rows, head_rows)),
                        meta,
                    );
                }
            }
            TagEnd::MetadataBlock(_) => {
                if let Some(Leaf::FrontMatter { text }) = self.leaf.take() {
                    self.summary.front_matter = Some(text);
                }
            }
            TagEnd::Item => {
                self.flush_item_text();
                if let Some(Container::Item {
                    index: None,
                    text,
                    meta,
                    parent,
                    position,
                }) = self.containers.pop()
                {
                    let index = self.next_index;
                    let heading_path = self.heading_path();
                    self.write(Node {
                        index,
                        parent,
                        position,
                        kind: NodeKind::ListItem,
                        content: Some(text.join("\n\n")),
                        heading_path,
                        meta,
                    });
                }
            }
            TagEnd::List(_) | TagEnd::BlockQuote(_) | TagEnd::FootnoteDefinition => {
                self.flush_item_text();
                self.containers.pop();
            }
            other => {
                self.inline.push(&Event::End(other));
            }
        }
    }

    /// A heading at the top level opens a section (closing deeper or equal ones); inside a
    /// container (a quote, a list) it is only a heading.
    fn heading(&mut self, level: u8, md: String, plain: String) {
        let mut meta = Map::new();
        meta.insert("level".into(), json!(level));
        if !self.containers.is_empty() {
            self.add(NodeKind::Heading, Some(md), meta);
            return;
        }
        if self
            .first_heading
            .as_ref()
            .is_none_or(|(l, _)| *l > 1 && level == 1)
        {
            self.first_heading = Some((level, plain.clone()));
        }
        while self.sections.last().is_some_and(|(l, _, _)| *l >= level) {
            self.sections.pop();
        }
        let section = self.add(NodeKind::Section, Some(plain.clone()), meta.clone());
        self.sections.push((level, section, plain));
        self.add(NodeKind::Heading, Some(md), meta);
    }

    fn finish(mut self) -> Summary {
        self.flush_item_text();
        self.summary.title = self
            .first_heading
            .take()
            .map(|(_, t)| t)
            .filter(|t| !t.is_empty());
        self.summary
    }
}

fn render_table(align: &[Alignment], rows: &[Vec<String>], head_rows: usize) -> String {
    let columns = rows
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(0)
        .max(align.len());
    let line = |cells: &[String]| {
        let mut s = String::from("|");
        for i in 0..columns {
            s.push(' ');
            s.push_str(cells.get(i).map(String::as_str).unwrap_or(""));
            s.push_str(" |");
        }
        s
    };
    let mut out = Vec::with_capacity(rows.len() + 1);
    let head: &[String] = if head_rows > 0 { &rows[0] } else { &[] };
    out.push(line(head));
    let mut sep = String::from("|");
    for i in 0..columns {
        sep.push_str(match align.get(i) {
            Some(Alignment::Left) => " :--- |",
            Some(Alignment::Center) => " :---: |",
            Some(Alignment::Right) => " ---: |",
            _ => " --- |",
        });
    }
    out.push(sep);
    for row in rows.iter().skip(head_rows.min(1)) {
        out.push(line(row));
    }
    out.join("\n")
}

/// Tags that live inside a block's text.
fn is_inline(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Link { .. }
            | Tag::Image { .. }
            | Tag::Superscript
            | Tag::Subscript
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(md: &str) -> (Vec<Node>, Summary) {
        let mut nodes = Vec::new();
        let s = parse(md, |n| nodes.push(n));
        (nodes, s)
    }

    fn outline(nodes: &[Node]) -> Vec<String> {
        nodes
            .iter()
            .map(|n| {
                format!(
                    "{}<{} {} {:?}",
                    n.index,
                    n.parent,
                    n.kind.as_str(),
                    n.content.as_deref().unwrap_or("")
                )
            })
            .collect()
    }

    #[test]
    fn inline_markup_does_not_split_a_tight_list_item() {
        let (nodes, _) = tree(
            "1. Bell, G. S. (2002). The size of the problem. *Seizure*, 11, 306. https://doi.org/10.1053/x\n\
             2. See the [documents page](/docs/) and **bold** text.\n",
        );
        let items: Vec<&str> = nodes
            .iter()
            .filter(|n| n.kind == NodeKind::ListItem)
            .map(|n| n.content.as_deref().unwrap_or(""))
            .collect();
        assert_eq!(
            items,
            vec![
                "Bell, G. S. (2002). The size of the problem. *Seizure*, 11, 306. https://doi.org/10.1053/x",
                "See the [documents page](/docs/) and **bold** text.",
            ]
        );
        assert!(!nodes.iter().any(|n| n.kind == NodeKind::Paragraph));
    }

    #[test]
    fn sections_nest_by_heading_level() {
        let (nodes, s) =
            tree("# Title\n\nIntro.\n\n## A\n\nText a.\n\n### A.1\n\nDeep.\n\n## B\n\nText b.\n");
        assert_eq!(s.title.as_deref(), Some("Title"));
        assert_eq!(
            outline(&nodes),
            vec![
                "1<0 section \"Title\"",
                "2<1 heading \"Title\"",
                "3<1 paragraph \"Intro.\"",
                "4<1 section \"A\"",
                "5<4 heading \"A\"",
                "6<4 paragraph \"Text a.\"",
                "7<4 section \"A.1\"",
                "8<7 heading \"A.1\"",
                "9<7 paragraph \"Deep.\"",
                "10<1 section \"B\"",
                "11<10 heading \"B\"",
                "12<10 paragraph \"Text b.\"",
            ]
        );
        assert_eq!(nodes[8].heading_path, vec!["Title", "A", "A.1"]);
        assert_eq!(nodes[11].heading_path, vec!["Title", "B"]);
        let positions: Vec<u32> = nodes
            .iter()
            .filter(|n| n.parent == 1)
            .map(|n| n.position)
            .collect();
        assert_eq!(positions, vec![0, 1, 2, 3]);
    }

    #[test]
    fn parents_always_come_before_children() {
        let md =
            "- a\n  - b\n    ```\n    code\n    ```\n- c\n\n  para c2\n\n> quote\n> - in quote\n";
        let (nodes, _) = tree(md);
        for n in &nodes {
            assert!(n.parent < n.index, "{n:?}");
        }
    }

    #[test]
    fn lists_items_and_tasks() {
        let (nodes, _) = tree("1. one\n2. two\n   - nested\n3. [x] done\n");
        assert_eq!(
            outline(&nodes),
            vec![
                "1<0 list \"\"",
                "2<1 list_item \"one\"",
                "3<1 list_item \"two\"",
                "4<3 list \"\"",
                "5<4 list_item \"nested\"",
                "6<1 list_item \"done\"",
            ]
        );
        assert_eq!(nodes[0].meta["ordered"], json!(true));
        assert_eq!(nodes[0].meta["start"], json!(1));
        assert_eq!(nodes[5].meta["checked"], json!(true));
        assert_eq!(nodes[2].position, 1);
    }

    #[test]
    fn loose_items_keep_later_paragraphs_as_children() {
        let (nodes, _) = tree("- first para\n\n  - sub\n\n  after sub\n");
        assert_eq!(
            outline(&nodes),
            vec![
                "1<0 list \"\"",
                "2<1 list_item \"first para\"",
                "3<2 list \"\"",
                "4<3 list_item \"sub\"",
                "5<2 paragraph \"after sub\"",
            ]
        );
    }

    #[test]
    fn code_tables_quotes_footnotes_html() {
        let md = "```rust\nfn main() {}\n```\n\n| a | b |\n|:--|--:|\n| 1 | x\\|y |\n| 2 |\n\n> Quoted *text* with [a link](https://ex.org/p).\n\nSee note.[^n]\n\n[^n]: The note.\n\n<div>raw</div>\n";
        let (nodes, _) = tree(md);
        let kinds: Vec<&str> = nodes.iter().map(|n| n.kind.as_str()).collect();
        assert_eq!(
            kinds,
            vec![
                "code",
                "table",
                "blockquote",
                "paragraph",
                "paragraph",
                "footnote",
                "paragraph",
                "html"
            ]
        );
        assert_eq!(nodes[0].content.as_deref(), Some("fn main() {}"));
        assert_eq!(nodes[0].meta["lang"], json!("rust"));
        assert_eq!(
            nodes[1].content.as_deref(),
            Some("| a | b |\n| :--- | ---: |\n| 1 | x\\|y |\n| 2 |  |")
        );
        assert_eq!(nodes[1].meta["rows"], json!(2));
        assert_eq!(
            nodes[3].content.as_deref(),
            Some("Quoted *text* with [a link](https://ex.org/p).")
        );
        assert_eq!(nodes[3].parent, nodes[2].index);
        assert_eq!(nodes[4].content.as_deref(), Some("See note.[^n]"));
        assert_eq!(nodes[5].meta["label"], json!("n"));
        assert_eq!(nodes[6].parent, nodes[5].index);
        assert_eq!(nodes[7].content.as_deref(), Some("<div>raw</div>"));
    }

    #[test]
    fn front_matter_and_headings_inside_quotes() {
        let (nodes, s) =
            tree("---\ntitle: x\n---\n\n> # Not a section\n\n## Sub first\n\n# Real\n");
        assert_eq!(s.front_matter.as_deref(), Some("title: x\n"));
        assert_eq!(s.title.as_deref(), Some("Real"));
        assert_eq!(nodes[1].kind, NodeKind::Heading);
        assert_eq!(nodes[1].parent, nodes[0].index);
    }

    #[test]
    fn any_text_parses() {
        for md in [
            "", "\n\n", "#", "* ", "> ", "|", "```", "[^x]", "\u{0}", "a\r\nb", "<", "- [ ]",
        ] {
            let (nodes, _) = tree(md);
            for n in &nodes {
                assert!(n.parent < n.index);
            }
        }
    }
}

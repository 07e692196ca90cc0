//! One node of a parsed markdown document.

use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    Section,
    Heading,
    Paragraph,
    List,
    ListItem,
    Code,
    Table,
    Blockquote,
    Footnote,
    Html,
}

impl NodeKind {
    /// The `kerai.nodes.kind` value.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Section => "section",
            NodeKind::Heading => "heading",
            NodeKind::Paragraph => "paragraph",
            NodeKind::List => "list",
            NodeKind::ListItem => "list_item",
            NodeKind::Code => "code",
            NodeKind::Table => "table",
            NodeKind::Blockquote => "blockquote",
            NodeKind::Footnote => "footnote",
            NodeKind::Html => "html",
        }
    }
}

/// A node below the document. `index` numbers nodes from 1 in document order (0 is the
/// document itself); `parent` is the parent's index; `position` the order among siblings.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub index: usize,
    pub parent: usize,
    pub position: u32,
    pub kind: NodeKind,
    /// Inline markdown for text blocks, the heading text for sections, raw text for code and
    /// HTML, a GFM table for tables; `None` for lists, block quotes and footnotes.
    pub content: Option<String>,
    /// Headings of the enclosing sections, outermost first.
    pub heading_path: Vec<String>,
    /// Kind-specific facts: `level`, `ordered`, `start`, `lang`, `task`, `checked`, `label`, `rows`, `columns`.
    pub meta: Map<String, Value>,
}

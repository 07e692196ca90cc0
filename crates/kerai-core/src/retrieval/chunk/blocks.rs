//! Chunk inputs from markdown: the leaf blocks of [`crate::markdown::parse`]'s tree.

use super::ChunkInput;
use crate::markdown::{self, NodeKind};

/// The text blocks of a markdown document in order: headings, paragraphs, list items, code,
/// tables, HTML blocks. Containers (sections, lists, block quotes, footnotes) carry no text
/// of their own and are left out; a heading's path ends with its own text.
pub fn blocks_from_markdown(md: &str) -> Vec<ChunkInput> {
    let mut out = Vec::new();
    markdown::parse(md, |node| {
        if matches!(
            node.kind,
            NodeKind::Section | NodeKind::List | NodeKind::Blockquote | NodeKind::Footnote
        ) {
            return;
        }
        if let Some(text) = node.content {
            if !text.trim().is_empty() {
                out.push(ChunkInput {
                    text,
                    heading_path: node.heading_path,
                    kind: node.kind,
                });
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_blocks_in_order() {
        let b = blocks_from_markdown(
            "# Title\n\nIntro.\n\n## Part\n\n- one\n- two\n\n```\ncode\n```\n\n> quoted\n",
        );
        let got: Vec<(NodeKind, &str, usize)> = b
            .iter()
            .map(|b| (b.kind, b.text.as_str(), b.heading_path.len()))
            .collect();
        assert_eq!(
            got,
            vec![
                (NodeKind::Heading, "Title", 1),
                (NodeKind::Paragraph, "Intro.", 1),
                (NodeKind::Heading, "Part", 2),
                (NodeKind::ListItem, "one", 2),
                (NodeKind::ListItem, "two", 2),
                (NodeKind::Code, "code", 2),
                (NodeKind::Paragraph, "quoted", 2),
            ]
        );
    }
}

//! The section tree of a document's blocks, built from their heading paths.
//!
//! A heading block opens a section (its heading path ends with its own text, as
//! `markdown::Node` gives it); a run of blocks whose heading path changes without a heading
//! block opens an implied section. A section holds its blocks and sub-sections in order.

use super::ChunkInput;
use crate::markdown::NodeKind;

/// One entry of a section: a block (index into the input) or a sub-section (index into the tree).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Item {
    Block(usize),
    Section(usize),
}

#[derive(Debug, Clone)]
pub(super) struct Section {
    path: Vec<String>,
    pub items: Vec<Item>,
    /// Estimated tokens of the whole section: its blocks plus one per join.
    pub tokens: usize,
    /// The section opens with a heading block.
    pub has_heading: bool,
}

/// The tree; index 0 is the document (the root section, without heading).
pub(super) fn build(blocks: &[ChunkInput], block_tokens: &[usize]) -> Vec<Section> {
    let mut tree = vec![Section {
        path: Vec::new(),
        items: Vec::new(),
        tokens: 0,
        has_heading: false,
    }];
    let mut stack = vec![0usize];
    for (i, b) in blocks.iter().enumerate() {
        if b.text.trim().is_empty() {
            continue;
        }
        let path = &b.heading_path;
        let heading = b.kind == NodeKind::Heading;
        loop {
            let top = &tree[*stack.last().expect("root stays")];
            let keep = if heading {
                top.path.len() < path.len() && path.starts_with(&top.path)
            } else {
                path.starts_with(&top.path)
            };
            if keep || stack.len() == 1 {
                break;
            }
            stack.pop();
        }
        let top = *stack.last().expect("root stays");
        if heading || tree[top].path != *path {
            let id = tree.len();
            tree.push(Section {
                path: path.clone(),
                items: Vec::new(),
                tokens: 0,
                has_heading: heading,
            });
            tree[top].items.push(Item::Section(id));
            stack.push(id);
        }
        let top = *stack.last().expect("root stays");
        tree[top].items.push(Item::Block(i));
    }
    // Children come after their parents: sum from the leaves up.
    for s in (0..tree.len()).rev() {
        let mut total = 0;
        for item in &tree[s].items {
            total += match *item {
                Item::Block(i) => block_tokens[i],
                Item::Section(c) => tree[c].tokens,
            };
        }
        total += tree[s].items.len().saturating_sub(1);
        tree[s].tokens = total;
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(kind: NodeKind, path: &[&str], text: &str) -> ChunkInput {
        ChunkInput {
            text: text.to_string(),
            heading_path: path.iter().map(|s| s.to_string()).collect(),
            kind,
        }
    }

    #[test]
    fn nests_by_heading_path() {
        use NodeKind::*;
        let blocks = vec![
            block(Paragraph, &[], "preface"),
            block(Heading, &["T"], "T"),
            block(Paragraph, &["T"], "intro"),
            block(Heading, &["T", "A"], "A"),
            block(Paragraph, &["T", "A"], "a"),
            block(Heading, &["T", "B"], "B"),
            block(Paragraph, &["T", "B"], "  "),
            block(Paragraph, &["T", "B"], "b"),
            block(Heading, &["U"], "U"),
        ];
        let tokens = vec![1; blocks.len()];
        let t = build(&blocks, &tokens);
        assert_eq!(
            t[0].items,
            vec![Item::Block(0), Item::Section(1), Item::Section(4)]
        );
        assert_eq!(
            t[1].items,
            vec![
                Item::Block(1),
                Item::Block(2),
                Item::Section(2),
                Item::Section(3)
            ]
        );
        assert_eq!(t[2].items, vec![Item::Block(3), Item::Block(4)]);
        assert_eq!(t[3].items, vec![Item::Block(5), Item::Block(7)]);
        assert_eq!(t[4].items, vec![Item::Block(8)]);
        assert_eq!(t[2].tokens, 3);
        assert_eq!(t[1].tokens, 2 + 3 + 3 + 3);
        assert!(t[1].has_heading && !t[0].has_heading);
    }

    #[test]
    fn a_path_change_without_heading_opens_a_section() {
        let blocks = vec![
            block(NodeKind::Paragraph, &["X"], "x"),
            block(NodeKind::Paragraph, &["Y"], "y"),
        ];
        let t = build(&blocks, &[1, 1]);
        assert_eq!(t[0].items, vec![Item::Section(1), Item::Section(2)]);
        assert!(!t[1].has_heading);
    }
}

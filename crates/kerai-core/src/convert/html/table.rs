//! Data tables as GFM tables. A table counts as data (not layout) when it has no nested
//! table, at least two columns, and cells of modest size; layout tables are walked as
//! ordinary containers instead.

use super::analysis::Analysis;
use super::classify::Region;
use super::dom::{Document, NodeData, NodeId, Tag};
use super::inline::Inline;
use super::links::Resolver;

/// Largest cell (non-whitespace characters) a data table may have.
const MAX_CELL: u32 = 400;

/// The rows of `table`: for each `<tr>`, its cells (`<td>`/`<th>`) and whether they are headers.
fn rows(doc: &Document, table: NodeId) -> Vec<Vec<(NodeId, bool)>> {
    let mut out = Vec::new();
    let mut stack = vec![table];
    while let Some(id) = stack.pop() {
        let kids: Vec<NodeId> = doc.children(id).collect();
        for &k in kids.iter().rev() {
            if let Some(Tag::Thead | Tag::Tbody | Tag::Tfoot) = doc.tag(k) {
                stack.push(k);
            }
        }
        for k in kids {
            if doc.tag(k) == Some(Tag::Tr) {
                let cells: Vec<(NodeId, bool)> = doc
                    .children(k)
                    .filter_map(|c| match doc.tag(c) {
                        Some(Tag::Td) => Some((c, false)),
                        Some(Tag::Th) => Some((c, true)),
                        _ => None,
                    })
                    .collect();
                if !cells.is_empty() {
                    out.push(cells);
                }
            }
        }
    }
    out
}

/// `Some((text, markdown, chars, link_chars))` when `table` is a data table.
pub fn data_table(
    doc: &Document,
    table: NodeId,
    an: &Analysis,
    resolver: &Resolver,
) -> Option<(String, String, u32, u32)> {
    let end = doc.subtree_end(table);
    for d in table + 1..end {
        if matches!(
            doc.tag(d),
            Some(Tag::Table | Tag::P | Tag::Div | Tag::Ul | Tag::Ol | Tag::Blockquote | Tag::Pre)
        ) && an.text[d as usize] > 80
        {
            return None;
        }
    }
    let rows = rows(doc, table);
    // Rows in document order: `rows` visits sections depth-first, which keeps their order
    // only when rows are direct children; sort by id to be safe.
    let mut rows = rows;
    rows.sort_by_key(|r| r[0].0);
    let cols = rows
        .iter()
        .map(|r| r.iter().map(|&(c, _)| colspan(doc, c)).sum::<usize>())
        .max()
        .unwrap_or(0);
    if rows.is_empty() || !(2..=40).contains(&cols) {
        return None;
    }
    if rows
        .iter()
        .flatten()
        .any(|&(c, _)| an.text[c as usize] > MAX_CELL)
    {
        return None;
    }
    let mut grid: Vec<Vec<(String, String)>> = Vec::new();
    let mut chars = 0;
    let mut link_chars = 0;
    for r in &rows {
        let mut line = Vec::new();
        for &(c, _) in r {
            let mut b = Inline::default();
            render(doc, c, an, resolver, &mut b);
            chars += b.chars;
            link_chars += b.link_chars;
            let (t, m) = b.take();
            let m = m.replace('\n', " ");
            let t = t.replace('\n', " ");
            line.push((t, m));
            for _ in 1..colspan(doc, c) {
                line.push((String::new(), String::new()));
            }
        }
        line.resize(cols, (String::new(), String::new()));
        grid.push(line);
    }
    if grid.iter().all(|r| r.iter().all(|c| c.0.is_empty())) {
        return None;
    }
    let text = grid
        .iter()
        .map(|r| {
            r.iter()
                .map(|c| c.0.as_str())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    let mut md = String::new();
    for (i, r) in grid.iter().enumerate() {
        md.push('|');
        for c in r {
            md.push(' ');
            md.push_str(&c.1);
            md.push_str(" |");
        }
        md.push('\n');
        if i == 0 {
            md.push('|');
            for _ in 0..cols {
                md.push_str(" --- |");
            }
            md.push('\n');
        }
    }
    md.pop();
    Some((text, md, chars, link_chars))
}

fn colspan(doc: &Document, cell: NodeId) -> usize {
    doc.attr(cell, "colspan")
        .and_then(|s| s.trim().parse::<usize>().ok())
        .unwrap_or(1)
        .clamp(1, 20)
}

/// Renders the inline content of `id` (links, emphasis, code) into `b`.
pub fn render(doc: &Document, id: NodeId, an: &Analysis, resolver: &Resolver, b: &mut Inline) {
    let mut child = doc.node(id).first_child;
    while child != super::dom::NONE {
        match &doc.node(child).data {
            NodeData::Text(_) => b.push_text(doc.text(child).unwrap_or("")),
            NodeData::Element(e) => {
                let own = an.own[child as usize];
                if !matches!(own, Region::None) {
                    child = doc.node(child).next_sibling;
                    continue;
                }
                match e.tag {
                    Tag::Br => b.push_text(" "),
                    Tag::A => {
                        b.in_link += 1;
                        match doc
                            .attr(child, "href")
                            .and_then(|h| resolver.resolve_link(h))
                        {
                            Some(url) => {
                                let t = b.open("[");
                                render(doc, child, an, resolver, b);
                                b.close(
                                    t,
                                    1,
                                    &format!(
                                        "]({})",
                                        url.replace(' ', "%20")
                                            .replace('(', "%28")
                                            .replace(')', "%29")
                                    ),
                                );
                            }
                            None => render(doc, child, an, resolver, b),
                        }
                        b.in_link -= 1;
                    }
                    Tag::B | Tag::Strong => {
                        let t = b.open("**");
                        render(doc, child, an, resolver, b);
                        b.close(t, 2, "**");
                    }
                    Tag::I | Tag::Em => {
                        let t = b.open("*");
                        render(doc, child, an, resolver, b);
                        b.close(t, 1, "*");
                    }
                    t if t.is_block() => {
                        b.push_text(" ");
                        render(doc, child, an, resolver, b);
                        b.push_text(" ");
                    }
                    _ => render(doc, child, an, resolver, b),
                }
            }
            NodeData::Document => {}
        }
        child = doc.node(child).next_sibling;
    }
}

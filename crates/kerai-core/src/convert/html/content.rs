//! Finding the main content: readability-style scoring of containers by the paragraphs they
//! hold (text length, commas, link density, class/id words), then merging siblings that look
//! like more of the same.

use super::analysis::Analysis;
use super::classify::class_weight;
use super::dom::{Document, NodeId, Tag, NONE};

/// Candidates considered when looking for a common ancestor.
const TOP_CANDIDATES: usize = 5;

fn is_ancestor(doc: &Document, a: NodeId, d: NodeId) -> bool {
    a <= d && d < doc.subtree_end(a)
}

/// Minimum characters for a paragraph to score its ancestors.
const MIN_PARAGRAPH: u32 = 20;

/// Whether `tag` is scored as a paragraph of its own.
fn is_paragraph_tag(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::P | Tag::Pre | Tag::Td | Tag::Blockquote | Tag::Li | Tag::Dd
    )
}

/// Whether element `id` has block-level element children (a div without them is a paragraph).
fn has_block_child(doc: &Document, id: NodeId) -> bool {
    doc.children(id)
        .any(|c| doc.tag(c).is_some_and(|t| t.is_block() && t != Tag::Br))
}

/// Adds a paragraph's score `s` to `first` (fully), its parent (half) and three more
/// ancestors (a third of the level).
fn add_score(
    doc: &Document,
    an: &Analysis,
    first: NodeId,
    s: f64,
    score: &mut [f64],
    candidates: &mut Vec<NodeId>,
) {
    let _ = an;
    let mut anc = first;
    let mut level = 0;
    while anc != NONE && level < 5 {
        if doc.tag(anc).is_none() {
            break;
        }
        if score[anc as usize].is_nan() {
            score[anc as usize] =
                base_score(doc.tag(anc).unwrap_or(Tag::Div)) + class_weight(doc, anc) as f64;
            candidates.push(anc);
        }
        let div = match level {
            0 => 1.0,
            1 => 2.0,
            l => l as f64 * 3.0,
        };
        score[anc as usize] += s / div;
        anc = doc.node(anc).parent;
        level += 1;
    }
}

/// (characters, commas) of each run of inline content between the block children of `id`.
fn text_runs(doc: &Document, an: &Analysis, id: NodeId) -> Vec<(u32, u32)> {
    let mut runs = Vec::new();
    let mut cur = (0u32, 0u32);
    for c in doc.children(id) {
        let block = doc.tag(c).is_some_and(|t| t.is_block() && t != Tag::Br);
        if block {
            if cur.0 > 0 {
                runs.push(cur);
            }
            cur = (0, 0);
        } else if !an.region[c as usize].is_boilerplate() {
            cur.0 += an.text[c as usize];
            cur.1 += an.commas[c as usize];
        }
    }
    if cur.0 > 0 {
        runs.push(cur);
    }
    runs
}

fn base_score(tag: Tag) -> f64 {
    match tag {
        Tag::Div | Tag::Article | Tag::Main | Tag::Section => 5.0,
        Tag::Pre | Tag::Td | Tag::Blockquote => 3.0,
        Tag::Address | Tag::Ol | Tag::Ul | Tag::Dl | Tag::Dd | Tag::Dt | Tag::Li | Tag::Form => {
            -3.0
        }
        Tag::H1 | Tag::H2 | Tag::H3 | Tag::H4 | Tag::H5 | Tag::H6 | Tag::Th => -5.0,
        _ => 0.0,
    }
}

/// The roots of the main content, in document order (usually one element).
pub fn main_roots(doc: &Document, an: &Analysis) -> Vec<NodeId> {
    let n = doc.nodes.len();
    let mut score = vec![f64::NAN; n];
    let mut candidates: Vec<NodeId> = Vec::new();
    for i in 0..n as NodeId {
        let Some(tag) = doc.tag(i) else { continue };
        if an.region[i as usize].is_boilerplate() {
            continue;
        }
        let block_children = has_block_child(doc, i);
        let is_para = is_paragraph_tag(tag) || (tag == Tag::Div && !block_children);
        if !is_para {
            if block_children
                && !matches!(
                    tag,
                    Tag::Ul | Tag::Ol | Tag::Table | Tag::Tr | Tag::Tbody | Tag::Dl
                )
            {
                // Runs of text directly inside a container count as its paragraphs.
                for (len, commas) in text_runs(doc, an, i) {
                    if len >= MIN_PARAGRAPH {
                        let s = 1.0 + commas as f64 + (len as f64 / 100.0).floor().min(3.0);
                        add_score(doc, an, i, s, &mut score, &mut candidates);
                    }
                }
            }
            continue;
        }
        let len = an.text[i as usize];
        if len < MIN_PARAGRAPH {
            continue;
        }
        // Lists of links are not paragraphs.
        if matches!(tag, Tag::Li | Tag::Td | Tag::Dd) && an.link_density(i) > 0.5 {
            continue;
        }
        // A code block's commas separate arguments, not clauses: they say nothing of prose.
        let commas = if tag == Tag::Pre {
            0
        } else {
            an.commas[i as usize]
        };
        let s = 1.0 + commas as f64 + (len as f64 / 100.0).floor().min(3.0);
        add_score(doc, an, doc.node(i).parent, s, &mut score, &mut candidates);
    }
    let mut ranked: Vec<(f64, NodeId)> = Vec::with_capacity(candidates.len());
    for &c in &candidates {
        let s = score[c as usize] * (1.0 - an.link_density(c));
        score[c as usize] = s;
        ranked.push((s, c));
    }
    if ranked.is_empty() {
        return vec![an.body];
    }
    ranked.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    ranked.truncate(TOP_CANDIDATES);
    let (mut best_score, mut best) = ranked[0];
    // Several close runners-up under one ancestor: that ancestor holds the article.
    let close: Vec<NodeId> = ranked[1..]
        .iter()
        .filter(|r| r.0 >= 0.75 * best_score)
        .map(|r| r.1)
        .collect();
    if close.len() >= 3 {
        let mut p = doc.node(best).parent;
        while p != NONE && p != an.body && doc.tag(p).is_some() {
            let containing = close.iter().filter(|&&c| is_ancestor(doc, p, c)).count();
            if containing >= 3 {
                best = p;
                if !score[p as usize].is_nan() {
                    best_score = best_score.max(score[p as usize]);
                }
                break;
            }
            p = doc.node(p).parent;
        }
    }
    // A parent scoring higher than the candidate (within a few steps) holds more of it.
    let mut p = doc.node(best).parent;
    let mut last = best_score;
    let threshold = best_score / 3.0;
    while p != NONE && p != an.body && doc.tag(p).is_some() {
        let ps = score[p as usize];
        if ps.is_nan() {
            p = doc.node(p).parent;
            continue;
        }
        if ps < threshold {
            break;
        }
        if ps > last {
            best = p;
            best_score = ps;
            break;
        }
        last = ps;
        p = doc.node(p).parent;
    }
    // Inside one item of a list page (a post of a thread, a card of a catalogue): the list.
    if let Some(list) = list_around(doc, an, best) {
        best = list;
    }
    // Go up while the candidate is the only element child of its parent.
    let mut top = best;
    loop {
        let p = doc.node(top).parent;
        if p == NONE || p == an.body || doc.tag(p).is_none() {
            break;
        }
        let elems = doc.children(p).filter(|&c| doc.tag(c).is_some()).count();
        if elems != 1 {
            break;
        }
        top = p;
    }
    let parent = doc.node(top).parent;
    if parent == NONE || doc.tag(parent).is_none() {
        return vec![top];
    }
    let twins = twins(doc, an, top);
    let threshold = (best_score * 0.2).max(10.0);
    let top_class = doc.attr(top, "class").unwrap_or("");
    let mut roots = Vec::new();
    for sib in doc.children(parent) {
        if sib == top {
            roots.push(sib);
            continue;
        }
        let Some(tag) = doc.tag(sib) else { continue };
        if an.region[sib as usize].is_boilerplate() {
            continue;
        }
        let mut bonus = 0.0;
        if !top_class.is_empty() && doc.attr(sib, "class") == Some(top_class) {
            bonus = best_score * 0.2;
        }
        let s = score[sib as usize];
        let mut append = !s.is_nan() && s + bonus >= threshold;
        if !append && tag == Tag::P {
            let len = an.text[sib as usize];
            let ld = an.link_density(sib);
            let text = doc.text_content(sib);
            let t = text.trim();
            append =
                (len > 80 && ld < 0.25) || (len > 0 && len <= 80 && ld == 0.0 && t.ends_with('.'));
        }
        if append {
            roots.push(sib);
        }
    }
    // Headings and lists that sit between accepted siblings belong to the same text: the
    // section titles of an article whose best-scoring part is, say, its reference list.
    let interior: Vec<NodeId> = match (roots.first(), roots.last()) {
        (Some(&first), Some(&last)) if roots.len() >= 2 => doc
            .children(parent)
            .filter(|&sib| sib > first && sib < last && !roots.contains(&sib))
            .filter(|&sib| {
                matches!(
                    doc.tag(sib),
                    Some(
                        Tag::H1
                            | Tag::H2
                            | Tag::H3
                            | Tag::H4
                            | Tag::H5
                            | Tag::H6
                            | Tag::Ul
                            | Tag::Ol
                            | Tag::Dl
                    )
                ) && !an.region[sib as usize].is_boilerplate()
                    && an.text[sib as usize] > 0
                    && an.link_density(sib) < 0.5
            })
            .collect(),
        _ => Vec::new(),
    };
    roots.extend(interior);
    for t in twins {
        if !roots
            .iter()
            .any(|&r| is_ancestor(doc, r, t) || is_ancestor(doc, t, r))
        {
            roots.push(t);
        }
    }
    // A discussion's posts: the list of them joins the roots when the best candidate lay
    // elsewhere (a summary above the thread).
    if an.discussion {
        if let Some(list) = largest_list(doc, an) {
            if !roots
                .iter()
                .any(|&r| is_ancestor(doc, r, list) || is_ancestor(doc, list, r))
            {
                roots.push(list);
            }
        }
    }
    roots.sort_unstable();
    roots
}

/// The element whose children include the list holding the most text on the page, when that
/// list is one in the sense of [`list_around`] (items of one tag and first class word holding
/// much of the page, none most of it).
fn largest_list(doc: &Document, an: &Analysis) -> Option<NodeId> {
    // (tag, first class word) of an item; (items with text, their text, the largest item).
    type ItemKind<'a> = (Option<Tag>, Option<&'a str>);
    type ItemSums = (usize, u32, u32);
    use std::collections::HashMap;
    let page = an.text[an.body as usize] as f64;
    let class = |i: NodeId| {
        doc.attr(i, "class")
            .and_then(|c| c.split_whitespace().next())
    };
    let mut best: Option<(u32, NodeId)> = None;
    let mut items: HashMap<ItemKind, ItemSums> = HashMap::new();
    for p in an.body..doc.subtree_end(an.body) {
        if doc.tag(p).is_none()
            || an.region[p as usize].is_boilerplate()
            || an.text[p as usize] == 0
        {
            continue;
        }
        items.clear();
        for c in doc.children(p).filter(|&c| doc.tag(c).is_some()) {
            let t = an.text[c as usize];
            let e = items.entry((doc.tag(c), class(c))).or_default();
            if t >= LIST_ITEM_CHARS {
                e.0 += 1;
            }
            e.1 += t;
            e.2 = e.2.max(t);
        }
        for &(n, sum, max) in items.values() {
            if n >= LIST_ITEMS
                && sum as f64 >= LIST_SHARE * page
                && (max as f64) <= LIST_ITEM_MAX * sum as f64
                && best.is_none_or(|(s, _)| sum > s)
            {
                best = Some((sum, p));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// Items of one list: siblings of one tag and first class word, at least this many...
const LIST_ITEMS: usize = 3;
/// ... each with this much text (non-whitespace characters, boilerplate left out)...
const LIST_ITEM_CHARS: u32 = 20;
/// ... together holding this share of the page's text...
const LIST_SHARE: f64 = 0.4;
/// ... with none holding more than this share of theirs (a list, not a layout of one big
/// column beside small ones).
const LIST_ITEM_MAX: f64 = 0.6;

/// The element holding the list that `best` lies in, when it lies in an item of a list that
/// holds much of the page (see [`LIST_SHARE`]); the closest such list.
fn list_around(doc: &Document, an: &Analysis, best: NodeId) -> Option<NodeId> {
    let page = an.text[an.body as usize] as f64;
    let class = |i: NodeId| {
        doc.attr(i, "class")
            .and_then(|c| c.split_whitespace().next())
    };
    let mut item = best;
    loop {
        let parent = doc.node(item).parent;
        if parent == NONE || doc.tag(parent).is_none() || item == an.body {
            return None;
        }
        let (tag, key) = (doc.tag(item), class(item));
        let (mut n, mut sum, mut max) = (0usize, 0u32, 0u32);
        for sib in doc.children(parent) {
            if doc.tag(sib) == tag && class(sib) == key {
                let t = an.text[sib as usize];
                if t >= LIST_ITEM_CHARS {
                    n += 1;
                }
                sum += t;
                max = max.max(t);
            }
        }
        if n >= LIST_ITEMS
            && sum as f64 >= LIST_SHARE * page
            && (max as f64) <= LIST_ITEM_MAX * sum as f64
        {
            return Some(parent);
        }
        item = parent;
    }
}

/// Levels above the top candidate searched for twins.
const TWIN_LEVELS: usize = 4;

/// Elements near `top` with the same tag and class: an article cut into chunks
/// (`<div class="article-body">` repeated between ads).
fn twins(doc: &Document, an: &Analysis, top: NodeId) -> Vec<NodeId> {
    let Some(class) = doc.attr(top, "class").filter(|c| !c.trim().is_empty()) else {
        return Vec::new();
    };
    let tag = doc.tag(top);
    let mut scope = top;
    for _ in 0..TWIN_LEVELS {
        let p = doc.node(scope).parent;
        if p == NONE || p == an.body || doc.tag(p).is_none() {
            break;
        }
        scope = p;
    }
    (scope..doc.subtree_end(scope))
        .filter(|&i| {
            i != top
                && doc.tag(i) == tag
                && doc.attr(i, "class") == Some(class)
                && !an.region[i as usize].is_boilerplate()
                && an.text[i as usize] > 0
                && an.link_density(i) < 0.5
        })
        .collect()
}

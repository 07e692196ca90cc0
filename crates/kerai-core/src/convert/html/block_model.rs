//! A second opinion on the blocks the rules left out: a logistic model over general signals of
//! the block and of its page (what the rules decided around it, the region and tags around
//! it, its length and link text, repeated sibling structure, how much of the page the rules
//! kept, whether the page says it is an article), trained on the tuned-on part of WCXB dev
//! (`examples/train_block_model.rs`). On pages that are not one article it adds what a reader
//! would call content (the sibling sections of a service page, the cards of a listing, a
//! category page's grid beside its description); what the rules kept stays. No feature names
//! a site, a class word or a language.

use std::collections::{HashMap, HashSet};

use super::analysis::Analysis;
use super::blocks::{Block, BlockKind, SectionType};
use super::classify::Region;
use super::dom::{Document, NodeId, Tag, NONE};

/// Facts about the page that every block's features share.
pub(crate) struct PageFacts {
    /// Share of the page's text (boilerplate left out) that the rules kept.
    pub kept_share: f32,
    /// Share of link text in the page's text (boilerplate left out).
    pub link_density: f32,
    /// The page's metadata says it is one article.
    pub article: bool,
    /// The page's schema.org data says it is a discussion.
    pub discussion: bool,
    /// The rules judged the page a list page.
    pub list_page: bool,
    /// Long paragraphs the rules kept ([`long_paragraphs`]).
    pub long_paragraphs: usize,
}

impl PageFacts {
    /// Whether the model may add blocks on the page: not when its metadata says it is one
    /// article, nor when the rules kept an article's worth of long paragraphs
    /// ([`ARTICLE_PARAGRAPHS`]); there the rules' container is trusted, and the teasers and
    /// tickers around it stay out.
    pub fn open(&self) -> bool {
        !self.article && self.long_paragraphs < ARTICLE_PARAGRAPHS
    }
}

/// Number of features of a block.
pub const FEATURES: usize = 46;

const REGIONS: [Region; 9] = [
    Region::Navigation,
    Region::Header,
    Region::Footer,
    Region::Sidebar,
    Region::Comments,
    Region::Share,
    Region::Ad,
    Region::Furniture,
    Region::None,
];

/// The features of every block, in order.
pub(crate) fn features(
    doc: &Document,
    an: &Analysis,
    roots: &[NodeId],
    blocks: &[Block],
    page: &PageFacts,
) -> Vec<[f32; FEATURES]> {
    let n = blocks.len().max(1) as f32;
    let in_roots = |id: NodeId| roots.iter().any(|&r| r <= id && id < doc.subtree_end(r));
    // Long paragraphs the rules kept: an article's shape (saturating at 10).
    let long_share = (page.long_paragraphs as f32 / 10.0).min(1.0);
    let mut siblings: HashMap<NodeId, Kinds> = HashMap::new();
    blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mut f = [0f32; FEATURES];
            let main = b.main as u8 as f32;
            let region = an.region[b.node as usize];
            let bp = region.is_boilerplate() as u8 as f32;
            let roots_in = in_roots(b.node) as u8 as f32;
            let ld = if b.chars == 0 {
                0.0
            } else {
                b.link_chars as f32 / b.chars as f32
            };
            let words = b.text.split_whitespace().count();
            let sentence = b.text.trim_end().ends_with(['.', '!', '?', '。']) as u8 as f32;
            f[0] = 1.0;
            f[1] = main;
            f[2] = roots_in;
            f[3] = bp;
            for (k, r) in REGIONS.iter().enumerate() {
                f[4 + k] = (region == *r) as u8 as f32;
            }
            let kind = match b.kind {
                BlockKind::Heading => 0,
                BlockKind::Paragraph => 1,
                BlockKind::List | BlockKind::ListItem => 2,
                BlockKind::Table => 3,
                BlockKind::Code | BlockKind::Quote => 4,
            };
            f[13 + kind] = 1.0;
            f[18] = (1.0 + b.chars as f32).ln() / 8.0;
            f[19] = ld;
            f[20] = (words >= 4) as u8 as f32;
            f[21] = i as f32 / n;
            f[22] = page.kept_share;
            f[23] = page.article as u8 as f32;
            f[24] = page.discussion as u8 as f32;
            f[25] = page.link_density;
            f[26] = sentence;
            f[27] = page.list_page as u8 as f32;
            let (mut in_main, mut in_article, mut in_li, mut in_form) = (0.0, 0.0, 0.0, 0.0);
            let mut a = b.node;
            let mut depth = 0u32;
            let mut frame = 0.0;
            while a != NONE {
                if is_frame(doc, a) {
                    frame = 1.0;
                }
                match doc.tag(a) {
                    Some(Tag::Main) => in_main = 1.0,
                    Some(Tag::Article) => in_article = 1.0,
                    Some(Tag::Li) => in_li = 1.0,
                    Some(Tag::Form) => in_form = 1.0,
                    _ => {}
                }
                depth += 1;
                a = doc.node(a).parent;
            }
            f[28] = in_main;
            f[29] = in_article;
            f[30] = in_li;
            f[31] = in_form;
            // Interactions a linear model cannot form itself.
            let outside = (1.0 - main) * (1.0 - bp);
            f[32] = outside * (1.0 - page.kept_share);
            f[33] = outside * (1.0 - page.article as u8 as f32);
            f[34] = main * ld;
            f[35] = (depth as f32).min(64.0) / 32.0;
            // The rules' decisions around the block.
            let near = |d: isize| {
                let j = i as isize + d;
                (j >= 0 && (j as usize) < blocks.len() && blocks[j as usize].main) as u8 as f32
            };
            f[36] = near(-1);
            f[37] = near(1);
            f[38] = (near(-3) + near(-2) + near(-1) + near(1) + near(2) + near(3)) / 6.0;
            // Repeated structure: an ancestor (up to four levels) with siblings of its tag and
            // class.
            let mut a = b.node;
            let mut repeated = 0.0;
            for _ in 0..4 {
                if a == NONE {
                    break;
                }
                let p = doc.node(a).parent;
                if p == NONE {
                    break;
                }
                let counts = siblings.entry(p).or_insert_with(|| sibling_kinds(doc, p));
                let same = counts
                    .get(&(doc.tag(a), doc.attr(a, "class")))
                    .copied()
                    .unwrap_or(0);
                if same >= 3 {
                    repeated = 1.0;
                    break;
                }
                a = p;
            }
            f[39] = repeated;
            f[40] = repeated * (1.0 - main) * (1.0 - bp);
            f[41] = (b.kind == BlockKind::Heading) as u8 as f32 * (1.0 - main) * (1.0 - bp);
            let card = (ld > 0.7 && words >= 4) as u8 as f32;
            f[42] = card * outside;
            f[43] = card * outside * long_share;
            f[44] = long_share;
            f[FRAME] = frame;
            f
        })
        .collect()
}

/// The feature that says a block lies in the page's frame.
const FRAME: usize = 45;

/// Whether `id` is part of the page's frame by its tag or role: `<header>`, `<nav>`,
/// `<aside>`, `<footer>`, or the equivalent ARIA landmark.
fn is_frame(doc: &Document, id: NodeId) -> bool {
    use super::classify::Landmark;
    matches!(
        super::classify::landmark(doc, id),
        Some(
            Landmark::Banner
                | Landmark::Navigation
                | Landmark::Complementary
                | Landmark::ContentInfo
        )
    )
}

/// How many children of an element have each tag and class attribute.
type Kinds<'d> = HashMap<(Option<Tag>, Option<&'d str>), usize>;

/// The [`Kinds`] of `parent`'s children (elements only).
fn sibling_kinds(doc: &Document, parent: NodeId) -> Kinds<'_> {
    let mut kinds = Kinds::new();
    for c in doc.children(parent).filter(|&c| doc.tag(c).is_some()) {
        *kinds.entry((doc.tag(c), doc.attr(c, "class"))).or_default() += 1;
    }
    kinds
}

/// The model's probability that a block with features `f` is content.
pub(crate) fn probability(weights: &[f32; FEATURES], f: &[f32; FEATURES]) -> f32 {
    let z: f32 = weights.iter().zip(f).map(|(w, x)| w * x).sum();
    1.0 / (1.0 + (-z).exp())
}

/// The weights in use, trained by `examples/train_block_model.rs`.
pub(crate) fn weights() -> &'static [f32; FEATURES] {
    &super::block_weights::WEIGHTS
}

/// A block the rules left out is added when the model gives it at least this probability.
pub(crate) const ADD_PROBABILITY: f32 = 0.5;
/// Long paragraphs kept by the rules that make a page an article's shape.
pub const ARTICLE_PARAGRAPHS: usize = 3;

/// Marks as main the blocks the rules left out that the model calls content (see
/// [`ADD_PROBABILITY`]) on a page open to it ([`PageFacts::open`]), outside the page's frame
/// and unless their words make them furniture or they repeat the title (kept apart as
/// `Extracted::title`); the rules' own choices stay.
pub(crate) fn add_blocks(
    blocks: &mut [Block],
    features: &[[f32; FEATURES]],
    page: &PageFacts,
    title: Option<&str>,
) {
    if !page.open() {
        return;
    }
    // In a discussion, text already kept is not added again: it is a quoted post (the repeat
    // `filter_main` drops, by the same key). Elsewhere a text may stand twice (a template's
    // repeated paragraph).
    let mut kept: HashSet<String> = blocks
        .iter()
        .filter(|b| b.main)
        .filter_map(|b| super::filter::repeat_key(&b.text))
        .collect();
    for (b, f) in blocks.iter_mut().zip(features) {
        if !b.main
            && f[FRAME] == 0.0
            && probability(weights(), f) >= ADD_PROBABILITY
            && !super::filter::is_furniture_text(b, title)
            && (!page.discussion
                || super::filter::repeat_key(&b.text).is_none_or(|k| kept.insert(k)))
        {
            b.main = true;
            b.section_type = SectionType::Content;
        }
    }
}

/// Long paragraphs (150 characters or more, under 30 % link text) among `blocks`' main ones.
pub(crate) fn long_paragraphs(blocks: &[Block]) -> usize {
    blocks
        .iter()
        .filter(|b| {
            b.main
                && b.kind == BlockKind::Paragraph
                && b.chars >= 150
                && b.link_chars * 10 < b.chars * 3
        })
        .count()
}

#[cfg(test)]
mod tests {
    use crate::convert::html::to_text;

    /// A shop's category page: a short description in one container, and the product grid
    /// beside it in another, each card a linked name, a price and a rating.
    fn shop(og_type: &str) -> String {
        let cards: String = [
            ("Harbour rain jacket", "89.00", 41),
            ("Fell walking boots", "129.00", 17),
            ("Merino base layer", "45.00", 63),
            ("Packable down vest", "74.00", 22),
            ("Trail running shorts", "35.00", 9),
            ("Waterproof overtrousers", "59.00", 30),
        ]
        .iter()
        .enumerate()
        .map(|(i, (name, price, reviews))| {
            format!(
                "<li class='card'><a href='/p/{i}'><h3 class='card-name'>{name}</h3></a>\
                 <span class='price'>£{price}</span><span class='rating'>{reviews} reviews</span></li>"
            )
        })
        .collect();
        format!(
            "<html><head><meta property='og:type' content='{og_type}'></head><body>\
             <header><a href='/'>Outdoor shop</a></header>\
             <nav><a href='/men'>Men</a> <a href='/women'>Women</a> <a href='/sale'>Sale</a></nav>\
             <div class='category'><h1>Outdoor clothing</h1>\
             <div class='intro'><p>Clothing for wet hills and long days outside, chosen and \
             tested by our staff on the fells, with free repairs for the first two years.</p></div>\
             <div class='results'><ul class='grid'>{cards}</ul></div></div>\
             <footer><p>Outdoor shop, 4 Mill Lane. Company number 0123456.</p></footer>\
             </body></html>"
        )
    }

    #[test]
    fn the_grid_of_a_category_page_joins_its_description() {
        let text = to_text(&shop("website"), "https://shop.example/outdoor");
        assert!(text.contains("wet hills"), "{text}");
        for name in [
            "Harbour rain jacket",
            "Merino base layer",
            "Waterproof overtrousers",
        ] {
            assert!(text.contains(name), "{name} missing: {text}");
        }
        for frame in ["Mill Lane", "Sale"] {
            assert!(!text.contains(frame), "{frame} kept: {text}");
        }
    }

    #[test]
    fn a_page_that_says_it_is_an_article_keeps_the_rules_choice() {
        let rules = {
            let page = shop("article");
            to_text(&page, "https://shop.example/outdoor")
        };
        assert!(rules.contains("wet hills"), "{rules}");
        assert!(!rules.contains("Harbour rain jacket"), "{rules}");
    }
}

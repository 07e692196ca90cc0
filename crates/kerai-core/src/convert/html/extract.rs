//! Main-content extraction: [`to_markdown`] and [`to_text`].

use serde::{Deserialize, Serialize};

use super::analysis::Analysis;
use super::blocks::{Block, BlockKind, Segmenter};
use super::content::main_roots;
use super::dom::{Document, Tag};
use super::links::{links_of, Link, Resolver};
use super::shell::parse_page;

/// The main content of a page, and what else was learnt on the way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extracted {
    /// The page title: the main heading, else `og:title`, else `<title>`.
    pub title: Option<String>,
    /// The main content as markdown (title as `# ` heading first).
    pub markdown: String,
    /// The main content as plain text (no link URLs, no title).
    pub text: String,
    /// All blocks of the page; those with `main` make the markdown.
    pub blocks: Vec<Block>,
    /// All links of the page (see [`super::links()`]).
    pub links: Vec<Link>,
    /// The language of the main content (ISO 639-1), from detection, else `<html lang>`.
    pub language: Option<String>,
    /// True when the page was larger than the parser's limits and was cut.
    pub truncated: bool,
    /// Why there is no main content, when there is none (a frameset, an `<iframe>`-only
    /// page, a page built by scripts ...), saying what to fetch or do instead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The page title (see [`Extracted::title`]).
fn title_of(doc: &Document, an: &Analysis) -> Option<String> {
    for h in doc.find_all(Tag::H1) {
        if matches!(
            an.own[h as usize],
            super::classify::Region::Hidden | super::classify::Region::NonText
        ) {
            continue;
        }
        let t = collapse(&doc.text_content(h));
        if !t.is_empty() && t.chars().count() < 300 {
            return Some(t);
        }
    }
    for m in doc.find_all(Tag::Meta) {
        if doc
            .attr(m, "property")
            .is_some_and(|p| p.eq_ignore_ascii_case("og:title"))
        {
            if let Some(c) = doc
                .attr(m, "content")
                .map(collapse)
                .filter(|c| !c.is_empty())
            {
                return Some(c);
            }
        }
    }
    doc.find(Tag::Title)
        .map(|t| collapse(&doc.text_content(t)))
        .filter(|t| !t.is_empty())
}

/// Blocks of the page with the main ones marked. With `main_only`, blocks outside the main
/// content may be left out (and block markdown lacks link URLs).
pub(crate) fn segment(
    doc: &Document,
    url: &str,
    main_only: bool,
) -> (Vec<Block>, Option<String>, Resolver) {
    let an = Analysis::new(doc);
    let roots = rule_roots(doc, &an);
    let (mut blocks, title, resolver, mut used, list_page) =
        segment_by_rules(doc, &an, &roots, url, main_only);
    let page = page_facts(doc, &an, &blocks, list_page);
    if page.open() {
        if main_only {
            // The block model weighs the blocks outside the rules' choice too.
            (blocks, _, _, used, _) = segment_by_rules(doc, &an, &roots, url, false);
        }
        crate::interrupt::check();
        let features = super::block_model::features(doc, &an, &used, &blocks, &page);
        super::block_model::add_blocks(&mut blocks, &features, &page, title.as_deref());
    }
    (blocks, title, resolver)
}

/// The containers the rules choose as the page's main content.
fn rule_roots(doc: &Document, an: &Analysis) -> Vec<u32> {
    crate::interrupt::check();
    widen_to_main(doc, an, main_roots(doc, an))
}

/// The rules' blocks from `roots` (see [`rule_roots`]), title, link resolver, the roots they
/// took and whether the page is a list page.
fn segment_by_rules(
    doc: &Document,
    an: &Analysis,
    roots: &[u32],
    url: &str,
    main_only: bool,
) -> (Vec<Block>, Option<String>, Resolver, Vec<u32>, bool) {
    crate::interrupt::check();
    let resolver = Resolver::new(doc, url);
    let title = title_of(doc, an);
    // `list`: whether the page is a list page, or None to judge it from these roots.
    let run = |roots: &[u32], list: Option<bool>| {
        crate::interrupt::check();
        let mut seg = Segmenter::new(doc, an, roots, &resolver);
        seg.main_only = main_only;
        if let Some(t) = &title {
            seg.seed_title(t);
        }
        seg.run(Document::ROOT);
        let mut blocks = seg.blocks;
        let (text, link) = roots.iter().fold((0, 0), |(t, l), &r| {
            (t + an.text[r as usize], l + an.link[r as usize])
        });
        let cards = blocks
            .iter()
            .filter(|b| {
                b.main
                    && b.link_chars * 10 >= b.chars * 7
                    && b.text.split_whitespace().count() >= super::filter::CARD_WORDS
            })
            .count();
        let list_page = list.unwrap_or_else(|| {
            text > 0
                && link as f64 >= LIST_PAGE_LINKS * text as f64
                && cards >= LIST_PAGE_CARDS
                && (!an.declares_article(doc)
                    || (link as f64 >= LIST_PAGE_ALL_LINKS * text as f64
                        && !an.declares_article_in_json_ld(doc)))
        });
        super::filter::filter_main(&mut blocks, title.as_deref(), list_page, an.discussion);
        (blocks, list_page)
    };
    let (mut blocks, mut list_page) = run(roots, None);
    let mut used = roots.to_vec();
    // Fallback: the chosen container kept almost nothing of a page that has text, or a small
    // part of it (a page of several sibling blocks, as service and product pages are, rather
    // than one article); take the whole body (boilerplate regions and block filters still
    // apply) when that keeps more than twice as much.
    let kept: u32 = blocks.iter().filter(|b| b.main).map(|b| b.chars).sum();
    let body_text = an.text[an.body as usize];
    let small = kept < FALLBACK_MIN_CHARS || (kept as f64) < FALLBACK_SHARE * body_text as f64;
    if small && body_text >= FALLBACK_BODY_CHARS && roots != [an.body] {
        // Whether it is a list page was judged on the chosen container, unless that kept
        // almost nothing.
        let list = (kept >= FALLBACK_MIN_CHARS || list_page).then_some(list_page);
        let (wide, _) = run(&[an.body], list);
        let wide_kept: u32 = wide.iter().filter(|b| b.main).map(|b| b.chars).sum();
        if wide_kept > kept * 2 {
            blocks = wide;
            used = vec![an.body];
            list_page = list.unwrap_or(list_page);
        }
    }
    (blocks, title, resolver, used, list_page)
}

/// The page's one `<main>` (or `role=main`) is taken instead of the containers chosen inside
/// it when they hold under this share of its text (and it is under [`MAIN_MAX_LINKS`] link
/// text), on a page whose metadata does not say it is one article: a service or product
/// page's sibling sections (features, plans, an FAQ) are all its content, and the markup says
/// where that content is.
const MAIN_SHARE: f64 = 0.7;
/// ... and a `<main>` with at least this share of link text is a list of links, left alone.
const MAIN_MAX_LINKS: f64 = 0.5;

/// `roots`, or the page's one `<main>` or `role=main` element that holds them (see
/// [`MAIN_SHARE`]).
fn widen_to_main(doc: &Document, an: &Analysis, roots: Vec<u32>) -> Vec<u32> {
    if an.declares_article(doc) {
        return roots;
    }
    let mains: Vec<u32> = (0..doc.nodes.len() as u32)
        .filter(|&i| super::classify::landmark(doc, i) == Some(super::classify::Landmark::Main))
        .collect();
    let [m] = mains[..] else { return roots };
    let end = doc.subtree_end(m);
    if roots.is_empty() || !roots.iter().all(|&r| m < r && r < end) {
        return roots;
    }
    let kept: u32 = roots.iter().map(|&r| an.text[r as usize]).sum();
    let main_text = an.text[m as usize];
    let link = an.link[m as usize];
    if (kept as f64) < MAIN_SHARE * main_text as f64
        && (link as f64) < MAIN_MAX_LINKS * main_text as f64
    {
        vec![m]
    } else {
        roots
    }
}

/// What the block model needs to know of the page after the rules ran.
fn page_facts(
    doc: &Document,
    an: &Analysis,
    blocks: &[Block],
    list_page: bool,
) -> super::block_model::PageFacts {
    let kept: u32 = blocks.iter().filter(|b| b.main).map(|b| b.chars).sum();
    let body = an.text[an.body as usize].max(1);
    super::block_model::PageFacts {
        kept_share: (kept as f32 / body as f32).min(1.0),
        link_density: an.link[an.body as usize] as f32 / body as f32,
        article: an.declares_article(doc),
        discussion: an.discussion,
        list_page,
        long_paragraphs: super::block_model::long_paragraphs(blocks),
    }
}

/// Every block of a page with its features, its text and the rules' decision, and whether the
/// model may add blocks on the page (for training the block model).
#[doc(hidden)]
pub fn block_features(
    html: &str,
    url: &str,
) -> (
    Vec<([f32; super::block_model::FEATURES], String, bool)>,
    bool,
) {
    let doc = parse_page(html);
    let an = Analysis::new(&doc);
    let roots = rule_roots(&doc, &an);
    let (blocks, _, _, used, list_page) = segment_by_rules(&doc, &an, &roots, url, false);
    let page = page_facts(&doc, &an, &blocks, list_page);
    let feats = super::block_model::features(&doc, &an, &used, &blocks, &page);
    let rows = blocks
        .into_iter()
        .zip(feats)
        .map(|(b, f)| (f, b.text, b.main))
        .collect();
    (rows, page.open())
}

/// Main content with at least this share of link text is a list page (cards pointing to its
/// items) unless the page declares itself an article, see [`super::filter::filter_main`].
const LIST_PAGE_LINKS: f64 = 0.5;

/// ... and at least this many cards.
const LIST_PAGE_CARDS: usize = 5;

/// Main content with at least this share of link text is a list page even when `og:type`
/// says article (WordPress's default on category and shop pages); JSON-LD that says article
/// still wins.
const LIST_PAGE_ALL_LINKS: f64 = 0.9;

/// Main content shorter than this (non-whitespace characters) triggers the fallback...
const FALLBACK_MIN_CHARS: u32 = 150;
/// ... as does main content under this share of the body's text (boilerplate left out)...
const FALLBACK_SHARE: f64 = 0.2;
/// ... when the page body (boilerplate left out) has at least this much text.
const FALLBACK_BODY_CHARS: u32 = 300;

/// Joins main blocks: items of one list one per line, other blocks separated by a blank line.
fn join(blocks: &[Block], field: impl Fn(&Block) -> &str) -> String {
    let mut out = String::new();
    let mut prev: Option<&Block> = None;
    for b in blocks.iter().filter(|b| b.main) {
        if let Some(p) = prev {
            let same_list = b.kind == BlockKind::ListItem
                && p.kind == BlockKind::ListItem
                && (b.list_id == p.list_id || b.list_depth != p.list_depth);
            out.push_str(if same_list { "\n" } else { "\n\n" });
        }
        out.push_str(field(b));
        prev = Some(b);
    }
    out
}

/// The main content of `html` (fetched from `url`) as markdown, with title, blocks, links and
/// language.
pub fn to_markdown(html: &str, url: &str) -> Extracted {
    let doc = parse_page(html);
    crate::interrupt::check();
    let (blocks, title, _) = segment(&doc, url, false);
    crate::interrupt::check();
    let text = join(&blocks, |b| &b.text);
    let mut markdown = join(&blocks, |b| &b.markdown);
    let first_is_h1 = blocks
        .iter()
        .find(|b| b.main)
        .is_some_and(|b| b.kind == BlockKind::Heading && b.depth == 1);
    if let (Some(t), false) = (&title, first_is_h1) {
        markdown = if markdown.is_empty() {
            format!("# {t}")
        } else {
            format!("# {t}\n\n{markdown}")
        };
    }
    crate::interrupt::check();
    let language = super::language::page_language(&doc, &text);
    crate::interrupt::check();
    let links = links_of(&doc, url);
    let warnings = if text.trim().is_empty() {
        vec![super::empty::why_empty(&doc, &links)]
    } else {
        Vec::new()
    };
    Extracted {
        title,
        markdown,
        text,
        links,
        blocks,
        language,
        truncated: doc.truncated,
        warnings,
    }
}

/// The plain text of the main content of `html` (no link URLs, no title): the AEB format.
pub fn to_text(html: &str, url: &str) -> String {
    let doc = parse_page(html);
    let (blocks, _, _) = segment(&doc, url, true);
    join(&blocks, |b| &b.text)
}

#[cfg(test)]
mod tests {
    use super::to_text;

    /// A response served as HTML that is bare text, without a single tag: the text is the
    /// content.
    #[test]
    fn bare_text_is_its_own_content() {
        let text = to_text(
            "Opening hours change on 1 May.",
            "https://example.org/notice",
        );
        assert_eq!(text, "Opening hours change on 1 May.");
    }

    /// A short thread under a consent manager whose purposes hold most of the page's text: the
    /// banner stays out, as a modal dialog does; a wrapper whose class names a cookie banner
    /// but that holds the page's `<h1>` keeps its text.
    #[test]
    fn a_consent_banner_stays_out_however_long() {
        let purpose = |name: &str| {
            format!(
                "<div class='purpose'><h4>{name} cookies</h4><p>These cookies are set by \
                 partners of the site to measure visits, remember choices, select advertising \
                 and build profiles of your interests across other sites you visit.</p></div>"
            )
        };
        let purposes: String = [
            "Targeting",
            "Functional",
            "Performance",
            "Social media",
            "Analytics",
        ]
        .iter()
        .map(|n| purpose(n))
        .collect();
        let thread = "<main><h1>Which tent for a week in Norway?</h1>\
             <div class='post'><p>We are walking the coast in June and want one tent for two.</p></div>\
             <div class='post'><p>Take a tunnel tent; the wind on the coast is strong.</p></div></main>";
        let page = format!(
            "<html><body>{thread}<div id='site-consent-sdk'><div role='region'>{purposes}</div></div>\
             <div role='dialog' aria-modal='true'><p>{}</p></div></body></html>",
            "Sign in to reply to this thread and follow it, and we will tell you of new posts by email every day. ".repeat(6)
        );
        let text = to_text(&page, "https://forum.example/t/tent");
        assert!(text.contains("Take a tunnel tent"), "{text}");
        assert!(!text.contains("These cookies"), "{text}");
        assert!(!text.contains("Sign in to reply"), "{text}");

        let wrapped =
            format!("<html><body><div class='has-cookie-banner'>{thread}</div></body></html>");
        let text = to_text(&wrapped, "https://forum.example/t/tent");
        assert!(text.contains("Take a tunnel tent"), "{text}");
    }

    /// A forum thread (schema.org says so) whose opening post a reply quotes further down:
    /// the quote is not kept twice. On a page that is not a discussion, text shown again far
    /// apart stays (the same item in several plans of a menu).
    #[test]
    fn a_thread_keeps_a_quoted_post_once() {
        let opening =
            "We are walking the coast of Norway in June and want one tent for two people.";
        let reply = |n: usize| {
            format!(
                "<div class='post'><p>Reply number {n}: a tunnel tent stands best in the wind, \
                 and take pegs for sand as well as for rock, since the coast has both and the \
                 ground changes from one night to the next.</p><p>Written by walker {n}.</p></div>"
            )
        };
        let replies: String = (1..=6).map(reply).collect();
        let thread = |schema: &str| {
            format!(
                "<html><head><script type='application/ld+json'>{{\"@type\": \"{schema}\"}}</script>\
                 </head><body><main><h1>Which tent for a week in Norway?</h1>\
                 <div class='post'><p>{opening}</p></div>{replies}\
                 <div class='post'><blockquote><p>{opening}</p></blockquote>\
                 <p>Did you choose one in the end? We go in July.</p></div></main></body></html>"
            )
        };
        let text = to_text(
            &thread("DiscussionForumPosting"),
            "https://forum.example/t/tent",
        );
        assert_eq!(text.matches(opening).count(), 1, "{text}");
        assert!(text.contains("Did you choose one in the end?"), "{text}");
        let text = to_text(&thread("WebPage"), "https://forum.example/t/tent");
        assert_eq!(text.matches(opening).count(), 2, "{text}");
    }

    /// The signature under each post of a thread (a poster's motto, setup or shop) and the
    /// title or rank under the poster's name are furniture: the posts stay, they go.
    #[test]
    fn a_threads_signatures_and_user_titles_stay_out() {
        let post = |n: usize| {
            format!(
                "<article class='post'><div class='message-user'><b>walker{n}</b>\
                 <span class='userTitle'>Trail veteran</span></div>\
                 <div class='post-body'><p>Post number {n}: the tent held \
                 in the wind on the third night, and the pegs for sand were the ones we used \
                 most, so take more of them than you think you will need. Sand pegs are light, and a \
                 spare set weighs less than a lost night.</p><p>On the fourth night the rain \
                 came sideways off the fjord, and only the tunnel tent stayed dry inside; the \
                 dome tent of our friends let water in at every seam until the morning.</p></div>\
                 <div class='message-signature'><p>Visit my shop for maps!</p></div></article>"
            )
        };
        let posts: String = (1..=5).map(post).collect();
        let page = format!(
            "<html><body><main><h1>Which tent for a week in Norway?</h1>{posts}</main>\
             </body></html>"
        );
        let text = to_text(&page, "https://forum.example/t/tent");
        assert!(text.contains("Post number 5"), "{text}");
        assert!(!text.contains("Visit my shop"), "{text}");
        assert!(!text.contains("Trail veteran"), "{text}");
    }

    /// A reference page whose functions are documented in a definition list, followed by a long
    /// code listing: the listing's commas are not prose, so it does not outweigh the functions.
    #[test]
    fn a_code_listings_commas_do_not_choose_the_content() {
        let function = |name: &str| {
            format!(
                "<dl class='function'><dt>{name}(iterable, n)</dt><dd><p>Make an iterator that \
                 returns {name} elements from the iterable, one at a time, until it is used up, \
                 and then stops.</p><p>Roughly equivalent to the recipe below, with care taken \
                 over empty input.</p></dd></dl>"
            )
        };
        let functions: String = ["chain", "cycle", "islice", "repeat", "starmap", "tee"]
            .iter()
            .map(|n| function(n))
            .collect();
        let code = "def take(n, iterable, default=None, key=None, *rest):\n    return list(islice(iterable, n, default, key))\n".repeat(40);
        let page = format!(
            "<html><body><nav><a href='/'>Docs</a></nav><div class='body' role='main'>\
             <section id='module'><h1>iterators</h1><p>This module implements a number of \
             iterator building blocks.</p>\
             <section id='functions'><h2>Functions</h2>{functions}</section>\
             <section id='recipes'><h2>Recipes</h2><p>This section shows recipes for creating an \
             extended toolset, using the existing tools as building blocks.</p>\
             <div class='highlight'><pre>{code}</pre></div></section></section></div></body></html>"
        );
        let text = to_text(&page, "https://docs.example/library/iterators");
        assert!(text.contains("returns starmap elements"), "{text}");
        assert!(text.contains("def take"), "{text}");
    }

    /// A shop grid whose cards put the product's name in a link inside the card's `<figure>`:
    /// the names are content; an article's figure caption and credit stay out.
    #[test]
    fn the_name_in_a_cards_figure_is_content() {
        let cards: String = [
            "Trail runner GTX",
            "Road racer 6",
            "Fell shoe 2",
            "Track spike 9",
            "Cushioned trainer 41",
        ]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            format!(
                "<div class='card'><figure><a class='overlay' href='/p/{i}'>{name}</a>\
                     <a href='/p/{i}'><img src='/i/{i}.png' alt=''></a></figure>\
                     <div class='info'><span class='price'>£{i}9.99</span></div></div>"
            )
        })
        .collect();
        let page = format!(
            "<html><body><nav><a href='/'>Shop</a></nav><main><h1>Running shoes</h1>\
             <div class='grid'>{cards}</div></main></body></html>"
        );
        let text = to_text(&page, "https://shoes.example/running");
        for name in ["Trail runner GTX", "Cushioned trainer 41"] {
            assert!(text.contains(name), "{name} missing: {text}");
        }
        let story = "<p>The harbour wall was rebuilt over the winter after the storms of last year, and the fishing fleet has returned to the town in full, the council said on Monday.</p>";
        let article = format!(
            "<html><body><article><h1>Harbour reopens</h1>{story}\
             <figure><a href='/img/big.jpg'><img src='/img/wall.jpg' alt=''></a>\
             <figcaption>The new wall. <a href='/photographers/ann'>Photo: Ann Lee</a></figcaption></figure>{story}</article></body></html>"
        );
        let text = to_text(&article, "https://news.example/harbour");
        assert!(text.contains("fishing fleet"), "{text}");
        assert!(!text.contains("Ann Lee"), "{text}");
    }

    /// An FAQ built as an accordion: each question a heading inside the button that opens its
    /// answer. The questions are text; other buttons are not.
    #[test]
    fn the_questions_of_an_accordion_are_text() {
        let qa = |q: &str, a: &str| {
            format!(
                "<div class='faq-item'><button type='button'><h3>{q}</h3></button>\
                 <div class='faq-answer'><p>{a}</p></div></div>"
            )
        };
        let page = format!(
            "<html><body><main><h1>Questions</h1>{}{}{}<button>Load more</button></main></body></html>",
            qa("Who can join the scheme?", "Anyone who has lived in the district for a year can join, whatever their age or work, by filling in the form at the library."),
            qa("What does it cost?", "Membership is free for the first year and then costs twelve pounds a year, which pays for the insurance of the tools we lend."),
            qa("How long can I keep a tool?", "Most tools go out for a week at a time, and you can renew a loan twice online if nobody else has asked for the same tool."),
        );
        let text = to_text(&page, "https://tools.example/faq");
        for q in [
            "Who can join the scheme?",
            "What does it cost?",
            "How long can I keep a tool?",
        ] {
            assert!(text.contains(q), "{q} missing: {text}");
        }
        assert!(!text.contains("Load more"), "{text}");
    }

    /// An FAQ whose answers are hidden (a utility class, an inline style) until a question is
    /// clicked, with no class that names an accordion: an element right after a question is
    /// its answer, and text. Other hidden text stays out.
    #[test]
    fn the_hidden_answers_of_an_faq_are_text() {
        let qa = |q: &str, a: &str, hide: &str| {
            format!(
                "<div class='py-6'><button type='button'><h5>{q}</h5></button>{}</div>",
                hide.replace("{}", a)
            )
        };
        let page = format!(
            "<html><body><main><h1>Questions</h1>\
             <p>The tool library lends drills, saws and ladders to everyone who lives in the district.</p>{}{}{}\
             <div class='hidden'><p>Our newsletter comes out every month with the tools that came in.</p></div>\
             </main></body></html>",
            qa("Who can join the scheme?", "Anyone who has lived in the district for a year can join, whatever their age or work.", "<div class='text-sm hidden'><p>{}</p></div>"),
            qa("What does it cost?", "Membership is free for the first year and then costs twelve pounds a year.", "<div style='visibility:hidden'><p>{}</p></div>"),
            qa("How long can I keep a tool?", "Most tools go out for a week at a time, and you can renew a loan twice online.", "<div hidden><p>{}</p></div>"),
        );
        let text = to_text(&page, "https://tools.example/faq");
        for a in ["whatever their age", "twelve pounds", "renew a loan"] {
            assert!(text.contains(a), "{a} missing: {text}");
        }
        assert!(!text.contains("newsletter"), "{text}");
    }

    /// Tabs whose panels other than the first are hidden: the tabs name the panels they open
    /// (`aria-controls`), and the panels are text. A hidden element nothing opens stays out.
    #[test]
    fn the_hidden_panels_that_tabs_open_are_text() {
        let page = "<html><body><main><h1>Our plans</h1>\
             <p>Every plan includes the same support team and the same service agreement.</p>\
             <div role='tablist'><button aria-controls='plan-home'>Home</button>\
             <button aria-controls='plan-office'>Office</button></div>\
             <div id='plan-home' class='panel'><p>The home plan covers two computers and a printer, with a visit every year.</p></div>\
             <div id='plan-office' class='panel is-hidden' aria-hidden='true'><p>The office plan covers up to forty desks, with an engineer on site each week.</p></div>\
             <div id='survey' style='display:none'><p>Tell us what you think of the new website in two minutes.</p></div>\
             </main></body></html>";
        let text = to_text(page, "https://it.example/plans");
        assert!(text.contains("two computers"), "{text}");
        assert!(text.contains("forty desks"), "{text}");
        assert!(!text.contains("two minutes"), "{text}");
    }

    /// A service page: a short block of comma-dense teasers scores best, but most of the text
    /// is in sibling sections, one paragraph each.
    #[test]
    fn a_page_of_sibling_sections_keeps_them_all() {
        let teaser = "<p>Backups, restores, audits, reports, alerts, and logs, for clinics, labs, and surgeries.</p>";
        let section = |i: usize, words: &str| {
            format!(
                "<section><div class='body{i}'><p>{}</p></div></section>",
                words.repeat(5)
            )
        };
        let sections: String = [
            "Every night each device in the clinic is backed up to two data centres in the country ",
            "A single file or a whole server comes back in minutes from the last ninety nightly copies ",
            "Audit logs and retention rules meet the health regulator's rules with yearly reports ",
            "One price per device per month with no charge for storage and the first three months free ",
            "Support staff answer the phone at any hour and speak to the clinic's own technician first ",
            "Moving from another backup service takes a day and the old copies are imported as they are ",
        ]
        .iter()
        .enumerate()
        .map(|(i, w)| section(i, w))
        .collect();
        let page = format!(
            "<html><body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>\
             <div class='page'><div class='teasers'>{}</div>{sections}</div>\
             <footer>Contact us</footer></body></html>",
            teaser.repeat(4)
        );
        let text = to_text(&page, "https://backup.example/");
        for part in [
            "two data centres",
            "ninety nightly copies",
            "health regulator",
            "imported as they are",
        ] {
            assert!(text.contains(part), "{part} missing: {text}");
        }
        assert!(!text.contains("Contact us"), "{text}");
    }
}

#[cfg(test)]
mod shell_tests {
    use super::to_markdown;

    #[test]
    fn a_script_shell_whose_only_text_is_its_footer_has_no_content() {
        let links: String = (0..30)
            .map(|i| format!("<a href='/help/{i}'>Help topic number {i}</a>, "))
            .collect();
        let page = format!(
            "<html><head><script src='/app.js'></script></head><body>\
             <div id='root'></div>\
             <footer><div class='site-footer'><dl><dt>Help</dt><dd>{links}</dd></dl>\
             <p>Terms of use, privacy policy and the legal notice of the shop, all rights reserved since 2010.</p>\
             </div></footer></body></html>"
        );
        let out = to_markdown(&page, "https://shop.example/item/1");
        assert_eq!(out.text, "", "{}", out.text);
        assert!(
            out.warnings.iter().any(|w| w.contains("built by scripts")),
            "{:?}",
            out.warnings
        );
    }
}

#[cfg(test)]
mod card_tests {
    use super::to_text;

    #[test]
    fn captions_inside_the_cards_of_a_shop_grid_are_content() {
        let names = [
            "Canvas gear bag, large",
            "Canvas gear bag, small",
            "Camp cutlery roll",
            "Folding camp kettle",
            "Enamel mug set of four",
            "Waxed cotton tarp",
        ];
        let cards: String = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                format!(
                    "<li class='product type-product post-{i}'><div class='product-block'>\
                     <div class='product-image'><a href='/p/{i}'><img src='/i/{i}.webp' alt=''></a></div>\
                     <div class='product-caption'><h3><a href='/p/{i}'>{n}</a></h3>\
                     <div class='short-description'>The {n} is made to last for years of \
                     trips, packed with care and shipped within two days of your order.</div>\
                     <span class='price'>$2{i}.00</span></div></div></li>"
                )
            })
            .collect();
        let menu: String = (0..40)
            .map(|i| format!("<li><a href='/c/{i}'>Category number {i}</a></li>"))
            .collect();
        let page = format!(
            "<html><body><header><ul>{menu}</ul></header>\
             <div class='shop'><h1>Outdoor gear</h1><ul class='products'>{cards}</ul></div>\
             <footer><p>Shipping, returns and the terms of the shop, all in one place.</p></footer>\
             </body></html>"
        );
        let text = to_text(&page, "https://shop.example/c/outdoor");
        for n in names {
            assert!(text.contains(n), "{n} missing: {text}");
        }
        assert!(!text.contains("Category number"), "{text}");
    }
}

#[cfg(test)]
mod figure_tests {
    use super::to_text;

    #[test]
    fn a_quotation_in_a_figure_is_content_and_an_image_caption_is_not() {
        let quote = |who: &str, text: &str| {
            format!("<figure class='block'><blockquote><p>{text}</p></blockquote><figcaption>{who}</figcaption></figure>")
        };
        let page = format!(
            "<html><body><main><h1>Reviews of our classes</h1>{}{}{}\
             <figure><img src='/studio.jpg'><figcaption>The studio by night</figcaption></figure>\
             </main></body></html>",
            quote("Ann", "The morning class changed how I start the day; the teacher notices every student and adjusts each pose for them."),
            quote("Bo", "I came for my back and stayed for the calm: after a term of weekly sessions I sleep better than I have in years."),
            quote("Cy", "Small groups, clear guidance and a warm room in winter; I have recommended the evening course to all my colleagues."),
        );
        let text = to_text(&page, "https://yoga.example/reviews");
        for part in [
            "notices every student",
            "sleep better",
            "warm room in winter",
        ] {
            assert!(text.contains(part), "{part} missing: {text}");
        }
        assert!(!text.contains("studio by night"), "{text}");
    }

    #[test]
    fn a_hidden_figure_stays_out_though_it_quotes() {
        let body = "The evening course runs for ten weeks in the hall by the park, and every session ends with a quiet half hour of rest. ";
        let page = format!(
            "<html><body><main><h1>Evening course</h1><p>{}</p>\
             <figure aria-hidden='true'><blockquote><p>A copy of a slide the carousel shows twice.</p></blockquote></figure>\
             </main></body></html>",
            body.repeat(3)
        );
        let text = to_text(&page, "https://yoga.example/evening");
        assert!(text.contains("quiet half hour"), "{text}");
        assert!(!text.contains("carousel shows twice"), "{text}");
    }
}

#[cfg(test)]
mod list_page_tests {
    use super::to_text;

    const HEADLINES: [&str; 6] = [
        "Storm closes the coastal road for a second night",
        "Council approves the new bridge over the river",
        "Local bakery wins the national bread prize again",
        "Schools reopen after the long summer repairs finish",
        "Hospital opens a new ward for older patients",
        "Harbour festival returns with boats from six countries",
    ];

    /// Cards each wrapped whole in a link: headline and summary.
    fn cards() -> String {
        HEADLINES
            .iter()
            .enumerate()
            .map(|(i, h)| {
                format!(
                    "<div class='card'><a href='/story/{i}'><h3>{h}</h3>\
                     <p>Read how the town reacted and what happens next week.</p></a></div>"
                )
            })
            .collect()
    }

    #[test]
    fn the_cards_of_a_list_page_are_its_content() {
        let page = format!(
            "<html><head><meta property='og:type' content='website'></head><body>\
             <nav><a href='/'>Home</a> <a href='/news'>News</a></nav>\
             <main><h1>Latest news</h1><div class='grid'>{}</div></main>\
             <footer>About us</footer></body></html>",
            cards()
        );
        let text = to_text(&page, "https://news.example/");
        for h in HEADLINES {
            assert!(text.contains(h), "{h} missing: {text}");
        }
        assert!(!text.contains("About us"), "{text}");
    }

    #[test]
    fn a_shop_category_that_og_calls_an_article_keeps_its_cards() {
        // WordPress sets `og:type` article on every page; a grid of nothing but links is a
        // list page still.
        let page = format!(
            "<html><head><meta property='og:type' content='article'></head><body>\
             <main><h1>Latest news</h1><div class='grid'>{}</div></main></body></html>",
            cards()
        );
        let text = to_text(&page, "https://news.example/");
        for h in HEADLINES {
            assert!(text.contains(h), "{h} missing: {text}");
        }
    }

    #[test]
    fn cards_under_an_article_are_not() {
        let body = "The coastal road stayed shut on Tuesday night as waves broke over the sea wall, and the council said it would reopen once engineers had checked the surface. ";
        let page = format!(
            "<html><head><meta property='og:type' content='article'></head><body>\
             <main><h1>Storm closes the coastal road</h1><p>{body}</p><div class='grid'>{}</div>\
             </main></body></html>",
            cards()
        );
        let text = to_text(&page, "https://news.example/storm");
        assert!(text.contains("sea wall"), "{text}");
        assert!(!text.contains("bread prize"), "{text}");
    }
}

#[cfg(test)]
mod main_tests {
    use super::super::analysis::Analysis;
    use super::super::dom::{parse, Tag};
    use super::widen_to_main;

    /// A service page: a grid of feature cards, then an FAQ list (`<ul>`) the rules may choose.
    fn service(head: &str, cards: usize) -> String {
        let card = "<div class='card'><h3>Reports</h3><p>See which emails bring sales, and why. \
                    It takes a minute to set up.</p></div>";
        let answer = "Yes. Every plan includes the sending infrastructure, the list tools and the \
                      support team, and you can move between plans at any time. ";
        let faq: String = (1..=4)
            .map(|i| format!("<li><h3>Question {i}</h3><p>{answer}</p></li>"))
            .collect();
        format!(
            "<html><head>{head}</head><body><header><a href='/'>Home</a></header><main>\
             <section><h2>Features</h2>{}</section><section><ul>{faq}</ul></section></main>\
             <footer>Company</footer></body></html>",
            card.repeat(cards)
        )
    }

    fn widened(page: &str) -> bool {
        let doc = parse(page);
        let an = Analysis::new(&doc);
        let find = |tag| (0..doc.nodes.len() as u32).find(|&i| doc.tag(i) == Some(tag));
        let main = find(Tag::Main)
            .or_else(|| (0..doc.nodes.len() as u32).find(|&i| doc.attr(i, "role") == Some("main")))
            .unwrap();
        let ul = find(Tag::Ul).unwrap();
        widen_to_main(&doc, &an, vec![ul]) == [main]
    }

    #[test]
    fn the_main_element_holds_a_service_pages_sections() {
        // The FAQ holds under 70 % of <main>: all of <main> is the content.
        assert!(widened(&service("", 6)));
        // `role=main` says the same.
        let role = service("", 6)
            .replace("<main>", "<div role='main'>")
            .replace("</main>", "</div>");
        assert!(widened(&role));
        // The FAQ is most of <main>: the rules' choice stands.
        assert!(!widened(&service("", 1)));
        // A page whose JSON-LD says it is an article keeps the rules' choice.
        let article = "<script type='application/ld+json'>{\"@type\": \"NewsArticle\"}</script>";
        assert!(!widened(&service(article, 6)));
    }
}

//! Markdown writing and block typing on a small article page with every kind of block.

use kerai_core::convert::html::{self, BlockKind, SectionType};

fn article() -> String {
    let p =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/html/article.html");
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn markdown_of_the_main_content() {
    let ex = html::to_markdown(&article(), "https://news.example.org/science/tidal");
    let md = &ex.markdown;
    assert_eq!(ex.title.as_deref(), Some("Tidal energy explained"));
    assert!(
        md.starts_with("# Tidal energy explained\n\nTidal power converts"),
        "{md}"
    );
    assert!(md.contains("It is **predictable**, unlike wind, and [tide tables](https://news.example.org/science/tides.html) are known"), "{md}");
    assert!(md.contains("\n\n## How it works\n\n"), "{md}");
    assert!(md.contains("- Tidal stream generators, which work like underwater wind turbines\n- Barrages, which hold water behind a dam\n  1. Ebb generation\n  2. Flood generation"), "{md}");
    assert!(md.contains("### Sites\n\n| Site | Country | Capacity (MW) |\n| --- | --- | --- |\n| Sihwa Lake | South Korea | 254 |\n| La Rance | France | 240 |"), "{md}");
    assert!(
        md.contains(
            "> The tide is the most reliable renewable resource we have, and we should use it."
        ),
        "{md}"
    );
    assert!(
        md.contains("```python\npower = 0.5 * rho * area * v ** 3\nprint(power)\n```"),
        "{md}"
    );
    for boiler in [
        "Example News",
        "World news",
        "cookies",
        "By Jane Doe",
        "Share on Twitter",
        "Most read",
        "Copyright",
    ] {
        assert!(!md.contains(boiler), "{boiler} in {md}");
    }
    assert_eq!(ex.language.as_deref(), Some("en"));
    let text = html::to_text(&article(), "https://news.example.org/science/tidal");
    assert_eq!(text, ex.text);
    assert!(text.starts_with("Tidal power converts the energy of tides into electricity. It is predictable, unlike wind, and tide tables are known"));
    assert!(!text.contains("http") && !text.contains("**predictable") && !text.contains("# "));
}

#[test]
fn blocks_are_typed() {
    let ex = html::to_markdown(&article(), "https://news.example.org/science/tidal");
    let find = |t: &str| {
        ex.blocks
            .iter()
            .find(|b| b.text.starts_with(t))
            .unwrap_or_else(|| panic!("no block {t}"))
    };
    let h = find("How it works");
    assert_eq!(
        (h.kind, h.depth, h.section_type),
        (BlockKind::Heading, 2, SectionType::Content)
    );
    let item = find("Ebb generation");
    assert_eq!(item.kind, BlockKind::ListItem);
    assert_eq!(item.list_depth, 1);
    assert_eq!(
        item.section_path,
        ["Tidal energy explained", "How it works"]
    );
    assert_eq!(item.heading.as_deref(), Some("How it works"));
    assert_eq!(item.depth, 2);
    let table = find("Site | Country");
    assert_eq!(table.kind, BlockKind::Table);
    assert_eq!(
        table.section_path,
        ["Tidal energy explained", "How it works", "Sites"]
    );
    assert_eq!(find("The tide is").kind, BlockKind::Quote);
    assert_eq!(find("power = 0.5").kind, BlockKind::Code);
    assert_eq!(find("World news").section_type, SectionType::Navigation);
    assert_eq!(find("All the news").section_type, SectionType::Hero);
    assert_eq!(find("Ten ways").section_type, SectionType::Sidebar);
    assert_eq!(find("Copyright 2025").section_type, SectionType::Footer);
    assert!(!find("We use cookies").main);
    assert!(ex
        .blocks
        .iter()
        .filter(|b| b.main)
        .all(|b| b.section_type == SectionType::Content));
    let json = serde_json::to_value(&ex).unwrap();
    assert!(json["blocks"][0]["section_type"].as_str().is_some());
}

#[test]
fn links_for_the_crawler() {
    let links = html::links(&article(), "https://news.example.org/science/tidal");
    let urls: Vec<&str> = links.iter().map(|l| l.url.as_str()).collect();
    assert!(urls.contains(&"https://news.example.org/science/tides.html"));
    assert!(urls.contains(&"https://news.example.org/world"));
    assert!(urls.contains(&"https://twitter.com/share"));
}

#[test]
fn definition_lists_are_one_block() {
    let html = "<main><p>Opening hours of the library, for all readers and visitors alike.</p><dl><dt>Monday</dt><dd>9–17</dd><dt>Tuesday</dt><dd>9–20</dd><dd>late desk</dd></dl></main>";
    let ex = html::to_markdown(html, "https://l.example/");
    let b = ex
        .blocks
        .iter()
        .find(|b| b.kind == BlockKind::List)
        .expect("a list block");
    assert_eq!(b.text, "Monday: 9–17\nTuesday: 9–20; late desk");
    assert_eq!(b.markdown, "**Monday**: 9–17\n**Tuesday**: 9–20; late desk");
    assert!(ex.markdown.contains("**Monday**: 9–17"), "{}", ex.markdown);
}

#[test]
fn too_little_main_text_falls_back_to_the_body() {
    // Short lines score nothing; the one longer paragraph would win alone.
    let lines: String = (0..80)
        .map(|i| format!("<p>Line {i:02} of verse</p>"))
        .collect();
    let html = format!("<body><div class=poem>{lines}</div><div><p>Filed in the poetry section today</p></div></body>");
    let text = html::to_text(&html, "https://p.example/");
    assert!(
        text.contains("Line 00 of verse") && text.contains("Line 79 of verse"),
        "{text}"
    );
}

/// An article whose reference list outscores its prose (citations are full of commas): the
/// section headings and the short list between the prose paragraphs are still the article's.
#[test]
fn headings_between_prose_and_references_are_kept() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/site/research/active-inference.html");
    let html = std::fs::read_to_string(path).unwrap();
    let md =
        kerai_core::convert::html::to_markdown(&html, "https://example.org/research/").markdown;
    for heading in [
        "## Perception as inference",
        "## From perception to action",
        "## Expected free energy",
        "## Where to go next",
        "## References",
    ] {
        assert!(md.contains(heading), "missing {heading:?} in:\n{md}");
    }
    assert!(
        md.contains("- Our own lecture notes: [documents page]"),
        "{md}"
    );
    let refs = md.find("## References").unwrap();
    assert!(
        md[refs..].contains("1. Bell, G. S."),
        "the list follows its heading"
    );
    assert!(!md.contains("Search the site"), "the header stays out");
}

/// The answers of an FAQ sit in collapsed accordion panels (hidden until clicked): they are
/// the page's text. An element hidden for other reasons stays out.
#[test]
fn collapsed_accordion_and_tab_panels_are_content() {
    let answer =
        "Backups run every night at two and are kept for ninety days in a second data centre, \
                  so a file deleted by mistake can be restored by the help desk within the hour.";
    let tab = "The clinic plan adds encrypted off-site copies, a monthly restore test and a named \
               engineer who answers the phone, for a fixed price per practice and per month.";
    let page = format!(
        "<html><body><main><h1>Backups for clinics</h1>\
         <p>We keep the records of small clinics safe, with copies in two places and tests that prove they restore.</p>\
         <div class='cmp-accordion'><dl class='cmp-accordion__item'><dt><button aria-expanded='false' aria-controls='a1'>How often?</button></dt>\
         <dd id='a1' class='cmp-accordion__panel cmp-accordion__panel--hidden'><p>{answer}</p></dd></dl></div>\
         <div role='tabpanel' hidden><p>{tab}</p></div>\
         <div class='hidden'><p>A tracking note nobody sees, long enough to count as a paragraph of its own here.</p></div>\
         </main></body></html>"
    );
    let text = html::to_text(&page, "https://example.org/backups");
    assert!(text.contains("kept for ninety days"), "{text}");
    assert!(text.contains("monthly restore test"), "{text}");
    assert!(!text.contains("tracking note"), "{text}");
}

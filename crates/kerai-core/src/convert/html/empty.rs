//! Why a page gave no main content, said as a warning that tells the user what to fetch or do
//! next: a frameset, a page that only embeds another (`<iframe>`), a page that only links to a
//! document, a page built by scripts, or a page of nothing but navigation.

use super::dom::{Document, Tag};
use super::links::Link;

/// URLs named in a warning, at most.
const NAMED: usize = 3;

fn named(urls: &[&str]) -> String {
    let mut s = urls
        .iter()
        .take(NAMED)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if urls.len() > NAMED {
        s.push_str(&format!(" and {} more", urls.len() - NAMED));
    }
    s
}

/// The reason `doc` (with `links`, see [`super::links()`]) has no main content.
pub(crate) fn why_empty(doc: &Document, links: &[Link]) -> String {
    let of = |tag: &str| -> Vec<&str> {
        links
            .iter()
            .filter(|l| l.tag == tag)
            .map(|l| l.url.as_str())
            .collect()
    };
    let frames = of("frame");
    if doc.find(Tag::Frameset).is_some() || !frames.is_empty() {
        return if frames.is_empty() {
            "no main content: the page is a frameset without frame URLs".to_string()
        } else {
            format!(
                "no main content: the page is a frameset, its text is in its frames ({}); fetch those",
                named(&frames)
            )
        };
    }
    let iframes = of("iframe");
    if !iframes.is_empty() {
        return format!(
            "no main content: the page only embeds other pages ({}); fetch those",
            named(&iframes)
        );
    }
    let documents: Vec<&str> = links
        .iter()
        .filter(|l| l.document.is_some())
        .map(|l| l.url.as_str())
        .collect();
    if !documents.is_empty() {
        return format!(
            "no main content: the page only links to documents ({}); fetch those",
            named(&documents)
        );
    }
    if doc.find(Tag::Script).is_some() {
        return "no main content: the page has no text in its HTML and is built by scripts, which kerai does not run; fetch the data it loads, or a server-rendered view".to_string();
    }
    "no main content: the page has no text outside navigation, headers and footers".to_string()
}

#[cfg(test)]
mod tests {
    use crate::convert::html::to_markdown;

    fn warning(page: &str) -> String {
        let ex = to_markdown(page, "https://site.example/dir/page.html");
        assert!(ex.text.is_empty(), "{}", ex.text);
        assert_eq!(ex.warnings.len(), 1, "{:?}", ex.warnings);
        ex.warnings[0].clone()
    }

    #[test]
    fn a_frameset_names_its_frames() {
        let w = warning(
            "<html><head><title>Manual</title></head><frameset cols='20%,80%'>\
             <frame src='toc.html'><frame src='intro.html'></frameset></html>",
        );
        assert!(w.contains("frameset"), "{w}");
        assert!(w.contains("https://site.example/dir/toc.html"), "{w}");
        assert!(w.contains("https://site.example/dir/intro.html"), "{w}");
    }

    #[test]
    fn an_iframe_only_page_names_the_frame() {
        let w = warning(
            "<html><body><nav><a href='/'>Home</a></nav>\
             <iframe src='https://app.example/report/7'></iframe></body></html>",
        );
        assert!(w.contains("embeds"), "{w}");
        assert!(w.contains("https://app.example/report/7"), "{w}");
    }

    #[test]
    fn a_page_that_only_links_to_a_pdf_names_it() {
        let w = warning(
            "<html><body><p><a href='annual-report-2025.pdf'>Download</a></p></body></html>",
        );
        assert!(w.contains("links to documents"), "{w}");
        assert!(
            w.contains("https://site.example/dir/annual-report-2025.pdf"),
            "{w}"
        );
    }

    #[test]
    fn a_script_shell_says_so() {
        let w = warning(
            "<html><body><div id='root'></div><script src='/app.js'></script></body></html>",
        );
        assert!(w.contains("built by scripts"), "{w}");
    }

    #[test]
    fn a_page_with_text_has_no_warning() {
        let ex = to_markdown(
            "<html><body><p>A page with a sentence of its own, and a frame beside it.</p>\
             <iframe src='/ad'></iframe></body></html>",
            "https://site.example/",
        );
        assert!(ex.warnings.is_empty(), "{:?}", ex.warnings);
    }
}

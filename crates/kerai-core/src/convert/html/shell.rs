//! Script-rendered shells: a page whose body shows almost no text, with its content inside
//! `<noscript>` (the view forum and app software serves to clients without scripts). Parsed
//! the way a browser without scripts parses it, so the content inside `<noscript>` counts.

use super::dom::{parse, Document, Tag};

/// A body with fewer non-whitespace characters than this (scripts aside) is a shell...
const SHELL_CHARS: usize = 200;
/// ... when opening its `<noscript>` elements brings at least this many.
const OPENED_CHARS: usize = 500;

/// The parsed page: streamed segments are moved into place first (see `streamed`), and a
/// shell is parsed again with its `<noscript>` elements opened.
pub fn parse_page(html: &str) -> Document {
    let html = &super::streamed::place_segments(html);
    let doc = parse(html);
    if !has_noscript(html) {
        return doc;
    }
    let shown = body_chars(&doc);
    if shown >= SHELL_CHARS {
        return doc;
    }
    let opened = parse(&open_noscript(html));
    let now = body_chars(&opened);
    if now >= OPENED_CHARS && now >= 3 * shown {
        opened
    } else {
        doc
    }
}

fn has_noscript(html: &str) -> bool {
    let b = html.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        c == b'<'
            && b.get(i + 1..i + 9)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"noscript"))
    })
}

/// Non-whitespace characters of the body's text, outside scripts, styles and templates.
fn body_chars(doc: &Document) -> usize {
    let Some(body) = doc.find(Tag::Body) else {
        return 0;
    };
    (body..doc.subtree_end(body))
        .filter_map(|id| {
            let t = doc.text(id)?;
            let parent = doc.tag(doc.node(id).parent);
            if matches!(parent, Some(Tag::Script | Tag::Style | Tag::Template)) {
                return None;
            }
            Some(t.chars().filter(|c| !c.is_whitespace()).count())
        })
        .sum()
}

/// `html` without its `<noscript …>` and `</noscript>` tags (their content kept in place).
fn open_noscript(html: &str) -> String {
    let b = html.as_bytes();
    let mut out = String::with_capacity(html.len());
    let mut copied = 0;
    let mut i = 0;
    while let Some(off) = b[i..].iter().position(|&c| c == b'<') {
        let at = i + off;
        let close = b.get(at + 1) == Some(&b'/');
        let name_at = at + 1 + usize::from(close);
        let is_tag = b.len() >= name_at + 8
            && b[name_at..name_at + 8].eq_ignore_ascii_case(b"noscript")
            && b.get(name_at + 8)
                .is_none_or(|c| c.is_ascii_whitespace() || *c == b'>' || *c == b'/');
        if !is_tag {
            i = at + 1;
            continue;
        }
        let end = b[name_at..]
            .iter()
            .position(|&c| c == b'>')
            .map_or(b.len(), |p| name_at + p + 1);
        out.push_str(&html[copied..at]);
        copied = end;
        i = end;
    }
    out.push_str(&html[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize) -> String {
        (0..n).map(|i| format!("word{i} ")).collect()
    }

    #[test]
    fn noscript_tags_are_opened_and_their_content_kept() {
        assert_eq!(
            open_noscript("<p>a<NoScript data-x='1'><div>b</div></noscript ><noscripts>c"),
            "<p>a<div>b</div><noscripts>c"
        );
        assert_eq!(open_noscript("<noscript"), "");
        assert_eq!(open_noscript("<p>plain</p>"), "<p>plain</p>");
    }

    #[test]
    fn a_shell_is_read_through_its_noscript_view() {
        let page = format!(
            "<html><body><div id=app></div><noscript><main><h1>Topic</h1><p>{}</p></main></noscript></body></html>",
            words(120)
        );
        assert!(body_chars(&parse(&page)) < SHELL_CHARS);
        assert!(body_chars(&parse_page(&page)) > OPENED_CHARS);
    }

    #[test]
    fn a_page_with_text_keeps_its_noscript_closed() {
        let page = format!(
            "<html><body><main><p>{}</p></main><noscript><p>{}</p></noscript></body></html>",
            words(60),
            words(300)
        );
        let n = body_chars(&parse(&page));
        assert_eq!(body_chars(&parse_page(&page)), n);
    }

    #[test]
    fn a_tracking_pixel_in_noscript_changes_nothing() {
        let page =
            "<html><body><p>Short page.</p><noscript><img src=p.gif></noscript></body></html>";
        assert_eq!(body_chars(&parse_page(page)), body_chars(&parse(page)));
    }
}

//! Streamed server rendering (React 18 and later, as Next.js and Remix serve it): a part of
//! the page that was not ready is first sent as a placeholder, `<!--$?--><template
//! id="B:1"></template>…fallback…<!--/$-->` or `<template id="P:1"></template>`, and its
//! content follows at the end of the body in `<div hidden id="S:1">…</div>`, with a script
//! (`$RC("B:1","S:1")`, `$RS("S:1","P:1")`) that moves it into place. A reader without
//! scripts sees the content hidden, away from its section; here it is moved as the script
//! would, before the page is parsed.

use std::borrow::Cow;
use std::collections::HashMap;

/// The opening of a streamed segment as React writes it.
const SEGMENT: &str = "<div hidden id=\"S:";
/// The start of a boundary's fallback, right before its `B:` template.
const PENDING: &str = "<!--$?-->";
/// Segments inside segments are filled up to this depth; deeper ones stay as written.
const MAX_DEPTH: usize = 32;

/// `html` with each streamed segment moved to its placeholder; unchanged when it has none.
pub fn place_segments(html: &str) -> Cow<'_, str> {
    if !html.contains(SEGMENT) {
        return Cow::Borrowed(html);
    }
    let moves = moves(html);
    if moves.is_empty() {
        return Cow::Borrowed(html);
    }
    let (rest, mut segments) = take_segments(html);
    if segments.is_empty() {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len());
    fill(&rest, &moves, &mut segments, &mut out, 0);
    // Segments no placeholder asked for stay hidden, at the end of the page (where React
    // writes them).
    let mut left: Vec<_> = segments.into_iter().collect();
    left.sort_by_key(|(_, s)| s.at);
    for (_, s) in left {
        out.push_str(s.whole);
    }
    Cow::Owned(out)
}

/// A segment's content, the whole `<div hidden …>…</div>` and where it started.
struct Segment<'a> {
    inner: &'a str,
    whole: &'a str,
    at: usize,
}

/// Placeholder id → segment id, read from the scripts' calls: `$RC("B:1","S:1")` and
/// `$RR("B:1","S:1",…)` fill a boundary, `$RS("S:1","P:1")` a segment placeholder.
fn moves(html: &str) -> HashMap<&str, &str> {
    let mut out = HashMap::new();
    let mut from = 0;
    while let Some(k) = html[from..].find("$R") {
        let at = from + k;
        from = at + 2;
        let Some(call) = html.get(at + 2..at + 4) else {
            break;
        };
        let (first, second) = match quoted_pair(&html[at + 4..]) {
            Some(p) => p,
            None => continue,
        };
        match call {
            "C(" | "R(" if first.starts_with("B:") && second.starts_with("S:") => {
                out.insert(first, second);
            }
            "S(" if first.starts_with("S:") && second.starts_with("P:") => {
                out.insert(second, first);
            }
            _ => {}
        }
    }
    out
}

/// The two quoted arguments at the head of `s`: `"a","b"`.
fn quoted_pair(s: &str) -> Option<(&str, &str)> {
    let s = s.strip_prefix('"')?;
    let end = s.find('"')?;
    let (a, rest) = (&s[..end], &s[end + 1..]);
    let rest = rest.strip_prefix(',')?.trim_start().strip_prefix('"')?;
    let end = rest.find('"')?;
    let b = &rest[..end];
    let short = |x: &str| x.len() <= 16 && !x.contains(['<', '>']);
    (short(a) && short(b)).then_some((a, b))
}

/// The page without its segments, and the segments by id (`S:1`).
fn take_segments(html: &str) -> (String, HashMap<&str, Segment<'_>>) {
    let mut rest = String::with_capacity(html.len());
    let mut segments = HashMap::new();
    let mut from = 0;
    let mut copied = 0;
    while let Some(k) = html[from..].find(SEGMENT) {
        let at = from + k;
        let id_at = at + SEGMENT.len() - 2;
        let Some(id_len) = html[id_at..].find('"') else {
            break;
        };
        let id = &html[id_at..id_at + id_len];
        let Some(open_len) = html[at..].find('>') else {
            break;
        };
        let inner_at = at + open_len + 1;
        // Unclosed: later segments would be searched to the end again (quadratic); the rest
        // stays as written.
        let Some((close_at, end)) = matching_div_end(html, inner_at) else {
            break;
        };
        rest.push_str(&html[copied..at]);
        segments.insert(
            id,
            Segment {
                inner: &html[inner_at..close_at],
                whole: &html[at..end],
                at,
            },
        );
        copied = end;
        from = end;
    }
    rest.push_str(&html[copied..]);
    (rest, segments)
}

/// Where the `</div>` that closes a `<div>` whose content starts at `from` starts and ends.
fn matching_div_end(html: &str, from: usize) -> Option<(usize, usize)> {
    let b = html.as_bytes();
    let mut depth = 1usize;
    let mut i = from;
    while let Some(k) = html[i..].find('<') {
        let at = i + k;
        i = at + 1;
        let tag_end = |name_end: usize| {
            b.get(name_end)
                .is_none_or(|c| c.is_ascii_whitespace() || *c == b'>' || *c == b'/')
        };
        if b.get(at + 1..at + 4) == Some(b"div") && tag_end(at + 4) {
            depth += 1;
        } else if b.get(at + 1..at + 5) == Some(b"/div") && tag_end(at + 5) {
            depth -= 1;
            if depth == 0 {
                let close = html[at..].find('>')?;
                return Some((at, at + close + 1));
            }
        }
    }
    None
}

/// Writes `text` to `out` with each placeholder whose segment arrived replaced by the
/// segment (itself filled).
fn fill<'a>(
    text: &str,
    moves: &HashMap<&str, &'a str>,
    segments: &mut HashMap<&'a str, Segment<'a>>,
    out: &mut String,
    depth: usize,
) {
    const TEMPLATE: &str = "<template id=\"";
    let mut from = 0;
    let mut copied = 0;
    while let Some(k) = text[from..].find(TEMPLATE) {
        let at = from + k;
        let id_at = at + TEMPLATE.len();
        from = id_at;
        let Some(id_len) = text[id_at..].find('"') else {
            break;
        };
        let id = &text[id_at..id_at + id_len];
        let Some(template_end) = text[id_at..]
            .find("</template>")
            .map(|e| id_at + e + "</template>".len())
        else {
            break;
        };
        let Some(&segment_id) = moves.get(id).filter(|s| segments.contains_key(*s)) else {
            continue;
        };
        let range = if id.starts_with("B:") && text[..at].ends_with(PENDING) {
            // Unclosed: the boundaries after it would each be searched to the end again.
            let Some(end) = fallback_end(text, template_end) else {
                break;
            };
            (at - PENDING.len(), end)
        } else if id.starts_with("P:") {
            (at, template_end)
        } else {
            continue;
        };
        let Some(segment) = segments.remove(segment_id) else {
            continue;
        };
        out.push_str(&text[copied..range.0]);
        if depth < MAX_DEPTH {
            fill(segment.inner, moves, segments, out, depth + 1);
        } else {
            out.push_str(segment.inner);
        }
        copied = range.1;
        from = range.1;
    }
    out.push_str(&text[copied..]);
}

/// The end of the `<!--/$-->` that closes the boundary whose fallback starts at `from`
/// (boundaries inside the fallback counted).
fn fallback_end(text: &str, from: usize) -> Option<usize> {
    let mut depth = 1usize;
    let mut i = from;
    while let Some(k) = text[i..].find("<!--") {
        let at = i + k;
        let rest = &text[at + 4..];
        if rest.starts_with("/$-->") {
            depth -= 1;
            if depth == 0 {
                return Some(at + 4 + "/$-->".len());
            }
        } else if rest.starts_with('$') {
            depth += 1;
        }
        i = at + 4;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::place_segments;

    #[test]
    fn a_boundary_gets_its_segment_in_place_of_the_fallback() {
        let page = "<body><section><!--$?--><template id=\"B:0\"></template><p>Loading…</p><!--/$--></section>\
                    <footer>f</footer><div hidden id=\"S:0\"><div><p>Deploy from git.</p></div></div>\
                    <script>$RC(\"B:0\",\"S:0\")</script></body>";
        let placed = place_segments(page);
        assert_eq!(
            placed,
            "<body><section><div><p>Deploy from git.</p></div></section><footer>f</footer>\
             <script>$RC(\"B:0\",\"S:0\")</script></body>"
        );
    }

    #[test]
    fn segments_inside_segments_and_placeholders_of_segments() {
        let page = "<main><template id=\"P:1\"></template></main>\
                    <div hidden id=\"S:1\"><h2>Plans</h2><!--$?--><template id=\"B:2\"></template><!--$--><i>x</i><!--/$--><!--/$--></div>\
                    <div hidden id=\"S:2\"><p>Free tier</p></div>\
                    <script>$RS(\"S:1\",\"P:1\");$RC(\"B:2\",\"S:2\")</script>";
        let placed = place_segments(page);
        assert!(
            placed.starts_with("<main><h2>Plans</h2><p>Free tier</p></main><script>"),
            "{placed}"
        );
    }

    #[test]
    fn a_segment_nothing_asks_for_stays_hidden_and_pages_without_any_are_untouched() {
        let page =
            "<p>a</p><div hidden id=\"S:9\"><p>b</p></div><script>$RC(\"B:1\",\"S:1\")</script>";
        assert_eq!(
            place_segments(page),
            "<p>a</p><script>$RC(\"B:1\",\"S:1\")</script><div hidden id=\"S:9\"><p>b</p></div>"
        );
        let plain = "<p>No streaming here</p><div hidden>x</div>";
        assert!(matches!(
            place_segments(plain),
            std::borrow::Cow::Borrowed(_)
        ));
        // An unclosed segment is left as written.
        let broken = "<template id=\"P:1\"></template><div hidden id=\"S:1\"><div>open\
                      <script>$RS(\"S:1\",\"P:1\")</script>";
        assert_eq!(place_segments(broken), broken);
    }
}

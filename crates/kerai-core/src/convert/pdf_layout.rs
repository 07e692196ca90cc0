//! Turning positioned glyphs of PDF pages into markdown: lines and words from positions,
//! paragraphs from line spacing, tables from aligned gap-separated columns, headings from
//! numbering (`1.`, `2.1`), font size and ALL CAPS short lines; repeated page headers and
//! footers and bare page numbers are dropped. Each page starts with `<!-- page N -->`.

use super::markdown::{heading, join_blocks, table};
use std::collections::HashMap;

/// One glyph as shown: its text, baseline origin (PDF user space, y up), advance and size.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Glyph {
    pub text: String,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub size: f64,
}

/// A page as text lines (built from its glyphs as soon as the page ends, so that glyphs of
/// only one page are held at a time).
#[derive(Debug, Clone, Default)]
pub(crate) struct Page {
    pub number: usize,
    lines: Vec<Line>,
}

impl Page {
    /// Builds the page's lines from its glyphs in content-stream order.
    pub(crate) fn from_glyphs(number: usize, glyphs: &[Glyph]) -> Self {
        Page {
            number,
            lines: lines_of(glyphs),
        }
    }
}

/// A text line: gap-separated segments (columns), its baseline and dominant font size.
#[derive(Debug, Clone)]
struct Line {
    segments: Vec<Segment>,
    y: f64,
    size: f64,
}

#[derive(Debug, Clone)]
struct Segment {
    text: String,
    x0: f64,
    x1: f64,
}

impl Line {
    fn text(&self) -> String {
        self.segments
            .iter()
            .map(|s| s.text.trim())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Groups glyphs into lines: a new line starts when the baseline moves by more than half the
/// glyph size, or the pen jumps back left. Words are split on gaps over 0.15 em, columns on
/// gaps over 1.5 em.
fn lines_of(glyphs: &[Glyph]) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut sizes: Vec<(f64, usize)> = Vec::new();
    for g in glyphs {
        if !g.x.is_finite() || !g.y.is_finite() || !g.size.is_finite() {
            continue;
        }
        let size = g.size.abs().max(0.1);
        let new_line = match lines.last() {
            None => true,
            Some(l) => {
                let last = l.segments.last().map(|s| s.x1).unwrap_or(g.x);
                (g.y - l.y).abs() > size * 0.5 || g.x < last - size * 2.0
            }
        };
        if new_line {
            if let Some(l) = lines.last_mut() {
                l.size = dominant(&sizes);
            }
            sizes.clear();
            lines.push(Line {
                segments: Vec::new(),
                y: g.y,
                size,
            });
        }
        let line = lines.last_mut().expect("a line was just pushed");
        sizes.push((size, g.text.chars().count()));
        let advance = if g.width.is_finite() && g.width > 0.0 {
            g.width
        } else {
            size * 0.5
        };
        match line.segments.last_mut() {
            Some(seg) if g.x - seg.x1 <= size * 1.5 => {
                if g.x - seg.x1 > size * 0.15 && !seg.text.ends_with(' ') && g.text != " " {
                    seg.text.push(' ');
                }
                if !(g.text == " " && seg.text.ends_with(' ')) {
                    seg.text.push_str(&g.text);
                }
                seg.x1 = seg.x1.max(g.x + advance);
            }
            _ => {
                if g.text.trim().is_empty() {
                    continue;
                }
                line.segments.push(Segment {
                    text: g.text.clone(),
                    x0: g.x,
                    x1: g.x + advance,
                });
            }
        }
    }
    if let Some(l) = lines.last_mut() {
        l.size = dominant(&sizes);
    }
    for l in &mut lines {
        for s in &mut l.segments {
            s.text = s.text.split_whitespace().collect::<Vec<_>>().join(" ");
        }
        l.segments.retain(|s| !s.text.is_empty());
    }
    lines.retain(|l| !l.segments.is_empty());
    lines
}

/// The size carrying the most characters.
fn dominant(sizes: &[(f64, usize)]) -> f64 {
    let mut by: HashMap<i64, (f64, usize)> = HashMap::new();
    for (s, n) in sizes {
        let e = by.entry((s * 10.0).round() as i64).or_insert((*s, 0));
        e.1 += n.max(&1);
    }
    by.values()
        .max_by_key(|(_, n)| *n)
        .map(|(s, _)| *s)
        .unwrap_or(10.0)
}

/// Lines that are page furniture: repeated (digits ignored) as the first or last line of at least
/// half of the pages (and three or more), or a bare page number.
fn furniture(pages: &[&[Line]]) -> Vec<String> {
    let norm = |l: &Line| {
        l.text()
            .chars()
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .collect::<String>()
    };
    let mut counts: HashMap<String, usize> = HashMap::new();
    for lines in pages {
        let mut seen = Vec::new();
        for l in lines.first().into_iter().chain(lines.last()) {
            let n = norm(l);
            if !seen.contains(&n) {
                seen.push(n.clone());
                *counts.entry(n).or_default() += 1;
            }
        }
    }
    counts
        .into_iter()
        .filter(|(_, c)| pages.len() >= 3 && *c * 2 >= pages.len())
        .map(|(t, _)| t)
        .collect()
}

fn is_page_number(text: &str) -> bool {
    let t = text.trim().to_lowercase();
    let t = t
        .trim_start_matches("page")
        .trim_start_matches("página")
        .trim();
    let mut parts = t
        .split(|c: char| c == '/' || c.is_whitespace())
        .filter(|p| !p.is_empty() && *p != "of" && *p != "de");
    let first = parts.next();
    first.is_some_and(|p| p.chars().all(|c| c.is_ascii_digit()) && p.len() <= 5)
        && parts.all(|p| p.chars().all(|c| c.is_ascii_digit()))
}

/// A numbered heading's depth: `1.` / `1` → 1, `2.1` → 2, `3.2.1.` → 3 (the number must be
/// followed by a space and a capitalised word, the line short and not a sentence).
pub(crate) fn numbered_heading_level(text: &str) -> Option<usize> {
    let t = text.trim();
    let (num, rest) = t.split_once(' ')?;
    let num_trim = num.trim_end_matches('.');
    if num_trim.is_empty() || num_trim.len() > 12 {
        return None;
    }
    let parts: Vec<&str> = num_trim.split('.').collect();
    if !parts
        .iter()
        .all(|p| !p.is_empty() && p.len() <= 3 && p.chars().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    let rest = rest.trim();
    let words = rest.split_whitespace().count();
    let starts_upper = rest.chars().next().is_some_and(|c| c.is_uppercase());
    let sentence_end = rest.ends_with(['.', ';', ',', ':']);
    (starts_upper && !sentence_end && (1..=10).contains(&words) && t.chars().count() <= 90)
        .then_some(parts.len().min(6))
}

/// A short line in capitals (at least four letters, no lower case).
fn is_all_caps(text: &str) -> bool {
    let letters: Vec<char> = text.chars().filter(|c| c.is_alphabetic()).collect();
    letters.len() >= 4
        && letters.iter().all(|c| !c.is_lowercase())
        && text.split_whitespace().count() <= 8
        && text.chars().count() <= 60
}

/// Renders pages to markdown. `body` is the body font size (the size carrying most text).
pub(crate) fn render(pages: &[Page]) -> String {
    let page_lines: Vec<&[Line]> = pages.iter().map(|p| p.lines.as_slice()).collect();
    let drop = furniture(&page_lines);
    let mut sizes: Vec<(f64, usize)> = Vec::new();
    for l in page_lines.iter().flat_map(|p| p.iter()) {
        sizes.push((l.size, l.text().chars().count()));
    }
    let body = dominant(&sizes);
    // Larger sizes used by short lines become heading levels, largest first.
    let mut heading_sizes: Vec<i64> = page_lines
        .iter()
        .flat_map(|p| p.iter())
        .filter(|l| l.size >= body * 1.15 && l.text().chars().count() <= 120)
        .map(|l| (l.size * 10.0).round() as i64)
        .collect();
    heading_sizes.sort_unstable_by(|a, b| b.cmp(a));
    heading_sizes.dedup();

    let mut blocks: Vec<String> = Vec::new();
    let mut section_level = 0usize;
    for (page, lines) in pages.iter().zip(&page_lines) {
        blocks.push(format!("<!-- page {} -->", page.number));
        let last_index = lines.len().saturating_sub(1);
        let kept: Vec<&Line> = lines
            .iter()
            .enumerate()
            .filter(|(i, l)| {
                let edge = *i == 0 || *i == last_index;
                let norm: String = l
                    .text()
                    .chars()
                    .map(|c| if c.is_ascii_digit() { '#' } else { c })
                    .collect();
                !(edge && (drop.contains(&norm) || is_page_number(&l.text())))
            })
            .map(|(_, l)| l)
            .collect();
        let mut para: Vec<String> = Vec::new();
        let mut prev: Option<&Line> = None;
        let mut i = 0;
        while i < kept.len() {
            let line = kept[i];
            // A table: two or more consecutive lines with the same number (>= 2) of columns.
            let cols = line.segments.len();
            if cols >= 2 {
                let mut j = i + 1;
                while j < kept.len() && kept[j].segments.len() == cols && aligned(line, kept[j]) {
                    j += 1;
                }
                if j - i >= 2 {
                    flush(&mut para, &mut blocks);
                    let rows: Vec<Vec<String>> = kept[i..j]
                        .iter()
                        .map(|l| l.segments.iter().map(|s| s.text.clone()).collect())
                        .collect();
                    blocks.push(table(&rows));
                    prev = None;
                    i = j;
                    continue;
                }
            }
            let text = line.text();
            let bigger = line.size >= body * 1.15 && text.chars().count() <= 120;
            let level = numbered_heading_level(&text)
                .filter(|_| line.size >= body * 0.95)
                .or_else(|| {
                    bigger.then(|| {
                        let key = (line.size * 10.0).round() as i64;
                        heading_sizes.iter().position(|s| *s == key).unwrap_or(0) + 1
                    })
                })
                .or_else(|| {
                    (is_all_caps(&text)
                        && !text.ends_with(['.', ',', ';'])
                        && after_sentence(prev, line))
                    .then_some((section_level + 1).min(6))
                });
            if let Some(level) = level {
                flush(&mut para, &mut blocks);
                // A heading wrapped onto a second line of the same size continues it.
                let mut text = text;
                while let Some(next) = kept.get(i + 1) {
                    let same = (next.size - line.size).abs() < 0.05 * line.size
                        && bigger
                        && (line.y - next.y).abs() <= line.size * 1.6
                        && numbered_heading_level(&next.text()).is_none();
                    if !same {
                        break;
                    }
                    text.push(' ');
                    text.push_str(&next.text());
                    i += 1;
                }
                section_level = level;
                blocks.push(heading(level, &text));
                prev = None;
                i += 1;
                continue;
            }
            let breaks = match prev {
                None => true,
                Some(p) => {
                    let gap = (p.y - line.y).abs();
                    gap > p.size.max(line.size) * 1.75 || (p.size - line.size).abs() > 0.1 * p.size
                }
            };
            if breaks {
                flush(&mut para, &mut blocks);
            }
            para.push(text);
            prev = Some(line);
            i += 1;
        }
        flush(&mut para, &mut blocks);
    }
    join_blocks(&blocks)
}

/// Column starts line up (within two ems), as table rows do.
fn aligned(a: &Line, b: &Line) -> bool {
    let tol = a.size.max(b.size) * 2.0;
    a.segments
        .iter()
        .zip(&b.segments)
        .all(|(x, y)| (x.x0 - y.x0).abs() <= tol)
}

/// The line does not continue a sentence: nothing before it in the paragraph, a gap above it,
/// or the previous line ended a sentence.
fn after_sentence(prev: Option<&Line>, line: &Line) -> bool {
    prev.is_none_or(|p| {
        (p.y - line.y).abs() > line.size * 1.75 || p.text().ends_with(['.', ':', '!', '?'])
    })
}

/// Joins the lines of a paragraph, undoing end-of-line hyphenation.
fn flush(para: &mut Vec<String>, blocks: &mut Vec<String>) {
    if para.is_empty() {
        return;
    }
    let mut out = String::new();
    for line in para.drain(..) {
        if out.ends_with('-') && line.starts_with(|c: char| c.is_lowercase()) {
            out.pop();
        } else if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&line);
    }
    blocks.push(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, x: f64, y: f64, size: f64) -> Vec<Glyph> {
        let mut out = Vec::new();
        let mut x = x;
        for c in text.chars() {
            out.push(Glyph {
                text: c.to_string(),
                x,
                y,
                width: size * 0.5,
                size,
            });
            x += size * 0.5;
        }
        out
    }

    #[test]
    fn numbered_headings() {
        assert_eq!(numbered_heading_level("1. Introduction"), Some(1));
        assert_eq!(numbered_heading_level("2.1 Sampling schedule"), Some(2));
        assert_eq!(numbered_heading_level("3.2.1. Deep Part"), Some(3));
        assert_eq!(numbered_heading_level("1. Update the changelog."), None);
        assert_eq!(numbered_heading_level("12 stations were visited"), None);
        assert_eq!(numbered_heading_level("2024 Annual Report"), None);
    }

    #[test]
    fn lines_paragraphs_headings_tables() {
        let mut glyphs = word("1. Introduction", 72.0, 700.0, 18.0);
        glyphs.extend(word(
            "This report summarises the survey and it",
            72.0,
            670.0,
            11.0,
        ));
        glyphs.extend(word("continues here.", 72.0, 657.0, 11.0));
        glyphs.extend(word("Region", 72.0, 620.0, 11.0));
        glyphs.extend(word("Stations", 250.0, 620.0, 11.0));
        glyphs.extend(word("North", 72.0, 605.0, 11.0));
        glyphs.extend(word("12", 250.0, 605.0, 11.0));
        glyphs.extend(word("SUMMARY OF FINDINGS", 72.0, 570.0, 11.0));
        glyphs.extend(word("Two stations need new sensors.", 72.0, 550.0, 11.0));
        let md = render(&[Page::from_glyphs(1, &glyphs)]);
        assert_eq!(
            md,
            "<!-- page 1 -->\n\n# 1. Introduction\n\n\
             This report summarises the survey and it continues here.\n\n\
             | Region | Stations |\n| --- | --- |\n| North | 12 |\n\n\
             ## SUMMARY OF FINDINGS\n\nTwo stations need new sensors.\n"
        );
    }

    #[test]
    fn page_furniture_is_dropped() {
        let pages: Vec<Page> = (1..=4)
            .map(|n| {
                let mut g = word("Northwind Quarterly", 72.0, 800.0, 9.0);
                g.extend(word(&format!("Body text of page {n}."), 72.0, 700.0, 11.0));
                g.extend(word(&format!("{n}"), 300.0, 40.0, 9.0));
                Page::from_glyphs(n, &g)
            })
            .collect();
        let md = render(&pages);
        assert!(!md.contains("Northwind"), "{md}");
        assert!(md.contains("Body text of page 3."));
        assert!(!md.contains("\n3\n"), "{md}");
    }
}

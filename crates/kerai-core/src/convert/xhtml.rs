//! A small XHTML to markdown converter for EPUB chapters: headings, paragraphs, nested lists,
//! tables, block quotes, preformatted text, emphasis and absolute links. (Web pages go through
//! the HTML extractor instead, which also removes boilerplate.)

use super::markdown::{heading, join_blocks, one_line, table};
use super::xml::{Ev, Pull};

/// Converts one XHTML document; errors describe malformed XML.
pub(crate) fn to_markdown(xhtml: &str) -> Result<String, String> {
    let mut w = Writer::default();
    let mut p = Pull::new(xhtml);
    while let Some(ev) = p.next()? {
        match ev {
            Ev::Start(t) => {
                let name = t.name.to_ascii_lowercase();
                if w.skip > 0
                    || matches!(name.as_str(), "head" | "script" | "style" | "svg" | "math")
                {
                    w.skip += 1;
                    continue;
                }
                w.start(&name, t.attr("href"));
            }
            Ev::End(n) => {
                if w.skip > 0 {
                    w.skip -= 1;
                    continue;
                }
                w.end(&n.to_ascii_lowercase());
            }
            Ev::Text(s) => {
                if w.skip == 0 {
                    w.text(&s);
                }
            }
        }
    }
    w.flush();
    Ok(w.finish())
}

#[derive(Default)]
struct Writer {
    blocks: Vec<(String, bool)>,
    inline: String,
    heading: Option<usize>,
    lists: Vec<(bool, usize)>,
    quote: usize,
    pre: Option<String>,
    table: Option<Vec<Vec<String>>>,
    cell: Option<String>,
    link: Option<(String, usize)>,
    skip: usize,
}

const MAX_LIST_DEPTH: usize = 16;

impl Writer {
    fn start(&mut self, name: &str, href: Option<&str>) {
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.flush();
                self.heading = name[1..].parse().ok();
            }
            "p" | "div" | "section" | "article" | "header" | "footer" | "aside" | "figure"
            | "figcaption" | "dt" | "dd" | "hr" => self.flush(),
            "br" => self.inline.push('\n'),
            "ul" | "ol" => {
                self.flush();
                if self.lists.len() < MAX_LIST_DEPTH {
                    self.lists.push((name == "ol", 0));
                }
            }
            "li" => {
                self.flush();
                if let Some(l) = self.lists.last_mut() {
                    l.1 += 1;
                }
            }
            "blockquote" => {
                self.flush();
                self.quote += 1;
            }
            "pre" => {
                self.flush();
                self.pre = Some(String::new());
            }
            "table" => {
                self.flush();
                self.table = Some(Vec::new());
            }
            "tr" => {
                if let Some(t) = self.table.as_mut() {
                    t.push(Vec::new());
                }
            }
            "td" | "th" if self.table.is_some() => self.cell = Some(String::new()),
            "strong" | "b" => self.push("**"),
            "em" | "i" => self.push("*"),
            "a" => {
                if let Some(h) =
                    href.filter(|h| h.starts_with("http://") || h.starts_with("https://"))
                {
                    let at = self.target().len();
                    self.link = Some((h.to_string(), at));
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "p" | "div" | "section" | "article"
            | "header" | "footer" | "aside" | "figure" | "figcaption" | "dt" | "dd" | "li" => {
                self.flush();
                self.heading = None;
            }
            "ul" | "ol" => {
                self.flush();
                self.lists.pop();
            }
            "blockquote" => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
            }
            "pre" => {
                if let Some(code) = self.pre.take() {
                    let code = code.trim_matches('\n');
                    if !code.trim().is_empty() {
                        self.blocks.push((format!("```\n{code}\n```"), false));
                    }
                }
            }
            "td" | "th" => {
                if let (Some(cell), Some(row)) = (
                    self.cell.take(),
                    self.table.as_mut().and_then(|t| t.last_mut()),
                ) {
                    row.push(one_line(&cell));
                }
            }
            "table" => {
                self.cell = None;
                if let Some(rows) = self.table.take() {
                    let rows: Vec<Vec<String>> = rows
                        .into_iter()
                        .filter(|r| r.iter().any(|c| !c.is_empty()))
                        .collect();
                    if !rows.is_empty() {
                        self.blocks.push((table(&rows), false));
                    }
                }
            }
            "strong" | "b" => self.push("**"),
            "em" | "i" => self.push("*"),
            "a" => {
                if let Some((href, at)) = self.link.take() {
                    let target = self.target();
                    if at <= target.len() && target.is_char_boundary(at) {
                        let text = target[at..].trim().to_string();
                        if !text.is_empty() {
                            target.truncate(at);
                            target.push_str(&format!("[{text}]({})", href.replace(' ', "%20")));
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn target(&mut self) -> &mut String {
        if let Some(c) = self.cell.as_mut() {
            c
        } else if let Some(p) = self.pre.as_mut() {
            p
        } else {
            &mut self.inline
        }
    }

    fn push(&mut self, s: &str) {
        if self.pre.is_none() {
            self.target().push_str(s);
        }
    }

    fn text(&mut self, s: &str) {
        self.target().push_str(s);
    }

    fn flush(&mut self) {
        let raw = std::mem::take(&mut self.inline);
        let text = tidy_emphasis(&one_line(&raw));
        if text.is_empty() {
            return;
        }
        let quote = "> ".repeat(self.quote);
        if let Some(level) = self.heading {
            self.blocks
                .push((format!("{quote}{}", heading(level, &text)), false));
        } else if let Some(&(ordered, n)) = self.lists.last() {
            let indent = "    ".repeat(self.lists.len() - 1);
            let marker = if ordered {
                format!("{n}.")
            } else {
                "-".to_string()
            };
            self.blocks
                .push((format!("{quote}{indent}{marker} {text}"), true));
        } else {
            self.blocks.push((format!("{quote}{text}"), false));
        }
    }

    fn finish(self) -> String {
        let mut merged: Vec<String> = Vec::new();
        let mut prev_list = false;
        for (text, list_item) in self.blocks {
            match merged.last_mut() {
                Some(last) if list_item && prev_list => {
                    last.push('\n');
                    last.push_str(&text);
                }
                _ => merged.push(text),
            }
            prev_list = list_item;
        }
        join_blocks(&merged)
    }
}

/// Drops emphasis markers that enclose nothing (`****`, `** **`).
fn tidy_emphasis(s: &str) -> String {
    let mut out = s.replace("****", "").replace("** **", " ");
    if out.matches("**").count() % 2 == 1 {
        out = out.replace("**", "");
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_blocks_lists_tables() {
        let md = to_markdown(
            r#"<html><head><title>x</title></head><body>
            <h2>Chapter <em>One</em></h2><p>Some <strong>bold</strong> text<br/>and more.</p>
            <ul><li>a</li><li>b<ol><li>b1</li><li>b2</li></ol></li></ul>
            <table><tr><th>k</th><th>v</th></tr><tr><td>x</td><td>1</td></tr></table>
            <blockquote><p>quoted</p></blockquote><pre>let x = 1;
let y = 2;</pre><p>See <a href="https://example.org/a">the site</a>.</p></body></html>"#,
        )
        .unwrap();
        assert_eq!(
            md,
            "## Chapter *One*\n\nSome **bold** text and more.\n\n- a\n- b\n    1. b1\n    2. b2\n\n\
             | k | v |\n| --- | --- |\n| x | 1 |\n\n> quoted\n\n```\nlet x = 1;\nlet y = 2;\n```\n\n\
             See [the site](https://example.org/a).\n"
        );
    }
}

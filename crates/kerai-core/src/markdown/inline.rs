//! Inline content rendered twice: as normalised markdown (kept in `content`, with link
//! targets, so references in links are not lost) and as plain text (for heading paths).

use pulldown_cmark::{Event, Tag, TagEnd};

#[derive(Debug, Default)]
pub struct Inline {
    pub markdown: String,
    pub plain: String,
    links: Vec<String>,
}

impl Inline {
    /// Feed one inline event; returns false for events that are not inline.
    pub fn push(&mut self, event: &Event<'_>) -> bool {
        match event {
            Event::Text(t) => self.both(t),
            Event::Code(c) => {
                let ticks = if c.contains('`') { "``" } else { "`" };
                self.markdown.push_str(ticks);
                self.markdown.push_str(c);
                self.markdown.push_str(ticks);
                self.plain.push_str(c);
            }
            Event::InlineMath(m) => {
                self.markdown.push('$');
                self.markdown.push_str(m);
                self.markdown.push('$');
                self.plain.push_str(m);
            }
            Event::InlineHtml(h) => self.markdown.push_str(h),
            Event::FootnoteReference(label) => {
                self.markdown.push_str("[^");
                self.markdown.push_str(label);
                self.markdown.push(']');
            }
            Event::SoftBreak => self.both(" "),
            Event::HardBreak => self.both("\n"),
            Event::Start(tag) => match tag {
                Tag::Emphasis => self.markdown.push('*'),
                Tag::Strong => self.markdown.push_str("**"),
                Tag::Strikethrough => self.markdown.push_str("~~"),
                Tag::Superscript => self.markdown.push('^'),
                Tag::Subscript => self.markdown.push('~'),
                Tag::Link { dest_url, .. } => {
                    self.markdown.push('[');
                    self.links.push(dest_url.to_string());
                }
                Tag::Image { dest_url, .. } => {
                    self.markdown.push_str("![");
                    self.links.push(dest_url.to_string());
                }
                _ => return false,
            },
            Event::End(tag) => match tag {
                TagEnd::Emphasis => self.markdown.push('*'),
                TagEnd::Strong => self.markdown.push_str("**"),
                TagEnd::Strikethrough => self.markdown.push_str("~~"),
                TagEnd::Superscript => self.markdown.push('^'),
                TagEnd::Subscript => self.markdown.push('~'),
                TagEnd::Link | TagEnd::Image => {
                    let url = self.links.pop().unwrap_or_default();
                    self.markdown.push_str("](");
                    self.markdown.push_str(&url);
                    self.markdown.push(')');
                }
                _ => return false,
            },
            _ => return false,
        }
        true
    }

    fn both(&mut self, s: &str) {
        self.markdown.push_str(s);
        self.plain.push_str(s);
    }

    /// Take the rendered markdown, trimmed, and reset.
    pub fn take(&mut self) -> String {
        let md = self.markdown.trim().to_string();
        self.markdown.clear();
        self.plain.clear();
        self.links.clear();
        md
    }

    /// Take the rendered markdown, trimmed, and the plain text with its whitespace runs made
    /// single spaces (for heading paths), and reset.
    pub fn take_with_plain(&mut self) -> (String, String) {
        let md = self.markdown.trim().to_string();
        let plain = self.plain.split_whitespace().collect::<Vec<_>>().join(" ");
        self.markdown.clear();
        self.plain.clear();
        self.links.clear();
        (md, plain)
    }
}

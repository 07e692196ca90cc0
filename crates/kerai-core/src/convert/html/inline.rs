//! The inline text of one block being assembled, as plain text and as markdown side by side,
//! with HTML whitespace collapsing.

/// Plain text and markdown of the block being built.
#[derive(Default)]
pub struct Inline {
    /// Plain text so far.
    pub text: String,
    /// Markdown so far.
    pub md: String,
    /// A collapsed space is owed before the next visible character.
    space: bool,
    /// Byte offsets in `md` where the latest opening markers end, and where they start.
    marks: Vec<(usize, usize)>,
    /// Open links around the current position.
    pub in_link: u32,
    /// Non-whitespace characters added inside links.
    pub link_chars: u32,
    /// Non-whitespace characters added.
    pub chars: u32,
    /// How many blocks were taken: a marker opened in an earlier block is not closed in this
    /// one.
    taken: u64,
}

/// An opened marker, to close with [`Inline::close`].
#[derive(Clone, Copy)]
pub struct Mark {
    /// Byte offset in `md` where the marker starts.
    at: usize,
    /// The block it was opened in ([`Inline::taken`] then).
    block: u64,
}

/// Characters escaped in markdown text.
fn needs_escape(c: char) -> bool {
    matches!(c, '\\' | '*' | '_' | '[' | ']' | '`' | '<' | '|')
}

impl Inline {
    /// Whether nothing visible has been added.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    fn flush_space(&mut self) {
        if self.space {
            self.space = false;
            if !self.text.is_empty() && !self.text.ends_with(['\n', ' ']) {
                self.text.push(' ');
                // A space owed right after an opening marker goes before it.
                match self.marks.last() {
                    Some(&(start, end)) if end == self.md.len() => self.md.insert(start, ' '),
                    _ => self.md.push(' '),
                }
            }
        }
    }

    /// Adds text with whitespace runs collapsed to one space.
    pub fn push_text(&mut self, s: &str) {
        for (i, part) in s.split(char::is_whitespace).enumerate() {
            if i > 0 {
                self.space = true;
            }
            if part.is_empty() {
                continue;
            }
            self.flush_space();
            let n = part.chars().count() as u32;
            self.chars += n;
            if self.in_link > 0 {
                self.link_chars += n;
            }
            self.text.push_str(part);
            if part.contains(needs_escape) {
                for c in part.chars() {
                    if needs_escape(c) {
                        self.md.push('\\');
                    }
                    self.md.push(c);
                }
            } else {
                self.md.push_str(part);
            }
        }
    }

    /// Adds text verbatim (preformatted).
    pub fn push_pre(&mut self, s: &str) {
        self.flush_space();
        self.chars += s.chars().filter(|c| !c.is_whitespace()).count() as u32;
        self.text.push_str(s);
        self.md.push_str(s);
    }

    /// Adds a hard line break.
    pub fn line_break(&mut self) {
        self.space = false;
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
            self.md.push('\n');
        }
    }

    /// Opens a markdown marker (`**`, `*`, `` ` ``, `[`) and returns a token for [`Self::close`].
    pub fn open(&mut self, marker: &str) -> Mark {
        self.flush_space();
        let start = self.md.len();
        self.md.push_str(marker);
        self.marks.push((start, self.md.len()));
        Mark {
            at: start,
            block: self.taken,
        }
    }

    /// Closes the marker `mark` with `closer`; an empty span loses its markers. A marker
    /// opened in a block taken since (a block-level element inside an inline one) is not
    /// closed here: its opener went with that block.
    pub fn close(&mut self, mark: Mark, opener_len: usize, closer: &str) {
        if mark.block != self.taken {
            return;
        }
        if let Some(pos) = self.marks.iter().rposition(|m| m.0 == mark.at) {
            self.marks.truncate(pos);
        }
        if self.md.len() == mark.at + opener_len {
            self.md.truncate(mark.at);
            return;
        }
        self.md.push_str(closer);
    }

    /// Takes the block's text and markdown (trimmed), leaving the builder empty (the
    /// character counts are reset too; read them before).
    pub fn take(&mut self) -> (String, String) {
        self.taken += 1;
        self.space = false;
        self.marks.clear();
        self.chars = 0;
        self.link_chars = 0;
        let text = std::mem::take(&mut self.text);
        let md = std::mem::take(&mut self.md);
        (text.trim().to_string(), md.trim().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::Inline;

    #[test]
    fn collapses_and_marks() {
        let mut b = Inline::default();
        b.push_text("  Hello\n  ");
        let t = b.open("**");
        b.push_text(" bold ");
        b.close(t, 2, "**");
        b.push_text("and a_b");
        let t = b.open("*");
        b.close(t, 1, "*");
        let (text, md) = b.take();
        assert_eq!(text, "Hello bold and a_b");
        assert_eq!(md, "Hello **bold** and a\\_b");
    }

    #[test]
    fn a_marker_opened_before_the_block_was_taken_is_not_closed_after() {
        let mut b = Inline::default();
        b.push_text("ab");
        let t = b.open("**");
        b.push_text("é");
        b.take();
        // The new block's markdown is as long as the old marker's end, and the marker's
        // start falls inside its `é`: closing the old marker must not cut it there.
        b.push_text("xéy");
        b.close(t, 2, "**");
        let (text, md) = b.take();
        assert_eq!(text, "xéy");
        assert_eq!(md, "xéy");
    }
}

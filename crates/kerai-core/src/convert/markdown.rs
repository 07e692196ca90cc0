//! Writing markdown: GFM tables, escaped cells, headings, tidy blank lines.

/// A GFM table; the first row is the header. Ragged rows are padded, cells escaped and kept on
/// one line. Empty input gives an empty string.
pub(crate) fn table(rows: &[Vec<String>]) -> String {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        out.push('|');
        for c in 0..width {
            let cell = row.get(c).map(|s| cell_text(s)).unwrap_or_default();
            out.push(' ');
            out.push_str(&cell);
            out.push_str(" |");
        }
        out.push('\n');
        if i == 0 {
            out.push('|');
            for _ in 0..width {
                out.push_str(" --- |");
            }
            out.push('\n');
        }
    }
    out
}

/// A cell's text on one line with `|` escaped.
fn cell_text(s: &str) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    one_line.replace('|', "\\|")
}

/// `#`-heading of `level` (clamped to 1..=6) with the text on one line.
pub(crate) fn heading(level: usize, text: &str) -> String {
    let level = level.clamp(1, 6);
    format!("{} {}", "#".repeat(level), one_line(text))
}

/// Collapses runs of whitespace (including newlines) to single spaces and trims.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Joins blocks with one blank line between them, dropping empty blocks.
pub(crate) fn join_blocks<S: AsRef<str>>(blocks: &[S]) -> String {
    let mut out = String::new();
    for b in blocks {
        let b = b.as_ref().trim_end();
        if b.trim().is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(b);
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// Words in markdown text: whitespace-separated tokens that contain a letter or digit.
pub(crate) fn word_count(md: &str) -> usize {
    md.split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

/// The first ATX heading's text, else the first non-empty line that is not markup-only.
pub(crate) fn first_heading_or_line(md: &str) -> Option<String> {
    let lines = || {
        md.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("<!--"))
    };
    if let Some(h) = lines().find_map(|l| {
        l.strip_prefix('#')
            .map(|h| h.trim_start_matches('#').trim())
    }) {
        if !h.is_empty() {
            return Some(h.to_string());
        }
    }
    lines()
        .find(|l| l.chars().any(char::is_alphanumeric) && !l.starts_with('|'))
        .map(|l| one_line(l.trim_start_matches(['-', '*', '>', ' '])))
        .map(|l| l.chars().take(200).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_padded_and_escaped() {
        let t = table(&[vec!["a".into(), "b|c".into()], vec!["1".into()]]);
        assert_eq!(t, "| a | b\\|c |\n| --- | --- |\n| 1 |  |\n");
    }

    #[test]
    fn blocks_and_titles() {
        let md = join_blocks(&["# One", "", "text\nmore"]);
        assert_eq!(md, "# One\n\ntext\nmore\n");
        assert_eq!(
            first_heading_or_line("\n\nHello there\n# Later").as_deref(),
            Some("Later")
        );
        assert_eq!(
            first_heading_or_line("<!-- page 1 -->\nFirst line\n").as_deref(),
            Some("First line")
        );
        assert_eq!(word_count("# Title\n\n| a | - |\nword, 12"), 4);
    }
}

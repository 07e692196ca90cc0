//! Splitting a references section into entries.

use std::sync::LazyLock;

use regex::Regex;

static NUMBERED_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:\[\s*\d{1,4}[a-z]?\s*\]|\(\s*\d{1,4}\s*\)|\d{1,4}\s*[.)](?:\s|$)|\d{1,4}\s+\p{Lu})")
        .unwrap_or_else(|e| unreachable!("{e}"))
});
/// An entry number in running text (`… 2001. [12] Smith …`), for sections joined into one line.
static INLINE_NUMBER_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\s\[\d{1,4}\]\s").unwrap_or_else(|e| unreachable!("{e}")));
static HEADING_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*#*\s*(?:\d+\.?\s*)?(?:references|bibliography|literature(?: cited)?|works cited|sources|reference list|literatur|références|bibliographie)\s*:?\s*$")
        .unwrap_or_else(|e| unreachable!("{e}"))
});
static ENTRY_START_RE: LazyLock<Regex> = LazyLock::new(|| {
    // `Smith, J.`, `Smith J`, `van der Berg, A.`, `SMITH, John`, `J. Smith,`: a name at the head of a line.
    Regex::new(r"^\s*(?:(?:(?:van|von|de|da|di|del|der|den|la|le|du|dos|ter)\s+)*\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)?,?\s+(?:\p{Lu}\.|\p{Lu}{1,3}\b|\p{Lu}[\p{Ll}]+[,.])|\p{Lu}\.\s*(?:\p{Lu}\.\s*)*\p{Lu}[\p{L}'’-]+,)")
        .unwrap_or_else(|e| unreachable!("{e}"))
});
static YEAR_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:1[5-9]|20)\d\d[a-z]?\b").unwrap_or_else(|e| unreachable!("{e}"))
});

fn push(entries: &mut Vec<String>, lines: &[&str]) {
    let joined = join_lines(lines);
    if joined.chars().any(char::is_alphanumeric) {
        entries.push(joined);
    }
}

/// Joins wrapped lines, undoing end-of-line hyphenation (`disor-` + `ders` → `disorders`).
fn join_lines(lines: &[&str]) -> String {
    let mut out = String::new();
    for l in lines {
        let l = l.trim();
        if l.is_empty() {
            continue;
        }
        if out.ends_with('-')
            && l.starts_with(char::is_lowercase)
            && out[..out.len() - 1].ends_with(char::is_lowercase)
        {
            out.pop();
        } else if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(l);
    }
    out
}

/// Splits a references section (entries one per line or per paragraph, wrapped or not,
/// numbered `[1]`/`1.` or not, with or without a heading) into one string per entry.
pub fn split_bibliography(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !HEADING_RE.is_match(l)).collect();
    let nonblank: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if nonblank.is_empty() {
        return Vec::new();
    }
    let mut entries = Vec::new();
    // One line holding several numbered entries.
    if nonblank.len() == 1 && INLINE_NUMBER_RE.find_iter(nonblank[0]).count() >= 1 {
        let line = nonblank[0];
        let mut starts: Vec<usize> = vec![0];
        starts.extend(INLINE_NUMBER_RE.find_iter(line).map(|m| m.start() + 1));
        starts.push(line.len());
        for w in starts.windows(2) {
            push(&mut entries, &[&line[w[0]..w[1]]]);
        }
        return entries;
    }
    let numbered = nonblank.iter().filter(|l| NUMBERED_RE.is_match(l)).count();
    let has_blank_separators = lines.iter().any(|l| l.trim().is_empty());
    let mut current: Vec<&str> = Vec::new();
    if numbered * 2 >= nonblank.len().min(numbered * 2 + 1) && numbered >= 2 {
        // Numbered: a new entry at every number.
        for l in &lines {
            if NUMBERED_RE.is_match(l) && !current.is_empty() {
                push(&mut entries, &current);
                current.clear();
            }
            if !l.trim().is_empty() {
                current.push(l);
            }
        }
    } else if has_blank_separators {
        // Paragraphs.
        for l in &lines {
            if l.trim().is_empty() {
                push(&mut entries, &current);
                current.clear();
            } else {
                current.push(l);
            }
        }
    } else {
        // Wrapped lines: a new entry where a line opens with a name and the entry so far is
        // complete (it has a year and ends with a full stop or similar).
        // Whether the entry so far has a year, kept as lines are added (joining cannot make or
        // break a year: lines are joined with a space, or merged only between lower-case letters),
        // so a long run of lines that never completes an entry stays linear.
        let mut has_year = false;
        for l in &lines {
            let complete = has_year
                && current
                    .last()
                    .is_some_and(|last| last.trim_end().ends_with(['.', ')', ']']));
            let starts_entry =
                ENTRY_START_RE.is_match(l) || l.starts_with(|c: char| c.is_uppercase()) && complete;
            if !current.is_empty() && starts_entry && complete {
                push(&mut entries, &current);
                current.clear();
                has_year = false;
            }
            current.push(l);
            has_year = has_year || YEAR_RE.is_match(l.trim());
        }
    }
    push(&mut entries, &current);
    entries
}

#[cfg(test)]
mod tests {
    use super::split_bibliography;

    #[test]
    fn numbered_entries() {
        let s = "References\n[1] A. Smith, Title one, J. Foo 1 (2001) 1.\n[2] B. Jones, Title\ntwo, J. Bar 2 (2002) 2.\n";
        assert_eq!(
            split_bibliography(s),
            vec![
                "[1] A. Smith, Title one, J. Foo 1 (2001) 1.",
                "[2] B. Jones, Title two, J. Bar 2 (2002) 2."
            ]
        );
    }

    #[test]
    fn wrapped_author_year_entries() {
        let s = "Friston, K. (2010). The free-energy principle: a unified brain the-\nory? Nature Reviews Neuroscience, 11, 127-138.\nParr, T., & Friston, K. (2019). Generalised free energy and active\ninference. Biological Cybernetics, 113, 495-513.\n";
        let e = split_bibliography(s);
        assert_eq!(e.len(), 2);
        assert!(e[0].contains("brain theory? Nature"));
        assert!(e[1].starts_with("Parr, T."));
    }

    #[test]
    fn paragraphs_and_inline_numbers() {
        assert_eq!(
            split_bibliography("A. One 2001.\n\nB. Two\n2002.\n").len(),
            2
        );
        assert_eq!(
            split_bibliography("[1] A 2001. [2] B 2002. [3] C 2003.").len(),
            3
        );
        assert!(split_bibliography("\n\n").is_empty());
    }
}

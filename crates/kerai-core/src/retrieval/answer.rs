//! Extractive answers: the sentences of retrieved passages that best answer a question, for
//! when no language model writes the answer.
//!
//! A sentence scores by the question's words it contains, each weighted by how rare it is
//! among the passages' sentences (a word every sentence has says little), divided by a gentle
//! length penalty and discounted by the rank of its passage ([`RANK_WEIGHT`]): retrieval's
//! order is evidence too. Words are compared by a crude stem (lower case, at most six
//! letters), so "regulator" meets "regulators". Sentences scoring under [`RELATIVE_FLOOR`] of
//! the best are left out. Headings, tables, navigation and reference-list entries never give
//! a sentence. Chunk text keeps a heading as a short line with no sentence end, so a list
//! item written the same way (no full stop) is left out too.

use crate::retrieval::chunk::sentences::sentences;
use std::collections::{HashMap, HashSet};

/// How much a passage's rank discounts its sentences: the n-th passage (0-based) scores
/// `1 / (1 + RANK_WEIGHT * n)` of the same sentence in the first.
pub const RANK_WEIGHT: f64 = 1.0;

/// A sentence must score at least this share of the best one to join the answer.
pub const RELATIVE_FLOOR: f64 = 0.6;

/// One sentence of the answer, the passage (0-based) it comes from, and the paragraph or list
/// item of that passage that holds it (what a citation quotes).
#[derive(Debug, Clone, PartialEq)]
pub struct Picked {
    pub passage: usize,
    pub sentence: String,
    pub score: f64,
    pub block: String,
}

const STOPWORDS: &[&str] = &[
    "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "her", "was",
    "one", "our", "out", "has", "have", "how", "its", "may", "who", "what", "when", "where",
    "which", "why", "with", "does", "did", "this", "that", "these", "those", "from", "into",
    "about", "there", "their", "they", "them", "than", "then", "been", "being", "were", "will",
    "would", "should", "could", "also", "some", "such", "your", "yours", "is", "of", "to",
];

fn stem(word: &str) -> String {
    word.chars().take(6).collect()
}

/// The distinct content words of a text, stemmed.
fn terms(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(|w| w.to_lowercase())
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// A line that is a heading or a label rather than a sentence.
fn is_sentence(s: &str) -> bool {
    let t = s.trim();
    let words = t.split_whitespace().count();
    words >= 5 && t.chars().count() <= 800
}

/// The blocks of a passage that can answer: its paragraphs and list items, without headings,
/// tables, navigation (a block mostly made of links or separated by `|`, `·`, `»`) or
/// bibliography entries. Blocks are separated by blank lines, headings and list markers.
/// `headings` are the passage's known headings, one per line (its document's title and its
/// heading path): a block that reads as one of them is a heading however long.
fn answer_blocks(text: &str, headings: &str) -> Vec<String> {
    let known: HashSet<String> = headings
        .lines()
        .map(heading_key)
        .filter(|k| !k.is_empty())
        .collect();
    let mut blocks: Vec<String> = Vec::new();
    let mut cur = String::new();
    let flush = |cur: &mut String, blocks: &mut Vec<String>| {
        let b = cur.trim();
        if !b.is_empty()
            && !is_heading(b)
            && !known.contains(&heading_key(b))
            && !is_navigation(b)
            && !is_bibliography_entry(b)
        {
            blocks.push(b.to_string());
        }
        cur.clear();
    };
    for line in text.lines() {
        let t = line.trim();
        let list_item = t.starts_with(['-', '*', '+']) && t[1..].starts_with(' ')
            || t.split_once(". ").is_some_and(|(n, _)| {
                !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit())
            });
        if t.is_empty() || t.starts_with('#') || t.starts_with('|') || list_item {
            flush(&mut cur, &mut blocks);
            if t.starts_with('#') || t.starts_with('|') {
                continue;
            }
        }
        cur.push_str(t);
        cur.push('\n');
    }
    flush(&mut cur, &mut blocks);
    blocks
}

/// A heading compared by its words alone (case, markup and punctuation aside).
fn heading_key(s: &str) -> String {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A block that is a heading: one line of at most 20 words that does not end a sentence
/// (chunk text keeps headings as plain lines: `Where to go next`, a paper's title).
fn is_heading(block: &str) -> bool {
    let t = block.trim_end_matches(['*', '_', ' ']);
    !t.contains('\n')
        && t.split_whitespace().count() <= 20
        && !t.ends_with(['.', '!', '?', ':', ';', '"', '\u{201D}', ')'])
}

/// A block that is navigation rather than prose: most of its text is link text, or it is a
/// row of short items between separators (`Home | About | Contact`).
fn is_navigation(block: &str) -> bool {
    let total = block.chars().filter(|c| c.is_alphanumeric()).count();
    if total == 0 {
        return true;
    }
    // Link text is `[text](url)`: the first `]` after a `[`, with `(` right after it.
    let mut linked = 0;
    let mut rest = block;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else { break };
        if after[close + 1..].starts_with('(') {
            linked += after[..close]
                .chars()
                .filter(|c| c.is_alphanumeric())
                .count();
        }
        rest = &after[close + 1..];
    }
    let separators = block.matches(['|', '·', '»', '›']).count();
    linked * 2 > total || separators >= 3 && separators * 12 > block.split_whitespace().count()
}

/// A block that is one entry of a reference list: a short line around a DOI, URL or arXiv id,
/// or authors and a year with at least two of container, volume, pages, publisher and an
/// identifier, as [`crate::references`] reads it.
fn is_bibliography_entry(block: &str) -> bool {
    if block.len() > 1_000 {
        return false;
    }
    // A short line around a DOI, URL or arXiv id is a pointer to a work, not prose:
    // `The free-energy principle: a unified brain theory? doi:10.1038/nrn2787`.
    let ids = crate::citations::identifier_spans(block);
    if !ids.is_empty() {
        let mut outside = String::new();
        let mut pos = 0;
        for f in &ids {
            if f.start >= pos {
                outside.push_str(&block[pos..f.start]);
                outside.push(' ');
                pos = f.end;
            }
        }
        outside.push_str(&block[pos.min(block.len())..]);
        if outside.split_whitespace().count() <= 15 {
            return true;
        }
    }
    // The rules alone: enough to tell an entry, and no model to load for an answer.
    let r = crate::references::parse_by_rules(block);
    let parts = [
        r.container.is_some(),
        r.volume.is_some(),
        r.pages.is_some(),
        r.publisher.is_some(),
        r.doi.is_some() || r.url.is_some() || r.arxiv.is_some() || r.isbn.is_some(),
    ]
    .iter()
    .filter(|&&x| x)
    .count();
    !r.authors.is_empty() && r.year.is_some() && parts >= 2
}

/// Up to `max` sentences of `passages` (best-ranked first) that answer `question`, best
/// first. Empty when no sentence shares a content word with the question.
pub fn best_sentences(question: &str, passages: &[&str], max: usize) -> Vec<Picked> {
    best_sentences_under(question, passages, &[], max)
}

/// [`best_sentences`] knowing each passage's headings (`headings[i]`: passage `i`'s document
/// title and heading path, one per line; missing or empty when unknown), which never answer.
pub fn best_sentences_under(
    question: &str,
    passages: &[&str],
    headings: &[&str],
    max: usize,
) -> Vec<Picked> {
    let q = terms(question);
    if q.is_empty() || max == 0 {
        return Vec::new();
    }
    let mut candidates: Vec<(usize, String, HashSet<String>, usize)> = Vec::new();
    let mut blocks: Vec<String> = Vec::new();
    for (p, text) in passages.iter().enumerate() {
        for b in answer_blocks(text, headings.get(p).copied().unwrap_or("")) {
            blocks.push(clean_block(&b));
            let block = blocks.len() - 1;
            for s in sentences(&b) {
                // Markdown markers and line breaks inside a sentence are not part of its words.
                let clean = s
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .trim_start_matches(['#', '-', '*', '>', ' '])
                    .to_string();
                if is_sentence(&clean) {
                    let t = terms(&clean);
                    candidates.push((p, clean, t, block));
                }
            }
        }
    }
    let n = candidates.len() as f64;
    let mut df: HashMap<&str, usize> = HashMap::new();
    for (_, _, t, _) in &candidates {
        for w in t {
            if q.contains(w) {
                *df.entry(w.as_str()).or_default() += 1;
            }
        }
    }
    let mut scored: Vec<Picked> = candidates
        .iter()
        .filter_map(|(p, s, t, b)| {
            let hit: f64 = t
                .iter()
                .filter(|w| q.contains(*w))
                .map(|w| (1.0 + n / (1.0 + *df.get(w.as_str()).unwrap_or(&0) as f64)).ln())
                .sum();
            if hit <= 0.0 {
                return None;
            }
            let words = s.split_whitespace().count() as f64;
            let score = hit / (1.0 + 0.01 * words) / (1.0 + RANK_WEIGHT * *p as f64);
            Some(Picked {
                passage: *p,
                sentence: s.clone(),
                score,
                block: blocks[*b].clone(),
            })
        })
        .collect();
    scored.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.passage.cmp(&b.passage))
    });
    let best = scored.first().map_or(0.0, |p| p.score);
    let mut out: Vec<Picked> = Vec::new();
    for c in scored {
        // Sentences far weaker than the best one only pad the answer.
        if out.len() >= max || c.score < RELATIVE_FLOOR * best {
            break;
        }
        // Chunks overlap and pages repeat themselves: a sentence whose words mostly repeat
        // one already picked adds nothing.
        let words = terms(&c.sentence);
        if out
            .iter()
            .any(|o| overlap(&terms(&o.sentence), &words) >= 0.7)
        {
            continue;
        }
        out.push(c);
    }
    out
}

/// A block as a citation quotes it: its lines joined, its list or quote markers dropped (a
/// marker is followed by a space: `-20 °C` and `**Note:**` keep theirs).
fn clean_block(block: &str) -> String {
    let joined = block.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut t = joined.as_str();
    while let Some(rest) = ["- ", "* ", "+ ", "> "]
        .iter()
        .find_map(|m| t.strip_prefix(m))
    {
        t = rest;
    }
    match t.split_once(". ") {
        Some((n, rest))
            if !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit()) =>
        {
            rest.to_string()
        }
        _ => t.to_string(),
    }
}

/// What a citation of each passage quotes: the paragraphs and list items that gave the
/// answer's sentences, in the order picked; for a passage no sentence came from, all its
/// paragraphs and list items (no heading, navigation, table or reference-list entry); the
/// passage as it is only when it has none. One text per passage, blocks separated by a blank
/// line.
pub fn citation_spans(picked: &[Picked], passages: &[&str]) -> Vec<String> {
    citation_spans_under(picked, passages, &[])
}

/// [`citation_spans`] knowing each passage's headings (as [`best_sentences_under`]).
pub fn citation_spans_under(
    picked: &[Picked],
    passages: &[&str],
    headings: &[&str],
) -> Vec<String> {
    passages
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let mut mine: Vec<&str> = Vec::new();
            for p in picked.iter().filter(|p| p.passage == i) {
                if !mine.contains(&p.block.as_str()) {
                    mine.push(&p.block);
                }
            }
            if !mine.is_empty() {
                return mine.join("\n\n");
            }
            let all: Vec<String> = answer_blocks(text, headings.get(i).copied().unwrap_or(""))
                .iter()
                .map(|b| clean_block(b))
                .collect();
            if all.is_empty() {
                text.trim().to_string()
            } else {
                all.join("\n\n")
            }
        })
        .collect()
}

/// How much of the smaller set the two share (0..1).
fn overlap(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let small = a.len().min(b.len());
    if small == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / small as f64
}

/// The answer text: the picked sentences, each followed by the number of its passage (`[2]`).
pub fn render(picked: &[Picked]) -> String {
    picked
        .iter()
        .map(|p| {
            let s = p.sentence.trim();
            format!("{s} [{}]", p.passage + 1)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_that_answers_comes_first() {
        let passages = [
            "References\n\nConant, R. C., & Ashby, W. R. (1970). Every good regulator of a system must be a model of that system. International Journal of Systems Science, 1(2), 89–97.",
            "Older cybernetic ideas anticipated this loop. Miller, Galanter and Pribram described behaviour as a TOTE unit, and the good regulator theorem (Conant & Ashby, 1970) says that every good regulator of a system must be a model of that system.",
        ];
        let p = best_sentences("What does the good regulator theorem say?", &passages, 1);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].passage, 1);
        assert!(
            p[0].sentence
                .contains("theorem (Conant & Ashby, 1970) says"),
            "{p:?}"
        );
        assert!(render(&p).ends_with("that system. [2]"));
    }

    #[test]
    fn headings_navigation_and_references_do_not_answer() {
        let passages = [
            "## How the brain predicts its inputs\n\nWhere to go next: [Predictive coding](/pc) | [The brain as a predictor](/brain) | [Inputs and predictions](/inputs)",
            "- [How the brain predicts](/a)\n- [Its inputs](/b)\n- [Brain predicts inputs](/c)",
            "Friston, K. (2005). A theory of cortical responses: how the brain predicts its inputs. Philosophical Transactions of the Royal Society B, 360(1456), 815-836.",
            "In predictive coding, the brain predicts its sensory inputs and passes on only the errors of those predictions.\n\nSmith (2010) showed that the brain learns these predictions from experience.",
        ];
        let p = best_sentences("how does the brain predict its inputs", &passages, 3);
        assert!(!p.is_empty());
        assert!(p.iter().all(|x| x.passage == 3), "{p:?}");
        assert!(p[0].sentence.starts_with("In predictive coding"), "{p:?}");
    }

    #[test]
    fn citations_quote_the_paragraph_not_the_chunk() {
        let passages = [
            "## How the brain predicts its inputs\n\nWhere to go next: [Predictive coding](/pc) | [The brain as a predictor](/brain) | [Inputs and predictions](/inputs)\n\nIn predictive coding, the brain predicts its sensory inputs\nand passes on only the errors of those predictions.\n\nA second paragraph about something else entirely, the weather in spring.",
            "# Notes\n\n- The cortex is layered, and each layer talks to the next one.\n\n| a | b |\n|---|---|",
            "| only | a table |",
        ];
        let p = best_sentences("how does the brain predict its inputs", &passages, 3);
        let spans = citation_spans(&p, &passages);
        assert_eq!(
            spans[0],
            "In predictive coding, the brain predicts its sensory inputs and passes on only the errors of those predictions."
        );
        // No sentence came from it: its paragraphs and list items, without heading or table.
        assert_eq!(
            spans[1],
            "The cortex is layered, and each layer talks to the next one."
        );
        // Nothing but a table: the passage as it is.
        assert_eq!(spans[2], "| only | a table |");
        // Markers come off only when they are markers.
        assert_eq!(clean_block("- > item one"), "item one");
        assert_eq!(
            clean_block("-20 °C is the setting."),
            "-20 °C is the setting."
        );
        assert_eq!(
            clean_block("**Note:** mind the door."),
            "**Note:** mind the door."
        );
        assert_eq!(clean_block("12. Twelfth step."), "Twelfth step.");
    }

    #[test]
    fn a_citation_marker_before_a_link_is_not_navigation() {
        assert!(!is_navigation(
            "In predictive coding [1], the brain predicts its inputs; see [Friston](/f)."
        ));
        assert!(is_navigation(
            "[Home](/) [About us](/about) [Contact](/contact)"
        ));
    }

    #[test]
    fn a_long_title_known_as_a_heading_does_not_answer() {
        // A paper's title of more than 20 words, kept in chunk text as a plain line.
        let title = "Vitamin D status and the risk of cardiovascular events in a cohort of older \
                     adults followed for ten years in three European countries and two cohorts";
        let passage = format!(
            "{title}\n\nIn older adults, a low level was linked to more heart attacks and \
             strokes over the ten years."
        );
        let question = "Is vitamin D status linked to cardiovascular events in older adults?";
        let blind = best_sentences(question, &[&passage], 1);
        assert!(
            blind[0].sentence.starts_with("Vitamin D status and"),
            "{blind:?}"
        );
        let p = best_sentences_under(question, &[&passage], &[&format!("Cohort\n{title}")], 1);
        assert!(p[0].sentence.starts_with("In older adults"), "{p:?}");
        let spans = citation_spans_under(&[], &[&passage], &[title]);
        assert!(spans[0].starts_with("In older adults"), "{spans:?}");
    }

    #[test]
    fn nothing_in_common_is_no_answer() {
        let p = best_sentences(
            "quantum chromodynamics",
            &["The lab opens at nine every morning."],
            2,
        );
        assert!(p.is_empty());
        assert!(best_sentences("the of", &["The lab opens at nine."], 2).is_empty());
    }

    #[test]
    fn near_duplicates_are_left_out() {
        let passages = [
            "Conant and Ashby (1970). Every good regulator of a system must be a model of that system. Journal.",
            "Older ideas anticipated this loop. The good regulator theorem says that every good regulator of a system must be a model of that system.",
        ];
        let p = best_sentences("What does the good regulator theorem say?", &passages, 3);
        assert_eq!(p.len(), 1, "{p:?}");
    }

    #[test]
    fn repeated_sentences_are_picked_once() {
        let s = "Each scanner session lasts ninety minutes on weekdays.";
        let p = best_sentences("how long is a scanner session", &[s, s], 3);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].passage, 0);
    }
}

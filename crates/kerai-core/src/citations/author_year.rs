//! Author-year callouts, one per callout group as GROBID marks them:
//!
//! * parenthetical groups `(Parr & Friston, 2019)`, `(WHO, 2010; Bell and Sander, 2002)`,
//!   `(e.g. Offringa et al. 2010, 2012a,b)`, `[Smith 2001, p. 4]`; a group that mixes citations
//!   with other material (`(PDB 6OMM; Zhuang et al., 2020)`) gives one span per run of citations;
//! * narrative callouts `Helmholtz (1866)`, `Hyman et al. (2002, 2005)`,
//!   `Vargo and Lusch (2008, 2011)`, `Da Costa et al. (in press)`.
//!
//! Groups are read from the innermost brackets outwards in one pass; each group is tokenized
//! and parsed with a small grammar (authors, years, locator), so the work is linear in the text.

use serde_json::{json, Value};

use super::tokens::{tokenize, Tok, TokKind};
use super::words::{
    has_common_word_ending, is_narrative_stop, is_paren_stop, is_particle, is_prefix_word,
    is_stopword,
};
use super::{CitationKind, Found};
use crate::keys::author_year_key;

/// Longest bracketed group considered, in bytes.
const MAX_GROUP: usize = 1500;
/// How far before a narrative `(year)` the names may start, in bytes.
const NARRATIVE_WINDOW: usize = 200;
/// Deepest bracket nesting tracked.
const MAX_DEPTH: usize = 32;

/// One cited work: authors as written, year (None for `in press`, `n.d.`), suffix letter.
#[derive(Debug, Clone, PartialEq)]
struct Work {
    authors: Vec<String>,
    et_al: bool,
    year: Option<i32>,
    suffix: Option<String>,
}

/// A year in a callout: `2012a` or a status such as `in press`.
#[derive(Debug, Clone, PartialEq)]
struct YearVal {
    year: Option<i32>,
    suffix: Option<String>,
}

/// How a word may take part in a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameClass {
    /// Capitalised (or containing a capital: `aoaC`).
    Cap,
    /// Lowercase but not a common word (names in lowercased PDF text).
    Lower,
    /// `van`, `de`, `da`…
    Particle,
}

#[derive(Debug, Clone, Copy)]
struct Phrase {
    /// Token range.
    first: usize,
    last: usize,
    any_cap: bool,
    words: usize,
}

#[derive(Debug, Clone)]
struct Authors {
    phrases: Vec<Phrase>,
    et_al: bool,
}

impl Authors {
    fn any_cap(&self) -> bool {
        self.phrases.iter().any(|p| p.any_cap)
    }
}

/// All author-year callouts in `text` (byte offsets), left to right.
pub fn find_author_year(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut floor = 0usize;
    let mut last_close = 0usize;
    let mut tick = crate::interrupt::Ticker::new();
    for (open, close) in innermost_groups(text) {
        tick.tick();
        if open < floor {
            continue;
        }
        // Names before a `(year)` never reach back over an earlier group: windows stay disjoint.
        // (A group read after an alias inside it starts before that alias closed.)
        let window_floor = floor.max(last_close).min(open);
        last_close = last_close.max(close + 1);
        for f in group_citations(text, open, close, window_floor) {
            floor = f.end;
            out.push(f);
        }
    }
    out.sort_by_key(|f| f.start);
    out
}

/// Innermost `(…)` and `[…]` groups, ordered by position.
fn innermost_groups(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut stack: Vec<(usize, u8, bool)> = Vec::new();
    let mut out = Vec::new();
    // Brackets and newlines only, found with SIMD searches and merged in order.
    let mut round = memchr::memchr3_iter(b'(', b')', b'\n', bytes).peekable();
    let mut square = memchr::memchr2_iter(b'[', b']', bytes).peekable();
    let mut tick = crate::interrupt::Ticker::new();
    loop {
        tick.tick();
        let i = match (round.peek(), square.peek()) {
            (Some(&r), Some(&q)) if r < q => round.next(),
            (Some(_), Some(_)) | (None, Some(_)) => square.next(),
            (Some(_), None) => round.next(),
            (None, None) => None,
        };
        let Some(i) = i else { break };
        let b = bytes[i];
        match b {
            b'(' | b'[' => {
                if stack.len() >= MAX_DEPTH {
                    stack.remove(0);
                }
                stack.push((i, b, false));
            }
            b')' | b']' => {
                let want = if b == b')' { b'(' } else { b'[' };
                match stack.pop() {
                    Some((open, kind, has_child)) if kind == want => {
                        // A short alias inside a group (`(World Health Organization [WHO], 2010)`)
                        // leaves the outer group readable; anything else makes it an outer group.
                        let alias =
                            i - open <= 13 && !bytes[open + 1..i].iter().any(u8::is_ascii_digit);
                        if let Some(parent) = stack.last_mut() {
                            parent.2 |= !alias;
                        }
                        if !has_child && i - open <= MAX_GROUP {
                            out.push((open, i));
                        }
                    }
                    _ => stack.clear(),
                }
            }
            b'\n' if bytes.get(i + 1) == Some(&b'\n') => stack.clear(),
            _ => {}
        }
    }
    out
}

/// Whether a group can hold a callout at all: four digits that may be a year, or a status
/// word (`in press`, `n.d.`, `forthcoming`, `submitted`, `in prep`). Most groups fail fast.
fn may_hold_year(content: &[u8]) -> bool {
    let mut run = 0;
    for (i, b) in content.iter().enumerate() {
        if b.is_ascii_digit() {
            run += 1;
            if run == 4 && matches!(content[i - 3], b'1' | b'2') {
                return true;
            }
        } else {
            run = 0;
        }
    }
    (0..content.len()).any(|i| {
        let word: &[u8] = match content[i] | 0x20 {
            b'p' => b"pre",
            b'n' => b"n.d",
            b'f' => b"forthcoming",
            b's' => b"submitted",
            _ => return false,
        };
        content[i..]
            .get(..word.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(word))
    })
}

fn group_citations(text: &str, open: usize, close: usize, floor: usize) -> Vec<Found> {
    if !may_hold_year(&text.as_bytes()[open + 1..close]) {
        return Vec::new();
    }
    let toks = tokenize(text, open + 1, close);
    if toks.is_empty() {
        return Vec::new();
    }
    if let Some((j, years)) = parse_years(&toks, 0) {
        if parse_locator(&toks, j) == toks.len() {
            return narrative(text, open, close, floor, &years)
                .into_iter()
                .collect();
        }
    }
    parenthetical(text, open, close, &toks)
}

struct PartParse {
    items: Vec<(Authors, Vec<YearVal>)>,
    first_tok: usize,
    end_tok: usize,
    full: bool,
    had_prefix: bool,
}

fn parenthetical(text: &str, open: usize, close: usize, toks: &[Tok<'_>]) -> Vec<Found> {
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut s = 0;
    for (i, t) in toks.iter().enumerate() {
        if t.is_punct(';') {
            parts.push((s, i));
            s = i + 1;
        }
    }
    parts.push((s, toks.len()));
    let n_parts = parts.len();
    let parsed: Vec<Option<PartParse>> = parts
        .iter()
        .map(|&(a, b)| parse_part(&toks[a..b], a))
        .collect();

    let mut out = Vec::new();
    let mut run: Vec<(usize, &PartParse)> = Vec::new();
    let flush = |run: &mut Vec<(usize, &PartParse)>, out: &mut Vec<Found>| {
        if run.is_empty() {
            return;
        }
        let (first_idx, first) = run[0];
        let (last_idx, last) = run[run.len() - 1];
        let start = if first_idx == 0 && !first.had_prefix {
            open
        } else {
            toks[first.first_tok].start
        };
        let end = if last_idx == n_parts - 1 && last.full {
            close + 1
        } else {
            toks[last.end_tok - 1].end
        };
        let works: Vec<Work> = run
            .iter()
            .flat_map(|(_, p)| works_of(text, toks, &p.items))
            .collect();
        out.push(found(start, end, &works, false));
        run.clear();
    };
    for (idx, p) in parsed.iter().enumerate() {
        match p {
            Some(pp) => {
                run.push((idx, pp));
                if !pp.full {
                    flush(&mut run, &mut out);
                }
            }
            None => flush(&mut run, &mut out),
        }
    }
    flush(&mut run, &mut out);
    out
}

fn found(start: usize, end: usize, works: &[Work], narrative: bool) -> Found {
    let items: Vec<Value> = works
        .iter()
        .map(|w| {
            let first = w.authors.first().map(String::as_str).unwrap_or("");
            json!({
                "authors": w.authors,
                "et_al": w.et_al,
                "year": w.year,
                "suffix": w.suffix,
                "key": author_year_key(first, w.year, w.suffix.as_deref()),
            })
        })
        .collect();
    Found {
        start,
        end,
        kind: CitationKind::AuthorYear,
        detail: json!({ "items": items, "narrative": narrative }),
    }
}

fn phrase_text(text: &str, toks: &[Tok<'_>], p: &Phrase) -> String {
    let raw = &text[toks[p.first].start..toks[p.last].end];
    let mut s = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    for poss in ["'s", "\u{2019}s"] {
        if s.ends_with(poss) {
            s.truncate(s.len() - poss.len());
        }
    }
    s
}

fn works_of(text: &str, toks: &[Tok<'_>], items: &[(Authors, Vec<YearVal>)]) -> Vec<Work> {
    let mut out = Vec::new();
    for (authors, years) in items {
        let names: Vec<String> = authors
            .phrases
            .iter()
            .map(|p| phrase_text(text, toks, p))
            .collect();
        for y in years {
            out.push(Work {
                authors: names.clone(),
                et_al: authors.et_al,
                year: y.year,
                suffix: y.suffix.clone(),
            });
        }
    }
    out
}

/// Parses one `;`-separated part of a group: optional lead-in words (`see`, `e.g.`), then
/// items `Authors, years[, locator]` separated by `,`, `;` or `and`.
fn parse_part(toks: &[Tok<'_>], offset: usize) -> Option<PartParse> {
    let p0 = skip_prefix(toks);
    let mut i = p0;
    let mut items = Vec::new();
    while let Some((j, item)) = parse_item(toks, i) {
        items.push(item);
        i = j;
        let mut k = i;
        if k < toks.len() && (toks[k].is_punct(',') || toks[k].is_punct(';')) {
            k += 1;
        }
        if k < toks.len() && (toks[k].is_word("and") || toks[k].is_punct('&')) {
            k += 1;
        }
        if k == i || parse_item(toks, k).is_none() {
            break;
        }
        i = k;
    }
    if items.is_empty() || !leftover_ok(&toks[i..]) {
        return None;
    }
    Some(PartParse {
        items: items
            .into_iter()
            .map(|(a, y)| (a.shift(offset), y))
            .collect(),
        first_tok: offset + p0,
        end_tok: offset + i,
        full: i == toks.len(),
        had_prefix: p0 > 0,
    })
}

/// What may follow the last item of a part that is not all citation: a comment after a comma
/// (`, unpublished data`, `, Fig. 2`), not another capitalised name (`, Harvard Apparatus`).
fn leftover_ok(rest: &[Tok<'_>]) -> bool {
    const LABELS: &[&str] = &[
        "fig",
        "figs",
        "figure",
        "figures",
        "table",
        "tab",
        "appendix",
        "supplementary",
        "chapter",
        "section",
        "box",
        "eq",
    ];
    match rest {
        [] => true,
        [first, second, ..] if first.is_punct(',') && second.kind == TokKind::Word => {
            !second.text.starts_with(char::is_uppercase)
                || LABELS.contains(&second.text.to_lowercase().as_str())
        }
        [first, ..] => first.is_punct(',') || first.is_punct(':'),
    }
}

impl Authors {
    fn shift(mut self, offset: usize) -> Self {
        for p in &mut self.phrases {
            p.first += offset;
            p.last += offset;
        }
        self
    }
}

/// Skips lead-in words such as `see also`, `e.g.,`, `reviewed in`.
fn skip_prefix(toks: &[Tok<'_>]) -> usize {
    let mut i = 0;
    let mut good = 0;
    while i < toks.len() {
        let t = &toks[i];
        match t.kind {
            TokKind::Word => {
                let lower = t.text.to_lowercase();
                let capitalised = t.text.starts_with(char::is_uppercase);
                let single = t.text.chars().count() == 1;
                let dotted = toks.get(i + 1).is_some_and(|n| n.is_punct('.'));
                if !is_prefix_word(&lower) || (capitalised && i > 0) || (single && !dotted) {
                    break;
                }
                i += 1;
                good = i;
            }
            TokKind::Punct if i > 0 && (t.is_punct(',') || t.is_punct('.') || t.is_punct(':')) => {
                i += 1;
                good = i;
            }
            _ => break,
        }
    }
    good
}

fn parse_item(toks: &[Tok<'_>], i: usize) -> Option<(usize, (Authors, Vec<YearVal>))> {
    let (j, authors) = parse_authors(toks, i)?;
    let mut k = j;
    if k < toks.len() && toks[k].is_punct(',') {
        k += 1;
    }
    let (m, years) = parse_years(toks, k)?;
    let m = parse_locator(toks, m);
    if !authors.any_cap() {
        // Lowercase names (PDF text that lost its capitals) need the shape of a citation:
        // `et al.`, two joined names, or a single word.
        let single_word = authors.phrases.len() == 1 && authors.phrases[0].words == 1;
        if !(authors.et_al || authors.phrases.len() >= 2 || single_word) {
            return None;
        }
    }
    Some((m, (authors, years)))
}

fn name_class(t: &Tok<'_>, narrative: bool) -> Option<NameClass> {
    if t.kind != TokKind::Word {
        return None;
    }
    let word = t.text.trim_end_matches("'s").trim_end_matches("\u{2019}s");
    let lower = word.to_lowercase();
    if lower == "and" || lower == "et" {
        return None;
    }
    let first_upper = word.starts_with(char::is_uppercase);
    if first_upper || word.chars().any(char::is_uppercase) {
        let stop = if narrative {
            is_narrative_stop(&lower)
        } else {
            is_paren_stop(&lower)
        };
        return (!stop).then_some(NameClass::Cap);
    }
    if is_particle(&lower) {
        return Some(NameClass::Particle);
    }
    if is_stopword(&lower) || word.chars().count() < 2 {
        return None;
    }
    Some(NameClass::Lower)
}

/// One name: up to four words (`Da Costa`, `van der Berg`, `Mariell Velasquez serrano`);
/// organisation names may hold `of`/`for`/`the` between capitalised words.
fn parse_phrase(toks: &[Tok<'_>], i: usize) -> Option<(usize, Phrase)> {
    let mut j = i;
    let mut words = 0;
    let mut any_cap = false;
    let mut classes: Vec<NameClass> = Vec::new();
    while j < toks.len() && words < 6 {
        let t = &toks[j];
        if any_cap
            && words > 0
            && t.kind == TokKind::Word
            && matches!(t.text, "of" | "for" | "the" | "on" | "in")
            && toks.get(j + 1).and_then(|n| name_class(n, false)) == Some(NameClass::Cap)
        {
            j += 1;
            words += 1;
            classes.push(NameClass::Particle);
            continue;
        }
        let Some(class) = name_class(t, false) else {
            break;
        };
        if words >= 4 && class != NameClass::Cap {
            break;
        }
        any_cap |= class == NameClass::Cap;
        classes.push(class);
        words += 1;
        j += 1;
    }
    while classes.last() == Some(&NameClass::Particle) {
        classes.pop();
        j -= 1;
    }
    if classes.is_empty() {
        return None;
    }
    Some((
        j,
        Phrase {
            first: i,
            last: j - 1,
            any_cap,
            words: classes.len(),
        },
    ))
}

/// `et al.`, `et. al.`, `and colleagues`… starting at `i`; returns the index after it.
fn parse_et_al(toks: &[Tok<'_>], i: usize) -> Option<usize> {
    let t = toks.get(i)?;
    if t.is_word("et") {
        let mut j = i + 1;
        if toks.get(j).is_some_and(|t| t.is_punct('.')) {
            j += 1;
        }
        if toks
            .get(j)
            .is_some_and(|t| t.is_word("al") || t.is_word("alii"))
        {
            j += 1;
            if toks.get(j).is_some_and(|t| t.is_punct('.')) {
                j += 1;
            }
            return Some(j);
        }
        return None;
    }
    if t.is_word("and") {
        let n = toks.get(i + 1)?;
        if [
            "colleagues",
            "coworkers",
            "co-workers",
            "collaborators",
            "others",
        ]
        .iter()
        .any(|w| n.is_word(w))
        {
            return Some(i + 2);
        }
    }
    None
}

/// Skips a bracketed alias after a name: `[WHO]`, `(NICE)`.
fn skip_alias(toks: &[Tok<'_>], j: usize) -> usize {
    let open = toks
        .get(j)
        .is_some_and(|t| t.is_punct('[') || t.is_punct('('));
    let word = toks.get(j + 1).is_some_and(|t| t.kind == TokKind::Word);
    let close = toks
        .get(j + 2)
        .is_some_and(|t| t.is_punct(']') || t.is_punct(')'));
    if open && word && close {
        j + 3
    } else {
        j
    }
}

fn parse_authors(toks: &[Tok<'_>], i: usize) -> Option<(usize, Authors)> {
    let (j, p) = parse_phrase(toks, i)?;
    let mut j = skip_alias(toks, j);
    let mut phrases = vec![p];
    loop {
        if toks.get(j).is_some_and(|t| t.is_punct(',')) {
            if let Some((k, p)) = parse_phrase(toks, j + 1) {
                phrases.push(p);
                j = k;
                continue;
            }
        }
        let mut k = j;
        if toks.get(k).is_some_and(|t| t.is_punct(',')) {
            k += 1;
        }
        let joined = toks
            .get(k)
            .is_some_and(|t| t.is_word("and") || t.is_punct('&'));
        if joined && parse_et_al(toks, k).is_none() {
            if let Some((m, p)) = parse_phrase(toks, k + 1) {
                phrases.push(p);
                j = m;
            }
        }
        break;
    }
    let mut k = j;
    if toks.get(k).is_some_and(|t| t.is_punct(',')) {
        k += 1;
    }
    let mut et_al = false;
    if let Some(m) = parse_et_al(toks, k) {
        et_al = true;
        j = m;
    }
    Some((j, Authors { phrases, et_al }))
}

/// One year (`2012`, `2012a`) or status (`in press`, `n.d.`, `forthcoming`) at `i`.
fn parse_year_token(toks: &[Tok<'_>], i: usize) -> Option<(usize, YearVal)> {
    let t = toks.get(i)?;
    match t.kind {
        TokKind::Num => {
            let digits: &str = &t.text[..t.text.bytes().take_while(u8::is_ascii_digit).count()];
            if digits.len() != 4 {
                return None;
            }
            let year: i32 = digits.parse().ok()?;
            if !(1500..=2099).contains(&year) {
                return None;
            }
            // Part of a longer number or date: `2009/138/EC`, `2018-09-11`, `2008.5`.
            let glued = |k: usize| toks.get(k).filter(|n| n.start == toks[k - 1].end);
            let joins = glued(i + 1)
                .is_some_and(|n| ["/", "-", "\u{2010}", ".", "\u{2013}"].contains(&n.text));
            if joins && glued(i + 2).is_some_and(|n| n.kind == TokKind::Num) {
                return None;
            }
            let suffix = &t.text[4..];
            Some((
                i + 1,
                YearVal {
                    year: Some(year),
                    suffix: (!suffix.is_empty()).then(|| suffix.to_string()),
                },
            ))
        }
        TokKind::Word => {
            let status = YearVal {
                year: None,
                suffix: None,
            };
            let lower = t.text.to_lowercase();
            match lower.as_str() {
                "in" => {
                    let n = toks.get(i + 1)?;
                    if ["press", "preparation", "review", "print"]
                        .iter()
                        .any(|w| n.is_word(w))
                    {
                        return Some((i + 2, status));
                    }
                    if n.is_word("prep") {
                        let j = if toks.get(i + 2).is_some_and(|t| t.is_punct('.')) {
                            i + 3
                        } else {
                            i + 2
                        };
                        return Some((j, status));
                    }
                    None
                }
                "forthcoming" | "submitted" => Some((i + 1, status)),
                "n" => {
                    let ok = toks.get(i + 1).is_some_and(|t| t.is_punct('.'))
                        && toks.get(i + 2).is_some_and(|t| t.is_word("d"));
                    if !ok {
                        return None;
                    }
                    let j = if toks.get(i + 3).is_some_and(|t| t.is_punct('.')) {
                        i + 4
                    } else {
                        i + 3
                    };
                    Some((j, status))
                }
                _ => None,
            }
        }
        TokKind::Punct => None,
    }
}

/// Years separated by commas: `2002, 2005`, `2012a,b`, `2023a, 2023b`.
fn parse_years(toks: &[Tok<'_>], i: usize) -> Option<(usize, Vec<YearVal>)> {
    let (mut j, first) = parse_year_token(toks, i)?;
    let mut years = vec![first];
    loop {
        // `2001 and 2003`, `2001 & 2003`
        let joined = toks
            .get(j)
            .is_some_and(|t| t.is_word("and") || t.is_punct('&'));
        if joined {
            if let Some((k, y)) = parse_year_token(toks, j + 1) {
                years.push(y);
                j = k;
                continue;
            }
        }
        if !toks.get(j).is_some_and(|t| t.is_punct(',')) {
            break;
        }
        if let Some((k, y)) = parse_year_token(toks, j + 1) {
            years.push(y);
            j = k;
            continue;
        }
        let prev = years.last().cloned();
        // `2012a,b`: a lone letter (not an abbreviation such as `p.`) continues the suffixes.
        let letter = toks.get(j + 1).filter(|t| {
            t.kind == TokKind::Word
                && t.text.len() == 1
                && t.text.bytes().all(|b| b.is_ascii_lowercase())
                && !toks.get(j + 2).is_some_and(|n| n.is_punct('.'))
        });
        match (letter, prev) {
            (Some(l), Some(p)) if p.suffix.is_some() => {
                years.push(YearVal {
                    year: p.year,
                    suffix: Some(l.text.to_string()),
                });
                j += 2;
            }
            _ => break,
        }
    }
    Some((j, years))
}

/// An optional page or place locator after the years: `, p. 7`, `, pp. 3-5`, `: 45`, `, chap. 2`.
fn parse_locator(toks: &[Tok<'_>], i: usize) -> usize {
    const WORDS: &[&str] = &[
        "p", "pp", "pg", "para", "paras", "chap", "ch", "sec", "sect", "fig", "figs", "table",
        "tab", "app", "vol", "no", "note", "n", "col", "cols", "l", "ll", "fn", "page", "pages",
        "chapter", "section", "figure",
    ];
    let num_like = |t: Option<&Tok<'_>>| {
        t.is_some_and(|t| {
            t.kind == TokKind::Num
                || (t.kind == TokKind::Word && t.text.chars().all(|c| "ivxlcIVXLC".contains(c)))
        })
    };
    let mut j = i;
    if toks.get(j).is_some_and(|t| t.is_punct(':')) && num_like(toks.get(j + 1)) {
        j += 2;
    } else {
        if toks.get(j).is_some_and(|t| t.is_punct(',')) {
            j += 1;
        }
        // A bare page number closing the item: `(Smith 2001, 12)`, `(Smith 2001, 12-14)`.
        let dash = |t: &Tok<'_>| t.is_punct('-') || t.is_punct('\u{2013}');
        let bare_page = j > i
            && toks
                .get(j)
                .is_some_and(|t| t.kind == TokKind::Num && t.text.len() <= 4)
            && toks.get(j + 1).is_none_or(|n| dash(n) || n.is_punct(';'));
        if bare_page {
            let mut k = j + 1;
            if toks.get(k).is_some_and(dash)
                && toks.get(k + 1).is_some_and(|t| t.kind == TokKind::Num)
            {
                k += 2;
            }
            return k;
        }
        let Some(w) = toks.get(j).filter(|t| t.kind == TokKind::Word) else {
            return i;
        };
        if !WORDS.contains(&w.text.to_lowercase().as_str()) {
            return i;
        }
        j += 1;
        if toks.get(j).is_some_and(|t| t.is_punct('.')) {
            j += 1;
        }
        if !num_like(toks.get(j)) {
            return i;
        }
        j += 1;
    }
    let dash = |t: Option<&Tok<'_>>| {
        t.is_some_and(|t| t.is_punct('-') || t.is_punct('\u{2013}') || t.is_punct('\u{2014}'))
    };
    if dash(toks.get(j)) && num_like(toks.get(j + 1)) {
        j += 2;
    }
    j
}

/// Names right before a `(year)` group: `Hyman et al.`, `Vargo and Lusch`, `Helmholtz`.
fn narrative(
    text: &str,
    open: usize,
    close: usize,
    floor: usize,
    years: &[YearVal],
) -> Option<Found> {
    let mut lo = floor.max(open.saturating_sub(NARRATIVE_WINDOW));
    while !text.is_char_boundary(lo) {
        lo += 1;
    }
    let mut toks = tokenize(text, lo, open);
    if lo > floor && text[..lo].ends_with(char::is_alphanumeric) && !toks.is_empty() {
        toks.remove(0);
    }
    let mut j = toks.len();
    // `Smith et al.'s (2010)`: the possessive after `et al.`.
    if j >= 2
        && toks[j - 1].is_word("s")
        && (toks[j - 2].is_punct('\'') || toks[j - 2].is_punct('\u{2019}'))
    {
        j -= 2;
    }
    let mut et_al = false;
    // `et al.` / `and colleagues` read backwards.
    for back in [4usize, 3, 2] {
        if j >= back && parse_et_al(&toks, j - back) == Some(j) {
            et_al = true;
            j -= back;
            if j > 0 && toks[j - 1].is_punct(',') {
                j -= 1;
            }
            break;
        }
    }
    let (k, last) = phrase_backward(&toks, j)?;
    let mut phrases = vec![last];
    j = k;
    if j > 0 && (toks[j - 1].is_word("and") || toks[j - 1].is_punct('&')) {
        let c = j - 1;
        let c2 = if c > 0 && toks[c - 1].is_punct(',') {
            c - 1
        } else {
            c
        };
        if let Some((k2, p2)) = phrase_backward(&toks, c2) {
            phrases.insert(0, p2);
            j = k2;
            while j > 0 && toks[j - 1].is_punct(',') {
                match phrase_backward(&toks, j - 1) {
                    Some((k3, p3)) => {
                        phrases.insert(0, p3);
                        j = k3;
                    }
                    None => break,
                }
            }
        }
    }
    let prev = j.checked_sub(1).map(|p| &toks[p]);
    if prev.is_some_and(|t| {
        [
            "the", "a", "an", "this", "that", "these", "those", "our", "their", "its", "his", "her",
        ]
        .iter()
        .any(|d| t.is_word(d))
    }) {
        return None;
    }
    let authors = Authors { phrases, et_al };
    if !authors.any_cap() && !et_al {
        let p = &authors.phrases[0];
        let word = toks[p.first].text.to_lowercase();
        let prev_ok = match prev {
            None => true,
            Some(t) if t.kind == TokKind::Punct => {
                [',', '.', ';', ':'].iter().any(|c| t.is_punct(*c))
            }
            Some(t) => [
                "by",
                "of",
                "to",
                "in",
                "from",
                "and",
                "with",
                "see",
                "following",
                "after",
            ]
            .iter()
            .any(|w| t.is_word(w)),
        };
        let ok = authors.phrases.len() == 1
            && p.words == 1
            && word.chars().count() >= 4
            && !has_common_word_ending(&word)
            && prev_ok;
        if !ok {
            return None;
        }
    }
    let names: Vec<String> = authors
        .phrases
        .iter()
        .map(|p| phrase_text(text, &toks, p))
        .collect();
    let works: Vec<Work> = years
        .iter()
        .map(|y| Work {
            authors: names.clone(),
            et_al,
            year: y.year,
            suffix: y.suffix.clone(),
        })
        .collect();
    Some(found(
        toks[authors.phrases[0].first].start,
        close + 1,
        &works,
        true,
    ))
}

/// A name ending right before token `j`, read backwards: at most three words, not ending in a
/// particle.
fn phrase_backward(toks: &[Tok<'_>], j: usize) -> Option<(usize, Phrase)> {
    let mut k = j;
    let mut classes: Vec<NameClass> = Vec::new();
    while k > 0 && classes.len() < 3 {
        let Some(class) = name_class(&toks[k - 1], true) else {
            break;
        };
        if classes.is_empty() && class == NameClass::Particle {
            return None;
        }
        classes.push(class);
        k -= 1;
    }
    // Possessive only on the last word: `Friston's (2010)`.
    if classes.is_empty() {
        return None;
    }
    let any_cap = classes.contains(&NameClass::Cap);
    Some((
        k,
        Phrase {
            first: k,
            last: j - 1,
            any_cap,
            words: classes.len(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<&str> {
        find_author_year(text)
            .iter()
            .map(|f| &text[f.start..f.end])
            .collect()
    }

    #[test]
    fn parenthetical_groups() {
        assert_eq!(
            spans("as argued (Friston 2010) and"),
            vec!["(Friston 2010)"]
        );
        assert_eq!(
            spans("x (Parr & Friston, 2019)."),
            vec!["(Parr & Friston, 2019)"]
        );
        assert_eq!(
            spans("y (Da Costa et al., 2020)"),
            vec!["(Da Costa et al., 2020)"]
        );
        assert_eq!(
            spans("z (WHO, 2010; Bell and Sander, 2002)"),
            vec!["(WHO, 2010; Bell and Sander, 2002)"]
        );
        assert_eq!(
            spans("w (Offringa et al. 2010, 2012a,b)"),
            vec!["(Offringa et al. 2010, 2012a,b)"]
        );
        assert_eq!(
            spans("v (lundkvist & Yakhlef, 2004)"),
            vec!["(lundkvist & Yakhlef, 2004)"]
        );
        assert_eq!(
            spans("u (e.g. Banik & Rabbanee, 2023)"),
            vec!["Banik & Rabbanee, 2023)"]
        );
        assert_eq!(
            spans("t (PDB 6OMM; Zhuang et al., 2020)"),
            vec!["Zhuang et al., 2020)"]
        );
        assert_eq!(
            spans("s (Marks et al., 2003; Figure 7)"),
            vec!["(Marks et al., 2003"]
        );
        assert_eq!(spans("r (Smith, in press)"), vec!["(Smith, in press)"]);
        assert_eq!(
            spans("q (van der Berg 1999, p. 4)"),
            vec!["(van der Berg 1999, p. 4)"]
        );
        assert_eq!(spans("p (Smith 2001, 12-14)"), vec!["(Smith 2001, 12-14)"]);
        assert_eq!(
            spans("l (World Health Organization [WHO], 2010) and Smith et al.'s (2010) study"),
            vec![
                "(World Health Organization [WHO], 2010)",
                "Smith et al.'s (2010)"
            ]
        );
        assert_eq!(
            spans("o (Smith 2001 and 2003; Jones, 2002)"),
            vec!["(Smith 2001 and 2003; Jones, 2002)"]
        );
        assert_eq!(
            spans("n (see also Smith, 2001; e.g., Jones et al. 2002)"),
            vec!["Smith, 2001; e.g., Jones et al. 2002)"]
        );
    }

    #[test]
    fn narrative_callouts() {
        assert_eq!(spans("Helmholtz (1866) said"), vec!["Helmholtz (1866)"]);
        assert_eq!(
            spans("as Hyman et al. (2002, 2005) show"),
            vec!["Hyman et al. (2002, 2005)"]
        );
        assert_eq!(
            spans("Finally, Mazur and Zaborek (2014) tested"),
            vec!["Mazur and Zaborek (2014)"]
        );
        assert_eq!(
            spans("which Prahalad and ramaswamy (2004b, p.6) define"),
            vec!["Prahalad and ramaswamy (2004b, p.6)"]
        );
        assert_eq!(spans("reported by rudloff (2011)."), vec!["rudloff (2011)"]);
    }

    #[test]
    fn not_citations() {
        assert!(spans("in the spring (2010) and (since 2005) or (n = 2005)").is_empty());
        assert!(spans("measured by spectroscopy (2005) and the Kyoto Protocol (1997)").is_empty());
        assert!(spans("(data not shown, 2005) and (Table 2, 2003) and (January 2010)").is_empty());
        assert!(spans("an impact factor of 3.466 (1998)").is_empty());
    }

    #[test]
    fn detail_lists_the_works() {
        let f = find_author_year("(WHO, 2010; Bell and Sander, 2002a,b)");
        let items = f[0].detail["items"].as_array().unwrap();
        assert_eq!(items.len(), 3);
        assert_eq!(items[1]["authors"], json!(["Bell", "Sander"]));
        assert_eq!(items[2]["key"], "bell|2002|b");
        assert_eq!(f[0].detail["narrative"], false);
    }
}

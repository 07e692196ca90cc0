//! Tokens of a reference string and the features the tagger reads from each.
//!
//! A token is a run of letters and digits, or one other non-space character: `J. Am. Chem.
//! Soc. 103, 2450 (1981);` is `J` `.` `Am` `.` … `103` `,` `2450` `(` `1981` `)` `;`. Features
//! are hashed (FNV-1a) into a fixed number of buckets, so the model needs no vocabulary.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::lexicon;

/// Word classes from kerai's shared word lists, by lowercase word.
static CLASSES: LazyLock<HashMap<String, &'static str>> = LazyLock::new(|| {
    let mut m = HashMap::new();
    let lists: [(&[&str], &str); 7] = [
        (lexicon::PLACES, "place"),
        (lexicon::FIRST_NAMES, "given"),
        (lexicon::ORG_NOUNS, "org"),
        (lexicon::COMPANY_WORDS, "company"),
        (lexicon::MONTHS, "month"),
        (lexicon::MONTH_ABBREVIATIONS, "month"),
        (super::super::VENUE_WORDS, "venue"),
    ];
    for (list, class) in lists {
        for w in list {
            for part in w.split_whitespace() {
                m.entry(part.to_lowercase()).or_insert(class);
            }
        }
    }
    m
});

/// Bits of the feature hash: `1 << BITS` buckets.
pub const BITS: u32 = 18;
const MASK: u32 = (1 << BITS) - 1;

/// One token: byte offsets into the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub start: usize,
    pub end: usize,
}

/// A Han ideograph or a kana: scripts written without spaces, where one character is the
/// unit a word list or a model can read (`45巻 1号`: `45` `巻` `1` `号`).
fn is_ideographic(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{2FA1F}')
}

/// A Hangul syllable or letter: written in words, but with numbers glued on (`제32권`).
fn is_hangul(c: char) -> bool {
    matches!(c, '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' | '\u{AC00}'..='\u{D7AF}')
}

/// Splits `s` into tokens (runs of alphanumerics, single other characters; spaces dropped).
/// A Han or kana character is a token of its own, and a run of Hangul ends where digits or
/// Latin letters begin, and the other way round.
pub fn tokenize(s: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut run: Option<usize> = None;
    let mut last = ' ';
    for (i, c) in s.char_indices() {
        let prev = std::mem::replace(&mut last, c);
        if is_ideographic(c) {
            if let Some(a) = run.take() {
                out.push(Token { start: a, end: i });
            }
            out.push(Token {
                start: i,
                end: i + c.len_utf8(),
            });
            continue;
        }
        if c.is_alphanumeric() {
            if let Some(a) = run {
                if is_hangul(c) != is_hangul(prev) {
                    out.push(Token { start: a, end: i });
                    run = Some(i);
                    continue;
                }
            }
            // A capital glued to a number is two tokens: `D76` (series and volume), `S08002`.
            if let Some(a) = run {
                let mut head = s[a..i].chars();
                let single_capital =
                    matches!((head.next(), head.next()), (Some(h), None) if h.is_uppercase());
                if c.is_ascii_digit() && single_capital {
                    out.push(Token { start: a, end: i });
                    run = Some(i);
                    continue;
                }
            }
            run.get_or_insert(i);
            continue;
        }
        if let Some(a) = run.take() {
            out.push(Token { start: a, end: i });
        }
        if !c.is_whitespace() {
            out.push(Token {
                start: i,
                end: i + c.len_utf8(),
            });
        }
    }
    if let Some(a) = run {
        out.push(Token {
            start: a,
            end: s.len(),
        });
    }
    out
}

fn n_of(toks: &[Token]) -> usize {
    toks.len()
}

struct Hasher(u64);

impl Hasher {
    fn new(kind: u8) -> Self {
        let mut h = Hasher(0xcbf2_9ce4_8422_2325);
        h.byte(kind);
        h
    }
    fn byte(&mut self, b: u8) {
        self.0 ^= u64::from(b);
        self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
    }
    fn part(mut self, s: &str) -> Self {
        self.byte(0xff);
        for b in s.bytes() {
            self.byte(b);
        }
        self
    }
    fn bucket(&self) -> u32 {
        ((self.0 >> 32) as u32 ^ self.0 as u32) & MASK
    }
}

/// Lowercase, with dashes folded to `-` and quotes to `"` (`–`, `—`, `“`, `«`, `’` …), so
/// a rarer form reads like the common one.
fn fold(raw: &str) -> String {
    raw.chars()
        .map(|c| match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' | '_' => '-',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{00AB}' | '\u{00BB}' | '\u{2018}'
            | '\u{2019}' | '\u{201A}' | '`' | '\u{00B4}' | '\'' => '"',
            c => c,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The word shape: `Xx`, `X`, `d`, `Xd`, `.`, with runs collapsed (`Smith` → `Xx`,
/// `1981` → `d`, `S08002` → `Xd`).
fn shape(t: &str) -> String {
    let mut out = String::new();
    let mut last = ' ';
    for c in fold(t)
        .chars()
        .zip(t.chars())
        .map(|(f, o)| if o.is_alphanumeric() { o } else { f })
    {
        let k = if c.is_uppercase() {
            'X'
        } else if c.is_lowercase() {
            'x'
        } else if c.is_numeric() {
            'd'
        } else if c.is_alphabetic() {
            'a'
        } else {
            c
        };
        if k != last {
            out.push(k);
            last = k;
        }
    }
    out
}

fn bucket_of(n: usize, edges: &[usize]) -> &'static str {
    const NAMES: [&str; 8] = ["0", "1", "2", "3", "4", "5", "6", "7"];
    let k = edges.iter().take_while(|&&e| n >= e).count();
    NAMES[k.min(NAMES.len() - 1)]
}

fn is_year(t: &str) -> bool {
    t.len() == 4
        && t.bytes().all(|b| b.is_ascii_digit())
        && matches!(&t[..2], "15" | "16" | "17" | "18" | "19" | "20")
}

/// Per-token facts the features combine.
struct Tok<'a> {
    lower: String,
    shape: String,
    raw: &'a str,
}

/// Short names of the labels, by index, as features spell them.
const HINT: [&str; 12] = ["-", "a", "e", "d", "t", "c", "v", "i", "p", "pb", "l", "id"];

/// The per-token facts of `s`.
fn token_info<'a>(s: &'a str, toks: &[Token]) -> Vec<Tok<'a>> {
    toks.iter()
        .map(|t| {
            let raw = &s[t.start..t.end];
            Tok {
                lower: fold(raw),
                shape: shape(raw),
                raw,
            }
        })
        .collect()
}

/// The hashed features of every token of `s`. `hints` holds, per token, the field the rules
/// put it in (as a label index; 0 for none), so the tagger learns when to trust them.
pub fn features(s: &str, toks: &[Token], hints: &[usize]) -> Vec<Vec<u32>> {
    let hint = |i: isize| -> &str {
        if i < 0 || i as usize >= n_of(toks) {
            "<>"
        } else {
            HINT[hints.get(i as usize).copied().unwrap_or(0).min(11)]
        }
    };
    let info = token_info(s, toks);
    let n = info.len();
    let word = |i: isize| -> &str {
        if i < 0 {
            "<s>"
        } else if i as usize >= n {
            "</s>"
        } else {
            info[i as usize].lower.as_str()
        }
    };
    let shp = |i: isize| -> &str {
        if i < 0 {
            "<s>"
        } else if i as usize >= n {
            "</s>"
        } else {
            info[i as usize].shape.as_str()
        }
    };
    let raws: Vec<&str> = info.iter().map(|t| t.raw).collect();
    let segs = segments(&raws);
    let mut out = Vec::with_capacity(n);
    let (mut dots, mut commas, mut depth, mut quotes) = (0usize, 0usize, 0i32, 0usize);
    let mut seen_year = false;
    for (i, t) in info.iter().enumerate() {
        let ii = i as isize;
        let mut f: Vec<u32> = Vec::with_capacity(40);
        let mut add = |h: Hasher| f.push(h.bucket());
        add(Hasher::new(0));
        add(Hasher::new(1).part(&t.lower));
        add(Hasher::new(2).part(&t.shape));
        let chars = t.lower.chars().count();
        if chars >= 4 {
            let pre: String = t.lower.chars().take(3).collect();
            let suf: String = t.lower.chars().skip(chars - 3).collect();
            add(Hasher::new(3).part(&pre));
            add(Hasher::new(4).part(&suf));
        }
        add(Hasher::new(5).part(word(ii - 1)));
        add(Hasher::new(6).part(word(ii + 1)));
        add(Hasher::new(7).part(word(ii - 2)));
        add(Hasher::new(8).part(word(ii + 2)));
        add(Hasher::new(9).part(shp(ii - 1)).part(&t.shape));
        add(Hasher::new(10).part(&t.shape).part(shp(ii + 1)));
        add(Hasher::new(11).part(word(ii - 1)).part(&t.lower));
        add(Hasher::new(12).part(&t.lower).part(word(ii + 1)));
        add(Hasher::new(13).part(bucket_of(i * 10 / n.max(1), &[1, 2, 4, 6, 8, 9])));
        add(Hasher::new(14).part(bucket_of(dots, &[1, 2, 3, 4, 5, 7])));
        add(Hasher::new(15).part(bucket_of(commas, &[1, 2, 3, 5, 8, 12])));
        add(Hasher::new(16).part(bucket_of(n - i, &[2, 3, 5, 8, 12, 20])));
        add(Hasher::new(17).part(if depth > 0 { "in" } else { "out" }));
        add(Hasher::new(18).part(if quotes % 2 == 1 { "in" } else { "out" }));
        add(Hasher::new(19).part(if seen_year { "y" } else { "n" }));
        add(Hasher::new(20).part(bucket_of(i, &[1, 2, 3, 6, 10, 16])));
        if is_year(t.raw) {
            add(Hasher::new(21).part("year"));
        }
        if t.raw.bytes().all(|b| b.is_ascii_digit()) {
            add(Hasher::new(22).part(bucket_of(t.raw.len(), &[2, 3, 4, 5, 6])));
        }
        add(Hasher::new(23).part(&t.shape).part(word(ii + 1)));
        add(Hasher::new(25).part(hint(ii)));
        add(Hasher::new(26).part(hint(ii - 1)).part(hint(ii)));
        add(Hasher::new(27).part(hint(ii)).part(hint(ii + 1)));
        add(Hasher::new(28).part(hint(ii)).part(&t.shape));
        if let Some(class) = CLASSES.get(&t.lower) {
            add(Hasher::new(29).part(class));
            add(Hasher::new(30).part(class).part(hint(ii)));
        }
        add(Hasher::new(31)
            .part(shp(ii - 1))
            .part(&t.shape)
            .part(shp(ii + 1)));
        add(Hasher::new(24)
            .part(if seen_year { "y" } else { "n" })
            .part(bucket_of(dots, &[1, 2, 3, 4]))
            .part(&t.shape));
        let seg = &segs[i];
        add(Hasher::new(32).part(seg.caps));
        add(Hasher::new(33).part(seg.caps).part(hint(ii)));
        add(Hasher::new(34).part(seg.next));
        add(Hasher::new(35).part(seg.next).part(hint(ii)));
        add(Hasher::new(36).part(seg.words).part(seg.caps));
        out.push(f);
        match t.raw {
            "." => dots += 1,
            "," => commas += 1,
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            "\"" | "“" | "”" | "«" | "»" | "„" => quotes += 1,
            _ => {}
        }
        seen_year |= is_year(t.raw);
    }
    out
}

/// Appends to `feats` (the first pass's features of `s`) what the first pass's reading
/// `prior` (a label index per token) looks like around each token: the second pass's
/// features are the first's and these.
pub fn add_prior(s: &str, toks: &[Token], feats: &mut [Vec<u32>], prior: &[usize]) {
    let n = toks.len();
    if prior.len() != n || feats.len() != n {
        return;
    }
    // Only the shapes and segments: no need to fold every token again, as `token_info` does.
    let raws: Vec<&str> = toks.iter().map(|t| &s[t.start..t.end]).collect();
    let segs = segments(&raws);
    let c = PriorContext::new(prior);
    let p = |j: isize| -> &str {
        if j < 0 || j as usize >= n {
            "<>"
        } else {
            HINT[prior[j as usize].min(11)]
        }
    };
    for (i, (raw, f)) in raws.iter().zip(feats.iter_mut()).enumerate() {
        let ii = i as isize;
        let seg = &segs[i];
        let shape = shape(raw);
        let mut add = |h: Hasher| f.push(h.bucket());
        add(Hasher::new(40).part(p(ii)));
        add(Hasher::new(41).part(p(ii - 1)).part(p(ii)));
        add(Hasher::new(42).part(p(ii)).part(p(ii + 1)));
        add(Hasher::new(43).part(p(ii - 2)).part(p(ii)));
        add(Hasher::new(44).part(p(ii)).part(p(ii + 2)));
        add(Hasher::new(45).part(HINT[c.run_before[i]]).part(p(ii)));
        add(Hasher::new(46).part(p(ii)).part(HINT[c.run_after[i]]));
        add(Hasher::new(47)
            .part(HINT[c.run_before[i]])
            .part(p(ii))
            .part(HINT[c.run_after[i]]));
        add(Hasher::new(48).part(&c.seen_before[i]).part(p(ii)));
        add(Hasher::new(49).part(p(ii)).part(&c.seen_after[i]));
        add(Hasher::new(50).part(p(ii)).part(&shape));
        add(Hasher::new(51).part(p(ii)).part(seg.caps).part(seg.next));
    }
}

/// What the first pass's reading looks like around each token: the label of the run before
/// the token's run and of the run after it (`Other` runs skipped), and which of the main
/// fields were read before and after it.
struct PriorContext {
    run_before: Vec<usize>,
    run_after: Vec<usize>,
    seen_before: Vec<String>,
    seen_after: Vec<String>,
}

impl PriorContext {
    fn new(prior: &[usize]) -> Self {
        let n = prior.len();
        let (mut run_before, mut run_after) = (vec![0; n], vec![0; n]);
        let mut last = 0;
        for i in 0..n {
            if i > 0 && prior[i] != prior[i - 1] && prior[i - 1] != 0 {
                last = prior[i - 1];
            }
            run_before[i] = if last == prior[i] { 0 } else { last };
        }
        let mut next = 0;
        for i in (0..n).rev() {
            if i + 1 < n && prior[i] != prior[i + 1] && prior[i + 1] != 0 {
                next = prior[i + 1];
            }
            run_after[i] = if next == prior[i] { 0 } else { next };
        }
        // Date, title, container, publisher, location: which were read so far, which later.
        const MAIN: [usize; 5] = [3, 4, 5, 9, 10];
        let mark = |seen: &[bool; 12]| -> String {
            MAIN.iter()
                .map(|&l| if seen[l] { HINT[l] } else { "_" })
                .collect::<Vec<_>>()
                .join("")
        };
        let mut seen = [false; 12];
        let mut seen_before = Vec::with_capacity(n);
        for &l in prior {
            seen_before.push(mark(&seen));
            seen[l.min(11)] = true;
        }
        let mut seen = [false; 12];
        let mut seen_after = vec![String::new(); n];
        for i in (0..n).rev() {
            seen_after[i] = mark(&seen);
            seen[prior[i].min(11)] = true;
        }
        PriorContext {
            run_before,
            run_after,
            seen_before,
            seen_after,
        }
    }
}

/// What a token's segment (the words between two sentence-ending or comma marks) looks like:
/// how many of its longer words are capitalised (a container's words usually are, an APA
/// title's not), how long it is, and what follows it (a number: a volume, a year or pages).
struct Segment {
    caps: &'static str,
    words: &'static str,
    next: &'static str,
}

fn segments(raws: &[&str]) -> Vec<Segment> {
    let n = raws.len();
    // Boundaries: `.` after a word of two or more letters (not an initial), `,`, `:`, `;`
    // and closing quotes or brackets.
    let ends = |i: usize| -> bool {
        match raws[i] {
            "," | ";" | ":" | ")" | "]" | "\u{201D}" | "\"" => true,
            "." | "?" | "!" => i == 0 || raws[i - 1].chars().count() > 1,
            _ => false,
        }
    };
    let mut out = Vec::with_capacity(n);
    let mut a = 0;
    while a < n {
        let mut b = a;
        while b < n && !ends(b) {
            b += 1;
        }
        let stop = b.min(n - 1);
        let long: Vec<&str> = raws[a..=stop]
            .iter()
            .copied()
            .filter(|w| w.chars().count() >= 4 && w.chars().all(char::is_alphabetic))
            .collect();
        let capped = long
            .iter()
            .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
            .count();
        let caps = match (long.len(), capped) {
            (0, _) => "none",
            (l, c) if c == l => "all",
            (l, c) if c * 2 >= l => "most",
            (_, 0) => "zero",
            _ => "few",
        };
        let words = bucket_of(long.len(), &[1, 2, 3, 5, 8, 12]);
        let next = match raws.get(b + 1).copied() {
            Some(w) if w.bytes().all(|c| c.is_ascii_digit()) => "num",
            Some(w) if w.chars().next().is_some_and(char::is_uppercase) => "cap",
            Some(_) => "low",
            None => "end",
        };
        for _ in a..=stop {
            out.push(Segment { caps, words, next });
        }
        a = stop + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_punctuation() {
        let s = "J. Am. Chem. Soc. 103, 2450 (1981);";
        let t: Vec<&str> = tokenize(s).iter().map(|t| &s[t.start..t.end]).collect();
        assert_eq!(
            t,
            [
                "J", ".", "Am", ".", "Chem", ".", "Soc", ".", "103", ",", "2450", "(", "1981", ")",
                ";"
            ]
        );
        assert_eq!(shape("S08002"), "Xd");
        let s = "松掛 暢, 45巻 1号, 제32권 ICT활용";
        let t: Vec<&str> = tokenize(s).iter().map(|t| &s[t.start..t.end]).collect();
        assert_eq!(
            t,
            [
                "松", "掛", "暢", ",", "45", "巻", "1", "号", ",", "제", "32", "권", "ICT", "활용"
            ]
        );
        assert_eq!(shape("Smith"), "Xx");
    }

    #[test]
    fn features_are_stable() {
        let s = "Smith, J. (2001). A title. Nature, 3, 1-2.";
        let toks = tokenize(s);
        let f = features(s, &toks, &[]);
        assert_eq!(f.len(), toks.len());
        assert!(f.iter().all(|v| v.iter().all(|&b| b <= MASK)));
        assert_eq!(f, features(s, &toks, &[]));
        let prior: Vec<usize> = (0..toks.len()).map(|i| i % 5).collect();
        let mut g = f.clone();
        add_prior(s, &toks, &mut g, &prior);
        assert!(g
            .iter()
            .zip(&f)
            .all(|(a, b)| a.len() > b.len() && a[..b.len()] == b[..]));
    }
}

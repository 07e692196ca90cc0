//! Property-style checks over random Unicode text: nothing panics, and every result keeps the
//! documented invariants (sorted, non-overlapping, character offsets that slice to `text`).

use kerai_core::citations::{detect_citations, detect_citations_with, DetectOptions, LinkOptions};
use kerai_core::references::{
    author_year_key, normalize_title, parse_reference, split_bibliography,
};

/// xorshift64*: a small deterministic generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Pieces that exercise every scanner: brackets, quotes, schemes, DOI and arXiv prefixes,
/// names, years, punctuation, and awkward code points (combining marks, RTL, controls, emoji,
/// full-width pipes, lone surrogate-adjacent planes).
const PIECES: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "\"",
    "\u{201C}",
    "\u{201D}",
    "\u{2018}",
    "\u{2019}",
    "'",
    "«",
    "»",
    "„",
    "http://",
    "https://",
    "//",
    "mailto:",
    "www.",
    ".com",
    ".рф",
    "@",
    "doi:",
    "10.",
    "1000/",
    "%2F",
    "<",
    ">",
    "arXiv:",
    "2107.12979",
    "v2",
    "hep-th/9901001",
    "Smith",
    "Da Costa",
    "van der",
    "et al.",
    " and ",
    " & ",
    ", ",
    "; ",
    ". ",
    "2019",
    "2012a,b",
    "in press",
    "e.g. ",
    "Friston",
    "(Friston, 2010)",
    "EFE",
    "expected free energy",
    " ",
    "\n",
    "\n\n",
    "\t",
    "-",
    "\u{2010}",
    "é",
    "\u{0301}",
    "ß",
    "ø",
    "漢字",
    "\u{05D0}\u{05D1}",
    "\u{200D}",
    "\u{200B}",
    "\u{0000}",
    "\u{007F}",
    "\u{FF5C}",
    "🙂",
    "\u{10FFFF}",
    "\u{FFFD}",
    "...",
    "…",
    ":",
    "#",
    "?",
    "!",
    "%",
    "$",
    "+",
    "=",
    "_",
    "0",
    "9",
    "1.2.3.4",
    "192.168.1.1",
    ":8080",
    "a",
    "Z",
    "x",
    "\u{21B5}",
];

fn random_text(rng: &mut Rng) -> String {
    let n = rng.below(40);
    let mut s = String::new();
    for _ in 0..n {
        if rng.below(4) == 0 {
            // A random scalar value from anywhere in Unicode.
            let cp = (rng.next() % 0x11_0000) as u32;
            if let Some(c) = char::from_u32(cp) {
                s.push(c);
            }
        } else {
            s.push_str(PIECES[rng.below(PIECES.len())]);
        }
    }
    s
}

fn check_citations(text: &str, opts: &DetectOptions) {
    let chars: Vec<char> = text.chars().collect();
    let found = detect_citations_with(text, opts);
    let mut last_end = 0;
    for c in &found {
        assert!(c.start_char < c.end_char, "empty span in {text:?}: {c:?}");
        assert!(
            c.start_char >= last_end,
            "overlap or disorder in {text:?}: {found:?}"
        );
        assert!(
            c.end_char <= chars.len(),
            "span past the end in {text:?}: {c:?}"
        );
        let slice: String = chars[c.start_char..c.end_char].iter().collect();
        assert_eq!(slice, c.text, "text does not match the offsets in {text:?}");
        last_end = c.end_char;
    }
}

#[test]
fn random_unicode_never_panics_and_spans_stay_valid() {
    let fuzzy_ip = DetectOptions {
        links: LinkOptions {
            fuzzy_ip: true,
            ..Default::default()
        },
        ..Default::default()
    };
    // `KERAI_FUZZ_ITERS` runs a longer campaign (e.g. 200000 with `--release`).
    let iters = std::env::var("KERAI_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let seed = std::env::var("KERAI_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15);
    let mut rng = Rng(seed);
    for _ in 0..iters {
        let text = random_text(&mut rng);
        check_citations(&text, &DetectOptions::default());
        check_citations(&text, &fuzzy_ip);
        let r = parse_reference(&text);
        if let Some(a) = r.authors.first() {
            let _ = author_year_key(&a.family, r.year, r.year_suffix.as_deref());
        }
        let _ = normalize_title(&text);
        for entry in split_bibliography(&text) {
            assert!(!entry.trim().is_empty());
        }
    }
}

#[test]
fn degenerate_inputs() {
    for text in [
        "",
        "(",
        ")",
        "((((((((((((((((((((((((((((((((((((((((((((((((",
        "))))))))))))))))))))",
        "\"\"\"\"\"\"\"\"\"\"",
        "@@@@@@@@@@",
        "http://http://http://http://",
        "10.1000/10.1000/10.1000/",
        "(2010)(2010)(2010)(2010)",
        "Smith (2010) Smith (2010) Smith (",
        "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.com",
        "«««««««««««««««««",
    ] {
        check_citations(text, &DetectOptions::default());
        let _ = parse_reference(text);
        let _ = split_bibliography(text);
    }
    let found = detect_citations(
        "(Friston, 2010) and https://arxiv.org/abs/2003.04035 and \"predictive coding\"",
    );
    assert_eq!(found.len(), 3);
}

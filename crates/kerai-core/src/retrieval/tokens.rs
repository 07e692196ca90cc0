//! Token counting with the real cl100k tokenizer (tiktoken's `cl100k_base`, the BPE ranks
//! embedded in the tiktoken-rs crate, so nothing is fetched at run time).
//!
//! Building the tokenizer parses ~100k ranks and compiles its regex (tens of milliseconds),
//! so it is built once per process on first use.

use std::sync::OnceLock;
use tiktoken_rs::CoreBPE;

fn bpe() -> &'static CoreBPE {
    static BPE: OnceLock<CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| {
        tiktoken_rs::cl100k_base().expect("the cl100k_base ranks embedded in tiktoken-rs parse")
    })
}

/// Texts longer than this are counted a segment at a time, with a cancellation point between
/// segments (a 20 MB text takes about a second to count).
const SEGMENT_BYTES: usize = 1 << 16;

/// Number of cl100k tokens in `text` (special-token text such as `<|endoftext|>` is counted
/// as ordinary text).
pub fn count_tokens(text: &str) -> usize {
    count_in_segments(text, SEGMENT_BYTES)
}

/// The exact count, a segment of about `segment` bytes at a time. Segments end just before a
/// space that follows a non-space: cl100k's pre-tokenizer never puts a piece across such a
/// point (a space only ever begins a piece or is part of a run of whitespace), so the counts of
/// the segments add up to the count of the whole.
fn count_in_segments(text: &str, segment: usize) -> usize {
    let mut total = 0;
    let mut rest = text;
    while !rest.is_empty() {
        let cut = segment_end(rest, segment);
        total += bpe().encode_ordinary(&rest[..cut]).len();
        rest = &rest[cut..];
        if !rest.is_empty() {
            crate::interrupt::check();
        }
    }
    total
}

/// Where the first segment of `text` ends: the first safe cut at or after `segment` bytes, or
/// the end of the text when there is none.
fn segment_end(text: &str, segment: usize) -> usize {
    if text.len() <= segment {
        return text.len();
    }
    let b = text.as_bytes();
    let mut p = segment;
    while p < b.len() {
        if b[p] == b' ' && text.is_char_boundary(p) && !text[..p].ends_with(char::is_whitespace) {
            return p;
        }
        p += 1;
    }
    text.len()
}

/// The cl100k token ids of `text` (no special tokens).
pub fn encode(text: &str) -> Vec<u32> {
    bpe().encode_ordinary(text)
}

/// The text of cl100k token ids; `None` when they are not valid ids or do not form UTF-8
/// (a slice cut in the middle of a character).
pub fn decode(tokens: &[u32]) -> Option<String> {
    bpe().decode(tokens).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_counts() {
        assert_eq!(count_tokens(""), 0);
        assert_eq!(count_tokens("hello world"), 2);
        assert_eq!(encode("hello world"), vec![15339, 1917]);
        assert_eq!(count_tokens("tiktoken is great!"), 6);
        assert_eq!(
            encode("tiktoken is great!"),
            vec![83, 1609, 5963, 374, 2294, 0]
        );
    }

    #[test]
    fn counting_in_segments_is_exact() {
        let text = "Words, numbers 12345678 and   runs of  spaces; tabs\tnew\nlines \n\n indented  \u{3000} \
                    ideographic 東京 señalética don't we'll (brackets) [1] ... ---- ====== "
            .repeat(200);
        let whole = encode(&text).len();
        for segment in [1, 7, 64, 1000, 4096] {
            assert_eq!(
                count_in_segments(&text, segment),
                whole,
                "segment {segment}"
            );
        }
        assert_eq!(count_tokens(&text), whole);
    }

    #[test]
    fn round_trip() {
        let text = "La señalética del edificio — revisión 2025. 東京";
        let ids = encode(text);
        assert!(ids.len() > 10);
        assert_eq!(decode(&ids).as_deref(), Some(text));
        assert_eq!(count_tokens("<|endoftext|>"), encode("<|endoftext|>").len());
        assert!(count_tokens("<|endoftext|>") > 1);
    }
}

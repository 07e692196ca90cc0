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

/// Number of cl100k tokens in `text` (special-token text such as `<|endoftext|>` is counted
/// as ordinary text).
pub fn count_tokens(text: &str) -> usize {
    bpe().encode_ordinary(text).len()
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
    fn round_trip() {
        let text = "La señalética del edificio — revisión 2025. 東京";
        let ids = encode(text);
        assert!(ids.len() > 10);
        assert_eq!(decode(&ids).as_deref(), Some(text));
        assert_eq!(count_tokens("<|endoftext|>"), encode("<|endoftext|>").len());
        assert!(count_tokens("<|endoftext|>") > 1);
    }
}

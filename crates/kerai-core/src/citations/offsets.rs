//! Byte offsets to character offsets, in one pass over the text.

use super::{Citation, Found};

/// Converts sorted, non-overlapping byte spans into [`Citation`]s with character offsets.
pub fn to_citations(text: &str, found: Vec<Found>) -> Vec<Citation> {
    let mut out = Vec::with_capacity(found.len());
    let mut byte = 0usize;
    let mut chars = 0usize;
    let mut advance = |to: usize| -> usize {
        chars += text[byte..to].chars().count();
        byte = to;
        chars
    };
    let mut tick = crate::interrupt::Ticker::new();
    for f in found {
        tick.tick();
        let start_char = advance(f.start);
        let end_char = advance(f.end);
        out.push(Citation {
            kind: f.kind,
            start_char,
            end_char,
            text: text[f.start..f.end].to_string(),
            detail: f.detail,
        });
    }
    out
}

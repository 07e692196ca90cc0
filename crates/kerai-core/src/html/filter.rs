//! Block-level clean-up of the main content: drops link lists and page furniture that the
//! container choice let through.

use super::blocks::{Block, BlockKind};

/// Unmarks main blocks that are not content.
pub fn filter_main(blocks: &mut [Block]) {
    for b in blocks.iter_mut().filter(|b| b.main) {
        let ld = if b.chars == 0 { 0.0 } else { b.link_chars as f64 / b.chars as f64 };
        if b.kind != BlockKind::Heading && ld > 0.7 && b.chars < 300 {
            b.main = false;
        }
    }
}

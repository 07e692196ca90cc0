//! Resource limits for conversion: every input is untrusted, so the size of the input, of
//! what it inflates to, and of what it claims to hold (pages, zip entries, cells) is capped.

/// Caps applied by [`crate::convert::convert`]. Exceeding one gives
/// `too large: <name> (<what>, limit <n>)`; nothing is silently truncated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest input accepted, in bytes (default 64 MiB).
    pub max_bytes: usize,
    /// Most bytes that may be inflated from zip entries (DOCX, XLSX, EPUB) or compressed PDF
    /// streams, summed over the whole document (default 256 MiB). Declared sizes are checked
    /// first and the actual inflated bytes are counted too, so a lying header does not help.
    pub max_uncompressed_bytes: u64,
    /// Most pages a PDF may have, or claim to have in its page tree (default 5,000).
    pub max_pages: usize,
    /// Most entries a zip container may list (default 10,000).
    pub max_zip_entries: usize,
    /// Most non-empty cells rendered from a workbook, over all sheets (default 1,000,000).
    pub max_cells: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 64 << 20,
            max_uncompressed_bytes: 256 << 20,
            max_pages: 5_000,
            max_zip_entries: 10_000,
            max_cells: 1_000_000,
        }
    }
}

/// A running allowance of inflated bytes, shared by all parts of one document.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    left: u64,
    limit: u64,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Self {
        Budget { left: limit, limit }
    }

    /// Bytes that may still be inflated.
    pub(crate) fn left(&self) -> u64 {
        self.left
    }

    /// The configured total.
    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    /// Takes `n` bytes from the allowance; false (and nothing taken) when they do not fit.
    pub(crate) fn spend(&mut self, n: u64) -> bool {
        if n > self.left {
            return false;
        }
        self.left -= n;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_refuses_what_does_not_fit() {
        let mut b = Budget::new(10);
        assert!(b.spend(4));
        assert!(b.spend(6));
        assert!(!b.spend(1));
        assert_eq!(b.left(), 0);
        assert_eq!(b.limit(), 10);
    }
}

//! Deterministic chunk identifiers: a name-based UUID (RFC 9562 version 8, the SHA-256
//! variant of name-based UUIDs given in the RFC's appendix B.2).
//!
//! `id = SHA-256(NAMESPACE_URL bytes || utf8(source_url + "#" + index))`, first 16 bytes,
//! then the version nibble set to 8 and the variant bits to `10`. The same URL and index
//! always give the same id, so re-chunking a page replaces its chunks in place (an upsert).
//! The index is the text after the last `#`, so distinct (url, index) pairs give distinct names.

use sha2::{Digest, Sha256};

/// The RFC 4122 URL namespace, `6ba7b811-9dad-11d1-80b4-00c04fd430c8`.
const NAMESPACE_URL: [u8; 16] = [
    0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8,
];

/// The id of chunk `index` of the document at `source_url`, as a lower-case hyphenated UUID.
pub fn chunk_id(source_url: &str, index: usize) -> String {
    let mut h = Sha256::new();
    h.update(NAMESPACE_URL);
    h.update(source_url.as_bytes());
    h.update(b"#");
    h.update(index.to_string().as_bytes());
    let d = h.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    b[6] = (b[6] & 0x0f) | 0x80; // version 8
    b[8] = (b[8] & 0x3f) | 0x80; // variant 10
    let x = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &x[0..8],
        &x[8..12],
        &x[12..16],
        &x[16..20],
        &x[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_distinct() {
        let a = chunk_id("https://northwind.example/about", 0);
        assert_eq!(a, chunk_id("https://northwind.example/about", 0));
        assert_ne!(a, chunk_id("https://northwind.example/about", 1));
        assert_ne!(a, chunk_id("https://northwind.example/about/", 0));
        // "x#1" + "2" must not collide with "x" + "#12": the index is the last component.
        assert_ne!(chunk_id("x#1", 2), chunk_id("x", 12));
    }

    #[test]
    fn is_a_version_8_rfc_uuid() {
        let id = chunk_id("https://northwind.example/", 3);
        assert_eq!(id.len(), 36);
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            vec![8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('8'), "{id}");
        assert!(matches!(&parts[3][..1], "8" | "9" | "a" | "b"), "{id}");
        assert!(id
            .chars()
            .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    }

    #[test]
    fn known_value() {
        // Computed independently with Python's hashlib and uuid modules:
        // d = sha256(uuid.NAMESPACE_URL.bytes + b"https://northwind.example/about#0").digest()[:16],
        // d[6] = d[6] & 15 | 128, d[8] = d[8] & 63 | 128.
        assert_eq!(
            chunk_id("https://northwind.example/about", 0),
            "a9a1ef42-0325-85ae-8525-c5e10f335812"
        );
    }
}

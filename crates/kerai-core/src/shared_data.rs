//! Where the measuring data lives (`../shared` beside the repository): benchmark pages,
//! conformance suites. Tests and benchmarks read it in place, never copy it.

use std::path::PathBuf;

/// `$KERAI_SHARED`, else `<repo>/../shared`, else `/work/shared`.
pub fn shared_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("KERAI_SHARED") {
        return PathBuf::from(p);
    }
    let beside = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    if beside.is_dir() {
        return beside;
    }
    PathBuf::from("/work/shared")
}

/// A path inside the shared data; panics with a clear message when it is missing, since a
/// test that cannot read its data must fail, not pass silently.
pub fn shared_path(rel: &str) -> PathBuf {
    let p = shared_dir().join(rel);
    assert!(
        p.exists(),
        "measuring data {} not found; set KERAI_SHARED to the directory that holds bench/ and suites/",
        p.display()
    );
    p
}

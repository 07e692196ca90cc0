//! Replays the kept fuzz corpus (`fuzz/corpus/<target>/`) through every parser entry point, so
//! an input that once crashed a parser stays fixed. The entry points are the fuzz targets' own
//! (`fuzz/src/entries.rs`, included here); `scripts/fuzz.sh` grows and minimizes the corpus.

#[path = "../../../fuzz/src/entries.rs"]
mod entries;

use std::path::Path;

#[test]
fn every_kept_input_passes_its_entry_point() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let mut total = 0;
    for (name, entry) in entries::ALL {
        let dir = root.join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| {
                panic!(
                    "{}: {e} (scripts/fuzz.sh keeps one corpus per target)",
                    dir.display()
                )
            })
            .map(|e| e.expect("a corpus entry").path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}: no kept inputs", dir.display());
        for f in &files {
            let data = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let outcome = std::panic::catch_unwind(|| entry(&data));
            assert!(
                outcome.is_ok(),
                "{name}: {} fails its entry point",
                f.display()
            );
        }
        println!("{name}: {} inputs", files.len());
        total += files.len();
    }
    println!("{total} inputs replayed");
}

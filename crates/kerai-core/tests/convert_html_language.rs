//! Language detection accuracy on lingua's test data (`suites/langdetect`), per length
//! bucket, as the mean over languages of the share of items whose best language is right.

use std::collections::BTreeMap;

use kerai_core::convert::html::language::{
    best_language_among, supported_languages, DEFAULT_LANGUAGES,
};
use kerai_core::shared_data::shared_path;

/// (bucket -> mean accuracy over languages) for items of `languages`, detecting among them.
/// Only items whose index is a multiple of `step` are used (the all-language run samples).
fn accuracy(languages: &[&str], step: u64) -> BTreeMap<String, f64> {
    let data = std::fs::read_to_string(shared_path(
        "suites/langdetect/lingua_testdata_sample.jsonl",
    ))
    .unwrap();
    // bucket -> lang -> (right, total)
    let mut counts: BTreeMap<String, BTreeMap<String, (u32, u32)>> = BTreeMap::new();
    for line in data.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let lang = v["lang"].as_str().unwrap();
        if !languages.contains(&lang) || !v["idx"].as_u64().unwrap_or(0).is_multiple_of(step) {
            continue;
        }
        let kind = v["kind"].as_str().unwrap().to_string();
        let best = best_language_among(v["text"].as_str().unwrap(), languages);
        let c = counts
            .entry(kind)
            .or_default()
            .entry(lang.to_string())
            .or_default();
        c.1 += 1;
        if best.is_some_and(|b| b.0 == lang) {
            c.0 += 1;
        }
    }
    counts
        .into_iter()
        .map(|(k, langs)| {
            let mean = langs
                .values()
                .map(|(r, t)| *r as f64 / *t as f64)
                .sum::<f64>()
                / langs.len() as f64;
            (k, mean)
        })
        .collect()
}

#[test]
fn accuracy_on_the_default_languages() {
    let a = accuracy(DEFAULT_LANGUAGES, 1);
    eprintln!("default 16 languages: {a:?}");
    // Measured: single words 0.651, word pairs 0.780, sentences 0.976.
    assert!(a["single-words"] >= 0.63, "{a:?}");
    assert!(a["word-pairs"] >= 0.76, "{a:?}");
    assert!(a["sentences"] >= 0.965, "{a:?}");
}

#[test]
fn accuracy_on_all_supported_languages() {
    let all = supported_languages();
    let a = accuracy(&all, 4);
    eprintln!(
        "all {} supported languages (every 4th item): {a:?}",
        all.len()
    );
    // Measured on every item: single words 0.571, word pairs 0.719, sentences 0.948.
    assert!(a["single-words"] >= 0.53, "{a:?}");
    assert!(a["word-pairs"] >= 0.68, "{a:?}");
    assert!(a["sentences"] >= 0.93, "{a:?}");
}

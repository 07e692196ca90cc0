//! detect_citations and parse_reference never panic on real prose: every article of the AEB
//! ground truth (181 pages, many languages and scripts), whole and paragraph by paragraph.

use kerai_core::citations::detect_citations;
use kerai_core::references::parse_reference;
use kerai_core::shared_data::shared_path;

#[test]
fn real_articles_never_panic() {
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(shared_path("bench/aeb/ground-truth.json")).unwrap(),
    )
    .unwrap();
    let mut texts = 0;
    for (id, page) in truth.as_object().unwrap() {
        let body = page["articleBody"].as_str().unwrap_or("");
        let found = std::panic::catch_unwind(|| detect_citations(body));
        assert!(found.is_ok(), "detect_citations panicked on article {id}");
        for para in body.split('\n').filter(|p| !p.trim().is_empty()) {
            texts += 1;
            let p = para.to_string();
            assert!(
                std::panic::catch_unwind(|| detect_citations(&p)).is_ok(),
                "detect_citations panicked on a paragraph of {id}: {para:?}"
            );
            assert!(
                std::panic::catch_unwind(|| parse_reference(&p)).is_ok(),
                "parse_reference panicked on a paragraph of {id}: {para:?}"
            );
        }
    }
    assert!(texts > 1000, "read {texts} paragraphs");
}

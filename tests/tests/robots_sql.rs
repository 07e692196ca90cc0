//! `kerai.robots_allowed` in SQL answers google/robotstxt's 145 matcher assertions
//! (suites/robots, read in place) as the Rust matcher does.

use kerai_core::shared_data::shared_path;
use kerai_e2e::TestDb;
use serde_json::Value;

#[test]
fn robots_allowed_passes_the_whole_suite_through_sql() {
    let text = std::fs::read_to_string(shared_path("suites/robots/robots_cases.jsonl")).unwrap();
    let cases: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(cases.len(), 145);
    let db = TestDb::new("robots_sql");
    let mut c = db.client();
    let mut wrong = Vec::new();
    for case in &cases {
        let got: bool = c
            .query_one(
                "SELECT kerai.robots_allowed($1, $2, $3)",
                &[
                    &case["robots"].as_str().unwrap(),
                    &case["agent"].as_str().unwrap(),
                    &case["url"].as_str().unwrap(),
                ],
            )
            .unwrap()
            .get(0);
        if got != case["allowed"].as_bool().unwrap() {
            wrong.push(format!(
                "{}: agent {:?} url {}",
                case["name"], case["agent"], case["url"]
            ));
        }
    }
    println!(
        "robots_allowed through SQL: {}/{}",
        cases.len() - wrong.len(),
        cases.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

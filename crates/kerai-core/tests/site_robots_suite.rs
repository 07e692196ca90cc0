//! google/robotstxt's own assertions (suites/robots), read in place: all 145 matcher
//! assertions and all 46 auxiliary ones must pass.

use kerai_core::shared_data::shared_path;
use kerai_core::site::robots::{
    escape_pattern, is_valid_user_agent_to_obey, path_params_query, Robots,
};
use serde_json::Value;

fn cases(file: &str) -> Vec<Value> {
    let path = shared_path(&format!("suites/robots/{file}"));
    let text = std::fs::read_to_string(&path).expect("read suite");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("bad base64 byte {c}"),
        }
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in s.as_bytes().iter().filter(|&&c| c != b'=') {
        acc = (acc << 6) | val(c);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

fn body_of(case: &Value) -> Vec<u8> {
    match case["robots_b64"].as_str() {
        Some(b64) => base64(b64),
        None => case["robots"].as_str().expect("robots").as_bytes().to_vec(),
    }
}

#[test]
fn all_145_matcher_assertions_pass() {
    let all = cases("robots_cases.jsonl");
    assert_eq!(all.len(), 145);
    let (mut id_pass, mut id_total, mut google_pass, mut google_total) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for case in &all {
        let name = case["name"].as_str().unwrap();
        let robots = Robots::parse(&body_of(case));
        let got = robots.is_allowed(
            case["agent"].as_str().unwrap(),
            case["url"].as_str().unwrap(),
        );
        let ok = got == case["allowed"].as_bool().unwrap();
        if name.starts_with("GoogleOnly_") {
            google_total += 1;
            google_pass += usize::from(ok);
        } else {
            id_total += 1;
            id_pass += usize::from(ok);
        }
        if !ok {
            failures.push(format!(
                "{name}: agent {:?} url {:.80}",
                case["agent"], case["url"]
            ));
        }
    }
    println!(
        "robots matcher: ID_* {id_pass}/{id_total}, GoogleOnly_* {google_pass}/{google_total}"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn all_46_auxiliary_assertions_pass() {
    let all = cases("robots_aux_cases.jsonl");
    assert_eq!(all.len(), 46);
    let mut failures = Vec::new();
    for case in &all {
        let name = case["name"].as_str().unwrap();
        let ok = match case["kind"].as_str().unwrap() {
            "valid_user_agent" => {
                is_valid_user_agent_to_obey(case["agent"].as_str().unwrap())
                    == case["expected"].as_bool().unwrap()
            }
            "path_params_query" => {
                path_params_query(case["input"].as_str().unwrap())
                    == case["expected"].as_str().unwrap()
            }
            "escape_pattern" => {
                escape_pattern(case["input"].as_str().unwrap())
                    == case["expected"].as_str().unwrap()
            }
            "parse_stats" => {
                let robots = Robots::parse(&body_of(case));
                let stats = robots.stats();
                let expect = &case["expect"];
                let mut ok = true;
                if let Some(v) = expect["valid_directives"].as_u64() {
                    ok &= stats.valid_directives as u64 == v;
                }
                if let Some(v) = expect["unknown_directives"].as_u64() {
                    ok &= stats.unknown_directives as u64 == v;
                }
                if let Some(v) = expect["last_line_seen"].as_u64() {
                    ok &= u64::from(stats.last_line_seen) == v;
                }
                if let Some(v) = expect["sitemap"].as_str() {
                    ok &= robots.sitemaps().concat() == v;
                }
                ok
            }
            other => panic!("unknown aux kind {other}"),
        };
        if !ok {
            failures.push(format!("{name}: {case}"));
        }
    }
    println!("robots aux: {}/{}", all.len() - failures.len(), all.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

//! Prints the citations `detect_citations` finds in a file (or stdin) as JSON lines.
//! `cargo run -p kerai-core --example detect_citations -- paper.md`

use std::io::Read;

fn main() {
    let mut text = String::new();
    match std::env::args().nth(1) {
        Some(path) => text = std::fs::read_to_string(&path).unwrap_or_default(),
        None => {
            let _ = std::io::stdin().read_to_string(&mut text);
        }
    }
    for c in kerai_core::citations::detect_citations(&text) {
        println!("{}", serde_json::to_string(&c).unwrap_or_default());
    }
}

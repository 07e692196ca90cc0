//! Prints the fields `parse_reference` reads from each argument (or each stdin line) as JSON.
//! `cargo run -p kerai-core --example parse_reference -- "Smith, J. (2001). Title. Journal, 1, 2-3."`

use std::io::BufRead;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let lines: Vec<String> = if args.is_empty() {
        std::io::stdin()
            .lock()
            .lines()
            .map_while(Result::ok)
            .collect()
    } else {
        args
    };
    for line in lines {
        let r = kerai_core::references::parse_reference(&line);
        println!("{}", serde_json::to_string(&r).unwrap_or_default());
    }
}

//! Converts files given on the command line and prints the metadata and markdown:
//! `cargo run -p kerai-core --example convert -- FILE...`
use kerai_core::convert::{convert, Limits};

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        match convert(&bytes, &path, None, &Limits::default()) {
            Ok(c) => {
                println!(
                    "== {path} ({})\n{:#?}\nwarnings: {:?}\n{}",
                    c.source_type, c.metadata, c.warnings, c.markdown
                );
            }
            Err(e) => println!("== {path}\n{e}"),
        }
    }
}

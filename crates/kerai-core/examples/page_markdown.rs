//! Prints the markdown (or, with `--text`, the plain text) of an HTML file.
//! `cargo run --release -p kerai-core --example page_markdown -- FILE[.gz] URL [--text]`

use std::io::Read;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(url)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: page_markdown FILE[.gz] URL [--text]");
        std::process::exit(2);
    };
    let mut html = String::new();
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    if path.ends_with(".gz") {
        flate2::read::GzDecoder::new(file)
            .read_to_string(&mut html)
            .expect("gzip");
    } else {
        std::io::BufReader::new(file)
            .read_to_string(&mut html)
            .expect("read");
    }
    if args.iter().any(|a| a == "--text") {
        println!("{}", kerai_core::convert::html::to_text(&html, url));
    } else {
        let ex = kerai_core::convert::html::to_markdown(&html, url);
        println!("{}", ex.markdown);
        eprintln!(
            "title: {:?}  language: {:?}  blocks: {}  links: {}",
            ex.title,
            ex.language,
            ex.blocks.len(),
            ex.links.len()
        );
    }
}

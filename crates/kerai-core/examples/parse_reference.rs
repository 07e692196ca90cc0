//! Prints the fields `parse_reference` reads from each argument (or each stdin line) as JSON.
//! `cargo run -p kerai-core --example parse_reference -- "Smith, J. (2001). Title. Journal, 1, 2-3."`
//! `--runs` also prints the tagger's runs (each label and the words it covers); `--model FILE`
//! reads with another model than the shipped one (as `train_reference_tagger --inspect`
//! writes to `target/reference_tagger.inspect.bin.gz`). Options come first.

use std::io::BufRead;

use kerai_core::references::tagger::Model;
use kerai_core::references::{parse_reference_with, tagged_runs, TAGGED_FIELDS};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = false;
    let mut model = None;
    while let Some(a) = args.first().cloned() {
        match a.as_str() {
            "--runs" => runs = true,
            "--model" if args.len() > 1 => {
                let gz = std::fs::read(&args[1]).expect("read --model FILE");
                model = Some(Model::from_gzip(&gz).expect("--model FILE is not a tagger model"));
                args.remove(0);
            }
            _ => break,
        }
        args.remove(0);
    }
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
        let r = match &model {
            Some(m) => parse_reference_with(&line, Some(m), TAGGED_FIELDS),
            None => kerai_core::references::parse_reference(&line),
        };
        println!("{}", serde_json::to_string(&r).unwrap_or_default());
        if runs {
            for run in tagged_runs(&line, model.as_ref()) {
                println!(
                    "  {:<10} {}",
                    format!("{:?}", run.label),
                    &line[run.start..run.end]
                );
            }
        }
    }
}

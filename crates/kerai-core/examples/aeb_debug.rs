//! Shows how the extractor sees one AEB page: main roots, regions that were dropped with
//! much text, and (with `--blocks`) every block with its type and main flag.
//! `cargo run --release -p kerai-core --example aeb_debug -- ID_PREFIX [--blocks]`

use std::io::Read;

use kerai_core::convert::html::analysis::Analysis;
use kerai_core::convert::html::content::main_roots;
use kerai_core::convert::html::dom::{parse, Document, NodeId, NONE};
use kerai_core::shared_data::shared_path;

fn describe(doc: &Document, id: NodeId) -> String {
    let mut s = doc.name(id).to_string();
    if let Some(i) = doc.attr(id, "id") {
        s.push_str(&format!("#{i}"));
    }
    if let Some(c) = doc.attr(id, "class") {
        s.push_str(&format!(
            ".{}",
            c.split_whitespace().collect::<Vec<_>>().join(".")
        ));
    }
    s
}

fn path(doc: &Document, id: NodeId) -> String {
    let mut v = Vec::new();
    let mut n = id;
    while n != NONE && doc.tag(n).is_some() {
        v.push(describe(doc, n));
        n = doc.node(n).parent;
    }
    v.reverse();
    v.join(" > ")
}

fn main() {
    let id = std::env::args().nth(1).expect("page id prefix");
    let dir = shared_path("bench/aeb/html");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with(&id))
        .unwrap();
    let mut s = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(file.path()).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    let doc = parse(&s);
    let an = Analysis::new(&doc);
    println!(
        "body text {} raw {}",
        an.text[an.body as usize], an.raw[an.body as usize]
    );
    for r in main_roots(&doc, &an) {
        println!(
            "ROOT {} text={} link={}",
            path(&doc, r),
            an.text[r as usize],
            an.link[r as usize]
        );
    }
    if std::env::args().any(|a| a == "--blocks") {
        let ex = kerai_core::convert::html::to_markdown(&s, "https://example.org/");
        for b in &ex.blocks {
            let t: String = b.text.chars().take(90).collect();
            println!(
                "{} {:?} {:?} ld={}/{} {}",
                if b.main { "M" } else { " " },
                b.kind,
                b.section_type,
                b.link_chars,
                b.chars,
                t.replace('\n', " / ")
            );
        }
    }
    // Biggest dropped regions.
    let mut dropped: Vec<(u32, NodeId)> = (0..doc.nodes.len() as NodeId)
        .filter(|&i| an.own[i as usize].is_boilerplate() && an.raw[i as usize] > 200)
        .filter(|&i| {
            let p = doc.node(i).parent;
            p == NONE || !an.region[p as usize].is_boilerplate()
        })
        .map(|i| (an.raw[i as usize], i))
        .collect();
    dropped.sort_by(|a, b| b.cmp(a));
    for (raw, i) in dropped.iter().take(12) {
        println!(
            "DROP {:?} raw={raw} {}",
            an.own[*i as usize],
            describe(&doc, *i)
        );
    }
}

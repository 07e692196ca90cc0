//! Shows how the extractor sees one AEB page: main roots, regions that were dropped with
//! much text, and (with `--blocks`) every block with its type and main flag.
//! `cargo run --release -p kerai-core --example aeb_debug -- ID_PREFIX [--blocks]`; with
//! `--wcxb`, ID_PREFIX names a WCXB dev page (`bench/wcxb/dev/html/ID.html.gz`); a path to an
//! existing file is read as plain HTML.

use std::io::Read;

use kerai_core::convert::html::analysis::Analysis;
use kerai_core::convert::html::content::main_roots;
use kerai_core::convert::html::dom::{Document, NodeId, NONE};
use kerai_core::convert::html::shell::parse_page;
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
    let wcxb = std::env::args().any(|a| a == "--wcxb");
    let dir = shared_path(if wcxb {
        "bench/wcxb/dev/html"
    } else {
        "bench/aeb/html"
    });
    let mut s = String::new();
    if std::path::Path::new(&id).is_file() {
        // A plain HTML file given by path.
        s = std::fs::read_to_string(&id).unwrap();
    } else {
        let file = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with(&id))
            .unwrap();
        flate2::read::GzDecoder::new(std::fs::File::open(file.path()).unwrap())
            .read_to_string(&mut s)
            .unwrap();
    }
    let doc = parse_page(&s);
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
    // `--find TEXT`: the ancestors of the first text node holding TEXT, with their regions.
    let args: Vec<String> = std::env::args().collect();
    if let Some(needle) = args
        .iter()
        .position(|a| a == "--find")
        .and_then(|i| args.get(i + 1))
    {
        if let Some(t) = (0..doc.nodes.len() as NodeId)
            .find(|&i| doc.text(i).is_some_and(|t| t.contains(needle.as_str())))
        {
            let mut n = doc.node(t).parent;
            while n != NONE && doc.tag(n).is_some() {
                println!(
                    "FIND {:?}/{:?} text={} link={} raw={} {}",
                    an.own[n as usize],
                    an.region[n as usize],
                    an.text[n as usize],
                    an.link[n as usize],
                    an.raw[n as usize],
                    describe(&doc, n)
                );
                n = doc.node(n).parent;
            }
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

//! One function per parser entry point: what a fuzz target runs on each input, and what the
//! corpus replay test (`crates/kerai-core/tests/fuzz_corpus.rs`) runs on every file kept under
//! `corpus/<name>/`.
//! Each asserts the entry point's invariants; none may panic. Self-contained (kerai-core,
//! serde_json and zip only), so kerai-core's own tests include it (`tests/fuzz_corpus.rs`).

use kerai_core::convert::html::source_records::{
    source_records, source_records_json, PageInput, SourceOptions,
};
use kerai_core::convert::{convert, Limits};
use std::io::{Cursor, Write};

/// Converts and checks the invariants: an error names the input and uses a catalogue form.
pub fn check(data: &[u8], name: &str) {
    match convert(data, name, None, &Limits::default()) {
        Ok(c) => {
            assert!(c.metadata.word_count <= c.markdown.len());
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!("corrupt or unsupported document: {name}"))
                    || msg.starts_with(&format!("too large: {name}")),
                "{msg}"
            );
        }
    }
}

/// A zip holding `parts` (stored), for targets that fuzz one XML part inside a valid package.
pub fn package(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, data) in parts {
        w.start_file(*name, opts).expect("in-memory zip");
        w.write_all(data).expect("in-memory zip");
    }
    w.finish().expect("in-memory zip").into_inner()
}

/// A parser entry point: takes any bytes, panics only on a bug.
pub type Entry = fn(&[u8]);

/// Every entry point by the name of its fuzz target and corpus directory.
pub const ALL: &[(&str, Entry)] = &[
    ("pdf", pdf),
    ("docx", docx),
    ("xlsx", xlsx),
    ("epub", epub),
    ("text", text),
    ("html", html),
    ("source_records", source_records_page),
    ("language", language),
    ("citations", citations),
    ("facts", facts),
    ("references", references),
    ("markdown", markdown),
    ("robots", robots),
    ("sitemaps", sitemaps),
];

/// Whole PDF files through `convert()`.
pub fn pdf(data: &[u8]) {
    check(data, "fuzz.pdf");
}

const TYPES: &[u8] =
    br#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#;

/// DOCX: input starting with `<` is `word/document.xml` inside a valid package (to reach the
/// WordprocessingML reader); anything else is a whole file.
pub fn docx(data: &[u8]) {
    const STYLES: &[u8] = br#"<w:styles xmlns:w="w"><w:style w:styleId="Heading1"><w:name w:val="heading 1"/></w:style><w:style w:styleId="Strong"><w:rPr><w:b/></w:rPr></w:style></w:styles>"#;
    const NUMBERING: &[u8] = br#"<w:numbering xmlns:w="w"><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>"#;
    if data.first() == Some(&b'<') {
        let file = package(&[
            ("[Content_Types].xml", TYPES),
            ("word/document.xml", data),
            ("word/styles.xml", STYLES),
            ("word/numbering.xml", NUMBERING),
        ]);
        check(&file, "fuzz.docx");
    } else {
        check(data, "fuzz.docx");
    }
}

/// XLSX: input starting with `<` is the first worksheet inside a valid workbook (with shared
/// strings and a date style); anything else is a whole file.
pub fn xlsx(data: &[u8]) {
    const WORKBOOK: &[u8] = br#"<workbook xmlns:r="r"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
    const RELS: &[u8] = br#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>"#;
    const STRINGS: &[u8] =
        br#"<sst><si><t>Date</t></si><si><r><t>Rich</t></r><r><t> text</t></r></si></sst>"#;
    const STYLES: &[u8] = br#"<styleSheet><numFmts><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd"/></numFmts><cellXfs><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="20"/></cellXfs></styleSheet>"#;
    if data.first() == Some(&b'<') {
        let file = package(&[
            ("[Content_Types].xml", TYPES),
            ("xl/workbook.xml", WORKBOOK),
            ("xl/_rels/workbook.xml.rels", RELS),
            ("xl/worksheets/sheet1.xml", data),
            ("xl/sharedStrings.xml", STRINGS),
            ("xl/styles.xml", STYLES),
        ]);
        check(&file, "fuzz.xlsx");
    } else {
        check(data, "fuzz.xlsx");
    }
}

/// EPUB: input starting with `<` is a chapter's XHTML inside a valid book (with an NCX table
/// of contents); anything else is a whole file.
pub fn epub(data: &[u8]) {
    const CONTAINER: &[u8] = br#"<container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>"#;
    const OPF: &[u8] = br#"<package><metadata><dc:title>T</dc:title><dc:creator>A</dc:creator><dc:date>2020-01-01</dc:date></metadata><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/></manifest><spine toc="ncx"><itemref idref="c1"/></spine></package>"#;
    const NCX: &[u8] = br#"<ncx><navMap><navPoint><navLabel><text>One</text></navLabel><content src="c1.xhtml"/></navPoint></navMap></ncx>"#;
    if data.first() == Some(&b'<') {
        let file = package(&[
            ("mimetype", b"application/epub+zip"),
            ("META-INF/container.xml", CONTAINER),
            ("OEBPS/content.opf", OPF),
            ("OEBPS/toc.ncx", NCX),
            ("OEBPS/c1.xhtml", data),
        ]);
        check(&file, "fuzz.epub");
    } else {
        check(data, "fuzz.epub");
    }
}

/// Sniffing any bytes, charset decoding, and TXT/MD conversion.
pub fn text(data: &[u8]) {
    let _ = kerai_core::convert::sniff(data, "download", Some("application/octet-stream"));
    let (text, _) = kerai_core::convert::decode_text(data);
    assert!(!text.contains('\0'));
    check(data, "fuzz.txt");
    check(data, "fuzz.md");
}

/// HTML pages: charset detection from the bytes, then main-content extraction to markdown and
/// text, links, structured data (JSON-LD, OpenGraph, meta) and the page's language.
pub fn html(data: &[u8]) {
    let (html, _charset) = kerai_core::convert::charset::decode_html(data, Some("text/html"));
    let url = "https://fuzz.example/dir/page.html";
    let ex = kerai_core::convert::html::to_markdown(&html, url);
    assert!(!ex.markdown.contains('\0'));
    for l in &ex.links {
        assert!(!l.url.is_empty());
    }
    let text = kerai_core::convert::html::to_text(&html, url);
    assert!(!text.contains('\0'));
    let s = kerai_core::convert::html::extract_structured_at(&html, url);
    serde_json::to_string(&s).expect("structured data serialises");
    let _ = kerai_core::convert::html::extract_structured(&html);
}

/// S0 source records: segmentation, normalisation, language filter, length bounds and the
/// near-duplicate collapse over a page; the first byte picks the options (`{`: the input is
/// the options as JSON, which must give an error, never a panic).
pub fn source_records_page(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode == b'{' {
        let page = PageInput {
            html: "<main><p>A paragraph that is long enough to be kept as a record.</p></main>"
                .into(),
            url: "https://fuzz.example/".into(),
            institution: "fuzz".into(),
            fetched_at: None,
        };
        let _ = source_records_json(&[page], &String::from_utf8_lossy(data));
        return;
    }
    let html = String::from_utf8_lossy(rest).into_owned();
    let mut opts = SourceOptions::default();
    if mode & 1 == 1 {
        opts.target_language = Some("en".into());
    }
    if mode & 2 == 2 {
        opts.include_sidebars = true;
    }
    if mode & 4 == 4 {
        opts.min_chars = 1;
        opts.max_chars = 40;
    }
    let pages = [
        PageInput {
            html: html.clone(),
            url: "https://fuzz.example/a".into(),
            institution: "fuzz".into(),
            fetched_at: Some("2026-01-01T00:00:00Z".into()),
        },
        PageInput {
            html,
            url: "not a url".into(),
            institution: "other".into(),
            fetched_at: None,
        },
    ];
    let out = source_records(&pages, &opts);
    serde_json::to_string(&out).expect("records serialise");
}

/// Language detection over any text: probabilities in [0, 1], best first.
pub fn language(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let found = kerai_core::convert::html::language::detect_language(&text);
    for w in found.windows(2) {
        assert!(w[0].1 >= w[1].1, "{found:?}");
    }
    for (lang, p) in &found {
        assert!(!lang.is_empty() && (0.0..=1.0).contains(p), "{found:?}");
    }
    let _ = kerai_core::convert::html::language::detect_language_among(&text, &["en", "de", "fr"]);
}

/// The citation detector (URLs, DOIs, arXiv ids, author-year callouts, concepts): spans sorted,
/// non-overlapping, character offsets that slice to `text`.
pub fn citations(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let chars: Vec<char> = text.chars().collect();
    let mut last_end = 0;
    for c in kerai_core::citations::detect_citations(&text) {
        assert!(c.start_char < c.end_char, "{c:?}");
        assert!(c.start_char >= last_end, "{c:?}");
        assert!(c.end_char <= chars.len(), "{c:?}");
        let slice: String = chars[c.start_char..c.end_char].iter().collect();
        assert_eq!(slice, c.text);
        last_end = c.end_char;
    }
}

/// Facts in text: entities whose character offsets slice to their text, in [0, 1]
/// confidence; claims from sentence patterns with every part filled.
pub fn facts(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let chars: Vec<char> = text.chars().collect();
    for e in kerai_core::facts::entities(&text) {
        assert!(e.start < e.end && e.end <= chars.len(), "{e:?}");
        let slice: String = chars[e.start..e.end].iter().collect();
        assert_eq!(slice, e.text);
        assert!((0.0..=1.0).contains(&e.confidence), "{e:?}");
    }
    for c in kerai_core::facts::claims_from_text(&text) {
        assert!(
            !c.subject.is_empty() && !c.predicate.is_empty() && !c.object.is_empty(),
            "{c:?}"
        );
        assert!((0.0..=1.0).contains(&c.confidence), "{c:?}");
    }
}

/// Bibliographies: split into entries, each parsed into fields; keys and titles normalised.
pub fn references(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for entry in kerai_core::references::split_bibliography(&text) {
        assert!(!entry.trim().is_empty());
        let r = kerai_core::references::parse_reference(&entry);
        serde_json::to_string(&r).expect("a reference serialises");
    }
    let r = kerai_core::references::parse_reference(&text);
    serde_json::to_string(&r).expect("a reference serialises");
    let _ = kerai_core::references::normalize_title(&text);
}

/// The markdown parser behind kerai.parse_markdown: bytes are validated as SQL text would be
/// (UTF-8, no NUL), then parsed into nodes; a parent always comes before its children.
pub fn markdown(data: &[u8]) {
    let Ok(text) = kerai_core::markdown::validate_text(data, "fuzz.md") else {
        return;
    };
    let mut nodes = 0usize;
    let summary = kerai_core::markdown::parse(text, |node| {
        nodes += 1;
        assert!(node.parent < node.index, "{node:?}");
    });
    assert_eq!(summary.nodes, nodes);
    let _ = kerai_core::markdown::content_hash(text);
}

/// robots.txt: parsed, then asked about agents, paths, delays and sitemaps. The first line of
/// the input doubles as the URL and the agent asked about.
pub fn robots(data: &[u8]) {
    use kerai_core::site::robots;
    let r = robots::Robots::parse(data);
    let text = String::from_utf8_lossy(data);
    let first = text.lines().next().unwrap_or("");
    r.is_allowed(first, first);
    r.is_allowed("kerai", &format!("http://h/{first}"));
    let _ = r.crawl_delay(first);
    let _ = r.crawl_delay("kerai");
    let _ = r.sitemaps();
    let _ = r.stats();
    let _ = robots::path_params_query(first);
    let _ = robots::escape_pattern(first);
    let _ = robots::is_valid_user_agent_to_obey(first);
}

/// Sitemaps (XML, text, RSS/Atom, gzip), as a response with and without a declared charset.
pub fn sitemaps(data: &[u8]) {
    use kerai_core::site::sitemap::{parse, Limits, ResponseMeta};
    let limits = Limits {
        max_decompressed_bytes: 1 << 20,
        max_urls: 1000,
    };
    let sjis = ResponseMeta {
        content_type: Some("text/xml; charset=shift_jis"),
        content_encoding: None,
    };
    for meta in [ResponseMeta::default(), sjis] {
        let doc = parse("https://fuzz.example/sitemap.xml", &meta, data, &limits);
        let _ = doc.kind.sub_sitemap_urls();
    }
}

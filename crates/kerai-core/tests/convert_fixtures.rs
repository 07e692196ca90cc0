//! Each fixture made by a real tool (LibreOffice, iconv) converts to the expected markdown and
//! metadata; each corrupt one gives the catalogue's `corrupt or unsupported document` error.

use kerai_core::convert::{convert, convert_with_base, sniff, Converted, Limits, SourceType};
use kerai_core::ErrorKind;
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/convert")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn run(name: &str) -> Converted {
    convert(&fixture(name), name, None, &Limits::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Positions of `needles` in `hay`, asserting each is present and they come in order.
fn in_order(hay: &str, needles: &[&str]) {
    let mut from = 0;
    for n in needles {
        match hay[from..].find(n) {
            Some(i) => from += i + n.len(),
            None => panic!("{n:?} missing or out of order in:\n{hay}"),
        }
    }
}

fn is_iso(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[7] == b'-'
}

#[test]
fn pdf_pages_chapters_table() {
    let c = run("report.pdf");
    assert_eq!(c.source_type, SourceType::Pdf);
    let md = &c.markdown;
    in_order(
        md,
        &[
            "<!-- page 1 -->",
            "Prepared by the Regional Survey Unit for internal circulation.",
            "\n# 1. Introduction\n",
            "This report summarises the field survey carried out across four regions during the first quarter of 2025.",
            "\n## 1.1 Scope\n",
            "<!-- page 2 -->",
            "\n# 2. Methods\n",
            "\n## 2.1 Sampling schedule\n",
            "| Region | Stations | Samples |\n| --- | --- | --- |\n| North | 12 | 96 |\n| Coast | 9 | 72 |\n| Highlands | 19 | 152 |",
            "<!-- page 3 -->",
            "\n# 3. Results\n",
            "\n## SUMMARY OF FINDINGS\n",
            "Two stations in the Coast region need new sensors before the summer campaign.",
            "<!-- page 4 -->",
            "\n# 4. Conclusions\n",
            "The next survey is planned for September 2025.",
        ],
    );
    // A paragraph wrapped over lines is one paragraph.
    assert!(md.contains(
        "measured water quality, soil moisture and the condition of monitoring stations."
    ));
    let m = &c.metadata;
    assert_eq!(m.title.as_deref(), Some("Field Survey Report 2025"));
    assert_eq!(m.author.as_deref(), Some("Marta Quiroga"));
    assert!(m.created.as_deref().is_some_and(is_iso), "{:?}", m.created);
    assert_eq!(m.page_count, Some(4));
    assert!(m.language.as_deref().is_some_and(|l| l.starts_with("en")));
    assert!(m.word_count > 150 && m.word_count < 220, "{}", m.word_count);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn docx_headings_lists_table_properties() {
    let c = run("handbook.docx");
    assert_eq!(c.source_type, SourceType::Docx);
    assert_eq!(
        c.markdown,
        "# Staff Onboarding Handbook\n\n\
         Welcome to Northwind. This handbook explains what happens in your **first week** and where to find *help*.\n\n\
         # Before you arrive\n\n\
         Please bring the following documents:\n\n\
         - Proof of identity\n    - Passport or national identity card\n    - Residence permit if applicable\n\
         - Signed contract\n- Bank details for payroll\n\n\
         # Your first week\n\n## Day one\n\n\
         Follow these steps on your first morning:\n\n\
         1. Collect your badge at reception\n2. Set up your laptop\n    1. Change the temporary password\n\
         \x20   2. Enrol in two-factor authentication\n3. Meet your mentor\n\n\
         ### Contacts\n\n\
         | Team | Contact | Extension |\n| --- | --- | --- |\n| IT support | Joan Ribas | 4410 |\n\
         | People and culture | Lucía Méndez | 4322 |\n\n\
         ## Day two\n\n\
         Attend the security briefing at 10:00 in room B2.\n"
    );
    let m = &c.metadata;
    assert_eq!(m.title.as_deref(), Some("Staff Onboarding Handbook"));
    assert_eq!(m.author.as_deref(), Some("Ana Torres"));
    assert_eq!(m.created.as_deref(), Some("2025-03-14T09:30:00Z"));
    assert_eq!(m.modified.as_deref(), Some("2025-06-02T16:45:00Z"));
    assert_eq!(m.version_hint.as_deref(), Some("rev 7"));
    assert_eq!(m.language.as_deref(), Some("en-GB"));
    assert_eq!(m.word_count, 109);
}

#[test]
fn xlsx_sheets_formulas_dates() {
    let c = run("budget.xlsx");
    assert_eq!(c.source_type, SourceType::Xlsx);
    assert_eq!(
        c.markdown,
        "## Expenses\n\n\
         | Date | Item | Quantity | Unit price | Total |\n| --- | --- | --- | --- | --- |\n\
         | 2026-01-15 | Printer paper | 40 | 4.5 | 180 |\n\
         | 2026-02-03 | Toner cartridges | 6 | 72.25 | 433.5 |\n\
         | 2026-02-28 | Desk lamps | 12 | 31 | 372 |\n\
         | 2026-03-09 | Whiteboard markers | 50 | 1.2 | 60 |\n\
         |  | Grand total | 108 |  | 1045.5 |\n\n\
         ## Summary\n\n\
         | Quarter | Spent |\n| --- | --- |\n| Q1 2026 | 1045.5 |\n| Budget | 1500 |\n| Remaining | 454.5 |\n"
    );
    let m = &c.metadata;
    assert_eq!(m.sheet_count, Some(2));
    assert_eq!(m.title.as_deref(), Some("Office Supplies Q1 2026"));
    assert_eq!(m.author.as_deref(), Some("Luis Romero"));
    assert_eq!(m.created.as_deref(), Some("2026-01-05T09:00:00Z"));
    assert_eq!(m.modified.as_deref(), Some("2026-03-31T18:20:00Z"));
}

#[test]
fn epub_chapters_in_spine_order() {
    let c = run("stories.epub");
    assert_eq!(c.source_type, SourceType::Epub);
    in_order(
        &c.markdown,
        &[
            "# The Lighthouse Keeper\n\nEvery evening the keeper climbed the hundred and twelve steps to light the lamp.",
            "The fishing boats knew the rhythm of its beam by heart.",
            "# The Net Mender\n\nRosa mended nets on the quay and kept three things in her apron:",
            "a photograph of her brother",
            "# The Last Ferry\n\nThe last ferry of the season left at dusk with only one passenger aboard.",
        ],
    );
    assert_eq!(
        c.markdown.matches("\n# ").count() + usize::from(c.markdown.starts_with("# ")),
        3
    );
    let m = &c.metadata;
    assert_eq!(m.title.as_deref(), Some("Three Harbour Stories"));
    assert_eq!(m.author.as_deref(), Some("Elena Vidal"));
    assert_eq!(m.language.as_deref(), Some("en-GB"));
    assert_eq!(m.modified.as_deref(), Some("2025-01-20T12:00:00Z"));
}

#[test]
fn text_in_utf8_and_latin1() {
    let c = run("notes-utf8.txt");
    assert_eq!(c.source_type, SourceType::Txt);
    assert_eq!(
        c.markdown,
        String::from_utf8(fixture("notes-utf8.txt")).unwrap()
    );
    assert_eq!(
        c.metadata.title.as_deref(),
        Some("Meeting notes — planning session")
    );
    assert!(c.warnings.is_empty());

    let c = run("notes-latin1.txt");
    assert!(c.markdown.starts_with(
        "Informe de señalización\n\nLa revisión de la señalética del edificio está terminada."
    ));
    assert!(c
        .markdown
        .contains("Año 2025: se cambiaron 14 señales en la planta baja y 9 en el ático."));
    assert_eq!(c.metadata.title.as_deref(), Some("Informe de señalización"));
    assert_eq!(c.metadata.language.as_deref(), Some("es"));
    assert_eq!(c.warnings, vec!["decoded as windows-1252".to_string()]);
}

#[test]
fn markdown_passes_through() {
    let c = run("guide.md");
    assert_eq!(c.source_type, SourceType::Md);
    assert!(c
        .markdown
        .starts_with("# Release checklist v3\n\nUse this list before every release.\n"));
    assert!(c.markdown.contains("| Changelog | Docs team |"));
    assert!(
        !c.markdown.contains("title:"),
        "front matter is metadata, not text"
    );
    assert_eq!(c.metadata.title.as_deref(), Some("Release checklist v3"));
    assert_eq!(c.metadata.version_hint.as_deref(), Some("v3"));
}

#[test]
fn corrupt_files_are_named_errors() {
    for name in [
        "corrupt.pdf",
        "corrupt.docx",
        "corrupt.xlsx",
        "corrupt.epub",
        "corrupt.txt",
    ] {
        let e = convert(&fixture(name), name, None, &Limits::default()).expect_err(name);
        assert_eq!(e.kind, ErrorKind::CorruptDocument, "{name}: {e}");
        let msg = e.to_string();
        let prefix = format!("corrupt or unsupported document: {name} (");
        assert!(msg.starts_with(&prefix) && msg.ends_with(')'), "{msg}");
    }
}

#[test]
fn huge_page_claim_is_too_large() {
    let e = convert(
        &fixture("huge-pages.pdf"),
        "huge-pages.pdf",
        None,
        &Limits::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "too large: huge-pages.pdf (claims 2000000000 pages, limit 5000)"
    );
}

#[test]
fn sniffing_real_files() {
    let cases = [
        ("report.pdf", SourceType::Pdf),
        ("handbook.docx", SourceType::Docx),
        ("budget.xlsx", SourceType::Xlsx),
        ("stories.epub", SourceType::Epub),
    ];
    for (file, kind) in cases {
        // Magic bytes decide, whatever the name or declared type says.
        assert_eq!(
            sniff(&fixture(file), "download", Some("application/octet-stream")),
            Some(kind),
            "{file}"
        );
    }
    assert_eq!(
        sniff(&fixture("guide.md"), "guide.md", None),
        Some(SourceType::Md)
    );
    assert_eq!(sniff(&fixture("corrupt.txt"), "noise", None), None);
}

#[test]
fn html_pages_convert_with_their_charset_links_and_structured_data() {
    // windows-1252 bytes, declared by the meta tag only.
    let mut page = b"<!DOCTYPE html><html lang=fr><head><meta charset=windows-1252>\
<title>Caf\xe9 du labo</title><meta name=author content='Ana Ruiz'>\
<meta name=description content='Notes'></head><body><nav><a href='/'>Home</a></nav>\
<main><h1>Le caf\xe9 du labo, v2</h1><p>Le caf\xe9 ouvre \xe0 huit heures pour toute l'\xe9quipe \
du laboratoire, voir <a href='menu.pdf'>le menu</a>.</p></main></body></html>"
        .to_vec();
    page.extend_from_slice(b"\n");
    let small = Limits {
        max_bytes: 10,
        ..Limits::default()
    };
    let c = convert(&page, "https://lab.example/news/cafe", None, &small).unwrap();
    assert_eq!(c.source_type, SourceType::Html);
    assert!(
        c.markdown.starts_with("# Le café du labo, v2"),
        "{}",
        c.markdown
    );
    assert!(
        c.markdown
            .contains("[le menu](https://lab.example/news/menu.pdf)"),
        "{}",
        c.markdown
    );
    let m = &c.metadata;
    assert_eq!(m.title.as_deref(), Some("Le café du labo, v2"));
    assert_eq!(m.author.as_deref(), Some("Ana Ruiz"));
    assert_eq!(m.language.as_deref(), Some("fr"));
    assert_eq!(m.version_hint.as_deref(), Some("v2"));
    assert!(m.word_count > 10, "{m:?}");
    let h = c.html.as_ref().expect("HTML parts");
    assert_eq!(h.charset, "windows-1252");
    assert!(h.decoded.contains("Café du labo"));
    assert!(h.text.contains("ouvre à huit heures"), "{}", h.text);
    assert!(!h.text.contains("Home"), "{}", h.text);
    assert!(h
        .links
        .iter()
        .any(|l| l.url == "https://lab.example/news/menu.pdf"));
    assert!(h.blocks.iter().any(|b| b.main));
    assert_eq!(
        h.structured.meta.get("description").map(String::as_str),
        Some("Notes")
    );
    assert!(!h.truncated);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);

    // The HTTP charset is used; a file name is no base URL, another base can be given.
    let page = "<html><body><main><h1>Grüße</h1><p>Mehr <a href='b.html'>hier</a>.</p></main></body></html>";
    let c = convert(
        page.as_bytes(),
        "page.html",
        Some("text/html; charset=utf-8"),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(c.html.as_ref().unwrap().charset, "UTF-8");
    assert!(c.markdown.contains("Grüße"), "{}", c.markdown);
    assert!(!c.markdown.contains("](b.html)"), "{}", c.markdown);
    let c = convert_with_base(
        page.as_bytes(),
        "page.html",
        "https://x.example/a/",
        None,
        &Limits::default(),
    )
    .unwrap();
    assert!(
        c.markdown.contains("[hier](https://x.example/a/b.html)"),
        "{}",
        c.markdown
    );
    // Other formats have no HTML parts.
    let c = convert(b"# Notes\n\ntext", "notes.md", None, &Limits::default()).unwrap();
    assert_eq!(c.html, None);
}

#[test]
fn unknown_inputs_are_refused() {
    let e = convert(&[0u8, 1, 2, 3, 0, 0, 7], "blob", None, &Limits::default()).unwrap_err();
    assert_eq!(e.to_string(), "corrupt or unsupported document: blob (unrecognised format: not PDF, DOCX, XLSX, EPUB, HTML or text)");
    let small = Limits {
        max_bytes: 100,
        ..Limits::default()
    };
    let e = convert(&fixture("report.pdf"), "report.pdf", None, &small).unwrap_err();
    assert!(e.to_string().starts_with("too large: report.pdf ("), "{e}");
}

//! Targeted behaviour of `crawl::sitemap::parse` beyond the shared suites: caps, encodings,
//! hostile XML, feeds.

use std::io::Write;

use kerai_core::site::sitemap::{parse, ChangeFreq, Limits, ResponseMeta, SitemapKind};

fn doc(body: &[u8]) -> SitemapKind {
    parse(
        "https://example.org/sitemap.xml",
        &ResponseMeta::default(),
        body,
        &Limits::default(),
    )
    .kind
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn urlset(n: usize) -> String {
    let mut s = String::from("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">");
    for i in 0..n {
        s.push_str(&format!("<url><loc>https://example.org/p{i}</loc></url>"));
    }
    s + "</urlset>"
}

#[test]
fn url_count_is_capped() {
    let limits = Limits {
        max_urls: 10,
        ..Limits::default()
    };
    let d = parse(
        "https://example.org/s.xml",
        &ResponseMeta::default(),
        urlset(50).as_bytes(),
        &limits,
    );
    assert_eq!(d.kind.pages().len(), 10);
    assert!(d.notes.truncated.unwrap().contains("10"));
}

#[test]
fn gzip_bomb_is_cut_and_the_prefix_parsed() {
    let mut xml = urlset(3).into_bytes();
    xml.truncate(xml.len() - "</urlset>".len());
    xml.extend(std::iter::repeat_n(b' ', 20_000_000));
    let bomb = gzip(&xml);
    assert!(bomb.len() < 200_000, "bomb is {} bytes", bomb.len());
    let limits = Limits {
        max_decompressed_bytes: 1 << 20,
        ..Limits::default()
    };
    let d = parse(
        "https://example.org/s.xml.gz",
        &ResponseMeta::default(),
        &bomb,
        &limits,
    );
    assert!(d.notes.gzipped);
    assert!(d.notes.truncated.is_some());
    assert_eq!(d.kind.pages().len(), 3);
}

#[test]
fn gzip_is_recognised_by_magic_bytes_only() {
    let body = gzip(urlset(2).as_bytes());
    // No header, no .gz suffix.
    assert_eq!(
        parse(
            "https://e.org/x",
            &ResponseMeta::default(),
            &body,
            &Limits::default()
        )
        .kind
        .pages()
        .len(),
        2
    );
    // A header claiming gzip on a body the client already inflated.
    let meta = ResponseMeta {
        content_type: Some("application/xml"),
        content_encoding: Some("gzip"),
    };
    assert_eq!(
        parse(
            "https://e.org/x.xml.gz",
            &meta,
            urlset(2).as_bytes(),
            &Limits::default()
        )
        .kind
        .pages()
        .len(),
        2
    );
}

#[test]
fn external_entities_are_never_resolved() {
    let body = br#"<?xml version="1.0"?>
<!DOCTYPE u [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY co "ACME">]>
<urlset><url><loc>https://example.org/&xxe;a</loc>
<xhtml:link rel="alternate" hreflang="de" href="https://example.org/&co;de"/></url></urlset>"#;
    let d = parse(
        "https://example.org/s.xml",
        &ResponseMeta::default(),
        body,
        &Limits::default(),
    );
    let page = &d.kind.pages()[0];
    assert_eq!(page.url, "https://example.org/a");
    assert_eq!(page.alternates[0].href, "https://example.org/de");
    assert!(d.notes.dropped_entities >= 1);
}

#[test]
fn legacy_encodings_and_boms() {
    let latin1 = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>https://e.org/caf\xE9</loc></url></urlset>";
    assert_eq!(doc(latin1).pages()[0].url, "https://e.org/café");
    let mut utf16 = vec![0xFF, 0xFE];
    for u in "<urlset><url><loc>https://e.org/x</loc></url></urlset>".encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    assert_eq!(doc(&utf16).pages()[0].url, "https://e.org/x");
    assert_eq!(
        doc(b"\n\n  \xEF\xBB\xBF<urlset><url><loc> https://e.org/y\n</loc></url></urlset>").pages()
            [0]
        .url,
        "https://e.org/y"
    );
}

#[test]
fn not_sitemaps_are_invalid() {
    assert!(matches!(
        doc(b"<!DOCTYPE html><html><body>hi</body></html>"),
        SitemapKind::Invalid(_)
    ));
    assert!(matches!(doc(b"<"), SitemapKind::Invalid(_)));
    assert_eq!(doc(b""), SitemapKind::Text(vec![]));
}

#[test]
fn fields_extensions_and_alternates() {
    let body = br#"<urlset xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:news="n" xmlns:image="i">
<url><loc>https://e.org/en</loc><lastmod>2024-02-29</lastmod><changefreq>WEEKLY</changefreq><priority>0.3</priority>
<xhtml:link rel="alternate" hreflang="fr" href="https://e.org/fr"/><xhtml:link rel="alternate" href="https://e.org/m"/>
<news:news><news:publication><news:name>P</news:name><news:language>en</news:language></news:publication>
<news:genres>Blog, OpEd</news:genres><news:publication_date>2024-02-29T10:00:00Z</news:publication_date>
<news:title><![CDATA[A & B]]></news:title></news:news>
<image:image><image:loc>https://e.org/i.png</image:loc><image:title>T</image:title></image:image></url></urlset>"#;
    let pages = doc(body).pages().to_vec();
    let p = &pages[0];
    assert_eq!(p.lastmod.unwrap().to_rfc3339(), "2024-02-29T00:00:00+00:00");
    assert_eq!(p.changefreq, Some(ChangeFreq::Weekly));
    assert_eq!(p.priority, 0.3);
    let hreflang: Vec<_> = p
        .alternates
        .iter()
        .filter(|a| a.is_hreflang())
        .map(|a| a.href.as_str())
        .collect();
    assert_eq!(hreflang, ["https://e.org/fr"]);
    let news = p.news.as_ref().unwrap();
    assert_eq!(news.title, "A & B");
    assert_eq!(news.genres, ["Blog", "OpEd"]);
    assert_eq!(p.images[0].title.as_deref(), Some("T"));
}

#[test]
fn feeds_fall_back_to_guid_and_self_links() {
    let rss = br#"<rss><channel><item><guid>https://e.org/g</guid><pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate></item>
<item><title>no link</title></item></channel></rss>"#;
    let d = parse(
        "https://e.org/feed",
        &ResponseMeta::default(),
        rss,
        &Limits::default(),
    );
    assert_eq!(d.kind.pages().len(), 1);
    assert_eq!(d.kind.pages()[0].url, "https://e.org/g");
    assert_eq!(d.notes.skipped_urls, 1);
    let atom = br#"<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>t</title>
<link rel="self" href="https://e.org/self"/><updated>2003-12-13T18:30:02Z</updated></entry></feed>"#;
    let pages = doc(atom).pages().to_vec();
    assert_eq!(pages[0].url, "https://e.org/self");
    assert_eq!(
        pages[0]
            .news
            .as_ref()
            .unwrap()
            .publish_date
            .unwrap()
            .to_rfc3339(),
        "2003-12-13T18:30:02+00:00"
    );
}

#[test]
fn robots_txt_lines_resolve_against_its_url() {
    let d = parse(
        "https://e.org/robots.txt",
        &ResponseMeta::default(),
        b"Sitemap: /a.xml\nsitemap: https://e.org/a.xml\nSitemap: ftp://e.org/x\nSitemap:",
        &Limits::default(),
    );
    assert_eq!(
        d.kind,
        SitemapKind::Robots(vec!["https://e.org/a.xml".into()])
    );
}

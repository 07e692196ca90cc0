//! URL normalisation, hashing and scope checks.

use kerai_core::site::url_norm::{
    host_allowed, matches_patterns, normalize, same_site, url_hash, NormalizeOptions,
    TrailingSlash, WwwPolicy,
};

fn norm(url: &str) -> String {
    normalize(url, &NormalizeOptions::default()).unwrap_or_else(|e| panic!("{url}: {e}"))
}

#[test]
fn default_normalisation() {
    let cases = [
        ("HTTP://EXAMPLE.com/", "http://example.com/"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("http://example.com/a#frag", "http://example.com/a"),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),
        ("http://example.com/../../a", "http://example.com/a"),
        ("http://example.com/a/%2e%2E/b", "http://example.com/b"),
        (
            "http://example.com/%7Euser/%41%62",
            "http://example.com/~user/Ab",
        ),
        ("http://example.com/a%2fb%3a", "http://example.com/a%2Fb%3A"),
        (
            "http://example.com/caf\u{e9}",
            "http://example.com/caf%C3%A9",
        ),
        ("http://example.com/a b", "http://example.com/a%20b"),
        ("http://example.com/?", "http://example.com/"),
        ("http://example.com/?&&", "http://example.com/"),
        ("http://example.com/?b=2&a=1", "http://example.com/?a=1&b=2"),
        (
            "http://example.com/?a=2&b=1&a=1",
            "http://example.com/?a=2&a=1&b=1",
        ),
        ("http://example.com/?q=%7e%2f", "http://example.com/?q=~%2F"),
        (
            "http://example.com/?utm_source=x&utm_medium=y&id=3",
            "http://example.com/?id=3",
        ),
        (
            "http://example.com/?UTM_Campaign=x&fbclid=1&gclid=2&ref=home",
            "http://example.com/?ref=home",
        ),
        (
            "http://example.com/?utm%5Fsource=x&k",
            "http://example.com/?k",
        ),
        (
            "http://example.com/?mc_cid=1&mc_eid=2&_ga=3",
            "http://example.com/",
        ),
        ("http://m\u{fc}nchen.de/", "http://xn--mnchen-3ya.de/"),
        ("http://Bücher.Example/", "http://xn--bcher-kva.example/"),
        ("http://example.com./a", "http://example.com/a"),
        ("  http://example.com/a  ", "http://example.com/a"),
        ("http://[::1]:80/", "http://[::1]/"),
        ("http://192.168.0.1:8080/x", "http://192.168.0.1:8080/x"),
        ("http://user:pw@example.com/", "http://user:pw@example.com/"),
        ("http://example.com/a?x=1#y", "http://example.com/a?x=1"),
        (
            "http://test_ultimate-sitemap-parser.com/a",
            "http://test_ultimate-sitemap-parser.com/a",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(norm(input), want, "{input}");
    }
}

#[test]
fn normalisation_is_idempotent() {
    for u in [
        "HTTP://Example.COM:80/a/./b/../%7ec?utm_source=x&b=2&a=1#top",
        "http://m\u{fc}nchen.de/a%2f?x=%41",
    ] {
        let once = norm(u);
        assert_eq!(norm(&once), once);
    }
}

#[test]
fn options() {
    let with = |f: fn(&mut NormalizeOptions)| {
        let mut o = NormalizeOptions::default();
        f(&mut o);
        o
    };
    let add = with(|o| o.trailing_slash = TrailingSlash::AddForDirectories);
    assert_eq!(
        normalize("http://e.com/docs", &add).unwrap(),
        "http://e.com/docs/"
    );
    assert_eq!(
        normalize("http://e.com/docs/a.html", &add).unwrap(),
        "http://e.com/docs/a.html"
    );
    assert_eq!(
        normalize("http://e.com/docs/?x=1", &add).unwrap(),
        "http://e.com/docs/?x=1"
    );
    let strip = with(|o| o.trailing_slash = TrailingSlash::Strip);
    assert_eq!(
        normalize("http://e.com/docs//", &strip).unwrap(),
        "http://e.com/docs"
    );
    assert_eq!(normalize("http://e.com/", &strip).unwrap(), "http://e.com/");
    let unsorted = with(|o| o.sort_query = false);
    assert_eq!(
        normalize("http://e.com/?b=1&a=2", &unsorted).unwrap(),
        "http://e.com/?b=1&a=2"
    );
    let keep_tracking = with(|o| o.strip_tracking = false);
    assert_eq!(
        normalize("http://e.com/?utm_source=x", &keep_tracking).unwrap(),
        "http://e.com/?utm_source=x"
    );
    let custom = with(|o| o.tracking_params = vec!["sessionid".into(), "pk_*".into()]);
    assert_eq!(
        normalize("http://e.com/?SessionId=1&pk_kwd=2&utm_source=3", &custom).unwrap(),
        "http://e.com/?utm_source=3"
    );
    let www_strip = with(|o| o.www = WwwPolicy::Strip);
    assert_eq!(
        normalize("http://www.e.com/", &www_strip).unwrap(),
        "http://e.com/"
    );
    assert_eq!(
        normalize("http://www.com/", &www_strip).unwrap(),
        "http://www.com/"
    );
    let www_add = with(|o| o.www = WwwPolicy::Add);
    assert_eq!(
        normalize("http://e.com/", &www_add).unwrap(),
        "http://www.e.com/"
    );
    assert_eq!(
        normalize("http://blog.e.com/", &www_add).unwrap(),
        "http://blog.e.com/"
    );
    assert_eq!(
        normalize("http://127.0.0.1/", &www_add).unwrap(),
        "http://127.0.0.1/"
    );
    let frag = with(|o| o.keep_fragment = true);
    assert_eq!(
        normalize("http://e.com/#!/a%7e", &frag).unwrap(),
        "http://e.com/#!/a~"
    );
}

#[test]
fn bad_urls_are_clear_errors() {
    for (bad, says) in [
        ("/relative/path", "not an absolute URL"),
        ("mailto:a@b.c", "only http and https"),
        ("javascript:alert(1)", "only http and https"),
        ("ftp://e.com/f", "only http and https"),
        ("http://", "not an absolute URL"),
        ("", "not an absolute URL"),
    ] {
        let e = normalize(bad, &NormalizeOptions::default()).unwrap_err();
        assert!(e.to_string().contains(says), "{bad}: {e}");
        assert!(e.to_string().contains(bad.trim()), "{bad}: {e}");
    }
}

#[test]
fn hashes() {
    let h = url_hash("http://example.com/");
    assert_eq!(h.len(), 64);
    assert!(h
        .chars()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_eq!(
        url_hash(""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        url_hash(&norm("HTTP://Example.com:80/?b=1&a=2")),
        url_hash(&norm("http://example.com/?a=2&b=1"))
    );
}

#[test]
fn scope() {
    let allowed = ["example.org", "*.Intranet.local", "münchen.de"];
    assert!(host_allowed("https://example.org/a", &allowed));
    assert!(host_allowed("https://docs.example.org/a", &allowed));
    assert!(host_allowed("https://EXAMPLE.ORG./a", &allowed));
    assert!(!host_allowed("https://badexample.org/a", &allowed));
    assert!(!host_allowed("https://example.org.evil.com/a", &allowed));
    assert!(host_allowed("https://wiki.intranet.local/", &allowed));
    assert!(host_allowed("https://xn--mnchen-3ya.de/", &allowed));
    assert!(!host_allowed("not a url", &allowed));
    assert!(host_allowed("https://anything.net/", &[] as &[&str]));
    assert!(host_allowed("http://10.0.0.1/x", &["10.0.0.1"]));
    assert!(!host_allowed("http://10.0.0.2/x", &["10.0.0.1"]));

    assert!(same_site(
        "https://www.example.org/a",
        "http://example.org:8080/b"
    ));
    assert!(!same_site(
        "https://a.example.org/",
        "https://b.example.org/"
    ));
    assert!(!same_site("nope", "https://example.org/"));
}

#[test]
fn patterns() {
    let none: [&str; 0] = [];
    assert!(matches_patterns(
        "https://e.org/blog/x",
        &["/blog/*"],
        &none
    ));
    assert!(!matches_patterns(
        "https://e.org/news/x",
        &["/blog/*"],
        &none
    ));
    assert!(matches_patterns("https://e.org/a.pdf", &none, &none));
    assert!(!matches_patterns("https://e.org/a.pdf", &none, &["*.pdf"]));
    assert!(!matches_patterns(
        "https://e.org/blog/draft/1",
        &["/blog/*"],
        &["/blog/draft/*"]
    ));
    assert!(matches_patterns(
        "https://docs.e.org/x",
        &["*://*.e.org/*"],
        &none
    ));
    assert!(matches_patterns("https://e.org/s?q=1", &["/s?q=*"], &none));
    assert!(!matches_patterns("https://e.org/s?q=1", &["/s"], &none));
}

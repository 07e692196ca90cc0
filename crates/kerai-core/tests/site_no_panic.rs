//! No panics on any input: random bytes and mutated suite documents through every crawl
//! parser (a deterministic xorshift generator, so failures reproduce).

use kerai_core::convert::{charset, sniff};
use kerai_core::ops::cron;
use kerai_core::shared_data::shared_path;
use kerai_core::site::sitemap::{
    parse, FetchResult, Limits, ResponseMeta, SitemapWalk, WalkOptions,
};
use kerai_core::site::{robots, url_norm};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = self.below(max);
        // Bias towards the bytes parsers care about.
        const INTERESTING: &[u8] =
            b"<>/&;#:=\"' \n\r\t*$?%!-[]\x00\xEF\xBB\xBF\xFF\xFE\x1F\x8BUuAaDdSs";
        (0..n)
            .map(|_| {
                if self.below(3) == 0 {
                    INTERESTING[self.below(INTERESTING.len())]
                } else {
                    self.next() as u8
                }
            })
            .collect()
    }
    /// `doc` with a few random edits: truncation, byte flips, insertions, deletions.
    fn mutate(&mut self, doc: &[u8]) -> Vec<u8> {
        let mut d = doc.to_vec();
        for _ in 0..=self.below(6) {
            let at = self.below(d.len() + 1);
            match self.below(4) {
                0 => d.truncate(at),
                1 if at < d.len() => d[at] = self.next() as u8,
                2 => {
                    let ins = self.bytes(16);
                    d.splice(at..at, ins);
                }
                _ if at < d.len() => {
                    let end = (at + self.below(64)).min(d.len());
                    d.drain(at..end);
                }
                _ => {}
            }
        }
        d
    }
}

fn suite_documents() -> Vec<Vec<u8>> {
    let mut docs = Vec::new();
    let mut todo = vec![shared_path("suites/sitemaps")];
    while let Some(p) = todo.pop() {
        for e in std::fs::read_dir(&p).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if std::fs::metadata(&path).unwrap().len() < 200_000 {
                docs.push(std::fs::read(&path).unwrap());
            }
        }
    }
    docs.sort();
    docs
}

#[test]
fn robots_parser_survives_anything() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let seeds: Vec<&[u8]> = vec![
        b"User-agent: *\nDisallow: /a*b$\nAllow: /a/index.html\nSitemap: /s.xml\nCrawl-delay: 5\n",
        b"\xEF\xBB\xBFuser-agent FooBot\r\ndisallow /\r\n#c\r\nallow: /%aa\xC3\xA1*$$**\n",
    ];
    for i in 0..3000 {
        let body = if i % 2 == 0 {
            rng.bytes(600)
        } else {
            rng.mutate(seeds[i % seeds.len()])
        };
        let r = robots::Robots::parse(&body);
        let url = String::from_utf8_lossy(&rng.bytes(80)).into_owned();
        let agent = String::from_utf8_lossy(&rng.bytes(12)).into_owned();
        r.is_allowed(&agent, &url);
        r.is_allowed("FooBot", &format!("http://h/{url}"));
        r.crawl_delay(&agent);
        r.sitemaps();
        r.stats();
        robots::path_params_query(&url);
        robots::escape_pattern(&url);
        robots::is_valid_user_agent_to_obey(&agent);
    }
}

#[test]
fn sitemap_parser_survives_anything() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let docs = suite_documents();
    assert!(docs.len() > 50);
    let limits = Limits {
        max_decompressed_bytes: 1 << 20,
        max_urls: 1000,
    };
    let urls = [
        "https://e.org/sitemap.xml",
        "https://e.org/robots.txt",
        "",
        "not a url",
    ];
    for i in 0..3000 {
        let pick = rng.below(docs.len());
        let body = if i % 3 == 0 {
            rng.bytes(2000)
        } else {
            rng.mutate(&docs[pick])
        };
        let sjis = ResponseMeta {
            content_type: Some("text/xml; charset=shift_jis"),
            content_encoding: None,
        };
        let plain = ResponseMeta::default();
        let doc = parse(
            urls[i % urls.len()],
            if i % 2 == 0 { &sjis } else { &plain },
            &body,
            &limits,
        );
        doc.kind.sub_sitemap_urls();
        let text = String::from_utf8_lossy(&body).into_owned();
        let header: String = text.chars().take(40).collect();
        charset::decode_html(&body, Some(&header));
        sniff(&body, &text, None);
        sniff(&body, &text, Some(&header));
    }
}

#[test]
fn walk_survives_hostile_sites() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let docs = suite_documents();
    for _ in 0..40 {
        let opts = WalkOptions {
            max_fetches: 60,
            ..WalkOptions::default()
        };
        let mut walk = SitemapWalk::new("https://e.org/", opts).unwrap();
        while let Some(url) = walk.next_fetch() {
            let pick = rng.below(docs.len());
            let body = rng.mutate(&docs[pick]);
            // Sometimes point children back at each other or redirect elsewhere.
            let final_url = if rng.below(5) == 0 {
                "https://e.org/sitemap.xml".to_string()
            } else {
                url.clone()
            };
            let status = [200, 200, 200, 404, 500, 301][rng.below(6)];
            walk.feed(
                &url,
                FetchResult::Response {
                    final_url: &final_url,
                    status,
                    content_type: None,
                    content_encoding: None,
                    body: &body,
                },
            );
        }
        assert!(walk.is_done());
        assert!(walk.fetch_count() <= 60);
        walk.tree();
        walk.pages();
    }
}

#[test]
fn url_and_cron_helpers_survive_anything() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let opts = url_norm::NormalizeOptions::default();
    for _ in 0..3000 {
        let s = String::from_utf8_lossy(&rng.bytes(60)).into_owned();
        let url = format!("http://{s}");
        if let Ok(n) = url_norm::normalize(&url, &opts) {
            assert_eq!(
                url_norm::normalize(&n, &opts).as_ref(),
                Ok(&n),
                "not idempotent: {url:?}"
            );
        }
        url_norm::url_hash(&s);
        url_norm::host_allowed(&url, &[s.as_str()]);
        url_norm::same_site(&url, &s);
        url_norm::matches_patterns(&url, &[s.as_str(), "*"], &[s.as_str()]);
        let _ = cron::validate(&s);
        let fields = ["*", "*/5", "1-3", "$", "mon", "0", "7", "1,2", "x"];
        let expr: Vec<&str> = (0..5).map(|_| fields[rng.below(fields.len())]).collect();
        let _ = cron::next_runs(&expr.join(" "), chrono::DateTime::UNIX_EPOCH, 3);
    }
}

//! robots.txt with Google's semantics (RFC 9309 plus Google's extensions): a faithful port of
//! google/robotstxt's parser and longest-match matcher, including the 2022+ rule that
//! `Sitemap:` and unknown lines do not end a group.
//!
//! ```
//! use kerai_core::site::robots::Robots;
//! let robots = Robots::parse(b"User-agent: *\nDisallow: /private\nCrawl-delay: 2\n");
//! assert!(robots.is_allowed("kerai", "https://example.org/public"));
//! assert!(!robots.is_allowed("kerai", "https://example.org/private/x"));
//! assert_eq!(robots.crawl_delay("kerai"), Some(2.0));
//! ```

mod lines;
mod matcher;
mod policy;
mod url_path;

pub use lines::{Directive, KeyKind, MAX_LINE_BYTES};
pub use matcher::pattern_matches;
pub use policy::{
    capped_crawl_delay, robots_policy_for_status, RobotsPolicy, MAX_CRAWL_DELAY_SECS,
};
pub use url_path::{escape_pattern, path_params_query};

/// Bytes of a robots.txt that are parsed; the rest is ignored. RFC 9309 §2.5 requires at
/// least 500 KiB; fetchers can stop reading there.
pub const MAX_ROBOTS_BYTES: usize = 500 * 1024;

/// Counts gathered while parsing, as google/robotstxt's tests report them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseStats {
    /// Recognised directives: user-agent, allow, disallow, sitemap.
    pub valid_directives: usize,
    /// `key: value` lines with any other key (crawl-delay included).
    pub unknown_directives: usize,
    /// Line number of the last directive of either kind (0 when there is none).
    pub last_line_seen: u32,
}

/// A parsed robots.txt. Parsing never fails: anything unreadable is skipped, as Google does.
#[derive(Debug, Clone, Default)]
pub struct Robots {
    directives: Vec<Directive>,
}

impl Robots {
    /// Parses a robots.txt body (any bytes; the first [`MAX_ROBOTS_BYTES`] are read).
    pub fn parse(body: &[u8]) -> Robots {
        let body = &body[..body.len().min(MAX_ROBOTS_BYTES)];
        Robots {
            directives: lines::directives(body),
        }
    }

    /// Whether `user_agent` may fetch `url`. `user_agent` is the product token to match
    /// (e.g. `kerai`, compared case-insensitively with each group's token; see
    /// [`product_token`] to get it from a full User-Agent header); `url` should be
    /// percent-encoded already (`/caf%C3%A9`, not `/café`).
    pub fn is_allowed(&self, user_agent: &str, url: &str) -> bool {
        let path = path_params_query(url);
        matcher::is_allowed(&self.directives, user_agent.as_bytes(), path.as_bytes())
    }

    /// The `Crawl-delay` (seconds) that applies to `user_agent`: the first valid value in the
    /// groups naming it, or, when no group names it, in the `*` groups. Google ignores this
    /// directive; kerai honours it up to [`MAX_CRAWL_DELAY_SECS`] (see [`capped_crawl_delay`]).
    pub fn crawl_delay(&self, user_agent: &str) -> Option<f64> {
        let mut specific = None;
        let mut global = None;
        let st = matcher::GroupState::replay(
            &self.directives,
            user_agent.as_bytes(),
            |d, is_specific| {
                if d.kind != KeyKind::Unknown || !is_crawl_delay_key(&d.key) {
                    return;
                }
                let slot = if is_specific {
                    &mut specific
                } else {
                    &mut global
                };
                if slot.is_none() {
                    *slot = std::str::from_utf8(&d.value)
                        .ok()
                        .and_then(|v| v.trim().parse::<f64>().ok())
                        .filter(|v| v.is_finite() && *v >= 0.0);
                }
            },
        );
        if st.ever_seen_specific_agent {
            specific
        } else {
            global
        }
    }

    /// The `Sitemap:` (or `Site-map:`) values in file order, as written (they may be relative;
    /// resolve them against the robots.txt URL).
    pub fn sitemaps(&self) -> Vec<String> {
        self.directives
            .iter()
            .filter(|d| d.kind == KeyKind::Sitemap)
            .map(|d| String::from_utf8_lossy(&d.value).into_owned())
            .collect()
    }

    /// Directive counts, for diagnostics.
    pub fn stats(&self) -> ParseStats {
        let mut s = ParseStats::default();
        for d in &self.directives {
            if d.kind == KeyKind::Unknown {
                s.unknown_directives += 1;
            } else {
                s.valid_directives += 1;
            }
            s.last_line_seen = d.line;
        }
        s
    }

    /// The parsed directives in file order.
    pub fn directives(&self) -> &[Directive] {
        &self.directives
    }
}

fn is_crawl_delay_key(key: &[u8]) -> bool {
    key.eq_ignore_ascii_case(b"crawl-delay")
        || key.eq_ignore_ascii_case(b"crawl_delay")
        || key.eq_ignore_ascii_case(b"crawldelay")
}

/// Whether `user_agent` is a valid product token to obey: non-empty and made only of
/// `[A-Za-z_-]` (so `Foobot/2.1`, `Foo Bar` and `ツ` are not).
pub fn is_valid_user_agent_to_obey(user_agent: &str) -> bool {
    !user_agent.is_empty()
        && matcher::extract_user_agent(user_agent.as_bytes()).len() == user_agent.len()
}

/// The product token of a full User-Agent header (`kerai/0.1 (+https://…)` -> `kerai`): its
/// leading run of `[A-Za-z_-]`. Robots rules are matched against this token, not the header.
pub fn product_token(user_agent: &str) -> &str {
    let token = matcher::extract_user_agent(user_agent.trim_start().as_bytes());
    // The token is ASCII, so this slice is on a character boundary.
    &user_agent.trim_start()[..token.len()]
}

/// One-shot check: parses `robots_txt` and asks whether `user_agent` may fetch `url`
/// (exposed in SQL as `kerai.robots_allowed(robots_txt, user_agent, url)`).
pub fn allowed(robots_txt: &str, user_agent: &str, url: &str) -> bool {
    Robots::parse(robots_txt.as_bytes()).is_allowed(user_agent, url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crawl_delay_follows_groups() {
        let r = Robots::parse(b"User-agent: *\nCrawl-delay: 10\n\nUser-agent: kerai\nCrawl-delay: 2.5\nDisallow: /x\n");
        assert_eq!(r.crawl_delay("kerai"), Some(2.5));
        assert_eq!(r.crawl_delay("other"), Some(10.0));
        let r =
            Robots::parse(b"User-agent: kerai\nDisallow: /x\n\nUser-agent: *\nCrawl-delay: 10\n");
        assert_eq!(r.crawl_delay("kerai"), None);
        assert_eq!(
            Robots::parse(b"User-agent: *\nCrawl-delay: soon\n").crawl_delay("a"),
            None
        );
        assert_eq!(Robots::parse(b"Crawl-delay: 4\n").crawl_delay("a"), None);
    }

    #[test]
    fn sitemaps_are_listed_in_order() {
        let r = Robots::parse(b"Sitemap: /a.xml\nUser-agent: *\nsite-map: http://h/b.xml\n");
        assert_eq!(r.sitemaps(), vec!["/a.xml", "http://h/b.xml"]);
    }

    #[test]
    fn product_tokens() {
        assert_eq!(
            product_token("kerai/0.1 (+https://example.org/bot)"),
            "kerai"
        );
        assert_eq!(product_token(" Googlebot-Image/1.0"), "Googlebot-Image");
        assert_eq!(product_token("ツ"), "");
        let r = Robots::parse(b"User-agent: kerai\nDisallow: /\n");
        assert!(!r.is_allowed(product_token("kerai/0.1"), "http://h/x"));
    }

    #[test]
    fn convenience_matches_method() {
        assert!(!allowed(
            "User-agent: *\nDisallow: /",
            "kerai",
            "http://h/x"
        ));
        assert!(allowed(
            "User-agent: other\nDisallow: /",
            "kerai",
            "http://h/x"
        ));
    }

    #[test]
    fn oversized_body_is_cut() {
        let mut body = b"User-agent: *\nAllow: /\n".to_vec();
        body.resize(MAX_ROBOTS_BYTES, b'\n');
        body.extend_from_slice(b"Disallow: /\n");
        assert!(Robots::parse(&body).is_allowed("a", "http://h/x"));
    }
}

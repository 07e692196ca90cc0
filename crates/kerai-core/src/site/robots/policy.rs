//! Decisions around robots.txt that do not need its body: what a fetch status means
//! (RFC 9309 §2.3.1) and how long to wait between requests.

/// What to do with a site after fetching its robots.txt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobotsPolicy {
    /// 2xx: parse the body and obey it.
    Parse,
    /// The file is "unavailable" (4xx other than 429, or a redirect chain the fetcher gave up
    /// on): crawl as if there were no robots.txt.
    AllowAll,
    /// The file is "unreachable" (5xx, 429, or no HTTP answer at all, status 0): assume a
    /// complete disallow and suspend crawling the site; retry the robots.txt later.
    DisallowAll,
}

/// RFC 9309 §2.3.1.3–4 as a pure decision on the final HTTP status of the robots.txt fetch
/// (after the fetcher followed up to five redirects). Use status 0 for "no answer"
/// (DNS failure, refused connection, timeout). 429 is treated like a server error, as Google does.
pub fn robots_policy_for_status(status: u16) -> RobotsPolicy {
    match status {
        200..=299 => RobotsPolicy::Parse,
        429 => RobotsPolicy::DisallowAll,
        // A 3xx that reaches us means the fetcher stopped following: RFC 9309 lets us treat
        // the file as unavailable after five redirects.
        300..=499 => RobotsPolicy::AllowAll,
        _ => RobotsPolicy::DisallowAll,
    }
}

/// The longest delay between two requests to one site that kerai will honour, in seconds.
/// A `Crawl-delay` above it is cut down to it, so a hostile or careless robots.txt cannot
/// stall a crawl (a 86 400 s delay would mean one page a day).
pub const MAX_CRAWL_DELAY_SECS: f64 = 30.0;

/// The delay to wait between requests: the larger of the site's `Crawl-delay` and kerai's own
/// minimum, capped at [`MAX_CRAWL_DELAY_SECS`]. Negative or non-finite values count as absent.
pub fn capped_crawl_delay(crawl_delay: Option<f64>, min_delay_secs: f64) -> f64 {
    let sane = |v: f64| if v.is_finite() && v > 0.0 { v } else { 0.0 };
    let wanted = sane(crawl_delay.unwrap_or(0.0)).max(sane(min_delay_secs));
    wanted.min(MAX_CRAWL_DELAY_SECS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses() {
        assert_eq!(robots_policy_for_status(200), RobotsPolicy::Parse);
        assert_eq!(robots_policy_for_status(204), RobotsPolicy::Parse);
        assert_eq!(robots_policy_for_status(301), RobotsPolicy::AllowAll);
        assert_eq!(robots_policy_for_status(404), RobotsPolicy::AllowAll);
        assert_eq!(robots_policy_for_status(401), RobotsPolicy::AllowAll);
        assert_eq!(robots_policy_for_status(403), RobotsPolicy::AllowAll);
        assert_eq!(robots_policy_for_status(429), RobotsPolicy::DisallowAll);
        assert_eq!(robots_policy_for_status(500), RobotsPolicy::DisallowAll);
        assert_eq!(robots_policy_for_status(503), RobotsPolicy::DisallowAll);
        assert_eq!(robots_policy_for_status(0), RobotsPolicy::DisallowAll);
        assert_eq!(robots_policy_for_status(100), RobotsPolicy::DisallowAll);
    }

    #[test]
    fn delays() {
        assert_eq!(capped_crawl_delay(None, 1.0), 1.0);
        assert_eq!(capped_crawl_delay(Some(5.0), 1.0), 5.0);
        assert_eq!(capped_crawl_delay(Some(0.5), 1.0), 1.0);
        assert_eq!(
            capped_crawl_delay(Some(86_400.0), 1.0),
            MAX_CRAWL_DELAY_SECS
        );
        assert_eq!(capped_crawl_delay(Some(f64::NAN), 2.0), 2.0);
        assert_eq!(capped_crawl_delay(Some(-3.0), 0.0), 0.0);
    }
}

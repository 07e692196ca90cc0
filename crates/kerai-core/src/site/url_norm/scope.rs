//! Crawl scope: which hosts and URLs a crawl may visit.

use url::{Host, Url};

/// `host` lower-cased, IDNA-encoded, without a trailing dot; `None` if it is not a host.
fn canonical_host(host: &str) -> Option<String> {
    let h = host
        .trim()
        .trim_start_matches("*.")
        .trim_start_matches('.')
        .trim_end_matches('.');
    match Host::parse(h).ok()? {
        Host::Domain(d) => Some(d.to_ascii_lowercase()),
        Host::Ipv4(ip) => Some(ip.to_string()),
        Host::Ipv6(ip) => Some(format!("[{ip}]")),
    }
}

fn url_host(url: &str) -> Option<String> {
    let u = Url::parse(url.trim()).ok()?;
    canonical_host(u.host_str()?)
}

/// Whether the host of `url` is one of `allowed_domains` or a subdomain of one
/// (`docs.example.org` is allowed by `example.org`; `badexample.org` is not). Domains may be
/// written with a leading `*.` or `.`, in any case, in Unicode or punycode. An empty list
/// allows every host (Scrapy's convention); an unparsable URL is never allowed.
pub fn host_allowed<S: AsRef<str>>(url: &str, allowed_domains: &[S]) -> bool {
    let Some(host) = url_host(url) else {
        return false;
    };
    if allowed_domains.is_empty() {
        return true;
    }
    allowed_domains
        .iter()
        .filter_map(|d| canonical_host(d.as_ref()))
        .any(|d| {
            host == d
                || (host.len() > d.len()
                    && host.ends_with(&d)
                    && host.as_bytes()[host.len() - d.len() - 1] == b'.')
        })
}

/// Whether two URLs are on the same site in kerai's sense: the same host once a leading
/// `www.` is ignored (scheme and port do not matter). Without a public-suffix list,
/// `a.example.org` and `b.example.org` are different sites.
pub fn same_site(a: &str, b: &str) -> bool {
    let bare =
        |u: &str| url_host(u).map(|h| h.strip_prefix("www.").map(str::to_string).unwrap_or(h));
    match (bare(a), bare(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Glob match over the whole text: `*` matches any run of characters (slashes included),
/// `?` exactly one; everything else is literal and case-sensitive.
pub fn glob_matches(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && p[pi] == t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

fn pattern_matches(pattern: &str, url: &str, path_and_query: &str) -> bool {
    if pattern.starts_with('/') {
        glob_matches(pattern, path_and_query)
    } else {
        glob_matches(pattern, url)
    }
}

/// Include/exclude filtering with glob patterns ([`glob_matches`]). A pattern starting with
/// `/` is matched against the path and query (`/blog/*`, `/*.pdf`); any other pattern against
/// the whole URL (`https://example.org/docs/*`, `*://*.example.org/*`). A URL passes when it
/// matches some include pattern (or there are none) and no exclude pattern.
pub fn matches_patterns<S: AsRef<str>>(url: &str, include: &[S], exclude: &[S]) -> bool {
    let path_and_query = match Url::parse(url.trim()) {
        Ok(u) => match u.query() {
            Some(q) => format!("{}?{q}", u.path()),
            None => u.path().to_string(),
        },
        Err(_) => String::new(),
    };
    let hit = |pats: &[S]| {
        pats.iter()
            .any(|p| pattern_matches(p.as_ref(), url, &path_and_query))
    };
    (include.is_empty() || hit(include)) && !hit(exclude)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_matches("*.pdf", "https://x/a.pdf"));
        assert!(!glob_matches("*.pdf", "https://x/a.pdf?x"));
        assert!(glob_matches("/a/?/c*", "/a/b/c"));
        assert!(!glob_matches("/a/?/c", "/a/bb/c"));
        assert!(glob_matches("**", ""));
        assert!(glob_matches("a*b*c", "aXXbYYbc"));
    }
}

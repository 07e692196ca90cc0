//! Identifiers as the services want them: bare, lower-case DOIs and versionless arXiv ids.

/// The DOI in `s` without resolver prefix or `doi:` label, lower-cased (DOIs are
/// case-insensitive), or `None` when `s` is not a DOI (`10.<registrant>/<suffix>`).
///
/// `https://doi.org/10.1038/NRN2787`, `doi:10.1038/nrn2787` and `10.1038/nrn2787` all give
/// `10.1038/nrn2787`.
pub fn normalize_doi(s: &str) -> Option<String> {
    let s = s.trim();
    let lower = s.to_lowercase();
    let mut rest = lower.as_str();
    for prefix in [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "http://dx.doi.org/",
        "doi.org/",
        "doi:",
        "doi ",
    ] {
        if let Some(r) = rest.strip_prefix(prefix) {
            rest = r.trim_start();
            break;
        }
    }
    let (registrant, suffix) = rest.split_once('/')?;
    let registrant_ok = registrant
        .strip_prefix("10.")
        .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit() || c == '.'));
    (registrant_ok && !suffix.trim().is_empty() && !rest.contains(char::is_whitespace))
        .then(|| rest.to_string())
}

/// [`normalize_doi`], or the input trimmed and lower-cased when it does not look like a DOI
/// (services occasionally hold malformed ones; they are kept, comparable, rather than lost).
pub fn doi_key(s: &str) -> String {
    normalize_doi(s).unwrap_or_else(|| s.trim().to_lowercase())
}

/// The arXiv id in `s` without `arXiv:` label, URL or version: `2107.12979v3`,
/// `arXiv:2107.12979` and `https://arxiv.org/abs/2107.12979v3` give `2107.12979`;
/// old-style `hep-th/9901001v2` gives `hep-th/9901001`. `None` when `s` is neither form.
pub fn normalize_arxiv_id(s: &str) -> Option<String> {
    let s = s.trim();
    let lower = s.to_lowercase();
    let mut rest = lower.as_str();
    for marker in ["/abs/", "/pdf/", "arxiv:"] {
        if let Some(at) = rest.find(marker) {
            rest = &rest[at + marker.len()..];
        }
    }
    let rest = rest.trim_end_matches(".pdf");
    let rest = strip_version(rest);
    let new_style = rest
        .split_once('.')
        .is_some_and(|(a, b)| a.len() == 4 && (4..=5).contains(&b.len()) && digits(a) && digits(b));
    let old_style = rest.split_once('/').is_some_and(|(a, b)| {
        !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c == '.')
            && b.len() == 7
            && digits(b)
    });
    (new_style || old_style).then(|| rest.to_string())
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `2107.12979v3` → `2107.12979`.
fn strip_version(id: &str) -> &str {
    match id.rfind('v') {
        Some(at) if at > 0 && digits(&id[at + 1..]) => &id[..at],
        _ => id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dois() {
        for s in [
            "https://doi.org/10.1038/NRN2787",
            "doi:10.1038/nrn2787",
            " 10.1038/nrn2787 ",
        ] {
            assert_eq!(normalize_doi(s).as_deref(), Some("10.1038/nrn2787"), "{s}");
        }
        assert_eq!(normalize_doi("10.1038"), None);
        assert_eq!(normalize_doi("11.1/x"), None);
        assert_eq!(normalize_doi("10.1038/ "), None);
        assert_eq!(normalize_doi("friston 2010"), None);
    }

    #[test]
    fn arxiv_ids() {
        for s in [
            "2107.12979v3",
            "arXiv:2107.12979",
            "https://arxiv.org/abs/2107.12979v3",
            "http://arxiv.org/pdf/2107.12979v1.pdf",
        ] {
            assert_eq!(normalize_arxiv_id(s).as_deref(), Some("2107.12979"), "{s}");
        }
        assert_eq!(
            normalize_arxiv_id("hep-th/9901001v2").as_deref(),
            Some("hep-th/9901001")
        );
        assert_eq!(
            normalize_arxiv_id("0704.0001").as_deref(),
            Some("0704.0001")
        );
        assert_eq!(normalize_arxiv_id("10.1038/nrn2787"), None);
        assert_eq!(normalize_arxiv_id("2107"), None);
    }
}

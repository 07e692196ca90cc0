//! Links, DOIs and arXiv identifiers together: a link that carries a DOI is a DOI citation, an
//! arxiv.org link is an arXiv citation, and bare DOIs and arXiv IDs fill in what links miss.

use serde_json::json;

use super::arxiv::{arxiv_in_url, find_arxiv};
use super::doi::{doi_in_url, find_dois};
use super::links::{find_links, Link, LinkOptions, LinkSource};
use super::{CitationKind, Found};

/// Every URL, DOI and arXiv citation in `text`, left to right, non-overlapping.
pub fn find_identifiers(text: &str, opts: LinkOptions) -> Vec<Found> {
    // Links come in order and never overlap, so the one a DOI starts in is found by bisection.
    let mut tick = crate::interrupt::Ticker::new();
    let links: Vec<Found> = find_links(text, opts)
        .into_iter()
        .map(|l| {
            tick.tick();
            classify_link(text, l)
        })
        .collect();
    let mut replaced = vec![false; links.len()];
    let mut dois: Vec<Found> = Vec::new();
    for mut d in find_dois(text) {
        tick.tick();
        // A resolver link the line break cut (`https://doi.org/10.1038/` + newline +
        // `nrn2787`): the DOI, which reads on across the break, takes the link's place.
        let i = links.partition_point(|l| l.start <= d.start);
        if let Some(i) = i.checked_sub(1).filter(|&i| {
            let l = &links[i];
            !replaced[i] && l.kind == CitationKind::Url && d.start < l.end && l.end < d.end
        }) {
            replaced[i] = true;
            d.start = links[i].start;
        }
        let detail = json!({ "doi": d.doi.to_lowercase() });
        dois.push(Found {
            start: d.start,
            end: d.end,
            kind: CitationKind::Doi,
            detail,
        });
    }
    // Links, then DOIs, then arXiv IDs: at the same span the earlier one stays.
    let mut found: Vec<Found> = links
        .into_iter()
        .zip(replaced)
        .filter(|(_, replaced)| {
            tick.tick();
            !replaced
        })
        .map(|(l, _)| l)
        .collect();
    found.extend(dois);
    for a in find_arxiv(text) {
        let detail = match a.version {
            Some(v) => json!({ "arxiv": a.id, "version": v }),
            None => json!({ "arxiv": a.id }),
        };
        found.push(Found {
            start: a.start,
            end: a.end,
            kind: CitationKind::Arxiv,
            detail,
        });
    }
    // Earliest first; at the same start the longer one.
    crate::interrupt::sort_by(&mut found, |a, b| {
        a.start.cmp(&b.start).then(b.end.cmp(&a.end))
    });
    let mut out: Vec<Found> = Vec::with_capacity(found.len());
    for f in found {
        tick.tick();
        if out.last().is_none_or(|l| f.start >= l.end) {
            out.push(f);
        }
    }
    out
}

fn classify_link(text: &str, l: Link) -> Found {
    let raw = &text[l.start..l.end];
    let url = normalize_url(raw, l.source);
    if matches!(l.source, LinkSource::Mailto | LinkSource::Email) {
        return Found {
            start: l.start,
            end: l.end,
            kind: CitationKind::Url,
            detail: json!({ "url": url }),
        };
    }
    if let Some((id, version)) = arxiv_in_url(&url) {
        let detail = match version {
            Some(v) => json!({ "arxiv": id, "version": v, "url": url }),
            None => json!({ "arxiv": id, "url": url }),
        };
        return Found {
            start: l.start,
            end: l.end,
            kind: CitationKind::Arxiv,
            detail,
        };
    }
    if let Some(doi) = doi_in_url(raw) {
        let detail = json!({ "doi": doi.to_lowercase(), "url": url });
        return Found {
            start: l.start,
            end: l.end,
            kind: CitationKind::Doi,
            detail,
        };
    }
    Found {
        start: l.start,
        end: l.end,
        kind: CitationKind::Url,
        detail: json!({ "url": url }),
    }
}

/// A link as a fetchable URL: scheme added (`http://` for bare hosts, `mailto:` for e-mail
/// addresses), scheme and host lowercased; the rest kept as written.
pub fn normalize_url(raw: &str, source: LinkSource) -> String {
    let full = match source {
        LinkSource::Fuzzy => format!("http://{raw}"),
        LinkSource::SchemeRelative => format!("http:{raw}"),
        LinkSource::Email => return format!("mailto:{raw}"),
        LinkSource::Mailto => return format!("mailto:{}", &raw[7..]),
        LinkSource::Scheme => raw.to_string(),
    };
    let Some(sep) = full.find("://") else {
        return full;
    };
    let host_start = sep + 3;
    let host_end = full[host_start..]
        .find(['/', '?', '#'])
        .map_or(full.len(), |i| host_start + i);
    let authority = &full[host_start..host_end];
    let host_from = authority
        .rfind('@')
        .map_or(host_start, |i| host_start + i + 1);
    let mut out = String::with_capacity(full.len());
    out.push_str(&full[..sep].to_ascii_lowercase());
    out.push_str(&full[sep..host_from]);
    out.push_str(&full[host_from..host_end].to_lowercase());
    out.push_str(&full[host_end..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_normalised() {
        assert_eq!(
            normalize_url("HTTP://GOOGLE.COM/Path", LinkSource::Scheme),
            "http://google.com/Path"
        );
        assert_eq!(
            normalize_url("example.com/x", LinkSource::Fuzzy),
            "http://example.com/x"
        );
        assert_eq!(
            normalize_url("//localhost", LinkSource::SchemeRelative),
            "http://localhost"
        );
        assert_eq!(
            normalize_url("MAILTO:A@B.COM", LinkSource::Mailto),
            "mailto:A@B.COM"
        );
        assert_eq!(
            normalize_url("http://User:Pw@Host.org", LinkSource::Scheme),
            "http://User:Pw@host.org"
        );
    }

    #[test]
    fn doi_and_arxiv_links_are_classified() {
        let f = find_identifiers(
            "see https://doi.org/10.1016/j.jmp.2020.102447. and https://arxiv.org/abs/2003.04035",
            LinkOptions::default(),
        );
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].kind, CitationKind::Doi);
        assert_eq!(f[0].detail["doi"], "10.1016/j.jmp.2020.102447");
        assert_eq!(f[1].kind, CitationKind::Arxiv);
        assert_eq!(f[1].detail["arxiv"], "2003.04035");
    }
}

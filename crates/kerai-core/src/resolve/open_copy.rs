//! The best copy of a work kerai may fetch: free to read, under a license the policy allows.
//!
//! Among the work's open-access locations whose license is allowed (a location without a
//! license counts as `oa`: free to read, no license named), the best is the first by:
//!
//! 1. version: the published version (wherever it is hosted: the publisher or a repository
//!    such as PubMed Central), then the accepted manuscript, then the submitted version
//!    (preprint), then locations that do not say;
//! 2. a file over a landing page: the Internet Archive's OCR text, then a PDF, then the
//!    landing page (HTML);
//! 3. the publisher's host over a repository;
//! 4. the service's own order.

use std::fmt;

use super::license::{license_allowed, license_family};
use super::work::{OaLocation, Work, ACCEPTED_VERSION, PUBLISHED_VERSION, SUBMITTED_VERSION};

/// What the chosen URL serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CopyKind {
    Pdf,
    /// A landing page or full-text page.
    Html,
    /// Plain text (the Internet Archive's OCR `_djvu.txt`).
    Text,
}

impl CopyKind {
    /// `pdf`, `html` or `text`.
    pub fn as_str(self) -> &'static str {
        match self {
            CopyKind::Pdf => "pdf",
            CopyKind::Html => "html",
            CopyKind::Text => "text",
        }
    }
}

/// The copy to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenCopy {
    pub url: String,
    /// The license family (`cc-by`, `public-domain`, `oa`, ...).
    pub license: String,
    pub kind: CopyKind,
    pub host_type: Option<String>,
    pub version: Option<String>,
}

/// Why no copy qualifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoCopyReason {
    /// No free-to-read location at all.
    Paywalled,
    /// Free-to-read locations exist, none under an allowed license.
    LicenseNotAllowed,
}

/// No copy qualifies, and why, in words for the reference's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoOpenCopy {
    pub reason: NoCopyReason,
    pub message: String,
}

impl fmt::Display for NoOpenCopy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The best location's URL, license and kind (see the module documentation for the order),
/// or why there is none. `allowed_licenses` are compared by family ([`license_family`]).
pub fn best_open_copy(work: &Work, allowed_licenses: &[String]) -> Result<OpenCopy, NoOpenCopy> {
    let usable: Vec<(usize, &OaLocation, String)> = work
        .oa_locations
        .iter()
        .enumerate()
        .filter(|(_, l)| pick_url(l).is_some())
        .map(|(i, l)| (i, l, license_family(l.license.as_deref().unwrap_or("oa"))))
        .collect();
    if usable.is_empty() {
        return Err(NoOpenCopy {
            reason: NoCopyReason::Paywalled,
            message: format!(
                "paywalled: {} reports no free-to-read copy of {}",
                work.source,
                work.label()
            ),
        });
    }
    let best = usable
        .iter()
        .filter(|(_, _, lic)| license_allowed(lic, allowed_licenses))
        .min_by_key(|(i, l, _)| (version_rank(l), file_rank(l), host_rank(l), *i));
    let Some((_, loc, license)) = best else {
        let mut found: Vec<&str> = usable.iter().map(|(_, _, lic)| lic.as_str()).collect();
        found.sort_unstable();
        found.dedup();
        return Err(NoOpenCopy {
            reason: NoCopyReason::LicenseNotAllowed,
            message: format!(
                "license not allowed: {} has {} under {}; allowed_licenses is [{}]",
                work.source,
                work.label(),
                found.join(", "),
                allowed_licenses.join(", ")
            ),
        });
    };
    let (url, kind) = pick_url(loc).expect("usable locations have a URL");
    Ok(OpenCopy {
        url: url.to_string(),
        license: license.clone(),
        kind,
        host_type: loc.host_type.clone(),
        version: loc.version.clone(),
    })
}

/// The location's best URL: OCR text, then PDF, then the landing page.
fn pick_url(l: &OaLocation) -> Option<(&str, CopyKind)> {
    fn nonempty(u: &Option<String>) -> Option<&str> {
        u.as_deref().map(str::trim).filter(|u| !u.is_empty())
    }
    nonempty(&l.text_url)
        .map(|u| (u, CopyKind::Text))
        .or_else(|| nonempty(&l.pdf_url).map(|u| (u, CopyKind::Pdf)))
        .or_else(|| nonempty(&l.url).map(|u| (u, CopyKind::Html)))
}

fn version_rank(l: &OaLocation) -> u8 {
    match l.version.as_deref() {
        Some(PUBLISHED_VERSION) => 0,
        Some(ACCEPTED_VERSION) => 1,
        Some(SUBMITTED_VERSION) => 2,
        _ => 3,
    }
}

fn file_rank(l: &OaLocation) -> u8 {
    pick_url(l).map_or(3, |(_, kind)| match kind {
        CopyKind::Text => 0,
        CopyKind::Pdf => 1,
        CopyKind::Html => 2,
    })
}

fn host_rank(l: &OaLocation) -> u8 {
    match l.host_type.as_deref() {
        Some("publisher") => 0,
        Some("repository") => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::Service;

    fn loc(
        url: &str,
        pdf: Option<&str>,
        license: Option<&str>,
        host: &str,
        version: &str,
    ) -> OaLocation {
        OaLocation {
            url: Some(url.into()),
            pdf_url: pdf.map(str::to_string),
            license: license.map(license_family),
            host_type: Some(host.into()),
            version: Some(version.into()),
            ..OaLocation::default()
        }
    }

    fn allowed(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn published_pdf_first_then_landing_then_manuscripts() {
        let mut w = Work::new(Service::Unpaywall);
        w.doi = Some("10.1/x".into());
        w.oa_locations = vec![
            loc(
                "https://arxiv.org/abs/1",
                Some("https://arxiv.org/pdf/1"),
                None,
                "repository",
                SUBMITTED_VERSION,
            ),
            loc(
                "https://doi.org/10.1/x",
                None,
                Some("cc-by"),
                "publisher",
                PUBLISHED_VERSION,
            ),
            loc(
                "https://pmc/x",
                Some("https://pmc/x.pdf"),
                Some("cc-by"),
                "repository",
                PUBLISHED_VERSION,
            ),
            loc(
                "https://repo/am",
                Some("https://repo/am.pdf"),
                Some("cc-by"),
                "repository",
                ACCEPTED_VERSION,
            ),
        ];
        let c = best_open_copy(&w, &allowed(&["cc-by", "oa"])).unwrap();
        assert_eq!(
            (c.url.as_str(), c.kind, c.license.as_str()),
            ("https://pmc/x.pdf", CopyKind::Pdf, "cc-by")
        );
        w.oa_locations.remove(2);
        let c = best_open_copy(&w, &allowed(&["cc-by"])).unwrap();
        assert_eq!(
            (c.url.as_str(), c.kind),
            ("https://doi.org/10.1/x", CopyKind::Html)
        );
        // Only the preprint is allowed when the policy names only "oa".
        let c = best_open_copy(&w, &allowed(&["oa"])).unwrap();
        assert_eq!(
            (c.url.as_str(), c.license.as_str()),
            ("https://arxiv.org/pdf/1", "oa")
        );
    }

    #[test]
    fn reasons() {
        let mut w = Work::new(Service::Unpaywall);
        w.doi = Some("10.1038/nrn2787".into());
        let e = best_open_copy(&w, &allowed(&["cc-by"])).unwrap_err();
        assert_eq!(e.reason, NoCopyReason::Paywalled);
        assert_eq!(
            e.to_string(),
            "paywalled: unpaywall reports no free-to-read copy of 10.1038/nrn2787"
        );
        w.oa_locations = vec![loc(
            "https://p/x",
            None,
            Some("CC BY-NC-ND 4.0"),
            "publisher",
            PUBLISHED_VERSION,
        )];
        let e = best_open_copy(&w, &allowed(&["cc-by", "oa"])).unwrap_err();
        assert_eq!(e.reason, NoCopyReason::LicenseNotAllowed);
        assert_eq!(
            e.message,
            "license not allowed: unpaywall has 10.1038/nrn2787 under cc-by-nc-nd; allowed_licenses is [cc-by, oa]"
        );
        let c = best_open_copy(
            &w,
            &allowed(&["https://creativecommons.org/licenses/by-nc-nd/4.0/"]),
        )
        .unwrap();
        assert_eq!(c.license, "cc-by-nc-nd");
    }
}

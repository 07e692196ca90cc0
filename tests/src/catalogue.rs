//! The demo's world for the scholarly fakes: a catalogue file (`examples/scholarly/works.json`)
//! of works and concept-search answers, loaded into a [`ScholarlyWeb`]. `make demo` serves it
//! with the `kerai-fixtures` binary; tests load it in-process.
//!
//! Format: `{"works": [{"doi", "arxiv", "title", "authors": [[given, family]], "year",
//! "container", "abstract", "locations": [{"landing", "pdf", "license", "host_type"}],
//! "arxiv_pdf", "ia": {"identifier", "file", "not_in_copyright"}}], "concepts": {term:
//! [results]}}`. `__SITE__` anywhere is the example site's base URL (where the open copies are
//! served), and an `ia` file is read from `examples/site/papers/`.

use crate::scholarly::{IaItem, Location, ScholarlyWeb, Work};
use serde_json::Value;
use std::path::Path;

impl ScholarlyWeb {
    /// Add every work and concept answer of the catalogue at `path`; `site` replaces
    /// `__SITE__`. Panics with the file and the field when the catalogue is malformed.
    pub fn load_catalogue(&self, path: &Path, site: &str) {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read the catalogue {}: {e}", path.display()))
            .replace("__SITE__", site.trim_end_matches('/'));
        let doc: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("the catalogue {} is not JSON: {e}", path.display()));
        let papers = crate::repo_root().join("examples/site/papers");
        for w in doc["works"].as_array().into_iter().flatten() {
            self.add(work(w, &papers));
        }
        for (term, results) in doc["concepts"].as_object().into_iter().flatten() {
            self.concept(term, results.clone());
        }
    }
}

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

fn work(w: &Value, papers: &Path) -> Work {
    let title = text(&w["title"]).expect("every catalogue work has a title");
    let doi = text(&w["doi"]).map(|d| d.to_lowercase());
    let ia = w.get("ia").map(|ia| {
        let file = text(&ia["file"]).expect("an `ia` item names its file");
        let body = std::fs::read(papers.join(&file))
            .unwrap_or_else(|e| panic!("the IA file examples/site/papers/{file}: {e}"));
        IaItem {
            identifier: text(&ia["identifier"]).expect("an `ia` item has an identifier"),
            not_in_copyright: ia["not_in_copyright"].as_bool().unwrap_or(false),
            files: vec![(file, "DjVuTXT".into(), body)],
        }
    });
    let locations = w["locations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| Location {
            landing: text(&l["landing"]),
            pdf: text(&l["pdf"]),
            license: text(&l["license"]),
            version: text(&l["version"]).unwrap_or_else(|| "publishedVersion".into()),
            host_type: text(&l["host_type"]).unwrap_or_else(|| "publisher".into()),
        })
        .collect();
    Work {
        in_crossref: doi.is_some(),
        unpaywall: doi.as_ref().map(|_| locations),
        // Semantic Scholar knows the articles, not the old books the Internet Archive holds.
        in_s2: ia.is_none(),
        doi,
        arxiv: text(&w["arxiv"]),
        title,
        authors: w["authors"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                (
                    text(&a[0]).unwrap_or_default(),
                    text(&a[1]).unwrap_or_default(),
                )
            })
            .collect(),
        year: w["year"].as_i64().expect("every catalogue work has a year") as i32,
        container: text(&w["container"]),
        abstract_text: text(&w["abstract"]),
        arxiv_pdf: text(&w["arxiv_pdf"]),
        ia,
        ..Work::default()
    }
}

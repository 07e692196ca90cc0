//! The pages of WCXB dev (`../shared/bench/wcxb/dev`) for the extraction examples (`wcxb`,
//! `wcxb_loss`, `train_block_model`, each including this file with `#[path]`): their ids, the
//! held-out fifth, and each page's type, URL, HTML and ground truth; and the words the
//! benchmark's `word_f1` counts. Each example uses part of it.
#![allow(dead_code)]

use std::io::Read;
use std::path::PathBuf;

use kerai_core::shared_data::shared_path;

/// The seven page types, in the order the reports list them.
pub const TYPES: [&str; 7] = [
    "article",
    "documentation",
    "service",
    "forum",
    "product",
    "collection",
    "listing",
];

fn dir() -> PathBuf {
    shared_path("bench/wcxb/dev")
}

/// Pages whose id is a multiple of 5 are held out: rules and models are never tuned on them.
pub fn held_out(id: &str) -> bool {
    id.parse::<u32>().is_ok_and(|n| n % 5 == 0)
}

/// Every page id, sorted; with `tuned_on_only`, the held-out fifth left out.
pub fn ids(tuned_on_only: bool) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(dir().join("ground-truth"))
        .expect("read the WCXB ground truth")
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".json"))
                .map(str::to_string)
        })
        .filter(|id| !(tuned_on_only && held_out(id)))
        .collect();
    ids.sort();
    ids
}

/// One page: its ground truth, and its HTML on demand.
pub struct Page {
    pub id: String,
    /// One of [`TYPES`].
    pub page_type: String,
    pub url: String,
    /// The ground truth's main content as text.
    pub truth: String,
    /// The ground truth's main content as markdown.
    pub truth_markdown: String,
}

impl Page {
    /// The ground truth of page `id`.
    pub fn load(id: &str) -> Page {
        let gt: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir().join(format!("ground-truth/{id}.json")))
                .unwrap_or_else(|e| panic!("read the ground truth of WCXB page {id}: {e}")),
        )
        .unwrap_or_else(|e| panic!("the ground truth of WCXB page {id}: {e}"));
        let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
        let page_type = match gt["_internal"]["page_type"]["primary"].as_str() {
            Some("category") => "collection",
            Some(t) => t,
            None => "article",
        };
        Page {
            id: id.to_string(),
            page_type: page_type.to_string(),
            url: text(&gt["url"]),
            truth: text(&gt["ground_truth"]["main_content"]),
            truth_markdown: text(&gt["ground_truth"]["main_content_markdown"]),
        }
    }

    /// The page's HTML (gunzipped, invalid UTF-8 replaced).
    pub fn html(&self) -> String {
        let file = std::fs::File::open(dir().join(format!("html/{}.html.gz", self.id)))
            .unwrap_or_else(|e| panic!("open the HTML of WCXB page {}: {e}", self.id));
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(file)
            .read_to_end(&mut bytes)
            .unwrap_or_else(|e| panic!("gunzip the HTML of WCXB page {}: {e}", self.id));
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Lower-cased words as the benchmark's `word_f1` splits them (runs of letters, digits, `_`).
pub fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

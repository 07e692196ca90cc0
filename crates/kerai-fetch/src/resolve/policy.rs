//! The crawler agent's policy (its config in kerai.agents): which licenses may be ingested,
//! how big a PDF may be, what counts as substantial content.

use kerai_core::resolve::license_allowed;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Lower-case license families: cc-by, cc-by-sa, cc-by-nc, public-domain, oa, ...
    pub allowed_licenses: Vec<String>,
    pub max_pdf_bytes: u64,
    /// Fewer words than this is an abstract, not a full text.
    pub min_full_text_words: usize,
    pub contact_email: Option<String>,
}

impl Policy {
    /// From the `policy` the crawl cycle attached to the request (the agent's config).
    pub fn from_config(cfg: &Value) -> Policy {
        let licenses = cfg["allowed_licenses"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str())
                    .map(|s| s.trim().to_ascii_lowercase())
                    .collect()
            })
            .unwrap_or_else(|| {
                vec![
                    "cc-by".into(),
                    "cc-by-sa".into(),
                    "cc-by-nc".into(),
                    "public-domain".into(),
                    "oa".into(),
                ]
            });
        Policy {
            allowed_licenses: licenses,
            max_pdf_bytes: (cfg["max_pdf_mb"].as_f64().unwrap_or(50.0) * 1_000_000.0) as u64,
            min_full_text_words: cfg["min_full_text_words"].as_u64().unwrap_or(400) as usize,
            contact_email: cfg["contact_email"].as_str().map(str::to_string),
        }
    }

    /// Is content under `license` allowed? Licenses are compared by family: "CC-BY-4.0",
    /// "https://creativecommons.org/licenses/by/4.0/" and "cc-by" are all cc-by; "cc0" and
    /// "pd" are public-domain; `oa` stands for any free-to-read copy the source calls open
    /// access without naming a license.
    pub fn allows(&self, license: &str) -> bool {
        license_allowed(license, &self.allowed_licenses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn default_policy() {
        let p = Policy::from_config(&json!({}));
        assert!(p.allows("CC-BY-4.0"));
        assert!(p.allows("cc-by-nc"));
        assert!(!p.allows("cc-by-nc-nd"));
        assert!(!p.allows("publisher-specific-oa"));
        assert!(p.allows("public domain"));
        assert_eq!(p.max_pdf_bytes, 50_000_000);
        let p = Policy::from_config(&json!({"allowed_licenses": ["cc-by"], "max_pdf_mb": 1}));
        assert!(!p.allows("OA"));
        assert_eq!(p.max_pdf_bytes, 1_000_000);
    }
}

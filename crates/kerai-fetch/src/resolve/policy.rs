//! The crawler agent's policy (its config in kerai.agents): which licenses may be ingested,
//! how big a PDF may be, what counts as substantial content.

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
            .map(|a| a.iter().filter_map(|v| v.as_str()).map(|s| s.trim().to_ascii_lowercase()).collect())
            .unwrap_or_else(|| vec!["cc-by".into(), "cc-by-sa".into(), "cc-by-nc".into(), "public-domain".into(), "oa".into()]);
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
        let family = license_family(license);
        self.allowed_licenses.iter().any(|a| license_family(a) == family)
    }
}

/// The family of a license string: cc-by, cc-by-sa, cc-by-nc, cc-by-nd, cc-by-nc-sa,
/// cc-by-nc-nd, public-domain, oa, or the lower-cased input.
pub fn license_family(license: &str) -> String {
    let l = license.trim().to_ascii_lowercase();
    if l.contains("publicdomain") || l.contains("public-domain") || l.contains("public domain") || l == "pd" || l.contains("cc0") {
        return "public-domain".into();
    }
    let cc = l.contains("creativecommons.org/licenses/") || l.starts_with("cc-") || l.starts_with("cc by") || l.starts_with("cc_");
    if cc {
        let parts: Vec<&str> = l
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|p| matches!(*p, "by" | "sa" | "nc" | "nd"))
            .collect();
        let mut name = String::from("cc");
        for p in ["by", "nc", "nd", "sa"] {
            if parts.contains(&p) {
                name.push('-');
                name.push_str(p);
            }
        }
        return match name.as_str() {
            "cc-by-nc-sa" | "cc-by-nc-nd" | "cc-by-nd" | "cc-by-sa" | "cc-by-nc" | "cc-by" => name,
            _ => "cc-other".into(),
        };
    }
    match l.as_str() {
        "oa" | "open access" | "open-access" | "free" | "free-to-read" | "green" | "gold" | "bronze" | "hybrid" => "oa".into(),
        _ => l,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn license_families() {
        assert_eq!(license_family("CC-BY-4.0"), "cc-by");
        assert_eq!(license_family("https://creativecommons.org/licenses/by-nc-sa/4.0/"), "cc-by-nc-sa");
        assert_eq!(license_family("cc-by-nc"), "cc-by-nc");
        assert_eq!(license_family("http://creativecommons.org/publicdomain/zero/1.0/"), "public-domain");
        assert_eq!(license_family("OA"), "oa");
        assert_eq!(license_family("elsevier-specific"), "elsevier-specific");
    }

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

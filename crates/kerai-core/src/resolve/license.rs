//! License strings as families, so a policy can say "cc-by" and mean every way services write it.

/// The family of a license string: `cc-by`, `cc-by-sa`, `cc-by-nc`, `cc-by-nd`, `cc-by-nc-sa`,
/// `cc-by-nc-nd`, `cc-other` (a Creative Commons form none of those), `public-domain`, `oa`
/// (free to read, no license named), or the input trimmed and lower-cased.
///
/// Recognised spellings: URLs (`https://creativecommons.org/licenses/by-nc-nd/4.0/`,
/// `http://creativecommons.org/publicdomain/zero/1.0/`), Unpaywall's (`cc-by`, `cc0`, `pd`),
/// Semantic Scholar's (`CCBY`, `CCBYNCND`), prose (`CC BY-NC 4.0`, `Public Domain`), and the
/// open-access colours (`gold`, `green`, `hybrid`, `bronze`) and `open access`, which name no
/// license and are `oa`. Publisher-specific terms (`publisher-specific-oa`,
/// `https://www.elsevier.com/tdm/userlicense/1.0/`) stay as they are: a policy must name them
/// to allow them.
pub fn license_family(license: &str) -> String {
    let l = license.trim().to_lowercase();
    let compact: String = l.chars().filter(char::is_ascii_alphanumeric).collect();
    if l.contains("publicdomain")
        || l.contains("public-domain")
        || l.contains("public domain")
        || matches!(compact.as_str(), "pd" | "cc0" | "pdm")
        || l.contains("cc0")
    {
        return "public-domain".into();
    }
    if let Some(elements) = cc_elements(&l, &compact) {
        return elements;
    }
    match l.as_str() {
        "oa" | "open access" | "open-access" | "free" | "free-to-read" | "green" | "gold"
        | "bronze" | "hybrid" | "diamond" => "oa".into(),
        _ => l,
    }
}

/// The family of a Creative Commons license, if `l` is one.
fn cc_elements(l: &str, compact: &str) -> Option<String> {
    let rest = if let Some((_, after)) = l.split_once("creativecommons.org/licenses/") {
        after
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
    } else if compact.starts_with("ccby") && l.starts_with("cc") {
        compact["cc".len()..].to_string()
    } else {
        return None;
    };
    // "byncnd40" → by, nc, nd; the version number ends the elements.
    let mut parts = Vec::new();
    let mut s = rest.as_str();
    while let Some(p) = ["by", "nc", "nd", "sa"]
        .into_iter()
        .find(|p| s.starts_with(p))
    {
        if !parts.contains(&p) {
            parts.push(p);
        }
        s = &s[2..];
    }
    let has = |p: &str| parts.contains(&p);
    if !has("by") || (has("nd") && has("sa")) {
        return Some("cc-other".into());
    }
    let mut name = String::from("cc-by");
    for p in ["nc", "nd", "sa"] {
        if has(p) {
            name.push('-');
            name.push_str(p);
        }
    }
    Some(name)
}

/// Is `license` (any spelling) in `allowed` (any spelling)? Compared by family.
pub fn license_allowed(license: &str, allowed: &[String]) -> bool {
    let family = license_family(license);
    allowed.iter().any(|a| license_family(a) == family)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families() {
        let cases = [
            ("CC-BY-4.0", "cc-by"),
            ("cc-by", "cc-by"),
            ("CCBY", "cc-by"),
            ("http://creativecommons.org/licenses/by/4.0/", "cc-by"),
            ("CC BY 4.0", "cc-by"),
            (
                "https://creativecommons.org/licenses/by-nc-sa/4.0/",
                "cc-by-nc-sa",
            ),
            ("cc-by-nc", "cc-by-nc"),
            ("CCBYNCND", "cc-by-nc-nd"),
            ("cc-by-nc-nd", "cc-by-nc-nd"),
            (
                "http://creativecommons.org/licenses/by-nc-nd/3.0/",
                "cc-by-nc-nd",
            ),
            ("CC BY-SA 4.0", "cc-by-sa"),
            ("cc-by-nd", "cc-by-nd"),
            (
                "http://creativecommons.org/publicdomain/zero/1.0/",
                "public-domain",
            ),
            (
                "http://creativecommons.org/publicdomain/mark/1.0/",
                "public-domain",
            ),
            ("cc0", "public-domain"),
            ("CC0", "public-domain"),
            ("pd", "public-domain"),
            ("Public Domain", "public-domain"),
            ("OA", "oa"),
            ("GREEN", "oa"),
            ("elsevier-specific", "elsevier-specific"),
            ("publisher-specific-oa", "publisher-specific-oa"),
            (
                "https://www.elsevier.com/tdm/userlicense/1.0/",
                "https://www.elsevier.com/tdm/userlicense/1.0/",
            ),
            (
                "http://creativecommons.org/licenses/sampling+/1.0/",
                "cc-other",
            ),
        ];
        for (raw, family) in cases {
            assert_eq!(license_family(raw), family, "{raw}");
        }
    }

    #[test]
    fn allowed_by_family() {
        let allowed: Vec<String> = ["cc-by", "public-domain", "oa"].map(String::from).to_vec();
        assert!(license_allowed("CC-BY-4.0", &allowed));
        assert!(license_allowed("CCBY", &allowed));
        assert!(license_allowed("cc0", &allowed));
        assert!(!license_allowed("cc-by-nc-nd", &allowed));
        assert!(!license_allowed("publisher-specific-oa", &allowed));
    }
}

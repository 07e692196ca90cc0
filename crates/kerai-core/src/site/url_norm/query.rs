//! Query string clean-up: tracking parameters, empty pieces, parameter order.

use super::percent::{decode_lossy, normalize_percent};

/// Tracking parameters removed by default. A trailing `*` makes a prefix. The list is
/// deliberately conservative: only parameters that analytics and ad platforms add and that
/// never change what a server returns (so not `ref`, `source`, `lang` or `page`).
pub const DEFAULT_TRACKING_PARAMS: &[&str] = &[
    "utm_*",
    "gclid",
    "gclsrc",
    "dclid",
    "gbraid",
    "wbraid",
    "fbclid",
    "msclkid",
    "yclid",
    "twclid",
    "ttclid",
    "igshid",
    "mc_cid",
    "mc_eid",
    "_ga",
    "_gl",
    "_hsenc",
    "_hsmi",
    "mkt_tok",
    "oly_anon_id",
    "oly_enc_id",
    "vero_id",
    "wickedid",
];

/// Whether parameter `name` (raw, maybe percent-encoded) is one of `tracking`.
pub fn is_tracking(name: &str, tracking: &[String]) -> bool {
    let name = decode_lossy(name).to_ascii_lowercase();
    tracking.iter().any(|t| {
        let t = t.to_ascii_lowercase();
        match t.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == t,
        }
    })
}

/// The cleaned query (without `?`), or `None` when nothing is left. Pieces keep their
/// encoding apart from percent normalisation; sorting is by name and stable, so repeated
/// names keep their relative order.
pub fn clean_query(query: &str, tracking: Option<&[String]>, sort: bool) -> Option<String> {
    let mut pieces: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| {
            let name = p.split('=').next().unwrap_or("");
            tracking.is_none_or(|t| !is_tracking(name, t))
        })
        .map(normalize_percent)
        .collect();
    if sort {
        pieces.sort_by(|a, b| a.split('=').next().cmp(&b.split('=').next()));
    }
    (!pieces.is_empty()).then(|| pieces.join("&"))
}

//! Reading the services' JSON: the body as a value, and the few field shapes they use.

use serde_json::Value;

use super::error::ScholarlyError;
use super::service::Service;
use super::text::non_empty;

/// The body as JSON. Plain-text bodies the services send instead of JSON are recognised:
/// `Resource not found.` (CrossRef's 404) is [`NotFound`](super::ScholarlyErrorKind::NotFound),
/// `Too Many Requests` / `Rate exceeded.` are rate limits; anything else that is not JSON is
/// malformed, quoted briefly.
pub fn parse_body(service: Service, body: &[u8]) -> Result<Value, ScholarlyError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(v) => Ok(v),
        Err(e) => Err(plain_text_error(service, body).unwrap_or_else(|| {
            let text = String::from_utf8_lossy(body);
            let text = text.trim();
            if text.is_empty() {
                ScholarlyError::malformed(service, "empty body, expected JSON")
            } else {
                ScholarlyError::malformed(service, format!("not JSON ({e}): {}", excerpt(text)))
            }
        })),
    }
}

/// The error a short plain-text (or HTML) body stands for, if it is one the services send.
pub fn plain_text_error(service: Service, body: &[u8]) -> Option<ScholarlyError> {
    let text = String::from_utf8_lossy(body);
    let lower = text.trim().to_lowercase();
    if lower.contains("too many requests") || lower.starts_with("rate exceeded") {
        Some(ScholarlyError::rate_limited(service, excerpt(text.trim())))
    } else if lower.starts_with("resource not found")
        || lower.contains("<title>404 not found</title>")
    {
        Some(ScholarlyError::not_found(service, excerpt(text.trim())))
    } else {
        None
    }
}

/// The first 120 characters of `s` on one line, for messages.
pub fn excerpt(s: &str) -> String {
    let one_line = super::text::collapse_ws(s);
    match one_line.char_indices().nth(120) {
        Some((at, _)) => format!("{}...", &one_line[..at]),
        None => one_line,
    }
}

/// The `error` member of an error envelope (`{"error": "..."}`), as text; `None` when absent,
/// `null` or `false`.
pub fn error_field(v: &Value) -> Option<String> {
    match v.get("error")? {
        Value::Null | Value::Bool(false) => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// `v[key]` as non-empty, collapsed text.
pub fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).and_then(non_empty)
}

/// `v[key]` as text when it is a string, or its first non-empty string when it is an array
/// (CrossRef writes `title: ["..."]`, the Internet Archive either form).
pub fn first_text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) => non_empty(s),
        Value::Array(items) => items.iter().filter_map(Value::as_str).find_map(non_empty),
        _ => None,
    }
}

/// `v[key]` as strings whether it is one string or an array of them.
pub fn texts(v: &Value, key: &str) -> Vec<String> {
    match v.get(key) {
        Some(Value::String(s)) => non_empty(s).into_iter().collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .filter_map(non_empty)
            .collect(),
        _ => Vec::new(),
    }
}

/// A year written as a number, or as text starting with four digits ("1867", "2020-12-01").
pub fn year(v: &Value) -> Option<i32> {
    match v {
        Value::Number(n) => n.as_i64().and_then(|y| i32::try_from(y).ok()),
        Value::String(s) => {
            let s = s.trim();
            let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
            (digits.len() == 4).then(|| digits.parse().ok()).flatten()
        }
        _ => None,
    }
    .filter(|y| (1000..=9999).contains(y))
}

/// `v[key]` as a boolean; also accepts `"true"`/`"false"` strings (Internet Archive metadata).
pub fn flag(v: &Value, key: &str) -> Option<bool> {
    match v.get(key)? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => Some(true),
            "false" | "0" | "no" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_that_are_not_json() {
        let e = parse_body(Service::Crossref, b"Resource not found.").unwrap_err();
        assert_eq!(e.kind, super::super::ScholarlyErrorKind::NotFound);
        let e = parse_body(Service::Arxiv, b"Rate exceeded.").unwrap_err();
        assert!(e.is_transient());
        let e = parse_body(Service::Unpaywall, b"").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unpaywall: malformed response (empty body, expected JSON)"
        );
        let e = parse_body(Service::Unpaywall, b"<html>oops</html>").unwrap_err();
        assert!(e.to_string().contains("not JSON"), "{e}");
    }

    #[test]
    fn field_shapes() {
        let v = json!({"a": ["", " x  y "], "b": "z", "y1": 1867, "y2": "2020-12-01", "y3": "n.d.", "f": "true"});
        assert_eq!(first_text(&v, "a").as_deref(), Some("x y"));
        assert_eq!(first_text(&v, "b").as_deref(), Some("z"));
        assert_eq!(texts(&v, "a"), vec!["x y"]);
        assert_eq!(year(&v["y1"]), Some(1867));
        assert_eq!(year(&v["y2"]), Some(2020));
        assert_eq!(year(&v["y3"]), None);
        assert_eq!(flag(&v, "f"), Some(true));
    }
}

//! The LLM side of claim extraction: the prompt, and strict validation of the answer.

use super::{Claim, ClaimSource};
use serde_json::Value;

/// The extraction prompt for one chunk (the specification's template, word for word).
pub fn llm_prompt(domain: &str, chunk_text: &str) -> String {
    format!(
        "Extract factual claims from the following text about {domain}.\n\
         Return claims as JSON array with: statement, subject, predicate, object, confidence (0-1).\n\
         Focus on verifiable facts: dates, numbers, names, features, capabilities.\n\
         Ignore opinions, marketing language, and vague statements.\n\
         \n\
         Text:\n\
         {chunk_text}"
    )
}

/// The claims in an LLM's answer: a JSON array of objects with `statement`, `subject`,
/// `predicate`, `object` (strings; numbers are accepted and written as text) and
/// `confidence` (a number from 0 to 1). The array may be wrapped in a ```json fence;
/// anything else (prose around it, another shape, a missing or mistyped field) is rejected
/// with an error naming the claim and the field.
pub fn parse_llm_claims(response_text: &str) -> Result<Vec<Claim>, String> {
    let body = strip_fence(response_text.trim());
    let value: Value = serde_json::from_str(body).map_err(|e| {
        format!("LLM response is not valid JSON ({e}); expected a JSON array of claims")
    })?;
    let Value::Array(items) = value else {
        return Err(format!(
            "LLM response is a JSON {}, expected a JSON array of claims",
            kind_of(&value)
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| claim_from(i, item))
        .collect()
}

/// The inside of a ```json … ``` (or plain ``` … ```) fence; the text itself otherwise.
fn strip_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(rest) = rest.strip_suffix("```") else {
        return text;
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    rest.trim()
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn claim_from(i: usize, item: &Value) -> Result<Claim, String> {
    let Value::Object(map) = item else {
        return Err(format!(
            "claim {i} is a JSON {}, expected an object with statement, subject, predicate, object, confidence",
            kind_of(item)
        ));
    };
    let text = |field: &str| -> Result<String, String> {
        match map.get(field) {
            None => Err(format!("claim {i}: missing field \"{field}\"")),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            Some(Value::String(_)) => Err(format!("claim {i}: field \"{field}\" is empty")),
            Some(Value::Number(n)) if field != "statement" => Ok(n.to_string()),
            Some(v) => Err(format!(
                "claim {i}: field \"{field}\" is a JSON {}, expected a string",
                kind_of(v)
            )),
        }
    };
    let confidence = match map.get("confidence") {
        None => return Err(format!("claim {i}: missing field \"confidence\"")),
        Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(v) => {
            return Err(format!(
                "claim {i}: field \"confidence\" is a JSON {}, expected a number from 0 to 1",
                kind_of(v)
            ))
        }
    };
    if !(0.0..=1.0).contains(&confidence) {
        return Err(format!(
            "claim {i}: confidence {confidence} is outside 0 to 1"
        ));
    }
    Ok(Claim {
        statement: text("statement")?,
        subject: text("subject")?,
        predicate: text("predicate")?,
        object: text("object")?,
        confidence: confidence as f32,
        source: ClaimSource::Llm,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_is_the_template() {
        let p = llm_prompt("northwind.example", "The lab opened in 2026.");
        assert_eq!(
            p,
            "Extract factual claims from the following text about northwind.example.\n\
             Return claims as JSON array with: statement, subject, predicate, object, confidence (0-1).\n\
             Focus on verifiable facts: dates, numbers, names, features, capabilities.\n\
             Ignore opinions, marketing language, and vague statements.\n\nText:\nThe lab opened in 2026."
        );
    }

    #[test]
    fn parses_plain_and_fenced_arrays() {
        let body = r#"[{"statement": "Northwind Institute was founded in 1998", "subject": "Northwind Institute",
            "predicate": "founded in", "object": 1998, "confidence": 0.9}]"#;
        let c = parse_llm_claims(body).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].object, "1998");
        assert_eq!(c[0].source, ClaimSource::Llm);
        let fenced = format!("```json\n{body}\n```\n");
        assert_eq!(parse_llm_claims(&fenced).unwrap(), c);
        assert_eq!(parse_llm_claims(&format!("```\n{body}\n```")).unwrap(), c);
        assert!(parse_llm_claims("[]").unwrap().is_empty());
    }

    #[test]
    fn rejects_anything_else_clearly() {
        let e = parse_llm_claims("Here are the claims: []").unwrap_err();
        assert!(e.contains("not valid JSON"), "{e}");
        let e = parse_llm_claims(r#"{"claims": []}"#).unwrap_err();
        assert!(e.contains("is a JSON object, expected a JSON array"), "{e}");
        let e = parse_llm_claims(r#"["x"]"#).unwrap_err();
        assert!(e.contains("claim 0 is a JSON string"), "{e}");
        let e = parse_llm_claims(
            r#"[{"statement": "s", "subject": "a", "predicate": "p", "confidence": 0.5}]"#,
        )
        .unwrap_err();
        assert_eq!(e, "claim 0: missing field \"object\"");
        let e = parse_llm_claims(
            r#"[{"statement": "s", "subject": "a", "predicate": "p", "object": "o", "confidence": 1.5}]"#,
        )
        .unwrap_err();
        assert_eq!(e, "claim 0: confidence 1.5 is outside 0 to 1");
        let e = parse_llm_claims(
            r#"[{"statement": "s", "subject": "a", "predicate": "p", "object": "o", "confidence": "high"}]"#,
        )
        .unwrap_err();
        assert!(e.contains("\"confidence\" is a JSON string"), "{e}");
        let e = parse_llm_claims(
            r#"[{"statement": " ", "subject": "a", "predicate": "p", "object": "o", "confidence": 1}]"#,
        )
        .unwrap_err();
        assert_eq!(e, "claim 0: field \"statement\" is empty");
    }
}

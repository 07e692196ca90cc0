//! The OpenAI-compatible HTTP API, as data: request bodies and response parsers for
//! `POST {base}/embeddings` and `POST {base}/chat/completions`. The extension and the fetcher
//! do the HTTP; this checks what comes back (shape, dimensions, counts) so a bad answer is a
//! clear error and never half-written data.

use serde_json::{json, Value};

/// Token counts the endpoint reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

impl Usage {
    /// The reported counts, or cl100k counts of the texts for an endpoint that reports none:
    /// (prompt tokens, completion tokens).
    pub fn or_counted(&self, prompt: &[&str], completion: &str) -> (usize, usize) {
        let p = if self.prompt_tokens > 0 {
            self.prompt_tokens as usize
        } else {
            prompt
                .iter()
                .map(|t| crate::retrieval::tokens::count_tokens(t))
                .sum()
        };
        let c = if self.completion_tokens > 0 {
            self.completion_tokens as usize
        } else {
            crate::retrieval::tokens::count_tokens(completion)
        };
        (p, c)
    }
}

fn usage_of(v: &Value) -> Usage {
    let n = |k: &str| v["usage"][k].as_u64().unwrap_or(0) as u32;
    Usage {
        prompt_tokens: n("prompt_tokens"),
        completion_tokens: n("completion_tokens"),
    }
}

/// `{base}/embeddings` or `{base}/chat/completions`: `base` with or without a trailing slash.
pub fn endpoint(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path)
}

/// The body of an embeddings request.
pub fn embeddings_request(model: &str, inputs: &[&str]) -> Value {
    json!({"model": model, "input": inputs, "encoding_format": "float"})
}

/// The vectors of an embeddings response, in input order, each checked to have
/// `dimensions` finite numbers.
pub fn parse_embeddings(
    body: &[u8],
    inputs: usize,
    dimensions: usize,
) -> Result<(Vec<Vec<f32>>, Usage), String> {
    let v: Value = serde_json::from_slice(body).map_err(|e| {
        format!("the embedding endpoint answered with something that is not JSON ({e})")
    })?;
    if let Some(msg) = v["error"]["message"].as_str() {
        return Err(format!("the embedding endpoint refused: {msg}"));
    }
    let data = v["data"]
        .as_array()
        .ok_or("the embedding endpoint's answer has no \"data\" array")?;
    if data.len() != inputs {
        return Err(format!(
            "the embedding endpoint returned {} vectors for {inputs} texts",
            data.len()
        ));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; inputs];
    for (pos, item) in data.iter().enumerate() {
        let index = item["index"].as_u64().map(|i| i as usize).unwrap_or(pos);
        let vec = item["embedding"].as_array().ok_or_else(|| {
            format!("vector {index} of the embedding endpoint's answer is not an array")
        })?;
        if vec.len() != dimensions {
            return Err(format!(
                "the embedding endpoint answered {} dimensions, expected {dimensions}; \
                 set embedding_dimensions to the model's size (and re-embed), or use a model with {dimensions}",
                vec.len()
            ));
        }
        let mut xs = Vec::with_capacity(dimensions);
        for x in vec {
            let f = x
                .as_f64()
                .filter(|f| f.is_finite())
                .ok_or_else(|| format!("vector {index} holds {x}, not a finite number"))?;
            xs.push(f as f32);
        }
        let slot = out.get_mut(index).ok_or_else(|| {
            format!("the embedding endpoint answered index {index} for {inputs} texts")
        })?;
        if slot.replace(xs).is_some() {
            return Err(format!(
                "the embedding endpoint answered index {index} twice"
            ));
        }
    }
    let vectors = out
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            v.ok_or_else(|| format!("the embedding endpoint gave no vector for text {i}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((vectors, usage_of(&v)))
}

/// The body of a chat request: a system and a user message, deterministic sampling.
pub fn chat_request(model: &str, system: &str, user: &str) -> Value {
    json!({
        "model": model,
        "temperature": 0,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ],
    })
}

/// The text of a chat response's first choice, and the token counts.
pub fn parse_chat(body: &[u8]) -> Result<(String, Usage), String> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| format!("the chat endpoint answered with something that is not JSON ({e})"))?;
    if let Some(msg) = v["error"]["message"].as_str() {
        return Err(format!("the chat endpoint refused: {msg}"));
    }
    let text = v["choices"][0]["message"]["content"]
        .as_str()
        .ok_or("the chat endpoint's answer has no choices[0].message.content")?;
    Ok((text.to_string(), usage_of(&v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embeddings_come_back_in_input_order() {
        let body = br#"{"object":"list","data":[
            {"object":"embedding","index":1,"embedding":[0.0,1.0]},
            {"object":"embedding","index":0,"embedding":[1.0,0.0]}],
            "model":"m","usage":{"prompt_tokens":5,"total_tokens":5}}"#;
        let (v, u) = parse_embeddings(body, 2, 2).unwrap();
        assert_eq!(v, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert_eq!(u.prompt_tokens, 5);
    }

    #[test]
    fn bad_embedding_answers_are_named() {
        let e =
            parse_embeddings(br#"{"data":[{"index":0,"embedding":[1,2,3]}]}"#, 1, 2).unwrap_err();
        assert!(e.contains("3 dimensions, expected 2"), "{e}");
        let e = parse_embeddings(br#"{"data":[]}"#, 1, 2).unwrap_err();
        assert!(e.contains("0 vectors for 1 texts"), "{e}");
        let e = parse_embeddings(b"<html>", 1, 2).unwrap_err();
        assert!(e.contains("not JSON"), "{e}");
        let e = parse_embeddings(br#"{"error":{"message":"bad key"}}"#, 1, 2).unwrap_err();
        assert!(e.contains("bad key"), "{e}");
        let e =
            parse_embeddings(br#"{"data":[{"index":0,"embedding":[1,"x"]}]}"#, 1, 2).unwrap_err();
        assert!(e.contains("not a finite number"), "{e}");
        let e = parse_embeddings(
            br#"{"data":[{"index":0,"embedding":[1,2]},{"index":0,"embedding":[1,2]}]}"#,
            2,
            2,
        )
        .unwrap_err();
        assert!(e.contains("twice"), "{e}");
    }

    #[test]
    fn chat_answers() {
        let body = br#"{"id":"x","object":"chat.completion","choices":[{"index":0,
            "message":{"role":"assistant","content":"Paris [1]."},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":30,"completion_tokens":4,"total_tokens":34}}"#;
        let (t, u) = parse_chat(body).unwrap();
        assert_eq!(t, "Paris [1].");
        assert_eq!((u.prompt_tokens, u.completion_tokens), (30, 4));
        assert!(parse_chat(br#"{"choices":[]}"#)
            .unwrap_err()
            .contains("choices[0]"));
        let r = chat_request("m", "sys", "user");
        assert_eq!(r["messages"][1]["content"], "user");
        assert_eq!(
            endpoint("http://h/v1/", "embeddings"),
            "http://h/v1/embeddings"
        );
    }
}

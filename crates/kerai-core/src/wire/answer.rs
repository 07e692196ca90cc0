//! `kerai answer` with a chat model (`sql/retrieval_search.sql`): the passages
//! `kerai._answer_passages` gives, which the fetcher hands back to `kerai._answer_prompt` and
//! `kerai._answer_result`, and the answer those (and `kerai.answer`) return.

use serde::{Deserialize, Serialize};

/// A passage to answer from: a row of `kerai.search`. `kerai._answer_result` reads
/// `chunk_id`, `url`, `version_date`, `content`, `score` and `headings`; `kerai._answer_prompt`
/// reads `content`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Passage {
    pub chunk_id: String,
    pub content: String,
    pub score: f64,
    #[serde(default)]
    pub url: Option<String>,
    /// When the page's version was fetched (an ISO 8601 timestamp).
    #[serde(default)]
    pub version_date: Option<String>,
    /// Its document's title and heading path, one per line: lines of the passage that are
    /// headings, however long (a paper's title), and never what a citation quotes.
    #[serde(default)]
    pub headings: Option<String>,
}

/// A passage the answer cites, numbered as the answer's `[n]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Citation {
    pub order: u32,
    pub chunk_id: String,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub version_date: Option<String>,
    pub text: String,
    /// The passage's score over the best passage's.
    pub relevance: f64,
}

/// An answer, as `kerai.answer` and `kerai._answer_result` return it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// `kerai.ai_requests.id` of the logged request.
    pub request: String,
    pub answer: String,
    /// `llm` or `extractive`.
    pub mode: String,
    pub model: String,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub citations: Vec<Citation>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The keys `kerai._answer_passages` writes and `kerai._answer_result` reads back.
    #[test]
    fn passages_keep_the_keys_the_sql_reads() {
        let p: Passage = serde_json::from_value(json!({"chunk_id": "c", "content": "t",
            "score": 0.5, "url": "https://e.org/", "version_date": "2026-01-01T00:00:00+00:00",
            "headings": "A title\nA section"}))
        .unwrap();
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"chunk_id": "c", "content": "t", "score": 0.5, "url": "https://e.org/",
                   "version_date": "2026-01-01T00:00:00+00:00", "headings": "A title\nA section"})
        );
    }

    /// The answer's keys, as `kerai.answer` documents them.
    #[test]
    fn answers_read_the_keys_the_sql_writes() {
        let a: Answer = serde_json::from_value(json!({"request": "r", "answer": "A [1].",
            "mode": "llm", "model": "m", "prompt_tokens": 3, "completion_tokens": 2,
            "citations": [{"order": 1, "chunk_id": "c", "url": null, "version_date": null,
                           "text": "t", "relevance": 1.0}]}))
        .unwrap();
        assert_eq!(a.citations[0].order, 1);
        assert_eq!(a.citations[0].url, None);
    }
}

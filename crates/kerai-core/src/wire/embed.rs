//! The settings the fetcher reads for embeddings and the chat model:
//! `kerai._embedding_config()` and `kerai._chat_config()` (`sql/retrieval.sql`). Both build an
//! object with every key, `null` when unset; the fetcher reads them leniently (a value of the
//! wrong type counts as unset), as it always has.

use super::lenient;
use serde::{Deserialize, Serialize};

/// `kerai._embedding_config()`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbeddingConfig {
    /// `local`, `openai` or `none`.
    #[serde(default, deserialize_with = "lenient::string")]
    pub provider: Option<String>,
    #[serde(default, deserialize_with = "lenient::string")]
    pub model: Option<String>,
    #[serde(default, deserialize_with = "lenient::u64")]
    pub dimensions: Option<u64>,
    #[serde(default, deserialize_with = "lenient::string")]
    pub base_url: Option<String>,
    /// The environment variable holding the endpoint's key.
    #[serde(default, deserialize_with = "lenient::string")]
    pub api_key_env: Option<String>,
    /// Texts per request when embedding in bulk.
    #[serde(default, deserialize_with = "lenient::u64")]
    pub batch: Option<u64>,
    #[serde(default, deserialize_with = "lenient::u64")]
    pub timeout_seconds: Option<u64>,
    #[serde(default, deserialize_with = "lenient::u64")]
    pub max_attempts: Option<u64>,
    /// The SSRF guard's allowed entries (`kerai::ops::ssrf`), for the endpoint.
    #[serde(default, deserialize_with = "lenient::strings")]
    pub allowed_private_hosts: Vec<String>,
}

/// `kerai._chat_config()`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatConfig {
    #[serde(default, deserialize_with = "lenient::string")]
    pub base_url: Option<String>,
    #[serde(default, deserialize_with = "lenient::string")]
    pub model: Option<String>,
    /// The environment variable holding the endpoint's key.
    #[serde(default, deserialize_with = "lenient::string")]
    pub api_key_env: Option<String>,
    #[serde(default, deserialize_with = "lenient::u64")]
    pub timeout_seconds: Option<u64>,
    /// The SSRF guard's allowed entries, for the endpoint.
    #[serde(default, deserialize_with = "lenient::strings")]
    pub allowed_private_hosts: Vec<String>,
}

impl EmbeddingConfig {
    /// Read `kerai._embedding_config()`'s answer; anything but an object is no settings.
    pub fn from_json(v: serde_json::Value) -> EmbeddingConfig {
        serde_json::from_value(v).unwrap_or_default()
    }
}

impl ChatConfig {
    /// Read `kerai._chat_config()`'s answer; anything but an object is no settings.
    pub fn from_json(v: serde_json::Value) -> ChatConfig {
        serde_json::from_value(v).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn keys(v: &Value) -> Vec<&str> {
        let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    }

    /// The keys `kerai._embedding_config()` builds (sql/retrieval.sql).
    #[test]
    fn embedding_config_has_the_keys_the_sql_builds() {
        let c = EmbeddingConfig::from_json(json!({"provider": "openai", "model": "m",
            "dimensions": 16, "base_url": "http://x", "api_key_env": "K", "batch": 8,
            "timeout_seconds": 5, "max_attempts": 3, "allowed_private_hosts": ["h:1", 2]}));
        assert_eq!(c.allowed_private_hosts, ["h:1"]);
        assert_eq!(c.provider.as_deref(), Some("openai"));
        assert_eq!(
            (c.dimensions, c.batch, c.max_attempts),
            (Some(16), Some(8), Some(3))
        );
        assert_eq!(
            keys(&serde_json::to_value(&c).unwrap()),
            [
                "allowed_private_hosts",
                "api_key_env",
                "base_url",
                "batch",
                "dimensions",
                "max_attempts",
                "model",
                "provider",
                "timeout_seconds"
            ]
        );
    }

    /// The keys `kerai._chat_config()` builds (sql/retrieval.sql).
    #[test]
    fn chat_config_has_the_keys_the_sql_builds() {
        let c = ChatConfig::from_json(json!({"base_url": "http://x", "model": "m",
            "api_key_env": null, "timeout_seconds": 7}));
        assert_eq!(c.base_url.as_deref(), Some("http://x"));
        assert_eq!((c.api_key_env, c.timeout_seconds), (None, Some(7)));
        assert_eq!(
            keys(&serde_json::to_value(ChatConfig::default()).unwrap()),
            [
                "allowed_private_hosts",
                "api_key_env",
                "base_url",
                "model",
                "timeout_seconds"
            ]
        );
    }

    #[test]
    fn settings_of_the_wrong_type_or_missing_count_as_unset() {
        let c = ChatConfig::from_json(json!({"base_url": 3, "timeout_seconds": "30"}));
        assert_eq!(c, ChatConfig::default());
        assert_eq!(
            EmbeddingConfig::from_json(Value::Null),
            EmbeddingConfig::default()
        );
        let e = EmbeddingConfig::from_json(json!({"dimensions": -1, "batch": 2.5}));
        assert_eq!((e.dimensions, e.batch), (None, None));
    }
}

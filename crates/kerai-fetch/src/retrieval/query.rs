//! A search query as the CLI sends it: `--filter` pairs as `kerai.search`'s filters, the
//! query's vector embedded with this process's provider.

use crate::exit::Failure;
use crate::retrieval::Embedder;
use serde_json::{json, Map, Value};
use tokio_postgres::Client;

/// `--filter key=value` pairs as the filters object of `kerai.search`.
pub fn filters_of(pairs: &[String], mode: Option<&str>) -> Result<Value, Failure> {
    let mut m = Map::new();
    for p in pairs {
        let Some((k, v)) = p.split_once('=') else {
            return Err(
                Failure::critical(format!("filter \"{p}\" is not key=value"))
                    .with_hint("e.g. --filter domain=example.org --filter language=en"),
            );
        };
        m.insert(k.trim().to_string(), json!(v.trim()));
    }
    if let Some(mode) = mode {
        m.insert("mode".into(), json!(mode));
    }
    Ok(Value::Object(m))
}

/// Add the query's vector (embedded here, with this process's provider settings and keys) to
/// the filters. When that is not possible the database embeds it, or searches full text only.
pub async fn with_query_embedding(client: &Client, query: &str, mut filters: Value) -> Value {
    if filters["mode"].as_str() == Some("fts") {
        return filters;
    }
    match Embedder::configured(client).await {
        Ok(Some(e)) => match e.embed(&[query.to_string()]).await {
            Ok(mut v) => {
                if let Some(v) = v.pop() {
                    filters["query_embedding"] = json!(v);
                }
            }
            Err(err) => eprintln!(
                "kerai: warning: embedding the query failed ({err}); the database will try"
            ),
        },
        Ok(None) => {}
        Err(err) => eprintln!("kerai: warning: {err}; the database will embed the query"),
    }
    filters
}

//! `kerai search`: hybrid search (full text + vectors, reciprocal-rank fusion) from the
//! command line, and the query embedding it needs.

use crate::args::{Format, SearchArgs};
use crate::db;
use crate::exit::{Code, Failure};
use crate::output::snippet;
use crate::output::{print_json, Table};
use crate::retrieval::query::{filters_of, with_query_embedding};
use serde_json::{json, Value};

pub async fn run(url: &str, args: SearchArgs) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    let filters = filters_of(&args.filter, args.mode.as_deref())?;
    let filters = with_query_embedding(&client, &args.query, filters).await;
    let rows = client
        .query(
            "SELECT chunk_id::text, content, score, fts_rank, vector_rank, url, title, heading_path, version_date
               FROM kerai.search($1, $2, $3)",
            &[&args.query, &args.k, &filters],
        )
        .await
        .map_err(|e| Failure::critical(db::message(&e)))?;
    if args.format == Format::Json {
        let hits: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({"chunk_id": r.get::<_, String>(0), "content": r.get::<_, String>(1),
                       "score": r.get::<_, f64>(2), "fts_rank": r.get::<_, Option<i32>>(3),
                       "vector_rank": r.get::<_, Option<i32>>(4), "url": r.get::<_, Option<String>>(5),
                       "title": r.get::<_, Option<String>>(6), "heading_path": r.get::<_, Vec<String>>(7),
                       "version_date": r.get::<_, Option<chrono::DateTime<chrono::Utc>>>(8)
                            .map(|t| t.to_rfc3339())})
            })
            .collect();
        print_json(&json!({"query": args.query, "hits": hits}));
        return Ok(Code::Success);
    }
    if rows.is_empty() {
        println!("no chunk matches \"{}\"", args.query);
        return Ok(Code::Success);
    }
    let mut t = Table::new(&["#", "score", "fts rank", "vector rank", "source", "text"]);
    for (i, r) in rows.iter().enumerate() {
        let rank = |x: Option<i32>| x.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
        t.row(vec![
            (i + 1).to_string(),
            format!("{:.4}", r.get::<_, f64>(2)),
            rank(r.get(3)),
            rank(r.get(4)),
            r.get::<_, Option<String>>(5).unwrap_or_default(),
            snippet(&r.get::<_, String>(1), 80),
        ]);
    }
    println!("{}", t.render());
    Ok(Code::Success)
}

//! `kerai embed`: embed the chunks waiting for a vector, with the provider the settings name,
//! then (with `llm_claims` on and a chat endpoint configured) ask for their claims.

use crate::args::EmbedArgs;
use crate::db;
use crate::exit::{Code, Failure};
use crate::jobs::worker_name;
use crate::output::print_json;
use crate::progress::{Meter, Show};
use crate::retrieval::work;
use serde_json::json;

pub async fn run(url: &str, args: EmbedArgs) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    if args.retry_failed {
        let n: i32 = client
            .query_one("SELECT kerai.retry_embeddings()", &[])
            .await
            .map_err(|e| Failure::critical(db::message(&e)))?
            .get(0);
        eprintln!("kerai: {n} failed chunks are pending again");
    }
    let chunked: i32 = client
        .query_one("SELECT kerai.chunk_pending(100000)", &[])
        .await
        .map_err(|e| Failure::critical(db::message(&e)))?
        .get(0);
    if chunked > 0 {
        eprintln!("kerai: chunked {chunked} documents that had no chunks");
    }
    let show = if args.json { Show::Nothing } else { Show::Auto };
    let meter = std::sync::Mutex::new(Meter::new("embedding", "chunks", None, show));
    let progress = |s: &work::EmbedSummary| work::progress(&meter, s);
    let summary = work::embed_pending(&client, &worker_name(), args.limit, &progress).await;
    if let Ok(mut m) = meter.lock() {
        m.finish();
    }
    let summary = summary
        .map_err(|e| Failure::critical(format!("embedding failed: {e}")).with_hint(
            format!(
                "check the embedding settings ({}) and, for the local model, run scripts/install-model.sh",
                db::embed::SHOW_EMBEDDING_CONFIG
            ),
        ))?;
    let Some(s) = summary else {
        let out = json!({"embeddings": "off"});
        if args.json {
            print_json(&out);
        } else {
            println!("embeddings are off (embedding_provider = none); turn them on with SELECT kerai.configure_embeddings('local')");
        }
        return Ok(Code::Success);
    };
    let llm_on = db::embed::llm_claims_on(&client)
        .await
        .map_err(|e| Failure::critical(db::message(&e)))?;
    let claims = if llm_on || args.claims {
        work::llm_claims(&client, args.claims_limit)
            .await
            .map_err(Failure::critical)?
    } else {
        None
    };
    let mut out = s.to_json();
    if let Some(c) = claims {
        out["llm_claims"] = json!({"chunks": c.chunks, "claims": c.claims, "failed": c.failed});
    }
    if args.json {
        print_json(&out);
    } else {
        println!(
            "embedded {} chunks, {} failed, {} still without an embedding",
            s.embedded, s.failed, s.remaining
        );
        if let Some(c) = claims {
            println!(
                "LLM claims: {} chunks asked, {} claims, {} failed",
                c.chunks, c.claims, c.failed
            );
        }
    }
    let partial = s.failed > 0 || claims.is_some_and(|c| c.failed > 0);
    Ok(if partial {
        Code::Partial
    } else {
        Code::Success
    })
}

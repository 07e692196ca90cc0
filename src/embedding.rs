//! Embeddings in SQL. `kerai._embed(text)` embeds with the provider the settings name: the
//! local model (all-MiniLM-L6-v2 on the CPU, loaded once per backend) or an OpenAI-compatible
//! endpoint. `kerai.embed_pending` embeds waiting chunks with the local model, for databases
//! where no fetcher runs. The fetcher embeds in bulk through the same settings.

use crate::errors::{invalid, raise, OrRaise};
use crate::http;
use kerai_core::retrieval::embed::{self, EmbeddingProvider, LoadedModels, MiniLm, Precision};
use kerai_core::retrieval::openai;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::Value;
use std::sync::Arc;

/// The local model's variants loaded in this backend.
static LOCAL: LoadedModels = LoadedModels::new();

/// Word pieces per model run inside the database (the fetcher runs 1,024).
const IN_DATABASE_BATCH_TOKENS: usize = 256;

/// The local model in the variant `embedding_model` names, loaded on first use in this
/// backend.
fn local_model(func: &str, cfg: &embed::Settings) -> Arc<MiniLm> {
    let precision = Precision::for_setting(&cfg.model).unwrap_or_else(|e| {
        invalid(
            format!("{func}: {e}"),
            "SELECT kerai.configure_embeddings('local') chooses the default",
        )
    });
    if let Some(m) = LOCAL.get(precision) {
        return m;
    }
    if let Some(w) = precision.cpu_warning() {
        pgrx::warning!("{func}: {w}");
    }
    let dir = embed::model_dir();
    match MiniLm::load_precision(&dir, precision) {
        Ok(mut m) => {
            // Smaller groups than the fetcher's: a cancel is seen between groups, and a group
            // must take well under a second on a slow server. (The int8 variant runs one
            // text per core and sees a cancel between texts.)
            m.set_max_batch_tokens(IN_DATABASE_BATCH_TOKENS);
            LOCAL.keep(m)
        }
        Err(e) => raise(
            PgSqlErrorCode::ERRCODE_UNDEFINED_FILE,
            format!("kerai: the local embedding model cannot be loaded: {e}"),
            format!(
                "run scripts/install-model.sh on the database server (it installs into {}), or set KERAI_MODEL_DIR in the server's environment",
                dir.display()
            ),
        ),
    }
}

/// The embedding settings (`kerai._embedding_config()`).
pub fn config() -> embed::Settings {
    let v: Value = Spi::get_one::<JsonB>("SELECT kerai._embedding_config()")
        .or_raise("reading the embedding settings")
        .map(|j| j.0)
        .unwrap_or_default();
    embed::Settings::from_json(&v)
}

fn checked_text<'a>(func: &str, text: &'a str) -> &'a str {
    if text.trim().is_empty() {
        invalid(
            format!("{func}: the text is empty or only whitespace"),
            "embed some words",
        );
    }
    embed::model_input(text)
}

/// `kerai._embed(text)`: the text's vector as `real[]` (`kerai.embed` casts it to `vector`).
#[pg_extern(strict, parallel_safe)]
pub(crate) fn _embed(text: &str) -> Vec<f32> {
    let text = checked_text("kerai.embed", text);
    let cfg = config();
    match cfg.provider.as_str() {
        "local" => local_model("kerai.embed", &cfg)
            .embed(text)
            .unwrap_or_else(|e| {
                raise(
                    PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                    format!("kerai.embed: the local model failed: {e}"),
                    "",
                )
            }),
        "openai" => embed_remote(&cfg, text),
        other => invalid(
            format!("kerai.embed: embeddings are off (embedding_provider is \"{other}\")"),
            "turn them on with SELECT kerai.configure_embeddings('local')",
        ),
    }
}

fn embed_remote(cfg: &embed::Settings, text: &str) -> Vec<f32> {
    let Some(base) = cfg.base_url.as_deref() else {
        invalid(
            "kerai.embed: embedding_provider is openai but embedding_base_url is not set",
            "SELECT kerai.configure_embeddings('openai', 'MODEL', DIMENSIONS, 'https://HOST/v1')",
        )
    };
    let url = openai::endpoint(base, "embeddings");
    let body = openai::embeddings_request(&cfg.model, &[text]);
    let guard = http::guard(&cfg.allowed_private_hosts)
        .unwrap_or_else(|e| invalid(format!("kerai.embed: {e}"), "fix it with kerai.set_setting"));
    let answer = http::post_json(&url, &body, &cfg.api_key_env, cfg.timeout_seconds, guard)
        .unwrap_or_else(|e| {
            raise(
                PgSqlErrorCode::ERRCODE_CONNECTION_FAILURE,
                format!("kerai.embed: {e}"),
                "check embedding_base_url and that the endpoint runs; the key is read from the server's environment variable named by embedding_api_key_env",
            )
        });
    match openai::parse_embeddings(&answer, 1, cfg.dimensions) {
        Ok((mut v, _)) => v.pop().unwrap_or_default(),
        Err(e) => invalid(format!("kerai.embed: {url}: {e}"), ""),
    }
}

/// The chunks are locked by `kerai._embed_lock`, which a distributed database can run; a
/// 0.2.0 schema, not yet updated, has only the single query.
fn claim_query() -> &'static str {
    let updated =
        Spi::get_one::<bool>("SELECT to_regprocedure('kerai._embed_lock(integer)') IS NOT NULL")
            .or_raise("reading the schema's version")
            == Some(true);
    if updated {
        "SELECT id, content FROM kerai._embed_lock($1)"
    } else {
        "SELECT id, content FROM kerai.chunks
          WHERE embedding_status IN ('pending', 'failed') AND coalesce(embedding_next_try, '-infinity') <= now()
            AND embedding_attempts < (kerai.setting('embedding_max_attempts') #>> '{}')::integer
            AND coalesce(lease_until, '-infinity') < now()
          ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED"
    }
}

/// `kerai.embed_pending(max)`: embed up to `max` chunks waiting for an embedding, with the
/// local model, in this transaction. Returns how many were embedded. For databases without a
/// running fetcher (the fetcher's `kerai embed` does the same in bulk, with any provider).
#[pg_extern]
pub(crate) fn embed_pending(max: default!(i32, 64)) -> i32 {
    let cfg = config();
    if cfg.provider != "local" {
        invalid(
            format!(
                "kerai.embed_pending: the embedding provider is \"{}\"; only the local model runs inside the database",
                cfg.provider
            ),
            "run `kerai embed` (the fetcher), which embeds with every provider",
        );
    }
    let model = local_model("kerai.embed_pending", &cfg);
    let rows: Vec<(pgrx::Uuid, String)> = Spi::connect_mut(|c| {
        let rows = c.update(claim_query(), None, &[max.max(0).into()])?;
        let mut out = Vec::new();
        for r in rows {
            if let Some(id) = r.get::<pgrx::Uuid>(1)? {
                out.push((id, r.get::<String>(2)?.unwrap_or_default()));
            }
        }
        Ok::<_, pgrx::spi::Error>(out)
    })
    .or_raise("claiming chunks to embed");
    if rows.is_empty() {
        return 0;
    }
    let texts: Vec<&str> = rows.iter().map(|(_, t)| embed::model_input(t)).collect();
    let vectors = model.embed_batch(&texts).unwrap_or_else(|e| {
        raise(
            PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
            format!("kerai.embed_pending: the local model failed: {e}"),
            "",
        )
    });
    let ids: Vec<pgrx::Uuid> = rows.iter().map(|(id, _)| *id).collect();
    let literals: Vec<String> = vectors.iter().map(|v| embed::vector_literal(v)).collect();
    Spi::get_one_with_args::<i32>(
        "SELECT kerai._embed_store(NULL, $1, $2, $3)",
        &[model.model_name().into(), ids.into(), literals.into()],
    )
    .or_raise("storing embeddings")
    .unwrap_or(0)
}

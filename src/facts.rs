//! Entities and claims in SQL: the rule-based extractors of `kerai-core::facts`, the writers
//! `kerai.chunk_document` uses, and the LLM claim prompt and its validated answer.

use crate::errors::{invalid, OrRaise};
use kerai_core::facts::{self, Claim};
use kerai_core::retrieval::chunk::Chunk;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// `kerai.extract_entities(text)`: organisations, people, products, locations, dates, money,
/// numbers, e-mails and URLs, with character offsets and a confidence in 0..1.
#[pg_extern(immutable, strict, parallel_safe)]
#[allow(clippy::type_complexity)]
pub(crate) fn extract_entities(
    text: &str,
) -> TableIterator<
    'static,
    (
        name!(kind, String),
        name!(text, String),
        name!(start_char, i32),
        name!(end_char, i32),
        name!(confidence, f32),
    ),
> {
    crate::limits::check("kerai.extract_entities", "text", text.len());
    TableIterator::new(facts::entities(text).into_iter().map(|e| {
        (
            e.kind.as_str().to_string(),
            e.text,
            e.start as i32,
            e.end as i32,
            e.confidence,
        )
    }))
}

fn claim_row(c: Claim) -> (String, String, String, String, f32, String) {
    (
        c.statement,
        c.subject,
        c.predicate,
        c.object,
        c.confidence,
        c.source.as_str().to_string(),
    )
}

/// `kerai.extract_claims(text, json_ld)`: claims (statement, subject, predicate, object,
/// confidence, source) from schema.org JSON-LD items (an object, an array or a `@graph`; the
/// `json_ld` array of `kerai.extract_structured` fits) and from sentence patterns in `text`.
/// No language model is involved.
#[pg_extern(immutable, parallel_safe)]
pub(crate) fn extract_claims(
    text: Option<&str>,
    json_ld: default!(Option<JsonB>, "NULL"),
) -> TableIterator<
    'static,
    (
        name!(statement, String),
        name!(subject, String),
        name!(predicate, String),
        name!(object, String),
        name!(confidence, f32),
        name!(source, String),
    ),
> {
    if let Some(t) = text {
        crate::limits::check("kerai.extract_claims", "text", t.len());
    }
    let mut out = Vec::new();
    if let Some(j) = json_ld {
        let items = match j.0 {
            Value::Array(a) => a,
            v => vec![v],
        };
        out.extend(facts::claims_from_json_ld(&items));
    }
    if let Some(t) = text {
        out.extend(facts::claims_from_text(t));
    }
    TableIterator::new(dedup(out).into_iter().map(claim_row))
}

/// `kerai.llm_claims_prompt(domain, chunk_text)`: the claim-extraction prompt sent to a chat
/// model, word for word as the specification gives it.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn llm_claims_prompt(domain: &str, chunk_text: &str) -> String {
    facts::llm_prompt(domain, chunk_text)
}

/// `kerai.parse_llm_claims(response)`: a chat model's answer to the claim prompt, validated
/// (a JSON array of claims with string fields and a confidence in 0..1); an invalid answer is
/// an error naming the claim and field.
#[pg_extern(immutable, strict, parallel_safe)]
pub(crate) fn parse_llm_claims(
    response: &str,
) -> TableIterator<
    'static,
    (
        name!(statement, String),
        name!(subject, String),
        name!(predicate, String),
        name!(object, String),
        name!(confidence, f32),
        name!(source, String),
    ),
> {
    match facts::parse_llm_claims(response) {
        Ok(c) => TableIterator::new(c.into_iter().map(claim_row)),
        Err(e) => invalid(
            format!("kerai.parse_llm_claims: the model's answer is not valid: {e}"),
            "the answer must be a JSON array of {statement, subject, predicate, object, confidence}",
        ),
    }
}

/// Claims with the same statement are one claim (the first, which is the surest source).
fn dedup(claims: Vec<Claim>) -> Vec<Claim> {
    let mut seen = HashSet::new();
    claims
        .into_iter()
        .filter(|c| seen.insert(c.statement.to_lowercase()))
        .collect()
}

/// Entities of chunks, collected column by column and written in one statement.
#[derive(Default)]
pub struct ChunkFacts {
    chunk: Vec<pgrx::Uuid>,
    text: Vec<String>,
    kind: Vec<String>,
    start: Vec<i32>,
    end: Vec<i32>,
    confidence: Vec<f32>,
}

impl ChunkFacts {
    pub fn add_entities(&mut self, chunk: pgrx::Uuid, text: &str) {
        for e in facts::entities(text) {
            self.chunk.push(chunk);
            self.text.push(e.text);
            self.kind.push(e.kind.as_str().to_string());
            self.start.push(e.start as i32);
            self.end.push(e.end as i32);
            self.confidence.push(e.confidence);
        }
    }

    /// Write the entities; returns how many.
    pub fn write_entities(self) -> usize {
        let n = self.chunk.len();
        if n == 0 {
            return 0;
        }
        crate::plans::run(
            "INSERT INTO kerai.entities (chunk_id, document_id, text, kind, start_char, end_char, confidence)
             SELECT u.c, ch.document_id, u.t, u.k, u.s, u.e, u.f
               FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[], $5::int[], $6::real[]) AS u(c, t, k, s, e, f)
               JOIN kerai.chunks ch ON ch.id = u.c",
            &[
                self.chunk.into(),
                self.text.into(),
                self.kind.into(),
                self.start.into(),
                self.end.into(),
                self.confidence.into(),
            ],
        )
        .or_raise("writing entities");
        n
    }
}

/// Replace the rule-based claims of a document's chunks: JSON-LD facts of the page (kept on
/// the first chunk) and sentence patterns of each chunk, one row per distinct statement.
/// `replace` false: the page had no chunks, so there are none to drop first.
pub fn document_claims(
    doc: pgrx::Uuid,
    meta: &Map<String, Value>,
    chunks: &[Chunk],
    ids: &[pgrx::Uuid],
    replace: bool,
) -> usize {
    if replace {
        crate::plans::run(
            "DELETE FROM kerai.claims WHERE (document_id = $1 OR chunk_id = ANY($2)) AND source <> 'llm'",
            &[doc.into(), ids.to_vec().into()],
        )
        .or_raise("dropping the old rule-based claims");
    }
    let mut seen = HashSet::new();
    let mut rows: Vec<(pgrx::Uuid, Claim)> = Vec::new();
    if let (Some(first), Some(items)) = (
        ids.first(),
        meta.get("structured")
            .and_then(|s| s.get("json_ld"))
            .and_then(Value::as_array),
    ) {
        for c in facts::claims_from_json_ld(items) {
            if seen.insert(c.statement.to_lowercase()) {
                rows.push((*first, c));
            }
        }
    }
    for (c, id) in chunks.iter().zip(ids) {
        // The overlap repeats the end of the previous chunk: its claims are already there.
        for claim in facts::claims_from_text(&c.text) {
            if seen.insert(claim.statement.to_lowercase()) {
                rows.push((*id, claim));
            }
        }
    }
    write_claims(doc, rows)
}

/// Write claims of one document; returns how many.
pub fn write_claims(doc: pgrx::Uuid, rows: Vec<(pgrx::Uuid, Claim)>) -> usize {
    let n = rows.len();
    if n == 0 {
        return 0;
    }
    let mut chunk = Vec::with_capacity(n);
    let mut cols: [Vec<String>; 5] = Default::default();
    let mut conf = Vec::with_capacity(n);
    for (id, c) in rows {
        chunk.push(id);
        cols[0].push(c.statement);
        cols[1].push(c.subject);
        cols[2].push(c.predicate);
        cols[3].push(c.object);
        cols[4].push(c.source.as_str().to_string());
        conf.push(c.confidence);
    }
    let [statement, subject, predicate, object, source] = cols;
    crate::plans::run(
        "INSERT INTO kerai.claims (document_id, chunk_id, statement, subject, predicate, object, confidence, source)
         SELECT $1, * FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::real[], $8::text[])",
        &[
            doc.into(),
            chunk.into(),
            statement.into(),
            subject.into(),
            predicate.into(),
            object.into(),
            conf.into(),
            source.into(),
        ],
    )
    .or_raise("writing claims");
    n
}

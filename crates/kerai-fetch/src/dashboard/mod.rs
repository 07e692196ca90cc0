//! `kerai report --html FILE`: the corpus as a static page people can look at (growth over
//! time, documents by type and language, crawl outcomes per job, the citation graph around the
//! seeds, the frontier with its score terms). [`gather`] reads it from the database as the
//! caller's login sees it (row-level security applies); [`page::render`] draws it as one HTML
//! file with inline CSS and SVG: no script, no server, no network.

pub mod page;
mod svg;

use crate::db;
use crate::exit::Failure;
use tokio_postgres::Client;

/// Everything the page shows.
#[derive(Debug, Clone, Default)]
pub struct CorpusReport {
    pub database: String,
    pub generated_at: String,
    pub documents: i64,
    pub references: i64,
    pub resolved: i64,
    pub frontier_size: i64,
    pub chunks: i64,
    pub embedded: i64,
    /// Documents added per time bucket, oldest first (`bucket` names the unit).
    pub growth: Vec<(String, i64)>,
    pub bucket: String,
    pub by_type: Vec<(String, i64)>,
    pub by_language: Vec<(String, i64)>,
    pub jobs: Vec<JobRow>,
    pub graph: Graph,
    pub frontier: Vec<FrontierRow>,
}

#[derive(Debug, Clone, Default)]
pub struct JobRow {
    pub target: String,
    pub status: String,
    pub mode: String,
    pub started_at: String,
    pub new: i64,
    pub updated: i64,
    pub unchanged: i64,
    pub duplicates: i64,
    pub errors: i64,
    pub skipped: i64,
}

/// Documents joined by resolved citations (citing document -> cited document).
#[derive(Debug, Clone, Default)]
pub struct Graph {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<(usize, usize)>,
    /// Documents left out to keep the drawing readable.
    pub omitted: i64,
}

#[derive(Debug, Clone, Default)]
pub struct GraphNode {
    pub title: String,
    pub depth: i32,
}

#[derive(Debug, Clone, Default)]
pub struct FrontierRow {
    pub content: String,
    pub ref_type: String,
    pub score: f64,
    pub cite_count: i32,
    pub frequency: f64,
    pub entropy: f64,
    pub novelty: f64,
    pub depth: f64,
    pub demand: f64,
}

/// At most this many documents in the drawn graph.
const MAX_GRAPH_NODES: usize = 120;

fn fail(what: &str) -> impl Fn(tokio_postgres::Error) -> Failure + '_ {
    move |e| {
        Failure::critical(format!(
            "cannot read {what} for the report: {}",
            db::message(&e)
        ))
    }
}

/// Read the report's data.
pub async fn gather(client: &Client) -> Result<CorpusReport, Failure> {
    let mut r = CorpusReport {
        generated_at: crate::output::iso(&chrono::Utc::now()),
        ..CorpusReport::default()
    };
    let o = client
        .query_one(
            "SELECT current_database(), documents, \"references\", resolved, frontier,
                    (SELECT chunks FROM kerai.retrieval_overview), (SELECT embedded FROM kerai.retrieval_overview)
               FROM kerai.corpus_overview",
            &[],
        )
        .await
        .map_err(fail("the corpus overview"))?;
    r.database = o.get(0);
    r.documents = o.get::<_, Option<i64>>(1).unwrap_or(0);
    r.references = o.get::<_, Option<i64>>(2).unwrap_or(0);
    r.resolved = o.get::<_, Option<i64>>(3).unwrap_or(0);
    r.frontier_size = o.get::<_, Option<i64>>(4).unwrap_or(0);
    r.chunks = o.get::<_, Option<i64>>(5).unwrap_or(0);
    r.embedded = o.get::<_, Option<i64>>(6).unwrap_or(0);

    // Growth: a bucket that gives a readable number of points for the corpus's age.
    let span: Option<f64> = client
        .query_one(
            "SELECT extract(epoch FROM max(created_at) - min(created_at))::float8
               FROM kerai.nodes WHERE kind = 'document'",
            &[],
        )
        .await
        .map_err(fail("document times"))?
        .get(0);
    r.bucket = match span.unwrap_or(0.0) {
        s if s < 3.0 * 3600.0 => "minute",
        s if s < 7.0 * 86400.0 => "hour",
        _ => "day",
    }
    .to_string();
    r.growth = client
        .query(
            "SELECT to_char(date_trunc($1, created_at), 'YYYY-MM-DD HH24:MI'), count(*)
               FROM kerai.nodes WHERE kind = 'document' GROUP BY 1 ORDER BY 1",
            &[&r.bucket],
        )
        .await
        .map_err(fail("corpus growth"))?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    for (key, into) in [
        ("source_type", &mut r.by_type),
        ("language", &mut r.by_language),
    ] {
        *into = client
            .query(
                "SELECT coalesce(nullif(metadata->>$1, ''), 'unknown'), count(*)
                   FROM kerai.nodes WHERE kind = 'document' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 12",
                &[&key],
            )
            .await
            .map_err(fail("documents by type and language"))?
            .iter()
            .map(|row| (row.get(0), row.get(1)))
            .collect();
    }
    r.jobs = client
        .query(
            "SELECT target, status, mode, coalesce(to_char(started_at, 'YYYY-MM-DD HH24:MI'), '-'),
                    coalesce((metrics->>'new_count')::bigint, 0), coalesce((metrics->>'updated_count')::bigint, 0),
                    coalesce((metrics->>'unchanged_count')::bigint, 0), coalesce((metrics->>'error_count')::bigint, 0),
                    coalesce((metrics->>'skipped_count')::bigint, 0), coalesce((metrics->>'duplicate_count')::bigint, 0)
               FROM kerai.job_summary ORDER BY coalesce(started_at, scheduled_at) DESC LIMIT 20",
            &[],
        )
        .await
        .map_err(fail("crawl jobs"))?
        .iter()
        .map(|row| JobRow {
            target: row.get(0),
            status: row.get(1),
            mode: row.get(2),
            started_at: row.get(3),
            new: row.get(4),
            updated: row.get(5),
            unchanged: row.get(6),
            errors: row.get(7),
            skipped: row.get(8),
            duplicates: row.get(9),
        })
        .collect();
    r.graph = graph(client).await?;
    r.frontier = client
        .query(
            "SELECT content, ref_type, score, cite_count, frequency, entropy, novelty, depth, demand
               FROM kerai.frontier(15)",
            &[],
        )
        .await
        .map_err(fail("the frontier"))?
        .iter()
        .map(|row| FrontierRow {
            content: row.get::<_, Option<String>>(0).unwrap_or_default(),
            ref_type: row.get::<_, Option<String>>(1).unwrap_or_default(),
            score: row.get::<_, Option<f64>>(2).unwrap_or(0.0),
            cite_count: row.get::<_, Option<i32>>(3).unwrap_or(0),
            frequency: row.get::<_, Option<f64>>(4).unwrap_or(0.0),
            entropy: row.get::<_, Option<f64>>(5).unwrap_or(0.0),
            novelty: row.get::<_, Option<f64>>(6).unwrap_or(0.0),
            depth: row.get::<_, Option<f64>>(7).unwrap_or(0.0),
            demand: row.get::<_, Option<f64>>(8).unwrap_or(0.0),
        })
        .collect();
    Ok(r)
}

/// The documents that cite or are cited by another through a resolved reference, the
/// shallowest first (the seeds are depth 0), and those citations.
async fn graph(client: &Client) -> Result<Graph, Failure> {
    let edges = client
        .query(
            "SELECT DISTINCT c.document_id, rs.resolved_doc
               FROM kerai.edges e
               JOIN kerai.nodes c ON c.id = e.source_id
               JOIN kerai.reference_state rs ON rs.node_id = e.target_id
              WHERE e.relation = 'cites' AND rs.resolved_doc IS NOT NULL
                AND c.document_id IS NOT NULL AND c.document_id <> rs.resolved_doc
              LIMIT 5000",
            &[],
        )
        .await
        .map_err(fail("the citation graph"))?;
    let pairs: Vec<(uuid::Uuid, uuid::Uuid)> =
        edges.iter().map(|row| (row.get(0), row.get(1))).collect();
    let mut ids: Vec<uuid::Uuid> = pairs.iter().flat_map(|(a, b)| [*a, *b]).collect();
    ids.sort();
    ids.dedup();
    if ids.is_empty() {
        return Ok(Graph::default());
    }
    let rows = client
        .query(
            "SELECT id, left(coalesce(nullif(content, ''), metadata->>'source_url', id::text), 120),
                    coalesce((metadata->>'chain_depth')::int, 0)
               FROM kerai.nodes WHERE id = ANY($1) AND kind = 'document'
              ORDER BY 3, 2",
            &[&ids],
        )
        .await
        .map_err(fail("the citation graph's documents"))?;
    let total = rows.len() as i64;
    let mut g = Graph::default();
    let mut index = std::collections::HashMap::new();
    for row in rows.iter().take(MAX_GRAPH_NODES) {
        index.insert(row.get::<_, uuid::Uuid>(0), g.nodes.len());
        g.nodes.push(GraphNode {
            title: row.get(1),
            depth: row.get(2),
        });
    }
    g.omitted = total - g.nodes.len() as i64;
    g.edges = pairs
        .iter()
        .filter_map(|(a, b)| Some((*index.get(a)?, *index.get(b)?)))
        .collect();
    Ok(g)
}

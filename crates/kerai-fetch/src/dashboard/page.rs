//! The report as one HTML page: inline CSS and SVG, no script, readable offline.

use super::svg::{self, escape, OUTCOME_COLOURS, OUTCOME_NAMES};
use super::CorpusReport;
use std::fmt::Write;

const STYLE: &str = r#"
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a202c; margin: 0; background: #f7fafc; }
header { background: #1a365d; color: #fff; padding: 18px 32px; }
header h1 { margin: 0; font-size: 24px; }
header p { margin: 4px 0 0; opacity: .8; }
main { padding: 16px 32px 40px; max-width: 1280px; }
section { background: #fff; border: 1px solid #e2e8f0; border-radius: 8px; padding: 14px 20px; margin: 16px 0; overflow-x: auto; }
h2 { font-size: 18px; margin: 0 0 10px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { background: #fff; border: 1px solid #e2e8f0; border-radius: 8px; padding: 10px 18px; min-width: 120px; }
.card b { display: block; font-size: 26px; color: #1a365d; }
.two { display: flex; flex-wrap: wrap; gap: 32px; }
table { border-collapse: collapse; font-size: 14px; }
th, td { text-align: left; padding: 4px 10px; border-bottom: 1px solid #edf2f7; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
svg text { font: 12px system-ui, sans-serif; fill: #2d3748; }
svg .axis { stroke: #a0aec0; }
svg .edge { fill: none; stroke: #a0aec0; stroke-width: 1.2; opacity: .8; }
svg .depth { font-weight: 600; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-right: 5px; vertical-align: -1px; }
.empty { font-size: 20px; color: #4a5568; padding: 30px 0; }
.muted { color: #718096; }
"#;

/// The whole page.
pub fn render(r: &CorpusReport) -> String {
    let mut body = String::new();
    let _ = write!(
        body,
        r#"<header><h1>kerai corpus report</h1><p>database {} · generated {}</p></header><main>"#,
        escape(&r.database),
        escape(&r.generated_at)
    );
    if r.documents == 0 && r.jobs.is_empty() {
        body.push_str(
            r#"<section><p class="empty">Nothing crawled yet.</p><p>Crawl a site (<code>kerai config set NAME --base-url URL</code>, then <code>kerai run NAME</code>) or ingest markdown (<code>SELECT kerai.parse_markdown(...)</code>), then write this report again.</p></section>"#,
        );
    } else {
        cards(&mut body, r);
        growth(&mut body, r);
        kinds(&mut body, r);
        jobs(&mut body, r);
        graph(&mut body, r);
        frontier(&mut body, r);
    }
    body.push_str("</main>");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>kerai corpus report: {}</title><style>{STYLE}</style></head><body>{body}</body></html>\n",
        escape(&r.database)
    )
}

fn cards(out: &mut String, r: &CorpusReport) {
    out.push_str(r#"<div class="cards">"#);
    for (label, n) in [
        ("documents", r.documents),
        ("references", r.references),
        ("resolved", r.resolved),
        ("in the frontier", r.frontier_size),
        ("chunks", r.chunks),
        ("embedded", r.embedded),
    ] {
        let _ = write!(out, r#"<div class="card"><b>{n}</b>{label}</div>"#);
    }
    out.push_str("</div>");
}

fn growth(out: &mut String, r: &CorpusReport) {
    let _ = write!(
        out,
        r#"<section><h2>Corpus growth</h2><p class="muted">documents in the corpus over time, per {}</p>{}</section>"#,
        escape(&r.bucket),
        svg::growth(&r.growth)
    );
}

fn kinds(out: &mut String, r: &CorpusReport) {
    let _ = write!(
        out,
        r##"<section><h2>Documents by type and language</h2><div class="two"><div><h3>type</h3>{}</div><div><h3>language</h3>{}</div></div></section>"##,
        svg::bars(&r.by_type, "#2b6cb0"),
        svg::bars(&r.by_language, "#2f855a")
    );
}

fn jobs(out: &mut String, r: &CorpusReport) {
    out.push_str(r#"<section><h2>Crawl jobs</h2>"#);
    if r.jobs.is_empty() {
        out.push_str(r#"<p class="muted">no site crawls yet</p></section>"#);
        return;
    }
    out.push_str(r#"<p class="legend">"#);
    for (i, name) in OUTCOME_NAMES.iter().enumerate() {
        let _ = write!(
            out,
            r#"<span><i style="background:{}"></i>{name}</span>"#,
            OUTCOME_COLOURS[i]
        );
    }
    out.push_str("</p><table><tr><th>target</th><th>started</th><th>mode</th><th>status</th><th>new</th><th>updated</th><th>unchanged</th><th>duplicates</th><th>errors</th><th>skipped</th><th>outcomes</th></tr>");
    for j in &r.jobs {
        let counts = [
            j.new,
            j.updated,
            j.unchanged,
            j.duplicates,
            j.errors,
            j.skipped,
        ];
        let _ = write!(
            out,
            r#"<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td></tr>"#,
            escape(&j.target),
            escape(&j.started_at),
            escape(&j.mode),
            escape(&j.status),
            counts
                .iter()
                .map(|n| format!(r#"<td class="n">{n}</td>"#))
                .collect::<String>(),
            svg::outcomes(counts)
        );
    }
    out.push_str("</table></section>");
}

fn graph(out: &mut String, r: &CorpusReport) {
    out.push_str(r#"<section><h2>Citation graph around the seeds</h2>"#);
    if r.graph.nodes.is_empty() {
        out.push_str(r#"<p class="muted">no citation resolved to a document in the corpus yet (the citation loop: <code>kerai crawl</code>)</p></section>"#);
        return;
    }
    let _ = write!(
        out,
        r#"<p class="muted">{} documents joined by {} resolved citations; seeds (depth 0) at the left, each column one citation step further{}</p>{}</section>"#,
        r.graph.nodes.len(),
        r.graph.edges.len(),
        if r.graph.omitted > 0 {
            format!("; {} more documents not drawn", r.graph.omitted)
        } else {
            String::new()
        },
        svg::citation_graph(&r.graph)
    );
}

fn frontier(out: &mut String, r: &CorpusReport) {
    out.push_str(r#"<section><h2>The frontier</h2>"#);
    if r.frontier.is_empty() {
        out.push_str(r#"<p class="muted">no unresolved references</p></section>"#);
        return;
    }
    out.push_str(r#"<p class="muted">the best unresolved references by expected free energy, and the terms of their score</p><table><tr><th>reference</th><th>type</th><th>score</th><th>cited</th><th>frequency</th><th>entropy</th><th>novelty</th><th>depth</th><th>demand</th></tr>"#);
    for f in &r.frontier {
        let _ = write!(
            out,
            r#"<tr><td>{}</td><td>{}</td><td class="n">{:.3}</td><td class="n">{}</td><td class="n">{:.3}</td><td class="n">{:.3}</td><td class="n">{:.3}</td><td class="n">{:.1}</td><td class="n">{:.3}</td></tr>"#,
            escape(&f.content.chars().take(110).collect::<String>()),
            escape(&f.ref_type),
            f.score,
            f.cite_count,
            f.frequency,
            f.entropy,
            f.novelty,
            f.depth,
            f.demand
        );
    }
    out.push_str("</table></section>");
}

#[cfg(test)]
mod tests {
    use super::super::{CorpusReport, Graph, GraphNode, JobRow};
    use super::*;

    #[test]
    fn an_empty_corpus_says_nothing_crawled_yet() {
        let page = render(&CorpusReport {
            database: "kerai".into(),
            ..CorpusReport::default()
        });
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains("Nothing crawled yet."));
        assert!(!page.contains("<script"));
    }

    #[test]
    fn a_corpus_gets_every_section_and_text_is_escaped() {
        let r = CorpusReport {
            database: "kerai".into(),
            documents: 3,
            growth: vec![
                ("2026-11-25 07:00".into(), 2),
                ("2026-11-25 08:00".into(), 1),
            ],
            bucket: "hour".into(),
            by_type: vec![("html".into(), 2), ("pdf".into(), 1)],
            by_language: vec![("en".into(), 3)],
            jobs: vec![JobRow {
                target: "site".into(),
                status: "COMPLETED".into(),
                new: 2,
                errors: 1,
                ..JobRow::default()
            }],
            graph: Graph {
                nodes: vec![
                    GraphNode {
                        title: "Seed <page>".into(),
                        depth: 0,
                    },
                    GraphNode {
                        title: "Cited paper".into(),
                        depth: 1,
                    },
                ],
                edges: vec![(0, 1)],
                omitted: 0,
            },
            ..CorpusReport::default()
        };
        let page = render(&r);
        for want in [
            "Corpus growth",
            "Documents by type and language",
            "Crawl jobs",
            "Citation graph around the seeds",
            "2 documents joined by 1 resolved citations",
            "Seed &lt;page&gt;",
            "no unresolved references",
        ] {
            assert!(page.contains(want), "{want}");
        }
        assert!(!page.contains("Seed <page>"));
    }
}

//! `kerai status`: per target the running job with live progress, the last success and the
//! next scheduled run; and the corpus counters.

use crate::args::{Format, StatusArgs};
use crate::db;
use crate::exit::{Code, Failure};
use crate::holder::{Holder, Liveness};
use crate::output::{iso, print_json, Table};
use crate::target::schedule;
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

pub async fn run(url: &str, args: StatusArgs) -> Result<Code, Failure> {
    let client = db::connect(url).await?;
    if let Some(t) = &args.target {
        crate::target::store::load(&client, t).await?;
    }
    // One target at a time: every statement then names one target, whose jobs are on one
    // shard of a distributed database (Citus plans no lateral join over them otherwise).
    let ids: Vec<uuid::Uuid> = client
        .query(
            "SELECT t.id FROM kerai.targets t
              WHERE $1::text IS NULL OR t.name = $1 OR t.id::text = $1
              ORDER BY t.name",
            &[&args.target],
        )
        .await
        .map_err(|e| Failure::critical(format!("cannot read status: {}", db::message(&e))))?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut rows = Vec::with_capacity(ids.len());
    for id in &ids {
        let row = client
            .query_one(
                "SELECT t.name, t.base_url, t.config_version,
                        r.id::text, r.started_at, r.worker, kerai.job_metrics(r.id), r.urls_enqueued,
                        (SELECT max(finished_at) FROM kerai.scrape_jobs s WHERE s.target_id = $1 AND s.status = 'COMPLETED'),
                        (SELECT count(*) FROM kerai.scrape_jobs s WHERE s.target_id = $1 AND s.status = 'PENDING'),
                        l.status, l.exit_code, r.heartbeat_at, r.lease_until,
                        extract(epoch FROM now() - r.heartbeat_at)::float8 > extract(epoch FROM r.lease_until - r.heartbeat_at)::float8 / 2
                            OR r.lease_until < now()
                   FROM kerai.targets t
                   LEFT JOIN LATERAL (SELECT * FROM kerai.scrape_jobs s WHERE s.target_id = $1 AND s.status = 'RUNNING'
                                       ORDER BY s.started_at LIMIT 1) r ON true
                   LEFT JOIN LATERAL (SELECT s.status, s.exit_code FROM kerai.scrape_jobs s
                                       WHERE s.target_id = $1 AND s.finished_at IS NOT NULL
                                       ORDER BY s.finished_at DESC LIMIT 1) l ON true
                  WHERE t.id = $1",
                &[id],
            )
            .await
            .map_err(|e| Failure::critical(format!("cannot read status: {}", db::message(&e))))?;
        rows.push(row);
    }
    let schedules = schedule::schedules(&client).await.unwrap_or_default();
    let overview = client
        .query_one(
            "SELECT documents, \"references\", resolved, frontier, total_nodes, kerai.version(), kerai.build_info()->>'build' FROM kerai.corpus_overview",
            &[],
        )
        .await
        .map_err(|e| Failure::critical(format!("cannot read the corpus overview: {}", db::message(&e))))?;

    let mut targets = Vec::new();
    for r in &rows {
        let name: String = r.get(0);
        let sched = schedules.iter().find(|s| s.target == name);
        let running = r.get::<_, Option<String>>(3).map(|job| {
            let m: Value = r.get(6);
            let worker = r.get::<_, Option<String>>(5).unwrap_or_default();
            let holder = Holder::parse(&worker);
            // Stalled: the holder missed two heartbeats, or is provably gone.
            let late = r.get::<_, Option<bool>>(14).unwrap_or(false);
            let gone = holder.liveness() == Liveness::Gone;
            let stalled = late || gone;
            json!({
                "job": job,
                "state": if stalled { "stalled" } else { "running" },
                "started_at": r.get::<_, Option<DateTime<Utc>>>(4).as_ref().map(iso),
                "worker": worker,
                "holder": {"host": holder.host, "pid": holder.pid,
                           "gone": gone},
                "heartbeat_at": r.get::<_, Option<DateTime<Utc>>>(12).as_ref().map(iso),
                "lease_until": r.get::<_, Option<DateTime<Utc>>>(13).as_ref().map(iso),
                "urls_enqueued": r.get::<_, i32>(7),
                "items_processed": m["items_processed"], "remaining": m["remaining"],
                "new": m["new_count"], "updated": m["updated_count"], "unchanged": m["unchanged_count"],
                "duplicates": m["duplicate_count"],
                "errors": m["error_count"], "throughput_items_per_min": m["throughput_items_per_min"],
            })
        });
        targets.push(json!({
            "target": name,
            "base_url": r.get::<_, String>(1),
            "config_version": r.get::<_, i32>(2),
            "running": running,
            "pending_jobs": r.get::<_, i64>(9),
            "last_job": r.get::<_, Option<String>>(10),
            "last_exit_code": r.get::<_, Option<i32>>(11),
            "last_success_at": r.get::<_, Option<DateTime<Utc>>>(8).as_ref().map(iso),
            "schedule": sched.map(|s| s.cron.clone()),
            "next_run_at": sched.and_then(|s| s.next_run.as_ref().map(iso)),
        }));
    }
    let corpus = json!({
        "documents": overview.get::<_, i64>(0), "references": overview.get::<_, i64>(1),
        "resolved": overview.get::<_, i64>(2), "frontier": overview.get::<_, i64>(3),
        "total_nodes": overview.get::<_, i64>(4),
    });
    let crawler = crawler(&client).await?;
    let extension: String = overview.get(5);
    let build: String = overview.get(6);
    let versions = json!({"cli": env!("CARGO_PKG_VERSION"), "extension": extension,
                          "extension_build": build});
    match args.format {
        Format::Json => print_json(
            &json!({"targets": targets, "corpus": corpus, "crawler": crawler,
                                "versions": versions}),
        ),
        Format::Table => {
            let mut t = Table::new(&[
                "target",
                "state",
                "progress",
                "last success",
                "next run",
                "schedule",
            ]);
            for x in &targets {
                let (state, progress) = match &x["running"] {
                    Value::Null => (
                        if x["pending_jobs"].as_i64().unwrap_or(0) > 0 {
                            "queued".to_string()
                        } else {
                            "idle".to_string()
                        },
                        x["last_job"]
                            .as_str()
                            .map(|s| match x["last_exit_code"].as_i64() {
                                Some(code) => format!("last job {s} (exit code {code})"),
                                None => format!("last job {s}"),
                            })
                            .unwrap_or_else(|| "never crawled".into()),
                    ),
                    r if r["state"] == "stalled" => (
                        format!("stalled {}", r["job"].as_str().unwrap_or("")),
                        format!(
                            "holder {} {}, last heartbeat {}; {} ({}/{} urls done)",
                            r["worker"].as_str().unwrap_or("?"),
                            if r["holder"]["gone"] == true {
                                "is gone: `kerai run` takes the job over now"
                            } else {
                                "is silent"
                            },
                            r["heartbeat_at"].as_str().unwrap_or("-"),
                            match r["lease_until"].as_str() {
                                Some(t) => format!("its lease ends {t}"),
                                None => "no lease".into(),
                            },
                            r["items_processed"],
                            r["urls_enqueued"],
                        ),
                    ),
                    r => (
                        format!("running {}", r["job"].as_str().unwrap_or("")),
                        format!(
                            "{}/{} urls, {} new, {} updated, {} unchanged, {} duplicates, {} errors",
                            r["items_processed"],
                            r["urls_enqueued"],
                            r["new"],
                            r["updated"],
                            r["unchanged"],
                            r["duplicates"],
                            r["errors"]
                        ),
                    ),
                };
                t.row(vec![
                    x["target"].as_str().unwrap_or("").into(),
                    state,
                    progress,
                    x["last_success_at"].as_str().unwrap_or("-").into(),
                    x["next_run_at"].as_str().unwrap_or("-").into(),
                    x["schedule"].as_str().unwrap_or("-").into(),
                ]);
            }
            if t.is_empty() {
                println!("no targets yet: kerai config set NAME --base-url URL");
            } else {
                println!("{}", t.render());
            }
            println!(
                "\ncorpus: {} documents, {} references ({} resolved, {} in the frontier), {} nodes",
                corpus["documents"],
                corpus["references"],
                corpus["resolved"],
                corpus["frontier"],
                corpus["total_nodes"]
            );
            for line in crawler_lines(&crawler) {
                println!("{line}");
            }
            let note = if build == "debug" {
                ", a debug build: several times slower; `make install` builds a release one"
            } else {
                ", a release build"
            };
            println!(
                "kerai {} (extension {extension}{note})",
                env!("CARGO_PKG_VERSION")
            );
        }
    }
    if extension != env!("CARGO_PKG_VERSION") {
        eprintln!(
            "kerai: warning: this CLI is {} but the database has extension {extension}; run ALTER EXTENSION kerai UPDATE",
            env!("CARGO_PKG_VERSION")
        );
    }
    Ok(Code::Success)
}

/// The supervisor and the daemons that are not stopped (`kerai.crawler_status()`).
async fn crawler(client: &tokio_postgres::Client) -> Result<Vec<Value>, Failure> {
    let rows = client
        .query(
            "SELECT worker, state, pid, extract(epoch FROM now() - heartbeat_at)::float8, work, last_error
               FROM kerai.crawler_status() WHERE state <> 'stopped'",
            &[],
        )
        .await
        .map_err(|e| Failure::critical(format!("cannot read the crawler status: {}", db::message(&e))))?;
    Ok(rows
        .iter()
        .map(|r| {
            json!({"worker": r.get::<_, String>(0), "state": r.get::<_, String>(1),
                   "pid": r.get::<_, Option<i32>>(2),
                   "heartbeat_seconds_ago": r.get::<_, Option<f64>>(3).map(|s| s.max(0.0).round() as i64),
                   "work": r.get::<_, Value>(4), "last_error": r.get::<_, Option<String>>(5)})
        })
        .collect())
}

/// One line per supervisor and daemon, or how to start one.
fn crawler_lines(rows: &[Value]) -> Vec<String> {
    if rows.is_empty() {
        return vec![
            "crawler: no daemon runs (start one: kerai daemon, or SELECT kerai.start_crawler())"
                .into(),
        ];
    }
    rows.iter()
        .map(|r| {
            let state = r["state"].as_str().unwrap_or("");
            if r["worker"] == "supervisor" {
                let mut line = format!(
                    "crawler: supervised by Postgres ({state}; supervisor pid {}, {} starts)",
                    r["pid"], r["work"]["starts"]
                );
                if state != "supervising" {
                    if let Some(e) = r["last_error"].as_str() {
                        line.push_str(&format!("; last error: {e}"));
                    }
                }
                return line;
            }
            let lanes: Vec<String> = ["site", "resolve", "embed"]
                .iter()
                .filter_map(|l| {
                    let w = &r["work"][l];
                    match (
                        w["target"].as_str(),
                        w["cycle"].as_i64(),
                        w["waiting"].as_i64(),
                    ) {
                        (Some(t), _, _) => Some(format!("site: crawling {t}")),
                        (_, Some(c), _) => Some(format!("resolve: cycle {c}")),
                        (_, _, Some(n)) => Some(format!("embed: {n} chunks waiting")),
                        _ => None,
                    }
                })
                .collect();
            format!(
                "daemon {} {state}, last heartbeat {} s ago{}",
                r["worker"].as_str().unwrap_or("?"),
                r["heartbeat_seconds_ago"],
                if lanes.is_empty() {
                    "; idle".to_string()
                } else {
                    format!("; {}", lanes.join(", "))
                }
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crawler_lines_say_what_runs() {
        assert!(crawler_lines(&[])[0].contains("kerai daemon"));
        let rows = vec![
            json!({"worker": "supervisor", "state": "restarting", "pid": 7,
                   "work": {"starts": 3}, "last_error": "kerai: error: boom"}),
            json!({"worker": "db-1:42", "state": "running", "heartbeat_seconds_ago": 2,
                   "work": {"site": {"target": "intranet"}, "resolve": null}}),
        ];
        let lines = crawler_lines(&rows);
        assert_eq!(
            lines[0],
            "crawler: supervised by Postgres (restarting; supervisor pid 7, 3 starts); last error: kerai: error: boom"
        );
        assert_eq!(
            lines[1],
            "daemon db-1:42 running, last heartbeat 2 s ago; site: crawling intranet"
        );
    }
}

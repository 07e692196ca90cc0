//! The citation loop end to end: two seed papers with 30+ references of every kind, a local
//! "scholarly web" of fake services answering in the real services' formats
//! ([`kerai_e2e::scholarly`]), open-access, paywalled, flaky and missing hosts, and the real
//! `kerai crawl` daemon against the real extension. After the loop goes idle the corpus holds
//! what it should, at the right chain depths, with the right edges, statuses and reasons.

use kerai_e2e::scholarly::{IaItem, Location, ScholarlyWeb, Work};
use kerai_e2e::{allow_private, kerai, repo_root, spawn, wait, Behavior, Site, TestDb};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const CONTACT: &str = "loop-test@example.org";

/// Sentences for full-length pages (the loop calls a copy of fewer than 400 words an abstract).
const PROSE: &str = "Active inference describes perception, learning and action as the \
    minimisation of variational free energy under a generative model of the world. Beliefs about \
    hidden states are updated by message passing, and policies are chosen by their expected free \
    energy, which balances information gain against preferred outcomes. ";

fn words(n: usize) -> String {
    let mut s = String::new();
    while s.split_whitespace().count() < n {
        s.push_str(PROSE);
    }
    s
}

/// An HTML article: a title, `n` words of prose, and a References list.
fn article(title: &str, n: usize, refs: &[&str], extra_head: &str) -> String {
    let items: String = refs.iter().map(|r| format!("<li>{r}</li>")).collect();
    let refs = if refs.is_empty() {
        String::new()
    } else {
        format!("<h2>References</h2><ol>{items}</ol>")
    };
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>{extra_head}</head>\
         <body><main><article><h1>{title}</h1><h2>Introduction</h2><p>{}</p>{refs}</article></main></body></html>",
        words(n)
    )
}

fn paper_pdf(name: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("examples/site/papers").join(name)).expect("paper PDF")
}

/// The open-access, paywalled, flaky and missing hosts (one server; paths tell them apart).
fn hosts() -> Site {
    let host = Site::start();
    host.page(
        "/robots.txt",
        "text/plain",
        "User-agent: *\nDisallow: /private/\n",
    );
    host.page(
        "/oa/a1.pdf",
        "application/pdf",
        paper_pdf("parr-friston-2019.pdf"),
    );
    host.html(
        "/oa/h1.html",
        &article(
            "Message passing in cortical hierarchies",
            500,
            &[
                "Roe, J., &amp; Doe, J. (2018). Deep message passing in cortical hierarchies. Journal of Test Results, 4, 1–20. https://doi.org/10.5555/deep.1",
                "Poe, E. (2016). Closed doors. Journal of Test Results, 2, 5–9. https://doi.org/10.5555/deep.2",
                "Friston, K. (2010). The free-energy principle: a unified brain theory? Nature Reviews Neuroscience, 11(2), 127–138.",
            ],
            "",
        ),
    );
    host.html(
        "/oa/deep1.html",
        &article(
            "Deep message passing in cortical hierarchies",
            450,
            &["Zed, A. (2014). Beyond the horizon. Journal of Test Results, 1, 1–2. https://doi.org/10.5555/deeper.1"],
            "",
        ),
    );
    host.html(
        "/oa/short1.html",
        &article("A short note on precision", 60, &[], ""),
    );
    host.page(
        "/oa/s2.pdf",
        "application/pdf",
        paper_pdf("friston-2005.pdf"),
    );
    host.page(
        "/oa/cc1.pdf",
        "application/pdf",
        paper_pdf("millidge-2021.pdf"),
    );
    host.page(
        "/oa/dacosta.pdf",
        "application/pdf",
        paper_pdf("parr-friston-2019.pdf"),
    );
    host.html(
        "/oa/parr2019.html",
        &article("Generalised free energy and active inference", 420, &[], ""),
    );
    host.page(
        "/oa/rao1999.pdf",
        "application/pdf",
        paper_pdf("friston-2005.pdf"),
    );
    host.page(
        "/oa/seed2a.pdf",
        "application/pdf",
        paper_pdf("millidge-2021.pdf"),
    );
    host.html("/oa/pc.html", &article("Predictive coding", 430, &[], ""));
    host.page(
        "/arxiv-pdf/2107.12979v1",
        "application/pdf",
        paper_pdf("millidge-2021.pdf"),
    );
    host.html(
        "/arxiv-pdf/2003.04035v1",
        &article("Two kinds of free energy", 410, &[], ""),
    );
    host.html(
        "/arxiv-pdf/2001.07203v1",
        &article(
            "Active inference on discrete state-spaces (preprint)",
            410,
            &[],
            "",
        ),
    );
    // 1.2 MB of PDF, over max_pdf_mb = 1.
    let mut big = b"%PDF-1.4\n".to_vec();
    big.resize(1_200_000, b' ');
    host.page("/oa/big1.pdf", "application/pdf", big);
    host.page(
        "/private/r1.pdf",
        "application/pdf",
        paper_pdf("friston-2005.pdf"),
    );
    host.set(
        "/paywall/l1.pdf",
        Behavior::Status {
            status: 403,
            headers: vec![],
            body: b"Please log in".to_vec(),
        },
    );
    host.set(
        "/flaky/f1.html",
        Behavior::FailFirst {
            times: 2,
            status: 503,
            then: Box::new(Behavior::Page {
                content_type: "text/html; charset=utf-8".into(),
                body: article("Robust inference on unreliable servers", 450, &[], "").into_bytes(),
                last_modified: None,
            }),
        },
    );
    host.html(
        "/web/page1.html",
        &article("A field guide to free energy", 480, &[], ""),
    );
    host.html("/web/guide/", &article("The reading guide", 440, &[], ""));
    host.html(
        "/web/ncnd.html",
        &article(
            "A page under a no-derivatives license",
            440,
            &[],
            "<meta name=\"license\" content=\"CC BY-NC-ND 4.0\">",
        ),
    );
    host
}

/// The catalogue the fake services know.
fn catalogue(web: &ScholarlyWeb, host: &Site) {
    let h = |p: &str| host.url(p);
    let a = |doi: &str, title: &str, authors: &[(&str, &str)], year: i32| {
        Work::article(doi, title, authors, year)
    };
    web.add(
        a(
            "10.5555/oa.pdf1",
            "Message passing and free energy",
            &[("Ada", "Lovelace")],
            2019,
        )
        .open_at(Location::pdf(&h("/oa/a1.pdf"), "cc-by")),
    );
    web.add(
        a(
            "10.5555/oa.html1",
            "Message passing in cortical hierarchies",
            &[("Grace", "Hopper")],
            2020,
        )
        .open_at(Location::page(&h("/oa/h1.html"), "cc-by")),
    );
    web.add(
        a(
            "10.5555/abs1",
            "Only the abstract survives",
            &[("Alan", "Turing")],
            2018,
        )
        .open_at(Location::pdf(&h("/gone/abs1.pdf"), "cc-by"))
        .with_abstract(
            "We show that an abstract is better than nothing when the full text cannot be had.",
        ),
    );
    web.add(
        a(
            "10.5555/short1",
            "A short note on precision",
            &[("Emmy", "Noether")],
            2017,
        )
        .open_at(Location::page(&h("/oa/short1.html"), "cc-by")),
    );
    let mut s2 = a(
        "10.5555/s2pdf",
        "Cortical responses revisited",
        &[("Kurt", "Goedel")],
        2016,
    );
    s2.unpaywall = None;
    s2.s2_pdf = Some((h("/oa/s2.pdf"), "GOLD".into(), "CCBY".into()));
    web.add(s2);
    let mut cc = a(
        "10.5555/cc1",
        "A review of predictive coding",
        &[("Rosalind", "Franklin")],
        2021,
    );
    cc.unpaywall = None;
    cc.in_s2 = false;
    cc.crossref_open = Some((
        "http://creativecommons.org/licenses/by/4.0/".into(),
        "https://publisher.example.org/cc1".into(),
        Some(h("/oa/cc1.pdf")),
    ));
    web.add(cc);
    web.add(a(
        "10.5555/closed1",
        "A closed article",
        &[("John", "Nash")],
        2015,
    ));
    web.add(
        a(
            "10.5555/ncnd1",
            "A restrictively licensed article",
            &[("Marie", "Curie")],
            2016,
        )
        .open_at(Location::pdf(&h("/oa/a1.pdf"), "cc-by-nc-nd")),
    );
    web.add(
        a(
            "10.5555/login1",
            "An article behind a login",
            &[("Niels", "Bohr")],
            2014,
        )
        .open_at(Location::pdf(&h("/paywall/l1.pdf"), "cc-by")),
    );
    web.add(
        a(
            "10.5555/flaky1",
            "Robust inference on unreliable servers",
            &[("Claude", "Shannon")],
            2013,
        )
        .open_at(Location::page(&h("/flaky/f1.html"), "cc-by")),
    );
    web.add(
        a(
            "10.5555/gone1",
            "A removed article",
            &[("Paul", "Dirac")],
            2012,
        )
        .open_at(Location::pdf(&h("/gone/g1.pdf"), "cc-by")),
    );
    web.add(
        a(
            "10.5555/big1",
            "A very large article",
            &[("Enrico", "Fermi")],
            2011,
        )
        .open_at(Location::pdf(&h("/oa/big1.pdf"), "cc-by")),
    );
    web.add(
        a(
            "10.5555/robots1",
            "An article robots may not fetch",
            &[("Lise", "Meitner")],
            2010,
        )
        .open_at(Location::pdf(&h("/private/r1.pdf"), "cc-by")),
    );
    // Found by searching: a bibliography entry without a DOI, the same work cited by DOI.
    web.add(
        a(
            "10.1016/j.jmp.2020.102447",
            "Active inference on discrete state-spaces: A synthesis",
            &[
                ("Lancelot", "Da Costa"),
                ("Thomas", "Parr"),
                ("Noor", "Sajid"),
                ("Sebastijan", "Veselic"),
                ("Victorita", "Neacsu"),
                ("Karl", "Friston"),
            ],
            2020,
        )
        .open_at(Location::pdf(&h("/oa/dacosta.pdf"), "cc-by")),
    );
    // Friston 2010 is closed; a search for it also finds its 2009 neighbour.
    web.add(a(
        "10.1016/j.tics.2009.04.005",
        "The free-energy principle: a rough guide to the brain?",
        &[("Karl", "Friston")],
        2009,
    ));
    web.add(
        a(
            "10.1038/nrn2787",
            "The free-energy principle: a unified brain theory?",
            &[("Karl", "Friston")],
            2010,
        )
        .with_abstract("A free-energy principle has been proposed recently that accounts for action, perception and learning."),
    );
    // Only CrossRef's bibliographic search finds Parr & Friston.
    let mut parr = a(
        "10.1007/s00422-019-00805-w",
        "Generalised free energy and active inference",
        &[("Thomas", "Parr"), ("Karl J.", "Friston")],
        2019,
    )
    .open_at(Location::page(&h("/oa/parr2019.html"), "cc-by"));
    parr.in_s2 = false;
    web.add(parr);
    // An author-year callout without a bibliography entry.
    web.add(
        a(
            "10.1038/4580",
            "Predictive coding in the visual cortex",
            &[("Rajesh P. N.", "Rao"), ("Dana H.", "Ballard")],
            1999,
        )
        .open_at(Location::pdf(&h("/oa/rao1999.pdf"), "cc-by")),
    );
    // A search hit that is not the cited work.
    web.add(a(
        "10.5555/cats",
        "Cats and dogs in the city",
        &[("Jane", "Smith")],
        2015,
    ));
    // A book in the Internet Archive, public domain.
    web.add(Work {
        title: "Handbuch der physiologischen Optik".into(),
        authors: vec![("Hermann von".into(), "Helmholtz".into())],
        year: 1867,
        ia: Some(IaItem {
            identifier: "handbuchderphysi00helm".into(),
            not_in_copyright: true,
            files: vec![(
                "handbuchderphysi00helm_djvu.txt".into(),
                "DjVuTXT".into(),
                std::fs::read(
                    repo_root().join("examples/site/papers/handbuchderphysi00helm_djvu.txt"),
                )
                .unwrap(),
            )],
        }),
        ..Work::default()
    });
    // arXiv.
    for (id, title, pdf) in [
        (
            "2107.12979",
            "Predictive Coding: a Theoretical and Experimental Review",
            "/arxiv-pdf/2107.12979v1",
        ),
        (
            "2003.04035",
            "Two kinds of free energy",
            "/arxiv-pdf/2003.04035v1",
        ),
        (
            "2001.07203",
            "Active inference on discrete state-spaces (preprint)",
            "/arxiv-pdf/2001.07203v1",
        ),
    ] {
        web.add(Work {
            arxiv: Some(id.into()),
            title: title.into(),
            authors: vec![("Beren".into(), "Millidge".into())],
            year: 2021,
            abstract_text: Some("A preprint.".into()),
            arxiv_pdf: Some(h(pdf)),
            ..Work::default()
        });
    }
    // Depth 2.
    web.add(
        a(
            "10.5555/deep.1",
            "Deep message passing in cortical hierarchies",
            &[("Jane", "Roe"), ("John", "Doe")],
            2018,
        )
        .open_at(Location::page(&h("/oa/deep1.html"), "cc-by")),
    );
    web.add(a(
        "10.5555/deep.2",
        "Closed doors",
        &[("Edgar", "Poe")],
        2016,
    ));
    web.add(
        a(
            "10.5555/deeper.1",
            "Beyond the horizon",
            &[("Ann", "Zed")],
            2014,
        )
        .open_at(Location::page(&h("/oa/deep1.html"), "cc-by")),
    );
    // The second seed's own.
    web.add(
        a(
            "10.5555/seed2.a",
            "Notes on generative models",
            &[("Ada", "Lovelace")],
            2022,
        )
        .open_at(Location::pdf(&h("/oa/seed2a.pdf"), "cc-by")),
    );
    web.concept(
        "predictive coding",
        json!([{"url": h("/oa/pc.html"), "title": "Predictive coding", "snippet": "A theory of cortical function.", "license": "CC BY-SA 4.0"}]),
    );
}

fn seed_one(host: &Site) -> String {
    let h = |p: &str| host.url(p);
    format!(
        r#"# Foundations of active inference: a review

## Introduction

Active inference starts from the free-energy principle (Friston, 2010). A synthesis for discrete state-spaces is doi:10.1016/j.jmp.2020.102447, and the classic account of predictive coding is due to Rao and Ballard (1999). Machines that think were discussed much earlier (Turing, 1950).

## Open articles

The message-passing account is doi:10.5555/oa.pdf1 and its companion is doi:10.5555/oa.html1.

Only an abstract: doi:10.5555/abs1. A short note: doi:10.5555/short1. A copy Semantic Scholar knows: doi:10.5555/s2pdf. A copy CrossRef licenses: doi:10.5555/cc1.

## Hard cases

A closed article: doi:10.5555/closed1. A restrictive license: doi:10.5555/ncnd1. A login wall: doi:10.5555/login1.

A flaky server: doi:10.5555/flaky1. A removed copy: doi:10.5555/gone1. An unknown DOI: doi:10.5555/nowhere.

Too large: doi:10.5555/big1. Behind robots.txt: doi:10.5555/robots1.

## Preprints

See arXiv:2107.12979 and https://arxiv.org/abs/2003.04035 for reviews; arXiv:2401.99999 does not exist.

## On the web

- {page1}
- The guide at {guide_slash} is worth reading.
- Its introduction, {guide_frag} again.
- A page that is gone: {missing}
- A page with a no-derivatives license: {ncnd}

## Concepts

The "predictive coding" view of the cortex.

Behaviour was once described as a TOTE (Test, Operate, Test, Exit) unit.

## References

- Da Costa, L., Parr, T., Sajid, N., Veselic, S., Neacsu, V., & Friston, K. (2020). Active inference on discrete state-spaces: A synthesis. Journal of Mathematical Psychology, 99, 102447.
- Friston, K. (2010). The free-energy principle: a unified brain theory? Nature Reviews Neuroscience, 11(2), 127–138.
- Parr, T., & Friston, K. J. (2019). Generalised free energy and active inference. Biological Cybernetics, 113(5), 495–513.
- Helmholtz, H. (1867). Handbuch der physiologischen Optik. Leipzig: Voss.
- Hohwy, J. (2013). The Predictive Mind. Oxford: Oxford University Press.
- Smith, J. (2015). Grooming habits of domestic cats. Journal of Feline Studies, 3, 1–10.
"#,
        page1 = h("/web/page1.html"),
        guide_slash = h("/web/guide/"),
        guide_frag = h("/web/guide#intro"),
        missing = h("/web/missing.html"),
        ncnd = h("/web/ncnd.html"),
    )
}

const SEED_TWO: &str = r#"# Notes on message passing

The companion paper doi:10.5555/oa.html1 is worth reading again. New here: doi:10.5555/seed2.a and the preprint arXiv:2001.07203.

Read doi:10.5555/seed2.a first.

## References

- Da Costa, L., Parr, T., Sajid, N., Veselic, S., Neacsu, V. and Friston, K. (2020) 'Active inference on discrete state spaces: a synthesis', J. Math. Psych., 99.
"#;

fn one<T: for<'a> postgres::types::FromSql<'a>>(
    db: &TestDb,
    sql: &str,
    params: &[&(dyn postgres::types::ToSql + Sync)],
) -> T {
    db.client()
        .query_one(sql, params)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .get(0)
}

/// status and last_error of the reference whose text contains `needle`.
fn reference(db: &TestDb, needle: &str) -> (String, Option<String>, i32) {
    let row = db
        .client()
        .query_one(
            "SELECT status, last_error, retries FROM kerai.references WHERE content LIKE '%' || $1 || '%'",
            &[&needle],
        )
        .unwrap_or_else(|e| panic!("one reference containing {needle:?}: {e}"));
    (row.get(0), row.get(1), row.get(2))
}

fn status_of(db: &TestDb, needle: &str) -> String {
    reference(db, needle).0
}

#[test]
fn the_loop_grows_a_corpus_from_two_seeds() {
    let started = Instant::now();
    let host = hosts();
    let web = ScholarlyWeb::start();
    catalogue(&web, &host);
    let db = TestDb::new("citation_loop");
    let mut cfg = web.agent_config(CONTACT);
    for (k, v) in [
        ("rate_limit_seconds", json!(0)),
        ("claims_per_cycle", json!(8)),
        ("min_score", json!(0)),
        ("retry_base_seconds", json!(1)),
        ("max_retries", json!(5)),
        ("max_pdf_mb", json!(1)),
        (
            "ref_types",
            json!([
                "doi",
                "arxiv",
                "url",
                "author_year",
                "bibliography",
                "concept"
            ]),
        ),
    ] {
        cfg[k] = v;
    }
    db.client()
        .execute(
            "SELECT kerai.register_agent('kerai_crawl', 'tool', NULL, $1)",
            &[&cfg],
        )
        .unwrap();
    allow_private(&mut db.client(), &[&web.base, &host.url("")]);
    let seed1: uuid::Uuid = one(
        &db,
        "SELECT kerai.parse_markdown($1, '{\"source_url\": \"https://seed.example/review\"}')",
        &[&seed_one(&host)],
    );
    let seed2: uuid::Uuid = one(
        &db,
        "SELECT kerai.parse_markdown($1, '{\"source_url\": \"https://seed.example/notes\"}')",
        &[&SEED_TWO],
    );

    // The daemon, until nothing is left to do.
    let child = spawn(
        &db.url,
        &["crawl", "--rate", "0.2", "--max-depth", "2", "--until-idle"],
        &[],
    );
    let out = wait(child);
    assert_eq!(out.code, 0, "kerai crawl:\n{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("crawler stopped after"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("error:"),
        "the daemon reported errors:\n{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("warning:"),
        "the daemon reported warnings:\n{}",
        out.stderr
    );
    let max_depth: String = one(
        &db,
        "SELECT config->>'max_chain_depth' FROM kerai.agents WHERE name = 'kerai_crawl'",
        &[],
    );
    assert_eq!(
        max_depth, "2",
        "--max-depth is stored in the agent's config"
    );

    // 30+ references of every kind were found in the seeds.
    let seed_refs: i64 = one(
        &db,
        "SELECT count(DISTINCT e.target_id) FROM kerai.edges e JOIN kerai.nodes n ON n.id = e.source_id
          WHERE e.relation = 'cites' AND n.document_id = ANY ($1)",
        &[&vec![seed1, seed2]],
    );
    assert!(seed_refs >= 30, "{seed_refs} references in the seeds");
    let kinds: String = one(
        &db,
        "SELECT string_agg(DISTINCT ref_type, ',' ORDER BY ref_type) FROM kerai.references WHERE chain_depth = 0",
        &[],
    );
    assert_eq!(kinds, "arxiv,author_year,bibliography,concept,doi,url");

    // The documents the loop ingested, by chain depth and title.
    let rows = db
        .client()
        .query(
            "SELECT (metadata->>'chain_depth')::int, content FROM kerai.nodes
              WHERE kind = 'document' AND metadata ? 'resolved_from' ORDER BY 1, 2",
            &[],
        )
        .unwrap();
    let mut by_depth: BTreeMap<i32, Vec<String>> = BTreeMap::new();
    for r in rows {
        by_depth.entry(r.get(0)).or_default().push(r.get(1));
    }
    let expected_depth1 = [
        "A field guide to free energy",
        "A review of predictive coding",
        "A short note on precision",
        "Active inference on discrete state-spaces (preprint)",
        "Active inference on discrete state-spaces: A synthesis",
        "Cortical responses revisited",
        "Generalised free energy and active inference",
        "Handbuch der physiologischen Optik",
        "Message passing and free energy",
        "Message passing in cortical hierarchies",
        "Notes on generative models",
        "Only the abstract survives",
        "Predictive Coding: a Theoretical and Experimental Review",
        "Predictive coding",
        "Predictive coding in the visual cortex",
        "Robust inference on unreliable servers",
        "The reading guide",
        "Two kinds of free energy",
    ];
    assert_eq!(
        by_depth.get(&1).cloned().unwrap_or_default(),
        expected_depth1.map(String::from).to_vec(),
        "depth-1 documents\n{}",
        out.stderr
    );
    assert_eq!(
        by_depth.get(&2).cloned().unwrap_or_default(),
        vec!["Deep message passing in cortical hierarchies".to_string()],
        "depth-2 documents (references of resolved documents)"
    );
    assert_eq!(by_depth.keys().copied().collect::<Vec<_>>(), vec![1, 2]);
    let dash: Vec<(i32, i64)> = db
        .client()
        .query(
            "SELECT chain_depth, documents FROM kerai.documents_by_depth ORDER BY 1",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        dash,
        vec![(0, 2), (1, 18), (2, 1)],
        "kerai.documents_by_depth"
    );

    // Provenance on every ingested document; a resolves_to edge, a reward and a perspective each.
    let incomplete: i64 = one(
        &db,
        "SELECT count(*) FROM kerai.nodes d WHERE d.kind = 'document' AND d.metadata ? 'resolved_from'
            AND NOT (d.metadata ?& ARRAY['source_url', 'source_type', 'fetched_at', 'license', 'chain_depth',
                                         'chain_root', 'resolved_from', 'crawler_agent', 'content_type'])",
        &[],
    );
    assert_eq!(incomplete, 0, "documents without full provenance");
    let unlinked: i64 = one(
        &db,
        "SELECT count(*) FROM kerai.nodes d WHERE d.kind = 'document' AND d.metadata ? 'resolved_from'
            AND NOT EXISTS (SELECT 1 FROM kerai.edges e WHERE e.target_id = d.id AND e.relation = 'resolves_to'
                                AND e.source_id = (d.metadata->>'resolved_from')::uuid)",
        &[],
    );
    assert_eq!(unlinked, 0);
    let (rewards, perspectives): (i64, i64) = {
        let r = db
            .client()
            .query_one(
                "SELECT (SELECT rewards FROM kerai.agent_balances WHERE name = 'kerai_crawl'),
                        (SELECT count(*) FROM kerai.perspectives)",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!(
        (rewards, perspectives),
        (19, 19),
        "one reward and one perspective per ingested document"
    );
    let licenses: String = one(
        &db,
        "SELECT string_agg(DISTINCT metadata->>'license', ',' ORDER BY metadata->>'license') FROM kerai.nodes
          WHERE kind = 'document' AND metadata ? 'resolved_from'",
        &[],
    );
    assert_eq!(licenses, "cc-by,cc-by-sa,oa,public-domain");

    // Both seeds are chain roots; the companion paper both cite keeps the first seed's root.
    let roots: Vec<(uuid::Uuid, i64)> = db
        .client()
        .query(
            "SELECT (metadata->>'chain_root')::uuid, count(*) FROM kerai.nodes
              WHERE kind = 'document' AND metadata ? 'resolved_from' GROUP BY 1 ORDER BY 2 DESC",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(roots, vec![(seed1, 17), (seed2, 2)]);

    // Statuses, with the reason recorded on the reference.
    for (needle, status, reason) in [
        ("10.5555/closed1", "skipped", "paywalled: "),
        ("The free-energy principle: a unified brain theory?", "skipped", "paywalled: "),
        ("10.5555/ncnd1", "skipped", "license not allowed: "),
        ("/web/ncnd.html", "skipped", "is under CC BY-NC-ND 4.0 (cc-by-nc-nd); allowed_licenses is [cc-by, cc-by-sa, cc-by-nc, public-domain, oa]"),
        ("10.5555/login1", "skipped", "paywalled or login required: access restricted"),
        ("10.5555/big1", "skipped", "too large: "),
        ("10.5555/robots1", "skipped", "disallowed by robots.txt: "),
        ("10.5555/deep.2", "skipped", "paywalled: "),
        ("10.5555/deeper.1", "skipped", "chain depth 3 reaches max_chain_depth 2"),
        ("10.5555/gone1", "not_found", "HTTP 404"),
        ("10.5555/nowhere", "not_found", "DOI 10.5555/nowhere is unknown to CrossRef, Unpaywall and Semantic Scholar"),
        ("arXiv:2401.99999", "not_found", "arXiv has no paper 2401.99999"),
        ("/web/missing.html", "not_found", "HTTP 404"),
        ("The Predictive Mind", "not_found", "no match accepted for \"The Predictive Mind\""),
        ("Grooming habits", "not_found", "scored"),
        ("Turing 1950", "not_found", "no match accepted for \"Turing 1950\""),
        ("TOTE", "not_found", "the concept search found nothing"),
    ] {
        let (s, r, _) = reference(&db, needle);
        assert_eq!(s, status, "{needle}: {r:?}");
        assert!(
            r.as_deref().unwrap_or("").contains(reason),
            "{needle}: reason {r:?} should contain {reason:?}"
        );
    }
    for needle in [
        "10.5555/oa.pdf1",
        "10.5555/oa.html1",
        "10.5555/abs1",
        "10.5555/short1",
        "10.5555/s2pdf",
        "10.5555/cc1",
        "10.5555/flaky1",
        "arXiv:2107.12979",
        "https://arxiv.org/abs/2003.04035",
        "Ballard",
        "Handbuch der physiologischen Optik",
        "Generalised free energy and active inference. Biological",
        "/web/page1.html",
        "\"predictive coding\"",
    ] {
        assert_eq!(status_of(&db, needle), "resolved", "{needle}");
    }
    // The search match is recorded with its scores.
    let m: Value = one(
        &db,
        "SELECT t.info->'match' FROM kerai.reference_transitions t JOIN kerai.references r ON r.id = t.node_id
          WHERE r.content LIKE 'Friston, K. (2010)%' AND t.to_state = 'found'",
        &[],
    );
    assert_eq!(m["source"], "semantic_scholar", "{m}");
    assert_eq!(m["rank"], 1, "{m}");
    assert!(
        m["total"].as_f64().unwrap() >= 0.75 && m["title"].as_f64().unwrap() == 1.0,
        "{m}"
    );
    let m: Value = one(
        &db,
        "SELECT t.info->'match' FROM kerai.reference_transitions t JOIN kerai.references r ON r.id = t.node_id
          WHERE r.content LIKE 'Parr, T., & Friston, K. J. (2019)%' AND t.to_state = 'found'",
        &[],
    );
    assert_eq!(m["source"], "crossref", "{m}");

    // The flaky host failed twice, backed off, and the retry resolved it.
    let (s, _, retries) = reference(&db, "10.5555/flaky1");
    assert_eq!((s.as_str(), retries), ("resolved", 2));
    let moves: Vec<String> = db
        .client()
        .query(
            "SELECT t.to_state FROM kerai.reference_transitions t JOIN kerai.references r ON r.id = t.node_id
              WHERE r.content = '10.5555/flaky1' ORDER BY t.id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        moves.iter().filter(|m| *m == "failed").count(),
        2,
        "{moves:?}"
    );
    assert_eq!(moves.last().map(String::as_str), Some("resolved"));
    assert_eq!(host.hit_count("/flaky/f1.html"), 3);
    let backoff: bool = one(
        &db,
        "SELECT bool_and(b.at - a.at >= interval '0.9 seconds') FROM kerai.reference_transitions a
           JOIN kerai.reference_transitions b ON b.node_id = a.node_id AND b.id > a.id AND b.to_state = 'searching'
           JOIN kerai.references r ON r.id = a.node_id
          WHERE r.content = '10.5555/flaky1' AND a.to_state = 'failed'
            AND b.id = (SELECT min(c.id) FROM kerai.reference_transitions c WHERE c.node_id = a.node_id AND c.id > a.id AND c.to_state = 'searching')",
        &[],
    );
    assert!(backoff, "a retry waits retry_base_seconds x 2^(n-1)");

    // Abstract-only: a thin document from the services' abstract, and a short full text.
    let (ctype, stype, text): (String, String, String) = {
        let r = db
            .client()
            .query_one(
                "SELECT d.metadata->>'content_type', d.metadata->>'source_type',
                        (SELECT string_agg(content, ' ') FROM kerai.nodes n WHERE n.document_id = d.id)
                   FROM kerai.nodes d WHERE d.kind = 'document' AND d.content = 'Only the abstract survives'",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1), r.get(2))
    };
    assert_eq!((ctype.as_str(), stype.as_str()), ("abstract", "abstract"));
    assert!(
        text.contains("an abstract is better than nothing"),
        "{text}"
    );
    let short: String = one(
        &db,
        "SELECT metadata->>'content_type' FROM kerai.nodes WHERE kind = 'document' AND content = 'A short note on precision'",
        &[],
    );
    assert_eq!(short, "abstract");
    let full: i64 = one(
        &db,
        "SELECT count(*) FROM kerai.nodes WHERE kind = 'document' AND metadata->>'content_type' = 'full'",
        &[],
    );
    assert_eq!(full, 17);

    // One work cited two ways (a DOI in the text, a bibliography entry without one) is fetched
    // once, and both references resolve to the one document.
    assert_eq!(host.hit_count("/oa/dacosta.pdf"), 1, "fetched once");
    let same: (i64, i64) = {
        let r = db
            .client()
            .query_one(
                "SELECT count(*), count(DISTINCT resolved_doc) FROM kerai.references
                  WHERE status = 'resolved' AND (content = '10.1016/j.jmp.2020.102447'
                                                 OR content LIKE 'Da Costa, L., Parr, T.%(2020). Active%')",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!(same, (2, 1), "two references, one document");
    // The second seed cites the same bibliography entry in another form (title + year) and
    // the companion paper by the same DOI: one reference each.
    let shared: i64 = one(
        &db,
        "SELECT count(*) FROM kerai.references r
          WHERE EXISTS (SELECT 1 FROM kerai.edges e JOIN kerai.nodes n ON n.id = e.source_id
                         WHERE e.target_id = r.id AND e.relation = 'cites' AND n.document_id = $1)
            AND EXISTS (SELECT 1 FROM kerai.edges e JOIN kerai.nodes n ON n.id = e.source_id
                         WHERE e.target_id = r.id AND e.relation = 'cites' AND n.document_id = $2)",
        &[&seed1, &seed2],
    );
    assert_eq!(
        shared, 2,
        "Da Costa (title + year) and doi:10.5555/oa.html1 (DOI) are shared"
    );
    // The guide cited with and without a trailing slash and fragment is one reference.
    let guides: i64 = one(
        &db,
        "SELECT count(*) FROM kerai.references WHERE url LIKE '%/web/guide%'",
        &[],
    );
    assert_eq!(guides, 1);
    assert_eq!(host.hit_count("/web/guide/"), 1);
    // Friston 2010 is cited by the seed and by the companion paper: one reference.
    let cites: i32 = one(
        &db,
        "SELECT cite_count FROM kerai.references WHERE content LIKE 'Friston, K. (2010)%'",
        &[],
    );
    assert!(
        cites >= 3,
        "callout, entry and the companion's entry: {cites}"
    );

    // The new documents' references joined the frontier, one level deeper.
    let deeper: i64 = one(
        &db,
        "SELECT count(*) FROM kerai.references r JOIN kerai.nodes d ON d.id = (r.metadata->>'first_seen_in')::uuid
          WHERE d.content = 'Message passing in cortical hierarchies' AND r.chain_depth = 1",
        &[],
    );
    assert_eq!(
        deeper, 2,
        "deep.1 and deep.2 (Friston 2010 was already known)"
    );

    // kerai.citation_chain: the tree from the first seed.
    let chain: Vec<(String, i32, Option<String>)> = db
        .client()
        .query(
            "SELECT c.title, c.depth, p.content FROM kerai.citation_chain($1, 5) c
               LEFT JOIN kerai.nodes p ON p.id = c.parent_document ORDER BY c.depth, c.title",
            &[&seed1],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let review = "Foundations of active inference: a review".to_string();
    assert_eq!(chain[0], (review.clone(), 0, None));
    let depth1: Vec<&str> = chain
        .iter()
        .filter(|c| c.1 == 1)
        .map(|c| c.0.as_str())
        .collect();
    assert_eq!(depth1.len(), 16, "{depth1:?}");
    assert!(chain
        .iter()
        .filter(|c| c.1 == 1)
        .all(|c| c.2.as_deref() == Some(review.as_str())));
    let d2: Vec<_> = chain.iter().filter(|c| c.1 == 2).collect();
    assert_eq!(
        d2,
        vec![&(
            "Deep message passing in cortical hierarchies".to_string(),
            2,
            Some("Message passing in cortical hierarchies".to_string())
        )]
    );

    // Multiple seeds, one frontier: claims are taken best score first in every cycle.
    let batches: Vec<(i64, Vec<f64>)> = {
        let mut m: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
        for r in db
            .client()
            .query(
                "SELECT extract(epoch FROM created_at)::float8 * 1000000, (request->>'score')::float8
                   FROM kerai.crawl_queue ORDER BY id",
                &[],
            )
            .unwrap()
        {
            let at: f64 = r.get(0);
            m.entry(at as i64).or_default().push(r.get(1));
        }
        m.into_iter().collect()
    };
    for (_, scores) in &batches {
        assert!(
            scores.windows(2).all(|w| w[0] >= w[1]),
            "claimed best first: {scores:?}"
        );
    }
    let mixed: bool = one(
        &db,
        "SELECT count(DISTINCT r.chain_root) = 2 FROM kerai.crawl_queue q JOIN kerai.references r ON r.id = q.node_id
          WHERE q.created_at = (SELECT min(created_at) FROM kerai.crawl_queue)",
        &[],
    );
    assert!(
        mixed,
        "the first claims already interleave both seeds' references"
    );

    // The services were asked politely: contact e-mail in the User-Agent, mailto/email.
    let seen = web.seen();
    assert!(
        seen.iter()
            .all(|s| s.user_agent.contains(&format!("mailto:{CONTACT}"))),
        "user agents"
    );
    assert!(seen.iter().filter(|s| s.service == "unpaywall").all(|s| s
        .query
        .get("email")
        .map(String::as_str)
        == Some(CONTACT)));
    assert!(seen.iter().filter(|s| s.service == "crossref").all(|s| s
        .query
        .get("mailto")
        .map(String::as_str)
        == Some(CONTACT)));
    for service in [
        "crossref",
        "unpaywall",
        "semantic_scholar",
        "arxiv",
        "internet_archive",
        "concept",
    ] {
        assert!(
            seen.iter().any(|s| s.service == service),
            "{service} was never asked"
        );
    }
    // Nothing left in the queue.
    let open: i64 = one(
        &db,
        "SELECT count(*) FROM kerai.crawl_queue WHERE status IN ('pending', 'leased', 'deposited')",
        &[],
    );
    assert_eq!(open, 0);
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "took {:?}",
        started.elapsed()
    );
}

/// A bad flag names the flag and what to do.
#[test]
fn bad_crawl_flags_are_refused() {
    let db = TestDb::new("crawl_flags");
    let out = kerai(&db.url, &["crawl", "--rate=-1", "--cycles", "1"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--rate -1"), "{}", out.stderr);
    let out = kerai(&db.url, &["crawl", "--agent", "nobody", "--cycles", "1"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("agent \"nobody\" is not registered") && out.stderr.contains("hint:"),
        "{}",
        out.stderr
    );
    let out = kerai(&db.url, &["crawl", "--max-depth", "0", "--cycles", "1"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--max-depth 0"), "{}", out.stderr);
}

/// A small world for the driver tests: three open articles on one host.
fn small_world() -> (Site, ScholarlyWeb) {
    let host = Site::start();
    host.page("/robots.txt", "text/plain", "User-agent: *\nAllow: /\n");
    let web = ScholarlyWeb::start();
    for (i, title) in [
        "First open article",
        "Second open article",
        "Third open article",
    ]
    .iter()
    .enumerate()
    {
        let path = format!("/oa/{i}.html");
        host.html(&path, &article(title, 420, &[], ""));
        web.add(
            Work::article(
                &format!("10.7777/open.{i}"),
                title,
                &[("Ada", "Lovelace")],
                2020,
            )
            .open_at(Location::page(&host.url(&path), "cc-by")),
        );
    }
    (host, web)
}

fn configure_agent(client: &mut postgres::Client, web: &ScholarlyWeb, host: &Site) {
    allow_private(client, &[&web.base, &host.url("")]);
    let mut cfg = web.agent_config(CONTACT);
    cfg["rate_limit_seconds"] = json!(0);
    cfg["claims_per_cycle"] = json!(1);
    cfg["min_score"] = json!(0);
    client
        .execute(
            "SELECT kerai.register_agent('kerai_crawl', 'tool', NULL, $1)",
            &[&cfg],
        )
        .unwrap();
}

/// Poll `sql` (a boolean) on `client` until it is true, running `each` between polls.
fn until(
    client: &mut postgres::Client,
    sql: &str,
    within: Duration,
    mut each: impl FnMut(&mut postgres::Client),
) -> bool {
    let t = Instant::now();
    while t.elapsed() < within {
        each(client);
        if client
            .query_one(sql, &[])
            .map(|r| r.get::<_, bool>(0))
            .unwrap_or(false)
        {
            return true;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    false
}

/// `SELECT kerai.crawl_cycle()` run from a client (as psql or pg_cron would) drives a running
/// `kerai crawl --resolve-only`, woken by `kerai_crawl` notifications (it polls only every
/// 60 s here); progress goes out on `kerai_progress`. The fetcher survives its connections
/// being killed while the database refuses connections (a restart, as a client sees it), and
/// stops cleanly on SIGTERM.
#[test]
fn sql_cycles_drive_a_listening_fetcher_that_survives_a_restart() {
    let (host, web) = small_world();
    let db = TestDb::new("loop_drivers");
    let mut client = db.client();
    configure_agent(&mut client, &web, &host);
    let mut listener = db.client();
    listener.batch_execute("LISTEN kerai_progress").unwrap();
    let own: Vec<i32> = [&mut client, &mut listener]
        .into_iter()
        .map(|c| c.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0))
        .collect();

    let child = spawn(
        &db.url,
        &["crawl", "--resolve-only", "--rate", "60"],
        &[("KERAI_LEASE_SECONDS", "5")],
    );
    let pid = child.id();
    let listening = "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN kerai_crawl')";
    assert!(
        until(&mut client, listening, Duration::from_secs(20), |_| {}),
        "the fetcher listens"
    );

    client
        .execute(
            "SELECT kerai.parse_markdown($1, '{\"source_url\": \"https://seed.example/a\"}')",
            &[&"# Seed A\n\nRead doi:10.7777/open.0 and doi:10.7777/open.1 first.\n"],
        )
        .unwrap();
    let started = Instant::now();
    let both = "SELECT count(*) = 2 FROM kerai.references WHERE status = 'resolved'";
    assert!(
        until(&mut client, both, Duration::from_secs(20), |c| {
            c.query_one("SELECT kerai.crawl_cycle()", &[]).unwrap();
        }),
        "two references resolved by cycles run from SQL"
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "woken by notifications, not by its 60 s poll"
    );
    let mut events: Vec<Value> = Vec::new();
    {
        use postgres::fallible_iterator::FallibleIterator;
        let mut notes = listener.notifications();
        let mut it = notes.timeout_iter(Duration::from_millis(500));
        while let Ok(Some(n)) = it.next() {
            events.push(serde_json::from_str(n.payload()).unwrap());
        }
    }
    let kinds: std::collections::BTreeSet<String> = events
        .iter()
        .filter_map(|e| e["event"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        vec!["cycle", "deposited", "ingested", "reference"],
        "progress events: {events:?}"
    );
    assert!(events
        .iter()
        .any(|e| e["event"] == "reference" && e["to"] == "resolved"));

    // The database goes away: new connections are refused and the fetcher's are killed.
    let killed = db.outage(&own, Duration::from_secs(2));
    assert!(killed >= 2, "the fetcher's two connections: {killed}");
    assert!(
        until(&mut client, listening, Duration::from_secs(30), |_| {}),
        "the fetcher reconnects"
    );
    client
        .execute(
            "SELECT kerai.parse_markdown($1, '{\"source_url\": \"https://seed.example/b\"}')",
            &[&"# Seed B\n\nThen doi:10.7777/open.2.\n"],
        )
        .unwrap();
    let third = "SELECT status = 'resolved' FROM kerai.references WHERE content = '10.7777/open.2'";
    assert!(
        until(&mut client, third, Duration::from_secs(20), |c| {
            c.query_one("SELECT kerai.crawl_cycle()", &[]).unwrap();
        }),
        "resolved after the restart"
    );

    // SIGTERM: a clean stop.
    let term = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let out = wait(child);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("reconnecting"), "{}", out.stderr);
    assert!(out.stderr.contains("crawler stopped"), "{}", out.stderr);
    let never_cycled: i64 = client
        .query_one("SELECT count(*) FROM kerai.crawl_queue", &[])
        .unwrap()
        .get(0);
    assert_eq!(
        never_cycled, 3,
        "one claim per reference, all from the SQL cycles"
    );
    assert!(host.hit_count("/oa/2.html") == 1);
}

/// pg_cron runs `kerai.crawl_cycle()` on its schedule; a running fetcher resolves what it
/// claims.
#[test]
fn pg_cron_schedules_the_cycle_for_a_running_fetcher() {
    let (host, web) = small_world();
    // pg_cron works in the one database cron.database_name names (kerai_cron in the test cluster).
    let db = TestDb::existing("kerai_cron");
    let mut client = db.client();
    client
        .batch_execute(
            "CREATE EXTENSION IF NOT EXISTS pg_cron; CREATE EXTENSION IF NOT EXISTS kerai CASCADE;
             SELECT kerai.unschedule_crawl();
             DELETE FROM kerai.crawl_queue; DELETE FROM kerai.documents;",
        )
        .unwrap();
    // The fetcher logs in as the CLI's role, which no other test may have made yet (a fresh
    // cluster, this test first).
    kerai_e2e::db::cli_role(&mut client);
    configure_agent(&mut client, &web, &host);
    client
        .execute(
            "SELECT kerai.parse_markdown($1, '{\"source_url\": \"https://seed.example/cron\"}')",
            &[&"# Seed C\n\nRead doi:10.7777/open.0.\n"],
        )
        .unwrap();
    let child = spawn(&db.url, &["crawl", "--resolve-only", "--rate", "120"], &[]);
    let pid = child.id();
    let job: i64 = client
        .query_one("SELECT kerai.schedule_crawl('1 minute')", &[])
        .unwrap()
        .get(0);
    assert!(job > 0);
    // Another test creating its database at this moment can make pg_cron miss the new job.
    kerai_e2e::db::pg_cron_reread_jobs(&mut client);
    // The first run claims the reference; the fetcher deposits its copy at once. pg_cron runs
    // on minute boundaries and a loaded machine can start a run late: allow two of them.
    let deposited = "SELECT EXISTS (SELECT 1 FROM kerai.crawl_queue WHERE status = 'deposited')";
    let ok = until(&mut client, deposited, Duration::from_secs(140), |_| {});
    let runs: Vec<String> = client
        .query(
            "SELECT format('%s %s %s', start_time, status, return_message)
               FROM cron.job_run_details WHERE jobid = $1 ORDER BY runid",
            &[&job],
        )
        .map(|rows| rows.iter().map(|r| r.get(0)).collect())
        .unwrap_or_default();
    let _ = client.query_one("SELECT kerai.unschedule_crawl()", &[]);
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let out = wait(child);
    assert!(
        ok,
        "pg_cron claimed and the fetcher deposited:\n{}\npg_cron runs: {runs:?}",
        out.stderr
    );
    let ran: i64 = client
        .query_one(
            "SELECT count(*) FROM cron.job_run_details WHERE jobid = $1 AND status = 'succeeded'",
            &[&job],
        )
        .unwrap()
        .get(0);
    assert!(ran >= 1, "pg_cron ran the cycle");
    let state: String = client
        .query_one(
            "SELECT status FROM kerai.references WHERE content = '10.7777/open.0'",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(
        matches!(state.as_str(), "ingesting" | "resolved"),
        "{state}"
    );
    assert_eq!(host.hit_count("/oa/0.html"), 1);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

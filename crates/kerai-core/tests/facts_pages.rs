//! Entities and claims on the example site's pages, against what a person reading the pages
//! lists. The page text is the <main> element with a crude tag strip (blocks become
//! paragraphs, list items lines), as the converter's markdown would give it.

use kerai_core::facts::{
    claims_from_json_ld, claims_from_text, entities, Claim, ClaimSource, EntityKind,
};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn page(rel: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/site")
        .join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The text of <main>: block elements become paragraphs, list items "- " lines.
fn main_text(html: &str) -> String {
    let start = html.find("<main").expect("<main>");
    let end = html.find("</main>").expect("</main>");
    let mut out = String::new();
    let mut rest = &html[start..end];
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let j = rest[i..].find('>').expect("tag end");
        let tag = &rest[i + 1..i + j];
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        match name.as_str() {
            "li" if !tag.starts_with('/') => out.push_str("\n- "),
            "p" | "h1" | "h2" | "h3" | "ul" | "ol" | "table" | "tr" | "article" | "div" => {
                out.push_str("\n\n")
            }
            "td" | "th" => out.push_str(" | "),
            _ => {}
        }
        rest = &rest[i + j + 1..];
    }
    let text = out.replace("&amp;", "&").replace("&quot;", "\"");
    let paragraphs: Vec<String> = text
        .split("\n\n")
        .map(|p| {
            p.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|p| !p.is_empty())
        .collect();
    paragraphs.join("\n\n")
}

fn json_ld(html: &str) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("application/ld+json") {
        let after = &rest[i..];
        let open = after.find('>').unwrap();
        let close = after.find("</script>").unwrap();
        out.push(serde_json::from_str(&after[open + 1..close]).expect("JSON-LD parses"));
        rest = &after[close..];
    }
    out
}

fn entity_set(text: &str) -> BTreeSet<(EntityKind, String)> {
    entities(text)
        .into_iter()
        .map(|e| (e.kind, e.text))
        .collect()
}

fn expected_entities(list: &[(EntityKind, &str)]) -> BTreeSet<(EntityKind, String)> {
    list.iter().map(|(k, t)| (*k, t.to_string())).collect()
}

#[test]
fn entities_on_the_about_people_and_news_pages() {
    use EntityKind::*;
    let cases: Vec<(&str, Vec<(EntityKind, &str)>)> = vec![
        (
            "about.html",
            vec![
                (Organization, "Northwind Institute for Cognitive Science"),
                (Date, "1998"),
                (Person, "Margaret Lindqvist"),
                (Location, "Aberdeen"),
                (Location, "Scotland"),
                (Number, "142 people"),
                (Number, "nine trustees"),
                (Person, "Dr. Amara Okafor"),
                (Date, "2019"),
                (Date, "2026"),
                (Money, "£18.5 million"),
                (Number, "61%"),
            ],
        ),
        (
            "people.html",
            vec![
                (Person, "Dr. Amara Okafor"),
                (Person, "Prof. Jonas Reed"),
                (Person, "Dr. Li Wei"),
                (Person, "Dr. Sofia Marquez"),
                (Person, "Dr. Henrik Aalto"),
                (Person, "Maya Patel"),
                (Email, "people@northwind.example"),
            ],
        ),
        (
            "news/2026-03-new-lab.html",
            vec![
                (Organization, "Lindqvist Imaging Lab"),
                (Date, "12 March 2026"),
                (Organization, "Northwind Institute"),
                (Number, "7 tesla"),
                (Money, "£6.8 million"),
                (Person, "Margaret Lindqvist"),
                (Date, "1998"),
                (Person, "Dr. Henrik Aalto"),
            ],
        ),
        (
            "news/2026-05-grant.html",
            vec![
                (Money, "£4.2 million"),
                (Date, "4 May 2026"),
                (Organization, "Research Council"),
                (Organization, "Northwind Institute"),
                (Person, "Dr. Li Wei"),
                (Number, "twelve new positions"),
                (Number, "400 participants"),
                (Number, "three hospitals"),
                (Location, "Scotland"),
            ],
        ),
    ];
    for (rel, expected) in cases {
        let text = main_text(&page(rel));
        let got = entity_set(&text);
        let want = expected_entities(&expected);
        assert_eq!(got, want, "{rel}:\n{text}");
    }
}

#[test]
fn entities_in_a_research_article() {
    use EntityKind::*;
    let text = main_text(&page("research/active-inference.html"));
    let got = entity_set(&text);
    // What a reader lists from the guide and its references (not exhaustive: the test
    // measures recall and precision against it).
    let want = expected_entities(&[
        (Person, "Amara Okafor"),
        (Person, "Jonas Reed"),
        (Date, "4 May 2026"),
        (Url, "https://arxiv.org/abs/2003.04035"),
        (Other, "arXiv:2107.12979"),
        (Other, "doi:10.1038/nrn2787"),
        (Organization, "World Health Organization"),
        (Organization, "Oxford University Press"),
        (Organization, "MIT Press"),
        (Location, "Leipzig"),
        (Location, "Oxford"),
        (Location, "Geneva"),
        (Person, "Helmholtz"),
        (Person, "Clark"),
        (Person, "Hohwy"),
        (Person, "Friston"),
        (Person, "Da Costa"),
        (Person, "Schwartenbeck"),
        (Person, "Bell, G. S."),
        (Person, "Friston, K. J."),
        (Person, "Hauser, T. U."),
        (Person, "Hohwy, J."),
        (Date, "1866"),
        (Date, "2013"),
        (Date, "2022"),
        (Url, "https://doi.org/10.1038/nrn2787"),
        (Url, "https://doi.org/10.7554/eLife.41703"),
    ]);
    let found: Vec<_> = want.intersection(&got).collect();
    let missed: Vec<_> = want.difference(&got).collect();
    let recall = found.len() as f64 / want.len() as f64;
    assert!(recall >= 0.85, "recall {recall:.2}; missed {missed:?}");
    // Everything found is of a plausible kind: no person, organisation or place that a
    // reader would reject.
    let wrong: Vec<_> = got
        .iter()
        .filter(|(k, t)| {
            matches!(k, Person | Organization | Location)
                && [
                    "Active",
                    "Inference",
                    "Bayesian",
                    "TOTE",
                    "Test",
                    "Where",
                    "Our",
                    "Handbuch",
                    "Neuro",
                    "Trends",
                ]
                .iter()
                .any(|w| t.starts_with(w))
        })
        .collect();
    assert!(wrong.is_empty(), "implausible entities: {wrong:?}");
}

fn triple(c: &Claim) -> (String, String, String) {
    (c.subject.clone(), c.predicate.clone(), c.object.clone())
}

#[test]
fn json_ld_claims_of_the_about_page_and_the_article() {
    let about = claims_from_json_ld(&json_ld(&page("about.html")));
    let name = "Northwind Institute for Cognitive Science";
    let got: Vec<_> = about.iter().map(triple).collect();
    let want: Vec<(String, String, String)> = [
        ("founded on", "1998-09-01"),
        ("founded by", "Margaret Lindqvist"),
        ("number of employees", "142"),
        ("address", "12 Harbour Road, Aberdeen, AB11 5XX, GB"),
        ("email", "info@northwind.example"),
        ("telephone", "+44 1224 555 010"),
        ("url", "https://www.northwind.example/"),
    ]
    .iter()
    .map(|(p, o)| (name.to_string(), p.to_string(), o.to_string()))
    .collect();
    assert_eq!(got, want);
    assert_eq!(
        about[0].statement,
        "Northwind Institute for Cognitive Science was founded on 1998-09-01"
    );
    assert!(about
        .iter()
        .all(|c| c.source == ClaimSource::JsonLd && c.confidence > 0.9));

    let article = claims_from_json_ld(&json_ld(&page("research/active-inference.html")));
    let got: Vec<_> = article.iter().map(triple).collect();
    let title = "A reading guide to active inference";
    let want: Vec<(String, String, String)> = [
        ("author", "Amara Okafor"),
        ("author", "Jonas Reed"),
        ("published on", "2026-05-04"),
        ("license", "https://creativecommons.org/licenses/by/4.0/"),
        ("publisher", "Northwind Institute"),
    ]
    .iter()
    .map(|(p, o)| (title.to_string(), p.to_string(), o.to_string()))
    .collect();
    assert_eq!(got, want);
}

/// A listed claim: subject, predicate, object.
type Listed = (&'static str, &'static str, &'static str);

/// A claim matches an expected one when the predicates are equal and subject and object
/// agree up to case, a leading "the", and one containing the other.
fn matches(c: &(String, String, String), e: &(&str, &str, &str)) -> bool {
    let norm = |s: &str| {
        let s = s.to_lowercase();
        s.strip_prefix("the ").map(str::to_string).unwrap_or(s)
    };
    let close = |a: &str, b: &str| {
        let (a, b) = (norm(a), norm(b));
        a.contains(&b) || b.contains(&a)
    };
    c.1 == e.1 && close(&c.0, e.0) && close(&c.2, e.2)
}

#[test]
fn claims_from_page_text() {
    // What a person lists as the checkable facts of each page's text.
    let cases: Vec<(&str, Vec<Listed>)> = vec![
        (
            "about.html",
            vec![
                (
                    "Northwind Institute for Cognitive Science",
                    "founded in",
                    "1998",
                ),
                (
                    "Northwind Institute for Cognitive Science",
                    "founded by",
                    "Margaret Lindqvist",
                ),
                (
                    "Northwind Institute for Cognitive Science",
                    "based in",
                    "Aberdeen, Scotland",
                ),
                (
                    "Northwind Institute for Cognitive Science",
                    "number of employees",
                    "142",
                ),
                (
                    "Northwind Institute for Cognitive Science",
                    "governed by",
                    "board of nine trustees",
                ),
                ("Dr. Amara Okafor", "role", "Director"),
                (
                    "Northwind Institute for Cognitive Science",
                    "budget for 2026",
                    "£18.5 million",
                ),
            ],
        ),
        (
            "news/2026-03-new-lab.html",
            vec![
                ("Northwind Institute", "opened", "Lindqvist Imaging Lab"),
                ("Lindqvist Imaging Lab", "opened on", "12 March 2026"),
                ("Lindqvist Imaging Lab", "houses", "7 tesla MRI scanner"),
                ("Lindqvist Imaging Lab", "costs", "£6.8 million"),
                ("Lindqvist Imaging Lab", "named after", "Margaret Lindqvist"),
                ("Northwind Institute", "founded by", "Margaret Lindqvist"),
                ("Northwind Institute", "founded in", "1998"),
                ("Dr. Henrik Aalto", "leads", "scientific programme"),
            ],
        ),
        (
            "news/2026-05-grant.html",
            vec![
                ("Northwind Institute", "received", "£4.2 million"),
                ("Research Council", "awarded", "£4.2 million"),
                ("Dr. Li Wei", "leads", "computational psychiatry programme"),
                ("grant", "funds", "twelve new positions"),
                ("clinical study", "participants", "400"),
            ],
        ),
        (
            "people.html",
            vec![
                ("Dr. Amara Okafor", "role", "Director"),
                ("Prof. Jonas Reed", "role", "Head of Active Inference"),
                ("Dr. Li Wei", "role", "Head of Computational Psychiatry"),
                ("Dr. Sofia Marquez", "role", "Senior Research Fellow"),
                ("Dr. Henrik Aalto", "role", "Research Fellow"),
                ("Maya Patel", "role", "PhD candidate"),
            ],
        ),
    ];
    let (mut expected_total, mut found_total) = (0, 0);
    for (rel, expected) in cases {
        let text = main_text(&page(rel));
        let claims = claims_from_text(&text);
        let got: Vec<_> = claims.iter().map(triple).collect();
        // Precision: every claim found is one the person listed.
        for (c, claim) in got.iter().zip(&claims) {
            assert!(
                expected.iter().any(|e| matches(c, e)),
                "{rel}: unexpected claim {c:?} ({:?})",
                claim.statement
            );
            assert_eq!(claim.source, ClaimSource::Pattern);
            assert!(claim.confidence > 0.5 && claim.confidence <= 0.9);
        }
        let found = expected
            .iter()
            .filter(|e| got.iter().any(|c| matches(c, e)))
            .count();
        println!("{rel}: {found} of {} listed claims found", expected.len());
        expected_total += expected.len();
        found_total += found;
    }
    let recall = found_total as f64 / expected_total as f64;
    println!("claims recall {recall:.2} ({found_total} of {expected_total}), precision 1.00");
    assert!(recall >= 0.8, "recall {recall:.2}");
}

#[test]
fn claim_statements_read_as_sentences() {
    let text = main_text(&page("about.html"));
    let c = claims_from_text(&text);
    let statements: Vec<&str> = c.iter().map(|c| c.statement.as_str()).collect();
    assert!(statements.contains(&"Northwind Institute for Cognitive Science was founded in 1998"));
    assert!(statements.contains(&"Northwind Institute for Cognitive Science employs 142 people"));
    assert!(statements.contains(&"Dr. Amara Okafor has been the Director since 2019"));
}

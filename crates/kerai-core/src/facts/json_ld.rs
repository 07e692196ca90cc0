//! Claims from schema.org JSON-LD: the facts a site states about itself in structured data.
//!
//! Read types: organizations (`Organization`, `ResearchOrganization`, `LocalBusiness` and
//! their kin), `Person`, `Product`, articles (`Article`, `ScholarlyArticle`, `NewsArticle`,
//! ...) and events. Items may be arrays or `@graph` lists; `@type` may be a list.

use super::{Claim, ClaimSource};
use serde_json::{Map, Value};

/// Confidence of a fact the publisher states in structured data.
const CONFIDENCE: f32 = 0.95;

const ORGANIZATION_TYPES: &[&str] = &[
    "LocalBusiness",
    "Corporation",
    "NGO",
    "CollegeOrUniversity",
    "School",
    "Hospital",
    "Library",
    "Museum",
    "Store",
    "Restaurant",
    "Consortium",
    "FundingScheme",
    "Project",
    "ResearchProject",
];

const ARTICLE_TYPES: &[&str] = &[
    "Article",
    "ScholarlyArticle",
    "NewsArticle",
    "BlogPosting",
    "Report",
    "TechArticle",
    "MedicalScholarlyArticle",
    "SocialMediaPosting",
    "Blog",
    "Book",
    "CreativeWork",
    "WebPage",
    "Dataset",
];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Organization,
    Person,
    Product,
    Article,
    Event,
}

/// The claims of schema.org items (each an object, an array of objects, or an object with
/// `@graph`), in document order. Unknown types and fields are ignored.
pub fn claims_from_json_ld(items: &[Value]) -> Vec<Claim> {
    let mut out = Vec::new();
    for item in items {
        crate::interrupt::check();
        walk(item, &mut out);
    }
    out
}

fn walk(v: &Value, out: &mut Vec<Claim>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
        Value::Object(m) => {
            if let Some(g) = m.get("@graph") {
                walk(g, out);
            }
            if let Some(kind) = kind_of(m) {
                item_claims(m, kind, out);
            }
        }
        _ => {}
    }
}

fn types(m: &Map<String, Value>) -> Vec<&str> {
    match m.get("@type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn kind_of(m: &Map<String, Value>) -> Option<Kind> {
    for t in types(m) {
        let t = t.rsplit(['/', ':']).next().unwrap_or(t);
        let kind = if t.ends_with("Organization") || ORGANIZATION_TYPES.contains(&t) {
            Kind::Organization
        } else if t == "Person" {
            Kind::Person
        } else if t == "Product" || t == "SoftwareApplication" || t == "ProductModel" {
            Kind::Product
        } else if ARTICLE_TYPES.contains(&t) {
            Kind::Article
        } else if t.ends_with("Event") {
            Kind::Event
        } else {
            continue;
        };
        return Some(kind);
    }
    None
}

/// A value as text: strings, numbers, `{name}` objects, `{@id}`, `{value}`; lists joined.
fn text(v: &Value) -> Option<String> {
    let s = match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        Value::Object(m) => {
            return ["name", "value", "@value", "url", "@id"]
                .iter()
                .find_map(|k| m.get(*k).and_then(text))
        }
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().filter_map(text).collect();
            parts.join(", ")
        }
        _ => String::new(),
    };
    (!s.is_empty()).then_some(s)
}

/// Values of a field, one per list entry.
fn each(m: &Map<String, Value>, field: &str) -> Vec<Value> {
    match m.get(field) {
        Some(Value::Array(a)) => a.clone(),
        Some(v) => vec![v.clone()],
        None => Vec::new(),
    }
}

fn item_claims(m: &Map<String, Value>, kind: Kind, out: &mut Vec<Claim>) {
    let name = m.get("name").or_else(|| m.get("headline")).and_then(text);
    let Some(name) = name else {
        return;
    };
    let mut add = |statement: String, predicate: &str, object: String| {
        out.push(Claim::new(
            statement,
            name.clone(),
            predicate,
            object,
            CONFIDENCE,
            ClaimSource::JsonLd,
        ));
    };
    match kind {
        Kind::Organization => {
            if let Some(d) = m.get("foundingDate").and_then(text) {
                let pred = if d.len() == 4 {
                    "founded in"
                } else {
                    "founded on"
                };
                add(format!("{name} was {pred} {d}"), pred, d);
            }
            for f in each(m, "founder") {
                if let Some(f) = text(&f) {
                    add(format!("{name} was founded by {f}"), "founded by", f);
                }
            }
            if let Some(n) = m.get("numberOfEmployees").and_then(employees) {
                add(
                    format!("{name} has {n} employees"),
                    "number of employees",
                    n,
                );
            }
            if let Some(a) = m.get("address").and_then(address) {
                add(format!("{name} is located at {a}"), "address", a);
            }
            if let Some(e) = m.get("email").and_then(text) {
                let e = e.trim_start_matches("mailto:").to_string();
                add(format!("The e-mail address of {name} is {e}"), "email", e);
            }
            if let Some(t) = m.get("telephone").and_then(text) {
                add(
                    format!("The telephone number of {name} is {t}"),
                    "telephone",
                    t,
                );
            }
            if let Some(u) = m.get("url").and_then(text) {
                add(format!("The website of {name} is {u}"), "url", u);
            }
        }
        Kind::Person => {
            if let Some(j) = m.get("jobTitle").and_then(text) {
                add(format!("{name} is {j}"), "job title", j);
            }
            for w in each(m, "worksFor") {
                if let Some(w) = text(&w) {
                    add(format!("{name} works for {w}"), "works for", w);
                }
            }
            if let Some(e) = m.get("email").and_then(text) {
                let e = e.trim_start_matches("mailto:").to_string();
                add(format!("The e-mail address of {name} is {e}"), "email", e);
            }
        }
        Kind::Product => {
            if let Some(b) = m.get("brand").and_then(text) {
                add(format!("The brand of {name} is {b}"), "brand", b);
            }
            for o in each(m, "offers") {
                if let Some(p) = price(&o) {
                    add(format!("{name} costs {p}"), "price", p);
                }
            }
        }
        Kind::Article => {
            for a in each(m, "author") {
                if let Some(a) = text(&a) {
                    add(format!("{name} was written by {a}"), "author", a);
                }
            }
            if let Some(d) = m.get("datePublished").and_then(text) {
                add(format!("{name} was published on {d}"), "published on", d);
            }
            if let Some(l) = m.get("license").and_then(text) {
                add(format!("{name} is licensed under {l}"), "license", l);
            }
            for p in each(m, "publisher") {
                if let Some(p) = text(&p) {
                    add(format!("{name} was published by {p}"), "publisher", p);
                }
            }
        }
        Kind::Event => {
            if let Some(d) = m.get("startDate").and_then(text) {
                add(format!("{name} starts on {d}"), "starts on", d);
            }
            for l in each(m, "location") {
                if let Some(l) = place(&l) {
                    add(format!("{name} takes place at {l}"), "location", l);
                }
            }
        }
    }
}

/// `142`, `"142"`, or a QuantitativeValue `{value}` / `{minValue, maxValue}`.
fn employees(v: &Value) -> Option<String> {
    if let Value::Object(m) = v {
        if let Some(x) = m.get("value").and_then(text) {
            return Some(x);
        }
        let lo = m.get("minValue").and_then(text);
        let hi = m.get("maxValue").and_then(text);
        return match (lo, hi) {
            (Some(lo), Some(hi)) => Some(format!("{lo}-{hi}")),
            (Some(lo), None) => Some(format!("at least {lo}")),
            (None, Some(hi)) => Some(format!("at most {hi}")),
            (None, None) => None,
        };
    }
    text(v)
}

/// A PostalAddress as one line: street, locality, region, postal code, country.
fn address(v: &Value) -> Option<String> {
    let Value::Object(m) = v else {
        return text(v);
    };
    let parts: Vec<String> = [
        "streetAddress",
        "addressLocality",
        "addressRegion",
        "postalCode",
        "addressCountry",
    ]
    .iter()
    .filter_map(|k| m.get(*k).and_then(text))
    .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// A Place by name and address, or a plain value.
fn place(v: &Value) -> Option<String> {
    let Value::Object(m) = v else {
        return text(v);
    };
    let name = m.get("name").and_then(text);
    let addr = m.get("address").and_then(address);
    match (name, addr) {
        (Some(n), Some(a)) => Some(format!("{n}, {a}")),
        (n, a) => n.or(a),
    }
}

/// An Offer's price with its currency ("19.99 GBP"), or a plain value.
fn price(v: &Value) -> Option<String> {
    let Value::Object(m) = v else {
        return text(v);
    };
    let p = m
        .get("price")
        .or_else(|| m.get("lowPrice"))
        .and_then(text)?;
    Some(match m.get("priceCurrency").and_then(text) {
        Some(c) => format!("{p} {c}"),
        None => p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn triples(c: &[Claim]) -> Vec<(String, String, String)> {
        c.iter()
            .map(|c| (c.subject.clone(), c.predicate.clone(), c.object.clone()))
            .collect()
    }

    #[test]
    fn graph_products_people_events() {
        let v = json!({"@context": "https://schema.org", "@graph": [
            {"@type": ["Product"], "name": "Soil Kit", "brand": {"@type": "Brand", "name": "Northwind"},
             "offers": [{"@type": "Offer", "price": "19.99", "priceCurrency": "GBP"}]},
            {"@type": "Person", "name": "Dr. Amara Okafor", "jobTitle": "Director",
             "worksFor": {"@type": "ResearchOrganization", "name": "Northwind Institute"}},
            {"@type": "BusinessEvent", "name": "Open Day", "startDate": "2026-06-01T10:00",
             "location": {"@type": "Place", "name": "Harbour Hall", "address": "12 Harbour Road, Aberdeen"}},
            {"@type": "WebSite", "name": "ignored"}
        ]});
        let c = claims_from_json_ld(&[v]);
        assert_eq!(
            triples(&c),
            vec![
                ("Soil Kit".into(), "brand".into(), "Northwind".into()),
                ("Soil Kit".into(), "price".into(), "19.99 GBP".into()),
                (
                    "Dr. Amara Okafor".into(),
                    "job title".into(),
                    "Director".into()
                ),
                (
                    "Dr. Amara Okafor".into(),
                    "works for".into(),
                    "Northwind Institute".into()
                ),
                (
                    "Open Day".into(),
                    "starts on".into(),
                    "2026-06-01T10:00".into()
                ),
                (
                    "Open Day".into(),
                    "location".into(),
                    "Harbour Hall, 12 Harbour Road, Aberdeen".into()
                ),
            ]
        );
        assert_eq!(c[1].statement, "Soil Kit costs 19.99 GBP");
        assert!(c.iter().all(|c| c.source == ClaimSource::JsonLd));
    }

    #[test]
    fn employee_ranges_and_nameless_items() {
        let v = json!([
            {"@type": "Corporation", "name": "Acme", "numberOfEmployees": {"@type": "QuantitativeValue", "minValue": 50, "maxValue": 99}, "foundingDate": "2001"},
            {"@type": "Organization", "email": "x@y.example"}
        ]);
        let c = claims_from_json_ld(&[v]);
        assert_eq!(
            triples(&c),
            vec![
                ("Acme".into(), "founded in".into(), "2001".into()),
                ("Acme".into(), "number of employees".into(), "50-99".into()),
            ]
        );
        assert_eq!(c[0].statement, "Acme was founded in 2001");
    }
}

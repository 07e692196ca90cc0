//! Print the entities and claims kerai finds in a page:
//! `cargo run -p kerai-core --example facts_page -- FILE [FILE...]` (HTML files are reduced
//! to the text of their <main> element with a crude tag strip; JSON-LD scripts are read).

use kerai_core::facts::{claims_from_json_ld, claims_from_text, entities};

fn main() -> Result<(), String> {
    for path in std::env::args().skip(1) {
        let raw = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        let (text, json_ld) = if raw.contains("<html") {
            (html_text(&raw), json_ld(&raw)?)
        } else {
            (raw.clone(), Vec::new())
        };
        println!("##### {path}\n{text}\n");
        for e in entities(&text) {
            println!(
                "entity {:<12} {:.2} {:?}",
                e.kind.as_str(),
                e.confidence,
                e.text
            );
        }
        for c in claims_from_json_ld(&json_ld)
            .into_iter()
            .chain(claims_from_text(&text))
        {
            println!(
                "claim  {:<7} {:.2} ({:?} | {:?} | {:?}) {:?}",
                c.source.as_str(),
                c.confidence,
                c.subject,
                c.predicate,
                c.object,
                c.statement
            );
        }
    }
    Ok(())
}

/// The text of <main>: block tags become blank lines, list items "- " lines.
fn html_text(html: &str) -> String {
    let start = html.find("<main").unwrap_or(0);
    let end = html.find("</main>").unwrap_or(html.len());
    let body = &html[start..end];
    let mut out = String::new();
    let mut rest = body;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let Some(j) = rest[i..].find('>') else { break };
        let tag = rest[i + 1..i + j].to_ascii_lowercase();
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        match name.as_str() {
            "li" if !tag.starts_with('/') => out.push_str("\n- "),
            "p" | "h1" | "h2" | "h3" | "h4" | "ul" | "ol" | "table" | "tr" | "article" | "div" => {
                out.push_str("\n\n")
            }
            "td" | "th" => out.push(' '),
            _ => {}
        }
        rest = &rest[i + j + 1..];
    }
    out.push_str(rest);
    let text = out
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'");
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    lines
        .join("\n")
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn json_ld(html: &str) -> Result<Vec<serde_json::Value>, String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("application/ld+json") {
        let after = &rest[i..];
        let Some(open) = after.find('>') else { break };
        let Some(close) = after.find("</script>") else {
            break;
        };
        let body = &after[open + 1..close];
        out.push(serde_json::from_str(body).map_err(|e| format!("JSON-LD: {e}"))?);
        rest = &after[close..];
    }
    Ok(out)
}

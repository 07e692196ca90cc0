//! `kerai extract FILE…`: the extraction layer on local files, for people and benchmarks.

use crate::args::{ExtractArgs, ExtractFormat};
use crate::exit::{Code, Failure};
use kerai_core::convert::{self, Limits};
use kerai_core::{retrieval::tokens, ResourceError};
use serde_json::{json, Value};
use std::path::Path;

pub fn run(args: ExtractArgs) -> Result<Code, Failure> {
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::critical(format!("cannot create {}: {e}", dir.display())))?;
    }
    let mut failed = 0;
    for file in &args.files {
        match extract_file(file, args.base_url.as_deref()) {
            Ok(doc) => {
                // What was skipped or guessed, and why a page gave no text: said, not fatal.
                for w in doc["warnings"].as_array().into_iter().flatten() {
                    eprintln!(
                        "kerai: warning: {}: {}",
                        file.display(),
                        w.as_str().unwrap_or_default()
                    );
                }
                let (ext, body) = match args.format {
                    ExtractFormat::Markdown => {
                        ("md", doc["markdown"].as_str().unwrap_or("").to_string())
                    }
                    ExtractFormat::Text => ("txt", doc["text"].as_str().unwrap_or("").to_string()),
                    ExtractFormat::Json => (
                        "json",
                        serde_json::to_string_pretty(&doc).unwrap_or_default(),
                    ),
                };
                match &args.out {
                    Some(dir) => {
                        let stem = file
                            .file_stem()
                            .map(|s| s.to_string_lossy().to_string())
                            .unwrap_or_else(|| "out".into());
                        let path = dir.join(format!("{stem}.{ext}"));
                        std::fs::write(&path, format!("{body}\n")).map_err(|e| {
                            Failure::critical(format!("cannot write {}: {e}", path.display()))
                        })?;
                    }
                    None => println!("{body}"),
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("kerai: error: {e}");
            }
        }
    }
    Ok(match failed {
        0 => Code::Success,
        n if n == args.files.len() => Code::Critical,
        _ => Code::Partial,
    })
}

/// One file as JSON: source type, title, metadata, markdown, plain text, token count.
pub fn extract_file(path: &Path, base_url: Option<&str>) -> Result<Value, ResourceError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        ResourceError::new(kerai_core::ErrorKind::Unreachable, &name, e.to_string())
    })?;
    // Links in a page resolve against --base-url, else the file's own file:// URL.
    let base = base_url
        .map(str::to_string)
        .unwrap_or_else(|| format!("file://{}", absolute(path)));
    let c = convert::convert_with_base(&bytes, &name, &base, None, &Limits::default())?;
    let m = &c.metadata;
    let tokens = tokens::count_tokens(&c.markdown);
    if let Some(page) = &c.html {
        return Ok(json!({
            "file": name, "source_type": c.source_type.as_str(), "title": m.title, "language": m.language, "charset": page.charset,
            "markdown": c.markdown, "text": page.text, "tokens": tokens,
            "blocks": page.blocks, "links": page.links, "structured": page.structured,
            "warnings": c.warnings,
        }));
    }
    Ok(json!({
        "file": name, "source_type": c.source_type.as_str(), "title": m.title,
        "metadata": {
            "author": m.author, "created": m.created, "modified": m.modified, "version_hint": m.version_hint,
            "language": m.language, "page_count": m.page_count, "sheet_count": m.sheet_count, "word_count": m.word_count,
        },
        "markdown": c.markdown, "text": plain(&c.markdown), "tokens": tokens,
        "warnings": c.warnings,
    }))
}

fn absolute(p: &Path) -> String {
    std::fs::canonicalize(p)
        .map(|a| a.display().to_string())
        .unwrap_or_else(|_| p.display().to_string())
}

/// Markdown without its markup: headings, emphasis, table pipes and link targets removed.
pub fn plain(md: &str) -> String {
    let mut out = Vec::new();
    for line in md.lines() {
        let t = line.trim_start_matches('#').trim();
        if t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) && t.contains('-') {
            continue;
        }
        let t = t.trim_matches('|').trim().replace(" | ", "\t");
        let mut s = String::with_capacity(t.len());
        let mut rest = t.as_str();
        while let Some(open) = rest.find("](") {
            let Some(close) = rest[open..].find(')') else {
                break;
            };
            s.push_str(&rest[..open]);
            rest = &rest[open + close + 1..];
        }
        s.push_str(rest);
        out.push(s.replace(['*', '[', '`'], "").replace(']', ""));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_drops_markup() {
        assert_eq!(
            plain("# Title\n\nSome **bold** [link](http://x/y) text"),
            "Title\n\nSome bold link text"
        );
        assert_eq!(plain("| a | b |\n| --- | --- |\n| 1 | 2 |"), "a\tb\n1\t2");
    }
}

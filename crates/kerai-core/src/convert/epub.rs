//! EPUB to markdown: chapters in spine order from the OPF package, each converted from XHTML;
//! a chapter without a heading of its own gets its table-of-contents label as `# heading`.
//! Metadata from the OPF: `dc:title`, `dc:creator`, `dc:date`, `dc:language`, `dcterms:modified`.

use super::dates::iso_date;
use super::markdown::{heading, join_blocks, one_line};
use super::xhtml;
use super::xml::{Ev, Pull};
use super::zipped::{resolve, Package};
use super::{Converted, DocMeta, Limits, SourceType};
use crate::ResourceError;
use std::collections::HashMap;

/// Converts an EPUB book.
pub(crate) fn convert(
    bytes: &[u8],
    name: &str,
    limits: &Limits,
) -> Result<Converted, ResourceError> {
    let mut pkg = Package::open(bytes, name, limits)?;
    let corrupt = |part: &str, e: String| ResourceError::corrupt(name, format!("{part}: {e}"));
    let opf_path = match pkg.read_text("META-INF/container.xml")? {
        Some(c) => rootfile(&c).map_err(|e| corrupt("META-INF/container.xml", e))?,
        None => None,
    }
    .or_else(|| pkg.names().into_iter().find(|n| n.ends_with(".opf")))
    .ok_or_else(|| {
        ResourceError::corrupt(name, "no OPF package document (META-INF/container.xml)")
    })?;
    let opf_text = pkg.require_text(&opf_path)?;
    let opf = parse_opf(&opf_text, &opf_path).map_err(|e| corrupt(&opf_path, e))?;
    if opf.spine.is_empty() {
        return Err(ResourceError::corrupt(
            name,
            format!("{opf_path}: empty spine"),
        ));
    }

    let mut warnings = Vec::new();
    let mut labels: HashMap<String, String> = HashMap::new();
    for toc in [&opf.nav, &opf.ncx].into_iter().flatten() {
        match pkg.read_text(toc)? {
            Some(t) => match toc_labels(&t, toc) {
                Ok(l) => {
                    for (k, v) in l {
                        labels.entry(k).or_insert(v);
                    }
                }
                Err(e) => warnings.push(format!("table of contents {toc} ignored: {e}")),
            },
            None => warnings.push(format!("table of contents {toc} is missing")),
        }
    }

    let mut chapters = Vec::new();
    for idref in &opf.spine {
        let Some(item) = opf.manifest.get(idref) else {
            warnings.push(format!("spine item {idref:?} is not in the manifest"));
            continue;
        };
        if !item.media_type.contains("html") {
            continue;
        }
        let Some(text) = pkg.read_text(&item.href)? else {
            warnings.push(format!("chapter {} is missing", item.href));
            continue;
        };
        let md = match xhtml::to_markdown(&text) {
            Ok(md) => md,
            Err(e) => {
                warnings.push(format!("chapter {} skipped: {e}", item.href));
                continue;
            }
        };
        chapters.push(with_heading(md, labels.get(&item.href).map(String::as_str)));
    }
    if chapters.iter().all(|c| c.trim().is_empty()) && !opf.spine.is_empty() && !warnings.is_empty()
    {
        return Err(ResourceError::corrupt(
            name,
            format!("no readable chapter ({})", warnings.join("; ")),
        ));
    }
    Ok(Converted {
        markdown: join_blocks(&chapters),
        source_type: SourceType::Epub,
        metadata: opf.meta,
        warnings,
        html: None,
    })
}

/// Gives a chapter its TOC label as a level-1 heading when it has no heading; a first
/// paragraph that repeats the label is dropped.
fn with_heading(md: String, label: Option<&str>) -> String {
    let Some(label) = label.map(one_line).filter(|l| !l.is_empty()) else {
        return md;
    };
    if md.lines().any(|l| l.starts_with('#')) {
        return md;
    }
    let rest = match md.split_once("\n\n") {
        Some((first, rest)) if one_line(first) == label => rest.to_string(),
        None if one_line(&md) == label => String::new(),
        _ => md,
    };
    join_blocks(&[heading(1, &label), rest])
}

fn rootfile(container: &str) -> Result<Option<String>, String> {
    let mut p = Pull::new(container);
    while let Some(ev) = p.next()? {
        if let Ev::Start(t) = ev {
            if t.name == "rootfile" {
                if let Some(path) = t.attr("full-path") {
                    return Ok(Some(resolve("", path)));
                }
            }
        }
    }
    Ok(None)
}

struct Item {
    href: String,
    media_type: String,
}

struct Opf {
    meta: DocMeta,
    manifest: HashMap<String, Item>,
    spine: Vec<String>,
    nav: Option<String>,
    ncx: Option<String>,
}

fn parse_opf(text: &str, opf_path: &str) -> Result<Opf, String> {
    let mut opf = Opf {
        meta: DocMeta::default(),
        manifest: HashMap::new(),
        spine: Vec::new(),
        nav: None,
        ncx: None,
    };
    let mut toc_id = None;
    let mut ncx_by_type = None;
    let mut p = Pull::new(text);
    let mut in_metadata = false;
    let mut creators = Vec::new();
    while let Some(ev) = p.next()? {
        match ev {
            Ev::Start(t) => match t.name.as_str() {
                "metadata" => in_metadata = true,
                "item" => {
                    let href = resolve(opf_path, t.attr("href").unwrap_or_default());
                    let media_type = t.attr("media-type").unwrap_or_default().to_string();
                    if t.attr("properties")
                        .is_some_and(|p| p.split_whitespace().any(|x| x == "nav"))
                    {
                        opf.nav = Some(href.clone());
                    }
                    if media_type == "application/x-dtbncx+xml" {
                        ncx_by_type = Some(href.clone());
                    }
                    if let Some(id) = t.attr("id") {
                        opf.manifest
                            .insert(id.to_string(), Item { href, media_type });
                    }
                }
                "spine" => toc_id = t.attr("toc").map(str::to_string),
                "itemref" => opf.spine.extend(t.attr("idref").map(str::to_string)),
                "meta" if in_metadata => {
                    let property = t.attr("property").map(str::to_string);
                    let value = p.text_until_end()?;
                    if property.as_deref() == Some("dcterms:modified") {
                        opf.meta.modified = iso_date(&value);
                    }
                }
                field @ ("title" | "creator" | "date" | "language") if in_metadata => {
                    let field = field.to_string();
                    let event = t.attr("event").map(str::to_string);
                    let value = one_line(&p.text_until_end()?);
                    if value.is_empty() {
                        continue;
                    }
                    match field.as_str() {
                        "title" => {
                            opf.meta.title.get_or_insert(value);
                        }
                        "creator" => creators.push(value),
                        "date" => match event.as_deref() {
                            Some("modification") => opf.meta.modified = iso_date(&value),
                            _ => {
                                if opf.meta.created.is_none() {
                                    opf.meta.created = iso_date(&value);
                                }
                            }
                        },
                        _ => {
                            opf.meta.language.get_or_insert(value);
                        }
                    }
                }
                _ => {}
            },
            Ev::End(n) if n == "metadata" => in_metadata = false,
            _ => {}
        }
    }
    if !creators.is_empty() {
        opf.meta.author = Some(creators.join("; "));
    }
    opf.ncx = toc_id
        .and_then(|id| opf.manifest.get(&id).map(|i| i.href.clone()))
        .or(ncx_by_type);
    Ok(opf)
}

/// Chapter path (no fragment) to its first label, from an EPUB 3 nav document or an NCX.
fn toc_labels(text: &str, toc_path: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut p = Pull::new(text);
    let mut pending_label: Option<String> = None;
    while let Some(ev) = p.next()? {
        let Ev::Start(t) = ev else { continue };
        match t.name.as_str() {
            // EPUB 3 nav: <a href="ch1.xhtml">Label</a>
            "a" => {
                if let Some(href) = t.attr("href").map(str::to_string) {
                    let label = one_line(&p.text_until_end()?);
                    out.push((resolve(toc_path, &href), label));
                }
            }
            // NCX: <navLabel><text>Label</text></navLabel><content src="ch1.xhtml"/>
            "text" => pending_label = Some(one_line(&p.text_until_end()?)),
            "content" => {
                if let (Some(src), Some(label)) = (t.attr("src"), pending_label.take()) {
                    out.push((resolve(toc_path, src), label));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chapter_headings_from_the_toc() {
        assert_eq!(
            with_heading("Title\n\nBody.\n".into(), Some("Title")),
            "# Title\n\nBody.\n"
        );
        assert_eq!(
            with_heading("Body.\n".into(), Some("Title")),
            "# Title\n\nBody.\n"
        );
        assert_eq!(
            with_heading("## Own\n\nBody.\n".into(), Some("Title")),
            "## Own\n\nBody.\n"
        );
    }
}

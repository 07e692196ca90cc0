//! Parts shared by DOCX and XLSX: package relationships and the core/app properties.

use super::dates::iso_date;
use super::xml::{Ev, Pull};
use super::zipped::{resolve, Package};
use super::DocMeta;
use crate::ResourceError;

/// One `<Relationship>`: id, type URI and target resolved to a part path.
#[derive(Debug, Clone)]
pub(crate) struct Rel {
    pub id: String,
    pub kind: String,
    pub target: String,
    pub external: bool,
}

/// The relationships of `part` (from `<dir>/_rels/<file>.rels`); empty when there are none.
pub(crate) fn rels_of(pkg: &mut Package<'_>, part: &str) -> Result<Vec<Rel>, ResourceError> {
    let (dir, file) = part.rsplit_once('/').unwrap_or(("", part));
    let rels_path = if dir.is_empty() {
        format!("_rels/{file}.rels")
    } else {
        format!("{dir}/_rels/{file}.rels")
    };
    let Some(text) = pkg.read_text(&rels_path)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut p = Pull::new(&text);
    while let Some(ev) = p
        .next()
        .map_err(|e| ResourceError::corrupt(pkg.doc_name(), format!("{rels_path}: {e}")))?
    {
        if let Ev::Start(t) = ev {
            if t.name == "Relationship" {
                let external = t.attr("TargetMode") == Some("External");
                let target = t.attr("Target").unwrap_or_default();
                out.push(Rel {
                    id: t.attr("Id").unwrap_or_default().to_string(),
                    kind: t.attr("Type").unwrap_or_default().to_string(),
                    target: if external {
                        target.to_string()
                    } else {
                        resolve(part, target)
                    },
                    external,
                });
            }
        }
    }
    Ok(out)
}

/// The package's main part (the `officeDocument` relationship), else `fallback`.
pub(crate) fn main_part(pkg: &mut Package<'_>, fallback: &str) -> Result<String, ResourceError> {
    let rels = rels_of(pkg, "")?;
    Ok(rels
        .into_iter()
        .find(|r| r.kind.ends_with("/officeDocument") && !r.external)
        .map(|r| r.target)
        .filter(|t| pkg.has(t))
        .unwrap_or_else(|| fallback.to_string()))
}

/// Title, author, dates, language and revision from `docProps/core.xml` (missing is fine).
/// The revision count becomes the version hint `rev N` when N > 1.
pub(crate) fn core_properties(pkg: &mut Package<'_>) -> Result<DocMeta, ResourceError> {
    let mut meta = DocMeta::default();
    let Some(text) = pkg.read_text("docProps/core.xml")? else {
        return Ok(meta);
    };
    let mut p = Pull::new(&text);
    let mut last_modified_by = None;
    let mut current: Option<(String, String)> = None;
    // Metadata is optional: a broken core.xml loses what follows the fault, not the document.
    while let Ok(Some(ev)) = p.next() {
        match ev {
            Ev::Start(t) => current = Some((t.name, String::new())),
            Ev::Text(s) => {
                if let Some((_, v)) = current.as_mut() {
                    v.push_str(&s);
                }
            }
            Ev::End(name) => {
                let Some((open, value)) = current.take() else {
                    continue;
                };
                let value = value.trim().to_string();
                if open != name || value.is_empty() {
                    continue;
                }
                match name.as_str() {
                    "title" => meta.title = Some(value),
                    "creator" => meta.author = Some(value),
                    "lastModifiedBy" => last_modified_by = Some(value),
                    "created" => meta.created = iso_date(&value),
                    "modified" => meta.modified = iso_date(&value),
                    "language" => meta.language = Some(value),
                    "version" => meta.version_hint = Some(value),
                    "revision"
                        if meta.version_hint.is_none()
                            && value.parse::<u64>().is_ok_and(|n| n > 1) =>
                    {
                        meta.version_hint = Some(format!("rev {value}"));
                    }
                    _ => {}
                }
            }
        }
    }
    if meta.author.is_none() {
        meta.author = last_modified_by;
    }
    Ok(meta)
}

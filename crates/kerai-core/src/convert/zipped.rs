//! Bounded reading of zip containers (DOCX, XLSX, EPUB): the entry count is capped and every
//! entry read is charged, by its declared and by its real inflated size, to one [`Budget`].

use super::limits::{Budget, Limits};
use crate::ResourceError;
use std::io::{Cursor, Read};
use zip::ZipArchive;

/// An opened zip container whose parts are read within the document's limits.
pub(crate) struct Package<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    name: &'a str,
    budget: Budget,
}

impl<'a> Package<'a> {
    /// Opens the container; a broken zip is `corrupt`, too many entries `too large`.
    pub fn open(bytes: &'a [u8], name: &'a str, limits: &Limits) -> Result<Self, ResourceError> {
        let archive = ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
            ResourceError::corrupt(name, format!("not a readable zip archive: {e}"))
        })?;
        if archive.len() > limits.max_zip_entries {
            return Err(ResourceError::too_large(
                name,
                format!(
                    "{} zip entries, limit {}",
                    archive.len(),
                    limits.max_zip_entries
                ),
            ));
        }
        Ok(Package {
            archive,
            name,
            budget: Budget::new(limits.max_uncompressed_bytes),
        })
    }

    /// True when the container has an entry at `path`.
    pub fn has(&self, path: &str) -> bool {
        self.archive.index_for_name(path).is_some()
    }

    /// The entry names, in directory order.
    pub fn names(&self) -> Vec<String> {
        self.archive
            .file_names()
            .filter_map(|n| n.ok().map(|n| n.into_owned()))
            .collect()
    }

    /// The inflated bytes of `path`, `None` when there is no such entry.
    pub fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, ResourceError> {
        let Some(index) = self.archive.index_for_name(path) else {
            return Ok(None);
        };
        let name = self.name;
        let limit = self.budget.limit();
        let too_large = |what: String| {
            ResourceError::too_large(name, format!("{what}, limit {limit} bytes uncompressed"))
        };
        let mut file = self
            .archive
            .by_index(index)
            .map_err(|e| ResourceError::corrupt(name, format!("{path}: {e}")))?;
        let declared = file.size();
        if declared > self.budget.left() {
            return Err(too_large(format!("{path} declares {declared} bytes")));
        }
        let allowance = self.budget.left();
        let mut out = Vec::with_capacity(declared.min(allowance).min(64 << 20) as usize);
        (&mut file)
            .take(allowance + 1)
            .read_to_end(&mut out)
            .map_err(|e| ResourceError::corrupt(name, format!("{path}: {e}")))?;
        if !self.budget.spend(out.len() as u64) {
            return Err(too_large(format!("{path} inflates past the allowance")));
        }
        Ok(Some(out))
    }

    /// The entry decoded as XML text (UTF-8, or UTF-16 with a BOM).
    pub fn read_text(&mut self, path: &str) -> Result<Option<String>, ResourceError> {
        Ok(self
            .read(path)?
            .map(|b| super::xml::decode(&b).into_owned()))
    }

    /// Like [`Package::read_text`], but a missing entry is `corrupt`.
    pub fn require_text(&mut self, path: &str) -> Result<String, ResourceError> {
        self.read_text(path)?
            .ok_or_else(|| ResourceError::corrupt(self.name, format!("missing part {path}")))
    }

    /// The document name given to conversion, for error messages.
    pub fn doc_name(&self) -> &'a str {
        self.name
    }
}

/// Resolves a relationship or href `target` against the directory of the part `base`
/// (`word/document.xml` + `media/a.png` = `word/media/a.png`; a leading `/` is absolute).
pub(crate) fn resolve(base: &str, target: &str) -> String {
    let target = target.split(['#', '?']).next().unwrap_or("");
    let target = percent_decode(target);
    let mut parts: Vec<&str> = if let Some(abs) = target.strip_prefix('/') {
        return normalise(abs.split('/').collect());
    } else {
        base.rsplit_once('/')
            .map(|(dir, _)| dir.split('/').collect())
            .unwrap_or_default()
    };
    parts.extend(target.split('/'));
    normalise(parts)
}

fn normalise(parts: Vec<&str>) -> String {
    let mut out: Vec<&str> = Vec::new();
    for p in parts {
        match p {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            p => out.push(p),
        }
    }
    out.join("/")
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_targets() {
        assert_eq!(
            resolve("word/document.xml", "media/a.png"),
            "word/media/a.png"
        );
        assert_eq!(
            resolve("xl/workbook.xml", "worksheets/sheet1.xml"),
            "xl/worksheets/sheet1.xml"
        );
        assert_eq!(
            resolve("xl/workbook.xml", "/xl/worksheets/sheet1.xml"),
            "xl/worksheets/sheet1.xml"
        );
        assert_eq!(
            resolve("OEBPS/content.opf", "../Text/ch%201.xhtml#x"),
            "Text/ch 1.xhtml"
        );
        assert_eq!(resolve("content.opf", "ch1.xhtml"), "ch1.xhtml");
    }
}

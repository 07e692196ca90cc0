//! DOCX (WordprocessingML) to markdown: paragraph styles to headings (by style name, so
//! localised style ids work), numbered and bulleted lists with nesting, tables as GFM tables,
//! bold/italic, external hyperlinks; metadata from the core and app properties.

use super::markdown::{heading, join_blocks, table};
use super::ooxml::{core_properties, main_part, rels_of};
use super::xml::{Ev, Pull, Tag};
use super::zipped::Package;
use super::{Converted, Limits, SourceType};
use crate::ResourceError;
use std::collections::HashMap;

/// Converts a DOCX document.
pub(crate) fn convert(
    bytes: &[u8],
    name: &str,
    limits: &Limits,
) -> Result<Converted, ResourceError> {
    let mut pkg = Package::open(bytes, name, limits)?;
    let main = main_part(&mut pkg, "word/document.xml")?;
    let document = pkg.require_text(&main)?;
    let rels = rels_of(&mut pkg, &main)?;
    let part_of = |kind: &str, fallback: &str| {
        rels.iter()
            .find(|r| r.kind.ends_with(kind) && !r.external)
            .map(|r| r.target.clone())
            .unwrap_or_else(|| fallback.to_string())
    };
    let styles_path = part_of("/styles", "word/styles.xml");
    let numbering_path = part_of("/numbering", "word/numbering.xml");
    let links: HashMap<String, String> = rels
        .iter()
        .filter(|r| r.external)
        .map(|r| (r.id.clone(), r.target.clone()))
        .collect();

    let mut warnings = Vec::new();
    let styles = match pkg.read_text(&styles_path)? {
        Some(t) => Styles::parse(&t).unwrap_or_else(|e| {
            warnings.push(format!("styles ignored: {e}"));
            Styles::default()
        }),
        None => Styles::default(),
    };
    let numbering = match pkg.read_text(&numbering_path)? {
        Some(t) => Numbering::parse(&t).unwrap_or_else(|e| {
            warnings.push(format!("list numbering ignored: {e}"));
            Numbering::default()
        }),
        None => Numbering::default(),
    };
    let mut meta = core_properties(&mut pkg)?;
    if let Some(app) = pkg.read_text("docProps/app.xml")? {
        meta.page_count = app_pages(&app);
    }
    let markdown = Body::new(&styles, &numbering, &links)
        .render(&document)
        .map_err(|e| ResourceError::corrupt(name, format!("{main}: {e}")))?;
    Ok(Converted {
        markdown,
        source_type: SourceType::Docx,
        metadata: meta,
        warnings,
        html: None,
    })
}

fn app_pages(app: &str) -> Option<usize> {
    let mut p = Pull::new(app);
    while let Ok(Some(ev)) = p.next() {
        if matches!(&ev, Ev::Start(t) if t.name == "Pages") {
            return p
                .text_until_end()
                .ok()?
                .trim()
                .parse()
                .ok()
                .filter(|&n| n > 0);
        }
    }
    None
}

/// What a paragraph style means for markdown.
#[derive(Debug, Clone, Default)]
struct StyleInfo {
    name: String,
    based_on: Option<String>,
    outline: Option<usize>,
    num: Option<(String, usize)>,
    bold: bool,
    italic: bool,
}

#[derive(Debug, Default)]
struct Styles {
    by_id: HashMap<String, StyleInfo>,
}

impl Styles {
    fn parse(text: &str) -> Result<Self, String> {
        let mut by_id = HashMap::new();
        let mut p = Pull::new(text);
        let mut cur: Option<(String, StyleInfo)> = None;
        let mut in_rpr = false;
        while let Some(ev) = p.next()? {
            match ev {
                Ev::Start(t) => match t.name.as_str() {
                    "style" => {
                        cur = t
                            .attr("styleId")
                            .map(|id| (id.to_string(), StyleInfo::default()))
                    }
                    "rPr" => in_rpr = true,
                    _ => {
                        if let Some((_, s)) = cur.as_mut() {
                            let val = t.attr("val").unwrap_or_default();
                            match t.name.as_str() {
                                "name" => s.name = val.to_lowercase(),
                                "basedOn" => s.based_on = Some(val.to_string()),
                                "outlineLvl" => s.outline = val.parse().ok(),
                                "numId" => {
                                    s.num =
                                        Some((val.to_string(), s.num.as_ref().map_or(0, |n| n.1)))
                                }
                                "ilvl" => {
                                    let id =
                                        s.num.as_ref().map(|n| n.0.clone()).unwrap_or_default();
                                    s.num = Some((id, val.parse().unwrap_or(0).min(8)));
                                }
                                "b" if in_rpr => s.bold = on(&t),
                                "i" if in_rpr => s.italic = on(&t),
                                _ => {}
                            }
                        }
                    }
                },
                Ev::End(n) if n == "style" => {
                    if let Some((id, s)) = cur.take() {
                        by_id.insert(id, s);
                    }
                }
                Ev::End(n) if n == "rPr" => in_rpr = false,
                _ => {}
            }
        }
        Ok(Styles { by_id })
    }

    /// Follows `basedOn` (at most 16 steps) until `pick` finds something.
    fn inherited<T>(&self, id: &str, pick: impl Fn(&StyleInfo) -> Option<T>) -> Option<T> {
        let mut id = id.to_string();
        for _ in 0..16 {
            let s = self.by_id.get(&id)?;
            if let Some(v) = pick(s) {
                return Some(v);
            }
            id = s.based_on.clone()?;
        }
        None
    }

    /// Heading level (1-based) of a paragraph style: `Title`, `heading N` by name or id, or an
    /// outline level.
    fn heading_level(&self, id: &str) -> Option<usize> {
        let by_name = |n: &str| -> Option<usize> {
            let n = n.trim();
            if n == "title" {
                return Some(1);
            }
            let rest = n.strip_prefix("heading")?.trim();
            rest.parse::<usize>().ok().filter(|l| (1..=9).contains(l))
        };
        if let Some(l) = by_name(&id.to_lowercase()) {
            return Some(l);
        }
        self.inherited(id, |s| {
            by_name(&s.name).or_else(|| s.outline.filter(|&o| o < 9).map(|o| o + 1))
        })
    }

    /// `Some(ordered)` for list paragraph styles without numbering of their own.
    fn list_style(&self, id: &str) -> Option<bool> {
        let name = self
            .by_id
            .get(id)
            .map(|s| s.name.clone())
            .unwrap_or_else(|| id.to_lowercase());
        let compact = name.replace(' ', "");
        if compact.starts_with("listbullet") {
            Some(false)
        } else if compact.starts_with("listnumber") {
            Some(true)
        } else {
            None
        }
    }
}

fn on(t: &Tag) -> bool {
    !matches!(t.attr("val"), Some("0" | "false" | "off" | "none"))
}

/// Numbering definitions: numId -> abstractNumId -> level -> ordered?
#[derive(Debug, Default)]
struct Numbering {
    num_to_abstract: HashMap<String, String>,
    ordered: HashMap<(String, usize), bool>,
}

impl Numbering {
    fn parse(text: &str) -> Result<Self, String> {
        let mut n = Numbering::default();
        let mut p = Pull::new(text);
        let mut abs: Option<String> = None;
        let mut num: Option<String> = None;
        let mut lvl: usize = 0;
        while let Some(ev) = p.next()? {
            match ev {
                Ev::Start(t) => match t.name.as_str() {
                    "abstractNum" => abs = t.attr("abstractNumId").map(str::to_string),
                    "num" => num = t.attr("numId").map(str::to_string),
                    "abstractNumId" => {
                        if let (Some(id), Some(v)) = (&num, t.attr("val")) {
                            n.num_to_abstract.insert(id.clone(), v.to_string());
                        }
                    }
                    "lvl" => lvl = t.attr("ilvl").and_then(|v| v.parse().ok()).unwrap_or(0),
                    "numFmt" => {
                        if let Some(a) = &abs {
                            let fmt = t.attr("val").unwrap_or("bullet");
                            n.ordered
                                .insert((a.clone(), lvl), !matches!(fmt, "bullet" | "none"));
                        }
                    }
                    _ => {}
                },
                Ev::End(name) if name == "abstractNum" => abs = None,
                Ev::End(name) if name == "num" => num = None,
                _ => {}
            }
        }
        Ok(n)
    }

    fn ordered(&self, num_id: &str, level: usize) -> bool {
        self.num_to_abstract
            .get(num_id)
            .and_then(|a| self.ordered.get(&(a.clone(), level)))
            .copied()
            .unwrap_or(false)
    }
}

/// A paragraph being read.
#[derive(Debug, Default)]
struct Para {
    style: Option<String>,
    num_id: Option<String>,
    ilvl: usize,
    outline: Option<usize>,
    runs: Vec<(String, bool, bool)>,
}

#[derive(Debug, Default)]
struct Run {
    bold: bool,
    italic: bool,
    text: String,
}

/// One markdown block; list items are joined with single newlines.
struct Block {
    text: String,
    list_item: bool,
}

/// Walks `document.xml`.
struct Body<'a> {
    styles: &'a Styles,
    numbering: &'a Numbering,
    links: &'a HashMap<String, String>,
    blocks: Vec<Block>,
    paras: Vec<Para>,
    run: Option<Run>,
    in_rpr: bool,
    link: Option<(String, usize)>,
    tables: Vec<Vec<Vec<Vec<String>>>>,
    counters: HashMap<String, Vec<usize>>,
    spans: Vec<usize>,
    skip_depth: usize,
}

const MAX_TABLE_NESTING: usize = 32;

impl<'a> Body<'a> {
    fn new(
        styles: &'a Styles,
        numbering: &'a Numbering,
        links: &'a HashMap<String, String>,
    ) -> Self {
        Body {
            styles,
            numbering,
            links,
            blocks: Vec::new(),
            paras: Vec::new(),
            run: None,
            in_rpr: false,
            link: None,
            tables: Vec::new(),
            counters: HashMap::new(),
            spans: Vec::new(),
            skip_depth: 0,
        }
    }

    fn render(mut self, xml: &str) -> Result<String, String> {
        let mut p = Pull::new(xml);
        while let Some(ev) = p.next()? {
            if self.skip_depth > 0 {
                match ev {
                    Ev::Start(_) => self.skip_depth += 1,
                    Ev::End(_) => self.skip_depth -= 1,
                    Ev::Text(_) => {}
                }
                continue;
            }
            match ev {
                Ev::Start(t) => self.start(t)?,
                Ev::End(n) => self.end(&n),
                Ev::Text(s) => {
                    if let Some(r) = self.run.as_mut() {
                        if r.text.len() < usize::MAX / 2 {
                            r.text.push_str(&s);
                        }
                    }
                }
            }
        }
        Ok(self.finish())
    }

    fn start(&mut self, t: Tag) -> Result<(), String> {
        let val = || t.attr("val").unwrap_or_default().to_string();
        match t.name.as_str() {
            // Deleted text, field instructions, footnote marks: not content.
            "delText" | "instrText" | "del" | "moveFrom" => self.skip_depth = 1,
            "p" => self.paras.push(Para::default()),
            "pStyle" => {
                if let Some(p) = self.paras.last_mut() {
                    p.style = Some(val());
                }
            }
            "numId" => {
                if let Some(p) = self.paras.last_mut() {
                    p.num_id = Some(val());
                }
            }
            "ilvl" => {
                if let Some(p) = self.paras.last_mut() {
                    p.ilvl = val().parse().unwrap_or(0).min(8);
                }
            }
            "outlineLvl" => {
                if let Some(p) = self.paras.last_mut() {
                    p.outline = val().parse().ok();
                }
            }
            "r" => self.run = Some(Run::default()),
            "rPr" => self.in_rpr = true,
            "b" if self.in_rpr => {
                if let Some(r) = self.run.as_mut() {
                    r.bold = on(&t);
                }
            }
            "i" if self.in_rpr => {
                if let Some(r) = self.run.as_mut() {
                    r.italic = on(&t);
                }
            }
            "rStyle" if self.in_rpr => {
                let id = val();
                let lower = id.to_lowercase();
                let bold = self
                    .styles
                    .inherited(&id, |s| s.bold.then_some(true))
                    .is_some()
                    || lower.contains("strong");
                let italic = self
                    .styles
                    .inherited(&id, |s| s.italic.then_some(true))
                    .is_some()
                    || lower.contains("emphasis");
                if let Some(r) = self.run.as_mut() {
                    r.bold |= bold;
                    r.italic |= italic;
                }
            }
            "tab" | "cr" | "noBreakHyphen" if !self.in_rpr => {
                self.push_text(if t.name == "noBreakHyphen" { "-" } else { " " })
            }
            "br" => self.push_text(" "),
            "hyperlink" => {
                let target = t.attr("id").and_then(|id| self.links.get(id)).cloned();
                if let (Some(target), Some(p)) = (target, self.paras.last()) {
                    self.link = Some((target, p.runs.len()));
                }
            }
            "tbl" => {
                if self.tables.len() >= MAX_TABLE_NESTING {
                    return Err(format!("tables nested deeper than {MAX_TABLE_NESTING}"));
                }
                self.tables.push(Vec::new());
            }
            "tr" => {
                if let Some(tbl) = self.tables.last_mut() {
                    tbl.push(Vec::new());
                }
            }
            "tc" => {
                if let Some(row) = self.tables.last_mut().and_then(|t| t.last_mut()) {
                    row.push(Vec::new());
                    self.spans.push(1);
                }
            }
            "gridSpan" => {
                if let Some(span) = self.spans.last_mut() {
                    *span = t
                        .attr("val")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(1)
                        .clamp(1, 64);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn push_text(&mut self, s: &str) {
        if let Some(r) = self.run.as_mut() {
            r.text.push_str(s);
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "rPr" => self.in_rpr = false,
            "r" => {
                if let (Some(r), Some(p)) = (self.run.take(), self.paras.last_mut()) {
                    if !r.text.is_empty() {
                        p.runs.push((r.text, r.bold, r.italic));
                    }
                }
            }
            "hyperlink" => {
                if let (Some((target, from)), Some(p)) = (self.link.take(), self.paras.last_mut()) {
                    if from < p.runs.len() {
                        let text: String = p.runs.drain(from..).map(|r| r.0).collect();
                        if !text.trim().is_empty() {
                            p.runs.push((
                                format!("[{}]({})", text.trim(), target.replace(' ', "%20")),
                                false,
                                false,
                            ));
                        }
                    }
                }
            }
            "tc" => {
                let span = self.spans.pop().unwrap_or(1);
                if let Some(row) = self.tables.last_mut().and_then(|t| t.last_mut()) {
                    for _ in 1..span {
                        row.push(Vec::new());
                    }
                }
            }
            "p" => {
                if let Some(p) = self.paras.pop() {
                    self.paragraph(p);
                }
            }
            "tbl" => {
                if let Some(rows) = self.tables.pop() {
                    let rows: Vec<Vec<String>> = rows
                        .into_iter()
                        .map(|r| r.into_iter().map(|c| c.join(" ")).collect())
                        .collect();
                    let rows: Vec<Vec<String>> = rows
                        .into_iter()
                        .filter(|r| r.iter().any(|c| !c.trim().is_empty()))
                        .collect();
                    if let Some(cell) = self.current_cell() {
                        // A table inside a table cell: its rows become text of that cell.
                        for r in rows {
                            cell.push(r.join(" / "));
                        }
                    } else if !rows.is_empty() {
                        self.blocks.push(Block {
                            text: table(&rows),
                            list_item: false,
                        });
                    }
                }
            }
            _ => {}
        }
    }

    fn current_cell(&mut self) -> Option<&mut Vec<String>> {
        self.tables.last_mut()?.last_mut()?.last_mut()
    }

    fn paragraph(&mut self, p: Para) {
        let text = render_runs(&p.runs);
        if text.trim().is_empty() {
            return;
        }
        if let Some(cell) = self.current_cell() {
            cell.push(text.trim().to_string());
            return;
        }
        let style = p.style.clone().unwrap_or_default();
        let style_num = self.styles.inherited(&style, |s| s.num.clone());
        let num = p
            .num_id
            .clone()
            .map(|id| (id, p.ilvl))
            .or(style_num)
            .filter(|(id, _)| !id.is_empty() && id != "0");
        let level = p
            .outline
            .filter(|&o| o < 9)
            .map(|o| o + 1)
            .or_else(|| self.styles.heading_level(&style));
        // Heading styles often carry outline numbering (numPr): a heading stays a heading.
        if let Some(level) = level {
            self.counters.clear();
            self.blocks.push(Block {
                text: heading(level, strip_emphasis(&text)),
                list_item: false,
            });
            return;
        }
        let list = match &num {
            Some((id, lvl)) => Some((id.clone(), *lvl, self.numbering.ordered(id, *lvl))),
            None => self
                .styles
                .list_style(&style)
                .map(|ordered| (format!("style:{style}"), 0, ordered)),
        };
        match list {
            Some((id, lvl, ordered)) => {
                let counters = self.counters.entry(id).or_default();
                counters.resize(lvl + 1, 0);
                counters[lvl] += 1;
                let marker = if ordered {
                    format!("{}.", counters[lvl])
                } else {
                    "-".to_string()
                };
                let indent = "    ".repeat(lvl);
                self.blocks.push(Block {
                    text: format!("{indent}{marker} {}", text.trim()),
                    list_item: true,
                });
            }
            None => {
                self.counters.clear();
                self.blocks.push(Block {
                    text: text.trim().to_string(),
                    list_item: false,
                });
            }
        }
    }

    fn finish(self) -> String {
        let mut merged: Vec<String> = Vec::new();
        let mut prev_list = false;
        for b in self.blocks {
            match merged.last_mut() {
                Some(last) if b.list_item && prev_list => {
                    last.push('\n');
                    last.push_str(&b.text);
                }
                _ => merged.push(b.text),
            }
            prev_list = b.list_item;
        }
        join_blocks(&merged)
    }
}

/// Runs to markdown text, merging neighbours with the same emphasis.
fn render_runs(runs: &[(String, bool, bool)]) -> String {
    let mut groups: Vec<(String, bool, bool)> = Vec::new();
    for (text, b, i) in runs {
        match groups.last_mut() {
            Some(last) if last.1 == *b && last.2 == *i => last.0.push_str(text),
            _ => groups.push((text.clone(), *b, *i)),
        }
    }
    let mut out = String::new();
    for (text, b, i) in groups {
        let trimmed = text.trim();
        if trimmed.is_empty() || (!b && !i) {
            out.push_str(&text);
            continue;
        }
        let mark = match (b, i) {
            (true, true) => "***",
            (true, false) => "**",
            _ => "*",
        };
        let lead = &text[..text.len() - text.trim_start().len()];
        let trail = &text[text.trim_end().len()..];
        out.push_str(lead);
        out.push_str(mark);
        out.push_str(trimmed);
        out.push_str(mark);
        out.push_str(trail);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Headings are emphasised already: drop `*` wrappers around the whole text.
fn strip_emphasis(text: &str) -> &str {
    let t = text.trim();
    for m in ["***", "**", "*"] {
        if let Some(inner) = t.strip_prefix(m).and_then(|s| s.strip_suffix(m)) {
            if !inner.contains('*') {
                return inner;
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn localised_heading_styles_are_found_by_name() {
        let styles = Styles::parse(
            r#"<w:styles xmlns:w="w"><w:style w:styleId="Ttulo2"><w:name w:val="heading 2"/></w:style>
               <w:style w:styleId="Mio"><w:name w:val="Mi estilo"/><w:basedOn w:val="Ttulo2"/></w:style>
               <w:style w:styleId="Esquema"><w:name w:val="x"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style></w:styles>"#,
        )
        .unwrap();
        assert_eq!(styles.heading_level("Ttulo2"), Some(2));
        assert_eq!(styles.heading_level("Mio"), Some(2));
        assert_eq!(styles.heading_level("Esquema"), Some(3));
        assert_eq!(styles.heading_level("Normal"), None);
        assert_eq!(styles.heading_level("Heading4"), Some(4));
    }

    #[test]
    fn runs_merge_emphasis() {
        let runs = vec![
            ("Hello ".to_string(), false, false),
            ("bo".to_string(), true, false),
            ("ld".to_string(), true, false),
            (" end".to_string(), false, false),
        ];
        assert_eq!(render_runs(&runs), "Hello **bold** end");
    }
}

//! XLSX (SpreadsheetML) to markdown: each sheet a `## <name>` section with a GFM table (first
//! non-empty row as header), shared strings resolved, formulas shown as their cached values,
//! date-formatted numbers as ISO dates, empty rows and columns dropped.

use super::dates::excel_serial;
use super::markdown::{heading, join_blocks, table};
use super::ooxml::{core_properties, main_part, rels_of};
use super::xml::{Ev, Pull};
use super::zipped::Package;
use super::{Converted, Limits, SourceType};
use crate::ResourceError;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Converts an XLSX workbook.
pub(crate) fn convert(
    bytes: &[u8],
    name: &str,
    limits: &Limits,
) -> Result<Converted, ResourceError> {
    let mut pkg = Package::open(bytes, name, limits)?;
    let wb_path = main_part(&mut pkg, "xl/workbook.xml")?;
    let corrupt = |part: &str, e: String| ResourceError::corrupt(name, format!("{part}: {e}"));
    let wb_text = pkg.require_text(&wb_path)?;
    let workbook = parse_workbook(&wb_text).map_err(|e| corrupt(&wb_path, e))?;
    let rels = rels_of(&mut pkg, &wb_path)?;
    let target = |kind: &str| {
        rels.iter()
            .find(|r| r.kind.ends_with(kind) && !r.external)
            .map(|r| r.target.clone())
    };
    let shared = match target("/sharedStrings") {
        Some(p) => match pkg.read_text(&p)? {
            Some(t) => parse_shared_strings(&t).map_err(|e| corrupt(&p, e))?,
            None => Vec::new(),
        },
        None => Vec::new(),
    };
    let mut warnings = Vec::new();
    let date_styles = match target("/styles") {
        Some(p) => match pkg.read_text(&p)? {
            Some(t) => parse_date_styles(&t).unwrap_or_else(|e| {
                warnings.push(format!("number formats ignored: {e}"));
                Vec::new()
            }),
            None => Vec::new(),
        },
        None => Vec::new(),
    };
    let ctx = CellContext {
        shared: &shared,
        date_styles: &date_styles,
        date1904: workbook.date1904,
    };

    let mut blocks = Vec::new();
    let mut cells_left = limits.max_cells;
    for sheet in &workbook.sheets {
        let Some(rel) = rels.iter().find(|r| r.id == sheet.rel_id && !r.external) else {
            warnings.push(format!("sheet {:?} has no part", sheet.name));
            continue;
        };
        if !rel.kind.ends_with("/worksheet") {
            continue; // chart sheets and dialog sheets hold no cells
        }
        let Some(text) = pkg.read_text(&rel.target)? else {
            warnings.push(format!(
                "sheet {:?}: missing part {}",
                sheet.name, rel.target
            ));
            continue;
        };
        let grid = parse_sheet(&text, &ctx, &mut cells_left).map_err(|e| match e {
            SheetError::Corrupt(e) => corrupt(&rel.target, e),
            SheetError::TooManyCells => ResourceError::too_large(
                name,
                format!("more than {} non-empty cells", limits.max_cells),
            ),
        })?;
        blocks.push(heading(2, &sheet.name));
        if sheet.hidden {
            warnings.push(format!("sheet {:?} is hidden", sheet.name));
        }
        blocks.push(render_grid(&grid));
    }
    let mut meta = core_properties(&mut pkg)?;
    meta.sheet_count = Some(workbook.sheets.len());
    Ok(Converted {
        markdown: join_blocks(&blocks),
        source_type: SourceType::Xlsx,
        metadata: meta,
        warnings,
        html: None,
    })
}

struct SheetRef {
    name: String,
    rel_id: String,
    hidden: bool,
}

struct Workbook {
    sheets: Vec<SheetRef>,
    date1904: bool,
}

fn parse_workbook(text: &str) -> Result<Workbook, String> {
    let mut wb = Workbook {
        sheets: Vec::new(),
        date1904: false,
    };
    let mut p = Pull::new(text);
    while let Some(ev) = p.next()? {
        if let Ev::Start(t) = ev {
            match t.name.as_str() {
                "sheet" => wb.sheets.push(SheetRef {
                    name: t.attr("name").unwrap_or("Sheet").to_string(),
                    rel_id: t.attr("id").unwrap_or_default().to_string(),
                    hidden: matches!(t.attr("state"), Some("hidden" | "veryHidden")),
                }),
                "workbookPr" => wb.date1904 = matches!(t.attr("date1904"), Some("1" | "true")),
                _ => {}
            }
        }
    }
    Ok(wb)
}

/// `<si>` entries: plain `<t>` or rich-text runs, phonetic guides (`rPh`) left out.
fn parse_shared_strings(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut p = Pull::new(text);
    let mut cur: Option<String> = None;
    let mut in_t = false;
    let mut in_phonetic = false;
    while let Some(ev) = p.next()? {
        match ev {
            Ev::Start(t) => match t.name.as_str() {
                "si" => cur = Some(String::new()),
                "t" => in_t = true,
                "rPh" => in_phonetic = true,
                _ => {}
            },
            Ev::End(n) => match n.as_str() {
                "si" => out.extend(cur.take()),
                "t" => in_t = false,
                "rPh" => in_phonetic = false,
                _ => {}
            },
            Ev::Text(s) => {
                if let (true, false, Some(c)) = (in_t, in_phonetic, cur.as_mut()) {
                    c.push_str(&s);
                }
            }
        }
    }
    Ok(out)
}

/// What a cell style's number format shows a number as.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shown {
    Number,
    Date,
    Time,
}

/// For each cell format (`cellXfs` index), how its number format shows numbers.
fn parse_date_styles(text: &str) -> Result<Vec<Shown>, String> {
    let mut custom: HashMap<u32, String> = HashMap::new();
    let mut xfs = Vec::new();
    let mut in_cell_xfs = false;
    let mut p = Pull::new(text);
    while let Some(ev) = p.next()? {
        match ev {
            Ev::Start(t) => match t.name.as_str() {
                "numFmt" => {
                    if let (Some(id), Some(code)) = (
                        t.attr("numFmtId").and_then(|v| v.parse().ok()),
                        t.attr("formatCode"),
                    ) {
                        custom.insert(id, code.to_string());
                    }
                }
                "cellXfs" => in_cell_xfs = true,
                "xf" if in_cell_xfs => {
                    let id: u32 = t.attr("numFmtId").and_then(|v| v.parse().ok()).unwrap_or(0);
                    xfs.push(match custom.get(&id) {
                        Some(code) => shown_by_code(code),
                        None => shown_builtin(id),
                    });
                }
                _ => {}
            },
            Ev::End(n) if n == "cellXfs" => in_cell_xfs = false,
            _ => {}
        }
    }
    Ok(xfs)
}

fn shown_builtin(id: u32) -> Shown {
    match id {
        14..=17 | 22 | 27..=31 | 34..=36 | 50..=58 => Shown::Date,
        18..=21 | 32 | 33 | 45..=47 => Shown::Time,
        _ => Shown::Number,
    }
}

/// Classifies a format code by the letters outside quotes, escapes and `[...]` sections.
fn shown_by_code(code: &str) -> Shown {
    let mut plain = String::new();
    let mut chars = code.chars();
    let mut in_quote = false;
    let mut in_bracket = false;
    while let Some(c) = chars.next() {
        match c {
            '"' => in_quote = !in_quote,
            '\\' | '_' | '*' if !in_quote => {
                chars.next();
            }
            '[' if !in_quote => in_bracket = true,
            ']' if !in_quote => in_bracket = false,
            c if !in_quote && !in_bracket => plain.push(c.to_ascii_lowercase()),
            _ => {}
        }
    }
    // Only the first section (positive numbers) matters.
    let first = plain.split(';').next().unwrap_or("");
    if first.contains("general") {
        return Shown::Number;
    }
    if first.contains('y')
        || first.contains('d')
        || (first.contains('m') && !first.contains('h') && !first.contains('s'))
    {
        Shown::Date
    } else if first.contains('h') || first.contains('s') {
        Shown::Time
    } else {
        Shown::Number
    }
}

struct CellContext<'a> {
    shared: &'a [String],
    date_styles: &'a [Shown],
    date1904: bool,
}

enum SheetError {
    Corrupt(String),
    TooManyCells,
}

impl From<String> for SheetError {
    fn from(e: String) -> Self {
        SheetError::Corrupt(e)
    }
}

/// Largest row and column numbers a sheet may have (Excel's limits).
const MAX_ROW: u32 = 1_048_576;
const MAX_COL: u32 = 16_384;

/// Non-empty cells keyed by (row, column), both 1-based.
type Grid = BTreeMap<(u32, u32), String>;

fn parse_sheet(
    text: &str,
    ctx: &CellContext<'_>,
    cells_left: &mut usize,
) -> Result<Grid, SheetError> {
    let mut grid = Grid::new();
    let mut p = Pull::new(text);
    let mut row: u32 = 0;
    let mut col: u32 = 0;
    let mut cell: Option<(u32, String, usize)> = None; // column, type, style
    let mut value = String::new();
    let mut inline = String::new();
    let mut in_v = false;
    let mut in_is_t = false;
    let mut in_sheet_data = false;
    while let Some(ev) = p.next()? {
        match ev {
            Ev::Start(t) => match t.name.as_str() {
                "sheetData" => in_sheet_data = true,
                "row" if in_sheet_data => {
                    row = t
                        .attr("r")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(row + 1)
                        .clamp(1, MAX_ROW);
                    col = 0;
                }
                "c" if in_sheet_data => {
                    col = match t.attr("r").and_then(parse_ref) {
                        Some((c, r)) => {
                            row = r;
                            c
                        }
                        None => (col + 1).min(MAX_COL),
                    };
                    let kind = t.attr("t").unwrap_or("n").to_string();
                    let style = t.attr("s").and_then(|v| v.parse().ok()).unwrap_or(0);
                    cell = Some((col, kind, style));
                    value.clear();
                    inline.clear();
                }
                "v" => in_v = true,
                "t" if cell.is_some() => in_is_t = true,
                _ => {}
            },
            Ev::End(n) => match n.as_str() {
                "sheetData" => in_sheet_data = false,
                "v" => in_v = false,
                "t" => in_is_t = false,
                "c" => {
                    if let Some((c, kind, style)) = cell.take() {
                        let shown = cell_text(&kind, style, value.trim(), &inline, ctx);
                        if !shown.trim().is_empty() {
                            if *cells_left == 0 {
                                return Err(SheetError::TooManyCells);
                            }
                            *cells_left -= 1;
                            grid.insert((row.max(1), c), shown);
                        }
                    }
                }
                _ => {}
            },
            Ev::Text(s) => {
                if in_v {
                    value.push_str(&s);
                } else if in_is_t {
                    inline.push_str(&s);
                }
            }
        }
    }
    Ok(grid)
}

/// `B12` to (column 2, row 12).
fn parse_ref(r: &str) -> Option<(u32, u32)> {
    let letters: String = r.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    if letters.is_empty() || letters.len() > 3 {
        return None;
    }
    let col = letters.bytes().fold(0u32, |acc, b| {
        acc * 26 + u32::from(b.to_ascii_uppercase() - b'A' + 1)
    });
    let row: u32 = r[letters.len()..].parse().ok()?;
    ((1..=MAX_COL).contains(&col) && (1..=MAX_ROW).contains(&row)).then_some((col, row))
}

fn cell_text(kind: &str, style: usize, v: &str, inline: &str, ctx: &CellContext<'_>) -> String {
    match kind {
        "s" => v
            .parse::<usize>()
            .ok()
            .and_then(|i| ctx.shared.get(i))
            .cloned()
            .unwrap_or_default(),
        "inlineStr" => inline.to_string(),
        "str" | "e" | "d" => v.to_string(),
        "b" => match v {
            "1" => "TRUE".into(),
            "0" => "FALSE".into(),
            other => other.into(),
        },
        _ => {
            let Ok(n) = v.parse::<f64>() else {
                return v.to_string();
            };
            match ctx.date_styles.get(style) {
                Some(Shown::Date) => excel_serial(n, ctx.date1904).unwrap_or_else(|| number(n)),
                Some(Shown::Time) if (0.0..1.0).contains(&n) => {
                    let secs = (n * 86_400.0).round() as u64;
                    format!(
                        "{:02}:{:02}:{:02}",
                        secs / 3600 % 24,
                        secs % 3600 / 60,
                        secs % 60
                    )
                }
                Some(Shown::Time) => excel_serial(n, ctx.date1904).unwrap_or_else(|| number(n)),
                _ => number(n),
            }
        }
    }
}

/// A number as a spreadsheet shows it: at most 15 significant digits, no exponent for
/// ordinary magnitudes.
fn number(n: f64) -> String {
    if n == n.trunc() && n.abs() < 1e15 {
        return format!("{}", n as i64);
    }
    let rounded: f64 = format!("{n:.14e}").parse().unwrap_or(n);
    format!("{rounded}")
}

/// The grid as a GFM table, empty rows and columns dropped; very sparse sheets (whose table
/// would be mostly empty) as a list of `A1: value` lines instead.
fn render_grid(grid: &Grid) -> String {
    if grid.is_empty() {
        return "(empty sheet)".to_string();
    }
    let rows: BTreeSet<u32> = grid.keys().map(|k| k.0).collect();
    let cols: BTreeSet<u32> = grid.keys().map(|k| k.1).collect();
    let area = rows.len().saturating_mul(cols.len());
    if area > (grid.len() * 4).max(10_000) {
        return grid
            .iter()
            .map(|((r, c), v)| format!("- {}{r}: {}", col_name(*c), super::markdown::one_line(v)))
            .collect::<Vec<_>>()
            .join("\n");
    }
    let cols: Vec<u32> = cols.into_iter().collect();
    let table_rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            cols.iter()
                .map(|c| grid.get(&(*r, *c)).cloned().unwrap_or_default())
                .collect()
        })
        .collect();
    table(&table_rows)
}

fn col_name(mut c: u32) -> String {
    let mut s = Vec::new();
    while c > 0 {
        let rem = (c - 1) % 26;
        s.push(b'A' + rem as u8);
        c = (c - 1) / 26;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_and_names() {
        assert_eq!(parse_ref("B12"), Some((2, 12)));
        assert_eq!(parse_ref("AA1"), Some((27, 1)));
        assert_eq!(parse_ref("XFE1"), None);
        assert_eq!(parse_ref("A0"), None);
        assert_eq!(col_name(27), "AA");
    }

    #[test]
    fn format_codes() {
        assert_eq!(shown_by_code("yyyy\\-mm\\-dd"), Shown::Date);
        assert_eq!(shown_by_code("[$-409]h:mm:ss AM/PM"), Shown::Time);
        assert_eq!(shown_by_code("#,##0.00\"m\""), Shown::Number);
        assert_eq!(shown_by_code("General"), Shown::Number);
        assert_eq!(shown_by_code("[Red]0.0;\"day\""), Shown::Number);
        assert_eq!(shown_builtin(14), Shown::Date);
    }

    #[test]
    fn numbers_as_shown() {
        assert_eq!(number(0.1 + 0.2), "0.3");
        assert_eq!(number(433.5), "433.5");
        assert_eq!(number(180.0), "180");
    }

    #[test]
    fn sparse_sheets_become_lists() {
        let mut g = Grid::new();
        g.insert((1, 1), "a".into());
        g.insert((100_000, 16_000), "z".into());
        for i in 0..200 {
            g.insert((i * 7 + 2, i + 2), "x".into());
        }
        let md = render_grid(&g);
        assert!(md.starts_with("- A1: a\n"), "{md}");
    }
}

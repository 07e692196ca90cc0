//! PDF to markdown, in pure Rust: lopdf parses the file, pdf-extract decodes the text (fonts,
//! encodings, ToUnicode maps) and positions each glyph, and [`super::pdf_layout`] rebuilds
//! lines, paragraphs, tables and headings. Metadata comes from the Info dictionary, falling back
//! to XMP, and the catalog's `/Lang`.
//!
//! Untrusted input is tamed before pdf-extract sees it: compressed streams are inflated while
//! loading under the document's byte allowance (so a stream bomb is `too large`, and nothing is
//! inflated twice), image data is dropped, the page count is capped before pages are walked,
//! inherited `MediaBox`/`Resources` are resolved onto each page (pdf-extract would panic or
//! recurse on broken page trees), and form XObjects that draw themselves, or nest deeper than
//! [`MAX_FORM_DEPTH`], lose their `Do` operators (pdf-extract would recurse without end).

use super::dates::pdf_date;
use super::pdf_layout::{render, Glyph, Page};
use super::xml::{Ev, Pull};
use super::{Converted, DocMeta, Limits, SourceType};
use crate::ResourceError;
use flate2::read::ZlibDecoder;
use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, LoadOptions, Object, ObjectId, Stream};
use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Deepest chain of form XObjects drawn inside each other that is followed.
pub(crate) const MAX_FORM_DEPTH: usize = 24;

/// Converts a PDF document.
pub(crate) fn convert(
    bytes: &[u8],
    name: &str,
    limits: &Limits,
) -> Result<Converted, ResourceError> {
    let mut doc = load(bytes, name, limits)?;
    let mut warnings = Vec::new();

    let claimed = claimed_pages(&doc);
    if claimed > limits.max_pages as i64 {
        return Err(ResourceError::too_large(
            name,
            format!("claims {claimed} pages, limit {}", limits.max_pages),
        ));
    }
    let pages: Vec<(u32, ObjectId)> = doc
        .page_iter()
        .take(limits.max_pages + 1)
        .enumerate()
        .map(|(i, id)| (i as u32 + 1, id))
        .collect();
    if pages.len() > limits.max_pages {
        return Err(ResourceError::too_large(
            name,
            format!("more than {} pages", limits.max_pages),
        ));
    }
    if pages.is_empty() {
        return Err(ResourceError::corrupt(name, "no pages"));
    }
    let mut content_total: u64 = 0;
    for &(_, id) in &pages {
        content_total = content_total.saturating_add(content_len(&doc, id));
    }
    if content_total > limits.max_uncompressed_bytes {
        return Err(ResourceError::too_large(
            name,
            format!(
                "page content streams total {content_total} bytes, limit {}",
                limits.max_uncompressed_bytes
            ),
        ));
    }
    for &(_, id) in &pages {
        settle_page(&mut doc, id);
    }
    let dangling = null_dangling_references(&mut doc);
    if dangling > 0 {
        warnings.push(format!(
            "{dangling} references to missing objects read as null"
        ));
    }
    let cut = break_form_cycles(&mut doc);
    if cut > 0 {
        warnings.push(format!(
            "{cut} self-drawing or too deeply nested form XObjects not followed"
        ));
    }

    let meta = metadata(&doc, pages.len());
    let mut dev = Collector {
        pages: Vec::new(),
        glyphs: Vec::new(),
        number: 0,
        chars: 0,
        max_chars: max_chars(limits),
    };
    // Page by page, so that one unreadable page (or a panic in the font code) costs that page only.
    let mut failed = 0usize;
    for &(number, _) in &pages {
        let result = catch_unwind(AssertUnwindSafe(|| {
            pdf_extract::output_doc_page(&doc, &mut dev, number)
        }));
        let problem = match result {
            Ok(Ok(())) => None,
            Ok(Err(_)) if dev.chars > dev.max_chars => {
                return Err(ResourceError::too_large(
                    name,
                    format!("more than {} characters of text", dev.max_chars),
                ));
            }
            Ok(Err(e)) => Some(e.to_string()),
            Err(panic) => Some(super::panic_message(panic.as_ref())),
        };
        if let Some(problem) = problem {
            failed += 1;
            warnings.push(format!("page {number} skipped: {problem}"));
            dev.glyphs.clear();
        }
    }
    if failed == pages.len() {
        let first = warnings
            .iter()
            .find(|w| w.starts_with("page "))
            .cloned()
            .unwrap_or_default();
        return Err(ResourceError::corrupt(
            name,
            format!("no readable page ({first})"),
        ));
    }
    let markdown = render(&dev.pages);
    if dev.chars == 0 {
        warnings.push("no text layer (a scanned document needs OCR)".to_string());
    }
    Ok(Converted {
        markdown,
        source_type: SourceType::Pdf,
        metadata: meta,
        warnings,
        html: None,
    })
}

/// Glyphs allowed out of one document: a 32nd of the inflated-bytes allowance (8 M for the
/// default, some 2,500 dense pages), at least 1 M. A glyph is held as ~60 bytes while its page
/// is laid out, so this also bounds memory.
fn max_chars(limits: &Limits) -> usize {
    usize::try_from(limits.max_uncompressed_bytes / 32)
        .unwrap_or(usize::MAX)
        .max(1 << 20)
}

thread_local! {
    /// The allowance used by [`inflate_on_load`] while one document loads on this thread.
    static ALLOWANCE: RefCell<Option<Allowance>> = const { RefCell::new(None) };
}

struct Allowance {
    left: u64,
    exceeded: bool,
}

fn load(bytes: &[u8], name: &str, limits: &Limits) -> Result<Document, ResourceError> {
    if !bytes.windows(5).take(1024).any(|w| w == b"%PDF-") {
        return Err(ResourceError::corrupt(name, "no %PDF header"));
    }
    ALLOWANCE.with(|a| {
        *a.borrow_mut() = Some(Allowance {
            left: limits.max_uncompressed_bytes,
            exceeded: false,
        })
    });
    let loaded = Document::load_mem_with_options(bytes, LoadOptions::with_filter(inflate_on_load));
    let exceeded = ALLOWANCE.with(|a| a.borrow_mut().take().is_some_and(|a| a.exceeded));
    if exceeded {
        return Err(ResourceError::too_large(
            name,
            format!(
                "compressed streams inflate past {} bytes",
                limits.max_uncompressed_bytes
            ),
        ));
    }
    let doc = loaded.map_err(|e| ResourceError::corrupt(name, format!("unreadable PDF: {e}")))?;
    if doc.is_encrypted() {
        return Err(ResourceError::corrupt(
            name,
            "encrypted PDF: a password is needed",
        ));
    }
    if doc.catalog().is_err() {
        return Err(ResourceError::corrupt(name, "no document catalog"));
    }
    Ok(doc)
}

/// Load filter: inflates `FlateDecode` streams in place within the allowance (dropping the
/// object and flagging the document when it runs out) and empties image streams.
fn inflate_on_load(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
    if let Object::Stream(stream) = object {
        if is_image(stream) {
            stream.dict.remove(b"Filter");
            stream.dict.remove(b"DecodeParms");
            stream.set_content(Vec::new());
        } else if let Ok(filters) = stream.filters() {
            if filters.first() == Some(&&b"FlateDecode"[..]) {
                let single = filters.len() == 1 && !stream.dict.has(b"DecodeParms");
                let left = ALLOWANCE.with(|a| a.borrow().as_ref().map_or(u64::MAX, |a| a.left));
                match inflate_bounded(&stream.content, left) {
                    Inflated::Done(data) => {
                        ALLOWANCE.with(|a| {
                            if let Some(a) = a.borrow_mut().as_mut() {
                                a.left = a.left.saturating_sub(data.len() as u64);
                            }
                        });
                        if single {
                            stream.set_plain_content(data);
                        }
                    }
                    Inflated::TooLarge => {
                        ALLOWANCE.with(|a| {
                            if let Some(a) = a.borrow_mut().as_mut() {
                                a.exceeded = true;
                            }
                        });
                        return None;
                    }
                    // Broken compressed data: lopdf falls back to the raw bytes later.
                    Inflated::Broken => {}
                }
            }
        }
    }
    // lopdf keeps the object it passed in (changed in place) for top-level objects and uses
    // the returned one only for objects inside object streams, which are never streams.
    match object {
        Object::Stream(_) => Some((id, Object::Null)),
        other => Some((id, other.clone())),
    }
}

fn is_image(stream: &Stream) -> bool {
    matches!(
        stream.dict.get(b"Subtype").and_then(Object::as_name),
        Ok(b"Image")
    )
}

enum Inflated {
    Done(Vec<u8>),
    TooLarge,
    Broken,
}

/// Inflates zlib (or, failing that, raw deflate) data, giving up past `limit` bytes.
fn inflate_bounded(data: &[u8], limit: u64) -> Inflated {
    let mut out = Vec::new();
    let read = ZlibDecoder::new(data)
        .take(limit.saturating_add(1))
        .read_to_end(&mut out);
    let read = match read {
        Ok(n) => Ok(n),
        Err(_) if out.is_empty() => {
            out.clear();
            flate2::read::DeflateDecoder::new(data)
                .take(limit.saturating_add(1))
                .read_to_end(&mut out)
        }
        // Truncated streams are common; keep what inflated.
        Err(_) => Ok(out.len()),
    };
    match read {
        Ok(n) if n as u64 > limit => Inflated::TooLarge,
        Ok(_) => Inflated::Done(out),
        Err(_) => Inflated::Broken,
    }
}

/// `/Count` of the root page tree node, 0 when absent.
fn claimed_pages(doc: &Document) -> i64 {
    doc.catalog()
        .ok()
        .and_then(|c| c.get(b"Pages").ok())
        .and_then(|p| doc.dereference(p).ok())
        .and_then(|(_, p)| p.as_dict().ok())
        .and_then(|d| d.get(b"Count").ok())
        .and_then(|c| c.as_i64().ok())
        .unwrap_or(0)
}

/// Bytes of a page's content streams (already inflated on load).
fn content_len(doc: &Document, page: ObjectId) -> u64 {
    doc.get_page_contents(page)
        .iter()
        .filter_map(|id| doc.get_object(*id).ok())
        .filter_map(|o| o.as_stream().ok())
        .map(|s| s.content.len() as u64 + 1)
        .sum()
}

/// Puts the inherited `MediaBox` (a valid one, else US Letter) and `Resources` on the page
/// itself, so pdf-extract needs no walk up a possibly cyclic `Parent` chain.
fn settle_page(doc: &mut Document, page: ObjectId) {
    let media_box = inherited(doc, page, b"MediaBox")
        .and_then(|o| {
            let arr = doc.dereference(&o).ok()?.1.as_array().ok()?.clone();
            let nums: Vec<f32> = arr
                .iter()
                .filter_map(|v| doc.dereference(v).ok()?.1.as_float().ok())
                .collect();
            (nums.len() == 4 && nums.iter().all(|n| n.is_finite())).then_some(nums)
        })
        .unwrap_or_else(|| vec![0.0, 0.0, 612.0, 792.0]);
    let resources = inherited(doc, page, b"Resources").filter(|r| {
        doc.dereference(r)
            .ok()
            .is_some_and(|(_, o)| o.as_dict().is_ok())
    });
    if let Ok(Object::Dictionary(d)) = doc.get_object_mut(page) {
        d.set(
            "MediaBox",
            Object::Array(media_box.into_iter().map(Object::Real).collect()),
        );
        match resources {
            Some(r) => d.set("Resources", r),
            None => {
                d.remove(b"Resources");
            }
        }
        // ArtBox is read by pdf-extract without checks; it is not needed for text.
        d.remove(b"ArtBox");
        d.remove(b"Parent");
    }
}

/// Replaces references to objects that do not exist by `null` (as the PDF specification
/// reads them); pdf-extract would panic on them. Returns how many were replaced.
fn null_dangling_references(doc: &mut Document) -> usize {
    let ids: HashSet<ObjectId> = doc.objects.keys().copied().collect();
    let mut replaced = 0;
    for object in doc.objects.values_mut() {
        let mut stack: Vec<&mut Object> = vec![object];
        while let Some(o) = stack.pop() {
            match o {
                Object::Reference(id) if !ids.contains(id) => {
                    *o = Object::Null;
                    replaced += 1;
                }
                Object::Array(items) => stack.extend(items.iter_mut()),
                Object::Dictionary(d) => stack.extend(d.iter_mut().map(|(_, v)| v)),
                Object::Stream(s) => stack.extend(s.dict.iter_mut().map(|(_, v)| v)),
                _ => {}
            }
        }
    }
    replaced
}

/// A page attribute from the page or its ancestors (at most 64 levels, cycles stop it).
fn inherited(doc: &Document, page: ObjectId, key: &[u8]) -> Option<Object> {
    let mut id = page;
    let mut seen = HashSet::new();
    for _ in 0..64 {
        if !seen.insert(id) {
            return None;
        }
        let dict = doc.get_dictionary(id).ok()?;
        if let Ok(v) = dict.get(key) {
            return Some(v.clone());
        }
        id = dict.get(b"Parent").ok()?.as_reference().ok()?;
    }
    None
}

/// Strips `Do` from form XObjects that can reach themselves or sit deeper than
/// [`MAX_FORM_DEPTH`]; returns how many were changed.
fn break_form_cycles(doc: &mut Document) -> usize {
    // Form id -> forms it draws by name through its own resources; forms without resources
    // of their own (which would borrow the caller's) count as possibly cyclic.
    let mut edges: HashMap<ObjectId, Vec<ObjectId>> = HashMap::new();
    let mut suspect: HashSet<ObjectId> = HashSet::new();
    for (&id, obj) in &doc.objects {
        let Ok(stream) = obj.as_stream() else {
            continue;
        };
        if !matches!(
            stream.dict.get(b"Subtype").and_then(Object::as_name),
            Ok(b"Form")
        ) {
            continue;
        }
        let names = drawn_names(&stream.content);
        if names.is_empty() {
            edges.insert(id, Vec::new());
            continue;
        }
        let xobjects = stream
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|r| doc.dereference(r).ok())
            .and_then(|(_, r)| r.as_dict().ok())
            .and_then(|r| r.get(b"XObject").ok())
            .and_then(|x| doc.dereference(x).ok())
            .and_then(|(_, x)| x.as_dict().ok());
        match xobjects {
            None => {
                suspect.insert(id);
                edges.insert(id, Vec::new());
            }
            Some(x) => {
                let targets = names
                    .iter()
                    .filter_map(|n| x.get(n).ok()?.as_reference().ok())
                    .collect();
                edges.insert(id, targets);
            }
        }
    }
    // Iterative DFS: a back edge marks its source; so does a path deeper than the limit.
    let mut state: HashMap<ObjectId, u8> = HashMap::new(); // 1 = on stack, 2 = done
    let ids: Vec<ObjectId> = edges.keys().copied().collect();
    for root in ids {
        if state.contains_key(&root) {
            continue;
        }
        let mut stack: Vec<(ObjectId, usize)> = vec![(root, 0)];
        state.insert(root, 1);
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let targets = edges.get(&node).map(Vec::as_slice).unwrap_or(&[]);
            if *next < targets.len() {
                let t = targets[*next];
                *next += 1;
                if !edges.contains_key(&t) {
                    continue; // an image or missing object
                }
                match state.get(&t) {
                    Some(1) => {
                        suspect.insert(node);
                    }
                    Some(_) => {}
                    None => {
                        if stack.len() >= MAX_FORM_DEPTH {
                            suspect.insert(node);
                        } else {
                            state.insert(t, 1);
                            stack.push((t, 0));
                        }
                    }
                }
            } else {
                state.insert(node, 2);
                stack.pop();
            }
        }
    }
    let mut changed = 0;
    for id in suspect {
        if let Ok(Object::Stream(s)) = doc.get_object_mut(id) {
            let ops = Content::decode(&s.content)
                .map(|c| c.operations)
                .unwrap_or_default();
            let kept: Vec<Operation> = ops.into_iter().filter(|o| o.operator != "Do").collect();
            let encoded = Content { operations: kept }.encode().unwrap_or_default();
            s.set_plain_content(encoded);
            changed += 1;
        }
    }
    changed
}

/// Names used with the `Do` operator in a content stream.
fn drawn_names(content: &[u8]) -> Vec<Vec<u8>> {
    if !content.windows(2).any(|w| w == b"Do") {
        return Vec::new();
    }
    let Ok(c) = Content::decode(content) else {
        return Vec::new();
    };
    c.operations
        .iter()
        .filter(|o| o.operator == "Do")
        .filter_map(|o| o.operands.first()?.as_name().ok().map(<[u8]>::to_vec))
        .collect()
}

fn metadata(doc: &Document, page_count: usize) -> DocMeta {
    let mut meta = DocMeta {
        page_count: Some(page_count),
        ..DocMeta::default()
    };
    let info = doc
        .trailer
        .get(b"Info")
        .ok()
        .and_then(|i| doc.dereference(i).ok())
        .and_then(|(_, i)| i.as_dict().ok());
    if let Some(info) = info {
        let text = |key: &[u8]| info_string(doc, info, key);
        meta.title = text(b"Title")
            .map(|t| clean_title(&t))
            .filter(|t| !t.is_empty());
        meta.author = text(b"Author");
        meta.created = text(b"CreationDate").and_then(|d| pdf_date(&d));
        meta.modified = text(b"ModDate").and_then(|d| pdf_date(&d));
    }
    let catalog = doc.catalog().ok();
    meta.language = catalog
        .and_then(|c| c.get(b"Lang").ok())
        .and_then(|l| doc.dereference(l).ok())
        .and_then(|(_, l)| l.as_str().ok().map(decode_pdf_string))
        .filter(|l| !l.trim().is_empty());
    let xmp = catalog
        .and_then(|c| c.get(b"Metadata").ok())
        .and_then(|m| doc.dereference(m).ok())
        .and_then(|(_, m)| m.as_stream().ok())
        .map(|s| s.content.clone());
    if let Some(xmp) = xmp {
        fill_from_xmp(&mut meta, &String::from_utf8_lossy(&xmp));
    }
    meta
}

fn info_string(doc: &Document, info: &Dictionary, key: &[u8]) -> Option<String> {
    let (_, o) = doc.dereference(info.get(key).ok()?).ok()?;
    let s = decode_pdf_string(o.as_str().ok()?);
    let s = s.trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// PDF text strings: UTF-16BE or UTF-8 with a BOM, else PDFDocEncoding (read as Latin-1).
fn decode_pdf_string(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    bytes
        .iter()
        .map(|&b| b as char)
        .collect::<String>()
        .replace('\0', "")
}

/// Drops producer noise such as `Microsoft Word - report.docx`.
fn clean_title(t: &str) -> String {
    let t = t.trim();
    let t = t.strip_prefix("Microsoft Word - ").unwrap_or(t);
    let t = t.strip_prefix("Microsoft PowerPoint - ").unwrap_or(t);
    t.trim().to_string()
}

/// Fills title, author and dates still missing from XMP (`dc:title`, `dc:creator`,
/// `xmp:CreateDate`, `xmp:ModifyDate`).
fn fill_from_xmp(meta: &mut DocMeta, xmp: &str) {
    let mut p = Pull::new(xmp);
    let mut field: Option<String> = None;
    while let Ok(Some(ev)) = p.next() {
        match ev {
            Ev::Start(t) => match t.name.as_str() {
                "title" | "creator" => field = Some(t.name.clone()),
                "li" if field.is_some() => {
                    let value = p.text_until_end().unwrap_or_default().trim().to_string();
                    match field.take().as_deref() {
                        Some("title") if meta.title.is_none() && !value.is_empty() => {
                            meta.title = Some(value)
                        }
                        Some("creator") if meta.author.is_none() && !value.is_empty() => {
                            meta.author = Some(value)
                        }
                        _ => {}
                    }
                }
                "CreateDate" | "ModifyDate" => {
                    let name = t.name.clone();
                    let value = p.text_until_end().unwrap_or_default();
                    let date = super::dates::iso_date(&value);
                    if name == "CreateDate" && meta.created.is_none() {
                        meta.created = date;
                    } else if name == "ModifyDate" && meta.modified.is_none() {
                        meta.modified = date;
                    }
                }
                _ => {}
            },
            Ev::End(n) if n == "title" || n == "creator" => field = None,
            _ => {}
        }
    }
}

/// Collects glyphs per page from pdf-extract, laying each page out into lines as it ends.
struct Collector {
    pages: Vec<Page>,
    glyphs: Vec<Glyph>,
    number: usize,
    chars: usize,
    max_chars: usize,
}

impl OutputDev for Collector {
    fn begin_page(
        &mut self,
        page_num: u32,
        _: &MediaBox,
        _: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.glyphs.clear();
        self.number = page_num as usize;
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        self.pages
            .push(Page::from_glyphs(self.number, &self.glyphs));
        self.glyphs.clear();
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        text: &str,
    ) -> Result<(), OutputError> {
        self.chars += text.len();
        if self.chars > self.max_chars {
            return Err(OutputError::FormatError(std::fmt::Error));
        }
        let scale = (trm.m11 * trm.m22 - trm.m12 * trm.m21).abs().sqrt();
        let size = font_size * scale;
        let (x, y) = (trm.m31, trm.m32);
        let text: String = text
            .chars()
            .filter(|c| !c.is_control() || *c == ' ')
            .collect();
        if !text.is_empty() {
            self.glyphs.push(Glyph {
                text,
                x,
                y,
                width: width * size,
                size,
            });
        }
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdf_strings() {
        assert_eq!(decode_pdf_string(b"\xFE\xFF\x00H\x00\xE9"), "Hé");
        assert_eq!(decode_pdf_string(b"Caf\xE9"), "Café");
        assert_eq!(clean_title("Microsoft Word - plan.docx"), "plan.docx");
    }

    #[test]
    fn bounded_inflation() {
        use flate2::write::ZlibEncoder;
        use std::io::Write;
        let mut e = ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&vec![0u8; 100_000]).unwrap();
        let z = e.finish().unwrap();
        assert!(matches!(inflate_bounded(&z, 200_000), Inflated::Done(d) if d.len() == 100_000));
        assert!(matches!(inflate_bounded(&z, 50_000), Inflated::TooLarge));
    }
}

#![no_main]
//! XLSX: input starting with `<` is the first worksheet inside a valid workbook (with shared
//! strings and a date style); anything else is a whole file.
use libfuzzer_sys::fuzz_target;

const TYPES: &[u8] = br#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#;
const WORKBOOK: &[u8] = br#"<workbook xmlns:r="r"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
const RELS: &[u8] = br#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>"#;
const STRINGS: &[u8] = br#"<sst><si><t>Date</t></si><si><r><t>Rich</t></r><r><t> text</t></r></si></sst>"#;
const STYLES: &[u8] = br#"<styleSheet><numFmts><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd"/></numFmts><cellXfs><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="20"/></cellXfs></styleSheet>"#;

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'<') {
        let file = kerai_core_fuzz::package(&[
            ("[Content_Types].xml", TYPES),
            ("xl/workbook.xml", WORKBOOK),
            ("xl/_rels/workbook.xml.rels", RELS),
            ("xl/worksheets/sheet1.xml", data),
            ("xl/sharedStrings.xml", STRINGS),
            ("xl/styles.xml", STYLES),
        ]);
        kerai_core_fuzz::check(&file, "fuzz.xlsx");
    } else {
        kerai_core_fuzz::check(data, "fuzz.xlsx");
    }
});

#![no_main]
//! DOCX: input starting with `<` is `word/document.xml` inside a valid package (to reach the
//! WordprocessingML reader); anything else is a whole file.
use libfuzzer_sys::fuzz_target;

const TYPES: &[u8] = br#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#;
const STYLES: &[u8] = br#"<w:styles xmlns:w="w"><w:style w:styleId="Heading1"><w:name w:val="heading 1"/></w:style><w:style w:styleId="Strong"><w:rPr><w:b/></w:rPr></w:style></w:styles>"#;
const NUMBERING: &[u8] = br#"<w:numbering xmlns:w="w"><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>"#;

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'<') {
        let file = kerai_core_fuzz::package(&[
            ("[Content_Types].xml", TYPES),
            ("word/document.xml", data),
            ("word/styles.xml", STYLES),
            ("word/numbering.xml", NUMBERING),
        ]);
        kerai_core_fuzz::check(&file, "fuzz.docx");
    } else {
        kerai_core_fuzz::check(data, "fuzz.docx");
    }
});

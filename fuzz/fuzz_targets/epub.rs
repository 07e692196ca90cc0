#![no_main]
//! EPUB: input starting with `<` is a chapter's XHTML inside a valid book (with an NCX table
//! of contents); anything else is a whole file.
use libfuzzer_sys::fuzz_target;

const CONTAINER: &[u8] = br#"<container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>"#;
const OPF: &[u8] = br#"<package><metadata><dc:title>T</dc:title><dc:creator>A</dc:creator><dc:date>2020-01-01</dc:date></metadata><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/></manifest><spine toc="ncx"><itemref idref="c1"/></spine></package>"#;
const NCX: &[u8] = br#"<ncx><navMap><navPoint><navLabel><text>One</text></navLabel><content src="c1.xhtml"/></navPoint></navMap></ncx>"#;

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'<') {
        let file = kerai_core_fuzz::package(&[
            ("mimetype", b"application/epub+zip"),
            ("META-INF/container.xml", CONTAINER),
            ("OEBPS/content.opf", OPF),
            ("OEBPS/toc.ncx", NCX),
            ("OEBPS/c1.xhtml", data),
        ]);
        kerai_core_fuzz::check(&file, "fuzz.epub");
    } else {
        kerai_core_fuzz::check(data, "fuzz.epub");
    }
});

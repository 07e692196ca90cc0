#![no_main]
//! S0 source records: segmentation, normalisation, language filter, length bounds and the
//! near-duplicate collapse over a page; the first byte picks the options. Records keep the
//! documented bounds and order.
use kerai_core::convert::html::source_records::{
    source_records, source_records_json, PageInput, SourceOptions,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kerai_core_fuzz::init();
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode == b'{' {
        // Options as JSON (what SQL passes): errors, never panics.
        let page = PageInput {
            html: "<main><p>A paragraph that is long enough to be kept as a record.</p></main>"
                .into(),
            url: "https://fuzz.example/".into(),
            institution: "fuzz".into(),
            fetched_at: None,
        };
        let _ = source_records_json(&[page], &String::from_utf8_lossy(data));
        return;
    }
    let html = String::from_utf8_lossy(rest).into_owned();
    let mut opts = SourceOptions::default();
    if mode & 1 == 1 {
        opts.target_language = Some("en".into());
    }
    if mode & 2 == 2 {
        opts.include_sidebars = true;
    }
    if mode & 4 == 4 {
        opts.min_chars = 1;
        opts.max_chars = 40;
    }
    let pages = [
        PageInput {
            html: html.clone(),
            url: "https://fuzz.example/a".into(),
            institution: "fuzz".into(),
            fetched_at: Some("2026-01-01T00:00:00Z".into()),
        },
        PageInput {
            html,
            url: "not a url".into(),
            institution: "other".into(),
            fetched_at: None,
        },
    ];
    let out = source_records(&pages, &opts);
    serde_json::to_string(&out).expect("records serialise");
});

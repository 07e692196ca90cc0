//! Bibliography entries: parsing one reference string into fields, splitting a references
//! section into entries, and the keys references are matched by.

mod fold;

pub use fold::{author_year_key, fold_diacritics, normalize_title};

//! The HTML layer: parse pages, find their main content, write it as markdown or text,
//! type its blocks, collect links and structured data, detect languages and make S0
//! source records.

pub mod dom;

//! Pure crawl primitives for kerai's fetcher: the fetcher does the HTTP, these modules make the
//! decisions (robots.txt, sitemaps, URL normalisation). What a response holds and how it
//! decodes (content sniffing, charset detection) is decided by [`crate::convert`].

pub mod near_duplicates;
pub mod robots;
pub mod sitemap;
pub mod url_norm;

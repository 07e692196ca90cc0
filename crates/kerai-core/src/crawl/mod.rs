//! Pure crawl primitives for kerai's fetcher: the fetcher does the HTTP, these modules make the
//! decisions (robots.txt, sitemaps, URL normalisation, charset and content sniffing, cron).

pub mod charset;
pub mod cron;
pub mod robots;
pub mod sitemap;
pub mod sniff;
pub mod url_norm;

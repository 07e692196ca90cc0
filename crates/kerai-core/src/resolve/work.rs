//! A scholarly work as the services describe it, in one shape whatever the service.

use super::service::Service;
use crate::names::family_key;

/// One author. The family name is what citations use ("Friston 2010"), so it is kept apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    /// The family name as written ("Da Costa", "von Helmholtz"), or an organisation's name.
    pub family: String,
    pub given: Option<String>,
}

impl Author {
    pub fn new(family: &str, given: Option<&str>) -> Author {
        Author {
            family: family.trim().to_string(),
            given: given
                .map(str::trim)
                .filter(|g| !g.is_empty())
                .map(str::to_string),
        }
    }

    /// From a name in one string: "Family, Given[, dates]" or "Given Family" (particles stay
    /// with the family name: "Lancelot Da Costa" → family "Da Costa").
    pub fn from_name(name: &str) -> Author {
        let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
        if let Some((family, rest)) = name.split_once(',') {
            // "Helmholtz, Hermann von, 1821-1894": the given names end where the dates start.
            let given = rest
                .split(',')
                .next()
                .map(str::trim)
                .filter(|g| !g.chars().any(|c| c.is_ascii_digit()));
            return Author::new(family, given);
        }
        let words: Vec<&str> = name.split(' ').filter(|w| !w.is_empty()).collect();
        let Some(last) = words.len().checked_sub(1) else {
            return Author::new("", None);
        };
        // The family part is the shortest tail of the name with the whole name's family key
        // ("Da Costa" in "Lancelot Da Costa"); none but the whole name means the family name
        // comes first ("Friston KJ").
        let key = family_key(&name);
        let start = (1..=last)
            .rev()
            .find(|&i| family_key(&words[i..].join(" ")) == key);
        match start {
            Some(i) => Author::new(&words[i..].join(" "), Some(&words[..i].join(" "))),
            None => Author::new(words[0], Some(&words[1..].join(" "))),
        }
    }

    /// "Given Family" (or the family name alone).
    pub fn display(&self) -> String {
        match &self.given {
            Some(g) => format!("{g} {}", self.family),
            None => self.family.clone(),
        }
    }
}

/// A version of a work, in Unpaywall's words.
pub const PUBLISHED_VERSION: &str = "publishedVersion";
/// The peer-reviewed author manuscript.
pub const ACCEPTED_VERSION: &str = "acceptedVersion";
/// The preprint.
pub const SUBMITTED_VERSION: &str = "submittedVersion";

/// A place where a copy of the work can be read without paying.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OaLocation {
    /// The landing page (or the only URL the service gave).
    pub url: Option<String>,
    /// A direct PDF link.
    pub pdf_url: Option<String>,
    /// A plain-text copy (the Internet Archive's OCR text, `*_djvu.txt`).
    pub text_url: Option<String>,
    /// The license family ([`super::license_family`]): `cc-by`, `cc-by-nc-nd`,
    /// `public-domain`, `oa`, ..., or the raw string lower-cased; `None` when the service
    /// names no license.
    pub license: Option<String>,
    /// The license as the service wrote it.
    pub license_raw: Option<String>,
    /// `publisher` or `repository`.
    pub host_type: Option<String>,
    /// [`PUBLISHED_VERSION`], [`ACCEPTED_VERSION`] or [`SUBMITTED_VERSION`].
    pub version: Option<String>,
}

/// A work: what a service knows about one paper or book.
#[derive(Debug, Clone, PartialEq)]
pub struct Work {
    /// Lower-case DOI without a resolver prefix (`10.1038/nrn2787`).
    pub doi: Option<String>,
    pub title: Option<String>,
    pub authors: Vec<Author>,
    pub year: Option<i32>,
    /// The journal, proceedings or series.
    pub container: Option<String>,
    /// Plain text, markup (JATS, HTML) removed, paragraphs separated by a blank line.
    pub abstract_text: Option<String>,
    /// The service says a free-to-read copy exists.
    pub is_oa: bool,
    pub oa_locations: Vec<OaLocation>,
    /// arXiv identifier without version (`2107.12979`, `hep-th/9901001`).
    pub arxiv: Option<String>,
    pub source: Service,
    /// The service's own identifier (Semantic Scholar paperId, Internet Archive identifier,
    /// arXiv id with version).
    pub source_id: Option<String>,
    /// The service's relevance score for a search hit (CrossRef `score`), when it gives one.
    pub score: Option<f64>,
}

impl Work {
    /// An empty work from `source`.
    pub fn new(source: Service) -> Work {
        Work {
            doi: None,
            title: None,
            authors: Vec::new(),
            year: None,
            container: None,
            abstract_text: None,
            is_oa: false,
            oa_locations: Vec::new(),
            arxiv: None,
            source,
            source_id: None,
            score: None,
        }
    }

    /// The first author's family name.
    pub fn first_author_family(&self) -> Option<&str> {
        self.authors.first().map(|a| a.family.as_str())
    }

    /// How to name the work in messages: its DOI, else its title, else its source id.
    pub fn label(&self) -> String {
        self.doi
            .clone()
            .or_else(|| self.title.as_ref().map(|t| format!("\"{t}\"")))
            .or_else(|| self.source_id.clone())
            .unwrap_or_else(|| format!("a {} record", self.source))
    }
}

/// One page of search results.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHits {
    /// How many results the service has in all (not only this page), when it says.
    pub total: Option<u64>,
    /// The hits in the service's order (rank 0 first).
    pub works: Vec<Work>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_into_family_and_given() {
        let a = Author::from_name("Lancelot Da Costa");
        assert_eq!(
            (a.family.as_str(), a.given.as_deref()),
            ("Da Costa", Some("Lancelot"))
        );
        let a = Author::from_name("Helmholtz, Hermann von, 1821-1894");
        assert_eq!(
            (a.family.as_str(), a.given.as_deref()),
            ("Helmholtz", Some("Hermann von"))
        );
        let a = Author::from_name("Karl J. Friston");
        assert_eq!(
            (a.family.as_str(), a.given.as_deref()),
            ("Friston", Some("Karl J."))
        );
        let a = Author::from_name("Hermann von Helmholtz");
        assert_eq!(a.family, "von Helmholtz");
        let a = Author::from_name("Martin Luther King Jr.");
        assert_eq!(a.family, "King Jr.");
        let a = Author::from_name("Friston");
        assert_eq!((a.family.as_str(), a.given), ("Friston", None));
        let a = Author::from_name("Friston KJ");
        assert_eq!(
            (a.family.as_str(), a.given.as_deref()),
            ("Friston", Some("KJ"))
        );
        assert_eq!(Author::from_name("  ").family, "");
        assert_eq!(Author::new("Parr", Some("Thomas")).display(), "Thomas Parr");
    }
}

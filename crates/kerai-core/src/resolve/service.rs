//! The scholarly services kerai resolves references with, by name.

use std::fmt;

/// A service kerai resolves references with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Service {
    Crossref,
    Unpaywall,
    SemanticScholar,
    Arxiv,
    InternetArchive,
    /// kerai's own concept-search endpoint (see [`super::concept`]); off unless configured.
    Concept,
}

impl Service {
    /// Every service, in the order the notes list them.
    pub const ALL: [Service; 6] = [
        Service::Crossref,
        Service::Unpaywall,
        Service::SemanticScholar,
        Service::Arxiv,
        Service::InternetArchive,
        Service::Concept,
    ];

    /// Stable lower-case name: `crossref`, `unpaywall`, `semantic_scholar`, `arxiv`,
    /// `internet_archive`, `concept`. Config keys are `<name>_url`.
    pub fn name(self) -> &'static str {
        match self {
            Service::Crossref => "crossref",
            Service::Unpaywall => "unpaywall",
            Service::SemanticScholar => "semantic_scholar",
            Service::Arxiv => "arxiv",
            Service::InternetArchive => "internet_archive",
            Service::Concept => "concept",
        }
    }

    /// The service called `name` (as [`Service::name`] writes it).
    pub fn from_name(name: &str) -> Option<Service> {
        Service::ALL.into_iter().find(|s| s.name() == name)
    }

    pub(super) fn config_key(self) -> &'static str {
        match self {
            Service::Crossref => "crossref_url",
            Service::Unpaywall => "unpaywall_url",
            Service::SemanticScholar => "semantic_scholar_url",
            Service::Arxiv => "arxiv_url",
            Service::InternetArchive => "internet_archive_url",
            Service::Concept => "concept_search_url",
        }
    }

    /// The config key of the service's rate: `<name>_rps` (`concept_search_rps` for the
    /// concept search), requests per second.
    pub(super) fn rate_key(self) -> &'static str {
        match self {
            Service::Crossref => "crossref_rps",
            Service::Unpaywall => "unpaywall_rps",
            Service::SemanticScholar => "semantic_scholar_rps",
            Service::Arxiv => "arxiv_rps",
            Service::InternetArchive => "internet_archive_rps",
            Service::Concept => "concept_search_rps",
        }
    }
}

impl fmt::Display for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

//! Is a search hit the cited work? A score per field, a weighted total, and a rule that says
//! when the total is enough.
//!
//! ## Scores
//!
//! * `title`: [`trigram_similarity`] (pg_trgm's `similarity()`) of the cited and found titles.
//! * `author`: the cited first author against the hit's authors: 1 when it is the hit's first
//!   author, 0.5 when it is another of its authors, 0 otherwise. When the citation lists two or
//!   more authors, `0.7 × that + 0.3 × the share of cited authors found among the hit's`.
//!   Family names are compared as [`crate::names::family_key`]s; a leading particle may be
//!   missing on one side ("Helmholtz" matches "von Helmholtz", "Costa" matches "Da Costa").
//! * `year`: 1 for the same year, 0.5 one year off (online-first versus print, preprint versus
//!   journal), 0 otherwise or when the hit has no year.
//! * `total`: the weighted mean over the fields the citation has — weights title
//!   [`W_TITLE`] 0.6, author [`W_AUTHOR`] 0.25, year [`W_YEAR`] 0.15. A field the citation lacks
//!   is left out (it is not evidence either way); a field the hit lacks scores 0.
//!
//! ## Rule ([`decide`])
//!
//! 1. Same DOI on both sides: accepted.
//! 2. With a title and an author or a year: accepted when `total ≥ ACCEPT_THRESHOLD` (0.75)
//!    and `title ≥ MIN_TITLE` (0.5). With author and year both matching, the title must still
//!    reach (0.75 − 0.4) / 0.6 ≈ 0.58: a paper by the same author in the same year with another
//!    title (the common case for prolific authors) fails.
//! 3. Title only: accepted when `title ≥ TITLE_ONLY_THRESHOLD` (0.85) — nothing else
//!    corroborates the match, so the titles must be nearly the same.
//! 4. Author and year, no title ("Friston 2010"): accepted only when the first author matches
//!    (`author` = 1), the year matches (`year` = 1) and the hit is the service's top hit (rank
//!    0): the search engine's relevance, given the query and its context, is the only evidence
//!    left among an author's papers of that year. Anything less (no year, no author) is never
//!    accepted.

use super::ids::normalize_doi;
use super::trigram::trigram_similarity;
use super::work::Work;
use crate::names::family_key;

/// Weight of the title score in the total.
pub const W_TITLE: f64 = 0.6;
/// Weight of the author score in the total.
pub const W_AUTHOR: f64 = 0.25;
/// Weight of the year score in the total.
pub const W_YEAR: f64 = 0.15;
/// The total a hit needs when the citation has a title and an author or a year.
pub const ACCEPT_THRESHOLD: f64 = 0.75;
/// The title score every accepted hit of a citation with a title needs.
pub const MIN_TITLE: f64 = 0.5;
/// The title score a citation with nothing but a title needs.
pub const TITLE_ONLY_THRESHOLD: f64 = 0.85;

/// What a citation says about the work it cites.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CitedWork {
    pub doi: Option<String>,
    pub title: Option<String>,
    pub year: Option<i32>,
    /// The first author's family name; when `None`, the first of `authors` is used.
    pub first_author_family: Option<String>,
    /// Family names of the cited authors, in order (may be empty; "et al." lists only one).
    pub authors: Vec<String>,
}

impl CitedWork {
    /// The first author's family name, from `first_author_family` or `authors`.
    pub fn first_author(&self) -> Option<&str> {
        self.first_author_family
            .as_deref()
            .or(self.authors.first().map(String::as_str))
            .map(str::trim)
            .filter(|a| !a.is_empty())
    }

    fn title(&self) -> Option<&str> {
        self.title
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
    }
}

/// How well a hit matches a citation; every score in `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MatchScore {
    pub total: f64,
    pub title: f64,
    pub year: f64,
    pub author: f64,
    /// Both have the same DOI (the total is then 1).
    pub doi: bool,
}

/// Scores `candidate` against `cited` (see the module documentation for the formula).
pub fn match_score(cited: &CitedWork, candidate: &Work) -> MatchScore {
    let title = match (cited.title(), candidate.title.as_deref()) {
        (Some(a), Some(b)) => trigram_similarity(a, b),
        _ => 0.0,
    };
    let year = match (cited.year, candidate.year) {
        (Some(a), Some(b)) if a == b => 1.0,
        (Some(a), Some(b)) if (a - b).abs() == 1 => 0.5,
        _ => 0.0,
    };
    let author = author_score(cited, candidate);
    let mut weighted = 0.0;
    let mut weights = 0.0;
    for (present, weight, score) in [
        (cited.title().is_some(), W_TITLE, title),
        (cited.first_author().is_some(), W_AUTHOR, author),
        (cited.year.is_some(), W_YEAR, year),
    ] {
        if present {
            weighted += weight * score;
            weights += weight;
        }
    }
    let doi = match (&cited.doi, &candidate.doi) {
        (Some(a), Some(b)) => normalize_doi(a).is_some_and(|a| Some(a) == normalize_doi(b)),
        _ => false,
    };
    let total = if doi {
        1.0
    } else if weights > 0.0 {
        weighted / weights
    } else {
        0.0
    };
    MatchScore {
        total,
        title,
        year,
        author,
        doi,
    }
}

fn author_score(cited: &CitedWork, candidate: &Work) -> f64 {
    let Some(first) = cited.first_author() else {
        return 0.0;
    };
    let keys: Vec<String> = candidate
        .authors
        .iter()
        .map(|a| family_key(&a.family))
        .collect();
    let first = family_key(first);
    let first_score = match keys.iter().position(|k| same_family(k, &first)) {
        Some(0) => 1.0,
        Some(_) => 0.5,
        None => 0.0,
    };
    let listed: Vec<String> = cited
        .authors
        .iter()
        .map(|a| family_key(a))
        .filter(|k| !k.is_empty())
        .collect();
    if listed.len() < 2 {
        return first_score;
    }
    let found = listed
        .iter()
        .filter(|c| keys.iter().any(|k| same_family(k, c)))
        .count();
    0.7 * first_score + 0.3 * found as f64 / listed.len() as f64
}

/// Family-name keys of the same person: equal, or equal after a leading particle on one side
/// ("vonhelmholtz" / "helmholtz").
fn same_family(a: &str, b: &str) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    long.strip_suffix(short).is_some_and(only_particles)
}

/// `s` is nothing but particles run together ("" included): "von", "vander", "dela".
fn only_particles(s: &str) -> bool {
    const PARTICLES: [&str; 18] = [
        "van", "von", "der", "den", "de", "da", "del", "della", "di", "du", "la", "le", "ten",
        "ter", "dos", "das", "bin", "al",
    ];
    s.is_empty()
        || PARTICLES
            .iter()
            .any(|p| s.strip_prefix(p).is_some_and(only_particles))
}

/// The verdict on one hit.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Accept,
    /// Why not, for the log.
    Reject(String),
}

impl Decision {
    pub fn is_accept(&self) -> bool {
        matches!(self, Decision::Accept)
    }
}

/// Accept or reject the hit at `rank` (0 = the service's top hit) with `score` (see the module
/// documentation for the rule).
pub fn decide(cited: &CitedWork, score: &MatchScore, rank: usize) -> Decision {
    if score.doi {
        return Decision::Accept;
    }
    let has_author = cited.first_author().is_some();
    let has_year = cited.year.is_some();
    if cited.title().is_some() {
        if !has_author && !has_year {
            return if score.title >= TITLE_ONLY_THRESHOLD {
                Decision::Accept
            } else {
                Decision::Reject(format!(
                    "title similarity {:.2} is below {TITLE_ONLY_THRESHOLD} for a citation with only a title",
                    score.title
                ))
            };
        }
        if score.title < MIN_TITLE {
            return Decision::Reject(format!(
                "title similarity {:.2} is below {MIN_TITLE}",
                score.title
            ));
        }
        return if score.total >= ACCEPT_THRESHOLD {
            Decision::Accept
        } else {
            Decision::Reject(format!(
                "match {:.2} (title {:.2}, author {:.2}, year {:.2}) is below {ACCEPT_THRESHOLD}",
                score.total, score.title, score.author, score.year
            ))
        };
    }
    if !has_author || !has_year {
        return Decision::Reject(
            "a citation without a title needs both an author and a year".into(),
        );
    }
    if score.author < 1.0 || score.year < 1.0 {
        return Decision::Reject(format!(
            "author-year citation: author {:.2} and year {:.2} must both be 1",
            score.author, score.year
        ));
    }
    if rank != 0 {
        return Decision::Reject(format!(
            "author-year citation: only the top hit may be accepted (this is hit {})",
            rank + 1
        ));
    }
    Decision::Accept
}

/// The accepted hit with the highest total (the better-ranked on a tie).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Match {
    /// Position in the hits (0 = top).
    pub rank: usize,
    pub score: MatchScore,
}

/// The hit in `hits` (the service's order) that is the cited work, if any is accepted.
pub fn best_match(cited: &CitedWork, hits: &[Work]) -> Option<Match> {
    hits.iter()
        .enumerate()
        .map(|(rank, w)| Match {
            rank,
            score: match_score(cited, w),
        })
        .filter(|m| decide(cited, &m.score, m.rank).is_accept())
        .fold(None, |best: Option<Match>, m| match best {
            Some(b) if b.score.total >= m.score.total => Some(b),
            _ => Some(m),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::{Author, Service};

    fn work(title: &str, authors: &[&str], year: i32) -> Work {
        let mut w = Work::new(Service::SemanticScholar);
        w.title = Some(title.into());
        w.authors = authors.iter().map(|a| Author::from_name(a)).collect();
        w.year = Some(year);
        w
    }

    fn cited(title: Option<&str>, author: Option<&str>, year: Option<i32>) -> CitedWork {
        CitedWork {
            title: title.map(str::to_string),
            first_author_family: author.map(str::to_string),
            year,
            ..CitedWork::default()
        }
    }

    const FEP: &str = "The free-energy principle: a unified brain theory?";

    #[test]
    fn full_citation() {
        let c = cited(Some(FEP), Some("Friston"), Some(2010));
        let s = match_score(&c, &work(FEP, &["Karl J. Friston"], 2010));
        assert_eq!((s.title, s.author, s.year, s.total), (1.0, 1.0, 1.0, 1.0));
        assert!(decide(&c, &s, 3).is_accept());
        // Same author, next year, another title: rejected.
        let other = work(
            "The free-energy principle: a rough guide to the brain?",
            &["Karl Friston"],
            2009,
        );
        let s = match_score(&c, &other);
        assert_eq!((s.author, s.year), (1.0, 0.5));
        assert!(s.total < ACCEPT_THRESHOLD, "{s:?}");
        assert!(!decide(&c, &s, 0).is_accept());
    }

    #[test]
    fn weighted_mean_over_present_fields() {
        let c = cited(Some("abc"), None, Some(2000));
        let s = match_score(&c, &work("abd", &["X"], 2001));
        // title 2/6, year 0.5: (0.6 × 1/3 + 0.15 × 0.5) / 0.75
        assert!((s.total - (0.6 / 3.0 + 0.075) / 0.75).abs() < 1e-12);
        let empty = match_score(&CitedWork::default(), &work("abc", &[], 2000));
        assert_eq!(empty.total, 0.0);
    }

    #[test]
    fn authors_and_particles() {
        let c = cited(None, Some("Helmholtz"), Some(1867));
        let w = work(
            "Handbuch der physiologischen Optik",
            &["Hermann von Helmholtz"],
            1867,
        );
        assert_eq!(match_score(&c, &w).author, 1.0);
        let c = CitedWork {
            authors: vec!["Da Costa".into(), "Parr".into(), "Sajid".into()],
            ..CitedWork::default()
        };
        let w = work(
            "x",
            &["Lancelot Da Costa", "Thomas Parr", "Karl Friston"],
            2020,
        );
        assert!((match_score(&c, &w).author - (0.7 + 0.3 * 2.0 / 3.0)).abs() < 1e-12);
        let w = work("x", &["Thomas Parr", "Lancelot Da Costa"], 2020);
        assert!((match_score(&c, &w).author - (0.35 + 0.3 * 2.0 / 3.0)).abs() < 1e-12);
        assert!(!same_family("son", "johnson"));
        assert!(same_family("vanderwaals", "waals"));
    }

    #[test]
    fn title_only_needs_a_near_identical_title() {
        let c = cited(Some("The free-energy principle"), None, None);
        let s = match_score(&c, &work(FEP, &["Karl Friston"], 2010));
        assert!((s.title - 26.0 / 46.0).abs() < 1e-12);
        assert!(!decide(&c, &s, 0).is_accept());
        let c = cited(
            Some("The Free Energy Principle: A Unified Brain Theory"),
            None,
            None,
        );
        assert!(decide(&c, &match_score(&c, &work(FEP, &[], 2010)), 0).is_accept());
    }

    #[test]
    fn author_year_only_takes_the_top_hit() {
        let c = cited(None, Some("Friston"), Some(2010));
        let hit = work(FEP, &["Karl Friston"], 2010);
        let s = match_score(&c, &hit);
        assert!(decide(&c, &s, 0).is_accept());
        assert!(!decide(&c, &s, 1).is_accept());
        let wrong_year = match_score(&c, &work(FEP, &["Karl Friston"], 2009));
        assert!(!decide(&c, &wrong_year, 0).is_accept());
        let second_author = match_score(&c, &work(FEP, &["Thomas Parr", "Karl Friston"], 2010));
        assert!(!decide(&c, &second_author, 0).is_accept());
        let no_year = cited(None, Some("Friston"), None);
        assert!(!decide(&no_year, &match_score(&no_year, &hit), 0).is_accept());
    }

    #[test]
    fn doi_match_wins_and_best_match_picks_the_highest() {
        let c = CitedWork {
            doi: Some("doi:10.1038/NRN2787".into()),
            ..CitedWork::default()
        };
        let mut w = work("anything", &[], 1999);
        w.doi = Some("10.1038/nrn2787".into());
        let s = match_score(&c, &w);
        assert!(s.doi && s.total == 1.0 && decide(&c, &s, 4).is_accept());

        let c = cited(Some(FEP), Some("Friston"), Some(2010));
        let hits = vec![
            work(
                "The free-energy principle: a rough guide to the brain?",
                &["K. Friston"],
                2009,
            ),
            work(FEP, &["Karl J. Friston"], 2010),
            work(
                "A free energy principle for the brain",
                &["Karl Friston"],
                2006,
            ),
        ];
        let m = best_match(&c, &hits).unwrap();
        assert_eq!(m.rank, 1);
        assert!(best_match(&c, &hits[2..]).is_none());
    }
}

//! Metadata guessed from text: version hints in titles and file names, the language of the
//! body, the file stem of a URL or path.

/// A version hint in `text`: `v2`, `v1.3`, `rev 3`, `revision 4`, `version 2.1`, `versión 3`,
/// `r12` is not one (too ambiguous). Returned normalised: `v2`, `v1.3`, `rev 3`.
pub(crate) fn version_in(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .filter(|w| !w.is_empty())
        .collect();
    for (i, w) in words.iter().enumerate() {
        let w = w.trim_end_matches('.');
        // v2, v1.3
        if let Some(num) = w.strip_prefix('v') {
            if is_version_number(num) {
                return Some(format!("v{num}"));
            }
        }
        // rev3, rev.3
        for p in ["rev", "revision", "version", "versión", "versio", "ver"] {
            let num = if w == p {
                words.get(i + 1).map(|n| n.trim_end_matches('.'))
            } else {
                w.strip_prefix(p).map(|n| n.trim_start_matches('.'))
            };
            if let Some(num) = num {
                if is_version_number(num) {
                    return Some(if p.starts_with("rev") {
                        format!("rev {num}")
                    } else {
                        format!("v{num}")
                    });
                }
            }
        }
    }
    None
}

fn is_version_number(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 12
        && s.starts_with(|c: char| c.is_ascii_digit())
        && s.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// The file name without directories, query and extension.
pub(crate) fn file_stem(name: &str) -> String {
    let path = name.split(['?', '#']).next().unwrap_or(name);
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match file.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && ext.len() <= 5 => stem.to_string(),
        _ => file.to_string(),
    }
}

/// A guess of the language of `text` by counting very common words; `None` when too short
/// or undecided.
pub(crate) fn guess_language(text: &str) -> Option<&'static str> {
    const LANGS: [(&str, &[&str]); 7] = [
        (
            "en",
            &[
                "the", "and", "of", "to", "is", "in", "that", "for", "with", "are", "this",
            ],
        ),
        (
            "es",
            &[
                "el", "la", "de", "que", "y", "los", "las", "en", "por", "con", "una", "para",
            ],
        ),
        (
            "fr",
            &[
                "le", "la", "les", "des", "et", "est", "une", "pour", "dans", "que", "du",
            ],
        ),
        (
            "de",
            &[
                "der", "die", "und", "das", "ist", "nicht", "mit", "den", "ein", "zu", "von",
            ],
        ),
        (
            "pt",
            &[
                "o", "os", "as", "de", "que", "e", "não", "uma", "para", "com", "do", "da",
            ],
        ),
        (
            "it",
            &[
                "il", "di", "che", "e", "la", "per", "non", "una", "sono", "del", "con",
            ],
        ),
        (
            "ca",
            &[
                "el", "la", "de", "que", "i", "els", "les", "amb", "per", "una", "és",
            ],
        ),
    ];
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .take(2000)
        .map(str::to_lowercase)
        .collect();
    if words.len() < 8 {
        return None;
    }
    let mut scores: Vec<(&str, usize)> = LANGS
        .iter()
        .map(|(l, stop)| {
            (
                *l,
                words.iter().filter(|w| stop.contains(&w.as_str())).count(),
            )
        })
        .collect();
    scores.sort_by_key(|s| std::cmp::Reverse(s.1));
    let (best, n) = scores[0];
    let second = scores[1].1;
    (n * 20 >= words.len() && n > second + second / 4).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(version_in("Handbook v2").as_deref(), Some("v2"));
        assert_eq!(version_in("policy_v1.3_final").as_deref(), Some("v1.3"));
        assert_eq!(version_in("Policy (rev 3)").as_deref(), Some("rev 3"));
        assert_eq!(version_in("Manual versión 2.1").as_deref(), Some("v2.1"));
        assert_eq!(
            version_in("Revision 4 of the plan").as_deref(),
            Some("rev 4")
        );
        assert_eq!(version_in("Various views"), None);
        assert_eq!(version_in("Budget 2026"), None);
    }

    #[test]
    fn stems_and_languages() {
        assert_eq!(file_stem("https://h/a/b/report-v2.pdf?x=1"), "report-v2");
        assert_eq!(file_stem("notes"), "notes");
        assert_eq!(
            guess_language(
                "The keeper climbed the steps and lit the lamp for the boats in the bay"
            ),
            Some("en")
        );
        assert_eq!(
            guess_language("La revisión de la señalética del edificio está terminada y los equipos de la planta"),
            Some("es")
        );
        assert_eq!(guess_language("12 34"), None);
    }
}

//! Repairs made after the rules and the tagger have read an entry: readings that one field's
//! shape alone cannot settle, fixed by looking at the fields together.

use std::sync::LazyLock;

use regex::Regex;

use super::{tidy, venue_like, Reference};

/// Every repair, in the order they build on each other.
pub(super) fn after_reading(text: &str, r: &mut Reference) {
    tidy_container(r);
    drop_leading_year(r);
    drop_trailing_editor(r);
    join_title_split_at_comma(text, r);
    join_place_in_title(text, r);
}

/// The text right after `field` follows `title` in `text` after a comma, as its end: the
/// title with it, or None.
fn title_with(text: &str, title: &str, field: &str) -> Option<String> {
    let at = text.find(title)?;
    let after = &text[at + title.len()..];
    let rest = after.trim_start().strip_prefix(',')?.trim_start();
    rest.starts_with(field).then(|| {
        let end = at + title.len() + (after.len() - rest.len()) + field.len();
        text[at..end].to_string()
    })
}

/// An article's title that ends with a place (`… impact structure, Ontario, Canada. Meteoritics
/// …`) read as the title and a place: a journal article (a container with a volume or pages, no
/// publisher) has no place of publication, so a place right after the title is its end.
fn join_place_in_title(text: &str, r: &mut Reference) {
    let (Some(title), Some(place)) = (r.title.as_deref(), r.location.as_deref()) else {
        return;
    };
    if r.container.is_none() || r.publisher.is_some() || (r.volume.is_none() && r.pages.is_none()) {
        return;
    }
    if let Some(joined) = title_with(text, title, place) {
        r.title = Some(joined);
        r.location = None;
    }
}

/// A book's title holding commas (`A Study in Canon, Ritual, and Ideology (Oxford: …)`) read as
/// a title and a container: a work with a publisher or place and no volume, issue or pages
/// whose container follows its title after a comma, and names no venue (`Proceedings of …`,
/// a number), has no container; it is the title's end.
fn join_title_split_at_comma(text: &str, r: &mut Reference) {
    let (Some(title), Some(container)) = (r.title.as_deref(), r.container.as_deref()) else {
        return;
    };
    if r.volume.is_some()
        || r.issue.is_some()
        || r.pages.is_some()
        || (r.publisher.is_none() && r.location.is_none())
        || venue_like(container)
    {
        return;
    }
    if let Some(joined) = title_with(text, title, container) {
        r.title = Some(joined);
        r.container = None;
    }
}

/// A work's kind (`PhD thesis`, `Technical report TR-93`, `Preprint`, `2nd ed.`) where a
/// container would be: not a container.
static GENRE_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:ph\.?\s?d\.?|doctoral|master'?s|m\.?\s?sc\.?|diploma|bachelor'?s|b\.?\s?sc\.?)\s+(?:thesis|dissertation)|(?:technical|tech\.?|research|internal)\s+(?:report|rep\.?|memo(?:randum)?|note)|(?:u\.?\s?s\.?a?\.?|european|uk|world)?\s*patent|preprint|personal\s+communication|unpublished|manuscript|\d+(?:st|nd|rd|th)\s+(?:ed\.?|edn\.?|edition))\b",
    )
    .unwrap_or_else(|e| unreachable!("{e}"))
});

/// `to appear` and the like after a container: the work's state, not the container's name.
static NOT_YET_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)[\s,;.(]*\b(?:to\s+appear|in\s+press|forthcoming|accepted|submitted)\b[\s.)]*$",
    )
    .unwrap_or_else(|e| unreachable!("{e}"))
});

/// A year and its stop at the head of a title (`2012. Seismic structure of …`).
static LEADING_YEAR_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\(?(?:1[5-9]|20)\d\d[a-z]?\)?[.,:]\s+").unwrap_or_else(|e| unreachable!("{e}"))
});

/// The entry's date read into the head of its title belongs to the date.
fn drop_leading_year(r: &mut Reference) {
    if let Some(t) = r.title.as_deref() {
        if let Some(m) = LEADING_YEAR_RE.find(t) {
            r.title = tidy(&t[m.end()..]);
        }
    }
}

/// An editor or translator named after a title, in the lowercase marks of the humanities
/// styles (`Contra academicos, ed. W. M. Green`, `The Abbreviated Psalter, trans. Gerald M.
/// Browne`, `Metamorphoseon. Edited by …`), or the bare mark after a comma at its end: a
/// contributor, not the title's words. A capitalised `Ed.` or `Trans.` is more often a word of
/// a venue (`Phil. Trans. R. Soc.`, `Ed. Psychology`) and is left alone.
static TRAILING_EDITOR_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"[,.;]\s*(?:eds?\.|trans\.|transl\.|ed\.\s+and\s+trans\.|(?:[Ee]dited|[Tt]ranslated)\s+by)\s+\p{Lu}[\p{L}'’-]*\.?(?:\s+[\p{L}'’-]+\.?){0,5}\s*$|,\s*(?:eds?|trans)\.?\s*$",
    )
    .unwrap_or_else(|e| unreachable!("{e}"))
});

/// A title's end that names its editor or translator is cut off (see [`TRAILING_EDITOR_RE`]),
/// unless the mark follows a number or a short abbreviation (`2. ed.`, `Rev. ed.`: an edition).
fn drop_trailing_editor(r: &mut Reference) {
    let Some(t) = r.title.as_deref() else {
        return;
    };
    let Some(m) = TRAILING_EDITOR_RE.find(t) else {
        return;
    };
    let before = t[..m.start()].trim_end();
    let word = before
        .rsplit(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("");
    let edition = word.chars().any(|c| c.is_ascii_digit())
        || (word.chars().count() <= 3 && t[m.start()..].starts_with('.'));
    if !before.is_empty() && !edition {
        r.title = tidy(before);
    }
}

/// A publisher's name (`MIT Press`, `Springer-Verlag`, `John Wiley & Sons`).
static PUBLISHER_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:press|publishers?|publishing|publications|verlag|sons|books|wiley|addison[- ]wesley|mcgraw[- ]?hill|kluwer|springer|prentice[- ]hall|routledge|macmillan|elsevier|pergamon|longman)\b",
    )
    .unwrap_or_else(|e| unreachable!("{e}"))
});

/// Drops a container that names the work's kind, trims the work's state off its end, and
/// moves a publisher read as the container of a work with no volume or issue to the publisher.
fn tidy_container(r: &mut Reference) {
    let Some(c) = r.container.as_deref() else {
        return;
    };
    let trimmed = NOT_YET_RE.replace(c, "");
    let trimmed = trimmed.trim();
    if trimmed.is_empty() || GENRE_RE.is_match(trimmed) {
        r.container = None;
        return;
    }
    if r.publisher.is_none()
        && r.volume.is_none()
        && r.issue.is_none()
        && trimmed.split_whitespace().count() <= 5
        && PUBLISHER_RE.is_match(trimmed)
    {
        r.publisher = Some(trimmed.to_string());
        r.container = None;
        return;
    }
    r.container = Some(trimmed.to_string());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::references::parse_reference_with;

    #[test]
    fn a_containers_place_is_not_a_kind_a_state_or_a_publisher() {
        let r = parse_reference_with(
            "Reilly, W. S. (1996). Believable Emotional and Social Agents. Ph.D. thesis, School of Computer Science, Carnegie Mellon University.",
            None,
            &[],
        );
        assert_ne!(r.container.as_deref(), Some("Ph.D. thesis"));
        let mut r = Reference {
            container: Some("Applied Optics, to appear".into()),
            ..Reference::default()
        };
        tidy_container(&mut r);
        assert_eq!(r.container.as_deref(), Some("Applied Optics"));
        for kind in [
            "Technical Report TR93-04-03",
            "US Patent",
            "2nd ed.",
            "Preprint",
        ] {
            let mut r = Reference {
                container: Some(kind.into()),
                ..Reference::default()
            };
            tidy_container(&mut r);
            assert_eq!(r.container, None, "{kind}");
        }
        let mut r = Reference {
            container: Some("MIT Press".into()),
            ..Reference::default()
        };
        tidy_container(&mut r);
        assert_eq!(
            (r.container, r.publisher.as_deref()),
            (None, Some("MIT Press"))
        );
        // A journal keeps its name, and a publisher's journal with a volume stays a container.
        let mut r = Reference {
            container: Some("Dissertation Abstracts International".into()),
            ..Reference::default()
        };
        tidy_container(&mut r);
        assert_eq!(
            r.container.as_deref(),
            Some("Dissertation Abstracts International")
        );
        let mut r = Reference {
            container: Some("Oxford University Press Journal".into()),
            volume: Some("3".into()),
            ..Reference::default()
        };
        tidy_container(&mut r);
        assert!(r.container.is_some() && r.publisher.is_none());
    }

    #[test]
    fn a_books_title_split_at_a_comma_is_joined() {
        let text = "Weber, William, The Rise of Musical Classics: A Study in Canon, Ritual, and Ideology (Oxford: Clarendon Press, 1992).";
        let mut r = Reference {
            title: Some("The Rise of Musical Classics: A Study in Canon".into()),
            container: Some("Ritual, and Ideology".into()),
            publisher: Some("Clarendon Press".into()),
            ..Reference::default()
        };
        join_title_split_at_comma(text, &mut r);
        assert_eq!(
            r.title.as_deref(),
            Some("The Rise of Musical Classics: A Study in Canon, Ritual, and Ideology")
        );
        assert_eq!(r.container, None);
        // An article in a journal keeps its container.
        let text = "Smith, J., A title, Journal of Things, 12, 1-9.";
        let mut r = Reference {
            title: Some("A title".into()),
            container: Some("Journal of Things".into()),
            volume: Some("12".into()),
            ..Reference::default()
        };
        join_title_split_at_comma(text, &mut r);
        assert_eq!(r.container.as_deref(), Some("Journal of Things"));
    }

    #[test]
    fn an_articles_title_ending_with_a_place_keeps_it() {
        let text = "Dressler, B. O., Incipient melt formation at the Wanapitei impact structure, Ontario, Canada. Meteoritics and Planetary Science, v. 32, pp. 249-258. 1997.";
        let mut r = Reference {
            title: Some("Incipient melt formation at the Wanapitei impact structure".into()),
            location: Some("Ontario, Canada".into()),
            container: Some("Meteoritics and Planetary Science".into()),
            volume: Some("32".into()),
            ..Reference::default()
        };
        join_place_in_title(text, &mut r);
        assert_eq!(
            r.title.as_deref(),
            Some("Incipient melt formation at the Wanapitei impact structure, Ontario, Canada")
        );
        assert_eq!(r.location, None);
        // A book's place stays.
        let text = "Lakoff, G. Metaphors We Live By, Chicago: University of Chicago Press, 2003.";
        let mut r = Reference {
            title: Some("Metaphors We Live By".into()),
            location: Some("Chicago".into()),
            publisher: Some("University of Chicago Press".into()),
            ..Reference::default()
        };
        join_place_in_title(text, &mut r);
        assert_eq!(r.location.as_deref(), Some("Chicago"));
    }

    #[test]
    fn a_year_at_the_head_of_a_title_is_the_date() {
        let mut r = Reference {
            title: Some("2012. Seismic structure of the lithosphere".into()),
            ..Reference::default()
        };
        drop_leading_year(&mut r);
        assert_eq!(
            r.title.as_deref(),
            Some("Seismic structure of the lithosphere")
        );
        // A title that opens with a year as a word keeps it.
        let mut r = Reference {
            title: Some("1984 and the making of a myth".into()),
            ..Reference::default()
        };
        drop_leading_year(&mut r);
        assert_eq!(r.title.as_deref(), Some("1984 and the making of a myth"));
    }

    #[test]
    fn an_editor_or_translator_after_a_title_is_not_the_title() {
        for (title, want) in [
            (
                "The Abbreviated Psalter of the Venerable Bede, trans",
                "The Abbreviated Psalter of the Venerable Bede",
            ),
            (
                "Contra academicos, De ordine, ed. W. M. Green",
                "Contra academicos, De ordine",
            ),
            (
                "Metamorphoseon. Edited by Michael von Albrecht",
                "Metamorphoseon",
            ),
            (
                "De doctrina christiana, ed. Joseph Martin",
                "De doctrina christiana",
            ),
            // Words of the title, editions and venues stay.
            ("Queer and Trans", "Queer and Trans"),
            (
                "Lesbian, Gay, Bisexual, Trans",
                "Lesbian, Gay, Bisexual, Trans",
            ),
            ("Goodbye, Ed", "Goodbye, Ed"),
            ("Notes on the eds. of Homer", "Notes on the eds. of Homer"),
            (
                "Principles of Geology. Rev. ed.",
                "Principles of Geology. Rev. ed.",
            ),
            ("Handbuch der Physik, 2. ed.", "Handbuch der Physik, 2. ed."),
            ("Phil. Trans. R. Soc. Lond.", "Phil. Trans. R. Soc. Lond."),
            (
                "Research in Science; Ed. Psychology Review",
                "Research in Science; Ed. Psychology Review",
            ),
        ] {
            let mut r = Reference {
                title: Some(title.into()),
                ..Reference::default()
            };
            drop_trailing_editor(&mut r);
            assert_eq!(r.title.as_deref(), Some(want), "{title}");
        }
    }
}

//! Calendar words: months, their abbreviations, weekdays and seasons.

use super::contains_ignore_case;

/// Full month names.
///
/// Used by: `facts::entities` (a capitalised word that starts a date is no name or place;
/// the date regexes), `citations::concepts` (a quoted date is no concept), `citations::words`
/// (never an author name), `html::filter` (dateline words).
pub const MONTHS: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Month abbreviations, written without their full stop ("Sept." is `Sept`); "May" is only in
/// [`MONTHS`].
///
/// Used by: `facts::entities` (no name or place; the date regexes, each with an optional
/// full stop), `citations::words` (never an author name in a callout), `html::filter`
/// (dateline words), `chunk::sentences` (no sentence end before a number: "Sept. 2024").
pub const MONTH_ABBREVIATIONS: &[&str] = &[
    "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec",
];

/// Days of the week.
///
/// Used by: `facts::entities` (no place after "in"; an optional weekday before a date),
/// `citations::words` (never an author name in a callout), `html::filter` (dateline words).
pub const WEEKDAYS: &[&str] = &[
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Seasons of the year ("Fall" as well as "Autumn").
///
/// Used by: `facts::entities` (no place after "in"; a season before a bare year makes it a
/// date), `citations::words` (never an author name: `(Spring 2010)`).
pub const SEASONS: &[&str] = &["Spring", "Summer", "Autumn", "Fall", "Winter"];

/// A full month name ([`MONTHS`]), in any ASCII case.
pub fn is_month(word: &str) -> bool {
    contains_ignore_case(MONTHS, word)
}

/// A month abbreviation ([`MONTH_ABBREVIATIONS`]) without its full stop, in any ASCII case.
pub fn is_month_abbreviation(word: &str) -> bool {
    contains_ignore_case(MONTH_ABBREVIATIONS, word)
}

/// A month name or abbreviation, in any ASCII case.
pub fn is_month_or_abbreviation(word: &str) -> bool {
    is_month(word) || is_month_abbreviation(word)
}

/// A day of the week ([`WEEKDAYS`]), in any ASCII case.
pub fn is_weekday(word: &str) -> bool {
    contains_ignore_case(WEEKDAYS, word)
}

/// A season ([`SEASONS`]), in any ASCII case.
pub fn is_season(word: &str) -> bool {
    contains_ignore_case(SEASONS, word)
}

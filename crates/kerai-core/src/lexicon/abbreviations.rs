//! Abbreviations that end in a full stop which does not end the sentence.

use super::contains_ignore_case;

/// Abbreviations (lower case, without the final full stop; inner stops kept: `e.g`) after
/// which a full stop never ends a sentence or a title, because a word or number always
/// follows: titles ("Dr.", "Prof."), "e.g.", "cf.", "Fig.", "pp.", "et al.".
///
/// Used by: `chunk::sentences` (no sentence end) and `references::title` (no title end); each
/// adds its own further abbreviations (the splitter "Capt.", "ibid."; references "etc.",
/// "sp. nov.", "Inc.").
pub const ABBREVIATIONS: &[&str] = &[
    "dr", "mr", "mrs", "ms", "prof", "gen", "jr", "sr", "st", "mt", "e.g", "i.e", "cf", "vs",
    "approx", "ca", "al", "fig", "figs", "vol", "pp", "ed", "eds",
];

/// An abbreviation of [`ABBREVIATIONS`] (without its final full stop), in any ASCII case.
pub fn is_abbreviation(word: &str) -> bool {
    contains_ignore_case(ABBREVIATIONS, word)
}

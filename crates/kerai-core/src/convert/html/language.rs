//! Language detection with `whatlang` (trigram profiles, about 70 languages, no model files):
//! [`detect_language`] ranks the likely languages of a text with confidences.
//!
//! Choice (figures in `notes/html.md`): whatlang is small and fast and accurate on sentences
//! and pages (≈ 97–98 % on sentences with an allowlist), which is what pages and paragraphs
//! need; lingua is more accurate on single words but weighs tens of megabytes of models in a
//! library the extension links. Short texts are where whatlang is weak, so callers judge
//! texts of a few words by their page (see `source_records`).

use whatlang::{Detector, Lang};

use super::dom::{Document, Tag};

/// The languages considered by default (the common languages of the web; a smaller set makes
/// short texts far more accurate): en de fr es it pt nl ru zh ja pl sv tr ar ko cs.
pub const DEFAULT_LANGUAGES: &[&str] = &[
    "en", "de", "fr", "es", "it", "pt", "nl", "ru", "zh", "ja", "pl", "sv", "tr", "ar", "ko", "cs",
];

const CODES: &[(Lang, &str)] = &[
    (Lang::Epo, "eo"),
    (Lang::Eng, "en"),
    (Lang::Rus, "ru"),
    (Lang::Cmn, "zh"),
    (Lang::Spa, "es"),
    (Lang::Por, "pt"),
    (Lang::Ita, "it"),
    (Lang::Ben, "bn"),
    (Lang::Fra, "fr"),
    (Lang::Deu, "de"),
    (Lang::Ukr, "uk"),
    (Lang::Kat, "ka"),
    (Lang::Ara, "ar"),
    (Lang::Hin, "hi"),
    (Lang::Jpn, "ja"),
    (Lang::Heb, "he"),
    (Lang::Yid, "yi"),
    (Lang::Pol, "pl"),
    (Lang::Amh, "am"),
    (Lang::Jav, "jv"),
    (Lang::Kor, "ko"),
    (Lang::Nob, "nb"),
    (Lang::Dan, "da"),
    (Lang::Swe, "sv"),
    (Lang::Fin, "fi"),
    (Lang::Tur, "tr"),
    (Lang::Nld, "nl"),
    (Lang::Hun, "hu"),
    (Lang::Ces, "cs"),
    (Lang::Ell, "el"),
    (Lang::Bul, "bg"),
    (Lang::Bel, "be"),
    (Lang::Mar, "mr"),
    (Lang::Kan, "kn"),
    (Lang::Ron, "ro"),
    (Lang::Slv, "sl"),
    (Lang::Hrv, "hr"),
    (Lang::Srp, "sr"),
    (Lang::Mkd, "mk"),
    (Lang::Lit, "lt"),
    (Lang::Lav, "lv"),
    (Lang::Est, "et"),
    (Lang::Tam, "ta"),
    (Lang::Vie, "vi"),
    (Lang::Urd, "ur"),
    (Lang::Tha, "th"),
    (Lang::Guj, "gu"),
    (Lang::Uzb, "uz"),
    (Lang::Pan, "pa"),
    (Lang::Aze, "az"),
    (Lang::Ind, "id"),
    (Lang::Tel, "te"),
    (Lang::Pes, "fa"),
    (Lang::Mal, "ml"),
    (Lang::Ori, "or"),
    (Lang::Mya, "my"),
    (Lang::Nep, "ne"),
    (Lang::Sin, "si"),
    (Lang::Khm, "km"),
    (Lang::Tuk, "tk"),
    (Lang::Aka, "ak"),
    (Lang::Zul, "zu"),
    (Lang::Sna, "sn"),
    (Lang::Afr, "af"),
    (Lang::Lat, "la"),
    (Lang::Slk, "sk"),
    (Lang::Cat, "ca"),
    (Lang::Tgl, "tl"),
    (Lang::Hye, "hy"),
    (Lang::Cym, "cy"),
];

/// The ISO 639-1 code of a whatlang language.
fn iso1(l: Lang) -> &'static str {
    CODES.iter().find(|c| c.0 == l).map_or("und", |c| c.1)
}

/// The whatlang language of an ISO 639-1 code (`no` is read as Bokmål).
fn from_iso1(code: &str) -> Option<Lang> {
    let code = if code.eq_ignore_ascii_case("no") {
        "nb"
    } else {
        code
    };
    CODES
        .iter()
        .find(|c| c.1.eq_ignore_ascii_case(code))
        .map(|c| c.0)
}

/// Every language whatlang knows, as ISO 639-1 codes.
pub fn supported_languages() -> Vec<&'static str> {
    CODES.iter().map(|c| c.1).collect()
}

/// Candidates returned at most.
const TOP: usize = 3;

/// The likely languages of `text` among [`DEFAULT_LANGUAGES`], best first, as
/// (ISO 639-1 code, confidence 0..1); empty when the text has no letters.
pub fn detect_language(text: &str) -> Vec<(String, f64)> {
    detect_language_among(text, DEFAULT_LANGUAGES)
}

/// Like [`detect_language`] among the given ISO 639-1 codes (all whatlang languages when
/// `languages` is empty; unknown codes are ignored).
///
/// Confidences: whatlang gives the winner a confidence `c` in 0..1 (how far it beats the
/// runner-up); the winner gets `0.5 + c/2`, and each next candidate (found by excluding the
/// ones before) the same share of what is left.
pub fn detect_language_among(text: &str, languages: &[&str]) -> Vec<(String, f64)> {
    ranked(text, languages, TOP)
}

/// The most likely language of `text` among `languages` (see [`detect_language_among`]).
pub fn best_language_among(text: &str, languages: &[&str]) -> Option<(String, f64)> {
    ranked(text, languages, 1).into_iter().next()
}

fn ranked(text: &str, languages: &[&str], top: usize) -> Vec<(String, f64)> {
    let mut allowed: Vec<Lang> = if languages.is_empty() {
        CODES.iter().map(|c| c.0).collect()
    } else {
        languages.iter().filter_map(|c| from_iso1(c)).collect()
    };
    if allowed.is_empty() || !text.chars().any(char::is_alphabetic) {
        return Vec::new();
    }
    let mut out: Vec<(String, f64)> = Vec::new();
    let mut left = 1.0;
    while out.len() < top && !allowed.is_empty() {
        let Some(info) = Detector::with_allowlist(allowed.clone()).detect(text) else {
            break;
        };
        let share = if allowed.len() == 1 {
            1.0
        } else {
            0.5 + info.confidence() / 2.0
        };
        let p = left * share;
        out.push((iso1(info.lang()).to_string(), p));
        left -= p;
        allowed.retain(|&l| l != info.lang());
        if left < 0.01 {
            break;
        }
    }
    out
}

/// The probability that `text` is in `language` (ISO 639-1), from [`detect_language_among`].
pub fn probability_of(text: &str, language: &str, languages: &[&str]) -> f64 {
    detect_language_among(text, languages)
        .iter()
        .find(|(l, _)| l.eq_ignore_ascii_case(language))
        .map_or(0.0, |c| c.1)
}

/// The `<html lang>` primary subtag, lower case.
pub fn declared_language(doc: &Document) -> Option<String> {
    let html = doc.find(Tag::Html)?;
    let lang = doc
        .attr(html, "lang")
        .or_else(|| doc.attr(html, "xml:lang"))?
        .trim();
    let primary = lang.split(['-', '_']).next()?.to_ascii_lowercase();
    (primary.len() == 2 || primary.len() == 3).then_some(primary)
}

/// Characters of main text used to detect a page's language.
const PAGE_SAMPLE: usize = 1200;

/// The language of a page: detected on its main text when that is confident (≥ 0.7), else
/// the declared `<html lang>`, else the detected one.
pub fn page_language(doc: &Document, text: &str) -> Option<String> {
    let sample: String = text.chars().take(PAGE_SAMPLE).collect();
    let detected = best_language_among(&sample, &[]);
    match (detected, declared_language(doc)) {
        (Some((l, p)), _) if p >= 0.7 => Some(l),
        (_, Some(d)) => Some(d),
        (Some((l, _)), None) => Some(l),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_languages() {
        let d = detect_language(
            "The quick brown fox jumps over the lazy dog and keeps running through the field.",
        );
        assert_eq!(d[0].0, "en");
        assert!(d[0].1 > 0.9, "{d:?}");
        let d = detect_language(
            "Der schnelle braune Fuchs springt über den faulen Hund und läuft weiter.",
        );
        assert_eq!(d[0].0, "de");
        assert!(d.windows(2).all(|w| w[0].1 >= w[1].1));
        assert!(detect_language("12345 !!!").is_empty());
        assert!(
            probability_of(
                "Facultad de Ingeniería – Admisiones",
                "en",
                DEFAULT_LANGUAGES
            ) < 0.8
        );
    }
}

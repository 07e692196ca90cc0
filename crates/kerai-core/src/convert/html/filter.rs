//! Block-level clean-up of the main content: drops what the container choice let through
//! but is not article text — link lists, repeated blocks (image captions shown twice),
//! the title heading (kept apart as `Extracted::title`), datelines, and one-line page
//! furniture ("Advertisement", "Caption", "Share").

use std::collections::HashMap;

/// Blocks this close to an identical earlier one are dropped.
const REPEAT_WINDOW: usize = 8;

use super::blocks::{Block, BlockKind};
use crate::lexicon;

/// Short texts that are page furniture wherever they appear (compared lower case, without
/// punctuation).
const FURNITURE: &[&str] = &[
    "advert",
    "advertisement",
    "advertising",
    "ad",
    "ads",
    "sponsored",
    "caption",
    "close",
    "open",
    "comments",
    "comment",
    "share",
    "share this",
    "share this article",
    "share on facebook",
    "share on twitter",
    "tweet",
    "email",
    "print",
    "related",
    "related tags",
    "related articles",
    "related stories",
    "related content",
    "trending",
    "trending now",
    "read more",
    "continue reading",
    "post comment",
    "leave a comment",
    "see more photos",
    "more",
    "loading",
    "skip",
    "skip ad",
    "subscribe",
    "sign up",
    "next",
    "previous",
    "back to top",
    "view comments",
    "show comments",
    "recommended",
    "you may also like",
    "more stories",
    "tags",
    "topics",
    "this slideshow requires javascript",
    "photo",
    "video",
    "watch",
    "listen",
    "don t miss",
    "dont miss",
    "related news",
    "read next",
    "also read",
    "sponsored links",
];

/// Headings that open page furniture: the heading and what follows it up to the next
/// heading of the same or a higher level are dropped.
const FURNITURE_HEADINGS: &[&str] = &[
    "related",
    "related news",
    "related articles",
    "related stories",
    "related posts",
    "related content",
    "related coverage",
    "related links",
    "related topics",
    "don t miss",
    "dont miss",
    "more stories",
    "more news",
    "read more",
    "read next",
    "recommended",
    "recommended for you",
    "most popular",
    "most read",
    "trending",
    "trending now",
    "you may also like",
    "you might also like",
    "also read",
    "latest news",
    "top stories",
    "comments",
    "leave a reply",
    "leave a comment",
    "share this",
    "share this article",
    "more from",
    "popular posts",
    "recent posts",
    "editor s picks",
    "editors picks",
    "about the author",
    "more",
    "more on this",
    "more on this story",
    "see also",
];

/// Words that, besides the months, month abbreviations and weekdays of [`lexicon`], make a
/// short line a dateline.
const DATE_WORDS: &[&str] = &[
    "updated",
    "published",
    "posted",
    "am",
    "pm",
    "est",
    "edt",
    "cst",
    "cdt",
    "pst",
    "pdt",
    "gmt",
    "utc",
    "ist",
    "bst",
    "cet",
    "on",
    "at",
    "by",
    "last",
    "modified",
    "first",
    "ago",
    "hours",
    "minutes",
    "min",
    "read",
    "mins",
];

/// A lower-case word of a dateline: a month, month abbreviation, weekday or [`DATE_WORDS`].
fn is_date_word(w: &str) -> bool {
    lexicon::is_month_or_abbreviation(w) || lexicon::is_weekday(w) || DATE_WORDS.contains(&w)
}

/// Normalised texts shorter than this never count as a repeat (a price, "Reply", a date).
const REPEAT_MIN_CHARS: usize = 20;

/// The key two blocks share when one repeats the other: words only, lower case; None for a
/// text too short to count as a repeat.
pub(crate) fn repeat_key(text: &str) -> Option<String> {
    Some(normalized(text)).filter(|n| n.len() >= REPEAT_MIN_CHARS)
}

fn normalized(s: &str) -> String {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A short line made of a date and dateline words ("Updated 5:27 am CST, Wednesday, November 20, 2019").
fn is_dateline(text: &str) -> bool {
    if text.chars().count() > 120 {
        return false;
    }
    let words: Vec<String> = normalized(text)
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    if words.is_empty() {
        return false;
    }
    let numeric = words
        .iter()
        .filter(|w| w.chars().all(|c| c.is_ascii_digit()))
        .count();
    let datey = words.iter().filter(|w| is_date_word(w)).count();
    numeric >= 1 && numeric + datey == words.len()
}

/// A gallery counter: "Image 1 of 5", "Photo 3 of 12", "Slide 2 of 9".
fn is_gallery_counter(norm: &str) -> bool {
    let w: Vec<&str> = norm.split(' ').collect();
    w.len() == 4
        && matches!(
            w[0],
            "image" | "photo" | "picture" | "slide" | "foto" | "bild"
        )
        && w[1].chars().all(|c| c.is_ascii_digit())
        && matches!(w[2], "of" | "von" | "de" | "di" | "sur")
        && w[3].chars().all(|c| c.is_ascii_digit())
}

/// A byline: "By Jane Doe", "by Someone ／ 2016.12.01" (short, starts with "by", and either a
/// few words or a year).
fn is_byline(text: &str, norm: &str) -> bool {
    if text.chars().count() > 100 || !norm.starts_with("by ") {
        return false;
    }
    let words = norm.split(' ').count();
    let has_year = norm.split(' ').any(|w| {
        w.len() >= 4
            && (w.starts_with("19") || w.starts_with("20"))
            && w[..4].chars().all(|c| c.is_ascii_digit())
    });
    words <= 5 || has_year
}

/// Whether a block's text is page furniture by its words alone: empty, a gallery counter, a
/// byline, a dateline, one of [`FURNITURE`], or a heading that repeats the page's title.
pub(crate) fn is_furniture_text(b: &Block, title: Option<&str>) -> bool {
    let norm = normalized(&b.text);
    norm.is_empty()
        || (b.kind == BlockKind::Heading && title.is_some_and(|t| normalized(t) == norm))
        || is_gallery_counter(&norm)
        || (b.kind != BlockKind::Heading && is_byline(&b.text, &norm))
        || (norm.len() < 40 && FURNITURE.contains(&norm.as_str()))
        || is_dateline(&b.text)
        || (b.text.starts_with('[') && b.text.contains("[/"))
}

/// Words a link block needs to be a card of a list page (a headline, a teaser) rather than
/// a menu item.
pub(crate) const CARD_WORDS: usize = 4;

/// Unmarks main blocks that are not content. On a list page (`list_page`: the main content
/// is mostly link text, cards pointing to the items), link blocks of a few words or more
/// are the cards and stay; elsewhere they are teasers of other pages and go.
pub fn filter_main(blocks: &mut [Block], title: Option<&str>, list_page: bool, discussion: bool) {
    let title_norm = title.map(normalized);
    // Repeats close together (a caption shown for the thumbnail and the enlarged image);
    // repeats far apart can be real (the same menu item in several plans), except in a
    // discussion (`discussion`: the page says it is a thread), where they are a quoted post,
    // the opening post shown again above the replies, or a poster's title under each post.
    let mut seen: HashMap<String, usize> = HashMap::new();
    // Level of the furniture heading whose section is being dropped.
    let mut furniture_level: Option<u8> = None;
    for (i, b) in blocks.iter_mut().filter(|b| b.main).enumerate() {
        let norm = normalized(&b.text);
        if b.kind == BlockKind::Heading {
            let level = b.depth;
            if furniture_level.is_some_and(|l| level <= l) {
                furniture_level = None;
            }
            // The page's own title never opens furniture ("Latest news" on a news index).
            let is_title = title_norm.as_deref() == Some(norm.as_str());
            if FURNITURE_HEADINGS.contains(&norm.as_str()) && !is_title {
                furniture_level = Some(level);
            }
        }
        if furniture_level.is_some() {
            // A real paragraph ends the furniture (the heading sat in the middle of the text).
            let ld = if b.chars == 0 {
                0.0
            } else {
                b.link_chars as f64 / b.chars as f64
            };
            if b.kind == BlockKind::Paragraph && b.chars >= 150 && ld < 0.3 {
                furniture_level = None;
            } else {
                b.main = false;
                continue;
            }
        }
        // Unrendered WordPress shortcodes: `[button link=...] Text [/button]`.
        if b.text.starts_with('[') && b.text.contains("[/") {
            b.main = false;
            continue;
        }
        let ld = if b.chars == 0 {
            0.0
        } else {
            b.link_chars as f64 / b.chars as f64
        };
        let card = list_page && b.text.split_whitespace().count() >= CARD_WORDS;
        // A heading that is all link is a teaser title pointing elsewhere.
        let teaser_heading = b.kind == BlockKind::Heading
            && b.chars > 0
            && b.link_chars * 10 >= b.chars * 9
            && !card;
        let drop = norm.is_empty()
            || is_gallery_counter(&norm)
            || (b.kind != BlockKind::Heading && is_byline(&b.text, &norm))
            || teaser_heading
            || (b.kind != BlockKind::Heading && ld > 0.7 && b.chars < 300 && !card)
            || (b.kind == BlockKind::Heading
                && b.depth == 1
                && title_norm.as_deref() == Some(norm.as_str()))
            || (norm.len() < 40 && FURNITURE.contains(&norm.as_str()))
            || is_dateline(&b.text)
            || (norm.len() >= REPEAT_MIN_CHARS
                && seen
                    .insert(norm, i)
                    .is_some_and(|j| discussion || i - j <= REPEAT_WINDOW));
        if drop {
            b.main = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_dateline;

    #[test]
    fn counters_and_bylines() {
        assert!(super::is_gallery_counter("image 1 of 5"));
        assert!(!super::is_gallery_counter("one of five images"));
        assert!(super::is_byline("By Jane Doe", "by jane doe"));
        assert!(super::is_byline(
            "by Lighthouse ／ 2016.12.01",
            "by lighthouse 2016 12 01"
        ));
        assert!(!super::is_byline(
            "By the end of the year the council had met twice more.",
            "by the end of the year the council had met twice more"
        ));
    }

    #[test]
    fn datelines() {
        assert!(is_dateline(
            "Updated 5:27 am CST, Wednesday, November 20, 2019"
        ));
        assert!(is_dateline("NOVEMBER 20, 2019 10:43"));
        assert!(!is_dateline(
            "On November 20, 2019 the council met at noon."
        ));
    }
}

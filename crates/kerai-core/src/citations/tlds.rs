//! The top-level domains a scheme-less ("fuzzy") link must end with: linkify-it's default list,
//! i.e. a few generic TLDs plus every two-letter country code.

/// The generic TLDs linkify-it accepts by default.
const GENERIC: [&str; 17] = [
    "biz", "com", "edu", "gov", "net", "org", "pro", "web", "xxx", "aero", "asia", "coop", "info",
    "museum", "name", "shop", "рф",
];

/// Two-letter country codes, by first letter: `a` + one of "cdefgilmnoqrstuwxz", ...
const COUNTRY: [(u8, &str); 26] = [
    (b'a', "cdefgilmnoqrstuwxz"),
    (b'b', "abdefghijmnorstvwyz"),
    (b'c', "acdfghiklmnoruvwxyz"),
    (b'd', "ejkmoz"),
    (b'e', "cegrstu"),
    (b'f', "ijkmor"),
    (b'g', "abdefghilmnpqrstuwy"),
    (b'h', "kmnrtu"),
    (b'i', "delmnoqrst"),
    (b'j', "emop"),
    (b'k', "eghimnprwyz"),
    (b'l', "abcikrstuvy"),
    (b'm', "acdeghklmnopqrstuvwxyz"),
    (b'n', "acefgilopruz"),
    (b'o', "m"),
    (b'p', "aefghklmnrstwy"),
    (b'q', "a"),
    (b'r', "eosuw"),
    (b's', "abcdeghijklmnortuvxyz"),
    (b't', "cdfghjklmnortvwz"),
    (b'u', "agksyz"),
    (b'v', "aceginu"),
    (b'w', "fs"),
    (b'x', ""),
    (b'y', "et"),
    (b'z', "amw"),
];

/// True when `label` (without the dot) is a known TLD, ignoring case.
pub fn is_known_tld(label: &str) -> bool {
    let b = label.as_bytes();
    if b.len() == 2 && b.iter().all(u8::is_ascii_alphabetic) {
        let (first, second) = (b[0].to_ascii_lowercase(), b[1].to_ascii_lowercase());
        return COUNTRY
            .iter()
            .find(|(f, _)| *f == first)
            .is_some_and(|(_, seconds)| seconds.as_bytes().contains(&second));
    }
    if label.is_ascii() {
        return GENERIC.iter().any(|t| t.eq_ignore_ascii_case(label));
    }
    GENERIC.iter().any(|t| *t == label.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::is_known_tld;

    #[test]
    fn known_and_unknown_tlds() {
        for t in ["com", "COM", "io", "ws", "de", "рф", "xxx", "museum"] {
            assert!(is_known_tld(t), "{t}");
        }
        for t in ["js", "jpg", "coma", "invalid", "123", "pl1", "x", ""] {
            assert!(!is_known_tld(t), "{t}");
        }
    }
}

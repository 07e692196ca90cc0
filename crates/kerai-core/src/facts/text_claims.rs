//! Claims from prose by sentence patterns, without a model.
//!
//! Patterns: "X was founded in/on DATE (by PERSON)", "PERSON(, who) founded X in DATE",
//! "X has/employs N employees/staff/people", "X is based/located/headquartered in PLACE",
//! "X opened Y on DATE", "X received/won/was awarded … MONEY", "X awarded Y … MONEY",
//! "PERSON is/has been the director/CEO/head (of ORG)", "PERSON, ROLE" list items,
//! "Y, led by PERSON", "PERSON will lead/leads Y", "X costs/cost MONEY".
//!
//! Subjects are the noun phrase before the verb; in a second clause ("…, and employs 142
//! people") the sentence's subject. "It"/"They" stand for the last named subject, and
//! "the lab" for the last name seen with the word "lab" in it (a small coreference step,
//! with lower confidence).

use super::entities::{spans, EntityKind};
use super::{Claim, ClaimSource};
use crate::retrieval::chunk::sentences::sentences;
use regex::Regex;
use std::ops::Range;
use std::sync::LazyLock;

type Spans = Vec<(Range<usize>, EntityKind, f32)>;

const PRONOUNS: &[&str] = &["It", "it", "They", "they", "He", "he", "She", "she", "This"];
const DETERMINERS: &[&str] = &["the", "a", "an", "its", "their", "his", "her", "our"];

/// Verbs that end a sentence's subject.
static SUBJECT_END: LazyLock<Regex> = LazyLock::new(|| {
    super::ascii_bounded(
        r"\b(?:is|are|was|were|has|have|had|will|would|can|employs|employed|opened|opens|received|receives|won|secured|awarded|costs?|houses|leads|led|heads|became|serves|served|founded|established|announced|launched|provides|offers|operates|runs|says|said)\b",
    )
});

struct Patterns {
    founded_passive: Regex,
    founded_active: Regex,
    employees: Regex,
    based: Regex,
    opened: Regex,
    received: Regex,
    awarded: Regex,
    role: Regex,
    role_item: Regex,
    led_by: Regex,
    will_lead: Regex,
    costs: Regex,
    named_after: Regex,
    budget: Regex,
}

static PATTERNS: LazyLock<Patterns> = LazyLock::new(|| {
    let re = super::ascii_bounded;
    Patterns {
        founded_passive: re(
            r"\b(?:was|were|has been|had been)\s+(?:originally\s+)?(?:founded|established|set up|created|incorporated)\b",
        ),
        founded_active: re(
            r"\b(?:co-)?founded\s+(?P<x>(?:the\s+)?\p{Lu}[\p{L}'’-]*(?:\s+(?:of\s+|for\s+)?\p{Lu}[\p{L}'’-]*)*)",
        ),
        employees: re(
            r"\b(?P<verb>has|had|have|employs|employed|employing|counts)\s+(?:a\s+(?:staff|workforce|team)\s+of\s+)?(?:about|around|over|more than|nearly|almost|some|approximately|roughly|close to)?\s*(?P<n>\d[\d,]*(?:\.\d+)?)\s+(?:full-time\s+|permanent\s+)?(?P<noun>employees|staff|people|workers|members of staff|scientists|researchers)\b",
        ),
        based: re(
            r"\b(?:is|are|was|were)\s+(?:now\s+|currently\s+)?(?:based|located|headquartered|situated)\s+in\s+(?P<p>\p{Lu}[\p{L}'’.-]*(?:(?:,\s+|\s+)\p{Lu}[\p{L}'’.-]*)*)",
        ),
        opened: re(r"\b(?:opened|inaugurated|unveiled)\s+"),
        received: re(
            r"\b(?:received|receives|won|secured|obtained|raised|(?:was|were|has been|have been)\s+awarded)\b",
        ),
        awarded: re(
            r"\bawarded\s+(?P<y>(?:the\s+)?\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*)*)\s+(?:a|an|the)\b",
        ),
        role: re(
            r"^\s*(?:is|was|has been|had been|became|serves as|served as|will be)\s+(?:the\s+)?(?:new\s+)?(?:(?:founding|executive|managing|scientific|acting|interim)\s+)?(?P<role>[Dd]irector|CEO|[Cc]hief [Ee]xecutive(?: [Oo]fficer)?|[Pp]resident|[Cc]hair(?:man|woman|person)?|[Hh]ead|[Dd]ean|[Ff]ounder|[Pp]rincipal|[Rr]ector|[Mm]anaging [Dd]irector)\b(?:\s+of\s+(?P<org>(?:the\s+)?\p{Lu}[\p{L}'’-]*(?:\s+(?:of\s+|for\s+|and\s+)?\p{Lu}[\p{L}'’-]*)*))?(?:\s+(?:since|from)\s+(?:\p{Lu}\p{Ll}+\s+)?\d{4})?",
        ),
        role_item: re(r"^,\s+(?P<role>\p{Lu}[^,;.()]*?)\s*(?:\((?P<note>[^)]*)\))?\s*$"),
        led_by: re(r",?\s+(?:is\s+|are\s+|was\s+)?(?:led|headed|directed|chaired)\s+by\s+$"),
        will_lead: re(
            r"^\s*(?:will lead|leads|led|heads|will head|directs|chairs)\s+(?P<y>[^,.;]+)",
        ),
        costs: re(r"\b(?:costs?|is priced at|was priced at|sells for|sold for)\b"),
        named_after: re(r"\b(?:is|was|are|were)\s+named\s+(?:after|for)\s+"),
        budget: re(
            r"\b(?:[Aa]nnual|[Yy]early|[Tt]otal|[Oo]perating)?\s*budget(?:\s+for\s+(?P<year>\d{4}))?\s+(?:is|was|will be|of)\s+",
        ),
    }
});

struct Ctx {
    /// The last subject that was named (not a pronoun).
    last_subject: Option<String>,
    /// Names seen so far, most recent last.
    names: Vec<String>,
}

impl Ctx {
    fn remember(&mut self, name: &str) {
        if name.chars().next().is_some_and(char::is_uppercase) {
            self.names.retain(|n| n != name);
            self.names.push(name.to_string());
        }
    }

    /// A clean subject for a raw noun phrase, with a confidence factor (1 when named).
    fn resolve(&self, raw: &str) -> Option<(String, f32)> {
        let raw = raw
            .trim()
            .trim_matches(|c: char| c == ',' || c == ';' || c == ':');
        let raw = raw.strip_prefix("and ").unwrap_or(raw).trim();
        if raw.is_empty() || raw.split_whitespace().count() > 10 {
            return None;
        }
        if PRONOUNS.contains(&raw) {
            return self.last_subject.clone().map(|s| (s, 0.85));
        }
        let words: Vec<&str> = raw.split_whitespace().collect();
        if matches!(words[0], "The" | "the" | "This" | "this" | "Its" | "its") {
            let rest = &words[1..];
            if rest.is_empty() {
                return None;
            }
            let all_capital = rest
                .iter()
                .all(|w| w.chars().next().is_some_and(char::is_uppercase) || is_joiner(w));
            if all_capital && rest.len() >= 2 {
                return Some((rest.join(" "), 1.0));
            }
            let head = rest[rest.len() - 1].to_lowercase();
            let found = self.names.iter().rev().find(|n| {
                n.split_whitespace()
                    .any(|w| w.to_lowercase() == head || w.to_lowercase() == format!("{head}s"))
            });
            return match found {
                Some(n) => Some((n.clone(), 0.85)),
                None if words[0] == "The" || words[0] == "the" => Some((raw.to_string(), 0.8)),
                None => None,
            };
        }
        if !raw
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        {
            return None;
        }
        Some((raw.to_string(), 1.0))
    }
}

fn is_joiner(w: &str) -> bool {
    matches!(w, "of" | "for" | "and" | "&" | "de" | "the")
}

/// The claims stated in `text` (plain text or markdown), in order.
pub fn claims_from_text(text: &str) -> Vec<Claim> {
    let mut ctx = Ctx {
        last_subject: None,
        names: Vec::new(),
    };
    let mut out = Vec::new();
    for unit in units(text) {
        crate::interrupt::check();
        let before = out.len();
        let ents = spans(&unit);
        sentence_claims(&unit, &ents, &mut ctx, &mut out);
        for c in &out[before..] {
            let subject = c.subject.clone();
            ctx.remember(&subject);
            if c.predicate != "role" {
                ctx.remember(&c.object.clone());
            }
        }
        for (r, kind, _) in &ents {
            if matches!(
                kind,
                EntityKind::Organization | EntityKind::Product | EntityKind::Location
            ) {
                ctx.remember(&unit[r.clone()]);
            }
        }
    }
    out
}

/// Sentences of the text; list items (lines starting with "-", "*", "1.") stand alone.
fn units(text: &str) -> Vec<String> {
    static ITEM: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*(?:[-*+•]|\d+[.)])\s+").expect("item pattern"));
    let mut out = Vec::new();
    for para in text.split("\n\n") {
        let mut prose = String::new();
        let flush = |prose: &mut String, out: &mut Vec<String>| {
            out.extend(sentences(prose).into_iter().map(str::to_string));
            prose.clear();
        };
        for line in para.lines() {
            if let Some(m) = ITEM.find(line) {
                flush(&mut prose, &mut out);
                let item = line[m.end()..].trim();
                if !item.is_empty() {
                    out.push(item.to_string());
                }
            } else {
                let line = line.trim().trim_start_matches('#').trim();
                if !prose.is_empty() {
                    prose.push(' ');
                }
                prose.push_str(line);
            }
        }
        flush(&mut prose, &mut out);
    }
    out
}

/// The sentence's own subject: the words before its first verb or comma.
fn sentence_subject(s: &str) -> &str {
    let verb = SUBJECT_END.find(s).map_or(s.len(), |m| m.start());
    let comma = s.find(',').unwrap_or(s.len());
    s[..verb.min(comma)].trim()
}

/// The subject of a verb at byte `at`: the phrase just before it, or the sentence's subject
/// when the verb opens a second clause ("…, and employs").
fn subject_before(s: &str, at: usize) -> &str {
    let p = s[..at].trim_end();
    if p.is_empty() || p.ends_with(',') || p.ends_with(" and") || p.ends_with(" but") {
        return sentence_subject(s);
    }
    let seg = p.rsplit([',', ';']).next().unwrap_or(p).trim();
    if SUBJECT_END.is_match(seg) {
        return sentence_subject(s);
    }
    seg
}

/// The first entity of one of `kinds` starting at or after `from` and before `to`.
fn entity_after(
    ents: &Spans,
    from: usize,
    to: usize,
    kinds: &[EntityKind],
) -> Option<Range<usize>> {
    ents.iter()
        .find(|(r, k, _)| r.start >= from && r.start < to && kinds.contains(k))
        .map(|(r, _, _)| r.clone())
}

/// The person entity ending just before byte `at` (spaces and one comma between).
fn person_before(s: &str, ents: &Spans, at: usize) -> Option<Range<usize>> {
    ents.iter()
        .find(|(r, k, _)| {
            *k == EntityKind::Person
                && r.end <= at
                && s[r.end..at]
                    .trim()
                    .trim_start_matches(',')
                    .trim()
                    .trim_end_matches("who")
                    .trim()
                    .is_empty()
        })
        .map(|(r, _, _)| r.clone())
}

/// Strip leading determiners: "its computational psychiatry programme" -> "computational
/// psychiatry programme".
fn strip_determiner(s: &str) -> &str {
    let s = s.trim();
    match s.split_once(' ') {
        Some((first, rest)) if DETERMINERS.contains(&first.to_lowercase().as_str()) => rest.trim(),
        _ => s,
    }
}

fn claim(
    statement: String,
    subject: &str,
    predicate: &str,
    object: &str,
    confidence: f32,
) -> Claim {
    Claim::new(
        statement,
        subject,
        predicate,
        object,
        confidence,
        ClaimSource::Pattern,
    )
}

fn sentence_claims(s: &str, ents: &Spans, ctx: &mut Ctx, out: &mut Vec<Claim>) {
    let p = &*PATTERNS;
    let date_kinds = [EntityKind::Date];
    let money_kinds = [EntityKind::Money];
    let end = s.len();

    // X was founded in DATE (by PERSON)
    for m in p.founded_passive.find_iter(s) {
        let Some((subject, f)) = ctx.resolve(subject_before(s, m.start())) else {
            continue;
        };
        let rest = &s[m.end()..];
        if let Some(d) = entity_after(ents, m.end(), end, &date_kinds) {
            let between = s[m.end()..d.start].trim();
            if between == "in" || between == "on" {
                let pred = format!("founded {between}");
                let date = &s[d];
                out.push(claim(
                    format!("{subject} was {pred} {date}"),
                    &subject,
                    &pred,
                    date,
                    0.85 * f,
                ));
            }
        }
        if let Some(i) = rest.find(" by ") {
            let at = m.end() + i + 4;
            if let Some(r) = entity_after(
                ents,
                at,
                at + 1,
                &[EntityKind::Person, EntityKind::Organization],
            ) {
                let who = &s[r];
                out.push(claim(
                    format!("{subject} was founded by {who}"),
                    &subject,
                    "founded by",
                    who,
                    0.85 * f,
                ));
            }
        }
        ctx.last_subject = Some(subject);
    }

    // PERSON (, who) founded X in DATE
    for c in p.founded_active.captures_iter(s) {
        let m = c.get(0).expect("match");
        if s[..m.start()].trim_end().ends_with("was") {
            continue;
        }
        let Some(who) = person_before(s, ents, m.start()) else {
            continue;
        };
        let x = c.name("x").expect("group x");
        let Some((subject, f)) = ctx.resolve(x.as_str()) else {
            continue;
        };
        let who = &s[who];
        out.push(claim(
            format!("{subject} was founded by {who}"),
            &subject,
            "founded by",
            who,
            0.8 * f,
        ));
        if let Some(d) = entity_after(ents, x.end(), end, &date_kinds) {
            let between = s[x.end()..d.start].trim();
            if between == "in" || between == "on" {
                let pred = format!("founded {between}");
                let date = &s[d];
                out.push(claim(
                    format!("{subject} was {pred} {date}"),
                    &subject,
                    &pred,
                    date,
                    0.8 * f,
                ));
            }
        }
    }

    // X is based in PLACE
    for c in p.based.captures_iter(s) {
        let m = c.get(0).expect("match");
        let Some((subject, f)) = ctx.resolve(subject_before(s, m.start())) else {
            continue;
        };
        let place = c
            .name("p")
            .expect("group p")
            .as_str()
            .trim_end_matches([',', '.']);
        out.push(claim(
            format!("{subject} is based in {place}"),
            &subject,
            "based in",
            place,
            0.85 * f,
        ));
        ctx.last_subject = Some(subject);
    }

    // X has/employs N employees
    for c in p.employees.captures_iter(s) {
        let m = c.get(0).expect("match");
        let Some((subject, f)) = ctx.resolve(subject_before(s, m.start())) else {
            continue;
        };
        let n = c
            .name("n")
            .expect("group n")
            .as_str()
            .trim_end_matches([',', '.']);
        let noun = c.name("noun").expect("group noun").as_str();
        let verb = c.name("verb").expect("group verb").as_str();
        let statement = if verb.starts_with("employ") {
            format!("{subject} employs {n} {noun}")
        } else {
            format!("{subject} has {n} {noun}")
        };
        out.push(claim(
            statement,
            &subject,
            "number of employees",
            n,
            0.8 * f,
        ));
    }

    // X opened Y on DATE
    for m in p.opened.find_iter(s) {
        let Some((subject, f)) = ctx.resolve(subject_before(s, m.start())) else {
            continue;
        };
        let clause_end = s[m.end()..].find([',', ';']).map_or(end, |i| m.end() + i);
        let date = entity_after(ents, m.end(), clause_end, &date_kinds);
        let (what_end, date) = match date {
            Some(d) => {
                let before = s[..d.start].trim_end();
                let cut = before
                    .strip_suffix(" on")
                    .or_else(|| before.strip_suffix(" in"))
                    .map_or(d.start, str::len);
                (cut, Some(&s[d]))
            }
            None => (clause_end, None),
        };
        // "X opened on DATE" names nothing opened: the date's " on" may end before the match.
        let what = strip_determiner(s[m.end()..what_end.max(m.end())].trim_end_matches(['.', ' ']));
        if what.is_empty() || what.split_whitespace().count() > 8 {
            continue;
        }
        match date {
            Some(date) => {
                out.push(claim(
                    format!("{subject} opened {what} on {date}"),
                    &subject,
                    "opened",
                    what,
                    0.8 * f,
                ));
                out.push(claim(
                    format!("{what} opened on {date}"),
                    what,
                    "opened on",
                    date,
                    0.8,
                ));
            }
            None => out.push(claim(
                format!("{subject} opened {what}"),
                &subject,
                "opened",
                what,
                0.7 * f,
            )),
        }
        ctx.last_subject = Some(subject);
    }

    // X received ... MONEY
    for m in p.received.find_iter(s) {
        let Some((subject, f)) = ctx.resolve(subject_before(s, m.start())) else {
            continue;
        };
        let Some(r) = entity_after(ents, m.end(), end, &money_kinds) else {
            continue;
        };
        let money = &s[r.clone()];
        let from = s[r.end..]
            .find(" from ")
            .and_then(|i| {
                entity_after(
                    ents,
                    r.end + i + 6,
                    r.end + i + 7,
                    &[EntityKind::Organization],
                )
            })
            .map(|o| format!(" from {}", &s[o]))
            .unwrap_or_default();
        out.push(claim(
            format!("{subject} received {money}{from}"),
            &subject,
            "received",
            money,
            0.8 * f,
        ));
    }

    // X awarded Y ... MONEY
    for c in p.awarded.captures_iter(s) {
        let m = c.get(0).expect("match");
        let Some((giver, fg)) = ctx.resolve(subject_before(s, m.start())) else {
            continue;
        };
        let y = c.name("y").expect("group y");
        let Some((taker, ft)) = ctx.resolve(y.as_str()) else {
            continue;
        };
        let Some(r) = entity_after(ents, y.end(), end, &money_kinds) else {
            continue;
        };
        let money = &s[r];
        out.push(claim(
            format!("{taker} received {money} from {giver}"),
            &taker,
            "received",
            money,
            0.8 * ft,
        ));
        out.push(claim(
            format!("{giver} awarded {money} to {taker}"),
            &giver,
            "awarded",
            money,
            0.8 * fg,
        ));
        ctx.last_subject = Some(taker);
    }

    // X costs MONEY
    for m in p.costs.find_iter(s) {
        let Some((subject, f)) = ctx.resolve(subject_before(s, m.start())) else {
            continue;
        };
        let Some(r) = entity_after(ents, m.end(), end, &money_kinds) else {
            continue;
        };
        if !s[m.end()..r.start].trim().is_empty() && s[m.end()..r.start].trim() != "about" {
            continue;
        }
        let verb = m.as_str();
        let money = &s[r];
        out.push(claim(
            format!("{subject} {verb} {money}"),
            &subject,
            "costs",
            money,
            0.8 * f,
        ));
    }

    // X is named after Y
    for m in p.named_after.find_iter(s) {
        let Some((subject, f)) = ctx.resolve(subject_before(s, m.start())) else {
            continue;
        };
        let kinds = [
            EntityKind::Person,
            EntityKind::Organization,
            EntityKind::Location,
        ];
        if let Some(r) = entity_after(ents, m.end(), m.end() + 1, &kinds) {
            let whom = &s[r];
            out.push(claim(
                format!("{subject} is named after {whom}"),
                &subject,
                "named after",
                whom,
                0.8 * f,
            ));
        }
    }

    // (the) annual budget (for YEAR) is MONEY: the budget of the last named subject
    for c in p.budget.captures_iter(s) {
        let m = c.get(0).expect("match");
        let Some(subject) = ctx.last_subject.clone() else {
            continue;
        };
        let Some(r) = entity_after(ents, m.end(), m.end() + 1, &money_kinds) else {
            continue;
        };
        let money = &s[r];
        let (pred, statement) = match c.name("year") {
            Some(y) => (
                format!("budget for {}", y.as_str()),
                format!("The budget of {subject} for {} is {money}", y.as_str()),
            ),
            None => (
                "budget".to_string(),
                format!("The budget of {subject} is {money}"),
            ),
        };
        out.push(claim(statement, &subject, &pred, money, 0.65));
    }

    // PERSON is the director (of ORG); PERSON, ROLE; PERSON will lead Y
    for (r, kind, _) in ents {
        if *kind != EntityKind::Person {
            continue;
        }
        let person = &s[r.clone()];
        let after = &s[r.end..];
        if let Some(c) = p.role.captures(after) {
            let role = c.name("role").expect("group role").as_str();
            let tail = c.get(0).expect("match").as_str().trim();
            match c.name("org") {
                Some(org) => {
                    let org = ctx
                        .resolve(org.as_str())
                        .map_or(org.as_str().to_string(), |(o, _)| o);
                    let role = if role.chars().all(|c| c.is_uppercase()) {
                        role.to_string()
                    } else {
                        role.to_lowercase()
                    };
                    let pred = format!("{role} of");
                    out.push(claim(format!("{person} {tail}"), person, &pred, &org, 0.8));
                }
                None => out.push(claim(
                    format!("{person} {tail}"),
                    person,
                    "role",
                    role,
                    0.75,
                )),
            }
        } else if let Some(c) = p.role_item.captures(after) {
            if r.start == 0 {
                let role = c.name("role").expect("group role").as_str().trim();
                out.push(claim(
                    format!("{person} is {role}"),
                    person,
                    "role",
                    role,
                    0.7,
                ));
            }
        } else if let Some(c) = p.will_lead.captures(after) {
            let what = strip_determiner(c.name("y").expect("group y").as_str());
            out.push(claim(
                format!("{person} leads {what}"),
                person,
                "leads",
                what,
                0.7,
            ));
        }
        // Y, led by PERSON
        if let Some(m) = p.led_by.find(&s[..r.start]) {
            let before = s[..m.start()].trim_end();
            let start = before.rfind([',', ';', '(', ':']).map_or(0, |i| i + 1);
            let phrase = &before[start..];
            let phrase = phrase.rsplit(" for ").next().unwrap_or(phrase);
            let what = strip_determiner(phrase);
            if !what.is_empty() && what.split_whitespace().count() <= 6 {
                out.push(claim(
                    format!("{person} leads {what}"),
                    person,
                    "leads",
                    what,
                    0.7,
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triples(text: &str) -> Vec<(String, String, String)> {
        claims_from_text(text)
            .into_iter()
            .map(|c| (c.subject, c.predicate, c.object))
            .collect()
    }

    fn t(s: &str, p: &str, o: &str) -> (String, String, String) {
        (s.into(), p.into(), o.into())
    }

    #[test]
    fn founding_location_staff_with_pronouns() {
        assert_eq!(
            triples(
                "Acme Robotics was founded in 2004 by Jane Smith. It is headquartered in Leeds, \
                 England, and employs 230 people."
            ),
            vec![
                t("Acme Robotics", "founded in", "2004"),
                t("Acme Robotics", "founded by", "Jane Smith"),
                t("Acme Robotics", "based in", "Leeds, England"),
                t("Acme Robotics", "number of employees", "230"),
            ]
        );
    }

    #[test]
    fn openings_costs_and_definite_references() {
        let c = claims_from_text(
            "The council opened the Riverside Library on 3 June 2025. The library cost £2.1 million.",
        );
        let got: Vec<_> = c
            .iter()
            .map(|c| (c.subject.as_str(), c.predicate.as_str(), c.object.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("The council", "opened", "Riverside Library"),
                ("Riverside Library", "opened on", "3 June 2025"),
                ("Riverside Library", "costs", "£2.1 million"),
            ]
        );
        assert_eq!(c[2].statement, "Riverside Library cost £2.1 million");
        assert!(c[2].confidence < c[1].confidence);
    }

    /// "X opened on DATE" names nothing that was opened: no claim, and no panic (the date's
    /// " on" ends before the match; found by a crawl of a news page).
    #[test]
    fn an_opening_with_only_a_date_names_nothing() {
        let c = claims_from_text(
            "The new imaging lab opened on 12 March with a ceremony for all staff and guests.",
        );
        assert!(c.iter().all(|c| c.predicate != "opened"), "{c:?}");
    }

    #[test]
    fn roles_money_and_leaders() {
        assert_eq!(
            triples(
                "Ms. Rosa Diaz is the CEO of Harbour Foods Ltd. Harbour Foods Ltd received a loan of $3.5bn. \
                 The soil programme, led by Dr. Kofi Mensah, starts in May."
            ),
            vec![
                t("Ms. Rosa Diaz", "CEO of", "Harbour Foods Ltd"),
                t("Harbour Foods Ltd", "received", "$3.5bn"),
                t("Dr. Kofi Mensah", "leads", "soil programme"),
            ]
        );
    }

    #[test]
    fn nothing_from_vague_text() {
        assert!(claims_from_text("We believe in a better future for everyone.").is_empty());
        assert!(claims_from_text("").is_empty());
    }
}

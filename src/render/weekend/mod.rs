//! The "last weekend" section of a realm's Monday form: the events that realm may know,
//! rendered in its language, step by step. Pure: events in, lines out.

pub mod economy;
pub mod espionage;
pub mod evil;
pub mod magic;
pub mod market;
pub mod military;
pub mod politics;

use crate::game::event::{Event, What};
use crate::game::hash::FastMap;
use crate::game::{GameState, Lang};

/// The lines of `realm`'s report of the weekend, in event order.
pub fn report(events: &[Event], gs: &GameState, realm: &str, lang: Lang) -> Vec<String> {
    lines_of(events.iter().filter(|e| e.seen_by(realm)), gs, realm, lang)
}

/// The lines telling `events` (those `realm` may know, in order) to `realm`.
pub fn lines_of<'e>(
    events: impl Iterator<Item = &'e Event>,
    gs: &GameState,
    realm: &str,
    lang: Lang,
) -> Vec<String> {
    events
        .flat_map(|e| match &e.what {
            What::Economy(ev) => economy::lines(ev, gs, realm, lang),
            What::Military(ev) => military::lines(ev, gs, realm, lang),
            What::Evil(ev) => evil::lines(ev, gs, realm, lang),
            What::Market(ev) => market::lines(ev, gs, realm, lang),
            What::Espionage(ev) => espionage::lines(ev, gs, realm, lang),
            What::Politics(ev) => politics::lines(ev, gs, realm, lang),
            What::Magic(ev) => magic::lines(ev, gs, realm, lang),
        })
        .collect()
}

/// For every realm named in a `seen_by`, the places in `events` of the events it may
/// know, in order: one pass, so every realm's report together costs one look at each
/// event and each reader.
pub fn seen_by_realm(events: &[Event]) -> FastMap<&str, Vec<usize>> {
    let mut out: FastMap<&str, Vec<usize>> = FastMap::default();
    for (i, e) in events.iter().enumerate() {
        for r in &e.seen_by {
            let list = out.entry(r.as_str()).or_default();
            if list.last() != Some(&i) {
                list.push(i);
            }
        }
    }
    out
}

/// Where each rule citation (`R-SPY-4`, `RULINGS 43`, `Rulings 43`) stands in `line`:
/// its start and end, in bytes.
pub fn rule_citations(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !line.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let glued = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-');
        let rest = &line[i..];
        let end = if glued {
            None
        } else if let Some(r) = rest.strip_prefix("R-") {
            let fam = r.bytes().take_while(u8::is_ascii_uppercase).count();
            let digits = r[fam..]
                .strip_prefix('-')
                .map_or(0, |t| t.bytes().take_while(u8::is_ascii_digit).count());
            (fam > 0 && digits > 0).then(|| i + 2 + fam + 1 + digits)
        } else if let Some(r) = rest
            .strip_prefix("RULINGS ")
            .or_else(|| rest.strip_prefix("Rulings "))
        {
            let digits = r.bytes().take_while(u8::is_ascii_digit).count();
            (digits > 0).then(|| i + 8 + digits)
        } else {
            None
        };
        match end {
            Some(e) => {
                out.push((i, e));
                i = e;
            }
            None => i += 1,
        }
    }
    out
}

/// The lines of `text` where a rule ID (`R-SPY-4`, `RULINGS 43`) stands anywhere but
/// last, in parentheses of its own, after words that explain on their own: how every
/// player's mail cites a rule (D-82). The render tests check each kind of
/// event with it, and `tests/player_words.rs` every mail of a whole week.
pub fn misplaced_rule_ids(text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for line in text.lines() {
        for (start, end) in rule_citations(line) {
            let open = line[..start].rfind('(');
            let close = line[end..].find(')').map(|c| end + c);
            let ok = match (open, close) {
                (Some(o), Some(c)) => {
                    let inside = &line[o + 1..c];
                    let mut rest = String::new();
                    let mut last = 0;
                    for (a, z) in rule_citations(inside) {
                        rest.push_str(&inside[last..a]);
                        last = z;
                    }
                    rest.push_str(&inside[last..]);
                    let after = &line[c + 1..];
                    let next = after.trim_start_matches(['.', '!', '?']);
                    line[..o].chars().any(char::is_alphabetic)
                        && (next.trim().is_empty()
                            || (after.starts_with('.') && next.starts_with(' ')))
                        && rest.chars().all(|ch| {
                            ch.is_ascii_digit() || matches!(ch, ',' | ';' | ' ' | '/' | '–' | '.')
                        })
                }
                _ => false,
            };
            if !ok {
                bad.push(line.trim().to_string());
                break;
            }
        }
    }
    bad
}

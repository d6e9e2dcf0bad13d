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

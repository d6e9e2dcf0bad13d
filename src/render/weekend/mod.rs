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
use crate::game::{GameState, Lang};

/// The lines of `realm`'s report of the weekend, in event order.
pub fn report(events: &[Event], gs: &GameState, realm: &str, lang: Lang) -> Vec<String> {
    events
        .iter()
        .filter(|e| e.seen_by(realm))
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

//! Step 6: production (R-RES-6). Each city adds its production to its owner's stock;
//! the owner is whoever holds the city after step 4. A city plundered this weekend
//! gives its owner nothing (R-CITY-5), nor does a city the Evil emptied until its
//! population is above 0 again (docs/rules.md, Rulings 57).

use std::collections::BTreeMap;

use super::{playing, tell, EconomyEvent};
use crate::game::event::Step;
use crate::game::weekend::{magic, Weekend};
use crate::game::{Resource, Resources, Square};

pub(super) fn run(w: &mut Weekend) {
    let mut made: BTreeMap<String, (Resources, Vec<Square>)> = BTreeMap::new();
    for c in w.state.cities.iter_mut() {
        let (got, idle) = made.entry(c.owner.to_string()).or_default();
        if w.plundered.contains(&c.square) || (c.plundered && c.population == 0) {
            idle.push(c.square);
            continue;
        }
        c.plundered = false;
        *got = add(*got, &c.production);
    }
    for realm in playing(w) {
        let Some((got, idle)) = made.remove(&realm) else {
            continue;
        };
        let got = magic::reads::production(&w.magic, &w.state, &realm, got);
        if got.is_zero() && idle.is_empty() {
            continue;
        }
        if let Some(r) = w.state.realm_mut(&realm) {
            r.stock = add(r.stock, &got);
        }
        let ev = EconomyEvent::Produced {
            realm,
            resources: got,
            idle,
        };
        tell(w, Step::Production, ev);
    }
}

/// `a + b`, each resource at most `u32::MAX`.
pub(super) fn add(a: Resources, b: &Resources) -> Resources {
    let mut out = a;
    for r in Resource::ALL {
        out.set(r, a.get(r).saturating_add(b.get(r)));
    }
    out
}

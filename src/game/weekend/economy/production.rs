//! Step 6: production (R-RES-6). Each city adds its production to its owner's stock;
//! the owner is whoever holds the city after step 4. A city plundered this weekend
//! gives its owner nothing (R-CITY-5), nor does a city the Evil emptied until its
//! population is above 0 again (docs/rules.md, Rulings 57).

use super::{tell, EconomyEvent};
use crate::game::event::Step;
use crate::game::state::OwnerRuns;
use crate::game::weekend::{magic, Weekend};
use crate::game::{Resource, Resources, Square};

pub(super) fn run(w: &mut Weekend) {
    // What each realm's cities made, and those idle, by the realm's place.
    let mut made: Vec<Option<(Resources, Vec<Square>)>> = vec![None; w.state.realms.len()];
    // An owner's cities mostly follow each other: the owner is looked up once a run.
    let mut runs = OwnerRuns::default();
    let places: Vec<Option<usize>> = w
        .state
        .cities
        .iter()
        .map(|c| runs.place(&w.state, &c.owner))
        .collect();
    let plundered = &w.plundered;
    for (c, place) in w.state.cities.iter_mut().zip(places) {
        let slot = place
            .and_then(|p| made.get_mut(p))
            .map(|s| s.get_or_insert_with(Default::default));
        if plundered.contains(&c.square) || (c.plundered && c.population == 0) {
            if let Some((_, idle)) = slot {
                idle.push(c.square);
            }
            continue;
        }
        c.plundered = false;
        if let Some((got, _)) = slot {
            *got = add(*got, &c.production);
        }
    }
    for (i, slot) in made.into_iter().enumerate() {
        let Some((got, idle)) = slot else {
            continue;
        };
        let Some(realm) = w.state.realms.get(i).filter(|r| !r.eliminated) else {
            continue;
        };
        let realm = realm.name.clone();
        let got = magic::reads::production(&w.magic, &w.state, &realm, got);
        if got.is_zero() && idle.is_empty() {
            continue;
        }
        let r = &mut w.state.realms[i];
        r.stock = add(r.stock, &got);
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

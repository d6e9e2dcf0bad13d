//! Step 7: the slave revolt (R-RES-7..9). A realm whose form found it holding more
//! slaves than army units (every army unit counts, elementals and siege towers too;
//! docs/rules.md, Rulings 5) loses every slave, and besides that the slaves held plus
//! those produced this weekend, less its army units (Rulings 6; or all of them, by
//! the setting). The loss is taken one at a time in turn over the ordinary resources
//! it holds, in resource order, and only then over the crystals (Rulings 7).

use std::collections::BTreeMap;

use super::{tell, EconomyEvent};
use crate::game::event::Step;
use crate::game::state::SlaveRevoltLoss;
use crate::game::weekend::Weekend;
use crate::game::{Resource, Resources};

pub(super) fn run(w: &mut Weekend) {
    let produced = produced_slaves(w);
    for (i, realm) in w.start.realms.iter().enumerate() {
        if realm.eliminated {
            continue;
        }
        let slaves = realm.stock.get(Resource::Slavar);
        let army_units = w.start_army_units(i);
        if slaves <= army_units {
            continue;
        }
        let produced = produced.get(&realm.name).copied().unwrap_or(0);
        let freed = slaves.saturating_add(produced);
        let n = match w.settings.slave_revolt_loss {
            SlaveRevoltLoss::Excess => freed.saturating_sub(army_units),
            SlaveRevoltLoss::All => freed,
        };
        let Some(r) = w.state.realms.get_mut(i).filter(|r| r.name == realm.name) else {
            continue;
        };
        r.stock.set(Resource::Slavar, 0);
        let lost = take_evenly(&mut r.stock, n);
        let ev = EconomyEvent::SlaveRevolt {
            realm: realm.name.clone(),
            slaves,
            produced,
            army_units,
            lost,
        };
        tell(w, Step::SlaveRevolt, ev);
    }
}

/// Slaves step 6 gave each realm this weekend. Step 6 runs just before this step, so
/// its events are the last ones recorded: those are read, not every event of the
/// weekend (debug builds check that no earlier event is a production).
fn produced_slaves(w: &Weekend) -> BTreeMap<String, u32> {
    let slaves = |events: &[crate::game::event::Event]| -> BTreeMap<String, u32> {
        events
            .iter()
            .filter_map(|e| match e.what.economy() {
                Some(EconomyEvent::Produced {
                    realm, resources, ..
                }) => Some((realm.clone(), resources.get(Resource::Slavar))),
                _ => None,
            })
            .collect()
    };
    let from = w
        .events
        .iter()
        .rposition(|e| e.step != Step::Production)
        .map_or(0, |k| k + 1);
    let found = slaves(&w.events[from..]);
    debug_assert_eq!(found, slaves(&w.events), "step 6's events are the last");
    found
}

/// Take `n` from `stock` one at a time in turn: the ordinary resources it holds in
/// resource order, then the crystals. Returns what was taken (less than `n` only
/// when both run out).
pub fn take_evenly(stock: &mut Resources, n: u32) -> Resources {
    let ordinary: Vec<Resource> = Resource::ALL
        .into_iter()
        .filter(|r| r.is_ordinary())
        .collect();
    let mut lost = Resources::ZERO;
    let mut left = n;
    for kinds in [ordinary.as_slice(), &Resource::CRYSTALS] {
        left = take_in_turn(stock, kinds, left, &mut lost);
    }
    lost
}

/// One kind of resources: whole turns over every kind still held (as many as the
/// smallest holding allows at once), then the last part-turn in order.
fn take_in_turn(
    stock: &mut Resources,
    kinds: &[Resource],
    mut left: u32,
    lost: &mut Resources,
) -> u32 {
    while left > 0 {
        let held: Vec<Resource> = kinds
            .iter()
            .copied()
            .filter(|r| stock.get(*r) > 0)
            .collect();
        let Some(least) = held.iter().map(|r| stock.get(*r)).min() else {
            break;
        };
        let k = held.len() as u32;
        let turns = (left / k).min(least);
        let (each, extra) = if turns == 0 { (0, left) } else { (turns, 0) };
        for (i, r) in held.iter().enumerate() {
            let t = each + u32::from((i as u32) < extra);
            stock.set(*r, stock.get(*r) - t);
            lost.set(*r, lost.get(*r) + t);
        }
        left -= each * k + extra;
    }
    left
}

//! Per-realm counts in one pass over the state, so each step costs time in
//! proportion to the game's size, not to realms × groups.

use std::collections::BTreeMap;

use crate::game::state::{GameState, SpyState, UnitCount};

/// `GameState::counted_units` for every realm at once.
pub(super) fn unit_counts(gs: &GameState) -> BTreeMap<String, UnitCount> {
    let m: BTreeMap<String, UnitCount> = gs
        .realms
        .iter()
        .map(|r| {
            let c = UnitCount {
                army_units: 0,
                elementals: 0,
                ships: 0,
                spies: r.spies,
                army_groups: 0,
            };
            (r.name.clone(), c)
        })
        .collect();
    // The realms' counts in name order; each owner found once per run of its groups
    // (the lists are kept sorted by owner), not by a search of the names per group.
    let mut slots: Vec<(String, UnitCount)> = m.into_iter().collect();
    let mut find = Finder::default();
    for a in &gs.armies {
        if let Some(i) = find.slot(&slots, &a.owner) {
            let c = &mut slots[i].1;
            let elementals = a.units.iter().filter(|u| u.kind.is_elemental()).count();
            c.army_units = c.army_units.saturating_add(len(a.units.len()));
            c.elementals = c.elementals.saturating_add(len(elementals));
            c.army_groups = c.army_groups.saturating_add(1);
        }
    }
    let mut find = Finder::default();
    for f in &gs.fleets {
        if let Some(i) = find.slot(&slots, &f.owner) {
            let c = &mut slots[i].1;
            c.ships = c.ships.saturating_add(len(f.ships.len()));
        }
    }
    let mut find = Finder::default();
    for s in gs.spies.iter().filter(|s| s.state == SpyState::Waiting) {
        if let Some(i) = find.slot(&slots, &s.owner) {
            slots[i].1.spies = slots[i].1.spies.saturating_add(1);
        }
    }
    slots.into_iter().collect()
}

/// An owner's slot in name-sorted slots, remembered for the next group of the same
/// owner.
#[derive(Default)]
struct Finder<'a> {
    last: Option<(&'a str, Option<usize>)>,
}

impl<'a> Finder<'a> {
    fn slot<T>(&mut self, slots: &[(String, T)], owner: &'a str) -> Option<usize> {
        match self.last {
            Some((o, i)) if o == owner => i,
            _ => {
                let i = slots
                    .binary_search_by(|(name, _)| name.as_str().cmp(owner))
                    .ok();
                self.last = Some((owner, i));
                i
            }
        }
    }
}

/// `GameState::population` for every realm at once.
pub(super) fn populations(gs: &GameState) -> BTreeMap<String, u32> {
    let mut m = BTreeMap::new();
    for c in &gs.cities {
        let p: &mut u32 = m.entry(c.owner.to_string()).or_default();
        *p = p.saturating_add(c.population);
    }
    m
}

pub(super) fn len(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_pass_counts_agree_with_the_states_own() {
        let gs = crate::game::load_scenario(include_str!("../../../../scenarios/demo.yaml"))
            .expect("demo");
        let counts = unit_counts(&gs);
        let pops = populations(&gs);
        for r in &gs.realms {
            assert_eq!(counts[&r.name], gs.counted_units(&r.name), "{}", r.name);
            assert_eq!(
                pops.get(&r.name).copied().unwrap_or(0),
                gs.population(&r.name)
            );
        }
    }
}

//! Per-realm counts in one pass over the state, so each step costs time in
//! proportion to the game's size, not to realms × groups.

use crate::game::state::{ArmyGroup, GameState, OwnerRuns, SpyState, UnitCount};

/// `GameState::counted_units` for every realm at once, by the realm's place in
/// `gs.realms` (a list, not a map by name: a look-up is an index).
pub(super) fn unit_counts(gs: &GameState) -> Vec<UnitCount> {
    let mut counts = counts_but_armies(gs);
    // Each owner found once per run of its groups (the lists keep an owner's groups
    // together), not once per group.
    let mut find = OwnerRuns::default();
    for a in &gs.armies {
        if let Some(c) = find.place(gs, &a.owner).and_then(|i| counts.get_mut(i)) {
            add_army(c, a);
        }
    }
    counts
}

/// As `unit_counts` with no army group counted yet: for a pass over the groups that
/// reads them for something else too and counts each with `add_army`.
pub(super) fn counts_but_armies(gs: &GameState) -> Vec<UnitCount> {
    let mut counts: Vec<UnitCount> = gs
        .realms
        .iter()
        .map(|r| UnitCount {
            army_units: 0,
            elementals: 0,
            ships: 0,
            spies: r.spies,
            army_groups: 0,
        })
        .collect();
    let mut find = OwnerRuns::default();
    for f in &gs.fleets {
        if let Some(c) = find.place(gs, &f.owner).and_then(|i| counts.get_mut(i)) {
            c.ships = c.ships.saturating_add(len(f.ships.len()));
        }
    }
    let mut find = OwnerRuns::default();
    for s in gs.spies.iter().filter(|s| s.state == SpyState::Waiting) {
        if let Some(c) = find.place(gs, &s.owner).and_then(|i| counts.get_mut(i)) {
            c.spies = c.spies.saturating_add(1);
        }
    }
    counts
}

/// Count army group `a` in its owner's `c`.
pub(super) fn add_army(c: &mut UnitCount, a: &ArmyGroup) {
    let elementals = a.units.iter().filter(|u| u.kind.is_elemental()).count();
    c.army_units = c.army_units.saturating_add(len(a.units.len()));
    c.elementals = c.elementals.saturating_add(len(elementals));
    c.army_groups = c.army_groups.saturating_add(1);
}

/// `GameState::population` for every realm at once, by the realm's place in
/// `gs.realms`.
pub(super) fn populations(gs: &GameState) -> Vec<u32> {
    let mut pops = vec![0u32; gs.realms.len()];
    let mut find = OwnerRuns::default();
    for c in &gs.cities {
        if let Some(p) = find.place(gs, &c.owner).and_then(|i| pops.get_mut(i)) {
            *p = p.saturating_add(c.population);
        }
    }
    pops
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
        assert_eq!(
            (counts.len(), pops.len()),
            (gs.realms.len(), gs.realms.len())
        );
        for (i, r) in gs.realms.iter().enumerate() {
            assert_eq!(counts[i], gs.counted_units(&r.name), "{}", r.name);
            assert_eq!(pops[i], gs.population(&r.name), "{}", r.name);
        }
    }
}

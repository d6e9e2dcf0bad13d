//! Army groups and fleets as battle lines, and battle results written back onto them:
//! which units survived (the cannon-fodder rule, R-COMBAT-9), cargo that drowned
//! (R-COMBAT-8, RULINGS 32), mandatory merges (R-MOVE-8).

use crate::game::combat::Line;
use crate::game::orders::Piece;
use crate::game::state::{ArmyGroup, Dimension, GameState, RuleSettings, Ship, Unit, Units};
use crate::game::Name;
use crate::game::Square;

/// A unit or ship with the index of the group it belongs to.
pub type Tagged<T> = (usize, T);

pub fn unit_piece(u: &Unit) -> Piece {
    Piece::Unit(u.kind)
}

pub fn ship_piece(s: &Ship) -> Piece {
    Piece::Ship(s.kind)
}

/// The line of `items`, in order.
pub fn line_of<T>(items: &[T], piece: impl Fn(&T) -> Piece) -> Line {
    Line::new(items.iter().map(|i| (piece(i), 1)))
}

/// The items that survived as `left`: `left` is what the battle kept of `items`'
/// line, a subsequence of it, so a greedy walk finds the survivors in order.
pub fn survivors<T: Clone>(items: &[T], piece: impl Fn(&T) -> Piece, left: &Line) -> Vec<T> {
    let mut want = left.runs().iter().copied();
    let mut cur = want.next();
    let mut kept = Vec::new();
    for item in items {
        let Some((p, n)) = cur else { break };
        if piece(item) == p {
            kept.push(item.clone());
            cur = if n > 1 { Some((p, n - 1)) } else { want.next() };
        }
    }
    kept
}

/// Sort the armies and fleets by owner and number, so lookups are binary searches.
/// Each military step calls it first; every insertion below keeps the order.
pub fn sort(gs: &mut GameState) {
    // Owners compared as names: groups of one realm share its one name (`weekend::own_copy`),
    // and two mentions of one name compare equal without reading the text, so a sort
    // of lists already in order (the usual case) reads the groups and not the names.
    gs.armies
        .sort_by(|a, b| (&a.owner, a.id).cmp(&(&b.owner, b.id)));
    gs.fleets
        .sort_by(|a, b| (&a.owner, a.id).cmp(&(&b.owner, b.id)));
    // After the sort: groups bought since the hint was made are in their places now.
    gs.army_places.reset_if_stale(&gs.armies, &gs.realms);
}

/// True when the armies and fleets are in the order `sort` gives them.
pub fn in_order(gs: &GameState) -> bool {
    gs.armies
        .is_sorted_by(|a, b| (&a.owner, a.id) <= (&b.owner, b.id))
        && gs
            .fleets
            .is_sorted_by(|a, b| (&a.owner, a.id) <= (&b.owner, b.id))
}

/// Index of realm's army group `id` (the armies sorted, see `sort`); None for a group
/// that is gone.
pub fn army_at(gs: &GameState, realm: &str, id: u32) -> Option<usize> {
    placed_at(gs, realm, id).filter(|&i| !gone(&gs.armies[i]))
}

/// As `army_at`, with the realm's place in `gs.realms` already found (see
/// `placed_at_in`).
pub(crate) fn army_at_in(
    gs: &GameState,
    place: Option<usize>,
    realm: &str,
    id: u32,
) -> Option<usize> {
    placed_at_in(gs, place, realm, id).filter(|&i| !gone(&gs.armies[i]))
}

/// Index of realm's army group `id`, gone or not. The search starts where the state's
/// hint (`ArmyPlaces`) says the group should be and widens from there, so it reads a
/// few neighbouring groups instead of halving the whole list.
pub(crate) fn placed_at(gs: &GameState, realm: &str, id: u32) -> Option<usize> {
    placed_at_in(gs, gs.realm_index(realm), realm, id)
}

/// As `placed_at`, with the realm's place in `gs.realms` already found (`None`: not a
/// realm of `gs`), for a caller that looks up many groups of one realm.
pub(crate) fn placed_at_in(
    gs: &GameState,
    place: Option<usize>,
    realm: &str,
    id: u32,
) -> Option<usize> {
    let key = |a: &ArmyGroup| (a.owner.as_str(), a.id).cmp(&(realm, id));
    match place.and_then(|p| gs.army_places.guess_at(gs, p, id)) {
        Some(at) => search_from(&gs.armies, at, key),
        None => gs.armies.binary_search_by(key).ok(),
    }
}

/// The place in sorted `items` where `key` says Equal, searched from `at` outwards by
/// doubling steps, then halving the span found.
fn search_from<T>(items: &[T], at: usize, key: impl Fn(&T) -> std::cmp::Ordering) -> Option<usize> {
    use std::cmp::Ordering;
    let n = items.len();
    let (mut lo, mut hi) = match key(items.get(at)?) {
        Ordering::Equal => return Some(at),
        // The group is after `at`: widen to the right until past it.
        Ordering::Less => {
            let (mut lo, mut step) = (at + 1, 1usize);
            loop {
                let probe = at.saturating_add(step);
                if probe >= n || key(&items[probe]) != Ordering::Less {
                    break (lo, probe.saturating_add(1).min(n));
                }
                lo = probe + 1;
                step = step.saturating_mul(2);
            }
        }
        Ordering::Greater => {
            let (mut hi, mut step) = (at, 1usize);
            loop {
                let Some(probe) = at.checked_sub(step) else {
                    break (0, hi);
                };
                if key(&items[probe]) != Ordering::Greater {
                    break (probe, hi);
                }
                hi = probe;
                step = step.saturating_mul(2);
            }
        }
    };
    lo = lo.min(hi);
    hi = hi.min(n);
    items[lo..hi].binary_search_by(key).ok().map(|i| lo + i)
}

/// An army group lost in a battle (`lose_army`): it keeps its place (taking a group out
/// of the middle of a long list at every loss would cost the whole list each time) with
/// no units, and `compact` drops it at the end of step 4 or 5. Lookups never find it; a
/// scan of `gs.armies` inside those steps must skip it.
pub fn gone(a: &ArmyGroup) -> bool {
    a.units.is_empty()
}

/// Drop the army groups removed during the step (see `gone`).
pub fn compact(gs: &mut GameState) {
    gs.armies.retain(|a| !gone(a));
    gs.army_places.reset_if_stale(&gs.armies, &gs.realms);
}

pub fn fleet_at(gs: &GameState, realm: &str, id: u32) -> Option<usize> {
    gs.fleets
        .binary_search_by(|f| (f.owner.as_str(), f.id).cmp(&(realm, id)))
        .ok()
}

/// The places of realm's fleets in `gs.fleets` (sorted, see `sort`).
pub fn fleets_of(gs: &GameState, realm: &str) -> std::ops::Range<usize> {
    let start = gs.fleets.partition_point(|f| f.owner.as_str() < realm);
    let end = gs.fleets.partition_point(|f| f.owner.as_str() <= realm);
    start..end.max(start)
}

/// The places of realm's army groups in `gs.armies` (sorted, see `sort`).
pub fn armies_of(gs: &GameState, realm: &str) -> std::ops::Range<usize> {
    let start = gs.armies.partition_point(|a| a.owner.as_str() < realm);
    let end = gs.armies.partition_point(|a| a.owner.as_str() <= realm);
    start..end.max(start)
}

/// Take army `id` off every fleet of realm's that carries it.
pub fn unload(gs: &mut GameState, realm: &str, id: u32) {
    let range = fleets_of(gs, realm);
    for f in &mut gs.fleets[range] {
        f.cargo.retain(|c| *c != id);
    }
}

/// Every army aboard a fleet, as (owner, number), read from the fleets in any order
/// (for the steps between the military ones, where the lists need not be sorted).
pub fn all_aboard(gs: &GameState) -> std::collections::BTreeSet<(Name, u32)> {
    let fleets = gs.fleets.iter();
    fleets
        .flat_map(|f| f.cargo.iter().map(|&a| (f.owner.clone(), a)))
        .collect()
}

/// The fleet carrying realm's army `id`, if any.
pub fn carrier(gs: &GameState, realm: &str, id: u32) -> Option<usize> {
    let range = fleets_of(gs, realm);
    let start = range.start;
    gs.fleets[range]
        .iter()
        .position(|f| f.cargo.contains(&id))
        .map(|i| start + i)
}

/// A free army id for `realm`.
pub fn next_army_id(gs: &GameState, realm: &str) -> u32 {
    gs.armies[armies_of(gs, realm)]
        .iter()
        .rev()
        .find(|a| !gone(a))
        .map_or(0, |a| a.id)
        .saturating_add(1)
}

/// Remove realm's army `id` from the map and from any fleet's cargo.
pub fn remove_army(gs: &mut GameState, realm: &str, id: u32) {
    if let Some(i) = placed_at(gs, realm, id) {
        gs.armies.remove(i);
    }
    unload(gs, realm, id);
}

/// As `remove_army` for a group lost in step 4 or 5: it stays `gone` in its place until
/// the step's `compact`. Only for steps that compact at their end.
pub fn lose_army(gs: &mut GameState, realm: &str, id: u32) {
    if let Some(i) = army_at(gs, realm, id) {
        gs.armies[i].units.clear();
    }
    unload(gs, realm, id);
}

/// Keep only `kept` of the tagged units, writing each back to its group; empty groups
/// go (with their places aboard).
pub fn write_back_armies(gs: &mut GameState, groups: &[(Name, u32)], kept: &[Tagged<Unit>]) {
    for (gi, (owner, id)) in groups.iter().enumerate() {
        let units: Units = kept
            .iter()
            .filter(|(g, _)| *g == gi)
            .map(|(_, u)| *u)
            .collect();
        if units.is_empty() {
            lose_army(gs, owner, *id);
        } else if let Some(i) = army_at(gs, owner, *id) {
            gs.armies[i].units = units;
        }
    }
}

/// As `write_back_armies` for fleets; a sunk fleet takes its cargo down. Returns per
/// fleet `(owner, id, sunk)` for the cargo check.
pub fn write_back_fleets(
    gs: &mut GameState,
    groups: &[(Name, u32)],
    kept: &[Tagged<Ship>],
) -> Vec<(Name, u32, bool)> {
    let mut out = Vec::new();
    for (gi, (owner, id)) in groups.iter().enumerate() {
        let ships: Vec<Ship> = kept
            .iter()
            .filter(|(g, _)| *g == gi)
            .map(|(_, s)| *s)
            .collect();
        let Some(i) = fleet_at(gs, owner, *id) else {
            continue;
        };
        let sunk = ships.is_empty();
        gs.fleets[i].ships = ships;
        out.push((owner.clone(), *id, sunk));
    }
    out
}

/// Drown the cargo a fleet can no longer carry, from the tail of the last army aboard
/// (R-COMBAT-8, RULINGS 14 and 32); a fleet without ships goes with all its cargo.
/// Returns the number of units lost.
pub fn drown_excess(gs: &mut GameState, settings: &RuleSettings, owner: &str, id: u32) -> u64 {
    let Some(fi) = fleet_at(gs, owner, id) else {
        return 0;
    };
    let (lost, emptied) = cut_cargo(gs, settings, fi);
    for aid in emptied {
        remove_army(gs, owner, aid);
    }
    if let Some(fi) = fleet_at(gs, owner, id).filter(|&fi| gs.fleets[fi].ships.is_empty()) {
        gs.fleets.remove(fi);
    }
    lost
}

/// Cut the army units the fleet at place `fi` can no longer carry (all of them when it
/// has no ships left) from the tail of the last army aboard, as `drown_excess` drowns
/// them, but remove nothing: returns the units lost and the numbers of the armies left
/// empty, for a step that removes its dead groups at its end.
pub fn cut_cargo(gs: &mut GameState, settings: &RuleSettings, fi: usize) -> (u64, Vec<u32>) {
    let Some(fleet) = gs.fleets.get(fi) else {
        return (0, Vec::new());
    };
    let room = if fleet.ships.is_empty() {
        0
    } else {
        u64::from(fleet.capacity(settings))
    };
    let (owner, cargo) = (fleet.owner.clone(), fleet.cargo.clone());
    let aboard: Vec<usize> = cargo
        .iter()
        .filter_map(|aid| army_at(gs, &owner, *aid))
        .collect();
    let carried = aboard.iter().fold(0u64, |n, &ai| {
        n.saturating_add(gs.armies[ai].units.len() as u64)
    });
    let mut excess = carried.saturating_sub(room);
    let (mut lost, mut emptied) = (0u64, Vec::new());
    for &ai in aboard.iter().rev() {
        if excess == 0 {
            break;
        }
        let units = &mut gs.armies[ai].units;
        let take = excess.min(units.len() as u64);
        units.truncate(units.len() - take as usize);
        excess -= take;
        lost = lost.saturating_add(take);
        if units.is_empty() {
            emptied.push(gs.armies[ai].id);
        }
    }
    (lost, emptied)
}

/// Merge every army group `realm` has on `square` into the lowest-numbered one of its
/// dimension (R-MOVE-8; groups in the two dimensions never meet, R-EVIL-2), keeping
/// each group's units in order. Returns `(kept, merged)` pairs.
pub fn merge_on(gs: &mut GameState, realm: &str, square: Square) -> Vec<(u32, u32)> {
    let mut merged = Vec::new();
    for dim in [Dimension::Normal, Dimension::Evil] {
        merged.extend(merge_in(gs, realm, square, dim));
    }
    merged
}

fn merge_in(gs: &mut GameState, realm: &str, square: Square, dim: Dimension) -> Vec<(u32, u32)> {
    let mut ids: Vec<u32> = gs.armies[armies_of(gs, realm)]
        .iter()
        .filter(|a| {
            a.square == square && a.dimension == dim && !gone(a) && !aboard(gs, realm, a.id)
        })
        .map(|a| a.id)
        .collect();
    ids.sort_unstable();
    let Some((&keep, rest)) = ids.split_first() else {
        return Vec::new();
    };
    let mut merged = Vec::new();
    for id in rest {
        let Some(i) = army_at(gs, realm, *id) else {
            continue;
        };
        let units = std::mem::take(&mut gs.armies[i].units);
        let treasure = std::mem::take(&mut gs.armies[i].treasure);
        if let Some(k) = army_at(gs, realm, keep) {
            gs.armies[k].units.extend(units);
            gs.armies[k].treasure.add(&treasure.amount());
            merged.push((keep, *id));
        }
    }
    merged
}

fn aboard(gs: &GameState, realm: &str, id: u32) -> bool {
    carrier(gs, realm, id).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::UnitKind;

    #[test]
    fn a_search_from_any_start_finds_what_a_binary_search_finds() {
        // Odd numbers 1..=39: every start, every key present or not, either side.
        let items: Vec<u32> = (0..20).map(|i| 2 * i + 1).collect();
        for at in 0..items.len() {
            for want in 0..=41u32 {
                let found = search_from(&items, at, |x| x.cmp(&want));
                assert_eq!(
                    found,
                    items.binary_search(&want).ok(),
                    "from {at} for {want}"
                );
            }
        }
        assert_eq!(search_from(&items, 99, |x| x.cmp(&1)), None);
    }

    #[test]
    fn a_stale_hint_still_finds_every_group() {
        let mut gs = crate::game::load_scenario(include_str!("../../../../scenarios/demo.yaml"))
            .expect("demo");
        sort(&mut gs);
        let all: Vec<(crate::game::Name, u32)> =
            gs.armies.iter().map(|a| (a.owner.clone(), a.id)).collect();
        for (o, id) in &all {
            assert!(placed_at(&gs, o, *id).is_some(), "{o} {id}");
        }
        // Groups go after the hint was built: every place shifts.
        let gone: Vec<ArmyGroup> = gs.armies.drain(..gs.armies.len() / 2).collect();
        for a in &gs.armies {
            let at = placed_at(&gs, &a.owner, a.id).expect("still there");
            assert_eq!(
                (gs.armies[at].owner.as_str(), gs.armies[at].id),
                (a.owner.as_str(), a.id)
            );
        }
        for a in &gone {
            assert_eq!(placed_at(&gs, &a.owner, a.id), None, "{} {}", a.owner, a.id);
        }
    }

    #[test]
    fn survivors_follow_the_line_the_battle_left() {
        let u = |k| Unit {
            kind: k,
            built_round: 1,
        };
        let items = vec![
            u(UnitKind::Veteran),
            u(UnitKind::Belagringstorn),
            u(UnitKind::LattInfanteri),
            u(UnitKind::LattInfanteri),
        ];
        let left = Line::new([
            (Piece::Unit(UnitKind::Veteran), 1),
            (Piece::Unit(UnitKind::LattInfanteri), 1),
        ]);
        let kept = survivors(&items, unit_piece, &left);
        assert_eq!(
            kept.iter().map(|u| u.kind).collect::<Vec<_>>(),
            [UnitKind::Veteran, UnitKind::LattInfanteri]
        );
    }
}

//! Espionage at the weekend: the passive spy roll (R-SPY-9, docs/rules.md Rulings 45),
//! after step 9, so it sees every army where the weekend left it. A realm into whose
//! land another realm's army groups came this weekend (by movement, teleport or
//! invitation) rolls d10 once: with Informatör over 10 it learns that foreign troops
//! are in its land; at `settings.passive_spy_squares_at` or more also their squares;
//! a natural 1 gives a false report of troops on a random square of its own (setting
//! `passive_spy_false_reports`). The report reads the same, true or false; the event
//! keeps which it was for the GM. A failed roll tells the realm nothing.
//!
//! The Evil neither rolls nor is seen this way (R-EVIL-19, R-SPY-12): the Evil
//! cannot be spied on, and its sight near portals replaces espionage.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::lands::Lands;
use super::Weekend;
use crate::game::event::{Step, What};
use crate::game::hash::FastMap;
use crate::game::state::{ArmyGroup, Dimension, GameState, OwnerRuns};
use crate::game::Name;
use crate::game::Square;

/// What the weekend's espionage did, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EspionageEvent {
    /// R-SPY-9: the passive roll of `realm` (`informator + roll`) and what it was told.
    Passive {
        realm: Name,
        informator: u32,
        roll: u32,
        report: Detection,
        /// A natural 1: the report is false (never shown to the realm).
        false_report: bool,
    },
}

/// What a passive roll tells the realm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "detail", rename_all = "snake_case")]
pub enum Detection {
    /// The roll failed: the realm learns nothing (the event is seen by no realm).
    Nothing,
    /// Foreign troops are in the land, not where.
    Troops,
    /// Foreign troops are in the land, on these squares.
    TroopsAt { squares: Vec<Square> },
}

/// After step 9: a passive roll for every realm foreign troops entered.
pub fn passive_rolls(w: &mut Weekend) {
    // The lands the weekend keeps are the map's (test builds read the map to check).
    #[cfg(debug_assertions)]
    assert_eq!(w.lands, Lands::of(&w.state), "the lands kept are the map's");
    let entered = entered((w.start, &w.start_lands), (&w.state, &w.lands));
    // Every realm's roll first (each realm's dice are its own): a false report names a
    // square of the realm's land, and the land of every realm that needs it is then
    // found in one pass over the list of lands (the map only for squares outside it),
    // and only theirs. A source of dice takes several hundred bytes: room for every
    // realm's at once, so none is moved as the list grows.
    let mut rolls = Vec::with_capacity(entered.iter().filter(|s| !s.is_empty()).count());
    for (idx, squares) in entered.iter().enumerate() {
        if squares.is_empty() {
            continue;
        }
        let Some(r) = w.state.realms.get(idx) else {
            continue;
        };
        if r.eliminated || r.is_evil {
            continue;
        }
        let mut dice = w.dice(&format!("spy/passive/{}", r.name));
        let roll = dice.d10();
        rolls.push((idx, dice, roll));
    }
    let false_reports = w.settings.passive_spy_false_reports;
    let liars = rolls
        .iter()
        .filter(|&&(_, _, roll)| roll == 1 && false_reports);
    let land = land_of(&w.state, &w.lands, liars.map(|&(idx, ..)| idx));
    for (idx, mut dice, roll) in rolls {
        let r = &w.state.realms[idx];
        let (realm, informator) = (r.name.clone(), r.positions.informator);
        let false_report = roll == 1 && false_reports;
        let report = if false_report {
            let mine = land.get(idx).map_or(&[][..], Vec::as_slice);
            let sides = u32::try_from(mine.len()).unwrap_or(u32::MAX);
            match mine.get((dice.roll(sides.max(1)) as usize).saturating_sub(1)) {
                Some(sq) => Detection::TroopsAt { squares: vec![*sq] },
                None => Detection::Troops,
            }
        } else {
            detect(w, informator, roll, &entered[idx])
        };
        w.keep(dice);
        let seen_by = match report {
            Detection::Nothing => Vec::new(),
            _ => vec![realm.clone()],
        };
        let ev = EspionageEvent::Passive {
            realm: realm.into(),
            informator,
            roll,
            report,
            false_report,
        };
        w.emit(Step::Espionage, seen_by, What::Espionage(ev));
    }
}

/// Rulings 45: over 10 the realm learns of troops; at the setting's total, where.
fn detect(w: &Weekend, informator: u32, roll: u32, squares: &BTreeSet<Square>) -> Detection {
    let total = informator.saturating_add(roll);
    if roll == 1 || total <= 10 {
        Detection::Nothing
    } else if total >= w.settings.passive_spy_squares_at {
        Detection::TroopsAt {
            squares: squares.iter().copied().collect(),
        }
    } else {
        Detection::Troops
    }
}

/// Per realm (by its place in `end.realms`), the squares of its land where army groups
/// of another (not the Evil) stand now that were not in its land when the forms came in.
/// Each state comes with its lands (whose land each square is).
fn entered(
    (start, was): (&GameState, &Lands),
    (end, lands): (&GameState, &Lands),
) -> Vec<BTreeSet<Square>> {
    let evil: Vec<bool> = end.realms.iter().map(|r| r.is_evil).collect();
    let mut out: Vec<BTreeSet<Square>> = vec![BTreeSet::new(); end.realms.len()];
    // First the groups that stand in another realm's land now (a few in a hundred),
    // with that realm's place. The groups come owner by owner: each owner's place is
    // found once per run. Most groups stand in their own land: one look at the list of
    // lands, not at the map's square.
    let mut abroad: Vec<(&ArmyGroup, usize)> = Vec::new();
    let mut mine = OwnerRuns::default();
    for a in end
        .armies
        .iter()
        .filter(|a| a.dimension == Dimension::Normal)
    {
        let me = mine.place(end, &a.owner);
        let Some(k) = lands.owner(end, a.square).filter(|&k| Some(k) != me) else {
            continue;
        };
        if me.is_some_and(|m| evil.get(m) == Some(&true)) {
            continue;
        }
        abroad.push((a, k));
    }
    // Then where each of them stood when the forms came in, and whose land that was.
    // The weekend keeps its realms in the order the forms found them, so a realm's
    // place is the same in both states.
    let mut runs = OwnerRuns::default();
    let places: Vec<Option<usize>> = abroad
        .iter()
        .map(|(a, _)| runs.place(start, &a.owner))
        .collect();
    let before = Before::of(start);
    before.read_ahead(
        start,
        places.iter().zip(&abroad).map(|(&p, (a, _))| (p, a.id)),
    );
    let stood: Vec<Option<Square>> = places
        .iter()
        .zip(&abroad)
        .map(|(&place, (a, _))| before.square(start, place, &a.owner, a.id))
        .collect();
    for ((a, k), stood) in abroad.into_iter().zip(stood) {
        if stood.and_then(|sq| was.owner(start, sq)) != Some(k) {
            if let Some(squares) = out.get_mut(k) {
                squares.insert(a.square);
            }
        }
    }
    out
}

/// Finds an army group as the forms found it. The stored state keeps its groups sorted
/// by owner and number, so a binary search does; a state in another order is indexed
/// once instead.
enum Before<'g> {
    Sorted,
    Indexed(FastMap<(&'g str, u32), usize>),
}

impl<'g> Before<'g> {
    fn of(start: &'g GameState) -> Self {
        let key = |a: &'g ArmyGroup| (a.owner.as_str(), a.id);
        // The state's hint of where each realm's groups begin knows whether they are
        // in order, and starts each search near the group.
        if start.army_places.in_order(start) {
            return Before::Sorted;
        }
        let places = start.armies.iter().enumerate();
        Before::Indexed(places.map(|(i, a)| (key(a), i)).rev().collect())
    }

    /// Read, in one short pass, the groups of `start` that `square` will look up (each
    /// the owner's place in `start.realms` and the group's number), where the state's
    /// hint has them. No read waits on another, so the processor fetches them together;
    /// the lookups then find them in the cache instead of each waiting for memory in
    /// turn (a large game's groups are far larger than the cache). Speed only: nothing
    /// read here reaches a result.
    fn read_ahead(&self, start: &GameState, groups: impl Iterator<Item = (Option<usize>, u32)>) {
        if let Before::Sorted = self {
            let guess = |(place, id): (Option<usize>, u32)| {
                place.and_then(|p| start.army_places.guess_at(start, p, id))
            };
            let at: Vec<usize> = groups.filter_map(guess).collect();
            // A loop of its own, short enough that the processor has many of its reads
            // under way at once.
            let mut seen = 0u32;
            for a in at.iter().filter_map(|&i| start.armies.get(i)) {
                seen = seen.wrapping_add(a.id);
            }
            std::hint::black_box(seen);
        }
    }

    /// The square where `owner`'s army `id` stood when the forms came in, if it stood
    /// in the normal dimension (`place`: the owner's place in `start.realms`).
    fn square(
        &self,
        start: &GameState,
        place: Option<usize>,
        owner: &str,
        id: u32,
    ) -> Option<Square> {
        let i = match self {
            Before::Sorted => super::military::placed_at_in(start, place, owner, id)?,
            Before::Indexed(m) => *m.get(&(owner, id))?,
        };
        let a = &start.armies[i];
        (a.dimension == Dimension::Normal).then_some(a.square)
    }
}

/// The own land squares (normal dimension), in square order, of the realms at these
/// places in `gs.realms`, by the realm's place (every other realm's list is empty).
/// With none asked for, the map is not read.
fn land_of(
    gs: &GameState,
    lands: &Lands,
    asked: impl IntoIterator<Item = usize>,
) -> Vec<Vec<Square>> {
    let mut out: Vec<Vec<Square>> = vec![Vec::new(); gs.realms.len()];
    let mut wanted = vec![false; gs.realms.len()];
    for k in asked {
        if let Some(w) = wanted.get_mut(k) {
            *w = true;
        }
    }
    if !wanted.contains(&true) {
        return out;
    }
    if lands.whole() {
        // The list of lands is in square order (column by column): read it, not the
        // map.
        for (sq, k) in lands.squares() {
            if wanted.get(k) == Some(&true) {
                out[k].push(sq);
            }
        }
        return out;
    }
    // Squares of one owner come in runs (a realm's land is a patch): the owner is
    // looked up once a run.
    let mut runs = OwnerRuns::default();
    for (sq, m) in &gs.map.squares {
        let Some(owner) = m.owner.as_deref() else {
            continue;
        };
        let place = runs
            .place(gs, owner)
            .filter(|&k| wanted.get(k) == Some(&true));
        if let Some(squares) = place.and_then(|k| out.get_mut(k)) {
            squares.push(sq);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> GameState {
        crate::game::load_scenario(include_str!("../../../scenarios/demo.yaml")).expect("demo")
    }

    /// The demo with one more square of the first realm's land far outside the map's
    /// rectangle (as a hand-edited state may hold): the list of owners does not cover
    /// it, and the map is read for it instead.
    fn with_a_stray_square() -> (GameState, Square) {
        let mut gs = demo();
        let stray = Square::new(60, 900).expect("a square");
        let mut m = gs.map.squares.values().next().expect("a square").clone();
        m.owner = Some(gs.realms[0].name.as_str().into());
        gs.map.squares.insert(stray, m);
        (gs, stray)
    }

    /// A false report's land list holds the asked realms' own squares, each in square
    /// order and no other's; every other realm's list stays empty, and with none asked
    /// every list is. So whether the list of owners covers the whole map or not.
    #[test]
    fn the_land_is_listed_for_the_realms_asked_for_and_no_other() {
        let (stray, at) = with_a_stray_square();
        for (gs, whole) in [(demo(), true), (stray, false)] {
            let lands = Lands::of(&gs);
            assert_eq!(lands.whole(), whole);
            let asked = [0, 2];
            let land = land_of(&gs, &lands, asked);
            assert_eq!(land.len(), gs.realms.len());
            for (k, list) in land.iter().enumerate() {
                if !asked.contains(&k) {
                    assert!(list.is_empty(), "{} was not asked for", gs.realms[k].name);
                    continue;
                }
                let own: Vec<Square> = gs
                    .map
                    .squares
                    .iter()
                    .filter(|(_, m)| m.owner.as_deref() == Some(gs.realms[k].name.as_str()))
                    .map(|(sq, _)| sq)
                    .collect();
                assert!(!own.is_empty(), "{} holds land", gs.realms[k].name);
                assert_eq!(*list, own, "{}", gs.realms[k].name);
            }
            assert_eq!(land[0].contains(&at), !whole, "the stray square");
            assert!(land_of(&gs, &lands, []).iter().all(Vec::is_empty));
        }
    }

    /// R-SPY-9 read plainly, with no list of owners: per realm, the squares of its land
    /// where another realm's (not the Evil's) groups stand that were not in its land
    /// when the forms came in.
    fn entered_by_the_rule(start: &GameState, end: &GameState) -> Vec<BTreeSet<Square>> {
        let land = |gs: &GameState, sq| gs.map.get(sq).and_then(|m| m.owner.clone());
        let mut out = vec![BTreeSet::new(); end.realms.len()];
        for a in end
            .armies
            .iter()
            .filter(|a| a.dimension == Dimension::Normal)
        {
            let Some(owner) = land(end, a.square).filter(|o| *o != a.owner) else {
                continue;
            };
            if end.realm(&a.owner).is_some_and(|r| r.is_evil) {
                continue;
            }
            let was = start
                .armies
                .iter()
                .find(|b| b.owner == a.owner && b.id == a.id)
                .filter(|b| b.dimension == Dimension::Normal)
                .and_then(|b| land(start, b.square));
            if was.as_ref() != Some(&owner) {
                if let Some(k) = end.realm_index(&owner) {
                    out[k].insert(a.square);
                }
            }
        }
        out
    }

    /// Groups moved into another realm's land (each of the first five realms' first
    /// group onto the next realm's capital, on the map's squares and on a stray square)
    /// are found as the rule reads, and one that stood there already is not.
    #[test]
    fn r_spy_9_the_troops_that_entered_are_those_the_rule_reads() {
        let (mut start, stray) = with_a_stray_square();
        // One of the second realm's groups stands on the first realm's stray square
        // already when the forms come in.
        let second = start.realms[1].name.clone();
        let already = start.armies.iter().position(|a| a.owner == second);
        start.armies[already.expect("a group of the second realm")].square = stray;
        let mut end = start.clone();
        let n = end.realms.len();
        let mut moved = 0;
        for k in 0..n.min(5) {
            let (me, next) = (end.realms[k].name.clone(), (k + 1) % n);
            let Some(to) = end.realms[next].capital else {
                continue;
            };
            let first = end.armies.iter().position(|a| a.owner == me);
            if let Some(i) = first.filter(|&i| end.armies[i].square != stray) {
                end.armies[i].square = if k == 2 { stray } else { to };
                moved += 1;
            }
        }
        assert!(moved >= 3, "{moved} groups moved");
        let lands = Lands::of(&end);
        assert!(!lands.whole());
        let found = entered((&start, &Lands::of(&start)), (&end, &lands));
        let expected = entered_by_the_rule(&start, &end);
        assert_eq!(found, expected);
        assert!(expected.iter().map(BTreeSet::len).sum::<usize>() >= 3);
        assert!(expected[0].contains(&stray), "the stray square, entered");
    }
}

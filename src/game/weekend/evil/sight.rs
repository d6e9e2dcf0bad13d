//! R-EVIL-19: what the Evil and its neighbours see at the end of the weekend, told as
//! report events. The Evil sees every army within 5 squares (king moves) of a portal in
//! the normal dimension; a realm with armies or cities within 5 squares of a portal
//! sees the Evil's armies there; a portal is shown to the realm whose land it lies in.
//! A normal realm's army in the Evil dimension sees the armies and cities within 5
//! squares of it there, and the Evil sees that army when it has troops or a city
//! within 5 squares of it. Each realm is told of each army once.

use std::collections::{BTreeMap, BTreeSet};

use crate::game::event::Step;
use crate::game::hash::FastMap;
use crate::game::state::{Dimension, GameState};
use crate::game::Name;
use crate::game::{Square, UnitKind};

use super::super::Weekend;
use super::{around, emit, evil_realm, EvilEvent};

/// The realm's view radius (R-EVIL-19).
pub const SIGHT: u16 = 5;

/// The owners of the normal dimension's cities by square.
type CityOwners<'a> = FastMap<Square, Vec<&'a str>>;

/// Army indexes by dimension and square: the map is a dense grid, so one array of
/// cells (both dimensions) points into one list of places, each cell's in the state's
/// order. Built in two passes over the armies, with no allocation per square.
struct Index {
    width: usize,
    height: usize,
    /// `starts[cell]..starts[cell + 1]` in `places`.
    starts: Vec<u32>,
    places: Vec<u32>,
}

impl Index {
    fn cell(&self, evil: bool, s: Square) -> Option<usize> {
        let (col, row) = (usize::from(s.col()), usize::from(s.row()));
        if col >= self.width || row == 0 || row > self.height {
            return None;
        }
        Some((usize::from(evil) * self.height + row - 1) * self.width + col)
    }

    /// Places in `armies` of the groups on `s` in that dimension, in order.
    fn at(&self, evil: bool, s: Square) -> impl Iterator<Item = usize> + '_ {
        let range = self.cell(evil, s).map_or(0..0, |c| {
            self.starts[c] as usize..self.starts[c + 1] as usize
        });
        self.places[range].iter().map(|&i| i as usize)
    }
}

fn index(gs: &GameState) -> Index {
    let mut ix = Index {
        width: usize::from(gs.map.width),
        height: usize::from(gs.map.height),
        starts: Vec::new(),
        places: Vec::new(),
    };
    let cells = 2 * ix.width * ix.height;
    let cell_of =
        |a: &crate::game::state::ArmyGroup| ix.cell(a.dimension == Dimension::Evil, a.square);
    let mut starts = vec![0u32; cells + 1];
    for c in gs.armies.iter().filter_map(cell_of) {
        starts[c + 1] = starts[c + 1].saturating_add(1);
    }
    for c in 0..cells {
        starts[c + 1] = starts[c + 1].saturating_add(starts[c]);
    }
    let mut next = starts.clone();
    let mut places = vec![0u32; starts[cells] as usize];
    for (i, a) in gs.armies.iter().enumerate() {
        if let Some(c) = cell_of(a) {
            places[next[c] as usize] = u32::try_from(i).unwrap_or(u32::MAX);
            next[c] += 1;
        }
    }
    ix.starts = starts;
    ix.places = places;
    ix
}

/// Who sees whom: (viewer's place in `realms`, army index), gathered unordered and
/// put in (viewer's name, army) order once.
struct Seen<'g> {
    gs: &'g GameState,
    pairs: Vec<(u32, usize)>,
}

impl<'g> Seen<'g> {
    fn new(gs: &'g GameState) -> Self {
        Seen {
            gs,
            pairs: Vec::new(),
        }
    }

    fn insert(&mut self, viewer: &str, army: usize) {
        self.insert_all(viewer, [army]);
    }

    /// `viewer` sees each of `armies` (the viewer looked up once).
    fn insert_all(&mut self, viewer: &str, armies: impl IntoIterator<Item = usize>) {
        if let Some(k) = self.gs.realm_index(viewer) {
            self.pairs.extend(armies.into_iter().map(|i| (k as u32, i)));
        }
    }

    /// The pairs in (viewer's name, army) order, each once.
    fn finish(self) -> Vec<(u32, usize)> {
        let gs = self.gs;
        let mut by_name: Vec<u32> = (0..gs.realms.len() as u32).collect();
        by_name.sort_by(|a, b| {
            gs.realms[*a as usize]
                .name
                .cmp(&gs.realms[*b as usize].name)
        });
        let mut rank = vec![0u32; by_name.len()];
        for (r, k) in by_name.into_iter().enumerate() {
            rank[k as usize] = r as u32;
        }
        // By army, then (keeping that order) by viewer's rank: two passes that count
        // the pairs out into buckets, one bucket an army, then one a realm. A sort
        // would cost a factor of their logarithm more, and they are the largest list
        // of the weekend (the Evil sees every army near every portal).
        let by_army = counted_out(&self.pairs, |&(_, i)| i);
        let mut pairs = counted_out(&by_army, |&(k, _)| rank[k as usize] as usize);
        pairs.dedup();
        pairs
    }
}

/// `pairs` in the order of `key`, pairs of one key in the order given (a stable
/// counting sort: one pass to count, one to place).
fn counted_out(pairs: &[(u32, usize)], key: impl Fn(&(u32, usize)) -> usize) -> Vec<(u32, usize)> {
    let buckets = pairs.iter().map(|p| key(p) + 1).max().unwrap_or(0);
    let mut starts = vec![0usize; buckets + 1];
    for p in pairs {
        starts[key(p) + 1] += 1;
    }
    for b in 0..buckets {
        starts[b + 1] += starts[b];
    }
    let mut out = vec![(0u32, 0usize); pairs.len()];
    for p in pairs {
        let at = &mut starts[key(p)];
        out[*at] = *p;
        *at += 1;
    }
    out
}

/// What each realm sees by R-EVIL-19 in a state: the armies (as `(viewer's place in
/// `realms`, army index)`, in (viewer's name, army) order, each once) and the Evil
/// dimension's cities (`(viewer, square)`). Empty in a game without the Evil. The
/// weekend tells these as report events; the map pictures draw them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sightings {
    pub armies: Vec<(u32, usize)>,
    pub cities: BTreeSet<(Name, Square)>,
}

/// The sight rule of R-EVIL-19 on `gs` (pure; see [`Sightings`]).
pub fn sightings(gs: &GameState) -> Sightings {
    sightings_near(gs, &portals(gs))
}

/// As `sightings`, with the open portals already found.
fn sightings_near(gs: &GameState, portals: &[Square]) -> Sightings {
    let Some(evil) = evil_realm(gs).map(str::to_string) else {
        return Sightings::default();
    };
    let ix = index(gs);
    let evil_cities: BTreeMap<Square, Name> = gs
        .cities
        .iter()
        .filter(|c| c.dimension == Dimension::Evil)
        .map(|c| (c.square, c.owner.clone()))
        .collect();
    let mut seen = Seen::new(gs);
    let mut cities: BTreeSet<(Name, Square)> = BTreeSet::new();
    let mut normal_cities = CityOwners::default();
    for c in gs.cities.iter() {
        if c.dimension == Dimension::Normal && c.owner != evil {
            normal_cities.entry(c.square).or_default().push(&c.owner);
        }
    }
    for &p in portals {
        near_portal(gs, (&ix, &normal_cities), &evil, p, &mut seen);
    }
    for (i, a) in gs.armies.iter().enumerate() {
        if a.dimension == Dimension::Evil && a.owner != evil {
            let ctx = (&ix, &evil_cities, evil.as_str());
            in_the_evil_dimension(gs, ctx, i, &mut seen, &mut cities);
        }
    }
    Sightings {
        armies: seen.finish(),
        cities,
    }
}

/// The squares with an open portal, in square order.
fn portals(gs: &GameState) -> Vec<Square> {
    gs.map
        .squares
        .iter()
        .filter(|(_, m)| m.portal.is_some())
        .map(|(sq, _)| sq)
        .collect()
}

/// The sight at the end of the weekend, with the squares of the open `portals` (in
/// square order) as the portal lifetime left them.
pub(super) fn run(w: &mut Weekend, portals: &[Square]) {
    if evil_realm(&w.state).is_none() {
        return;
    }
    debug_assert_eq!(portals, self::portals(&w.state), "the open portals");
    let Sightings { armies, cities } = sightings_near(&w.state, portals);
    tell_portals(w, portals);
    tell(w, armies, cities);
}

fn near_portal(
    gs: &GameState,
    (ix, cities): (&Index, &CityOwners<'_>),
    evil: &str,
    p: Square,
    seen: &mut Seen,
) {
    let near: Vec<usize> = around(gs, p, SIGHT).flat_map(|s| ix.at(false, s)).collect();
    let (evil_armies, others): (Vec<usize>, Vec<usize>) =
        near.iter().partition(|i| gs.armies[**i].owner == evil);
    seen.insert_all(evil, others.iter().copied());
    if evil_armies.is_empty() {
        return;
    }
    let mut neighbours: BTreeSet<&str> = others
        .iter()
        .map(|i| gs.armies[*i].owner.as_str())
        .collect();
    neighbours.extend(
        around(gs, p, SIGHT)
            .flat_map(|s| cities.get(&s).into_iter().flatten())
            .copied(),
    );
    for n in neighbours {
        seen.insert_all(n, evil_armies.iter().copied());
    }
}

fn in_the_evil_dimension(
    gs: &GameState,
    (ix, evil_cities, evil): (&Index, &BTreeMap<Square, Name>, &str),
    me: usize,
    seen: &mut Seen,
    cities: &mut BTreeSet<(Name, Square)>,
) {
    let a = &gs.armies[me];
    let mut evil_near = false;
    for s in around(gs, a.square, SIGHT) {
        for i in ix.at(true, s) {
            let other = &gs.armies[i];
            evil_near |= other.owner == evil;
            if other.owner != a.owner {
                seen.insert(&a.owner, i);
            }
        }
        if let Some(owner) = evil_cities.get(&s) {
            evil_near |= owner == evil;
            if *owner != a.owner {
                cities.insert((a.owner.clone(), s));
            }
        }
    }
    if evil_near {
        seen.insert(evil, me);
    }
}

fn tell_portals(w: &mut Weekend, portals: &[Square]) {
    for p in portals {
        let m = w.state.map.get(*p);
        let owner = m.and_then(|m| m.owner.clone());
        let closes = m
            .and_then(|m| m.portal.as_ref())
            .and_then(|p| p.closes_after_round);
        if let Some(realm) = owner {
            let ev = EvilEvent::PortalSeen {
                realm: realm.clone(),
                square: *p,
                closes_after_round: closes,
            };
            emit(w, Step::WrapUp, [realm], ev);
        }
    }
}

/// Units as runs, front first.
fn runs(units: &[crate::game::state::Unit]) -> Vec<(UnitKind, u32)> {
    let mut out: Vec<(UnitKind, u32)> = Vec::new();
    for u in units {
        match out.last_mut() {
            Some((k, n)) if *k == u.kind => *n = n.saturating_add(1),
            _ => out.push((u.kind, 1)),
        }
    }
    out
}

fn tell(w: &mut Weekend, seen: Vec<(u32, usize)>, cities: BTreeSet<(Name, Square)>) {
    for (k, i) in seen {
        let realm = w.name_at(k as usize);
        let a = &w.state.armies[i];
        let ev = EvilEvent::Sighted {
            realm: realm.clone(),
            owner: a.owner.clone(),
            army: a.id,
            square: a.square,
            dimension: a.dimension,
            units: runs(&a.units),
        };
        emit(w, Step::WrapUp, [realm], ev);
    }
    for (realm, sq) in cities {
        let Some(c) = w.state.city_at(sq, Dimension::Evil) else {
            continue;
        };
        let ev = EvilEvent::CitySighted {
            realm: realm.clone(),
            owner: c.owner.clone(),
            square: sq,
            name: c.name.clone(),
        };
        emit(w, Step::WrapUp, [realm], ev);
    }
}

#[cfg(test)]
mod tests {
    use super::counted_out;

    proptest::proptest! {
        #[test]
        fn counting_out_orders_as_a_stable_sort_by_the_key(
            pairs in proptest::collection::vec((0u32..6, 0usize..40), 0..200),
        ) {
            let mut sorted = pairs.clone();
            sorted.sort_by_key(|&(k, _)| k);
            proptest::prop_assert_eq!(counted_out(&pairs, |&(k, _)| k as usize), sorted);
            let mut by_army = pairs.clone();
            by_army.sort_by_key(|&(_, i)| i);
            proptest::prop_assert_eq!(counted_out(&pairs, |&(_, i)| i), by_army);
        }
    }
}

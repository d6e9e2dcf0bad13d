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
use crate::game::Square;

use super::super::Weekend;
use super::{around, emit, evil_realm, EvilEvent};

/// The realm's view radius (R-EVIL-19).
pub const SIGHT: u16 = 5;

/// The realms (by place in `realms`) owning the normal dimension's cities, by square.
type CityOwners = FastMap<Square, Vec<u32>>;

/// An army group noted by square: its place in `armies` and its owner's place in
/// `realms` (`NO_REALM` for an owner that is not a realm).
#[derive(Debug, Clone, Copy, Default)]
struct Placed {
    army: u32,
    owner: u32,
}

const NO_REALM: u32 = u32::MAX;

/// The army groups by square. The normal dimension is one array of cells by row and
/// column: a row of the map is one run of cells, so the squares around a portal are
/// eleven short runs, and each entry carries what a portal's sight asks of a group
/// (its place and its owner), so looking around reads this index, not the groups.
/// Built from one pass over the armies, which notes each group's cell and owner in a
/// list an eighth the size of the groups; a second pass over that list (backwards,
/// filling each cell from its end, so a cell lists its groups in the state's order)
/// places them, with no allocation per square. The Evil dimension's groups, few (the
/// Evil's and normal realms' armies that went through a portal), are a sorted list of
/// (cell, place).
struct Index {
    width: usize,
    height: usize,
    /// `starts[cell]..starts[cell + 1]` in `places`.
    starts: Vec<u32>,
    places: Vec<Placed>,
    evil_side: Vec<(u32, u32)>,
    /// Places in `armies` of the groups in the Evil dimension that are not the Evil's
    /// (on the map or off it), in order: they look around there.
    visitors: Vec<u32>,
}

impl Index {
    fn cell(&self, s: Square) -> Option<usize> {
        let (col, row) = (usize::from(s.col()), usize::from(s.row()));
        if col >= self.width || row == 0 || row > self.height {
            return None;
        }
        Some((row - 1) * self.width + col)
    }

    /// The window of squares within `r` king moves of `c` that lies on the map: its rows
    /// (1-based) and its first and last column. No row when it lies wholly east of the
    /// map.
    fn window(&self, c: Square, r: u16) -> (std::ops::RangeInclusive<usize>, usize, usize) {
        let (col, row) = (usize::from(c.col()), usize::from(c.row()));
        let r = usize::from(r);
        let (first, last) = (
            col.saturating_sub(r),
            col.saturating_add(r).min(self.width.saturating_sub(1)),
        );
        let bottom = match first < self.width {
            true => row.saturating_add(r).min(self.height),
            false => 0,
        };
        (row.saturating_sub(r).max(1)..=bottom, first, last)
    }

    /// The normal dimension's groups on the squares within `r` king moves of `c`, row by
    /// row (each row one run of the array).
    fn around(&self, c: Square, r: u16) -> impl Iterator<Item = &Placed> + '_ {
        let (rows, first, last) = self.window(c, r);
        rows.flat_map(move |y| {
            let run = (y - 1) * self.width;
            let run = self.starts[run + first] as usize..self.starts[run + last + 1] as usize;
            self.places[run].iter()
        })
    }

    /// Places in `armies` of the Evil dimension's groups on the squares within `r` king
    /// moves of `c`, row by row: one search of the sorted list a row, then its run.
    fn evil_around(&self, c: Square, r: u16) -> impl Iterator<Item = usize> + '_ {
        let (rows, first, last) = self.window(c, r);
        rows.flat_map(move |y| {
            let run = (y - 1) * self.width;
            let (from, to) = ((run + first) as u32, (run + last) as u32);
            let at = self.evil_side.partition_point(|&(x, _)| x < from);
            self.evil_side[at..]
                .iter()
                .take_while(move |&&(x, _)| x <= to)
                .map(|&(_, i)| i as usize)
        })
    }

    /// The window of squares within `r` king moves of `c` on the map, column by column:
    /// each column's top and bottom square (squares sort by column, then row, so a
    /// column is one range of an ordered map of squares).
    fn columns(&self, c: Square, r: u16) -> impl Iterator<Item = (Square, Square)> {
        let (rows, first, last) = self.window(c, r);
        let ends = u16::try_from(*rows.start())
            .ok()
            .zip(u16::try_from(*rows.end()).ok());
        let ends = ends.filter(|_| !rows.is_empty());
        (first..=last).filter_map(move |col| {
            let ((top, bottom), col) = (ends?, u16::try_from(col).ok()?);
            Some((Square::new(col, top)?, Square::new(col, bottom)?))
        })
    }
}

/// A group that `index` does not place in a cell of the normal dimension.
const NO_CELL: u32 = u32::MAX;

fn index(gs: &GameState, evil: u32) -> Index {
    let mut ix = Index {
        width: usize::from(gs.map.width),
        height: usize::from(gs.map.height),
        starts: Vec::new(),
        places: Vec::new(),
        evil_side: Vec::new(),
        visitors: Vec::new(),
    };
    let cells = ix.width * ix.height;
    // The one pass over the groups: each one's cell of the normal dimension (or none)
    // and owner, and the counts per cell.
    let mut starts = vec![0u32; cells + 1];
    let mut noted: Vec<(u32, u32)> = Vec::with_capacity(gs.armies.len());
    let mut owner: Option<(&Name, u32)> = None;
    for (i, a) in gs.armies.iter().enumerate() {
        // The groups come owner by owner: the last owner's place, without a lookup.
        let k = match owner {
            Some((name, k)) if name.same(&a.owner) => k,
            _ => {
                let k = gs.realm_index(&a.owner).map_or(NO_REALM, |k| k as u32);
                owner = Some((&a.owner, k));
                k
            }
        };
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        let cell = ix.cell(a.square);
        let at = match a.dimension {
            Dimension::Normal => cell.map_or(NO_CELL, |c| c as u32),
            Dimension::Evil => {
                if let Some(c) = cell {
                    ix.evil_side.push((c as u32, i));
                }
                if k != evil {
                    ix.visitors.push(i);
                }
                NO_CELL
            }
        };
        if let Some(n) = starts.get_mut(at as usize) {
            *n = n.saturating_add(1);
        }
        noted.push((at, k));
    }
    // Each cell's end: `starts[c]` = the groups in cells up to c.
    for c in 1..cells {
        starts[c] = starts[c].saturating_add(starts[c - 1]);
    }
    let total = starts[cells.saturating_sub(1)] as usize;
    starts[cells] = total as u32;
    let mut places = vec![Placed::default(); total];
    // Backwards, each cell filled from its end: its start is left in `starts[c]`.
    for (i, &(at, k)) in noted.iter().enumerate().rev() {
        let Some(start) = starts.get_mut(at as usize).filter(|_| at != NO_CELL) else {
            continue;
        };
        *start -= 1;
        let army = u32::try_from(i).unwrap_or(u32::MAX);
        places[*start as usize] = Placed { army, owner: k };
    }
    ix.evil_side.sort_unstable();
    ix.starts = starts;
    ix.places = places;
    ix
}

/// Who sees whom. The Evil's sightings, nearly all of a large game's (it sees every
/// group near its portals), are one bit a group: set in any order, read in the groups'
/// order, each once, with no list to sort. The other realms' (the Evil's groups that
/// each of them sees, few) are pairs (viewer's place in `realms`, army index), put in
/// order once.
struct Seen<'g> {
    gs: &'g GameState,
    /// The Evil's place in `realms`.
    evil: u32,
    /// Bit `i % 64` of word `i / 64`: the Evil sees army `i`.
    by_evil: Vec<u64>,
    pairs: Vec<(u32, usize)>,
}

impl<'g> Seen<'g> {
    fn new(gs: &'g GameState, evil: u32) -> Self {
        Seen {
            gs,
            evil,
            by_evil: vec![0; gs.armies.len().div_ceil(64)],
            pairs: Vec::new(),
        }
    }

    /// The realm at `viewer` in `realms` sees `army`.
    fn push(&mut self, viewer: u32, army: usize) {
        if viewer != self.evil {
            self.pairs.push((viewer, army));
        } else if let Some(word) = self.by_evil.get_mut(army / 64) {
            *word |= 1 << (army % 64);
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
        let rank_of = |k: u32| rank.get(k as usize).copied().unwrap_or(u32::MAX);
        let mut pairs = self.pairs;
        pairs.sort_unstable_by_key(|&(k, i)| (rank_of(k), i));
        pairs.dedup();
        // The Evil's block goes between the realms named before it and those after.
        let evil = rank_of(self.evil);
        let split = pairs.partition_point(|&(k, _)| rank_of(k) < evil);
        let seen_by_evil: u32 = self.by_evil.iter().map(|w| w.count_ones()).sum();
        let mut out = Vec::with_capacity(pairs.len() + seen_by_evil as usize);
        out.extend_from_slice(&pairs[..split]);
        for (at, &word) in self.by_evil.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                out.push((self.evil, at * 64 + bits.trailing_zeros() as usize));
                bits &= bits - 1;
            }
        }
        out.extend_from_slice(&pairs[split..]);
        out
    }
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
    let Some(evil_place) = gs.realm_index(&evil).map(|k| k as u32) else {
        return Sightings::default();
    };
    let ix = index(gs, evil_place);
    let evil_cities: BTreeMap<Square, Name> = gs
        .cities
        .iter()
        .filter(|c| c.dimension == Dimension::Evil)
        .map(|c| (c.square, c.owner.clone()))
        .collect();
    let mut seen = Seen::new(gs, evil_place);
    let mut cities: BTreeSet<(Name, Square)> = BTreeSet::new();
    let mut normal_cities = CityOwners::default();
    for c in gs.cities.iter() {
        if c.dimension == Dimension::Normal && c.owner != evil {
            if let Some(k) = gs.realm_index(&c.owner) {
                normal_cities.entry(c.square).or_default().push(k as u32);
            }
        }
    }
    // Row by row across the map, so the next portal's squares lie beside the last's in
    // the index (which pairs come first does not matter: `finish` orders them).
    let mut by_row = portals.to_vec();
    by_row.sort_unstable_by_key(|p| (p.row(), p.col()));
    for p in by_row {
        near_portal(gs, (&ix, &normal_cities), evil_place, p, &mut seen);
    }
    for &i in &ix.visitors {
        let ctx = (&ix, &evil_cities, (evil.as_str(), evil_place));
        in_the_evil_dimension(gs, ctx, i as usize, &mut seen, &mut cities);
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
    (ix, cities): (&Index, &CityOwners),
    evil: u32,
    p: Square,
    seen: &mut Seen,
) {
    let mut evil_armies: Vec<usize> = Vec::new();
    let mut neighbours: Vec<u32> = Vec::new();
    for g in ix.around(p, SIGHT) {
        if g.owner == evil {
            evil_armies.push(g.army as usize);
        } else {
            seen.push(evil, g.army as usize);
            if g.owner != NO_REALM {
                neighbours.push(g.owner);
            }
        }
    }
    if evil_armies.is_empty() {
        return;
    }
    neighbours.extend(
        around(gs, p, SIGHT)
            .flat_map(|s| cities.get(&s).into_iter().flatten())
            .copied(),
    );
    neighbours.sort_unstable();
    neighbours.dedup();
    for n in neighbours {
        for &i in &evil_armies {
            seen.push(n, i);
        }
    }
}

fn in_the_evil_dimension(
    gs: &GameState,
    (ix, evil_cities, (evil, evil_place)): (&Index, &BTreeMap<Square, Name>, (&str, u32)),
    me: usize,
    seen: &mut Seen,
    cities: &mut BTreeSet<(Name, Square)>,
) {
    let a = &gs.armies[me];
    let viewer = gs.realm_index(&a.owner).map(|k| k as u32);
    let mut evil_near = false;
    for i in ix.evil_around(a.square, SIGHT) {
        let other = &gs.armies[i];
        evil_near |= other.owner == evil;
        if let Some(k) = viewer.filter(|_| other.owner != a.owner) {
            seen.push(k, i);
        }
    }
    for (top, bottom) in ix.columns(a.square, SIGHT) {
        for (&s, owner) in evil_cities.range(top..=bottom) {
            evil_near |= owner == evil;
            if *owner != a.owner {
                cities.insert((a.owner.clone(), s));
            }
        }
    }
    if evil_near {
        seen.push(evil_place, me);
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
fn runs(units: &[crate::game::state::Unit]) -> super::UnitRuns {
    let mut out = super::UnitRuns::new();
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
    use super::{sightings, Seen, Sightings, SIGHT};
    use crate::game::state::{ArmyGroup, City, Dimension, GameState, Portal, Unit};
    use crate::game::{Name, Resources, Square, UnitKind};
    use std::collections::BTreeSet;

    /// R-EVIL-19 read straight from the rule, square by square, with no index: the
    /// reference the indexed `sightings` must match.
    fn by_the_rule(gs: &GameState, portals: &[Square]) -> Sightings {
        let evil = gs
            .evil
            .as_ref()
            .map(|e| e.realm.clone())
            .unwrap_or_default();
        let (w, h) = (gs.map.width, gs.map.height);
        let in_map = |s: Square| s.col() < w && s.row() <= h;
        let near = |a: Square, b: Square| in_map(a) && a.distance(b) <= SIGHT;
        let place = |n: &str| gs.realm_index(n).map(|k| k as u32);
        let mut pairs: Vec<(u32, usize)> = Vec::new();
        let mut cities = BTreeSet::new();
        let armies = || gs.armies.iter().enumerate();
        for &p in portals {
            let here =
                |d: Dimension| armies().filter(move |(_, a)| a.dimension == d && near(a.square, p));
            let evil_ones: Vec<usize> = here(Dimension::Normal)
                .filter(|(_, a)| *a.owner == *evil)
                .map(|(i, _)| i)
                .collect();
            let mut neighbours = BTreeSet::new();
            for (i, a) in here(Dimension::Normal).filter(|(_, a)| *a.owner != *evil) {
                pairs.extend(place(&evil).map(|k| (k, i)));
                neighbours.insert(a.owner.to_string());
            }
            if evil_ones.is_empty() {
                continue;
            }
            for c in &gs.cities {
                if c.dimension == Dimension::Normal && *c.owner != *evil && near(c.square, p) {
                    neighbours.insert(c.owner.to_string());
                }
            }
            for n in neighbours {
                for &i in &evil_ones {
                    pairs.extend(place(&n).map(|k| (k, i)));
                }
            }
        }
        for (me, t) in armies().filter(|(_, a)| a.dimension == Dimension::Evil) {
            if *t.owner == *evil {
                continue;
            }
            let mut evil_near = false;
            for (i, o) in armies() {
                if o.dimension == Dimension::Evil && near(o.square, t.square) {
                    evil_near |= *o.owner == *evil;
                    if o.owner != t.owner {
                        pairs.extend(place(&t.owner).map(|k| (k, i)));
                    }
                }
            }
            for c in &gs.cities {
                if c.dimension == Dimension::Evil && near(c.square, t.square) {
                    evil_near |= *c.owner == *evil;
                    if c.owner != t.owner {
                        cities.insert((t.owner.clone(), c.square));
                    }
                }
            }
            if evil_near {
                pairs.extend(place(&evil).map(|k| (k, me)));
            }
        }
        let name = |k: u32| gs.realms[k as usize].name.clone();
        pairs.sort_by_key(|a| (name(a.0), a.1));
        pairs.dedup();
        Sightings {
            armies: pairs,
            cities,
        }
    }

    fn evil_game() -> GameState {
        crate::game::load_scenario(include_str!("../../../../scenarios/evil.yaml"))
            .expect("the Evil scenario")
    }

    /// Armies (owner, column, row, in the Evil dimension), cities (owner, column, row,
    /// Evil dimension) and portals (column, row), squares up to two beyond the map.
    type Placing = (
        Vec<(usize, u16, u16, bool)>,
        Vec<(usize, u16, u16, bool)>,
        Vec<(u16, u16)>,
    );

    fn placed(gs: &mut GameState, (armies, cities, portals): &Placing) {
        let names: Vec<Name> = gs
            .realms
            .iter()
            .map(|r| Name::from(r.name.as_str()))
            .collect();
        let dim = |e: bool| {
            if e {
                Dimension::Evil
            } else {
                Dimension::Normal
            }
        };
        let sq = |c: u16, r: u16| Square::new(c, r.max(1)).expect("a square");
        gs.armies = armies
            .iter()
            .enumerate()
            .map(|(id, &(o, c, r, e))| ArmyGroup {
                id: id as u32 + 1,
                owner: names[o % names.len()].clone(),
                square: sq(c, r),
                dimension: dim(e),
                units: smallvec::smallvec![Unit {
                    kind: UnitKind::LattInfanteri,
                    built_round: 0,
                }],
                treasure: Default::default(),
                no_move_until_round: None,
            })
            .collect();
        gs.armies
            .sort_by(|a, b| (a.owner.as_str(), a.id).cmp(&(b.owner.as_str(), b.id)));
        // One city a square in each dimension, as a valid state has (`validate`).
        let mut taken = std::collections::BTreeSet::new();
        gs.cities = cities
            .iter()
            .filter(|&&(_, c, r, e)| taken.insert((sq(c, r), e)))
            .enumerate()
            .map(|(k, &(o, c, r, e))| City {
                square: sq(c, r),
                name: format!("Stad {k}"),
                owner: names[o % names.len()].clone(),
                dimension: dim(e),
                population: 1,
                production: Resources::default(),
                walls: 0,
                capital: false,
                harbour: false,
                coastal: false,
                plundered: false,
            })
            .collect();
        let mut at: Vec<Square> = portals.iter().map(|&(c, r)| sq(c, r)).collect();
        at.sort();
        at.dedup();
        for &p in &at {
            let mut m = gs.map.get(p).cloned().unwrap_or_else(|| {
                gs.map
                    .squares
                    .iter()
                    .next()
                    .map(|(_, m)| m.clone())
                    .expect("a square")
            });
            m.portal = Some(Box::new(Portal {
                opened_by: "Ondskan".into(),
                opened_round: 1,
                closes_after_round: None,
            }));
            gs.map.squares.insert(p, m);
        }
    }

    fn placing() -> impl proptest::strategy::Strategy<Value = Placing> {
        use proptest::collection::vec;
        let spot = || (0usize..7, 0u16..14, 0u16..15, proptest::bool::weighted(0.3));
        (
            vec(spot(), 0..40),
            vec(spot(), 0..8),
            vec((0u16..14, 0u16..15), 0..5),
        )
    }

    proptest::proptest! {
        #[test]
        fn r_evil_19_the_indexed_sight_sees_what_the_rule_says_square_by_square(p in placing()) {
            let mut gs = evil_game();
            placed(&mut gs, &p);
            // The scenario's own portals as well as those placed.
            let portals: Vec<Square> = gs
                .map
                .squares
                .iter()
                .filter(|(_, m)| m.portal.is_some())
                .map(|(s, _)| s)
                .collect();
            proptest::prop_assert_eq!(sightings(&gs), by_the_rule(&gs, &portals));
        }

        #[test]
        fn who_sees_whom_comes_out_by_viewers_name_then_army_each_once(
            evil in 0u32..7,
            pushed in proptest::collection::vec((0u32..7, 0usize..150), 0..300),
        ) {
            let mut gs = evil_game();
            gs.armies.resize(150, gs.armies[0].clone());
            let realms = gs.realms.len() as u32;
            let evil = evil % realms;
            let mut seen = Seen::new(&gs, evil);
            for &(k, i) in &pushed {
                seen.push(k % realms, i);
            }
            let mut expected: Vec<(u32, usize)> =
                pushed.iter().map(|&(k, i)| (k % realms, i)).collect();
            let name = |k: u32| gs.realms[k as usize].name.clone();
            expected.sort_by_key(|&(k, i)| (name(k), i));
            expected.dedup();
            proptest::prop_assert_eq!(seen.finish(), expected);
        }
    }
}

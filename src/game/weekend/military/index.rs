//! Where the military steps find things: a per-square index of the army groups, fleets
//! and cities, and realms by name, built once at the start of a step, so a move, an
//! attack or an arrival looks at the square it concerns instead of every group in the
//! game (speed only: no rule lives here).
//!
//! Groups are keyed by (owner, number), never by their place in `GameState::armies` or
//! `fleets` (which shifts as groups come and go). Every lookup checks each candidate
//! against the state (the group still exists and still stands on the square), so a
//! group that went away or moved on leaves a harmless stale entry. What the index must
//! be told is every new place a group stands: so a group moves only through
//! `relocate` and comes into being only through `insert_army` / `insert_fleet`, all
//! here. Removing a group needs nothing.
//!
//! The maps are hash maps, used only for lookups (never iterated), so their order
//! cannot reach a result. Lookups return positions in the state's own order, so the first match is the one a
//! scan of the whole list would find. The armies and fleets must be sorted by owner
//! and number (`forces::sort`, as every military step does first).

use crate::game::hash::FastMap;
use crate::game::orders::Group;
use crate::game::state::{ArmyGroup, Fleet, GameState, Realm};
use crate::game::Square;

use super::forces;

/// Battle targets whose army groups are read ahead together (`Index::read_ahead`): a
/// batch's groups fit the fastest caches many times over.
pub(crate) const READ_AHEAD: usize = 16;

/// A group's owner (its place in `Index::names`) and number.
type Key = (u32, u32);

/// The groups noted on one square: most squares hold one, noted in the slot itself; a
/// square with more points to its list among its store's `Lists`. A slot owns nothing,
/// so a store with a cell for every square of the map is freed at once, not cell by
/// cell, and a cell takes 12 bytes.
#[derive(Debug, Clone, Copy)]
enum Slot {
    One(Key),
    Many(u32),
}

/// The lists of the squares that hold more than one group, by `Slot::Many`'s number.
#[derive(Debug, Default)]
struct Lists(Vec<Vec<Key>>);

impl Lists {
    /// Note `k` in `slot` (beside what it holds).
    fn add(&mut self, slot: &mut Slot, k: Key) {
        match *slot {
            Slot::One(first) => {
                // More lists than a u32 counts would take more memory than there is.
                let at = u32::try_from(self.0.len()).unwrap_or(u32::MAX);
                self.0.push(vec![first, k]);
                *slot = Slot::Many(at);
            }
            Slot::Many(at) => {
                if let Some(list) = self.0.get_mut(at as usize) {
                    list.push(k);
                }
            }
        }
    }

    /// The groups noted in `slot`.
    fn keys<'a>(&'a self, slot: &'a Slot) -> &'a [Key] {
        match slot {
            Slot::One(k) => std::slice::from_ref(k),
            Slot::Many(at) => self.0.get(*at as usize).map_or(&[], Vec::as_slice),
        }
    }
}

/// Groups noted by square in a hash map (the fleets, few; armies off the map).
#[derive(Default)]
struct Spread {
    slots: FastMap<Square, Slot>,
    lists: Lists,
}

impl Spread {
    fn with_room(n: usize) -> Spread {
        Spread {
            slots: room(n),
            lists: Lists::default(),
        }
    }

    /// Note `k` on `square`.
    fn note(&mut self, square: Square, k: Key) {
        match self.slots.entry(square) {
            std::collections::hash_map::Entry::Occupied(mut e) => self.lists.add(e.get_mut(), k),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(Slot::One(k));
            }
        }
    }

    fn keys(&self, sq: &Square) -> &[Key] {
        self.slots.get(sq).map_or(&[], |s| self.lists.keys(s))
    }
}

fn room<K, V>(n: usize) -> FastMap<K, V> {
    FastMap::with_capacity_and_hasher(n, Default::default())
}

/// The army groups noted by square: one cell a square of the map, in one array, so
/// that noting the groups realm by realm writes near where it wrote last (a hash map
/// would scatter them over a table as large as the game). The array runs along the
/// map's shorter side: by row on a map taller than wide, else by column. A realm's
/// patch of land then takes a few short stretches of it near one another however
/// long the map is; by column, a map ten times as tall sets each column's stretch ten
/// times as far from the next, and a look along a path or around a battlefield reads
/// that many more memory pages. Squares outside the map's stated size go to a hash
/// map.
struct Cells {
    width: usize,
    height: usize,
    /// Cells by row (the map is taller than wide), else by column.
    by_row: bool,
    cells: Vec<Option<Slot>>,
    lists: Lists,
    outside: Spread,
}

impl Cells {
    fn of(gs: &GameState) -> Cells {
        Cells::new(usize::from(gs.map.width), usize::from(gs.map.height))
    }

    /// Empty cells for a map of `width` columns and `height` rows.
    fn new(width: usize, height: usize) -> Cells {
        let mut cells = Vec::new();
        cells.resize_with(width * height, || None);
        Cells {
            width,
            height,
            by_row: width < height,
            cells,
            lists: Lists::default(),
            outside: Spread::default(),
        }
    }

    fn cell(&self, sq: Square) -> Option<usize> {
        let (col, row) = (usize::from(sq.col()), usize::from(sq.row()).checked_sub(1)?);
        if col >= self.width || row >= self.height {
            return None;
        }
        let c = match self.by_row {
            true => row * self.width + col,
            false => col * self.height + row,
        };
        (c < self.cells.len()).then_some(c)
    }

    /// The groups noted on `sq`.
    fn keys(&self, sq: &Square) -> &[Key] {
        match self.cell(*sq) {
            Some(c) => self.cells[c].as_ref().map_or(&[], |s| self.lists.keys(s)),
            None => self.outside.keys(sq),
        }
    }

    fn note(&mut self, square: Square, k: Key) {
        match self.cell(square) {
            Some(c) => match &mut self.cells[c] {
                Some(slot) => self.lists.add(slot, k),
                empty => *empty = Some(Slot::One(k)),
            },
            None => self.outside.note(square, k),
        }
    }
}

/// The index of one step. See the module text for how to keep it true.
pub struct Index {
    armies: Cells,
    fleets: Spread,
    cities: FastMap<Square, Vec<usize>>,
    /// `cities.len()` when the city index was built: cities never move, but razing
    /// shifts their places; a changed count falls back to a scan.
    city_count: usize,
    /// Owners of noted groups by name, and their names by place.
    owners: FastMap<String, u32>,
    names: Vec<String>,
    /// Each owner's place in `GameState::realms` when first noted: where a lookup of
    /// its groups starts (a place gone stale only makes that search longer).
    places: Vec<Option<usize>>,
    /// The owner noted last.
    last: Option<u32>,
}

impl Index {
    /// The index of `gs` as it stands.
    pub fn build(gs: &GameState) -> Index {
        // Room for every group at once: a map grown by doubling rehashes itself
        // over and over on a large game.
        let mut ix = Index {
            armies: Cells::of(gs),
            fleets: Spread::with_room(gs.fleets.len()),
            cities: room(gs.cities.len()),
            city_count: 0,
            owners: FastMap::default(),
            names: Vec::new(),
            places: Vec::new(),
            last: None,
        };
        for a in &gs.armies {
            ix.note_army(gs, &a.owner, a.id, a.square);
        }
        for f in &gs.fleets {
            ix.note_fleet(gs, &f.owner, f.id, f.square);
        }
        ix.cities_changed(gs);
        ix
    }

    fn key(&mut self, gs: &GameState, owner: &str, id: u32) -> Key {
        // The groups come owner by owner: the last owner's number, without a lookup.
        if let Some(o) = self.last.filter(|&o| self.names[o as usize] == owner) {
            return (o, id);
        }
        let o = match self.owners.get(owner) {
            Some(&o) => o,
            None => {
                let o = self.names.len() as u32;
                self.names.push(owner.to_string());
                self.places.push(gs.realm_index(owner));
                self.owners.insert(owner.to_string(), o);
                o
            }
        };
        self.last = Some(o);
        (o, id)
    }

    fn note_army(&mut self, gs: &GameState, owner: &str, id: u32, square: Square) {
        let k = self.key(gs, owner, id);
        self.armies.note(square, k);
    }

    fn note_fleet(&mut self, gs: &GameState, owner: &str, id: u32, square: Square) {
        let k = self.key(gs, owner, id);
        self.fleets.note(square, k);
    }

    /// Rebuild the city index (after cities were removed).
    pub fn cities_changed(&mut self, gs: &GameState) {
        self.cities.clear();
        for (i, c) in gs.cities.iter().enumerate() {
            self.cities.entry(c.square).or_default().push(i);
        }
        self.city_count = gs.cities.len();
    }

    /// Places in `gs.armies` of the army groups on `square` (aboard a fleet or not, any
    /// dimension), in the state's order.
    pub fn armies_on(&self, gs: &GameState, square: Square) -> Vec<usize> {
        let found = self.armies.keys(&square);
        let mut out: Vec<usize> = found
            .iter()
            .filter_map(|&(o, id)| {
                let (name, place) = (&self.names[o as usize], self.places[o as usize]);
                forces::army_at_in(gs, place, name, id)
            })
            .filter(|&i| gs.armies[i].square == square)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Read ahead, in one short pass, the army groups the next battles read first: those
    /// noted on `squares` and the `attackers` (each a realm's place in `gs.realms` and a
    /// group's number), at the places the state's hint gives them. The reads do not
    /// wait on one another, so the processor fetches the groups together; the battles
    /// that follow then find them in the cache instead of each waiting for memory in
    /// turn, which on a game larger than the cache is most of a lookup's time. Speed
    /// only: nothing read here reaches a result. Returns how many groups it read.
    pub fn read_ahead(
        &self,
        gs: &GameState,
        squares: impl IntoIterator<Item = Square>,
        attackers: impl IntoIterator<Item = (Option<usize>, u32)>,
    ) -> usize {
        let noted = squares.into_iter().flat_map(|sq| {
            self.armies
                .keys(&sq)
                .iter()
                .map(|&(o, id)| (self.places.get(o as usize).copied().flatten(), id))
        });
        let (mut read, mut seen) = (0, 0u32);
        for (place, id) in noted.chain(attackers) {
            let at = place.and_then(|p| gs.army_places.guess_at(gs, p, id));
            if let Some(a) = at.and_then(|at| gs.armies.get(at)) {
                seen = seen.wrapping_add(a.id);
                read += 1;
            }
        }
        std::hint::black_box(seen);
        read
    }

    /// Places in `gs.fleets` of the fleets on `square`, in the state's order.
    pub fn fleets_on(&self, gs: &GameState, square: Square) -> Vec<usize> {
        let found = self.fleets.keys(&square);
        let mut out: Vec<usize> = found
            .iter()
            .filter_map(|&(o, id)| forces::fleet_at(gs, &self.names[o as usize], id))
            .filter(|&i| gs.fleets[i].square == square)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Places in `gs.cities` of the cities on `square` (any dimension), in order.
    pub fn cities_on(&self, gs: &GameState, square: Square) -> Vec<usize> {
        let listed = self.cities.get(&square).map_or(&[][..], Vec::as_slice);
        let current = gs.cities.len() == self.city_count
            && listed
                .iter()
                .all(|&i| gs.cities.get(i).is_some_and(|c| c.square == square));
        if current {
            return listed.to_vec();
        }
        let on = gs
            .cities
            .iter()
            .enumerate()
            .filter(|(_, c)| c.square == square);
        on.map(|(i, _)| i).collect()
    }

    /// The first city on `square` that `keep` accepts.
    pub fn city_on(
        &self,
        gs: &GameState,
        square: Square,
        keep: impl Fn(&crate::game::state::City) -> bool,
    ) -> Option<usize> {
        self.cities_on(gs, square)
            .into_iter()
            .find(|&i| keep(&gs.cities[i]))
    }

    /// Place in `gs.realms` of the realm named `name`.
    pub fn realm_at(&self, gs: &GameState, name: &str) -> Option<usize> {
        gs.realm_index(name)
    }

    pub fn realm<'g>(&self, gs: &'g GameState, name: &str) -> Option<&'g Realm> {
        self.realm_at(gs, name).map(|i| &gs.realms[i])
    }

    /// Each listed `a` has `b` among its friends, and the other way round (or the same
    /// realm).
    pub fn mutual_friends(&self, gs: &GameState, a: &str, b: &str) -> bool {
        a == b || (self.lists(gs, a, b) && self.lists(gs, b, a))
    }

    /// `x` lists `y` as a friend.
    pub fn lists(&self, gs: &GameState, x: &str, y: &str) -> bool {
        self.realm(gs, x)
            .is_some_and(|r| r.friends.iter().any(|f| f == y))
    }

    /// Every group stands where the index can find it (tests and debug builds check it
    /// at the end of each step: a group moved around `relocate` fails here).
    pub fn covers(&self, gs: &GameState) -> Result<(), String> {
        let missing = |keys: &[Key], owner: &str, id: u32| {
            !keys
                .iter()
                .any(|&(o, i)| self.names[o as usize] == owner && i == id)
        };
        for a in gs.armies.iter().filter(|a| !forces::gone(a)) {
            if missing(self.armies.keys(&a.square), &a.owner, a.id) {
                return Err(format!("{}'s army {} on {}", a.owner, a.id, a.square));
            }
        }
        for f in &gs.fleets {
            if missing(self.fleets.keys(&f.square), &f.owner, f.id) {
                return Err(format!("{}'s fleet {} on {}", f.owner, f.id, f.square));
            }
        }
        Ok(())
    }

    /// Panic (debug builds only) when a group moved without telling the index.
    pub fn check(&self, gs: &GameState) {
        if cfg!(debug_assertions) {
            if let Err(e) = self.covers(gs) {
                panic!("the military index misses {e}: move groups with index::relocate");
            }
        }
    }
}

/// Put realm's `group` on `square`; a fleet takes its cargo along. The one way the
/// military steps change where a group stands.
pub fn relocate(gs: &mut GameState, ix: &mut Index, realm: &str, group: Group, square: Square) {
    match group {
        Group::Army(id) => {
            if let Some(i) = forces::army_at(gs, realm, id) {
                gs.armies[i].square = square;
                ix.note_army(gs, realm, id, square);
            }
        }
        Group::Fleet(id) => {
            let Some(i) = forces::fleet_at(gs, realm, id) else {
                return;
            };
            gs.fleets[i].square = square;
            ix.note_fleet(gs, realm, id, square);
            for a in gs.fleets[i].cargo.clone() {
                if let Some(ai) = forces::army_at(gs, realm, a) {
                    gs.armies[ai].square = square;
                    ix.note_army(gs, realm, a, square);
                }
            }
        }
    }
}

/// Add an army group in its sorted place, where it stands.
pub fn insert_army(gs: &mut GameState, ix: &mut Index, g: ArmyGroup) {
    ix.note_army(gs, &g.owner, g.id, g.square);
    let at = gs
        .armies
        .partition_point(|a| (a.owner.as_str(), a.id) < (g.owner.as_str(), g.id));
    // A group gone this step may still hold the number: the new one takes its place.
    match gs.armies.get_mut(at) {
        Some(old) if old.owner == g.owner && old.id == g.id && forces::gone(old) => *old = g,
        _ => gs.armies.insert(at, g),
    }
}

/// Add a fleet in its sorted place, where it stands.
pub fn insert_fleet(gs: &mut GameState, ix: &mut Index, f: Fleet) {
    ix.note_fleet(gs, &f.owner, f.id, f.square);
    let at = gs
        .fleets
        .partition_point(|x| (x.owner.as_str(), x.id) < (f.owner.as_str(), f.id));
    gs.fleets.insert(at, f);
}

// A cell of the map-wide store: a slot and its "is there one" in 12 bytes.
const _: () = assert!(std::mem::size_of::<Option<Slot>>() == 12);

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(col: u16, row: u16) -> Square {
        Square::new(col, row).expect("square")
    }

    /// The read-ahead reads each group noted on a square and each named group once, and
    /// takes unknown realms, numbers past the list and an empty list without failing.
    #[test]
    fn reading_ahead_reads_the_groups_on_the_squares_and_those_named() {
        let mut gs = crate::game::load_scenario(include_str!("../../../../scenarios/demo.yaml"))
            .expect("demo");
        forces::sort(&mut gs);
        let ix = Index::build(&gs);
        let mut squares: Vec<Square> = gs.armies.iter().map(|a| a.square).collect();
        squares.sort_unstable();
        squares.dedup();
        assert_eq!(ix.read_ahead(&gs, squares.clone(), []), gs.armies.len());
        let named: Vec<(Option<usize>, u32)> = gs
            .armies
            .iter()
            .map(|a| (gs.realm_index(&a.owner), a.id))
            .collect();
        assert_eq!(ix.read_ahead(&gs, [], named.clone()), gs.armies.len());
        let unknown = [(None, 1), (Some(gs.realms.len() + 5), 1)];
        assert_eq!(ix.read_ahead(&gs, [], unknown), 0);
        assert_eq!(ix.read_ahead(&gs, [], [(named[0].0, u32::MAX)]), 1);
        gs.armies.clear();
        assert_eq!(ix.read_ahead(&gs, squares, named), 0);
    }

    #[test]
    fn squares_holding_several_groups_keep_each_its_own_list_in_order() {
        // A map 2 wide and 4 tall (cells by row), and 4 wide and 2 tall (by column).
        for (width, height) in [(2, 4), (4, 2)] {
            let mut cells = Cells::new(width, height);
            let (a, b, off) = (sq(0, 1), sq(1, 2), sq(9, 9));
            for (square, k) in [
                (a, (0, 1)),
                (b, (0, 2)),
                (a, (1, 1)),
                (b, (1, 7)),
                (a, (2, 3)),
            ] {
                cells.note(square, k);
            }
            for k in [(3, 1), (3, 2)] {
                cells.note(off, k);
            }
            assert_eq!(cells.keys(&a), [(0, 1), (1, 1), (2, 3)]);
            assert_eq!(cells.keys(&b), [(0, 2), (1, 7)]);
            assert_eq!(cells.keys(&off), [(3, 1), (3, 2)], "off the map's cells");
            assert_eq!(cells.keys(&sq(1, 1)), [], "{width} × {height}");
            assert_eq!(cells.keys(&sq(0, 2)), [], "{width} × {height}");
        }
    }

    /// On a map taller than wide the cells run along the rows, else along the columns:
    /// the next square across the shorter side is the next cell. Every square of the
    /// map has a cell of its own, and none past its edge.
    #[test]
    fn the_cells_run_along_the_maps_shorter_side() {
        for (width, height) in [(2, 4), (4, 2), (3, 3)] {
            let cells = Cells::new(width, height);
            let at = |c, r| cells.cell(sq(c, r)).expect("a cell");
            let (next_col, next_row) = (at(1, 1) - at(0, 1), at(0, 2) - at(0, 1));
            match width < height {
                true => assert_eq!((next_col, next_row), (1, width), "{width} × {height}"),
                false => assert_eq!((next_col, next_row), (height, 1), "{width} × {height}"),
            }
            let mut seen = std::collections::BTreeSet::new();
            for col in 0..width as u16 {
                for row in 1..=height as u16 {
                    assert!(seen.insert(at(col, row)), "{col} {row}");
                }
            }
            assert_eq!(seen.len(), width * height);
            assert!(seen.iter().all(|&c| c < width * height));
            assert_eq!(
                cells.cell(sq(width as u16, 1)),
                None,
                "past the last column"
            );
            assert_eq!(
                cells.cell(sq(0, height as u16 + 1)),
                None,
                "past the last row"
            );
        }
    }
}

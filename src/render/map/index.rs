//! What a viewer sees of the map, read from the state through indexes built once, so
//! each realm's picture costs what that realm knows, not what the whole map holds.
//!
//! A realm sees, in a dimension:
//! - its own land there, its cities, army groups and fleets, and every square next to
//!   one of those by the game's adjacency (`settings.adjacency`, the rule movement,
//!   combat and border sales use) with everything that stands there;
//! - what R-EVIL-19 lets it see (`game::weekend::evil::sightings`, the rule the weekend
//!   reports sightings by): the armies and Evil cities sighted, on their squares;
//! - what its successful spies reported this round and the last (missions 2, 3 and 10,
//!   kept with the spy as `StationedSpy::saw` when the report was made): those armies,
//!   fleets and cities where they stood then, with the units they had.
//!
//! The GM sees every square and everything on it.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use super::{CityView, Ground, GroupView, Known, MapView, SquareView, Viewer};
use crate::game::hash::FastMap;
use crate::game::state::{Dimension, GameState, MapSquare, SpyState};
use crate::game::weekend::evil::{sightings, Sightings};
use crate::game::Square;

/// A margin of squares around what a realm knows.
const MARGIN: u16 = 1;

/// The state's indexes for drawing many viewers' pictures of one state.
pub struct MapIndex<'g> {
    gs: &'g GameState,
    /// Army indexes by (in the Evil dimension, square).
    armies_at: FastMap<(bool, Square), Vec<usize>>,
    fleets_at: FastMap<Square, Vec<usize>>,
    cities_at: FastMap<(bool, Square), usize>,
    /// Each realm's land by (in the Evil dimension, realm).
    land: FastMap<(bool, &'g str), Vec<Square>>,
    armies_of: FastMap<&'g str, Vec<usize>>,
    fleets_of: FastMap<&'g str, Vec<usize>>,
    cities_of: FastMap<&'g str, Vec<usize>>,
    armies_by_id: FastMap<(&'g str, u32), usize>,
    fleets_by_id: FastMap<(&'g str, u32), usize>,
    /// R-EVIL-19, worked out on the first realm's picture that needs it.
    sight: OnceLock<Sight>,
}

/// The sightings by viewer's place in `realms`.
#[derive(Default)]
struct Sight {
    armies: FastMap<u32, Vec<usize>>,
    cities: FastMap<String, Vec<Square>>,
}

fn evil(dim: Dimension) -> bool {
    dim == Dimension::Evil
}

fn push<K: std::hash::Hash + Eq, V>(m: &mut FastMap<K, Vec<V>>, k: K, v: V) {
    m.entry(k).or_default().push(v);
}

impl<'g> MapIndex<'g> {
    /// Index `gs` once (linear in its size).
    pub fn new(gs: &'g GameState) -> Self {
        let mut ix = MapIndex {
            gs,
            armies_at: FastMap::default(),
            fleets_at: FastMap::default(),
            cities_at: FastMap::default(),
            land: FastMap::default(),
            armies_of: FastMap::default(),
            fleets_of: FastMap::default(),
            cities_of: FastMap::default(),
            armies_by_id: FastMap::default(),
            fleets_by_id: FastMap::default(),
            sight: OnceLock::new(),
        };
        for (i, a) in gs.armies.iter().enumerate() {
            push(&mut ix.armies_at, (evil(a.dimension), a.square), i);
            push(&mut ix.armies_of, a.owner.as_str(), i);
            ix.armies_by_id.insert((a.owner.as_str(), a.id), i);
        }
        for (i, f) in gs.fleets.iter().enumerate() {
            push(&mut ix.fleets_at, f.square, i);
            push(&mut ix.fleets_of, f.owner.as_str(), i);
            ix.fleets_by_id.insert((f.owner.as_str(), f.id), i);
        }
        for (i, c) in gs.cities.iter().enumerate() {
            ix.cities_at.insert((evil(c.dimension), c.square), i);
            push(&mut ix.cities_of, c.owner.as_str(), i);
        }
        for (sq, m) in &gs.map.squares {
            if let Some(o) = &m.owner {
                push(&mut ix.land, (false, o.as_str()), sq);
            }
            if let Some(o) = &m.evil_owner {
                push(&mut ix.land, (true, o.as_str()), sq);
            }
        }
        ix
    }

    /// The picture's data for `viewer` in `dim`.
    pub fn view(&self, viewer: Viewer<'_>, dim: Dimension) -> MapView {
        match viewer {
            Viewer::Gm => self.gm(dim),
            Viewer::Realm(name) => match self.gs.realm(name) {
                Some(r) => self.realm(&r.name, dim),
                None => self.frame(Some(name), dim),
            },
        }
    }

    fn frame(&self, viewer: Option<&str>, dim: Dimension) -> MapView {
        MapView {
            dimension: dim,
            viewer: viewer.map(str::to_string),
            game: self.gs.game.name.clone(),
            round: self.gs.round,
            evil: self.gs.evil.is_some(),
            ..MapView::default()
        }
    }

    fn gm(&self, dim: Dimension) -> MapView {
        let gs = self.gs;
        let mut v = self.frame(None, dim);
        v.squares = gs
            .map
            .squares
            .iter()
            .map(|(sq, m)| square_view(sq, m, dim, true))
            .collect();
        v.cities = gs
            .cities
            .iter()
            .filter(|c| c.dimension == dim)
            .map(city_view)
            .collect();
        v.armies = gs
            .armies
            .iter()
            .filter(|a| a.dimension == dim)
            .map(|a| army_view(a, Known::Gm))
            .collect();
        v.fleets = gs
            .fleets
            .iter()
            .filter(|f| f.dimension == dim)
            .map(|f| fleet_view(f, Known::Gm))
            .collect();
        v.width = u32::from(gs.map.width);
        v.height = u32::from(gs.map.height);
        v.top = 1;
        finish(v, None)
    }

    fn realm(&self, name: &str, dim: Dimension) -> MapView {
        let mut seen = Seen::default();
        let near = self.near(name, dim);
        for sq in &near {
            self.everything_on(*sq, dim, name, &mut seen);
        }
        self.sighted(name, dim, &mut seen);
        self.spied(name, dim, &mut seen);
        let mut squares: BTreeSet<Square> = near;
        squares.extend(seen.squares.iter().copied());
        let mut v = self.frame(Some(name), dim);
        v.squares = squares
            .iter()
            .filter_map(|sq| {
                let m = self.gs.map.get(*sq)?;
                let portal = m
                    .portal
                    .as_ref()
                    .is_some_and(|p| p.opened_by == name || m.owner.as_deref() == Some(name));
                let mut s = square_view(*sq, m, dim, false);
                s.portal = portal;
                Some(s)
            })
            .collect();
        v.cities = seen
            .cities
            .iter()
            .map(|i| city_view(&self.gs.cities[*i]))
            .collect();
        // A spy's report only where nothing better is known (`finish` keeps the first
        // of each group).
        for c in seen.reported_cities {
            if v.cities.iter().all(|k| k.square != c.square) {
                v.cities.push(c);
            }
        }
        v.armies = seen
            .armies
            .iter()
            .map(|(i, k)| army_view(&self.gs.armies[*i], *k))
            .chain(seen.reported_armies)
            .collect();
        v.fleets = seen
            .fleets
            .iter()
            .map(|(i, k)| fleet_view(&self.gs.fleets[*i], *k))
            .chain(seen.reported_fleets)
            .collect();
        self.region(&mut v);
        finish(v, Some(name))
    }

    /// The realm's own squares, cities and groups in `dim`, and their neighbours.
    fn near(&self, name: &str, dim: Dimension) -> BTreeSet<Square> {
        let gs = self.gs;
        let e = evil(dim);
        let mut own: Vec<Square> = self.land.get(&(e, name)).cloned().unwrap_or_default();
        let list = |m: &FastMap<&'g str, Vec<usize>>| m.get(name).cloned().unwrap_or_default();
        own.extend(
            list(&self.cities_of)
                .into_iter()
                .map(|i| &gs.cities[i])
                .filter(|c| c.dimension == dim)
                .map(|c| c.square),
        );
        own.extend(
            list(&self.armies_of)
                .into_iter()
                .map(|i| &gs.armies[i])
                .filter(|a| a.dimension == dim)
                .map(|a| a.square),
        );
        own.extend(
            list(&self.fleets_of)
                .into_iter()
                .map(|i| &gs.fleets[i])
                .filter(|f| f.dimension == dim)
                .map(|f| f.square),
        );
        let (w, h) = (gs.map.width, gs.map.height);
        let diagonal = gs.settings.adjacency == 8;
        let mut near: BTreeSet<Square> = own.iter().copied().collect();
        for sq in own {
            near.extend(sq.neighbours(w, h, diagonal));
        }
        near.retain(|sq| gs.map.get(*sq).is_some());
        near
    }

    /// Every city, army group and fleet on `sq` in `dim`.
    fn everything_on(&self, sq: Square, dim: Dimension, name: &str, seen: &mut Seen) {
        let e = evil(dim);
        let known = |owner: &str| {
            if owner == name {
                Known::Own
            } else {
                Known::Border
            }
        };
        if let Some(i) = self.cities_at.get(&(e, sq)) {
            seen.cities.insert(*i);
        }
        for i in self.armies_at.get(&(e, sq)).into_iter().flatten() {
            seen.armies.insert((*i, known(&self.gs.armies[*i].owner)));
        }
        for i in self.fleets_at.get(&sq).into_iter().flatten() {
            let f = &self.gs.fleets[*i];
            if f.dimension == dim {
                seen.fleets.insert((*i, known(&f.owner)));
            }
        }
    }

    /// R-EVIL-19: the armies and Evil cities the realm sights in `dim`.
    fn sighted(&self, name: &str, dim: Dimension, seen: &mut Seen) {
        if self.gs.evil.is_none() {
            return;
        }
        let sight = self.sight.get_or_init(|| by_viewer(sightings(self.gs)));
        let Some(k) = self.gs.realm_index(name) else {
            return;
        };
        for i in sight.armies.get(&(k as u32)).into_iter().flatten() {
            let a = &self.gs.armies[*i];
            if a.dimension == dim {
                seen.add_army(*i, a.square, Known::Sight);
            }
        }
        if evil(dim) {
            for sq in sight.cities.get(name).into_iter().flatten() {
                if let Some(i) = self.cities_at.get(&(true, *sq)) {
                    seen.cities.insert(*i);
                    seen.squares.insert(*sq);
                }
            }
        }
    }

    /// What the realm's successful spies on missions 2, 3 and 10 reported this round
    /// and the last, as the reports told it: the cities, army groups and fleets where
    /// they stood then, with the units they had (not where they stand now, which the
    /// realm does not know). A report older than that is not drawn.
    fn spied(&self, name: &str, dim: Dimension, seen: &mut Seen) {
        let gs = self.gs;
        let reports = gs
            .spies
            .iter()
            .filter(|s| s.owner == name && s.state == SpyState::Succeeded)
            .filter_map(|s| s.saw.as_ref())
            .filter(|f| f.round.saturating_add(1) >= gs.round);
        for f in reports {
            if !evil(dim) {
                for c in &f.cities {
                    seen.squares.insert(c.square);
                    seen.reported_cities.push(CityView {
                        square: c.square,
                        name: c.name.clone(),
                        owner: c.owner.clone(),
                        capital: c.capital,
                        harbour: c.harbour,
                        walls: c.walls,
                    });
                }
            }
            let groups = [
                (&f.armies, &mut seen.reported_armies),
                (&f.fleets, &mut seen.reported_fleets),
            ];
            for (list, into) in groups {
                for g in list
                    .iter()
                    .filter(|g| g.dimension == dim && g.owner != name)
                {
                    seen.squares.insert(g.square);
                    into.push(GroupView {
                        owner: g.owner.clone(),
                        id: g.id,
                        square: g.square,
                        units: g.units,
                        known: Known::Spy,
                    });
                }
            }
        }
    }

    /// The bounding box of the known squares plus [`MARGIN`], within the map.
    fn region(&self, v: &mut MapView) {
        let (Some(c0), Some(c1)) = (
            v.squares.iter().map(|s| s.square.col()).min(),
            v.squares.iter().map(|s| s.square.col()).max(),
        ) else {
            return;
        };
        let r0 = v.squares.iter().map(|s| s.square.row()).min().unwrap_or(1);
        let r1 = v.squares.iter().map(|s| s.square.row()).max().unwrap_or(1);
        let (w, h) = (self.gs.map.width.max(1), self.gs.map.height.max(1));
        let left = c0.saturating_sub(MARGIN);
        let right = c1.saturating_add(MARGIN).min(w - 1).max(c1);
        let top = r0.saturating_sub(MARGIN).max(1);
        let bottom = r1.saturating_add(MARGIN).min(h).max(r1);
        v.left = left;
        v.top = top;
        v.width = u32::from(right - left) + 1;
        v.height = u32::from(bottom - top) + 1;
    }
}

/// What a realm sees, as indexes into the state, each once.
#[derive(Default)]
struct Seen {
    cities: BTreeSet<usize>,
    armies: BTreeSet<(usize, Known)>,
    fleets: BTreeSet<(usize, Known)>,
    /// Squares known only for what was reported on them.
    squares: BTreeSet<Square>,
    /// What spies reported, as they reported it (drawn unless known better).
    reported_cities: Vec<CityView>,
    reported_armies: Vec<GroupView>,
    reported_fleets: Vec<GroupView>,
}

impl Seen {
    fn add_army(&mut self, i: usize, sq: Square, k: Known) {
        self.armies.insert((i, k));
        self.squares.insert(sq);
    }
}

fn by_viewer(s: Sightings) -> Sight {
    let mut out = Sight::default();
    for (k, i) in s.armies {
        push(&mut out.armies, k, i);
    }
    for (realm, sq) in s.cities {
        push(&mut out.cities, realm.to_string(), sq);
    }
    out
}

fn square_view(sq: Square, m: &MapSquare, dim: Dimension, portal: bool) -> SquareView {
    use crate::game::state::{EvilTerrain, Terrain};
    let (ground, owner) = match dim {
        Dimension::Normal => (
            match m.terrain {
                Terrain::Land => Ground::Land,
                Terrain::Sea => Ground::Sea,
            },
            m.owner.as_deref().map(str::to_string),
        ),
        Dimension::Evil => (
            match m.evil_terrain {
                EvilTerrain::Lava => Ground::Lava,
                EvilTerrain::Rock => Ground::Rock,
            },
            m.evil_owner.as_deref().map(str::to_string),
        ),
    };
    SquareView {
        square: sq,
        ground,
        owner,
        portal: portal && m.portal.is_some(),
        treasure: evil(dim) && m.treasure,
    }
}

fn city_view(c: &crate::game::state::City) -> CityView {
    CityView {
        square: c.square,
        name: c.name.clone(),
        owner: c.owner.to_string(),
        capital: c.capital,
        harbour: c.harbour,
        walls: c.walls,
    }
}

fn army_view(a: &crate::game::state::ArmyGroup, known: Known) -> GroupView {
    GroupView {
        owner: a.owner.to_string(),
        id: a.id,
        square: a.square,
        units: u32::try_from(a.units.len()).unwrap_or(u32::MAX),
        known,
    }
}

fn fleet_view(f: &crate::game::state::Fleet, known: Known) -> GroupView {
    GroupView {
        owner: f.owner.to_string(),
        id: f.id,
        square: f.square,
        units: u32::try_from(f.ships.len()).unwrap_or(u32::MAX),
        known,
    }
}

/// One entry per group (the first way it was known wins), and the realms drawn.
fn finish(mut v: MapView, viewer: Option<&str>) -> MapView {
    for list in [&mut v.armies, &mut v.fleets] {
        let mut once = BTreeSet::new();
        list.retain(|g| once.insert((g.owner.clone(), g.id)));
        list.sort_by(|a, b| (a.square, &a.owner, a.id).cmp(&(b.square, &b.owner, b.id)));
    }
    let mut realms: BTreeSet<&str> = BTreeSet::new();
    realms.extend(v.squares.iter().filter_map(|s| s.owner.as_deref()));
    realms.extend(v.cities.iter().map(|c| c.owner.as_str()));
    realms.extend(v.armies.iter().chain(&v.fleets).map(|g| g.owner.as_str()));
    let mut names: Vec<String> = Vec::with_capacity(realms.len());
    if let Some(me) = viewer {
        names.push(me.to_string());
    }
    names.extend(
        realms
            .into_iter()
            .filter(|r| Some(*r) != viewer)
            .map(str::to_string),
    );
    v.realms = names;
    v
}

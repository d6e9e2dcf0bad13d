//! Step 1: purchases (R-BUILD-4), in each form's line order, as the receipt promised.
//! Each order is checked again against the state at the weekend, priced from the cost
//! tables of `game::units`, and paid from the stock; one that no longer fits is
//! refused with a `Refused` event and costs nothing, and the lines below still get
//! their turn. New units and ships are placed as docs/rules.md, Rulings 13 says and
//! carry this round as `built_round`, so they cannot attack (R-UNIT-7).

use std::collections::BTreeSet;

use super::tally::{add_army, counts_but_armies, populations};
use super::{tell, Cap, EconomyEvent, Purchase, Why};
use crate::game::caps::{Over, Room};
use crate::game::event::Step;
use crate::game::hash::{FastMap, FastSet};
use crate::game::orders::{Amount, Order};
use crate::game::state::{
    ArmyGroup, City, Dimension, Fleet, Positions, Researched, Ship, Terrain, Unit, UnitCount, Units,
};
use crate::game::units::{build_cost, AgentKind};
use crate::game::weekend::{Reads, Weekend};
use crate::game::{GameState, Position, Resource, Resources, ShipKind, Square, UnitKind};

/// A refusal: the rule broken and why.
type Res<T> = Result<T, (&'static str, Why)>;

/// Where things are, found once for the whole step (indexes into the state's lists,
/// which step 1 only appends to).
#[derive(Default)]
struct Book {
    /// Normal-dimension cities by square.
    cities: FastMap<Square, usize>,
    /// Squares with a city in either dimension.
    city_squares: FastSet<Square>,
    /// Each realm's cities.
    realm_cities: FastMap<String, Vec<usize>>,
    /// The first army group of a realm on a square that is not aboard a fleet, on the
    /// squares where units can be bought this step (see `Book::new`).
    armies: Places,
    fleets: Places,
    /// The highest army group and fleet numbers per realm.
    army_ids: FastMap<String, u32>,
    fleet_ids: FastMap<String, u32>,
    /// By the realm's place in `GameState::realms`.
    counts: Vec<UnitCount>,
    population: Vec<u32>,
}

impl Book {
    /// `sites`: the squares where the forms found a city this step; the squares of the
    /// cities are added. Units are bought into a city only (Rulings 13), so the groups
    /// noted by square are those on a site: a few per realm, not every group. `noted`:
    /// what the weekend's copy noted of the groups (`GroupNotes`), read instead of the
    /// groups when it still describes them.
    fn new(gs: &GameState, mut sites: FastSet<Square>, noted: Option<GroupNotes>) -> Book {
        let mut b = Book {
            // The army groups are counted from the notes or in the pass over them.
            counts: counts_but_armies(gs),
            population: populations(gs),
            ..Book::default()
        };
        for (i, c) in gs.cities.iter().enumerate() {
            b.city_squares.insert(c.square);
            b.realm_cities
                .entry(c.owner.to_string())
                .or_default()
                .push(i);
            // A square holds a city in one dimension at most (land or rock), so the
            // Evil's cities are found here too.
            b.cities.insert(c.square, i);
            sites.insert(c.square);
        }
        let noted = noted.filter(|n| n.describe(gs, &sites));
        match &noted {
            Some(n) => b.armies_from(gs, n),
            None => b.armies_by_pass(gs, &sites),
        }
        #[cfg(debug_assertions)]
        if noted.is_some() {
            // The notes and the pass they replace agree (every test's weekend checks).
            let mut by_pass = Book {
                counts: counts_but_armies(gs),
                ..Book::default()
            };
            by_pass.armies_by_pass(gs, &sites);
            assert_eq!(b.counts, by_pass.counts, "the troops counted");
            assert_eq!(b.army_ids, by_pass.army_ids, "the highest group numbers");
            assert_eq!(b.armies, by_pass.armies, "the groups on the sites");
        }
        for (i, f) in gs.fleets.iter().enumerate() {
            highest(&mut b.fleet_ids, &f.owner, f.id);
            note(&mut b.fleets, &f.owner, f.square, i);
        }
        b
    }

    /// Each realm's troops and highest group number, and the groups on `sites`, from
    /// the notes of the weekend's copy.
    fn armies_from(&mut self, gs: &GameState, n: &GroupNotes) {
        for (k, (c, top)) in n.counts.iter().zip(&n.top).enumerate() {
            if c.army_groups == 0 {
                continue;
            }
            if let Some(mine) = self.counts.get_mut(k) {
                mine.army_units = mine.army_units.saturating_add(c.army_units);
                mine.elementals = mine.elementals.saturating_add(c.elementals);
                mine.army_groups = mine.army_groups.saturating_add(c.army_groups);
            }
            if let Some(r) = gs.realms.get(k) {
                highest(&mut self.army_ids, &r.name, *top);
            }
        }
        for &i in &n.on_sites {
            if let Some(a) = gs.armies.get(i) {
                note(&mut self.armies, &a.owner, a.square, i);
            }
        }
    }

    /// The same, by one pass over the groups.
    fn armies_by_pass(&mut self, gs: &GameState, sites: &FastSet<Square>) {
        let aboard = aboard(gs);
        // One owner's groups at a time (the list keeps them together), so each run
        // looks its realm up once, not once per group.
        let mut start = 0;
        while start < gs.armies.len() {
            let owner = gs.armies[start].owner.as_str();
            let run = gs.armies[start..]
                .iter()
                .take_while(|a| a.owner == owner)
                .count();
            let top = gs.armies[start..start + run].iter().map(|a| a.id).max();
            highest(&mut self.army_ids, owner, top.unwrap_or(0));
            if let Some(c) = gs.realm_index(owner).and_then(|k| self.counts.get_mut(k)) {
                for a in &gs.armies[start..start + run] {
                    add_army(c, a);
                }
            }
            for (i, a) in gs.armies.iter().enumerate().skip(start).take(run) {
                if sites.contains(&a.square) && !aboard.contains(&(owner, a.id)) {
                    note(&mut self.armies, owner, a.square, i);
                }
            }
            start += run;
        }
    }
}

/// The army groups aboard a fleet, as (owner, number).
fn aboard(gs: &GameState) -> FastSet<(&str, u32)> {
    gs.fleets
        .iter()
        .flat_map(|f| f.cargo.iter().map(move |id| (f.owner.as_str(), *id)))
        .collect()
}

/// The square where a line founds a city: with the cities' squares, where units can be
/// bought this step (the sites of `Book::new` and of the weekend copy's notes alike).
pub(crate) fn founded(o: &Order) -> Option<Square> {
    match o {
        Order::BuyCity { square, .. } => Some(*square),
        _ => None,
    }
}

/// What step 1 reads from every army group, noted while the weekend copies the groups
/// (`Weekend::new`): each realm's troops and highest group number, and the groups that
/// stand on a square where units can be bought. Step 1's own pass over the groups would
/// read a large game's groups back from memory; the copy has each one at hand. Step 1
/// reads the notes only when they still describe the groups (nothing before it adds,
/// removes or moves one; `describe` checks what it cheaply can, and in test builds
/// the pass is made as well and compared).
pub(crate) struct GroupNotes {
    /// By the realm's place in `realms`: its groups' troops as `add_army` counts them.
    counts: Vec<UnitCount>,
    /// By the realm's place: its highest group number.
    top: Vec<u32>,
    /// Places in `armies` of the groups on a site and not aboard a fleet, in order.
    on_sites: Vec<usize>,
    /// The sites the notes were taken for.
    sites: FastSet<Square>,
    /// The groups noted.
    groups: usize,
    /// Every group's owner was a realm.
    all_realms: bool,
}

impl GroupNotes {
    fn describe(&self, gs: &GameState, sites: &FastSet<Square>) -> bool {
        self.all_realms
            && self.groups == gs.armies.len()
            && self.counts.len() == gs.realms.len()
            && self.sites == *sites
    }
}

/// Takes the notes, group by group, as the weekend copies them.
pub(crate) struct GroupNoter<'s> {
    aboard: FastSet<(&'s str, u32)>,
    notes: GroupNotes,
}

impl<'s> GroupNoter<'s> {
    /// For the groups of `gs`, with `founding` the squares where the forms found a city.
    pub(crate) fn new(gs: &'s GameState, founding: impl IntoIterator<Item = Square>) -> Self {
        let mut sites: FastSet<Square> = founding.into_iter().collect();
        sites.extend(gs.cities.iter().map(|c| c.square));
        let none = UnitCount {
            army_units: 0,
            elementals: 0,
            ships: 0,
            spies: 0,
            army_groups: 0,
        };
        GroupNoter {
            aboard: aboard(gs),
            notes: GroupNotes {
                counts: vec![none; gs.realms.len()],
                top: vec![0; gs.realms.len()],
                on_sites: Vec::new(),
                sites,
                groups: 0,
                all_realms: true,
            },
        }
    }

    /// Group `i` of the list, whose owner is the realm at `place` (`None`: no realm's).
    pub(crate) fn note(&mut self, i: usize, a: &'s ArmyGroup, place: Option<usize>) {
        let n = &mut self.notes;
        n.groups += 1;
        let Some(k) = place.filter(|&k| k < n.counts.len()) else {
            n.all_realms = false;
            return;
        };
        add_army(&mut n.counts[k], a);
        n.top[k] = n.top[k].max(a.id);
        if n.sites.contains(&a.square) && !self.aboard.contains(&(a.owner.as_str(), a.id)) {
            n.on_sites.push(i);
        }
    }

    pub(crate) fn finish(self) -> GroupNotes {
        self.notes
    }
}

/// Places in the state's list of each realm's group by square (the first group there).
type Places = FastMap<String, FastMap<Square, usize>>;

fn place(m: &Places, realm: &str, sq: Square) -> Option<usize> {
    m.get(realm)?.get(&sq).copied()
}

/// Note group `i` on `sq` unless a group of the realm is noted there already.
fn note(m: &mut Places, realm: &str, sq: Square, i: usize) {
    let squares = match m.get_mut(realm) {
        Some(squares) => squares,
        None => m.entry(realm.to_string()).or_default(),
    };
    squares.entry(sq).or_insert(i);
}

/// Raise realm's highest group number to `id`.
fn highest(ids: &mut FastMap<String, u32>, realm: &str, id: u32) {
    match ids.get_mut(realm) {
        Some(top) => *top = (*top).max(id),
        None => {
            ids.insert(realm.to_string(), id);
        }
    }
}

/// What one realm's purchases have done so far this step (R-BUILD-2).
struct Run {
    realm: String,
    /// The realm's index in `GameState::realms`.
    idx: usize,
    round: u32,
    /// Forskare as the form found it: the upgrade-step limit (Rulings 9).
    step_limit: u32,
    steps: u32,
    positions: BTreeSet<Position>,
    production: BTreeSet<(Square, Resource)>,
    /// Counted units and population as the lines above left them.
    room: Room,
    book: Book,
}

pub(super) fn run(w: &mut Weekend) {
    let reading = w.reading(Reads::Purchases);
    let founding: FastSet<Square> = reading
        .forms()
        .flat_map(|lines| lines.orders())
        .filter_map(founded)
        .collect();
    let noted = w.group_notes.take();
    let mut book = Book::new(&w.state, founding, noted);
    for lines in reading.forms() {
        let form = lines.form;
        let found = w.state.realm_index(&form.realm);
        let Some(idx) = found.filter(|i| !w.state.realms[*i].eliminated) else {
            continue;
        };
        let r = &w.state.realms[idx];
        let mut run = Run {
            realm: r.name.clone(),
            idx,
            round: w.round(),
            step_limit: r.positions.forskare,
            steps: 0,
            positions: BTreeSet::new(),
            production: BTreeSet::new(),
            room: Room::of(
                &book.counts.get(idx).copied().unwrap_or(UnitCount {
                    army_units: 0,
                    elementals: 0,
                    ships: 0,
                    spies: 0,
                    army_groups: 0,
                }),
                book.population.get(idx).copied().unwrap_or(0),
            ),
            book,
        };
        for order in lines.orders() {
            let ev = match buy(&mut w.state, &mut run, order) {
                Ok((purchase, cost)) => EconomyEvent::Bought {
                    realm: run.realm.clone(),
                    purchase,
                    cost,
                },
                Err((rule, why)) => EconomyEvent::Refused {
                    realm: run.realm.clone(),
                    order: order.clone(),
                    rule: rule.to_string(),
                    why,
                },
            };
            tell(w, Step::Purchases, ev);
        }
        book = run.book;
    }
}

fn buy(gs: &mut GameState, run: &mut Run, o: &Order) -> Res<(Purchase, Resources)> {
    if count_of(o) == Some(0) {
        return Err(("R-BUILD-4", Why::Nothing));
    }
    match o {
        Order::BuyUnits { count, kind, city } => units(gs, run, *count, *kind, *city),
        Order::BuyShips { count, kind, city } => ships(gs, run, *count, *kind, *city),
        Order::BuySpies { count } => spies(gs, run, *count),
        Order::BuyWalls { count, city } => walls(gs, run, *count, *city),
        Order::BuyCity { square, production } => new_city(gs, run, *square, production),
        Order::BuyPopulation { count, city } => population(gs, run, *count, *city),
        Order::UpgradePosition { position, crystals } => {
            upgrade_position(gs, run, *position, crystals)
        }
        Order::UpgradeProduction { city, resource } => {
            upgrade_production(gs, run, *city, *resource)
        }
        Order::ConvertSlaves { count, resource } => convert(gs, run, *count, *resource),
        _ => Err(("R-PHASE-1", Why::NotAvailable)),
    }
}

/// How many an order buys, for the orders that say.
fn count_of(o: &Order) -> Option<u32> {
    match o {
        Order::BuyUnits { count, .. }
        | Order::BuyShips { count, .. }
        | Order::BuySpies { count }
        | Order::BuyWalls { count, .. }
        | Order::BuyPopulation { count, .. }
        | Order::ConvertSlaves { count, .. } => Some(*count),
        _ => None,
    }
}

/// `cost × k`, or `TooMany` when that is beyond any number.
fn times(cost: Resources, k: u32) -> Res<Resources> {
    let mut out = Resources::ZERO;
    for (r, n) in cost.iter() {
        out.set(r, n.checked_mul(k).ok_or(("R-BUILD-4", Why::TooMany))?);
    }
    Ok(out)
}

/// Take `cost` from the realm's stock, or refuse naming what is short.
fn pay(gs: &mut GameState, run: &Run, cost: Resources) -> Res<Resources> {
    let realm = &mut gs.realms[run.idx];
    match realm.stock.checked_sub(&cost) {
        Some(left) => {
            realm.stock = left;
            Ok(cost)
        }
        None => {
            let mut short = Resources::ZERO;
            for (r, n) in cost.iter() {
                short.set(r, n.saturating_sub(realm.stock.get(r)));
            }
            Err(("R-BUILD-4", Why::Short { cost, short }))
        }
    }
}

/// The index of `sq`, an own normal-dimension city.
fn own_city(gs: &GameState, run: &Run, sq: Square) -> Res<usize> {
    run.book
        .cities
        .get(&sq)
        .copied()
        .filter(|i| gs.cities[*i].owner == run.realm)
        .ok_or(("R-CITY-1", Why::NotOwnCity { city: sq }))
}

fn city_mut<'a>(gs: &'a mut GameState, run: &Run, sq: Square) -> Res<&'a mut City> {
    let i = own_city(gs, run, sq)?;
    Ok(&mut gs.cities[i])
}

/// Refuse when `have + add` would pass `limit`.
fn cap(rule: &'static str, cap: Cap, have: u32, add: u32, limit: u32) -> Res<()> {
    if have.saturating_add(add) > limit {
        return Err((
            rule,
            Why::Over {
                cap,
                have,
                add,
                limit,
            },
        ));
    }
    Ok(())
}

/// A cap passed (`game::caps`, shared with the receipt), as a refusal.
fn over(o: Over) -> (&'static str, Why) {
    let why = Why::Over {
        cap: o.cap,
        have: o.have,
        add: o.add,
        limit: o.limit,
    };
    (o.cap.rule(), why)
}

fn positions(gs: &GameState, run: &Run) -> Positions {
    gs.realms[run.idx].positions
}

fn units(
    gs: &mut GameState,
    run: &mut Run,
    count: u32,
    kind: UnitKind,
    city: Option<Square>,
) -> Res<(Purchase, Resources)> {
    let realm = &gs.realms[run.idx];
    if kind.is_demon() && !realm.is_evil {
        return Err(("R-EVIL-9", Why::EvilOnly));
    }
    if realm.is_evil && !kind.is_demon() {
        return Err(("R-EVIL-9", Why::DemonsOnly));
    }
    let sq = city.or(realm.capital).ok_or(("RULINGS 13", Why::NoCity))?;
    let unit = match kind.cost() {
        Some(c) => c,
        None if realm.researched.contains(&Researched::BeridnaBagskyttar) => gs
            .settings
            .research_costs
            .beridna_bagskyttar
            .ok_or(("RULINGS 41", Why::NotAvailable))?,
        None => return Err(("R-ENG-3", Why::NotAvailable)),
    };
    own_city(gs, run, sq)?;
    let pos = positions(gs, run);
    let group = place(&run.book.armies, &run.realm, sq);
    run.room
        .troops(&pos, count, kind, group.is_none())
        .map_err(over)?;
    let cost = pay(gs, run, times(unit, count)?)?;
    let new = Unit {
        kind,
        built_round: run.round,
    };
    let id = match group {
        Some(i) => {
            gs.armies[i].units.extend((0..count).map(|_| new));
            gs.armies[i].id
        }
        None => {
            let id = next_id(&mut run.book.army_ids, &run.realm);
            note(&mut run.book.armies, &run.realm, sq, gs.armies.len());
            gs.armies.push(ArmyGroup {
                id,
                owner: run.realm.as_str().into(),
                square: sq,
                dimension: gs.cities[own_city(gs, run, sq)?].dimension,
                units: Units::from_elem(new, count as usize),
                treasure: Default::default(),
                no_move_until_round: None,
            });
            id
        }
    };
    run.room.add_troops(count, kind, group.is_none());
    let purchase = Purchase::Units {
        count,
        unit: kind,
        city: sq,
        army: id,
    };
    Ok((purchase, cost))
}

/// The next free group number of `realm`, taken.
fn next_id(ids: &mut FastMap<String, u32>, realm: &str) -> u32 {
    let id = ids.entry(realm.to_string()).or_default();
    *id = id.saturating_add(1);
    *id
}

fn ships(
    gs: &mut GameState,
    run: &mut Run,
    count: u32,
    kind: ShipKind,
    city: Option<Square>,
) -> Res<(Purchase, Resources)> {
    let realm = &gs.realms[run.idx];
    if realm.is_evil {
        return Err(("R-EVIL-9", Why::DemonsOnly));
    }
    let sq = city
        .or(realm.main_harbour)
        .ok_or(("RULINGS 13", Why::NoCity))?;
    let unit = match kind.cost() {
        Some(c) => c,
        None if realm.researched.contains(&Researched::Fregatt) => gs
            .settings
            .research_costs
            .fregatt
            .ok_or(("RULINGS 41", Why::NotAvailable))?,
        None => return Err(("R-ENG-3", Why::NotAvailable)),
    };
    let i = own_city(gs, run, sq)?;
    if !gs.cities[i].coastal {
        return Err(("RULINGS 13", Why::NotCoastal { city: sq }));
    }
    run.room.ships(&positions(gs, run), count).map_err(over)?;
    let cost = pay(gs, run, times(unit, count)?)?;
    let new = Ship {
        kind,
        built_round: run.round,
    };
    let id = match place(&run.book.fleets, &run.realm, sq) {
        Some(i) => {
            gs.fleets[i].ships.extend((0..count).map(|_| new));
            gs.fleets[i].id
        }
        None => {
            let id = next_id(&mut run.book.fleet_ids, &run.realm);
            note(&mut run.book.fleets, &run.realm, sq, gs.fleets.len());
            gs.fleets.push(Fleet {
                id,
                owner: run.realm.as_str().into(),
                square: sq,
                dimension: Dimension::Normal,
                ships: vec![new; count as usize],
                cargo: Vec::new(),
                must_leave_by_round: None,
            });
            id
        }
    };
    run.room.add_ships(count);
    let purchase = Purchase::Ships {
        count,
        ship: kind,
        city: sq,
        fleet: id,
    };
    Ok((purchase, cost))
}

fn spies(gs: &mut GameState, run: &mut Run, count: u32) -> Res<(Purchase, Resources)> {
    if gs.realms[run.idx].is_evil {
        return Err(("R-EVIL-19", Why::NotAvailable));
    }
    run.room.spies(&positions(gs, run), count).map_err(over)?;
    let cost = pay(gs, run, times(AgentKind::Spion.cost(), count)?)?;
    let r = &mut gs.realms[run.idx];
    r.spies = r.spies.saturating_add(count);
    run.room.add_spies(count);
    Ok((Purchase::Spies { count }, cost))
}

fn walls(gs: &mut GameState, run: &Run, count: u32, sq: Square) -> Res<(Purchase, Resources)> {
    let c = city_mut(gs, run, sq)?;
    cap("R-WALL-3", Cap::Walls, c.walls, count, c.wall_cap())?;
    let cost = pay(gs, run, times(build_cost::wall(), count)?)?;
    let c = city_mut(gs, run, sq)?;
    c.walls = c.walls.saturating_add(count);
    Ok((Purchase::Walls { count, city: sq }, cost))
}

/// The sum of all amounts, or `None` past `u32::MAX` (player numbers).
fn total(r: &Resources) -> Option<u32> {
    r.iter().try_fold(0u32, |acc, (_, n)| acc.checked_add(n))
}

fn sum(v: &[Amount]) -> Res<Resources> {
    let mut r = Resources::ZERO;
    for a in v {
        let n = r.get(a.resource).checked_add(a.count);
        r.set(a.resource, n.ok_or(("R-CITY-2", Why::BadProduction))?);
    }
    Ok(r)
}

fn new_city(
    gs: &mut GameState,
    run: &mut Run,
    sq: Square,
    production: &[Amount],
) -> Res<(Purchase, Resources)> {
    let land = gs.map.get(sq).filter(|m| m.terrain == Terrain::Land);
    if land.and_then(|m| m.owner.as_deref()) != Some(run.realm.as_str()) {
        return Err(("RULINGS 27", Why::NotOwnLand { square: sq }));
    }
    if run.book.city_squares.contains(&sq) {
        return Err(("RULINGS 27", Why::CityThere { square: sq }));
    }
    let p = sum(production)?;
    let standard = &gs.realms[run.idx].standard;
    let fits = total(&p) == Some(10)
        && p.iter()
            .all(|(r, n)| n <= 5 && (n == 0 || standard.contains(&r)));
    if !fits {
        return Err(("R-CITY-2", Why::BadProduction));
    }
    let cost = pay(gs, run, build_cost::new_city())?;
    let coastal = gs.map.touches_sea(sq);
    let i = gs.cities.len();
    run.book.cities.insert(sq, i);
    run.book.city_squares.insert(sq);
    run.book
        .realm_cities
        .entry(run.realm.clone())
        .or_default()
        .push(i);
    run.room.population = run.room.population.saturating_add(10);
    gs.cities.push(City {
        square: sq,
        name: sq.to_string(),
        owner: run.realm.as_str().into(),
        dimension: Dimension::Normal,
        population: 10,
        production: p,
        walls: 0,
        capital: false,
        harbour: false,
        coastal,
        plundered: false,
    });
    let purchase = Purchase::City {
        square: sq,
        production: p,
    };
    Ok((purchase, cost))
}

fn population(
    gs: &mut GameState,
    run: &mut Run,
    count: u32,
    sq: Square,
) -> Res<(Purchase, Resources)> {
    own_city(gs, run, sq)?;
    let add = count.checked_mul(10).ok_or(("R-BUILD-1", Why::TooMany))?;
    let cost = pay(gs, run, times(build_cost::population(), count)?)?;
    run.room.population = run.room.population.saturating_add(add);
    let c = city_mut(gs, run, sq)?;
    c.population = c.population.saturating_add(add);
    let purchase = Purchase::Population {
        count,
        city: sq,
        population: c.population,
    };
    Ok((purchase, cost))
}

/// Rulings 9: one step per value or (city, resource), at most Forskare steps in all.
fn step(run: &Run) -> Res<()> {
    if run.steps >= run.step_limit {
        return Err((
            "RULINGS 9",
            Why::StepLimit {
                limit: run.step_limit,
            },
        ));
    }
    Ok(())
}

/// The five crystals: the buyer's choice, or from the stock in resource order.
fn crystals(gs: &GameState, run: &Run, chosen: &[Amount]) -> Res<Resources> {
    let want = build_cost::POSITION_CRYSTALS;
    if !chosen.is_empty() {
        let c = sum(chosen)?;
        if total(&c) != Some(want) || c.iter().any(|(r, n)| n > 0 && !r.is_crystal()) {
            return Err(("R-BUILD-1", Why::NotAvailable));
        }
        return Ok(c);
    }
    // Only a form stored before the receipt wrote its choice into the order (or
    // orders given without a receipt) names none: the same choice, from this stock.
    Ok(build_cost::position_crystals(&gs.realms[run.idx].stock)
        .unwrap_or_else(|| Resources::from_pairs(&[(Resource::Eld, want)])))
}

fn upgrade_position(
    gs: &mut GameState,
    run: &mut Run,
    position: Position,
    chosen: &[Amount],
) -> Res<(Purchase, Resources)> {
    if run.positions.contains(&position) {
        return Err(("R-POS-2", Why::OneStep));
    }
    step(run)?;
    let cost = build_cost::position_fixed().plus(&crystals(gs, run, chosen)?);
    let cost = pay(gs, run, cost)?;
    run.positions.insert(position);
    run.steps += 1;
    let v = gs.realms[run.idx].positions.get_mut(position);
    *v = v.saturating_add(1);
    let value = *v;
    Ok((Purchase::Position { position, value }, cost))
}

fn upgrade_production(
    gs: &mut GameState,
    run: &mut Run,
    sq: Square,
    resource: Resource,
) -> Res<(Purchase, Resources)> {
    own_city(gs, run, sq)?;
    if run.production.contains(&(sq, resource)) {
        return Err(("R-BUILD-2", Why::OneStep));
    }
    step(run)?;
    let cost = if resource.is_ordinary() {
        build_cost::production_ordinary()
    } else {
        build_cost::production_slave_or_crystal()
    };
    let cost = pay(gs, run, cost)?;
    run.production.insert((sq, resource));
    run.steps += 1;
    let c = city_mut(gs, run, sq)?;
    let v = c.production.get(resource).saturating_add(1);
    c.production.set(resource, v);
    let purchase = Purchase::Production {
        city: sq,
        resource,
        value: v,
    };
    Ok((purchase, cost))
}

/// Rulings 2: one slave for one unit of an ordinary resource some own city produces.
fn convert(
    gs: &mut GameState,
    run: &Run,
    count: u32,
    resource: Resource,
) -> Res<(Purchase, Resources)> {
    let cities = run.book.realm_cities.get(&run.realm);
    let produces = cities.is_some_and(|v| {
        v.iter()
            .any(|i| gs.cities[*i].owner == run.realm && gs.cities[*i].production.get(resource) > 0)
    });
    if !resource.is_ordinary() || !produces {
        return Err(("RULINGS 2", Why::NotProduced { resource }));
    }
    let cost = pay(gs, run, Resources::from_pairs(&[(Resource::Slavar, count)]))?;
    let r = &mut gs.realms[run.idx];
    let n = r.stock.get(resource).saturating_add(count);
    r.stock.set(resource, n);
    Ok((Purchase::SlavesConverted { count, resource }, cost))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::weekend::economy::tally::unit_counts;
    use crate::game::weekend::Orders;
    use crate::game::Name;

    /// The book counts each realm's troops in its pass over the groups, as the tally
    /// does, whether the groups come owner by owner or an owner's come in two runs.
    #[test]
    fn the_book_counts_each_realms_troops_as_the_tally_does() {
        let mut gs = crate::game::load_scenario(include_str!("../../../../scenarios/demo.yaml"))
            .expect("demo");
        let first = gs.armies.remove(0);
        gs.armies.push(first);
        let book = Book::new(&gs, FastSet::default(), None);
        let tally = unit_counts(&gs);
        assert_eq!(book.counts, tally);
        assert!(tally.iter().filter(|c| c.army_groups > 0).count() >= 2);
    }

    fn demo() -> GameState {
        crate::game::load_scenario(include_str!("../../../../scenarios/demo.yaml")).expect("demo")
    }

    /// A city founded on a square where a group stands: the notes must hold that group.
    fn founding_where_a_group_stands(gs: &GameState) -> (Orders, Square) {
        let a = gs
            .armies
            .iter()
            .find(|a| gs.cities.iter().all(|c| c.square != a.square))
            .expect("a group off the cities");
        let form = crate::game::weekend::FormOrders {
            realm: a.owner.to_string(),
            received_at: chrono::DateTime::UNIX_EPOCH,
            orders: vec![Order::BuyCity {
                square: a.square,
                production: Vec::new(),
            }],
        };
        let orders = Orders { forms: vec![form] };
        (orders, a.square)
    }

    /// What the weekend's copy notes of the groups describes them at step 1, and gives
    /// the book step 1's own pass would: troops, highest numbers and the groups on the
    /// sites, a founded city's square among them.
    #[test]
    fn the_copys_notes_give_the_book_the_pass_over_the_groups_gives() {
        let gs = demo();
        let (orders, founded) = founding_where_a_group_stands(&gs);
        let mut w = Weekend::new(&gs, &orders, &gs.settings, 1);
        let notes = w.group_notes.take().expect("noted as copied");
        let founding: FastSet<Square> = [founded].into_iter().collect();
        let mut sites = founding.clone();
        sites.extend(w.state.cities.iter().map(|c| c.square));
        assert!(notes.describe(&w.state, &sites));
        let on_founded = notes.on_sites.iter().map(|&i| &w.state.armies[i]);
        assert_eq!(on_founded.filter(|a| a.square == founded).count(), 1);
        let noted = Book::new(&w.state, founding.clone(), Some(notes));
        let by_pass = Book::new(&w.state, founding, None);
        assert_eq!(noted.counts, by_pass.counts);
        assert_eq!(noted.army_ids, by_pass.army_ids);
        assert_eq!(noted.armies, by_pass.armies);
        assert!(noted.armies.values().map(FastMap::len).sum::<usize>() >= 2);
    }

    /// Notes that no longer describe the groups (one gone, the sites not those noted
    /// for, an owner that is no realm's) are not read.
    #[test]
    fn notes_that_no_longer_describe_the_groups_are_not_read() {
        let gs = demo();
        let (orders, founded) = founding_where_a_group_stands(&gs);
        let sites_of = |w: &Weekend, founding: &[Square]| {
            let mut sites: FastSet<Square> = founding.iter().copied().collect();
            sites.extend(w.state.cities.iter().map(|c| c.square));
            sites
        };
        let mut w = Weekend::new(&gs, &orders, &gs.settings, 1);
        let notes = w.group_notes.take().expect("noted");
        assert!(!notes.describe(&w.state, &sites_of(&w, &[])), "other sites");
        w.state.armies.pop();
        assert!(
            !notes.describe(&w.state, &sites_of(&w, &[founded])),
            "a group gone"
        );
        let mut stray = gs.clone();
        stray.armies[0].owner = Name::from("Ingen");
        let mut w = Weekend::new(&stray, &orders, &stray.settings, 1);
        let notes = w.group_notes.take().expect("noted");
        assert!(
            !notes.describe(&w.state, &sites_of(&w, &[founded])),
            "no realm's group"
        );
    }
}

//! View models for the templates. All arithmetic, lookups, column padding
//! and word wrapping happen here so the templates stay dumb: they hold the
//! prose and headings of one language and print these fields. Reads the
//! state; never changes it.

use serde::Serialize;

use crate::game::event::Event;
use crate::game::hash::FastMap;
use crate::game::state::{
    ArmyGroup, City, Dimension, Fleet, GameState, GroupRef, HomeInvitation, MapSquare, Realm,
    SpyState, StationedSpy, UnitCount,
};
use crate::game::text::{wrap, wrap_items, WIDTH};
use crate::game::units::{Position, ShipKind};
use crate::game::{Lang, Resource, Resources, Square};

/// Per-call data for the result form that is not in the state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormContext {
    /// The form deadline in the game's time zone, already in words, e.g.
    /// `söndag 29 november 2026 15:00`.
    pub deadline_local: String,
    /// When forms are taken, the window's opening to that deadline, in words, e.g.
    /// `lördag 28 november 00:00 – söndag 29 november 15:00 (Europe/Stockholm)`
    /// ([`crate::schedule::describe_span`]); empty: the form gives the deadline alone.
    pub window_local: String,
    /// Where forms are sent (`sl@game.test`).
    pub game_address: String,
    /// Name every other realm when there are at most this many (`render.realms_listed`
    /// for Monday forms and reminders); beyond, give their number and the realm's
    /// neighbours. `None`: name them all, whatever their number (opening forms).
    pub realms_listed: Option<usize>,
}

/// Everything the result form template prints.
#[derive(Debug, Clone, Serialize)]
pub struct FormView {
    pub game: String,
    pub realm: String,
    pub round: u32,
    pub deadline: String,
    /// When forms are taken (empty: the deadline alone is given).
    pub window: String,
    pub game_address: String,
    pub subject: String,
    pub rule: String,
    pub stock_rows: Vec<String>,
    pub prod_header: String,
    pub prod_rows: Vec<String>,
    pub prod_total: String,
    pub positions: Vec<PositionRow>,
    pub population: PopulationView,
    pub armies: Vec<ArmyView>,
    pub has_armies: bool,
    pub fleets: Vec<FleetView>,
    pub has_fleets: bool,
    pub city_rows: Vec<String>,
    pub spies: SpyView,
    pub friends: String,
    pub mutual: String,
    pub others: String,
    pub invitations: Vec<String>,
    pub has_invitations: bool,
    /// Recalls (R-INV-8) the realm has sent, for the coming weekend.
    pub home_invitations: Vec<String>,
    pub vp: i64,
    pub victory_vp: i64,
    pub next_threshold: i64,
    pub mission_lines: Vec<String>,
    pub mission_done: bool,
    pub trade_buy: String,
    pub trade_sell: String,
    pub bonuses: Vec<String>,
    pub has_bonuses: bool,
    pub portals: Vec<String>,
    pub has_portals: bool,
    pub free_merchant: String,
    pub has_free_merchant: bool,
    /// Troops won from the free merchants that wait for `PLACE` (R-FREE-9).
    pub unplaced: String,
    pub has_unplaced: bool,
    pub last_weekend: Vec<String>,
    pub has_last_weekend: bool,
    pub examples: Examples,
}

/// One position value and what it allows.
#[derive(Debug, Clone, Serialize)]
pub struct PositionRow {
    /// Title padded to a fixed column, value right-aligned.
    pub label: String,
    pub key: &'static str,
    pub value: u32,
    /// The cap or allowance the value gives.
    pub cap: u32,
    /// What the realm has (or has used) of it.
    pub have: u32,
    pub over: bool,
    pub is_amiral: bool,
    pub is_befalhavare: bool,
    pub is_besvarjare: bool,
    pub is_informator: bool,
    pub is_forskare: bool,
    pub is_skattmastare: bool,
    pub is_sprakror: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct PopulationView {
    pub total: u32,
    pub cap: u32,
    pub counted: u32,
    pub army_units: u32,
    pub ships: u32,
    pub spies: u32,
    pub over: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArmyView {
    pub id: u32,
    pub square: String,
    /// ` (Genborg)` when in a city, else empty.
    pub place: String,
    pub units: u32,
    pub unit_attack: u32,
    pub unit_defence: u32,
    pub commander: u32,
    pub attack: u32,
    pub defence: u32,
    pub movement: u32,
    pub lines: Vec<String>,
    pub evil_dimension: bool,
    /// Fleet id it is aboard, 0 when on land.
    pub aboard: u32,
    pub new_units: u32,
    pub treasure: String,
    pub has_treasure: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct FleetView {
    pub id: u32,
    pub square: String,
    pub place: String,
    pub ship_attack: u32,
    pub admiral: u32,
    pub attack: u32,
    pub defence: u32,
    pub movement: u32,
    pub lines: Vec<String>,
    pub cargo: String,
    pub has_cargo: bool,
    pub load: u32,
    pub capacity: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct SpyView {
    pub held: u32,
    pub cap: u32,
    pub stationed: Vec<String>,
    pub has_stationed: bool,
}

/// The order reminder's example orders: each one an order the realm could give on
/// this form as it stands (`every_example_order_of_an_opening_form_is_accepted_for_that_realm`),
/// rendered in the realm's language.
#[derive(Debug, Clone, Serialize)]
pub struct Examples {
    pub lines: Vec<String>,
}

/// The state and a weekend's events arranged by realm, once: every realm's form built
/// from it costs that realm's share of the game, not the whole game again
/// (docs/dev/benchmarks.md). Lookups give what a scan of the state's lists would find first.
pub struct FormIndex<'a> {
    pub state: &'a GameState,
    events: &'a [Event],
    /// Each realm's place in `state.realms` (the first of a name).
    realms: FastMap<&'a str, usize>,
    armies: FastMap<&'a str, Vec<&'a ArmyGroup>>,
    fleets: FastMap<&'a str, Vec<&'a Fleet>>,
    cities: FastMap<&'a str, Vec<&'a City>>,
    cities_on: FastMap<Square, Vec<&'a City>>,
    army: FastMap<(&'a str, u32), &'a ArmyGroup>,
    /// (owner, army) → the first of the owner's fleets carrying it.
    aboard: FastMap<(&'a str, u32), u32>,
    spies: FastMap<&'a str, Vec<&'a StationedSpy>>,
    home_invitations: FastMap<&'a str, Vec<&'a HomeInvitation>>,
    portals: Vec<(Square, &'a MapSquare)>,
    seen: FastMap<&'a str, Vec<usize>>,
    roll: Roll<'a>,
    /// Each realm's neighbours by place in `state.realms`, found when a form first asks
    /// (only in a game with more realms than a form names).
    neighbours: std::sync::OnceLock<Vec<Vec<usize>>>,
}

/// The realms still in the game, joined by ", " once, with where each name stands in
/// the text: a form lists every realm but its own, so each form copies the text less
/// its own name instead of going over every realm again.
struct Roll<'a> {
    /// How many realms `joined` names.
    count: usize,
    joined: String,
    /// Each name's bytes in `joined`; `None` for a name listed twice (the form then
    /// goes over the realms as before).
    at: FastMap<&'a str, Option<(usize, usize)>>,
}

impl<'a> Roll<'a> {
    fn of(state: &'a GameState) -> Roll<'a> {
        let mut roll = Roll {
            count: 0,
            joined: String::new(),
            at: FastMap::default(),
        };
        for r in state.realms.iter().filter(|r| !r.eliminated) {
            roll.count += 1;
            if !roll.joined.is_empty() {
                roll.joined.push_str(", ");
            }
            let start = roll.joined.len();
            roll.joined.push_str(&r.name);
            let range = (start, roll.joined.len());
            roll.at
                .entry(r.name.as_str())
                .and_modify(|e| *e = None)
                .or_insert(Some(range));
        }
        roll
    }

    /// How many listed realms are not `name`.
    fn others(&self, name: &str) -> usize {
        self.count - usize::from(self.at.contains_key(name))
    }

    /// Every listed realm but `name`, in the state's order, joined by ", ".
    fn without(&self, state: &GameState, name: &str) -> String {
        let (start, end) = match self.at.get(name) {
            None => return self.joined.clone(),
            Some(Some(range)) => *range,
            Some(None) => {
                let others = state
                    .realms
                    .iter()
                    .filter(|r| r.name != name && !r.eliminated);
                return others
                    .map(|r| r.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
            }
        };
        let (before, after) = (&self.joined[..start], &self.joined[end..]);
        match (before.strip_suffix(", "), after.strip_prefix(", ")) {
            // Not the first: drop the separator before it.
            (Some(before), _) => [before, after].concat(),
            // The first: drop the separator after it.
            (None, Some(after)) => after.to_string(),
            // The only one.
            (None, None) => String::new(),
        }
    }
}

/// How far a neighbour's land may lie from a realm's: three squares in any direction.
pub const NEAR: u16 = 3;

/// Every realm's neighbours (see `FormIndex::neighbours`) by place in `state.realms`.
/// The map's holders are laid out once as realm places, column by column within each
/// row; then only the squares at the edge of a realm's land (one of the eight around
/// is not its) look [`NEAR`] squares around: any square within `NEAR` of a square
/// inside the land is within `NEAR` of the last square of that land on the way to it.
fn neighbours_of(state: &GameState) -> Vec<Vec<usize>> {
    const NONE: u32 = u32::MAX;
    let mut place: FastMap<&str, u32> = FastMap::default();
    for (r, i) in state.realms.iter().zip(0u32..) {
        if !r.eliminated {
            // The first realm of a name, as `FormIndex::realm` finds it.
            place.entry(r.name.as_str()).or_insert(i);
        }
    }
    let map = &state.map;
    let (w, h) = (usize::from(map.width), usize::from(map.height));
    let at = |col: usize, row: usize| (row - 1) * w + col;
    let mut holder = vec![NONE; w * h];
    // Squares side by side mostly share a holder: its name is looked up once a run.
    let mut last: Option<(&str, u32)> = None;
    for (sq, m) in map.squares.iter() {
        let (col, row) = (usize::from(sq.col()), usize::from(sq.row()));
        let Some(owner) = m.owner.as_deref() else {
            continue;
        };
        if col >= w || row == 0 || row > h {
            continue;
        }
        let k = match last {
            Some((name, k)) if name == owner => k,
            _ => {
                let k = place.get(owner).copied().unwrap_or(NONE);
                last = Some((owner, k));
                k
            }
        };
        holder[at(col, row)] = k;
    }
    let mut found: Vec<Vec<usize>> = vec![Vec::new(); state.realms.len()];
    let around = |col: usize, row: usize, d: usize| {
        let cols = col.saturating_sub(d)..=(col + d).min(w - 1);
        let rows = row.saturating_sub(d).max(1)..=(row + d).min(h);
        rows.flat_map(move |r| cols.clone().map(move |c| (c, r)))
    };
    for row in 1..=h {
        for col in 0..w {
            let i = holder[at(col, row)];
            if i == NONE {
                continue;
            }
            let inside = col > 0
                && col + 1 < w
                && row > 1
                && row < h
                && around(col, row, 1).all(|(c, r)| holder[at(c, r)] == i);
            if inside {
                continue;
            }
            let near = &mut found[i as usize];
            for (c, r) in around(col, row, usize::from(NEAR)) {
                let k = holder[at(c, r)];
                if k != NONE && k != i && near.last() != Some(&(k as usize)) {
                    near.push(k as usize);
                }
            }
        }
    }
    for ks in &mut found {
        ks.sort_unstable();
        ks.dedup();
    }
    found
}

fn group_by<'a, T>(items: &'a [T], key: impl Fn(&'a T) -> &'a str) -> FastMap<&'a str, Vec<&'a T>> {
    let mut out: FastMap<&str, Vec<&T>> = FastMap::default();
    for t in items {
        out.entry(key(t)).or_default().push(t);
    }
    out
}

impl<'a> FormIndex<'a> {
    /// Arrange `state` and the weekend's `events` (empty for a form without a report).
    pub fn new(state: &'a GameState, events: &'a [Event]) -> FormIndex<'a> {
        let mut realms = FastMap::default();
        for (i, r) in state.realms.iter().enumerate() {
            realms.entry(r.name.as_str()).or_insert(i);
        }
        let mut army = FastMap::default();
        for a in &state.armies {
            army.entry((a.owner.as_str(), a.id)).or_insert(a);
        }
        let mut aboard = FastMap::default();
        for f in &state.fleets {
            for c in &f.cargo {
                aboard.entry((f.owner.as_str(), *c)).or_insert(f.id);
            }
        }
        let mut cities_on: FastMap<Square, Vec<&City>> = FastMap::default();
        for c in &state.cities {
            cities_on.entry(c.square).or_default().push(c);
        }
        let portals = state.map.squares.iter();
        FormIndex {
            state,
            events,
            realms,
            armies: group_by(&state.armies, |a| a.owner.as_str()),
            fleets: group_by(&state.fleets, |f| f.owner.as_str()),
            cities: group_by(&state.cities, |c| c.owner.as_str()),
            cities_on,
            army,
            aboard,
            spies: group_by(&state.spies, |s| s.owner.as_str()),
            home_invitations: group_by(&state.home_invitations, |h| h.realm.as_str()),
            portals: portals.filter(|(_, m)| m.portal.is_some()).collect(),
            seen: crate::render::weekend::seen_by_realm(events),
            roll: Roll::of(state),
            neighbours: std::sync::OnceLock::new(),
        }
    }

    /// The realms still in the game with land within [`NEAR`] squares of `name`'s, in
    /// the state's order.
    pub fn neighbours(&self, name: &str) -> Vec<&'a str> {
        let all = self.neighbours.get_or_init(|| neighbours_of(self.state));
        let state = self.state;
        let near = self.realms.get(name).and_then(|&i| all.get(i));
        near.map_or(Vec::new(), |ks| {
            ks.iter().map(|&k| state.realms[k].name.as_str()).collect()
        })
    }

    pub fn realm(&self, name: &str) -> Option<&'a Realm> {
        self.realms.get(name).map(|&i| &self.state.realms[i])
    }

    fn list<'m, T>(map: &'m FastMap<&'a str, Vec<&'a T>>, name: &str) -> &'m [&'a T] {
        map.get(name).map_or(&[], Vec::as_slice)
    }

    pub fn armies(&self, name: &str) -> &[&'a ArmyGroup] {
        Self::list(&self.armies, name)
    }

    pub fn fleets(&self, name: &str) -> &[&'a Fleet] {
        Self::list(&self.fleets, name)
    }

    pub fn cities(&self, name: &str) -> &[&'a City] {
        Self::list(&self.cities, name)
    }

    pub fn city_at(&self, sq: Square, dim: Dimension) -> Option<&'a City> {
        let on = self.cities_on.get(&sq).map_or(&[][..], Vec::as_slice);
        on.iter().find(|c| c.dimension == dim).copied()
    }

    /// What `GameState::counted_units` says, from the realm's own lists.
    pub fn counted_units(&self, name: &str) -> UnitCount {
        let armies = self.armies(name);
        let army_units = armies.iter().map(|a| a.units.len() as u32).sum();
        let elementals = armies
            .iter()
            .flat_map(|a| a.units.iter())
            .filter(|u| u.kind.is_elemental())
            .count() as u32;
        let ships = self.fleets(name).iter().map(|f| f.ships.len() as u32).sum();
        let held = self.realm(name).map_or(0, |r| r.spies);
        let out = Self::list(&self.spies, name)
            .iter()
            .filter(|s| s.state == SpyState::Waiting)
            .count() as u32;
        UnitCount {
            army_units,
            elementals,
            ships,
            spies: held + out,
            army_groups: armies.len() as u32,
        }
    }

    /// The weekend's events `name` may know, in order.
    fn seen_by(&self, name: &str) -> impl Iterator<Item = &'a Event> + '_ {
        let which = self.seen.get(name).map_or(&[][..], Vec::as_slice);
        which.iter().map(|&i| &self.events[i])
    }
}

impl FormView {
    /// The view of `realm` with the "last weekend" section told from the weekend's
    /// `events` (only those the realm may know, in its language), after the GM's
    /// entries; `None` when the realm does not exist.
    pub fn build_with_weekend(
        state: &GameState,
        name: &str,
        ctx: &FormContext,
        events: &[Event],
    ) -> Option<FormView> {
        Self::build_in(&FormIndex::new(state, events), name, ctx)
    }

    /// Build the view of `realm`; `None` when the realm does not exist.
    pub fn build(state: &GameState, name: &str, ctx: &FormContext) -> Option<FormView> {
        Self::build_in(&FormIndex::new(state, &[]), name, ctx)
    }

    /// Build the view of `realm` from an index of the state and the weekend (the
    /// "last weekend" section tells the index's events after the GM's entries).
    pub fn build_in(ix: &FormIndex, name: &str, ctx: &FormContext) -> Option<FormView> {
        let mut view = Self::build_plain(ix, name, ctx)?;
        let (state, lang) = (ix.state, ix.realm(name)?.language);
        let lines = crate::render::weekend::lines_of(ix.seen_by(name), state, name, lang);
        view.last_weekend
            .extend(lines.iter().flat_map(|l| wrap(l, WIDTH, 2)));
        view.has_last_weekend = !view.last_weekend.is_empty();
        Some(view)
    }

    fn build_plain(ix: &FormIndex, name: &str, ctx: &FormContext) -> Option<FormView> {
        let state = ix.state;
        let realm = ix.realm(name)?;
        let v = Of {
            state,
            ix,
            realm,
            name,
            lang: realm.language,
        };
        let lang = v.lang;
        let cities: Vec<&City> = ix.cities(name).to_vec();
        let production = cities
            .iter()
            .fold(Resources::ZERO, |acc, c| acc.plus(&c.production));
        let count = ix.counted_units(name);
        let (prod_header, prod_rows, prod_total) = v.production_table(&cities, &production);
        let armies = v.armies();
        let fleets = v.fleets();
        let (friends, mutual, others) = v.relations(ctx.realms_listed);
        let invitations = v.invitations();
        let bonuses = v.bonuses();
        let portals = v.portals();
        let free_merchant = v.free_merchant();
        let unplaced = v.unplaced();
        let last_weekend = v.last_weekend();
        let step = state.settings.vp_threshold_step.max(1);
        Some(FormView {
            game: state.game.name.clone(),
            realm: realm.name.clone(),
            round: state.round,
            deadline: ctx.deadline_local.clone(),
            window: ctx.window_local.clone(),
            game_address: ctx.game_address.clone(),
            subject: match lang {
                Lang::Sv => format!("{} formulär", realm.name),
                Lang::En => format!("{} form", realm.name),
            },
            rule: "=".repeat(WIDTH),
            stock_rows: v.stock_rows(&production),
            prod_header,
            prod_rows,
            prod_total,
            positions: v.positions(&count),
            population: v.population(&count),
            has_armies: !armies.is_empty(),
            armies,
            has_fleets: !fleets.is_empty(),
            fleets,
            city_rows: cities.iter().map(|c| v.city_row(c)).collect(),
            spies: v.spies(),
            friends,
            mutual,
            others,
            has_invitations: !invitations.is_empty(),
            invitations,
            home_invitations: v.home_invitations(),
            vp: realm.vp,
            victory_vp: state.settings.victory_vp,
            next_threshold: (realm.vp.div_euclid(step) + 1) * step,
            mission_lines: wrap(&realm.mission, WIDTH, 2),
            mission_done: realm.mission_done,
            trade_buy: v.list_or_none(names(&realm.trade_wishes.buy, lang)),
            trade_sell: v.list_or_none(names(&realm.trade_wishes.sell, lang)),
            has_bonuses: !bonuses.is_empty(),
            bonuses,
            has_portals: !portals.is_empty(),
            portals,
            has_free_merchant: !free_merchant.is_empty(),
            free_merchant,
            has_unplaced: !unplaced.is_empty(),
            unplaced,
            has_last_weekend: !last_weekend.is_empty(),
            last_weekend,
            examples: v.examples(&cities),
        })
    }
}

/// One realm's view of the state, for building its form section by section.
struct Of<'a> {
    state: &'a GameState,
    ix: &'a FormIndex<'a>,
    realm: &'a Realm,
    name: &'a str,
    lang: Lang,
}

impl Of<'_> {
    /// Stock and production per resource.
    fn stock_rows(&self, production: &Resources) -> Vec<String> {
        Resource::ALL
            .iter()
            .map(|&r| {
                format!(
                    "{:<14}{:>7}{:>12}",
                    starred(self.realm, r, self.lang),
                    self.realm.stock.get(r),
                    production.get(r)
                )
            })
            .collect()
    }

    /// The production table: header, one row per city, the total.
    fn production_table(
        &self,
        cities: &[&City],
        production: &Resources,
    ) -> (String, Vec<String>, String) {
        let lang = self.lang;
        let header = format!(
            "{:<18}{}",
            "",
            Resource::ALL
                .iter()
                .map(|r| format!("{:>4}", r.abbrev(lang)))
                .collect::<String>()
        );
        let row = |label: &str, p: &Resources| {
            format!(
                "{:<18}{}",
                clip(label, 17),
                Resource::ALL
                    .iter()
                    .map(|&r| match p.get(r) {
                        0 => format!("{:>4}", "."),
                        n => format!("{n:>4}"),
                    })
                    .collect::<String>()
            )
        };
        let rows = cities
            .iter()
            .map(|c| row(&format!("{} {}", c.square, c.name), &c.production))
            .collect();
        let total = row(
            match lang {
                Lang::Sv => "Summa",
                Lang::En => "Total",
            },
            production,
        );
        (header, rows, total)
    }

    /// Each position value with the cap it gives and what is used of it.
    fn positions(&self, count: &UnitCount) -> Vec<PositionRow> {
        let pos = self.realm.positions;
        Position::ALL
            .iter()
            .map(|&p| {
                let value = pos.get(p);
                let (cap, have) = match p {
                    Position::Amiral => (5 * value, count.ships),
                    Position::Befalhavare => (2 * value, count.army_groups),
                    Position::Besvarjare => (3 * value, count.elementals),
                    Position::Informator => (value, count.spies),
                    Position::Forskare => (value, 0),
                    Position::Skattmastare => (value, self.realm.sent.merchants),
                    Position::Sprakror => (value, self.realm.sent.envoys),
                };
                PositionRow {
                    label: format!("{:<14}{:>3}", p.name(self.lang), value),
                    key: key_of(p),
                    value,
                    cap,
                    have,
                    over: have > cap,
                    is_amiral: p == Position::Amiral,
                    is_befalhavare: p == Position::Befalhavare,
                    is_besvarjare: p == Position::Besvarjare,
                    is_informator: p == Position::Informator,
                    is_forskare: p == Position::Forskare,
                    is_skattmastare: p == Position::Skattmastare,
                    is_sprakror: p == Position::Sprakror,
                }
            })
            .collect()
    }

    /// Population and the units it must carry.
    fn population(&self, count: &UnitCount) -> PopulationView {
        let total = self.ix.cities(self.name).iter().map(|c| c.population).sum();
        PopulationView {
            total,
            cap: total / 10,
            counted: count.counted(),
            army_units: count.army_units,
            ships: count.ships,
            spies: count.spies,
            over: count.counted() > total / 10,
        }
    }

    /// ` (Genborg)` when a city stands on `sq`, else empty.
    fn city_name(&self, sq: Square, dim: Dimension) -> String {
        self.ix
            .city_at(sq, dim)
            .map(|c| format!(" ({})", clip(&c.name, 20)))
            .unwrap_or_default()
    }

    fn armies(&self) -> Vec<ArmyView> {
        let (state, lang) = (self.state, self.lang);
        let commander = self.realm.positions.befalhavare;
        self.ix
            .armies(self.name)
            .iter()
            .map(|a| {
                let items: Vec<String> = runs(a.units.iter().map(|u| u.kind))
                    .iter()
                    .map(|(k, n)| k.count_text(*n, lang))
                    .collect();
                ArmyView {
                    id: a.id,
                    square: a.square.to_string(),
                    place: self.city_name(a.square, a.dimension),
                    units: a.units.len() as u32,
                    unit_attack: a.unit_attack(),
                    unit_defence: a.unit_defence(),
                    commander,
                    attack: a.unit_attack() + commander,
                    defence: a.unit_defence() + commander,
                    movement: a.movement(state.settings.group_movement),
                    lines: wrap_items(&items, WIDTH, 4),
                    evil_dimension: a.dimension == Dimension::Evil,
                    aboard: self.ix.aboard.get(&(self.name, a.id)).copied().unwrap_or(0),
                    new_units: a
                        .units
                        .iter()
                        .filter(|u| u.built_round == state.round)
                        .count() as u32,
                    treasure: a.treasure.amount().describe(lang),
                    has_treasure: !a.treasure.is_zero(),
                }
            })
            .collect()
    }

    fn fleets(&self) -> Vec<FleetView> {
        let (state, lang, name) = (self.state, self.lang, self.name);
        let admiral = self.realm.positions.amiral;
        self.ix
            .fleets(name)
            .iter()
            .map(|f| {
                let items: Vec<String> = runs(f.ships.iter().map(|s| s.kind))
                    .iter()
                    .map(|(k, n): &(ShipKind, usize)| k.count_text(*n, lang))
                    .collect();
                let load: u32 = f
                    .cargo
                    .iter()
                    .filter_map(|id| self.ix.army.get(&(name, *id)))
                    .map(|a| a.units.len() as u32)
                    .sum();
                let army_word = match lang {
                    Lang::Sv => "armé",
                    Lang::En => "army",
                };
                let cargo = f
                    .cargo
                    .iter()
                    .map(|id| format!("{army_word} {id}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                FleetView {
                    id: f.id,
                    square: f.square.to_string(),
                    place: self.city_name(f.square, Dimension::Normal),
                    ship_attack: f.attack(),
                    admiral,
                    attack: f.attack() + admiral,
                    defence: f.defence() + admiral,
                    movement: f.movement(state.settings.group_movement),
                    lines: wrap_items(&items, WIDTH, 4),
                    has_cargo: !f.cargo.is_empty(),
                    cargo,
                    load,
                    capacity: f.capacity(&state.settings),
                }
            })
            .collect()
    }

    /// One row of the city table: square, name, population, walls, marks.
    fn city_row(&self, c: &City) -> String {
        let lang = self.lang;
        let word = |sv: &'static str, en: &'static str| match lang {
            Lang::Sv => sv,
            Lang::En => en,
        };
        let marks: Vec<&str> = [
            (c.capital, word("huvudstad", "capital")),
            (c.harbour, word("huvudhamn", "main harbour")),
            (c.coastal, word("kust", "coastal")),
            (
                c.dimension == Dimension::Evil,
                word("ondskans dimension", "Evil dimension"),
            ),
            (c.plundered, word("plundrad", "plundered")),
        ]
        .into_iter()
        .filter_map(|(on, w)| on.then_some(w))
        .collect();
        let walls = format!("{}/{}", c.walls, c.wall_cap());
        format!(
            "{:<5}{:<17}{:>8}{:>7}  {}",
            c.square.to_string(),
            clip(&c.name, 16),
            c.population,
            walls,
            marks.join(", ")
        )
    }

    /// Spies held, the cap, and where the stationed ones are.
    fn spies(&self) -> SpyView {
        use crate::game::state::SpyState;
        let lang = self.lang;
        let stationed: Vec<String> = FormIndex::list(&self.ix.spies, self.name)
            .iter()
            .flat_map(|s| {
                let state_word = match (lang, s.state) {
                    (Lang::Sv, SpyState::Waiting) => "väntar",
                    (Lang::Sv, _) => "klar",
                    (Lang::En, SpyState::Waiting) => "waiting",
                    (Lang::En, _) => "done",
                };
                let placed = s.placed_at.format("%Y-%m-%d %H:%M UTC");
                let mission = crate::courier::text::mission_text(&s.mission, &s.realm, lang);
                let line = match lang {
                    Lang::Sv => format!(
                        "Spion i {}: {mission}, placerad {placed} ({state_word})",
                        s.realm
                    ),
                    Lang::En => format!(
                        "Spy in {}: {mission}, placed {placed} ({state_word})",
                        s.realm
                    ),
                };
                // Within the form's width, the lines after the first indented.
                let mut lines = wrap(&line, WIDTH, 2);
                if let Some(first) = lines.first_mut() {
                    *first = first.trim_start().to_string();
                }
                lines
            })
            .collect();
        SpyView {
            held: self.realm.spies,
            cap: self.realm.positions.informator,
            has_stationed: !stationed.is_empty(),
            stationed,
        }
    }

    /// `inga`/`none` for an empty list, else the items joined.
    fn list_or_none(&self, v: Vec<String>) -> String {
        if v.is_empty() {
            match self.lang {
                Lang::Sv => "inga",
                Lang::En => "none",
            }
            .to_string()
        } else {
            v.join(", ")
        }
    }

    /// Friends, mutual friends and every other realm still in the game (named when
    /// there are at most `listed`, see `FormContext::realms_listed`).
    fn relations(&self, listed: Option<usize>) -> (String, String, String) {
        let name = self.name;
        let mutual: Vec<String> = self
            .realm
            .friends
            .iter()
            .filter(|f| {
                self.ix
                    .realm(f)
                    .is_some_and(|o| o.friends.iter().any(|x| x == name))
            })
            .cloned()
            .collect();
        let count = self.ix.roll.others(name);
        let others = match listed {
            Some(most) if count > most => self.too_many_to_name(count),
            _ => self.ix.roll.without(self.state, name),
        };
        (
            self.list_or_none(self.realm.friends.clone()),
            self.list_or_none(mutual),
            others,
        )
    }

    /// The other realms when there are more than a form names: their number, where
    /// they were named, and the realm's neighbours.
    fn too_many_to_name(&self, count: usize) -> String {
        let near = self.ix.neighbours(self.name);
        let near = self.list_or_none(near.into_iter().map(str::to_string).collect());
        match self.lang {
            Lang::Sv => format!(
                "{count}, fler än formuläret räknar upp (alla stod i ert första formulär). \
                 Grannar, med land inom {NEAR} rutor från ert: {near}"
            ),
            Lang::En => format!(
                "{count}, more than the form lists (all were named in your first form). \
                 Neighbours, with land within {NEAR} squares of yours: {near}"
            ),
        }
    }

    /// Unused invitations still valid.
    fn invitations(&self) -> Vec<String> {
        let round = self.state.round;
        self.realm
            .invitations
            .iter()
            .filter(|i| !i.used && i.valid_until_round >= round)
            .map(|i| match self.lang {
                Lang::Sv => format!(
                    "Från {} till {}, giltig t.o.m. runda {}",
                    i.from, i.square, i.valid_until_round
                ),
                Lang::En => format!(
                    "From {} to {}, valid through round {}",
                    i.from, i.square, i.valid_until_round
                ),
            })
            .collect()
    }

    /// Recalls (R-INV-8) the realm has sent, still valid.
    fn home_invitations(&self) -> Vec<String> {
        let state = self.state;
        FormIndex::list(&self.ix.home_invitations, self.name)
            .iter()
            .filter(|h| h.valid_until_round >= state.round)
            .map(|h| {
                let (army, id) = match &h.target {
                    GroupRef::Army { id, .. } => (true, *id),
                    GroupRef::Fleet { id, .. } => (false, *id),
                };
                let until = h.valid_until_round;
                match (self.lang, army) {
                    (Lang::Sv, true) => {
                        format!("Hembjudan: armé {id}, gäller t.o.m. runda {until}")
                    }
                    (Lang::Sv, false) => {
                        format!("Hembjudan: flotta {id}, gäller t.o.m. runda {until}")
                    }
                    (Lang::En, true) => {
                        format!("Home-invitation: army {id}, valid through round {until}")
                    }
                    (Lang::En, false) => {
                        format!("Home-invitation: fleet {id}, valid through round {until}")
                    }
                }
            })
            .collect()
    }

    /// The secret bonuses of positions at 11+.
    fn bonuses(&self) -> Vec<String> {
        self.realm
            .secret_bonuses
            .iter()
            .flat_map(|(p, text)| wrap(&format!("{} 11+: {text}", p.name(self.lang)), WIDTH, 2))
            .collect()
    }

    /// Portals on own land or opened by the realm.
    fn portals(&self) -> Vec<String> {
        let name = self.name;
        self.ix
            .portals
            .iter()
            .filter(|(_, m)| {
                m.portal
                    .as_ref()
                    .is_some_and(|p| m.owner.as_deref() == Some(name) || p.opened_by == name)
            })
            .map(|(sq, _)| sq.to_string())
            .collect()
    }

    /// The free merchants' lot and its minimum bid, or empty.
    fn free_merchant(&self) -> String {
        use crate::game::state::Lot;
        let lang = self.lang;
        let Some(o) = self.state.free_merchant.as_ref() else {
            return String::new();
        };
        let lot = match &o.lot {
            Lot::Resource { resource, amount } => format!("{amount} {}", resource.name(lang)),
            Lot::Units { kind, count } => kind.count_text(*count as usize, lang),
            Lot::Other(t) => t.get(lang).to_string(),
        };
        match lang {
            Lang::Sv => format!("{lot} (lägsta bud {})", o.min_bid),
            Lang::En => format!("{lot} (minimum bid {})", o.min_bid),
        }
    }

    /// Troops won from the free merchants still waiting for their cities, or empty.
    fn unplaced(&self) -> String {
        let list: Vec<String> = self
            .realm
            .unplaced_troops
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(kind, n)| kind.count_text(*n as usize, self.lang))
            .collect();
        list.join(", ")
    }

    /// What happened last weekend that this realm may see.
    fn last_weekend(&self) -> Vec<String> {
        self.state
            .last_weekend
            .iter()
            .filter(|e| e.visible_to.is_empty() || e.visible_to.iter().any(|v| v == self.name))
            .flat_map(|e| wrap(e.text.get(self.lang), WIDTH, 2))
            .collect()
    }

    /// The order reminder's examples: orders this realm could give today, each valid
    /// on its own as `forms::check` reads it (a kind of order the realm cannot give now
    /// — no vote this round, no lot on offer, nothing to attack next to its armies, a
    /// stock too small — is left out). Built from the realm's own lists, never from a
    /// check of the whole state (every realm's form costs its share of the game).
    fn examples(&self, cities: &[&City]) -> Examples {
        let lang = self.lang;
        // An example is one line (`# ` and the order) within the form's width: a longer
        // one is left out, as a wrapped order would not read back.
        let lines = self
            .example_orders(cities)
            .iter()
            .map(|o| o.render(lang))
            .filter(|l| l.chars().count() + 2 <= WIDTH)
            .collect();
        Examples { lines }
    }

    fn example_orders(&self, cities: &[&City]) -> Vec<crate::game::orders::Order> {
        use crate::game::caps::Room;
        use crate::game::orders::{Amount, Group, GroupSel, Order, Outcome, Target};
        use crate::game::state::Terrain;
        use crate::game::units::{build_cost, AgentKind};
        use crate::game::{Spell, UnitKind};
        let (state, realm, name) = (self.state, self.realm, self.name);
        let stock = realm.stock;
        let covers = |cost: &Resources| stock.checked_sub(cost).is_some();
        let positions = realm.positions;
        let population = cities.iter().map(|c| c.population).sum();
        let room = Room::of(&self.ix.counted_units(name), population);
        let mut out = Vec::new();
        // Army units in the capital (or the first city), as many of 5, 2, 1 as fit.
        let city = realm
            .capital
            .filter(|sq| cities.iter().any(|c| c.square == *sq))
            .or_else(|| cities.first().map(|c| c.square));
        let kind = if realm.is_evil {
            UnitKind::LagreDemon
        } else {
            UnitKind::LattInfanteri
        };
        let armies = self.ix.armies(name);
        let aboard = |id: u32| self.ix.aboard.contains_key(&(name, id));
        if let (Some(sq), Some(unit)) = (city, kind.cost()) {
            let new_group = !armies.iter().any(|a| a.square == sq && !aboard(a.id));
            let fits = |n: u32| {
                room.troops(&positions, n, kind, new_group).is_ok() && covers(&unit.times(n))
            };
            if let Some(count) = [5, 2, 1].into_iter().find(|n| fits(*n)) {
                out.push(Order::BuyUnits {
                    count,
                    kind,
                    city: Some(sq),
                });
            }
        }
        if !realm.is_evil && room.spies(&positions, 1).is_ok() && covers(&AgentKind::Spion.cost()) {
            out.push(Order::BuySpies { count: 1 });
        }
        // More people (a higher population cap) and a wall in that city.
        if let Some(c) = city.and_then(|sq| cities.iter().find(|c| c.square == sq)) {
            if covers(&build_cost::population()) {
                out.push(Order::BuyPopulation {
                    count: 1,
                    city: c.square,
                });
            }
            if c.walls < crate::game::state::wall_cap(c.population) && covers(&build_cost::wall()) {
                out.push(Order::BuyWalls {
                    count: 1,
                    city: c.square,
                });
            }
        }
        // Slaves made into a resource the realm's cities produce (RULINGS 2).
        let produced = cities
            .iter()
            .flat_map(|c| c.production.iter())
            .find(|(r, n)| *n > 0 && r.is_ordinary())
            .map(|(r, _)| r);
        let slaves = stock.get(Resource::Slavar);
        if let (Some(resource), true) = (produced, slaves > 0) {
            out.push(Order::ConvertSlaves {
                count: slaves.min(5),
                resource,
            });
        }
        // One upgrade step per round and Forskare steps in all (Rulings 9).
        if positions.forskare > 0 {
            let crystals = build_cost::position_crystals(&stock);
            if crystals.is_some_and(|c| covers(&build_cost::position_fixed().plus(&c))) {
                out.push(Order::UpgradePosition {
                    position: Position::Befalhavare,
                    crystals: Vec::new(),
                });
            }
            let resource = realm
                .standard
                .iter()
                .copied()
                .find(|r| r.is_ordinary())
                .unwrap_or(Resource::Jarn);
            if let (Some(city), true) = (city, covers(&build_cost::production_ordinary())) {
                out.push(Order::UpgradeProduction { city, resource });
            }
        }
        // A move over the realm's own land, and an attack on what lies next to the army.
        let map = &state.map;
        let (w, h) = (map.width, map.height);
        let diag = state.settings.adjacency == 8;
        let own_land = |sq: &Square| {
            map.get(*sq)
                .is_some_and(|m| m.terrain == Terrain::Land && m.owner.as_deref() == Some(name))
        };
        let free = |a: &&&crate::game::state::ArmyGroup| {
            a.dimension == Dimension::Normal
                && !aboard(a.id)
                && a.no_move_until_round.is_none_or(|r| r.get() < state.round)
                && a.movement(state.settings.group_movement) > 0
        };
        if let Some(a) = armies.iter().find(free) {
            let points = a.movement(state.settings.group_movement);
            let mut path: Vec<Square> = Vec::new();
            let mut at = a.square;
            while (path.len() as u32) < points.min(2) {
                let next = at
                    .neighbours(w, h, diag)
                    .into_iter()
                    .find(|s| *s != a.square && !path.contains(s) && own_land(s));
                match next {
                    Some(s) => {
                        path.push(s);
                        at = s;
                    }
                    None => break,
                }
            }
            let group = Group::Army(a.id);
            if !path.is_empty() {
                out.push(Order::Move { group, path });
            }
            // The cannon-fodder order turned round: the whole group, last listed falls
            // first (only when it holds more than one kind).
            let order = runs(a.units.iter().map(|u| u.kind));
            if order.len() > 1 {
                let pieces = order
                    .iter()
                    .rev()
                    .map(|(k, n)| (*n as u32, crate::game::orders::Piece::Unit(*k)))
                    .collect();
                out.push(Order::Reorder { group, pieces });
            }
            // A foreign city next to the army is plundered; else foreign land is attacked.
            let foreign_city = |s: &Square| {
                self.ix
                    .city_at(*s, Dimension::Normal)
                    .is_some_and(|c| c.owner.as_str() != name)
            };
            let foreign_land = |s: &Square| {
                map.get(*s).is_some_and(|m| {
                    m.terrain == Terrain::Land
                        && m.owner.as_deref().is_some_and(|o| o != name)
                        && self.ix.city_at(*s, Dimension::Normal).is_none()
                })
            };
            let near = a.square.neighbours(w, h, diag);
            let target = near
                .iter()
                .find(|s| foreign_city(s))
                .map(|s| (*s, Some(Outcome::Plunder)))
                .or_else(|| near.iter().find(|s| foreign_land(s)).map(|s| (*s, None)));
            if let Some((square, outcome)) = target {
                out.push(Order::Attack {
                    group,
                    square,
                    outcome,
                    wave: None,
                });
                if covers(&Spell::Eldklot.cost()) {
                    out.push(Order::Cast {
                        spell: Spell::Eldklot,
                        target: Target::Army(GroupSel::At(square)),
                    });
                }
            }
        }
        // A bid that meets this week's lot, paid in the first ordinary resource the
        // stock covers (the conflict penalty added back).
        if let Some(o) = state
            .free_merchant
            .as_ref()
            .filter(|o| o.round == state.round)
        {
            let demons =
                matches!(o.lot, crate::game::state::Lot::Units { kind, .. } if kind.is_demon());
            let penalty = if realm.fought_last_weekend {
                state.settings.conflict_penalty
            } else {
                0
            };
            let count = o.min_bid.saturating_add(penalty).max(1);
            let resource = Resource::ALL
                .iter()
                .copied()
                .filter(|r| r.is_ordinary())
                .find(|r| stock.get(*r) >= count);
            if let (Some(resource), false) = (resource, demons && !realm.is_evil) {
                out.push(Order::Bid {
                    offer: vec![Amount { count, resource }],
                });
            }
        }
        let other = state
            .realms
            .iter()
            .find(|r| r.name != name && !r.is_evil && !r.eliminated)
            .map(|r| r.name.clone());
        if let Some(other) = other {
            if state.round.is_multiple_of(state.settings.vote_every.max(1)) {
                out.push(Order::Vote {
                    realm: other.clone(),
                });
            }
            out.push(Order::Friend { realm: other });
        }
        out
    }
}

fn key_of(p: Position) -> &'static str {
    match p {
        Position::Amiral => "amiral",
        Position::Befalhavare => "befalhavare",
        Position::Besvarjare => "besvarjare",
        Position::Informator => "informator",
        Position::Forskare => "forskare",
        Position::Skattmastare => "skattmastare",
        Position::Sprakror => "sprakror",
    }
}

/// Resource name with `*` when it is one of the realm's standard resources.
fn starred(realm: &Realm, r: Resource, lang: Lang) -> String {
    if realm.standard.contains(&r) {
        format!("{}*", r.name(lang))
    } else {
        r.name(lang).to_string()
    }
}

fn names(v: &[Resource], lang: Lang) -> Vec<String> {
    v.iter().map(|r| r.name(lang).to_string()).collect()
}

/// Consecutive equal kinds as `(kind, count)`, order kept — the grouping
/// keeps the cannon-fodder order readable.
fn runs<K: PartialEq + Copy>(it: impl Iterator<Item = K>) -> Vec<(K, usize)> {
    let mut out: Vec<(K, usize)> = Vec::new();
    for k in it {
        match out.last_mut() {
            Some((last, n)) if *last == k => *n += 1,
            _ => out.push((k, 1)),
        }
    }
    out
}

/// Cut `s` to at most `n` characters.
fn clip(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_keep_order() {
        use crate::game::UnitKind;
        use UnitKind::*;
        let r = runs([TungtInfanteri, TungtInfanteri, Bagskyttar, TungtInfanteri].into_iter());
        assert_eq!(
            r,
            vec![(TungtInfanteri, 2), (Bagskyttar, 1), (TungtInfanteri, 1)]
        );
    }

    /// The other realms as every form listed them before the roll: a pass over the
    /// realms.
    fn others_by_a_pass(state: &GameState, name: &str) -> String {
        let others = state
            .realms
            .iter()
            .filter(|r| r.name != name && !r.eliminated);
        others
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Four realms A, B, C, D on a map of one row of eight squares: A, B and C hold a
    /// square each, side by side (A1, B1, C1), D holds G1; `lang` for all.
    fn row_of_realms(lang: Lang) -> GameState {
        use crate::game::state::Map;
        let mut state =
            crate::game::load_scenario(include_str!("../../scenarios/demo.yaml")).expect("demo");
        let template = state.realms[0].clone();
        state.realms = ["A", "B", "C", "D"]
            .into_iter()
            .map(|name| Realm {
                name: name.to_string(),
                language: lang,
                friends: Vec::new(),
                ..template.clone()
            })
            .collect();
        let mut map = Map {
            width: 8,
            height: 1,
            squares: Default::default(),
        };
        let owners = [
            Some("A"),
            Some("B"),
            Some("C"),
            None,
            None,
            None,
            Some("D"),
            None,
        ];
        for (col, owner) in (0..).zip(owners) {
            map.squares
                .insert(Square::new(col, 1).expect("square"), MapSquare::land(owner));
        }
        state.map = map;
        state.armies.clear();
        state.fleets.clear();
        state.cities.clear();
        state.spies.clear();
        state.home_invitations.clear();
        state
    }

    fn others_on_the_form(state: &GameState, realm: &str, listed: Option<usize>) -> String {
        let ctx = FormContext {
            deadline_local: String::new(),
            window_local: String::new(),
            game_address: "sl@game.test".into(),
            realms_listed: listed,
        };
        FormView::build(state, realm, &ctx).expect("realm").others
    }

    #[test]
    fn a_form_names_every_other_realm_up_to_the_games_limit() {
        let state = row_of_realms(Lang::Sv);
        for listed in [Some(3), Some(100), None] {
            assert_eq!(others_on_the_form(&state, "B", listed), "A, C, D");
        }
    }

    #[test]
    fn beyond_the_limit_a_form_gives_the_number_and_the_neighbours() {
        let state = row_of_realms(Lang::Sv);
        let sv = |near: &str| {
            format!(
                "3, fler än formuläret räknar upp (alla stod i ert första formulär). \
                 Grannar, med land inom 3 rutor från ert: {near}"
            )
        };
        assert_eq!(others_on_the_form(&state, "A", Some(2)), sv("B, C"));
        assert_eq!(others_on_the_form(&state, "C", Some(2)), sv("A, B"));
        // D's land is four squares from C's.
        assert_eq!(others_on_the_form(&state, "D", Some(0)), sv("inga"));
        let state = row_of_realms(Lang::En);
        assert_eq!(
            others_on_the_form(&state, "B", Some(2)),
            "3, more than the form lists (all were named in your first form). \
             Neighbours, with land within 3 squares of yours: A, C"
        );
    }

    #[test]
    fn a_realm_out_of_the_game_is_neither_counted_nor_a_neighbour() {
        let mut state = row_of_realms(Lang::En);
        state.realms[0].eliminated = true;
        assert_eq!(
            others_on_the_form(&state, "B", Some(1)),
            "2, more than the form lists (all were named in your first form). \
             Neighbours, with land within 3 squares of yours: C"
        );
    }

    #[test]
    fn a_neighbour_holds_land_within_three_squares_in_any_direction() {
        let near = |state: &GameState, realm: &str| -> Vec<String> {
            let ix = FormIndex::new(state, &[]);
            ix.neighbours(realm)
                .into_iter()
                .map(str::to_string)
                .collect()
        };
        let mut state = row_of_realms(Lang::En);
        assert_eq!(near(&state, "C"), ["A", "B"]);
        // D also takes C4: three squares below C1, and three across the corner from A1.
        state.map.height = 4;
        state.map.squares.insert(
            Square::new(2, 4).expect("square"),
            MapSquare::land(Some("D")),
        );
        assert_eq!(near(&state, "C"), ["A", "B", "D"]);
        assert_eq!(near(&state, "D"), ["A", "B", "C"]);
        assert_eq!(near(&state, "A"), ["B", "C", "D"]);
    }

    /// Each realm's neighbours by looking [`NEAR`] around every square of its land.
    fn neighbours_by_every_square(state: &GameState) -> Vec<Vec<usize>> {
        let holder = |sq: Square| {
            let owner = state.map.get(sq)?.owner.as_deref()?;
            state
                .realms
                .iter()
                .position(|r| r.name == owner && !r.eliminated)
        };
        let d = NEAR;
        let mut found = vec![Vec::new(); state.realms.len()];
        for (sq, _) in state.map.squares.iter() {
            let Some(i) = holder(sq) else { continue };
            for c in sq.col().saturating_sub(d)..=sq.col().saturating_add(d) {
                for r in sq.row().saturating_sub(d)..=sq.row().saturating_add(d) {
                    match Square::new(c, r).and_then(holder) {
                        Some(k) if k != i => found[i].push(k),
                        _ => {}
                    }
                }
            }
        }
        for ks in &mut found {
            ks.sort_unstable();
            ks.dedup();
        }
        found
    }

    proptest::proptest! {
        #[test]
        fn neighbours_from_the_edges_are_those_from_every_square(
            width in 1u16..12,
            height in 1u16..12,
            owners in proptest::collection::vec(0usize..6, 144),
            eliminated in 0usize..6,
        ) {
            use crate::game::state::Map;
            let mut state = row_of_realms(Lang::En);
            state.realms.push(Realm { name: "E".into(), ..state.realms[0].clone() });
            state.realms[eliminated % 5].eliminated = eliminated < 5;
            let mut map = Map { width, height, squares: Default::default() };
            for row in 1..=height {
                for col in 0..width {
                    let k = owners[usize::from(row - 1) * 12 + usize::from(col)];
                    // 5: no one's land.
                    let owner = state.realms.get(k).filter(|_| k < 5).map(|r| r.name.as_str());
                    map.squares.insert(Square::new(col, row).expect("square"), MapSquare::land(owner));
                }
            }
            state.map = map;
            proptest::prop_assert_eq!(neighbours_of(&state), neighbours_by_every_square(&state));
        }
    }

    proptest::proptest! {
        #[test]
        fn the_roll_lists_the_other_realms_as_a_pass_over_the_realms_did(
            realms in proptest::collection::vec(("[A-D]{1,2}", proptest::bool::weighted(0.2)), 0..8),
            asked in "[A-D]{1,2}",
        ) {
            let mut state =
                crate::game::load_scenario(include_str!("../../scenarios/demo.yaml")).expect("demo");
            let template = state.realms[0].clone();
            state.realms = realms
                .iter()
                .map(|(name, eliminated)| Realm {
                    name: name.clone(),
                    eliminated: *eliminated,
                    ..template.clone()
                })
                .collect();
            let roll = Roll::of(&state);
            let names = state.realms.iter().map(|r| r.name.as_str());
            for name in names.chain([asked.as_str(), ""]) {
                proptest::prop_assert_eq!(
                    roll.without(&state, name),
                    others_by_a_pass(&state, name),
                    "{}", name
                );
            }
        }
    }
}

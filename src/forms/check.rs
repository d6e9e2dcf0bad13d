//! Checking parsed orders against one realm's state: ownership of what an
//! order names, costs run down the stock in form order, the population cap
//! (RULINGS 8), position caps and upgrade limits (R-POS; RULINGS 9), one
//! cast per spell and round, squares and connected paths within movement
//! (R-MOVE-1..5, RULINGS 24–26). Everything else (combat, terrain, who meets whom) is
//! the engine's. Pure: reads `GameState`, never changes it.
//!
//! Step-1 purchases resolve in form order, so an accepted order's effects
//! (stock spent, +1 position, new units, a new city, more population, slaves
//! converted) count for the lines below it; an order that fails is refused whole
//! and later ones still get their turn. Where the weekend does things in an order
//! of its own, the receipt follows it: the claims (the ruler's benefit, VP rewards)
//! count before every line, as they apply before step 1, and research may use
//! engineers bought anywhere on the form, as they are bought before research.
//!
//! What the weekend would decide from the same state is decided here by the same
//! code where it can be: the caps (`game::caps`), the crystals of an upgrade
//! (`build_cost::position_crystals`, written into the accepted order so the weekend
//! charges the crystals the receipt showed), a bid's value (`weekend::market::
//! bid_worth`) and the weekday Reveal (`GameState::revealed_by_mail`).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::extract::Source;
use super::grammar::{parse_line, LineError, OrderKind};
use super::refusal::{Capped, Once, Refusal};
use crate::game::caps::{Cap, Over, Room};
use crate::game::hash::FastMap;
use crate::game::orders::{Amount, Group, GroupSel, Order, Piece, Reward, Target, Wave};
use crate::game::state::{
    wall_cap, ArmyGroup, Fleet, GroupRef, Lot, Positions, Researched, Ruler, RulerBenefit, Ship,
    Terrain,
};
use crate::game::text::fold;
use crate::game::units::{build_cost, AgentKind};
use crate::game::weekend::market::{bid_worth, double_bids};
use crate::game::weekend::politics::BENEFIT_POPULATION;
use crate::game::{GameState, Lang, Position, Resource, Resources, Spell, Square, UnitKind};

/// One line of the form after checking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckedLine {
    /// Line number in its source (0 when checked from bare orders).
    pub line_no: usize,
    pub text: String,
    pub order: Option<Order>,
    /// `None` = accepted.
    pub refusal: Option<Refusal>,
    /// What the order takes from the stock (zero when refused).
    pub cost: Resources,
}

impl CheckedLine {
    pub fn accepted(&self) -> bool {
        self.refusal.is_none()
    }
}

/// What an own army group or fleet does if nothing else arrives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub group: Group,
    pub square: Square,
    pub sv: String,
    pub en: String,
}

/// The checked form: every line, the stock left, and the standing orders.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checked {
    pub realm: String,
    pub round: u32,
    pub lang: Lang,
    pub lines: Vec<CheckedLine>,
    pub stock_before: Resources,
    pub stock_after: Resources,
    pub standing: Vec<Standing>,
    pub markers_found: bool,
    pub source: Source,
    /// The form said `INGA ORDRAR` / `NO ORDERS`: empty on purpose.
    #[serde(default)]
    pub no_orders: bool,
}

impl Checked {
    pub fn accepted(&self) -> usize {
        self.lines.iter().filter(|l| l.accepted()).count()
    }
    pub fn refused(&self) -> usize {
        self.lines.len() - self.accepted()
    }
    /// The accepted orders, in form order (what the engine gets).
    pub fn orders(&self) -> Vec<&Order> {
        self.lines
            .iter()
            .filter(|l| l.accepted())
            .filter_map(|l| l.order.as_ref())
            .collect()
    }
}

type Res<T> = Result<T, Refusal>;

/// The amounts of a line added up per resource. Saturating: a player's counts cannot
/// wrap (they are also bounded by the grammar and the line length).
fn sum(v: &[Amount]) -> Resources {
    let mut r = Resources::ZERO;
    for a in v {
        let slot = r.get_mut(a.resource);
        *slot = slot.saturating_add(a.count);
    }
    r
}

/// The sum of player-supplied counts, saturating instead of wrapping.
fn total_of(it: impl IntoIterator<Item = u32>) -> u32 {
    it.into_iter().fold(0, u32::saturating_add)
}

/// One of the realm's cities as the lines above left it.
#[derive(Debug, Clone, Copy)]
struct OwnCity {
    population: u32,
    walls: u32,
    coastal: bool,
    production: Resources,
    /// May be the realm's capital or main harbour (`Realm::may_seat_in`).
    home: bool,
}

/// Running state while walking down the form.
struct Run<'a> {
    s: &'a GameState,
    realm: &'a str,
    /// The realm's own army groups by number and its fleets, found once per form so
    /// that an order line never scans every realm's groups.
    armies: FastMap<u32, &'a ArmyGroup>,
    fleets: Vec<&'a Fleet>,
    /// Own army groups aboard own fleets: new troops never join them (the weekend
    /// forms a new group in the city, under the army-group cap).
    aboard: BTreeSet<u32>,
    stock: Resources,
    positions: Positions,
    upgraded: BTreeSet<Position>,
    steps: u32,
    /// Forskare as the claims left it: the upgrade-step limit (Rulings 9).
    step_limit: u32,
    prod_upgraded: BTreeSet<(Square, Resource)>,
    /// Counted units, elementals, groups, ships, spies and population (R-POP, R-POS-4).
    room: Room,
    new_group_at: BTreeSet<Square>,
    /// The realm's cities, those bought above included.
    cities: BTreeMap<Square, OwnCity>,
    spells: BTreeSet<Spell>,
    plans: BTreeMap<Group, (String, String)>,
    moved: BTreeSet<Group>,
    attacks: BTreeMap<Square, Vec<Option<Wave>>>,
    whirlwind: BTreeSet<Group>,
    once: BTreeSet<Once>,
    invitations: BTreeSet<u64>,
    envoys: u32,
    /// Groups the lines above call home (R-INV-8).
    called_home: BTreeSet<Group>,
    /// VP-threshold rewards claimed by the lines above (R-VP-4).
    rewards: u32,
    /// Free-merchant troops placed by the lines above (R-FREE-9).
    placed: BTreeMap<UnitKind, u32>,
    /// Engineers bought on the form (R-FREE-7).
    engineers: bool,
    /// The ruler chose double bids on the form (R-VOTE-5).
    double_bids: bool,
    /// The order as the weekend gets it, when the receipt settled a choice the line
    /// left open (the crystals of an upgrade).
    settled: Option<Order>,
}

/// The claims, applied before step 1 at the weekend (D-22; docs/reference/weekend.md,
/// Before step 1: the claims).
fn is_claim(o: &Order) -> bool {
    matches!(o, Order::RulerBenefit { .. } | Order::VpReward { .. })
}

/// Check lines as extracted (parsing each one first).
pub fn check(state: &GameState, realm: &str, lines: &[(usize, String)]) -> Checked {
    let (read, unread) = lines.split_at(lines.len().min(MAX_ORDER_LINES));
    let parsed: Vec<(usize, String, Result<Order, LineError>)> = read
        .iter()
        .map(|(n, t)| (*n, t.clone(), parse_line(t, None)))
        .collect();
    let mut c = check_parsed(state, realm, parsed);
    if let Some(first) = unread.first() {
        c.lines.push(not_read(first));
    }
    c
}

/// The most order lines one form is read to: far more than any realm gives in a round,
/// and a bound on what a hostile form costs to check and to answer.
pub const MAX_ORDER_LINES: usize = 1_000;

/// The refusal that stands for the lines past [`MAX_ORDER_LINES`], quoting the first
/// of them.
fn not_read(first: &(usize, String)) -> CheckedLine {
    let quoted: String = first.1.chars().take(60).collect();
    CheckedLine {
        line_no: first.0,
        text: format!("{quoted} …"),
        order: None,
        refusal: Some(Refusal::NotRead {
            max: MAX_ORDER_LINES,
        }),
        cost: Resources::ZERO,
    }
}

/// Check bare orders (line numbers 0, text = the order rendered).
pub fn check_orders(state: &GameState, realm: &str, orders: &[Order]) -> Checked {
    let lang = state.realm(realm).map_or(Lang::Sv, |r| r.language);
    let parsed = orders
        .iter()
        .map(|o| (0, o.render(lang), Ok(o.clone())))
        .collect();
    check_parsed(state, realm, parsed)
}

fn check_parsed(
    state: &GameState,
    realm: &str,
    parsed: Vec<(usize, String, Result<Order, LineError>)>,
) -> Checked {
    let r = state.realm(realm);
    let lang = r.map_or(Lang::Sv, |r| r.language);
    let stock = r.map_or(Resources::ZERO, |r| r.stock);
    let fleets: Vec<&Fleet> = state.fleets_of(realm).collect();
    let positions = r.map(|r| r.positions).unwrap_or_default();
    let mut run = Run {
        s: state,
        realm,
        armies: state.armies_of(realm).map(|a| (a.id, a)).collect(),
        aboard: fleets
            .iter()
            .flat_map(|f| f.cargo.iter().copied())
            .collect(),
        fleets,
        stock,
        positions,
        upgraded: BTreeSet::new(),
        steps: 0,
        step_limit: positions.forskare,
        prod_upgraded: BTreeSet::new(),
        room: Room::of(&state.counted_units(realm), state.population(realm)),
        new_group_at: BTreeSet::new(),
        cities: state
            .cities_of(realm)
            .map(|c| {
                let own = OwnCity {
                    population: c.population,
                    walls: c.walls,
                    coastal: c.coastal,
                    production: c.production,
                    home: state.may_seat_in(realm, c.dimension),
                };
                (c.square, own)
            })
            .collect(),
        spells: BTreeSet::new(),
        plans: BTreeMap::new(),
        moved: BTreeSet::new(),
        attacks: BTreeMap::new(),
        whirlwind: BTreeSet::new(),
        once: BTreeSet::new(),
        invitations: BTreeSet::new(),
        envoys: r.map_or(0, |r| r.sent.envoys),
        rewards: 0,
        placed: BTreeMap::new(),
        engineers: false,
        double_bids: false,
        called_home: BTreeSet::new(),
        settled: None,
    };
    // The claims first, as the weekend applies them before step 1; then every other
    // line in form order.
    let mut verdicts: Vec<Option<(Res<Resources>, Option<Order>)>> = vec![None; parsed.len()];
    for claims in [true, false] {
        for (i, (_, _, p)) in parsed.iter().enumerate() {
            let Ok(o) = p else { continue };
            if is_claim(o) != claims {
                continue;
            }
            let res = if r.is_none() {
                Err(Refusal::NotInGame)
            } else {
                run.order(o)
            };
            verdicts[i] = Some((res, run.settled.take()));
        }
        if claims {
            run.step_limit = run.positions.forskare;
        }
    }
    run.after_the_last_line(&parsed, &mut verdicts);
    let mut lines = Vec::new();
    for ((line_no, text, p), verdict) in parsed.into_iter().zip(verdicts) {
        let (order, refusal, cost) = match (p, verdict) {
            (Err(e), _) => (None, Some(Refusal::Syntax(e)), Resources::ZERO),
            (Ok(o), Some((Ok(cost), settled))) => (Some(settled.unwrap_or(o)), None, cost),
            (Ok(o), Some((Err(why), _))) => (Some(o), Some(why), Resources::ZERO),
            (Ok(o), None) => (Some(o), Some(Refusal::NotInGame), Resources::ZERO),
        };
        lines.push(CheckedLine {
            line_no,
            text,
            order,
            refusal,
            cost,
        });
    }
    let standing = run.standing();
    Checked {
        realm: realm.to_string(),
        round: state.round,
        lang,
        lines,
        stock_before: stock,
        stock_after: run.stock,
        standing,
        markers_found: false,
        no_orders: false,
        source: Source::Nothing,
    }
}

impl<'a> Run<'a> {
    fn pay(&mut self, cost: Resources) -> Res<Resources> {
        match self.stock.checked_sub(&cost) {
            Some(left) => {
                self.stock = left;
                Ok(cost)
            }
            None => {
                let mut short = Resources::ZERO;
                for (res, n) in cost.iter() {
                    let have = self.stock.get(res);
                    if n > have {
                        short.set(res, n - have);
                    }
                }
                Err(Refusal::Stock { cost, short })
            }
        }
    }

    fn once(&mut self, what: Once) -> Res<()> {
        if self.once.insert(what) {
            Ok(())
        } else {
            Err(Refusal::Twice { what })
        }
    }

    /// An own city, one bought above included, as the lines above left it.
    fn own_city(&self, sq: Square) -> Res<OwnCity> {
        self.cities
            .get(&sq)
            .copied()
            .ok_or(Refusal::NotOwnCity { square: sq })
    }

    /// An own city that may be the realm's capital or main harbour (Rulings 29).
    fn seat_city(&self, sq: Square) -> Res<OwnCity> {
        let city = self.own_city(sq)?;
        if !city.home {
            return Err(Refusal::SeatInOtherDimension { square: sq });
        }
        Ok(city)
    }

    fn city_mut(&mut self, sq: Square) -> Option<&mut OwnCity> {
        self.cities.get_mut(&sq)
    }

    /// Whether new army units in `sq` join a group there: an own group on the square
    /// that is not aboard a fleet, or one formed by a line above.
    fn group_at(&self, sq: Square) -> bool {
        self.new_group_at.contains(&sq)
            || self
                .armies
                .values()
                .any(|a| a.square == sq && !self.aboard.contains(&a.id))
    }

    fn square(&self, sq: Square) -> Res<&'a crate::game::state::MapSquare> {
        self.s.map.get(sq).ok_or(Refusal::OffMap { square: sq })
    }

    /// The realm `name` stands for, for an order of kind `order`.
    fn realm_name(&self, name: &str, order: OrderKind) -> Res<&'a str> {
        let f = fold(name);
        self.s
            .realms
            .iter()
            .find(|r| fold(&r.name) == f)
            .map(|r| r.name.as_str())
            .ok_or_else(|| Refusal::UnknownRealm {
                name: name.to_string(),
                order,
            })
    }

    fn other_realm(&self, name: &str, order: OrderKind) -> Res<&'a str> {
        let n = self.realm_name(name, order)?;
        if n == self.realm {
            return Err(Refusal::OwnRealm { order });
        }
        Ok(n)
    }

    /// An own army group by number.
    fn army(&self, id: u32) -> Option<&'a ArmyGroup> {
        self.armies.get(&id).copied()
    }

    /// An own fleet by number.
    fn fleet(&self, id: u32) -> Option<&'a Fleet> {
        self.fleets.iter().copied().find(|f| f.id == id)
    }

    /// The square and movement of an own group.
    fn group(&self, g: Group) -> Res<(Square, u32)> {
        let rule = self.s.settings.group_movement;
        let found = match g {
            Group::Army(id) => self.army(id).map(|a| (a.square, a.movement(rule))),
            Group::Fleet(id) => self.fleet(id).map(|f| (f.square, f.movement(rule))),
        };
        found.ok_or(Refusal::NoSuchGroup { group: g })
    }

    /// `n` army units of `kind` in `sq` (R-POS-4, R-UNIT-6, R-POP-2), counted when
    /// they fit.
    fn troops(&mut self, n: u32, kind: UnitKind, sq: Square) -> Res<()> {
        let new_group = !self.group_at(sq);
        self.room
            .troops(&self.positions, n, kind, new_group)
            .map_err(refusal)?;
        self.room.add_troops(n, kind, new_group);
        if new_group {
            self.new_group_at.insert(sq);
        }
        Ok(())
    }

    /// One order against the running state: what it costs, or why not.
    fn order(&mut self, o: &Order) -> Res<Resources> {
        match o {
            Order::BuyUnits { .. }
            | Order::BuyShips { .. }
            | Order::BuySpies { .. }
            | Order::BuyWalls { .. }
            | Order::BuyCity { .. }
            | Order::BuyPopulation { .. } => self.purchase(o),
            Order::UpgradePosition { .. }
            | Order::UpgradeProduction { .. }
            | Order::ConvertSlaves { .. } => self.upgrade(o),
            Order::Cast { spell, target } => self.cast(*spell, target),
            Order::Move { .. }
            | Order::Embark { .. }
            | Order::Disembark { .. }
            | Order::PickUp { .. }
            | Order::Merge { .. }
            | Order::Split { .. }
            | Order::Reorder { .. } => self.movement(o).map(|()| Resources::ZERO),
            Order::Attack { .. } => self.attack(o).map(|()| Resources::ZERO),
            Order::UseInvitation { .. } | Order::HomeInvitation { .. } => self.invitation(o),
            Order::Bid { .. } | Order::Engineers { .. } | Order::Research { .. } => self.economy(o),
            Order::Vote { .. }
            | Order::Friend { .. }
            | Order::NotFriend { .. }
            | Order::Capital { .. }
            | Order::MainHarbour { .. }
            | Order::TradeWishes { .. }
            | Order::RulerBenefit { .. } => self.diplomacy(o).map(|()| Resources::ZERO),
            Order::VpReward { reward } => self.vp_reward(reward).map(|()| Resources::ZERO),
            Order::PlaceTroops { placements } => {
                self.place_troops(placements).map(|()| Resources::ZERO)
            }
        }
    }

    // ------------------------------------------------------------ purchases

    fn purchase(&mut self, o: &Order) -> Res<Resources> {
        match o {
            Order::BuyUnits { count, kind, city } => self.buy_units(*count, *kind, *city),
            Order::BuyShips { count, kind, city } => self.buy_ships(*count, *kind, *city),
            Order::BuySpies { count } => {
                if self.s.realm(self.realm).is_some_and(|r| r.is_evil) {
                    return Err(Refusal::NoSpiesForTheEvil);
                }
                self.room.spies(&self.positions, *count).map_err(refusal)?;
                let cost = self.pay(AgentKind::Spion.cost().times(*count))?;
                self.room.add_spies(*count);
                Ok(cost)
            }
            Order::BuyWalls { count, city } => self.buy_walls(*count, *city),
            Order::BuyCity { square, production } => self.buy_city(*square, production),
            Order::BuyPopulation { count, city } => {
                self.own_city(*city)?;
                let cost = self.pay(build_cost::population().times(*count))?;
                // Ten a purchase, in the city and under the caps (R-POP-4).
                let add = count.saturating_mul(10);
                self.room.population = self.room.population.saturating_add(add);
                if let Some(c) = self.city_mut(*city) {
                    c.population = c.population.saturating_add(add);
                }
                Ok(cost)
            }
            _ => Ok(Resources::ZERO),
        }
    }

    fn buy_units(&mut self, count: u32, kind: UnitKind, city: Option<Square>) -> Res<Resources> {
        let realm = self.s.realm(self.realm).expect("checked");
        if kind.is_demon() && !realm.is_evil {
            return Err(Refusal::DemonsOnlyForTheEvil);
        }
        if realm.is_evil && !kind.is_demon() {
            return Err(Refusal::EvilBuildsOnlyDemons);
        }
        let sq = city.or(realm.capital).ok_or(Refusal::NoCity)?;
        self.own_city(sq)?;
        let unit = match kind.cost() {
            Some(c) => c,
            None => self.researched_cost(Researched::BeridnaBagskyttar)?,
        };
        let new_group = !self.group_at(sq);
        self.room
            .troops(&self.positions, count, kind, new_group)
            .map_err(refusal)?;
        let cost = self.pay(unit.times(count))?;
        self.room.add_troops(count, kind, new_group);
        if new_group {
            self.new_group_at.insert(sq);
        }
        Ok(cost)
    }

    /// The price of a researched kind: refused unless researched and priced.
    fn researched_cost(&self, what: Researched) -> Res<Resources> {
        let realm = self.s.realm(self.realm).expect("checked");
        if !realm.researched.contains(&what) {
            return Err(Refusal::NotResearched { what });
        }
        let costs = &self.s.settings.research_costs;
        match what {
            Researched::Fregatt => costs.fregatt,
            Researched::BeridnaBagskyttar => costs.beridna_bagskyttar,
        }
        .ok_or(Refusal::NoResearchCost { what })
    }

    fn buy_ships(
        &mut self,
        count: u32,
        kind: crate::game::ShipKind,
        city: Option<Square>,
    ) -> Res<Resources> {
        let realm = self.s.realm(self.realm).expect("checked");
        if realm.is_evil {
            return Err(Refusal::EvilBuildsOnlyDemons);
        }
        let sq = city.or(realm.main_harbour).ok_or(Refusal::NoCoastalCity)?;
        if !self.own_city(sq)?.coastal {
            return Err(Refusal::ShipyardNotCoastal { square: sq });
        }
        let unit = match kind.cost() {
            Some(c) => c,
            None => self.researched_cost(Researched::Fregatt)?,
        };
        self.room.ships(&self.positions, count).map_err(refusal)?;
        let cost = self.pay(unit.times(count))?;
        self.room.add_ships(count);
        Ok(cost)
    }

    fn buy_walls(&mut self, count: u32, city: Square) -> Res<Resources> {
        let c = self.own_city(city)?;
        let cap = wall_cap(c.population);
        if c.walls.saturating_add(count) > cap {
            return Err(Refusal::WallCap {
                city,
                have: c.walls,
                count,
                cap,
            });
        }
        let cost = self.pay(build_cost::wall().times(count))?;
        if let Some(c) = self.city_mut(city) {
            c.walls = c.walls.saturating_add(count);
        }
        Ok(cost)
    }

    fn buy_city(&mut self, square: Square, production: &[Amount]) -> Res<Resources> {
        let m = self.square(square)?;
        if m.terrain != Terrain::Land || m.owner.as_deref() != Some(self.realm) {
            return Err(Refusal::NotOwnLand { square });
        }
        if self.s.cities.iter().any(|c| c.square == square) || self.cities.contains_key(&square) {
            return Err(Refusal::CityExists { square });
        }
        let p = sum(production);
        let standard = &self.s.realm(self.realm).expect("checked").standard;
        if p.iter().any(|(_, n)| n > 5)
            || p.total() != 10
            || p.iter().any(|(r, n)| n > 0 && !standard.contains(&r))
        {
            return Err(Refusal::CityProduction {
                standard: standard.clone(),
            });
        }
        let cost = self.pay(build_cost::new_city())?;
        // A new city of population 10 (R-CITY-2): an own city for the lines below, and
        // ten more under the population cap, as at the weekend.
        let city = OwnCity {
            population: 10,
            walls: 0,
            coastal: self.s.map.touches_sea(square),
            production: p,
            // Bought on the normal map, as at the weekend: a seat for any realm.
            home: true,
        };
        self.cities.insert(square, city);
        self.room.population = self.room.population.saturating_add(city.population);
        Ok(cost)
    }

    // ------------------------------------------------- upgrades and production

    fn upgrade(&mut self, o: &Order) -> Res<Resources> {
        match o {
            Order::UpgradePosition { position, crystals } => {
                self.upgrade_position(*position, crystals)
            }
            Order::UpgradeProduction { city, resource } => {
                self.upgrade_production(*city, *resource)
            }
            Order::ConvertSlaves { count, resource } => {
                let produced = self
                    .cities
                    .values()
                    .any(|c| c.production.get(*resource) > 0);
                if !resource.is_ordinary() || !produced {
                    return Err(Refusal::ConvertToProduced);
                }
                let cost = self.pay(Resources::from_pairs(&[(Resource::Slavar, *count)]))?;
                // The slaves become the resource at once, for the lines below (RULINGS 2).
                let n = self.stock.get(*resource).saturating_add(*count);
                self.stock.set(*resource, n);
                Ok(cost)
            }
            _ => Ok(Resources::ZERO),
        }
    }

    fn upgrade_position(&mut self, position: Position, crystals: &[Amount]) -> Res<Resources> {
        if self.upgraded.contains(&position) {
            return Err(Refusal::PositionOncePerRound);
        }
        self.step_limit()?;
        let chosen = if crystals.is_empty() {
            build_cost::position_crystals(&self.stock).unwrap_or(Resources::ZERO)
        } else {
            let c = sum(crystals);
            if total_of(c.iter().map(|(_, n)| n)) != build_cost::POSITION_CRYSTALS
                || c.iter().any(|(r, n)| n > 0 && !r.is_crystal())
            {
                return Err(Refusal::FiveCrystals);
            }
            c
        };
        let mut cost = build_cost::position_fixed().plus(&chosen);
        if chosen.total() < build_cost::POSITION_CRYSTALS {
            // Short of crystals: ask for 5 of the first kind so the
            // refusal names what is missing.
            cost = build_cost::position_fixed().plus(&Resources::from_pairs(&[(Resource::Eld, 5)]));
        }
        let cost = self.pay(cost)?;
        if crystals.is_empty() {
            // The receipt's choice becomes the order the weekend gets, so step 1
            // charges these crystals whatever the lines above spend first.
            let crystals = Resource::CRYSTALS
                .into_iter()
                .filter(|r| chosen.get(*r) > 0)
                .map(|resource| Amount {
                    count: chosen.get(resource),
                    resource,
                })
                .collect();
            self.settled = Some(Order::UpgradePosition { position, crystals });
        }
        self.upgraded.insert(position);
        self.steps += 1;
        *self.positions.get_mut(position) += 1;
        Ok(cost)
    }

    fn upgrade_production(&mut self, city: Square, resource: Resource) -> Res<Resources> {
        self.own_city(city)?;
        if self.prod_upgraded.contains(&(city, resource)) {
            return Err(Refusal::ProductionOncePerRound);
        }
        self.step_limit()?;
        let cost = if resource.is_ordinary() {
            build_cost::production_ordinary()
        } else {
            build_cost::production_slave_or_crystal()
        };
        let cost = self.pay(cost)?;
        self.prod_upgraded.insert((city, resource));
        self.steps += 1;
        if let Some(c) = self.city_mut(city) {
            let v = c.production.get(resource).saturating_add(1);
            c.production.set(resource, v);
        }
        Ok(cost)
    }

    fn step_limit(&self) -> Res<()> {
        let max = self.step_limit;
        if self.steps >= max {
            return Err(Refusal::StepLimit { max });
        }
        Ok(())
    }

    // ---------------------------------------------------------------- magic

    fn cast(&mut self, spell: Spell, target: &Target) -> Res<Resources> {
        if self.spells.contains(&spell) {
            return Err(Refusal::SpellCast { spell });
        }
        if spell == Spell::Avsloja && self.s.revealed_by_mail(self.realm) {
            return Err(Refusal::RevealUsedByMail);
        }
        match target {
            // Reveal may name the spell it looks for (the grammar gives no other spell one).
            Target::None | Target::Spell(_) => {}
            Target::Realm(r) => {
                self.realm_name(r, OrderKind::Spell)?;
            }
            Target::City(sq) => {
                if !self.s.cities.iter().any(|c| c.square == *sq) {
                    return Err(Refusal::NoCityToCastOn { square: *sq });
                }
            }
            Target::Square(sq) => {
                self.square(*sq)?;
            }
            Target::Army(sel) => self.spell_on_group(spell, *sel, true)?,
            Target::Fleet(sel) => self.spell_on_group(spell, *sel, false)?,
            Target::ArmyTo { army, to } => {
                self.spell_on_group(spell, *army, true)?;
                if self.square(*to)?.terrain != Terrain::Land {
                    return Err(Refusal::TeleportToLand { square: *to });
                }
            }
        }
        let cost = self.pay(spell.cost())?;
        self.spells.insert(spell);
        Ok(cost)
    }

    /// An army or fleet target: an own group by number, or a square.
    fn spell_on_group(&mut self, spell: Spell, sel: GroupSel, army: bool) -> Res<()> {
        match sel {
            GroupSel::Id(id) => {
                let g = if army {
                    Group::Army(id)
                } else {
                    Group::Fleet(id)
                };
                self.group(g)?;
                if spell == Spell::Virvelvind {
                    self.whirlwind.insert(g);
                }
            }
            GroupSel::At(sq) => {
                self.square(sq)?;
            }
        }
        Ok(())
    }

    // ------------------------------------------------- movement and groups

    fn movement(&mut self, o: &Order) -> Res<()> {
        match o {
            Order::Move { group, path } => self.move_group(*group, path),
            Order::Embark { army, fleet } => self.embark(*army, *fleet),
            Order::Disembark { army, square } => {
                self.group(Group::Army(*army))?;
                if !self.fleets.iter().copied().any(|f| f.cargo.contains(army)) {
                    return Err(Refusal::NotAboard { army: *army });
                }
                if let Some(sq) = square {
                    self.square(*sq)?;
                }
                self.plan(Group::Army(*army), "landstiger".into(), "disembarks".into());
                Ok(())
            }
            Order::PickUp { fleet, army } => {
                self.group(Group::Fleet(*fleet))?;
                self.group(Group::Army(*army))?;
                Ok(())
            }
            Order::Merge { group, other } => self.merge(*group, *other),
            Order::Split { group, pieces } => self.split(*group, pieces),
            Order::Reorder { group, pieces } => {
                if self.pieces_of(*group)? != tally(pieces) {
                    return Err(Refusal::ReorderAll);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn move_group(&mut self, group: Group, path: &[Square]) -> Res<()> {
        let (from, mp) = self.group(group)?;
        self.not_moved(group)?;
        if let Group::Army(id) = group {
            let a = self.army(id).expect("checked");
            if a.no_move_until_round
                .is_some_and(|r| r.get() >= self.s.round)
            {
                return Err(Refusal::CameByInvitation);
            }
        }
        let points = mp + u32::from(self.whirlwind.contains(&group));
        let steps = u32::try_from(path.len()).unwrap_or(u32::MAX);
        if steps > points {
            return Err(Refusal::TooFar { steps, points });
        }
        let diag = self.s.settings.adjacency == 8;
        let (w, h) = (self.s.map.width, self.s.map.height);
        let mut at = from;
        for &sq in path {
            let m = self.square(sq)?;
            // Naming the square again steps through its portal (R-EVIL-15).
            let through_portal = sq == at && m.portal.is_some() && group.is_army();
            if !through_portal && !at.touches(sq, w, h, diag) {
                return Err(Refusal::NotAdjacent { from: at, to: sq });
            }
            at = sq;
        }
        self.moved.insert(group);
        self.plan(
            group,
            format!("flyttar till {at}"),
            format!("moves to {at}"),
        );
        Ok(())
    }

    fn embark(&mut self, army: u32, fleet: u32) -> Res<()> {
        self.group(Group::Army(army))?;
        self.group(Group::Fleet(fleet))?;
        let f = self.fleet(fleet).expect("checked");
        let aboard = self.units_aboard(f);
        let n = self.army(army).expect("checked").units.len() as u32;
        let cap = f.capacity(&self.s.settings);
        if aboard.saturating_add(n) > cap {
            return Err(Refusal::FleetFull { cap, aboard });
        }
        self.plan(
            Group::Army(army),
            format!("går ombord på flotta {fleet}"),
            format!("embarks on fleet {fleet}"),
        );
        Ok(())
    }

    /// Army units aboard the own fleet `f`.
    fn units_aboard(&self, f: &Fleet) -> u32 {
        let armies = f.cargo.iter().filter_map(|id| self.army(*id));
        armies.fold(0u32, |n, a| n.saturating_add(a.units.len() as u32))
    }

    /// Army `other` joining army `id` aboard a fleet boards that fleet: its units must
    /// fit beside the armies already aboard (R-NAV-3).
    fn join_aboard(&self, id: u32, other: u32) -> Res<()> {
        let Some(f) = self.fleets.iter().find(|f| f.cargo.contains(&id)) else {
            return Ok(());
        };
        if f.cargo.contains(&other) {
            return Ok(());
        }
        let aboard = self.units_aboard(f);
        let joining = self.army(other).map_or(0, |a| a.units.len() as u32);
        let cap = f.capacity(&self.s.settings);
        if aboard.saturating_add(joining) > cap {
            return Err(Refusal::FleetFull { cap, aboard });
        }
        Ok(())
    }

    fn merge(&mut self, group: Group, other: u32) -> Res<()> {
        let o = if group.is_army() {
            Group::Army(other)
        } else {
            Group::Fleet(other)
        };
        self.group(group)?;
        self.group(o)?;
        if group.id() == other {
            return Err(Refusal::MergeWithItself);
        }
        if group.is_army() {
            self.join_aboard(group.id(), other)?;
        }
        self.plan(
            o,
            format!("går upp i {}", group.render(Lang::Sv)),
            format!("joins {}", group.render(Lang::En)),
        );
        Ok(())
    }

    fn split(&mut self, group: Group, pieces: &[(u32, Piece)]) -> Res<()> {
        let have = self.pieces_of(group)?;
        let want = tally(pieces);
        let total = total_of(have.values().copied());
        let take = total_of(want.values().copied());
        if want
            .iter()
            .any(|(p, n)| have.get(p).copied().unwrap_or(0) < *n)
            || take >= total
        {
            return Err(Refusal::SplitPieces);
        }
        if let Group::Fleet(id) = group {
            // The armies aboard stay with the ships left, which must carry them (R-NAV-3).
            let f = self.fleet(id).expect("checked");
            let mut left = want;
            let staying: Vec<Ship> = f
                .ships
                .iter()
                .filter(|s| match left.get_mut(&Piece::Ship(s.kind)) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        false
                    }
                    _ => true,
                })
                .cloned()
                .collect();
            let cap = Fleet::capacity_of(&staying, &self.s.settings);
            let aboard = self.units_aboard(f);
            if aboard > cap {
                return Err(Refusal::SplitLeavesCargo { cap, aboard });
            }
        }
        if group.is_army() {
            self.room.new_group(&self.positions).map_err(refusal)?;
            self.room.army_groups += 1;
        }
        Ok(())
    }

    fn not_moved(&self, g: Group) -> Res<()> {
        if self.moved.contains(&g) {
            return Err(Refusal::AlreadyMoving);
        }
        Ok(())
    }

    fn pieces_of(&self, g: Group) -> Res<BTreeMap<Piece, u32>> {
        self.group(g)?;
        let mut m = BTreeMap::new();
        match g {
            Group::Army(id) => {
                for u in &self.army(id).expect("checked").units {
                    *m.entry(Piece::Unit(u.kind)).or_insert(0) += 1;
                }
            }
            Group::Fleet(id) => {
                let f = self.fleet(id).expect("checked");
                for s in &f.ships {
                    *m.entry(Piece::Ship(s.kind)).or_insert(0) += 1;
                }
            }
        }
        Ok(m)
    }

    // --------------------------------------------------------------- combat

    fn attack(&mut self, o: &Order) -> Res<()> {
        let Order::Attack {
            group,
            square,
            outcome,
            wave,
        } = o
        else {
            return Ok(());
        };
        let square = *square;
        self.group(*group)?;
        self.square(square)?;
        let city = self.s.cities.iter().find(|c| c.square == square);
        match (city, outcome) {
            (Some(c), _) if c.owner == self.realm => {
                return Err(Refusal::OwnCityAttacked { square })
            }
            (Some(_), None) => return Err(Refusal::ChooseOutcome),
            (None, Some(_)) => return Err(Refusal::NoCityToTake { square }),
            _ => {}
        }
        let waves = self.attacks.entry(square).or_default();
        if !waves.is_empty()
            && (wave.is_none() || waves.contains(wave) || waves.contains(&None) || waves.len() >= 2)
        {
            return Err(Refusal::Waves);
        }
        waves.push(*wave);
        self.plan(
            *group,
            format!("anfaller {square}"),
            format!("attacks {square}"),
        );
        Ok(())
    }

    // ---------------------------------------------------------- invitations

    fn invitation(&mut self, o: &Order) -> Res<Resources> {
        match o {
            Order::UseInvitation { from, group } => {
                self.use_invitation(from, *group)?;
                Ok(Resources::ZERO)
            }
            Order::HomeInvitation { group } => self.home_invitation(*group),
            _ => Ok(Resources::ZERO),
        }
    }

    fn use_invitation(&mut self, from: &str, group: Group) -> Res<()> {
        let from = self.realm_name(from, OrderKind::Invitation)?;
        self.group(group)?;
        let realm = self.s.realm(self.realm).expect("checked");
        let inv = realm
            .invitations
            .iter()
            .find(|i| {
                i.from == from
                    && !i.used
                    && i.valid_until_round >= self.s.round
                    && !self.invitations.contains(&i.id)
            })
            .ok_or_else(|| Refusal::NoInvitation {
                from: from.to_string(),
            })?;
        self.invitations.insert(inv.id);
        self.plan(
            group,
            format!("går till {} (inbjudan)", inv.square),
            format!("goes to {} (invitation)", inv.square),
        );
        Ok(())
    }

    /// R-INV-8: step 9 brings the group home once (after the courier's call, or on the
    /// form's first line for it), to the capital or the main harbour as the form finds
    /// them, and charges an envoy beyond the free ones (Rulings 15; the free ones are
    /// counted again after the last line, as step 9 counts them after step 1).
    fn home_invitation(&mut self, group: Group) -> Res<Resources> {
        let (sq, _) = self.group(group)?;
        if self.s.map.get(sq).and_then(|m| m.owner.as_deref()) == Some(self.realm) {
            return Err(Refusal::AlreadyHome);
        }
        let round = self.s.round;
        let by_mail = self.s.home_invitations.iter().any(|h| {
            h.valid_until_round >= round
                && match &h.target {
                    GroupRef::Army { owner, id } => {
                        *owner == self.realm && group == Group::Army(*id)
                    }
                    GroupRef::Fleet { owner, id } => {
                        *owner == self.realm && group == Group::Fleet(*id)
                    }
                }
        });
        if by_mail || self.called_home.contains(&group) {
            return Err(Refusal::CalledHome);
        }
        let realm = self.s.realm(self.realm).expect("checked");
        let seat = if group.is_army() {
            realm.capital
        } else {
            realm.main_harbour
        };
        if seat.is_none() {
            return Err(Refusal::NoSeat {
                army: group.is_army(),
            });
        }
        let free = self.positions.sprakror;
        self.envoys += 1;
        let cost = if self.envoys > free {
            AgentKind::Sandebud.cost()
        } else {
            Resources::ZERO
        };
        let cost = self.pay(cost).inspect_err(|_| self.envoys -= 1)?;
        self.called_home.insert(group);
        self.plan(group, "kallas hem".into(), "is called home".into());
        Ok(cost)
    }

    // -------------------------------------------------------------- economy

    fn economy(&mut self, o: &Order) -> Res<Resources> {
        match o {
            Order::Bid { offer } => self.bid(offer),
            Order::Engineers { pay } => self.engineers(pay),
            Order::Research { kind } => {
                // Engineers bought on this form, on any line, count: the weekend buys
                // them before the research roll (after the last line, below).
                let realm = self.s.realm(self.realm).expect("checked");
                if realm.researched.contains(kind) {
                    return Err(Refusal::AlreadyResearched);
                }
                self.once(Once::Research)?;
                Ok(Resources::ZERO)
            }
            _ => Ok(Resources::ZERO),
        }
    }

    fn bid(&mut self, offer: &[Amount]) -> Res<Resources> {
        let Some(fm) = self
            .s
            .free_merchant
            .as_ref()
            .filter(|f| f.round == self.s.round)
        else {
            return Err(Refusal::NoFreeMerchant);
        };
        let b = sum(offer);
        // The weekend's own valuation (R-FREE-3, Rulings 40): crystals double, the
        // ruler's double bids (chosen before or on this form), the conflict penalty
        // after a battle last weekend.
        let doubled = double_bids(self.s, self.realm) || self.double_bids;
        let fought = self
            .s
            .realm(self.realm)
            .is_some_and(|r| r.fought_last_weekend);
        let value = bid_worth(&b, doubled, fought, self.s.settings.conflict_penalty);
        if value < u64::from(fm.min_bid) {
            return Err(Refusal::BidTooLow {
                value: u32::try_from(value).unwrap_or(u32::MAX),
                min: fm.min_bid,
                offer: b,
                doubled,
                penalty: if fought {
                    self.s.settings.conflict_penalty
                } else {
                    0
                },
            });
        }
        let evil = self.s.realm(self.realm).is_some_and(|r| r.is_evil);
        if matches!(fm.lot, Lot::Units { kind, .. } if kind.is_demon() && !evil) {
            return Err(Refusal::DemonsOnlyForTheEvil);
        }
        self.once(Once::Bid)?;
        self.pay(b).inspect_err(|_| {
            self.once.remove(&Once::Bid);
        })
    }

    fn engineers(&mut self, pay: &[Amount]) -> Res<Resources> {
        if self.s.realm(self.realm).expect("checked").engineers {
            return Err(Refusal::HasEngineers);
        }
        let b = sum(pay);
        let price = self.s.settings.engineers_price;
        if total_of(b.iter().map(|(_, n)| n)) < price {
            return Err(Refusal::EngineersPrice { price });
        }
        self.once(Once::Engineers)?;
        let cost = self.pay(b).inspect_err(|_| {
            self.once.remove(&Once::Engineers);
        })?;
        self.engineers = true;
        Ok(cost)
    }

    /// What the weekend decides after the lines of step 1, whatever their place on
    /// the form: research needs engineers held or bought on the form (R-ENG-1), and a
    /// lot of troops must fit under the population cap the purchases and placements
    /// left, with the troops still waiting (Rulings 8). A bid refused here gives its
    /// price back to the stock left.
    fn after_the_last_line(
        &mut self,
        parsed: &[(usize, String, Result<Order, LineError>)],
        verdicts: &mut [Option<(Res<Resources>, Option<Order>)>],
    ) {
        let Some(realm) = self.s.realm(self.realm) else {
            return;
        };
        let waiting = total_of(realm.unplaced_troops.iter().map(|(_, n)| *n))
            .saturating_sub(total_of(self.placed.values().copied()));
        let lot = self
            .s
            .free_merchant
            .as_ref()
            .filter(|f| f.round == self.s.round)
            .and_then(|f| match f.lot {
                Lot::Units { count, .. } => Some(count),
                _ => None,
            });
        // Step 9 counts the free envoys with Språkrör after step 1, so an upgrade below
        // a home-invitation frees it too (R-INV-8, Rulings 15).
        let mut envoys = realm.sent.envoys;
        for ((_, _, p), verdict) in parsed.iter().zip(verdicts.iter_mut()) {
            let Some((res @ Ok(_), _)) = verdict else {
                continue;
            };
            match p {
                Ok(Order::HomeInvitation { .. }) => {
                    envoys = envoys.saturating_add(1);
                    if envoys <= self.positions.sprakror {
                        if let Ok(cost) = res {
                            self.stock = self.stock.plus(cost);
                            *cost = Resources::ZERO;
                        }
                    }
                }
                Ok(Order::Research { .. }) if !realm.engineers && !self.engineers => {
                    *res = Err(Refusal::NeedsEngineers);
                }
                Ok(Order::Bid { .. }) => {
                    let Some(n) = lot else { continue };
                    let room = Room {
                        counted: self.room.counted.saturating_add(waiting),
                        ..self.room
                    };
                    if let Err(over) = room.population_cap(n) {
                        if let Ok(cost) = res {
                            self.stock = self.stock.plus(cost);
                        }
                        *res = Err(refusal(over));
                    }
                }
                _ => {}
            }
        }
    }

    // --------------------------------------------------- diplomacy and realm

    fn diplomacy(&mut self, o: &Order) -> Res<()> {
        match o {
            Order::Vote { realm } => self.vote(realm),
            Order::Friend { realm } | Order::NotFriend { realm } => {
                self.other_realm(realm, OrderKind::Friend)?;
                Ok(())
            }
            Order::Capital { city } => {
                self.seat_city(*city)?;
                Ok(())
            }
            Order::MainHarbour { city } => {
                if !self.seat_city(*city)?.coastal {
                    return Err(Refusal::HarbourNotCoastal { square: *city });
                }
                Ok(())
            }
            Order::TradeWishes { .. } => self.once(Once::Wishes),
            Order::RulerBenefit { benefit } => {
                // The ruler in its term (R-VOTE-5, Rulings 49): the weekend refuses the
                // same choice from a ruler whose term has ended, so the receipt does too.
                let round = self.s.round;
                let in_term = |r: &&Ruler| {
                    r.realm == self.realm && r.from_round <= round && round < r.until_round
                };
                let Some(ruler) = self.s.ruler.as_ref().filter(in_term) else {
                    return Err(Refusal::NotTheRuler);
                };
                if ruler.benefit.is_some() {
                    return Err(Refusal::BenefitChosen);
                }
                self.once(Once::Benefit)?;
                self.double_bids = *benefit == RulerBenefit::DoubleBids;
                if *benefit == RulerBenefit::Population {
                    // Ten more in every city held, before step 1 (R-VOTE-5).
                    for c in self.cities.values_mut() {
                        c.population = c.population.saturating_add(BENEFIT_POPULATION);
                        self.room.population =
                            self.room.population.saturating_add(BENEFIT_POPULATION);
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn vote(&mut self, realm: &str) -> Res<()> {
        let every = self.s.settings.vote_every.max(1);
        if !self.s.round.is_multiple_of(every) {
            return Err(Refusal::NoVoteThisRound);
        }
        let n = self.other_realm(realm, OrderKind::Vote)?;
        if self.s.realm(n).is_some_and(|r| r.is_evil) {
            return Err(Refusal::EvilTakesNoVote);
        }
        self.once(Once::Vote)
    }

    // -------------------------------------------------------------- rewards

    /// R-VP-4; RULINGS 47 — one reward per threshold reached and not yet
    /// rewarded; rewards do not spend VP.
    fn vp_reward(&mut self, reward: &Reward) -> Res<()> {
        let realm = self.s.realm(self.realm).expect("checked");
        let step = self.s.settings.vp_threshold_step.max(1);
        let open = (1..=realm.vp.max(0) / step)
            .map(|k| k * step)
            .filter(|t| !realm.vp_rewards_taken.contains(t))
            .count() as u32;
        if self.rewards >= open {
            let next = (realm.vp.div_euclid(step) + 1) * step;
            return Err(Refusal::NoReward { next });
        }
        match reward {
            Reward::Position(p) => *self.positions.get_mut(*p) += 1,
            Reward::Production { city, resource } => {
                self.own_city(*city)?;
                if realm.production(self.s).get(*resource) == 0 {
                    return Err(Refusal::RewardNotProduced {
                        resource: *resource,
                    });
                }
            }
            Reward::Resources(v) => {
                let worth = total_of(v.iter().map(|a| {
                    if a.resource.is_crystal() || a.resource == Resource::Slavar {
                        a.count.saturating_mul(2)
                    } else {
                        a.count
                    }
                }));
                if worth != 25 {
                    return Err(Refusal::RewardWorth { worth });
                }
                self.stock = self.stock.plus(&sum(v));
            }
        }
        self.rewards += 1;
        Ok(())
    }

    /// R-FREE-9: troops bought from the free merchants go to own cities,
    /// no more of a kind than wait for placement.
    fn place_troops(&mut self, placements: &[(u32, UnitKind, Square)]) -> Res<()> {
        let realm = self.s.realm(self.realm).expect("checked");
        let waiting = |k: UnitKind| -> u32 {
            total_of(
                realm
                    .unplaced_troops
                    .iter()
                    .filter(|(x, _)| *x == k)
                    .map(|(_, n)| *n),
            )
        };
        // The whole line or nothing: the counts as they were, if a placement fails.
        let before = (self.room, self.new_group_at.clone());
        let mut placed = self.placed.clone();
        for (n, kind, city) in placements {
            let checked = self.place_one(&mut placed, *n, *kind, *city, &waiting);
            if let Err(why) = checked {
                (self.room, self.new_group_at) = before;
                return Err(why);
            }
        }
        self.placed = placed;
        Ok(())
    }

    /// One placement: an own city, no more than wait, and the caps of buying the same
    /// troops (R-FREE-9), checked as the weekend checks them.
    fn place_one(
        &mut self,
        placed: &mut BTreeMap<UnitKind, u32>,
        n: u32,
        kind: UnitKind,
        city: Square,
        waiting: &dyn Fn(UnitKind) -> u32,
    ) -> Res<()> {
        self.own_city(city)?;
        let total = placed.entry(kind).or_default();
        *total = total.saturating_add(n);
        if *total > waiting(kind) {
            return Err(Refusal::TooManyPlaced {
                kind,
                waiting: waiting(kind),
            });
        }
        self.troops(n, kind, city)
    }

    // ------------------------------------------------------ standing orders

    fn plan(&mut self, g: Group, sv: String, en: String) {
        self.plans.insert(g, (sv, en));
    }

    fn standing(&self) -> Vec<Standing> {
        let mut out = Vec::new();
        let groups = self
            .s
            .armies_of(self.realm)
            .map(|a| (Group::Army(a.id), a.square))
            .chain(
                self.s
                    .fleets_of(self.realm)
                    .map(|f| (Group::Fleet(f.id), f.square)),
            );
        for (g, sq) in groups {
            let (sv, en) = self
                .plans
                .get(&g)
                .cloned()
                .unwrap_or_else(|| (format!("står kvar på {sq}"), format!("stays on {sq}")));
            out.push(Standing {
                group: g,
                square: sq,
                sv: format!("{} {sv}", g.render(Lang::Sv)),
                en: format!("{} {en}", g.render(Lang::En)),
            });
        }
        out
    }
}

/// A cap passed (`game::caps`, as the weekend checks it), as the receipt's refusal.
fn refusal(o: Over) -> Refusal {
    let what = match o.cap {
        Cap::Population => {
            return Refusal::PopulationCap {
                counted: o.have,
                n: o.add,
                cap: o.limit,
            }
        }
        Cap::Ships => Capped::Ships,
        Cap::Spies => Capped::Spies,
        Cap::Elementals => Capped::Elementals,
        // `Room` never reports the wall cap (walls are checked per city, below).
        Cap::ArmyGroups | Cap::Walls => Capped::ArmyGroups,
    };
    Refusal::PositionCap {
        what,
        have: o.have,
        n: o.add,
        cap: o.limit,
    }
}

fn tally(pieces: &[(u32, Piece)]) -> BTreeMap<Piece, u32> {
    let mut m = BTreeMap::new();
    for (n, p) in pieces {
        let slot = m.entry(*p).or_insert(0u32);
        *slot = slot.saturating_add(*n);
    }
    m
}

#[cfg(test)]
mod overflow_tests {
    use super::*;

    #[test]
    fn lines_past_the_bound_are_one_refusal_quoting_the_first() {
        let s = crate::courier::tests::demo();
        let lines: Vec<(usize, String)> = (1..=MAX_ORDER_LINES + 5)
            .map(|i| (i, format!("KÖP {i} mat")))
            .collect();
        let c = check(&s, "Genogien", &lines);
        assert_eq!(c.lines.len(), MAX_ORDER_LINES + 1);
        let last = c.lines.last().unwrap();
        assert_eq!(last.line_no, MAX_ORDER_LINES + 1);
        assert!(last.text.starts_with("KÖP 1001 mat"), "{}", last.text);
        let sv = last.refusal.as_ref().unwrap().text(Lang::Sv);
        assert!(
            sv.contains("resten av formuläret lästes inte") && sv.contains("1000"),
            "{sv}"
        );
        let en = last.refusal.as_ref().unwrap().text(Lang::En);
        assert!(en.contains("the rest of the form were not read"), "{en}");
    }

    #[test]
    fn sums_of_player_counts_saturate_instead_of_wrapping() {
        let big = |resource| Amount {
            count: u32::MAX,
            resource,
        };
        let r = sum(&[big(Resource::Guld), big(Resource::Guld), big(Resource::Eld)]);
        assert_eq!(r.get(Resource::Guld), u32::MAX);
        assert_eq!(total_of([u32::MAX, 1, u32::MAX]), u32::MAX);
        let t = tally(&[
            (u32::MAX, Piece::Unit(UnitKind::LattInfanteri)),
            (7, Piece::Unit(UnitKind::LattInfanteri)),
        ]);
        assert_eq!(t[&Piece::Unit(UnitKind::LattInfanteri)], u32::MAX);
    }
}

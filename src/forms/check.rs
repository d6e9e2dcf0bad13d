//! Checking parsed orders against one realm's state: ownership of what an
//! order names, costs run down the stock in form order, the population cap
//! (README, Decisions), position caps and upgrade limits (R-POS; README, Decisions), one
//! cast per spell and round, squares and connected paths within movement
//! (README, Decisions). Everything else (combat, terrain, who meets whom) is
//! the engine's. Pure: reads `GameState`, never changes it.
//!
//! Step-1 purchases resolve in form order, so an accepted order's effects
//! (stock spent, +1 position, new units) count for the lines below it; an
//! order that fails is refused whole and later ones still get their turn.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::extract::Source;
use super::grammar::{parse_line, LineError};
use crate::game::lang::count;
use crate::game::orders::{Amount, Group, GroupSel, Order, Piece, Reward, Target, Wave};
use crate::game::state::{Positions, Researched, Terrain};
use crate::game::text::fold;
use crate::game::units::{build_cost, AgentKind};
use crate::game::{GameState, Lang, Position, Resource, Resources, Spell, Square, UnitKind};

/// Why an order was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "refusal", rename_all = "snake_case")]
pub enum Refusal {
    /// The line is no order (quoted, with the right form).
    Syntax(LineError),
    /// The order breaks a rule; `rule` is the rule ID.
    Rule {
        rule: String,
        sv: String,
        en: String,
    },
}

impl Refusal {
    pub fn text(&self, lang: Lang) -> String {
        match self {
            Refusal::Syntax(e) => format!(
                "{}. {}: {}",
                e.reason(lang),
                if lang == Lang::Sv {
                    "Rätt form"
                } else {
                    "Right form"
                },
                e.right_form(lang)
            ),
            Refusal::Rule { rule, sv, en } => match lang {
                Lang::Sv => format!("{sv} ({rule})"),
                Lang::En => format!("{en} ({rule})"),
            },
        }
    }
}

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

fn rf(rule: &str, sv: impl Into<String>, en: impl Into<String>) -> Refusal {
    Refusal::Rule {
        rule: rule.to_string(),
        sv: sv.into(),
        en: en.into(),
    }
}

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

/// Running state while walking down the form.
struct Run<'a> {
    s: &'a GameState,
    realm: &'a str,
    stock: Resources,
    positions: Positions,
    upgraded: BTreeSet<Position>,
    steps: u32,
    prod_upgraded: BTreeSet<(Square, Resource)>,
    counted: u32,
    cap: u32,
    ships: u32,
    elementals: u32,
    spies: u32,
    groups: u32,
    new_group_at: BTreeSet<Square>,
    spells: BTreeSet<Spell>,
    plans: BTreeMap<Group, (String, String)>,
    moved: BTreeSet<Group>,
    attacks: BTreeMap<Square, Vec<Option<Wave>>>,
    whirlwind: BTreeSet<Group>,
    once: BTreeSet<&'static str>,
    invitations: BTreeSet<u64>,
    new_cities: BTreeSet<Square>,
    walls: BTreeMap<Square, u32>,
    envoys: u32,
    /// VP-threshold rewards claimed by the lines above (R-VP-4).
    rewards: u32,
    /// Free-merchant troops placed by the lines above (R-FREE-9).
    placed: BTreeMap<UnitKind, u32>,
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
        refusal: Some(rf(
            "pbemd",
            format!("denna rad och resten av formuläret lästes inte: ett formulär läses till högst {MAX_ORDER_LINES} orderrader"),
            format!("this line and the rest of the form were not read: a form is read to at most {MAX_ORDER_LINES} order lines"),
        )),
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
    let count = state.counted_units(realm);
    let mut run = Run {
        s: state,
        realm,
        stock,
        positions: r.map(|r| r.positions).unwrap_or_default(),
        upgraded: BTreeSet::new(),
        steps: 0,
        prod_upgraded: BTreeSet::new(),
        counted: count.counted(),
        cap: state.population(realm) / 10,
        ships: count.ships,
        elementals: count.elementals,
        spies: count.spies,
        groups: count.army_groups,
        new_group_at: BTreeSet::new(),
        spells: BTreeSet::new(),
        plans: BTreeMap::new(),
        moved: BTreeSet::new(),
        attacks: BTreeMap::new(),
        whirlwind: BTreeSet::new(),
        once: BTreeSet::new(),
        invitations: BTreeSet::new(),
        new_cities: BTreeSet::new(),
        walls: BTreeMap::new(),
        envoys: r.map_or(0, |r| r.sent.envoys),
        rewards: 0,
        placed: BTreeMap::new(),
    };
    let mut lines = Vec::new();
    for (line_no, text, p) in parsed {
        let (order, refusal, cost) = match p {
            Err(e) => (None, Some(Refusal::Syntax(e)), Resources::ZERO),
            Ok(o) => {
                let res = if r.is_none() {
                    Err(rf("R-GEN", "okänt land", "unknown realm"))
                } else {
                    run.order(&o)
                };
                match res {
                    Ok(cost) => (Some(o), None, cost),
                    Err(why) => (Some(o), Some(why), Resources::ZERO),
                }
            }
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
                Err(rf(
                    "R-BUILD-4",
                    format!(
                        "lagret räcker inte: kostar {}, saknas {}",
                        cost.describe(Lang::Sv),
                        short.describe(Lang::Sv)
                    ),
                    format!(
                        "the stock does not cover it: costs {}, short of {}",
                        cost.describe(Lang::En),
                        short.describe(Lang::En)
                    ),
                ))
            }
        }
    }

    fn once(&mut self, key: &'static str, rule: &str, sv: &str, en: &str) -> Res<()> {
        if self.once.insert(key) {
            Ok(())
        } else {
            Err(rf(rule, sv, en))
        }
    }

    fn own_city(&self, sq: Square) -> Res<&'a crate::game::state::City> {
        self.s
            .cities_of(self.realm)
            .find(|c| c.square == sq)
            .ok_or_else(|| {
                rf(
                    "R-CITY-1",
                    format!("{sq} är ingen egen stad"),
                    format!("{sq} is not a city of yours"),
                )
            })
    }

    fn square(&self, sq: Square) -> Res<&'a crate::game::state::MapSquare> {
        self.s.map.get(sq).ok_or_else(|| {
            rf(
                "R-MOVE-12",
                format!("rutan {sq} finns inte på kartan"),
                format!("square {sq} is not on the map"),
            )
        })
    }

    fn realm_name(&self, name: &str) -> Res<&'a str> {
        self.s
            .realms
            .iter()
            .find(|r| fold(&r.name) == fold(name))
            .map(|r| r.name.as_str())
            .ok_or_else(|| {
                rf(
                    "R-GEN",
                    format!("inget land heter {name}"),
                    format!("no realm is called {name}"),
                )
            })
    }

    fn other_realm(&self, name: &str) -> Res<&'a str> {
        let n = self.realm_name(name)?;
        if n == self.realm {
            return Err(rf(
                "R-GEN",
                "det är ditt eget land",
                "that is your own realm",
            ));
        }
        Ok(n)
    }

    /// The square and movement of an own group.
    fn group(&self, g: Group) -> Res<(Square, u32)> {
        let rule = self.s.settings.group_movement;
        let found = match g {
            Group::Army(id) => self
                .s
                .army(self.realm, id)
                .map(|a| (a.square, a.movement(rule))),
            Group::Fleet(id) => self
                .s
                .fleets_of(self.realm)
                .find(|f| f.id == id)
                .map(|f| (f.square, f.movement(rule))),
        };
        found.ok_or_else(|| {
            rf(
                "R-MOVE-1",
                format!("du har ingen {}", g.render(Lang::Sv)),
                format!("you have no {}", g.render(Lang::En)),
            )
        })
    }

    fn pop_cap(&self, n: u32) -> Res<()> {
        if self.counted + n > self.cap {
            return Err(rf(
                "R-POP-2",
                format!(
                    "befolkningstaket: {} + {n} > {} (befolkning/10)",
                    count(self.counted, "räknad enhet", "räknade enheter"),
                    self.cap
                ),
                format!(
                    "population cap: {} + {n} > {} (population/10)",
                    count(self.counted, "counted unit", "counted units"),
                    self.cap
                ),
            ));
        }
        Ok(())
    }

    fn pos_cap(&self, what: (&str, &str), have: u32, n: u32, cap: u32, rule: &str) -> Res<()> {
        if have + n > cap {
            return Err(rf(
                rule,
                format!("tak för {}: {have} + {n} > {cap}", what.0),
                format!("{} cap: {have} + {n} > {cap}", what.1),
            ));
        }
        Ok(())
    }

    fn order(&mut self, o: &Order) -> Res<Resources> {
        let zero = Ok(Resources::ZERO);
        match o {
            Order::BuyUnits { count, kind, city } => self.buy_units(*count, *kind, *city),
            Order::BuyShips { count, kind, city } => {
                let realm = self.s.realm(self.realm).expect("checked");
                let sq = city.or(realm.main_harbour).ok_or_else(|| {
                    rf(
                        "RULINGS 13",
                        "ange en stad vid kusten",
                        "name a coastal city",
                    )
                })?;
                let c = self.own_city(sq)?;
                if !c.coastal {
                    return Err(rf(
                        "RULINGS 13",
                        format!("{sq} ligger inte vid kusten"),
                        format!("{sq} is not coastal"),
                    ));
                }
                let unit = match kind.cost() {
                    Some(c) => c,
                    None => {
                        if !realm.researched.contains(&Researched::Fregatt) {
                            return Err(rf(
                                "R-ENG-3",
                                "fregatter är inte utvecklade",
                                "frigates are not researched",
                            ));
                        }
                        self.s.settings.research_costs.fregatt.ok_or_else(|| {
                            rf(
                                "RULINGS 41",
                                "SL har inte satt fregattens pris",
                                "the GM has not set the frigate's cost",
                            )
                        })?
                    }
                };
                self.pos_cap(
                    ("skepp", "ship"),
                    self.ships,
                    *count,
                    5 * self.positions.amiral,
                    "R-NAV-5",
                )?;
                self.pop_cap(*count)?;
                let cost = self.pay(unit.times(*count))?;
                self.ships += count;
                self.counted += count;
                Ok(cost)
            }
            Order::BuySpies { count } => {
                self.pos_cap(
                    ("spioner", "spy"),
                    self.spies,
                    *count,
                    self.positions.informator,
                    "RULINGS 43",
                )?;
                self.pop_cap(*count)?;
                let cost = self.pay(AgentKind::Spion.cost().times(*count))?;
                self.spies += count;
                self.counted += count;
                Ok(cost)
            }
            Order::BuyWalls { count, city } => {
                let c = self.own_city(*city)?;
                let have = c.walls + self.walls.get(city).copied().unwrap_or(0);
                if have + count > c.wall_cap() {
                    return Err(rf(
                        "RULINGS 36",
                        format!("murtak i {city}: {have} + {count} > {}", c.wall_cap()),
                        format!("wall cap in {city}: {have} + {count} > {}", c.wall_cap()),
                    ));
                }
                let cost = self.pay(build_cost::wall().times(*count))?;
                *self.walls.entry(*city).or_insert(0) += count;
                Ok(cost)
            }
            Order::BuyCity { square, production } => {
                let m = self.square(*square)?;
                if m.terrain != Terrain::Land || m.owner.as_deref() != Some(self.realm) {
                    return Err(rf(
                        "RULINGS 27",
                        format!("{square} är inte egen mark"),
                        format!("{square} is not your own land"),
                    ));
                }
                if self.s.cities.iter().any(|c| c.square == *square)
                    || !self.new_cities.insert(*square)
                {
                    return Err(rf(
                        "RULINGS 27",
                        format!("det finns redan en stad på {square}"),
                        format!("there is already a city on {square}"),
                    ));
                }
                let p = sum(production);
                let standard = &self.s.realm(self.realm).expect("checked").standard;
                if p.iter().any(|(_, n)| n > 5)
                    || p.total() != 10
                    || p.iter().any(|(r, n)| n > 0 && !standard.contains(&r))
                {
                    self.new_cities.remove(square);
                    let list_sv: Vec<&str> = standard.iter().map(|r| r.name(Lang::Sv)).collect();
                    let list_en: Vec<&str> = standard.iter().map(|r| r.name(Lang::En)).collect();
                    return Err(rf(
                        "R-CITY-2",
                        format!("10 produktionspoäng, högst 5 per resurs, bara standardresurser ({})", list_sv.join(", ")),
                        format!("10 production points, at most 5 per resource, standard resources only ({})", list_en.join(", ")),
                    ));
                }
                self.pay(build_cost::new_city()).inspect_err(|_| {
                    self.new_cities.remove(square);
                })
            }
            Order::BuyPopulation { count, city } => {
                self.own_city(*city)?;
                self.pay(build_cost::population().times(*count))
            }
            Order::UpgradePosition { position, crystals } => {
                if self.upgraded.contains(position) {
                    return Err(rf(
                        "R-POS-2",
                        "högst +1 per befattning och runda",
                        "at most +1 per position a round",
                    ));
                }
                self.step_limit()?;
                let chosen = if crystals.is_empty() {
                    let mut left = build_cost::POSITION_CRYSTALS;
                    let mut c = Resources::ZERO;
                    for r in Resource::CRYSTALS {
                        let take = left.min(self.stock.get(r));
                        c.set(r, take);
                        left -= take;
                    }
                    c
                } else {
                    let c = sum(crystals);
                    if c.total() != build_cost::POSITION_CRYSTALS
                        || c.iter().any(|(r, n)| n > 0 && !r.is_crystal())
                    {
                        return Err(rf(
                            "R-BUILD-1",
                            "betala med precis 5 kristaller",
                            "pay with exactly 5 crystals",
                        ));
                    }
                    c
                };
                let mut cost = build_cost::position_fixed().plus(&chosen);
                if chosen.total() < build_cost::POSITION_CRYSTALS {
                    // Short of crystals: ask for 5 of the first kind so the
                    // refusal names what is missing.
                    cost = build_cost::position_fixed()
                        .plus(&Resources::from_pairs(&[(Resource::Eld, 5)]));
                }
                let cost = self.pay(cost)?;
                self.upgraded.insert(*position);
                self.steps += 1;
                *self.positions.get_mut(*position) += 1;
                Ok(cost)
            }
            Order::UpgradeProduction { city, resource } => {
                self.own_city(*city)?;
                if self.prod_upgraded.contains(&(*city, *resource)) {
                    return Err(rf(
                        "R-BUILD-2",
                        "högst +1 per resurs och stad och runda",
                        "at most +1 per resource and city a round",
                    ));
                }
                self.step_limit()?;
                let cost = if resource.is_ordinary() {
                    build_cost::production_ordinary()
                } else {
                    build_cost::production_slave_or_crystal()
                };
                let cost = self.pay(cost)?;
                self.prod_upgraded.insert((*city, *resource));
                self.steps += 1;
                Ok(cost)
            }
            Order::ConvertSlaves { count, resource } => {
                let realm = self.s.realm(self.realm).expect("checked");
                if !resource.is_ordinary() || realm.production(self.s).get(*resource) == 0 {
                    return Err(rf(
                        "RULINGS 2",
                        "slavar blir bara en vanlig resurs som landet producerar",
                        "slaves convert only to an ordinary resource the realm produces",
                    ));
                }
                self.pay(Resources::from_pairs(&[(Resource::Slavar, *count)]))
            }
            Order::Cast { spell, target } => self.cast(*spell, target),
            Order::Move { group, path } => {
                let (from, mp) = self.group(*group)?;
                self.not_moved(*group)?;
                if let Group::Army(id) = group {
                    let a = self.s.army(self.realm, *id).expect("checked");
                    if a.no_move_until_round.is_some_and(|r| r >= self.s.round) {
                        return Err(rf(
                            "R-INV-2",
                            "gruppen kom med inbjudan och får inte flytta",
                            "the group came by invitation and may not move",
                        ));
                    }
                }
                let bonus = u32::from(self.whirlwind.contains(group));
                let mp = mp + bonus;
                if path.len() as u32 > mp {
                    return Err(rf(
                        "R-MOVE-1",
                        format!("{} steg men bara {mp} förflyttningspoäng", path.len()),
                        format!(
                            "{} but only {}",
                            count(path.len(), "step", "steps"),
                            count(mp, "movement point", "movement points")
                        ),
                    ));
                }
                let diag = self.s.settings.adjacency == 8;
                let (w, h) = (self.s.map.width, self.s.map.height);
                let mut at = from;
                for &sq in path {
                    self.square(sq)?;
                    if !at.neighbours(w, h, diag).contains(&sq) {
                        return Err(rf(
                            "RULINGS 26",
                            format!("{sq} gränsar inte till {at}"),
                            format!("{sq} is not next to {at}"),
                        ));
                    }
                    at = sq;
                }
                self.moved.insert(*group);
                self.plan(
                    *group,
                    format!("flyttar till {at}"),
                    format!("moves to {at}"),
                );
                zero
            }
            Order::Embark { army, fleet } => {
                self.group(Group::Army(*army))?;
                self.group(Group::Fleet(*fleet))?;
                let f = self
                    .s
                    .fleets_of(self.realm)
                    .find(|f| f.id == *fleet)
                    .expect("checked");
                let aboard: u32 = f
                    .cargo
                    .iter()
                    .filter_map(|id| self.s.army(self.realm, *id))
                    .map(|a| a.units.len() as u32)
                    .sum();
                let n = self.s.army(self.realm, *army).expect("checked").units.len() as u32;
                let cap = f.capacity(&self.s.settings);
                if aboard + n > cap {
                    return Err(rf(
                        "R-NAV-3",
                        format!(
                            "flottan rymmer {}, {aboard} redan ombord",
                            count(cap, "enhet", "enheter")
                        ),
                        format!(
                            "the fleet carries {}, {aboard} already aboard",
                            count(cap, "unit", "units")
                        ),
                    ));
                }
                self.plan(
                    Group::Army(*army),
                    format!("går ombord på flotta {fleet}"),
                    format!("embarks on fleet {fleet}"),
                );
                zero
            }
            Order::Disembark { army, square } => {
                self.group(Group::Army(*army))?;
                if !self.s.fleets_of(self.realm).any(|f| f.cargo.contains(army)) {
                    return Err(rf(
                        "R-MOVE-3",
                        format!("armé {army} är inte ombord"),
                        format!("army {army} is not aboard"),
                    ));
                }
                if let Some(sq) = square {
                    self.square(*sq)?;
                }
                self.plan(Group::Army(*army), "landstiger".into(), "disembarks".into());
                zero
            }
            Order::PickUp { fleet, army } => {
                self.group(Group::Fleet(*fleet))?;
                self.group(Group::Army(*army))?;
                zero
            }
            Order::Merge { group, other } => {
                let o = if group.is_army() {
                    Group::Army(*other)
                } else {
                    Group::Fleet(*other)
                };
                self.group(*group)?;
                self.group(o)?;
                if group.id() == *other {
                    return Err(rf(
                        "R-MOVE-8",
                        "en grupp kan inte slås ihop med sig själv",
                        "a group cannot merge with itself",
                    ));
                }
                self.plan(
                    o,
                    format!("går upp i {}", group.render(Lang::Sv)),
                    format!("joins {}", group.render(Lang::En)),
                );
                zero
            }
            Order::Split { group, pieces } => {
                let have = self.pieces_of(*group)?;
                let want = tally(pieces);
                let total = total_of(have.values().copied());
                let take = total_of(want.values().copied());
                if want
                    .iter()
                    .any(|(p, n)| have.get(p).copied().unwrap_or(0) < *n)
                    || take >= total
                {
                    return Err(rf(
                        "R-MOVE-8",
                        "gruppen har inte de enheterna (och minst en måste stanna)",
                        "the group does not hold those units (and at least one must stay)",
                    ));
                }
                if group.is_army() {
                    self.pos_cap(
                        ("arméer", "army group"),
                        self.groups,
                        1,
                        2 * self.positions.befalhavare,
                        "R-POS-4",
                    )?;
                    self.groups += 1;
                }
                zero
            }
            Order::Reorder { group, pieces } => {
                if self.pieces_of(*group)? != tally(pieces) {
                    return Err(rf(
                        "R-COMBAT-9",
                        "räkna upp gruppens alla enheter, varken fler eller färre",
                        "list every unit of the group, no more and no fewer",
                    ));
                }
                zero
            }
            Order::Attack {
                group,
                square,
                outcome,
                wave,
            } => {
                let (from, _) = self.group(*group)?;
                self.square(*square)?;
                let city = self.s.cities.iter().find(|c| c.square == *square);
                match (city, outcome) {
                    (Some(c), _) if c.owner == self.realm => {
                        return Err(rf(
                            "R-CITY-4",
                            format!("{square} är din egen stad"),
                            format!("{square} is your own city"),
                        ))
                    }
                    (Some(_), None) => {
                        return Err(rf(
                            "R-CITY-4",
                            "välj plundra, överta eller rasera",
                            "choose plunder, takeover or raze",
                        ))
                    }
                    (None, Some(_)) => {
                        return Err(rf(
                            "R-CITY-4",
                            format!("ingen stad på {square} att plundra/överta/rasera"),
                            format!("no city on {square} to plunder/take over/raze"),
                        ))
                    }
                    _ => {}
                }
                let waves = self.attacks.entry(*square).or_default();
                if !waves.is_empty()
                    && (wave.is_none()
                        || waves.contains(wave)
                        || waves.contains(&None)
                        || waves.len() >= 2)
                {
                    return Err(rf(
                        "R-COMBAT-12",
                        "två anfall mot samma mål: skriv första och andra",
                        "two attacks on one target: write first and second",
                    ));
                }
                waves.push(*wave);
                let _ = from;
                self.plan(
                    *group,
                    format!("anfaller {square}"),
                    format!("attacks {square}"),
                );
                zero
            }
            Order::UseInvitation { from, group } => {
                let from = self.realm_name(from)?;
                self.group(*group)?;
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
                    .ok_or_else(|| {
                        rf(
                            "R-INV-3",
                            format!("ingen giltig inbjudan från {from}"),
                            format!("no valid invitation from {from}"),
                        )
                    })?;
                self.invitations.insert(inv.id);
                self.plan(
                    *group,
                    format!("går till {} (inbjudan)", inv.square),
                    format!("goes to {} (invitation)", inv.square),
                );
                zero
            }
            Order::HomeInvitation { group } => {
                let (sq, _) = self.group(*group)?;
                if self.s.map.get(sq).and_then(|m| m.owner.as_deref()) == Some(self.realm) {
                    return Err(rf(
                        "R-INV-8",
                        "gruppen är redan i ditt land",
                        "the group is already in your land",
                    ));
                }
                let free = self.positions.sprakror;
                self.envoys += 1;
                let cost = if self.envoys > free {
                    AgentKind::Sandebud.cost()
                } else {
                    Resources::ZERO
                };
                let cost = self.pay(cost).inspect_err(|_| self.envoys -= 1)?;
                self.plan(*group, "kallas hem".into(), "is called home".into());
                Ok(cost)
            }
            Order::Bid { offer } => {
                let Some(fm) = self
                    .s
                    .free_merchant
                    .as_ref()
                    .filter(|f| f.round == self.s.round)
                else {
                    return Err(rf(
                        "R-FREE-1",
                        "de fria köpmännen säljer inget denna runda",
                        "the free merchants sell nothing this round",
                    ));
                };
                let b = sum(offer);
                let value = total_of(b.iter().map(|(r, n)| {
                    if r.is_crystal() {
                        n.saturating_mul(2)
                    } else {
                        n
                    }
                }));
                if value < fm.min_bid {
                    return Err(rf(
                        "R-FREE-4",
                        format!("budet är värt {value}, minst {}", fm.min_bid),
                        format!("the bid is worth {value}, at least {}", fm.min_bid),
                    ));
                }
                self.once("bid", "R-FREE-2", "ett bud per runda", "one bid a round")?;
                self.pay(b).inspect_err(|_| {
                    self.once.remove("bid");
                })
            }
            Order::Engineers { pay } => {
                let realm = self.s.realm(self.realm).expect("checked");
                if realm.engineers {
                    return Err(rf(
                        "R-FREE-7",
                        "du har redan ingenjörer",
                        "you already have engineers",
                    ));
                }
                let b = sum(pay);
                let price = self.s.settings.engineers_price;
                if total_of(b.iter().map(|(_, n)| n)) < price {
                    return Err(rf(
                        "R-FREE-7",
                        format!("ingenjörer kostar {price} resurser"),
                        format!("engineers cost {price} resources"),
                    ));
                }
                self.once(
                    "engineers",
                    "R-FREE-7",
                    "ingenjörer köps en gång",
                    "engineers are bought once",
                )?;
                self.pay(b).inspect_err(|_| {
                    self.once.remove("engineers");
                })
            }
            Order::Research { kind } => {
                let realm = self.s.realm(self.realm).expect("checked");
                if !realm.engineers {
                    return Err(rf(
                        "R-ENG-1",
                        "forskning kräver ingenjörer",
                        "research needs engineers",
                    ));
                }
                if realm.researched.contains(kind) {
                    return Err(rf("R-ENG-2", "redan utvecklad", "already researched"));
                }
                self.once(
                    "research",
                    "RULINGS 41",
                    "ett forskningsförsök per runda",
                    "one research attempt a round",
                )?;
                zero
            }
            Order::Vote { realm } => {
                let every = self.s.settings.vote_every.max(1);
                if !self.s.round.is_multiple_of(every) {
                    return Err(rf(
                        "R-VOTE-1",
                        "det är ingen omröstning denna runda",
                        "there is no vote this round",
                    ));
                }
                let n = self.other_realm(realm)?;
                if self.s.realm(n).is_some_and(|r| r.is_evil) {
                    return Err(rf(
                        "RULINGS 59",
                        "Ondskan deltar inte i omröstningen",
                        "the Evil takes no part in votes",
                    ));
                }
                self.once(
                    "vote",
                    "R-VOTE-2",
                    "en röst per omröstning",
                    "one vote per vote",
                )?;
                zero
            }
            Order::Friend { realm } | Order::NotFriend { realm } => {
                self.other_realm(realm)?;
                zero
            }
            Order::Capital { city } => {
                self.own_city(*city)?;
                zero
            }
            Order::MainHarbour { city } => {
                if !self.own_city(*city)?.coastal {
                    return Err(rf(
                        "R-CITY-10",
                        format!("{city} ligger inte vid kusten"),
                        format!("{city} is not coastal"),
                    ));
                }
                zero
            }
            Order::TradeWishes { .. } => {
                self.once(
                    "wishes",
                    "R-RES-3",
                    "en önskelista per formulär",
                    "one wish list per form",
                )?;
                zero
            }
            Order::RulerBenefit { .. } => {
                let Some(ruler) = self.s.ruler.as_ref().filter(|r| r.realm == self.realm) else {
                    return Err(rf(
                        "R-VOTE-5",
                        "bara den som ensam fick flest röster väljer en förmån",
                        "only the sole winner of the vote chooses a benefit",
                    ));
                };
                if ruler.benefit.is_some() {
                    return Err(rf(
                        "R-VOTE-5",
                        "förmånen är redan vald",
                        "the benefit is already chosen",
                    ));
                }
                self.once(
                    "benefit",
                    "R-VOTE-5",
                    "en förmån per omröstning",
                    "one benefit per vote",
                )?;
                zero
            }
            Order::VpReward { reward } => {
                self.vp_reward(reward)?;
                zero
            }
            Order::PlaceTroops { placements } => {
                self.place_troops(placements)?;
                zero
            }
        }
    }

    /// R-VP-4; README, Decisions — one reward per threshold reached and not yet
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
            return Err(rf(
                "R-VP-4",
                format!("ingen belöning att hämta (nästa vid {next} segerpoäng)"),
                format!("no reward to take (the next at {next} VP)"),
            ));
        }
        match reward {
            Reward::Position(p) => *self.positions.get_mut(*p) += 1,
            Reward::Production { city, resource } => {
                self.own_city(*city)?;
                if realm.production(self.s).get(*resource) == 0 {
                    return Err(rf(
                        "R-VP-4",
                        format!(
                            "bara en resurs du redan producerar ({} gör du inte)",
                            resource.name(Lang::Sv)
                        ),
                        format!(
                            "only a resource you already produce (you make no {})",
                            resource.name(Lang::En)
                        ),
                    ));
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
                    return Err(rf(
                        "R-VP-4",
                        format!(
                            "resurserna ska vara värda 25 (slavar och kristaller dubbelt), inte {worth}"
                        ),
                        format!(
                            "the resources must be worth 25 (slaves and crystals double), not {worth}"
                        ),
                    ));
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
            realm
                .unplaced_troops
                .iter()
                .filter(|(x, _)| *x == k)
                .map(|(_, n)| n)
                .sum()
        };
        let mut placed = self.placed.clone();
        for (n, kind, city) in placements {
            self.own_city(*city)?;
            let total = placed.entry(*kind).or_default();
            *total = total.saturating_add(*n);
            if *total > waiting(*kind) {
                return Err(rf(
                    "R-FREE-9",
                    format!(
                        "bara {} från de fria köpmännen väntar på placering",
                        kind.count_text(waiting(*kind) as usize, Lang::Sv)
                    ),
                    format!(
                        "only {} from the free merchants wait to be placed",
                        kind.count_text(waiting(*kind) as usize, Lang::En)
                    ),
                ));
            }
        }
        self.placed = placed;
        Ok(())
    }

    fn buy_units(&mut self, count: u32, kind: UnitKind, city: Option<Square>) -> Res<Resources> {
        let realm = self.s.realm(self.realm).expect("checked");
        if kind.is_demon() && !realm.is_evil {
            return Err(rf(
                "R-EVIL-9",
                "bara Ondskan har demoner",
                "only the Evil has demons",
            ));
        }
        let sq = city
            .or(realm.capital)
            .ok_or_else(|| rf("RULINGS 13", "ange en stad", "name a city"))?;
        self.own_city(sq)?;
        let unit = match kind.cost() {
            Some(c) => c,
            None => {
                if !realm.researched.contains(&Researched::BeridnaBagskyttar) {
                    return Err(rf(
                        "R-ENG-3",
                        "beridna bågskyttar är inte utvecklade",
                        "mounted archers are not researched",
                    ));
                }
                self.s
                    .settings
                    .research_costs
                    .beridna_bagskyttar
                    .ok_or_else(|| {
                        rf(
                            "RULINGS 41",
                            "SL har inte satt priset",
                            "the GM has not set the cost",
                        )
                    })?
            }
        };
        if kind.is_elemental() {
            self.pos_cap(
                ("elementarer", "elemental"),
                self.elementals,
                count,
                3 * self.positions.besvarjare,
                "R-UNIT-6",
            )?;
        }
        let new_group = !self.s.armies_of(self.realm).any(|a| a.square == sq)
            && !self.new_group_at.contains(&sq);
        if new_group {
            self.pos_cap(
                ("arméer", "army group"),
                self.groups,
                1,
                2 * self.positions.befalhavare,
                "R-POS-4",
            )?;
        }
        self.pop_cap(count)?;
        let cost = self.pay(unit.times(count))?;
        self.counted += count;
        if kind.is_elemental() {
            self.elementals += count;
        }
        if new_group {
            self.groups += 1;
            self.new_group_at.insert(sq);
        }
        Ok(cost)
    }

    fn cast(&mut self, spell: Spell, target: &Target) -> Res<Resources> {
        if self.spells.contains(&spell) {
            return Err(rf(
                "R-SPELL-1",
                format!("{} är redan kastad denna runda", spell.name(Lang::Sv)),
                format!("{} is already cast this round", spell.name(Lang::En)),
            ));
        }
        match target {
            Target::None => {}
            Target::Realm(r) => {
                self.realm_name(r)?;
            }
            Target::City(sq) => {
                if !self.s.cities.iter().any(|c| c.square == *sq) {
                    return Err(rf(
                        "R-SPELL-11",
                        format!("ingen stad på {sq}"),
                        format!("no city on {sq}"),
                    ));
                }
            }
            Target::Square(sq) => {
                self.square(*sq)?;
            }
            Target::Army(sel) | Target::Fleet(sel) => {
                let army = matches!(target, Target::Army(_));
                match sel {
                    GroupSel::Id(id) => {
                        let g = if army {
                            Group::Army(*id)
                        } else {
                            Group::Fleet(*id)
                        };
                        self.group(g)?;
                        if spell == Spell::Virvelvind {
                            self.whirlwind.insert(g);
                        }
                    }
                    GroupSel::At(sq) => {
                        self.square(*sq)?;
                    }
                }
            }
            Target::ArmyTo { army, to } => {
                if let GroupSel::Id(id) = army {
                    self.group(Group::Army(*id))?;
                } else if let GroupSel::At(sq) = army {
                    self.square(*sq)?;
                }
                if self.square(*to)?.terrain != Terrain::Land {
                    return Err(rf(
                        "RULINGS 22",
                        format!("teleport landar bara på land, inte {to}"),
                        format!("teleport lands on land only, not {to}"),
                    ));
                }
            }
        }
        let cost = self.pay(spell.cost())?;
        self.spells.insert(spell);
        Ok(cost)
    }

    fn step_limit(&self) -> Res<()> {
        let max = self
            .s
            .realm(self.realm)
            .expect("checked")
            .positions
            .forskare;
        if self.steps >= max {
            return Err(rf(
                "RULINGS 9",
                format!("högst {max} uppgraderingssteg per runda (Forskare)"),
                format!(
                    "at most {} a round (Researcher)",
                    count(max, "upgrade step", "upgrade steps")
                ),
            ));
        }
        Ok(())
    }

    fn not_moved(&self, g: Group) -> Res<()> {
        if self.moved.contains(&g) {
            return Err(rf(
                "R-MOVE-1",
                "gruppen har redan en flyttorder",
                "the group already has a move order",
            ));
        }
        Ok(())
    }

    fn pieces_of(&self, g: Group) -> Res<BTreeMap<Piece, u32>> {
        self.group(g)?;
        let mut m = BTreeMap::new();
        match g {
            Group::Army(id) => {
                for u in &self.s.army(self.realm, id).expect("checked").units {
                    *m.entry(Piece::Unit(u.kind)).or_insert(0) += 1;
                }
            }
            Group::Fleet(id) => {
                let f = self
                    .s
                    .fleets_of(self.realm)
                    .find(|f| f.id == id)
                    .expect("checked");
                for s in &f.ships {
                    *m.entry(Piece::Ship(s.kind)).or_insert(0) += 1;
                }
            }
        }
        Ok(m)
    }

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

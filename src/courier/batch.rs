//! A courier batch (the GM's mail check, R-MAIL-6): queued weekday mail in
//! order of receipt, each decided by the rules — window, allowance and cost
//! (R-AGENT-4; RULINGS 15), goods (R-TRADE; RULINGS 8, 38–42), spies (R-SPY,
//! RULINGS 43–46), Isolation and Shield (R-SPELL-7/8), invitations (R-INV),
//! weekday Reveal (RULINGS 18). The state is changed in place (charges,
//! goods, spies, invitations); every outgoing effect is returned as data
//! (`Dispatch`) for the main crate to send, with an event log.
//!
//! Must not touch: files, the clock, the network, global randomness. Rolls
//! come from the `Dice` handed in.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::mission::{
    findings, gather, parse_mission, spy_roll_succeeds, Contact, ContactKind, Intel,
};
use super::trailer::{parse_envoy_body, parse_trailer, without_quoted_reply, Goods};
use super::{window_for, Charge, Refusal, Shortage};
use crate::game::dice::Dice;
use crate::game::state::{
    ArmyGroup, Dimension, Fleet, GroupRef, HomeInvitation, Invitation, RulerBenefit, Ship,
    SpellTarget, SpyMission, SpyState, StationedSpy, Terrain, Unit,
};
use crate::game::text::{fold, MailKind};
use crate::game::units::AgentKind;
use crate::game::weekend::magic::reads::victim_of;
use crate::game::{GameState, Resources, ShipKind, Spell, Square};
use crate::schedule::Window;

pub use crate::game::state::{ForgeryRight, Ledger};

/// One queued player mail, as classified by the main crate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Queued {
    /// The stored message's id (echoed in the decision).
    pub id: u64,
    pub kind: MailKind,
    /// Canonical sending realm (from the subject, sender-checked).
    pub from: String,
    /// Canonical destination realm (envoy, merchant, spy).
    pub to: Option<String>,
    /// The topic of a mail to the GM.
    pub topic: Option<String>,
    /// Plain-text body (quotes and signatures may remain).
    pub body: String,
    pub received_at: DateTime<Utc>,
    /// The window that held at `received_at` (`Schedule::window_at`).
    pub window: Window,
}

/// What a batch needs besides the state and the dice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Context {
    /// The batch instant: deliveries are due then.
    pub now: DateTime<Utc>,
    /// Contact history (this round and the last at least); the batch
    /// appends the contacts it makes. The main crate stores them.
    pub contacts: Vec<Contact>,
    /// Courier bookkeeping the state does not (yet) hold; see docs/reference/mail.md,
    /// The courier's bookkeeping.
    pub ledger: Ledger,
}

impl Ledger {
    pub(crate) fn roll_over(&mut self, round: u32) {
        if self.round != round {
            *self = Ledger {
                round,
                ..Ledger::default()
            };
        }
    }
}

/// The decision on one mail.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    pub mail: u64,
    pub sender: String,
    pub outcome: Outcome,
    /// For the sender: what was charged and what remains — never whether
    /// the envoy arrived. `None` when refused.
    pub receipt: Option<Receipt>,
    /// Mail the main crate sends because of this decision.
    pub dispatches: Vec<Dispatch>,
    /// Everything decided, for the audit log (rolls are in `Dice::rolls`).
    pub events: Vec<Event>,
}

/// What became of the mail (GM-facing; the sender sees only the receipt).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum Outcome {
    Delivered,
    /// Isolation: returned to the sender, spent (R-SPELL-8).
    Returned {
        caster: String,
    },
    /// Stolen by a stationed spy (R-SPY-8).
    Intercepted {
        thief: String,
        spy: u64,
    },
    SpyStationed {
        spy: u64,
    },
    SpyDone {
        spy: u64,
        success: bool,
    },
    /// Shield: back empty-handed (R-SPY-7).
    SpyBlocked {
        spy: u64,
    },
    Reveal {
        success: bool,
    },
    HomeInvitation {
        id: u64,
    },
    /// Plain mail for the GM queue.
    ToGm,
    /// A weekend form (not the courier's; the forms room takes it).
    Form,
    Refused(Refusal),
}

/// The sender's receipt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Receipt {
    pub kind: MailKind,
    pub to: Option<String>,
    pub charged: Resources,
    /// Inside the free allowance (or a free spy / free forgery).
    pub free: bool,
    /// Free envoys (or merchants) left this round.
    pub allowance_left: u32,
    pub stock_after: Resources,
    /// Goods that left the sender.
    pub goods: Option<Goods>,
    /// Held spies left (spy mail).
    pub spies_left: Option<u32>,
    /// What the sender hears of this mail next.
    pub then: Then,
}

/// What a sender hears of its mail after the receipt (the receipt says so).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "then")]
pub enum Then {
    /// Nothing: whether an envoy or a merchant arrives, the sender is not told.
    NotTold,
    /// A spy's report comes in its own mail with the receipt; a stationed thief's
    /// (`stationed`) another when it has tried to take an envoy.
    SpyReport { stationed: bool },
    /// A free spy of the voting winner (R-SPY-11): its report as for `SpyReport`.
    FreeSpyReport { stationed: bool },
    /// Reveal's result comes in its own mail with the receipt.
    RevealResult,
    /// A home-invitation: the troops may come home at this round's weekend.
    HomeInvitation,
}

/// Outgoing effects for the main crate to turn into mail.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "dispatch")]
pub enum Dispatch {
    /// An envoy (real or forged — they look the same) from `shown_from`.
    Envoy {
        to: String,
        shown_from: String,
        text: String,
        gift: Option<Goods>,
        invitation: Option<Square>,
        due_at: DateTime<Utc>,
    },
    Merchant {
        to: String,
        from: String,
        text: String,
        sends: Goods,
        expects: Goods,
        due_at: DateTime<Utc>,
    },
    /// The full stolen envoy, for the thief. The recipient gets nothing and
    /// the sender is not told.
    Stolen {
        thief: String,
        spy: u64,
        original_from: String,
        original_to: String,
        text: String,
        gift: Option<Goods>,
        invitation: Option<Square>,
        /// The thief may send one forged envoy to `original_to` free.
        may_forge_to: String,
    },
    /// Isolation: the envoy comes back to its sender, spent.
    Returned {
        to: String,
        original_to: String,
        text: String,
    },
    SpyReport {
        owner: String,
        spy: u64,
        target: String,
        mission: SpyMission,
        result: SpyResult,
    },
    RevealResult {
        to: String,
        success: bool,
        spell: Option<Spell>,
        /// The latest (or named) spell on the caster and who cast it.
        found: Option<(Spell, String)>,
    },
    /// Plain mail to the GM queue.
    ToGm { topic: Option<String> },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "result")]
pub enum SpyResult {
    Learned {
        intel: Intel,
    },
    /// The roll failed: spent, learned nothing.
    Failed,
    /// Shield on the target: back empty-handed.
    EmptyHanded,
    /// Mission 8: waiting for an envoy.
    Stationed,
    /// Mission 6 succeeded: the forgery is on its way.
    ForgerySent,
    /// Mission 8: the attempt on a passing envoy failed; spent.
    InterceptionFailed,
}

/// Audit events.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    Accepted {
        kind: MailKind,
        charged: Resources,
        free: bool,
    },
    Refused {
        reason: String,
    },
    SpyRoll {
        spy: u64,
        owner: String,
        informator: u32,
        d10: u32,
        success: bool,
    },
    SpellRoll {
        spell: Spell,
        conjurer: u32,
        d10: u32,
        success: bool,
    },
    Shielded {
        spy: u64,
        realm: String,
    },
    Isolated {
        realm: String,
        caster: String,
    },
    Intercepted {
        spy: u64,
        thief: String,
        from: String,
        to: String,
    },
    GoodsMoved {
        from: String,
        to: String,
        goods: Goods,
    },
    InvitationRecorded {
        id: u64,
        holder: String,
        from: String,
        square: Square,
    },
    HomeInvitationRecorded {
        id: u64,
        realm: String,
    },
    Contact(Contact),
}

/// Decide every mail of a batch in order of receipt, changing `state`.
pub fn route_batch(
    state: &mut GameState,
    mails: &[Queued],
    ctx: &mut Context,
    dice: &mut Dice,
) -> Vec<Decision> {
    ctx.ledger.roll_over(state.round);
    let mut order: Vec<&Queued> = mails.iter().collect();
    order.sort_by_key(|m| (m.received_at, m.id));
    order
        .into_iter()
        .map(|m| {
            let mut d = Decision {
                mail: m.id,
                sender: m.from.clone(),
                outcome: Outcome::ToGm,
                receipt: None,
                dispatches: Vec::new(),
                events: Vec::new(),
            };
            if let Err(r) = decide(state, m, ctx, dice, &mut d) {
                d.events.push(Event::Refused {
                    reason: format!("{r:?}"),
                });
                d.outcome = Outcome::Refused(r);
                d.receipt = None;
            }
            d
        })
        .collect()
}

type Decided = Result<(), Refusal>;

fn decide(
    state: &mut GameState,
    m: &Queued,
    ctx: &mut Context,
    dice: &mut Dice,
    d: &mut Decision,
) -> Decided {
    if state.realm(&m.from).is_none() {
        return Err(Refusal::UnknownRealm {
            name: m.from.clone(),
        });
    }
    if let Some(needed) = window_for(m.kind) {
        if m.window != needed {
            return Err(Refusal::OutsideWindow {
                kind: m.kind,
                needed,
                held: m.window,
            });
        }
    }
    match m.kind {
        MailKind::Envoy => envoy(state, m, ctx, dice, d),
        MailKind::Merchant => merchant(state, m, ctx, d),
        MailKind::Spy => spy(state, m, ctx, dice, d),
        MailKind::ToGm => to_gm(state, m, ctx, dice, d),
        MailKind::Form => {
            d.outcome = Outcome::Form;
            Ok(())
        }
    }
}

/// The canonical name of the realm `raw` names (case and diacritics ignored).
fn resolve_realm(state: &GameState, raw: &str) -> Result<String, Refusal> {
    let f = fold(raw);
    state
        .realms
        .iter()
        .find(|r| fold(&r.name) == f)
        .map(|r| r.name.clone())
        .ok_or(Refusal::UnknownRealm {
            name: raw.to_string(),
        })
}

fn destination(state: &GameState, m: &Queued) -> Result<String, Refusal> {
    let to = m.to.as_deref().ok_or(Refusal::NoDestination)?;
    resolve_realm(state, to)
}

/// The spell effect of `spell` on `realm` active this round, if any.
pub fn active_on<'a>(
    state: &'a GameState,
    spell: Spell,
    realm: &str,
) -> Option<&'a crate::game::state::SpellEffect> {
    state.effects.iter().rev().find(|e| {
        e.spell == spell
            && e.target == SpellTarget::Realm(realm.to_string())
            && e.cast_round <= state.round
            && state.round <= e.expires_round
    })
}

/// Price of one more envoy or merchant and whether it is free; the
/// allowance left after it.
fn agent_price(state: &GameState, realm: &str, agent: AgentKind) -> (Resources, bool, u32) {
    let r = state.realm(realm).expect("checked sender");
    let (free, sent) = match agent {
        AgentKind::Sandebud => (r.positions.sprakror, r.sent.envoys),
        AgentKind::Handelsman => (r.positions.skattmastare, r.sent.merchants),
        AgentKind::Spion => (0, r.sent.spies),
    };
    if sent < free {
        (Resources::ZERO, true, free - sent - 1)
    } else {
        (agent.cost(), false, 0)
    }
}

/// Where goods leave from and arrive at.
struct Sources {
    unit_src: Option<Square>,
    ship_src: Option<Square>,
}

/// Check that `seller` can pay `price` and holds `goods` for `buyer`.
fn check_goods(
    state: &GameState,
    seller: &str,
    buyer: &str,
    goods: &Goods,
    from_city: Option<&str>,
    price: Resources,
    charge: Charge,
) -> Result<Sources, Refusal> {
    let s = state.realm(seller).expect("checked sender");
    if !s.stock.covers(&price) {
        let mut lacks = Resources::ZERO;
        for (r, n) in price.iter() {
            lacks.set(r, n.saturating_sub(s.stock.get(r)));
        }
        return Err(Refusal::CannotPay {
            charge,
            price,
            lacks,
        });
    }
    let mut short = Vec::new();
    let need = price.plus(&goods.resources);
    let mut lacks = Resources::ZERO;
    for (r, n) in need.iter() {
        lacks.set(r, n.saturating_sub(s.stock.get(r)));
    }
    if !lacks.is_zero() {
        short.push(Shortage::Resources { lacks });
    }
    let src = match from_city {
        Some(raw) => match find_city(state, seller, raw) {
            Some(sq) => Some(sq),
            None => {
                short.push(Shortage::NotYourCity {
                    city: raw.to_string(),
                });
                None
            }
        },
        None => None,
    };
    let unit_src = src.or(s.capital);
    let ship_src = src.or(s.main_harbour);
    for (&kind, &want) in &goods.units {
        let have = unit_src.map_or(0, |sq| {
            state
                .armies_of(seller)
                .filter(|a| a.square == sq && a.dimension == Dimension::Normal)
                .flat_map(|a| a.units.iter())
                .filter(|u| u.kind == kind)
                .count() as u32
        });
        if have < want {
            short.push(Shortage::Units { kind, want, have });
        }
    }
    for (&kind, &want) in &goods.ships {
        let have = ship_src.map_or(0, |sq| {
            state
                .fleets_of(seller)
                .filter(|f| f.square == sq)
                .map(|f| ships_free(state, f, kind))
                .sum()
        });
        if have < want {
            short.push(Shortage::Ships { kind, want, have });
        }
    }
    if (goods.vp as i64) > s.vp.max(0) {
        short.push(Shortage::Vp {
            want: goods.vp,
            have: s.vp.max(0) as u32,
        });
    }
    for raw in &goods.cities {
        match find_city(state, seller, raw) {
            None => short.push(Shortage::NotYourCity { city: raw.clone() }),
            Some(sq) if Some(sq) == s.capital || Some(sq) == s.main_harbour => {
                short.push(Shortage::CapitalOrHarbour { city: raw.clone() })
            }
            Some(_) => {}
        }
    }
    for &sq in &goods.squares {
        let own = state
            .map
            .get(sq)
            .is_some_and(|m| m.owner.as_deref() == Some(seller) && m.terrain == Terrain::Land);
        let border = sq
            .neighbours(
                state.map.width,
                state.map.height,
                state.settings.adjacency == 8,
            )
            .into_iter()
            .any(|n| {
                state
                    .map
                    .get(n)
                    .is_some_and(|m| m.owner.as_deref() == Some(buyer))
            });
        let city = state.cities.iter().any(|c| c.square == sq);
        if !own || !border || city {
            short.push(Shortage::NotABorderSquare { square: sq });
        }
    }
    let b = state.realm(buyer).expect("checked buyer");
    let units_in: u32 = goods.units.values().sum();
    let ships_in: u32 = goods.ships.values().sum();
    if units_in > 0 && b.capital.is_none() {
        short.push(Shortage::BuyerHasNoCapital);
    }
    if ships_in > 0 && b.main_harbour.is_none() {
        short.push(Shortage::BuyerHasNoHarbour);
    }
    // The buyer's caps (R-TRADE-5; RULINGS 8): over them, the trade
    // of counted units is refused; nothing is removed.
    if buyer != seller && units_in + ships_in > 0 {
        let count = state.counted_units(buyer);
        let cap = state.population(buyer) / 10;
        let would = count.counted() + units_in + ships_in;
        if would > cap {
            short.push(Shortage::BuyerPopulationCap {
                cap,
                would_have: would,
            });
        }
        let ship_cap = 5 * b.positions.amiral;
        if ships_in > 0 && count.ships + ships_in > ship_cap {
            short.push(Shortage::BuyerShipCap {
                cap: ship_cap,
                would_have: count.ships + ships_in,
            });
        }
        let elementals_in: u32 = goods
            .units
            .iter()
            .filter(|(k, _)| k.is_elemental())
            .map(|(_, n)| n)
            .sum();
        let elemental_cap = 3 * b.positions.besvarjare;
        if elementals_in > 0 && count.elementals + elementals_in > elemental_cap {
            short.push(Shortage::BuyerElementalCap {
                cap: elemental_cap,
                would_have: count.elementals + elementals_in,
            });
        }
        let new_group = units_in > 0
            && b.capital.is_some_and(|sq| {
                !state
                    .armies_of(buyer)
                    .any(|a| a.square == sq && a.dimension == Dimension::Normal)
            });
        let group_cap = 2 * b.positions.befalhavare;
        if new_group && count.army_groups + 1 > group_cap {
            short.push(Shortage::BuyerArmyGroupCap { cap: group_cap });
        }
    }
    if short.is_empty() {
        Ok(Sources { unit_src, ship_src })
    } else {
        Err(Refusal::GoodsNotHeld { shortages: short })
    }
}

/// Ships of `kind` a fleet can give up without leaving troops aboard
/// beyond its remaining capacity.
fn ships_free(state: &GameState, f: &Fleet, kind: ShipKind) -> u32 {
    let count = f.ships.iter().filter(|x| x.kind == kind).count() as u32;
    let each = match kind {
        ShipKind::Fregatt => state.settings.frigate_cargo,
        k => k.cargo_capacity(),
    };
    if each == 0 {
        return count;
    }
    let load: u32 = f
        .cargo
        .iter()
        .filter_map(|id| state.army(&f.owner, *id))
        .map(|a| a.units.len() as u32)
        .sum();
    let spare = f.capacity(&state.settings).saturating_sub(load);
    count.min(spare / each)
}

/// A city of `realm` named by square or by name.
fn find_city(state: &GameState, realm: &str, raw: &str) -> Option<Square> {
    let sq = Square::parse(raw).ok();
    let f = fold(raw);
    state
        .cities_of(realm)
        .find(|c| Some(c.square) == sq || fold(&c.name) == f)
        .map(|c| c.square)
}

/// Goods taken from the seller, on their way.
#[derive(Debug, Clone, Default)]
struct Cargo {
    goods: Goods,
    units: Vec<Unit>,
    ships: Vec<Ship>,
    city_squares: Vec<Square>,
}

/// Take checked goods from `seller` (units from the back of its groups:
/// the cannon-fodder end).
fn take_goods(state: &mut GameState, seller: &str, goods: &Goods, route: &Sources) -> Cargo {
    let mut cargo = Cargo {
        goods: goods.clone(),
        ..Cargo::default()
    };
    let s = state.realm_mut(seller).expect("checked");
    s.stock = s.stock.checked_sub(&goods.resources).expect("checked");
    s.vp -= goods.vp as i64;
    for (&kind, &n) in &goods.units {
        let mut left = n;
        for a in state.armies.iter_mut().filter(|a| {
            a.owner == seller
                && Some(a.square) == route.unit_src
                && a.dimension == Dimension::Normal
        }) {
            while left > 0 {
                let Some(i) = a.units.iter().rposition(|u| u.kind == kind) else {
                    break;
                };
                cargo.units.push(a.units.remove(i));
                left -= 1;
            }
        }
    }
    let emptied: Vec<u32> = state
        .armies
        .iter()
        .filter(|a| a.owner == seller && a.units.is_empty())
        .map(|a| a.id)
        .collect();
    state.armies.retain(|a| !a.units.is_empty());
    for f in state.fleets.iter_mut().filter(|f| f.owner == seller) {
        f.cargo.retain(|id| !emptied.contains(id));
    }
    for (&kind, &n) in &goods.ships {
        let mut left = n;
        for fi in 0..state.fleets.len() {
            let f = &state.fleets[fi];
            if f.owner != seller || Some(f.square) != route.ship_src {
                continue;
            }
            let mut free = ships_free(state, f, kind);
            let f = &mut state.fleets[fi];
            while left > 0 && free > 0 {
                let Some(i) = f.ships.iter().rposition(|x| x.kind == kind) else {
                    break;
                };
                cargo.ships.push(f.ships.remove(i));
                left -= 1;
                free -= 1;
            }
        }
    }
    state.fleets.retain(|f| !f.ships.is_empty());
    for raw in &goods.cities {
        if let Some(sq) = find_city(state, seller, raw) {
            cargo.city_squares.push(sq);
        }
    }
    cargo
}

/// Hand goods to `buyer`: units to its capital, ships to its main harbour
/// (R-TRADE-5), cities and squares change owner.
/// Give `cargo` to `buyer`: units to its capital, ships to its main harbour. Returns the
/// units and ships it has no capital or main harbour for (none for a buyer the checks
/// passed; a thief is not checked, RULINGS 42).
fn give_goods(state: &mut GameState, buyer: &str, cargo: Cargo) -> (Vec<Unit>, Vec<Ship>) {
    let b = state.realm_mut(buyer).expect("checked");
    b.stock = b.stock.plus(&cargo.goods.resources);
    b.vp += cargo.goods.vp as i64;
    let (capital, harbour) = (b.capital, b.main_harbour);
    let mut left = (Vec::new(), Vec::new());
    if capital.is_none() {
        left.0 = cargo.units.clone();
    }
    if harbour.is_none() {
        left.1 = cargo.ships.clone();
    }
    if let (false, Some(sq)) = (cargo.units.is_empty(), capital) {
        let pos = state
            .armies
            .iter()
            .position(|a| a.owner == buyer && a.square == sq && a.dimension == Dimension::Normal);
        match pos {
            Some(i) => state.armies[i].units.extend(cargo.units),
            None => {
                let id = state.armies_of(buyer).map(|a| a.id).max().unwrap_or(0) + 1;
                state.armies.push(ArmyGroup {
                    id,
                    owner: buyer.into(),
                    square: sq,
                    dimension: Dimension::Normal,
                    units: cargo.units.into(),
                    treasure: Default::default(),
                    no_move_until_round: None,
                });
            }
        }
    }
    if let (false, Some(sq)) = (cargo.ships.is_empty(), harbour) {
        match state
            .fleets
            .iter()
            .position(|f| f.owner == buyer && f.square == sq)
        {
            Some(i) => state.fleets[i].ships.extend(cargo.ships),
            None => {
                let id = state.fleets_of(buyer).map(|f| f.id).max().unwrap_or(0) + 1;
                state.fleets.push(Fleet {
                    id,
                    owner: buyer.into(),
                    square: sq,
                    dimension: Dimension::Normal,
                    ships: cargo.ships,
                    cargo: Vec::new(),
                    must_leave_by_round: None,
                });
            }
        }
    }
    for sq in cargo.city_squares {
        if let Some(c) = state.cities.iter_mut().find(|c| c.square == sq) {
            c.owner = buyer.into();
            c.capital = false;
            c.harbour = false;
        }
        if let Some(m) = state.map.squares.get_mut(&sq) {
            m.owner = Some(buyer.into());
        }
    }
    for sq in &cargo.goods.squares {
        if let Some(m) = state.map.squares.get_mut(sq) {
            m.owner = Some(buyer.into());
        }
    }
    left
}

fn receipt(
    state: &GameState,
    m: &Queued,
    charged: Resources,
    free: bool,
    allowance_left: u32,
    goods: Option<Goods>,
) -> Receipt {
    let r = state.realm(&m.from).expect("checked");
    Receipt {
        kind: m.kind,
        to: m.to.clone(),
        charged,
        free,
        allowance_left,
        stock_after: r.stock,
        goods,
        spies_left: (m.kind == MailKind::Spy).then_some(r.spies),
        then: Then::NotTold,
    }
}

fn charge(state: &mut GameState, realm: &str, price: &Resources) {
    let r = state.realm_mut(realm).expect("checked");
    r.stock = r.stock.checked_sub(price).expect("checked before");
}

fn envoy(
    state: &mut GameState,
    m: &Queued,
    ctx: &mut Context,
    dice: &mut Dice,
    d: &mut Decision,
) -> Decided {
    let to = destination(state, m)?;
    let body = parse_envoy_body(&m.body).map_err(Refusal::Trailer)?;
    if body.gift.as_ref().is_some_and(|t| t.has_expects) {
        return Err(Refusal::ExpectsInEnvoy);
    }
    let claimed = match &body.claimed_sender {
        Some(raw) => Some(resolve_realm(state, raw)?).filter(|c| *c != m.from),
        None => None,
    };
    let right = match &claimed {
        Some(_) => Some(
            ctx.ledger
                .forgery_rights
                .iter()
                .position(|r| r.holder == m.from && r.recipient == to && !r.used)
                .ok_or(Refusal::ForgeryNeedsSpy)?,
        ),
        None => None,
    };
    let shown = claimed.clone().unwrap_or_else(|| m.from.clone());
    if let Some(sq) = body.invitation {
        check_invitation(state, &shown, sq)?;
    }
    let gift = body
        .gift
        .as_ref()
        .map(|t| t.sends.clone())
        .unwrap_or_default();
    let from_city = body.gift.as_ref().and_then(|t| t.from_city.clone());
    let (price, free, left) = match right {
        Some(_) => (Resources::ZERO, true, {
            let r = state.realm(&m.from).expect("checked");
            r.positions.sprakror.saturating_sub(r.sent.envoys)
        }),
        None => agent_price(state, &m.from, AgentKind::Sandebud),
    };
    let route = check_goods(
        state,
        &m.from,
        &to,
        &gift,
        from_city.as_deref(),
        price,
        Charge::Envoy,
    )?;
    // Accepted: charge and count.
    charge(state, &m.from, &price);
    match right {
        Some(i) => ctx.ledger.forgery_rights[i].used = true,
        None => state.realm_mut(&m.from).expect("checked").sent.envoys += 1,
    }
    d.events.push(Event::Accepted {
        kind: m.kind,
        charged: price,
        free,
    });
    // An isolated realm's envoy never leaves, so neither does its gift.
    let isolated = active_on(state, Spell::Isolering, &m.from).is_some();
    let cargo = (!gift.is_empty() && !isolated).then(|| take_goods(state, &m.from, &gift, &route));
    d.receipt = Some(receipt(
        state,
        m,
        price,
        free,
        left,
        cargo.as_ref().map(|c| c.goods.clone()),
    ));
    send_envoy(
        state,
        ctx,
        dice,
        d,
        InFlight {
            actual: m.from.clone(),
            shown,
            to,
            // A forgery is typed as a reply to the mail about the stolen envoy: what
            // the mail program quoted of that mail would give the forger away.
            text: match claimed {
                Some(_) => without_quoted_reply(&body.text),
                None => body.text,
            },
            cargo,
            invitation: body.invitation,
        },
    );
    Ok(())
}

/// An invitation names a land square of the inviting realm, or (for a fleet, R-INV-2:
/// "fleets work in the same way") a sea square off its land: sea belongs to no realm.
fn check_invitation(state: &GameState, inviter: &str, sq: Square) -> Decided {
    let own_land = |q: Square| {
        state
            .map
            .get(q)
            .is_some_and(|m| m.terrain == Terrain::Land && m.owner.as_deref() == Some(inviter))
    };
    let (w, h) = (state.map.width, state.map.height);
    let diagonal = state.settings.adjacency == 8;
    let ok = own_land(sq)
        || state.map.get(sq).is_some_and(|m| m.terrain == Terrain::Sea)
            && sq.neighbours(w, h, diagonal).into_iter().any(own_land);
    if ok {
        Ok(())
    } else {
        Err(Refusal::InvitationNotYourLand { square: sq })
    }
}

/// An accepted envoy on its way.
struct InFlight {
    /// Who really sent it (the forger for a forgery).
    actual: String,
    /// Who it says it is from.
    shown: String,
    to: String,
    text: String,
    cargo: Option<Cargo>,
    invitation: Option<Square>,
}

/// Isolation, interception, delivery — in that order (R-MAIL-6).
fn send_envoy(
    state: &mut GameState,
    ctx: &mut Context,
    dice: &mut Dice,
    d: &mut Decision,
    e: InFlight,
) {
    // Isolation: the envoy never leaves (forged ones too, RULINGS 19). The
    // gift stays home: it is returned with the envoy.
    if let Some(fx) = active_on(state, Spell::Isolering, &e.actual) {
        let caster = fx.caster.clone();
        if let Some(c) = e.cargo {
            let _ = give_goods(state, &e.actual, c);
        }
        d.events.push(Event::Isolated {
            realm: e.actual.clone(),
            caster: caster.clone(),
        });
        d.dispatches.push(Dispatch::Returned {
            to: e.actual.clone(),
            original_to: e.to.clone(),
            text: e.text,
        });
        d.outcome = Outcome::Returned { caster };
        return;
    }
    let contact = Contact {
        round: state.round,
        from: e.shown.clone(),
        to: e.to.clone(),
        kind: ContactKind::Envoy,
    };
    d.events.push(Event::Contact(contact.clone()));
    ctx.contacts.push(contact);
    if let Some((thief, spy)) = try_intercept(state, dice, d, &e) {
        let mut goods = e.cargo.as_ref().map(|c| c.goods.clone());
        if let Some(c) = e.cargo {
            // Troops or ships the thief has no capital or main harbour for go back to
            // the sender, never out of the game; the thief is told only what it got.
            let (units, ships) = give_goods(state, &thief, c);
            if let Some(g) = goods.as_mut() {
                if !units.is_empty() {
                    g.units.clear();
                }
                if !ships.is_empty() {
                    g.ships.clear();
                }
            }
            if !units.is_empty() || !ships.is_empty() {
                let back = Cargo {
                    units,
                    ships,
                    ..Cargo::default()
                };
                let _ = give_goods(state, &e.actual, back);
            }
            d.events.push(Event::GoodsMoved {
                from: e.actual.clone(),
                to: thief.clone(),
                goods: goods.clone().unwrap_or_default(),
            });
        }
        if let Some(sq) = e.invitation {
            let id = record_invitation(state, &thief, &e.shown, sq, Some(e.to.clone()));
            d.events.push(Event::InvitationRecorded {
                id,
                holder: thief.clone(),
                from: e.shown.clone(),
                square: sq,
            });
        }
        ctx.ledger.forgery_rights.push(ForgeryRight {
            holder: thief.clone(),
            recipient: e.to.clone(),
            original_sender: e.shown.clone(),
            used: false,
        });
        d.events.push(Event::Intercepted {
            spy,
            thief: thief.clone(),
            from: e.shown.clone(),
            to: e.to.clone(),
        });
        d.dispatches.push(Dispatch::Stolen {
            thief: thief.clone(),
            spy,
            original_from: e.shown.clone(),
            original_to: e.to.clone(),
            text: e.text,
            gift: goods,
            invitation: e.invitation,
            may_forge_to: e.to.clone(),
        });
        d.outcome = Outcome::Intercepted { thief, spy };
        return;
    }
    let goods = e.cargo.as_ref().map(|c| c.goods.clone());
    if let Some(c) = e.cargo {
        let _ = give_goods(state, &e.to, c);
        d.events.push(Event::GoodsMoved {
            from: e.actual.clone(),
            to: e.to.clone(),
            goods: goods.clone().unwrap_or_default(),
        });
    }
    if let Some(sq) = e.invitation {
        let id = record_invitation(state, &e.to, &e.shown, sq, None);
        d.events.push(Event::InvitationRecorded {
            id,
            holder: e.to.clone(),
            from: e.shown.clone(),
            square: sq,
        });
    }
    d.dispatches.push(Dispatch::Envoy {
        to: e.to,
        shown_from: e.shown,
        text: e.text,
        gift: goods,
        invitation: e.invitation,
        due_at: ctx.now,
    });
    d.outcome = Outcome::Delivered;
}

fn next_id(state: &mut GameState) -> u64 {
    let id = state.next_id;
    state.next_id += 1;
    id
}

/// Valid up to and including this round's weekend (R-INV-3).
fn record_invitation(
    state: &mut GameState,
    holder: &str,
    inviter: &str,
    sq: Square,
    intercepted_from: Option<String>,
) -> u64 {
    let id = next_id(state);
    let round = state.round;
    state
        .realm_mut(holder)
        .expect("checked")
        .invitations
        .push(Invitation {
            id,
            from: inviter.to_string(),
            square: sq,
            sent_round: round,
            valid_until_round: round,
            intercepted_from,
            used: false,
        });
    id
}

/// Waiting thieves try in placement order (R-SPY-10; RULINGS 46). A spy in
/// a Shielded realm comes back empty-handed when an envoy passes.
fn try_intercept(
    state: &mut GameState,
    dice: &mut Dice,
    d: &mut Decision,
    e: &InFlight,
) -> Option<(String, u64)> {
    let mut waiting: Vec<usize> = state
        .spies
        .iter()
        .enumerate()
        .filter(|(_, s)| s.state == SpyState::Waiting)
        .filter(|(_, s)| s.realm == e.shown || s.realm == e.to)
        .filter(|(_, s)| s.owner != e.shown && s.owner != e.to && s.owner != e.actual)
        .filter(|(_, s)| match &s.mission {
            SpyMission::Steal { filter } => {
                filter.as_ref().is_none_or(|f| *f == e.shown || *f == e.to)
            }
            _ => false,
        })
        .map(|(i, _)| i)
        .collect();
    waiting.sort_by_key(|&i| (state.spies[i].placed_at, state.spies[i].id));
    for i in waiting {
        let (id, owner, realm, mission) = {
            let s = &state.spies[i];
            (s.id, s.owner.clone(), s.realm.clone(), s.mission.clone())
        };
        if active_on(state, Spell::Skold, &realm).is_some() {
            state.spies[i].state = SpyState::Blocked;
            state.spies[i].done_round = Some(state.round);
            d.events.push(Event::Shielded {
                spy: id,
                realm: realm.clone(),
            });
            d.dispatches.push(Dispatch::SpyReport {
                owner,
                spy: id,
                target: realm,
                mission,
                result: SpyResult::EmptyHanded,
            });
            continue;
        }
        let informator = state.realm(&owner).map_or(0, |r| r.positions.informator);
        let d10 = dice.d10();
        let success = spy_roll_succeeds(informator, d10);
        d.events.push(Event::SpyRoll {
            spy: id,
            owner: owner.clone(),
            informator,
            d10,
            success,
        });
        if success {
            state.spies[i].state = SpyState::Succeeded;
            state.spies[i].done_round = Some(state.round);
            return Some((owner, id));
        }
        state.spies[i].state = SpyState::Failed;
        state.spies[i].done_round = Some(state.round);
        d.dispatches.push(Dispatch::SpyReport {
            owner,
            spy: id,
            target: realm,
            mission,
            result: SpyResult::InterceptionFailed,
        });
    }
    None
}

fn merchant(state: &mut GameState, m: &Queued, ctx: &mut Context, d: &mut Decision) -> Decided {
    let to = destination(state, m)?;
    let trailer = parse_trailer(&m.body)
        .map_err(Refusal::Trailer)?
        .ok_or(Refusal::NoTrailer)?;
    let (price, free, left) = agent_price(state, &m.from, AgentKind::Handelsman);
    let route = check_goods(
        state,
        &m.from,
        &to,
        &trailer.sends,
        trailer.from_city.as_deref(),
        price,
        Charge::Merchant,
    )?;
    charge(state, &m.from, &price);
    state.realm_mut(&m.from).expect("checked").sent.merchants += 1;
    d.events.push(Event::Accepted {
        kind: m.kind,
        charged: price,
        free,
    });
    let cargo = take_goods(state, &m.from, &trailer.sends, &route);
    d.receipt = Some(receipt(
        state,
        m,
        price,
        free,
        left,
        Some(trailer.sends.clone()),
    ));
    let _ = give_goods(state, &to, cargo);
    d.events.push(Event::GoodsMoved {
        from: m.from.clone(),
        to: to.clone(),
        goods: trailer.sends.clone(),
    });
    let contact = Contact {
        round: state.round,
        from: m.from.clone(),
        to: to.clone(),
        kind: ContactKind::Merchant,
    };
    d.events.push(Event::Contact(contact.clone()));
    ctx.contacts.push(contact);
    let text = m
        .body
        .lines()
        .take_while(|l| {
            let t = l.trim();
            !(t.len() >= 3 && t.chars().all(|c| c == '*'))
        })
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string();
    d.dispatches.push(Dispatch::Merchant {
        to,
        from: m.from.clone(),
        text,
        sends: trailer.sends,
        expects: trailer.expects,
        due_at: ctx.now,
    });
    d.outcome = Outcome::Delivered;
    Ok(())
}

/// The voting winner's free spies are active and not used up (RULINGS 16).
fn free_spy_available(state: &GameState, ctx: &Context, realm: &str) -> bool {
    let Some(r) = &state.ruler else { return false };
    let informator = state.realm(realm).map_or(0, |x| x.positions.informator);
    r.realm == realm
        && r.benefit == Some(RulerBenefit::FreeSpies)
        && r.from_round <= state.round
        // Up to, not including, the next voting weekend (Rulings 49): spies go on
        // weekdays, so the voting round's weekdays still count.
        && state.round <= r.until_round
        && ctx.ledger.free_spies.get(realm).copied().unwrap_or(0) < informator
}

fn spy(
    state: &mut GameState,
    m: &Queued,
    ctx: &mut Context,
    dice: &mut Dice,
    d: &mut Decision,
) -> Decided {
    let mission = parse_mission(&m.body, state).map_err(Refusal::Mission)?;
    let own = matches!(mission, SpyMission::WhoVoted | SpyMission::ForeignTroops);
    let target = match &mission {
        _ if own => m.from.clone(),
        SpyMission::City { square } => state
            .cities
            .iter()
            .find(|c| c.square == *square)
            .map(|c| c.owner.to_string())
            .ok_or(Refusal::NoDestination)?,
        _ => destination(state, m)?,
    };
    if state.realm(&target).is_some_and(|r| r.is_evil) {
        return Err(Refusal::EvilCannotBeSpied);
    }
    // A forgery's text and claimed sender are checked before the spy goes.
    let forgery = if mission == SpyMission::Forgery {
        // The forged text is the body without the mission line.
        let text: Vec<&str> = m
            .body
            .lines()
            .filter(|l| {
                !l.split_once(':')
                    .is_some_and(|(k, _)| matches!(fold(k).as_str(), "uppdrag" | "mission"))
            })
            .collect();
        let body = parse_envoy_body(&text.join("\n")).map_err(Refusal::Trailer)?;
        let raw = body
            .claimed_sender
            .clone()
            .ok_or(Refusal::ForgeryNeedsClaimedSender)?;
        let claimed = resolve_realm(state, &raw)?;
        if let Some(sq) = body.invitation {
            check_invitation(state, &claimed, sq)?;
        }
        if body.gift.is_some() {
            return Err(Refusal::ForgeryCarriesNoGoods);
        }
        Some((claimed, body))
    } else {
        None
    };
    let free = free_spy_available(state, ctx, &m.from);
    if free {
        *ctx.ledger.free_spies.entry(m.from.clone()).or_default() += 1;
    } else {
        let r = state.realm_mut(&m.from).expect("checked");
        if r.spies == 0 {
            return Err(Refusal::NoSpies);
        }
        r.spies -= 1;
    }
    state.realm_mut(&m.from).expect("checked").sent.spies += 1;
    d.events.push(Event::Accepted {
        kind: m.kind,
        charged: Resources::ZERO,
        free,
    });
    let stationed = matches!(mission, SpyMission::Steal { .. });
    d.receipt = Some(Receipt {
        then: if free {
            Then::FreeSpyReport { stationed }
        } else {
            Then::SpyReport { stationed }
        },
        ..receipt(state, m, Resources::ZERO, free, 0, None)
    });
    let id = next_id(state);
    let mut record = StationedSpy {
        id,
        owner: m.from.as_str().into(),
        realm: target.clone(),
        placed_at: m.received_at,
        mission: mission.clone(),
        state: SpyState::Waiting,
        done_round: None,
        saw: None,
    };
    let report = |result| Dispatch::SpyReport {
        owner: m.from.as_str().into(),
        spy: id,
        target: target.clone(),
        mission: mission.clone(),
        result,
    };
    // Shield (R-SPY-7); forgeries are envoys, Shield does not stop them.
    if target != m.from && forgery.is_none() && active_on(state, Spell::Skold, &target).is_some() {
        record.state = SpyState::Blocked;
        record.done_round = Some(state.round);
        state.spies.push(record);
        d.events.push(Event::Shielded {
            spy: id,
            realm: target.clone(),
        });
        d.dispatches.push(report(SpyResult::EmptyHanded));
        d.outcome = Outcome::SpyBlocked { spy: id };
        return Ok(());
    }
    if matches!(mission, SpyMission::Steal { .. }) {
        state.spies.push(record);
        d.dispatches.push(report(SpyResult::Stationed));
        d.outcome = Outcome::SpyStationed { spy: id };
        return Ok(());
    }
    let informator = state.realm(&m.from).map_or(0, |r| r.positions.informator);
    let d10 = dice.d10();
    let success = spy_roll_succeeds(informator, d10);
    d.events.push(Event::SpyRoll {
        spy: id,
        owner: m.from.as_str().into(),
        informator,
        d10,
        success,
    });
    record.state = if success {
        SpyState::Succeeded
    } else {
        SpyState::Failed
    };
    record.done_round = Some(state.round);
    state.spies.push(record);
    d.outcome = Outcome::SpyDone { spy: id, success };
    if !success {
        d.dispatches.push(report(SpyResult::Failed));
        return Ok(());
    }
    match forgery {
        Some((claimed, body)) => {
            d.dispatches.push(report(SpyResult::ForgerySent));
            send_envoy(
                state,
                ctx,
                dice,
                d,
                InFlight {
                    actual: m.from.clone(),
                    shown: claimed,
                    to: target.clone(),
                    text: without_quoted_reply(&body.text),
                    cargo: None,
                    invitation: body.invitation,
                },
            );
            // The spy's own outcome stays the headline.
            d.outcome = Outcome::SpyDone { spy: id, success };
        }
        None => {
            let intel = gather(state, &m.from, &target, &mission, &ctx.contacts);
            let saw = intel.as_ref().and_then(|i| findings(state, i));
            if let Some(spy) = state.spies.iter_mut().rev().find(|s| s.id == id) {
                spy.saw = saw;
            }
            d.dispatches.push(report(match intel {
                Some(intel) => SpyResult::Learned { intel },
                None => SpyResult::Failed,
            }));
        }
    }
    Ok(())
}

/// What a mail to the GM asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GmRequest {
    /// `Avslöja` / `Reveal` (optionally `: <spell>`), in the topic or on a
    /// body line of its own.
    Reveal {
        spell: Option<Spell>,
    },
    /// `Hembjudan: armé 2` / `Home-invitation: fleet 1` (R-INV-8).
    HomeInvitation {
        army: bool,
        id: u32,
    },
    Plain,
}

/// Read a mail to the GM for the two requests the courier acts on.
pub fn gm_request(topic: Option<&str>, body: &str) -> Result<GmRequest, Refusal> {
    let lines = topic.into_iter().chain(body.lines()).map(str::trim);
    // A bare `Hembjudan` (typically the subject's topic) names the request; the
    // group may follow on a line of the body.
    let mut bare_home: Option<String> = None;
    for line in lines {
        let (head, rest) = match line.split_once(':') {
            Some((h, r)) => (fold(h.trim()), r.trim()),
            None => (fold(line), ""),
        };
        match head.as_str() {
            "avsloja" | "reveal" => {
                let spell = if rest.is_empty() {
                    None
                } else {
                    Some(Spell::parse(rest).map_err(|_| Refusal::UnknownSpell {
                        line: super::trailer::quote(line),
                    })?)
                };
                return Ok(GmRequest::Reveal { spell });
            }
            "hembjudan" | "home-invitation" | "home invitation" | "homeinvitation" => {
                let bad = || Refusal::BadHomeInvitation {
                    line: super::trailer::quote(line),
                };
                if rest.is_empty() {
                    bare_home.get_or_insert_with(|| super::trailer::quote(line));
                    continue;
                }
                let mut w = rest.split_whitespace();
                let army = match w.next().map(fold).as_deref() {
                    Some("arme" | "army" | "armegrupp" | "army group") => true,
                    Some("flotta" | "flottan" | "fleet") => false,
                    _ => return Err(bad()),
                };
                let id = w.next().and_then(|n| n.parse().ok()).ok_or_else(bad)?;
                return Ok(GmRequest::HomeInvitation { army, id });
            }
            _ => {}
        }
    }
    match bare_home {
        Some(line) => Err(Refusal::BadHomeInvitation { line }),
        None => Ok(GmRequest::Plain),
    }
}

fn to_gm(
    state: &mut GameState,
    m: &Queued,
    ctx: &mut Context,
    dice: &mut Dice,
    d: &mut Decision,
) -> Decided {
    match gm_request(m.topic.as_deref(), &m.body)? {
        GmRequest::Plain => {
            d.dispatches.push(Dispatch::ToGm {
                topic: m.topic.clone(),
            });
            d.outcome = Outcome::ToGm;
            Ok(())
        }
        GmRequest::Reveal { spell } => {
            if m.window != Window::Weekday {
                return Err(Refusal::RevealOutsideWindow { held: m.window });
            }
            if ctx.ledger.reveals.contains(&m.from) {
                return Err(Refusal::RevealUsed);
            }
            let price = Spell::Avsloja.cost();
            check_goods(
                state,
                &m.from,
                &m.from,
                &Goods::default(),
                None,
                price,
                Charge::Reveal,
            )?;
            ctx.ledger.reveals.push(m.from.clone());
            let conjurer = state.realm(&m.from).map_or(0, |r| r.positions.besvarjare);
            let d10 = dice.d10();
            let success = d10 != 1 && conjurer + d10 > 10;
            // RULINGS 17: a failed cast is still paid for, unless the setting says not.
            let paid = if success || state.settings.spells.failed_cast_pays {
                price
            } else {
                Resources::ZERO
            };
            charge(state, &m.from, &paid);
            d.events.push(Event::SpellRoll {
                spell: Spell::Avsloja,
                conjurer,
                d10,
                success,
            });
            let found = success
                .then(|| {
                    state
                        .effects
                        .iter()
                        // Cast by another realm on this one: its land, a city or a
                        // group of it, as the weekend's Reveal reads it.
                        .filter(|e| e.caster != m.from)
                        .filter(|e| victim_of(state, &e.target).as_deref() == Some(&m.from))
                        .filter(|e| spell.is_none_or(|s| s == e.spell))
                        .max_by_key(|e| e.cast_round)
                        .map(|e| (e.spell, e.caster.clone()))
                })
                .flatten();
            d.receipt = Some(Receipt {
                then: Then::RevealResult,
                ..receipt(state, m, paid, false, 0, None)
            });
            d.dispatches.push(Dispatch::RevealResult {
                to: m.from.clone(),
                success,
                spell,
                found,
            });
            d.outcome = Outcome::Reveal { success };
            Ok(())
        }
        GmRequest::HomeInvitation { army, id } => {
            // A home-invitation is an envoy to one's own troops (R-INV-8): the
            // weekday window and the envoy allowance apply; nothing stops it.
            if m.window != Window::Weekday {
                return Err(Refusal::OutsideWindow {
                    kind: MailKind::Envoy,
                    needed: Window::Weekday,
                    held: m.window,
                });
            }
            let at = if army {
                state.army(&m.from, id).map(|a| a.square)
            } else {
                state
                    .fleets_of(&m.from)
                    .find(|f| f.id == id)
                    .map(|f| f.square)
            };
            let Some(at) = at else {
                return Err(Refusal::NoSuchGroup { army, id });
            };
            // As on the form: only troops in other countries are called home.
            if state.map.get(at).and_then(|q| q.owner.as_deref()) == Some(m.from.as_str()) {
                return Err(Refusal::AlreadyHome { army, id });
            }
            let (price, free, left) = agent_price(state, &m.from, AgentKind::Sandebud);
            check_goods(
                state,
                &m.from,
                &m.from,
                &Goods::default(),
                None,
                price,
                Charge::Envoy,
            )?;
            charge(state, &m.from, &price);
            state.realm_mut(&m.from).expect("checked").sent.envoys += 1;
            let hid = next_id(state);
            let target = if army {
                GroupRef::Army {
                    owner: m.from.as_str().into(),
                    id,
                }
            } else {
                GroupRef::Fleet {
                    owner: m.from.as_str().into(),
                    id,
                }
            };
            state.home_invitations.push(HomeInvitation {
                id: hid,
                realm: m.from.clone(),
                target,
                sent_round: state.round,
                valid_until_round: state.round,
            });
            d.events.push(Event::Accepted {
                kind: MailKind::Envoy,
                charged: price,
                free,
            });
            d.events.push(Event::HomeInvitationRecorded {
                id: hid,
                realm: m.from.clone(),
            });
            d.receipt = Some(Receipt {
                then: Then::HomeInvitation,
                ..receipt(state, m, price, free, left, None)
            });
            d.outcome = Outcome::HomeInvitation { id: hid };
            Ok(())
        }
    }
}

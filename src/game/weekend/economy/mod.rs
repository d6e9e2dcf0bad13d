//! The weekend's economy: purchases (step 1), production (step 6), the slave revolt
//! (step 7), army overflow (step 8), and the wrap-up (relations, capital and harbour,
//! trade wishes, VP, the victory check). One file per step; this file holds the entry
//! points the pipeline calls and the family's events.

mod overflow;
mod production;
mod purchases;
mod revolt;
mod tally;
mod wrap_up;

use serde::{Deserialize, Serialize};

use super::Weekend;
use crate::game::event::Step;
use crate::game::orders::Order;
use crate::game::{Position, Resource, Resources, ShipKind, Square, UnitKind};

/// What the economy steps did, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EconomyEvent {
    /// A purchase of step 1, paid with `cost`.
    Bought {
        realm: String,
        purchase: Purchase,
        cost: Resources,
    },
    /// A purchase the receipt accepted that no longer fits at the weekend.
    Refused {
        realm: String,
        order: Order,
        rule: String,
        why: Why,
    },
    /// Step 6: what the realm's cities produced; `idle` cities produced nothing
    /// (plundered, R-CITY-5).
    Produced {
        realm: String,
        resources: Resources,
        idle: Vec<Square>,
    },
    /// Step 7 (R-RES-7..9): `slaves` held and `army_units` when the form arrived,
    /// `produced` this weekend; every slave is gone and `lost` was taken besides.
    SlaveRevolt {
        realm: String,
        slaves: u32,
        produced: u32,
        army_units: u32,
        lost: Resources,
    },
    /// Step 8 (Rulings 51): a cap the realm is over, and what was disbanded.
    Overflow {
        realm: String,
        cap: Cap,
        have: u32,
        limit: u32,
        disbanded: u32,
    },
    /// R-ALLY-1: the realm's relations box now says friend (or not) of `other`.
    Relation {
        realm: String,
        other: String,
        friend: bool,
    },
    /// R-CITY-9: a new capital; `stand_in` when chosen for the realm (Rulings 29).
    Capital {
        realm: String,
        city: Square,
        stand_in: bool,
    },
    /// R-CITY-10: a new main harbour; `stand_in` as for the capital.
    MainHarbour {
        realm: String,
        city: Square,
        stand_in: bool,
    },
    /// R-RES-3: the published wish list changed.
    TradeWishes {
        realm: String,
        buy: Vec<Resource>,
        sell: Vec<Resource>,
    },
    /// R-VP-*: the realm's VP over the weekend.
    Vp {
        realm: String,
        before: i64,
        after: i64,
    },
    /// R-VP-1, Rulings 47: the game is won.
    Victory { realm: String, vp: i64 },
    /// R-POS-3, Rulings 10: the realm reached 11 in `position` (now `value`) and holds
    /// the GM's secret bonus `text`; its effect is the GM's to apply.
    SecretBonus {
        realm: String,
        position: Position,
        value: u32,
        text: String,
    },
}

/// What a step-1 order bought.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum Purchase {
    /// Army units joined army group `army` in `city`.
    Units {
        count: u32,
        unit: UnitKind,
        city: Square,
        army: u32,
    },
    Ships {
        count: u32,
        ship: ShipKind,
        city: Square,
        fleet: u32,
    },
    Spies {
        count: u32,
    },
    Walls {
        count: u32,
        city: Square,
    },
    City {
        square: Square,
        production: Resources,
    },
    Population {
        count: u32,
        city: Square,
        population: u32,
    },
    Position {
        position: Position,
        value: u32,
    },
    Production {
        city: Square,
        resource: Resource,
        value: u32,
    },
    SlavesConverted {
        count: u32,
        resource: Resource,
    },
}

/// Why a purchase was refused at the weekend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Why {
    /// The stock no longer covers it.
    Short {
        cost: Resources,
        short: Resources,
    },
    /// The numbers are beyond any stock.
    TooMany,
    /// A count of nothing.
    Nothing,
    NotOwnCity {
        city: Square,
    },
    NotCoastal {
        city: Square,
    },
    /// No city named and no capital / main harbour to default to.
    NoCity,
    NotOwnLand {
        square: Square,
    },
    CityThere {
        square: Square,
    },
    /// A new city's 10 points among the standard resources, at most 5 each.
    BadProduction,
    Over {
        cap: Cap,
        have: u32,
        add: u32,
        limit: u32,
    },
    /// A second step for one position value, or one (city, resource), this round.
    OneStep,
    /// More upgrade steps than the Forskare value.
    StepLimit {
        limit: u32,
    },
    /// Slaves convert only to an ordinary resource the realm produces.
    NotProduced {
        resource: Resource,
    },
    /// Researched kind not researched, or no price set.
    NotAvailable,
    /// Only the Evil has demons.
    EvilOnly,
    /// The Evil builds no troops but demons, and no ships (R-EVIL-9).
    DemonsOnly,
}

/// The caps of units (R-POP-1, R-POS-4, R-WALL-3), shared with the receipt.
pub use crate::game::caps::Cap;
pub(crate) use purchases::{founded, GroupNoter, GroupNotes};

impl EconomyEvent {
    /// The realm the event is about.
    pub fn realm(&self) -> &str {
        match self {
            EconomyEvent::Bought { realm, .. }
            | EconomyEvent::Refused { realm, .. }
            | EconomyEvent::Produced { realm, .. }
            | EconomyEvent::SlaveRevolt { realm, .. }
            | EconomyEvent::Overflow { realm, .. }
            | EconomyEvent::Relation { realm, .. }
            | EconomyEvent::Capital { realm, .. }
            | EconomyEvent::MainHarbour { realm, .. }
            | EconomyEvent::TradeWishes { realm, .. }
            | EconomyEvent::Vp { realm, .. }
            | EconomyEvent::Victory { realm, .. }
            | EconomyEvent::SecretBonus { realm, .. } => realm,
        }
    }
}

/// Tell `realm` alone what happened to it.
fn tell(w: &mut Weekend, step: Step, ev: EconomyEvent) {
    let realm = w.name(ev.realm());
    w.emit(step, [realm], ev.into());
}

/// Step 1.
pub fn purchases(w: &mut Weekend) {
    purchases::run(w);
}

/// Step 6.
pub fn production(w: &mut Weekend) {
    production::run(w);
}

/// Step 7.
pub fn slave_revolt(w: &mut Weekend) {
    revolt::run(w);
}

/// Step 8.
pub fn overflow(w: &mut Weekend) {
    overflow::run(w);
}

/// After step 9: relations, capital and harbour, wishes, VP, victory.
pub fn wrap_up(w: &mut Weekend) {
    wrap_up::run(w);
}

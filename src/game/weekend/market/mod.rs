//! The free merchants (R-FREE) and the engineers' research (R-ENG) at the weekend,
//! run in step 1 after the purchases (docs/rules.md, Rulings 52): troops won earlier
//! are placed (`PLACE`), the week's lot goes to the best bid, engineers go to every
//! realm that pays their price, the research rolls are made, and next week's lot is
//! drawn and announced to every realm. One file per part; this file holds the entry
//! point the pipeline calls and the family's events.

mod bids;
mod offer;
mod placement;
mod research;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Weekend;
use crate::game::event::Step;
use crate::game::state::{GameState, Lot, Researched, SpyState};
use crate::game::weekend::economy::Cap;
use crate::game::{Resources, Square, UnitKind};

pub use bids::{bid_sum, bid_value, bid_worth, double_bids};

/// What the free merchants and the engineers did, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum MarketEvent {
    /// R-FREE-9: troops from the free merchants joined army `army` in `city`.
    Placed {
        realm: String,
        count: u32,
        unit: UnitKind,
        city: Square,
        army: u32,
    },
    /// A placement that did not fit; the troops keep waiting.
    PlaceRefused {
        realm: String,
        count: u32,
        unit: UnitKind,
        city: Square,
        rule: String,
        why: Why,
    },
    /// R-FREE-2..8: the realm's bid won the lot and `paid` was taken.
    Won {
        realm: String,
        lot: Lot,
        value: u64,
        paid: Resources,
    },
    /// The realm's bid was valid but another was better (or as good and earlier);
    /// nothing was taken (R-FREE-4).
    Lost { realm: String, value: u64 },
    /// A bid that took no part, and why; nothing was taken.
    BidRefused {
        realm: String,
        rule: String,
        why: Why,
    },
    /// R-FREE-7: the realm bought engineers.
    Engineers { realm: String, paid: Resources },
    EngineersRefused {
        realm: String,
        rule: String,
        why: Why,
    },
    /// R-ENG-2: the research roll `forskare + roll`; on success the kind can be built
    /// at `cost` (None: the GM has not set it yet).
    Research {
        realm: String,
        kind: Researched,
        forskare: u32,
        roll: u32,
        success: bool,
        cost: Option<Resources>,
    },
    ResearchRefused {
        realm: String,
        kind: Researched,
        rule: String,
        why: Why,
    },
    /// R-FREE-1: next week's lot, announced to every realm.
    Offer { round: u32, lot: Lot, min_bid: u32 },
}

/// Why a market order was not carried out.
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
    /// No lot is on offer this week.
    NoOffer,
    /// R-FREE-4: valued under the minimum bid. How the value was summed, for the
    /// player's report: the `offer` (crystals count ×2), `doubled` for the ruler's double
    /// bids, less `penalty` after a battle the weekend before (0 without one).
    BelowMinimum {
        value: u64,
        min: u32,
        #[serde(default)]
        offer: Resources,
        #[serde(default)]
        doubled: bool,
        #[serde(default)]
        penalty: u32,
    },
    /// A cap the troops would pass (R-POP-2, R-POS-4, R-UNIT-6).
    Over {
        cap: Cap,
        have: u32,
        add: u32,
        limit: u32,
    },
    NotOwnCity {
        city: Square,
    },
    /// R-FREE-9: more placed than wait for placement.
    NotWaiting {
        waiting: u32,
    },
    /// R-FREE-7: engineers are bought once.
    HasEngineers,
    /// R-FREE-7: less than the engineers' price.
    EngineersPrice {
        paid: u64,
        price: u32,
    },
    /// R-ENG-1: research needs engineers.
    NeedsEngineers,
    /// R-EVIL-9: only the Evil has demons.
    EvilOnly,
    /// Rulings 41: the kind is researched already, or tried this round.
    AlreadyResearched,
}

impl MarketEvent {
    /// The realm the event is about (`None` for the offer, which every realm reads).
    pub fn realm(&self) -> Option<&str> {
        match self {
            MarketEvent::Placed { realm, .. }
            | MarketEvent::PlaceRefused { realm, .. }
            | MarketEvent::Won { realm, .. }
            | MarketEvent::Lost { realm, .. }
            | MarketEvent::BidRefused { realm, .. }
            | MarketEvent::Engineers { realm, .. }
            | MarketEvent::EngineersRefused { realm, .. }
            | MarketEvent::Research { realm, .. }
            | MarketEvent::ResearchRefused { realm, .. } => Some(realm),
            MarketEvent::Offer { .. } => None,
        }
    }
}

/// Tell the realm the event is about, alone.
fn tell(w: &mut Weekend, ev: MarketEvent) {
    let seen_by = ev.realm().map(|r| w.name(r));
    w.emit(Step::FreeMerchants, seen_by, ev.into());
}

/// The index of a playing (not eliminated) realm.
fn playing(w: &Weekend, realm: &str) -> Option<usize> {
    // The realm's place from the state's cache; a scan only when that realm is out
    // (another of the same name might not be).
    match w.state.realm_index(realm) {
        Some(i) if !w.state.realms[i].eliminated => Some(i),
        _ => w
            .state
            .realms
            .iter()
            .position(|r| r.name == realm && !r.eliminated),
    }
}

/// Take `cost` from realm `idx`'s stock, or say what is short.
fn pay(w: &mut Weekend, idx: usize, cost: Resources) -> Result<(), Why> {
    let realm = &mut w.state.realms[idx];
    match realm.stock.checked_sub(&cost) {
        Some(left) => {
            realm.stock = left;
            Ok(())
        }
        None => {
            let mut short = Resources::ZERO;
            for (r, n) in cost.iter() {
                short.set(r, n.saturating_sub(realm.stock.get(r)));
            }
            Err(Why::Short { cost, short })
        }
    }
}

/// The amounts of an order as one stock, or `TooMany` past any number.
fn summed(amounts: &[crate::game::orders::Amount]) -> Result<Resources, Why> {
    let mut r = Resources::ZERO;
    for a in amounts {
        let n = r.get(a.resource).checked_add(a.count).ok_or(Why::TooMany)?;
        r.set(a.resource, n);
    }
    Ok(r)
}

/// One realm's counts for the caps (R-POP-2, R-POS-4, R-UNIT-6).
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    /// Army units, ships and spies (held and out on missions).
    counted: u32,
    elementals: u32,
    army_groups: u32,
    population: u32,
}

/// Every realm's counts in one pass over the state.
fn tally(gs: &GameState) -> BTreeMap<String, Tally> {
    let mut m: BTreeMap<String, Tally> = BTreeMap::new();
    for r in &gs.realms {
        m.entry(r.name.clone()).or_default().counted = r.spies;
    }
    let len = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    for a in &gs.armies {
        let t = m.entry(a.owner.to_string()).or_default();
        let elementals = a.units.iter().filter(|u| u.kind.is_elemental()).count();
        t.counted = t.counted.saturating_add(len(a.units.len()));
        t.elementals = t.elementals.saturating_add(len(elementals));
        t.army_groups = t.army_groups.saturating_add(1);
    }
    for f in &gs.fleets {
        let t = m.entry(f.owner.to_string()).or_default();
        t.counted = t.counted.saturating_add(len(f.ships.len()));
    }
    for s in gs.spies.iter().filter(|s| s.state == SpyState::Waiting) {
        let t = m.entry(s.owner.clone()).or_default();
        t.counted = t.counted.saturating_add(1);
    }
    for c in &gs.cities {
        let t = m.entry(c.owner.to_string()).or_default();
        t.population = t.population.saturating_add(c.population);
    }
    m
}

/// Step 1, after the purchases: placements, the auction, engineers, research, and
/// next week's lot.
pub fn free_merchants(w: &mut Weekend) {
    placement::run(w);
    bids::run(w);
    research::engineers(w);
    research::run(w);
    offer::draw(w);
}

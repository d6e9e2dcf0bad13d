//! What happened at the weekend, as data: who, what, where, the dice and the numbers.
//! Never text: `render::weekend` turns the events a realm may know into its report, in
//! its language. Each event names the realms that may know it (`seen_by`); a realm
//! never learns of a battle it was not in.

use serde::{Deserialize, Serialize};

use super::name::Name;
use super::weekend::economy::EconomyEvent;
use super::weekend::espionage::EspionageEvent;
use super::weekend::evil::EvilEvent;
use super::weekend::magic::MagicEvent;
use super::weekend::market::MarketEvent;
use super::weekend::military::MilitaryEvent;
use super::weekend::politics::PoliticsEvent;

/// The weekend's steps, in order (R-PHASE-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Before step 1: the ruler's benefit and the VP rewards claimed on the form.
    Claims,
    Purchases,
    /// Step 1, after the purchases (docs/rules.md, Rulings 52): free-merchant
    /// placements, the auction, engineers, research and next week's offer.
    FreeMerchants,
    Magic,
    Movement,
    Combat,
    Invitations,
    Production,
    SlaveRevolt,
    Overflow,
    HomeInvitations,
    /// After step 9: the passive spy rolls against foreign troops (R-SPY-9).
    Espionage,
    /// After step 9 (Rulings 52): the vote, missions, random events, VP thresholds.
    Politics,
    /// Relations, capital and harbour choices, trade wishes, VP and the victory check.
    WrapUp,
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub step: Step,
    /// The realms whose report tells this (canonical names).
    pub seen_by: Vec<Name>,
    pub what: What,
}

impl Event {
    /// True when `realm`'s report tells this event.
    pub fn seen_by(&self, realm: &str) -> bool {
        self.seen_by.iter().any(|r| r == realm)
    }
}

/// What happened, by family: purchases and the economy, or armies, fleets and cities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "family", content = "event", rename_all = "snake_case")]
pub enum What {
    Economy(EconomyEvent),
    Military(MilitaryEvent),
    /// The Evil, portals, lava and treasures (R-EVIL).
    Evil(EvilEvent),
    /// Free merchants, engineers and research.
    Market(MarketEvent),
    Espionage(EspionageEvent),
    Politics(PoliticsEvent),
    /// Spells cast in step 2 and what they did.
    Magic(MagicEvent),
}

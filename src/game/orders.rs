//! The weekend orders as data: what the forms room produces from a
//! player's lines and the engine consumes. Parsing and rendering the
//! order lines is the grammar's business (`forms::grammar`); the serde
//! form here is what stored forms hold, so it must not change.

use serde::{Deserialize, Serialize};

use super::state::{Researched, RulerBenefit};
use super::{Lang, Position, Resource, ShipKind, Spell, Square, UnitKind};

/// One weekend order, as parsed from one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "order", rename_all = "snake_case")]
pub enum Order {
    /// New army units in an own city (default: the capital, RULINGS 13).
    BuyUnits {
        count: u32,
        kind: UnitKind,
        city: Option<Square>,
    },
    /// New ships in an own coastal city (default: the main harbour).
    BuyShips {
        count: u32,
        kind: ShipKind,
        city: Option<Square>,
    },
    BuySpies {
        count: u32,
    },
    BuyWalls {
        count: u32,
        city: Square,
    },
    /// A new city with its 10 production points (R-CITY-2).
    BuyCity {
        square: Square,
        production: Vec<Amount>,
    },
    /// +10 population per purchase.
    BuyPopulation {
        count: u32,
        city: Square,
    },
    /// +1 position value; `crystals` = the buyer's choice of the 5
    /// crystals (empty: taken from stock in resource order).
    UpgradePosition {
        position: Position,
        crystals: Vec<Amount>,
    },
    UpgradeProduction {
        city: Square,
        resource: Resource,
    },
    /// `count` slaves → `count` of `resource` (RULINGS 2).
    ConvertSlaves {
        count: u32,
        resource: Resource,
    },
    Cast {
        spell: Spell,
        target: Target,
    },
    Move {
        group: Group,
        path: Vec<Square>,
    },
    Embark {
        army: u32,
        fleet: u32,
    },
    Disembark {
        army: u32,
        square: Option<Square>,
    },
    PickUp {
        fleet: u32,
        army: u32,
    },
    /// `other` joins `group` (same kind of group).
    Merge {
        group: Group,
        other: u32,
    },
    /// The listed pieces leave `group` and form a new group.
    Split {
        group: Group,
        pieces: Vec<(u32, Piece)>,
    },
    /// The whole group in cannon-fodder order (last listed falls first).
    Reorder {
        group: Group,
        pieces: Vec<(u32, Piece)>,
    },
    Attack {
        group: Group,
        square: Square,
        outcome: Option<Outcome>,
        wave: Option<Wave>,
    },
    UseInvitation {
        from: String,
        group: Group,
    },
    HomeInvitation {
        group: Group,
    },
    Bid {
        offer: Vec<Amount>,
    },
    Engineers {
        pay: Vec<Amount>,
    },
    Research {
        kind: Researched,
    },
    Vote {
        realm: String,
    },
    Friend {
        realm: String,
    },
    NotFriend {
        realm: String,
    },
    Capital {
        city: Square,
    },
    MainHarbour {
        city: Square,
    },
    TradeWishes {
        buy: Vec<Resource>,
        sell: Vec<Resource>,
    },
    /// The sole voting winner picks its benefit (R-VOTE-5).
    RulerBenefit {
        benefit: RulerBenefit,
    },
    /// The reward for a VP threshold reached (R-VP-4).
    VpReward {
        reward: Reward,
    },
    /// Troops bought from the free merchants: how many of a kind go to
    /// which own city (R-FREE-9).
    PlaceTroops {
        placements: Vec<(u32, UnitKind, Square)>,
    },
}

/// `N resource`, e.g. `12 järn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Amount {
    pub count: u32,
    pub resource: Resource,
}

/// An own army group or fleet, by its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    Army(u32),
    Fleet(u32),
}

impl Group {
    pub fn id(self) -> u32 {
        match self {
            Group::Army(n) | Group::Fleet(n) => n,
        }
    }
    pub fn is_army(self) -> bool {
        matches!(self, Group::Army(_))
    }
}

/// A spell's army/fleet target: an own group by number, or whatever
/// stands on a square (enemy groups, whose numbers the caster does not know).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupSel {
    Id(u32),
    At(Square),
}

/// What a spell is cast on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// Own realm / everyone (production boosts, Armageddon, Reveal).
    None,
    Realm(String),
    City(Square),
    Army(GroupSel),
    Fleet(GroupSel),
    Square(Square),
    /// Reveal: the spell to look for (R-SPELL table: the latest, or a named spell).
    Spell(Spell),
    /// Teleport: an army and where it lands.
    ArmyTo {
        army: GroupSel,
        to: Square,
    },
}

/// What happens to a city the attacker wins (R-CITY-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Plunder,
    Takeover,
    Raze,
}

/// 1st or 2nd attacker on one target (R-COMBAT-12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wave {
    First,
    Second,
}

/// What a VP-threshold reward gives (R-VP-4 a–c).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reward {
    /// a: one position value +1.
    Position(Position),
    /// b: +1 production of a resource the realm already produces.
    Production { city: Square, resource: Resource },
    /// c: 25 resources of the realm's choice (slaves and crystals count
    /// double).
    Resources(Vec<Amount>),
}

/// A unit or a ship: in split and reorder lists, and the fighting piece of
/// the battle calculator (an army unit on land, a ship at sea).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Piece {
    Unit(UnitKind),
    Ship(ShipKind),
}

impl Piece {
    pub fn attack(self) -> u64 {
        match self {
            Piece::Unit(u) => u.stats().attack as u64,
            Piece::Ship(s) => s.stats().attack as u64,
        }
    }

    pub fn defence(self) -> u64 {
        match self {
            Piece::Unit(u) => u.stats().defence as u64,
            Piece::Ship(s) => s.stats().defence as u64,
        }
    }

    /// Archers on land (R-UNIT-2), galleasses at sea (R-NAV-2).
    pub fn is_ranged(self) -> bool {
        match self {
            Piece::Unit(u) => u.is_archer(),
            Piece::Ship(s) => s.is_galleass(),
        }
    }

    pub fn is_siege_tower(self) -> bool {
        self == Piece::Unit(UnitKind::Belagringstorn)
    }

    /// `n` of this piece as text, e.g. `3 bågskyttar`.
    pub fn count_text(self, n: u64, lang: Lang) -> String {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        match self {
            Piece::Unit(u) => u.count_text(n, lang),
            Piece::Ship(s) => s.count_text(n, lang),
        }
    }
}

//! Unit, ship, agent, position and spell kinds with the rulebook's stat and
//! cost tables as data (RULES R-UNIT-1, R-NAV-1, R-AGENT-1, R-POS-4,
//! R-BUILD-1, R-SPELL table, R-EVIL-9, R-ENG-3). Pure lookups; no rules
//! are applied here.

use serde::{Deserialize, Serialize};

use super::resource::{Resource, Resources};
use super::text::fold;
use super::Lang;

/// Error for a unit/ship/position/spell name that is not known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{input}`")]
pub struct ParseKindError {
    pub what: &'static str,
    pub input: String,
}

/// Attack, defence and movement of a unit or ship. The siege tower's "–"
/// counts as 0 (RULINGS 11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub attack: u32,
    pub defence: u32,
    pub movement: u32,
}

/// Every kind of army unit, researched and Evil-only kinds included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitKind {
    LattInfanteri,
    TungtInfanteri,
    Bagskyttar,
    LattKavalleri,
    TungtKavalleri,
    Veteran,
    Belagringstorn,
    Eldelementar,
    Jordelementar,
    Luftelementar,
    Vattenelementar,
    /// Researched (R-ENG-3); counts as archers; cost from the scenario.
    BeridnaBagskyttar,
    /// Evil only (R-EVIL-9).
    HogreDemon,
    /// Evil only (R-EVIL-9).
    LagreDemon,
}

impl UnitKind {
    pub const ALL: [UnitKind; 14] = [
        UnitKind::LattInfanteri,
        UnitKind::TungtInfanteri,
        UnitKind::Bagskyttar,
        UnitKind::LattKavalleri,
        UnitKind::TungtKavalleri,
        UnitKind::Veteran,
        UnitKind::Belagringstorn,
        UnitKind::Eldelementar,
        UnitKind::Jordelementar,
        UnitKind::Luftelementar,
        UnitKind::Vattenelementar,
        UnitKind::BeridnaBagskyttar,
        UnitKind::HogreDemon,
        UnitKind::LagreDemon,
    ];

    /// R-UNIT-1 / R-ENG-3 / R-EVIL-9.
    pub fn stats(self) -> Stats {
        let (attack, defence, movement) = match self {
            UnitKind::LattInfanteri => (1, 1, 1),
            UnitKind::TungtInfanteri => (1, 2, 1),
            UnitKind::Bagskyttar => (1, 1, 1),
            UnitKind::LattKavalleri => (2, 1, 3),
            UnitKind::TungtKavalleri => (3, 1, 2),
            UnitKind::Veteran => (4, 2, 1),
            UnitKind::Belagringstorn => (0, 0, 1),
            UnitKind::Eldelementar => (5, 1, 1),
            UnitKind::Jordelementar => (1, 5, 1),
            UnitKind::Luftelementar => (1, 1, 5),
            UnitKind::Vattenelementar => (1, 1, 1),
            UnitKind::BeridnaBagskyttar => (2, 2, 3),
            UnitKind::HogreDemon => (10, 2, 5),
            UnitKind::LagreDemon => (1, 2, 1),
        };
        Stats {
            attack,
            defence,
            movement,
        }
    }

    /// Purchase cost; `None` for researched units, whose cost the GM sets
    /// (scenario `settings.research_costs`).
    pub fn cost(self) -> Option<Resources> {
        use Resource::*;
        let r = match self {
            UnitKind::LattInfanteri => {
                Resources::from_pairs(&[(Mat, 1), (Guld, 1), (Tyg, 1), (Jarn, 1)])
            }
            UnitKind::TungtInfanteri => {
                Resources::from_pairs(&[(Mat, 2), (Guld, 2), (Tyg, 2), (Jarn, 2)])
            }
            UnitKind::Bagskyttar => {
                Resources::from_pairs(&[(Mat, 1), (Guld, 5), (Tyg, 1), (Timmer, 2)])
            }
            UnitKind::LattKavalleri => {
                Resources::from_pairs(&[(Mat, 3), (Guld, 3), (Tyg, 2), (Jarn, 2), (Hastar, 2)])
            }
            UnitKind::TungtKavalleri => {
                Resources::from_pairs(&[(Mat, 5), (Guld, 5), (Tyg, 3), (Jarn, 3), (Hastar, 4)])
            }
            UnitKind::Veteran => {
                Resources::from_pairs(&[(Mat, 4), (Guld, 10), (Tyg, 2), (Jarn, 5)])
            }
            UnitKind::Belagringstorn => {
                Resources::from_pairs(&[(Jarn, 10), (Timmer, 10), (Sten, 5), (Hastar, 2)])
            }
            UnitKind::Eldelementar => Resources::from_pairs(&[(Eld, 10)]),
            UnitKind::Jordelementar => Resources::from_pairs(&[(Jord, 10)]),
            UnitKind::Luftelementar => Resources::from_pairs(&[(Luft, 10)]),
            UnitKind::Vattenelementar => Resources::from_pairs(&[(Vatten, 10)]),
            UnitKind::BeridnaBagskyttar => return None,
            UnitKind::HogreDemon => Resources::each_crystal(10),
            UnitKind::LagreDemon => Resources::each_crystal(2),
        };
        Some(r)
    }

    pub fn is_elemental(self) -> bool {
        matches!(
            self,
            UnitKind::Eldelementar
                | UnitKind::Jordelementar
                | UnitKind::Luftelementar
                | UnitKind::Vattenelementar
        )
    }

    /// Archers for the pre-battle phase (mounted archers count, R-ENG-3).
    pub fn is_archer(self) -> bool {
        matches!(self, UnitKind::Bagskyttar | UnitKind::BeridnaBagskyttar)
    }

    pub fn is_demon(self) -> bool {
        matches!(self, UnitKind::HogreDemon | UnitKind::LagreDemon)
    }

    /// Only the engineers can unlock it (R-ENG-3).
    pub fn is_researched(self) -> bool {
        self == UnitKind::BeridnaBagskyttar
    }

    /// Display name: `(singular, plural)`.
    pub fn names(self, lang: Lang) -> (&'static str, &'static str) {
        match lang {
            Lang::Sv => match self {
                UnitKind::LattInfanteri => ("lätt infanteri", "lätt infanteri"),
                UnitKind::TungtInfanteri => ("tungt infanteri", "tungt infanteri"),
                UnitKind::Bagskyttar => ("bågskytt", "bågskyttar"),
                UnitKind::LattKavalleri => ("lätt kavalleri", "lätt kavalleri"),
                UnitKind::TungtKavalleri => ("tungt kavalleri", "tungt kavalleri"),
                UnitKind::Veteran => ("veteran", "veteraner"),
                UnitKind::Belagringstorn => ("belägringstorn", "belägringstorn"),
                UnitKind::Eldelementar => ("eldelementar", "eldelementarer"),
                UnitKind::Jordelementar => ("jordelementar", "jordelementarer"),
                UnitKind::Luftelementar => ("luftelementar", "luftelementarer"),
                UnitKind::Vattenelementar => ("vattenelementar", "vattenelementarer"),
                UnitKind::BeridnaBagskyttar => ("beriden bågskytt", "beridna bågskyttar"),
                UnitKind::HogreDemon => ("högre demon", "högre demoner"),
                UnitKind::LagreDemon => ("lägre demon", "lägre demoner"),
            },
            Lang::En => match self {
                UnitKind::LattInfanteri => ("light infantry", "light infantry"),
                UnitKind::TungtInfanteri => ("heavy infantry", "heavy infantry"),
                UnitKind::Bagskyttar => ("archer", "archers"),
                UnitKind::LattKavalleri => ("light cavalry", "light cavalry"),
                UnitKind::TungtKavalleri => ("heavy cavalry", "heavy cavalry"),
                UnitKind::Veteran => ("veteran", "veterans"),
                UnitKind::Belagringstorn => ("siege tower", "siege towers"),
                UnitKind::Eldelementar => ("fire elemental", "fire elementals"),
                UnitKind::Jordelementar => ("earth elemental", "earth elementals"),
                UnitKind::Luftelementar => ("air elemental", "air elementals"),
                UnitKind::Vattenelementar => ("water elemental", "water elementals"),
                UnitKind::BeridnaBagskyttar => ("mounted archer", "mounted archers"),
                UnitKind::HogreDemon => ("higher demon", "higher demons"),
                UnitKind::LagreDemon => ("lower demon", "lower demons"),
            },
        }
    }

    /// `n` units as text, e.g. `3 bågskyttar`, `1 veteran`.
    pub fn count_text(self, n: usize, lang: Lang) -> String {
        count_text(self.names(lang), n)
    }

    /// Parse a Swedish or English name, singular or plural, any case,
    /// diacritics optional, or the stored key (`latt_infanteri`).
    pub fn parse(input: &str) -> Result<UnitKind, ParseKindError> {
        let norm = fold(input.trim()).replace('_', " ");
        if let Some(kind) = by_name(&norm, &UnitKind::ALL, UnitKind::names) {
            return Ok(kind);
        }
        // A few common short forms.
        let alias = match norm.as_str() {
            "bagskytte" | "bagskyttarna" | "archery" => Some(UnitKind::Bagskyttar),
            "lagre demonen" => Some(UnitKind::LagreDemon),
            _ => None,
        };
        alias.ok_or(ParseKindError {
            what: "army unit",
            input: input.to_string(),
        })
    }
}

/// Every kind of ship, researched frigate included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShipKind {
    Transportskepp,
    LattKrigsskepp,
    TungtKrigsskepp,
    Galeas,
    /// Researched (R-ENG-3); cost and cargo from the scenario.
    Fregatt,
}

impl ShipKind {
    pub const ALL: [ShipKind; 5] = [
        ShipKind::Transportskepp,
        ShipKind::LattKrigsskepp,
        ShipKind::TungtKrigsskepp,
        ShipKind::Galeas,
        ShipKind::Fregatt,
    ];

    /// R-NAV-1 / R-ENG-3.
    pub fn stats(self) -> Stats {
        let (attack, defence, movement) = match self {
            ShipKind::Transportskepp => (1, 1, 4),
            ShipKind::LattKrigsskepp => (2, 2, 2),
            ShipKind::TungtKrigsskepp => (3, 2, 1),
            ShipKind::Galeas => (1, 1, 1),
            ShipKind::Fregatt => (1, 1, 5),
        };
        Stats {
            attack,
            defence,
            movement,
        }
    }

    /// Army units it can carry (R-NAV-3: transports only, 5 each). The
    /// frigate's capacity is unstated; 0 until the scenario says otherwise.
    pub fn cargo_capacity(self) -> u32 {
        match self {
            ShipKind::Transportskepp => 5,
            _ => 0,
        }
    }

    /// `None` for the researched frigate (cost set by the GM).
    pub fn cost(self) -> Option<Resources> {
        use Resource::*;
        let r = match self {
            ShipKind::Transportskepp | ShipKind::LattKrigsskepp => {
                Resources::from_pairs(&[(Timmer, 3), (Tyg, 3), (Guld, 3)])
            }
            ShipKind::TungtKrigsskepp | ShipKind::Galeas => {
                Resources::from_pairs(&[(Timmer, 5), (Tyg, 5), (Guld, 5)])
            }
            ShipKind::Fregatt => return None,
        };
        Some(r)
    }

    pub fn is_galleass(self) -> bool {
        self == ShipKind::Galeas
    }

    pub fn is_researched(self) -> bool {
        self == ShipKind::Fregatt
    }

    /// Display name: `(singular, plural)`.
    pub fn names(self, lang: Lang) -> (&'static str, &'static str) {
        match lang {
            Lang::Sv => match self {
                ShipKind::Transportskepp => ("transportskepp", "transportskepp"),
                ShipKind::LattKrigsskepp => ("lätt krigsskepp", "lätta krigsskepp"),
                ShipKind::TungtKrigsskepp => ("tungt krigsskepp", "tunga krigsskepp"),
                ShipKind::Galeas => ("galeas", "galeaser"),
                ShipKind::Fregatt => ("fregatt", "fregatter"),
            },
            Lang::En => match self {
                ShipKind::Transportskepp => ("transport ship", "transport ships"),
                ShipKind::LattKrigsskepp => ("light warship", "light warships"),
                ShipKind::TungtKrigsskepp => ("heavy warship", "heavy warships"),
                ShipKind::Galeas => ("galleass", "galleasses"),
                ShipKind::Fregatt => ("frigate", "frigates"),
            },
        }
    }

    /// `n` ships as text, e.g. `2 galeaser`.
    pub fn count_text(self, n: usize, lang: Lang) -> String {
        count_text(self.names(lang), n)
    }

    /// Parse a Swedish or English name, singular or plural, or the key.
    pub fn parse(input: &str) -> Result<ShipKind, ParseKindError> {
        let norm = fold(input.trim()).replace('_', " ");
        if let Some(kind) = by_name(&norm, &ShipKind::ALL, ShipKind::names) {
            return Ok(kind);
        }
        match norm.as_str() {
            "galley" | "galleys" => Ok(ShipKind::Galeas),
            _ => Err(ParseKindError {
                what: "ship",
                input: input.to_string(),
            }),
        }
    }
}

/// The serde name of a unit-like enum value (`latt_infanteri`).
/// `n` of a kind as text, singular or plural.
fn count_text((one, many): (&str, &str), n: usize) -> String {
    super::lang::count(n, one, many)
}

/// The kind whose Swedish or English name (singular or plural) or stored key is
/// `norm` (already folded).
fn by_name<K: Copy + Serialize>(
    norm: &str,
    all: &[K],
    names: impl Fn(K, Lang) -> (&'static str, &'static str),
) -> Option<K> {
    all.iter().copied().find(|&kind| {
        [Lang::Sv, Lang::En].into_iter().any(|lang| {
            let (one, many) = names(kind, lang);
            norm == fold(one) || norm == fold(many)
        }) || norm == serde_key(&kind).replace('_', " ")
    })
}

fn serde_key<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Merchant, spy, envoy (R-AGENT-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentKind {
    Handelsman,
    Spion,
    Sandebud,
}

impl AgentKind {
    pub fn cost(self) -> Resources {
        use Resource::*;
        match self {
            AgentKind::Handelsman => Resources::from_pairs(&[(Mat, 1), (Tyg, 1), (Guld, 1)]),
            AgentKind::Spion => Resources::from_pairs(&[(Mat, 4), (Guld, 5), (Hastar, 1)]),
            AgentKind::Sandebud => Resources::from_pairs(&[(Mat, 1), (Tyg, 1), (Guld, 3)]),
        }
    }
}

/// The seven position values (befattningsvärden, R-POS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Position {
    Amiral,
    Befalhavare,
    Besvarjare,
    Informator,
    Forskare,
    Skattmastare,
    Sprakror,
}

impl Position {
    pub const ALL: [Position; 7] = [
        Position::Amiral,
        Position::Befalhavare,
        Position::Besvarjare,
        Position::Informator,
        Position::Forskare,
        Position::Skattmastare,
        Position::Sprakror,
    ];

    pub fn name(self, lang: Lang) -> &'static str {
        match lang {
            Lang::Sv => match self {
                Position::Amiral => "Amiral",
                Position::Befalhavare => "Befälhavare",
                Position::Besvarjare => "Besvärjare",
                Position::Informator => "Informatör",
                Position::Forskare => "Forskare",
                Position::Skattmastare => "Skattmästare",
                Position::Sprakror => "Språkrör",
            },
            Lang::En => match self {
                Position::Amiral => "Admiral",
                Position::Befalhavare => "Commander",
                Position::Besvarjare => "Conjurer",
                Position::Informator => "Informant",
                Position::Forskare => "Researcher",
                Position::Skattmastare => "Treasurer",
                Position::Sprakror => "Spokesperson",
            },
        }
    }

    /// Swedish or English title, any case, diacritics optional.
    pub fn parse(input: &str) -> Result<Position, ParseKindError> {
        let norm = fold(input.trim());
        Position::ALL
            .into_iter()
            .find(|p| {
                [Lang::Sv, Lang::En]
                    .iter()
                    .any(|&l| fold(p.name(l)) == norm)
            })
            .ok_or(ParseKindError {
                what: "position",
                input: input.to_string(),
            })
    }
}

/// Costs of the other purchases (R-BUILD-1).
pub mod build_cost {
    use super::{Resource::*, Resources};

    /// Upgrade a position value: 15 gold, 5 food and 5 crystals of any
    /// kind(s) — the crystals are the buyer's choice, so they are not in
    /// this fixed part.
    pub fn position_fixed() -> Resources {
        Resources::from_pairs(&[(Guld, 15), (Mat, 5)])
    }
    /// Number of crystals (any mix) an upgrade of a position value costs.
    pub const POSITION_CRYSTALS: u32 = 5;
    /// The crystals of an upgrade that names none: the five taken from `stock` in
    /// resource order (eld, jord, luft, vatten), or `None` when it holds fewer. The
    /// receipt makes this choice and writes it into the accepted order, so the
    /// weekend charges the crystals the receipt showed.
    pub fn position_crystals(stock: &Resources) -> Option<Resources> {
        let mut left = POSITION_CRYSTALS;
        let mut chosen = Resources::ZERO;
        for r in super::Resource::CRYSTALS {
            let take = left.min(stock.get(r));
            chosen.set(r, take);
            left -= take;
        }
        (left == 0).then_some(chosen)
    }
    pub fn production_ordinary() -> Resources {
        Resources::from_pairs(&[(Timmer, 4), (Jarn, 4), (Slavar, 4), (Sten, 4), (Hastar, 6)])
    }
    pub fn production_slave_or_crystal() -> Resources {
        Resources::from_pairs(&[(Timmer, 6), (Jarn, 6), (Slavar, 6), (Sten, 6), (Hastar, 8)])
    }
    pub fn population() -> Resources {
        Resources::from_pairs(&[(Mat, 5), (Guld, 5), (Hastar, 5)])
    }
    pub fn new_city() -> Resources {
        Resources::from_pairs(&[
            (Sten, 30),
            (Timmer, 20),
            (Tyg, 10),
            (Jarn, 10),
            (Guld, 10),
            (Hastar, 10),
            (Mat, 10),
        ])
    }
    pub fn wall() -> Resources {
        Resources::from_pairs(&[(Sten, 15), (Timmer, 5), (Tyg, 5)])
    }
}

/// The 39 spells (R-SPELL table and R-EVIL-15), with costs as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Spell {
    Svalt,
    Brand,
    Skogsbrand,
    Gruvras,
    Rovarband,
    Missvaxt,
    Sandsten,
    Flykt,
    Eldstrom,
    Vattenstrom,
    Luftstrom,
    Jordstrom,
    Virvelvind,
    Bergvagg,
    Eldklot,
    Virvelstrom,
    Vattenvag,
    Teleportera,
    Trask,
    Storm,
    Pest,
    Skold,
    Anfall,
    Forsvar,
    Isolering,
    Armageddon,
    Avsloja,
    Forskingring,
    Antimagi,
    Malstrom,
    Skord,
    Jakt,
    Kalhygge,
    Malmader,
    Guldader,
    Avel,
    Stenbrott,
    Karlek,
    OppnaPortal,
}

impl Spell {
    pub const ALL: [Spell; 39] = [
        Spell::Svalt,
        Spell::Brand,
        Spell::Skogsbrand,
        Spell::Gruvras,
        Spell::Rovarband,
        Spell::Missvaxt,
        Spell::Sandsten,
        Spell::Flykt,
        Spell::Eldstrom,
        Spell::Vattenstrom,
        Spell::Luftstrom,
        Spell::Jordstrom,
        Spell::Virvelvind,
        Spell::Bergvagg,
        Spell::Eldklot,
        Spell::Virvelstrom,
        Spell::Vattenvag,
        Spell::Teleportera,
        Spell::Trask,
        Spell::Storm,
        Spell::Pest,
        Spell::Skold,
        Spell::Anfall,
        Spell::Forsvar,
        Spell::Isolering,
        Spell::Armageddon,
        Spell::Avsloja,
        Spell::Forskingring,
        Spell::Antimagi,
        Spell::Malstrom,
        Spell::Skord,
        Spell::Jakt,
        Spell::Kalhygge,
        Spell::Malmader,
        Spell::Guldader,
        Spell::Avel,
        Spell::Stenbrott,
        Spell::Karlek,
        Spell::OppnaPortal,
    ];

    /// Crystal cost (R-SPELL table).
    pub fn cost(self) -> Resources {
        use Resource::*;
        let p = |pairs: &[(Resource, u32)]| Resources::from_pairs(pairs);
        match self {
            Spell::Svalt | Spell::Gruvras | Spell::Eldstrom => p(&[(Vatten, 2)]),
            Spell::Brand | Spell::Skogsbrand | Spell::Vattenstrom => p(&[(Eld, 2)]),
            Spell::Rovarband | Spell::Flykt | Spell::Jordstrom => p(&[(Luft, 2)]),
            Spell::Missvaxt | Spell::Sandsten | Spell::Luftstrom => p(&[(Jord, 2)]),
            Spell::Virvelvind => p(&[(Luft, 4)]),
            Spell::Bergvagg => p(&[(Jord, 4)]),
            Spell::Eldklot => p(&[(Eld, 4)]),
            Spell::Virvelstrom => p(&[(Vatten, 4)]),
            Spell::Vattenvag => p(&[(Vatten, 3), (Luft, 1)]),
            Spell::Teleportera => p(&[(Luft, 8), (Eld, 2)]),
            Spell::Trask => Resources::each_crystal(3),
            Spell::Storm => Resources::each_crystal(2),
            Spell::Pest => p(&[(Jord, 4), (Luft, 4)]),
            Spell::Skold => p(&[(Luft, 2), (Eld, 2)]),
            Spell::Anfall => p(&[(Luft, 3), (Vatten, 3), (Eld, 3)]),
            Spell::Forsvar => p(&[(Luft, 3), (Vatten, 3), (Jord, 3)]),
            Spell::Isolering => p(&[(Jord, 4), (Vatten, 2), (Luft, 2)]),
            Spell::Armageddon => Resources::each_crystal(20),
            Spell::Avsloja => p(&[(Vatten, 2), (Eld, 2)]),
            Spell::Forskingring => p(&[(Eld, 10), (Vatten, 5), (Jord, 3), (Luft, 2)]),
            Spell::Antimagi => Resources::each_crystal(3),
            Spell::Malstrom => p(&[(Jord, 5), (Vatten, 4), (Luft, 2), (Eld, 1)]),
            Spell::Skord => p(&[(Eld, 2), (Vatten, 4)]),
            Spell::Jakt => p(&[(Eld, 4)]),
            Spell::Kalhygge => p(&[(Eld, 2), (Luft, 2)]),
            Spell::Malmader | Spell::Stenbrott => p(&[(Jord, 2), (Vatten, 2)]),
            Spell::Guldader => p(&[(Luft, 4), (Jord, 2)]),
            Spell::Avel => p(&[(Luft, 2), (Jord, 2)]),
            Spell::Karlek | Spell::OppnaPortal => Resources::each_crystal(2),
        }
    }

    /// The resource a production-ban spell (1–12) stops.
    pub fn bans(self) -> Option<Resource> {
        use Resource::*;
        Some(match self {
            Spell::Svalt => Mat,
            Spell::Brand => Tyg,
            Spell::Skogsbrand => Timmer,
            Spell::Gruvras => Jarn,
            Spell::Rovarband => Guld,
            Spell::Missvaxt => Hastar,
            Spell::Sandsten => Sten,
            Spell::Flykt => Slavar,
            Spell::Eldstrom => Eld,
            Spell::Vattenstrom => Vatten,
            Spell::Luftstrom => Luft,
            Spell::Jordstrom => Jord,
            _ => return None,
        })
    }

    /// The resource a production-boost spell (31–38) adds Besvärjare of.
    pub fn boosts(self) -> Option<Resource> {
        use Resource::*;
        Some(match self {
            Spell::Skord => Mat,
            Spell::Jakt => Tyg,
            Spell::Kalhygge => Timmer,
            Spell::Malmader => Jarn,
            Spell::Guldader => Guld,
            Spell::Avel => Hastar,
            Spell::Stenbrott => Sten,
            Spell::Karlek => Slavar,
            _ => return None,
        })
    }

    /// Shield and Isolation last until the next weekend (R-SPELL-2).
    pub fn lasts_the_week(self) -> bool {
        matches!(self, Spell::Skold | Spell::Isolering)
    }

    /// Swedish name (the English glossary name for `Lang::En`).
    pub fn name(self, lang: Lang) -> &'static str {
        let (sv, en) = match self {
            Spell::Svalt => ("Svält", "Famine"),
            Spell::Brand => ("Brand", "Fire"),
            Spell::Skogsbrand => ("Skogsbrand", "Forest Fire"),
            Spell::Gruvras => ("Gruvras", "Mine Collapse"),
            Spell::Rovarband => ("Rövarband", "Robber Band"),
            Spell::Missvaxt => ("Missväxt", "Crop Failure"),
            Spell::Sandsten => ("Sandsten", "Sandstone"),
            Spell::Flykt => ("Flykt", "Flight"),
            Spell::Eldstrom => ("Eldström", "Fire Stream"),
            Spell::Vattenstrom => ("Vattenström", "Water Stream"),
            Spell::Luftstrom => ("Luftström", "Air Stream"),
            Spell::Jordstrom => ("Jordström", "Earth Stream"),
            Spell::Virvelvind => ("Virvelvind", "Whirlwind"),
            Spell::Bergvagg => ("Bergvägg", "Mountain Wall"),
            Spell::Eldklot => ("Eldklot", "Fireball"),
            Spell::Virvelstrom => ("Virvelström", "Whirlpool"),
            Spell::Vattenvag => ("Vattenväg", "Waterway"),
            Spell::Teleportera => ("Teleportera", "Teleport"),
            Spell::Trask => ("Träsk", "Swamp"),
            Spell::Storm => ("Storm", "Storm"),
            Spell::Pest => ("Pest", "Plague"),
            Spell::Skold => ("Sköld", "Shield"),
            Spell::Anfall => ("Anfall", "Attack"),
            Spell::Forsvar => ("Försvar", "Defence"),
            Spell::Isolering => ("Isolering", "Isolation"),
            Spell::Armageddon => ("Armageddon", "Armageddon"),
            Spell::Avsloja => ("Avslöja", "Reveal"),
            Spell::Forskingring => ("Förskingring", "Embezzlement"),
            Spell::Antimagi => ("Antimagi", "Antimagic"),
            Spell::Malstrom => ("Malström", "Maelstrom"),
            Spell::Skord => ("Skörd", "Harvest"),
            Spell::Jakt => ("Jakt", "Hunt"),
            Spell::Kalhygge => ("Kalhygge", "Clear-cut"),
            Spell::Malmader => ("Malmåder", "Ore Vein"),
            Spell::Guldader => ("Guldåder", "Gold Vein"),
            Spell::Avel => ("Avel", "Breeding"),
            Spell::Stenbrott => ("Stenbrott", "Quarry"),
            Spell::Karlek => ("Kärlek", "Love"),
            Spell::OppnaPortal => ("Öppna portal", "Open Portal"),
        };
        match lang {
            Lang::Sv => sv,
            Lang::En => en,
        }
    }

    /// Swedish or English name, any case, diacritics optional.
    pub fn parse(input: &str) -> Result<Spell, ParseKindError> {
        let norm = fold(input.trim());
        Spell::ALL
            .into_iter()
            .find(|s| {
                [Lang::Sv, Lang::En]
                    .iter()
                    .any(|&l| fold(s.name(l)) == norm)
            })
            .ok_or(ParseKindError {
                what: "spell",
                input: input.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(mat, tyg, timmer, järn, guld, hästar, sten, eld, jord, luft, vatten)`.
    fn cost(c: [u32; 11]) -> Resources {
        Resources {
            mat: c[0],
            tyg: c[1],
            timmer: c[2],
            jarn: c[3],
            guld: c[4],
            hastar: c[5],
            sten: c[6],
            eld: c[7],
            jord: c[8],
            luft: c[9],
            vatten: c[10],
            ..Resources::ZERO
        }
    }

    #[test]
    fn r_unit_1_the_army_unit_table_is_the_rulebooks() {
        use UnitKind::*;
        // kind, attack, defence, movement, cost (RULES.md R-UNIT-1; siege tower per RULINGS 11)
        let table = [
            (LattInfanteri, 1, 1, 1, [1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0]),
            (TungtInfanteri, 1, 2, 1, [2, 2, 0, 2, 2, 0, 0, 0, 0, 0, 0]),
            (Bagskyttar, 1, 1, 1, [1, 1, 2, 0, 5, 0, 0, 0, 0, 0, 0]),
            (LattKavalleri, 2, 1, 3, [3, 2, 0, 2, 3, 2, 0, 0, 0, 0, 0]),
            (TungtKavalleri, 3, 1, 2, [5, 3, 0, 3, 5, 4, 0, 0, 0, 0, 0]),
            (Veteran, 4, 2, 1, [4, 2, 0, 5, 10, 0, 0, 0, 0, 0, 0]),
            (Belagringstorn, 0, 0, 1, [0, 0, 10, 10, 0, 2, 5, 0, 0, 0, 0]),
            (Eldelementar, 5, 1, 1, [0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0]),
            (Jordelementar, 1, 5, 1, [0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0]),
            (Luftelementar, 1, 1, 5, [0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0]),
            (Vattenelementar, 1, 1, 1, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10]),
        ];
        for (kind, a, d, m, c) in table {
            let st = kind.stats();
            assert_eq!((st.attack, st.defence, st.movement), (a, d, m), "{kind:?}");
            assert_eq!(kind.cost(), Some(cost(c)), "{kind:?}");
        }
        // Researched (R-ENG-3): mounted archers A2/D2/M3, cost set by the GM.
        let st = BeridnaBagskyttar.stats();
        assert_eq!((st.attack, st.defence, st.movement), (2, 2, 3));
        assert!(BeridnaBagskyttar.cost().is_none());
    }

    #[test]
    fn r_nav_1_the_ship_table_is_the_rulebooks() {
        use ShipKind::*;
        let table = [
            (
                Transportskepp,
                1,
                1,
                4,
                5,
                [0, 3, 3, 0, 3, 0, 0, 0, 0, 0, 0],
            ),
            (
                LattKrigsskepp,
                2,
                2,
                2,
                0,
                [0, 3, 3, 0, 3, 0, 0, 0, 0, 0, 0],
            ),
            (
                TungtKrigsskepp,
                3,
                2,
                1,
                0,
                [0, 5, 5, 0, 5, 0, 0, 0, 0, 0, 0],
            ),
            (Galeas, 1, 1, 1, 0, [0, 5, 5, 0, 5, 0, 0, 0, 0, 0, 0]),
        ];
        for (kind, a, d, m, cargo, c) in table {
            let st = kind.stats();
            assert_eq!((st.attack, st.defence, st.movement), (a, d, m), "{kind:?}");
            assert_eq!(kind.cargo_capacity(), cargo, "{kind:?}");
            assert_eq!(kind.cost(), Some(cost(c)), "{kind:?}");
        }
        assert!(Fregatt.cost().is_none(), "researched: the GM sets the cost");
    }

    #[test]
    fn r_agent_1_agent_costs_are_the_rulebooks() {
        assert_eq!(
            AgentKind::Handelsman.cost(),
            cost([1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0])
        );
        assert_eq!(
            AgentKind::Spion.cost(),
            cost([4, 0, 0, 0, 5, 1, 0, 0, 0, 0, 0])
        );
        assert_eq!(
            AgentKind::Sandebud.cost(),
            cost([1, 1, 0, 0, 3, 0, 0, 0, 0, 0, 0])
        );
        assert_eq!(Spell::Armageddon.cost().eld, 20);
        assert_eq!(Spell::Forskingring.cost().total(), 20);
    }

    #[test]
    fn names_parse_back() {
        for k in UnitKind::ALL {
            for l in [Lang::Sv, Lang::En] {
                assert_eq!(UnitKind::parse(k.names(l).0), Ok(k));
                assert_eq!(UnitKind::parse(k.names(l).1), Ok(k));
            }
            assert_eq!(UnitKind::parse(&serde_key(&k)), Ok(k));
        }
        for k in ShipKind::ALL {
            for l in [Lang::Sv, Lang::En] {
                assert_eq!(ShipKind::parse(k.names(l).1), Ok(k));
            }
        }
        for s in Spell::ALL {
            assert_eq!(Spell::parse(s.name(Lang::Sv)), Ok(s));
            assert_eq!(Spell::parse(s.name(Lang::En)), Ok(s));
        }
        assert_eq!(
            UnitKind::parse("Latt infanteri"),
            Ok(UnitKind::LattInfanteri)
        );
        assert_eq!(Position::parse("befalhavare"), Ok(Position::Befalhavare));
    }
}

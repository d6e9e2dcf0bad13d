//! Why a form line was refused: one variant per reason, each citing the rule
//! (or the project's ruling) it enforces, and its text in the realm's
//! language. Pure data; `check` produces them, the receipt prints them.

use serde::{Deserialize, Serialize};

use super::grammar::{LineError, OrderKind};
use crate::game::lang::count;
use crate::game::orders::Group;
use crate::game::state::Researched;
use crate::game::{Lang, Resource, Resources, Spell, Square, UnitKind};

/// A cap set by a position value (or a ruling on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Capped {
    /// 5 ships per Amiral point (R-NAV-5).
    Ships,
    /// One spy per Informatör point (RULINGS 43).
    Spies,
    /// 3 elementals per Besvärjare point (R-UNIT-6).
    Elementals,
    /// 2 army groups per Befälhavare point (R-POS-4).
    ArmyGroups,
}

/// An order a realm may give once per form or round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Once {
    Bid,
    Engineers,
    Research,
    Vote,
    Wishes,
    Benefit,
}

/// Why an order was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "refusal", rename_all = "snake_case")]
pub enum Refusal {
    /// The line is no order (quoted, with the right form).
    Syntax(LineError),
    /// This line and the rest of the form were past the bound of `max`
    /// order lines and were not read (a limit of pbemd, not a game rule).
    NotRead {
        max: usize,
    },
    /// The form's realm is not in the game.
    NotInGame,
    /// The stock does not cover the cost.
    Stock {
        cost: Resources,
        short: Resources,
    },
    NotOwnCity {
        square: Square,
    },
    OffMap {
        square: Square,
    },
    NoSuchGroup {
        group: Group,
    },
    /// `order` names a realm that is not in the game.
    UnknownRealm {
        name: String,
        order: OrderKind,
    },
    /// `order` names the realm's own name where another realm is meant.
    OwnRealm {
        order: OrderKind,
    },
    PopulationCap {
        counted: u32,
        n: u32,
        cap: u32,
    },
    PositionCap {
        what: Capped,
        have: u32,
        n: u32,
        cap: u32,
    },
    /// A second order of a kind given once.
    Twice {
        what: Once,
    },
    // --- purchases
    NoCoastalCity,
    ShipyardNotCoastal {
        square: Square,
    },
    HarbourNotCoastal {
        square: Square,
    },
    /// A capital or main harbour named in the Evil's dimension by a realm that is not
    /// the Evil (a seat is a city of the normal map).
    SeatInOtherDimension {
        square: Square,
    },
    NotResearched {
        what: Researched,
    },
    NoResearchCost {
        what: Researched,
    },
    NoCity,
    DemonsOnlyForTheEvil,
    /// The Evil builds no troops but demons, and no ships (R-EVIL-9).
    EvilBuildsOnlyDemons,
    /// R-EVIL-19: the Evil builds no spies.
    NoSpiesForTheEvil,
    WallCap {
        city: Square,
        have: u32,
        count: u32,
        cap: u32,
    },
    NotOwnLand {
        square: Square,
    },
    CityExists {
        square: Square,
    },
    CityProduction {
        standard: Vec<Resource>,
    },
    // --- upgrades and production
    PositionOncePerRound,
    FiveCrystals,
    ProductionOncePerRound,
    StepLimit {
        max: u32,
    },
    ConvertToProduced,
    // --- magic
    SpellCast {
        spell: Spell,
    },
    NoCityToCastOn {
        square: Square,
    },
    TeleportToLand {
        square: Square,
    },
    /// Rulings 18: the realm cast Reveal by mail this round, and the two count once.
    RevealUsedByMail,
    // --- movement and groups
    CameByInvitation,
    TooFar {
        steps: u32,
        points: u32,
    },
    NotAdjacent {
        from: Square,
        to: Square,
    },
    FleetFull {
        cap: u32,
        aboard: u32,
    },
    /// A fleet split that would leave its armies aboard ships that cannot carry them.
    SplitLeavesCargo {
        cap: u32,
        aboard: u32,
    },
    NotAboard {
        army: u32,
    },
    MergeWithItself,
    SplitPieces,
    ReorderAll,
    AlreadyMoving,
    // --- combat
    OwnCityAttacked {
        square: Square,
    },
    ChooseOutcome,
    NoCityToTake {
        square: Square,
    },
    Waves,
    // --- invitations
    NoInvitation {
        from: String,
    },
    AlreadyHome,
    /// Step 9 brings a group home once: the courier or a line above already called it
    /// home this round (R-INV-8).
    CalledHome,
    /// No capital (an army) or main harbour (a fleet) to come home to (R-INV-8).
    NoSeat {
        army: bool,
    },
    // --- economy
    NoFreeMerchant,
    /// How the value was summed: the offer (crystals ×2), doubled for the ruler's
    /// double bids, less `penalty` after a battle last weekend.
    BidTooLow {
        value: u32,
        min: u32,
        #[serde(default)]
        offer: Resources,
        #[serde(default)]
        doubled: bool,
        #[serde(default)]
        penalty: u32,
    },
    HasEngineers,
    EngineersPrice {
        price: u32,
    },
    NeedsEngineers,
    AlreadyResearched,
    // --- diplomacy
    NoVoteThisRound,
    EvilTakesNoVote,
    NotTheRuler,
    BenefitChosen,
    // --- rewards
    NoReward {
        next: i64,
    },
    RewardNotProduced {
        resource: Resource,
    },
    RewardWorth {
        worth: u32,
    },
    TooManyPlaced {
        kind: UnitKind,
        waiting: u32,
    },
    /// A refusal stored before refusals were typed: read back, never made.
    #[serde(rename = "rule")]
    Earlier {
        rule: String,
        sv: String,
        en: String,
    },
}

impl Capped {
    fn rule(self) -> &'static str {
        match self {
            Capped::Ships => "R-NAV-5",
            Capped::Spies => "RULINGS 43",
            Capped::Elementals => "R-UNIT-6",
            Capped::ArmyGroups => "R-POS-4",
        }
    }

    fn name(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Capped::Ships, Lang::Sv) => "skepp",
            (Capped::Ships, Lang::En) => "ship",
            (Capped::Spies, Lang::Sv) => "spioner",
            (Capped::Spies, Lang::En) => "spy",
            (Capped::Elementals, Lang::Sv) => "elementarer",
            (Capped::Elementals, Lang::En) => "elemental",
            (Capped::ArmyGroups, Lang::Sv) => "arméer",
            (Capped::ArmyGroups, Lang::En) => "army group",
        }
    }
}

impl Once {
    fn rule(self) -> &'static str {
        match self {
            Once::Bid => "R-FREE-2",
            Once::Engineers => "R-FREE-7",
            Once::Research => "RULINGS 41",
            Once::Vote => "R-VOTE-2",
            Once::Wishes => "R-RES-3",
            Once::Benefit => "R-VOTE-5",
        }
    }

    fn text(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Once::Bid, Lang::Sv) => "ett bud per runda",
            (Once::Bid, Lang::En) => "one bid a round",
            (Once::Engineers, Lang::Sv) => "ingenjörer köps en gång",
            (Once::Engineers, Lang::En) => "engineers are bought once",
            (Once::Research, Lang::Sv) => "ett forskningsförsök per runda",
            (Once::Research, Lang::En) => "one research attempt a round",
            (Once::Vote, Lang::Sv) => "en röst per omröstning",
            (Once::Vote, Lang::En) => "one vote per vote",
            (Once::Wishes, Lang::Sv) => "en önskelista per formulär",
            (Once::Wishes, Lang::En) => "one wish list per form",
            (Once::Benefit, Lang::Sv) => "en förmån per omröstning",
            (Once::Benefit, Lang::En) => "one benefit per vote",
        }
    }
}

/// The rule an order naming a realm answers to.
fn realm_rule(order: OrderKind) -> &'static str {
    match order {
        OrderKind::Vote => "R-VOTE-2",
        OrderKind::Invitation => "R-INV-3",
        OrderKind::Spell => "R-SPELL-11",
        _ => "R-ALLY-1",
    }
}

impl Refusal {
    /// The rule ID the refusal cites; `None` for a line that is no order
    /// or was not read.
    pub fn rule(&self) -> Option<&str> {
        use Refusal::*;
        Some(match self {
            Syntax(_) | NotRead { .. } => return None,
            Earlier { rule, .. } => return Some(rule),
            NotInGame => "R-GEN-1",
            Stock { .. } => "R-BUILD-4",
            NotOwnCity { .. } => "R-CITY-1",
            OffMap { .. } => "R-MOVE-12",
            NoSuchGroup { .. } | TooFar { .. } | AlreadyMoving => "R-MOVE-1",
            UnknownRealm { order, .. } | OwnRealm { order } => realm_rule(*order),
            PopulationCap { .. } => "R-POP-2",
            PositionCap { what, .. } => what.rule(),
            Twice { what } => what.rule(),
            NoCoastalCity | ShipyardNotCoastal { .. } | NoCity => "RULINGS 13",
            HarbourNotCoastal { .. } => "R-CITY-10",
            SeatInOtherDimension { .. } => "RULINGS 29",
            NotResearched { .. } => "R-ENG-3",
            NoResearchCost { .. } => "RULINGS 41",
            DemonsOnlyForTheEvil | EvilBuildsOnlyDemons => "R-EVIL-9",
            NoSpiesForTheEvil => "R-EVIL-19",
            WallCap { .. } => "RULINGS 36",
            NotOwnLand { .. } | CityExists { .. } => "RULINGS 27",
            CityProduction { .. } => "R-CITY-2",
            PositionOncePerRound => "R-POS-2",
            FiveCrystals => "R-BUILD-1",
            ProductionOncePerRound => "R-BUILD-2",
            StepLimit { .. } => "RULINGS 9",
            ConvertToProduced => "RULINGS 2",
            SpellCast { .. } => "R-SPELL-1",
            NoCityToCastOn { .. } => "R-SPELL-11",
            TeleportToLand { .. } => "RULINGS 22",
            RevealUsedByMail => "RULINGS 18",
            CameByInvitation => "R-INV-2",
            NotAdjacent { .. } => "RULINGS 26",
            FleetFull { .. } | SplitLeavesCargo { .. } => "R-NAV-3",
            NotAboard { .. } => "R-MOVE-3",
            MergeWithItself | SplitPieces => "R-MOVE-8",
            ReorderAll => "R-COMBAT-9",
            OwnCityAttacked { .. } | ChooseOutcome | NoCityToTake { .. } => "R-CITY-4",
            Waves => "R-COMBAT-12",
            NoInvitation { .. } => "R-INV-3",
            AlreadyHome | CalledHome | NoSeat { .. } => "R-INV-8",
            NoFreeMerchant => "R-FREE-1",
            BidTooLow { .. } => "R-FREE-4",
            HasEngineers | EngineersPrice { .. } => "R-FREE-7",
            NeedsEngineers => "R-ENG-1",
            AlreadyResearched => "R-ENG-2",
            NoVoteThisRound => "R-VOTE-1",
            EvilTakesNoVote => "RULINGS 59",
            NotTheRuler | BenefitChosen => "R-VOTE-5",
            NoReward { .. } | RewardNotProduced { .. } | RewardWorth { .. } => "R-VP-4",
            TooManyPlaced { .. } => "R-FREE-9",
        })
    }

    /// The reason and the rule, in `lang`.
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
            Refusal::NotRead { max } => match lang {
                Lang::Sv => format!("denna rad och resten av formuläret lästes inte: ett formulär läses till högst {max} orderrader"),
                Lang::En => format!("this line and the rest of the form were not read: a form is read to at most {max} order lines"),
            },
            Refusal::Earlier { rule, sv, en } => match lang {
                Lang::Sv => format!("{sv} ({rule})"),
                Lang::En => format!("{en} ({rule})"),
            },
            other => {
                let rule = other.rule().unwrap_or_default();
                format!("{} ({rule})", other.reason(lang))
            }
        }
    }

    /// The reason alone, in `lang`.
    fn reason(&self, lang: Lang) -> String {
        let (sv, en) = self.reason_both();
        match lang {
            Lang::Sv => sv,
            Lang::En => en,
        }
    }

    /// The reason in Swedish and in English.
    fn reason_both(&self) -> (String, String) {
        use Refusal::*;
        let s = |sv: &str, en: &str| (sv.to_string(), en.to_string());
        match self {
            Syntax(_) | NotRead { .. } | Earlier { .. } => (String::new(), String::new()),
            NotInGame => s("okänt land", "unknown realm"),
            Stock { cost, short } => (
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
            ),
            NotOwnCity { square } => (
                format!("{square} är ingen egen stad"),
                format!("{square} is not a city of yours"),
            ),
            SeatInOtherDimension { square } => (
                format!("staden på {square} står i ondskans dimension; huvudstad och huvudhamn är städer på den vanliga kartan"),
                format!("the city on {square} stands in the Evil dimension; a capital or main harbour is a city of the normal map"),
            ),
            OffMap { square } => (
                format!("rutan {square} finns inte på kartan"),
                format!("square {square} is not on the map"),
            ),
            NoSuchGroup { group } => (
                format!("du har ingen {}", group.render(Lang::Sv)),
                format!("you have no {}", group.render(Lang::En)),
            ),
            UnknownRealm { name, .. } => (
                format!("inget land heter {name}"),
                format!("no realm is called {name}"),
            ),
            OwnRealm { .. } => s("det är ditt eget land", "that is your own realm"),
            PopulationCap { counted, n, cap } => (
                format!(
                    "befolkningstaket: {} + {n} > {cap} (befolkning/10)",
                    count(*counted, "räknad enhet", "räknade enheter")
                ),
                format!(
                    "population cap: {} + {n} > {cap} (population/10)",
                    count(*counted, "counted unit", "counted units")
                ),
            ),
            PositionCap { what, have, n, cap } => (
                format!("tak för {}: {have} + {n} > {cap}", what.name(Lang::Sv)),
                format!("{} cap: {have} + {n} > {cap}", what.name(Lang::En)),
            ),
            Twice { what } => s(what.text(Lang::Sv), what.text(Lang::En)),
            other => other.purchase_reason(),
        }
    }

    fn purchase_reason(&self) -> (String, String) {
        use Refusal::*;
        let s = |sv: &str, en: &str| (sv.to_string(), en.to_string());
        match self {
            NoCoastalCity => s("ange en stad vid kusten", "name a coastal city"),
            ShipyardNotCoastal { square } | HarbourNotCoastal { square } => (
                format!("{square} ligger inte vid kusten"),
                format!("{square} is not coastal"),
            ),
            NotResearched {
                what: Researched::Fregatt,
            } => s(
                "fregatter är inte utvecklade",
                "frigates are not researched",
            ),
            NotResearched {
                what: Researched::BeridnaBagskyttar,
            } => s(
                "beridna bågskyttar är inte utvecklade",
                "mounted archers are not researched",
            ),
            NoResearchCost {
                what: Researched::Fregatt,
            } => s(
                "SL har inte satt fregattens pris",
                "the GM has not set the frigate's cost",
            ),
            NoResearchCost {
                what: Researched::BeridnaBagskyttar,
            } => s("SL har inte satt priset", "the GM has not set the cost"),
            NoCity => s("ange en stad", "name a city"),
            DemonsOnlyForTheEvil => s("bara Ondskan har demoner", "only the Evil has demons"),
            EvilBuildsOnlyDemons => s(
                "Ondskan bygger bara demoner",
                "the Evil builds nothing but demons",
            ),
            NoSpiesForTheEvil => s("Ondskan bygger inga spioner", "the Evil builds no spies"),
            WallCap {
                city,
                have,
                count,
                cap,
            } => (
                format!("murtak i {city}: {have} + {count} > {cap}"),
                format!("wall cap in {city}: {have} + {count} > {cap}"),
            ),
            NotOwnLand { square } => (
                format!("{square} är inte egen mark"),
                format!("{square} is not your own land"),
            ),
            CityExists { square } => (
                format!("det finns redan en stad på {square}"),
                format!("there is already a city on {square}"),
            ),
            CityProduction { standard } => {
                let list = |l| {
                    standard
                        .iter()
                        .map(|r| r.name(l))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                (
                    format!("10 produktionspoäng, högst 5 per resurs, bara standardresurser ({})", list(Lang::Sv)),
                    format!("10 production points, at most 5 per resource, standard resources only ({})", list(Lang::En)),
                )
            }
            PositionOncePerRound => s(
                "högst +1 per befattning och runda",
                "at most +1 per position a round",
            ),
            FiveCrystals => s(
                "betala med precis 5 kristaller",
                "pay with exactly 5 crystals",
            ),
            ProductionOncePerRound => s(
                "högst +1 per resurs och stad och runda",
                "at most +1 per resource and city a round",
            ),
            StepLimit { max } => (
                format!("högst {max} uppgraderingssteg per runda (Forskare)"),
                format!(
                    "at most {} a round (Researcher)",
                    count(*max, "upgrade step", "upgrade steps")
                ),
            ),
            ConvertToProduced => s(
                "slavar blir bara en vanlig resurs som landet producerar",
                "slaves convert only to an ordinary resource the realm produces",
            ),
            other => other.magic_and_movement_reason(),
        }
    }

    fn magic_and_movement_reason(&self) -> (String, String) {
        use Refusal::*;
        let s = |sv: &str, en: &str| (sv.to_string(), en.to_string());
        match self {
            SpellCast { spell } => (
                format!("{} är redan kastad denna runda", spell.name(Lang::Sv)),
                format!("{} is already cast this round", spell.name(Lang::En)),
            ),
            NoCityToCastOn { square } => (
                format!("ingen stad på {square}"),
                format!("no city on {square}"),
            ),
            TeleportToLand { square } => (
                format!("teleport landar bara på land, inte {square}"),
                format!("teleport lands on land only, not {square}"),
            ),
            RevealUsedByMail => s(
                "du har redan kastat Avslöja med post denna runda (högst en gång per runda)",
                "you already cast Reveal by mail this round (once a round in all)",
            ),
            CameByInvitation => s(
                "gruppen kom med inbjudan och får inte flytta",
                "the group came by invitation and may not move",
            ),
            TooFar { steps, points } => (
                format!("{steps} steg men bara {points} förflyttningspoäng"),
                format!(
                    "{} but only {}",
                    count(*steps, "step", "steps"),
                    count(*points, "movement point", "movement points")
                ),
            ),
            NotAdjacent { from, to } => (
                format!("{to} gränsar inte till {from}"),
                format!("{to} is not next to {from}"),
            ),
            FleetFull { cap, aboard } => (
                format!(
                    "flottan rymmer {}, {aboard} redan ombord",
                    count(*cap, "enhet", "enheter")
                ),
                format!(
                    "the fleet carries {}, {aboard} already aboard",
                    count(*cap, "unit", "units")
                ),
            ),
            SplitLeavesCargo { cap, aboard } => (
                format!(
                    "skeppen som blir kvar rymmer {}, men {aboard} är ombord",
                    count(*cap, "enhet", "enheter")
                ),
                format!(
                    "the ships left carry {}, but {aboard} are aboard",
                    count(*cap, "unit", "units")
                ),
            ),
            NotAboard { army } => (
                format!("armé {army} är inte ombord"),
                format!("army {army} is not aboard"),
            ),
            MergeWithItself => s(
                "en grupp kan inte slås ihop med sig själv",
                "a group cannot merge with itself",
            ),
            SplitPieces => s(
                "gruppen har inte de enheterna (och minst en måste stanna)",
                "the group does not hold those units (and at least one must stay)",
            ),
            ReorderAll => s(
                "räkna upp gruppens alla enheter, varken fler eller färre",
                "list every unit of the group, no more and no fewer",
            ),
            AlreadyMoving => s(
                "gruppen har redan en flyttorder",
                "the group already has a move order",
            ),
            other => other.combat_and_economy_reason(),
        }
    }

    fn combat_and_economy_reason(&self) -> (String, String) {
        use Refusal::*;
        let s = |sv: &str, en: &str| (sv.to_string(), en.to_string());
        match self {
            OwnCityAttacked { square } => (
                format!("{square} är din egen stad"),
                format!("{square} is your own city"),
            ),
            ChooseOutcome => s(
                "välj plundra, överta eller rasera",
                "choose plunder, takeover or raze",
            ),
            NoCityToTake { square } => (
                format!("ingen stad på {square} att plundra/överta/rasera"),
                format!("no city on {square} to plunder/take over/raze"),
            ),
            Waves => s(
                "två anfall mot samma mål: skriv första och andra",
                "two attacks on one target: write first and second",
            ),
            NoInvitation { from } => (
                format!("ingen giltig inbjudan från {from}"),
                format!("no valid invitation from {from}"),
            ),
            AlreadyHome => s(
                "gruppen är redan i ditt land",
                "the group is already in your land",
            ),
            CalledHome => s(
                "gruppen är redan hembjuden denna runda",
                "the group is already called home this round",
            ),
            NoSeat { army: true } => s(
                "du har ingen huvudstad att kalla hem armén till",
                "you have no capital to call the army home to",
            ),
            NoSeat { army: false } => s(
                "du har ingen huvudhamn att kalla hem flottan till",
                "you have no main harbour to call the fleet home to",
            ),
            NoFreeMerchant => s(
                "de fria köpmännen säljer inget denna runda",
                "the free merchants sell nothing this round",
            ),
            BidTooLow {
                value,
                min,
                offer,
                doubled,
                penalty,
            } => {
                use crate::game::weekend::market::bid_sum;
                let sv = bid_sum(offer, *doubled, *penalty, Lang::Sv);
                let en = bid_sum(offer, *doubled, *penalty, Lang::En);
                (
                    format!("budet är värt {value}{sv}; lotten kräver {min}"),
                    format!("the bid is worth {value}{en}; the lot needs {min}"),
                )
            }
            HasEngineers => s("du har redan ingenjörer", "you already have engineers"),
            EngineersPrice { price } => (
                format!("ingenjörer kostar {price} resurser"),
                format!("engineers cost {price} resources"),
            ),
            NeedsEngineers => s("forskning kräver ingenjörer", "research needs engineers"),
            AlreadyResearched => s("redan utvecklad", "already researched"),
            other => other.diplomacy_reason(),
        }
    }

    fn diplomacy_reason(&self) -> (String, String) {
        use Refusal::*;
        let s = |sv: &str, en: &str| (sv.to_string(), en.to_string());
        match self {
            NoVoteThisRound => s(
                "det är ingen omröstning denna runda",
                "there is no vote this round",
            ),
            EvilTakesNoVote => s(
                "Ondskan deltar inte i omröstningen",
                "the Evil takes no part in votes",
            ),
            NotTheRuler => s(
                "bara den som ensam fick flest röster väljer en förmån",
                "only the sole winner of the vote chooses a benefit",
            ),
            BenefitChosen => s("förmånen är redan vald", "the benefit is already chosen"),
            NoReward { next } => (
                format!("ingen belöning att hämta (nästa vid {next} segerpoäng)"),
                format!("no reward to take (the next at {next} VP)"),
            ),
            RewardNotProduced { resource } => (
                format!(
                    "bara en resurs du redan producerar ({} gör du inte)",
                    resource.name(Lang::Sv)
                ),
                format!(
                    "only a resource you already produce (you make no {})",
                    resource.name(Lang::En)
                ),
            ),
            RewardWorth { worth } => (
                format!(
                    "resurserna ska vara värda 25 (slavar och kristaller dubbelt), inte {worth}"
                ),
                format!("the resources must be worth 25 (slaves and crystals double), not {worth}"),
            ),
            TooManyPlaced { kind, waiting } => {
                let n = usize::try_from(*waiting).unwrap_or(usize::MAX);
                (
                    format!(
                        "bara {} från de fria köpmännen väntar på placering",
                        kind.count_text(n, Lang::Sv)
                    ),
                    format!(
                        "only {} from the free merchants wait to be placed",
                        kind.count_text(n, Lang::En)
                    ),
                )
            }
            _ => (String::new(), String::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_stored_before_refusals_were_typed_still_reads_and_prints() {
        let old = r#"{"refusal":"rule","rule":"R-CITY-1","sv":"B2 är ingen egen stad","en":"B2 is not a city of yours"}"#;
        let r: Refusal = serde_json::from_str(old).expect("old refusal reads");
        assert_eq!(r.rule(), Some("R-CITY-1"));
        assert_eq!(r.text(Lang::Sv), "B2 är ingen egen stad (R-CITY-1)");
        assert_eq!(serde_json::to_string(&r).unwrap(), old);
    }

    #[test]
    fn a_typed_refusal_round_trips_and_prints_as_before() {
        let r = Refusal::NotOwnCity {
            square: Square::parse("B2").unwrap(),
        };
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<Refusal>(&json).unwrap(), r);
        assert_eq!(r.text(Lang::Sv), "B2 är ingen egen stad (R-CITY-1)");
        assert_eq!(r.text(Lang::En), "B2 is not a city of yours (R-CITY-1)");
    }
}

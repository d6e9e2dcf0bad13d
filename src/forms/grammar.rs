//! The weekend-order grammar: ONE table of order kinds (`ORDER_TABLE`:
//! keywords in Swedish and English, argument shape, example), `parse_line`
//! and `Order::render` for the `game::orders` types. Pure text → data; knows nothing
//! of the game state (ownership, costs and caps are `check`'s business).
//!
//! Lexing: keywords and names are matched case-insensitively with the
//! Swedish diacritics optional (`game::text::fold`); `,` `;` `:` count
//! as spaces; numbers are digits. Names of units, ships, spells and
//! resources are the ones `game::units` / `game::resource` parse (Swedish or
//! English, singular or plural).

use serde::{Deserialize, Serialize};

use crate::game::orders::{Amount, Group, GroupSel, Order, Outcome, Piece, Reward, Target, Wave};
use crate::game::state::{Researched, RulerBenefit};
use crate::game::text::fold;
use crate::game::{Lang, Position, Resource, ShipKind, Spell, Square, UnitKind};

/// The kinds of weekend order, one row each in `ORDER_TABLE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderKind {
    Buy,
    Upgrade,
    Production,
    Convert,
    Spell,
    Move,
    Embark,
    Disembark,
    PickUp,
    Merge,
    Split,
    Reorder,
    Attack,
    Invitation,
    HomeInvitation,
    Bid,
    Engineers,
    Research,
    Vote,
    Friend,
    NotFriend,
    Capital,
    Harbour,
    Wishes,
    /// The sole voting winner's choice of benefit (R-VOTE-5).
    Benefit,
    /// The reward for a VP threshold (R-VP-4).
    Reward,
    /// Where troops bought from the free merchants go (R-FREE-9).
    Place,
    /// Recognised only to explain that spies are sent by mail.
    SendSpy,
}

/// One row of the order table. The first keyword of each language is the
/// one `Order::render` writes; the others are accepted aliases.
#[derive(Debug, Clone, Copy)]
pub struct OrderSpec {
    pub kind: OrderKind,
    pub sv: &'static [&'static str],
    pub en: &'static [&'static str],
    /// The argument shape, as shown in refusals and the order reference (docs/reference/orders.md).
    pub form_sv: &'static str,
    pub form_en: &'static str,
    pub example_sv: &'static str,
    pub example_en: &'static str,
    /// Rule the order implements.
    pub rule: &'static str,
}

/// The grammar: every weekend order kind.
pub const ORDER_TABLE: &[OrderSpec] = &[
    OrderSpec {
        kind: OrderKind::Buy,
        sv: &["KÖP", "KÖPA", "BYGG"],
        en: &["BUY", "BUILD"],
        form_sv: "KÖP [antal] <enhet|skepp|spion|mur|befolkning> [stad]  eller  KÖP stad <ruta> <antal resurs …>",
        form_en: "BUY [count] <unit|ship|spy|wall|population> [city]  or  BUY city <square> <count resource …>",
        example_sv: "KÖP 5 lätt infanteri I1",
        example_en: "BUY 5 light infantry I1",
        rule: "R-BUILD-1, R-UNIT, R-NAV, R-SPY-1, R-CITY-2",
    },
    OrderSpec {
        kind: OrderKind::Upgrade,
        sv: &["UPPGRADERA"],
        en: &["UPGRADE"],
        form_sv: "UPPGRADERA <befattning> [antal kristall …]",
        form_en: "UPGRADE <position> [count crystal …]",
        example_sv: "UPPGRADERA befälhavare 3 eld 2 luft",
        example_en: "UPGRADE commander 3 fire 2 air",
        rule: "R-POS-2, R-BUILD-1",
    },
    OrderSpec {
        kind: OrderKind::Production,
        sv: &["PRODUKTION"],
        en: &["PRODUCTION"],
        form_sv: "PRODUKTION <stad> <resurs>",
        form_en: "PRODUCTION <city> <resource>",
        example_sv: "PRODUKTION I1 järn",
        example_en: "PRODUCTION I1 iron",
        rule: "R-BUILD-1, R-BUILD-2",
    },
    OrderSpec {
        kind: OrderKind::Convert,
        sv: &["OMVANDLA"],
        en: &["CONVERT"],
        form_sv: "OMVANDLA <antal> <resurs>   (slavar → resurs)",
        form_en: "CONVERT <count> <resource>   (slaves → resource)",
        example_sv: "OMVANDLA 3 järn",
        example_en: "CONVERT 3 iron",
        rule: "RULINGS 2",
    },
    OrderSpec {
        kind: OrderKind::Spell,
        sv: &["FORMEL", "TROLLA"],
        en: &["SPELL", "CAST"],
        form_sv: "FORMEL <formel> <mål: land | stad | armé nr/ruta | flotta nr/ruta | ruta>",
        form_en: "SPELL <spell> <target: realm | city | army no/square | fleet no/square | square>",
        example_sv: "FORMEL eldklot armé K8",
        example_en: "SPELL fireball army K8",
        rule: "R-SPELL-1, R-SPELL-11",
    },
    OrderSpec {
        kind: OrderKind::Move,
        sv: &["FLYTTA"],
        en: &["MOVE"],
        form_sv: "FLYTTA <armé|flotta> <nr>: <ruta> <ruta> …",
        form_en: "MOVE <army|fleet> <no>: <square> <square> …",
        example_sv: "FLYTTA armé 2: I2 I3 I4",
        example_en: "MOVE army 2: I2 I3 I4",
        rule: "R-MOVE-1, R-MOVE-5",
    },
    OrderSpec {
        kind: OrderKind::Embark,
        sv: &["LASTA", "OMBORD"],
        en: &["EMBARK", "BOARD"],
        form_sv: "LASTA armé <nr> flotta <nr>",
        form_en: "EMBARK army <no> fleet <no>",
        example_sv: "LASTA armé 2 flotta 1",
        example_en: "EMBARK army 2 fleet 1",
        rule: "R-MOVE-3, R-NAV-3",
    },
    OrderSpec {
        kind: OrderKind::Disembark,
        sv: &["LOSSA", "LANDSTIG"],
        en: &["DISEMBARK", "LAND"],
        form_sv: "LOSSA armé <nr> [ruta]",
        form_en: "DISEMBARK army <no> [square]",
        example_sv: "LOSSA armé 2 K5",
        example_en: "DISEMBARK army 2 K5",
        rule: "R-MOVE-3, R-MOVE-5",
    },
    OrderSpec {
        kind: OrderKind::PickUp,
        sv: &["HÄMTA"],
        en: &["PICKUP", "PICK-UP"],
        form_sv: "HÄMTA flotta <nr> armé <nr>",
        form_en: "PICKUP fleet <no> army <no>",
        example_sv: "HÄMTA flotta 1 armé 2",
        example_en: "PICKUP fleet 1 army 2",
        rule: "R-MOVE-5",
    },
    OrderSpec {
        kind: OrderKind::Merge,
        sv: &["SAMMANSLÅ", "SLÅIHOP"],
        en: &["MERGE"],
        form_sv: "SAMMANSLÅ <armé|flotta> <nr> <armé|flotta> <nr>",
        form_en: "MERGE <army|fleet> <no> <army|fleet> <no>",
        example_sv: "SAMMANSLÅ armé 2 armé 3",
        example_en: "MERGE army 2 army 3",
        rule: "R-MOVE-8, R-MOVE-9",
    },
    OrderSpec {
        kind: OrderKind::Split,
        sv: &["DELA"],
        en: &["SPLIT"],
        form_sv: "DELA <armé|flotta> <nr>: <antal enhet> …   (de nämnda bildar en ny grupp)",
        form_en: "SPLIT <army|fleet> <no>: <count unit> …   (those named form a new group)",
        example_sv: "DELA armé 2: 2 bågskyttar 1 veteran",
        example_en: "SPLIT army 2: 2 archers 1 veteran",
        rule: "R-MOVE-8",
    },
    OrderSpec {
        kind: OrderKind::Reorder,
        sv: &["ORDNING"],
        en: &["ORDER", "LINEUP"],
        form_sv: "ORDNING <armé|flotta> <nr>: <antal enhet> …   (sist nämnd faller först)",
        form_en: "ORDER <army|fleet> <no>: <count unit> …   (last named falls first)",
        example_sv: "ORDNING armé 2: 3 lätt infanteri 2 bågskyttar",
        example_en: "ORDER army 2: 3 light infantry 2 archers",
        rule: "R-COMBAT-9",
    },
    OrderSpec {
        kind: OrderKind::Attack,
        sv: &["ANFALL", "ANFALLA"],
        en: &["ATTACK"],
        form_sv: "ANFALL <armé|flotta> <nr> <ruta> [plundra|överta|rasera] [första|andra]",
        form_en: "ATTACK <army|fleet> <no> <square> [plunder|takeover|raze] [first|second]",
        example_sv: "ANFALL armé 2 I4 plundra",
        example_en: "ATTACK army 2 I4 plunder",
        rule: "R-CITY-4, R-COMBAT-12",
    },
    OrderSpec {
        kind: OrderKind::Invitation,
        sv: &["INBJUDAN"],
        en: &["INVITATION", "INVITE"],
        form_sv: "INBJUDAN <land som bjöd in> <armé|flotta> <nr>",
        form_en: "INVITATION <inviting realm> <army|fleet> <no>",
        example_sv: "INBJUDAN Afani armé 2",
        example_en: "INVITATION Afani army 2",
        rule: "R-INV-1..7",
    },
    OrderSpec {
        kind: OrderKind::HomeInvitation,
        sv: &["HEMBJUDAN"],
        en: &["RECALL", "HOMEINVITATION"],
        form_sv: "HEMBJUDAN <armé|flotta> <nr>",
        form_en: "RECALL <army|fleet> <no>",
        example_sv: "HEMBJUDAN armé 3",
        example_en: "RECALL army 3",
        rule: "R-INV-8",
    },
    OrderSpec {
        kind: OrderKind::Bid,
        sv: &["BUD", "BJUD"],
        en: &["BID"],
        form_sv: "BUD <antal resurs> …",
        form_en: "BID <count resource> …",
        example_sv: "BUD 12 järn",
        example_en: "BID 12 iron",
        rule: "R-FREE-2, R-FREE-3",
    },
    OrderSpec {
        kind: OrderKind::Engineers,
        sv: &["INGENJÖRER", "INGENJÖR"],
        en: &["ENGINEERS", "ENGINEER"],
        form_sv: "INGENJÖRER <antal resurs> …   (minst spelets ingenjörspris totalt: 30 om spelledaren inte bestämt annat)",
        form_en: "ENGINEERS <count resource> …   (at least the game's engineers price in total: 30 unless the GM set another)",
        example_sv: "INGENJÖRER 10 järn 20 sten",
        example_en: "ENGINEERS 10 iron 20 stone",
        rule: "R-FREE-7",
    },
    OrderSpec {
        kind: OrderKind::Research,
        sv: &["FORSKA", "UTVECKLA"],
        en: &["RESEARCH", "DEVELOP"],
        form_sv: "FORSKA <beridna bågskyttar|fregatt>",
        form_en: "RESEARCH <mounted archers|frigate>",
        example_sv: "FORSKA beridna bågskyttar",
        example_en: "RESEARCH mounted archers",
        rule: "R-ENG-2",
    },
    OrderSpec {
        kind: OrderKind::Vote,
        sv: &["RÖST", "RÖSTA"],
        en: &["VOTE"],
        form_sv: "RÖST <land>",
        form_en: "VOTE <realm>",
        example_sv: "RÖST Afani",
        example_en: "VOTE Afani",
        rule: "R-VOTE-2",
    },
    OrderSpec {
        kind: OrderKind::Friend,
        sv: &["VÄN"],
        en: &["FRIEND"],
        form_sv: "VÄN <land>",
        form_en: "FRIEND <realm>",
        example_sv: "VÄN Afani",
        example_en: "FRIEND Afani",
        rule: "R-ALLY-1",
    },
    OrderSpec {
        kind: OrderKind::NotFriend,
        sv: &["EJVÄN", "FIENDE"],
        en: &["UNFRIEND", "ENEMY"],
        form_sv: "EJVÄN <land>",
        form_en: "UNFRIEND <realm>",
        example_sv: "EJVÄN Afani",
        example_en: "UNFRIEND Afani",
        rule: "R-ALLY-1",
    },
    OrderSpec {
        kind: OrderKind::Capital,
        sv: &["HUVUDSTAD"],
        en: &["CAPITAL"],
        form_sv: "HUVUDSTAD <stad>",
        form_en: "CAPITAL <city>",
        example_sv: "HUVUDSTAD B2",
        example_en: "CAPITAL B2",
        rule: "R-CITY-9, RULINGS 29",
    },
    OrderSpec {
        kind: OrderKind::Harbour,
        sv: &["HUVUDHAMN"],
        en: &["HARBOUR", "HARBOR"],
        form_sv: "HUVUDHAMN <stad vid kusten>",
        form_en: "HARBOUR <coastal city>",
        example_sv: "HUVUDHAMN D2",
        example_en: "HARBOUR D2",
        rule: "R-CITY-10, RULINGS 29",
    },
    OrderSpec {
        kind: OrderKind::Wishes,
        sv: &["ÖNSKELISTA", "HANDELSÖNSKAN"],
        en: &["WISHLIST", "WISHES"],
        form_sv: "ÖNSKELISTA köp <resurs> <resurs> sälj <resurs> <resurs>",
        form_en: "WISHLIST buy <resource> <resource> sell <resource> <resource>",
        example_sv: "ÖNSKELISTA köp hästar guld sälj sten mat",
        example_en: "WISHLIST buy horses gold sell stone food",
        rule: "R-RES-3",
    },
    OrderSpec {
        kind: OrderKind::Benefit,
        sv: &["FÖRMÅN", "HÄRSKARFÖRMÅN"],
        en: &["BENEFIT"],
        form_sv: "FÖRMÅN <dubbla bud|först|fria spioner|befolkning>",
        form_en: "BENEFIT <double bids|first|free spies|population>",
        example_sv: "FÖRMÅN dubbla bud",
        example_en: "BENEFIT double bids",
        rule: "R-VOTE-5, RULINGS 49",
    },
    OrderSpec {
        kind: OrderKind::Reward,
        sv: &["BELÖNING"],
        en: &["REWARD"],
        form_sv: "BELÖNING <befattning>  eller  BELÖNING produktion <stad> <resurs>  eller  BELÖNING <antal resurs …>   (25; slavar och kristaller räknas dubbelt)",
        form_en: "REWARD <position>  or  REWARD production <city> <resource>  or  REWARD <count resource …>   (25; slaves and crystals count double)",
        example_sv: "BELÖNING produktion B2 järn",
        example_en: "REWARD production B2 iron",
        rule: "R-VP-4, RULINGS 47",
    },
    OrderSpec {
        kind: OrderKind::Place,
        sv: &["PLACERA"],
        en: &["PLACE"],
        form_sv: "PLACERA <antal enhet> <stad> …   (trupper köpta av de fria köpmännen)",
        form_en: "PLACE <count unit> <city> …   (troops bought from the free merchants)",
        example_sv: "PLACERA 5 tungt kavalleri B2",
        example_en: "PLACE 5 heavy cavalry B2",
        rule: "R-FREE-9",
    },
    OrderSpec {
        kind: OrderKind::SendSpy,
        sv: &["SKICKA", "SÄND"],
        en: &["SEND"],
        form_sv: "(spioner skickas med brev: <Land> skickar en spion till <Land>)",
        form_en: "(spies are sent by mail: <Realm> sends a spy to <Realm>)",
        example_sv: "KÖP 2 spion",
        example_en: "BUY 2 spy",
        rule: "R-SPY-4",
    },
];

impl OrderKind {
    /// This kind's row of `ORDER_TABLE`.
    pub fn spec(self) -> &'static OrderSpec {
        ORDER_TABLE
            .iter()
            .find(|s| s.kind == self)
            .expect("every order kind has a table row")
    }

    /// The keyword `render` writes in `lang`.
    pub fn keyword(self, lang: Lang) -> &'static str {
        let s = self.spec();
        match lang {
            Lang::Sv => s.sv[0],
            Lang::En => s.en[0],
        }
    }

    /// The argument shape and an example, in `lang`.
    pub fn right_form(self, lang: Lang) -> String {
        let s = self.spec();
        match lang {
            Lang::Sv => format!("{}  (t.ex. {})", s.form_sv, s.example_sv),
            Lang::En => format!("{}  (e.g. {})", s.form_en, s.example_en),
        }
    }

    /// The kind whose keyword (either language, any alias) is `word`.
    pub fn from_keyword(word: &str) -> Option<OrderKind> {
        /// Every keyword of the table, folded once: the first match in table order.
        static KEYWORDS: std::sync::LazyLock<Vec<(String, OrderKind)>> =
            std::sync::LazyLock::new(|| {
                ORDER_TABLE
                    .iter()
                    .flat_map(|s| s.sv.iter().chain(s.en.iter()).map(|k| (fold(k), s.kind)))
                    .collect()
            });
        // No keyword is this long: do not fold a hostile word.
        if word.len() > 64 {
            return None;
        }
        let w = fold(word);
        KEYWORDS
            .iter()
            .find(|(k, _)| *k == w)
            .map(|&(_, kind)| kind)
    }
}

/// The winner's benefit words, both languages, folded.
fn parse_benefit(s: &str) -> Option<RulerBenefit> {
    match fold(s).as_str() {
        "dubbla bud" | "dubbelbud" | "double bids" | "double bid" | "double" => {
            Some(RulerBenefit::DoubleBids)
        }
        "forst" | "flytta forst" | "first" | "move first" => Some(RulerBenefit::MoveFirst),
        "fria spioner" | "gratis spioner" | "free spies" | "spies" | "spioner" => {
            Some(RulerBenefit::FreeSpies)
        }
        "befolkning" | "population" => Some(RulerBenefit::Population),
        _ => None,
    }
}

fn benefit_text(b: RulerBenefit, lang: Lang) -> &'static str {
    match (b, lang) {
        (RulerBenefit::DoubleBids, Lang::Sv) => "dubbla bud",
        (RulerBenefit::DoubleBids, Lang::En) => "double bids",
        (RulerBenefit::MoveFirst, Lang::Sv) => "först",
        (RulerBenefit::MoveFirst, Lang::En) => "first",
        (RulerBenefit::FreeSpies, Lang::Sv) => "fria spioner",
        (RulerBenefit::FreeSpies, Lang::En) => "free spies",
        (RulerBenefit::Population, Lang::Sv) => "befolkning",
        (RulerBenefit::Population, Lang::En) => "population",
    }
}

impl Group {
    /// `armé 2`, `fleet 1`.
    pub fn render(self, lang: Lang) -> String {
        format!("{} {}", group_word(self.is_army(), lang), self.id())
    }
}

fn group_word(army: bool, lang: Lang) -> &'static str {
    match (army, lang) {
        (true, Lang::Sv) => "armé",
        (true, Lang::En) => "army",
        (false, Lang::Sv) => "flotta",
        (false, Lang::En) => "fleet",
    }
}

impl GroupSel {
    fn render(self) -> String {
        match self {
            GroupSel::Id(n) => n.to_string(),
            GroupSel::At(sq) => sq.to_string(),
        }
    }
}

/// The target shape each spell takes (R-SPELL table, R-SPELL-11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetShape {
    NoTarget,
    Realm,
    City,
    Army,
    Fleet,
    ArmyOrFleet,
    RealmOrGroup,
    ArmyAndSquare,
    Square,
    /// Reveal: nothing (the latest spell cast on the realm), or the spell to look for.
    SpellOrNothing,
}

impl TargetShape {
    /// The table: spell → target shape.
    pub fn of(spell: Spell) -> TargetShape {
        use Spell::*;
        match spell {
            s if s.bans().is_some() => TargetShape::Realm,
            s if s.boosts().is_some() => TargetShape::NoTarget,
            Trask | Storm | Skold | Isolering | Forskingring | Malstrom => TargetShape::Realm,
            Antimagi => TargetShape::RealmOrGroup,
            Virvelvind | Anfall | Forsvar => TargetShape::ArmyOrFleet,
            Bergvagg | Pest => TargetShape::City,
            Eldklot | Vattenvag => TargetShape::Army,
            Virvelstrom => TargetShape::Fleet,
            Teleportera => TargetShape::ArmyAndSquare,
            OppnaPortal => TargetShape::Square,
            Avsloja => TargetShape::SpellOrNothing,
            _ => TargetShape::NoTarget,
        }
    }

    fn describe(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (TargetShape::NoTarget, Lang::Sv) => "inget mål",
            (TargetShape::NoTarget, Lang::En) => "no target",
            (TargetShape::Realm, Lang::Sv) => "ett land",
            (TargetShape::Realm, Lang::En) => "a realm",
            (TargetShape::City, Lang::Sv) => "en stad (ruta)",
            (TargetShape::City, Lang::En) => "a city (square)",
            (TargetShape::Army, Lang::Sv) => "armé <nr eller ruta>",
            (TargetShape::Army, Lang::En) => "army <no or square>",
            (TargetShape::Fleet, Lang::Sv) => "flotta <nr eller ruta>",
            (TargetShape::Fleet, Lang::En) => "fleet <no or square>",
            (TargetShape::ArmyOrFleet, Lang::Sv) => "armé eller flotta <nr eller ruta>",
            (TargetShape::ArmyOrFleet, Lang::En) => "army or fleet <no or square>",
            (TargetShape::RealmOrGroup, Lang::Sv) => "ett land, eller armé/flotta <nr eller ruta>",
            (TargetShape::RealmOrGroup, Lang::En) => "a realm, or army/fleet <no or square>",
            (TargetShape::ArmyAndSquare, Lang::Sv) => "armé <nr> och en ruta",
            (TargetShape::ArmyAndSquare, Lang::En) => "army <no> and a square",
            (TargetShape::Square, Lang::Sv) => "en ruta",
            (TargetShape::Square, Lang::En) => "a square",
            (TargetShape::SpellOrNothing, Lang::Sv) => "inget mål, eller en trollformels namn",
            (TargetShape::SpellOrNothing, Lang::En) => "no target, or a spell's name",
        }
    }
}

impl Outcome {
    fn word(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Outcome::Plunder, Lang::Sv) => "plundra",
            (Outcome::Plunder, Lang::En) => "plunder",
            (Outcome::Takeover, Lang::Sv) => "överta",
            (Outcome::Takeover, Lang::En) => "takeover",
            (Outcome::Raze, Lang::Sv) => "rasera",
            (Outcome::Raze, Lang::En) => "raze",
        }
    }
    fn parse(w: &str) -> Option<Outcome> {
        match fold(w).as_str() {
            "plundra" | "plunder" | "plundring" => Some(Outcome::Plunder),
            "overta" | "takeover" | "erovra" | "conquer" | "overtagande" => Some(Outcome::Takeover),
            "rasera" | "raze" | "rasering" => Some(Outcome::Raze),
            _ => None,
        }
    }
}

impl Wave {
    fn word(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Wave::First, Lang::Sv) => "första",
            (Wave::First, Lang::En) => "first",
            (Wave::Second, Lang::Sv) => "andra",
            (Wave::Second, Lang::En) => "second",
        }
    }
    fn parse(w: &str) -> Option<Wave> {
        match fold(w).as_str() {
            "forsta" | "first" | "1st" | "1:a" => Some(Wave::First),
            "andra" | "second" | "2nd" | "2:a" => Some(Wave::Second),
            _ => None,
        }
    }
}

/// What an argument was supposed to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arg {
    Count,
    Square,
    Thing,
    Resource,
    Spell,
    Position,
    Group,
    Army,
    Fleet,
    Realm,
    Target,
    Outcome,
    Researchable,
    Path,
    Pieces,
    BuySell,
    Benefit,
    Reward,
}

impl Arg {
    fn describe(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Arg::Count, Lang::Sv) => "ett antal (siffror, minst 1)",
            (Arg::Count, Lang::En) => "a count (digits, at least 1)",
            (Arg::Square, Lang::Sv) => "en ruta (t.ex. I4)",
            (Arg::Square, Lang::En) => "a square (e.g. I4)",
            (Arg::Thing, Lang::Sv) => "vad som köps (enhet, skepp, spion, mur, stad, befolkning)",
            (Arg::Thing, Lang::En) => "what to buy (unit, ship, spy, wall, city, population)",
            (Arg::Resource, Lang::Sv) => "en resurs",
            (Arg::Resource, Lang::En) => "a resource",
            (Arg::Spell, Lang::Sv) => "en formel",
            (Arg::Spell, Lang::En) => "a spell",
            (Arg::Position, Lang::Sv) => "en befattning (t.ex. befälhavare)",
            (Arg::Position, Lang::En) => "a position (e.g. commander)",
            (Arg::Group, Lang::Sv) => "armé <nr> eller flotta <nr>",
            (Arg::Group, Lang::En) => "army <no> or fleet <no>",
            (Arg::Army, Lang::Sv) => "armé <nr>",
            (Arg::Army, Lang::En) => "army <no>",
            (Arg::Fleet, Lang::Sv) => "flotta <nr>",
            (Arg::Fleet, Lang::En) => "fleet <no>",
            (Arg::Realm, Lang::Sv) => "ett land",
            (Arg::Realm, Lang::En) => "a realm",
            (Arg::Target, Lang::Sv) => "formelns mål",
            (Arg::Target, Lang::En) => "the spell's target",
            (Arg::Outcome, Lang::Sv) => "plundra, överta, rasera, första eller andra",
            (Arg::Outcome, Lang::En) => "plunder, takeover, raze, first or second",
            (Arg::Researchable, Lang::Sv) => "beridna bågskyttar eller fregatt",
            (Arg::Researchable, Lang::En) => "mounted archers or frigate",
            (Arg::Path, Lang::Sv) => "minst en ruta att gå till",
            (Arg::Path, Lang::En) => "at least one square to go to",
            (Arg::Pieces, Lang::Sv) => "en lista <antal enhet> …",
            (Arg::Pieces, Lang::En) => "a list <count unit> …",
            (Arg::BuySell, Lang::Sv) => "köp <2 resurser> sälj <2 resurser>",
            (Arg::BuySell, Lang::En) => "buy <2 resources> sell <2 resources>",
            (Arg::Benefit, Lang::Sv) => "dubbla bud, först, fria spioner eller befolkning",
            (Arg::Benefit, Lang::En) => "double bids, first, free spies or population",
            (Arg::Reward, Lang::Sv) => {
                "en befattning, produktion <stad> <resurs>, eller <antal resurs …>"
            }
            (Arg::Reward, Lang::En) => {
                "a position, production <city> <resource>, or <count resource …>"
            }
        }
    }
}

/// Why a line is not an order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "error", rename_all = "snake_case")]
pub enum ErrorKind {
    /// The first word is no order keyword.
    UnknownKeyword { word: String },
    /// Something is missing at the end.
    Missing { what: Arg },
    /// A word where something else was expected.
    Bad { what: Arg, found: String },
    /// Words left over after a complete order.
    Extra { found: String },
    /// The spell got a target of the wrong shape.
    SpellTarget { spell: Spell, shape: TargetShape },
    /// SKICKA/SEND spy: spies are sent by mail, only built on the form.
    SpyByMail,
    /// The line is longer than [`MAX_LINE_CHARS`]; it is not parsed.
    TooLong { max: usize },
}

/// A refused line: the line as written, why, and which order it looked like.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineError {
    pub line: String,
    pub kind: ErrorKind,
    /// The order kind the keyword named, when there was one.
    pub order: Option<OrderKind>,
}

impl LineError {
    /// Why, in `lang`, without the quote.
    pub fn reason(&self, lang: Lang) -> String {
        let sv = lang == Lang::Sv;
        match &self.kind {
            ErrorKind::UnknownKeyword { word } => {
                if sv {
                    format!("`{word}` är ingen order")
                } else {
                    format!("`{word}` is not an order")
                }
            }
            ErrorKind::Missing { what } => {
                if sv {
                    format!("saknar {}", what.describe(lang))
                } else {
                    format!("missing {}", what.describe(lang))
                }
            }
            ErrorKind::Bad { what, found } => {
                if sv {
                    format!("`{found}` är inte {}", what.describe(lang))
                } else {
                    format!("`{found}` is not {}", what.describe(lang))
                }
            }
            ErrorKind::Extra { found } => {
                if sv {
                    format!("överflödigt på slutet: `{found}`")
                } else {
                    format!("left over at the end: `{found}`")
                }
            }
            ErrorKind::SpellTarget { spell, shape } => {
                if sv {
                    format!("{} tar som mål {}", spell.name(lang), shape.describe(lang))
                } else {
                    format!(
                        "{} takes as target {}",
                        spell.name(lang),
                        shape.describe(lang)
                    )
                }
            }
            ErrorKind::SpyByMail => {
                if sv {
                    "spioner byggs på formuläret men skickas med brev".to_string()
                } else {
                    "spies are built on the form but sent by mail".to_string()
                }
            }
            ErrorKind::TooLong { max } => {
                if sv {
                    format!("raden är längre än {max} tecken och lästes inte")
                } else {
                    format!("the line is longer than {max} characters and was not read")
                }
            }
        }
    }

    /// The right form of the order the line looked like (or a pointer to
    /// the list of orders).
    pub fn right_form(&self, lang: Lang) -> String {
        match self.order {
            Some(k) => k.right_form(lang),
            None => match lang {
                Lang::Sv => "en order per rad, t.ex. KÖP, FLYTTA, ANFALL, FORMEL, BUD, RÖST, VÄN (se orderlistan)".to_string(),
                Lang::En => "one order per line, e.g. BUY, MOVE, ATTACK, SPELL, BID, VOTE, FRIEND (see the list of orders)".to_string(),
            },
        }
    }

    /// Quote, reason and right form in one text.
    pub fn message(&self, lang: Lang) -> String {
        match lang {
            Lang::Sv => format!(
                "«{}»: {}. Rätt form: {}",
                self.line,
                self.reason(lang),
                self.right_form(lang)
            ),
            Lang::En => format!(
                "«{}»: {}. Right form: {}",
                self.line,
                self.reason(lang),
                self.right_form(lang)
            ),
        }
    }
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for LineError {}

/// True for lines the parser skips: blank, or starting with `#`.
pub fn is_ignorable(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// Parse one line into an order. `_lang` is the realm's language; both
/// languages' keywords are always accepted (it is kept for future
/// language-specific aliases).
pub fn parse_line(line: &str, _lang: Option<Lang>) -> Result<Order, LineError> {
    let line = line.trim();
    if line.chars().nth(MAX_LINE_CHARS).is_some() {
        return Err(too_long(line));
    }
    let text = line.to_string();
    // A full stop at the end is punctuation, not part of the last word.
    let cleaned: String = text
        .trim_end_matches('.')
        .chars()
        .map(|c| if matches!(c, ',' | ';' | ':') { ' ' } else { c })
        .collect();
    let toks: Vec<&str> = cleaned.split_whitespace().collect();
    let mut p = Parser {
        toks,
        pos: 1,
        line: text.clone(),
        kind: None,
    };
    let Some(first) = p.toks.first().copied() else {
        return Err(p.err(ErrorKind::Missing { what: Arg::Thing }));
    };
    let first = first.trim_end_matches('.');
    let Some(kind) = OrderKind::from_keyword(first) else {
        return Err(p.err(ErrorKind::UnknownKeyword {
            word: first.to_string(),
        }));
    };
    p.kind = Some(kind);
    let order = p.order(kind)?;
    p.finish()?;
    Ok(order)
}

/// The longest order line that is parsed; no order needs a tenth of it. A longer line
/// is refused with its start quoted, so a hostile line cannot cost more than this.
pub const MAX_LINE_CHARS: usize = 1_000;

/// How many characters of an over-long line a refusal quotes.
const QUOTED_CHARS: usize = 60;

fn too_long(line: &str) -> LineError {
    let cut = line
        .char_indices()
        .nth(QUOTED_CHARS)
        .map_or(line.len(), |(i, _)| i);
    LineError {
        line: format!("{}…", &line[..cut]),
        kind: ErrorKind::TooLong {
            max: MAX_LINE_CHARS,
        },
        order: None,
    }
}

struct Parser<'a> {
    toks: Vec<&'a str>,
    pos: usize,
    line: String,
    kind: Option<OrderKind>,
}

fn is_number(t: &str) -> bool {
    !t.is_empty() && t.chars().all(|c| c.is_ascii_digit())
}

fn is_group_word(t: &str) -> Option<bool> {
    match fold(t).as_str() {
        "arme" | "armen" | "army" | "armeer" | "armies" => Some(true),
        "flotta" | "flottan" | "fleet" | "flottor" | "fleets" => Some(false),
        _ => None,
    }
}

impl<'a> Parser<'a> {
    fn err(&self, kind: ErrorKind) -> LineError {
        LineError {
            line: self.line.clone(),
            kind,
            order: self.kind,
        }
    }

    fn peek(&self) -> Option<&'a str> {
        self.toks.get(self.pos).copied()
    }

    fn done(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn finish(&self) -> Result<(), LineError> {
        if self.done() {
            Ok(())
        } else {
            Err(self.err(ErrorKind::Extra {
                found: self.toks[self.pos..].join(" "),
            }))
        }
    }

    fn expect<T>(&mut self, what: Arg, f: impl Fn(&str) -> Option<T>) -> Result<T, LineError> {
        let Some(t) = self.peek() else {
            return Err(self.err(ErrorKind::Missing { what }));
        };
        match f(t) {
            Some(v) => {
                self.pos += 1;
                Ok(v)
            }
            None => Err(self.err(ErrorKind::Bad {
                what,
                found: t.to_string(),
            })),
        }
    }

    fn count(&mut self) -> Result<u32, LineError> {
        self.expect(Arg::Count, |t| {
            if is_number(t) {
                t.parse::<u32>()
                    .ok()
                    .filter(|&n| (1..=100_000).contains(&n))
            } else {
                None
            }
        })
    }

    fn opt_count(&mut self) -> Result<Option<u32>, LineError> {
        match self.peek() {
            Some(t) if is_number(t) => self.count().map(Some),
            _ => Ok(None),
        }
    }

    fn square(&mut self) -> Result<Square, LineError> {
        self.expect(Arg::Square, |t| Square::parse(t).ok())
    }

    fn opt_square(&mut self) -> Option<Square> {
        let sq = self.peek().and_then(|t| Square::parse(t).ok())?;
        self.pos += 1;
        Some(sq)
    }

    /// The longest run of 1..=3 words (stopping at numbers) that `f`
    /// accepts.
    fn name<T>(&mut self, what: Arg, f: impl Fn(&str) -> Option<T>) -> Result<T, LineError> {
        let start = self.pos;
        let mut end = start;
        while end < self.toks.len() && end - start < 3 && !is_number(self.toks[end]) {
            end += 1;
        }
        if end == start {
            return Err(match self.peek() {
                None => self.err(ErrorKind::Missing { what }),
                Some(t) => self.err(ErrorKind::Bad {
                    what,
                    found: t.to_string(),
                }),
            });
        }
        for stop in (start + 1..=end).rev() {
            if let Some(v) = f(&self.toks[start..stop].join(" ")) {
                self.pos = stop;
                return Ok(v);
            }
        }
        Err(self.err(ErrorKind::Bad {
            what,
            found: self.toks[start..end].join(" "),
        }))
    }

    fn resource(&mut self) -> Result<Resource, LineError> {
        self.name(Arg::Resource, |s| Resource::parse(s).ok())
    }

    fn realm(&mut self) -> Result<String, LineError> {
        self.expect(Arg::Realm, |t| {
            // Judged folded, so decomposed diacritics (`O` + U+0308) pass.
            let f = fold(t);
            let ok = f.chars().all(|c| c.is_alphabetic() || c == '-')
                && f.chars().next().is_some_and(char::is_alphabetic);
            ok.then(|| t.to_string())
        })
    }

    fn group_of(&mut self, what: Arg, want: Option<bool>) -> Result<Group, LineError> {
        let army = self.expect(what, |t| {
            is_group_word(t).filter(|&a| want.is_none_or(|w| w == a))
        })?;
        let n = self.expect(what, |t| {
            is_number(t).then(|| t.parse::<u32>().ok()).flatten()
        })?;
        Ok(if army {
            Group::Army(n)
        } else {
            Group::Fleet(n)
        })
    }

    fn group(&mut self) -> Result<Group, LineError> {
        self.group_of(Arg::Group, None)
    }

    fn army(&mut self) -> Result<u32, LineError> {
        self.group_of(Arg::Army, Some(true)).map(Group::id)
    }

    fn fleet(&mut self) -> Result<u32, LineError> {
        self.group_of(Arg::Fleet, Some(false)).map(Group::id)
    }

    /// `N resource N resource …` to the end of the line.
    fn amounts(&mut self) -> Result<Vec<Amount>, LineError> {
        let mut out = Vec::new();
        loop {
            let count = self.count()?;
            let resource = self.resource()?;
            out.push(Amount { count, resource });
            if self.done() {
                return Ok(out);
            }
        }
    }

    /// `N piece N piece …` to the end of the line.
    fn pieces(&mut self, army: bool) -> Result<Vec<(u32, Piece)>, LineError> {
        if self.done() {
            return Err(self.err(ErrorKind::Missing { what: Arg::Pieces }));
        }
        let mut out = Vec::new();
        while !self.done() {
            let n = self.count()?;
            let piece = self.name(Arg::Pieces, |s| {
                if army {
                    UnitKind::parse(s).ok().map(Piece::Unit)
                } else {
                    ShipKind::parse(s).ok().map(Piece::Ship)
                }
            })?;
            out.push((n, piece));
        }
        Ok(out)
    }

    fn sel(&mut self, what: Arg) -> Result<GroupSel, LineError> {
        self.expect(what, |t| {
            if is_number(t) {
                t.parse().ok().map(GroupSel::Id)
            } else {
                Square::parse(t).ok().map(GroupSel::At)
            }
        })
    }

    fn target(&mut self, spell: Spell) -> Result<Target, LineError> {
        let shape = TargetShape::of(spell);
        let bad = |p: &Self| p.err(ErrorKind::SpellTarget { spell, shape });
        let next_group = self.peek().and_then(is_group_word);
        let t = match shape {
            TargetShape::NoTarget => Target::None,
            TargetShape::SpellOrNothing if self.done() => Target::None,
            TargetShape::SpellOrNothing => {
                let named = self.name(Arg::Spell, |s| Spell::parse(s).ok());
                Target::Spell(named.map_err(|_| bad(self))?)
            }
            TargetShape::Realm => {
                if self.done() || next_group.is_some() || self.peek().is_some_and(is_number) {
                    return Err(bad(self));
                }
                Target::Realm(self.realm()?)
            }
            TargetShape::City => Target::City(self.square().map_err(|_| bad(self))?),
            TargetShape::Square => Target::Square(self.square().map_err(|_| bad(self))?),
            TargetShape::Army | TargetShape::Fleet | TargetShape::ArmyOrFleet => {
                let want = match shape {
                    TargetShape::Army => Some(true),
                    TargetShape::Fleet => Some(false),
                    _ => None,
                };
                match next_group {
                    Some(a) if want.is_none_or(|w| w == a) => {
                        self.pos += 1;
                        let s = self.sel(Arg::Target)?;
                        if a {
                            Target::Army(s)
                        } else {
                            Target::Fleet(s)
                        }
                    }
                    _ => return Err(bad(self)),
                }
            }
            TargetShape::RealmOrGroup => match next_group {
                Some(a) => {
                    self.pos += 1;
                    let s = self.sel(Arg::Target)?;
                    if a {
                        Target::Army(s)
                    } else {
                        Target::Fleet(s)
                    }
                }
                None if self.done() => return Err(bad(self)),
                None => Target::Realm(self.realm()?),
            },
            TargetShape::ArmyAndSquare => {
                if next_group != Some(true) {
                    return Err(bad(self));
                }
                self.pos += 1;
                let army = self.sel(Arg::Target)?;
                let to = self.square()?;
                Target::ArmyTo { army, to }
            }
        };
        Ok(t)
    }

    fn order(&mut self, kind: OrderKind) -> Result<Order, LineError> {
        Ok(match kind {
            OrderKind::Buy => self.buy()?,
            OrderKind::Upgrade => {
                let position = self.name(Arg::Position, |s| Position::parse(s).ok())?;
                let crystals = if self.done() {
                    Vec::new()
                } else {
                    self.amounts()?
                };
                Order::UpgradePosition { position, crystals }
            }
            OrderKind::Production => {
                let city = self.square()?;
                let resource = self.resource()?;
                Order::UpgradeProduction { city, resource }
            }
            OrderKind::Convert => {
                let count = self.count()?;
                // Optional "slaves/slavar to/till" filler.
                if self
                    .peek()
                    .is_some_and(|t| Resource::parse(t) == Ok(Resource::Slavar))
                    && self.toks.len() > self.pos + 1
                {
                    self.pos += 1;
                    if self
                        .peek()
                        .is_some_and(|t| matches!(fold(t).as_str(), "till" | "to"))
                    {
                        self.pos += 1;
                    }
                }
                let resource = self.resource()?;
                Order::ConvertSlaves { count, resource }
            }
            OrderKind::Spell => {
                let spell = self.name(Arg::Spell, |s| Spell::parse(s).ok())?;
                let target = self.target(spell)?;
                Order::Cast { spell, target }
            }
            OrderKind::Move => {
                let group = self.group()?;
                if self.done() {
                    return Err(self.err(ErrorKind::Missing { what: Arg::Path }));
                }
                let mut path = Vec::new();
                while !self.done() {
                    path.push(self.square()?);
                }
                Order::Move { group, path }
            }
            OrderKind::Embark => {
                let army = self.army()?;
                let fleet = self.fleet()?;
                Order::Embark { army, fleet }
            }
            OrderKind::Disembark => {
                let army = self.army()?;
                let square = if self.done() {
                    None
                } else {
                    Some(self.square()?)
                };
                Order::Disembark { army, square }
            }
            OrderKind::PickUp => {
                let fleet = self.fleet()?;
                let army = self.army()?;
                Order::PickUp { fleet, army }
            }
            OrderKind::Merge => {
                let group = self.group()?;
                let other = self.group_of(Arg::Group, Some(group.is_army()))?;
                Order::Merge {
                    group,
                    other: other.id(),
                }
            }
            OrderKind::Split | OrderKind::Reorder => {
                let group = self.group()?;
                let pieces = self.pieces(group.is_army())?;
                if kind == OrderKind::Split {
                    Order::Split { group, pieces }
                } else {
                    Order::Reorder { group, pieces }
                }
            }
            OrderKind::Attack => {
                let group = self.group()?;
                let square = self.square()?;
                let mut outcome = None;
                let mut wave = None;
                while let Some(t) = self.peek() {
                    if outcome.is_none() {
                        if let Some(o) = Outcome::parse(t) {
                            outcome = Some(o);
                            self.pos += 1;
                            continue;
                        }
                    }
                    if wave.is_none() {
                        if let Some(w) = Wave::parse(t) {
                            wave = Some(w);
                            self.pos += 1;
                            continue;
                        }
                    }
                    return Err(self.err(ErrorKind::Bad {
                        what: Arg::Outcome,
                        found: t.to_string(),
                    }));
                }
                Order::Attack {
                    group,
                    square,
                    outcome,
                    wave,
                }
            }
            OrderKind::Invitation => {
                let from = self.realm()?;
                let group = self.group()?;
                Order::UseInvitation { from, group }
            }
            OrderKind::HomeInvitation => Order::HomeInvitation {
                group: self.group()?,
            },
            OrderKind::Bid => Order::Bid {
                offer: self.amounts()?,
            },
            OrderKind::Engineers => Order::Engineers {
                pay: self.amounts()?,
            },
            OrderKind::Research => {
                let kind = self.name(Arg::Researchable, |s| {
                    if UnitKind::parse(s) == Ok(UnitKind::BeridnaBagskyttar) {
                        Some(Researched::BeridnaBagskyttar)
                    } else if ShipKind::parse(s) == Ok(ShipKind::Fregatt) {
                        Some(Researched::Fregatt)
                    } else {
                        None
                    }
                })?;
                Order::Research { kind }
            }
            OrderKind::Vote => Order::Vote {
                realm: self.realm()?,
            },
            OrderKind::Friend => Order::Friend {
                realm: self.realm()?,
            },
            OrderKind::NotFriend => Order::NotFriend {
                realm: self.realm()?,
            },
            OrderKind::Capital => Order::Capital {
                city: self.square()?,
            },
            OrderKind::Harbour => Order::MainHarbour {
                city: self.square()?,
            },
            OrderKind::Wishes => self.wishes()?,
            OrderKind::Benefit => Order::RulerBenefit {
                benefit: self.name(Arg::Benefit, parse_benefit)?,
            },
            OrderKind::Reward => Order::VpReward {
                reward: self.reward()?,
            },
            OrderKind::Place => {
                if self.done() {
                    return Err(self.err(ErrorKind::Missing { what: Arg::Pieces }));
                }
                let mut placements = Vec::new();
                while !self.done() {
                    let n = self.count()?;
                    let kind = self.name(Arg::Pieces, |s| UnitKind::parse(s).ok())?;
                    let city = self.square()?;
                    placements.push((n, kind, city));
                }
                Order::PlaceTroops { placements }
            }
            OrderKind::SendSpy => return Err(self.err(ErrorKind::SpyByMail)),
        })
    }

    fn reward(&mut self) -> Result<Reward, LineError> {
        let Some(t) = self.peek() else {
            return Err(self.err(ErrorKind::Missing { what: Arg::Reward }));
        };
        if is_number(t) {
            return Ok(Reward::Resources(self.amounts()?));
        }
        if matches!(fold(t).as_str(), "produktion" | "production") {
            self.pos += 1;
            let city = self.square()?;
            let resource = self.resource()?;
            return Ok(Reward::Production { city, resource });
        }
        Ok(Reward::Position(
            self.name(Arg::Reward, |s| Position::parse(s).ok())?,
        ))
    }

    fn wishes(&mut self) -> Result<Order, LineError> {
        let mut buy = Vec::new();
        let mut sell = Vec::new();
        let mut side: Option<bool> = None;
        while let Some(t) = self.peek() {
            match fold(t).as_str() {
                "kop" | "kopa" | "buy" => {
                    side = Some(true);
                    self.pos += 1;
                }
                "salj" | "salja" | "sell" => {
                    side = Some(false);
                    self.pos += 1;
                }
                _ => {
                    let Some(s) = side else {
                        return Err(self.err(ErrorKind::Bad {
                            what: Arg::BuySell,
                            found: t.to_string(),
                        }));
                    };
                    let r = self.resource()?;
                    if s {
                        buy.push(r);
                    } else {
                        sell.push(r);
                    }
                }
            }
        }
        if buy.len() != 2 || sell.len() != 2 {
            return Err(self.err(ErrorKind::Missing { what: Arg::BuySell }));
        }
        Ok(Order::TradeWishes { buy, sell })
    }

    fn buy(&mut self) -> Result<Order, LineError> {
        let count = self.opt_count()?;
        let n = count.unwrap_or(1);
        let Some(t) = self.peek() else {
            return Err(self.err(ErrorKind::Missing { what: Arg::Thing }));
        };
        match fold(t).as_str() {
            "spion" | "spioner" | "spy" | "spies" => {
                self.pos += 1;
                return Ok(Order::BuySpies { count: n });
            }
            "mur" | "murar" | "wall" | "walls" => {
                self.pos += 1;
                let city = self.square()?;
                return Ok(Order::BuyWalls { count: n, city });
            }
            "befolkning" | "population" => {
                self.pos += 1;
                let city = self.square()?;
                return Ok(Order::BuyPopulation { count: n, city });
            }
            "stad" | "city" | "stader" | "cities" => {
                self.pos += 1;
                if n != 1 {
                    return Err(self.err(ErrorKind::Bad {
                        what: Arg::Thing,
                        found: format!("{n} {t}"),
                    }));
                }
                let square = self.square()?;
                let production = self.amounts()?;
                return Ok(Order::BuyCity { square, production });
            }
            _ => {}
        }
        enum Thing {
            U(UnitKind),
            S(ShipKind),
        }
        let thing = self.name(Arg::Thing, |s| {
            UnitKind::parse(s)
                .ok()
                .map(Thing::U)
                .or_else(|| ShipKind::parse(s).ok().map(Thing::S))
        })?;
        let city = self.opt_square();
        Ok(match thing {
            Thing::U(kind) => Order::BuyUnits {
                count: n,
                kind,
                city,
            },
            Thing::S(kind) => Order::BuyShips {
                count: n,
                kind,
                city,
            },
        })
    }
}

fn amounts_text(v: &[Amount], lang: Lang) -> String {
    v.iter()
        .map(|a| format!("{} {}", a.count, a.resource.name(lang)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn pieces_text(v: &[(u32, Piece)], lang: Lang) -> String {
    v.iter()
        .map(|(n, p)| p.count_text(u64::from(*n), lang))
        .collect::<Vec<_>>()
        .join(", ")
}

fn opt_sq(sq: Option<Square>) -> String {
    sq.map(|s| format!(" {s}")).unwrap_or_default()
}

impl Order {
    /// The table row this order belongs to.
    pub fn kind(&self) -> OrderKind {
        match self {
            Order::BuyUnits { .. }
            | Order::BuyShips { .. }
            | Order::BuySpies { .. }
            | Order::BuyWalls { .. }
            | Order::BuyCity { .. }
            | Order::BuyPopulation { .. } => OrderKind::Buy,
            Order::UpgradePosition { .. } => OrderKind::Upgrade,
            Order::UpgradeProduction { .. } => OrderKind::Production,
            Order::ConvertSlaves { .. } => OrderKind::Convert,
            Order::Cast { .. } => OrderKind::Spell,
            Order::Move { .. } => OrderKind::Move,
            Order::Embark { .. } => OrderKind::Embark,
            Order::Disembark { .. } => OrderKind::Disembark,
            Order::PickUp { .. } => OrderKind::PickUp,
            Order::Merge { .. } => OrderKind::Merge,
            Order::Split { .. } => OrderKind::Split,
            Order::Reorder { .. } => OrderKind::Reorder,
            Order::Attack { .. } => OrderKind::Attack,
            Order::UseInvitation { .. } => OrderKind::Invitation,
            Order::HomeInvitation { .. } => OrderKind::HomeInvitation,
            Order::Bid { .. } => OrderKind::Bid,
            Order::Engineers { .. } => OrderKind::Engineers,
            Order::Research { .. } => OrderKind::Research,
            Order::Vote { .. } => OrderKind::Vote,
            Order::Friend { .. } => OrderKind::Friend,
            Order::NotFriend { .. } => OrderKind::NotFriend,
            Order::Capital { .. } => OrderKind::Capital,
            Order::MainHarbour { .. } => OrderKind::Harbour,
            Order::TradeWishes { .. } => OrderKind::Wishes,
            Order::RulerBenefit { .. } => OrderKind::Benefit,
            Order::VpReward { .. } => OrderKind::Reward,
            Order::PlaceTroops { .. } => OrderKind::Place,
        }
    }

    /// One line in `lang` that `parse_line` reads back as this order.
    pub fn render(&self, lang: Lang) -> String {
        let kw = self.kind().keyword(lang);
        let sv = lang == Lang::Sv;
        let args = match self {
            Order::BuyUnits { count, kind, city } => {
                format!(
                    "{}{}",
                    kind.count_text(*count as usize, lang),
                    opt_sq(*city)
                )
            }
            Order::BuyShips { count, kind, city } => {
                format!(
                    "{}{}",
                    kind.count_text(*count as usize, lang),
                    opt_sq(*city)
                )
            }
            Order::BuySpies { count } => {
                let w = match (sv, *count == 1) {
                    (true, true) => "spion",
                    (true, false) => "spioner",
                    (false, true) => "spy",
                    (false, false) => "spies",
                };
                format!("{count} {w}")
            }
            Order::BuyWalls { count, city } => {
                let w = match (sv, *count == 1) {
                    (true, true) => "mur",
                    (true, false) => "murar",
                    (false, true) => "wall",
                    (false, false) => "walls",
                };
                format!("{count} {w} {city}")
            }
            Order::BuyCity { square, production } => format!(
                "{} {square}: {}",
                if sv { "stad" } else { "city" },
                amounts_text(production, lang)
            ),
            Order::BuyPopulation { count, city } => format!(
                "{count} {} {city}",
                if sv { "befolkning" } else { "population" }
            ),
            Order::UpgradePosition { position, crystals } => {
                let mut s = position.name(lang).to_lowercase();
                if !crystals.is_empty() {
                    s.push_str(": ");
                    s.push_str(&amounts_text(crystals, lang));
                }
                s
            }
            Order::UpgradeProduction { city, resource } => {
                format!("{city} {}", resource.name(lang))
            }
            Order::ConvertSlaves { count, resource } => {
                format!("{count} {}", resource.name(lang))
            }
            Order::Cast { spell, target } => {
                let name = spell.name(lang).to_lowercase();
                let t = match target {
                    Target::None => String::new(),
                    Target::Spell(s) => format!(" {}", s.name(lang).to_lowercase()),
                    Target::Realm(r) => format!(" {r}"),
                    Target::City(sq) | Target::Square(sq) => format!(" {sq}"),
                    Target::Army(s) => format!(" {} {}", group_word(true, lang), s.render()),
                    Target::Fleet(s) => format!(" {} {}", group_word(false, lang), s.render()),
                    Target::ArmyTo { army, to } => {
                        format!(" {} {} {to}", group_word(true, lang), army.render())
                    }
                };
                format!("{name}{t}")
            }
            Order::Move { group, path } => format!(
                "{}: {}",
                group.render(lang),
                path.iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            Order::Embark { army, fleet } => format!(
                "{} {}",
                Group::Army(*army).render(lang),
                Group::Fleet(*fleet).render(lang)
            ),
            Order::Disembark { army, square } => {
                format!("{}{}", Group::Army(*army).render(lang), opt_sq(*square))
            }
            Order::PickUp { fleet, army } => format!(
                "{} {}",
                Group::Fleet(*fleet).render(lang),
                Group::Army(*army).render(lang)
            ),
            Order::Merge { group, other } => {
                let o = if group.is_army() {
                    Group::Army(*other)
                } else {
                    Group::Fleet(*other)
                };
                format!("{} {}", group.render(lang), o.render(lang))
            }
            Order::Split { group, pieces } | Order::Reorder { group, pieces } => {
                format!("{}: {}", group.render(lang), pieces_text(pieces, lang))
            }
            Order::Attack {
                group,
                square,
                outcome,
                wave,
            } => {
                let mut s = format!("{} {square}", group.render(lang));
                if let Some(o) = outcome {
                    s.push(' ');
                    s.push_str(o.word(lang));
                }
                if let Some(w) = wave {
                    s.push(' ');
                    s.push_str(w.word(lang));
                }
                s
            }
            Order::UseInvitation { from, group } => format!("{from} {}", group.render(lang)),
            Order::HomeInvitation { group } => group.render(lang),
            Order::Bid { offer } => amounts_text(offer, lang),
            Order::Engineers { pay } => amounts_text(pay, lang),
            Order::Research { kind } => match kind {
                Researched::BeridnaBagskyttar => UnitKind::BeridnaBagskyttar.names(lang).1,
                Researched::Fregatt => ShipKind::Fregatt.names(lang).0,
            }
            .to_string(),
            Order::Vote { realm } | Order::Friend { realm } | Order::NotFriend { realm } => {
                realm.clone()
            }
            Order::Capital { city } | Order::MainHarbour { city } => city.to_string(),
            Order::TradeWishes { buy, sell } => {
                let names =
                    |v: &[Resource]| v.iter().map(|r| r.name(lang)).collect::<Vec<_>>().join(" ");
                if sv {
                    format!("köp {} sälj {}", names(buy), names(sell))
                } else {
                    format!("buy {} sell {}", names(buy), names(sell))
                }
            }
            Order::RulerBenefit { benefit } => benefit_text(*benefit, lang).to_string(),
            Order::VpReward { reward } => match reward {
                Reward::Position(p) => p.name(lang).to_lowercase(),
                Reward::Production { city, resource } => format!(
                    "{} {city} {}",
                    if sv { "produktion" } else { "production" },
                    resource.name(lang)
                ),
                Reward::Resources(v) => amounts_text(v, lang),
            },
            Order::PlaceTroops { placements } => placements
                .iter()
                .map(|(n, k, sq)| format!("{} {sq}", k.count_text(*n as usize, lang)))
                .collect::<Vec<_>>()
                .join(", "),
        };
        format!("{kw} {args}")
    }
}

/// The order table as Markdown (for docs/reference/orders.md): keywords,
/// argument shape and example in both languages.
pub fn markdown_table() -> String {
    let mut s = String::from(
        "| order | Swedish keyword(s) | English keyword(s) | arguments (en) | example (sv) | example (en) | rule |\n|---|---|---|---|---|---|---|\n",
    );
    let esc = |t: &str| t.replace('|', "\\|");
    for r in ORDER_TABLE {
        s.push_str(&format!(
            "| {:?} | {} | {} | `{}` | `{}` | `{}` | {} |\n",
            r.kind,
            r.sv.join(", "),
            r.en.join(", "),
            esc(r.form_en),
            r.example_sv,
            r.example_en,
            r.rule
        ));
    }
    s
}

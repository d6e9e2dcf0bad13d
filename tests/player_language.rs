//! Every refusal and receipt a player can get, rendered in Swedish and in English: a
//! Swedish text holds no English words and an English text no Swedish ones (quoted
//! player text, order keywords and names aside), and counts agree with their nouns.
//!
//! The samples are exhaustive by construction: each refusal type has an `index`
//! function that matches every variant without a wildcard, so a new variant does not
//! compile until it has an index here, and the test fails until a sample covers it.

use std::collections::BTreeSet;

use pbemd::courier::mission::MissionErrorKind;
use pbemd::courier::trailer::TrailerErrorKind;
use pbemd::courier::{Charge, MissionError, Receipt, Refusal, Shortage, TrailerError};
use pbemd::forms::grammar::{Arg, ErrorKind, LineError, TargetShape, ORDER_TABLE};
use pbemd::forms::Refusal as FR;
use pbemd::game::text::MailKind;
use pbemd::game::{GameState, Lang, Resource, Resources, ShipKind, Spell, Square, UnitKind};
use pbemd::mail::classify::Refusal as MailRefusal;
use pbemd::mail::subject::SubjectError;
use pbemd::render::Renderer;
use pbemd::schedule::Window;

// ---------------------------------------------------------------- marker words

/// English words that must not appear in a Swedish text.
const ENGLISH: &[&str] = &[
    "the", "is", "not", "must", "mission", "missions", "and", "you", "your", "was", "has", "with",
    "of", "this", "could", "cannot", "nothing", "refused", "accepted", "orders", "line", "needs",
    "square", "city", "realm",
];

/// Swedish words that must not appear in an English text (and no å, ä or ö at all).
const SWEDISH: &[&str] = &[
    "är", "och", "inte", "det", "ditt", "din", "har", "kan", "för", "med", "ett", "till", "eller",
    "som", "att", "på", "inga", "inget", "saknar", "raden",
];

/// The prose of a text: quoted player text (`…`, «…», “…”, "…", <…>) and words
/// without a lower-case letter (order keywords, rule IDs such as `R-CITY-1`) removed,
/// lower case, every non-letter a space, padded with spaces.
fn prose(text: &str) -> String {
    let text: Vec<&str> = text
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_lowercase))
        .collect();
    let text = text.join(" ");
    let mut out = String::from(" ");
    let mut closing: Option<char> = None;
    for c in text.chars() {
        match closing {
            Some(end) if c == end => closing = None,
            Some(_) => {}
            None => match c {
                '`' => closing = Some('`'),
                '«' => closing = Some('»'),
                '“' => closing = Some('”'),
                '"' => closing = Some('"'),
                '<' => closing = Some('>'),
                c if c.is_alphabetic() => out.extend(c.to_lowercase()),
                _ => out.push(' '),
            },
        }
    }
    out.push(' ');
    out
}

fn words_in(text: &str, words: &[&str]) -> Vec<String> {
    let p = prose(text);
    words
        .iter()
        .filter(|w| p.contains(&format!(" {w} ")))
        .map(|w| w.to_string())
        .collect()
}

/// Fail with every text that holds the other language's words.
fn assert_clean(texts: &[(Lang, String)]) {
    let mut bad = Vec::new();
    for (lang, text) in texts {
        let found = match lang {
            Lang::Sv => words_in(text, ENGLISH),
            Lang::En => {
                let mut f = words_in(text, SWEDISH);
                if prose(text).contains(['å', 'ä', 'ö']) {
                    f.push("å/ä/ö".into());
                }
                f
            }
        };
        if !found.is_empty() {
            bad.push(format!("[{}] {found:?}\n    {text}", lang.code()));
        }
    }
    assert!(bad.is_empty(), "wrong-language words:\n{}", bad.join("\n"));
}

#[test]
fn the_marker_check_catches_each_language_in_the_other() {
    assert!(!words_in("Din rad `the line` är fel.", ENGLISH)
        .iter()
        .any(|w| w == "the"));
    assert_eq!(
        words_in("Mission 3 is not one of the ten.", ENGLISH).len(),
        5
    );
    assert!(words_in("KÖP THE CITY (R-CITY-1)", ENGLISH).is_empty());
    assert_eq!(
        words_in("The line är fel och inte bra.", SWEDISH),
        ["är", "och", "inte"]
    );
    let p = prose("staden «Kåreby» i `Hästö`");
    assert_eq!(p.split_whitespace().collect::<Vec<_>>(), ["staden", "i"]);
}

// ---------------------------------------------------------------- exhaustive samples

fn courier_index(r: &Refusal) -> usize {
    match r {
        Refusal::OutsideWindow { .. } => 0,
        Refusal::CannotPay { .. } => 1,
        Refusal::GoodsNotHeld { .. } => 2,
        Refusal::NoTrailer => 3,
        Refusal::Trailer(_) => 4,
        Refusal::ExpectsInEnvoy => 5,
        Refusal::NoDestination => 6,
        Refusal::UnknownRealm { .. } => 7,
        Refusal::ForgeryNeedsSpy => 8,
        Refusal::ForgeryNeedsClaimedSender => 9,
        Refusal::ForgeryCarriesNoGoods => 10,
        Refusal::Mission(_) => 11,
        Refusal::NoSpies => 12,
        Refusal::EvilCannotBeSpied => 13,
        Refusal::InvitationNotYourLand { .. } => 14,
        Refusal::RevealOutsideWindow { .. } => 15,
        Refusal::RevealUsed => 16,
        Refusal::UnknownSpell { .. } => 17,
        Refusal::BadHomeInvitation { .. } => 18,
        Refusal::NoSuchGroup { .. } => 19,
        Refusal::AlreadyHome { .. } => 20,
    }
}
const COURIER_REFUSALS: usize = 21;

fn shortage_index(s: &Shortage) -> usize {
    match s {
        Shortage::Resources { .. } => 0,
        Shortage::Units { .. } => 1,
        Shortage::Ships { .. } => 2,
        Shortage::Vp { .. } => 3,
        Shortage::NotYourCity { .. } => 4,
        Shortage::CapitalOrHarbour { .. } => 5,
        Shortage::NotABorderSquare { .. } => 6,
        Shortage::BuyerHasNoCapital => 7,
        Shortage::BuyerHasNoHarbour => 8,
        Shortage::BuyerPopulationCap { .. } => 9,
        Shortage::BuyerShipCap { .. } => 10,
        Shortage::BuyerElementalCap { .. } => 11,
        Shortage::BuyerArmyGroupCap { .. } => 12,
    }
}
const SHORTAGES: usize = 13;

fn trailer_index(k: &TrailerErrorKind) -> usize {
    match k {
        TrailerErrorKind::UnknownGood { .. } => 0,
        TrailerErrorKind::MissingAmount { .. } => 1,
        TrailerErrorKind::ZeroAmount { .. } => 2,
        TrailerErrorKind::BadSquare { .. } => 3,
        TrailerErrorKind::UnexpectedLine => 4,
        TrailerErrorKind::EmptyDirective => 5,
        TrailerErrorKind::TooLarge { .. } => 6,
    }
}
const TRAILER_ERRORS: usize = 7;

fn mission_index(k: &MissionErrorKind) -> usize {
    match k {
        MissionErrorKind::Missing => 0,
        MissionErrorKind::Unknown => 1,
        MissionErrorKind::NoCity => 2,
        MissionErrorKind::UnknownFilter => 3,
    }
}
const MISSION_ERRORS: usize = 4;

fn mail_index(r: &MailRefusal) -> usize {
    match r {
        MailRefusal::NoSubject => 0,
        MailRefusal::BadSubject { .. } => 1,
        MailRefusal::WrongSender { .. } => 2,
        MailRefusal::EmptyBody { .. } => 3,
        MailRefusal::TooLarge { .. } => 4,
        MailRefusal::ReplyNotEnvoy { .. } => 5,
    }
}
const MAIL_REFUSALS: usize = 6;

fn subject_index(e: &SubjectError) -> usize {
    match e {
        SubjectError::Empty => 0,
        SubjectError::UnknownSender { .. } => 1,
        SubjectError::UnknownDestination { .. } => 2,
        SubjectError::SameRealm { .. } => 3,
        SubjectError::UnknownKind { .. } => 4,
    }
}
const SUBJECT_ERRORS: usize = 5;

fn line_error_index(e: &ErrorKind) -> usize {
    match e {
        ErrorKind::UnknownKeyword { .. } => 0,
        ErrorKind::Missing { .. } => 1,
        ErrorKind::Bad { .. } => 2,
        ErrorKind::Extra { .. } => 3,
        ErrorKind::SpellTarget { .. } => 4,
        ErrorKind::SpyByMail => 5,
        ErrorKind::TooLong { .. } => 6,
    }
}
const LINE_ERRORS: usize = 7;

fn form_refusal_index(r: &FR) -> usize {
    match r {
        FR::Syntax(_) => 0,
        FR::NotInGame => 1,
        FR::Stock { .. } => 2,
        FR::NotOwnCity { .. } => 3,
        FR::OffMap { .. } => 4,
        FR::NoSuchGroup { .. } => 5,
        FR::UnknownRealm { .. } => 6,
        FR::OwnRealm { .. } => 7,
        FR::PopulationCap { .. } => 8,
        FR::PositionCap { .. } => 9,
        FR::Twice { .. } => 10,
        FR::NoCoastalCity => 11,
        FR::ShipyardNotCoastal { .. } => 12,
        FR::HarbourNotCoastal { .. } => 13,
        FR::NotResearched { .. } => 14,
        FR::NoResearchCost { .. } => 15,
        FR::NoCity => 16,
        FR::DemonsOnlyForTheEvil => 17,
        FR::WallCap { .. } => 18,
        FR::NotOwnLand { .. } => 19,
        FR::CityExists { .. } => 20,
        FR::CityProduction { .. } => 21,
        FR::PositionOncePerRound => 22,
        FR::FiveCrystals => 23,
        FR::ProductionOncePerRound => 24,
        FR::StepLimit { .. } => 25,
        FR::ConvertToProduced => 26,
        FR::SpellCast { .. } => 27,
        FR::NoCityToCastOn { .. } => 28,
        FR::TeleportToLand { .. } => 29,
        FR::CameByInvitation => 30,
        FR::TooFar { .. } => 31,
        FR::NotAdjacent { .. } => 32,
        FR::FleetFull { .. } => 33,
        FR::NotAboard { .. } => 34,
        FR::MergeWithItself => 35,
        FR::SplitPieces => 36,
        FR::ReorderAll => 37,
        FR::AlreadyMoving => 38,
        FR::OwnCityAttacked { .. } => 39,
        FR::ChooseOutcome => 40,
        FR::NoCityToTake { .. } => 41,
        FR::Waves => 42,
        FR::NoInvitation { .. } => 43,
        FR::AlreadyHome => 44,
        FR::NoFreeMerchant => 45,
        FR::BidTooLow { .. } => 46,
        FR::HasEngineers => 47,
        FR::EngineersPrice { .. } => 48,
        FR::NeedsEngineers => 49,
        FR::AlreadyResearched => 50,
        FR::NoVoteThisRound => 51,
        FR::EvilTakesNoVote => 52,
        FR::NotTheRuler => 53,
        FR::BenefitChosen => 54,
        FR::NoReward { .. } => 55,
        FR::RewardNotProduced { .. } => 56,
        FR::RewardWorth { .. } => 57,
        FR::TooManyPlaced { .. } => 58,
        FR::Earlier { .. } => 59,
        FR::NotRead { .. } => 60,
        FR::NoSpiesForTheEvil => 61,
        FR::EvilBuildsOnlyDemons => 62,
        FR::RevealUsedByMail => 63,
        FR::CalledHome => 64,
        FR::NoSeat { .. } => 65,
        FR::SeatInOtherDimension { .. } => 66,
        FR::SplitLeavesCargo { .. } => 67,
    }
}
const FORM_REFUSALS: usize = 68;

fn arg_index(a: Arg) -> usize {
    match a {
        Arg::Count => 0,
        Arg::Square => 1,
        Arg::Thing => 2,
        Arg::Resource => 3,
        Arg::Spell => 4,
        Arg::Position => 5,
        Arg::Group => 6,
        Arg::Army => 7,
        Arg::Fleet => 8,
        Arg::Realm => 9,
        Arg::Target => 10,
        Arg::Outcome => 11,
        Arg::Researchable => 12,
        Arg::Path => 13,
        Arg::Pieces => 14,
        Arg::BuySell => 15,
        Arg::Benefit => 16,
        Arg::Reward => 17,
    }
}
const ARGS: [Arg; 18] = [
    Arg::Count,
    Arg::Square,
    Arg::Thing,
    Arg::Resource,
    Arg::Spell,
    Arg::Position,
    Arg::Group,
    Arg::Army,
    Arg::Fleet,
    Arg::Realm,
    Arg::Target,
    Arg::Outcome,
    Arg::Researchable,
    Arg::Path,
    Arg::Pieces,
    Arg::BuySell,
    Arg::Benefit,
    Arg::Reward,
];

fn shape_index(s: TargetShape) -> usize {
    match s {
        TargetShape::NoTarget => 0,
        TargetShape::Realm => 1,
        TargetShape::City => 2,
        TargetShape::Army => 3,
        TargetShape::Fleet => 4,
        TargetShape::ArmyOrFleet => 5,
        TargetShape::RealmOrGroup => 6,
        TargetShape::ArmyAndSquare => 7,
        TargetShape::Square => 8,
        TargetShape::SpellOrNothing => 9,
    }
}
const SHAPES: [TargetShape; 10] = [
    TargetShape::NoTarget,
    TargetShape::Realm,
    TargetShape::City,
    TargetShape::Army,
    TargetShape::Fleet,
    TargetShape::ArmyOrFleet,
    TargetShape::RealmOrGroup,
    TargetShape::ArmyAndSquare,
    TargetShape::Square,
    TargetShape::SpellOrNothing,
];

const MAIL_KINDS: [MailKind; 5] = [
    MailKind::Envoy,
    MailKind::Merchant,
    MailKind::Spy,
    MailKind::Form,
    MailKind::ToGm,
];

fn kind_index(k: MailKind) -> usize {
    match k {
        MailKind::Envoy => 0,
        MailKind::Merchant => 1,
        MailKind::Spy => 2,
        MailKind::Form => 3,
        MailKind::ToGm => 4,
    }
}

const WINDOWS: [Window; 3] = [Window::Weekday, Window::Weekend, Window::Closed];

fn charge_index(c: Charge) -> usize {
    match c {
        Charge::Envoy => 0,
        Charge::Merchant => 1,
        Charge::Reveal => 2,
    }
}
const CHARGES: [Charge; 3] = [Charge::Envoy, Charge::Merchant, Charge::Reveal];

/// Fail unless `indices` covers `0..n`.
fn assert_covers(what: &str, indices: impl IntoIterator<Item = usize>, n: usize) {
    let got: BTreeSet<usize> = indices.into_iter().collect();
    let missing: Vec<usize> = (0..n).filter(|i| !got.contains(i)).collect();
    assert!(
        missing.is_empty(),
        "{what}: no sample for variant(s) {missing:?}"
    );
}

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

fn res(r: Resource, n: u32) -> Resources {
    let mut x = Resources::ZERO;
    *x.get_mut(r) = n;
    x
}

fn shortages() -> Vec<Shortage> {
    let mut v = vec![
        Shortage::Resources {
            lacks: res(Resource::Hastar, 1),
        },
        Shortage::Resources {
            lacks: res(Resource::Guld, 4294967295),
        },
        Shortage::NotYourCity {
            city: "Kustby".into(),
        },
        Shortage::CapitalOrHarbour {
            city: "Kustby".into(),
        },
        Shortage::NotABorderSquare { square: sq("K5") },
        Shortage::BuyerHasNoCapital,
        Shortage::BuyerHasNoHarbour,
    ];
    for (want, have) in [(1, 0), (2, 1), (5, 3)] {
        v.push(Shortage::Units {
            kind: UnitKind::LattInfanteri,
            want,
            have,
        });
        v.push(Shortage::Ships {
            kind: ShipKind::Transportskepp,
            want,
            have,
        });
        v.push(Shortage::Vp { want, have });
        v.push(Shortage::BuyerPopulationCap {
            cap: have,
            would_have: want,
        });
        v.push(Shortage::BuyerShipCap {
            cap: have,
            would_have: want,
        });
        v.push(Shortage::BuyerElementalCap {
            cap: have,
            would_have: want,
        });
        v.push(Shortage::BuyerArmyGroupCap { cap: have });
    }
    v
}

fn trailer_kinds() -> Vec<TrailerErrorKind> {
    vec![
        TrailerErrorKind::UnknownGood {
            item: "7 drakar".into(),
        },
        TrailerErrorKind::MissingAmount {
            item: "sten".into(),
        },
        TrailerErrorKind::ZeroAmount {
            item: "0 sten".into(),
        },
        TrailerErrorKind::BadSquare { item: "Q99".into() },
        TrailerErrorKind::UnexpectedLine,
        TrailerErrorKind::EmptyDirective,
        TrailerErrorKind::TooLarge {
            item: "4294967295 guld".into(),
            max: 1_000_000,
        },
    ]
}

fn mission_kinds() -> Vec<MissionErrorKind> {
    vec![
        MissionErrorKind::Missing,
        MissionErrorKind::Unknown,
        MissionErrorKind::NoCity,
        MissionErrorKind::UnknownFilter,
    ]
}

fn courier_refusals() -> Vec<Refusal> {
    let mut v = Vec::new();
    for kind in MAIL_KINDS {
        for needed in WINDOWS {
            v.push(Refusal::OutsideWindow {
                kind,
                needed,
                held: Window::Closed,
            });
        }
    }
    for charge in CHARGES {
        v.push(Refusal::CannotPay {
            charge,
            price: Spell::Avsloja.cost(),
            lacks: res(Resource::Hastar, 1),
        });
    }
    v.push(Refusal::GoodsNotHeld {
        shortages: shortages(),
    });
    for kind in trailer_kinds() {
        v.push(Refusal::Trailer(TrailerError {
            kind,
            line: "Skickar: något konstigt".into(),
        }));
    }
    for kind in mission_kinds() {
        for line in ["", "Uppdrag: 11"] {
            v.push(Refusal::Mission(MissionError {
                kind: kind.clone(),
                line: line.into(),
            }));
        }
    }
    v.extend([
        Refusal::NoTrailer,
        Refusal::ExpectsInEnvoy,
        Refusal::NoDestination,
        Refusal::UnknownRealm {
            name: "Atlantis".into(),
        },
        Refusal::ForgeryNeedsSpy,
        Refusal::ForgeryNeedsClaimedSender,
        Refusal::ForgeryCarriesNoGoods,
        Refusal::NoSpies,
        Refusal::EvilCannotBeSpied,
        Refusal::InvitationNotYourLand { square: sq("A1") },
        Refusal::RevealOutsideWindow {
            held: Window::Weekend,
        },
        Refusal::RevealUsed,
        Refusal::UnknownSpell {
            line: "Avslöja: Blixt".into(),
        },
        Refusal::BadHomeInvitation {
            line: "Hembjudan: alla".into(),
        },
        Refusal::NoSuchGroup { army: true, id: 9 },
        Refusal::NoSuchGroup { army: false, id: 1 },
        Refusal::AlreadyHome { army: true, id: 2 },
        Refusal::AlreadyHome { army: false, id: 1 },
    ]);
    v
}

fn subject_errors() -> Vec<SubjectError> {
    vec![
        SubjectError::Empty,
        SubjectError::UnknownSender { word: "".into() },
        SubjectError::UnknownSender {
            word: "Atlantis".into(),
        },
        SubjectError::UnknownDestination { word: "".into() },
        SubjectError::UnknownDestination {
            word: "Atlantis".into(),
        },
        SubjectError::SameRealm {
            realm: "Mirandel".into(),
        },
        SubjectError::UnknownKind {
            subject: "hej".into(),
        },
    ]
}

fn mail_refusals() -> Vec<MailRefusal> {
    let mut v = vec![
        MailRefusal::NoSubject,
        MailRefusal::WrongSender {
            subject_realm: "Afani".into(),
        },
        MailRefusal::TooLarge {
            size: 70_000_000,
            limit: 1_048_576,
        },
        MailRefusal::ReplyNotEnvoy {
            from: "Genogien".into(),
            to: "Afani".into(),
        },
    ];
    v.extend(MAIL_KINDS.map(|kind| MailRefusal::EmptyBody { kind }));
    v.extend(
        subject_errors()
            .into_iter()
            .map(|error| MailRefusal::BadSubject {
                subject: "Mirandel skickar ett sändebud till Mirandel".into(),
                error,
            }),
    );
    v
}

fn line_errors() -> Vec<ErrorKind> {
    let mut v = vec![
        ErrorKind::UnknownKeyword {
            word: "SPRÄNG".into(),
        },
        ErrorKind::Extra {
            found: "i morgon".into(),
        },
        ErrorKind::SpyByMail,
        ErrorKind::TooLong { max: 1000 },
    ];
    for what in ARGS {
        v.push(ErrorKind::Missing { what });
        v.push(ErrorKind::Bad {
            what,
            found: "xyz".into(),
        });
    }
    for shape in SHAPES {
        v.push(ErrorKind::SpellTarget {
            spell: Spell::Avsloja,
            shape,
        });
    }
    v
}

fn form_refusals() -> Vec<FR> {
    let mut v = Vec::new();
    for kind in line_errors() {
        let mut orders: Vec<_> = ORDER_TABLE.iter().map(|s| Some(s.kind)).collect();
        orders.push(None);
        for order in orders {
            v.push(FR::Syntax(LineError {
                line: "KÖP 3 xyz".into(),
                kind: kind.clone(),
                order,
            }));
        }
    }
    v.push(FR::NotRead { max: 1000 });
    v.extend(rule_refusals());
    v
}

/// One sample (or more) of every form refusal that cites a rule.
fn rule_refusals() -> Vec<FR> {
    use pbemd::forms::refusal::{Capped, Once};
    use pbemd::game::orders::Group;
    use pbemd::game::state::Researched;
    let mut v = vec![
        FR::NotInGame,
        FR::Stock {
            cost: res(Resource::Guld, 3),
            short: res(Resource::Guld, 1),
        },
        FR::NotOwnCity { square: sq("B2") },
        FR::OffMap { square: sq("Z9") },
        FR::NoSuchGroup {
            group: Group::Army(3),
        },
        FR::NoSuchGroup {
            group: Group::Fleet(1),
        },
        FR::PopulationCap {
            counted: 1,
            n: 2,
            cap: 2,
        },
        FR::NoCoastalCity,
        FR::ShipyardNotCoastal { square: sq("B2") },
        FR::HarbourNotCoastal { square: sq("B2") },
        FR::SeatInOtherDimension { square: sq("B2") },
        FR::NoCity,
        FR::DemonsOnlyForTheEvil,
        FR::NoSpiesForTheEvil,
        FR::EvilBuildsOnlyDemons,
        FR::WallCap {
            city: sq("B2"),
            have: 2,
            count: 2,
            cap: 3,
        },
        FR::NotOwnLand { square: sq("C3") },
        FR::CityExists { square: sq("B2") },
        FR::CityProduction {
            standard: vec![Resource::Mat, Resource::Jarn],
        },
        FR::PositionOncePerRound,
        FR::FiveCrystals,
        FR::ProductionOncePerRound,
        FR::StepLimit { max: 1 },
        FR::StepLimit { max: 2 },
        FR::ConvertToProduced,
        FR::SpellCast {
            spell: Spell::Avsloja,
        },
        FR::NoCityToCastOn { square: sq("C3") },
        FR::TeleportToLand { square: sq("A1") },
        FR::RevealUsedByMail,
        FR::CameByInvitation,
        FR::TooFar {
            steps: 1,
            points: 1,
        },
        FR::TooFar {
            steps: 3,
            points: 2,
        },
        FR::NotAdjacent {
            from: sq("B2"),
            to: sq("D4"),
        },
        FR::FleetFull { cap: 1, aboard: 1 },
        FR::FleetFull { cap: 6, aboard: 5 },
        FR::SplitLeavesCargo { cap: 5, aboard: 6 },
        FR::SplitLeavesCargo { cap: 1, aboard: 2 },
        FR::NotAboard { army: 2 },
        FR::MergeWithItself,
        FR::SplitPieces,
        FR::ReorderAll,
        FR::AlreadyMoving,
        FR::OwnCityAttacked { square: sq("B2") },
        FR::ChooseOutcome,
        FR::NoCityToTake { square: sq("C3") },
        FR::Waves,
        FR::NoInvitation {
            from: "Afani".into(),
        },
        FR::AlreadyHome,
        FR::CalledHome,
        FR::NoSeat { army: true },
        FR::NoSeat { army: false },
        FR::NoFreeMerchant,
        FR::BidTooLow {
            value: 3,
            min: 10,
            offer: res(Resource::Eld, 1).plus(&res(Resource::Mat, 1)),
            doubled: true,
            penalty: 5,
        },
        FR::HasEngineers,
        FR::EngineersPrice { price: 30 },
        FR::NeedsEngineers,
        FR::AlreadyResearched,
        FR::NoVoteThisRound,
        FR::EvilTakesNoVote,
        FR::NotTheRuler,
        FR::BenefitChosen,
        FR::NoReward { next: 20 },
        FR::RewardNotProduced {
            resource: Resource::Guld,
        },
        FR::RewardWorth { worth: 24 },
        FR::TooManyPlaced {
            kind: UnitKind::TungtKavalleri,
            waiting: 1,
        },
        FR::TooManyPlaced {
            kind: UnitKind::LattInfanteri,
            waiting: 3,
        },
        FR::Earlier {
            rule: "R-CITY-1".into(),
            sv: "staden är inte din".into(),
            en: "the city is not yours".into(),
        },
    ];
    for order in ORDER_TABLE.iter().map(|s| s.kind) {
        v.push(FR::UnknownRealm {
            name: "Narnia".into(),
            order,
        });
        v.push(FR::OwnRealm { order });
    }
    for what in [
        Capped::Ships,
        Capped::Spies,
        Capped::Elementals,
        Capped::ArmyGroups,
    ] {
        v.push(FR::PositionCap {
            what,
            have: 1,
            n: 1,
            cap: 1,
        });
    }
    for what in [
        Once::Bid,
        Once::Engineers,
        Once::Research,
        Once::Vote,
        Once::Wishes,
        Once::Benefit,
    ] {
        v.push(FR::Twice { what });
    }
    for what in [Researched::Fregatt, Researched::BeridnaBagskyttar] {
        v.push(FR::NotResearched { what });
        v.push(FR::NoResearchCost { what });
    }
    v
}

/// Every refusal that cites a rule cites a real one (a row of the rule
/// reference) and gives a reason in both languages.
#[test]
fn every_form_refusal_cites_a_rule_of_the_reference_and_gives_a_reason() {
    let reference = include_str!("../docs/rules.md");
    for r in rule_refusals() {
        let rule = r.rule().expect("a rule refusal cites its rule");
        assert!(
            reference.contains(&format!("| {rule} |")),
            "{r:?} cites {rule}, which has no row in docs/rules.md"
        );
        for lang in [Lang::Sv, Lang::En] {
            let text = r.text(lang);
            let reason = text.trim_end_matches(&format!(" ({rule})"));
            assert!(
                reason.chars().any(char::is_alphabetic),
                "{r:?} has no reason in {lang:?}: {text:?}"
            );
        }
    }
}

/// A self-vote is refused under the voting rule, not a made-up one.
#[test]
fn r_vote_2_a_vote_for_oneself_cites_the_voting_rule() {
    let mut gs = demo();
    gs.round = 4;
    let c = pbemd::forms::check(&gs, "Genogien", &[(1, "RÖST Genogien".to_string())]);
    let r = c.lines[0].refusal.as_ref().expect("refused");
    assert_eq!(r.rule(), Some("R-VOTE-2"));
    assert!(
        r.text(Lang::Sv).ends_with("(R-VOTE-2)"),
        "{}",
        r.text(Lang::Sv)
    );
}

#[test]
fn samples_cover_every_variant_of_every_refusal_type() {
    let courier = courier_refusals();
    assert_covers(
        "courier::Refusal",
        courier.iter().map(courier_index),
        COURIER_REFUSALS,
    );
    assert_covers(
        "Shortage",
        shortages().iter().map(shortage_index),
        SHORTAGES,
    );
    assert_covers(
        "TrailerErrorKind",
        trailer_kinds().iter().map(trailer_index),
        TRAILER_ERRORS,
    );
    assert_covers(
        "MissionErrorKind",
        mission_kinds().iter().map(mission_index),
        MISSION_ERRORS,
    );
    assert_covers(
        "mail Refusal",
        mail_refusals().iter().map(mail_index),
        MAIL_REFUSALS,
    );
    assert_covers(
        "SubjectError",
        subject_errors().iter().map(subject_index),
        SUBJECT_ERRORS,
    );
    assert_covers(
        "forms ErrorKind",
        line_errors().iter().map(line_error_index),
        LINE_ERRORS,
    );
    assert_covers(
        "forms Refusal",
        form_refusals().iter().map(form_refusal_index),
        FORM_REFUSALS,
    );
    assert_covers("Arg", ARGS.map(arg_index), ARGS.len());
    assert_covers("TargetShape", SHAPES.map(shape_index), SHAPES.len());
    assert_covers("MailKind", MAIL_KINDS.map(kind_index), MAIL_KINDS.len());
    assert_covers("Charge", CHARGES.map(charge_index), CHARGES.len());
}

// ---------------------------------------------------------------- the texts

fn both(f: impl Fn(Lang) -> String) -> Vec<(Lang, String)> {
    vec![(Lang::Sv, f(Lang::Sv)), (Lang::En, f(Lang::En))]
}

#[test]
fn every_courier_refusal_is_in_the_realms_language() {
    let r = Renderer::new().unwrap();
    let mut texts = Vec::new();
    for refusal in courier_refusals() {
        texts.extend(both(|lang| {
            let next = match lang {
                Lang::Sv => "måndag 30 november 2026 12:00",
                Lang::En => "Monday 30 November 2026 12:00",
            };
            let reason = refusal.explain(lang, Some(next));
            let data = serde_json::json!({"realm": "Afani", "subject": "x", "reason": reason});
            r.render("refusal", lang, &data).unwrap()
        }));
    }
    assert_clean(&texts);
}

#[test]
fn every_mail_refusal_is_in_the_realms_language() {
    let mut texts = Vec::new();
    for refusal in mail_refusals() {
        texts.extend(both(|lang| refusal.explain_for(lang, Some("Afani"))));
        texts.extend(both(|lang| refusal.explain(lang)));
    }
    assert_clean(&texts);
}

#[test]
fn every_form_refusal_is_in_the_realms_language() {
    let mut texts = Vec::new();
    for refusal in form_refusals() {
        texts.extend(both(|lang| refusal.text(lang)));
    }
    assert_clean(&texts);
}

fn demo() -> GameState {
    pbemd::game::load_scenario(include_str!("../scenarios/demo.yaml")).unwrap()
}

/// Forms with 0, 1 and 2 accepted orders and 0, 1 and 2 refused ones.
fn forms() -> Vec<&'static str> {
    vec![
        "",
        "VÄN Afani",
        "VÄN Afani\nVÄN Kaldor",
        "SPRÄNG allt",
        "VÄN Afani\nSPRÄNG allt\nSPRÄNG mer",
    ]
}

#[test]
fn every_form_receipt_is_in_the_realms_language_and_counts_agree() {
    let gs = demo();
    let realm = "Genogien";
    let r = Renderer::new().unwrap();
    let mut texts = Vec::new();
    for form in forms() {
        let text = format!(
            "{}\n{form}\n{}\n",
            pbemd::forms::extract::START_MARKER,
            pbemd::forms::extract::END_MARKER
        );
        let checked = pbemd::forms::read_form(&gs, realm, &text, &[]);
        texts.extend(both(|lang| {
            let deadline = match lang {
                Lang::Sv => "söndag 15:00",
                Lang::En => "Sunday 15:00",
            };
            let receipt = pbemd::forms::receipt_text(&checked, lang, deadline);
            let data = serde_json::json!({
                "realm": realm, "round": 1, "received": "x", "replaces": "y",
                "receipt": receipt, "deadline": "z",
            });
            r.render("form_receipt", lang, &data).unwrap()
        }));
    }
    assert_clean(&texts);
    let all: String = texts.iter().map(|(_, t)| t.as_str()).collect();
    for wrong in ["1 order godkända", "1 orders accepted", "1 avvisade"] {
        assert!(!all.contains(wrong), "`{wrong}` in:\n{all}");
    }
    for right in [
        "1 order godkänd,",
        "2 order godkända",
        "1 order accepted",
        "2 orders accepted",
        "1 avvisad.",
    ] {
        assert!(all.contains(right), "no `{right}` in:\n{all}");
    }
}

#[test]
fn every_courier_receipt_is_in_the_realms_language_and_counts_agree() {
    let r = Renderer::new().unwrap();
    let mut texts = Vec::new();
    use pbemd::courier::batch::Then;
    let thens = [
        Then::NotTold,
        Then::SpyReport { stationed: false },
        Then::SpyReport { stationed: true },
        Then::FreeSpyReport { stationed: false },
        Then::FreeSpyReport { stationed: true },
        Then::RevealResult,
        Then::HomeInvitation,
    ];
    for (kind, then) in MAIL_KINDS.into_iter().flat_map(|k| thens.map(|t| (k, t))) {
        for (free, left, spies) in [(true, 0, None), (true, 1, Some(1)), (false, 2, Some(2))] {
            let mut goods = pbemd::courier::Goods {
                resources: res(Resource::Hastar, 1),
                vp: 1,
                ..Default::default()
            };
            goods.units.insert(UnitKind::LattInfanteri, 1);
            let receipt = Receipt {
                kind,
                to: Some("Afani".into()),
                charged: res(Resource::Hastar, 1),
                free,
                allowance_left: left,
                stock_after: res(Resource::Slavar, 1),
                goods: Some(goods),
                spies_left: spies,
                then,
            };
            texts.extend(both(|lang| {
                let data = pbemd::app::courier::receipt_data(&receipt, "Genogien", lang);
                r.render("courier_receipt", lang, &data).unwrap()
            }));
        }
    }
    assert_clean(&texts);
    let all: String = texts.iter().map(|(_, t)| t.as_str()).collect();
    for wrong in [
        "1 hästar",
        "1 horses",
        "1 slavar",
        "1 slaves",
        "1 victory points",
        "1 fria",
    ] {
        assert!(!all.contains(wrong), "`{wrong}` in:\n{all}");
    }
    assert!(all.contains("1 häst") && all.contains("1 horse"), "{all}");
}

#[test]
fn a_subject_naming_one_realm_twice_says_so_without_self_reference() {
    let e = MailRefusal::BadSubject {
        subject: "Mirandel skickar ett sändebud till Mirandel".into(),
        error: SubjectError::SameRealm {
            realm: "Mirandel".into(),
        },
    };
    let sv = e.explain(Lang::Sv);
    assert!(
        !sv.contains("självt") && sv.contains("både som avsändare och som mottagare"),
        "{sv}"
    );
    let en = e.explain(Lang::En);
    assert!(
        !en.contains("itself") && en.contains("both sender and receiver"),
        "{en}"
    );
}

// ---------------------------------------------------------------- spy reports

use pbemd::courier::mission::{ArmyIntel, FleetIntel};
use pbemd::courier::{Intel, SpyResult};

fn intel_index(i: &Intel) -> usize {
    match i {
        Intel::Resources { .. } => 0,
        Intel::City { .. } => 1,
        Intel::Armies { .. } => 2,
        Intel::Positions { .. } => 3,
        Intel::Contacts { .. } => 4,
        Intel::VictoryPoints { .. } => 5,
        Intel::WhoVoted { .. } => 6,
        Intel::ForeignTroops { .. } => 7,
    }
}
const INTELS: usize = 8;

fn army(total: u32) -> ArmyIntel {
    ArmyIntel {
        owner: "Kaldor".into(),
        id: 2,
        square: sq("C3"),
        units: [(UnitKind::LattInfanteri, total)].into_iter().collect(),
        total,
    }
}

fn fleet(cargo: Vec<u32>) -> FleetIntel {
    FleetIntel {
        owner: "Kaldor".into(),
        id: 1,
        square: sq("D2"),
        ships: [(ShipKind::Transportskepp, 1)].into_iter().collect(),
        cargo,
    }
}

fn intels() -> Vec<Intel> {
    let mut v = vec![
        Intel::Resources {
            realm: "Kaldor".into(),
            stock: res(Resource::Hastar, 1),
            production: res(Resource::Slavar, 2),
        },
        Intel::Positions {
            realm: "Kaldor".into(),
            positions: Default::default(),
        },
        Intel::WhoVoted {
            round: None,
            voters: vec![],
        },
        Intel::WhoVoted {
            round: Some(2),
            voters: vec!["Afani".into()],
        },
    ];
    for n in [0u32, 1, 2] {
        let armies: Vec<_> = (1..=n).map(army).collect();
        let fleets: Vec<_> = (0..n).map(|i| fleet((0..i).collect())).collect();
        v.push(Intel::City {
            square: sq("C3"),
            name: "Kustby".into(),
            owner: "Kaldor".into(),
            population: n * 10,
            walls: n,
            production: res(Resource::Hastar, n),
            armies: armies.clone(),
            fleets: fleets.clone(),
        });
        v.push(Intel::Armies {
            realm: "Kaldor".into(),
            armies: armies.clone(),
            fleets,
        });
        v.push(Intel::Contacts {
            realm: "Kaldor".into(),
            with: (0..n).map(|_| "Afani".to_string()).collect(),
        });
        v.push(Intel::VictoryPoints {
            realm: "Kaldor".into(),
            vp: n.into(),
            mission: "K5".into(),
        });
        v.push(Intel::ForeignTroops { armies });
    }
    v
}

fn spy_result_index(r: &SpyResult) -> usize {
    match r {
        SpyResult::Learned { .. } => 0,
        SpyResult::Failed => 1,
        SpyResult::EmptyHanded => 2,
        SpyResult::Stationed => 3,
        SpyResult::ForgerySent => 4,
        SpyResult::InterceptionFailed => 5,
    }
}
const SPY_RESULTS: usize = 6;

fn spy_results() -> Vec<SpyResult> {
    let mut v = vec![
        SpyResult::Failed,
        SpyResult::EmptyHanded,
        SpyResult::Stationed,
        SpyResult::ForgerySent,
        SpyResult::InterceptionFailed,
    ];
    v.extend(
        intels()
            .into_iter()
            .map(|intel| SpyResult::Learned { intel }),
    );
    v
}

#[test]
fn every_spy_report_is_in_the_realms_language_and_counts_agree() {
    assert_covers("Intel", intels().iter().map(intel_index), INTELS);
    let samples = spy_results();
    assert_covers(
        "SpyResult",
        samples.iter().map(spy_result_index),
        SPY_RESULTS,
    );
    let r = Renderer::new().unwrap();
    let mut texts = Vec::new();
    for result in &samples {
        texts.extend(both(|lang| {
            let lines = pbemd::courier::text::spy_report_lines(result, lang);
            let data = serde_json::json!({
                "realm": "Afani", "mission": 3, "target": "Kaldor", "lines": lines,
            });
            r.render("spy_report", lang, &data).unwrap()
        }));
    }
    assert_clean(&texts);
    let all: String = texts.iter().map(|(_, t)| t.as_str()).collect();
    for wrong in [
        "(1 units)",
        "(1 enheter)",
        "1 victory points",
        "1 horses",
        "1 hästar",
    ] {
        assert!(!all.contains(wrong), "`{wrong}` in:\n{all}");
    }
}

#[test]
fn r_move_1_refusal_counts_agree_with_their_nouns() {
    let gs = demo();
    let c = pbemd::forms::check(&gs, "Genogien", &[(1, "FLYTTA armé 1: B3 B4".to_string())]);
    let refusal = c.lines[0].refusal.as_ref().expect("too far for army 1");
    let en = refusal.text(Lang::En);
    assert!(en.contains("2 steps but only 1 movement point "), "{en}");
    let sv = refusal.text(Lang::Sv);
    assert!(sv.contains("2 steg men bara 1 förflyttningspoäng"), "{sv}");
}

#[test]
fn every_absence_and_replacement_text_is_in_the_realms_language() {
    use pbemd::render::season_realms as s;
    let mut texts = Vec::new();
    for (weekends, to_round, reuse_last, cap) in [(1, 3, false, 2), (2, 4, true, 0)] {
        texts.extend(both(|lang| {
            let deadlines = match lang {
                Lang::Sv => vec!["söndag 6 december 2026 15:00".to_string()],
                Lang::En => vec!["Sunday 6 December 2026 15:00".to_string()],
            };
            let r = s::AbsenceReceipt {
                realm: "Afani",
                weekends,
                from_round: 3,
                to_round,
                deadlines: &deadlines,
                reuse_last,
                used: 1,
                cap: 2,
            };
            s::absence_receipt(lang, &r)
        }));
        texts.extend(both(|lang| {
            s::absence_beyond_cap(lang, "Afani to GM: absence 2", cap)
        }));
    }
    texts.extend(both(|lang| {
        s::absence_refusal(lang, "Afani", "frånvaro två", 3)
    }));
    for player in [Some("Eva"), None] {
        texts.extend(both(|lang| s::welcome(lang, "Afani", player)));
    }
    for added in [true, false] {
        texts.extend(both(|lang| {
            s::address_changed(lang, "Afani", "eva@new.example", added)
        }));
    }
    assert_clean(&texts);
}

#[test]
fn every_notice_and_resend_text_is_in_the_realms_language_and_counts_agree() {
    use pbemd::app::season_notices::notice_subject;
    use pbemd::app::season_notices::resend::{refusal_text, resend_note, NoForm};
    let r = Renderer::new().unwrap();
    let mut texts = Vec::new();
    for why in [NoForm::TooMany(1), NoForm::TooMany(3), NoForm::NoneYet] {
        texts.extend(both(|lang| {
            let data = serde_json::json!({"realm": "Afani", "subject": "x", "reason": refusal_text(lang, why)});
            r.render("refusal", lang, &data).unwrap()
        }));
    }
    texts.extend(both(|lang| {
        let sent = match lang {
            Lang::Sv => "måndag 30 november 2026 12:00",
            Lang::En => "Monday 30 November 2026 12:00",
        };
        resend_note(lang, sent)
    }));
    texts.extend(both(|lang| notice_subject(lang).to_string()));
    texts.extend(both(|lang| {
        let data = serde_json::json!({"notices": ["«the GM's own words»"]});
        r.render("gm_notice", lang, &data).unwrap()
    }));
    assert_clean(&texts);
    assert!(refusal_text(Lang::Sv, NoForm::TooMany(1)).contains("högst 1 gång om dagen"));
    assert!(refusal_text(Lang::En, NoForm::TooMany(1)).contains("at most 1 time a day"));
    assert!(refusal_text(Lang::En, NoForm::TooMany(3)).contains("at most 3 times a day"));
}

#[test]
fn every_calendar_text_is_in_the_realms_language() {
    use pbemd::render::season_calendar as c;
    let when = |lang: Lang| match lang {
        Lang::Sv => "onsdag 2 december 2026 15:00 (Europe/Stockholm)".to_string(),
        Lang::En => "Wednesday 2 December 2026 15:00 (Europe/Stockholm)".to_string(),
    };
    let mut texts = Vec::new();
    for reason in ["«Jul»", ""] {
        texts.extend(both(|lang| c::paused(lang, &when(lang), reason)));
        texts.extend(both(|lang| {
            c::mail_while_paused(lang, "«Afani form»", &when(lang), &when(lang), reason)
        }));
        texts.extend(both(|lang| {
            c::no_game(lang, "21 dec 2026 – 3 jan 2027", reason)
        }));
    }
    texts.extend(both(|lang| c::resumed(lang, &when(lang))));
    for only_you in [false, true] {
        texts.extend(both(|lang| c::extended(lang, &when(lang), only_you)));
    }
    texts.extend(both(|lang| c::late_form_refused(lang, &when(lang), 3)));
    texts.extend(both(|lang| c::subject(lang, "Afani")));
    assert_clean(&texts);
}

#[test]
fn every_site_link_and_wishes_text_is_in_the_realms_language() {
    use pbemd::app::site_links::{form_link_text, link_subject, link_text, not_public_text};
    use pbemd::app::site_player::parse_wishes;
    // The link itself is an address, not prose.
    let url = "«https://game.example.org/…»";
    let until = |lang: Lang| match lang {
        Lang::Sv => "måndag 14 december 2026 12:00 (Europe/Stockholm)",
        Lang::En => "Monday 14 December 2026 12:00 (Europe/Stockholm)",
    };
    let mut texts = Vec::new();
    texts.extend(both(|lang| link_text(lang, "Afani", url, until(lang))));
    texts.extend(both(not_public_text));
    texts.extend(both(|lang| link_subject("Afani", lang)));
    texts.extend(both(|lang| form_link_text(lang, until(lang), url)));
    texts.extend(both(|lang| {
        match parse_wishes(["«x»", "mat"], ["sten", "eld"], lang) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("«x» is no resource"),
        }
    }));
    assert_clean(&texts);
}

#[test]
fn every_sender_check_text_is_in_the_realms_language() {
    use pbemd::render::sender_auth as s;
    let mut texts = Vec::new();
    texts.extend(both(|lang| s::token_note(lang, "Afani", "ABCDE23456")));
    for part in [0, 1] {
        let pick = |p: (String, String)| if part == 0 { p.0 } else { p.1 };
        texts.extend(both(|lang| {
            pick(s::hint(lang, "Afani", "Afani sends an envoy"))
        }));
        texts.extend(both(|lang| pick(s::new_token(lang, "Afani", "ABCDE23456"))));
    }
    assert_clean(&texts);
}

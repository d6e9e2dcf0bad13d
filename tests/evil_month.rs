//! A month with the Evil through the real binary (issue 9, section 6): `pbemd new
//! --scenario scenarios/evil.yaml`, `init`, four weekends of forms mailed into the inbox
//! Maildir and `tick`s across each Sunday deadline to Monday. Genogien's cavalry goes
//! through the portal on B4, takes the treasure on B5 and brings it home to Stenvik; the
//! Evil's demons come through the portal and Genogien's archers slay two of them. The
//! Evil casts Open Portal on E5 in the first weekend (step 2, the magic part of the
//! engine). Read back with `state --json` and the Monday forms in the outbox.

mod common;

#[path = "weekend_common/binary_game.rs"]
mod binary_game;

use binary_game::*;

use pbemd::game::state::Dimension;
use pbemd::game::{GameState, Resource, Square, UnitKind};

/// The four weekends: Saturday, Sunday after the deadline, Monday's results.
const WEEKENDS: [[&str; 3]; 4] = [
    [
        "2026-11-28T10:00:00+01:00",
        "2026-11-29T16:00:00+01:00",
        "2026-11-30T12:00:00+01:00",
    ],
    [
        "2026-12-05T10:00:00+01:00",
        "2026-12-06T16:00:00+01:00",
        "2026-12-07T12:00:00+01:00",
    ],
    [
        "2026-12-12T10:00:00+01:00",
        "2026-12-13T16:00:00+01:00",
        "2026-12-14T12:00:00+01:00",
    ],
    [
        "2026-12-19T10:00:00+01:00",
        "2026-12-20T16:00:00+01:00",
        "2026-12-21T12:00:00+01:00",
    ],
];

const GEN: (&str, &str) = ("genogien@game.test", "Genogien helgformulär");
const EVIL: (&str, &str) = ("ondskan@game.test", "Ondskan helgformulär");

/// Each weekend's forms, earliest first.
const FORMS: [&[((&str, &str), &str)]; 4] = [
    &[
        (GEN, "FLYTTA armé 1: B3\n"),
        (EVIL, "FORMEL öppna portal E5\nFLYTTA armé 1: F6 E6 D6 C6\n"),
    ],
    &[(GEN, "FLYTTA armé 3: B4 B4 B5\n")],
    &[
        (GEN, "FLYTTA armé 3: B4 B4 C4\n"),
        (EVIL, "FLYTTA armé 1: B6 B5 B4 B4\n"),
    ],
    &[(GEN, "ANFALL armé 1 B4\n")],
];

impl Game {
    /// Weekend `n` (0-based): its forms on Saturday, then the deadline and Monday.
    fn weekend(&self, n: usize) {
        for ((from, subject), body) in FORMS[n] {
            self.mail(from, subject, body);
        }
        let [saturday, sunday, monday] = WEEKENDS[n];
        self.tick(saturday);
        self.tick(sunday);
        self.tick(monday);
    }
}

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

fn demons(gs: &GameState) -> usize {
    gs.armies_of("Ondskan")
        .flat_map(|a| a.units.iter())
        .filter(|u| u.kind.is_demon())
        .count()
}

/// The month, weekend by weekend, with what each must show.
#[test]
fn r_evil_a_month_portal_army_through_treasure_home_and_a_demon_slain() {
    let g = Game::start_scenario("evil.yaml");
    g.weekend(0);
    let w1 = g.state();
    assert_eq!(w1.round, 2);
    let evil = w1.army("Ondskan", 1).unwrap();
    assert_eq!((evil.square, evil.dimension), (sq("C6"), Dimension::Evil));

    // Weekend 2: through the portal on B4 onto the treasure on B5.
    g.weekend(1);
    let w2 = g.state();
    let cav = w2.army("Genogien", 3).expect("the cavalry");
    assert_eq!((cav.square, cav.dimension), (sq("B5"), Dimension::Evil));
    let found = cav.treasure.amount();
    assert!(!found.is_zero(), "the seed's d8 is not an 8");
    assert!(!w2.map.get(sq("B5")).unwrap().treasure);
    assert_eq!(w2.map.squares.values().filter(|m| m.treasure).count(), 4);
    let form = g.monday_form("genogien@game.test");
    assert!(form.contains("gick genom portalen på B4"), "{form}");
    assert!(form.contains("fann en skatt på B5"), "{form}");

    // Weekend 3: home to Stenvik with it; the Evil comes through the portal.
    g.weekend(2);
    let w3 = g.state();
    let cav = w3.army("Genogien", 3).expect("the cavalry");
    assert_eq!((cav.square, cav.dimension), (sq("C4"), Dimension::Normal));
    assert!(cav.treasure.is_zero());
    let gen2 = w2.realm("Genogien").unwrap();
    let gen3 = w3.realm("Genogien").unwrap();
    let made = gen3.production(&w3);
    for r in Resource::ALL {
        assert_eq!(
            gen3.stock.get(r),
            gen2.stock.get(r) + made.get(r) + found.get(r),
            "{r:?}: stock + production + treasure"
        );
    }
    let form = g.monday_form("genogien@game.test");
    assert!(form.contains("kom hem till C4 med sin skatt"), "{form}");
    let evil = w3.army("Ondskan", 1).unwrap();
    assert_eq!((evil.square, evil.dimension), (sq("B4"), Dimension::Normal));

    // Weekend 4: Genogien's two archers against none: two lower demons fall before
    // the first round (R-UNIT-2); in round 3 the last lower demon falls and the higher
    // demon is slain and stands on as two lower ones (R-EVIL-10); the Evil holds.
    g.weekend(3);
    let w4 = g.state();
    assert_eq!(demons(&w3), 6, "4 in army 1, 2 in army 2");
    assert_eq!(demons(&w4), 4);
    let kinds: Vec<UnitKind> = w4
        .army("Ondskan", 1)
        .unwrap()
        .units
        .iter()
        .map(|u| u.kind)
        .collect();
    assert_eq!(kinds, [UnitKind::LagreDemon, UnitKind::LagreDemon]);
    assert!(w4.army("Genogien", 1).is_none());
    let form = g.monday_form("ondskan@game.test");
    assert!(
        form.contains("Kvar hos försvararen: 2 lägre demoner"),
        "{form}"
    );
    // The Evil sees the armies near its portal; Genogien sees the Evil there.
    assert!(form.contains("Synligt: Genogiens armé 3 på C4"), "{form}");
    let form = g.monday_form("genogien@game.test");
    assert!(
        form.contains("Det finns en öppen portal på B4 i ert land."),
        "{form}"
    );
    assert!(form.contains("Synligt: Ondskans armé 1 på B4"), "{form}");
}

/// Weekend 1's Open Portal spell (step 2) opens a portal on E5.
#[test]
fn r_evil_15_the_open_portal_spell_opens_a_portal_through_the_binary() {
    let g = Game::start_scenario("evil.yaml");
    g.weekend(0);
    let w1 = g.state();
    let p = w1
        .map
        .get(sq("E5"))
        .unwrap()
        .portal
        .clone()
        .expect("a portal on E5");
    assert_eq!((p.opened_by.as_str(), p.opened_round), ("Ondskan", 1));
}

/// A seed whose round-1 treasure d8 (the weekend's `evil/treasure` dice) is an 8.
fn seed_rolling_8() -> u64 {
    (0u64..)
        .find(|s| pbemd::game::dice::Dice::new(*s, 1, "weekend/evil/treasure").roll(8) == 8)
        .expect("some seed")
}

/// R-EVIL-8: a treasure roll of 8 is mailed to the GM with the results.
#[test]
fn r_evil_8_a_treasure_roll_of_8_is_mailed_to_the_gm() {
    let g = Game::start_scenario("evil.yaml");
    let mut gs = g.state();
    gs.game.seed = seed_rolling_8();
    let i = gs
        .armies
        .iter()
        .position(|a| a.owner == "Genogien" && a.id == 3)
        .unwrap();
    gs.armies[i].square = sq("B5");
    gs.armies[i].dimension = Dimension::Evil;
    g.import_state(&gs);
    let [saturday, sunday, monday] = WEEKENDS[0];
    g.tick(saturday);
    g.tick(sunday);
    g.tick(monday);
    assert!(g.state().army("Genogien", 3).unwrap().treasure.is_zero());
    let gm = g.for_the_gm();
    assert_eq!(gm.len(), 1, "one mail to the GM");
    assert!(
        gm[0]
            .text
            .contains("Treasure for the GM: Genogien's army 3 on B5 rolled 8."),
        "{}",
        gm[0].text
    );
    assert!(gm[0]
        .text
        .contains("Skatt åt spelledaren: Genogiens armé 3 på B5 slog 8."));
}

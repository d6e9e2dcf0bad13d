//! The military steps look groups up through a per-square index (docs/rules.md says
//! nothing about it: it is speed only). These tests hold the engine to the resolutions
//! it gave before the index: the demo, the weekend bench's generated world, and a few
//! hundred seeded random weekends on the demo map with armies, fleets with cargo,
//! friends and invitations, every kind of military order. Each resolution (state,
//! events and rolls) is fingerprinted and compared with `tests/golden/weekend_same.txt`,
//! written before the index existed; a group moved or created without telling the
//! index shows up as a different fingerprint. `UPDATE_GOLDEN=1` rewrites the file
//! (only when a rule change is meant to change the resolutions).

#[path = "weekend_common/military.rs"]
mod common;

#[path = "../benches/common/world.rs"]
mod world;

#[path = "weekend_common/rng.rs"]
mod rng;

use std::path::PathBuf;

use common::*;
use pbemd::game::orders::{Group, Order, Outcome, Piece, Wave};
use pbemd::game::state::{GroupRef, HomeInvitation, Terrain};
use pbemd::game::weekend::{resolve, Orders, Resolution};
use pbemd::game::{GameState, ShipKind, Square, UnitKind};
use rng::Rng;

const REALMS: [&str; 6] = [
    "Genogien", "Afani", "Fugandri", "Kaldor", "Mirandel", "Ostvik",
];
/// Random weekends checked.
const CASES: u64 = 240;

/// FNV-1a over the resolution's JSON.
fn fingerprint(res: &Resolution) -> String {
    let bytes = serde_json::to_vec(res).expect("json");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!(
        "events {} rolls {} armies {} fleets {} {h:016x}",
        res.events.len(),
        res.rolls.len(),
        res.state.armies.len(),
        res.state.fleets.len()
    )
}

fn squares(gs: &GameState, sea: bool) -> Vec<Square> {
    gs.map
        .squares
        .iter()
        .filter(|(_, m)| (m.terrain == Terrain::Sea) == sea)
        .map(|(s, _)| s)
        .collect()
}

/// The demo map crowded: every realm with armies on land, fleets at sea (some with
/// cargo aboard, some in coastal cities), pairs of mutual friends, invitations and
/// home-invitations.
fn crowded(rng: &mut Rng) -> GameState {
    let mut gs = game();
    if rng.below(3) == 0 {
        gs.settings.adjacency = 8;
    }
    let (land, sea) = (squares(&gs, false), squares(&gs, true));
    let coastal: Vec<(String, Square)> = gs
        .cities
        .iter()
        .filter(|c| c.coastal)
        .map(|c| (c.owner.to_string(), c.square))
        .collect();
    let kinds = [
        UnitKind::Veteran,
        UnitKind::LattInfanteri,
        UnitKind::Bagskyttar,
    ];
    for r in REALMS {
        for id in 1..=8u32 {
            let n = 1 + rng.below(4) as u32;
            let mut u = units(
                &[(n, rng.pick(&kinds)), (1, UnitKind::LattInfanteri)],
                false,
            );
            if rng.below(4) == 0 {
                u.extend(units(&[(1, UnitKind::Veteran)], true));
            }
            army(&mut gs, r, id, &rng.pick(&land).to_string(), u);
        }
        for fid in 1..=3u32 {
            let own_port = coastal.iter().find(|(o, _)| o == r).map(|(_, s)| *s);
            let at = match (fid, own_port) {
                (3, Some(p)) => p,
                _ => rng.pick(&sea),
            };
            let mut cargo = Vec::new();
            if fid == 1 {
                let aid = 20 + fid;
                army(
                    &mut gs,
                    r,
                    aid,
                    &at.to_string(),
                    units(&[(2, UnitKind::Veteran)], false),
                );
                cargo.push(aid);
            }
            let kind = rng.pick(&[ShipKind::Transportskepp, ShipKind::Galeas]);
            fleet(
                &mut gs,
                r,
                fid,
                &at.to_string(),
                ships(&[(1 + rng.below(3) as u32, kind)], false),
                &cargo,
            );
        }
    }
    for pair in REALMS.chunks(2) {
        if rng.below(2) == 0 {
            befriend(&mut gs, pair[0], pair[1]);
        }
    }
    for (i, r) in REALMS.iter().enumerate() {
        let at = if rng.below(2) == 0 {
            rng.pick(&land)
        } else {
            rng.pick(&sea)
        };
        invite(&mut gs, r, REALMS[(i + 1) % 6], &at.to_string());
        if rng.below(3) == 0 {
            home(&mut gs, r, rng.below(2) == 0, 1 + rng.below(8) as u32);
        }
    }
    gs
}

fn befriend(gs: &mut GameState, a: &str, b: &str) {
    for (x, y) in [(a, b), (b, a)] {
        if let Some(r) = gs.realm_mut(x) {
            r.friends.push(y.to_string());
        }
    }
}

fn home(gs: &mut GameState, realm: &str, is_army: bool, id: u32) {
    let owner = pbemd::game::Name::from(realm);
    let target = if is_army {
        GroupRef::Army { owner, id }
    } else {
        GroupRef::Fleet { owner, id }
    };
    let hid = gs.next_id;
    gs.next_id += 1;
    gs.home_invitations.push(HomeInvitation {
        id: hid,
        realm: realm.to_string(),
        target,
        sent_round: ROUND,
        valid_until_round: ROUND,
    });
}

/// A walk of 1–4 steps from a random square near the group, or a random square.
fn walk(rng: &mut Rng, gs: &GameState, from: Square) -> Vec<Square> {
    let (w, h) = (gs.map.width, gs.map.height);
    let mut at = from;
    let mut path = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let next = at.neighbours(w, h, gs.settings.adjacency == 8);
        if next.is_empty() || rng.below(10) == 0 {
            at = Square::new(rng.below(12) as u16, 1 + rng.below(12) as u16).unwrap_or(at);
        } else {
            at = rng.pick(&next);
        }
        path.push(at);
    }
    path
}

/// Where realm's group stands in `gs` (a random square when it does not exist).
fn at(rng: &mut Rng, gs: &GameState, realm: &str, g: Group) -> Square {
    let found = match g {
        Group::Army(id) => gs
            .armies
            .iter()
            .find(|a| a.owner == realm && a.id == id)
            .map(|a| a.square),
        Group::Fleet(id) => gs
            .fleets
            .iter()
            .find(|f| f.owner == realm && f.id == id)
            .map(|f| f.square),
    };
    found.unwrap_or_else(|| {
        Square::new(rng.below(12) as u16, 1 + rng.below(12) as u16).unwrap_or(sq("A1"))
    })
}

fn random_group(rng: &mut Rng) -> Group {
    match rng.below(5) {
        0 | 1 => Group::Fleet(rng.below(5) as u32),
        2 => Group::Army(20 + rng.below(3) as u32),
        _ => Group::Army(rng.below(10) as u32),
    }
}

fn pieces(rng: &mut Rng) -> Vec<(u32, Piece)> {
    let all = [
        Piece::Unit(UnitKind::Veteran),
        Piece::Unit(UnitKind::LattInfanteri),
        Piece::Unit(UnitKind::Bagskyttar),
        Piece::Ship(ShipKind::Transportskepp),
        Piece::Ship(ShipKind::Galeas),
    ];
    (0..1 + rng.below(2))
        .map(|_| (1 + rng.below(2) as u32, rng.pick(&all)))
        .collect()
}

fn order(rng: &mut Rng, gs: &GameState, realm: &str) -> Order {
    let g = random_group(rng);
    let here = at(rng, gs, realm, g);
    match rng.below(12) {
        0..=3 => Order::Move {
            group: g,
            path: walk(rng, gs, here),
        },
        4..=6 => Order::Attack {
            group: g,
            square: *walk(rng, gs, here).first().unwrap_or(&here),
            outcome: rng.pick(&[
                None,
                Some(Outcome::Plunder),
                Some(Outcome::Takeover),
                Some(Outcome::Raze),
            ]),
            wave: rng.pick(&[None, None, Some(Wave::First), Some(Wave::Second)]),
        },
        7 => Order::Embark {
            army: g.id(),
            fleet: rng.below(4) as u32,
        },
        8 => Order::Disembark {
            army: g.id(),
            square: (rng.below(2) == 0).then(|| *walk(rng, gs, here).first().unwrap_or(&here)),
        },
        9 => match rng.below(3) {
            0 => Order::PickUp {
                fleet: rng.below(4) as u32,
                army: g.id(),
            },
            1 => Order::Merge {
                group: g,
                other: rng.below(10) as u32,
            },
            _ => Order::Reorder {
                group: g,
                pieces: pieces(rng),
            },
        },
        10 => Order::Split {
            group: g,
            pieces: pieces(rng),
        },
        _ => match rng.below(2) {
            0 => Order::UseInvitation {
                from: rng.pick(&REALMS).to_string(),
                group: g,
            },
            _ => Order::HomeInvitation { group: g },
        },
    }
}

fn random_weekend(seed: u64) -> (GameState, Orders) {
    let mut rng = Rng(seed);
    let gs = crowded(&mut rng);
    let mut forms: Vec<(&str, Vec<Order>)> = Vec::new();
    for _ in 0..1 + rng.below(6) {
        let realm = rng.pick(&REALMS);
        let list = (0..rng.below(16))
            .map(|_| order(&mut rng, &gs, realm))
            .collect();
        forms.push((realm, list));
    }
    (gs, orders(&forms))
}

/// Every case, as `name fingerprint` lines.
fn fingerprints() -> Vec<String> {
    let mut out = Vec::new();
    let demo = pbemd::game::load_scenario(include_str!("../scenarios/demo.yaml")).expect("demo");
    let none = resolve(&demo, &Orders::default(), &demo.settings, demo.game.seed);
    out.push(format!("demo {}", fingerprint(&none)));
    for n in [7, 9] {
        let gs = world::world(n);
        let at = chrono::DateTime::from_timestamp(1_800_000_000, 0).expect("time");
        let (orders, refused) = world::forms_of(&gs, at);
        assert_eq!(refused, 0, "the bench's forms are all accepted");
        let res = resolve(&gs, &orders, &gs.settings, gs.game.seed);
        out.push(format!("bench-{n} {}", fingerprint(&res)));
    }
    for seed in 0..CASES {
        let (gs, o) = random_weekend(seed);
        let res = resolve(&gs, &o, &gs.settings, seed);
        out.push(format!("random-{seed} {}", fingerprint(&res)));
    }
    out
}

#[test]
fn the_indexed_engine_resolves_every_case_as_before() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/weekend_same.txt");
    let actual = fingerprints();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual.join("\n") + "\n").expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path).expect("tests/golden/weekend_same.txt");
    let expected: Vec<&str> = expected.lines().collect();
    assert_eq!(expected.len(), actual.len(), "number of cases");
    let differ: Vec<String> = expected
        .iter()
        .zip(&actual)
        .filter(|(e, a)| *e != a)
        .map(|(e, a)| format!("before: {e}\n   now: {a}"))
        .collect();
    assert!(
        differ.is_empty(),
        "{} cases resolve differently:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

#[test]
fn the_random_weekends_exercise_every_military_event() {
    // The cases must reach the code the index serves: battles on land and at sea,
    // boarding, landing, splits, merges and arrivals.
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..CASES {
        let (gs, o) = random_weekend(seed);
        let res = resolve(&gs, &o, &gs.settings, seed);
        for e in military(&res.events) {
            let v = serde_json::to_value(e).expect("json");
            let kind = v["kind"].as_str().unwrap_or_default().to_string();
            let naval = v.pointer("/battle/naval").and_then(|b| b.as_bool()) == Some(true);
            seen.insert(if naval { format!("{kind}/naval") } else { kind });
        }
    }
    for kind in [
        "moved",
        "boarded",
        "merged",
        "split",
        "battle",
        "battle/naval",
        "arrived",
        "cargo_lost",
        "attack_refused",
        "second_attacker_joined",
    ] {
        assert!(
            seen.contains(kind),
            "no {kind} event in the random weekends: {seen:?}"
        );
    }
}

/// Every realm's Monday form after the bench world's weekend and the first random
/// weekends, as `name fingerprint` lines (the forms are built from an index of the state
/// and the events; they must read exactly as the scans of every list made them).
fn form_fingerprints() -> Vec<String> {
    let renderer = pbemd::render::Renderer::new().expect("templates");
    let ctx = pbemd::render::FormContext {
        deadline_local: "söndag 29 november 2026 15:00".to_string(),
        window_local: String::new(),
        game_address: "sl@game.test".to_string(),
        realms_listed: None,
    };
    let mut cases: Vec<(String, Resolution)> = Vec::new();
    let gs = world::world(9);
    let at = chrono::DateTime::from_timestamp(1_800_000_000, 0).expect("time");
    let (orders, _) = world::forms_of(&gs, at);
    cases.push((
        "bench-9".into(),
        resolve(&gs, &orders, &gs.settings, gs.game.seed),
    ));
    for seed in 0..40 {
        let (gs, o) = random_weekend(seed);
        cases.push((
            format!("random-{seed}"),
            resolve(&gs, &o, &gs.settings, seed),
        ));
    }
    let mut out = Vec::new();
    for (name, res) in cases {
        let mut text = String::new();
        for r in &res.state.realms {
            let form = renderer
                .result_form_with(&res.state, &r.name, &ctx, &res.events)
                .expect("form");
            text.push_str(&form);
        }
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        out.push(format!("{name} bytes {} {h:016x}", text.len()));
    }
    out
}

#[test]
fn every_realms_form_reads_as_before() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/weekend_forms_same.txt");
    let actual = form_fingerprints();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual.join("\n") + "\n").expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path).expect("tests/golden/weekend_forms_same.txt");
    let expected: Vec<&str> = expected.lines().collect();
    assert_eq!(expected, actual);
}

#[test]
fn the_bench_world_exercises_every_part_of_the_weekend() {
    // The speed figures count only if the generated forms reach the part-two steps:
    // spells, the free merchants, the vote, the Evil's portals and lava, espionage.
    let gs = world::world(9);
    let at = chrono::DateTime::from_timestamp(1_800_000_000, 0).expect("time");
    let (orders, refused) = world::forms_of(&gs, at);
    assert_eq!(refused, 0, "the bench's forms are all accepted");
    let res = resolve(&gs, &orders, &gs.settings, gs.game.seed);
    let mut seen = std::collections::BTreeSet::new();
    for e in &res.events {
        let v = serde_json::to_value(&e.what).expect("json");
        let family = v["family"].as_str().unwrap_or_default().to_string();
        let kind = v["event"]["kind"].as_str().unwrap_or_default().to_string();
        seen.insert(format!("{family}/{kind}"));
    }
    for family in ["magic", "market", "politics", "evil", "military", "economy"] {
        assert!(
            seen.iter().any(|s| s.starts_with(&format!("{family}/"))),
            "no {family} event in the bench world's weekend: {seen:?}"
        );
    }
}

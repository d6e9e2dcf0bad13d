//! The weekend at scale: a generated game of 100 realms with 100 army groups each
//! (10,000 groups), every realm with a full form (units, a wall, population, a position
//! upgrade, moves, attacks on its neighbour), resolved
//!
//! 1. by the pure engine (`game::weekend::resolve`), and
//! 2. by the app on SQLite: the forms arrive by mail and are checked (not timed), then
//!    the schedule fires from Saturday to Monday 12:00 (timed): the form deadline (load
//!    the state and the forms, resolve, store) and the results (render and queue every
//!    Monday form). Sending the queued mails is not part of the figure.
//!
//! Then the same at ten times the size (1,000 realms, 100,000 groups), with the ratios.
//! Targets (issue 8, section 7): pure < 100 ms, app < 1 s, 10× at most 12× the time.
//! Env `PBEMD_BENCH_REALMS` (100) and `PBEMD_BENCH_SCALE` (10) change the sizes.
//!
//! Run: `cargo bench --bench weekend`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use pbemd::app::{scheduler, setup, tick, App};
use pbemd::clock::{parse_rfc3339, FixedClock};
use pbemd::config::Config;
use pbemd::forms;
use pbemd::game::orders::{Group, Order, Outcome};
use pbemd::game::state::{
    ArmyGroup, City, Dimension, EvilTerrain, Map, MapSquare, Positions, Terrain, Unit,
};
use pbemd::game::weekend::{resolve, FormOrders, Orders};
use pbemd::game::{GameState, Lang, Position, Resource, Resources, Square, UnitKind};
use pbemd::transport::maildir::Maildir;

/// Army groups per realm stand on a 10 × 10 block; the block's 11th row is free land
/// for the moves (with the main harbour), its 12th is sea.
const SIDE: u16 = 10;
const BLOCK_ROWS: u16 = SIDE + 2;
const GROUPS: u32 = (SIDE as u32) * (SIDE as u32);

const START: &str = "2026-11-23T12:30:00+01:00";
const SATURDAY: &str = "2026-11-28T10:00:00+01:00";
const MONDAY: &str = "2026-11-30T12:00:00+01:00";

fn name(k: usize) -> String {
    format!("Rike{k:04}")
}

fn sq(col: u16, row: u16) -> Square {
    Square::new(col, row).expect("the generated map fits the square range")
}

/// Blocks per row of the map: close to square, at most 70 (the column range).
fn per_row(realms: usize) -> usize {
    let mut n = 1;
    while n * n < realms {
        n += 1;
    }
    n.min(70)
}

/// The top-left square of realm `k`'s block.
fn origin(k: usize, per_row: usize) -> (u16, u16) {
    let bx = (k % per_row) as u16;
    let by = (k / per_row) as u16;
    (bx * SIDE, by * BLOCK_ROWS + 1)
}

/// A game of `n` realms with `GROUPS` army groups each, from the demo's first realm
/// as the template.
fn world(n: usize) -> GameState {
    let mut gs = pbemd::game::load_scenario(setup::DEMO_SCENARIO).expect("demo");
    let template = gs.realms[0].clone();
    let pr = per_row(n);
    let rows = n.div_ceil(pr);
    let mut map = Map {
        width: (pr as u16) * SIDE,
        height: (rows as u16) * BLOCK_ROWS,
        squares: Default::default(),
    };
    for row in 1..=map.height {
        let sea = row % BLOCK_ROWS == 0;
        for col in 0..map.width {
            map.squares.insert(
                sq(col, row),
                MapSquare {
                    terrain: if sea { Terrain::Sea } else { Terrain::Land },
                    owner: None,
                    evil_terrain: if sea {
                        EvilTerrain::Rock
                    } else {
                        EvilTerrain::Lava
                    },
                    evil_owner: None,
                    portal: None,
                    treasure: false,
                },
            );
        }
    }
    let mut realms = Vec::with_capacity(n);
    let mut cities = Vec::new();
    let mut armies = Vec::new();
    for k in 0..n {
        let realm = name(k);
        let (c0, r0) = origin(k, pr);
        for dr in 0..=SIDE {
            for dc in 0..SIDE {
                if let Some(m) = map.squares.get_mut(&sq(c0 + dc, r0 + dr)) {
                    m.owner = Some(realm.clone());
                }
            }
        }
        let capital = sq(c0 + 1, r0 + 1);
        let harbour = sq(c0 + 3, r0 + SIDE);
        for (i, (dc, dr)) in [(1, 1), (5, 5), (3, SIDE)].into_iter().enumerate() {
            cities.push(City {
                square: sq(c0 + dc, r0 + dr),
                name: format!("{realm}-{i}"),
                owner: realm.clone(),
                dimension: Dimension::Normal,
                population: 1500,
                production: Resources::from_pairs(&[
                    (Resource::Mat, 3),
                    (Resource::Guld, 3),
                    (Resource::Jarn, 2),
                    (Resource::Tyg, 2),
                ]),
                walls: 1,
                capital: i == 0,
                harbour: i == 2,
                coastal: i == 2,
                plundered: false,
            });
        }
        for id in 1..=GROUPS {
            let i = (id - 1) as u16;
            armies.push(ArmyGroup {
                id,
                owner: realm.clone(),
                square: sq(c0 + i % SIDE, r0 + i / SIDE),
                dimension: Dimension::Normal,
                units: [
                    UnitKind::TungtInfanteri,
                    UnitKind::Bagskyttar,
                    UnitKind::LattInfanteri,
                ]
                .into_iter()
                .map(|kind| Unit {
                    kind,
                    built_round: 0,
                })
                .collect(),
                treasure: Resources::ZERO,
                no_move_until_round: None,
            });
        }
        let mut r = template.clone();
        r.name = realm.clone();
        r.emails = vec![format!("{}@bench.test", realm.to_lowercase())];
        r.language = Lang::Sv;
        r.token = None;
        r.positions = Positions {
            amiral: 5,
            befalhavare: 5,
            besvarjare: 5,
            informator: 5,
            forskare: 5,
            skattmastare: 5,
            sprakror: 5,
        };
        r.stock = Resources::from_pairs(&Resource::ALL.map(|res| (res, 10_000)));
        r.capital = Some(capital);
        r.main_harbour = Some(harbour);
        r.friends = Vec::new();
        r.invitations = Vec::new();
        r.spies = 0;
        realms.push(r);
    }
    gs.realms = realms;
    gs.map = map;
    gs.cities = cities;
    gs.armies = armies;
    gs.fleets = Vec::new();
    gs.spies = Vec::new();
    gs.home_invitations = Vec::new();
    gs.contacts = Vec::new();
    gs.last_weekend = Vec::new();
    gs.conquests = Vec::new();
    if let Err(problems) = gs.validate() {
        panic!("the generated game is not valid: {problems:?}");
    }
    gs
}

/// Realm `k`'s full form: purchases, the bottom row of armies one step down onto the
/// free row, the east column attacking the neighbour's west column.
fn form(gs: &GameState, k: usize, pr: usize, n: usize) -> Vec<Order> {
    let (c0, r0) = origin(k, pr);
    let mut orders = vec![
        Order::BuyUnits {
            count: 5,
            kind: UnitKind::LattInfanteri,
            city: None,
        },
        Order::BuyWalls {
            count: 1,
            city: sq(c0 + 1, r0 + 1),
        },
        Order::BuyPopulation {
            count: 1,
            city: sq(c0 + 5, r0 + 5),
        },
        Order::UpgradePosition {
            position: Position::Befalhavare,
            crystals: vec![],
        },
    ];
    for col in 0..SIDE {
        let id = (SIDE * (SIDE - 1) + col + 1) as u32;
        orders.push(Order::Move {
            group: Group::Army(id),
            path: vec![sq(c0 + col, r0 + SIDE)],
        });
    }
    let east = k % pr + 1 < pr && k + 1 < n;
    for row in 0..SIDE - 1 {
        if !east {
            break;
        }
        let id = (row * SIDE + SIDE) as u32;
        let target = sq(c0 + SIDE, r0 + row);
        let city = gs.cities.iter().any(|c| c.square == target);
        orders.push(Order::Attack {
            group: Group::Army(id),
            square: target,
            outcome: city.then_some(Outcome::Plunder),
            wave: None,
        });
    }
    orders
}

/// Every realm's form, keeping only the lines the form check accepts; also the number
/// of lines it refused (0 when the generator is right).
fn forms_of(gs: &GameState, at: DateTime<Utc>) -> (Orders, usize) {
    let n = gs.realms.len();
    let pr = per_row(n);
    let mut refused = 0;
    let mut out = Orders::default();
    for k in 0..n {
        let realm = name(k);
        let checked = forms::check_orders(gs, &realm, &form(gs, k, pr, n));
        refused += checked.lines.iter().filter(|l| !l.accepted()).count();
        out.forms.push(FormOrders {
            realm,
            received_at: at + chrono::Duration::seconds(k as i64),
            orders: checked
                .lines
                .into_iter()
                .filter(|l| l.refusal.is_none())
                .filter_map(|l| l.order)
                .collect(),
        });
    }
    (out, refused)
}

fn mail(seq: u64, from: &str, subject: &str, body: &str, at: DateTime<Utc>) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: sl@game.test\r\nSubject: {subject}\r\nDate: {}\r\nMessage-ID: <bench-{seq}@players.test>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{}\r\n",
        at.to_rfc2822(),
        body.replace('\n', "\r\n")
    )
    .into_bytes()
}

struct Figures {
    groups: usize,
    pure: Duration,
    app: Duration,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The pure engine on the generated game (best of three).
fn pure(gs: &GameState, orders: &Orders) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut events = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let r = resolve(gs, orders, &gs.settings, gs.game.seed);
        best = best.min(t.elapsed());
        events = r.events.len();
    }
    (best, events)
}

/// The app: the game on SQLite + Maildir, forms mailed in and checked (not timed),
/// then the schedule fired from Saturday to Monday 12:00 (timed).
async fn app_path(gs: &GameState, orders: &Orders) -> Duration {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("g");
    let cfg_path = setup::new_game_dir(&dir, None).expect("new game");
    let cfg = Config::load(&cfg_path).expect("config");
    let start = parse_rfc3339(START).expect("start");
    let clock = Arc::new(FixedClock::new(start));
    let app = App::open(cfg, clock.clone()).await.expect("open");
    setup::init(&app, start, false).await.expect("init");
    let mut tx = app.store.begin().await.expect("begin");
    let (v, _) = app.state(&mut tx).await.expect("state");
    app.save_state(&mut tx, v, gs, "bench setup")
        .await
        .expect("save");
    tx.commit().await.expect("commit");
    let saturday = parse_rfc3339(SATURDAY).expect("saturday");
    let inbox = Maildir::open(&dir.join("inbox")).expect("inbox");
    for (seq, f) in orders.forms.iter().enumerate() {
        let body: String = f
            .orders
            .iter()
            .map(|o| format!("{}\n", o.render(Lang::Sv)))
            .collect();
        let from = format!("{}@bench.test", f.realm.to_lowercase());
        let subject = format!("{} helgformulär", f.realm);
        inbox
            .drop_in(
                seq as u64 + 1,
                &mail(seq as u64 + 1, &from, &subject, &body, saturday),
            )
            .expect("drop in");
    }
    clock.set(saturday);
    let r = tick::tick(&app).await.expect("the forms' tick");
    assert_eq!(r.handled, orders.forms.len(), "every form handled");
    let monday = parse_rfc3339(MONDAY).expect("monday");
    clock.set(monday);
    let t = Instant::now();
    let fired = scheduler::fire_due(&app, monday).await.expect("fire");
    let took = t.elapsed();
    let names: Vec<&str> = fired.events.iter().map(|d| d.name.as_str()).collect();
    println!("    app: schedule events fired Saturday → Monday: {names:?}");
    took
}

async fn measure(n: usize) -> Figures {
    let t = Instant::now();
    let gs = world(n);
    let saturday = parse_rfc3339(SATURDAY).expect("saturday");
    let (orders, refused) = forms_of(&gs, saturday);
    let lines: usize = orders.forms.iter().map(|f| f.orders.len()).sum();
    println!(
        "{n} realms, {} army groups, {lines} accepted order lines ({refused} refused); generated in {:.0} ms",
        gs.armies.len(),
        ms(t.elapsed())
    );
    let (pure, events) = pure(&gs, &orders);
    println!("    pure resolve: {:.1} ms ({events} events)", ms(pure));
    let app = app_path(&gs, &orders).await;
    println!("    app deadline → Monday forms queued: {:.0} ms", ms(app));
    Figures {
        groups: gs.armies.len(),
        pure,
        app,
    }
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() {
    let realms = env("PBEMD_BENCH_REALMS", 100);
    let scale = env("PBEMD_BENCH_SCALE", 10);
    let small = measure(realms).await;
    let large = measure(realms * scale).await;
    let ratio = |a: Duration, b: Duration| b.as_secs_f64() / a.as_secs_f64().max(1e-9);
    println!("summary (targets: pure < 100 ms, app < 1 s, {scale}× size at most 12× the time):");
    println!(
        "    pure: {:.1} ms at {} groups, {:.1} ms at {} groups: {:.1}×",
        ms(small.pure),
        small.groups,
        ms(large.pure),
        large.groups,
        ratio(small.pure, large.pure)
    );
    println!(
        "    app:  {:.0} ms at {} groups, {:.0} ms at {} groups: {:.1}×",
        ms(small.app),
        small.groups,
        ms(large.app),
        large.groups,
        ratio(small.app, large.app)
    );
}

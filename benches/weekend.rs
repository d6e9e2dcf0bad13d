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
//! Env `PBEMD_BENCH_REALMS` (100) and `PBEMD_BENCH_SCALE` (10) change the sizes;
//! `PBEMD_BENCH_ONLY=pure` skips the app path, `PBEMD_BENCH_TRIES` (3) sets how often
//! the engine runs (for profiling it) and `PBEMD_BENCH_APP_TRIES` (3) how often the app
//! path does (each figure is the best of its tries); `PBEMD_BENCH_SQL_LOG=1` logs every
//! statement with its time.
//!
//! Run: `cargo bench --bench weekend`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use pbemd::app::{scheduler, setup, tick, App};
use pbemd::clock::{parse_rfc3339, FixedClock};
use pbemd::config::Config;
use pbemd::game::weekend::{resolve, Orders};
use pbemd::game::{GameState, Lang};
use pbemd::transport::maildir::Maildir;

const START: &str = "2026-11-23T12:30:00+01:00";
const SATURDAY: &str = "2026-11-28T10:00:00+01:00";
const MONDAY: &str = "2026-11-30T12:00:00+01:00";

#[path = "common/world.rs"]
mod world;

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
    cold: Duration,
    app: Duration,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Bytes read between two cold tries: more than every cache of the machine holds.
const EVICT: usize = 256 << 20;

/// Read `buf` through, so that what the caches held before is gone.
fn evict(buf: &[u8]) -> u64 {
    buf.iter().step_by(64).map(|&b| u64::from(b)).sum()
}

/// The pure engine on the generated game (best of three). With `cold`, the caches are
/// emptied before each try (a weekend is resolved once, from a state read from the
/// store, never again and again on one warm state).
fn pure(gs: &GameState, orders: &Orders, cold: Option<&[u8]>) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut events = 0;
    for _ in 0..env("PBEMD_BENCH_TRIES", 3) {
        if let Some(buf) = cold {
            std::hint::black_box(evict(buf));
        }
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
    let gs = world::world(n);
    let saturday = parse_rfc3339(SATURDAY).expect("saturday");
    let (orders, refused) = world::forms_of(&gs, saturday);
    let lines: usize = orders.forms.iter().map(|f| f.orders.len()).sum();
    println!(
        "{n} realms, {} army groups, {lines} accepted order lines ({refused} refused); generated in {:.0} ms",
        gs.armies.len(),
        ms(t.elapsed())
    );
    let (pure_warm, events) = pure(&gs, &orders, None);
    println!(
        "    pure resolve: {:.1} ms ({events} events)",
        ms(pure_warm)
    );
    let buf = vec![1u8; EVICT];
    let (cold, _) = pure(&gs, &orders, Some(&buf));
    drop(buf);
    println!("    pure resolve, caches emptied first: {:.1} ms", ms(cold));
    if std::env::var("PBEMD_BENCH_ONLY").is_ok_and(|v| v == "pure") {
        return Figures {
            groups: gs.armies.len(),
            pure: pure_warm,
            cold,
            app: Duration::ZERO,
        };
    }
    // Best of `PBEMD_BENCH_APP_TRIES` (3), each on a new game directory, as the engine
    // is timed best of three: one run of a few hundred milliseconds varies by a tenth
    // on this machine from one run to the next.
    let mut app = Duration::MAX;
    for _ in 0..env("PBEMD_BENCH_APP_TRIES", 3).max(1) {
        let took = app_path(&gs, &orders).await;
        println!("    app deadline → Monday forms queued: {:.0} ms", ms(took));
        app = app.min(took);
    }
    Figures {
        groups: gs.armies.len(),
        pure: pure_warm,
        cold,
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
    // `PBEMD_BENCH_SQL_LOG=1`: every statement with its time on stderr (sqlx's log).
    if std::env::var_os("PBEMD_BENCH_SQL_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter("sqlx::query=debug")
            .with_writer(std::io::stderr)
            .init();
    }
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
        "    pure, caches emptied first: {:.1} ms at {} groups, {:.1} ms at {} groups: {:.1}×",
        ms(small.cold),
        small.groups,
        ms(large.cold),
        large.groups,
        ratio(small.cold, large.cold)
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

//! One courier batch of 10,000 queued envoys with 50 stationed spies (env
//! `PBEMD_BENCH_ENVOYS`, `PBEMD_BENCH_SPIES`): the pure decision (`route_batch`) alone,
//! then the whole batch in the app (SQLite: decide, render, queue every delivery and
//! receipt in the outbox, save the state) in one transaction. No servers needed.
//!
//! Run: `cargo bench --bench courier_batch`.

use std::sync::Arc;
use std::time::Instant;

use chrono::Duration;
use pbemd::app::{courier, App};
use pbemd::clock::{parse_rfc3339, FixedClock};
use pbemd::config::Config;
use pbemd::courier::batch::{route_batch, Context, Queued};
use pbemd::game::dice::Dice;
use pbemd::game::state::{SpyMission, SpyState, StationedSpy};
use pbemd::game::text::MailKind;
use pbemd::game::GameState;
use pbemd::schedule::Window;
use pbemd::store::{inbox, messages};

fn setup(state: &mut GameState, spies: usize) {
    let names: Vec<String> = state.realm_names().iter().map(|s| s.to_string()).collect();
    for r in &mut state.realms {
        r.positions.sprakror = 1_000_000;
    }
    let t0 = parse_rfc3339("2026-11-23T13:00:00+01:00").unwrap();
    for i in 0..spies {
        let owner = names[i % names.len()].clone();
        let realm = names[(i + 1) % names.len()].clone();
        state.spies.push(StationedSpy {
            id: 10_000 + i as u64,
            owner,
            realm,
            placed_at: t0 + Duration::seconds(i as i64),
            mission: SpyMission::Steal { filter: None },
            state: SpyState::Waiting,
            done_round: None,
            saw: None,
        });
    }
}

fn pairs(names: &[String], n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            let a = i % names.len();
            let b = (a + 1 + i / names.len() % (names.len() - 1)) % names.len();
            (names[a].clone(), names[b].clone())
        })
        .collect()
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::var("PBEMD_BENCH_ENVOYS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let spies: usize = std::env::var("PBEMD_BENCH_SPIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50);
    let mut state = pbemd::game::load_scenario(pbemd::app::setup::DEMO_SCENARIO).unwrap();
    setup(&mut state, spies);
    let names: Vec<String> = state.realm_names().iter().map(|s| s.to_string()).collect();
    let t0 = parse_rfc3339("2026-11-24T10:00:00+01:00").unwrap();
    let mails: Vec<Queued> = pairs(&names, n)
        .into_iter()
        .enumerate()
        .map(|(i, (from, to))| Queued {
            id: i as u64 + 1,
            kind: MailKind::Envoy,
            from,
            to: Some(to),
            topic: None,
            body: format!("Sändebud nummer {i}: vi föreslår fred och handel längs gränsen."),
            received_at: t0 + Duration::milliseconds(i as i64),
            window: Window::Weekday,
        })
        .collect();

    // 1. The pure decision.
    let mut s = state.clone();
    let mut ctx = Context {
        now: t0,
        ..Context::default()
    };
    let mut dice = Dice::new(1, s.round, "bench");
    let t = Instant::now();
    let decisions = route_batch(&mut s, &mails, &mut ctx, &mut dice);
    let pure = t.elapsed();
    let stolen = decisions
        .iter()
        .filter(|d| {
            matches!(
                d.outcome,
                pbemd::courier::batch::Outcome::Intercepted { .. }
            )
        })
        .count();
    println!(
        "route_batch: {n} envoys, {spies} spies: {:.1} ms total, {:.2} µs per envoy ({stolen} intercepted, {} rolls)",
        pure.as_secs_f64() * 1e3,
        pure.as_secs_f64() * 1e6 / n as f64,
        dice.rolls().len()
    );

    // 2. The whole batch in the app, on SQLite.
    let tmp = tempfile::tempdir().unwrap();
    let cfg_path = pbemd::app::setup::new_game_dir(&tmp.path().join("g"), None).unwrap();
    let cfg = Config::load(&cfg_path).unwrap();
    let app = App::open(cfg, Arc::new(FixedClock::new(t0))).await.unwrap();
    pbemd::app::setup::init(&app, t0 - Duration::hours(1), false)
        .await
        .unwrap();
    let mut tx = app.store.begin().await.unwrap();
    let (v, _) = app.state(&mut tx).await.unwrap();
    app.save_state(&mut tx, v, &state, "bench setup")
        .await
        .unwrap();
    for m in &mails {
        let raw = format!("Message-ID: <b{}@x>\r\n\r\n{}", m.id, m.body);
        let key = format!("mid:b{}@x", m.id);
        let inbox::Stored::New(inbox_id) = inbox::insert(
            &mut tx,
            &inbox::NewMail {
                dedup_key: &key,
                message_id: None,
                sha256: "-",
                source: inbox::Source::Maildir,
                raw: raw.as_bytes(),
                size: raw.len(),
                received_at: m.received_at.timestamp_millis(),
                imap: None,
            },
        )
        .await
        .unwrap() else {
            unreachable!()
        };
        let subject = format!(
            "{} skickar ett sändebud till {}",
            m.from,
            m.to.as_deref().unwrap()
        );
        messages::insert(
            &mut tx,
            &messages::NewMessage {
                inbox_id,
                kind: "envoy",
                realm: Some(&m.from),
                to_realm: m.to.as_deref(),
                lang: Some("sv"),
                subject: &subject,
                body: &m.body,
                state: messages::state::QUEUED,
                round: 1,
                at: m.received_at.timestamp_millis(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();
    let t = Instant::now();
    let r = courier::batch_now(&app).await.unwrap();
    let full = t.elapsed();
    println!(
        "app batch (decide + render + outbox + state, one transaction): {:.2} s total, {:.3} ms per envoy ({} decided, {} delivered)",
        full.as_secs_f64(),
        full.as_secs_f64() * 1e3 / n as f64,
        r.decided,
        r.delivered
    );
}

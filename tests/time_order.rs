//! Time runs in one order: a tick over a span handles the schedule's events and the
//! mail received in it in time order; reminders whose deadline has passed are not
//! sent; a tick too far ahead is refused unless forced; `init` mails the opening
//! forms; a mail to the GM is acknowledged.

mod common;

use common::Game;
use pbemd::store::{events, messages};

async fn event_kinds(g: &Game) -> Vec<String> {
    let mut c = g.app.store.conn().await.unwrap();
    events::filtered(&mut c, None, None)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect()
}

/// The repro of the issue: the game stands at Sunday 09:30 and one envoy waits; a tick
/// to Monday 12:30 closes the weekend (round 2) before the envoy, which is decided in
/// round 2 with round 2's free allowance.
#[tokio::test]
async fn r_agent_4_a_catch_up_tick_decides_a_waiting_envoy_in_the_new_round() {
    let g = Game::start("2026-11-23T12:00:00+01:00").await;
    g.tick("2026-11-29T09:30:00+01:00").await;
    // Genogien has used up round 1's free envoys.
    g.edit_state(|gs| {
        let r = gs.realms.iter_mut().find(|r| r.name == "Genogien").unwrap();
        r.sent.envoys = 99;
    })
    .await;
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "Ny vecka!",
    );
    let r = g.tick("2026-11-30T12:30:00+01:00").await;
    assert_eq!((r.handled, r.delivered), (1, 1), "{r:?}");
    let mut c = g.app.store.conn().await.unwrap();
    let envoy = messages::all(&mut c)
        .await
        .unwrap()
        .into_iter()
        .find(|m| m.kind == "envoy")
        .unwrap();
    assert_eq!(envoy.round, 2, "decided in the new round");
    let gs = g.state().await;
    assert_eq!(gs.round, 2);
    let genogien = gs.realm("Genogien").unwrap();
    assert_eq!(
        genogien.sent.envoys, 1,
        "counted against round 2's allowance"
    );
    let receipt = g
        .outbox()
        .into_iter()
        .find(|m| m.to_is("genogien@game.test") && m.text.starts_with("Kvitto"))
        .expect("a receipt");
    // Nothing charged: within the free allowance, and the stock still holds all of
    // Genogien's 40 gold.
    assert!(
        receipt.text.contains("Inom den fria kvoten") && receipt.text.contains(" 40 guld,"),
        "nothing charged: {}",
        receipt.text
    );
}

/// A mail stored before an event (here by an earlier pick-up) is handled before that
/// event fires, by the rules of its receipt time, even when handled later.
#[tokio::test]
async fn mail_stored_before_the_window_closes_is_handled_before_the_close() {
    let g = Game::start_with("2026-11-27T12:00:00+01:00", "courier:\n  mode: batches\n").await;
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "Före stängning",
    );
    // Stored (received) Friday 23:30; nothing else happens until Saturday 10:00.
    g.clock.set(common::at("2026-11-27T23:30:00+01:00"));
    pbemd::app::intake::maildir_once(&g.app, &g.inbox)
        .await
        .unwrap();
    let r = g.tick("2026-11-28T10:00:00+01:00").await;
    assert_eq!(r.delivered, 1, "decided by Saturday 00:00's batch: {r:?}");
    assert!(g.outbox().iter().any(|m| m.to_is("afani@game.test")));
}

#[tokio::test]
async fn r_mail_8_a_reminder_after_its_deadline_is_skipped_not_sent() {
    let g = Game::start("2026-11-27T12:00:00+01:00").await;
    g.tick("2026-11-28T10:00:00+01:00").await;
    // pbemd was down all Sunday: the catch-up on Monday passes both reminders.
    let r = g.tick("2026-11-30T12:30:00+01:00").await;
    assert!(
        r.events
            .iter()
            .any(|e| e.ends_with("reminder_0900") || e.contains("reminder")),
        "{r:?}"
    );
    assert!(
        !g.outbox()
            .iter()
            .any(|m| m.text.contains("påminnelse") || m.text.to_lowercase().contains("reminder")),
        "no reminder went out"
    );
    let kinds = event_kinds(&g).await;
    assert_eq!(
        kinds.iter().filter(|k| *k == "reminder_skipped").count(),
        2,
        "{kinds:?}"
    );
}

#[tokio::test]
async fn a_reminder_before_its_deadline_is_still_sent() {
    let g = Game::start("2026-11-27T12:00:00+01:00").await;
    g.tick("2026-11-28T10:00:00+01:00").await;
    let r = g.tick("2026-11-29T09:30:00+01:00").await;
    assert_eq!(r.events.len(), 1, "{r:?}");
    let kinds = event_kinds(&g).await;
    assert!(!kinds.iter().any(|k| k == "reminder_skipped"), "{kinds:?}");
    assert!(
        g.outbox().len() >= 5,
        "the realms without a form were reminded"
    );
}

#[tokio::test]
async fn a_tick_more_than_14_days_ahead_is_refused_unless_forced() {
    let g = Game::start("2026-11-23T12:00:00+01:00").await;
    g.clock.set(common::at("2026-12-08T12:00:01+01:00"));
    let err = pbemd::app::tick::tick(&g.app)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("--force"), "{err}");
    assert!(err.contains("it would fire 40 schedule events"), "{err}");
    assert!(g.outbox().is_empty(), "nothing happened");
    // Exactly 14 days is allowed.
    g.clock.set(common::at("2026-12-07T12:00:00+01:00"));
    pbemd::app::tick::tick(&g.app).await.unwrap();
    g.clock.set(common::at("2027-01-30T12:00:00+01:00"));
    pbemd::app::tick::tick_with(&g.app, true).await.unwrap();
}

#[tokio::test]
async fn a_mail_to_the_gm_is_acknowledged_in_the_realms_language_and_the_gm_told() {
    let g = Game::start("2026-11-24T09:00:00+01:00").await;
    g.send(
        "genogien@game.test",
        "Genogien till SL: en fråga",
        "Får vi?",
    );
    g.send("afani@game.test", "Afani to GM: a question", "May we?");
    g.tick("2026-11-24T10:00:00+01:00").await;
    let out = g.outbox();
    let ack_sv = out.iter().find(|m| m.to_is("genogien@game.test")).unwrap();
    assert!(
        ack_sv.text.contains("spelledaren har kommit fram"),
        "{}",
        ack_sv.text
    );
    assert_eq!(ack_sv.subject, "Re: Genogien till SL: en fråga");
    let ack_en = out.iter().find(|m| m.to_is("afani@game.test")).unwrap();
    assert!(
        ack_en.text.contains("the GM has arrived"),
        "{}",
        ack_en.text
    );
    assert!(!ack_en.text.contains("spelledaren"), "{}", ack_en.text);
    let notices: Vec<_> = out.iter().filter(|m| m.to_is("gm@game.test")).collect();
    assert_eq!(notices.len(), 2);
    assert!(notices.iter().any(|m| m.text.contains("Får vi?")));
}

#[test]
fn init_mails_every_realm_its_opening_form_and_quiet_does_not() {
    for (quiet, want) in [(false, 6), (true, 0)] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        let run = |args: &[&str]| {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_pbemd"))
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        run(&["new", dir.to_str().unwrap()]);
        let cfg = dir.join("pbemd.yaml");
        let mut args = vec!["--config", cfg.to_str().unwrap(), "init", "--now"];
        args.push("2026-11-23T12:00:00+01:00");
        if quiet {
            args.push("--quiet");
        }
        run(&args);
        let sent: Vec<_> = std::fs::read_dir(dir.join("outbox").join("new"))
            .unwrap()
            .map(|e| common::Sent::parse(&std::fs::read(e.unwrap().path()).unwrap()))
            .collect();
        assert_eq!(sent.len(), want, "quiet: {quiet}");
        if let Some(g) = sent.iter().find(|m| m.to_is("genogien@game.test")) {
            assert_eq!(g.subject, "Genogien helgformulär");
            assert!(g.text.contains("ORDRAR"), "{}", g.text);
        }
        if !quiet {
            let a = sent.iter().find(|m| m.to_is("afani@game.test")).unwrap();
            assert_eq!(a.subject, "Afani form");
        }
    }
}

/// One mail stored before a pause began and one during it both wait when a tick comes
/// in the pause: the first is handled then, the second only once the game goes on —
/// a batch of handled mail never reaches across the start of a pause.
#[tokio::test]
async fn a_batch_takes_no_mail_received_after_a_pause_began() {
    let g = Game::start("2026-11-24T12:00:00+01:00").await;
    let store_at = |when: &str| {
        g.clock.set(common::at(when));
        pbemd::app::intake::maildir_once(&g.app, &g.inbox)
    };
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "Före pausen",
    );
    store_at("2026-11-24T13:00:00+01:00").await.unwrap();
    pbemd::app::season_calendar::pause(
        &g.app,
        Some(common::at("2026-11-25T13:00:00+01:00")),
        "the GM travels",
        Some(common::at("2026-11-24T14:00:00+01:00")),
    )
    .await
    .unwrap();
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "Under pausen",
    );
    store_at("2026-11-24T15:00:00+01:00").await.unwrap();
    let to_afani = |g: &Game| {
        g.outbox()
            .into_iter()
            .filter(|m| m.to_is("afani@game.test"))
            .map(|m| m.text)
            .collect::<Vec<_>>()
    };

    let r = g.tick("2026-11-24T16:00:00+01:00").await;
    assert_eq!(r.handled, 1, "only the mail from before the pause: {r:?}");
    let during = to_afani(&g);
    assert!(
        !during.iter().any(|t| t.contains("Under pausen")),
        "nothing sent in the pause reaches Afani in it: {during:?}"
    );

    let r = g.tick("2026-11-25T13:05:00+01:00").await;
    assert_eq!(r.handled, 1, "the kept mail once the game goes on: {r:?}");
    assert!(
        to_afani(&g).iter().any(|t| t.contains("Under pausen")),
        "delivered after the pause"
    );
}

/// Envoys from Genogien to Afani as fetched over IMAP, received at the given times.
fn fetched_envoys(times: &[&str]) -> Vec<pbemd::transport::imap::Fetched> {
    times
        .iter()
        .enumerate()
        .map(|(i, t)| pbemd::transport::imap::Fetched {
            uid: i as u32 + 1,
            raw: common::mail(
                "genogien@game.test",
                "Genogien skickar ett sändebud till Afani",
                &format!("Sändebud {i}"),
                &format!("order-{i}@players.test"),
            ),
            internal_date: Some(common::at(t)),
        })
        .collect()
}

/// The audit events of the envoys' queueing and the scheduled courier batch, in order.
async fn queued_and_batches(g: &Game) -> Vec<String> {
    event_kinds(g)
        .await
        .into_iter()
        .filter(|k| k == "courier_queued" || k == "schedule_courier_batch")
        .collect()
}

/// docs/gm/reliability.md, Time order: a batch fetched over IMAP is handled as it is
/// stored only when nothing is due before its last mail; a batch that reaches past a
/// schedule event (the evening courier batch at 18:00) waits for the worker, which
/// handles the mail before the event, fires it, then the mail after it.
#[tokio::test]
async fn a_fetched_batch_reaching_past_a_schedule_event_is_handled_in_time_order() {
    use pbemd::app::intake::store_fetched;
    let g = Game::start("2026-11-24T17:00:00+01:00").await;
    g.clock.set(common::at("2026-11-24T17:30:00+01:00"));
    let before = fetched_envoys(&["2026-11-24T17:10:00+01:00", "2026-11-24T17:20:00+01:00"]);
    let taken = store_fetched(&g.app, &before, (1, None), true)
        .await
        .unwrap();
    assert_eq!(
        (taken.stored, taken.handled, taken.delivered),
        (2, 2, 2),
        "nothing due before them: handled as stored"
    );

    let g = Game::start("2026-11-24T17:00:00+01:00").await;
    g.clock.set(common::at("2026-11-24T18:30:00+01:00"));
    let across = fetched_envoys(&["2026-11-24T17:30:00+01:00", "2026-11-24T18:10:00+01:00"]);
    let taken = store_fetched(&g.app, &across, (1, None), true)
        .await
        .unwrap();
    assert_eq!((taken.stored, taken.handled), (2, 0), "left to the worker");
    let r = g.tick("2026-11-24T18:30:00+01:00").await;
    assert_eq!((r.handled, r.delivered), (2, 2), "{r:?}");
    assert_eq!(
        queued_and_batches(&g).await,
        ["courier_queued", "schedule_courier_batch", "courier_queued"],
        "the 18:00 batch fires between the two mails"
    );
}

/// docs/gm/reliability.md, Time order: a batch fetched over IMAP that reaches across a
/// pause (09:30 to 09:40) is not handled as it is stored; the worker handles the mail
/// before the pause, the game goes on, then the mail after it.
#[tokio::test]
async fn a_fetched_batch_reaching_across_a_pause_is_handled_in_time_order() {
    use pbemd::app::intake::store_fetched;
    let g = Game::start("2026-11-24T09:00:00+01:00").await;
    pbemd::app::season_calendar::pause(
        &g.app,
        Some(common::at("2026-11-24T09:40:00+01:00")),
        "the GM travels",
        Some(common::at("2026-11-24T09:30:00+01:00")),
    )
    .await
    .unwrap();
    g.clock.set(common::at("2026-11-24T09:20:00+01:00"));
    let before = fetched_envoys(&["2026-11-24T09:10:00+01:00", "2026-11-24T09:15:00+01:00"]);
    let taken = store_fetched(&g.app, &before, (1, None), true)
        .await
        .unwrap();
    assert_eq!(
        (taken.stored, taken.handled),
        (2, 2),
        "all before the pause: handled as stored"
    );
    g.clock.set(common::at("2026-11-24T10:00:00+01:00"));
    let across: Vec<_> =
        fetched_envoys(&["2026-11-24T09:25:00+01:00", "2026-11-24T09:50:00+01:00"])
            .into_iter()
            .map(|mut f| {
                f.uid += 2;
                f.raw = String::from_utf8(f.raw)
                    .unwrap()
                    .replace("order-", "later-")
                    .into_bytes();
                f
            })
            .collect();
    let taken = store_fetched(&g.app, &across, (1, Some(2)), true)
        .await
        .unwrap();
    assert_eq!((taken.stored, taken.handled), (2, 0), "left to the worker");
    let r = g.tick("2026-11-24T10:00:00+01:00").await;
    assert_eq!(r.handled, 2, "{r:?}");
    let order: Vec<String> = event_kinds(&g)
        .await
        .into_iter()
        .filter(|k| k == "courier_queued" || k == "calendar_resumed")
        .collect();
    assert_eq!(
        order,
        [
            "courier_queued",
            "courier_queued",
            "courier_queued",
            "calendar_resumed",
            "courier_queued"
        ],
        "the game goes on between the two mails"
    );
}

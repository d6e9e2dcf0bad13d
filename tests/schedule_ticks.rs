//! The schedule driven by `tick`: every event fires once per instant, in order, is
//! caught up after downtime, survives a restart, and daylight-saving weekends neither
//! skip nor repeat a deadline.

mod common;

use chrono::{DateTime, Duration, Utc};
use common::{at, Game};
use pbemd::store::schedule;

async fn fired(g: &Game) -> Vec<(String, DateTime<Utc>)> {
    let mut c = g.app.store.conn().await.unwrap();
    schedule::fired(&mut c)
        .await
        .unwrap()
        .into_iter()
        .map(|(name, _, ms)| (name, pbemd::clock::from_ms(ms)))
        .collect()
}

async fn tick_hourly(g: &Game, from: &str, hours: i64) {
    let start = at(from);
    for h in 1..=hours {
        g.clock.set(start + Duration::hours(h));
        pbemd::app::tick::tick(&g.app).await.unwrap();
    }
}

#[tokio::test]
async fn r_mail_8_a_week_of_hourly_ticks_fires_every_event_once_in_order() {
    let start = "2026-11-23T00:00:00+01:00";
    let g = Game::start(start).await;
    tick_hourly(&g, start, 7 * 24).await;
    let got = fired(&g).await;
    let want: Vec<_> = g
        .app
        .schedule
        .due(at(start), at(start) + Duration::hours(7 * 24))
        .into_iter()
        .map(|d| (d.name, d.at))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        got.len(),
        19,
        "2 Monday + 10 courier + 3 Saturday + 2 reminders + 2 Sunday"
    );
    let mut keys = got.clone();
    keys.dedup();
    assert_eq!(keys.len(), got.len(), "no event fired twice");
    // Sunday 15:00 local is 14:00 UTC in winter.
    assert!(got.contains(&("form_close".into(), at("2026-11-29T14:00:00Z"))));
}

#[tokio::test]
async fn one_tick_across_a_weekend_catches_up_in_order() {
    let g = Game::start("2026-11-27T12:00:00+01:00").await;
    let r = g.tick("2026-11-30T13:00:00+01:00").await;
    let names: Vec<_> = fired(&g).await.into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "courier_evening",
            "courier_late",
            "courier_final",
            "weekday_close",
            "form_open",
            "reminder_morning",
            "reminder_last_call",
            "form_close",
            "resolve",
            "results",
            "weekday_open"
        ]
    );
    assert_eq!(r.events.len(), 11);
    // The weekend closed (round 2 began) before the results went out.
    let mut c = g.app.store.conn().await.unwrap();
    let (_, gs) = g.app.state(&mut c).await.unwrap();
    assert_eq!(gs.round, 2);
    let forms = pbemd::store::outbox::raw_of_kind(&mut c, "result_form")
        .await
        .unwrap();
    assert_eq!(forms.len(), 6, "six result forms");
}

#[tokio::test]
async fn events_fire_only_after_the_games_start() {
    // Started exactly at Monday 12:00: that instant's results do not fire.
    let g = Game::start("2026-11-23T12:00:00+01:00").await;
    g.tick("2026-11-23T17:00:00+01:00").await;
    assert!(fired(&g).await.is_empty());
}

#[tokio::test]
async fn a_restarted_game_fires_nothing_twice() {
    let start = "2026-11-23T00:00:00+01:00";
    let g = Game::start(start).await;
    tick_hourly(&g, start, 60).await;
    let before = fired(&g).await;
    // A new process on the same database and config, an hour later.
    let cfg = g.game_dir().join("pbemd.yaml");
    let Game { dir, app, .. } = g;
    app.store.close().await;
    drop(app);
    let g2 = Game::open_at(dir, &cfg, "2026-11-25T12:00:00+01:00", false).await;
    g2.tick("2026-11-25T13:00:00+01:00").await;
    tick_hourly(&g2, "2026-11-25T13:00:00+01:00", 24 * 5).await;
    let after = fired(&g2).await;
    assert_eq!(&after[..before.len()], &before[..]);
    let mut keys = after.clone();
    keys.sort();
    keys.dedup();
    assert_eq!(
        keys.len(),
        after.len(),
        "no event fired twice across the restart"
    );
    assert_eq!(
        after.len(),
        19 + 2,
        "the week plus the next Monday's two events"
    );
}

async fn dst_weekend(saturday_noon: &str, expected_close_utc: &str) {
    let g = Game::start(saturday_noon).await;
    tick_hourly(&g, saturday_noon, 50).await;
    let got = fired(&g).await;
    let closes: Vec<_> = got.iter().filter(|(n, _)| n == "form_close").collect();
    assert_eq!(closes.len(), 1, "{got:?}");
    assert_eq!(closes[0].1, at(expected_close_utc));
    let resolves = got.iter().filter(|(n, _)| n == "resolve").count();
    assert_eq!(resolves, 1);
    let results: Vec<_> = got.iter().filter(|(n, _)| n == "results").collect();
    assert_eq!(results.len(), 1, "{got:?}");
}

#[tokio::test]
async fn daylight_saving_ends_without_moving_or_repeating_the_deadline() {
    // Clocks go back 03:00 → 02:00 on Sunday 25 October 2026; 15:00 is then CET (UTC+1).
    dst_weekend("2026-10-24T12:00:00+02:00", "2026-10-25T14:00:00Z").await;
}

#[tokio::test]
async fn daylight_saving_begins_without_moving_or_skipping_the_deadline() {
    // Clocks go forward 02:00 → 03:00 on Sunday 29 March 2026; 15:00 is then CEST (UTC+2).
    dst_weekend("2026-03-28T12:00:00+01:00", "2026-03-29T13:00:00Z").await;
}

#[test]
fn r_gen_2_a_round_is_a_week_weekday_mail_then_the_weekend_form_then_mondays_results() {
    use chrono::TimeZone;
    use chrono_tz::Europe::Stockholm;
    use pbemd::schedule::{EventKind, Schedule, Window};
    let local = |d, h, m| {
        Stockholm
            .with_ymd_and_hms(2026, 11, d, h, m, 0)
            .single()
            .unwrap()
            .with_timezone(&Utc)
    };
    let week = Schedule::default_week();
    // Monday 23 November 00:00 to Monday 30 November 12:00, both ends in.
    let mut kinds: Vec<EventKind> = week
        .due(local(22, 23, 59), local(30, 12, 0))
        .into_iter()
        .map(|d| d.kind)
        .collect();
    kinds.dedup();
    assert_eq!(
        kinds,
        [
            EventKind::Results,
            EventKind::WeekdayOpen,
            EventKind::CourierBatch,
            EventKind::WeekdayClose,
            EventKind::FormOpen,
            EventKind::Reminder,
            EventKind::FormClose,
            EventKind::Resolve,
            EventKind::Results,
            EventKind::WeekdayOpen,
        ]
    );
    assert_eq!(week.window_at(local(25, 12, 0)), Window::Weekday);
    assert_eq!(week.window_at(local(28, 12, 0)), Window::Weekend);
    assert_eq!(week.window_at(local(29, 16, 0)), Window::Closed);
    assert_eq!(week.window_at(local(30, 12, 0)), Window::Weekday);
}

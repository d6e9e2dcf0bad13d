//! `pbemd tick --now T`: one full pass as if the time were T — ingest every waiting
//! mail (received at T), then handle the stored mail and the schedule's events in time
//! order up to T, make due deliveries, flush the outbox — and return what was done.
//!
//! Time runs in one order: a schedule event due before a mail was received fires
//! before that mail is handled, so a tick (or the daemon after downtime) over a span
//! does exactly what a daemon running through the span would have done. An event at
//! an instant applies at that instant: a mail received at T is handled after every
//! event due at or before T.

use chrono::{DateTime, Duration, Utc};

use super::{courier, intake, process, scheduler, season_calendar, sender, App, AppError, Result};
use crate::clock::from_ms;
use crate::config::{CourierMode, Inbound};
use crate::store::inbox;
use crate::transport::imap::ImapSession;
use crate::transport::maildir::Maildir;

/// What one tick did.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct TickReport {
    pub stored: usize,
    pub handled: usize,
    pub events: Vec<String>,
    pub delivered: usize,
    pub sent: usize,
    pub send_failures: usize,
    /// Units of work (mails, courier messages) that failed in this tick and now wait
    /// for the GM.
    pub parked: usize,
}

/// Refuse a `now` before the game's latest one (the game's time never runs backwards)
/// or, unless forced, further past it than `limits.max_tick_span_days` (a mistyped year
/// would fire months of events).
pub async fn check_now(app: &App, now: DateTime<Utc>, force: bool) -> Result<()> {
    let mut conn = app.store.conn().await?;
    let last = scheduler::last_now(app, &mut conn).await?;
    // The state brings the schedule up to the calendar (for the count below).
    app.state(&mut conn).await?;
    drop(conn);
    if now < last {
        return Err(AppError::Refused(format!(
            "--now {} is before the game's latest time {}; the game's time never runs backwards",
            app.game_time(now),
            app.game_time(last)
        )));
    }
    let days = app.cfg.limits.max_tick_span_days;
    if force || now - last <= Duration::days(i64::from(days)) {
        return Ok(());
    }
    let events = app.schedule.due(last, now).len();
    Err(AppError::Refused(format!(
        "--now {} is {} days after the game's latest time {} (more than \
         limits.max_tick_span_days = {days}); it would fire {events} schedule events. \
         Check the date, or run again with --force",
        app.game_time(now),
        (now - last).num_days(),
        app.game_time(last),
    )))
}

/// One unit of work in time order.
#[derive(Debug)]
pub enum Step {
    /// A batch of `handled` stored mails was handled (or parked), and `delivered`
    /// envoys and merchants went out with the courier batch after it (`immediate`
    /// mode).
    Mail { handled: usize, delivered: usize },
    /// The schedule events of one instant fired.
    Events(scheduler::Fired),
    /// Nothing waits up to `now`.
    Idle,
}

/// Do the next unit of work up to `now`: the waiting mail received first, unless a
/// schedule event is due at or before its receipt, which then fires first.
pub async fn step(app: &App, now: DateTime<Utc>) -> Result<Step> {
    step_as(app, now, true).await
}

/// `step` for one replica of several: `scheduler` says whether it holds the scheduler
/// lease. Without it an event due next is left to the holder (`Idle`), and a mail is
/// claimed only if it was received before the next event (so no replica handles a mail
/// past a deadline before the holder has fired that deadline's event).
pub async fn step_as(app: &App, now: DateTime<Utc>, scheduler: bool) -> Result<Step> {
    let mut conn = app.store.conn().await?;
    let last = scheduler::last_now(app, &mut conn).await?;
    let received = inbox::next_waiting_at(&mut conn).await?.map(from_ms);
    let (_, gs) = app.state(&mut conn).await?;
    drop(conn);
    // Mail that came while the game stood still is handled when it goes on; the
    // pause's own end counts as an event.
    let mail_at = received
        .map(|m| season_calendar::handled_at(app, &gs, m))
        .filter(|m| *m <= now);
    // A batch takes no mail received once the game began to stand still after the
    // first one: that mail waits for the game to go on.
    let still = received.and_then(|m| season_calendar::next_still_after(app, &gs, m));
    let event_at = app
        .schedule
        .next_after(last)
        .map(|d| d.at)
        .into_iter()
        .chain(season_calendar::resume_at(&gs))
        .min()
        .filter(|at| *at <= now);
    let before = event_at
        .into_iter()
        .chain(still)
        .min()
        .map(crate::clock::to_ms);
    match (mail_at, event_at) {
        (Some(m), Some(e)) if m < e => handle_mail(app, before).await,
        (Some(_), None) => handle_mail(app, before).await,
        (_, Some(_)) if !scheduler => Ok(Step::Idle),
        (_, Some(e)) => Ok(Step::Events(scheduler::fire_due(app, e).await?)),
        (None, None) => Ok(Step::Idle),
    }
}

async fn handle_mail(app: &App, before: Option<i64>) -> Result<Step> {
    // In `immediate` mode the courier batch runs in the batch's own transaction.
    let (handled, routed) = process::process_and_route_before(app, before).await?;
    if handled == 0 {
        return Ok(Step::Idle);
    }
    let delivered = match routed {
        Some(report) => report.delivered,
        None if app.cfg.courier.mode == CourierMode::Immediate => {
            courier::batch_now(app).await?.delivered
        }
        None => 0,
    };
    Ok(Step::Mail { handled, delivered })
}

/// One full pass at the app clock's `now`.
pub async fn tick(app: &App) -> Result<TickReport> {
    tick_with(app, false).await
}

/// One full pass at the app clock's `now`; `force` lifts the span limit.
pub async fn tick_with(app: &App, force: bool) -> Result<TickReport> {
    let now = app.now();
    check_now(app, now, force).await?;
    let parked_before = parked(app).await?;
    let taken = match &app.cfg.inbound {
        Inbound::Maildir(dir) => intake::Taken {
            stored: intake::maildir_once(app, &Maildir::open(dir)?).await?,
            ..intake::Taken::default()
        },
        Inbound::Imap(i) => {
            let mut s = ImapSession::connect(&i.params).await?;
            let taken = intake::imap_pass(app, &mut s, i.fetch_batch).await?;
            let _ = s.logout().await;
            taken
        }
    };
    // A batch fetched over IMAP may have been handled as it was stored.
    let mut report = TickReport {
        stored: taken.stored,
        handled: taken.handled,
        delivered: taken.delivered,
        ..TickReport::default()
    };
    loop {
        match step(app, now).await? {
            Step::Mail { handled, delivered } => {
                report.handled += handled;
                report.delivered += delivered;
            }
            Step::Events(fired) => {
                report.delivered += fired.delivered;
                report.events.extend(
                    fired
                        .events
                        .into_iter()
                        .map(|d| format!("{} {}", app.game_time(d.at), d.name)),
                );
            }
            Step::Idle => break,
        }
    }
    // Courier messages queued meanwhile (`gm approve`, `gm retry`) are decided now.
    if app.cfg.courier.mode == CourierMode::Immediate {
        report.delivered += courier::batch_now(app).await?.delivered;
    }
    // Nothing more is due: the game's time moves on to `now`.
    scheduler::fire_due(app, now).await?;
    let (sent, send_failures) = sender::flush_all(app).await?;
    report.sent = sent;
    report.send_failures = send_failures;
    report.parked = parked(app).await?.saturating_sub(parked_before);
    // The pass is over: the write-ahead log goes back into the file now (SQLite), as
    // the daemon does when it runs out of work.
    app.store.checkpoint().await?;
    Ok(report)
}

async fn parked(app: &App) -> Result<usize> {
    let mut conn = app.store.conn().await?;
    let n = crate::store::messages::parked_count(&mut conn).await?;
    Ok(usize::try_from(n).unwrap_or(0))
}

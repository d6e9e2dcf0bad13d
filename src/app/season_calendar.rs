//! The season's calendar in the app: `gm pause`, `gm resume`, `gm extend`, the
//! pause's end by itself, mail that comes while the game is paused, and the
//! schedule as the calendar has moved it.
//!
//! The calendar is data in the game state (`GameState::calendar`), so a pause, a
//! resume or an extension is saved in the same transaction as its audit event and
//! the mails that tell the realms. The schedule room stays pure: it is given the
//! calendar's spans ([`Schedule::with_stops`]); [`CalendarSchedule`] keeps the
//! schedule that matches the state last read, so every question the app asks of
//! `app.schedule` is answered with the events where the calendar put them.
//!
//! Decisions where the issue is silent:
//! - a pause begins at the moment the GM gives it (never before the game's latest
//!   time); events due up to that moment still fire, later ones wait;
//! - its length is counted on the local wall clock, in whole minutes rounded up, so a
//!   15:00 deadline is still at 15:00 after a pause over a daylight-saving change;
//! - mail received during a pause (or in skipped dates) is stored, answered with a
//!   notice, and handled when the game resumes by the window in force then (the one
//!   the pause interrupted);
//! - a courier batch, a reminder or a delivery due during the pause waits with the
//!   rest of the week;
//! - `gm extend` holds the form deadline (for all) or the resolve (for one realm's
//!   late form; the deadline's own event, the GM's list of missing forms, waits with
//!   it when both share an instant): what was due in the held span fires at its end,
//!   in order; later times do not move. During the hold only the realms given the
//!   late deadline may still send their form;
//! - `gm pause --until` while paused moves the pause's end; a pause cannot begin
//!   inside a running extension, and `gm extend` is refused while paused.

use std::sync::RwLock;

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use serde_json::json;

use super::{scheduler, App, AppError, Result};
use crate::clock;
use crate::game::{GameState, Lang};
use crate::mail::compose::Outgoing;
use crate::render::season_calendar as text;
use crate::schedule::calendar::{Extension, Pause};
use crate::schedule::{
    Calendar, Due, EventKind, EventSpec, Schedule, Stop, StopKind, Window, WindowSpan,
};
use crate::store::{self, events, Conn};

/// The schedule file's week, and the same week moved by the calendar of the state
/// read last.
pub struct CalendarSchedule {
    base: Schedule,
    current: RwLock<(Calendar, Schedule)>,
    /// The window asked for last and where it holds: a batch of mail received within
    /// minutes is answered from it, not by walking the week's events again per mail.
    /// Emptied whenever the calendar moves.
    window: std::sync::Mutex<Option<WindowSpan>>,
}

impl CalendarSchedule {
    pub fn new(base: Schedule) -> CalendarSchedule {
        let moved = base.with_stops(&[]);
        CalendarSchedule {
            base,
            current: RwLock::new((Calendar::default(), moved)),
            window: std::sync::Mutex::new(None),
        }
    }

    /// Whether the calendar last read from the state holds a pause (the GM pauses by a
    /// command that writes the state, and the scheduler reads the state before it fires
    /// anything, so a pause is never missed for long).
    pub fn paused(&self) -> bool {
        self.read().0.pause.is_some()
    }

    /// Follow the state's calendar (called whenever the app reads the state).
    pub fn refresh(&self, gs: &GameState) {
        if self.read().0 == gs.calendar {
            return;
        }
        let moved = self.for_calendar(&gs.calendar);
        // The window cache is taken first, as `window_at` takes it: no two locks are
        // ever taken in the other order.
        let mut cached = self.window.lock().unwrap_or_else(|p| p.into_inner());
        let mut w = self.current.write().unwrap_or_else(|p| p.into_inner());
        *w = (gs.calendar.clone(), moved);
        *cached = None;
    }

    /// The week moved by `cal` (and the file's skipped dates).
    pub fn for_calendar(&self, cal: &Calendar) -> Schedule {
        self.base.with_stops(&cal.all_stops())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, (Calendar, Schedule)> {
        self.current.read().unwrap_or_else(|p| p.into_inner())
    }

    fn now(&self) -> Schedule {
        self.read().1.clone()
    }

    /// The schedule file as written.
    pub fn base(&self) -> &Schedule {
        &self.base
    }

    pub fn timezone(&self) -> Tz {
        self.base.timezone()
    }

    pub fn events(&self) -> &[EventSpec] {
        self.base.events()
    }

    pub fn due(&self, after: DateTime<Utc>, up_to: DateTime<Utc>) -> Vec<Due> {
        self.now().due(after, up_to)
    }

    pub fn next_after(&self, t: DateTime<Utc>) -> Option<Due> {
        self.now().next_after(t)
    }

    pub fn window_at(&self, t: DateTime<Utc>) -> Window {
        let mut cached = self.window.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(span) = cached.filter(|span| span.holds_at(t)) {
            return span.window;
        }
        let span = self.read().1.window_span(t);
        *cached = Some(span);
        span.window
    }

    pub fn next_opening(&self, w: Window, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.now().next_opening(w, t)
    }

    pub fn next_closing(&self, w: Window, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.now().next_closing(w, t)
    }
}

/// Parse `--until`: RFC 3339, or a date `YYYY-MM-DD` meaning 00:00 that day in the
/// game's zone. Anything else is refused, quoted.
pub fn parse_until(s: &str, tz: Tz) -> Result<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&Utc));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Ok(crate::schedule::local_to_instant(
            tz,
            d.and_time(Default::default()),
        ));
    }
    Err(AppError::Refused(format!(
        "`{s}` is neither a date YYYY-MM-DD (00:00 that day, {}) nor an RFC 3339 time; \
         write e.g. 2027-01-04 or 2027-01-04T12:00:00+01:00",
        tz.name()
    )))
}

/// The instant the GM acts at: `at` (for replays and tests) or now, never before the
/// game's latest time.
async fn acting_time(
    app: &App,
    conn: &mut Conn,
    at: Option<DateTime<Utc>>,
) -> Result<DateTime<Utc>> {
    let last = scheduler::last_now(app, conn).await?;
    match at {
        Some(t) if t < last => Err(AppError::Refused(format!(
            "--at {} is before the game's latest time {}; the game's time never runs backwards",
            app.game_time(t),
            app.game_time(last)
        ))),
        Some(t) => Ok(t),
        None => Ok(app.now().max(last)),
    }
}

async fn commit(tx: store::Tx) -> Result<()> {
    tx.commit().await.map_err(|source| {
        AppError::Store(store::StoreError::Query {
            what: "commit a calendar change",
            source,
        })
    })
}

/// One mail to every playing realm; returns the realms told.
async fn tell_all(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    key: &str,
    body: impl Fn(Lang) -> String,
) -> Result<Vec<String>> {
    let mut told = Vec::new();
    for realm in gs
        .realms
        .iter()
        .filter(|r| !r.emails.is_empty() && !r.eliminated)
    {
        tell(app, conn, gs, &realm.name, key, body(realm.language)).await?;
        told.push(realm.name.clone());
    }
    Ok(told)
}

async fn tell(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    realm: &str,
    key: &str,
    body: String,
) -> Result<()> {
    let Some(r) = gs.realm(realm) else {
        return Ok(());
    };
    let o = Outgoing {
        kind: "calendar",
        dedup_key: format!("{key}:{realm}"),
        to: r.emails.clone(),
        subject: text::subject(r.language, realm),
        body,
        in_reply_to: None,
    };
    app.enqueue(conn, &o).await?;
    Ok(())
}

/// What `gm pause` did.
#[derive(Debug)]
pub struct Paused {
    pub since: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub told: Vec<String>,
}

/// `gm pause`: the game stands still from now until `until` (at most
/// `season.max_pause_days`, which is also the end when none is given).
pub async fn pause(
    app: &App,
    until: Option<DateTime<Utc>>,
    reason: &str,
    at: Option<DateTime<Utc>>,
) -> Result<Paused> {
    let reason = super::fault::clean_text(reason.trim(), 500).replace(['\n', '\r', '\t'], " ");
    let mut tx = app.store.begin().await?;
    let t = acting_time(app, &mut tx, at).await?;
    let (version, gs) = app.state(&mut tx).await?;
    let mut gs = (*gs).clone();
    let (pause, kind) = new_pause(app, &gs.calendar, t, until, reason)?;
    let (since, until) = (pause.since, pause.until);
    let reason = pause.reason.clone();
    gs.calendar.pause = Some(pause);
    let v = app
        .save_state(&mut tx, version, &gs, "the GM paused the game")
        .await?;
    let key = format!("pause:{}:{}", clock::to_ms(since), clock::to_ms(until));
    let told = tell_all(app, &mut tx, &gs, &key, |lang| {
        text::paused(lang, &app.local(until, lang), &reason)
    })
    .await?;
    let detail =
        json!({"by": "gm", "since": since, "until": until, "reason": reason, "told": told});
    audit(app, &mut tx, &gs, kind, v, &detail).await?;
    commit(tx).await?;
    tracing::info!(%since, %until, round = gs.round, kind, "the GM paused the game");
    Ok(Paused { since, until, told })
}

/// The pause `gm pause` sets at `t`, and its audit kind: a new one (`gm_pause`), or,
/// when the game is paused already and `--until` is given, the same pause with its end
/// moved (`gm_pause_moved`; the reason kept unless a new one is given).
fn new_pause(
    app: &App,
    cal: &Calendar,
    t: DateTime<Utc>,
    until: Option<DateTime<Utc>>,
    reason: String,
) -> Result<(Pause, &'static str)> {
    match (&cal.pause, until) {
        (Some(p), None) => Err(AppError::Refused(format!(
            "the game is already paused (since {}, until {}); `pbemd gm resume` ends the \
             pause, `pbemd gm pause --until DATE` moves its end",
            app.game_time(p.since),
            app.game_time(p.until)
        ))),
        (Some(_), Some(u)) if u <= t => Err(AppError::Refused(format!(
            "--until {} is already past (now {})",
            app.game_time(u),
            app.game_time(t)
        ))),
        (Some(p), Some(u)) => {
            let until = pause_end(app, p.since, Some(u))?;
            let reason = if reason.is_empty() {
                p.reason.clone()
            } else {
                reason
            };
            let moved = Pause {
                since: p.since,
                until,
                reason,
            };
            Ok((moved, "gm_pause_moved"))
        }
        (None, u) => {
            refuse_during_hold(app, cal, t)?;
            let until = pause_end(app, t, u)?;
            Ok((
                Pause {
                    since: t,
                    until,
                    reason,
                },
                "gm_pause",
            ))
        }
    }
}

fn refuse_during_hold(app: &App, cal: &Calendar, t: DateTime<Utc>) -> Result<()> {
    let hold = cal.extension.as_ref().and_then(|e| e.hold.as_ref());
    match hold.filter(|h| t < h.to) {
        Some(h) => Err(AppError::Refused(format!(
            "this weekend's deadline is extended until {}; pause after it, or shorten the \
             extension with `pbemd gm extend` first",
            app.game_time(h.to)
        ))),
        None => Ok(()),
    }
}

fn pause_end(
    app: &App,
    since: DateTime<Utc>,
    until: Option<DateTime<Utc>>,
) -> Result<DateTime<Utc>> {
    let days = app.cfg.season.max_pause_days;
    let longest = since
        .checked_add_signed(Duration::days(i64::from(days)))
        .ok_or_else(|| AppError::Refused("the pause would end beyond the calendar".into()))?;
    match until {
        None => Ok(longest),
        Some(u) if u <= since => Err(AppError::Refused(format!(
            "--until {} is not after the pause's start {}",
            app.game_time(u),
            app.game_time(since)
        ))),
        Some(u) if u > longest => Err(AppError::Refused(format!(
            "--until {} is more than season.max_pause_days = {days} days after the pause's \
             start {}; pause until {} at the latest, or raise the setting",
            app.game_time(u),
            app.game_time(since),
            app.game_time(longest)
        ))),
        Some(u) => Ok(u),
    }
}

async fn audit(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    kind: &str,
    version: i64,
    detail: &serde_json::Value,
) -> Result<()> {
    let at = clock::to_ms(app.now());
    let d = detail.to_string();
    events::log(conn, at, i64::from(gs.round), kind, None, Some(version), &d).await?;
    Ok(())
}

/// What a resume did.
#[derive(Debug)]
pub struct Resumed {
    pub since: DateTime<Utc>,
    pub resumed_at: DateTime<Utc>,
    pub deadline: Option<DateTime<Utc>>,
    pub told: Vec<String>,
}

/// `gm resume`: the pause ends now; every later time moves by its length.
pub async fn resume(app: &App, at: Option<DateTime<Utc>>) -> Result<Resumed> {
    let mut tx = app.store.begin().await?;
    let t = acting_time(app, &mut tx, at).await?;
    let (version, gs) = app.state(&mut tx).await?;
    let Some(p) = gs.calendar.pause.clone() else {
        return Err(AppError::Refused("the game is not paused".into()));
    };
    if t < p.since {
        return Err(AppError::Refused(format!(
            "the pause begins only at {}",
            app.game_time(p.since)
        )));
    }
    let end = p.since + whole_minutes_up(t - p.since);
    let r = finish(app, &mut tx, version, &gs, end.min(p.until), "gm_resume").await?;
    commit(tx).await?;
    Ok(r)
}

/// The pause's length in whole minutes, rounded up.
fn whole_minutes_up(d: Duration) -> Duration {
    let ms = d.num_milliseconds().max(0);
    let minutes = ms.saturating_add(59_999) / 60_000;
    Duration::minutes(minutes)
}

/// End the pause at `end`: it becomes a decided span, the realms are told the new
/// deadline, and the end is audited as `kind`.
async fn finish(
    app: &App,
    conn: &mut Conn,
    version: i64,
    gs: &GameState,
    end: DateTime<Utc>,
    kind: &str,
) -> Result<Resumed> {
    let mut gs = gs.clone();
    let Some(p) = gs.calendar.pause.take() else {
        return Err(AppError::Refused("the game is not paused".into()));
    };
    gs.calendar.stops.push(Stop {
        from: p.since,
        to: end,
        kind: StopKind::Pause,
    });
    let v = app
        .save_state(conn, version, &gs, "the game resumed after a pause")
        .await?;
    let moved = app.schedule.for_calendar(&gs.calendar);
    let deadline = moved.next_closing(Window::Weekend, end);
    let key = format!("resume:{}", clock::to_ms(end));
    let told = tell_all(app, conn, &gs, &key, |lang| {
        let d = deadline.map(|t| app.local(t, lang)).unwrap_or_default();
        text::resumed(lang, &d)
    })
    .await?;
    let minutes = wall_minutes(app, p.since, end);
    let detail = json!({"by": if kind == "gm_resume" { "gm" } else { "schedule" },
        "since": p.since, "planned_until": p.until, "resumed_at": end,
        "paused_minutes": minutes, "reason": p.reason, "deadline": deadline, "told": told});
    audit(app, conn, &gs, kind, v, &detail).await?;
    tracing::info!(since = %p.since, resumed_at = %end, minutes, kind, "the game resumes");
    Ok(Resumed {
        since: p.since,
        resumed_at: end,
        deadline,
        told,
    })
}

/// Minutes from `a` to `b` on the game zone's wall clock (how far a pause moves
/// later times).
pub fn wall_minutes(app: &App, a: DateTime<Utc>, b: DateTime<Utc>) -> i64 {
    let tz = app.schedule.timezone();
    (b.with_timezone(&tz).naive_local() - a.with_timezone(&tz).naive_local()).num_minutes()
}

/// Name and kind under which the pause's own end is claimed in `schedule_fired`.
pub const RESUME_EVENT: &str = "calendar_resume";

/// When the pause in force ends by itself.
pub fn resume_at(gs: &GameState) -> Option<DateTime<Utc>> {
    gs.calendar.pause.as_ref().map(|p| p.until)
}

/// End the pause by itself if its end is at or before `up_to`: exactly once (its
/// firing is claimed with the schedule's events), in its own transaction.
pub async fn resume_due(app: &App, up_to: DateTime<Utc>) -> Result<bool> {
    if !app.schedule.paused() {
        // No pause known: the state (large in a large game) is not read again for it.
        return Ok(false);
    }
    let mut tx = app.store.begin().await?;
    let (version, gs) = app.state(&mut tx).await?;
    let Some(until) = resume_at(&gs).filter(|u| *u <= up_to) else {
        return Ok(false);
    };
    let now = clock::to_ms(app.now());
    let claimed =
        store::schedule::claim(&mut tx, RESUME_EVENT, "resume", clock::to_ms(until), now).await?;
    if claimed {
        finish(app, &mut tx, version, &gs, until, "calendar_resumed").await?;
    }
    commit(tx).await?;
    Ok(claimed)
}

/// The span of no game that instant `t` lies in: its end and reason (the GM's pause,
/// or skipped dates of the schedule file).
pub fn no_game_at(app: &App, gs: &GameState, t: DateTime<Utc>) -> Option<(DateTime<Utc>, String)> {
    if let Some(p) = gs.calendar.paused_at(t) {
        return Some((p.until, p.reason.clone()));
    }
    let tz = app.schedule.timezone();
    app.schedule
        .base()
        .skip_at(t)
        .map(|s| (s.stop(tz).to, s.reason.clone()))
}

/// Whether the game stands still now (a pause, skipped dates).
pub async fn stands_still(app: &App, conn: &mut Conn) -> Result<bool> {
    let (_, gs) = app.state(conn).await?;
    Ok(no_game_at(app, &gs, app.now()).is_some())
}

/// When a mail received at `received` is handled: then, or if it came while the game
/// stood still (a pause, skipped dates), when the game went on.
pub fn handled_at(app: &App, gs: &GameState, received: DateTime<Utc>) -> DateTime<Utc> {
    still_spans(app, gs).iter().fold(
        received,
        |t, s| if s.from <= t && t < s.to { s.to } else { t },
    )
}

/// The first instant after `received` at which the game begins to stand still (a
/// pause, skipped dates), if any: mail received from then on waits for the game to go
/// on, so one batch never takes mail from both sides of it.
pub fn next_still_after(
    app: &App,
    gs: &GameState,
    received: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    still_spans(app, gs)
        .iter()
        .map(|s| s.from)
        .filter(|from| *from > received)
        .min()
}

/// The spans in which the game stands still, in order of their start.
fn still_spans(app: &App, gs: &GameState) -> Vec<Stop> {
    let tz = app.schedule.timezone();
    let mut spans: Vec<Stop> = gs
        .calendar
        .all_stops()
        .into_iter()
        .filter(|s| s.kind == StopKind::Pause)
        .collect();
    spans.extend(app.schedule.base().skips().iter().map(|s| s.stop(tz)));
    spans.sort_by_key(|s| s.from);
    spans
}

/// The window a realm's mail at `t` is judged by: the schedule's, except after an
/// extended deadline of this round, when only the realms it was extended for may
/// still send their form.
pub fn window_for(app: &App, gs: &GameState, realm: &str, t: DateTime<Utc>) -> Window {
    let w = app.schedule.window_at(t);
    let Some(e) = gs.calendar.extension_of(gs.round) else {
        return w;
    };
    if t < e.deadline {
        return w;
    }
    match gs.calendar.late_until(gs.round, realm) {
        Some(l) if t < l => Window::Weekend,
        _ if w == Window::Weekend => Window::Closed,
        _ => w,
    }
}

/// `realm`'s form deadline as it stands at `t`, in the round of `gs`: the schedule's,
/// or the later one `gm extend` gave this realm (or everyone) in this round. A realm
/// given none keeps the schedule's deadline, although the schedule's own events wait
/// for the late forms (its `form_close` fires at the end of the hold, so
/// `app.schedule.next_closing` alone would tell every realm the late deadline). Once
/// the realm's deadline of this round has passed, its next one. `None`: a realm the
/// GM gave no late deadline (the public trade board).
///
/// Every text a realm reads that names its form deadline (receipts, reminders, Monday
/// forms, pages) asks this, as [`window_for`] judges its mail by the same deadline.
pub fn form_deadline(
    app: &App,
    gs: &GameState,
    realm: Option<&str>,
    t: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    let next = |t| app.schedule.next_closing(Window::Weekend, t);
    let Some(e) = gs.calendar.extension_of(gs.round) else {
        return next(t);
    };
    let own = realm
        .and_then(|r| gs.calendar.late_until(gs.round, r))
        .or(e.all_until)
        .unwrap_or(e.deadline);
    if t < own {
        return Some(own);
    }
    // Past it: the next round's, after the span the schedule waits in.
    next(e.hold.as_ref().map_or(t, |h| h.to.max(t)))
}

/// For a form refused after a late deadline the GM gave this realm, once the round
/// it was for has been resolved: the note that says so.
pub fn late_form_note(
    app: &App,
    gs: &GameState,
    realm: &str,
    t: DateTime<Utc>,
    lang: Lang,
) -> Option<String> {
    let e = gs.calendar.extension.as_ref()?;
    if e.round.checked_add(1) != Some(gs.round) {
        return None;
    }
    let until = gs.calendar.late_until(e.round, realm).filter(|l| t >= *l)?;
    Some(text::late_form_refused(
        lang,
        &app.local(until, lang),
        e.round,
    ))
}

/// Reply to a mail stored while the game stands still: the game is paused, why, and
/// until when (once per stored mail). Mail from no known realm is left to the GM queue.
pub async fn notice_if_paused(app: &App, inbox_id: i64, raw: &[u8]) {
    // The mail is stored already: a failure here costs the notice, never the mail.
    if let Err(e) = paused_notice(app, inbox_id, raw).await {
        tracing::warn!(error = %e, inbox_id, "the paused notice could not be queued");
    }
}

/// The mail read, and the realm it is from with its language; `None` for mail from
/// no known realm (left to the GM queue) or no mail at all.
fn from_realm(
    app: &App,
    gs: &GameState,
    raw: &[u8],
) -> Option<(crate::mail::parse::Inbound, String, Lang)> {
    use crate::mail::classify::{classify, Classified};
    let mut mail = crate::mail::parse::parse_inbound(raw).ok()?;
    // A mail not proven the realm's (`sender_check`) gets no notice either.
    let auth = super::sender_auth::prepare(app, gs, &mut mail);
    let dir = app.directory(gs);
    match classify(&mail, &dir, app.cfg.limits.max_mail_bytes) {
        Classified::Accepted { realm, lang, .. } | Classified::Refused { realm, lang, .. }
            if auth.doubt(app.cfg.sender_check, gs, &realm).is_none() =>
        {
            Some((mail, realm, lang))
        }
        _ => None,
    }
}

async fn paused_notice(app: &App, inbox_id: i64, raw: &[u8]) -> Result<()> {
    let mut tx = app.store.begin().await?;
    let gs = match app.state(&mut tx).await {
        Ok((_, gs)) => gs,
        Err(AppError::NotStarted) => return Ok(()),
        Err(e) => return Err(e),
    };
    let received = app.now();
    let Some((until, reason)) = no_game_at(app, &gs, received) else {
        return Ok(());
    };
    let Some((mail, realm, lang)) = from_realm(app, &gs, raw) else {
        return Ok(());
    };
    let subject = crate::mail::subject::shown(mail.subject.as_deref().unwrap_or("").trim());
    let subject = super::fault::clean_text(&subject, 200);
    let body = text::mail_while_paused(
        lang,
        &subject,
        &app.local(received, lang),
        &app.local(until, lang),
        &reason,
    );
    let o = Outgoing {
        kind: "paused_notice",
        // One notice per realm and hour of the pause: a flood during a pause is
        // stored and audited mail by mail, but answered once an hour.
        dedup_key: format!(
            "paused:{}:{realm}:{}",
            clock::to_ms(until),
            clock::to_ms(received) / 3_600_000
        ),
        to: gs
            .realm(&realm)
            .map(|r| r.emails.clone())
            .unwrap_or_default(),
        subject: text::subject(lang, &realm),
        body,
        in_reply_to: mail.message_id.clone(),
    };
    // Counted with the realm's other replies (flood control).
    super::season_notices::flood::enqueue_reply(app, &mut tx, &realm, &o).await?;
    let detail = json!({"inbox_id": inbox_id, "until": until, "reason": reason}).to_string();
    let at = clock::to_ms(received);
    events::log(
        &mut tx,
        at,
        i64::from(gs.round),
        "mail_while_paused",
        Some(&realm),
        Some(inbox_id),
        &detail,
    )
    .await?;
    commit(tx).await
}

/// The Monday form's lines for skipped dates starting within four weeks of `now`
/// (or under way), in the realm's language.
pub fn form_notes(app: &App, lang: Lang, now: DateTime<Utc>) -> Vec<String> {
    let tz = app.schedule.timezone();
    let horizon = now + Duration::weeks(4);
    app.schedule
        .base()
        .skips()
        .iter()
        .filter(|s| {
            let span = s.stop(tz);
            span.to > now && span.from <= horizon
        })
        .map(|s| {
            let dates = crate::schedule::calendar::describe_dates(s.from, s.to, lang == Lang::Sv);
            text::no_game(lang, &dates, &s.reason)
        })
        .collect()
}

/// A Monday form made at `now` with the coming skipped dates above it.
pub fn with_form_notes(app: &App, lang: Lang, now: DateTime<Utc>, form: String) -> String {
    let notes = form_notes(app, lang, now);
    if notes.is_empty() {
        return form;
    }
    format!("{}\n\n{form}", notes.join("\n"))
}

/// What `gm extend` did.
#[derive(Debug)]
pub struct Extended {
    pub deadline: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub hold: Option<Stop>,
    pub told: Vec<String>,
}

/// `gm extend [--realm R] HOURS`: this weekend's form deadline moves HOURS (on the
/// local clock) for everyone, or R's form is accepted until then; the resolve waits
/// for the latest such deadline.
pub async fn extend(
    app: &App,
    realm: Option<&str>,
    hours: u32,
    at: Option<DateTime<Utc>>,
) -> Result<Extended> {
    let max = app.cfg.season.max_extend_hours;
    if hours == 0 || hours > max {
        return Err(AppError::Refused(format!(
            "HOURS must be 1 to season.max_extend_hours = {max}; got {hours}"
        )));
    }
    let mut tx = app.store.begin().await?;
    let t = acting_time(app, &mut tx, at).await?;
    let last = scheduler::last_now(app, &mut tx).await?;
    let (version, gs) = app.state(&mut tx).await?;
    if let Some(p) = &gs.calendar.pause {
        return Err(AppError::Refused(format!(
            "the game is paused until {}; `pbemd gm resume` first (the resume tells every \
             realm the new deadline)",
            app.game_time(p.until)
        )));
    }
    let mut gs = (*gs).clone();
    let plan = plan_extension(app, &mut tx, &gs, realm, hours, (t, last)).await?;
    gs.calendar.extension = Some(plan.extension.clone());
    gs.calendar.stops = plan.stops;
    let v = app
        .save_state(&mut tx, version, &gs, "the GM extended the form deadline")
        .await?;
    let (deadline, until) = (plan.deadline, plan.until);
    let told = tell_extension(app, &mut tx, &gs, realm, until).await?;
    let hold = plan.extension.hold.clone();
    let detail = json!({"by": "gm", "realm": realm, "hours": hours, "deadline": deadline,
        "until": until, "hold": hold, "told": told})
    .to_string();
    let (at_ms, round) = (clock::to_ms(app.now()), i64::from(gs.round));
    events::log(&mut tx, at_ms, round, "gm_extend", realm, Some(v), &detail).await?;
    commit(tx).await?;
    tracing::info!(?realm, hours, %until, round, "the GM extended the deadline");
    Ok(Extended {
        deadline,
        until,
        hold,
        told,
    })
}

/// Tell every realm the new deadline, or the one realm its late deadline.
async fn tell_extension(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    realm: Option<&str>,
    until: DateTime<Utc>,
) -> Result<Vec<String>> {
    let key = format!("extend:{}:{}", gs.round, clock::to_ms(until));
    let Some(r) = realm else {
        return tell_all(app, conn, gs, &key, |lang| {
            text::extended(lang, &app.local(until, lang), false)
        })
        .await;
    };
    let lang = gs.realm(r).map(|x| x.language).unwrap_or_default();
    let body = text::extended(lang, &app.local(until, lang), true);
    tell(app, conn, gs, r, &key, body).await?;
    Ok(vec![r.to_string()])
}

struct Plan {
    extension: Extension,
    stops: Vec<Stop>,
    deadline: DateTime<Utc>,
    until: DateTime<Utc>,
}

/// The extension after this one, and the spans.
/// The extension after this one, and the decided spans.
async fn plan_extension(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    realm: Option<&str>,
    hours: u32,
    (t, last): (DateTime<Utc>, DateTime<Utc>),
) -> Result<Plan> {
    let mut cal = gs.calendar.clone();
    // An earlier round's extension is history: its hold stays in the decided spans.
    if let Some(old) = cal.extension.take() {
        if old.round == gs.round {
            cal.extension = Some(Extension { hold: None, ..old });
        } else {
            cal.stops.extend(old.hold);
        }
    }
    let (deadline, resolve) = deadline_and_resolve(app, conn, &cal, last).await?;
    let until = late_deadline(app, deadline, hours, t)?;
    let mut e = cal.extension.take().unwrap_or(Extension {
        round: gs.round,
        deadline,
        all_until: None,
        realms: Default::default(),
        hold: None,
    });
    match realm {
        None => e.all_until = Some(until),
        Some(r) => {
            e.realms.insert(r.to_string(), until);
        }
    }
    e.hold = hold_for(&e, resolve, last);
    Ok(Plan {
        extension: e,
        stops: cal.stops,
        deadline,
        until,
    })
}

/// This round's form deadline as the schedule has it (before any extension) and the
/// resolve that follows it.
async fn deadline_and_resolve(
    app: &App,
    conn: &mut Conn,
    cal: &Calendar,
    last: DateTime<Utc>,
) -> Result<(DateTime<Utc>, DateTime<Utc>)> {
    let moved = app.schedule.for_calendar(cal);
    let deadline = match &cal.extension {
        Some(e) => e.deadline,
        None => {
            let start = super::process::round_started(conn).await?.unwrap_or(last);
            moved
                .next_closing(Window::Weekend, start)
                .ok_or_else(|| AppError::Refused("the schedule has no form deadline".into()))?
        }
    };
    let resolve = moved
        .due(
            deadline - Duration::milliseconds(1),
            deadline + Duration::days(30),
        )
        .into_iter()
        .find(|d| d.kind == EventKind::Resolve)
        .map(|d| d.at)
        .ok_or_else(|| {
            AppError::Refused("the schedule resolves no round after the deadline".into())
        })?;
    Ok((deadline, resolve))
}

/// The deadline moved `hours` on the local clock; refused when already past at `t`.
fn late_deadline(
    app: &App,
    deadline: DateTime<Utc>,
    hours: u32,
    t: DateTime<Utc>,
) -> Result<DateTime<Utc>> {
    let tz = app.schedule.timezone();
    let local = deadline
        .with_timezone(&tz)
        .naive_local()
        .checked_add_signed(Duration::hours(i64::from(hours)))
        .ok_or_else(|| AppError::Refused(format!("{hours} hours is beyond the calendar")))?;
    let until = crate::schedule::local_to_instant(tz, local);
    if until <= t {
        return Err(AppError::Refused(format!(
            "the deadline {} plus {hours} hours is {}, already past (now {})",
            app.game_time(deadline),
            app.game_time(until),
            app.game_time(t)
        )));
    }
    Ok(until)
}

/// The span the schedule waits in: from the deadline (extended for all before it
/// passed) or from the resolve, to the latest late deadline; none when the resolve
/// comes after it anyway.
fn hold_for(e: &Extension, resolve: DateTime<Utc>, last: DateTime<Utc>) -> Option<Stop> {
    let end = e.realms.values().copied().chain(e.all_until).max()?;
    let before_deadline = e.all_until.is_some() && e.deadline > last;
    let from = if before_deadline { e.deadline } else { resolve };
    (before_deadline || end > resolve).then(|| Stop {
        from: from - Duration::milliseconds(1),
        to: end,
        kind: StopKind::Hold,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use chrono_tz::Europe::Stockholm;

    fn sthlm(d: u32, h: u32, mi: u32) -> DateTime<Utc> {
        Stockholm
            .with_ymd_and_hms(2026, 11, d, h, mi, 0)
            .single()
            .unwrap()
            .with_timezone(&Utc)
    }

    /// The window answered from the cache is the schedule's own, and a calendar read
    /// from the state (here a pause over Sunday's form deadline) is followed at once,
    /// not answered from the window cached before it.
    #[test]
    fn cached_window_follows_a_pause_read_from_the_state() {
        let cal = CalendarSchedule::new(Schedule::default_week());
        let after_deadline = sthlm(29, 15, 30);
        assert_eq!(cal.window_at(sthlm(29, 14, 0)), Window::Weekend);
        assert_eq!(cal.window_at(sthlm(29, 16, 0)), Window::Closed);
        // Cached now: the closed stretch from Sunday 15:00 to Monday 12:00.
        assert_eq!(cal.window_at(after_deadline), Window::Closed);
        let mut gs = crate::game::load_scenario(include_str!("../../scenarios/demo.yaml")).unwrap();
        gs.calendar.stops.push(Stop {
            from: sthlm(29, 14, 0),
            to: sthlm(29, 16, 0),
            kind: StopKind::Pause,
        });
        cal.refresh(&gs);
        // The deadline moved to 17:00: the form window still holds at 15:30.
        assert_eq!(cal.window_at(after_deadline), Window::Weekend);
        assert_eq!(cal.window_at(sthlm(29, 17, 0)), Window::Closed);
    }
}

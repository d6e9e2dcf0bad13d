//! The game's week: when windows open and close, when the round resolves,
//! when results, courier batches and reminders go out.
//!
//! This module owns the schedule file format (`schedules/default.yaml`), its
//! validation, and the arithmetic that turns local wall-clock cron
//! expressions into UTC instants, including across daylight-saving changes.
//! It is pure: it never reads the clock, files or the network. Every question
//! takes the instant it is about, and the caller (the scheduler worker, the
//! mail router) supplies "now" from its `Clock`. Persisting which firings
//! have run, and catching up after downtime, belong to the caller: it asks
//! [`Schedule::due`] for everything since the last firing it recorded.
//!
//! Daylight saving (events are local wall-clock times):
//! - a wall-clock time that does not exist (the spring gap) fires once, at
//!   the first instant after the gap;
//! - a wall-clock time that exists twice (the autumn overlap) fires once, at
//!   its first occurrence;
//! - an event fires at most once per instant, even if two of its wall-clock
//!   times collapse onto the same instant in the gap.
//!
//! The `cron` crate is used only to parse expressions and to enumerate
//! wall-clock times (it is driven with `Utc` as a stand-in for "naive local
//! time"); the mapping to real instants is done here, because the crate used
//! directly with a `chrono_tz` zone skips gap times and fires overlap times
//! twice (pinned by a test).

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use chrono::{
    DateTime, Datelike, Duration, LocalResult, NaiveDateTime, TimeZone, Timelike, Utc, Weekday,
};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

pub mod calendar;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_calendar;

pub use calendar::{Calendar, Skip, Stop, StopKind, Timeline};

/// The rulebook's week, compiled into the binary.
const DEFAULT_WEEK_YAML: &str = include_str!("../../schedules/default.yaml");

/// Time zone used when a schedule file has no `timezone` key.
const DEFAULT_TIMEZONE: &str = "Europe/Stockholm";

/// How far back [`Schedule::window_at`] looks first; one week plus a day.
const WINDOW_LOOKBACK_DAYS: i64 = 8;

/// How far [`Schedule::window_at`] and the opening/closing searches look at
/// most, for schedules whose window events are rarer than weekly.
const LONG_HORIZON_DAYS: i64 = 400;

/// Margin, in wall-clock time, subtracted before enumerating cron times so
/// that no firing near a daylight-saving change is missed.
const WALL_MARGIN_HOURS: i64 = 26;

/// What an event does when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// The weekday window opens (envoys, spies, merchants, trade mails).
    WeekdayOpen,
    /// The weekday window closes.
    WeekdayClose,
    /// The form (weekend) window opens.
    FormOpen,
    /// The form window closes; the form deadline.
    FormClose,
    /// The round is resolved.
    Resolve,
    /// Results and new forms are sent to the players.
    Results,
    /// The GM's mail check: queued couriers (envoys, merchants, spies) go out.
    CourierBatch,
    /// A reminder before a deadline.
    Reminder,
}

impl EventKind {
    /// Every kind, in declaration order.
    pub const ALL: [EventKind; 8] = [
        EventKind::WeekdayOpen,
        EventKind::WeekdayClose,
        EventKind::FormOpen,
        EventKind::FormClose,
        EventKind::Resolve,
        EventKind::Results,
        EventKind::CourierBatch,
        EventKind::Reminder,
    ];

    /// The name used in schedule files, logs and the database.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::WeekdayOpen => "weekday_open",
            EventKind::WeekdayClose => "weekday_close",
            EventKind::FormOpen => "form_open",
            EventKind::FormClose => "form_close",
            EventKind::Resolve => "resolve",
            EventKind::Results => "results",
            EventKind::CourierBatch => "courier_batch",
            EventKind::Reminder => "reminder",
        }
    }

    /// The window that holds once this event has fired, if the event changes
    /// the window at all.
    fn window_after(self) -> Option<Window> {
        match self {
            EventKind::WeekdayOpen => Some(Window::Weekday),
            EventKind::FormOpen => Some(Window::Weekend),
            EventKind::WeekdayClose | EventKind::FormClose => Some(Window::Closed),
            EventKind::Resolve
            | EventKind::Results
            | EventKind::CourierBatch
            | EventKind::Reminder => None,
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which sending window holds (R-MAIL-8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    /// Envoys, spies, merchants and trade mails may be sent.
    Weekday,
    /// The form window: the weekend form may be sent.
    Weekend,
    /// No player mail is accepted.
    Closed,
}

/// One event of a schedule file, with its cron expression parsed.
#[derive(Debug, Clone)]
pub struct EventSpec {
    /// Unique name of the event within the schedule.
    pub name: String,
    /// What the event does.
    pub kind: EventKind,
    /// The cron expression as written in the file (local wall-clock time).
    pub cron: String,
    parsed: cron::Schedule,
}

/// One firing of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Due {
    /// Name of the event that fires.
    pub name: String,
    /// Kind of the event that fires.
    pub kind: EventKind,
    /// The instant it fires.
    pub at: DateTime<Utc>,
}

/// Why a schedule file was refused. Messages name the key or event at fault
/// and say how to fix it, because a GM reads them.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    /// The text is not YAML of the expected shape.
    #[error(
        "schedule file: {0} (expected a mapping with `timezone` and `events`, \
         each event having `name`, `kind` and `cron`)"
    )]
    Yaml(#[from] serde_yaml::Error),
    /// The `timezone` key names no known zone.
    #[error(
        "schedule file: key `timezone`: unknown time zone `{timezone}`; \
         use an IANA name such as `Europe/Stockholm`"
    )]
    UnknownTimezone {
        /// The value found in the file.
        timezone: String,
    },
    /// An event has an empty name.
    #[error("schedule file: event number {position} has an empty `name`; give it a unique name")]
    EmptyName {
        /// 1-based position of the event in the file.
        position: usize,
    },
    /// Two events share a name.
    #[error(
        "schedule file: event `{name}` is defined twice (events number {first} and {second}); \
         give each event a unique `name`"
    )]
    DuplicateName {
        /// The repeated name.
        name: String,
        /// 1-based position of the first event with that name.
        first: usize,
        /// 1-based position of the second event with that name.
        second: usize,
    },
    /// An event's cron expression does not parse.
    #[error(
        "schedule file: event `{name}`: cron `{cron}` is invalid ({reason}); \
         write six fields `sec min hour day-of-month month day-of-week`, \
         e.g. \"0 0 12 * * Mon\""
    )]
    BadCron {
        /// Name of the event.
        name: String,
        /// The expression found in the file.
        cron: String,
        /// What the cron parser said.
        reason: String,
    },
    /// An event's cron expression parses but never fires.
    #[error(
        "schedule file: event `{name}`: cron `{cron}` never fires; \
         check the day-of-month, month and year fields"
    )]
    NeverFires {
        /// Name of the event.
        name: String,
        /// The expression found in the file.
        cron: String,
    },
    /// A window-changing kind has no event, so a window could never change.
    #[error(
        "schedule file: no event of kind `{kind}`; add one, e.g. \
         `- name: {kind}`, `kind: {kind}`, `cron: \"...\"` (every window needs \
         weekday_open, weekday_close, form_open and form_close)"
    )]
    MissingWindowEvent {
        /// The missing kind.
        kind: EventKind,
    },
    /// A `skip` entry is not a valid span of dates.
    #[error(
        "schedule file: skip number {position}: {problem}; write e.g. \
         `- {{ from: 2026-12-21, to: 2027-01-03, reason: \"Jul\" }}` \
         (dates YYYY-MM-DD, both days included, spans not overlapping)"
    )]
    BadSkip {
        /// 1-based position of the entry under `skip`.
        position: usize,
        /// What is wrong, quoting the value.
        problem: String,
    },
}

/// A validated schedule: a time zone and events in file order.
#[derive(Debug, Clone)]
pub struct Schedule {
    timezone: Tz,
    events: Arc<Vec<EventSpec>>,
    /// Dates with no game (`skip:`), sorted.
    skips: Arc<Vec<Skip>>,
    /// The spans the schedule stands still in (skips, pauses, extensions); empty
    /// until [`Schedule::with_stops`] is called.
    timeline: Arc<Timeline>,
}

/// The file as written, before validation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchedule {
    #[serde(default = "default_timezone")]
    timezone: String,
    events: Vec<RawEvent>,
    #[serde(default)]
    skip: Vec<RawSkip>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSkip {
    from: String,
    to: String,
    #[serde(default)]
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    name: String,
    kind: EventKind,
    cron: String,
}

fn default_timezone() -> String {
    DEFAULT_TIMEZONE.to_owned()
}

impl Schedule {
    /// Parses and validates a schedule file: the time zone is known, names
    /// are non-empty and unique, every cron expression parses and fires at
    /// least once, and each of `weekday_open`, `weekday_close`, `form_open`
    /// and `form_close` has at least one event.
    pub fn from_yaml(text: &str) -> Result<Schedule, ScheduleError> {
        let raw: RawSchedule = serde_yaml::from_str(text)?;
        let timezone =
            Tz::from_str(raw.timezone.trim()).map_err(|_| ScheduleError::UnknownTimezone {
                timezone: raw.timezone.clone(),
            })?;

        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (index, event) in raw.events.iter().enumerate() {
            let position = index + 1;
            if event.name.trim().is_empty() {
                return Err(ScheduleError::EmptyName { position });
            }
            if let Some(first) = seen.insert(event.name.as_str(), position) {
                return Err(ScheduleError::DuplicateName {
                    name: event.name.clone(),
                    first,
                    second: position,
                });
            }
        }

        let mut events = Vec::with_capacity(raw.events.len());
        for event in &raw.events {
            let parsed = cron::Schedule::from_str(event.cron.trim()).map_err(|e| {
                ScheduleError::BadCron {
                    name: event.name.clone(),
                    cron: event.cron.clone(),
                    reason: e.to_string(),
                }
            })?;
            // Any firing at all from the year 2000 on; the cron crate stops
            // searching after the year 2100, so this terminates.
            let epoch = Utc.with_ymd_and_hms(2000, 1, 1, 0, 0, 0).unwrap();
            if parsed.after(&epoch).next().is_none() {
                return Err(ScheduleError::NeverFires {
                    name: event.name.clone(),
                    cron: event.cron.clone(),
                });
            }
            events.push(EventSpec {
                name: event.name.clone(),
                kind: event.kind,
                cron: event.cron.clone(),
                parsed,
            });
        }

        for kind in [
            EventKind::WeekdayOpen,
            EventKind::WeekdayClose,
            EventKind::FormOpen,
            EventKind::FormClose,
        ] {
            if !events.iter().any(|e| e.kind == kind) {
                return Err(ScheduleError::MissingWindowEvent { kind });
            }
        }

        let skips = parse_skips(&raw.skip)?;
        let mut schedule = Schedule {
            timezone,
            events: Arc::new(events),
            skips: Arc::new(skips),
            timeline: Arc::default(),
        };
        schedule = schedule.with_stops(&[]);
        Ok(schedule)
    }

    /// The same schedule standing still in the file's skipped dates and in
    /// `stops` (pauses and holds; see [`calendar`]): every question about it
    /// answers in wall-clock time with the events moved around those spans.
    pub fn with_stops(&self, stops: &[Stop]) -> Schedule {
        let mut all: Vec<Stop> = self.skips.iter().map(|s| s.stop(self.timezone)).collect();
        all.extend_from_slice(stops);
        Schedule {
            timezone: self.timezone,
            events: self.events.clone(),
            skips: self.skips.clone(),
            timeline: Arc::new(Timeline::new(self.timezone, &all)),
        }
    }

    /// The file's skipped dates, sorted.
    pub fn skips(&self) -> &[Skip] {
        &self.skips
    }

    /// The skipped span that instant `t` lies in, if any.
    pub fn skip_at(&self, t: DateTime<Utc>) -> Option<&Skip> {
        let day = t.with_timezone(&self.timezone).date_naive();
        self.skips.iter().find(|s| s.from <= day && day <= s.to)
    }

    /// The rulebook's week (`schedules/default.yaml`, compiled in).
    pub fn default_week() -> Schedule {
        Schedule::from_yaml(DEFAULT_WEEK_YAML)
            .expect("schedules/default.yaml is valid (checked by the tests)")
    }

    /// The zone whose wall clock the cron expressions are written in.
    pub fn timezone(&self) -> Tz {
        self.timezone
    }

    /// The events in file order.
    pub fn events(&self) -> &[EventSpec] {
        &self.events
    }

    /// Every firing with `after < at <= up_to`, sorted by instant and, for
    /// the same instant, by position in the file. This is the catch-up call:
    /// after downtime, pass the instant of the last recorded firing.
    pub fn due(&self, after: DateTime<Utc>, up_to: DateTime<Utc>) -> Vec<Due> {
        self.firings(after, up_to, |_| true)
            .into_iter()
            .map(|(at, index)| {
                let spec = &self.events[index];
                Due {
                    name: spec.name.clone(),
                    kind: spec.kind,
                    at,
                }
            })
            .collect()
    }

    /// The first firing strictly after `t` (the earliest event listed first
    /// on a tie), or `None` if no event ever fires again.
    pub fn next_after(&self, t: DateTime<Utc>) -> Option<Due> {
        self.events
            .iter()
            .enumerate()
            .filter_map(|(index, spec)| {
                self.instants(spec, t)
                    .next()
                    .map(|(at, pos)| (at, pos, index, spec))
            })
            .min_by_key(|(at, pos, index, _)| (*at, *pos, *index))
            .map(|(at, _, _, spec)| Due {
                name: spec.name.clone(),
                kind: spec.kind,
                at,
            })
    }

    /// Which window holds at instant `t`: decided by the latest
    /// window-changing event (`weekday_open` → Weekday, `weekday_close` →
    /// Closed, `form_open` → Weekend, `form_close` → Closed) at or before `t`,
    /// the last listed winning on a tie. An event at exactly `t` already
    /// applies (Saturday 00:00:00 is Weekend). Looks back 8 days, or up to
    /// 400 days for sparser schedules; `Closed` if no window event fired.
    pub fn window_at(&self, t: DateTime<Utc>) -> Window {
        self.latest_window_event(t)
            .map_or(Window::Closed, |(_, window)| window)
    }

    /// The latest window-changing firing at or before `t` and the window it opens.
    fn latest_window_event(&self, t: DateTime<Utc>) -> Option<(DateTime<Utc>, Window)> {
        for days in [WINDOW_LOOKBACK_DAYS, LONG_HORIZON_DAYS] {
            let from = t.checked_sub_signed(Duration::days(days)).unwrap_or(t);
            let latest = self
                .firings(from, t, |kind| kind.window_after().is_some())
                .last()
                .and_then(|&(at, index)| Some((at, self.events[index].kind.window_after()?)));
            if latest.is_some() {
                return latest;
            }
        }
        None
    }

    /// The window at `t` (as [`Schedule::window_at`]) and a stretch of time around
    /// `t` in which no window event fires, so the same window holds at every instant
    /// of it: from the window event at or before `t` (or `t` itself when there is
    /// none) up to, not including, the next window event after `t` (or 8 days on when
    /// none fires that soon). Lets a caller answer many instants with one look.
    pub fn window_span(&self, t: DateTime<Utc>) -> WindowSpan {
        let (since, window) = self
            .latest_window_event(t)
            .map_or((t, Window::Closed), |(at, w)| (at, w));
        let horizon = t
            .checked_add_signed(Duration::days(WINDOW_LOOKBACK_DAYS))
            .unwrap_or(t);
        let until = self
            .firings(t, horizon, |kind| kind.window_after().is_some())
            .first()
            .map_or(horizon, |&(at, _)| at);
        WindowSpan {
            window,
            since,
            until,
        }
    }

    /// The next instant `> t` at which window `w` opens, i.e. the window
    /// changes from another one to `w`. If `w` holds at `t`, this is the
    /// opening after it has closed. `None` if it does not open within 400
    /// days.
    pub fn next_opening(&self, w: Window, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.next_change(t, |_, to| to == w)
    }

    /// The next instant `> t` at which window `w` closes, i.e. the window
    /// changes from `w` to another one. Meant for the window holding at `t`;
    /// if `w` does not hold at `t`, this is the closing after its next
    /// opening. `None` if it does not close within 400 days.
    pub fn next_closing(&self, w: Window, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.next_change(t, |from, _| from == w)
    }

    /// The first instant `> t` where the window changes from `from` to `to`
    /// (`from != to`) and `wanted(from, to)` holds.
    fn next_change(
        &self,
        t: DateTime<Utc>,
        wanted: impl Fn(Window, Window) -> bool,
    ) -> Option<DateTime<Utc>> {
        let mut state = self.window_at(t);
        let step = Duration::days(WINDOW_LOOKBACK_DAYS);
        let mut lo = t;
        let mut searched = Duration::zero();
        while searched < Duration::days(LONG_HORIZON_DAYS) {
            let hi = lo.checked_add_signed(step)?;
            let firings = self.firings(lo, hi, |kind| kind.window_after().is_some());
            let mut i = 0;
            while i < firings.len() {
                let at = firings[i].0;
                // All window events at one instant act together; the last
                // listed decides the window from that instant on.
                let mut next = state;
                while i < firings.len() && firings[i].0 == at {
                    if let Some(w) = self.events[firings[i].1].kind.window_after() {
                        next = w;
                    }
                    i += 1;
                }
                if next != state && wanted(state, next) {
                    return Some(at);
                }
                state = next;
            }
            lo = hi;
            searched += step;
        }
        None
    }

    /// All firings `(at, event index)` with `after < at <= up_to` of events
    /// whose kind passes `keep`, sorted by `(at, index)`.
    fn firings(
        &self,
        after: DateTime<Utc>,
        up_to: DateTime<Utc>,
        keep: impl Fn(EventKind) -> bool,
    ) -> Vec<(DateTime<Utc>, usize)> {
        let mut out = Vec::new();
        if up_to <= after {
            return Vec::new();
        }
        for (index, spec) in self.events.iter().enumerate() {
            if !keep(spec.kind) {
                continue;
            }
            out.extend(
                self.instants(spec, after)
                    .take_while(|(at, _)| *at <= up_to)
                    .map(|(at, pos)| (at, pos, index)),
            );
        }
        // Events held to one instant fire in the order of their schedule times.
        out.sort();
        out.into_iter().map(|(at, _, index)| (at, index)).collect()
    }

    /// The instants, strictly after `after` and increasing, at which `spec`
    /// fires, each with its schedule position (the cron time, local). Each
    /// instant appears once.
    fn instants<'a>(
        &'a self,
        spec: &'a EventSpec,
        after: DateTime<Utc>,
    ) -> impl Iterator<Item = (DateTime<Utc>, NaiveDateTime)> + 'a {
        let tz = self.timezone;
        // Enumerate wall-clock times with the cron crate, using `Utc` as a
        // zone without transitions, so it neither skips nor repeats any. The
        // wall-to-instant mapping below is non-decreasing, so starting a
        // margin earlier in wall time and dropping instants <= `after` finds
        // every firing.
        let timeline = &*self.timeline;
        let wall_after = timeline.position_of(after.with_timezone(&tz).naive_local());
        let start = wall_after
            .checked_sub_signed(Duration::hours(WALL_MARGIN_HOURS))
            .unwrap_or(wall_after);
        let mut last: Option<DateTime<Utc>> = None;
        spec.parsed
            .after_owned(Utc.from_utc_datetime(&start))
            .map(move |wall| {
                let pos = wall.naive_utc();
                (wall_to_instant(tz, timeline.wall_of(pos)), pos)
            })
            .skip_while(move |(at, _)| *at <= after)
            .filter(move |(at, _)| {
                // Two wall times in a gap can map to the same instant; fire
                // once per instant.
                let fresh = last != Some(*at);
                last = Some(*at);
                fresh
            })
    }
}

/// Read and check the `skip` entries: dates `YYYY-MM-DD`, `from <= to`, a span
/// of at most a year, no two spans overlapping. Sorted by start.
fn parse_skips(raw: &[RawSkip]) -> Result<Vec<Skip>, ScheduleError> {
    let mut out: Vec<(usize, Skip)> = Vec::with_capacity(raw.len());
    for (index, r) in raw.iter().enumerate() {
        let position = index + 1;
        let bad = |problem: String| ScheduleError::BadSkip { position, problem };
        let date = |key: &str, v: &str| {
            chrono::NaiveDate::parse_from_str(v.trim(), "%Y-%m-%d")
                .map_err(|_| bad(format!("`{key}: {v}` is not a date YYYY-MM-DD")))
        };
        let (from, to) = (date("from", &r.from)?, date("to", &r.to)?);
        if to < from {
            return Err(bad(format!("`to: {}` is before `from: {}`", r.to, r.from)));
        }
        if (to - from).num_days() > 366 {
            return Err(bad(format!(
                "`from: {}` to `to: {}` is longer than a year",
                r.from, r.to
            )));
        }
        let reason = r.reason.trim().to_string();
        out.push((position, Skip { from, to, reason }));
    }
    out.sort_by_key(|(_, s)| s.from);
    for pair in out.windows(2) {
        if pair[1].1.from <= pair[0].1.to {
            return Err(ScheduleError::BadSkip {
                position: pair[1].0,
                problem: format!(
                    "it overlaps skip number {} ({} to {})",
                    pair[0].0, pair[0].1.from, pair[0].1.to
                ),
            });
        }
    }
    Ok(out.into_iter().map(|(_, s)| s).collect())
}

/// The instant a local wall-clock time in `tz` stands for (see
/// [`wall_to_instant`]'s rules for the daylight-saving gap and overlap).
pub fn local_to_instant(tz: Tz, wall: NaiveDateTime) -> DateTime<Utc> {
    wall_to_instant(tz, wall)
}

/// The instant a local wall-clock time stands for: the time itself if it
/// exists once; its first occurrence if it exists twice (autumn overlap);
/// the first instant after the gap if it does not exist (spring gap).
fn wall_to_instant(tz: Tz, wall: NaiveDateTime) -> DateTime<Utc> {
    match tz.from_local_datetime(&wall) {
        LocalResult::Single(t) => t.with_timezone(&Utc),
        LocalResult::Ambiguous(a, b) => a.min(b).with_timezone(&Utc),
        LocalResult::None => first_instant_after_gap(tz, wall),
    }
}

/// The instant at which the gap containing `wall` ends. Zone transitions
/// happen on whole minutes, so stepping minute by minute from the start of
/// `wall`'s minute finds the first wall time after the gap exactly; the
/// longest gap on record is a day (Samoa, 2011).
fn first_instant_after_gap(tz: Tz, wall: NaiveDateTime) -> DateTime<Utc> {
    let minute_start = wall
        .with_second(0)
        .and_then(|w| w.with_nanosecond(0))
        .unwrap_or(wall);
    for minutes in 1..=(48 * 60) {
        let probe = minute_start + Duration::minutes(minutes);
        match tz.from_local_datetime(&probe) {
            LocalResult::Single(t) => return t.with_timezone(&Utc),
            LocalResult::Ambiguous(a, b) => return a.min(b).with_timezone(&Utc),
            LocalResult::None => continue,
        }
    }
    // Not reached for any real zone: read the wall time with the offset in
    // force two days earlier.
    let before = Utc.from_utc_datetime(&(wall - Duration::days(2)));
    let offset = tz.offset_from_utc_datetime(&before.naive_utc());
    Utc.from_utc_datetime(&(wall - offset_seconds(offset)))
}

fn offset_seconds(offset: <Tz as TimeZone>::Offset) -> Duration {
    use chrono::Offset;
    Duration::seconds(i64::from(offset.fix().local_minus_utc()))
}

const WEEKDAYS_SV: [&str; 7] = [
    "måndag", "tisdag", "onsdag", "torsdag", "fredag", "lördag", "söndag",
];
const WEEKDAYS_EN: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTHS_SV: [&str; 12] = [
    "januari",
    "februari",
    "mars",
    "april",
    "maj",
    "juni",
    "juli",
    "augusti",
    "september",
    "oktober",
    "november",
    "december",
];
const MONTHS_EN: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Renders `t` as local time in `tz` for players, to the minute, e.g.
/// "måndag 23 november 2026 12:00 (Europe/Stockholm)" or
/// "Monday 23 November 2026 12:00 (Europe/Stockholm)".
pub fn describe_local(t: DateTime<Utc>, tz: Tz, lang_sv: bool) -> String {
    let local = t.with_timezone(&tz);
    let weekday = weekday_index(local.weekday());
    let month = local.month0() as usize;
    let (weekdays, months) = if lang_sv {
        (&WEEKDAYS_SV, &MONTHS_SV)
    } else {
        (&WEEKDAYS_EN, &MONTHS_EN)
    };
    format!(
        "{} {} {} {} {:02}:{:02} ({})",
        weekdays[weekday],
        local.day(),
        months[month],
        local.year(),
        local.hour(),
        local.minute(),
        tz.name()
    )
}

/// Renders the span `from` – `to` as local times in `tz` for players, to the minute,
/// without the year and with the zone once, e.g. "lördag 28 november 00:00 – söndag 29
/// november 15:00 (Europe/Stockholm)" (the form window, docs/reference/mail.md,
/// Windows).
pub fn describe_span(from: DateTime<Utc>, to: DateTime<Utc>, tz: Tz, lang_sv: bool) -> String {
    let (weekdays, months) = if lang_sv {
        (&WEEKDAYS_SV, &MONTHS_SV)
    } else {
        (&WEEKDAYS_EN, &MONTHS_EN)
    };
    let one = |t: DateTime<Utc>| {
        let local = t.with_timezone(&tz);
        format!(
            "{} {} {} {:02}:{:02}",
            weekdays[weekday_index(local.weekday())],
            local.day(),
            months[local.month0() as usize],
            local.hour(),
            local.minute()
        )
    };
    format!("{} – {} ({})", one(from), one(to), tz.name())
}

fn weekday_index(day: Weekday) -> usize {
    day.num_days_from_monday() as usize
}

/// A window and the stretch of time `since <= t < until` in which it holds
/// ([`Schedule::window_span`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowSpan {
    pub window: Window,
    pub since: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

impl WindowSpan {
    /// Whether `t` lies in the stretch, so the window holds at `t`.
    pub fn holds_at(&self, t: DateTime<Utc>) -> bool {
        self.since <= t && t < self.until
    }
}

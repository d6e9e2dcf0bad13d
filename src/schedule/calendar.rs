//! The season's calendar as data: spans of wall-clock time in which the schedule
//! stands still (the GM's pauses, the schedule file's skipped dates, deadline
//! extensions), and the arithmetic that moves the schedule's events around them.
//!
//! The schedule's cron times are read as *positions*; the calendar maps a position
//! to the wall-clock time at which the event really fires. Both are local
//! wall-clock times of the schedule's zone, so a pause that spans a daylight-saving
//! change still leaves a 15:00 deadline at 15:00 on the local clock. Pure: the
//! caller passes the spans in; nothing here reads a clock.
//!
//! Two kinds of span:
//! - a **pause** (`StopKind::Pause`): nothing fires inside it; afterwards the
//!   schedule continues from where it stood, every later event moved by the span's
//!   length (wall-clock);
//! - a **hold** (`StopKind::Hold`): nothing fires inside it; the events that would
//!   have fired inside it fire at its end, at once and in order; later events keep
//!   their times (a deadline extension).

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

/// How a span moves the events after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    /// Later events move by the span's length.
    Pause,
    /// Events due inside the span fire at its end; later ones keep their times.
    Hold,
}

/// A span `[from, to)` of wall-clock time in which the schedule stands still.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stop {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub kind: StopKind,
}

/// Dates of the schedule file with no game (`skip:`), both days included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// Why (shown to players); may be empty.
    pub reason: String,
}

/// A pause the GM set (`gm pause`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pause {
    /// When it began.
    pub since: DateTime<Utc>,
    /// When it ends by itself (`--until`, else the longest pause allowed).
    pub until: DateTime<Utc>,
    /// Why, as the GM wrote it (told to players); may be empty.
    #[serde(default)]
    pub reason: String,
}

/// This round's deadline extensions (`gm extend`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extension {
    /// The round they are for; ignored in any other round.
    pub round: u32,
    /// The schedule's form deadline they extend.
    pub deadline: DateTime<Utc>,
    /// The new deadline for every realm, if extended for all.
    #[serde(default)]
    pub all_until: Option<DateTime<Utc>>,
    /// Realms whose form is accepted late, and until when.
    #[serde(default)]
    pub realms: BTreeMap<String, DateTime<Utc>>,
    /// The span the schedule waits in for the late forms (the form deadline, or
    /// the resolve, held until the latest extended deadline).
    #[serde(default)]
    pub hold: Option<Stop>,
}

/// The GM's calendar, stored with the game state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Calendar {
    /// The pause in force.
    #[serde(default)]
    pub pause: Option<Pause>,
    /// Spans that have been decided (ended pauses, extension holds); the current
    /// pause is not among them.
    #[serde(default)]
    pub stops: Vec<Stop>,
    /// The current round's extensions.
    #[serde(default)]
    pub extension: Option<Extension>,
}

impl Calendar {
    /// Nothing was ever paused or extended.
    pub fn is_empty(&self) -> bool {
        self == &Calendar::default()
    }

    /// Every span the GM set: the decided ones and the current pause.
    pub fn all_stops(&self) -> Vec<Stop> {
        let mut out = self.stops.clone();
        out.extend(self.extension.as_ref().and_then(|e| e.hold.clone()));
        if let Some(p) = &self.pause {
            out.push(Stop {
                from: p.since,
                to: p.until,
                kind: StopKind::Pause,
            });
        }
        out
    }

    /// The current pause, if `t` lies inside it.
    pub fn paused_at(&self, t: DateTime<Utc>) -> Option<&Pause> {
        self.pause.as_ref().filter(|p| p.since <= t && t < p.until)
    }

    /// The extension given in `round`, if the GM gave one (an older one is history).
    pub fn extension_of(&self, round: u32) -> Option<&Extension> {
        self.extension.as_ref().filter(|e| e.round == round)
    }

    /// Until when `realm`'s form of `round` is accepted, if the deadline was
    /// extended for it (or for everyone).
    pub fn late_until(&self, round: u32, realm: &str) -> Option<DateTime<Utc>> {
        let e = self.extension_of(round)?;
        let own = e.realms.get(realm).copied();
        match (own, e.all_until) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }
}

/// A span in local wall-clock time, with the position at which the schedule
/// stopped and the total shift of the events after it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Span {
    from: NaiveDateTime,
    to: NaiveDateTime,
    kind: StopKind,
    /// The schedule position at which it stands still.
    position: NaiveDateTime,
    /// How far events after the span are moved (all spans up to this one).
    shift: Duration,
}

/// The map between schedule positions and wall-clock times that a set of spans
/// makes. Empty: positions are wall-clock times.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timeline {
    spans: Vec<Span>,
}

impl Timeline {
    /// The map for `stops` read in zone `tz`: spans are sorted, and spans that
    /// overlap or touch become one (a pause if either was one).
    pub fn new(tz: Tz, stops: &[Stop]) -> Timeline {
        let local = |t: DateTime<Utc>| t.with_timezone(&tz).naive_local();
        let mut raw: Vec<(NaiveDateTime, NaiveDateTime, StopKind)> = stops
            .iter()
            .map(|s| (local(s.from), local(s.to), s.kind))
            .filter(|(a, b, _)| a < b)
            .collect();
        raw.sort_by_key(|s| s.0);
        let mut merged: Vec<(NaiveDateTime, NaiveDateTime, StopKind)> = Vec::new();
        for (a, b, kind) in raw {
            match merged.last_mut() {
                Some(last) if a <= last.1 => {
                    last.1 = last.1.max(b);
                    if kind == StopKind::Pause {
                        last.2 = StopKind::Pause;
                    }
                }
                _ => merged.push((a, b, kind)),
            }
        }
        let mut shift = Duration::zero();
        let spans = merged
            .into_iter()
            .map(|(from, to, kind)| {
                let position = from.checked_sub_signed(shift).unwrap_or(from);
                if kind == StopKind::Pause {
                    shift += to - from;
                }
                Span {
                    from,
                    to,
                    kind,
                    position,
                    shift,
                }
            })
            .collect();
        Timeline { spans }
    }

    /// No span at all.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The wall-clock time at which an event at schedule position `c` fires.
    /// Non-decreasing in `c`.
    pub fn wall_of(&self, c: NaiveDateTime) -> NaiveDateTime {
        let n = self.spans.partition_point(|s| s.position < c);
        match n.checked_sub(1).and_then(|i| self.spans.get(i)) {
            None => c,
            Some(s) => c.checked_add_signed(s.shift).unwrap_or(c).max(s.to),
        }
    }

    /// The schedule position at wall-clock time `x`: where the schedule stands
    /// then. Inside a span it stands still. Non-decreasing in `x`.
    pub fn position_of(&self, x: NaiveDateTime) -> NaiveDateTime {
        let n = self.spans.partition_point(|s| s.from <= x);
        match n.checked_sub(1).and_then(|i| self.spans.get(i)) {
            None => x,
            Some(s) if x < s.to => s.position,
            Some(s) => x.checked_sub_signed(s.shift).unwrap_or(x),
        }
    }
}

impl Skip {
    /// The span as instants in `tz`: from 00:00 of the first day to 00:00 after the
    /// last.
    pub fn stop(&self, tz: Tz) -> Stop {
        let midnight = |d: NaiveDate| super::wall_to_instant(tz, d.and_time(Default::default()));
        let after = self.to.succ_opt().unwrap_or(self.to);
        Stop {
            from: midnight(self.from),
            to: midnight(after),
            kind: StopKind::Pause,
        }
    }
}

/// Format a date range for players, e.g. `21 dec 2026 – 3 jan 2027`.
pub fn describe_dates(from: NaiveDate, to: NaiveDate, lang_sv: bool) -> String {
    use chrono::Datelike;
    const SV: [&str; 12] = [
        "jan", "feb", "mar", "apr", "maj", "jun", "jul", "aug", "sep", "okt", "nov", "dec",
    ];
    const EN: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let names = if lang_sv { &SV } else { &EN };
    let day = |d: NaiveDate| {
        format!(
            "{} {} {}",
            d.day(),
            names[d.month0() as usize % 12],
            d.year()
        )
    };
    format!("{} – {}", day(from), day(to))
}

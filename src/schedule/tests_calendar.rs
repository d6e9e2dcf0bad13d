//! Tests of the calendar arithmetic: pauses, holds and skipped dates move the
//! schedule's events, across daylight-saving changes too, and every event still
//! fires exactly once, in order.

use super::*;
use chrono_tz::Europe::Stockholm;

fn sthlm(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
    Stockholm
        .with_ymd_and_hms(y, mo, d, h, mi, 0)
        .single()
        .expect("unambiguous local time")
        .with_timezone(&Utc)
}

fn pause(from: DateTime<Utc>, to: DateTime<Utc>) -> Stop {
    Stop {
        from,
        to,
        kind: StopKind::Pause,
    }
}

fn hold(from: DateTime<Utc>, to: DateTime<Utc>) -> Stop {
    Stop {
        from,
        to,
        kind: StopKind::Hold,
    }
}

fn at_of(s: &Schedule, name: &str, after: DateTime<Utc>) -> DateTime<Utc> {
    s.due(after, after + Duration::days(60))
        .into_iter()
        .find(|d| d.name == name)
        .expect("event fires")
        .at
}

/// Every firing over `days` from `from`, as (name, at).
fn all(s: &Schedule, from: DateTime<Utc>, days: i64) -> Vec<(String, DateTime<Utc>)> {
    s.due(from, from + Duration::days(days))
        .into_iter()
        .map(|d| (d.name, d.at))
        .collect()
}

#[test]
fn no_stops_change_nothing() {
    let s = Schedule::default_week();
    let t = sthlm(2026, 11, 23, 0, 0);
    assert_eq!(all(&s, t, 30), all(&s.with_stops(&[]), t, 30));
}

#[test]
fn a_pause_moves_every_later_event_by_its_length_and_earlier_ones_not_at_all() {
    let base = Schedule::default_week();
    // Paused Thursday 26 Nov 10:00 for three days and five hours.
    let (from, to) = (sthlm(2026, 11, 26, 10, 0), sthlm(2026, 11, 29, 15, 0));
    let s = base.with_stops(&[pause(from, to)]);
    let start = sthlm(2026, 11, 23, 0, 0);
    let before: Vec<_> = all(&base, start, 3);
    assert_eq!(
        all(&s, start, 3),
        before,
        "events before the pause keep their times"
    );
    // The weekend's deadline, Sunday 29 Nov 15:00, moves to Wednesday 2 Dec 20:00.
    assert_eq!(at_of(&s, "form_close", from), sthlm(2026, 12, 2, 20, 0));
    // Nothing fires inside the pause.
    assert!(s.due(from, to).is_empty());
    // Every event of the base fires once, in the same order, just later.
    let moved = all(&s, start, 40);
    let plain = all(&base, start, 40);
    let names = |v: &[(String, DateTime<Utc>)]| v.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&moved), names(&plain)[..moved.len()]);
}

#[test]
fn a_pause_over_the_autumn_clock_change_keeps_local_times() {
    let base = Schedule::default_week();
    // Saturday 24 Oct 12:00 CEST to Saturday 31 Oct 12:00 CET: one week on the wall
    // clock (169 real hours, the clocks went back on Sunday 25 Oct).
    let (from, to) = (sthlm(2026, 10, 24, 12, 0), sthlm(2026, 10, 31, 12, 0));
    let s = base.with_stops(&[pause(from, to)]);
    assert_eq!(at_of(&s, "form_close", from), sthlm(2026, 11, 1, 15, 0));
    assert_eq!(at_of(&s, "results", from), sthlm(2026, 11, 2, 12, 0));
    // Inside the pause the window stays as it was when the pause began.
    assert_eq!(s.window_at(sthlm(2026, 10, 27, 9, 0)), Window::Weekend);
}

#[test]
fn a_pause_over_the_spring_clock_change_keeps_local_times() {
    let base = Schedule::default_week();
    // Friday 27 Mar 2027 20:00 CET to Monday 29 Mar 20:00 CEST.
    let (from, to) = (sthlm(2027, 3, 26, 20, 0), sthlm(2027, 3, 29, 20, 0));
    let s = base.with_stops(&[pause(from, to)]);
    assert_eq!(at_of(&s, "form_close", from), sthlm(2027, 3, 31, 15, 0));
    assert_eq!(s.window_at(sthlm(2027, 3, 28, 12, 0)), Window::Weekday);
}

#[test]
fn each_event_fires_exactly_once_over_a_pause_whichever_way_time_is_cut() {
    let base = Schedule::default_week();
    let (from, to) = (sthlm(2026, 10, 22, 9, 30), sthlm(2026, 10, 29, 17, 45));
    let s = base.with_stops(&[pause(from, to)]);
    let start = sthlm(2026, 10, 19, 0, 0);
    let whole = all(&s, start, 28);
    // Cut into six-hour ticks, the same firings come out, once each, in order.
    let mut cut = Vec::new();
    let mut t = start;
    while t < start + Duration::days(28) {
        let next = t + Duration::hours(6);
        cut.extend(s.due(t, next).into_iter().map(|d| (d.name, d.at)));
        t = next;
    }
    assert_eq!(cut, whole);
    let mut sorted = whole.clone();
    sorted.sort_by_key(|x| x.1);
    assert_eq!(sorted, whole);
}

#[test]
fn a_hold_fires_the_events_due_inside_it_at_its_end_in_schedule_order() {
    let base = Schedule::default_week();
    // The deadline Sunday 29 Nov 15:00 extended by 24 hours.
    let deadline = sthlm(2026, 11, 29, 15, 0);
    let end = deadline + Duration::hours(24);
    let s = base.with_stops(&[hold(deadline - Duration::milliseconds(1), end)]);
    let fired: Vec<_> = s
        .due(deadline - Duration::hours(1), end)
        .into_iter()
        .map(|d| (d.name, d.at))
        .collect();
    let names: Vec<&str> = fired.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(names, ["form_close", "resolve", "results", "weekday_open"]);
    assert!(fired.iter().all(|x| x.1 == end));
    assert_eq!(s.window_at(end - Duration::minutes(1)), Window::Weekend);
    // The week after keeps its times.
    assert_eq!(
        at_of(&s, "courier_evening", end),
        sthlm(2026, 11, 30, 18, 0)
    );
    assert_eq!(at_of(&s, "form_close", end), sthlm(2026, 12, 6, 15, 0));
}

#[test]
fn a_hold_over_the_spring_clock_change_ends_on_the_local_hour() {
    let base = Schedule::default_week();
    // Sunday 28 Mar 2027: the clocks go forward at 02:00; the 15:00 deadline held 20
    // wall-clock hours ends Monday 11:00 CEST.
    let deadline = sthlm(2027, 3, 28, 15, 0);
    let end = sthlm(2027, 3, 29, 11, 0);
    let s = base.with_stops(&[hold(deadline - Duration::milliseconds(1), end)]);
    assert_eq!(at_of(&s, "resolve", deadline - Duration::hours(1)), end);
    assert_eq!(
        at_of(&s, "results", end - Duration::hours(1)),
        sthlm(2027, 3, 29, 12, 0)
    );
}

#[test]
fn skipped_dates_stop_the_schedule_and_shift_it_by_the_span() {
    let base = Schedule::from_yaml(&format!(
        "{}\nskip:\n  - {{ from: 2026-12-21, to: 2027-01-03, reason: \"Jul\" }}\n",
        include_str!("../../schedules/default.yaml")
    ))
    .unwrap();
    let s = base.with_stops(&[]);
    assert_eq!(s.skips().len(), 1);
    assert_eq!(s.skips()[0].reason, "Jul");
    let monday = sthlm(2026, 12, 21, 0, 0);
    assert!(s.due(monday, sthlm(2027, 1, 4, 0, 0)).is_empty());
    // Monday 21 Dec 12:00 results go out on Monday 4 Jan 12:00.
    assert_eq!(at_of(&s, "results", monday), sthlm(2027, 1, 4, 12, 0));
    assert_eq!(at_of(&s, "form_close", monday), sthlm(2027, 1, 10, 15, 0));
    assert!(s.skip_at(sthlm(2027, 1, 3, 23, 0)).is_some());
    assert!(s.skip_at(sthlm(2027, 1, 4, 0, 0)).is_none());
}

#[test]
fn a_skip_over_the_spring_clock_change_keeps_the_week() {
    let text = format!(
        "{}\nskip:\n  - {{ from: 2027-03-22, to: 2027-03-28 }}\n",
        include_str!("../../schedules/default.yaml")
    );
    let s = Schedule::from_yaml(&text).unwrap();
    let start = sthlm(2027, 3, 21, 16, 0);
    assert_eq!(at_of(&s, "results", start), sthlm(2027, 3, 29, 12, 0));
    assert_eq!(at_of(&s, "form_close", start), sthlm(2027, 4, 4, 15, 0));
}

#[test]
fn bad_skips_are_refused_naming_the_entry() {
    let base = include_str!("../../schedules/default.yaml");
    for (skip, needle) in [
        (
            "{ from: 2026-12-32, to: 2027-01-03 }",
            "`from: 2026-12-32` is not a date",
        ),
        ("{ from: 2027-01-03, to: 2026-12-21 }", "is before"),
        ("{ from: 2026-01-01, to: 2027-06-01 }", "longer than a year"),
        ("{ from: jul, to: 2027-01-03 }", "`from: jul`"),
    ] {
        let text = format!("{base}\nskip:\n  - {skip}\n");
        let e = Schedule::from_yaml(&text).unwrap_err().to_string();
        assert!(e.contains("skip number 1") && e.contains(needle), "{e}");
    }
    let text = format!(
        "{base}\nskip:\n  - {{ from: 2026-12-21, to: 2027-01-03 }}\n  - {{ from: 2027-01-03, to: 2027-01-05 }}\n"
    );
    let e = Schedule::from_yaml(&text).unwrap_err().to_string();
    assert!(
        e.contains("skip number 2") && e.contains("overlaps skip number 1"),
        "{e}"
    );
}

#[test]
fn position_and_wall_time_are_inverse_outside_the_spans() {
    let tz = Stockholm;
    let (a, b) = (sthlm(2026, 11, 26, 10, 0), sthlm(2026, 11, 29, 15, 0));
    let t = Timeline::new(tz, &[pause(a, b)]);
    let local = |x: DateTime<Utc>| x.with_timezone(&tz).naive_local();
    let inside = local(sthlm(2026, 11, 27, 0, 0));
    assert_eq!(t.position_of(inside), local(a));
    let later = local(sthlm(2026, 12, 3, 9, 0));
    assert_eq!(t.wall_of(t.position_of(later)), later);
    let earlier = local(sthlm(2026, 11, 24, 9, 0));
    assert_eq!(t.position_of(earlier), earlier);
    assert_eq!(t.wall_of(earlier), earlier);
}

#[test]
fn overlapping_spans_become_one_pause() {
    let tz = Stockholm;
    let (a, b) = (sthlm(2026, 11, 26, 10, 0), sthlm(2026, 11, 28, 10, 0));
    let (c, d) = (sthlm(2026, 11, 27, 10, 0), sthlm(2026, 11, 30, 10, 0));
    let t = Timeline::new(tz, &[hold(c, d), pause(a, b)]);
    let one = Timeline::new(tz, &[pause(a, d)]);
    assert_eq!(t, one);
}

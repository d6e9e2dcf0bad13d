//! Tests of the schedule: the rulebook week, catch-up, daylight saving,
//! window edges and the file checks.

use super::*;
use chrono_tz::Europe::Stockholm;

fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap()
}

/// A Stockholm wall-clock time that exists exactly once.
fn sthlm(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> DateTime<Utc> {
    Stockholm
        .with_ymd_and_hms(y, mo, d, h, mi, s)
        .single()
        .expect("unambiguous local time")
        .with_timezone(&Utc)
}

fn names_at(due: &[Due]) -> Vec<(&str, DateTime<Utc>)> {
    due.iter().map(|d| (d.name.as_str(), d.at)).collect()
}

/// The rulebook week's window events plus `extra` (YAML list items).
fn week_with(extra: &str) -> Schedule {
    let text = format!(
        "timezone: Europe/Stockholm\n\
         events:\n\
         \x20 - {{ name: weekday_open, kind: weekday_open, cron: \"0 0 12 * * Mon\" }}\n\
         \x20 - {{ name: weekday_close, kind: weekday_close, cron: \"0 0 0 * * Sat\" }}\n\
         \x20 - {{ name: form_open, kind: form_open, cron: \"0 0 0 * * Sat\" }}\n\
         \x20 - {{ name: form_close, kind: form_close, cron: \"0 0 15 * * Sun\" }}\n\
         {extra}"
    );
    Schedule::from_yaml(&text).unwrap()
}

fn count_by_name(due: &[Due]) -> HashMap<&str, usize> {
    let mut counts = HashMap::new();
    for d in due {
        *counts.entry(d.name.as_str()).or_insert(0) += 1;
    }
    counts
}

#[test]
fn default_week_parses_and_lists_events_in_file_order() {
    let s = Schedule::default_week();
    assert_eq!(s.timezone(), Stockholm);
    let names: Vec<&str> = s.events().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "results",
            "weekday_open",
            "courier_evening",
            "courier_late",
            "courier_final",
            "weekday_close",
            "form_open",
            "reminder_morning",
            "reminder_last_call",
            "form_close",
            "resolve",
        ]
    );
}

#[test]
fn default_week_fires_every_event_once_at_the_right_utc_instants_in_order() {
    let s = Schedule::default_week();
    // Mon 2026-11-23 00:00 CET (UTC+1) to Mon 2026-11-30 00:00 CET.
    let due = s.due(sthlm(2026, 11, 23, 0, 0, 0), sthlm(2026, 11, 30, 0, 0, 0));
    let mut expected = vec![
        ("results", utc(2026, 11, 23, 11, 0, 0)),
        ("weekday_open", utc(2026, 11, 23, 11, 0, 0)),
    ];
    for day in 23..=27 {
        expected.push(("courier_evening", utc(2026, 11, day, 17, 0, 0)));
        expected.push(("courier_late", utc(2026, 11, day, 22, 0, 0)));
    }
    expected.extend([
        ("courier_final", utc(2026, 11, 27, 23, 0, 0)),
        ("weekday_close", utc(2026, 11, 27, 23, 0, 0)),
        ("form_open", utc(2026, 11, 27, 23, 0, 0)),
        ("reminder_morning", utc(2026, 11, 29, 8, 0, 0)),
        ("reminder_last_call", utc(2026, 11, 29, 12, 0, 0)),
        ("form_close", utc(2026, 11, 29, 14, 0, 0)),
        ("resolve", utc(2026, 11, 29, 14, 0, 0)),
    ]);
    assert_eq!(names_at(&due), expected);
    assert_eq!(due[0].kind, EventKind::Results);
    assert_eq!(due.last().unwrap().kind, EventKind::Resolve);
}

#[test]
fn due_bounds_are_exclusive_below_and_inclusive_above() {
    let s = Schedule::default_week();
    let close = sthlm(2026, 11, 29, 15, 0, 0);
    let upto_close = s.due(close - Duration::seconds(1), close);
    assert_eq!(
        names_at(&upto_close),
        [("form_close", close), ("resolve", close)]
    );
    assert!(s.due(close, close + Duration::seconds(1)).is_empty());
    assert!(s.due(close, close).is_empty());
    assert!(s.due(close, close - Duration::hours(1)).is_empty());
}

#[test]
fn one_due_call_over_a_whole_weekend_returns_the_catch_up_in_order() {
    let s = Schedule::default_week();
    let due = s.due(sthlm(2026, 11, 27, 12, 0, 0), sthlm(2026, 11, 30, 13, 0, 0));
    assert_eq!(
        names_at(&due),
        [
            ("courier_evening", utc(2026, 11, 27, 17, 0, 0)),
            ("courier_late", utc(2026, 11, 27, 22, 0, 0)),
            ("courier_final", utc(2026, 11, 27, 23, 0, 0)),
            ("weekday_close", utc(2026, 11, 27, 23, 0, 0)),
            ("form_open", utc(2026, 11, 27, 23, 0, 0)),
            ("reminder_morning", utc(2026, 11, 29, 8, 0, 0)),
            ("reminder_last_call", utc(2026, 11, 29, 12, 0, 0)),
            ("form_close", utc(2026, 11, 29, 14, 0, 0)),
            ("resolve", utc(2026, 11, 29, 14, 0, 0)),
            ("results", utc(2026, 11, 30, 11, 0, 0)),
            ("weekday_open", utc(2026, 11, 30, 11, 0, 0)),
        ]
    );
}

#[test]
fn next_after_steps_through_the_week_without_skipping_or_repeating() {
    let s = Schedule::default_week();
    let start = sthlm(2026, 11, 23, 0, 0, 0);
    let end = sthlm(2026, 11, 30, 0, 0, 0);
    let expected = s.due(start, end);
    // Same-instant events: next_after returns the first listed; the caller
    // then asks due() for the rest of that instant.
    let mut t = start;
    let mut seen = Vec::new();
    while let Some(next) = s.next_after(t) {
        if next.at > end {
            break;
        }
        let batch = s.due(t, next.at);
        assert_eq!(batch.first(), Some(&next));
        seen.extend(batch);
        t = next.at;
    }
    assert_eq!(seen, expected);
}

#[test]
fn form_close_is_sunday_1500_local_on_all_dst_weekends_and_fires_once() {
    let s = Schedule::default_week();
    // (change day, UTC hour of Sunday 15:00 local on that day)
    let cases = [
        ((2026, 3, 29), 13),  // spring forward: CEST, UTC+2
        ((2026, 10, 25), 14), // fall back: CET, UTC+1
        ((2027, 3, 28), 13),
        ((2027, 10, 31), 14),
    ];
    for ((y, m, d), utc_hour) in cases {
        let sunday = chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap();
        assert_eq!(sunday.weekday(), Weekday::Sun, "{sunday} is a Sunday");
        let from = utc(y, m, d, 0, 0, 0) - Duration::days(1);
        let to = utc(y, m, d, 23, 0, 0);
        let closes: Vec<_> = s
            .due(from, to)
            .into_iter()
            .filter(|d| d.kind == EventKind::FormClose)
            .collect();
        assert_eq!(closes.len(), 1, "{sunday}: {closes:?}");
        assert_eq!(closes[0].at, utc(y, m, d, utc_hour, 0, 0), "{sunday}");
        assert_eq!(
            s.next_closing(Window::Weekend, utc(y, m, d, 0, 0, 0)),
            Some(utc(y, m, d, utc_hour, 0, 0)),
            "{sunday}"
        );
    }
}

#[test]
fn a_week_spanning_each_dst_change_fires_each_event_once() {
    let s = Schedule::default_week();
    for (y, m, d) in [(2026, 3, 29), (2026, 10, 25), (2027, 3, 28), (2027, 10, 31)] {
        // Monday before the change day (a Sunday) to Monday after it.
        let monday = chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap() - Duration::days(6);
        let next_monday = monday + Duration::days(7);
        let at_midnight =
            |date: chrono::NaiveDate| sthlm(date.year(), date.month(), date.day(), 0, 0, 0);
        let due = s.due(at_midnight(monday), at_midnight(next_monday));
        let counts = count_by_name(&due);
        for spec in s.events() {
            let expected = if spec.kind == EventKind::CourierBatch && spec.name != "courier_final" {
                5
            } else {
                1
            };
            assert_eq!(
                counts.get(spec.name.as_str()),
                Some(&expected),
                "{monday}: {}",
                spec.name
            );
        }
        // In order and each instant once per event.
        assert!(due.windows(2).all(|w| w[0].at <= w[1].at));
        // The local wall-clock times are the rulebook's, whatever the offset.
        for d in &due {
            let local = d.at.with_timezone(&Stockholm);
            let hm = (local.hour(), local.minute(), local.second());
            let expected = match d.name.as_str() {
                "results" | "weekday_open" => (12, 0, 0),
                "courier_evening" => (18, 0, 0),
                "courier_late" => (23, 0, 0),
                "courier_final" | "weekday_close" | "form_open" => (0, 0, 0),
                "reminder_morning" => (9, 0, 0),
                "reminder_last_call" => (13, 0, 0),
                "form_close" | "resolve" => (15, 0, 0),
                other => panic!("unexpected event {other}"),
            };
            assert_eq!(hm, expected, "{monday}: {} at {}", d.name, d.at);
        }
    }
}

#[test]
fn an_event_at_0230_local_fires_once_on_both_change_days() {
    let s = week_with("  - { name: night_watch, kind: reminder, cron: \"0 30 2 * * Sun\" }\n");
    // Spring: 02:30 does not exist; it fires at the end of the gap,
    // 03:00 CEST = 01:00 UTC.
    for (y, m, d) in [(2026, 3, 29), (2027, 3, 28)] {
        let due: Vec<_> = s
            .due(
                utc(y, m, d, 0, 0, 0) - Duration::days(1),
                utc(y, m, d, 0, 0, 0) + Duration::days(1),
            )
            .into_iter()
            .filter(|e| e.name == "night_watch")
            .collect();
        assert_eq!(due.len(), 1, "{y}-{m}-{d}: {due:?}");
        assert_eq!(due[0].at, utc(y, m, d, 1, 0, 0));
    }
    // Autumn: 02:30 happens twice; it fires at the first, 02:30 CEST =
    // 00:30 UTC, and not at 02:30 CET = 01:30 UTC.
    for (y, m, d) in [(2026, 10, 25), (2027, 10, 31)] {
        let due: Vec<_> = s
            .due(
                utc(y, m, d, 0, 0, 0) - Duration::days(1),
                utc(y, m, d, 0, 0, 0) + Duration::days(1),
            )
            .into_iter()
            .filter(|e| e.name == "night_watch")
            .collect();
        assert_eq!(due.len(), 1, "{y}-{m}-{d}: {due:?}");
        assert_eq!(due[0].at, utc(y, m, d, 0, 30, 0));
    }
}

#[test]
fn next_after_crosses_the_gap_and_the_overlap_once() {
    let s = week_with("  - { name: night_watch, kind: reminder, cron: \"0 30 2 * * Sun\" }\n");
    // Asked from inside the autumn overlap's second 02:xx hour: the 02:30
    // firing is behind us (first occurrence), so the next one is form_close.
    let second_0215 = utc(2026, 10, 25, 1, 15, 0); // 02:15 CET
    let next = s.next_after(second_0215).unwrap();
    assert_eq!(next.name, "form_close");
    assert_eq!(next.at, utc(2026, 10, 25, 14, 0, 0));
    // Asked just before the spring gap: fires at the gap's end.
    let next = s.next_after(utc(2026, 3, 29, 0, 59, 59)).unwrap();
    assert_eq!(
        (next.name.as_str(), next.at),
        ("night_watch", utc(2026, 3, 29, 1, 0, 0))
    );
}

#[test]
fn hourly_events_fire_once_per_instant_on_change_days() {
    let s = week_with("  - { name: hourly, kind: courier_batch, cron: \"0 0 * * * Sun\" }\n");
    let day = |y, m, d| {
        let from = sthlm(y, m, d, 0, 0, 0) - Duration::seconds(1);
        let to = sthlm(y, m, d, 23, 0, 0);
        let hits: Vec<_> = s
            .due(from, to)
            .into_iter()
            .filter(|e| e.name == "hourly")
            .map(|e| e.at)
            .collect();
        assert!(hits.windows(2).all(|w| w[0] < w[1]), "{hits:?}");
        hits.len()
    };
    // 23-hour day: wall 02:00 and 03:00 are the same instant, fired once.
    assert_eq!(day(2026, 3, 29), 23);
    // 25-hour day: wall 02:00 fires at its first occurrence only.
    assert_eq!(day(2026, 10, 25), 24);
    assert_eq!(day(2026, 11, 1), 24);
}

#[test]
fn cron_crate_alone_skips_gap_times_and_repeats_overlap_times() {
    // Why this module maps wall-clock times itself: driven directly with a
    // chrono-tz zone, cron 0.15 loses the spring 02:30 and fires the autumn
    // 02:30 twice. If this test fails after an upgrade, the crate changed.
    let parsed = cron::Schedule::from_str("0 30 2 * * Sun").unwrap();
    let spring: Vec<_> = parsed
        .after(&Stockholm.with_ymd_and_hms(2026, 3, 28, 0, 0, 0).unwrap())
        .take_while(|t| t.date_naive() <= chrono::NaiveDate::from_ymd_opt(2026, 3, 29).unwrap())
        .collect();
    assert!(spring.is_empty(), "{spring:?}");
    let autumn: Vec<_> = parsed
        .after(&Stockholm.with_ymd_and_hms(2026, 10, 24, 0, 0, 0).unwrap())
        .take_while(|t| t.date_naive() <= chrono::NaiveDate::from_ymd_opt(2026, 10, 25).unwrap())
        .collect();
    assert_eq!(autumn.len(), 2, "{autumn:?}");
}

#[test]
fn window_at_edges_of_the_rulebook_week() {
    let s = Schedule::default_week();
    let cases = [
        (sthlm(2026, 11, 27, 23, 59, 59), Window::Weekday), // Fri 23:59:59
        (sthlm(2026, 11, 28, 0, 0, 0), Window::Weekend),    // Sat 00:00:00
        (sthlm(2026, 11, 29, 14, 59, 59), Window::Weekend), // Sun 14:59:59
        (sthlm(2026, 11, 29, 15, 0, 0), Window::Closed),    // Sun 15:00:00
        (sthlm(2026, 11, 30, 11, 59, 59), Window::Closed),  // Mon 11:59:59
        (sthlm(2026, 11, 30, 12, 0, 0), Window::Weekday),   // Mon 12:00:00
        (sthlm(2026, 11, 25, 3, 0, 0), Window::Weekday),    // Wed night
    ];
    for (t, expected) in cases {
        assert_eq!(
            s.window_at(t),
            expected,
            "{}",
            describe_local(t, Stockholm, false)
        );
    }
}

#[test]
fn window_at_edges_hold_on_dst_weekends() {
    let s = Schedule::default_week();
    // Spring 2026: Sun 15:00 CEST = 13:00 UTC.
    assert_eq!(s.window_at(utc(2026, 3, 29, 12, 59, 59)), Window::Weekend);
    assert_eq!(s.window_at(utc(2026, 3, 29, 13, 0, 0)), Window::Closed);
    // Inside the gap's end and the autumn overlap, the form window holds.
    assert_eq!(s.window_at(utc(2026, 3, 29, 1, 0, 0)), Window::Weekend);
    assert_eq!(s.window_at(utc(2026, 10, 25, 1, 30, 0)), Window::Weekend);
    // Autumn 2026: Sun 15:00 CET = 14:00 UTC.
    assert_eq!(s.window_at(utc(2026, 10, 25, 13, 59, 59)), Window::Weekend);
    assert_eq!(s.window_at(utc(2026, 10, 25, 14, 0, 0)), Window::Closed);
}

#[test]
fn next_opening_and_closing_answer_refusals_and_receipts() {
    let s = Schedule::default_week();
    let sunday_evening = sthlm(2026, 11, 29, 18, 0, 0);
    assert_eq!(
        s.next_opening(Window::Weekday, sunday_evening),
        Some(sthlm(2026, 11, 30, 12, 0, 0))
    );
    assert_eq!(
        s.next_opening(Window::Weekend, sunday_evening),
        Some(sthlm(2026, 12, 5, 0, 0, 0))
    );
    let saturday = sthlm(2026, 11, 28, 10, 0, 0);
    assert_eq!(
        s.next_closing(Window::Weekend, saturday),
        Some(sthlm(2026, 11, 29, 15, 0, 0))
    );
    // Opening of the window that holds now is the one after it closes.
    assert_eq!(
        s.next_opening(Window::Weekend, saturday),
        Some(sthlm(2026, 12, 5, 0, 0, 0))
    );
    let wednesday = sthlm(2026, 11, 25, 10, 0, 0);
    assert_eq!(
        s.next_closing(Window::Weekday, wednesday),
        Some(sthlm(2026, 11, 28, 0, 0, 0))
    );
    // Closed "opens" at Sun 15:00; at Sat 00:00 weekday_close and form_open
    // fire together, so the window goes straight to Weekend.
    assert_eq!(
        s.next_opening(Window::Closed, wednesday),
        Some(sthlm(2026, 11, 29, 15, 0, 0))
    );
    assert_eq!(
        s.next_closing(Window::Closed, sunday_evening),
        Some(sthlm(2026, 11, 30, 12, 0, 0))
    );
    // Exactly at an opening, the next opening is a week later.
    assert_eq!(
        s.next_opening(Window::Weekday, sthlm(2026, 11, 30, 12, 0, 0)),
        Some(sthlm(2026, 12, 7, 12, 0, 0))
    );
}

#[test]
fn the_form_window_is_told_as_one_span_without_the_year_and_with_the_zone_once() {
    let (from, to) = (sthlm(2026, 11, 28, 0, 0, 0), sthlm(2026, 11, 29, 15, 0, 0));
    assert_eq!(
        describe_span(from, to, Stockholm, true),
        "lördag 28 november 00:00 – söndag 29 november 15:00 (Europe/Stockholm)"
    );
    assert_eq!(
        describe_span(from, to, Stockholm, false),
        "Saturday 28 November 00:00 – Sunday 29 November 15:00 (Europe/Stockholm)"
    );
}

#[test]
fn describe_local_renders_swedish_and_english() {
    let t = sthlm(2026, 11, 23, 12, 0, 0);
    assert_eq!(
        describe_local(t, Stockholm, true),
        "måndag 23 november 2026 12:00 (Europe/Stockholm)"
    );
    assert_eq!(
        describe_local(t, Stockholm, false),
        "Monday 23 November 2026 12:00 (Europe/Stockholm)"
    );
    assert_eq!(
        describe_local(sthlm(2026, 3, 29, 15, 0, 0), Stockholm, true),
        "söndag 29 mars 2026 15:00 (Europe/Stockholm)"
    );
}

#[test]
fn event_kind_names_match_the_file_format() {
    for kind in EventKind::ALL {
        let yaml = serde_yaml::to_string(&kind).unwrap();
        assert_eq!(yaml.trim(), kind.as_str());
        assert_eq!(kind.to_string(), kind.as_str());
    }
}

fn error_of(yaml: &str) -> String {
    Schedule::from_yaml(yaml).unwrap_err().to_string()
}

const WINDOW_EVENTS: &str =
    "  - { name: weekday_open, kind: weekday_open, cron: \"0 0 12 * * Mon\" }
  - { name: weekday_close, kind: weekday_close, cron: \"0 0 0 * * Sat\" }
  - { name: form_open, kind: form_open, cron: \"0 0 0 * * Sat\" }
  - { name: form_close, kind: form_close, cron: \"0 0 15 * * Sun\" }
";

#[test]
fn from_yaml_rejects_unknown_timezone_naming_the_key() {
    let msg = error_of(&format!(
        "timezone: Europe/Stokholm\nevents:\n{WINDOW_EVENTS}"
    ));
    assert!(msg.contains("`timezone`"), "{msg}");
    assert!(msg.contains("Europe/Stokholm"), "{msg}");
}

#[test]
fn from_yaml_rejects_bad_cron_naming_the_event() {
    let msg = error_of(&format!(
        "events:\n{WINDOW_EVENTS}  - {{ name: evening_post, kind: courier_batch, cron: \"0 18 * * Mon-Fri\" }}\n"
    ));
    assert!(msg.contains("event `evening_post`"), "{msg}");
    assert!(msg.contains("0 18 * * Mon-Fri"), "{msg}");
    let msg = error_of(&format!(
        "events:\n{WINDOW_EVENTS}  - {{ name: never, kind: reminder, cron: \"0 0 0 30 Feb *\" }}\n"
    ));
    assert!(
        msg.contains("event `never`") && msg.contains("never fires"),
        "{msg}"
    );
}

#[test]
fn from_yaml_rejects_duplicate_name_naming_the_event() {
    let msg = error_of(&format!(
        "events:\n{WINDOW_EVENTS}  - {{ name: form_open, kind: reminder, cron: \"0 0 9 * * Sun\" }}\n"
    ));
    assert!(msg.contains("event `form_open` is defined twice"), "{msg}");
    assert!(msg.contains("3 and 5"), "{msg}");
}

#[test]
fn from_yaml_rejects_missing_window_kind_naming_the_kind() {
    let without_form_close: String = WINDOW_EVENTS
        .lines()
        .filter(|l| !l.contains("form_close"))
        .map(|l| format!("{l}\n"))
        .collect();
    let msg = error_of(&format!("events:\n{without_form_close}"));
    assert!(msg.contains("kind `form_close`"), "{msg}");
}

#[test]
fn from_yaml_rejects_unknown_kind_and_unknown_key() {
    let msg = error_of(&format!(
        "events:\n{WINDOW_EVENTS}  - {{ name: x, kind: reminders, cron: \"0 0 9 * * Sun\" }}\n"
    ));
    assert!(
        msg.contains("reminders") && msg.contains("events[4]"),
        "{msg}"
    );
    let msg = error_of(&format!(
        "events:\n{WINDOW_EVENTS}  - {{ name: x, kind: reminder, crn: \"0 0 9 * * Sun\" }}\n"
    ));
    assert!(msg.contains("crn"), "{msg}");
    let msg = error_of(&format!(
        "events:\n{WINDOW_EVENTS}  - {{ name: \" \", kind: reminder, cron: \"0 0 9 * * Sun\" }}\n"
    ));
    assert!(msg.contains("event number 5"), "{msg}");
}

#[test]
fn from_yaml_defaults_timezone_to_stockholm() {
    let s = Schedule::from_yaml(&format!("events:\n{WINDOW_EVENTS}")).unwrap();
    assert_eq!(s.timezone(), Stockholm);
}

#[test]
fn rulings_63_another_timezone_puts_the_form_deadline_at_its_local_sunday_1500() {
    let s = Schedule::from_yaml(&format!(
        "timezone: America/New_York\nevents:\n{WINDOW_EVENTS}"
    ))
    .unwrap();
    assert_eq!(s.timezone(), chrono_tz::America::New_York);
    // Sunday 29 November 2026, 15:00 in New York (EST, UTC−5) is 20:00 UTC.
    let closes: Vec<_> = s
        .due(utc(2026, 11, 28, 0, 0, 0), utc(2026, 11, 30, 0, 0, 0))
        .into_iter()
        .filter(|d| d.kind == EventKind::FormClose)
        .map(|d| d.at)
        .collect();
    assert_eq!(closes, [utc(2026, 11, 29, 20, 0, 0)]);
    assert_eq!(
        s.next_closing(Window::Weekend, utc(2026, 11, 29, 14, 0, 0)),
        Some(utc(2026, 11, 29, 20, 0, 0))
    );
}

#[test]
fn window_at_with_sparse_window_events_looks_further_back() {
    // Monthly windows: opens on the 1st at 12:00, closes the 20th.
    let s = Schedule::from_yaml(
        "events:
  - { name: o, kind: weekday_open, cron: \"0 0 12 1 * *\" }
  - { name: c, kind: weekday_close, cron: \"0 0 0 20 * *\" }
  - { name: fo, kind: form_open, cron: \"0 0 0 25 * *\" }
  - { name: fc, kind: form_close, cron: \"0 0 15 27 * *\" }
",
    )
    .unwrap();
    assert_eq!(s.window_at(sthlm(2026, 11, 15, 0, 0, 0)), Window::Weekday);
    assert_eq!(s.window_at(sthlm(2026, 11, 22, 0, 0, 0)), Window::Closed);
    assert_eq!(s.window_at(sthlm(2026, 11, 26, 0, 0, 0)), Window::Weekend);
    assert_eq!(
        s.next_opening(Window::Weekday, sthlm(2026, 11, 15, 0, 0, 0)),
        Some(sthlm(2026, 12, 1, 12, 0, 0))
    );
}

/// Every span found over two weeks (one with the autumn clock change) is exact: the
/// window it names holds at each of its edges and 17 minutes apart inside, and the
/// window changes right at its end.
#[test]
fn window_span_holds_its_window_throughout_and_ends_where_it_changes() {
    let s = Schedule::default_week();
    let mut t = utc(2026, 10, 19, 0, 0, 0);
    let end = utc(2026, 11, 2, 0, 0, 0);
    let mut spans = 0;
    while t < end {
        let span = s.window_span(t);
        assert!(span.holds_at(t) && span.since <= t && t < span.until);
        let mut x = span.since;
        while x < span.until {
            assert_eq!(s.window_at(x), span.window, "{x} in {span:?}");
            x += Duration::minutes(17);
        }
        let last = span.until - Duration::seconds(1);
        assert_eq!(s.window_at(last), span.window, "{last} in {span:?}");
        assert_ne!(s.window_at(span.until), span.window, "{span:?}");
        t = span.until;
        spans += 1;
    }
    // Three windows a week (weekday, form, closed), over two weeks and a bit.
    assert!((6..=8).contains(&spans), "{spans} spans");
}

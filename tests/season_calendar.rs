//! docs/gm/season.md — pause, extend and holidays: `gm pause`, `gm resume`,
//! the pause's end by itself, `gm extend` for all and for one realm, and skipped
//! dates in the schedule file, driven through the real binary, each in an ordinary
//! week and across a daylight-saving weekend (Europe/Stockholm: 25 Oct 2026 and
//! 28 Mar 2027), with every schedule event firing exactly once.

mod common;

#[path = "weekend_common/game_dir.rs"]
mod game_dir;

use chrono::{Duration, NaiveDate, TimeZone};
use chrono_tz::Europe::Stockholm;
use game_dir::*;

/// A game week: the Tuesday the game starts on.
#[derive(Clone, Copy)]
struct Week(NaiveDate);

/// An ordinary week, the autumn clock change's (Sunday 25 Oct 2026) and the spring
/// one's (Sunday 28 Mar 2027).
const PLAIN: (i32, u32, u32) = (2026, 11, 24);
const AUTUMN: (i32, u32, u32) = (2026, 10, 20);
const SPRING: (i32, u32, u32) = (2027, 3, 23);

impl Week {
    fn of((y, m, d): (i32, u32, u32)) -> Week {
        Week(NaiveDate::from_ymd_opt(y, m, d).unwrap())
    }

    /// RFC 3339 of `days` after the Tuesday at `h:m` Stockholm time.
    fn at(self, days: i64, h: u32, m: u32) -> String {
        let day = self.0 + Duration::days(days);
        Stockholm
            .from_local_datetime(&day.and_hms_opt(h, m, 0).unwrap())
            .single()
            .unwrap()
            .to_rfc3339()
    }
}

/// A game started (`init --now`) on the week's Tuesday 09:00, after `setup` edited
/// its directory (the schedule file); the opening forms are mailed.
fn start(week: Week, setup: impl FnOnce(&std::path::Path)) -> Dir {
    start_on(week, None, setup)
}

/// As [`start`], on the database at `url` (default: the directory's SQLite file).
fn start_on(week: Week, url: Option<&str>, setup: impl FnOnce(&std::path::Path)) -> Dir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("game");
    ok(&run(&["new", dir.to_str().unwrap()], &[]));
    if let Some(url) = url {
        let cfg = dir.join("pbemd.yaml");
        let text = std::fs::read_to_string(&cfg).unwrap();
        let text = text.replace("database: sqlite:pbemd.db", &format!("database: {url}"));
        assert!(text.contains(url), "the game runs on {url}");
        std::fs::write(cfg, text).unwrap();
    }
    setup(&dir);
    let d = Dir {
        _tmp: tmp,
        dir,
        mails: Default::default(),
    };
    d.ok(&["init", "--now", &week.at(0, 9, 0)]);
    d
}

/// The game's store: the database its config names.
async fn store(d: &Dir) -> pbemd::store::Store {
    let cfg = std::fs::read_to_string(d.dir.join("pbemd.yaml")).unwrap();
    let url = cfg
        .lines()
        .find_map(|l| l.strip_prefix("database: "))
        .map(|u| u.split('#').next().unwrap().trim().to_string())
        .unwrap();
    if url.starts_with("postgres") {
        pbemd::store::Store::open(&url).await.unwrap()
    } else {
        d.store().await
    }
}

/// A fresh PostgreSQL database's URL, if `PBEMD_TEST_PG_URL` points at a server.
fn pg_url() -> Option<String> {
    common::pg_database_url_blocking()
}

/// The audit entries of `kind`, as (realm, detail).
fn audit(d: &Dir, kind: &str) -> Vec<(Option<String>, serde_json::Value)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let store = store(d).await;
        let mut c = store.conn().await.unwrap();
        pbemd::store::events::filtered(&mut c, None, None)
            .await
            .unwrap()
            .into_iter()
            .filter(|e| e.kind == kind)
            .map(|e| {
                let v = serde_json::from_str(&e.detail).unwrap_or(serde_json::Value::Null);
                (e.realm, v)
            })
            .collect()
    })
}

/// Every schedule firing recorded: (name, instant in ms).
fn fired(d: &Dir) -> Vec<(String, i64)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let store = store(d).await;
        let mut c = store.conn().await.unwrap();
        pbemd::store::schedule::fired(&mut c)
            .await
            .unwrap()
            .into_iter()
            .map(|(name, _, at)| (name, at))
            .collect()
    })
}

fn ms(rfc: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(rfc)
        .unwrap()
        .timestamp_millis()
}

/// Each (name, instant) fired once, and `name` fired at `at`.
fn fired_once_at(d: &Dir, name: &str, at: &str) {
    let f = fired(d);
    let mut keys: Vec<_> = f.clone();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), f.len(), "no event fired twice: {f:?}");
    let hits: Vec<_> = f
        .iter()
        .filter(|(n, t)| n == name && *t == ms(at))
        .collect();
    assert_eq!(hits.len(), 1, "{name} fired once at {at}: {f:?}");
}

/// The calendar mails (and paused notices) to `addr` since `seen`.
fn calendar_mails(d: &Dir, seen: &[String], addr: &str) -> Vec<common::Sent> {
    d.outbox_since(seen)
        .into_iter()
        .filter(|m| m.to_is(addr))
        .collect()
}

/// How many realms play (have an address and are not out).
fn players(d: &Dir) -> usize {
    let st = d.state();
    st["realms"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["emails"].as_array().is_some_and(|e| !e.is_empty())
                && !r["eliminated"].as_bool().unwrap_or(false)
        })
        .count()
}

fn ids(d: &Dir) -> Vec<String> {
    d.outbox().into_iter().map(|m| m.message_id).collect()
}

/// A three-day pause from Wednesday 10:00: the realms are told (sv and en); a mail
/// sent meanwhile gets the notice and is handled only after the resume; the resume
/// moves the deadline by three days and tells every realm; each event fires once.
fn pause_and_resume(week: Week, url: Option<&str>) {
    let d = start_on(week, url, |_| {});
    d.tick(&week.at(1, 10, 0));
    let seen = ids(&d);
    let out = d.ok(&[
        "gm",
        "pause",
        "--reason",
        "the GM is ill",
        "--at",
        &week.at(1, 10, 0),
    ]);
    assert!(out.contains("the game is paused from"), "{out}");
    let en = calendar_mails(&d, &seen, "afani@game.test");
    assert_eq!(en.len(), 1);
    assert!(
        en[0].text.contains("The GM has paused the game until"),
        "{}",
        en[0].text
    );
    assert!(
        en[0].text.contains("Reason: the GM is ill"),
        "{}",
        en[0].text
    );
    let sv = calendar_mails(&d, &seen, "genogien@game.test");
    assert!(
        sv[0].text.contains("Spelledaren har pausat spelet till"),
        "{}",
        sv[0].text
    );
    assert_eq!(audit(&d, "gm_pause").len(), 1);
    assert!(d.state()["calendar"]["pause"].is_object());

    // An envoy during the pause: kept, answered with the notice, not delivered.
    let seen = ids(&d);
    d.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "Hej",
    );
    d.tick(&week.at(2, 10, 0));
    let notice = calendar_mails(&d, &seen, "genogien@game.test");
    assert_eq!(notice.len(), 1, "one notice");
    assert!(
        notice[0].text.contains("Spelet är pausat till"),
        "{}",
        notice[0].text
    );
    assert!(notice[0].text.contains("sparats"), "{}", notice[0].text);
    assert!(
        calendar_mails(&d, &seen, "afani@game.test").is_empty(),
        "nothing delivered"
    );
    assert_eq!(audit(&d, "mail_while_paused").len(), 1);

    // Resume on Saturday 10:00: three days later; the deadline Sunday 15:00 moves to
    // Wednesday 15:00 (local clock).
    let seen = ids(&d);
    let out = d.ok(&["gm", "resume", "--at", &week.at(4, 10, 0)]);
    assert!(out.contains("after a pause of 72 h 00 min"), "{out}");
    let deadline = week.at(8, 15, 0);
    let told = d.outbox_since(&seen);
    assert_eq!(
        told.len(),
        players(&d),
        "every playing realm is told: {told:?}"
    );
    let afani = calendar_mails(&d, &seen, "afani@game.test");
    assert!(
        afani[0].text.contains("New form deadline: Wednesday"),
        "{}",
        afani[0].text
    );
    let gen = calendar_mails(&d, &seen, "genogien@game.test");
    assert!(
        gen[0]
            .text
            .contains("Ny sista inlämning för helgformuläret: onsdag"),
        "{}",
        gen[0].text
    );
    let resumed = audit(&d, "gm_resume");
    assert_eq!(resumed.len(), 1);
    assert_eq!(resumed[0].1["paused_minutes"], 72 * 60);
    assert!(d.state()["calendar"]["pause"].is_null());

    // The kept envoy goes out now, in the weekday window the pause interrupted.
    let seen = ids(&d);
    d.tick(&week.at(4, 10, 5));
    let delivered = calendar_mails(&d, &seen, "afani@game.test");
    assert_eq!(
        delivered.len(),
        1,
        "the envoy is delivered after the resume"
    );
    assert!(delivered[0].text.contains("Hej"), "{}", delivered[0].text);

    // Through the moved weekend: every event once, the form deadline three days on.
    d.tick(&week.at(9, 13, 0));
    fired_once_at(&d, "form_close", &deadline);
    fired_once_at(&d, "resolve", &deadline);
    fired_once_at(&d, "results", &week.at(9, 12, 0));
    fired_once_at(&d, "weekday_close", &week.at(7, 0, 0));
    assert_eq!(d.state()["round"], 2);
}

#[test]
fn a_pause_keeps_mail_for_later_and_the_resume_moves_the_deadline_by_its_length() {
    pause_and_resume(Week::of(PLAIN), None);
}

#[test]
fn a_pause_over_the_autumn_clock_change_moves_the_deadline_on_the_local_clock() {
    pause_and_resume(Week::of(AUTUMN), None);
}

#[test]
fn a_pause_over_the_spring_clock_change_moves_the_deadline_on_the_local_clock() {
    pause_and_resume(Week::of(SPRING), None);
}

/// A pause with `--until` next Tuesday 12:00 ends by itself at that instant, exactly
/// once, through `tick`; every realm is told the new deadline.
fn resumes_by_itself(week: Week) {
    let d = start(week, |_| {});
    d.tick(&week.at(2, 12, 0));
    d.ok(&[
        "gm",
        "pause",
        "--until",
        &week.at(7, 12, 0),
        "--at",
        &week.at(2, 12, 0),
    ]);
    d.tick(&week.at(5, 12, 0));
    assert!(audit(&d, "calendar_resumed").is_empty(), "still paused");
    let seen = ids(&d);
    d.tick(&week.at(7, 13, 0));
    let resumed = audit(&d, "calendar_resumed");
    assert_eq!(resumed.len(), 1, "resumed by itself once");
    assert_eq!(resumed[0].1["paused_minutes"], 5 * 24 * 60);
    let told = d.outbox_since(&seen);
    assert_eq!(told.len(), players(&d), "{told:?}");
    let afani = calendar_mails(&d, &seen, "afani@game.test");
    assert!(
        afani[0].text.contains("The game resumes."),
        "{}",
        afani[0].text
    );
    d.tick(&week.at(7, 14, 0));
    d.tick(&week.at(12, 16, 0));
    assert_eq!(audit(&d, "calendar_resumed").len(), 1, "never twice");
    let resumes = fired(&d)
        .into_iter()
        .filter(|(n, _)| n == "calendar_resume")
        .count();
    assert_eq!(resumes, 1);
    // Thursday 12:00 plus five days: the deadline Sunday 15:00 is Friday 15:00.
    fired_once_at(&d, "resolve", &week.at(10, 15, 0));
    assert_eq!(d.state()["round"], 2);
}

#[test]
fn a_pause_ends_by_itself_at_until_exactly_once() {
    resumes_by_itself(Week::of(PLAIN));
}

#[test]
fn a_pause_over_the_autumn_clock_change_ends_by_itself_once() {
    resumes_by_itself(Week::of(AUTUMN));
}

#[test]
fn gm_pause_refuses_a_bad_date_quoting_it_and_a_pause_longer_than_the_setting() {
    let week = Week::of(PLAIN);
    let d = start(week, |_| {});
    let e = failed(&d.cmd(&["gm", "pause", "--until", "next friday"], &[]));
    assert!(
        e.contains("`next friday` is neither a date YYYY-MM-DD"),
        "{e}"
    );
    let e = failed(&d.cmd(
        &[
            "gm",
            "pause",
            "--until",
            "2027-06-01",
            "--at",
            &week.at(0, 10, 0),
        ],
        &[],
    ));
    assert!(e.contains("season.max_pause_days = 21"), "{e}");
    let e = failed(&d.cmd(&["gm", "resume"], &[]));
    assert!(e.contains("the game is not paused"), "{e}");
    assert!(audit(&d, "gm_pause").is_empty());
}

/// `gm extend 24` on Saturday: every realm is told the new deadline, Monday 15:00; a
/// form on Monday morning is accepted; the round is resolved Monday 15:00 and the
/// Monday results wait for it.
fn extend_for_all(week: Week) {
    let d = start(week, |_| {});
    d.tick(&week.at(4, 10, 0));
    let seen = ids(&d);
    let out = d.ok(&["gm", "extend", "24", "--at", &week.at(4, 10, 0)]);
    assert!(out.contains("extended for every realm"), "{out}");
    assert_eq!(d.outbox_since(&seen).len(), players(&d), "every realm told");
    let afani = calendar_mails(&d, &seen, "afani@game.test");
    assert!(
        afani[0].text.contains("New form deadline: Monday"),
        "{}",
        afani[0].text
    );
    assert!(afani[0].text.contains("15:00"), "{}", afani[0].text);
    let gen = calendar_mails(&d, &seen, "genogien@game.test");
    assert!(
        gen[0].text.contains("Ny sista inlämning: måndag"),
        "{}",
        gen[0].text
    );
    let e = audit(&d, "gm_extend");
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].1["hours"], 24);

    let seen = ids(&d);
    d.send("afani@game.test", "Afani form", "BUY 1 spy");
    d.tick(&week.at(6, 10, 0));
    let to_afani = calendar_mails(&d, &seen, "afani@game.test");
    let receipts: Vec<_> = to_afani
        .iter()
        .filter(|m| m.subject.starts_with("Re:"))
        .collect();
    assert_eq!(receipts.len(), 1, "a receipt: {to_afani:?}");
    // Sunday's reminders already name the extended deadline.
    let reminder = to_afani
        .iter()
        .find(|m| !m.subject.starts_with("Re:"))
        .unwrap();
    assert!(
        flat(&reminder.text).contains(&taken(&week.at(4, 0, 0), &week.at(6, 15, 0), false)),
        "{}",
        reminder.text
    );
    assert_eq!(
        audit(&d, "form_received").len(),
        1,
        "the Monday form counts"
    );
    d.tick(&week.at(6, 16, 0));
    fired_once_at(&d, "form_close", &week.at(6, 15, 0));
    fired_once_at(&d, "resolve", &week.at(6, 15, 0));
    fired_once_at(&d, "results", &week.at(6, 15, 0));
    assert_eq!(d.state()["round"], 2);
    // The week after keeps its times.
    d.tick(&week.at(12, 16, 0));
    fired_once_at(&d, "form_close", &week.at(12, 15, 0));
}

#[test]
fn extending_the_deadline_for_everyone_moves_the_deadline_and_the_resolve() {
    extend_for_all(Week::of(PLAIN));
}

#[test]
fn extending_the_deadline_over_the_autumn_clock_change_keeps_the_local_hour() {
    extend_for_all(Week::of(AUTUMN));
}

/// `gm extend --realm Afani 20` on Sunday: only Afani is told; Genogien's form after
/// the deadline is refused, Afani's Monday morning form is accepted, the round is
/// resolved Monday 11:00, and Afani's form after that is refused.
fn extend_for_one(week: Week, url: Option<&str>) {
    let d = start_on(week, url, |_| {});
    d.tick(&week.at(5, 10, 0));
    let seen = ids(&d);
    d.ok(&[
        "gm",
        "extend",
        "--realm",
        "afani",
        "20",
        "--at",
        &week.at(5, 10, 0),
    ]);
    let told = d.outbox_since(&seen);
    assert_eq!(told.len(), 1, "only Afani is told");
    assert!(told[0].to_is("afani@game.test"));
    assert!(
        told[0].text.contains("Your form is accepted until: Monday"),
        "{}",
        told[0].text
    );
    let e = audit(&d, "gm_extend");
    assert_eq!(e[0].0.as_deref(), Some("Afani"));

    let seen = ids(&d);
    d.send("genogien@game.test", "Genogien helgformulär", "KÖP 1 spion");
    d.tick(&week.at(5, 16, 0));
    let gen = calendar_mails(&d, &seen, "genogien@game.test");
    assert!(gen.iter().any(|m| m.subject.starts_with("Re:")), "{gen:?}");
    assert!(audit(&d, "form_received").is_empty(), "Genogien is late");

    d.send("afani@game.test", "Afani form", "BUY 1 spy");
    d.tick(&week.at(6, 9, 0));
    assert_eq!(
        audit(&d, "form_received").len(),
        1,
        "Afani's late form counts"
    );
    d.tick(&week.at(6, 11, 30));
    // The deadline's own event (the GM's list of missing forms) waits with the resolve.
    fired_once_at(&d, "form_close", &week.at(6, 11, 0));
    fired_once_at(&d, "resolve", &week.at(6, 11, 0));
    assert_eq!(d.state()["round"], 2);
    let seen = ids(&d);
    d.send("afani@game.test", "Afani form", "BUY 2 spy");
    d.tick(&week.at(6, 11, 40));
    let late = calendar_mails(&d, &seen, "afani@game.test");
    assert_eq!(late.len(), 1, "{late:?}");
    assert!(
        late[0]
            .text
            .contains("Your form came after your extended deadline"),
        "{}",
        late[0].text
    );
    assert!(
        late[0].text.contains("Round 1 has already been resolved"),
        "{}",
        late[0].text
    );
    assert_eq!(
        audit(&d, "form_received").len(),
        1,
        "after the resolve it is refused"
    );
    d.tick(&week.at(6, 13, 0));
    fired_once_at(&d, "results", &week.at(6, 12, 0));
}

#[test]
fn extending_one_realms_deadline_accepts_its_late_form_until_the_resolve() {
    extend_for_one(Week::of(PLAIN), None);
}

#[test]
fn extending_one_realms_deadline_over_the_spring_clock_change() {
    extend_for_one(Week::of(SPRING), None);
}

/// `t` in words as a realm reading `lang_sv` is told it.
fn told(t: &str, lang_sv: bool) -> String {
    pbemd::schedule::describe_local(common::at(t), Stockholm, lang_sv)
}

/// The form window from `open` to `close` as forms and reminders say it.
fn taken(open: &str, close: &str, lang_sv: bool) -> String {
    let span =
        pbemd::schedule::describe_span(common::at(open), common::at(close), Stockholm, lang_sv);
    match lang_sv {
        true => format!("Formulär tas emot {span}"),
        false => format!("Forms are taken {span}"),
    }
}

/// `text` with its lines joined, so a phrase wrapped over two lines is found.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What the public trade board gives as the form deadline at `now`.
fn board_deadline(d: &Dir, now: &str) -> Option<String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let cfg = pbemd::config::Config::load(&d.dir.join("pbemd.yaml")).unwrap();
        let clock = std::sync::Arc::new(pbemd::clock::FixedClock::new(common::at(now)));
        let app = pbemd::app::App::open(cfg, clock).await.unwrap();
        let b = pbemd::app::site_player::board(&app, common::at(now))
            .await
            .unwrap();
        b.form_deadline
            .map(|t| pbemd::schedule::describe_local(t, Stockholm, true))
    })
}

/// `gm extend --realm Afani 20` on Sunday 10:00 gives Afani alone Monday 11:00; every
/// other realm keeps Sunday 15:00 and is told so in every text it reads: Genogien's
/// receipt at 11:30, Kaldor's reminder at 13:00 (with its form), the public trade
/// board. Afani's reminder says Monday 11:00. Genogien's correction at 16:00 is then
/// refused, as its receipt said it would be.
#[test]
fn a_late_deadline_for_one_realm_is_told_to_that_realm_alone() {
    let week = Week::of(PLAIN);
    let (sunday, monday) = (week.at(5, 15, 0), week.at(6, 11, 0));
    let d = start(week, |_| {});
    d.tick(&week.at(5, 10, 0));
    d.ok(&[
        "gm",
        "extend",
        "--realm",
        "afani",
        "20",
        "--at",
        &week.at(5, 10, 0),
    ]);

    let seen = ids(&d);
    d.send("genogien@game.test", "Genogien helgformulär", "KÖP 1 spion");
    d.tick(&week.at(5, 11, 30));
    let receipt = calendar_mails(&d, &seen, "genogien@game.test");
    assert_eq!(receipt.len(), 1, "{receipt:?}");
    let text = &receipt[0].text;
    assert!(text.contains("Helgformulär från Genogien"), "{text}");
    assert!(text.contains(&told(&sunday, true)), "{text}");
    assert!(!text.contains(&told(&monday, true)), "{text}");
    assert_eq!(
        board_deadline(&d, &week.at(5, 11, 30)),
        Some(told(&sunday, true))
    );

    let seen = ids(&d);
    d.tick(&week.at(5, 13, 0));
    let kaldor = calendar_mails(&d, &seen, "kaldor@game.test");
    assert_eq!(kaldor.len(), 1, "Kaldor's reminder: {kaldor:?}");
    let text = &kaldor[0].text;
    let saturday = week.at(4, 0, 0);
    assert_eq!(
        flat(text).matches(&taken(&saturday, &sunday, true)).count(),
        2,
        "in the reminder and its form: {text}"
    );
    assert!(!flat(text).contains("– måndag"), "{text}");
    let afani = calendar_mails(&d, &seen, "afani@game.test");
    assert_eq!(afani.len(), 1, "Afani's reminder: {afani:?}");
    let text = &afani[0].text;
    assert_eq!(
        flat(text)
            .matches(&taken(&saturday, &monday, false))
            .count(),
        2,
        "in the reminder and its form: {text}"
    );
    assert!(
        calendar_mails(&d, &seen, "genogien@game.test").is_empty(),
        "it sent one"
    );

    let seen = ids(&d);
    d.send("genogien@game.test", "Genogien helgformulär", "KÖP 2 spion");
    d.tick(&week.at(5, 16, 0));
    let refused = calendar_mails(&d, &seen, "genogien@game.test");
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].subject.starts_with("Re:"), "{refused:?}");
    assert_eq!(
        audit(&d, "form_received").len(),
        1,
        "only the 11:30 form counts"
    );
}

/// A late deadline given to Afani for the coming weekend between the resolution and
/// Monday's results: Afani's Monday form gives it, every other realm's the schedule's.
#[test]
fn the_monday_forms_give_each_realm_its_own_deadline() {
    let week = Week::of(PLAIN);
    let (sunday, monday) = (week.at(12, 15, 0), week.at(13, 11, 0));
    let d = start(week, |_| {});
    d.tick(&week.at(5, 15, 0));
    assert_eq!(d.state()["round"], 2);
    d.ok(&[
        "gm",
        "extend",
        "--realm",
        "afani",
        "20",
        "--at",
        &week.at(5, 16, 0),
    ]);
    let seen = ids(&d);
    d.tick(&week.at(6, 12, 0));
    let form = |addr: &str| {
        let forms: Vec<_> = calendar_mails(&d, &seen, addr)
            .into_iter()
            .filter(|m| !m.subject.starts_with("Re:"))
            .collect();
        assert_eq!(forms.len(), 1, "{addr}: {forms:?}");
        forms[0].text.clone()
    };
    let afani = form("afani@game.test");
    let saturday = week.at(11, 0, 0);
    assert!(
        flat(&afani).contains(&taken(&saturday, &monday, false)),
        "{afani}"
    );
    for addr in ["genogien@game.test", "kaldor@game.test"] {
        let text = form(addr);
        assert!(
            flat(&text).contains(&taken(&saturday, &sunday, true)),
            "{text}"
        );
    }
    let ostvik = form("ostvik@game.test");
    assert!(
        flat(&ostvik).contains(&taken(&saturday, &sunday, false)),
        "{ostvik}"
    );
}

#[test]
fn gm_extend_refuses_more_hours_than_the_setting() {
    let d = start(Week::of(PLAIN), |_| {});
    let e = failed(&d.cmd(&["gm", "extend", "49"], &[]));
    assert!(e.contains("season.max_extend_hours = 48; got 49"), "{e}");
    assert!(audit(&d, "gm_extend").is_empty());
}

/// Skipped dates Monday to Sunday of the next week: the opening forms say so in both
/// languages; nothing fires in the span; the week after it goes on where it stood; a
/// mail in the span gets the notice.
fn skipped_week(week: Week) {
    let from = week.0 + Duration::days(6);
    let to = week.0 + Duration::days(12);
    let d = start(week, |dir| {
        let path = dir.join("schedule.yaml");
        let mut s = std::fs::read_to_string(&path).unwrap();
        s.push_str(&format!(
            "\nskip:\n  - {{ from: {from}, to: {to}, reason: \"Lov\" }}\n"
        ));
        std::fs::write(path, s).unwrap();
    });
    let form = |addr: &str| {
        d.outbox()
            .into_iter()
            .find(|m| m.to_is(addr))
            .map(|m| m.text)
            .unwrap()
    };
    assert!(
        form("afani@game.test").starts_with("No game "),
        "{}",
        form("afani@game.test")
    );
    assert!(form("afani@game.test").contains("(Lov)"));
    assert!(
        form("genogien@game.test").starts_with("Inget spel "),
        "{}",
        form("genogien@game.test")
    );
    // The weekend resolves as usual before the span.
    d.tick(&week.at(5, 16, 0));
    assert_eq!(d.state()["round"], 2);
    let seen = ids(&d);
    d.send("afani@game.test", "Afani to GM", "Merry");
    d.tick(&week.at(8, 10, 0));
    let notice = calendar_mails(&d, &seen, "afani@game.test");
    assert!(
        notice[0].text.contains("The game is paused until"),
        "{}",
        notice[0].text
    );
    assert!(notice[0].text.contains("Reason: Lov"), "{}", notice[0].text);
    d.tick(&week.at(13, 13, 0));
    let (a, b) = (ms(&week.at(6, 0, 0)), ms(&week.at(13, 0, 0)));
    let inside: Vec<_> = fired(&d)
        .into_iter()
        .filter(|(_, t)| a <= *t && *t < b)
        .collect();
    assert!(inside.is_empty(), "nothing fires in the span: {inside:?}");
    fired_once_at(&d, "results", &week.at(13, 12, 0));
    d.tick(&week.at(19, 16, 0));
    fired_once_at(&d, "resolve", &week.at(19, 15, 0));
    assert_eq!(d.state()["round"], 3);
}

#[test]
fn a_skipped_week_is_announced_on_the_forms_and_nothing_fires_in_it() {
    skipped_week(Week::of(PLAIN));
}

#[test]
fn a_skipped_week_over_the_autumn_clock_change() {
    // The span Monday 19 Oct to Sunday 25 Oct 2026 holds the change.
    skipped_week(Week::of((2026, 10, 13)));
}

#[test]
fn a_skipped_week_over_the_spring_clock_change() {
    // The span Monday 22 Mar to Sunday 28 Mar 2027 holds the change.
    skipped_week(Week::of((2027, 3, 16)));
}

#[test]
fn a_flood_during_a_pause_is_kept_and_audited_but_answered_once_an_hour() {
    let week = Week::of(PLAIN);
    let d = start(week, |_| {});
    d.tick(&week.at(1, 10, 0));
    d.ok(&["gm", "pause", "--at", &week.at(1, 10, 0)]);
    let seen = ids(&d);
    for n in 0..60 {
        d.send("afani@game.test", "Afani to GM", &format!("question {n}"));
    }
    d.tick(&week.at(1, 11, 0));
    let notices = calendar_mails(&d, &seen, "afani@game.test");
    assert_eq!(notices.len(), 1, "one notice for the hour");
    assert_eq!(
        audit(&d, "mail_while_paused").len(),
        60,
        "each mail audited"
    );
    assert!(
        audit(&d, "gm_queued").is_empty(),
        "none handled during the pause"
    );
    d.ok(&["gm", "resume", "--at", &week.at(1, 12, 0)]);
    d.tick(&week.at(1, 12, 0));
    assert_eq!(
        audit(&d, "gm_queued").len(),
        60,
        "all handled after the resume"
    );
}

/// `pbemd run` ends a pause by itself at `--until`, exactly once, on the real clock.
#[test]
fn the_daemon_ends_a_pause_by_itself_once() {
    use std::process::{Command, Stdio};
    use std::time::{Duration as StdDuration, Instant};
    let now = chrono::Utc::now();
    // A game started a minute ago on the real clock, paused for four seconds.
    let d2 = {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("game");
        ok(&run(&["new", dir.to_str().unwrap()], &[]));
        let g = Dir {
            _tmp: tmp,
            dir,
            mails: Default::default(),
        };
        g.ok(&[
            "init",
            "--quiet",
            "--now",
            &(now - Duration::minutes(1)).to_rfc3339(),
        ]);
        g
    };
    let until = (now + Duration::seconds(4)).to_rfc3339();
    d2.ok(&["gm", "pause", "--until", &until]);
    let cfg = d2.dir.join("pbemd.yaml");
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(&cfg)
        .arg("run")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while audit(&d2, "calendar_resumed").is_empty() && t.elapsed() < StdDuration::from_secs(30) {
        std::thread::sleep(StdDuration::from_millis(200));
    }
    std::thread::sleep(StdDuration::from_secs(1));
    Command::new("kill")
        .arg("-TERM")
        .arg(daemon.id().to_string())
        .status()
        .unwrap();
    let t = Instant::now();
    while daemon.try_wait().unwrap().is_none() {
        if t.elapsed() > StdDuration::from_secs(15) {
            let _ = daemon.kill();
            panic!("the daemon did not stop");
        }
        std::thread::sleep(StdDuration::from_millis(50));
    }
    assert_eq!(
        audit(&d2, "calendar_resumed").len(),
        1,
        "resumed by itself once"
    );
    assert!(d2.state()["calendar"]["pause"].is_null());
    let resumes = fired(&d2)
        .into_iter()
        .filter(|(n, _)| n == "calendar_resume")
        .count();
    assert_eq!(resumes, 1);
}

#[test]
fn on_postgresql_a_pause_and_a_late_form_work_as_on_sqlite() {
    let Some(url) = pg_url() else { return };
    pause_and_resume(Week::of(AUTUMN), Some(&url));
    let Some(url) = pg_url() else { return };
    extend_for_one(Week::of(SPRING), Some(&url));
}

#[test]
fn pausing_again_with_until_moves_the_pauses_end_and_tells_every_realm() {
    let week = Week::of(PLAIN);
    let d = start(week, |_| {});
    d.tick(&week.at(1, 10, 0));
    d.ok(&[
        "gm",
        "pause",
        "--until",
        &week.at(2, 10, 0),
        "--reason",
        "Jul",
        "--at",
        &week.at(1, 10, 0),
    ]);
    let e = failed(&d.cmd(&["gm", "pause", "--at", &week.at(1, 11, 0)], &[]));
    assert!(e.contains("--until DATE` moves its end"), "{e}");
    let seen = ids(&d);
    d.ok(&[
        "gm",
        "pause",
        "--until",
        &week.at(3, 10, 0),
        "--at",
        &week.at(1, 11, 0),
    ]);
    assert_eq!(d.outbox_since(&seen).len(), players(&d), "every realm told");
    let afani = calendar_mails(&d, &seen, "afani@game.test");
    assert!(afani[0].text.contains("until Friday"), "{}", afani[0].text);
    assert!(afani[0].text.contains("Reason: Jul"), "{}", afani[0].text);
    assert_eq!(audit(&d, "gm_pause_moved").len(), 1);
    d.tick(&week.at(2, 12, 0));
    assert!(
        audit(&d, "calendar_resumed").is_empty(),
        "not at the first end"
    );
    d.tick(&week.at(3, 12, 0));
    let resumed = audit(&d, "calendar_resumed");
    assert_eq!(resumed.len(), 1);
    assert_eq!(resumed[0].1["paused_minutes"], 2 * 24 * 60);
}

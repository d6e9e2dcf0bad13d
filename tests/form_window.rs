//! The first reply counts (issue 53, §2 and §5): every form, opening form and reminder
//! says when forms are taken; a form before its window is kept and checked again when
//! the window opens (RULINGS 64); a later form's receipt names the earlier orders that
//! no longer count; a game started on a Monday morning mails each realm one form; a
//! receipt gives the deadline once and keeps to the form's width.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{Game, Sent};

/// Monday 23 November 2026, after the results event: round 1's weekdays.
const MONDAY_AFTERNOON: &str = "2026-11-23T13:00:00+01:00";
const WINDOW_SV: &str =
    "Formulär tas emot lördag 28 november 00:00 – söndag 29 november 15:00 (Europe/Stockholm)";
const WINDOW_EN: &str =
    "Forms are taken Saturday 28 November 00:00 – Sunday 29 November 15:00 (Europe/Stockholm)";

fn to(g: &Game, addr: &str) -> Vec<Sent> {
    g.outbox().into_iter().filter(|m| m.to_is(addr)).collect()
}

/// The mail's text with its lines joined, so a phrase wrapped over two lines is found.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

async fn kinds(g: &Game, kind: &str) -> Vec<(Option<String>, serde_json::Value)> {
    let mut c = g.app.store.conn().await.unwrap();
    pbemd::store::events::of_kind(&mut c, kind)
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.realm, serde_json::from_str(&e.detail).unwrap_or_default()))
        .collect()
}

async fn standing_orders(g: &Game, realm: &str, round: i64) -> Option<pbemd::forms::Checked> {
    let mut c = g.app.store.conn().await.unwrap();
    let orders = pbemd::store::forms::current_orders(&mut c, realm, round)
        .await
        .unwrap()?;
    Some(serde_json::from_str(&orders).unwrap())
}

// ---- through the binary: init, tick, the Maildir outbox ------------------------------

fn pbemd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(args)
        .output()
        .expect("run pbemd")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn sent(dir: &Path) -> Vec<Sent> {
    let mut names: Vec<_> = std::fs::read_dir(dir.join("outbox/new"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    names.sort();
    let mut all: Vec<Sent> = names
        .iter()
        .map(|p| Sent::parse(&std::fs::read(p).unwrap()))
        .collect();
    all.sort_by(|a, b| a.date.cmp(&b.date).then(a.subject.cmp(&b.subject)));
    all
}

const REALMS: [&str; 6] = [
    "genogien", "afani", "fugandri", "kaldor", "mirandel", "ostvik",
];

/// The mails to the realms (not the GM's).
fn to_realms(all: &[Sent]) -> usize {
    all.iter()
        .filter(|m| REALMS.iter().any(|r| m.to_is(&format!("{r}@game.test"))))
        .count()
}

/// A game made with `pbemd new` and started with `pbemd init --now START`.
fn new_game(start: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("game");
    ok(&pbemd(&["new", dir.to_str().unwrap()]));
    let cfg = dir.join("pbemd.yaml");
    ok(&pbemd(&[
        "--config",
        cfg.to_str().unwrap(),
        "init",
        "--now",
        start,
    ]));
    (tmp, dir)
}

fn tick(dir: &Path, now: &str) -> String {
    let cfg = dir.join("pbemd.yaml");
    ok(&pbemd(&[
        "--config",
        cfg.to_str().unwrap(),
        "tick",
        "--now",
        now,
    ]))
}

#[test]
fn a_game_started_on_a_monday_morning_mails_each_realm_one_form() {
    let (_tmp, dir) = new_game("2026-11-23T09:00:00+01:00");
    let opening = sent(&dir);
    assert_eq!(opening.len(), 6, "one opening form a realm");
    tick(&dir, "2026-11-23T12:30:00+01:00");
    let all = sent(&dir);
    for realm in REALMS {
        let forms: Vec<&Sent> = all
            .iter()
            .filter(|m| m.to_is(&format!("{realm}@game.test")))
            .collect();
        assert_eq!(
            forms.len(),
            1,
            "{realm}: {:?}",
            forms.iter().map(|m| &m.subject).collect::<Vec<_>>()
        );
    }
    // The next Monday's results still go to everyone.
    tick(&dir, "2026-11-30T12:30:00+01:00");
    assert_eq!(to_realms(&sent(&dir)), 12, "the round 2 forms");
}

#[test]
fn the_opening_form_the_reminder_and_the_monday_form_say_when_forms_are_taken() {
    let (_tmp, dir) = new_game("2026-11-24T09:00:00+01:00");
    let opening = sent(&dir);
    let of = |all: &[Sent], addr: &str| {
        all.iter()
            .filter(|m| m.to_is(addr))
            .map(|m| flat(&m.text))
            .collect::<Vec<_>>()
    };
    let gen = of(&opening, "genogien@game.test");
    assert!(gen[0].contains(WINDOW_SV), "{}", gen[0]);
    let afani = of(&opening, "afani@game.test");
    assert!(afani[0].contains(WINDOW_EN), "{}", afani[0]);

    // Sunday's reminder, in its own words and in the form it carries.
    tick(&dir, "2026-11-29T09:30:00+01:00");
    let all = sent(&dir);
    let afani = of(&all, "afani@game.test");
    assert_eq!(afani.len(), 2, "the opening form and a reminder");
    let reminder = &afani[1];
    assert!(reminder.starts_with("Reminder"), "{reminder}");
    let (text, form_part) = reminder.split_once("Your current form follows.").unwrap();
    assert!(text.contains(WINDOW_EN), "the reminder's text: {text}");
    assert!(form_part.contains(WINDOW_EN), "{form_part}");
    let gen = of(&all, "genogien@game.test");
    assert!(gen[1].contains(WINDOW_SV), "{}", gen[1]);

    // Monday's form, for the next weekend.
    tick(&dir, "2026-11-30T12:30:00+01:00");
    let all = sent(&dir);
    let gen = of(&all, "genogien@game.test");
    let monday = gen.last().unwrap();
    assert!(
        monday.contains(
            "Formulär tas emot lördag 5 december 00:00 – söndag 6 december 15:00 \
             (Europe/Stockholm)"
        ),
        "{monday}"
    );
}

// ---- early forms -------------------------------------------------------------------

#[tokio::test]
async fn rulings_64_a_form_sent_on_a_weekday_is_kept_and_counts_from_the_windows_opening() {
    let g = Game::start(MONDAY_AFTERNOON).await;
    g.send("afani@game.test", "Re: Afani form", "BUY 1 spy");
    g.tick("2026-11-24T10:00:00+01:00").await;
    let mails = to(&g, "afani@game.test");
    assert_eq!(mails.len(), 1, "{mails:?}");
    let receipt = flat(&mails[0].text);
    assert!(receipt.contains("[OK] BUY 1 spy"), "{receipt}");
    assert!(receipt.contains("is kept"), "{receipt}");
    assert!(
        receipt.contains("counts from the window's opening unless a later form replaces it"),
        "{receipt}"
    );
    assert!(receipt.contains(WINDOW_EN), "{receipt}");
    assert!(!receipt.contains("outside"), "not refused: {receipt}");
    assert!(
        standing_orders(&g, "Afani", 1).await.is_some(),
        "kept for round 1"
    );
    let spies = |gs: &pbemd::game::GameState| gs.realm("Afani").unwrap().spies;
    let before = spies(&*g.state().await);

    // No reminder: the realm has its form.
    g.tick("2026-11-29T09:30:00+01:00").await;
    let mails = to(&g, "afani@game.test");
    assert!(
        mails.iter().all(|m| !m.text.starts_with("Reminder")),
        "{mails:?}"
    );
    // At the opening it was checked again and the realm got the new receipt.
    assert_eq!(mails.len(), 2, "{mails:?}");
    let again = flat(&mails[1].text);
    assert!(again.contains("The form window has opened"), "{again}");
    assert!(again.contains("[OK] BUY 1 spy"), "{again}");
    assert_eq!(kinds(&g, "form_rechecked").await.len(), 1);

    // It counts for round 1's weekend, and for no other round.
    g.tick("2026-11-29T15:00:00+01:00").await;
    let gs = g.state().await;
    assert_eq!(gs.round, 2);
    assert_eq!(spies(&gs), before + 1, "the spy bought");
    assert!(standing_orders(&g, "Afani", 2).await.is_none());
}

#[tokio::test]
async fn rulings_64_a_kept_form_is_checked_again_against_the_state_when_the_window_opens() {
    let g = Game::start(MONDAY_AFTERNOON).await;
    let gold = |n: u32| {
        move |gs: &mut pbemd::game::GameState| {
            let r = gs.realms.iter_mut().find(|r| r.name == "Genogien").unwrap();
            *r.stock.get_mut(pbemd::game::Resource::Guld) = n;
        }
    };
    // On Tuesday Genogien has no gold: a spy (5 gold) is too dear.
    g.edit_state(gold(0)).await;
    g.send(
        "genogien@game.test",
        "Genogien helgformulär",
        "VÄN Afani\nKÖP 1 spion",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    let first = standing_orders(&g, "Genogien", 1).await.unwrap();
    assert_eq!((first.accepted(), first.refused()), (1, 1), "{first:?}");
    // During the week the realm comes into gold (the GM's correction, a merchant …).
    g.edit_state(gold(100)).await;
    g.tick("2026-11-28T00:10:00+01:00").await;
    let again = standing_orders(&g, "Genogien", 1).await.unwrap();
    assert_eq!((again.accepted(), again.refused()), (2, 0), "{again:?}");
    let mails = to(&g, "genogien@game.test");
    let last = flat(&mails.last().unwrap().text);
    assert!(last.contains("Formulärfönstret har öppnat"), "{last}");
    assert!(last.contains("[OK] KÖP 1 spion"), "{last}");
    // The form keeps the time it came (the tie-break, R-MAIL-12).
    let mut c = g.app.store.conn().await.unwrap();
    let (_, at) = pbemd::store::forms::current(&mut c, "Genogien", 1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        at,
        common::at("2026-11-24T10:00:00+01:00").timestamp_millis()
    );
}

#[tokio::test]
async fn with_forms_early_refuse_a_form_before_its_window_is_refused() {
    let g = Game::start_with(MONDAY_AFTERNOON, "forms: {early: refuse}\n").await;
    g.send("afani@game.test", "Afani form", "BUY 1 spy");
    g.tick("2026-11-24T10:00:00+01:00").await;
    let mails = to(&g, "afani@game.test");
    assert_eq!(mails.len(), 1);
    assert!(
        mails[0].text.contains("Saturday 00:00 – Sunday 15:00"),
        "{}",
        mails[0].text
    );
    assert!(standing_orders(&g, "Afani", 1).await.is_none());
}

#[tokio::test]
async fn a_form_after_the_deadline_is_not_kept_for_the_next_round() {
    let g = Game::start(MONDAY_AFTERNOON).await;
    g.tick("2026-11-29T15:00:00+01:00").await;
    assert_eq!(g.state().await.round, 2);
    // Sunday evening: round 2 has begun, but its results (and form) are not out.
    g.send("afani@game.test", "Afani form", "BUY 1 spy");
    g.tick("2026-11-29T16:00:00+01:00").await;
    let mails = to(&g, "afani@game.test");
    assert_eq!(mails.len(), 1, "{mails:?}");
    let text = flat(&mails[0].text);
    assert!(text.contains("could not be accepted"), "{text}");
    assert!(!text.contains("counts from the window's opening"), "{text}");
    assert!(standing_orders(&g, "Afani", 2).await.is_none());
    assert!(kinds(&g, "form_received").await.is_empty());
}

#[tokio::test]
async fn a_weekday_reply_to_last_rounds_form_is_not_kept_for_this_round() {
    let g = Game::start(MONDAY_AFTERNOON).await;
    g.tick("2026-11-30T12:30:00+01:00").await;
    assert_eq!(g.state().await.round, 2);
    let rule = "=".repeat(78);
    let old = format!(
        "BUY 1 spy\n\n> {rule}\n> THE WORLD STRATEGY GAME - Demospelet\n\
         > Results and weekend form for Afani, round 1\n> {rule}\n"
    );
    g.send("afani@game.test", "Re: Afani form", &old);
    g.tick("2026-12-01T10:00:00+01:00").await;
    let receipt = to(&g, "afani@game.test")
        .into_iter()
        .filter(|m| m.subject.starts_with("Re:"))
        .map(|m| flat(&m.text))
        .collect::<Vec<_>>();
    assert_eq!(receipt.len(), 1, "{receipt:?}");
    assert!(
        receipt[0].contains("for round 1, but this is round 2"),
        "{}",
        receipt[0]
    );
    assert!(standing_orders(&g, "Afani", 2).await.is_none());
}

// ---- a later form replaces the earlier one -----------------------------------------

#[tokio::test]
async fn a_later_form_names_the_earlier_orders_that_no_longer_count() {
    let g = Game::start(MONDAY_AFTERNOON).await;
    g.send(
        "genogien@game.test",
        "Genogien helgformulär",
        "KÖP 2 spion\nVÄN Afani\nFLYTTA armé 2: D3 D4\nPRODUKTION B2 järn",
    );
    g.tick("2026-11-28T10:00:00+01:00").await;
    g.send(
        "genogien@game.test",
        "Re: Genogien helgformulär",
        "lägg till:\nKÖP 2 bågskyttar B2\nvän afani",
    );
    g.tick("2026-11-28T11:00:00+01:00").await;
    let mails = to(&g, "genogien@game.test");
    assert_eq!(mails.len(), 2, "{mails:?}");
    let text = &mails[1].text;
    let receipt = flat(text);
    assert!(
        receipt.contains("Det ersätter ditt tidigare formulär"),
        "{text}"
    );
    assert!(
        receipt.contains(
            "Dessa order i ditt tidigare formulär finns inte med i detta och gäller inte längre:"
        ),
        "{text}"
    );
    for dropped in ["KÖP 2 spion", "FLYTTA armé 2: D3 D4", "PRODUKTION B2 järn"] {
        assert!(
            text.lines().any(|l| l.trim() == dropped),
            "{dropped} listed: {text}"
        );
    }
    assert!(
        !text.lines().any(|l| l.trim() == "VÄN Afani"),
        "given again (as `vän afani`): {text}"
    );
    assert!(
        receipt.contains("Vill du lägga till en order: skicka hela formuläret igen med den."),
        "{text}"
    );
    let detail = kinds(&g, "form_received").await;
    assert_eq!(detail[1].1["dropped"], 3, "{detail:?}");
}

// ---- the receipt's words and width --------------------------------------------------

#[tokio::test]
async fn a_receipt_states_the_deadline_once_and_keeps_to_the_forms_width() {
    let g = Game::start(MONDAY_AFTERNOON).await;
    // A new city paid with every resource but one: a long "costs" line; and a line
    // refused with a long reason.
    g.send(
        "genogien@game.test",
        "Genogien helgformulär",
        "KÖP stad C3 1 mat 1 tyg 1 timmer 1 järn 1 guld 1 hästar 1 sten 1 luft\n\
         KÖP 999 tungt kavalleri B2",
    );
    g.tick("2026-11-28T10:00:00+01:00").await;
    let mails = to(&g, "genogien@game.test");
    assert_eq!(mails.len(), 1);
    let text = &mails[0].text;
    assert_eq!(
        text.matches("29 november 2026 15:00").count(),
        1,
        "the deadline once: {text}"
    );
    for l in text.lines() {
        assert!(l.chars().count() <= 78, "over 78: {l:?}\n{text}");
    }
}

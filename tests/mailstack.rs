//! Against the real loopback mail stack (Postfix SMTP :2525 → Dovecot IMAP :1143,
//! started by scripts/mailstack-start.sh): an envoy mailed by SMTP is fetched over IMAP,
//! classified, delivered over SMTP and read back over IMAP; a refetch (UIDVALIDITY
//! change) and a SIGKILL between storing and flagging both handle the mail once; an
//! over-limit mail is stored truncated, left in the mailbox and refused.
//!
//! The tests share the stack's mailboxes, so they take a lock and run one at a time.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pbemd::transport::imap::{ImapParams, ImapSession, TlsMode};
use pbemd::transport::smtp::{SmtpParams, SmtpSender};

static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn stack_dir() -> PathBuf {
    PathBuf::from(std::env::var("PBEMD_MAILSTACK_DIR").unwrap_or_else(|_| "/tmp/mailstack".into()))
}

/// Is the stack up? A missing stack fails the test unless `PBEMD_SKIP_SERVER_TESTS=1`.
fn stack_up() -> bool {
    let up = std::net::TcpStream::connect("127.0.0.1:1143").is_ok()
        && std::net::TcpStream::connect("127.0.0.1:2525").is_ok();
    up || common::missing("the loopback mail stack (scripts/mailstack-start.sh)")
}

fn doveadm(args: &[&str]) -> String {
    let conf = stack_dir().join("etc/dovecot.conf");
    let out = Command::new("doveadm")
        .arg("-c")
        .arg(&conf)
        .args(args)
        .output()
        .expect("run doveadm");
    assert!(
        out.status.success(),
        "doveadm {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn empty_mailbox(user: &str) {
    doveadm(&["expunge", "-u", user, "mailbox", "INBOX", "all"]);
}

/// (messages, unseen) in a user's INBOX.
fn status(user: &str) -> (u32, u32) {
    let out = doveadm(&[
        "-f",
        "flow",
        "mailbox",
        "status",
        "-u",
        user,
        "messages unseen",
        "INBOX",
    ]);
    let get = |k: &str| {
        out.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{k}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {k} in {out:?}"))
    };
    (get("messages"), get("unseen"))
}

fn wait_for_messages(user: &str, n: u32, within: Duration) {
    let t = Instant::now();
    while status(user).0 < n {
        assert!(
            t.elapsed() < within,
            "{user} did not get {n} mails within {within:?}: {:?}",
            status(user)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn imap(user: &str) -> ImapParams {
    ImapParams {
        host: "127.0.0.1".into(),
        port: 1143,
        user: user.into(),
        password: format!("{}-pass", user.split('@').next().unwrap()),
        tls: TlsMode::None,
        ca_file: None,
        mailbox: "INBOX".into(),
    }
}

fn smtp() -> SmtpParams {
    SmtpParams {
        host: "127.0.0.1".into(),
        port: 2525,
        user: None,
        password: None,
        tls: TlsMode::None,
        ca_file: None,
        hello_name: "players.test".into(),
    }
}

/// A game directory whose intake is sl@game.test over IMAP and whose output is SMTP.
fn game_dir(tmp: &Path, schedule: Option<&str>) -> PathBuf {
    let dir = tmp.join("g");
    let cfg = pbemd::app::setup::new_game_dir(&dir, None).unwrap();
    std::fs::write(dir.join("imap.pw"), "sl-pass\n").unwrap();
    if let Some(s) = schedule {
        std::fs::write(dir.join("schedule.yaml"), s).unwrap();
    }
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace(
            "inbound:\n  maildir: inbox\n",
            "inbound:\n  imap: {host: 127.0.0.1, port: 1143, user: sl@game.test, password_file: imap.pw, tls: none, poll_seconds: 2}\n",
        )
        .replace("outbound:\n  maildir: outbox\n", "outbound:\n  smtp: {host: 127.0.0.1, port: 2525, tls: none}\n");
    std::fs::write(&cfg, text).unwrap();
    cfg
}

/// A game over the stack (see [`game_dir`]) started quietly on Tuesday 24 Nov 2026,
/// 09:00 Stockholm time.
fn started_game(tmp: &Path) -> PathBuf {
    let cfg = game_dir(tmp, None);
    pbemd(
        &cfg,
        &["init", "--quiet", "--now", "2026-11-24T09:00:00+01:00"],
    );
    cfg
}

fn pbemd(cfg: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(cfg)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pbemd {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

async fn send_envoy(from: &str, subject: &str, body: &str, id: &str) {
    let raw = common::mail(from, subject, body, id);
    let mut s = SmtpSender::new(smtp());
    s.send_raw(from, &["sl@game.test".to_string()], &raw)
        .await
        .unwrap();
}

/// Genogien's envoy to Afani sent over SMTP, waited for in the game's inbox.
async fn genogien_envoy_in_the_game_inbox(body: &str, id: &str) {
    send_envoy(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        body,
        id,
    )
    .await;
    wait_for_messages("sl@game.test", 1, Duration::from_secs(10));
}

/// Every mail in a user's INBOX, read over IMAP.
async fn read_all(user: &str) -> Vec<common::Sent> {
    let mut s = ImapSession::connect(&imap(user)).await.unwrap();
    s.select().await.unwrap();
    let mails = s.fetch_after(0, 1000).await.unwrap();
    s.logout().await.unwrap();
    mails.iter().map(|m| common::Sent::parse(&m.raw)).collect()
}

async fn clean() -> tokio::sync::MutexGuard<'static, ()> {
    let g = LOCK.lock().await;
    for u in ["sl@game.test", "afani@game.test", "genogien@game.test"] {
        empty_mailbox(u);
    }
    g
}

#[tokio::test]
async fn an_envoy_sent_by_smtp_reaches_afanis_imap_mailbox_without_genogiens_address() {
    if !stack_up() {
        return;
    }
    let _g = clean().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = started_game(tmp.path());
    genogien_envoy_in_the_game_inbox(
        "Fred och handel!\n/Gorm <genogien@game.test>",
        "stack-1@players.test",
    )
    .await;
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T10:00:00+01:00"]);
    assert!(out.contains("1 stored, 1 handled"), "{out}");
    wait_for_messages("afani@game.test", 1, Duration::from_secs(10));
    let got = read_all("afani@game.test").await;
    assert_eq!(got.len(), 1);
    assert!(got[0].subject.contains("Genogien"), "{}", got[0].subject);
    assert!(got[0].text.contains("Fred och handel!"), "{}", got[0].text);
    assert!(
        !got[0].raw.to_lowercase().contains("genogien@game.test"),
        "{}",
        got[0].raw
    );
    assert_eq!(
        status("sl@game.test").1,
        0,
        "the fetched mail is flagged \\Seen"
    );
    // The sender's receipt came back to Genogien over SMTP too.
    wait_for_messages("genogien@game.test", 1, Duration::from_secs(10));
    let receipt = &read_all("genogien@game.test").await[0];
    assert!(receipt.text.starts_with("Kvitto"), "{}", receipt.text);
    assert!(
        !receipt.raw.to_lowercase().contains("afani@game.test"),
        "{}",
        receipt.raw
    );
}

/// The courier's whole flow over the real stack: a merchant with goods in by SMTP,
/// fetched over IMAP, decided by the rules, the goods moved, the merchant delivered
/// and the receipt sent over SMTP, both read back over IMAP.
#[tokio::test]
async fn a_merchant_by_smtp_moves_its_goods_and_both_realms_read_the_result_over_imap() {
    if !stack_up() {
        return;
    }
    let _g = clean().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = started_game(tmp.path());
    send_envoy(
        "genogien@game.test",
        "Genogien skickar en handelsman till Afani",
        "Sten mot guld?\n****\nSkickar: 5 sten\nVäntar: 6 guld",
        "stack-m@players.test",
    )
    .await;
    wait_for_messages("sl@game.test", 1, Duration::from_secs(10));
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T10:00:00+01:00"]);
    assert!(out.contains("1 delivered"), "{out}");
    wait_for_messages("afani@game.test", 1, Duration::from_secs(10));
    wait_for_messages("genogien@game.test", 1, Duration::from_secs(10));
    let merchant = &read_all("afani@game.test").await[0];
    assert!(
        merchant.subject.contains("Genogien"),
        "{}",
        merchant.subject
    );
    assert!(
        merchant.text.contains("Sten mot guld?"),
        "{}",
        merchant.text
    );
    let receipt = &read_all("genogien@game.test").await[0];
    assert!(receipt.text.starts_with("Kvitto"), "{}", receipt.text);
    let state: serde_json::Value =
        serde_json::from_str(&pbemd(&cfg, &["state", "--json"])).unwrap();
    let sten = |realm: &str| {
        state["realms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == realm)
            .unwrap()["stock"]["sten"]
            .as_u64()
            .unwrap()
    };
    let scenario = pbemd::game::load_scenario(pbemd::app::setup::DEMO_SCENARIO).unwrap();
    let before = |realm: &str| scenario.realm(realm).unwrap().stock.sten as u64;
    assert_eq!(sten("Genogien"), before("Genogien") - 5);
    assert_eq!(sten("Afani"), before("Afani") + 5);
}

#[tokio::test]
async fn a_mail_fetched_again_after_a_uidvalidity_change_is_handled_once() {
    if !stack_up() {
        return;
    }
    let _g = clean().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = started_game(tmp.path());
    genogien_envoy_in_the_game_inbox("en gång", "stack-2@players.test").await;
    pbemd(&cfg, &["tick", "--now", "2026-11-24T10:00:00+01:00"]);
    wait_for_messages("afani@game.test", 1, Duration::from_secs(10));

    let validity = 4_000_000_000u32 - (std::process::id() % 1000);
    doveadm(&[
        "mailbox",
        "update",
        "--uid-validity",
        &validity.to_string(),
        "-u",
        "sl@game.test",
        "INBOX",
    ]);
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T11:00:00+01:00"]);
    assert!(
        out.contains("0 stored, 0 handled"),
        "refetched but recognised: {out}"
    );
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(status("afani@game.test").0, 1, "Afani got the envoy once");
}

/// The weekday window always open (so the daemon can run on the real clock any day).
const ALWAYS_WEEKDAY: &str = "timezone: Europe/Stockholm\nevents:\n\
  - {name: weekday_open, kind: weekday_open, cron: \"0 * * * * *\"}\n\
  - {name: weekday_close, kind: weekday_close, cron: \"0 0 0 1 1 * 2099\"}\n\
  - {name: form_open, kind: form_open, cron: \"0 0 0 1 1 * 2099\"}\n\
  - {name: form_close, kind: form_close, cron: \"0 0 1 1 1 * 2099\"}\n";

#[tokio::test]
async fn the_daemon_killed_between_storing_and_flagging_handles_the_mail_exactly_once() {
    if !stack_up() {
        return;
    }
    let _g = clean().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game_dir(tmp.path(), Some(ALWAYS_WEEKDAY));
    pbemd(
        &cfg,
        &[
            "init",
            "--quiet",
            "--now",
            &(chrono::Utc::now() - chrono::Duration::minutes(5)).to_rfc3339(),
        ],
    );
    genogien_envoy_in_the_game_inbox("exakt en gång", "stack-3@players.test").await;

    // First run: stops dead after committing the mail, before flagging it; SIGKILL it.
    let mut first = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(&cfg)
        .arg("run")
        .env("PBEMD_TEST_PAUSE_AFTER_STORE", "1")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(first.stderr.take().unwrap()).lines();
    let t = Instant::now();
    loop {
        let line = lines.next().expect("daemon output").unwrap();
        if line.contains("pausing before flagging") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "daemon never stored the mail"
        );
    }
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    assert_eq!(status("sl@game.test"), (1, 1), "stored but not flagged");

    // Second run: refetches, recognises the stored mail, handles it once, stops on SIGTERM.
    let mut second = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(&cfg)
        .arg("run")
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_messages("afani@game.test", 1, Duration::from_secs(30));
    let t = Instant::now();
    while status("sl@game.test").1 != 0 {
        assert!(t.elapsed() < Duration::from_secs(10), "mail never flagged");
        std::thread::sleep(Duration::from_millis(100));
    }
    Command::new("kill")
        .arg("-TERM")
        .arg(second.id().to_string())
        .status()
        .unwrap();
    let t = Instant::now();
    let code = loop {
        if let Some(s) = second.try_wait().unwrap() {
            break s;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "daemon did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(code.success(), "clean exit on SIGTERM: {code:?}");
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(status("afani@game.test").0, 1, "delivered exactly once");
    let db = cfg.parent().unwrap().join("pbemd.db");
    let store = pbemd::store::Store::open(&format!("sqlite://{}?mode=rwc", db.display()))
        .await
        .unwrap();
    let mut c = store.conn().await.unwrap();
    assert_eq!(pbemd::store::inbox::counts(&mut c).await.unwrap(), (1, 0));
    assert_eq!(pbemd::store::messages::all(&mut c).await.unwrap().len(), 1);
}

/// The IMAP receipt time is the mail's INTERNALDATE (when the game's server accepted
/// it): an envoy accepted on Friday night and fetched by a tick on Saturday, after the
/// window closed, still counts as sent on time and is delivered. (The server keeps
/// only past dates, so the week is the last one before today.)
#[tokio::test]
async fn an_envoy_accepted_by_the_server_before_the_window_closed_counts_as_on_time() {
    use chrono::{Datelike, Duration as D, TimeZone, Utc, Weekday};
    if !stack_up() {
        return;
    }
    let _g = clean().await;
    let mut day = Utc::now().date_naive() - D::days(1);
    while day.weekday() != Weekday::Fri {
        day -= D::days(1);
    }
    // 21:30 UTC is 22:30 or 23:30 in Stockholm: inside the weekday window.
    let friday_night = Utc.from_utc_datetime(&day.and_hms_opt(21, 30, 0).unwrap());
    let tuesday = (friday_night - D::days(3) - D::minutes(13 * 60 + 30)).to_rfc3339();
    let saturday = (friday_night + D::minutes(11 * 60 + 30)).to_rfc3339();
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game_dir(tmp.path(), None);
    pbemd(&cfg, &["init", "--quiet", "--now", &tuesday]);
    let raw = common::mail(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "I sista stund",
        "stack-late@players.test",
    );
    let mut s = ImapSession::connect(&imap("sl@game.test")).await.unwrap();
    s.select().await.unwrap();
    s.append(&raw, Some(friday_night)).await.unwrap();
    let fetched = s.fetch_after(0, 10).await.unwrap();
    assert_eq!(fetched[0].internal_date, Some(friday_night));
    s.logout().await.unwrap();

    let out = pbemd(&cfg, &["tick", "--now", &saturday]);
    assert!(out.contains("1 stored, 1 handled"), "{out}");
    assert!(out.contains("1 delivered"), "{out}");
    wait_for_messages("afani@game.test", 1, Duration::from_secs(10));
    let got = read_all("afani@game.test").await;
    assert!(got[0].text.contains("I sista stund"), "{}", got[0].text);
}

#[tokio::test]
async fn an_over_limit_imap_mail_is_stored_truncated_left_in_the_mailbox_and_refused() {
    if !stack_up() {
        return;
    }
    let _g = clean().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = game_dir(tmp.path(), None);
    let text = std::fs::read_to_string(&cfg).unwrap() + "limits: {max_mail_bytes: 100000}\n";
    std::fs::write(&cfg, text).unwrap();
    pbemd(
        &cfg,
        &["init", "--quiet", "--now", "2026-11-24T09:00:00+01:00"],
    );
    send_envoy(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        &"Ett mycket långt brev.\n".repeat(15_000),
        "stack-big@players.test",
    )
    .await;
    wait_for_messages("sl@game.test", 1, Duration::from_secs(10));
    pbemd(&cfg, &["tick", "--now", "2026-11-24T10:00:00+01:00"]);
    wait_for_messages("genogien@game.test", 1, Duration::from_secs(10));
    let reply = &read_all("genogien@game.test").await[0];
    assert!(reply.text.contains("för stort"), "{}", reply.text);
    assert_eq!(
        status("sl@game.test").0,
        1,
        "the original stays in the mailbox"
    );
    assert_eq!(status("afani@game.test").0, 0, "nothing delivered");

    let clock = std::sync::Arc::new(pbemd::clock::FixedClock::new(common::at(
        "2026-11-24T10:00:00+01:00",
    )));
    let app = pbemd::app::App::open(pbemd::config::Config::load(&cfg).unwrap(), clock)
        .await
        .unwrap();
    let mut c = app.store.conn().await.unwrap();
    let raw = pbemd::store::inbox::raw(&mut c, 1).await.unwrap().unwrap();
    assert!(raw.len() < 100_000, "stored {} bytes", raw.len());
    assert_eq!(
        pbemd::store::inbox::truncated(&mut c, 1).await.unwrap(),
        Some(true)
    );
}

/// A mail fetched over IMAP while the game is paused is kept and its realm told so, as
/// a mail stored alone from a Maildir is: the batch of fetched mail sends the paused
/// notice for each mail it stored.
#[tokio::test]
async fn an_envoy_fetched_over_imap_in_a_pause_is_kept_and_answered_with_the_notice() {
    if !stack_up() {
        return;
    }
    let _g = clean().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = started_game(tmp.path());
    pbemd(
        &cfg,
        &[
            "gm",
            "pause",
            "--reason",
            "the GM travels",
            "--at",
            "2026-11-24T09:30:00+01:00",
        ],
    );
    // The game's time moves into the pause (a fetched mail counts as received no
    // earlier than that).
    pbemd(&cfg, &["tick", "--now", "2026-11-24T09:45:00+01:00"]);
    empty_mailbox("genogien@game.test");
    empty_mailbox("afani@game.test");
    genogien_envoy_in_the_game_inbox("Under pausen", "stack-paused@players.test").await;
    let out = pbemd(&cfg, &["tick", "--now", "2026-11-24T10:00:00+01:00"]);
    assert!(out.contains("1 stored, 0 handled"), "{out}");
    wait_for_messages("genogien@game.test", 1, Duration::from_secs(10));
    let got = read_all("genogien@game.test").await;
    assert_eq!(got.len(), 1, "one notice");
    assert!(
        got[0].text.contains("Spelet är pausat till"),
        "{}",
        got[0].text
    );
    assert_eq!(
        status("afani@game.test").0,
        0,
        "nothing delivered in the pause"
    );
}

/// docs/gm/reliability.md: batches fetched over IMAP (three to a batch here, the next
/// fetched while one is stored) are handled and their envoys delivered into the
/// outbox in the transactions that store them; every mail is flagged, and a second
/// pass finds nothing new.
#[tokio::test]
async fn imap_batches_are_handled_in_the_transactions_that_store_them() {
    if !stack_up() {
        return;
    }
    let _g = clean().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = started_game(tmp.path());
    let mut s = ImapSession::connect(&imap("sl@game.test")).await.unwrap();
    s.select().await.unwrap();
    for i in 0..7 {
        let raw = common::mail(
            "genogien@game.test",
            "Genogien skickar ett sändebud till Afani",
            &format!("Sändebud {i}"),
            &format!("stack-batch-{i}@players.test"),
        );
        s.append(&raw, None).await.unwrap();
    }
    let clock = std::sync::Arc::new(pbemd::clock::FixedClock::new(common::at(
        "2026-11-24T10:00:00+01:00",
    )));
    let app = pbemd::app::App::open(pbemd::config::Config::load(&cfg).unwrap(), clock)
        .await
        .unwrap();
    let taken = pbemd::app::intake::imap_pass(&app, &mut s, 3)
        .await
        .unwrap();
    assert_eq!(
        (taken.stored, taken.handled, taken.delivered),
        (7, 7, 7),
        "{taken:?}"
    );
    assert_eq!(status("sl@game.test"), (7, 0), "every mail flagged \\Seen");
    let mut c = app.store.conn().await.unwrap();
    assert_eq!(pbemd::store::inbox::counts(&mut c).await.unwrap(), (7, 0));
    let deliveries = pbemd::store::outbox::raw_of_kind(&mut c, "envoy_delivery")
        .await
        .unwrap();
    assert_eq!(deliveries.len(), 7);
    drop(c);
    let again = pbemd::app::intake::imap_pass(&app, &mut s, 3)
        .await
        .unwrap();
    assert_eq!(again, pbemd::app::intake::Taken::default());
    s.logout().await.unwrap();
}

/// docs/gm/reliability.md: when the handling of a batch fails as it is stored (here the
/// test hook makes writing a batch that holds the envoy to Fugandri fail), the
/// transaction is rolled back and the batch stored again for the worker, which handles
/// its mails one at a time: all three are delivered, none parked.
#[tokio::test]
async fn a_batch_whose_handling_fails_as_it_is_stored_is_stored_again_for_the_worker() {
    if !stack_up() {
        return;
    }
    let _g = clean().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = started_game(tmp.path());
    let mut s = ImapSession::connect(&imap("sl@game.test")).await.unwrap();
    s.select().await.unwrap();
    for (i, to) in ["Afani", "Fugandri", "Ostvik"].iter().enumerate() {
        let raw = common::mail(
            "genogien@game.test",
            &format!("Genogien skickar ett sändebud till {to}"),
            "Hej",
            &format!("stack-fail-{i}@players.test"),
        );
        s.append(&raw, None).await.unwrap();
    }
    s.logout().await.unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(&cfg)
        .args(["tick", "--now", "2026-11-24T10:00:00+01:00"])
        .env("PBEMD_TEST_FAIL_BATCH", "till Fugandri")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("handling a batch as it was stored failed"),
        "{stderr}"
    );
    assert!(stdout.contains("3 stored, 3 handled"), "{stdout}");
    assert!(stdout.contains("3 delivered"), "{stdout}");
    assert_eq!(status("sl@game.test"), (3, 0), "every mail flagged \\Seen");
    let db = cfg.parent().unwrap().join("pbemd.db");
    let store = pbemd::store::Store::open(&format!("sqlite://{}?mode=rwc", db.display()))
        .await
        .unwrap();
    let mut c = store.conn().await.unwrap();
    assert_eq!(pbemd::store::inbox::counts(&mut c).await.unwrap(), (3, 0));
    assert_eq!(
        pbemd::store::messages::parked_count(&mut c).await.unwrap(),
        0
    );
}

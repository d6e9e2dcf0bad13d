//! Several `pbemd run` replicas on one PostgreSQL database: the scheduler lease, and
//! three replicas through a burst of mail across a weekend deadline with one killed
//! mid-burst and the lease holder killed mid-resolution; and three replicas reading one
//! IMAP inbox on the loopback mail stack, each serving the webhook, through a burst that
//! comes half by SMTP and half by webhook POSTs, with one replica killed mid-burst.
//!
//! The IMAP test empties sl@game.test's INBOX, as tests/mailstack.rs does: do not run
//! the two test files at the same time against one stack.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::{Duration, Instant};

use chrono::{DateTime, Timelike, Utc};
use pbemd::app::lease::SchedulerLease;
use pbemd::store::{Backend, Store};
use sqlx::Row;

#[tokio::test]
async fn the_scheduler_lease_is_held_by_one_replica_and_taken_over_when_its_holder_goes() {
    let Some(url) = common::pg_database_url().await else {
        return;
    };
    Store::open(&url).await.expect("migrate");
    let mut a = SchedulerLease::new(&url, Backend::Postgres);
    let mut b = SchedulerLease::new(&url, Backend::Postgres);
    assert!(a.hold().await, "the first to ask takes the lease");
    assert!(
        !b.hold().await,
        "a second replica does not get it while it is held"
    );
    assert!(a.hold().await, "the holder keeps it");
    assert!(!b.hold().await);
    a.release().await; // the holder's session ends (as when its process is killed)
                       // The server lets the lock go when the ended session's backend exits, a moment
                       // after the client closed it (longer on a busy machine): the next replica, asking
                       // again on each pass as the daemon does, takes it over within that moment.
    let asked = Instant::now();
    let mut taken = b.hold().await;
    while !taken && asked.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        taken = b.hold().await;
    }
    assert!(taken, "the next replica takes it over");
    assert!(!a.hold().await, "the old holder does not get it back");
}

#[tokio::test]
async fn on_sqlite_the_one_process_always_holds_the_scheduler_lease() {
    let mut a = SchedulerLease::new("sqlite::memory:", Backend::Sqlite);
    let mut b = SchedulerLease::new("sqlite::memory:", Backend::Sqlite);
    assert!(a.hold().await && b.hold().await);
}

#[tokio::test]
async fn a_unit_of_work_waits_for_the_game_lock_another_replica_holds() {
    let Some(url) = common::pg_database_url().await else {
        return;
    };
    let a = Store::open(&url).await.unwrap();
    let b = Store::open(&url).await.unwrap();
    let mut first = a.begin().await.unwrap();
    pbemd::store::lease::game_lock(&a, &mut first)
        .await
        .unwrap();
    let second = tokio::spawn(async move {
        let mut tx = b.begin().await.unwrap();
        pbemd::store::lease::game_lock(&b, &mut tx).await.unwrap();
        tx.commit().await.unwrap();
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !second.is_finished(),
        "the second unit waits while the first holds the lock"
    );
    first.commit().await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), second)
        .await
        .expect("the second unit goes on once the first commits")
        .unwrap();
}

on_both_backends!(
    the_imap_cursor_never_moves_back_within_one_uidvalidity,
    |store: Store| async move {
        use pbemd::store::inbox;
        let mut c = store.conn().await.unwrap();
        inbox::set_imap_cursor(&mut c, "INBOX", 7, 42)
            .await
            .unwrap();
        // A slower replica that read only up to 30 leaves the cursor where it was.
        inbox::set_imap_cursor(&mut c, "INBOX", 7, 30)
            .await
            .unwrap();
        assert_eq!(
            inbox::imap_cursor(&mut c, "INBOX").await.unwrap(),
            Some((7, 42))
        );
        // A new UIDVALIDITY starts the mailbox over.
        inbox::set_imap_cursor(&mut c, "INBOX", 8, 3).await.unwrap();
        assert_eq!(
            inbox::imap_cursor(&mut c, "INBOX").await.unwrap(),
            Some((8, 3))
        );
    }
);

on_both_backends!(
    a_mail_received_after_the_next_event_is_not_claimed_before_it,
    |store: Store| async move {
        use pbemd::store::inbox::{self, NewMail, Source};
        let mut c = store.conn().await.unwrap();
        for (key, at) in [("mid:early@x", 1_000), ("mid:late@x", 5_000)] {
            let m = NewMail {
                dedup_key: key,
                message_id: None,
                sha256: key,
                source: Source::Maildir,
                raw: b"Subject: x\r\n\r\nx\r\n",
                size: 17,
                received_at: at,
                imap: None,
            };
            inbox::insert(&mut c, &m).await.unwrap();
        }
        drop(c);
        let mut tx = store.begin().await.unwrap();
        let w = inbox::claim_next_before(&store, &mut tx, Some(5_000))
            .await
            .unwrap();
        let w = w.expect("the mail before the event");
        assert_eq!(w.received_at, 1_000);
        inbox::mark_done(&mut tx, w.id, 2_000).await.unwrap();
        tx.commit().await.unwrap();
        let mut tx = store.begin().await.unwrap();
        let next = inbox::claim_next_before(&store, &mut tx, Some(5_000))
            .await
            .unwrap();
        assert!(
            next.is_none(),
            "the mail at the event's instant waits for it"
        );
        let next = inbox::claim_next_before(&store, &mut tx, None)
            .await
            .unwrap();
        assert_eq!(next.map(|w| w.received_at), Some(5_000));
    }
);

const REALMS: [&str; 6] = [
    "Genogien", "Afani", "Fugandri", "Kaldor", "Mirandel", "Ostvik",
];

/// A cron line (seconds, minutes, hours, day, month, weekday, year) firing once at `t`.
fn once(t: DateTime<Utc>) -> String {
    use chrono::Datelike;
    format!(
        "\"{} {} {} {} {} * {}\"",
        t.second(),
        t.minute(),
        t.hour(),
        t.day(),
        t.month(),
        t.year()
    )
}

/// A week squeezed into a minute: the form window opened before the daemons start, and
/// the weekend deadline (form close and resolution) at `deadline`, results soon after.
fn schedule(deadline: DateTime<Utc>) -> String {
    let far = "\"0 0 0 1 1 * 2099\"";
    let open = once(deadline - chrono::Duration::seconds(90));
    let close = once(deadline);
    let results = once(deadline + chrono::Duration::seconds(6));
    format!(
        "timezone: UTC\nevents:\n\
  - {{name: weekday_open, kind: weekday_open, cron: {far}}}\n\
  - {{name: weekday_close, kind: weekday_close, cron: {far}}}\n\
  - {{name: form_open, kind: form_open, cron: {open}}}\n\
  - {{name: form_close, kind: form_close, cron: {close}}}\n\
  - {{name: resolve, kind: resolve, cron: {close}}}\n\
  - {{name: results, kind: results, cron: {results}}}\n"
    )
}

fn game(tmp: &Path, url: &str, deadline: DateTime<Utc>) -> PathBuf {
    let dir = tmp.join("game");
    let out = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(["new", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let cfg = dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let text = text.replace("database: sqlite:pbemd.db", &format!("database: {url}"));
    assert!(text.contains(url), "the config names its database");
    std::fs::write(&cfg, text).unwrap();
    std::fs::write(dir.join("schedule.yaml"), schedule(deadline)).unwrap();
    let init = (deadline - chrono::Duration::seconds(120)).to_rfc3339();
    let out = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args([
            "--config",
            cfg.to_str().unwrap(),
            "init",
            "--quiet",
            "--now",
            &init,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    cfg
}

/// A replica whose log lines arrive on the shared channel as (replica, line).
fn replica(cfg: &Path, n: usize, tx: &Sender<(usize, String)>, env: &[(&str, &str)]) -> Replica {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pbemd"));
    c.arg("--config").arg(cfg).arg("run");
    c.env("RUST_LOG", "info")
        .env_remove("PBEMD_TEST_PAUSE_RESOLVE");
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let tx = tx.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(|l| l.ok()) {
            let _ = tx.send((n, line));
        }
    });
    Replica(child)
}

/// Wait for a log line of replica `n` (any replica when `None`) containing `text`.
fn wait_line(rx: &Receiver<(usize, String)>, n: Option<usize>, text: &str, limit: Duration) {
    let t = Instant::now();
    while t.elapsed() < limit {
        if let Ok((who, line)) = rx.recv_timeout(Duration::from_millis(200)) {
            if n.is_none_or(|n| n == who) && line.contains(text) {
                return;
            }
        }
    }
    panic!("no replica logged `{text}` within {limit:?}");
}

fn drop_mail(dir: &Path, i: usize) {
    let realm = REALMS[i % REALMS.len()];
    let raw = common::mail(
        &format!("{}@game.test", realm.to_lowercase()),
        &format!("{realm} helgformulär"),
        "KÖP 1 spion",
        &format!("burst-{i}@game.test"),
    );
    let tmp = dir.join("inbox/tmp").join(format!("burst-{i}"));
    std::fs::write(&tmp, raw).unwrap();
    std::fs::rename(&tmp, dir.join("inbox/new").join(format!("burst-{i}"))).unwrap();
}

/// A running replica; killed (SIGKILL) when the test drops it, also when it fails.
struct Replica(Child);

impl Replica {
    fn kill(&mut self) {
        let _ = self.0.kill(); // SIGKILL
        let _ = self.0.wait();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn settled(store: &Store) -> bool {
    let mut c = store.conn().await.unwrap();
    let q = "SELECT (SELECT COUNT(*) FROM inbox WHERE state <> 'done') + \
             (SELECT COUNT(*) FROM outbox WHERE state <> 'sent') + \
             (SELECT CASE WHEN EXISTS (SELECT 1 FROM schedule_fired WHERE kind = 'results') \
              THEN 0 ELSE 1 END)";
    let r = sqlx::query(q).fetch_one(&mut *c).await.unwrap();
    r.get::<i64, _>(0) == 0
}

async fn count(store: &Store, sql: &str) -> i64 {
    let mut c = store.conn().await.unwrap();
    sqlx::query(sql)
        .fetch_one(&mut *c)
        .await
        .unwrap()
        .get::<i64, _>(0)
}

/// The Message-ID of every mail in the outbound Maildir, with how often it occurs.
fn sent_message_ids(dir: &Path) -> BTreeMap<String, usize> {
    let mut ids = BTreeMap::new();
    for sub in ["outbox/new", "outbox/cur"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let raw = std::fs::read_to_string(e.unwrap().path()).unwrap();
            let id = raw
                .lines()
                .find_map(|l| l.strip_prefix("Message-ID: "))
                .expect("a Message-ID")
                .trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string();
            *ids.entry(id).or_insert(0) += 1;
        }
    }
    ids
}

/// The two tests that start three replicas each take turns (the machine has few cores).
static HEAVY: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const BEFORE: usize = 30;
const AFTER: usize = 30;

#[tokio::test(flavor = "multi_thread")]
async fn three_replicas_handle_every_mail_once_and_resolve_the_weekend_once_though_two_are_killed()
{
    let Some(url) = common::pg_database_url().await else {
        return;
    };
    let _turn = HEAVY.lock().await;
    let tmp = tempfile::tempdir().unwrap();
    let deadline = Utc::now().with_nanosecond(0).unwrap() + chrono::Duration::seconds(25);
    let cfg = game(tmp.path(), &url, deadline);
    let dir = cfg.parent().unwrap().to_path_buf();
    let (tx, rx) = channel();
    // Replica 0 comes first and takes the lease; it will stop dead mid-resolution.
    let mut r0 = replica(&cfg, 0, &tx, &[("PBEMD_TEST_PAUSE_RESOLVE", "1")]);
    wait_line(
        &rx,
        Some(0),
        "holds the scheduler lease",
        Duration::from_secs(20),
    );
    let mut r1 = replica(&cfg, 1, &tx, &[]);
    let mut r2 = replica(&cfg, 2, &tx, &[]);

    // The burst's first half before the deadline; replica 2 is killed in the middle.
    for i in 0..BEFORE {
        drop_mail(&dir, i);
        if i == BEFORE / 2 {
            r2.kill();
        }
        std::thread::sleep(Duration::from_millis(150));
    }
    assert!(
        Utc::now() < deadline,
        "the first half came before the deadline"
    );
    std::thread::sleep((deadline - Utc::now()).to_std().unwrap_or_default());
    // The second half after it, while the lease holder resolves the weekend.
    for i in BEFORE..BEFORE + AFTER {
        drop_mail(&dir, i);
        std::thread::sleep(Duration::from_millis(50));
    }
    wait_line(
        &rx,
        Some(0),
        "pausing before committing the resolution",
        Duration::from_secs(60),
    );
    r0.kill();
    // The survivor takes the lease over from the dead holder.
    wait_line(
        &rx,
        Some(1),
        "holds the scheduler lease",
        Duration::from_secs(30),
    );

    let store = Store::open(&url).await.unwrap();
    let t = Instant::now();
    while !settled(&store).await {
        assert!(
            t.elapsed() < Duration::from_secs(90),
            "the replicas never settled"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // Let the survivor run on a little: nothing more may happen.
    tokio::time::sleep(Duration::from_secs(2)).await;
    r1.kill();
    check(&store, &dir, deadline).await;
}

async fn check(store: &Store, dir: &Path, deadline: DateTime<Utc>) {
    let mails = (BEFORE + AFTER) as i64;
    assert_eq!(
        count(store, "SELECT COUNT(*) FROM inbox").await,
        mails,
        "every mail stored once"
    );
    assert_eq!(
        count(store, "SELECT COUNT(*) FROM inbox WHERE state = 'done'").await,
        mails,
        "every mail handled"
    );
    assert_eq!(
        count(store, "SELECT COUNT(DISTINCT inbox_id) FROM messages").await,
        mails,
        "every mail handled once"
    );
    assert_eq!(count(store, "SELECT COUNT(*) FROM messages").await, mails);
    assert_eq!(
        count(store, "SELECT COUNT(*) FROM resolutions").await,
        1,
        "the weekend resolved once"
    );
    assert_eq!(
        count(
            store,
            "SELECT COUNT(*) FROM schedule_fired WHERE kind = 'resolve'"
        )
        .await,
        1
    );
    assert_eq!(
        count(store, "SELECT MAX(round) FROM game_state").await,
        2,
        "one round on"
    );
    // Forms received before the deadline count for round 1; none after it do.
    let ms = deadline.timestamp_millis();
    let forms =
        |op: &str| format!("SELECT COUNT(*) FROM forms WHERE round = 1 AND received_at {op} {ms}");
    assert_eq!(
        count(store, &forms("<")).await,
        BEFORE as i64,
        "every form in time counts"
    );
    assert_eq!(count(store, &forms(">=")).await, 0, "no late form counts");
    outbox_sent_once(store, dir).await;
}

async fn outbox_sent_once(store: &Store, dir: &Path) {
    assert_eq!(
        count(
            store,
            "SELECT COUNT(*) FROM outbox WHERE state = 'sent' AND attempts = 1"
        )
        .await,
        count(store, "SELECT COUNT(*) FROM outbox").await,
        "every outgoing mail sent, each in one attempt"
    );
    assert_eq!(
        count(
            store,
            "SELECT COUNT(*) FROM outbox WHERE kind = 'result_form'"
        )
        .await,
        REALMS.len() as i64,
        "results sent once to each realm"
    );
    outbox_matches_maildir(store, dir).await;
}

/// Every outbox row sent in one attempt, and the outbound Maildir holds each exactly once.
async fn outbox_matches_maildir(store: &Store, dir: &Path) {
    assert_eq!(
        count(
            store,
            "SELECT COUNT(*) FROM outbox WHERE state = 'sent' AND attempts = 1"
        )
        .await,
        count(store, "SELECT COUNT(*) FROM outbox").await,
        "every outgoing mail sent, each in one attempt"
    );
    let mut c = store.conn().await.unwrap();
    let queued: BTreeSet<String> = sqlx::query("SELECT message_id FROM outbox")
        .fetch_all(&mut *c)
        .await
        .unwrap()
        .into_iter()
        .map(|r| {
            let id: String = r.get(0);
            id.trim_start_matches('<').trim_end_matches('>').to_string()
        })
        .collect();
    let sent = sent_message_ids(dir);
    let doubled: Vec<_> = sent.iter().filter(|(_, n)| **n > 1).collect();
    assert!(doubled.is_empty(), "mails delivered twice: {doubled:?}");
    let sent: BTreeSet<String> = sent.into_keys().collect();
    assert_eq!(
        sent, queued,
        "the outbound Maildir holds exactly the outbox"
    );
}

// --- Three replicas on one IMAP inbox, with the webhook on each ---------------------

/// The game's IMAP inbox on the loopback stack (`scripts/mailstack-start.sh`).
const IMAP_USER: &str = "sl@game.test";
const HOOK_SECRET: &str = "replicas-hook-secret";
const BURST: usize = 40;

fn doveadm(args: &[&str]) -> String {
    let out = Command::new("doveadm")
        .arg("-c")
        .arg(Path::new(&stack_dir()).join("etc/dovecot.conf"))
        .args(args)
        .output()
        .expect("run doveadm");
    assert!(out.status.success(), "doveadm {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// (messages, unseen) in the test's own mailbox.
fn imap_status(folder: &str) -> (u32, u32) {
    let out = doveadm(&[
        "-f",
        "flow",
        "mailbox",
        "status",
        "-u",
        IMAP_USER,
        "messages unseen",
        folder,
    ]);
    let get = |k: &str| {
        out.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{k}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {k} in {out:?}"))
    };
    (get("messages"), get("unseen"))
}

/// The test's own mailbox in the game's IMAP account (other tests share the stack's
/// INBOX): created empty, removed with its mails when dropped.
struct Folder(String);

impl Folder {
    fn new(token: &str) -> Folder {
        let name = format!("Replicas{token}");
        doveadm(&["mailbox", "create", "-u", IMAP_USER, &name]);
        Folder(name)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = Command::new("doveadm")
            .arg("-c")
            .arg(Path::new(&stack_dir()).join("etc/dovecot.conf"))
            .args(["mailbox", "delete", "-r", "-u", IMAP_USER, &self.0])
            .output();
    }
}

fn stack_dir() -> String {
    std::env::var("PBEMD_MAILSTACK_DIR").unwrap_or_else(|_| "/tmp/mailstack".into())
}

/// Files this test's mails, as the mail server delivers them to the INBOX by SMTP, into
/// the test's mailbox (a delivery rule would do it on a real server) until `stop`.
fn start_mover(
    folder: &str,
    token: &str,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<()> {
    let (folder, token) = (folder.to_string(), token.to_string());
    std::thread::spawn(move || loop {
        let last = stop.load(std::sync::atomic::Ordering::SeqCst);
        let _ = Command::new("doveadm")
            .arg("-c")
            .arg(Path::new(&stack_dir()).join("etc/dovecot.conf"))
            .args(["move", "-u", IMAP_USER, &folder, "mailbox", "INBOX"])
            .args(["header", "Message-ID", &token])
            .output();
        if last {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    })
}

/// The port each of replicas `0..n` listens on, from its `HTTP listening` log line
/// (they listen on port 0: any free port, no race for one picked in advance); the
/// other lines read meanwhile are returned too.
fn listening_ports(rx: &Receiver<(usize, String)>, n: usize) -> (Vec<u16>, Vec<(usize, String)>) {
    let mut ports = vec![None; n];
    let mut seen = Vec::new();
    let t = Instant::now();
    while ports.iter().any(Option::is_none) {
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "replicas not listening: {ports:?}"
        );
        let Ok((who, line)) = rx.recv_timeout(Duration::from_millis(200)) else {
            continue;
        };
        if line.contains("HTTP listening") {
            let port = line
                .rsplit("127.0.0.1:")
                .next()
                .map(|p| {
                    p.chars()
                        .take_while(char::is_ascii_digit)
                        .collect::<String>()
                })
                .and_then(|p| p.parse().ok());
            ports[who] = port;
        }
        seen.push((who, line));
    }
    (ports.into_iter().flatten().collect(), seen)
}

/// A game whose inbound is the stack's IMAP inbox, with one config file per replica
/// (they differ only in their name). The weekday window is open (it opened at midnight
/// UTC and no other event falls within the test).
fn imap_game(tmp: &Path, url: &str, replicas: usize, folder: &str) -> Vec<PathBuf> {
    let dir = tmp.join("game");
    let cfg = pbemd::app::setup::new_game_dir(&dir, None).unwrap();
    std::fs::write(dir.join("imap.pw"), "sl-pass\n").unwrap();
    let far = "\"0 0 0 1 1 * 2099\"";
    let mut sched = "timezone: UTC\nevents:\n  - {name: weekday_open, kind: weekday_open, cron: \"0 0 0 * * *\"}\n".to_string();
    for k in [
        "weekday_close",
        "form_open",
        "form_close",
        "resolve",
        "results",
    ] {
        sched.push_str(&format!("  - {{name: {k}, kind: {k}, cron: {far}}}\n"));
    }
    std::fs::write(dir.join("schedule.yaml"), sched).unwrap();
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("database: sqlite:pbemd.db", &format!("database: {url}"))
        .replace(
            "inbound:\n  maildir: inbox\n",
            "inbound:\n  imap: {host: 127.0.0.1, port: 1143, user: sl@game.test, \
             password_file: imap.pw, tls: none, poll_seconds: 1, mailbox: FOLDER}\n",
        )
        .replace("FOLDER", folder);
    assert!(text.contains(url) && text.contains("imap:"), "{text}");
    let cfgs: Vec<PathBuf> = (0..replicas)
        .map(|n| {
            let p = dir.join(format!("replica-{n}.yaml"));
            let hook = "webhook: {secret_env: PBEMD_HOOK, window_seconds: 300}\n\
                 http: {listen: \"127.0.0.1:0\"}\n";
            std::fs::write(&p, format!("{text}{hook}")).unwrap();
            p
        })
        .collect();
    let now = Utc::now().to_rfc3339();
    let out = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args([
            "--config",
            cfgs[0].to_str().unwrap(),
            "init",
            "--quiet",
            "--now",
            &now,
        ])
        .env("PBEMD_HOOK", HOOK_SECRET)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    cfgs
}

/// Burst mail `i`: an envoy from one realm to the next, with its own Message-ID.
fn envoy(token: &str, i: usize) -> (String, Vec<u8>) {
    let from = REALMS[i % REALMS.len()];
    let to = REALMS[(i + 1) % REALMS.len()];
    let addr = format!("{}@game.test", from.to_lowercase());
    let raw = common::mail(
        &addr,
        &format!("{from} skickar ett sändebud till {to}"),
        &format!("Sändebud nummer {i}.\n/{from} <{addr}>"),
        &format!("{token}-{i}@players.test"),
    );
    (addr, raw)
}

async fn smtp_send(from: &str, raw: &[u8]) {
    use pbemd::transport::imap::TlsMode;
    use pbemd::transport::smtp::{SmtpParams, SmtpSender};
    let mut s = SmtpSender::new(SmtpParams {
        host: "127.0.0.1".into(),
        port: 2525,
        user: None,
        password: None,
        tls: TlsMode::None,
        ca_file: None,
        hello_name: "players.test".into(),
    });
    s.send_raw(from, &[IMAP_USER.to_string()], raw)
        .await
        .unwrap();
}

/// A signed webhook POST of `raw` to the replica on `port`: its status, or the I/O error
/// (as when that replica is dead).
async fn hook_post(port: u16, raw: &[u8]) -> std::io::Result<u16> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let now = Utc::now().timestamp();
    let sig = pbemd::web::sign(HOOK_SECRET.as_bytes(), now, raw);
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let head = format!(
        "POST /inbound HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\
         X-Pbemd-Timestamp: {now}\r\nX-Pbemd-Signature: {sig}\r\n\r\n",
        raw.len()
    );
    s.write_all(head.as_bytes()).await?;
    s.write_all(raw).await?;
    let mut resp = String::new();
    s.read_to_string(&mut resp).await?;
    resp.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status in {resp:?}")))
}

/// POSTs to the replica `first` (by index into `ports`) and, like a webhook provider,
/// retries on the next ones while a replica does not answer or answers 5xx.
async fn hook_deliver(ports: &[u16], first: usize, raw: &[u8]) -> u16 {
    for k in 0..ports.len() * 3 {
        match hook_post(ports[(first + k) % ports.len()], raw).await {
            Ok(code) if code < 500 => return code,
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    panic!("no replica took the webhook POST");
}

/// Every mail stored and handled, every outgoing mail sent.
async fn imap_settled(store: &Store, mails: i64) -> bool {
    count(store, "SELECT COUNT(*) FROM inbox WHERE state = 'done'").await == mails
        && count(store, "SELECT COUNT(*) FROM inbox").await == mails
        && count(store, "SELECT COUNT(*) FROM outbox WHERE state <> 'sent'").await == 0
}

/// Sends the burst: even mails by SMTP into the IMAP inbox, odd ones by webhook POSTs
/// spread over the replicas; every fifth SMTP mail is also POSTed (the same mail by both
/// paths) and every seventh POSTed mail is POSTed again to another replica (a provider's
/// retry). Replica `victim` is SIGKILLed halfway.
async fn send_burst(token: &str, ports: &[u16], victim: &mut Replica) {
    for i in 0..BURST {
        let (from, raw) = envoy(token, i);
        if i % 2 == 0 {
            smtp_send(&from, &raw).await;
            if i % 10 == 0 {
                let code = hook_deliver(ports, i / 2, &raw).await;
                assert!(code == 202 || code == 200, "mail {i} by both paths: {code}");
            }
        } else {
            let code = hook_deliver(ports, i / 2, &raw).await;
            assert_eq!(code, 202, "webhook mail {i} is new");
            if i % 7 == 1 {
                let again = hook_deliver(ports, i / 2 + 1, &raw).await;
                assert_eq!(again, 200, "a repeated POST of mail {i} is a duplicate");
            }
        }
        if i == BURST / 2 {
            victim.kill();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn three_replicas_on_one_imap_inbox_and_their_webhooks_handle_every_mail_once_though_one_is_killed(
) {
    let Some(url) = common::pg_database_url().await else {
        return;
    };
    let up = std::net::TcpStream::connect("127.0.0.1:1143").is_ok()
        && std::net::TcpStream::connect("127.0.0.1:2525").is_ok();
    if !up && !common::missing("the loopback mail stack (scripts/mailstack-start.sh)") {
        return;
    }
    let _turn = HEAVY.lock().await;
    let token = format!("{}", Utc::now().timestamp_nanos_opt().unwrap_or(0));
    let folder = Folder::new(&token);
    let folder = folder.0.as_str();
    let tmp = tempfile::tempdir().unwrap();
    let cfgs = imap_game(tmp.path(), &url, 3, folder);
    let dir = cfgs[0].parent().unwrap().to_path_buf();
    let (tx, rx) = channel();
    let env = [("PBEMD_HOOK", HOOK_SECRET)];
    let mut r0 = replica(&cfgs[0], 0, &tx, &env);
    let mut r1 = replica(&cfgs[1], 1, &tx, &env);
    let mut r2 = replica(&cfgs[2], 2, &tx, &env);
    let (ports, seen) = listening_ports(&rx, 3);

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mover = start_mover(folder, &token, stop.clone());
    send_burst(&token, &ports, &mut r2).await;
    let t = Instant::now();
    while imap_status(folder).0 < (BURST / 2) as u32 {
        assert!(
            t.elapsed() < Duration::from_secs(15),
            "SMTP mails not delivered"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    mover.join().unwrap();

    let store = Store::open(&url).await.unwrap();
    let t = Instant::now();
    while !imap_settled(&store, BURST as i64).await {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the replicas never settled: {} stored, {} done, IMAP {:?}",
            count(&store, "SELECT COUNT(*) FROM inbox").await,
            count(&store, "SELECT COUNT(*) FROM inbox WHERE state = 'done'").await,
            imap_status(folder)
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // Let the survivors run on a little: nothing more may happen.
    tokio::time::sleep(Duration::from_secs(3)).await;
    r0.kill();
    r1.kill();
    check_imap_burst(&store, &dir, folder).await;
    // Three readers on the one inbox: every replica logged in to it.
    let lines: Vec<(usize, String)> = seen.into_iter().chain(rx.try_iter()).collect();
    for n in 0..3 {
        assert!(
            lines
                .iter()
                .any(|(w, l)| *w == n && l.contains("IMAP connected")),
            "replica {n} reads the IMAP inbox too"
        );
    }
}

async fn check_imap_burst(store: &Store, dir: &Path, folder: &str) {
    let mails = BURST as i64;
    assert!(imap_settled(store, mails).await, "still every mail once");
    assert_eq!(
        count(store, "SELECT COUNT(DISTINCT message_id) FROM inbox").await,
        mails,
        "each Message-ID stored once"
    );
    assert_eq!(
        count(store, "SELECT COUNT(DISTINCT inbox_id) FROM messages").await,
        mails,
        "every mail handled"
    );
    assert_eq!(
        count(store, "SELECT COUNT(*) FROM messages").await,
        mails,
        "every mail handled once"
    );
    // Even mails came by SMTP, every fifth of them also by webhook; odd ones by webhook.
    let imap = count(store, "SELECT COUNT(*) FROM inbox WHERE source = 'imap'").await;
    let hook = count(store, "SELECT COUNT(*) FROM inbox WHERE source = 'webhook'").await;
    let both = (BURST / 10) as i64;
    assert_eq!(imap + hook, mails, "IMAP {imap} + webhook {hook}");
    assert!(
        (mails / 2 - both..=mails / 2).contains(&imap),
        "IMAP {imap}"
    );
    assert_eq!(
        imap_status(folder),
        ((BURST / 2) as u32, 0),
        "every mail in the IMAP inbox flagged \\Seen once stored"
    );
    let mut c = store.conn().await.unwrap();
    let kinds: Vec<(String, i64)> =
        sqlx::query("SELECT kind, COUNT(*) FROM outbox GROUP BY kind ORDER BY kind")
            .fetch_all(&mut *c)
            .await
            .unwrap()
            .into_iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
    let expected = vec![
        ("courier_receipt".to_string(), mails),
        ("envoy_delivery".to_string(), mails),
    ];
    assert_eq!(kinds, expected, "one receipt and one delivery per envoy");
    drop(c);
    outbox_matches_maildir(store, dir).await;
}

//! Measures pbemd against the loopback mail stack (start it with
//! scripts/mailstack-start.sh), with N mails (default 2,000; env PBEMD_BENCH_MAILS):
//!
//! 1. intake: N envoys in the game's IMAP inbox; the raw rate of one `UID FETCH` of
//!    the whole mailbox, against pbemd's end-to-end rate (fetch, store, classify,
//!    route, deliver into the outbox), as a ratio;
//! 2. output: the N envoy deliveries sent over SMTP by pbemd's outbox sender, against
//!    a raw lettre + TCP_NODELAY send of the same N mails on one connection.
//!
//! Run: `cargo bench --bench mailflow`.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use pbemd::app::{courier, intake, process, sender, App};
use pbemd::clock::FixedClock;
use pbemd::config::Config;
use pbemd::transport::imap::{ImapParams, ImapSession, TlsMode};
use pbemd::transport::smtp::{SmtpParams, SmtpSender};

fn doveadm(args: &[&str]) -> String {
    let dir = std::env::var("PBEMD_MAILSTACK_DIR").unwrap_or_else(|_| "/tmp/mailstack".into());
    let out = Command::new("doveadm")
        .arg("-c")
        .arg(PathBuf::from(dir).join("etc/dovecot.conf"))
        .args(args)
        .output()
        .expect("doveadm");
    assert!(
        out.status.success(),
        "doveadm {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn count(user: &str) -> usize {
    let out = doveadm(&[
        "-f", "flow", "mailbox", "status", "-u", user, "messages", "INBOX",
    ]);
    // `-f flow` prints e.g. `INBOX messages=2000`.
    out.split_whitespace()
        .find_map(|w| w.strip_prefix("messages="))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn wait_count(user: &str, n: usize) {
    let t = Instant::now();
    while count(user) < n {
        assert!(
            t.elapsed().as_secs() < 300,
            "{user}: only {} of {n} arrived",
            count(user)
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
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
        hello_name: "bench.test".into(),
    }
}

fn envoy(i: usize) -> Vec<u8> {
    let body = "Hälsningar från Genogien. Vi föreslår handel med järn och timmer längs gränsen. "
        .repeat(10);
    format!(
        "From: genogien@game.test\r\nTo: sl@game.test\r\nSubject: Genogien skickar ett sändebud till Afani\r\n\
Message-ID: <bench-{i}-{}@players.test>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
Content-Transfer-Encoding: 8bit\r\n\r\nSändebud nummer {i}.\r\n{body}\r\n",
        std::process::id()
    )
    .into_bytes()
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::var("PBEMD_BENCH_MAILS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    if std::net::TcpStream::connect("127.0.0.1:1143").is_err() {
        eprintln!("the mail stack is not running: scripts/mailstack-start.sh");
        std::process::exit(1);
    }
    for u in ["sl@game.test", "afani@game.test", "genogien@game.test"] {
        doveadm(&["expunge", "-u", u, "mailbox", "INBOX", "all"]);
    }
    let mails: Vec<Vec<u8>> = (0..n).map(envoy).collect();
    let avg = mails.iter().map(Vec::len).sum::<usize>() / n;
    println!("{n} envoys of ~{avg} bytes");

    // Fill the game's inbox (also the raw SMTP send measurement: lettre + TCP_NODELAY).
    let mut raw_sender = SmtpSender::new(smtp());
    let t = Instant::now();
    for m in &mails {
        raw_sender
            .send_raw("genogien@game.test", &["sl@game.test".to_string()], m)
            .await
            .unwrap();
    }
    let raw_send = t.elapsed();
    wait_count("sl@game.test", n);
    println!(
        "raw SMTP send, 1 connection, TCP_NODELAY: {:.0} mails/s accepted",
        n as f64 / raw_send.as_secs_f64()
    );

    // Raw UID FETCH of the whole mailbox.
    let imap = ImapParams {
        host: "127.0.0.1".into(),
        port: 1143,
        user: "sl@game.test".into(),
        password: "sl-pass".into(),
        tls: TlsMode::None,
        ca_file: None,
        mailbox: "INBOX".into(),
    };
    let mut s = ImapSession::connect(&imap).await.unwrap();
    s.select().await.unwrap();
    let t = Instant::now();
    let got = s.fetch_after(0, n + 10).await.unwrap();
    let raw_fetch = t.elapsed();
    assert_eq!(got.len(), n);
    let raw_rate = n as f64 / raw_fetch.as_secs_f64();
    println!("raw UID FETCH 1:* of {n}: {:.0} mails/s", raw_rate);

    // pbemd end to end: fetch, store, classify, route, deliver into the outbox table.
    let tmp = tempfile::tempdir().unwrap();
    let cfg_path = pbemd::app::setup::new_game_dir(&tmp.path().join("g"), None).unwrap();
    std::fs::write(tmp.path().join("g/imap.pw"), "sl-pass").unwrap();
    let text = std::fs::read_to_string(&cfg_path)
        .unwrap()
        .replace("inbound:\n  maildir: inbox\n", "inbound:\n  imap: {host: 127.0.0.1, port: 1143, user: sl@game.test, password_file: imap.pw, tls: none, fetch_batch: 500}\n")
        .replace("outbound:\n  maildir: outbox\n", "outbound:\n  smtp: {host: 127.0.0.1, port: 2525, tls: none}\n");
    std::fs::write(&cfg_path, text).unwrap();
    let cfg = Config::load(&cfg_path).unwrap();
    let now = pbemd::clock::parse_rfc3339("2026-11-24T10:00:00+01:00").unwrap();
    let app = App::open(cfg, Arc::new(FixedClock::new(now)))
        .await
        .unwrap();
    pbemd::app::setup::init(&app, now, false).await.unwrap();
    {
        // Enough free envoys for the whole run: the bench measures throughput, not the
        // allowance rule (R-AGENT-4).
        let mut c = app.store.begin().await.unwrap();
        let (v, gs) = app.state(&mut c).await.unwrap();
        let mut gs = (*gs).clone();
        gs.realm_mut("Genogien").unwrap().positions.sprakror = n as u32 + 10;
        app.save_state(&mut c, v, &gs, "bench: large allowance")
            .await
            .unwrap();
        c.commit().await.unwrap();
    }
    let t = Instant::now();
    let stored = intake::imap_once(&app, &mut s, 500).await.unwrap();
    let t_fetch = t.elapsed();
    let handled = process::process_all(&app).await.unwrap();
    let t_class = t.elapsed();
    let delivered = courier::batch_now(&app).await.unwrap().delivered;
    let e2e = t.elapsed();
    assert_eq!((stored, handled, delivered), (n, n, n));
    let e2e_rate = n as f64 / e2e.as_secs_f64();
    println!(
        "pbemd end to end (fetch+store {:.2}s, classify+queue {:.2}s, courier batch into the outbox {:.2}s): {:.0} mails/s",
        t_fetch.as_secs_f64(),
        (t_class - t_fetch).as_secs_f64(),
        (e2e - t_class).as_secs_f64(),
        e2e_rate
    );
    println!("ratio end-to-end / raw fetch: {:.3}", e2e_rate / raw_rate);

    // pbemd's outbox over SMTP against the raw send.
    let t = Instant::now();
    let (sent, failed) = sender::flush_all(&app).await.unwrap();
    let out = t.elapsed();
    // Every envoy is a delivery to Afani and a receipt to Genogien.
    assert_eq!((sent, failed), (2 * n, 0));
    let out_rate = sent as f64 / out.as_secs_f64();
    let raw_rate_send = n as f64 / raw_send.as_secs_f64();
    println!(
        "pbemd outbox → SMTP: {:.0} mails/s (raw {:.0}/s, ratio {:.3})",
        out_rate,
        raw_rate_send,
        out_rate / raw_rate_send
    );
    wait_count("afani@game.test", n);
    println!("all {n} deliveries in afani's mailbox");
}

//! Measures pbemd against the loopback mail stack (start it with
//! scripts/mailstack-start.sh), with N mails (default 2,000; env PBEMD_BENCH_MAILS):
//!
//! 1. intake: N envoys in the game's IMAP inbox; the raw rate of one `UID FETCH` of
//!    the whole mailbox, against pbemd's end-to-end rate (fetch, store, classify,
//!    route, deliver into the outbox), as a ratio;
//! 2. output: the N envoy deliveries sent over SMTP by pbemd's outbox sender, against
//!    a raw lettre + TCP_NODELAY send of the same N mails on one connection.
//!
//! Run: `cargo bench --bench mailflow` (`PBEMD_BENCH_INTAKE_ONLY=1` stops after part 1;
//! `PBEMD_BENCH_SERIAL=1` runs the intake alone, then the worker alone;
//! `PBEMD_BENCH_SQL_LOG=1` logs every statement with its time).

use std::time::Instant;

use pbemd::app::{courier, intake, process, sender};
use pbemd::transport::imap::ImapSession;
use pbemd::transport::smtp::SmtpSender;

#[path = "common/stack.rs"]
mod stack;

use stack::{doveadm, smtp};

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

/// Processor time this process has used so far (all its threads, user and system), in
/// seconds, from `/proc/self/stat` (ticks of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at `) `.
    let rest = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or_default();
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime, fields 14 and 15 of the line (indexes 11 and 12 after the name).
    (ticks(11) + ticks(12)) / 100.0
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
    // `PBEMD_BENCH_SQL_LOG=1`: every statement with its time on stderr (sqlx's log).
    if std::env::var_os("PBEMD_BENCH_SQL_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter("sqlx::query=debug")
            .with_writer(std::io::stderr)
            .init();
    }
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
    let imap = stack::imap("sl@game.test", "sl-pass");
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
    // Every envoy gets its receipt: flood control (30 replies an hour) is not measured here.
    let no_flood = "limits:\n  max_replies_per_hour: 1000000\n";
    let app = stack::game(tmp.path(), "fetch_batch: 500", no_flood, n + 10).await;
    // As `pbemd run` does it: the intake task fetches and stores batch after batch while
    // the worker handles what is stored, a batch at a time, each followed by a courier
    // batch (`immediate` mode).
    let app = std::sync::Arc::new(app);
    let cpu = cpu_seconds();
    let t = Instant::now();
    let intake_app = app.clone();
    let finished = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let intake_finished = finished.clone();
    let intake = tokio::spawn(async move {
        let taken = intake::imap_pass(&intake_app, &mut s, 500).await.unwrap();
        let elapsed = t.elapsed();
        // The worker waits for this to stop.
        intake_finished.store(true, std::sync::atomic::Ordering::SeqCst);
        intake_app.wake.notify_one();
        (taken, elapsed, s)
    });
    // `PBEMD_BENCH_SERIAL=1`: the intake alone first, then the worker alone, to see
    // each stage's own cost without the other.
    let intake = if std::env::var_os("PBEMD_BENCH_SERIAL").is_some() {
        let done = intake.await.unwrap();
        println!("serial: fetch+store alone {:.2}s", done.1.as_secs_f64());
        tokio::spawn(async move { done })
    } else {
        intake
    };
    let (mut handled, mut delivered) = (0, 0);
    let mut t_worker = std::time::Duration::ZERO;
    // The intake handles a batch as it stores it when time order allows; the worker
    // handles what waits. Done when the intake is and nothing waits for the worker.
    loop {
        let intake_done = finished.load(std::sync::atomic::Ordering::SeqCst);
        let w = Instant::now();
        // What the worker does for a batch of mail (`tick::step`): handle it, and in
        // `immediate` mode decide its messages in the same transaction.
        let (k, routed) = process::process_and_route_before(&app, None).await.unwrap();
        handled += k;
        delivered += match routed {
            Some(r) => r.delivered,
            None if k > 0 => courier::batch_now(&app).await.unwrap().delivered,
            None => 0,
        };
        t_worker += w.elapsed();
        if k == 0 {
            if intake_done {
                break;
            }
            assert!(
                t.elapsed().as_secs() < 120,
                "only {handled} handled and {delivered} of {n} delivered by the worker"
            );
            // Woken by the intake's next batch (or look again soon).
            let _ = tokio::time::timeout(std::time::Duration::from_millis(50), app.wake.notified())
                .await;
        }
    }
    let e2e = t.elapsed();
    let (taken, t_fetch, _session) = intake.await.unwrap();
    assert_eq!(
        (
            taken.stored,
            taken.handled + handled,
            taken.delivered + delivered
        ),
        (n, n, n)
    );
    println!(
        "handled as stored: {} of {n}; by the worker: {handled}",
        taken.handled
    );
    let e2e_rate = n as f64 / e2e.as_secs_f64();
    println!(
        "pbemd end to end, fetch+store(+handle+courier) alongside handle+courier (intake done after {:.2}s, worker busy {:.2}s): {:.0} mails/s",
        t_fetch.as_secs_f64(),
        t_worker.as_secs_f64(),
        e2e_rate
    );
    println!("ratio end-to-end / raw fetch: {:.3}", e2e_rate / raw_rate);
    println!(
        "pbemd processor time end to end: {:.0} µs a mail (all threads)",
        (cpu_seconds() - cpu) * 1e6 / n as f64
    );

    if std::env::var_os("PBEMD_BENCH_INTAKE_ONLY").is_some() {
        return;
    }
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

//! Envoy latency through the running daemon, against the loopback mail stack (start it
//! with scripts/mailstack-start.sh; `PBEMD_MAILSTACK_DIR`, default /tmp/mailstack).
//!
//! The daemon (`daemon::run`, as `pbemd run` runs it) reads the game's IMAP inbox with
//! IDLE and sends over SMTP into the stack, `courier.mode: immediate`. N envoys (default
//! 300; env `PBEMD_BENCH_ENVOYS`) are submitted one at a time over SMTP to the game's
//! address; for each, the time from the server's `250` after DATA to the delivery being
//! in the recipient's Maildir (polled every 2 ms for the envoy's own token, so the
//! measurement adds no IDLE delay of its own and other tests' mail on the shared stack
//! does not count). The next envoy goes only after the previous one arrived (or its
//! timeout), after a pause of 0-1 s that varies from envoy to envoy.
//!
//! A second client IDLEs on the game's inbox meanwhile: its wake-up after each `250` is
//! what Dovecot's IDLE notice costs (`mailbox_idle_check_interval`), reported apart.
//!
//! Run: `cargo bench --bench latency`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pbemd::app::{daemon, App};
use pbemd::transport::imap::ImapSession;
use pbemd::transport::smtp::SmtpSender;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

#[path = "common/stack.rs"]
mod stack;

use stack::{doveadm, imap, smtp, stack_dir};

const PER_ENVOY_TIMEOUT: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(2);

/// The recipient's Maildir, searched for one envoy's token; other mail (the stack is
/// shared with other tests) is read once and skipped.
struct Recipient {
    dir: PathBuf,
    seen: HashSet<String>,
}

impl Recipient {
    fn holds(&mut self, token: &str) -> bool {
        for sub in ["new", "cur"] {
            let Ok(entries) = std::fs::read_dir(self.dir.join(sub)) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let base = name.split(':').next().unwrap_or_default().to_string();
                if self.seen.contains(&base) {
                    continue;
                }
                // Read once; a file that moved from new/ to cur/ meanwhile is read next time.
                let Ok(text) = std::fs::read(e.path()) else {
                    continue;
                };
                self.seen.insert(base);
                if text.windows(token.len()).any(|w| w == token.as_bytes()) {
                    return true;
                }
            }
        }
        false
    }
}

fn token(i: usize) -> String {
    format!("k4lat-{}-{i}-end", std::process::id())
}

fn envoy(i: usize) -> Vec<u8> {
    let t = token(i);
    format!(
        "From: genogien@game.test\r\nTo: sl@game.test\r\nSubject: Genogien skickar ett sändebud till Afani\r\n\
Message-ID: <{t}@players.test>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
Content-Transfer-Encoding: 8bit\r\n\r\nSändebud nummer {i}: vi föreslår handel med järn och timmer.\r\n{t}\r\n"
    )
    .into_bytes()
}

/// A game in a temp dir: IMAP inbound with IDLE, SMTP outbound, immediate courier, and
/// enough envoys for the run (the bench measures latency, not the allowance rule).
async fn game(dir: &Path, n: usize) -> Arc<App> {
    Arc::new(stack::game(dir, "idle: true", "courier:\n  mode: immediate\n", n + 10).await)
}

async fn watch_game_inbox(tx: mpsc::UnboundedSender<(Instant, usize)>, cancel: CancellationToken) {
    let mut s = ImapSession::connect(&imap("sl@game.test", "sl-pass"))
        .await
        .unwrap();
    let mut last = s.select().await.unwrap().uid_next.unwrap_or(1) - 1;
    let prefix = format!("k4lat-{}-", std::process::id());
    while !cancel.is_cancelled() {
        let (back, changed) = s
            .wait_for_change_or(Duration::from_secs(60), cancel.cancelled())
            .await
            .unwrap();
        s = back;
        if !changed {
            continue;
        }
        let at = Instant::now();
        for m in s.fetch_after(last, 100).await.unwrap() {
            last = last.max(m.uid);
            let raw = String::from_utf8_lossy(&m.raw);
            let i = raw.split(&prefix).nth(1).and_then(|t| t.split('-').next());
            if let Some(i) = i.and_then(|i| i.parse().ok()) {
                let _ = tx.send((at, i));
            }
        }
    }
    let _ = s.logout().await;
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn summary(name: &str, v: &mut [Duration]) -> Duration {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p99 = percentile(v, 99.0);
    println!(
        "{name}: p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms (n = {})",
        ms(percentile(v, 50.0)),
        ms(p99),
        ms(v.last().copied().unwrap_or_default()),
        v.len()
    );
    p99
}

struct Samples {
    total: Vec<Duration>,
    notice: Vec<Duration>,
    timeouts: usize,
}

/// Sends envoy `i`, waits for its delivery in the recipient's Maildir; `None` on timeout.
async fn one(
    smtp: &mut SmtpSender,
    afani: &mut Recipient,
    i: usize,
    wakes: &mut mpsc::UnboundedReceiver<(Instant, usize)>,
) -> (Option<Duration>, Option<Duration>) {
    // A pause of 0-997 ms, so the sends are not in step with the previous delivery (and
    // with any periodic check of the server's).
    tokio::time::sleep(Duration::from_millis((i as u64 * 379) % 1000)).await;
    smtp.send_raw(
        "genogien@game.test",
        &["sl@game.test".to_string()],
        &envoy(i),
    )
    .await
    .unwrap();
    let accepted = Instant::now();
    let t = token(i);
    let mut arrived = None;
    while accepted.elapsed() < PER_ENVOY_TIMEOUT {
        if afani.holds(&t) {
            arrived = Some(accepted.elapsed());
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    // The IDLE wake-up that showed this envoy in the game's inbox.
    let mut notice = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while notice.is_none() {
        match tokio::time::timeout_at(deadline, wakes.recv()).await {
            Ok(Some((at, j))) if j == i => notice = Some(at.saturating_duration_since(accepted)),
            Ok(Some(_)) => {}
            _ => break,
        }
    }
    (arrived, notice)
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::var("PBEMD_BENCH_ENVOYS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    if std::net::TcpStream::connect("127.0.0.1:1143").is_err() {
        eprintln!("the mail stack is not running: scripts/mailstack-start.sh");
        std::process::exit(1);
    }
    // A fresh game reads the whole inbox: start it empty.
    doveadm(&["expunge", "-u", "sl@game.test", "mailbox", "INBOX", "all"]);
    let mut afani = Recipient {
        dir: stack_dir().join("mail/game.test/afani/Maildir"),
        seen: HashSet::new(),
    };
    let tmp = tempfile::tempdir().unwrap();
    let app = game(tmp.path(), n + 1).await;
    let cancel = CancellationToken::new();
    let (tx, mut wakes) = mpsc::unbounded_channel();
    let watcher = tokio::spawn(watch_game_inbox(tx, cancel.clone()));
    let d = tokio::spawn(daemon::run(app.clone(), cancel.clone()));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut smtp = SmtpSender::new(smtp());
    println!("{n} envoys, one at a time, through `pbemd run` (IMAP IDLE in, SMTP out, immediate courier)");
    // One warm-up envoy, not counted: connections and caches.
    one(&mut smtp, &mut afani, 0, &mut wakes).await;
    let mut s = Samples {
        total: Vec::new(),
        notice: Vec::new(),
        timeouts: 0,
    };
    for i in 1..=n {
        let (arrived, notice) = one(&mut smtp, &mut afani, i, &mut wakes).await;
        match arrived {
            Some(d) => s.total.push(d),
            None => s.timeouts += 1,
        }
        s.notice.extend(notice);
    }
    report(&mut s);
    cancel.cancel();
    let _ = d.await;
    let _ = watcher.await;
    if s.timeouts > 0 {
        std::process::exit(1);
    }
}

fn report(s: &mut Samples) {
    let p99 = summary("250 after DATA → in the recipient's mailbox", &mut s.total);
    summary(
        "of which Dovecot's IDLE notice (250 → an IDLE client on the game's inbox is told)",
        &mut s.notice,
    );
    // Medians: a wake-up for another change (a flag set by pbemd) can show an envoy
    // early, which pulls the notice's mean down but not its median.
    let (t, m) = (percentile(&s.total, 50.0), percentile(&s.notice, 50.0));
    println!(
        "p50 {:.0} ms end to end, {:.0} ms of it Dovecot's IDLE notice, {:.0} ms pbemd + SMTP + delivery",
        t.as_secs_f64() * 1000.0,
        m.as_secs_f64() * 1000.0,
        t.saturating_sub(m).as_secs_f64() * 1000.0
    );
    if s.timeouts > 0 {
        println!(
            "{} envoys not delivered within {PER_ENVOY_TIMEOUT:?}",
            s.timeouts
        );
    }
    let ok = p99 <= Duration::from_secs(1) && s.timeouts == 0;
    println!("target p99 ≤ 1 s: {}", if ok { "met" } else { "NOT met" });
}

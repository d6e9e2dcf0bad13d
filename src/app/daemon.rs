//! `pbemd run`: the daemon. Three loops share one `App`: intake (IMAP IDLE or polling,
//! or a Maildir poll), the worker (handle mail and fire the schedule in time order,
//! deliver, send), and the HTTP server (webhook, health, metrics). SIGTERM/SIGINT
//! cancel a token: each loop stops at its next await, and a unit of work cut short
//! rolls back whole (its transaction never commits), so its mail is handled on the
//! next start. A unit that does not come to an await within `SHUTDOWN_GRACE` is
//! abandoned: `run` returns `Stopped::Abandoned` and the caller ends the process.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::tick::{self, Step};
use super::{courier, intake, scheduler, sender, App, Result};
use crate::config::{ImapSettings, Inbound};
use crate::transport::imap::ImapSession;
use crate::transport::maildir::Maildir;

/// Longest sleep of the worker between checks (catches clock jumps and due retries).
const WORKER_MAX_SLEEP: Duration = Duration::from_secs(30);

/// Longest sleep of a worker that does not hold the scheduler lease.
const LEASE_POLL: Duration = Duration::from_secs(1);

/// How long the loops get to stop after SIGTERM before the work in hand is abandoned.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// A unit of work running longer than this makes `/healthz` report the worker stuck.
const STUCK_AFTER: Duration = Duration::from_secs(120);

/// How the daemon stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// Every loop stopped.
    Clean,
    /// A unit of work was still running after `SHUTDOWN_GRACE`; its transaction has
    /// not committed. The caller should end the process (which rolls it back).
    Abandoned,
}

/// The worker's health, for `/healthz`.
#[derive(Debug, Default)]
pub struct Health {
    inner: Mutex<HealthInner>,
    /// The IMAP intake is in a pass (it handles what it stores: the worker idles
    /// meanwhile, and is no sign that a burst of mail is over).
    intake_busy: std::sync::atomic::AtomicBool,
}

#[derive(Debug, Default)]
struct HealthInner {
    busy_since: Option<Instant>,
    failing: Option<String>,
    failures: u32,
}

/// Consecutive failed steps after which the worker counts as stuck (one failure may be
/// a busy database, retried after a second).
const STUCK_FAILURES: u32 = 3;

impl Health {
    fn lock(&self) -> std::sync::MutexGuard<'_, HealthInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn started(&self) {
        self.lock().busy_since = Some(Instant::now());
    }

    fn finished(&self, failure: Option<String>) {
        let mut h = self.lock();
        h.busy_since = None;
        h.failures = if failure.is_some() {
            h.failures.saturating_add(1)
        } else {
            0
        };
        h.failing = failure;
    }

    fn intake(&self, busy: bool) {
        self.intake_busy
            .store(busy, std::sync::atomic::Ordering::SeqCst);
    }

    fn intake_busy(&self) -> bool {
        self.intake_busy.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Why the worker is stuck, if it is: its last steps failed (and it is backing
    /// off), or one unit of work has run for longer than two minutes.
    pub fn stuck(&self) -> Option<String> {
        let h = self.lock();
        if let Some(e) = h.failing.as_ref().filter(|_| h.failures >= STUCK_FAILURES) {
            return Some(format!(
                "the worker's last {} steps failed: {e}",
                h.failures
            ));
        }
        h.busy_since
            .map(|t| t.elapsed())
            .filter(|d| *d > STUCK_AFTER)
            .map(|d| format!("one unit of work has run for {} s", d.as_secs()))
    }
}

/// Run until `cancel` fires.
pub async fn run(app: Arc<App>, cancel: CancellationToken) -> anyhow::Result<Stopped> {
    {
        let mut conn = app.store.conn().await?;
        app.state(&mut conn).await?;
    }
    let mut tasks = tokio::task::JoinSet::new();
    tasks.spawn(intake_loop(app.clone(), cancel.clone()));
    tasks.spawn(worker_loop(app.clone(), cancel.clone()));
    if let Some(addr) = app.cfg.http_listen.clone() {
        tasks.spawn(crate::web::serve(app.clone(), addr, cancel.clone()));
    }
    let mut first_err = None;
    let grace = {
        let cancel = cancel.clone();
        async move {
            cancel.cancelled().await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        }
    };
    tokio::pin!(grace);
    loop {
        let res = tokio::select! {
            next = tasks.join_next() => match next {
                Some(res) => res,
                None => break,
            },
            _ = &mut grace => {
                tracing::warn!(
                    "a unit of work did not stop within {SHUTDOWN_GRACE:?}; it is abandoned \
                     uncommitted and will be handled on the next start"
                );
                tasks.detach_all();
                return Ok(Stopped::Abandoned);
            }
        };
        let res = res.map_err(anyhow::Error::from).and_then(|r| r);
        if let Err(e) = res {
            tracing::error!(error = %e, "a daemon task stopped with an error; shutting down");
            cancel.cancel();
            first_err.get_or_insert(e);
        }
    }
    app.store.close().await;
    match first_err {
        Some(e) => Err(e),
        None => Ok(Stopped::Clean),
    }
}

async fn worker_loop(app: Arc<App>, cancel: CancellationToken) -> anyhow::Result<()> {
    let mut backoff = Duration::from_secs(1);
    let mut lease = super::lease::SchedulerLease::new(&app.cfg.database_url, app.store.backend());
    while !cancel.is_cancelled() {
        let holder = tokio::select! {
            biased;
            _ = cancel.cancelled() => break,
            h = lease.hold() => h,
        };
        app.health.started();
        // Cancelling drops the unit in hand at its next await: its transaction rolls
        // back, and the mail waits for the next start.
        let step = tokio::select! {
            biased;
            _ = cancel.cancelled() => break,
            r = worker_once(&app, holder) => r,
        };
        app.health
            .finished(step.as_ref().err().map(super::fault::error_text));
        match step {
            Ok(busy) => {
                backoff = Duration::from_secs(1);
                if busy {
                    continue;
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "worker step failed; retrying");
                tokio::select! {
                    _ = cancel.cancelled() => break,
                    _ = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(Duration::from_secs(60));
                continue;
            }
        }
        // Idle: the write-ahead log goes back into the file now, not mid-burst (nor
        // while the intake handles a burst as it stores it; it wakes the worker after).
        if !app.health.intake_busy() {
            if let Err(e) = app.store.checkpoint().await {
                tracing::warn!(error = %e, "checkpoint failed");
            }
        }
        let mut sleep = next_wake(&app).await.unwrap_or(WORKER_MAX_SLEEP);
        if !holder {
            // Another replica fires the schedule; look again soon for the mail it
            // lets through and for its lease (if it dies).
            sleep = sleep.min(LEASE_POLL);
        }
        tokio::select! {
            _ = cancel.cancelled() => break,
            _ = app.wake.notified() => {}
            _ = tokio::time::sleep(sleep) => {}
        }
    }
    lease.release().await;
    tracing::info!("worker stopped");
    Ok(())
}

/// The next unit of work in time order (a mail, or the schedule events of one
/// instant), a courier batch for anything queued meanwhile (`immediate` mode, e.g. a
/// `gm approve` or `gm retry`), and one round of sending; true when any was done.
async fn worker_once(app: &App, holder: bool) -> Result<bool> {
    let now = app.now();
    let mut busy = match tick::step_as(app, now, holder).await? {
        Step::Idle => {
            // Nothing is due: the game's time moves on to now (by the lease holder).
            if holder {
                scheduler::fire_due(app, now).await?;
            }
            false
        }
        Step::Mail { .. } | Step::Events(_) => true,
    };
    if app.cfg.courier.mode == crate::config::CourierMode::Immediate {
        busy |= courier::batch_now(app).await?.decided > 0;
    }
    let (sent, _) = sender::flush_once(app).await?;
    busy |= sent > 0;
    Ok(busy)
}

async fn next_wake(app: &App) -> Option<Duration> {
    let now = app.now();
    let mut next = app.schedule.next_after(now).map(|d| d.at);
    if let Ok(mut conn) = app.store.conn().await {
        if let Ok(Some(ms)) = crate::store::outbox::next_due_at(&mut conn).await {
            let t = crate::clock::from_ms(ms);
            next = Some(next.map_or(t, |n| n.min(t)));
        }
        // The pause's end by itself is due like a schedule event.
        if let Ok((_, gs)) = app.state(&mut conn).await {
            if let Some(t) = super::season_calendar::resume_at(&gs) {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        }
    }
    let d = (next? - now).to_std().unwrap_or(Duration::ZERO);
    Some(d.min(WORKER_MAX_SLEEP))
}

async fn intake_loop(app: Arc<App>, cancel: CancellationToken) -> anyhow::Result<()> {
    match app.cfg.inbound.clone() {
        Inbound::Maildir(dir) => {
            let md = Maildir::open(&dir)?;
            while !cancel.is_cancelled() {
                if let Err(e) = intake::maildir_once(&app, &md).await {
                    tracing::error!(error = %e, "maildir intake failed; retrying");
                }
                tokio::select! {
                    _ = cancel.cancelled() => break,
                    _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                }
            }
        }
        Inbound::Imap(settings) => imap_loop(&app, &settings, &cancel).await,
    }
    tracing::info!("intake stopped");
    Ok(())
}

/// Connect, read everything new, then IDLE (or poll); reconnect with backoff on errors.
async fn imap_loop(app: &App, s: &ImapSettings, cancel: &CancellationToken) {
    let mut backoff = Duration::from_secs(1);
    let poll = Duration::from_secs(s.poll_seconds);
    while !cancel.is_cancelled() {
        let session = tokio::select! {
            _ = cancel.cancelled() => return,
            r = ImapSession::connect(&s.params) => r,
        };
        let mut session = match session {
            Ok(sess) => {
                tracing::info!(host = %s.params.host, "IMAP connected");
                sess
            }
            Err(e) => {
                let problem = match app.cfg.imap_server() {
                    Some(server) => intake::explain_transport(&server, &e),
                    None => e.to_string(),
                };
                tracing::warn!(detail = %e, retry_in = ?backoff, "IMAP connect failed: {problem}");
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    _ = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(Duration::from_secs(300));
                continue;
            }
        };
        loop {
            if cancel.is_cancelled() {
                let _ = session.logout().await;
                return;
            }
            // Stopping drops a batch in hand uncommitted (it may be handled as it is
            // stored, which takes a while): nothing of it was flagged yet.
            app.health.intake(true);
            let taken = tokio::select! {
                _ = cancel.cancelled() => return,
                r = intake::imap_once(app, &mut session, s.fetch_batch) => r,
            };
            app.health.intake(false);
            app.wake.notify_one();
            if let Err(e) = taken {
                let problem = intake::explain(app, &e);
                tracing::warn!(detail = %e, retry_in = ?backoff, "IMAP fetch failed: {problem}; reconnecting");
                break;
            }
            backoff = Duration::from_secs(1);
            if s.idle && session.has_idle() {
                let waited = tokio::select! {
                    _ = cancel.cancelled() => return,
                    r = session.wait_for_change(poll) => r,
                };
                match waited {
                    Ok((sess, _changed)) => session = sess,
                    Err(e) => {
                        tracing::warn!(error = %e, "IMAP IDLE failed; reconnecting");
                        break;
                    }
                }
            } else {
                tokio::select! {
                    _ = cancel.cancelled() => { let _ = session.logout().await; return; }
                    _ = tokio::time::sleep(poll) => {}
                }
            }
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(Duration::from_secs(300));
    }
}

#[cfg(test)]
mod tests {
    use super::Health;

    #[test]
    fn the_worker_counts_as_stuck_after_three_failed_steps_in_a_row() {
        let h = Health::default();
        assert_eq!(h.stuck(), None);
        h.started();
        h.finished(Some("database is locked".into()));
        h.finished(Some("database is locked".into()));
        assert_eq!(h.stuck(), None, "a busy database is retried first");
        h.finished(Some("database is locked".into()));
        assert!(h.stuck().is_some_and(|s| s.contains("database is locked")));
        h.finished(None);
        assert_eq!(h.stuck(), None);
    }
}

//! `pbemd run`: the daemon. Three loops share one `App`: intake (IMAP IDLE or polling,
//! or a Maildir poll), the worker (handle mail, fire the schedule, deliver, send), and
//! the HTTP server (webhook, health, metrics). SIGTERM/SIGINT cancel a token; each loop
//! stops between units of work, so nothing is left half done.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{courier, intake, process, scheduler, sender, App, Result};
use crate::config::{ImapSettings, Inbound};
use crate::transport::imap::ImapSession;
use crate::transport::maildir::Maildir;

/// Longest sleep of the worker between checks (catches clock jumps and due retries).
const WORKER_MAX_SLEEP: Duration = Duration::from_secs(30);

/// Run until `cancel` fires.
pub async fn run(app: Arc<App>, cancel: CancellationToken) -> anyhow::Result<()> {
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
    while let Some(res) = tasks.join_next().await {
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
        None => Ok(()),
    }
}

async fn worker_loop(app: Arc<App>, cancel: CancellationToken) -> anyhow::Result<()> {
    let mut backoff = Duration::from_secs(1);
    while !cancel.is_cancelled() {
        match worker_once(&app).await {
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
        let sleep = next_wake(&app).await.unwrap_or(WORKER_MAX_SLEEP);
        tokio::select! {
            _ = cancel.cancelled() => break,
            _ = app.wake.notified() => {}
            _ = tokio::time::sleep(sleep) => {}
        }
    }
    tracing::info!("worker stopped");
    Ok(())
}

/// One unit of each kind of work; true when any was done.
async fn worker_once(app: &App) -> Result<bool> {
    let mut busy = process::process_once(app).await?;
    if app.cfg.courier.mode == crate::config::CourierMode::Immediate {
        busy |= courier::batch_now(app).await?.decided > 0;
    }
    let now = app.now();
    busy |= !scheduler::fire_due(app, now).await?.events.is_empty();
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
                tracing::warn!(error = %e, retry_in = ?backoff, "IMAP connect failed");
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
            if let Err(e) = intake::imap_once(app, &mut session, s.fetch_batch).await {
                tracing::warn!(error = %e, "IMAP fetch failed; reconnecting");
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

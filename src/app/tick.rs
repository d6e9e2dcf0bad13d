//! `pbemd tick --now T`: one full pass as if the time were T — ingest every waiting
//! mail (received at T), handle it, fire every due schedule event up to T in order,
//! make due deliveries, flush the outbox — then return what was done.

use chrono::{DateTime, Utc};

use super::{courier, intake, process, scheduler, sender, App, AppError, Result};
use crate::config::Inbound;
use crate::transport::imap::ImapSession;
use crate::transport::maildir::Maildir;

/// What one tick did.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct TickReport {
    pub stored: usize,
    pub handled: usize,
    pub events: Vec<String>,
    pub delivered: usize,
    pub sent: usize,
    pub send_failures: usize,
}

/// Refuse a `now` before the game's latest one: the game's time never runs backwards.
pub async fn check_monotonic(app: &App, now: DateTime<Utc>) -> Result<()> {
    let mut conn = app.store.conn().await?;
    let last = scheduler::last_now(app, &mut conn).await?;
    if now < last {
        return Err(AppError::Refused(format!(
            "--now {} is before the game's latest time {}; the game's time never runs backwards",
            app.game_time(now),
            app.game_time(last)
        )));
    }
    Ok(())
}

/// One full pass at the app clock's `now`.
pub async fn tick(app: &App) -> Result<TickReport> {
    let now = app.now();
    check_monotonic(app, now).await?;
    let stored = match &app.cfg.inbound {
        Inbound::Maildir(dir) => intake::maildir_once(app, &Maildir::open(dir)?).await?,
        Inbound::Imap(i) => {
            let mut s = ImapSession::connect(&i.params).await?;
            let n = intake::imap_once(app, &mut s, i.fetch_batch).await?;
            let _ = s.logout().await;
            n
        }
    };
    let handled = process::process_all(app).await?;
    let mut delivered = 0;
    if app.cfg.courier.mode == crate::config::CourierMode::Immediate {
        delivered += courier::batch_now(app).await?.delivered;
    }
    let fired = scheduler::fire_due(app, now).await?;
    delivered += fired.delivered;
    let events = fired
        .events
        .into_iter()
        .map(|d| format!("{} {}", app.game_time(d.at), d.name))
        .collect();
    let (sent, send_failures) = sender::flush_all(app).await?;
    Ok(TickReport {
        stored,
        handled,
        events,
        delivered,
        sent,
        send_failures,
    })
}

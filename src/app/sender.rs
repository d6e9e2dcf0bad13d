//! The sender: takes due rows from the outbox, sends them over SMTP or into the outbox
//! Maildir, and records the outcome. A failure is retried with exponential backoff and
//! is visible to the GM (`pbemd gm queue`); after `max_attempts` the row is marked
//! failed. Rows are leased while being sent, so no transaction is held across the
//! network and two replicas never send the same row.

use chrono::Duration;
use tracing::Instrument;

use super::{App, Result, Sink};
use crate::clock;
use crate::store::outbox;
use crate::transport::TransportError;

/// How long a claimed row is reserved for this sender.
pub(crate) const LEASE_SECONDS: i64 = 120;
/// Rows claimed per round trip to the database.
const BATCH: i64 = 64;

/// Send one batch of due mail. Returns (sent, failed attempts). Without the SMTP
/// password (its variable unset here) nothing is sent: the mail waits in the outbox
/// for `pbemd run` or `pbemd tick`, which need the password ([`flush_all`] says so).
pub async fn flush_once(app: &App) -> Result<(usize, usize)> {
    if app.cfg.outbound_secret_missing().is_some() {
        return Ok((0, 0));
    }
    let now = app.now();
    let now_ms = clock::to_ms(now);
    let mut tx = app.store.begin().await?;
    let rows = outbox::claim_due(
        &app.store,
        &mut tx,
        now_ms,
        BATCH,
        clock::to_ms(now + Duration::seconds(LEASE_SECONDS)),
    )
    .await?;
    tx.commit()
        .await
        .map_err(|e| crate::store::StoreError::Query {
            what: "commit an outbox claim",
            source: e,
        })?;
    let (mut sent, mut failed) = (0, 0);
    for row in rows {
        let span = tracing::info_span!(
            "send",
            game = %app.cfg.game_name,
            outbox_id = row.id,
            kind = %row.kind,
            message_id = %row.message_id,
        );
        let outcome = send(app, &row).instrument(span).await;
        let mut conn = app.store.conn().await?;
        match outcome {
            Ok(()) => {
                outbox::mark_sent(&mut conn, row.id, clock::to_ms(app.now())).await?;
                tracing::info!(outbox_id = row.id, kind = %row.kind, to = ?row.to_addrs, "mail sent");
                sent += 1;
            }
            Err(e) => {
                let attempts = row.attempts + 1;
                // A wrong password or a refused TLS is the setup's fault: the mail
                // waits and is retried with backoff; only a refusal of the message
                // itself gives it up at once.
                let permanent = e.refuses_the_message();
                let give_up = permanent || attempts >= app.cfg.outbox.max_attempts;
                let delay = backoff(app, attempts);
                let problem = explain(app, &e);
                outbox::mark_attempt_failed(
                    &mut conn,
                    row.id,
                    &problem,
                    clock::to_ms(app.now() + delay),
                    give_up,
                )
                .await?;
                tracing::warn!(
                    outbox_id = row.id,
                    attempts,
                    give_up,
                    retry_in = ?(!give_up).then_some(delay.num_seconds()),
                    detail = %e,
                    "send failed: {problem}"
                );
                failed += 1;
            }
        }
    }
    Ok((sent, failed))
}

/// A failure to send as the GM reads it: the SMTP server's name and what to fix
/// ([`crate::transport::diagnose::explain`]), the same words `check-config` uses.
pub fn explain(app: &App, e: &TransportError) -> String {
    match app.cfg.smtp_server() {
        Some(s) => format!(
            "{}: {}",
            s.name(),
            crate::transport::diagnose::explain(e, &s)
        ),
        None => e.to_string(),
    }
}

/// Send until nothing due is left (or only failing rows remain for later). Without
/// the SMTP password nothing is sent, and a warning says where the mail waits.
pub async fn flush_all(app: &App) -> Result<(usize, usize)> {
    if let Some(why) = app.cfg.outbound_secret_missing() {
        let mut conn = app.store.conn().await?;
        let (_, _, pending) = outbox::counts(&mut conn).await?;
        if pending > 0 {
            tracing::warn!(
                "{pending} mail(s) wait in the outbox, not sent from here: {why}; `pbemd run` \
                 (or `pbemd tick`) sends them with the password"
            );
        }
        return Ok((0, 0));
    }
    let (mut sent, mut failed) = (0, 0);
    loop {
        let (s, f) = flush_once(app).await?;
        sent += s;
        failed += f;
        if s == 0 {
            return Ok((sent, failed));
        }
    }
}

/// `retry_base · 2^(attempts-1)`, capped.
fn backoff(app: &App, attempts: i64) -> Duration {
    let base = app.cfg.outbox.retry_base_seconds.max(1);
    let exp = (attempts - 1).clamp(0, 20) as u32;
    Duration::seconds((base.saturating_mul(1i64 << exp)).min(app.cfg.outbox.retry_max_seconds))
}

async fn send(app: &App, row: &outbox::Pending) -> Result<(), TransportError> {
    match &app.sink {
        Sink::Maildir(md) => md.deliver(&row.message_id, &row.raw).map(|_| ()),
        Sink::Smtp(smtp) => {
            let mut s = smtp.lock().await;
            s.send_raw(&row.from_addr, &row.to_addrs, &row.raw).await
        }
    }
}

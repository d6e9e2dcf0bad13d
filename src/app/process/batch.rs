//! Stored mail handled in batches: one transaction claims up to [`HANDLE_BATCH`] mails
//! in order of receipt and handles them all. The common mail — an envoy, merchant or
//! spy accepted for the courier — is read and checked for every mail first, and its
//! message rows and audit events are written for many mails in one statement each.
//! Every other mail (a form, a refusal, a mail to the GM, a doubtful sender …) is
//! handled by the one-mail code in a savepoint of the batch, and when it fails (an
//! error or a panic) only its savepoint is rolled back and it alone is parked for the
//! GM. If writing the batch fails, the batch is rolled back and its mails are handled
//! one transaction each, so a mail that cannot be written is parked alone.
//!
//! A batch fetched over IMAP is handled in the transaction that stores it
//! ([`may_handle_in_store`], [`handle_in_store`]) when time order allows, so its inbox
//! rows are written once, already handled, and never read back; otherwise it waits for
//! the worker.

use std::collections::HashMap;

use tracing::Instrument;

use super::{
    abandon, fault, handle_unit, mail_span, park_in, read_mail, route_accepted, write_queued,
    QueueRow,
};
use crate::app::courier::{self, BatchReport};
use crate::app::{scheduler, season_calendar, App, AppError, Result};
use crate::clock::{self, from_ms};
use crate::config::CourierMode;
use crate::courier::Route;
use crate::game::GameState;
use crate::mail::classify::Classified;
use crate::store::messages::{NewMessage, QueuedMessage};
use crate::store::{inbox, messages, Conn, StoreError};

/// How many stored mails one transaction handles at most.
pub const HANDLE_BATCH: usize = 500;

/// Handle up to [`HANDLE_BATCH`] stored mails received before `before` (ms), if
/// given, in one transaction. Returns how many were handled (parked ones included).
pub async fn process_batch_before(app: &App, before: Option<i64>) -> Result<usize> {
    Ok(batch_before(app, before, false).await?.0)
}

/// [`process_batch_before`], and in `immediate` mode the courier batch after it in the
/// same transaction (unless the game stands still), so the messages the batch queued
/// are decided without a second transaction. The report is `None` when no courier
/// batch ran with it (another mode, the game standing still, or a batch that failed
/// and was handled one mail at a time): the caller runs one itself if it wants one.
pub async fn process_and_route_before(
    app: &App,
    before: Option<i64>,
) -> Result<(usize, Option<BatchReport>)> {
    let route = app.cfg.courier.mode == CourierMode::Immediate;
    batch_before(app, before, route).await
}

async fn batch_before(
    app: &App,
    before: Option<i64>,
    route: bool,
) -> Result<(usize, Option<BatchReport>)> {
    let mut tx = app.store.begin_write().await?;
    let waiting = inbox::claim_batch_before(&app.store, &mut tx, before, HANDLE_BATCH).await?;
    if waiting.is_empty() {
        return Ok((0, None));
    }
    crate::store::lease::game_lock(&app.store, &mut tx).await?;
    // The courier can take the batch's messages from memory when no other waits.
    let known = match route {
        true => (!messages::any_queued(&mut tx).await?).then(Vec::new),
        false => None,
    };
    let handled = fault::guarded(handle_all(app, &mut tx, &waiting, known, false)).await;
    let routed = match handled {
        Ok(queued) if route => route_handled(app, &mut tx, queued).await,
        Ok(_) => Ok(None),
        Err(failed) => Err(failed),
    };
    match routed {
        Ok(mut report) => {
            tx.commit().await.map_err(|e| StoreError::Query {
                what: "commit a batch of handled mail",
                source: e,
            })?;
            if let Some(saved) = report.as_mut().and_then(|r| r.saved.take()) {
                app.remember_state(saved);
            }
            tracing::info!(mails = waiting.len(), "batch of mail handled");
            app.wake.notify_one();
            Ok((waiting.len(), report))
        }
        Err(fault::Failed::Machine(e)) => {
            abandon(app, tx).await;
            Err(e)
        }
        Err(fault::Failed::Unit(error)) => {
            abandon(app, tx).await;
            tracing::warn!(%error, "a batch of mail failed; handling its mails one at a time");
            let mut n = 0;
            while n < waiting.len() && super::process_once_before(app, before).await? {
                n += 1;
            }
            Ok((n, None))
        }
    }
}

/// Whether a batch of mail about to be stored, received from `first` to `latest` (ms),
/// may be handled in the transaction that stores it ([`handle_in_store`]): only when
/// the worker would take it next as one batch, that is when no stored mail waits, the
/// game does not stand still (now, at the first mail's receipt, or from any instant up
/// to the last one's), and no schedule event nor the pause's end is due at or before
/// the last one. Takes the game lock (PostgreSQL) for the rest of `tx`.
pub async fn may_handle_in_store(
    app: &App,
    tx: &mut Conn,
    (first, latest): (i64, i64),
) -> Result<bool> {
    crate::store::lease::game_lock(&app.store, tx).await?;
    // A game not started yet stores its mail for later, as before.
    let (gs, last) = match app.state(tx).await {
        Ok((_, gs)) => (gs, scheduler::last_now(app, tx).await?),
        Err(AppError::NotStarted) => return Ok(false),
        Err(e) => return Err(e),
    };
    Ok(
        in_time_order(app, &gs, last, (from_ms(first), from_ms(latest)))
            && inbox::waiting_count(tx).await? == 0,
    )
}

/// Handle the mails a batch has just stored (`stored`, each new, written as handled
/// already), inside the transaction that stores them, before it commits, once
/// [`may_handle_in_store`] said so: they are not read back nor marked again. The
/// worker's code does it ([`handle_all`], and in `immediate` mode the courier batch
/// after it): a mail that fails is parked alone as there. When the batch itself fails
/// (`Err`), the caller rolls the whole transaction back and stores the batch again
/// for the worker.
pub async fn handle_in_store(
    app: &App,
    tx: &mut Conn,
    mut stored: Vec<inbox::Waiting>,
) -> std::result::Result<(usize, Option<BatchReport>), fault::Failed> {
    if stored.is_empty() {
        return Ok((0, None));
    }
    // In the worker's order of receipt (an IMAP batch comes in order of UID).
    stored.sort_by_key(|w| (w.received_at, w.id));
    let route = app.cfg.courier.mode == CourierMode::Immediate;
    let known = match route {
        true => (!messages::any_queued(tx)
            .await
            .map_err(|e| fault::Failed::Machine(e.into()))?)
        .then(Vec::new),
        false => None,
    };
    let report = match fault::guarded(handle_all(app, tx, &stored, known, true)).await? {
        queued if route => route_handled(app, tx, queued).await?,
        _ => None,
    };
    tracing::info!(mails = stored.len(), "batch of mail handled as stored");
    Ok((stored.len(), report))
}

/// Whether mail received from `first` to `latest` is handled now, in one batch, by
/// the time order of [`crate::app::tick::step_as`]: the game stands still neither now
/// nor at any instant from `first` to `latest`, and nothing is due from the game's
/// latest time `last` up to `latest` (a schedule event, the pause's end).
fn in_time_order(
    app: &App,
    gs: &GameState,
    last: chrono::DateTime<chrono::Utc>,
    (first, latest): (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>),
) -> bool {
    let still_now = season_calendar::no_game_at(app, gs, app.now()).is_some();
    let still_between = season_calendar::handled_at(app, gs, first) != first
        || season_calendar::next_still_after(app, gs, first).is_some_and(|s| s <= latest);
    let due = app
        .schedule
        .next_after(last)
        .map(|d| d.at)
        .into_iter()
        .chain(season_calendar::resume_at(gs))
        .min();
    !still_now && !still_between && due.is_none_or(|at| latest < at)
}

/// The courier batch after a handled batch, in its transaction: `None` while the game
/// stands still (nothing goes out; the first batch after it decides what waits).
/// Messages that fail are parked by the courier itself; an error here is the
/// machine's, and the whole transaction is abandoned.
async fn route_handled(
    app: &App,
    tx: &mut Conn,
    queued: Option<Vec<QueuedMessage>>,
) -> std::result::Result<Option<BatchReport>, fault::Failed> {
    let run = async {
        if crate::app::season_calendar::stands_still(app, tx).await? {
            return Ok(None);
        }
        let now = app.now();
        match queued {
            Some(queued) => courier::run_queued(app, tx, now, queued).await.map(Some),
            None => courier::run_batch(app, tx, now).await.map(Some),
        }
    };
    run.await.map_err(fault::Failed::Machine)
}

/// The messages a batch queued for the courier, in order of receipt, while all of them
/// are known here (`None` once a mail went the one-mail way, which may queue its own).
type Known = Option<Vec<QueuedMessage>>;

/// Handle every mail of a batch inside `tx`; `known` (when `Some`) gathers the
/// messages it queues. `stored_done`: the mails were stored as handled already (so the
/// common ones are not marked again).
async fn handle_all(
    app: &App,
    tx: &mut Conn,
    waiting: &[inbox::Waiting],
    mut known: Known,
    stored_done: bool,
) -> Result<Known> {
    let (_, mut gs) = app.state(tx).await?;
    let mut rows: Vec<QueueRow> = Vec::new();
    let by_id: HashMap<i64, &inbox::Waiting> = waiting.iter().map(|w| (w.id, w)).collect();
    let mut plans = plan_all(app, &gs, waiting);
    for (i, w) in waiting.iter().enumerate() {
        match plans[i].take() {
            Some(row) => rows.push(row),
            // Anything else (and a mail whose reading panicked, to be parked with the
            // panic's text) goes the one-mail way, after the rows so far are written,
            // so every row keeps the order of receipt.
            None => {
                write_rows(app, tx, &mut rows, &by_id, &mut known, stored_done).await?;
                known = None;
                one_in_savepoint(app, tx, w)
                    .instrument(mail_span(app, w))
                    .await?;
                // The mails after it are read again against the state it left, if
                // it changed it.
                let now = app.state(tx).await?.1;
                if !std::sync::Arc::ptr_eq(&now, &gs) {
                    gs = now;
                    let rest = plan_all(app, &gs, &waiting[i + 1..]);
                    plans.truncate(i + 1);
                    plans.extend(rest);
                }
            }
        }
    }
    write_rows(app, tx, &mut rows, &by_id, &mut known, stored_done).await?;
    Ok(known)
}

/// [`plan`] of every mail, in order, read on the machine's cores at once; `None` also
/// for a mail whose reading panicked (it goes the one-mail way and is parked there).
fn plan_all(app: &App, gs: &GameState, waiting: &[inbox::Waiting]) -> Vec<Option<QueueRow>> {
    crate::app::par::map_runs(waiting, |run| {
        run.iter()
            .map(|w| {
                mail_span(app, w).in_scope(|| {
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| plan(app, gs, w)))
                        .ok()
                        .flatten()
                })
            })
            .collect::<Vec<_>>()
    })
    .concat()
}

/// The message row of a mail the courier will decide, when the mail is one (accepted,
/// its sender proven, routed to the courier's queue); `None` for every other mail.
fn plan(app: &App, gs: &GameState, w: &inbox::Waiting) -> Option<QueueRow> {
    fault::mail_hook(&w.raw).ok()?;
    let read = read_mail(app, gs, &w.raw, w.size).ok()?;
    let Classified::Accepted {
        realm,
        lang,
        subject: sub,
    } = &read.classified
    else {
        return None;
    };
    if read.auth.doubt(app.cfg.sender_check, gs, realm).is_some() {
        return None;
    }
    let received_at = from_ms(w.received_at);
    if route_accepted(app, gs, realm, sub, received_at) != Route::Queue {
        return None;
    }
    let body = super::body_of(&read.mail, sub.kind);
    let base = NewMessage {
        inbox_id: w.id,
        kind: super::kind_str(sub.kind),
        realm: Some(realm),
        to_realm: sub.to.as_deref(),
        lang: Some(lang.code()),
        from_addr: read.mail.from_addr.as_deref(),
        subject: &read.subject,
        body: &body,
        round: gs.round as i64,
        at: clock::to_ms(app.now()),
        ..Default::default()
    };
    Some(QueueRow::new(app, &base, sub.kind))
}

/// Write the rows gathered so far and mark their mails handled; the queued ones join
/// `known`, if kept.
async fn write_rows(
    app: &App,
    tx: &mut Conn,
    rows: &mut Vec<QueueRow>,
    by_id: &HashMap<i64, &inbox::Waiting>,
    known: &mut Known,
    stored_done: bool,
) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    fault::batch_hook(rows.iter().map(|r| r.subject.as_str()))?;
    let message_ids = write_queued(tx, rows).await?;
    let ids: Vec<i64> = rows.iter().map(|r| r.inbox_id).collect();
    let done = clock::to_ms(app.now());
    if !stored_done {
        inbox::mark_done_many(tx, &ids, done).await?;
    }
    for w in ids.iter().filter_map(|id| by_id.get(id)) {
        let waited = done.saturating_sub(w.received_at).max(0) as f64 / 1000.0;
        app.metrics.handling.observe(waited);
    }
    match known {
        Some(known) => {
            let queued = rows.drain(..).zip(message_ids);
            known.extend(queued.filter_map(|(r, id)| r.into_queued(id, by_id)));
        }
        None => rows.clear(),
    }
    Ok(())
}

/// Handle one mail the one-mail way in a savepoint of the batch: kept when it worked;
/// rolled back and the mail parked (in the batch) when it failed.
async fn one_in_savepoint(app: &App, tx: &mut Conn, w: &inbox::Waiting) -> Result<()> {
    let store_err = |what| move |source| StoreError::Query { what, source };
    let mut sp = sqlx::Connection::begin(&mut *tx)
        .await
        .map_err(store_err("start a mail's savepoint"))?;
    match fault::guarded(handle_unit(app, &mut sp, w)).await {
        Ok(()) => {
            sp.commit()
                .await
                .map_err(store_err("keep a mail's savepoint"))?;
            tracing::info!("mail handled");
            Ok(())
        }
        Err(failed) => {
            let _ = sp.rollback().await;
            app.forget_state();
            match failed {
                fault::Failed::Machine(e) => Err(e),
                fault::Failed::Unit(error) => park_in(app, tx, w, &error).await,
            }
        }
    }
}

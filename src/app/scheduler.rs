//! Fire the schedule's events: every event with `last_now < at <= now`, in order, each
//! exactly once (the store's `(name, at)` key is claimed in the same transaction as the
//! event's effects). After downtime, one call catches up in order. `last_now` moves
//! only after the whole batch, so a crash midway through several events that share an
//! instant repeats none and skips none.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::{App, AppError, Result};
use crate::clock::{self, from_ms};
use crate::mail::compose::Outgoing;
use crate::render::FormContext;
use crate::schedule::{Due, EventKind, Window};
use crate::store::{events, meta, schedule, Conn};

/// The instant up to which events have fired.
pub async fn last_now(app: &App, conn: &mut Conn) -> Result<DateTime<Utc>> {
    let ms = match meta::get_i64(conn, meta::LAST_NOW).await? {
        Some(ms) => ms,
        None => meta::get_i64(conn, meta::STARTED_AT)
            .await?
            .ok_or(AppError::NotStarted)?,
    };
    let _ = app;
    Ok(from_ms(ms))
}

/// Fire everything due up to `now`; returns the events fired.
pub async fn fire_due(app: &App, now: DateTime<Utc>) -> Result<Vec<Due>> {
    let mut conn = app.store.conn().await?;
    let last = last_now(app, &mut conn).await?;
    drop(conn);
    if now <= last {
        return Ok(vec![]);
    }
    let mut fired = Vec::new();
    for due in app.schedule.due(last, now) {
        let mut tx = app.store.begin().await?;
        let claimed = schedule::claim(
            &mut tx,
            &due.name,
            due.kind.as_str(),
            clock::to_ms(due.at),
            clock::to_ms(app.now()),
        )
        .await?;
        if !claimed {
            continue;
        }
        let span = tracing::info_span!("schedule", event = %due.name, at = %due.at);
        let _g = span.enter();
        apply(app, &mut tx, &due).await?;
        tx.commit()
            .await
            .map_err(|e| crate::store::StoreError::Query {
                what: "commit a schedule event",
                source: e,
            })?;
        tracing::info!("schedule event fired");
        fired.push(due);
    }
    let mut conn = app.store.conn().await?;
    meta::set(&mut conn, meta::LAST_NOW, &clock::to_ms(now).to_string()).await?;
    Ok(fired)
}

/// One event's effects, inside its transaction.
async fn apply(app: &App, conn: &mut Conn, due: &Due) -> Result<()> {
    let (version, gs) = app.state(conn).await?;
    let mut gs = (*gs).clone();
    let at = clock::to_ms(due.at);
    let round = gs.round as i64;
    let mut detail = json!({"name": due.name, "at": due.at});
    match due.kind {
        EventKind::Resolve => {
            // The weekend closes: its forms are final and the next round begins. The
            // rules engine that applies the orders plugs in here; until it does, the
            // state carries over unchanged and the event log says so.
            let with_form = crate::store::forms::realms_with_form(conn, round).await?;
            gs.round += 1;
            let reason = format!("weekend of round {round} closed; round {} begins", gs.round);
            app.save_state(conn, version, &gs, &reason).await?;
            detail["forms_from"] = json!(with_form);
            detail["orders_applied"] = json!(false);
        }
        EventKind::Results => {
            let deadline = app.schedule.next_closing(Window::Weekend, due.at);
            let mut sent = Vec::new();
            for realm in &gs.realms {
                if realm.emails.is_empty() {
                    continue;
                }
                let ctx = FormContext {
                    deadline_local: deadline
                        .map(|t| app.local(t, realm.language))
                        .unwrap_or_default(),
                    game_address: app.cfg.game_address.clone(),
                };
                let body = app.renderer.result_form(&gs, &realm.name, &ctx)?;
                let subject = match realm.language {
                    crate::game::Lang::Sv => format!("{} helgformulär", realm.name),
                    crate::game::Lang::En => format!("{} form", realm.name),
                };
                let o = Outgoing {
                    kind: "result_form",
                    dedup_key: format!("result:{}:{}:{}", gs.round, at, realm.name),
                    to: realm.emails.clone(),
                    subject,
                    body,
                    in_reply_to: None,
                };
                app.enqueue(conn, &o).await?;
                sent.push(realm.name.clone());
            }
            detail["result_forms"] = json!(sent);
        }
        EventKind::WeekdayOpen
        | EventKind::WeekdayClose
        | EventKind::FormOpen
        | EventKind::FormClose
        | EventKind::CourierBatch
        | EventKind::Reminder => {
            // Windows are read from the schedule itself (`window_at`), so opening and
            // closing change no state; courier batches and reminders act here once the
            // courier and form issues give them work. The firing is recorded either way.
        }
    }
    events::log(
        conn,
        clock::to_ms(app.now()),
        gs.round as i64,
        &format!("schedule_{}", due.kind.as_str()),
        None,
        None,
        &detail.to_string(),
    )
    .await?;
    Ok(())
}

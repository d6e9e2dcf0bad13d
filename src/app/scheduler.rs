//! Fire the schedule's events: every event with `last_now < at <= now`, in order, each
//! exactly once (the store's `(name, at)` key is claimed in the same transaction as the
//! event's effects). After downtime, one call catches up in order. `last_now` moves
//! only after the whole batch, so a crash midway through several events that share an
//! instant repeats none and skips none.

use chrono::{DateTime, Utc};
use serde_json::json;
use tracing::Instrument;

use super::{App, AppError, Result};
use crate::clock::{self, from_ms};
use crate::mail::compose::Outgoing;
use crate::schedule::{Due, EventKind};
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

/// What firing the due events did.
#[derive(Debug, Default)]
pub struct Fired {
    pub events: Vec<Due>,
    /// Envoys and merchants delivered by courier batches among them.
    pub delivered: usize,
}

/// Fire everything due up to `now`; returns the events fired.
pub async fn fire_due(app: &App, now: DateTime<Utc>) -> Result<Fired> {
    let mut conn = app.store.conn().await?;
    let last = last_now(app, &mut conn).await?;
    // Reading the state brings the schedule up to the calendar (pauses, extensions).
    app.state(&mut conn).await?;
    drop(conn);
    // A pause whose end has passed ends (exactly once) before anything later fires.
    super::season_calendar::resume_due(app, last).await?;
    if now <= last {
        return Ok(Fired::default());
    }
    let mut fired = Fired::default();
    let dues = app.schedule.due(last, now);
    for (k, due) in dues.iter().enumerate() {
        let due = due.clone();
        // Whether another event falls on this one's instant after it: the game's
        // latest time may then only reach the instant before (everything up to it is
        // done), so a crash between the two leaves the second due.
        let shared = dues.get(k + 1).is_some_and(|n| n.at == due.at);
        super::season_calendar::resume_due(app, due.at).await?;
        let mut tx = app.store.begin().await?;
        // Replicas: wait for a mail another replica is handling (it was received
        // before this event, or it would not have been claimed) to commit first.
        crate::store::lease::game_lock(&app.store, &mut tx).await?;
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
        let span = tracing::info_span!(
            "schedule",
            game = %app.cfg.game_name,
            event = %due.name,
            at = %due.at,
        );
        let applied = apply(app, &mut tx, &due).instrument(span.clone()).await?;
        fired.delivered += applied.delivered;
        // The game's latest time moves with the event, in its transaction: mail stored
        // after it commits is never taken as received before it (`intake`). Events
        // fire in (latest time, now], so the time stops short of an instant whose
        // events are not all done yet.
        let at = clock::to_ms(due.at) - i64::from(shared);
        if meta::get_i64(&mut tx, meta::LAST_NOW)
            .await?
            .is_none_or(|t| t < at)
        {
            meta::set(&mut tx, meta::LAST_NOW, &at.to_string()).await?;
        }
        if due.kind == EventKind::Resolve {
            super::lease::pause_resolve_hook();
        }
        tx.commit()
            .await
            .map_err(|e| crate::store::StoreError::Query {
                what: "commit a schedule event",
                source: e,
            })?;
        // The state the event wrote is the next event's: kept, not read back and parsed
        // (a weekend's resolution and results each write the whole state).
        if let Some(saved) = applied.saved {
            app.remember_state(saved);
        }
        span.in_scope(|| tracing::info!("schedule event fired"));
        fired.events.push(due);
    }
    super::season_calendar::resume_due(app, now).await?;
    let mut conn = app.store.conn().await?;
    meta::set(&mut conn, meta::LAST_NOW, &clock::to_ms(now).to_string()).await?;
    Ok(fired)
}

/// What one event did: the mails it delivered, and the state it wrote (if it wrote one),
/// for the state cache once its transaction commits.
struct Applied {
    delivered: usize,
    saved: Option<super::SavedState>,
}

/// One event's effects, inside its transaction.
async fn apply(app: &App, conn: &mut Conn, due: &Due) -> Result<Applied> {
    if due.kind == EventKind::CourierBatch {
        // Everything queued up to this instant is decided now, in order of receipt.
        let mut r = super::courier::run_batch(app, conn, due.at).await?;
        let detail = json!({"name": due.name, "at": due.at, "decided": r.decided,
                            "delivered": r.delivered, "refused": r.refused});
        events::log(
            conn,
            clock::to_ms(app.now()),
            0,
            "schedule_courier_batch",
            None,
            None,
            &detail.to_string(),
        )
        .await?;
        return Ok(Applied {
            delivered: r.delivered,
            saved: r.saved.take(),
        });
    }
    // Read, not copied: an event's own changes to the state are saved by what it calls.
    let (_, gs) = app.state(conn).await?;
    let at = clock::to_ms(due.at);
    let round = gs.round as i64;
    // The round the event's audit record names: the next one once a weekend is resolved.
    let mut logged_round = round;
    let mut detail = json!({"name": due.name, "at": due.at});
    let mut saved = None;
    match due.kind {
        EventKind::Resolve if gs.phase == crate::game::state::Phase::Finished => {
            // A won game is not played on: nothing is resolved, the round stays.
            detail["skipped"] = json!("the game is finished");
        }
        EventKind::Resolve => {
            // The weekend closes: its forms are final, the engine resolves them, and
            // the next round begins, all in this event's transaction (exactly once).
            let reason = format!(
                "weekend of round {round} resolved; round {} begins",
                round + 1
            );
            // The GM's report goes with it, its deadlines those after this event.
            let r = super::weekend::resolve_round(app, conn, &reason, due.at).await?;
            logged_round = round + 1;
            detail["forms_from"] = json!(r.forms_from);
            detail["orders_applied"] = json!(true);
            detail["resolution"] = json!(r.id);
            detail["events"] = json!(r.events);
            saved = Some(r.saved);
        }
        EventKind::Results => {
            let mailed = super::weekend::results(app, conn, due.at).await?;
            detail["result_forms"] = json!(mailed.realms);
            if !mailed.had_opening.is_empty() {
                detail["opening_form_stands"] = json!(mailed.had_opening);
            }
            saved = mailed.saved;
        }
        EventKind::Reminder => {
            // Realms that have sent no form for this round get their current form
            // again, with the deadline.
            let with_form = crate::store::forms::realms_with_form(conn, round).await?;
            // Each realm is told its own deadline (a late one the GM gave another realm
            // is not its); `None`: the deadline of every realm given no late one.
            let deadline_of =
                |realm| super::season_calendar::form_deadline(app, &gs, realm, due.at);
            let passed = deadline_of(None).filter(|d| *d <= app.now());
            if let Some(passed) = passed {
                // A catch-up after downtime: a reminder for a deadline already gone
                // would only confuse; it is recorded as skipped instead.
                detail["skipped"] = json!(true);
                detail["reason"] = json!(format!(
                    "the deadline {} had passed when the reminder would have been sent ({})",
                    passed.to_rfc3339(),
                    app.now().to_rfc3339()
                ));
                events::log(
                    conn,
                    clock::to_ms(app.now()),
                    round,
                    "reminder_skipped",
                    None,
                    None,
                    &detail.to_string(),
                )
                .await?;
            }
            // The realms to remind, with their deadlines; the last weekend's events
            // are read, and indexed with the state once for all their forms (not once a
            // realm, which grew with the game's size squared), only when there are any.
            // The window of every realm given no late deadline, looked up once.
            let window = super::process::form_window(app, &gs, None, due.at);
            let event_at = due.at;
            let due: Vec<_> = gs
                .realms
                .iter()
                .filter(|r| !r.emails.is_empty() && !r.eliminated)
                // A realm away this weekend gets no reminder (docs/gm/season.md).
                .filter(|r| !super::season_realms::away(&gs, &r.name))
                .filter(|r| !with_form.contains(&r.name))
                .map(|r| (r, deadline_of(Some(&r.name))))
                .filter(|(_, deadline)| deadline.is_none_or(|d| d > app.now()))
                .collect();
            let mut reminded = Vec::new();
            if !due.is_empty() {
                let last_events = super::weekend::last_events(conn, &gs).await?;
                let index = crate::render::view::FormIndex::new(&gs, &last_events);
                for (realm, _) in due {
                    let lang = realm.language;
                    let listed = Some(app.cfg.render.realms_listed);
                    let ctx = super::process::form_context_knowing(
                        app,
                        &gs,
                        &realm.name,
                        event_at,
                        listed,
                        window,
                    );
                    let form = app.renderer.result_form_in(&index, &realm.name, &ctx)?;
                    let data = json!({"realm": realm.name, "round": round,
                        "deadline": ctx.deadline_local, "window": ctx.window_local, "form": form});
                    let o = Outgoing {
                        kind: "reminder",
                        dedup_key: format!("reminder:{round}:{at}:{}", realm.name),
                        to: realm.emails.clone(),
                        subject: form_subject(&realm.name, lang),
                        body: app.renderer.render("reminder", lang, &data)?,
                        in_reply_to: None,
                    };
                    app.enqueue(conn, &o).await?;
                    reminded.push(realm.name.clone());
                }
            }
            detail["reminded"] = json!(reminded);
        }
        EventKind::FormClose => {
            // After the deadline the GM learns who sent nothing (R-MAIL-12 keeps the
            // receipt times of those who did). With `forms.missing: reuse-last`, last
            // round's orders are checked again for those realms, and what the rules
            // still allow stands.
            let with_form = crate::store::forms::realms_with_form(conn, round).await?;
            let mut reused = Vec::new();
            if app.cfg.forms.missing == crate::config::MissingForm::ReuseLast {
                for realm in gs
                    .realms
                    .iter()
                    .filter(|r| !r.emails.is_empty() && !with_form.contains(&r.name))
                {
                    let Some(crate::store::forms::Standing {
                        message_id, body, ..
                    }) = crate::store::forms::standing(conn, &realm.name, round - 1).await?
                    else {
                        continue;
                    };
                    let checked = crate::forms::read_form(&gs, &realm.name, &body, &[]);
                    let orders = serde_json::to_string(&checked)
                        .map_err(|e| super::AppError::BadState(e.to_string()))?;
                    crate::store::forms::insert(
                        conn,
                        message_id,
                        &realm.name,
                        round,
                        at,
                        &body,
                        Some(&orders),
                    )
                    .await?;
                    let d = json!({"from_round": round - 1, "accepted": checked.accepted(), "refused": checked.refused()});
                    events::log(
                        conn,
                        at,
                        round,
                        "form_reused",
                        Some(&realm.name),
                        Some(message_id),
                        &d.to_string(),
                    )
                    .await?;
                    reused.push(format!(
                        "{} ({} of {})",
                        realm.name,
                        checked.accepted(),
                        checked.lines.len()
                    ));
                }
            }
            let players: Vec<&str> = gs
                .realms
                .iter()
                .filter(|r| !r.emails.is_empty() && !r.eliminated)
                .map(|r| r.name.as_str())
                .collect();
            // A realm away this weekend is not missing; the GM's list names it apart.
            let (away, players): (Vec<&str>, Vec<&str>) = players
                .into_iter()
                .partition(|r| super::season_realms::away(&gs, r));
            let without: Vec<&str> = players
                .iter()
                .copied()
                .filter(|r| !with_form.iter().any(|w| w == r))
                .collect();
            let list = |v: &[&str]| {
                if v.is_empty() {
                    "-".to_string()
                } else {
                    v.join(", ")
                }
            };
            let with: Vec<&str> = with_form.iter().map(String::as_str).collect();
            let data = json!({
                "round": round,
                "closed": app.local(due.at, crate::game::Lang::Sv),
                "sent": list(&with),
                "sent_count": with.len(),
                "missing": list(&without),
                "missing_count": without.len(),
                "reused": reused.join(", "),
                "away": away.join(", "),
            });
            let o = Outgoing {
                kind: "missing_forms",
                dedup_key: format!("missing_forms:{round}:{at}"),
                to: vec![app.cfg.gm_address.clone()],
                subject: format!(
                    "Helgformulär runda {round}: {} saknas / missing",
                    without.len()
                ),
                body: app
                    .renderer
                    .render("missing_forms", crate::game::Lang::Sv, &data)?,
                in_reply_to: None,
            };
            app.enqueue(conn, &o).await?;
            detail["without_form"] = json!(without);
            detail["reused"] = json!(reused);
            detail["away"] = json!(away);
        }
        EventKind::FormOpen => {
            // Forms kept early are checked again against the state as it is now.
            let rechecked = super::process::recheck_early_forms(app, conn, &gs, due.at).await?;
            if !rechecked.is_empty() {
                detail["early_forms_rechecked"] = json!(rechecked);
            }
        }
        EventKind::WeekdayOpen | EventKind::WeekdayClose | EventKind::CourierBatch => {
            // Windows are read from the schedule itself (`window_at`), so opening and
            // closing change no state; the firing is recorded either way.
        }
    }
    events::log(
        conn,
        clock::to_ms(app.now()),
        logged_round,
        &format!("schedule_{}", due.kind.as_str()),
        None,
        None,
        &detail.to_string(),
    )
    .await?;
    Ok(Applied {
        delivered: 0,
        saved,
    })
}

/// The subject of a mail that carries a realm's form: a plain reply to it classifies as
/// the realm's weekend form.
pub fn form_subject(realm: &str, lang: crate::game::Lang) -> String {
    match lang {
        crate::game::Lang::Sv => format!("{realm} helgformulär"),
        crate::game::Lang::En => format!("{realm} form"),
    }
}

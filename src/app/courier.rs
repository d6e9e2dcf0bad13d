//! Courier batches: the queued envoys, merchants, spies and GM requests are decided by
//! the pure courier (`courier::batch::route_batch`) in order of receipt, and the
//! decisions are applied in one transaction — the new state version, every message's
//! outcome, receipts and refusals to the senders, deliveries, stolen envoys, returned
//! envoys, spy reports, audit events and the dice rolls. In `immediate` mode a batch
//! runs after every batch of handled mail; in `batches` mode at the schedule's courier events.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::{fault, App, Result};
use crate::clock::{self, from_ms};
use crate::courier::batch::{self, Context, Decision, Dispatch, Outcome, Queued, Receipt};
use crate::courier::text::{goods_text, spy_report_lines};
use crate::game::dice::Dice;
use crate::game::text::MailKind;
use crate::game::{GameState, Lang};
use crate::mail::compose::Outgoing;
use crate::mail::subject::parse_subject;
use crate::store::messages::{self, state, QueuedMessage};
use crate::store::{events, Conn, StoreError};

/// What one batch did.
#[derive(Debug, Default, Clone)]
pub struct BatchReport {
    pub decided: usize,
    pub delivered: usize,
    pub refused: usize,
    /// The state version the batch wrote, if it wrote one: whoever commits the
    /// batch's transaction hands it to [`App::remember_state`].
    pub saved: Option<super::SavedState>,
}

fn kind_of(s: &str) -> Option<MailKind> {
    Some(match s {
        "envoy" => MailKind::Envoy,
        "merchant" => MailKind::Merchant,
        "spy" => MailKind::Spy,
        "to_gm" => MailKind::ToGm,
        _ => return None,
    })
}

impl BatchReport {
    fn add(&mut self, other: BatchReport) {
        self.decided += other.decided;
        self.delivered += other.delivered;
        self.refused += other.refused;
        if other.saved.is_some() {
            self.saved = other.saved;
        }
    }
}

/// Decide every queued message, inside the caller's transaction, as of `at`.
///
/// Each queued message is a unit of work: when the batch fails (an error or a panic),
/// it is rolled back and its messages are decided one at a time, in order of receipt;
/// a message that fails alone is parked for the GM with the error text and the others
/// go on.
pub async fn run_batch(app: &App, conn: &mut Conn, at: DateTime<Utc>) -> Result<BatchReport> {
    let waiting = messages::queued(&app.store, conn).await?;
    run_queued(app, conn, at, waiting).await
}

/// [`run_batch`] of `waiting`, which must be every queued message, in order of receipt
/// (a batch of handled mail passes the messages it just queued).
pub async fn run_queued(
    app: &App,
    conn: &mut Conn,
    at: DateTime<Utc>,
    waiting: Vec<QueuedMessage>,
) -> Result<BatchReport> {
    if waiting.is_empty() {
        return Ok(BatchReport::default());
    }
    let error = match in_savepoint(app, conn, at, &waiting).await? {
        Ok(r) => return Ok(r),
        Err(error) => error,
    };
    if let [only] = waiting.as_slice() {
        park_item(app, conn, only, &error).await?;
        return Ok(BatchReport::default());
    }
    tracing::warn!(%error, "a courier batch failed; deciding its messages one at a time");
    let mut report = BatchReport::default();
    for q in &waiting {
        match in_savepoint(app, conn, at, std::slice::from_ref(q)).await? {
            Ok(r) => report.add(r),
            Err(error) => park_item(app, conn, q, &error).await?,
        }
    }
    Ok(report)
}

/// Decide `items` in a savepoint of the caller's transaction, kept when it worked and
/// rolled back when it failed (the inner `Err` is the failure's text).
async fn in_savepoint(
    app: &App,
    conn: &mut Conn,
    at: DateTime<Utc>,
    items: &[QueuedMessage],
) -> Result<std::result::Result<BatchReport, String>> {
    let store_err = |what| move |source| StoreError::Query { what, source };
    let mut sp = sqlx::Connection::begin(&mut *conn)
        .await
        .map_err(store_err("start a courier savepoint"))?;
    match fault::guarded(decide_items(app, &mut sp, at, items)).await {
        Ok(r) => {
            sp.commit()
                .await
                .map_err(store_err("keep a courier savepoint"))?;
            Ok(Ok(r))
        }
        Err(failed) => {
            let _ = sp.rollback().await;
            app.forget_state();
            match failed {
                fault::Failed::Machine(e) => Err(e),
                fault::Failed::Unit(text) => Ok(Err(text)),
            }
        }
    }
}

/// Park a queued message whose decision failed: it waits for `gm retry` / `gm reject`.
async fn park_item(app: &App, conn: &mut Conn, q: &QueuedMessage, error: &str) -> Result<()> {
    let m = &q.message;
    tracing::error!(message = m.id, %error, "deciding a courier message failed; parked for the GM");
    let now = clock::to_ms(app.now());
    let error = fault::clean_text(error, 4000);
    messages::set_state(conn, m.id, state::PARKED, Some(&error), now).await?;
    events::log(
        conn,
        now,
        m.round,
        "unit_parked",
        m.realm.as_deref(),
        Some(m.id),
        &error,
    )
    .await?;
    Ok(())
}

/// Decide `waiting` as one batch, inside the caller's transaction, as of `at`.
async fn decide_items(
    app: &App,
    conn: &mut Conn,
    at: DateTime<Utc>,
    waiting: &[QueuedMessage],
) -> Result<BatchReport> {
    for q in waiting {
        fault::courier_hook(&q.message.subject)?;
    }
    let (version, before) = app.state(conn).await?;
    let mut gs = (*before).clone();
    let names: Vec<&str> = gs.realm_names();
    let queued: Vec<Queued> = waiting
        .iter()
        .filter_map(|q| {
            let m = &q.message;
            let received = from_ms(q.received_at);
            let kind = kind_of(&m.kind)?;
            Some(Queued {
                id: m.id as u64,
                kind,
                from: m.realm.clone()?,
                to: m.to_realm.clone(),
                // Only a mail to the GM has a topic the courier reads.
                topic: (kind == MailKind::ToGm)
                    .then(|| parse_subject(&m.subject, &names).ok().and_then(|s| s.topic))
                    .flatten(),
                body: m.body.clone(),
                received_at: received,
                window: app.schedule.window_at(received),
            })
        })
        .collect();
    // The courier's per-round bookkeeping travels in the state document, so a batch is
    // replayed from the state version it started from.
    let mut ctx = Context {
        now: at,
        contacts: std::mem::take(&mut gs.contacts),
        ledger: std::mem::take(&mut gs.courier),
    };
    // One dice stream per batch: the instant and the first mail it decides, so two
    // batches at the same instant (one per mail in live mode) do not share rolls.
    let first = waiting.iter().map(|q| q.message.id).min().unwrap_or(0);
    let purpose = format!("courier/{}/{first}", at.to_rfc3339());
    let mut dice = Dice::new(gs.game.seed, gs.round, &purpose);
    let decisions = batch::route_batch(&mut gs, &queued, &mut ctx, &mut dice);

    let mut report = apply_all(app, conn, &gs, waiting, &decisions).await?;
    let now = clock::to_ms(app.now());
    let round = gs.round as i64;
    let rolls = serde_json::to_string(dice.rolls()).unwrap_or_default();
    events::log(conn, now, round, "courier_dice", None, None, &rolls).await?;
    gs.contacts = ctx.contacts;
    gs.courier = ctx.ledger;
    // A batch that changed nothing (every mail refused: a flood) writes no new version,
    // so handling a mail stays a few small rows, not a copy of the whole state.
    if gs != *before {
        let reason = format!("courier batch at {}", at.to_rfc3339());
        let version = app.save_state(conn, version, &gs, &reason).await?;
        let state = std::sync::Arc::new(gs);
        report.saved = Some(super::SavedState { version, state });
    }
    Ok(report)
}

/// Apply every decision of a batch, with its audit events: the decisions are turned
/// into rows first, then written in a few statements for the whole batch.
async fn apply_all(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    waiting: &[QueuedMessage],
    decisions: &[Decision],
) -> Result<BatchReport> {
    let now = clock::to_ms(app.now());
    let round = gs.round as i64;
    // By id, so a batch of n messages (a flood in `batches` mode) is not n² lookups.
    let by_id: std::collections::HashMap<u64, &QueuedMessage> =
        waiting.iter().map(|q| (q.message.id as u64, q)).collect();
    // The replies and deliveries are rendered on the machine's cores at once, in runs
    // of decisions whose writes are joined in order.
    let runs = super::par::map_runs(decisions, |run| -> Result<(BatchReport, Writes)> {
        let mut report = BatchReport::default();
        let mut w = Writes::default();
        for d in run {
            let Some(&q) = by_id.get(&d.mail) else {
                continue;
            };
            report.decided += 1;
            apply(app, gs, q, d, &mut report, &mut w)?;
            for e in &d.events {
                w.events.push(events::NewEvent {
                    at: now,
                    round,
                    kind: "courier",
                    realm: Some(d.sender.clone()),
                    ref_id: Some(q.message.id),
                    detail: serde_json::to_string(e).unwrap_or_default(),
                });
            }
        }
        Ok((report, w))
    });
    let mut report = BatchReport::default();
    let mut w = Writes::default();
    for run in runs {
        let (r, more) = run?;
        report.add(r);
        w.append(more);
    }
    w.write(app, conn, now).await?;
    Ok(report)
}

/// What a batch's decisions write, gathered before anything is written.
#[derive(Default)]
struct Writes {
    /// Messages that went their way (`routed`), and that wait for the GM.
    routed: Vec<i64>,
    to_gm: Vec<i64>,
    /// Refused messages with the reason the sender was given.
    refused: Vec<(i64, String)>,
    /// Mail to queue in order: a reply names its sender's realm (it counts against the
    /// realm's hourly limit), other mail none.
    outgoing: Vec<(Option<String>, Outgoing)>,
    events: Vec<events::NewEvent>,
}

impl Writes {
    /// `more`'s writes after these.
    fn append(&mut self, mut more: Writes) {
        self.routed.append(&mut more.routed);
        self.to_gm.append(&mut more.to_gm);
        self.refused.append(&mut more.refused);
        self.outgoing.append(&mut more.outgoing);
        self.events.append(&mut more.events);
    }

    async fn write(self, app: &App, conn: &mut Conn, now: i64) -> Result<()> {
        messages::set_state_many(conn, &self.routed, state::ROUTED, now).await?;
        messages::set_state_many(conn, &self.to_gm, state::GM_QUEUE, now).await?;
        for (id, text) in &self.refused {
            messages::set_state(conn, *id, state::REFUSED, Some(text), now).await?;
        }
        let outgoing: Vec<(Option<&str>, &Outgoing)> = self
            .outgoing
            .iter()
            .map(|(r, o)| (r.as_deref(), o))
            .collect();
        super::season_notices::flood::enqueue_replies(app, conn, &outgoing).await?;
        events::log_many(conn, &self.events).await?;
        Ok(())
    }
}

/// Run a batch in its own transaction (immediate mode, `gm approve --now`).
pub async fn batch_now(app: &App) -> Result<BatchReport> {
    let mut tx = app.store.begin_write().await?;
    // Replicas: one batch at a time, after any unit of work another replica has open.
    crate::store::lease::game_lock(&app.store, &mut tx).await?;
    // While the game stands still (a pause, skipped dates) nothing goes out; the first
    // batch after it decides what waits.
    if super::season_calendar::stands_still(app, &mut tx).await? {
        return Ok(BatchReport::default());
    }
    let mut r = run_batch(app, &mut tx, app.now()).await?;
    tx.commit().await.map_err(|e| StoreError::Query {
        what: "commit a courier batch",
        source: e,
    })?;
    if let Some(saved) = r.saved.take() {
        app.remember_state(saved);
    }
    if r.decided > 0 {
        app.wake.notify_one();
    }
    Ok(r)
}

fn lang_of(gs: &GameState, realm: &str) -> Lang {
    gs.realm(realm).map(|r| r.language).unwrap_or_default()
}

fn addresses(gs: &GameState, realm: &str) -> Vec<String> {
    gs.realm(realm)
        .map(|r| r.emails.clone())
        .unwrap_or_default()
}

fn apply(
    app: &App,
    gs: &GameState,
    q: &QueuedMessage,
    d: &Decision,
    report: &mut BatchReport,
    w: &mut Writes,
) -> Result<()> {
    let m = &q.message;
    let sender_lang = lang_of(gs, &d.sender);
    let reply_subject = crate::mail::subject::reply_subject(&m.subject, sender_lang);
    match &d.outcome {
        Outcome::Refused(r) => {
            let next = crate::courier::window_for(kind_of(&m.kind).unwrap_or(MailKind::Envoy))
                .and_then(|w| app.schedule.next_opening(w, from_ms(q.received_at)))
                .map(|t| app.local(t, sender_lang));
            let text = r.explain(sender_lang, next.as_deref());
            let data = json!({"realm": d.sender, "subject": m.subject, "reason": text});
            let o = Outgoing {
                kind: "refusal",
                dedup_key: format!("refusal:{}", m.inbox_id),
                to: addresses(gs, &d.sender),
                subject: reply_subject.clone(),
                body: app.renderer.render_owned("refusal", sender_lang, data)?,
                in_reply_to: q.mail_message_id.clone(),
            };
            w.refused.push((m.id, text));
            w.outgoing.push((Some(d.sender.clone()), o));
            report.refused += 1;
        }
        Outcome::ToGm => w.to_gm.push(m.id),
        _ => w.routed.push(m.id),
    }
    if let Some(r) = &d.receipt {
        let o = Outgoing {
            kind: "courier_receipt",
            dedup_key: format!("courier_receipt:{}", m.id),
            to: addresses(gs, &d.sender),
            subject: reply_subject.clone(),
            // At the form's width: the stock line of a rich realm runs long.
            body: crate::game::text::wrap_hanging(
                &app.renderer.render_owned(
                    "courier_receipt",
                    sender_lang,
                    receipt_data(r, &d.sender, sender_lang),
                )?,
                crate::game::text::WIDTH,
                2,
            )
            .join("\n"),
            in_reply_to: q.mail_message_id.clone(),
        };
        w.outgoing.push((Some(d.sender.clone()), o));
    }
    for (i, dispatch) in d.dispatches.iter().enumerate() {
        if let Some(o) = dispatch_mail(app, gs, q, dispatch, i)? {
            if matches!(dispatch, Dispatch::Envoy { .. } | Dispatch::Merchant { .. }) {
                report.delivered += 1;
            }
            w.outgoing.push((None, o));
        }
    }
    Ok(())
}

/// The courier receipt template's data in `lang` (public for the language tests).
pub fn receipt_data(r: &Receipt, realm: &str, lang: Lang) -> serde_json::Value {
    use crate::courier::batch::Then;
    let sv = lang == Lang::Sv;
    let kind = match (r.kind, r.then, lang) {
        (_, Then::RevealResult, Lang::Sv) => "en begäran om Avslöja",
        (_, Then::RevealResult, Lang::En) => "a request for Reveal",
        (_, Then::HomeInvitation, Lang::Sv) => "en hembjudan",
        (_, Then::HomeInvitation, Lang::En) => "a home-invitation",
        (MailKind::Envoy, _, Lang::Sv) => "ett sändebud",
        (MailKind::Envoy, _, Lang::En) => "an envoy",
        (MailKind::Merchant, _, Lang::Sv) => "en handelsman",
        (MailKind::Merchant, _, Lang::En) => "a merchant",
        (MailKind::Spy, _, Lang::Sv) => "en spion",
        (MailKind::Spy, _, Lang::En) => "a spy",
        (_, _, Lang::Sv) => "ett brev",
        (_, _, Lang::En) => "a mail",
    };
    // A spy costs the spy itself, never resources (R-SPY-1); a free spy of the
    // voting winner costs nothing at all (R-SPY-11). Anything else: what was charged.
    let charged = match r.then {
        Then::SpyReport { .. } if sv => "en spion, inga resurser".to_string(),
        Then::SpyReport { .. } => "one spy, no resources".to_string(),
        Then::FreeSpyReport { .. } if sv => {
            "ingenting; spionen är en av härskarens fria spioner".to_string()
        }
        Then::FreeSpyReport { .. } => {
            "nothing; the spy is one of the ruler's free spies".to_string()
        }
        _ if r.charged.is_zero() && sv => "ingenting".to_string(),
        _ if r.charged.is_zero() => "nothing".to_string(),
        _ => r.charged.describe(lang),
    };
    let free = r.free && !matches!(r.then, Then::SpyReport { .. } | Then::FreeSpyReport { .. });
    let then = match (r.then, sv) {
        (Then::NotTold, true) => "Om budet kommer fram får ni inte veta.",
        (Then::NotTold, false) => "Whether it arrives, you are not told.",
        (Then::SpyReport { stationed: false } | Then::FreeSpyReport { stationed: false }, true) => {
            "Spionrapporten kommer i ett eget brev samtidigt med detta kvitto."
        }
        (Then::SpyReport { stationed: false } | Then::FreeSpyReport { stationed: false }, false) => {
            "The spy's report comes in a mail of its own with this receipt."
        }
        (Then::SpyReport { stationed: true } | Then::FreeSpyReport { stationed: true }, true) => {
            "Spionrapporten kommer i ett eget brev samtidigt med detta kvitto, och en till när spionen har försökt ta ett sändebud."
        }
        (Then::SpyReport { stationed: true } | Then::FreeSpyReport { stationed: true }, false) => {
            "The spy's report comes in a mail of its own with this receipt, and another when the spy has tried to take an envoy."
        }
        (Then::RevealResult, true) => "Resultatet kommer i ett eget brev samtidigt med detta kvitto.",
        (Then::RevealResult, false) => "The result comes in a mail of its own with this receipt.",
        (Then::HomeInvitation, true) => {
            "Trupperna kommer hem i helgens förflyttningar (steg 9) och kan inte flytta mer den rundan."
        }
        (Then::HomeInvitation, false) => {
            "The troops come home in the weekend's movement (step 9) and cannot move further that round."
        }
    };
    json!({
        "realm": realm,
        "kind": kind,
        "to": r.to.clone().unwrap_or_default(),
        "free": free,
        "charged": charged,
        "allowance_left": r.allowance_left,
        "stock_after": r.stock_after.describe(lang),
        "goods": r.goods.as_ref().map(|g| goods_text(g, lang)).unwrap_or_default(),
        "spies_left": r.spies_left.map(|n| n.to_string()).unwrap_or_default(),
        "then": then,
    })
}

/// The mail a dispatch becomes (none for mail that stays with the GM).
fn dispatch_mail(
    app: &App,
    gs: &GameState,
    q: &QueuedMessage,
    d: &Dispatch,
    i: usize,
) -> Result<Option<Outgoing>> {
    let key = format!("dispatch:{}:{i}", q.message.id);
    let sent = from_ms(q.received_at);
    let (to, template, subject, data) = match d {
        Dispatch::Envoy {
            to,
            shown_from,
            text,
            gift,
            invitation,
            ..
        } => {
            let lang = lang_of(gs, to);
            let subject = crate::mail::subject::delivery_subject(shown_from, lang);
            let data = json!({
                "reply_is_envoy": app.cfg.courier.reply_is_envoy,
                "from": shown_from,
                "to": to,
                "text": redact_addresses(text, gs),
                "sent": app.local(sent, lang),
                "gift": gift.as_ref().map(|g| goods_text(g, lang)).unwrap_or_default(),
                "invitation": invitation.map(|s| s.to_string()).unwrap_or_default(),
            });
            (to.clone(), "envoy_delivery", subject, data)
        }
        Dispatch::Merchant {
            to,
            from,
            text,
            sends,
            expects,
            ..
        } => {
            let lang = lang_of(gs, to);
            let subject = match lang {
                Lang::Sv => format!("Handelsman från {from}"),
                Lang::En => format!("Merchant from {from}"),
            };
            let data = json!({
                "from": from,
                "to": to,
                "text": redact_addresses(text, gs),
                "sent": app.local(sent, lang),
                "sends": goods_text(sends, lang),
                "expects": goods_text(expects, lang),
            });
            (to.clone(), "merchant_delivery", subject, data)
        }
        Dispatch::Stolen {
            thief,
            original_from,
            original_to,
            text,
            gift,
            invitation,
            may_forge_to,
            ..
        } => {
            let lang = lang_of(gs, thief);
            // The subject is the thief's own envoy form to the original recipient, so a
            // plain reply to this mail is the free forged envoy (R-SPY-8).
            let subject = match lang {
                Lang::Sv => format!("{thief} skickar ett sändebud till {may_forge_to}"),
                Lang::En => format!("{thief} sends an envoy to {may_forge_to}"),
            };
            let data = json!({
                "thief": thief,
                "from": original_from,
                "to": original_to,
                "text": redact_addresses(text, gs),
                "gift": gift.as_ref().map(|g| goods_text(g, lang)).unwrap_or_default(),
                "invitation": invitation.map(|s| s.to_string()).unwrap_or_default(),
                "forge_to": may_forge_to,
            });
            (thief.clone(), "stolen_envoy", subject, data)
        }
        Dispatch::Returned {
            to,
            original_to,
            text,
        } => {
            let lang = lang_of(gs, to);
            let subject = match lang {
                Lang::Sv => format!("Ert sändebud till {original_to} kom tillbaka"),
                Lang::En => format!("Your envoy to {original_to} came back"),
            };
            let data = json!({"realm": to, "to": original_to, "text": text});
            (to.clone(), "returned_envoy", subject, data)
        }
        Dispatch::SpyReport {
            owner,
            target,
            mission,
            result,
            ..
        } => {
            let lang = lang_of(gs, owner);
            let lines = spy_report_lines(result, lang);
            let subject = match lang {
                Lang::Sv => format!("Spionrapport: {target}"),
                Lang::En => format!("Spy report: {target}"),
            };
            let mission = crate::courier::text::mission_text(mission, target, lang);
            let data =
                json!({"realm": owner, "target": target, "mission": mission, "lines": lines});
            (owner.clone(), "spy_report", subject, data)
        }
        Dispatch::RevealResult {
            to, success, found, ..
        } => {
            let lang = lang_of(gs, to);
            let found = found
                .as_ref()
                .map(|(spell, caster)| format!("{} ({caster})", spell.name(lang)));
            let subject = match lang {
                Lang::Sv => "Avslöja: resultat".to_string(),
                Lang::En => "Reveal: result".to_string(),
            };
            let data = json!({"realm": to, "success": success, "found": found.unwrap_or_default()});
            (to.clone(), "reveal_result", subject, data)
        }
        Dispatch::ToGm { .. } => return Ok(None),
    };
    let lang = lang_of(gs, &to);
    Ok(Some(Outgoing {
        kind: template,
        dedup_key: key,
        to: addresses(gs, &to),
        subject,
        body: app.renderer.render_owned(template, lang, data)?,
        in_reply_to: None,
    }))
}

/// A realm's reply to an envoy delivered to it, settled (docs/reference/mail.md, A reply to
/// an envoy; D-80): with `courier.reply_is_envoy` and when the mail is the client's Reply
/// to a mail of the game's, an envoy from the realm to the realm the delivery named —
/// charged and windowed like any envoy, its text without the delivery the mail program
/// quoted below or above it; otherwise refused, naming the exact envoy subject. Every other
/// classification is returned as it is.
pub fn settle_delivery_reply(
    app: &App,
    c: crate::mail::classify::Classified,
    mail: &mut crate::mail::parse::Inbound,
) -> crate::mail::classify::Classified {
    use crate::mail::classify::{Classified, Refusal};
    let Classified::DeliveryReply {
        realm,
        lang,
        to,
        replied,
    } = c
    else {
        return c;
    };
    let refuse = |realm: String, reason| Classified::Refused {
        realm,
        lang,
        reason,
    };
    if !(app.cfg.courier.reply_is_envoy && replied) {
        let reason = Refusal::ReplyNotEnvoy {
            from: realm.clone(),
            to,
        };
        return refuse(realm, reason);
    }
    mail.text = own_reply_text(&mail.text);
    if mail.text.trim().is_empty() {
        let reason = Refusal::EmptyBody {
            kind: MailKind::Envoy,
        };
        return refuse(realm, reason);
    }
    let subject = crate::mail::subject::Subject {
        kind: MailKind::Envoy,
        from: realm.clone(),
        to: Some(to),
        topic: None,
        lang,
    };
    Classified::Accepted {
        realm,
        lang,
        subject,
    }
}

/// The replier's own text of a reply: above the mail it quotes (top-posting, Outlook's
/// block), or, when the reply is written below the quote, the lines that are not
/// quoted (`>`) and not the quote's attribution line.
fn own_reply_text(text: &str) -> String {
    let above = crate::courier::trailer::without_quoted_reply(text);
    if !above.trim().is_empty() {
        return above;
    }
    let lines: Vec<&str> = text.lines().collect();
    let quoted = |l: &str| l.trim_start().starts_with('>');
    // Whether the next line that is not blank is quoted, for each line (one pass back).
    let mut quote_follows = vec![false; lines.len()];
    let mut next = false;
    for (i, l) in lines.iter().enumerate().rev() {
        quote_follows[i] = next;
        if !l.trim().is_empty() {
            next = quoted(l);
        }
    }
    let kept: Vec<&str> = lines
        .iter()
        .zip(&quote_follows)
        .filter(|(l, follows)| {
            let attribution = l.trim_end().ends_with(':') && **follows;
            !(quoted(l) || attribution)
        })
        .map(|(l, _)| *l)
        .collect();
    kept.join("\n").trim().to_string()
}

/// Remove every registered player address from a text passed between realms, so a
/// signature or a quoted header cannot give a player's address away.
pub fn redact_addresses(text: &str, gs: &GameState) -> String {
    let all = gs
        .realms
        .iter()
        .flat_map(|r| r.emails.iter().map(String::as_str));
    crate::courier::redact::redact(text, all)
}

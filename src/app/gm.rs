//! The GM's hand on the courier: approve, reject, hold and edit messages in the review
//! queue, answer a realm's mail to the GM (from the command line, the desk, or by
//! replying to the notice about it) or close a GM item, and send again outgoing mail
//! that was not delivered. Every action is an audit event. A held message keeps its
//! receipt time, so an envoy received in the weekday window and approved at the
//! weekend still goes out.

use serde_json::json;

use super::{courier, App, AppError, Result};
use crate::clock;
use crate::game::{GameState, Lang};
use crate::mail::compose::Outgoing;
use crate::mail::parse::Inbound;
use crate::store::messages::{self, state, NewMessage};
use crate::store::outbox::{self, OutRow};
use crate::store::{events, Conn};

async fn load(conn: &mut Conn, id: i64, allowed: &[&str], verb: &str) -> Result<messages::Message> {
    let m = messages::get(conn, id).await?.ok_or_else(|| {
        AppError::Refused(format!("no message {id}; `pbemd gm queue` lists them"))
    })?;
    if !allowed.contains(&m.state.as_str()) {
        return Err(AppError::Refused(format!(
            "message {id} is {}; only {} messages can be {verb}",
            m.state,
            allowed.join(" or ")
        )));
    }
    Ok(m)
}

async fn commit(tx: crate::store::Tx) -> Result<()> {
    tx.commit().await.map_err(|e| {
        AppError::Store(crate::store::StoreError::Query {
            what: "commit a GM action",
            source: e,
        })
    })
}

/// Release a held message to the courier; with `now` (or in immediate mode) a batch
/// runs at once, otherwise it goes out with the next scheduled batch.
pub async fn approve(app: &App, id: i64, now: bool) -> Result<courier::BatchReport> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    gm_item_hint(&mut tx, id, "approved").await?;
    let m = load(&mut tx, id, &[state::HELD], "approved").await?;
    messages::set_state(&mut tx, id, state::QUEUED, None, at).await?;
    events::log(
        &mut tx,
        at,
        m.round,
        "gm_approved",
        m.realm.as_deref(),
        Some(id),
        "",
    )
    .await?;
    commit(tx).await?;
    if now || app.cfg.courier.mode == crate::config::CourierMode::Immediate {
        return courier::batch_now(app).await;
    }
    Ok(courier::BatchReport::default())
}

/// Whom `gm reject` told, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Told {
    /// A refusal was queued to the sender's realm (outbox row `outbox_id`).
    Queued { outbox_id: i64, to: Vec<String> },
    /// No mail went to anyone, and why.
    NoMail(String),
}

/// What `gm reject` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub id: i64,
    pub told: Told,
}

impl Rejected {
    /// What came of it, as the command and the desk say it, once the outbox has been
    /// flushed: "the sender was told why" only when the refusal actually went out.
    pub async fn said(&self, app: &App) -> Result<String> {
        let id = self.id;
        Ok(match &self.told {
            Told::NoMail(why) => format!("message {id} rejected; no mail went to anyone: {why}"),
            Told::Queued { outbox_id, to } => {
                let mut conn = app.store.conn().await?;
                let row = outbox::get(&mut conn, *outbox_id).await?;
                match row {
                    Some(r) if r.state == "sent" => format!(
                        "message {id} rejected; the sender was told why (mailed to {})",
                        to.join(", ")
                    ),
                    Some(r) => format!(
                        "message {id} rejected; the refusal to {} is not sent yet (outbox \
                         {outbox_id}, {}{}): `pbemd gm queue` shows it",
                        to.join(", "),
                        r.state,
                        r.last_error
                            .as_deref()
                            .map(|e| format!(": {e}"))
                            .unwrap_or_default()
                    ),
                    None => format!(
                        "message {id} rejected; the refusal to {} waits in the outbox",
                        to.join(", ")
                    ),
                }
            }
        })
    }
}

/// Refuse a held or queued message: the sender gets `reason` (when the sender is a
/// realm's with an address); nothing is charged.
pub async fn reject(app: &App, id: i64, reason: &str) -> Result<Rejected> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    gm_item_hint(&mut tx, id, "rejected").await?;
    let m = load(
        &mut tx,
        id,
        &[
            state::HELD,
            state::QUEUED,
            state::GM_QUEUE,
            state::PARKED,
            state::BEFORE_GAME,
        ],
        "rejected",
    )
    .await?;
    messages::set_state(&mut tx, id, state::REFUSED, Some(reason), at).await?;
    if m.kind == messages::UNHANDLED {
        crate::store::inbox::set_state(&mut tx, m.inbox_id, "done", at).await?;
    }
    let told = match &m.realm {
        None => Told::NoMail(match &m.from_addr {
            Some(a) => format!("the sender {a} is no realm's"),
            None => "the mail names no sender".to_string(),
        }),
        Some(realm) => {
            let (_, gs) = app.state(&mut tx).await?;
            match gs.realm(realm) {
                None => Told::NoMail(format!("{realm} is not in the game")),
                Some(r) if r.emails.is_empty() => {
                    Told::NoMail(format!("{realm} has no registered address"))
                }
                Some(r) => {
                    let data = json!({"realm": realm, "subject": m.subject, "reason": reason});
                    let raw_id = crate::store::inbox::message_id(&mut tx, m.inbox_id).await?;
                    let o = Outgoing {
                        kind: "refusal",
                        dedup_key: format!("gm_reject:{id}"),
                        to: r.emails.clone(),
                        subject: crate::mail::subject::reply_subject(&m.subject, r.language),
                        body: app.renderer.render("refusal", r.language, &data)?,
                        in_reply_to: raw_id,
                    };
                    let outbox_id = app.enqueue(&mut tx, &o).await?;
                    Told::Queued {
                        outbox_id,
                        to: o.to,
                    }
                }
            }
        }
    };
    events::log(
        &mut tx,
        at,
        m.round,
        "gm_rejected",
        m.realm.as_deref(),
        Some(id),
        reason,
    )
    .await?;
    commit(tx).await?;
    app.wake.notify_one();
    Ok(Rejected { id, told })
}

/// `gm approve` or `gm reject` of an item that waits for the GM (a realm's mail to the
/// GM, a mail of an unknown sender …) says which command fits.
async fn gm_item_hint(conn: &mut Conn, id: i64, verb: &str) -> Result<()> {
    let Some(m) = messages::get(conn, id).await? else {
        return Ok(());
    };
    let gm_item = m.state == state::GM_QUEUE || m.state == state::ANSWERED;
    if m.kind == TO_GM && (gm_item || m.state == state::DONE) {
        let realm = m.realm.as_deref().unwrap_or("a realm");
        return Err(AppError::Refused(format!(
            "message {id} is mail to the GM from {realm}, not a courier message, and cannot \
             be {verb}: answer it with `pbemd gm answer {id}` or close it with \
             `pbemd gm done {id}`"
        )));
    }
    if gm_item && verb == "approved" {
        return Err(AppError::Refused(format!(
            "message {id} ({}) waits for the GM and goes nowhere if approved: close it with \
             `pbemd gm done {id}`, or refuse it with `pbemd gm reject {id} --reason …` \
             (which tells a realm's sender why)",
            m.kind
        )));
    }
    Ok(())
}

/// The kind of a realm's mail to the GM.
pub const TO_GM: &str = "to_gm";

/// The states a realm's mail to the GM can be answered in: waiting, or already
/// answered or closed (a second answer adds to the first).
const ANSWERABLE: &[&str] = &[state::GM_QUEUE, state::ANSWERED, state::DONE];

/// What an answer to a realm's mail to the GM did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    /// The realm's mail to the GM.
    pub id: i64,
    pub realm: String,
    pub to: Vec<String>,
    pub outbox_id: i64,
}

impl Answered {
    /// What came of it, as the command and the desk say it, once the outbox has been
    /// flushed.
    pub async fn said(&self, app: &App) -> Result<String> {
        let mut conn = app.store.conn().await?;
        let row = outbox::get(&mut conn, self.outbox_id).await?;
        let (id, realm, to) = (self.id, &self.realm, self.to.join(", "));
        Ok(match row {
            Some(r) if r.state == "sent" => {
                format!("message {id} answered: the answer went to {realm} ({to})")
            }
            Some(r) => format!(
                "message {id} answered: the answer to {realm} ({to}) is not sent yet (outbox \
                 {}, {}{}): `pbemd gm queue` shows it",
                self.outbox_id,
                r.state,
                r.last_error
                    .as_deref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ),
            None => format!("message {id} answered: the answer to {realm} waits in the outbox"),
        })
    }
}

/// Answer message `id`, a realm's mail to the GM, with `text` as written: it goes to
/// every address of the realm, from the game's address, in the realm's language
/// (`gm_answer`); the message is marked answered; audited as `gm_answered` with `via`
/// (`command`, `desk`). The same text twice is one mail.
pub async fn answer(app: &App, id: i64, text: &str, via: &str) -> Result<Answered> {
    let text = text.replace("\r\n", "\n");
    let text = text.trim_end();
    if text.trim().is_empty() {
        return Err(AppError::Refused(format!(
            "message {id} was not answered: the answer is empty (give its text on standard \
             input or with --file)"
        )));
    }
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    let m = answerable(&mut tx, id).await?;
    let (_, gs) = app.state(&mut tx).await?;
    let key = format!("gm_answer:{id}:{}", short_hash(text));
    let a = answer_in(app, &mut tx, &gs, &m, text, &key, json!({ "via": via }), at).await?;
    commit(tx).await?;
    app.wake.notify_one();
    Ok(a)
}

/// Message `id` if it is a realm's mail to the GM that can be answered.
async fn answerable(conn: &mut Conn, id: i64) -> Result<messages::Message> {
    let m = messages::get(conn, id).await?.ok_or_else(|| {
        AppError::Refused(format!("no message {id}; `pbemd gm queue` lists them"))
    })?;
    if m.kind != TO_GM {
        return Err(AppError::Refused(format!(
            "message {id} is {} mail, not a realm's mail to the GM: only those are answered \
             (`pbemd gm done {id}` closes a GM item without mail)",
            m.kind
        )));
    }
    if !ANSWERABLE.contains(&m.state.as_str()) {
        return Err(AppError::Refused(format!(
            "message {id} is a request to the GM that is {}: `pbemd gm approve {id}` or \
             `pbemd gm reject {id} --reason …` decides it",
            m.state
        )));
    }
    Ok(m)
}

/// A short, stable digest of `text` (for an answer's outbox key).
fn short_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(&Sha256::digest(text.as_bytes())[..8])
}

/// The answer's subject: the realm's own `… till SL: <ämne>` / `… to GM: <topic>` after
/// one `Re:`, so the realm's reply to it is again mail to the GM.
fn answer_subject(gs: &GameState, m: &messages::Message, realm: &str, lang: Lang) -> String {
    let names = gs.realm_names();
    let parsed = crate::mail::subject::parse_subject(&m.subject, &names)
        .ok()
        .filter(|s| s.kind == crate::game::text::MailKind::ToGm && s.from == realm);
    let (lang, topic) = match &parsed {
        Some(s) => (s.lang, s.topic.as_deref()),
        None => (lang, None),
    };
    let to_gm = match lang {
        Lang::Sv => "till SL",
        Lang::En => "to GM",
    };
    let topic = topic.map(|t| crate::mail::parse::clean_line(&crate::mail::subject::shown(t)));
    match topic {
        Some(t) => format!("Re: {realm} {to_gm}: {t}"),
        None => format!("Re: {realm} {to_gm}"),
    }
}

/// Answer `m` inside the caller's transaction (see [`answer`]); `detail` is the audit
/// detail to which the outbox row and the text are added.
#[allow(clippy::too_many_arguments)]
async fn answer_in(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    m: &messages::Message,
    text: &str,
    key: &str,
    mut detail: serde_json::Value,
    at: i64,
) -> Result<Answered> {
    let id = m.id;
    let realm = m.realm.clone().ok_or_else(|| {
        AppError::Refused(format!("message {id} names no realm; nobody to answer"))
    })?;
    let r = gs.realm(&realm).ok_or_else(|| {
        AppError::Refused(format!(
            "message {id} is from {realm}, which is not in the game; nothing was sent"
        ))
    })?;
    if r.emails.is_empty() {
        return Err(AppError::Refused(format!(
            "{realm} has no registered address; nothing was sent (`pbemd gm realm {realm} \
             address add ADDRESS` gives it one)"
        )));
    }
    let data = json!({
        "realm": realm,
        "subject": crate::mail::subject::shown(m.subject.trim()),
        "text": text,
    });
    // In reply to the realm's own mail, never to the notice: the notice's Message-ID
    // is what proves a reply to it the GM's, so no realm ever sees it.
    let in_reply_to = crate::store::inbox::message_id(conn, m.inbox_id).await?;
    let o = Outgoing {
        kind: "gm_answer",
        dedup_key: key.to_string(),
        to: r.emails.clone(),
        subject: answer_subject(gs, m, &realm, r.language),
        body: app.renderer.render("gm_answer", r.language, &data)?,
        in_reply_to,
    };
    let outbox_id = app.enqueue(conn, &o).await?;
    messages::set_state(conn, id, state::ANSWERED, None, at).await?;
    detail["outbox_id"] = json!(outbox_id);
    detail["text"] = json!(text);
    events::log(
        conn,
        at,
        gs.round as i64,
        "gm_answered",
        Some(&realm),
        Some(id),
        &detail.to_string(),
    )
    .await?;
    Ok(Answered {
        id,
        realm,
        to: o.to,
        outbox_id,
    })
}

/// Close a GM item (a realm's mail to the GM, a mail of an unknown sender …) without
/// any mail; audited as `gm_done`.
pub async fn done(app: &App, id: i64) -> Result<()> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    let m = messages::get(&mut tx, id).await?.ok_or_else(|| {
        AppError::Refused(format!("no message {id}; `pbemd gm queue` lists them"))
    })?;
    if m.state != state::GM_QUEUE {
        let fits = match m.state.as_str() {
            state::HELD => format!("`pbemd gm approve {id}` or `pbemd gm reject {id} --reason …`"),
            state::QUEUED => format!("`pbemd gm hold {id}` or `pbemd gm reject {id} --reason …`"),
            state::PARKED => format!("`pbemd gm retry {id}` or `pbemd gm reject {id} --reason …`"),
            _ => "nothing: it waits for no one".to_string(),
        };
        return Err(AppError::Refused(format!(
            "message {id} is {}; only an item waiting for the GM (gm_queue) is closed with \
             `gm done`; what fits: {fits}",
            m.state
        )));
    }
    messages::set_state(&mut tx, id, state::DONE, None, at).await?;
    events::log(
        &mut tx,
        at,
        m.round,
        "gm_done",
        m.realm.as_deref(),
        Some(id),
        &m.kind,
    )
    .await?;
    commit(tx).await
}

/// The most Message-IDs of a GM's mail looked up (its `In-Reply-To` and the last of
/// its `References`): a reply names its parent in both.
const MAX_REFERENCES: usize = 20;

/// The outbox key of a notice to the GM about a realm's mail to the GM (message `id`):
/// its Message-ID comes from this key, and a MAC of the message id under the game's
/// secret (the site's signing key, kept in the database) makes it one no player can
/// work out, so a mail in reply to it (`In-Reply-To`/`References`) is the GM's. The same
/// message in the same game always gets the same key. Read inside the caller's
/// transaction (on SQLite another connection would wait for it).
pub async fn notice_key(conn: &mut Conn, id: i64) -> Result<String> {
    use hmac::{Hmac, Mac};
    use rand_core::RngCore;
    let mut fresh = [0u8; 32];
    rand_core::OsRng.fill_bytes(&mut fresh);
    let stored =
        crate::store::meta::get_or_init(conn, crate::store::meta::SITE_SECRET, &hex::encode(fresh))
            .await?;
    let key = hex::decode(stored.trim())
        .map_err(|e| AppError::BadState(format!("meta site_secret: {e}")))?;
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).expect("HMAC takes any key length");
    mac.update(format!("gm_notice:to_gm:{id}").as_bytes());
    let tag = mac.finalize().into_bytes();
    Ok(format!("gm_notice:to_gm:{id}:{}", hex::encode(&tag[..12])))
}

/// The message a [`notice_key`] is about.
fn noticed_message(key: &str) -> Option<i64> {
    let rest = key.strip_prefix("gm_notice:to_gm:")?;
    rest.split(':').next()?.parse().ok()
}

/// The GM's own words in a reply: the quoted mail (`>` lines and the line that
/// introduces them, or a quoted mail below an Outlook-style separator) is left out; a
/// line the GM wrote between quoted lines stays. Linear in the text.
pub fn gm_words(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let quoted = |l: &str| l.trim_start().starts_with('>');
    let intro = |l: &str| {
        let l = l.trim();
        let folded = l.to_lowercase();
        l.ends_with(':')
            && [
                "wrote",
                "skrev",
                "schrieb",
                "a écrit",
                "kirjoitti",
                "escribió",
            ]
            .iter()
            .any(|w| folded.contains(w))
    };
    let mut kept: Vec<&str> = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        if quoted(l) {
            continue;
        }
        // The line that introduces a quote, past blank lines.
        if intro(l) {
            let next = lines[i + 1..].iter().find(|n| !n.trim().is_empty());
            if next.is_some_and(|n| quoted(n)) {
                continue;
            }
        }
        kept.push(l);
    }
    let own = crate::courier::trailer::without_quoted_reply(&kept.join("\n"));
    // At most one blank line in a row where quoted lines were taken out.
    let mut out = String::with_capacity(own.len());
    let mut blank = false;
    for l in own.lines() {
        let is_blank = l.trim().is_empty();
        if is_blank && blank {
            continue;
        }
        blank = is_blank;
        out.push_str(l);
        out.push('\n');
    }
    out.trim().to_string()
}

/// A mail from the GM's address: when it replies to a notice about a realm's mail to
/// the GM (its `In-Reply-To` or `References` names the notice), the GM's words go to
/// that realm as the GM's answer and the realm's mail is marked answered; any other mail
/// from the GM waits in the GM queue (`from_gm`), with the reason when it answers a
/// notice but could not be sent.
pub(crate) async fn from_gm_mail(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    inbox_id: i64,
    mail: &Inbound,
    subject: &str,
) -> Result<()> {
    let round = gs.round as i64;
    let now = clock::to_ms(app.now());
    let mut parents: Vec<String> = mail.in_reply_to.iter().cloned().collect();
    parents.extend(mail.references.iter().rev().take(MAX_REFERENCES).cloned());
    parents.sort();
    parents.dedup();
    let mut answers = None;
    if !parents.is_empty() {
        let keys = outbox::keys_of_message_ids(conn, "gm_notice", &parents).await?;
        // The newest notice the reply names.
        answers = keys.iter().rev().find_map(|k| noticed_message(k));
    }
    let Some(target) = answers else {
        return from_gm_queued(conn, inbox_id, mail, subject, None, round, now).await;
    };
    let words = gm_words(&mail.text);
    let why_not = if words.is_empty() {
        Some(format!(
            "a reply to the notice about message {target} with no text of its own: nothing \
             was sent (`pbemd gm answer {target}` answers it)"
        ))
    } else {
        None
    };
    let m = match why_not {
        Some(_) => None,
        None => messages::get(conn, target).await?,
    };
    let Some(m) = m.filter(|m| m.kind == TO_GM) else {
        let why = why_not.unwrap_or_else(|| {
            format!("a reply to the notice about message {target}, which is not a realm's mail to the GM")
        });
        return from_gm_queued(conn, inbox_id, mail, subject, Some(&why), round, now).await;
    };
    let realm = m.realm.clone().unwrap_or_default();
    let record = NewMessage {
        inbox_id,
        kind: "gm_answer",
        to_realm: Some(&realm),
        from_addr: mail.from_addr.as_deref(),
        subject,
        body: &mail.text,
        state: state::ROUTED,
        round,
        at: now,
        ..Default::default()
    };
    let key = format!("gm_answer:mail:{inbox_id}");
    let detail = json!({"via": "mail", "inbox_id": inbox_id});
    // A realm gone or without an address: the GM's mail waits with the reason.
    let outcome = answer_in(app, conn, gs, &m, &words, &key, detail, now).await;
    match outcome {
        Ok(_) => {
            let reason = format!("the GM's answer to message {target} ({realm})");
            let mine = messages::insert(
                conn,
                &NewMessage {
                    reason: Some(&reason),
                    ..record
                },
            )
            .await?;
            events::log(
                conn,
                now,
                round,
                "mail_gm_answer",
                Some(&realm),
                Some(mine),
                &reason,
            )
            .await?;
            Ok(())
        }
        Err(AppError::Refused(why)) => {
            from_gm_queued(conn, inbox_id, mail, subject, Some(&why), round, now).await
        }
        Err(e) => Err(e),
    }
}

/// The GM's mail in the GM queue as `from_gm`, with `reason` when there is one.
async fn from_gm_queued(
    conn: &mut Conn,
    inbox_id: i64,
    mail: &Inbound,
    subject: &str,
    reason: Option<&str>,
    round: i64,
    now: i64,
) -> Result<()> {
    let id = messages::insert(
        conn,
        &NewMessage {
            inbox_id,
            kind: "from_gm",
            from_addr: mail.from_addr.as_deref(),
            subject,
            body: &mail.text,
            state: state::GM_QUEUE,
            reason,
            round,
            at: now,
            ..Default::default()
        },
    )
    .await?;
    events::log(conn, now, round, "mail_from_gm", None, Some(id), subject).await?;
    Ok(())
}

/// Try a parked unit of work again: an unhandled mail goes back to the inbox (handled
/// again, with its original receipt time, by the next tick or the running daemon), a
/// courier message back to the courier's queue. Never automatic: a unit that keeps
/// failing is parked again and waits for the GM.
pub async fn retry(app: &App, id: i64) -> Result<()> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    let m = load(&mut tx, id, &[state::PARKED, state::BEFORE_GAME], "retried").await?;
    if m.state == state::BEFORE_GAME {
        // Mail from before the game is played as received at the game's latest time.
        let played_at = super::scheduler::last_now(app, &mut tx).await?;
        messages::delete(&mut tx, id).await?;
        crate::store::inbox::play_before_game(&mut tx, m.inbox_id, clock::to_ms(played_at)).await?;
    } else if m.kind == messages::UNHANDLED {
        messages::delete(&mut tx, id).await?;
        crate::store::inbox::set_state(&mut tx, m.inbox_id, "new", at).await?;
    } else {
        messages::unpark(&mut tx, id, state::QUEUED, at).await?;
    }
    let detail = json!({"kind": m.kind, "inbox_id": m.inbox_id, "error": m.reason}).to_string();
    events::log(
        &mut tx,
        at,
        m.round,
        "gm_retried",
        m.realm.as_deref(),
        Some(id),
        &detail,
    )
    .await?;
    commit(tx).await?;
    app.wake.notify_one();
    Ok(())
}

/// What `gm retry-mail` did: the outgoing mail after its new attempt.
#[derive(Debug, Clone)]
pub struct MailRetried {
    pub mail: OutRow,
}

impl MailRetried {
    /// What came of it, as the command and the desk say it.
    pub fn summary(&self) -> String {
        let m = &self.mail;
        match (m.state.as_str(), m.last_error.as_deref()) {
            ("sent", _) => format!("outbox {} sent to {}", m.id, m.to_addrs),
            ("failed", e) => format!(
                "outbox {} failed again and was given up: {}",
                m.id,
                e.unwrap_or("-")
            ),
            (_, Some(e)) if m.attempts > 0 => format!(
                "outbox {} failed again ({e}); it is tried again later",
                m.id
            ),
            _ => format!("outbox {} goes out with the next send", m.id),
        }
    }
}

/// Send again an outgoing mail that the sender gave up (`failed`). It is due at once
/// with a fresh count of attempts (so a failure is retried with backoff as a new mail
/// is), audited as `gm_mail_retried` with the attempts and the error it had, and the
/// outbox is flushed. The same bytes and Message-ID go out, as with every retry. A
/// mail waiting for its next try is refused: it is tried again by itself, and it may
/// be in a sender's hands at this moment (see `outbox::retry_now`).
pub async fn retry_mail(app: &App, id: i64) -> Result<MailRetried> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    let no_such = || {
        AppError::Refused(format!(
            "no outgoing mail {id}; `pbemd gm queue` lists those not yet delivered"
        ))
    };
    let m = outbox::get(&mut tx, id).await?.ok_or_else(no_such)?;
    if m.undelivered() && !m.given_up() {
        return Err(AppError::Refused(format!(
            "outbox {id} is waiting to be tried again after {} attempt(s) and is tried \
             again by itself; only failed mail (given up) can be retried",
            m.attempts
        )));
    }
    if !outbox::retry_now(&mut tx, id, at).await? {
        return Err(AppError::Refused(format!(
            "outbox {id} is {} after {} attempt(s); only failed mail (given up) can be \
             retried",
            m.state, m.attempts
        )));
    }
    let (_, gs) = app.state(&mut tx).await?;
    log_mail_retried(&mut tx, at, gs.round as i64, &m, false).await?;
    commit(tx).await?;
    super::sender::flush_all(app).await?;
    let mut conn = app.store.conn().await?;
    let mail = outbox::get(&mut conn, id).await?.ok_or_else(no_such)?;
    Ok(MailRetried { mail })
}

/// The audit entry of an outgoing mail sent again (`gm_mail_retried`), with the state,
/// attempts and error it had; `all` when `gm retry-mail --all` did it.
async fn log_mail_retried(
    conn: &mut Conn,
    at: i64,
    round: i64,
    m: &OutRow,
    all: bool,
) -> Result<()> {
    let mut detail = json!({"outbox_id": m.id, "kind": m.kind, "to": m.to_addrs,
                            "state": m.state, "attempts": m.attempts, "error": m.last_error});
    if all {
        detail["all"] = json!(true);
    }
    events::log(
        conn,
        at,
        round,
        "gm_mail_retried",
        None,
        None,
        &detail.to_string(),
    )
    .await?;
    Ok(())
}

/// What `gm retry-mail --all` did.
#[derive(Debug, Clone, Default)]
pub struct AllRetried {
    /// Sent by this retry.
    pub sent: Vec<OutRow>,
    /// Tried again and failed again (given up, or waiting for the next try).
    pub failing: Vec<OutRow>,
    /// Waiting for a next try that comes within a sender's lease: left alone (they may
    /// be in a running daemon's hands at this moment) and tried by themselves shortly.
    pub left: Vec<OutRow>,
}

impl AllRetried {
    /// "3 mails sent again, 1 still failing: outbox 12 to … (535 …)".
    pub fn summary(&self) -> String {
        if self.sent.is_empty() && self.failing.is_empty() && self.left.is_empty() {
            return "no outgoing mail was waiting to be sent again".into();
        }
        let n = |k: usize| if k == 1 { "mail" } else { "mails" };
        let mut out = format!(
            "{} {} sent again, {} still failing",
            self.sent.len(),
            n(self.sent.len()),
            self.failing.len()
        );
        if !self.failing.is_empty() {
            let each: Vec<String> = self
                .failing
                .iter()
                .map(|m| {
                    format!(
                        "outbox {} to {} ({}{})",
                        m.id,
                        m.to_addrs,
                        m.last_error.as_deref().unwrap_or("-"),
                        if m.given_up() {
                            "; given up"
                        } else {
                            "; tried again later"
                        }
                    )
                })
                .collect();
            out.push_str(&format!(": {}", each.join("; ")));
        }
        if !self.left.is_empty() {
            let ids: Vec<String> = self.left.iter().map(|m| m.id.to_string()).collect();
            out.push_str(&format!(
                "; {} due within two minutes left to their own try (outbox {})",
                self.left.len(),
                ids.join(", ")
            ));
        }
        out
    }
}

/// `gm retry-mail --all`: every outgoing mail not yet delivered is tried again now —
/// each one given up (`failed`) with a fresh count of attempts, as `gm retry-mail ID`
/// does, and each one waiting for its next try made due now unless that try comes
/// within a sender's lease (see [`outbox::waiting_due_now`]) — then the outbox is
/// flushed. Each mail is audited as `gm_mail_retried`.
pub async fn retry_mail_all(app: &App) -> Result<AllRetried> {
    let now = app.now();
    let at = clock::to_ms(now);
    let lease = clock::to_ms(now + chrono::Duration::seconds(super::sender::LEASE_SECONDS));
    let mut tx = app.store.begin().await?;
    let before = outbox::failed_or_retrying(&mut tx).await?;
    let mut tried = Vec::new();
    for m in before.iter().filter(|m| m.given_up()) {
        if outbox::retry_now(&mut tx, m.id, at).await? {
            tried.push(m);
        }
    }
    let due = outbox::waiting_due_now(&mut tx, at, lease).await?;
    tried.extend(before.iter().filter(|m| due.contains(&m.id)));
    let (_, gs) = app.state(&mut tx).await?;
    for m in &tried {
        log_mail_retried(&mut tx, at, gs.round as i64, m, true).await?;
    }
    commit(tx).await?;
    super::sender::flush_all(app).await?;
    let mut conn = app.store.conn().await?;
    let mut done = AllRetried::default();
    for m in &before {
        let Some(row) = outbox::get(&mut conn, m.id).await? else {
            continue;
        };
        if !tried.iter().any(|t| t.id == m.id) {
            if row.undelivered() {
                done.left.push(row);
            }
        } else if row.state == "sent" {
            done.sent.push(row);
        } else {
            done.failing.push(row);
        }
    }
    Ok(done)
}

/// Hold a queued message for review.
pub async fn hold(app: &App, id: i64) -> Result<()> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    let m = load(&mut tx, id, &[state::QUEUED], "held").await?;
    messages::set_state(&mut tx, id, state::HELD, None, at).await?;
    events::log(
        &mut tx,
        at,
        m.round,
        "gm_held",
        m.realm.as_deref(),
        Some(id),
        "",
    )
    .await?;
    commit(tx).await
}

/// What `gm edit` of a weekend form found in the corrected text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EditedForm {
    pub accepted: usize,
    pub refused: usize,
}

/// Correct a held or queued message's text, or a realm's standing weekend form of a
/// round not yet resolved (checked again; it counts in place of the old text, with its
/// receipt time); the old and new text are audited.
pub async fn edit(app: &App, id: i64, text: &str) -> Result<Option<EditedForm>> {
    let at = clock::to_ms(app.now());
    let mut tx = app.store.begin().await?;
    if let Some(m) = messages::get(&mut tx, id)
        .await?
        .filter(|m| m.kind == "form")
    {
        let edited = edit_form(app, &mut tx, &m, text, at).await?;
        commit(tx).await?;
        return Ok(Some(edited));
    }
    let m = load(&mut tx, id, &[state::HELD, state::QUEUED], "edited").await?;
    messages::set_body(&mut tx, id, text, at).await?;
    let detail = json!({"old": m.body, "new": text}).to_string();
    events::log(
        &mut tx,
        at,
        m.round,
        "gm_edited",
        m.realm.as_deref(),
        Some(id),
        &detail,
    )
    .await?;
    commit(tx).await?;
    Ok(None)
}

/// `gm edit` of a weekend form: only the realm's standing form of the current round,
/// and only before the round is resolved (`gm rollback` first, then `gm resolve`).
async fn edit_form(
    app: &App,
    conn: &mut Conn,
    m: &messages::Message,
    text: &str,
    at: i64,
) -> Result<EditedForm> {
    let id = m.id;
    let realm = m.realm.clone().unwrap_or_default();
    let standing = crate::store::forms::standing(conn, &realm, m.round).await?;
    let Some(form) = standing.filter(|f| f.message_id == id) else {
        return Err(AppError::Refused(format!(
            "message {id} is not {realm}'s standing form of round {}; only that one can be edited",
            m.round
        )));
    };
    let (_, gs) = app.state(conn).await?;
    let resolved = crate::store::resolutions::standing(conn, m.round).await?;
    if m.round != gs.round as i64 || resolved.is_some() {
        return Err(AppError::Refused(format!(
            "the weekend of round {} is resolved: `pbemd gm rollback` first, then edit the \
             form, then `pbemd gm resolve`",
            m.round
        )));
    }
    let checked = crate::forms::read_form(&gs, &realm, text, &[]);
    let orders = serde_json::to_string(&checked).map_err(|e| AppError::BadState(e.to_string()))?;
    crate::store::forms::insert(
        conn,
        id,
        &realm,
        m.round,
        form.received_at,
        text,
        Some(&orders),
    )
    .await?;
    messages::set_body(conn, id, text, at).await?;
    let edited = EditedForm {
        accepted: checked.accepted(),
        refused: checked.refused(),
    };
    let detail = json!({"old": form.body, "new": text, "form": true,
                        "accepted": edited.accepted, "refused": edited.refused});
    events::log(
        conn,
        at,
        m.round,
        "gm_edited",
        Some(&realm),
        Some(id),
        &detail.to_string(),
    )
    .await?;
    Ok(edited)
}

/// Replace the state with a GM-corrected document: it must parse and validate; the
/// old and new versions stay in the store and the import is audited.
pub async fn import_state(app: &App, json_text: &str) -> Result<i64> {
    let gs: crate::game::GameState = serde_json::from_str(json_text)
        .map_err(|e| AppError::Refused(format!("the state document does not parse: {e}")))?;
    if let Err(problems) = gs.validate() {
        return Err(AppError::Refused(format!(
            "the state document is not valid: {}",
            problems.join("; ")
        )));
    }
    let mut tx = app.store.begin().await?;
    let (version, _) = app.state(&mut tx).await?;
    let v = app
        .save_state(&mut tx, version, &gs, "imported by the GM")
        .await?;
    let at = clock::to_ms(app.now());
    events::log(
        &mut tx,
        at,
        gs.round as i64,
        "gm_import_state",
        None,
        Some(v),
        "",
    )
    .await?;
    commit(tx).await?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::{gm_words, noticed_message};

    #[test]
    fn the_gms_words_lose_the_quoted_notice_whatever_the_mail_program() {
        let own = "Ja, men bara på er egen mark.\n\n-- \nSpelledaren";
        let cases = [
            // Gmail, Thunderbird: top-posted, an attribution line, `>` lines.
            format!("{own}\n\nDen tis 24 nov. 2026 kl 10:00 skrev Spelet <sl@game.test>:\n\n> Svara på det här brevet\n> Kaldor till SL"),
            // Apple Mail in English.
            format!("{own}\n\nOn 24 Nov 2026, at 10:00, sl@game.test wrote:\n> Reply to this mail"),
            // Outlook: a separator and the notice unquoted below.
            format!("{own}\n\n________________________________\nFrån: sl@game.test\nSkickat: den 24 november 2026 10:00\nTill: gm@game.test\nÄmne: SL-post från Kaldor\n\nSvara på det här brevet"),
            // Bottom-posted: the quote first.
            format!("On 24 Nov 2026, at 10:00, sl@game.test wrote:\n> Reply to this mail\n> to answer Kaldor\n\n{own}"),
        ];
        for c in &cases {
            assert_eq!(gm_words(c), own, "{c}");
        }
    }

    #[test]
    fn a_line_written_between_quoted_lines_stays() {
        let text = "Hej Kaldor,\n\n> Får vi bygga en mur?\nJa.\n> Och en hamn?\nNej, inte i år.";
        assert_eq!(gm_words(text), "Hej Kaldor,\n\nJa.\nNej, inte i år.");
        // A line of the GM's own ending in a colon is no attribution.
        let text = "Om muren:\n> Får vi bygga en mur?\nJa.";
        assert_eq!(gm_words(text), "Om muren:\nJa.");
        assert_eq!(gm_words("> bara citat\n> och mer"), "");
    }

    #[test]
    fn a_notice_key_names_its_message() {
        assert_eq!(noticed_message("gm_notice:to_gm:7:00ff"), Some(7));
        assert_eq!(noticed_message("gm_notice:12"), None, "an older notice");
        assert_eq!(noticed_message("absence:3"), None);
    }
}

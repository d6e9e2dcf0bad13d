//! A realm asks for its latest form again (`<Land> formulär igen` / `<Realm> form
//! again`): the last Monday form mailed to it goes again, as it was sent, to the
//! realm's registered addresses only, at most `limits.max_resends_per_day` times a
//! day (the game's calendar day); beyond it, or before any form was mailed, a short
//! refusal. Allowed in any window. The form's files (its map pictures) go with it.

use chrono::Datelike;
use serde_json::json;

use super::flood;
use crate::app::{App, Result};
use crate::clock::{self, from_ms};
use crate::game::lang::count;
use crate::game::{GameState, Lang};
use crate::mail::compose::{Attachment, Outgoing};
use crate::mail::parse::Inbound;
use crate::store::messages::{self, state, NewMessage};
use crate::store::{events, notices, Conn};

/// The message kind stored for a resend request.
pub const KIND: &str = "form_again";

/// A resend request as classified.
pub struct Request<'a> {
    pub inbox_id: i64,
    pub realm: &'a str,
    pub lang: Lang,
    pub mail: &'a Inbound,
    pub subject: &'a str,
}

/// Why a request gets no form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoForm {
    /// The day's resends are used up: (the limit).
    TooMany(u32),
    /// No Monday form has been mailed to the realm yet.
    NoneYet,
}

/// Handle a request inside the mail's transaction: store it, send the form or say why
/// not, audit it.
pub async fn handle(app: &App, conn: &mut Conn, gs: &GameState, req: &Request<'_>) -> Result<()> {
    let local = app.now().with_timezone(&app.schedule.timezone());
    let day = i64::from(local.date_naive().num_days_from_ce());
    let n = notices::bump(conn, &format!("resends:{}", req.realm), day).await?;
    let max = app.cfg.limits.max_resends_per_day;
    let latest = notices::latest_form(conn, req.realm).await?;
    let outcome = match latest {
        _ if n > i64::from(max) => Err(NoForm::TooMany(max)),
        None => Err(NoForm::NoneYet),
        Some(form) => Ok(form),
    };
    let reason = outcome.as_ref().err().map(|w| refusal_text(req.lang, *w));
    let base = NewMessage {
        inbox_id: req.inbox_id,
        kind: KIND,
        realm: Some(req.realm),
        lang: Some(req.lang.code()),
        from_addr: req.mail.from_addr.as_deref(),
        subject: req.subject,
        body: &req.mail.text,
        state: if reason.is_some() {
            state::REFUSED
        } else {
            state::ACCEPTED
        },
        reason: reason.as_deref(),
        round: gs.round as i64,
        at: clock::to_ms(app.now()),
        ..Default::default()
    };
    let id = messages::insert(conn, &base).await?;
    match (outcome, reason) {
        (Ok(form), _) => send_form(app, conn, gs, req, id, form).await,
        (Err(_), Some(text)) => refuse(app, conn, gs, req, id, &text).await,
        (Err(_), None) => Ok(()),
    }
}

/// Mail the stored form again, with a line above it saying when it was first sent, and
/// the files it carried (its map pictures), as they were.
async fn send_form(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    req: &Request<'_>,
    message_id: i64,
    (outbox_id, queued_at, raw): (i64, i64, Vec<u8>),
) -> Result<()> {
    let parsed = mail_parser::MessageParser::default().parse(&raw);
    let form = parsed
        .as_ref()
        .and_then(|m| m.body_text(0).map(|b| b.replace("\r\n", "\n")))
        .unwrap_or_default();
    let files: Vec<Attachment> = parsed.as_ref().map_or_else(Vec::new, files_of);
    let sent = app.local(from_ms(queued_at), req.lang);
    let o = Outgoing {
        kind: KIND,
        dedup_key: format!("{KIND}:{}", req.inbox_id),
        to: addresses(gs, req.realm),
        subject: crate::app::scheduler::form_subject(req.realm, req.lang),
        body: format!("{}\n\n{form}", resend_note(req.lang, &sent)),
        in_reply_to: req.mail.message_id.clone(),
    };
    let out = flood::enqueue_reply_with(app, conn, req.realm, &o, &files).await?;
    let d = json!({"form_outbox_id": outbox_id, "outbox_id": out}).to_string();
    let now = clock::to_ms(app.now());
    let round = gs.round as i64;
    events::log(
        conn,
        now,
        round,
        "form_resent",
        Some(req.realm),
        Some(message_id),
        &d,
    )
    .await?;
    Ok(())
}

/// Refuse a request with `text`, quoting its subject.
async fn refuse(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    req: &Request<'_>,
    message_id: i64,
    text: &str,
) -> Result<()> {
    let subject = crate::mail::subject::shown(req.subject.trim());
    let data = json!({"realm": req.realm, "subject": subject, "reason": text});
    let o = Outgoing {
        kind: "refusal",
        dedup_key: format!("refusal:{}", req.inbox_id),
        to: addresses(gs, req.realm),
        subject: crate::mail::subject::reply_subject(&subject, req.lang),
        body: app.renderer.render("refusal", req.lang, &data)?,
        in_reply_to: req.mail.message_id.clone(),
    };
    flood::enqueue_reply(app, conn, req.realm, &o).await?;
    let now = clock::to_ms(app.now());
    let round = gs.round as i64;
    events::log(
        conn,
        now,
        round,
        "form_again_refused",
        Some(req.realm),
        Some(message_id),
        text,
    )
    .await?;
    Ok(())
}

/// The files a mail pbemd formatted carries, with their names and media types.
fn files_of(m: &mail_parser::Message<'_>) -> Vec<Attachment> {
    use mail_parser::MimeHeaders;
    m.attachments()
        .map(|a| Attachment {
            name: a.attachment_name().unwrap_or("fil").to_string(),
            content_type: a.content_type().map_or_else(
                || "application/octet-stream".to_string(),
                |ct| match ct.subtype() {
                    Some(sub) => format!("{}/{sub}", ct.ctype()),
                    None => ct.ctype().to_string(),
                },
            ),
            bytes: a.contents().to_vec(),
        })
        .collect()
}

fn addresses(gs: &GameState, realm: &str) -> Vec<String> {
    gs.realm(realm)
        .map(|r| r.emails.clone())
        .unwrap_or_default()
}

/// The line above a resent form.
pub fn resend_note(lang: Lang, sent: &str) -> String {
    match lang {
        Lang::Sv => format!(
            "Här är ert senaste formulär igen, som det skickades {sent}. Svara på det här \
             brevet med era ordrar som vanligt."
        ),
        Lang::En => format!(
            "Here is your latest form again, as it was sent {sent}. Reply to this mail with \
             your orders as usual."
        ),
    }
}

/// Why a request gets no form, for the player.
pub fn refusal_text(lang: Lang, why: NoForm) -> String {
    match (why, lang) {
        (NoForm::TooMany(max), Lang::Sv) => format!(
            "Formuläret kan skickas igen högst {} om dagen, och det är gjort i dag. \
             Försök i morgon.",
            count(i64::from(max), "gång", "gånger")
        ),
        (NoForm::TooMany(max), Lang::En) => format!(
            "The form can be sent again at most {} a day, and that has been done today. \
             Try again tomorrow.",
            count(i64::from(max), "time", "times")
        ),
        (NoForm::NoneYet, Lang::Sv) => {
            "Inget formulär har skickats till er ännu; det första kommer med resultaten på \
             måndag."
                .to_string()
        }
        (NoForm::NoneYet, Lang::En) => {
            "No form has been mailed to you yet; the first comes with the results on Monday."
                .to_string()
        }
    }
}

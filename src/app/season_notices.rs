//! The GM's notices (`gm notice`), a realm's form sent again on request, and flood
//! control of replies.
//!
//! A notice waits in the `notices` table, not in the game state, so `gm rollback` and
//! `gm resolve` leave it alone: it is printed at the top of the next Monday forms (every
//! realm's, or one realm's) and marked with the round of those forms, so a correction
//! of that round carries it again and the next week's forms do not. `--now` mails it
//! at once as a mail of its own instead.

pub mod flood;
pub mod resend;

use serde_json::json;

use super::{App, AppError, Result};
use crate::clock;
use crate::game::{GameState, Lang};
use crate::mail::compose::Outgoing;
use crate::store::notices::{self, Notice};
use crate::store::{events, Conn, StoreError};

/// The longest notice, in characters.
pub const MAX_NOTICE_CHARS: usize = 10_000;

/// What `gm notice` did.
#[derive(Debug)]
pub struct NoticeGiven {
    pub id: i64,
    /// The realms it is for (every playing realm, or one).
    pub realms: Vec<String>,
    /// Mailed now (`--now`), else waiting for the next Monday forms.
    pub mailed: bool,
}

/// The GM's text as notices keep it: control characters gone (line breaks kept, tabs
/// a space), trailing spaces off each line, blank lines around it off.
pub fn clean_notice(text: &str) -> String {
    let text: String = crate::mail::parse::clean_chars(text)
        .map(|c| if c == '\t' { ' ' } else { c })
        .filter(|c| !matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
        .collect();
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    lines.join("\n").trim_matches('\n').to_string()
}

/// `gm notice [--realm NAME] [--now] TEXT`: store the notice for the next Monday forms,
/// or mail it now; audited as `gm_notice`.
pub async fn give(app: &App, realm: Option<&str>, text: &str, now: bool) -> Result<NoticeGiven> {
    let text = clean_notice(text);
    if text.is_empty() {
        return Err(AppError::Refused("the notice is empty".into()));
    }
    if text.chars().count() > MAX_NOTICE_CHARS {
        return Err(AppError::Refused(format!(
            "the notice has {} characters; at most {MAX_NOTICE_CHARS}",
            text.chars().count()
        )));
    }
    let mut tx = app.store.begin().await?;
    let (_, gs) = app.state(&mut tx).await?;
    let realms = targets(&gs, realm)?;
    let at = clock::to_ms(app.now());
    let id = notices::add(&mut tx, realm, &text, at, now.then_some(at)).await?;
    if now {
        for r in &realms {
            mail_notice(app, &mut tx, &gs, id, r, &text).await?;
        }
    }
    let d = json!({"text": text, "realms": realms, "now": now}).to_string();
    events::log(
        &mut tx,
        at,
        gs.round as i64,
        "gm_notice",
        realm,
        Some(id),
        &d,
    )
    .await?;
    tx.commit().await.map_err(|source| StoreError::Query {
        what: "commit a GM notice",
        source,
    })?;
    Ok(NoticeGiven {
        id,
        realms,
        mailed: now,
    })
}

/// The realms a notice is for: `realm` (which must be playing), or every playing realm.
fn targets(gs: &GameState, realm: Option<&str>) -> Result<Vec<String>> {
    let playing = gs.realms.iter().filter(|r| !r.emails.is_empty());
    match realm {
        None => Ok(playing.map(|r| r.name.clone()).collect()),
        Some(name) => match gs.realm(name) {
            Some(r) if !r.emails.is_empty() => Ok(vec![r.name.clone()]),
            Some(r) => Err(AppError::Refused(format!(
                "{} has no address, so it gets no forms and no notices",
                r.name
            ))),
            None => Err(AppError::Refused(format!("no realm named {name}"))),
        },
    }
}

/// Mail notice `id` to `realm` now, as its own mail in the realm's language.
async fn mail_notice(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    id: i64,
    realm: &str,
    text: &str,
) -> Result<()> {
    let Some(r) = gs.realm(realm) else {
        return Ok(());
    };
    let lang = r.language;
    let o = Outgoing {
        kind: "notice",
        dedup_key: format!("notice:{id}:{realm}"),
        to: r.emails.clone(),
        subject: notice_subject(lang).to_string(),
        body: block(app, lang, &[text])?,
        in_reply_to: None,
    };
    app.enqueue(conn, &o).await?;
    Ok(())
}

/// The subject of a notice mailed on its own.
pub fn notice_subject(lang: Lang) -> &'static str {
    match lang {
        Lang::Sv => "Meddelande från spelledaren",
        Lang::En => "Notice from the GM",
    }
}

/// The notices block in `lang` (the `gm_notice` template).
fn block(app: &App, lang: Lang, texts: &[&str]) -> Result<String> {
    Ok(app
        .renderer
        .render("gm_notice", lang, &json!({ "notices": texts }))?)
}

/// The notices the forms of one round carry, loaded once for all realms' forms.
pub struct FormNotices {
    round: i64,
    notices: Vec<Notice>,
}

impl FormNotices {
    /// The notices for the forms of `round` (waiting ones and those already printed on
    /// that round's forms).
    pub async fn load(conn: &mut Conn, round: i64) -> Result<FormNotices> {
        let notices = notices::for_round(conn, round).await?;
        Ok(FormNotices { round, notices })
    }

    /// `form` with the notices for `realm` at its top (unchanged when there are none).
    pub fn on_top(&self, app: &App, realm: &str, lang: Lang, form: String) -> Result<String> {
        let texts: Vec<&str> = self
            .notices
            .iter()
            .filter(|n| n.realm.as_deref().is_none_or(|r| r == realm))
            .map(|n| n.text.as_str())
            .collect();
        if texts.is_empty() {
            return Ok(form);
        }
        Ok(format!(
            "{}\n\n{form}",
            block(app, lang, &texts)?.trim_end()
        ))
    }

    /// The forms went out: the waiting notices are printed now, on this round's forms,
    /// and no later form carries them (audited as `gm_notices_printed`).
    pub async fn printed(&self, app: &App, conn: &mut Conn) -> Result<()> {
        let waiting: Vec<i64> = self
            .notices
            .iter()
            .filter(|n| n.printed_round.is_none())
            .map(|n| n.id)
            .collect();
        if waiting.is_empty() {
            return Ok(());
        }
        let at = clock::to_ms(app.now());
        notices::mark_printed(conn, self.round, at).await?;
        let d = json!({"notices": waiting, "round": self.round}).to_string();
        events::log(conn, at, self.round, "gm_notices_printed", None, None, &d).await?;
        Ok(())
    }
}

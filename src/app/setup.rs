//! Starting a game: `pbemd new DIR` writes a ready-to-run game directory, `pbemd init`
//! loads the scenario into the database as round 1.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::{App, AppError, Result};
use crate::clock;
use crate::config;
use crate::store::{events, meta, state};
use crate::transport::imap::ImapSession;

/// The demo scenario, built in so `pbemd new` works from the binary alone.
pub const DEMO_SCENARIO: &str = include_str!("../../scenarios/demo.yaml");
/// The rulebook's week, built in likewise.
pub const DEFAULT_SCHEDULE: &str = include_str!("../../schedules/default.yaml");

/// Create `dir` with `pbemd.yaml`, the scenario, the schedule and the two Maildirs.
/// Refuses to touch a directory that already holds a `pbemd.yaml`.
pub fn new_game_dir(dir: &Path, scenario: Option<&Path>) -> Result<PathBuf> {
    let cfg_path = dir.join("pbemd.yaml");
    if cfg_path.exists() {
        return Err(AppError::Refused(format!(
            "{} already exists; choose another directory or remove it",
            cfg_path.display()
        )));
    }
    let scenario_text = match scenario {
        None => DEMO_SCENARIO.to_string(),
        Some(p) => std::fs::read_to_string(p)
            .map_err(|e| AppError::Refused(format!("cannot read scenario {}: {e}", p.display())))?,
    };
    crate::game::load_scenario(&scenario_text)
        .map_err(|e| AppError::Refused(format!("the scenario is not valid: {e}")))?;
    let io = |p: &Path, e: std::io::Error| {
        AppError::Refused(format!("cannot write {}: {e}", p.display()))
    };
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for (name, text) in [
        ("scenario.yaml", scenario_text.as_str()),
        ("schedule.yaml", DEFAULT_SCHEDULE),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| io(&p, e))?;
    }
    crate::transport::maildir::Maildir::open(&dir.join("inbox"))?;
    crate::transport::maildir::Maildir::open(&dir.join("outbox"))?;
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| !n.is_empty())
        .unwrap_or("game");
    let text = config::new_game_config(name).replace(
        "# schedule: schedule.yaml   # default: the rulebook's week in Europe/Stockholm",
        "schedule: schedule.yaml   # the rulebook's week in Europe/Stockholm; edit to change",
    );
    std::fs::write(&cfg_path, text).map_err(|e| io(&cfg_path, e))?;
    Ok(cfg_path)
}

/// Load the configured scenario as round 1, starting at `now`. Refuses when a game
/// exists, unless `force` (which deletes the old game entirely).
pub async fn init(app: &App, now: DateTime<Utc>, force: bool) -> Result<i64> {
    let mut conn = app.store.conn().await?;
    if state::latest(&mut conn).await?.is_some() {
        if !force {
            return Err(AppError::Refused(
                "a game already exists in this database; `pbemd init --force` deletes it and starts over".into(),
            ));
        }
        drop(conn);
        app.store.wipe().await?;
    } else {
        drop(conn);
    }
    let text = std::fs::read_to_string(&app.cfg.scenario).map_err(|e| {
        AppError::Refused(format!(
            "cannot read scenario {}: {e}",
            app.cfg.scenario.display()
        ))
    })?;
    let mut gs = crate::game::load_scenario(&text)
        .map_err(|e| AppError::Refused(format!("scenario {}: {e}", app.cfg.scenario.display())))?;
    if let Some(seed) = app.cfg.seed {
        gs.game.seed = seed;
    }
    if app.cfg.sender_check.uses_token() {
        super::sender_auth::give_tokens(&mut gs);
    }
    let mut tx = app.store.begin().await?;
    let v = app
        .save_state(&mut tx, 0, &gs, "game started from the scenario")
        .await?;
    let ms = clock::to_ms(now).to_string();
    meta::set(&mut tx, meta::STARTED_AT, &ms).await?;
    meta::set(&mut tx, meta::LAST_NOW, &ms).await?;
    events::log(
        &mut tx,
        clock::to_ms(now),
        gs.round as i64,
        "game_started",
        None,
        Some(v),
        &app.cfg.scenario.display().to_string(),
    )
    .await?;
    tx.commit()
        .await
        .map_err(|e| crate::store::StoreError::Query {
            what: "commit the new game",
            source: e,
        })?;
    Ok(v)
}

/// Mail every playing realm its opening form (round 1's result form with the starting
/// position and the first weekend's deadline), so players can start writing at once.
/// Queued in the outbox; returns the realms.
pub async fn mail_opening_forms(app: &App, now: DateTime<Utc>) -> Result<Vec<String>> {
    let mut tx = app.store.begin().await?;
    let (_, gs) = app.state(&mut tx).await?;
    let key = format!("opening:{}", gs.round);
    let sent = super::weekend::enqueue_forms(app, &mut tx, &gs, &[], now, &key, None).await?;
    let detail = serde_json::json!({ "opening_forms": sent }).to_string();
    events::log(
        &mut tx,
        clock::to_ms(now),
        gs.round as i64,
        "opening_forms",
        None,
        None,
        &detail,
    )
    .await?;
    tx.commit()
        .await
        .map_err(|e| crate::store::StoreError::Query {
            what: "commit the opening forms",
            source: e,
        })?;
    Ok(sent)
}

/// How far the game's IMAP mailbox reaches before the game begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InboxEnd {
    pub uid_validity: u32,
    /// The last UID now (0: empty).
    pub last_uid: u32,
    /// How many mails the mailbox holds now.
    pub mails: u32,
}

/// Over IMAP, where the game's mailbox ends now (`None` for a Maildir intake). Called
/// before [`init`], so a refused login leaves no game half made; the failure says
/// what to fix in the words `check-config` uses.
pub async fn imap_inbox_end(app: &App) -> Result<Option<InboxEnd>> {
    let config::Inbound::Imap(i) = &app.cfg.inbound else {
        return Ok(None);
    };
    let explain = |e: crate::transport::TransportError| {
        let problem = match app.cfg.imap_server() {
            Some(s) => super::intake::explain_transport(&s, &e),
            None => e.to_string(),
        };
        AppError::Refused(format!(
            "cannot note where the game's inbox ends: {problem}; `pbemd check-config` checks \
             the setup, and `pbemd init --take-old-mail` starts without noting it (the mail \
             already in the inbox is then played)"
        ))
    };
    let mut session = ImapSession::connect(&i.params).await.map_err(explain)?;
    let (st, last_uid) = session.end().await.map_err(explain)?;
    let _ = session.logout().await;
    Ok(Some(InboxEnd {
        uid_validity: st.uid_validity,
        last_uid,
        mails: st.exists,
    }))
}

/// What `init` did with the mail already in the game's inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OldMail {
    /// IMAP: the mailbox's end is noted; its mails up to there are never fetched.
    LeftInMailbox { mailbox: String, mails: u32 },
    /// Maildir: the files in `new/` are stored as from before the game, not played
    /// (`gm queue` lists them, `gm retry` plays one), and moved to `cur/`.
    Kept { mails: usize },
    /// `--take-old-mail`: mail already in the inbox is taken and played as the game's.
    Taken,
}

impl OldMail {
    /// The line `pbemd init` prints.
    pub fn said(&self) -> String {
        use crate::game::lang::count;
        match self {
            OldMail::LeftInMailbox { mailbox, mails: 0 } => {
                format!("mailbox {mailbox} was empty; pbemd reads the mail that comes from now on")
            }
            OldMail::LeftInMailbox { mailbox, mails } => format!(
                "{} already in mailbox {mailbox} {} left there and not played \
                 (`init --take-old-mail` takes them)",
                count(*mails as usize, "mail", "mails"),
                if *mails == 1 { "is" } else { "are" }
            ),
            OldMail::Kept { mails: 0 } => "no mail waited in the inbox".into(),
            OldMail::Kept { mails } => format!(
                "{} already in the inbox {} kept as from before the game and not played: \
                 `pbemd gm queue` lists them, `pbemd gm retry ID` plays one",
                count(*mails, "mail", "mails"),
                if *mails == 1 { "is" } else { "are" }
            ),
            OldMail::Taken => {
                "mail already in the inbox is taken and played as the game's (--take-old-mail)"
                    .into()
            }
        }
    }
}

/// After [`init`]: set the mail already in the inbox aside (D-1, D-2: mail from
/// before the game), unless `take` (`init --take-old-mail`). Over IMAP the cursor is put at
/// `end` (from [`imap_inbox_end`]), so nothing up to it is fetched. From a Maildir the
/// files in `new/` are stored as `before_game` (with a GM-queue entry each, not
/// played) and moved to `cur/`; files already in `cur/` were taken before and are
/// never read. Audited as `old_mail`.
pub async fn set_aside_old_mail(
    app: &App,
    now: DateTime<Utc>,
    end: Option<InboxEnd>,
    take: bool,
) -> Result<OldMail> {
    let at = clock::to_ms(now);
    let old = if take {
        OldMail::Taken
    } else {
        match (&app.cfg.inbound, end) {
            (config::Inbound::Imap(i), Some(end)) => {
                let mut conn = app.store.conn().await?;
                crate::store::inbox::set_imap_cursor(
                    &mut conn,
                    &i.params.mailbox,
                    end.uid_validity,
                    end.last_uid,
                )
                .await?;
                OldMail::LeftInMailbox {
                    mailbox: i.params.mailbox.clone(),
                    mails: end.mails,
                }
            }
            (config::Inbound::Imap(_), None) => OldMail::Taken,
            (config::Inbound::Maildir(dir), _) => OldMail::Kept {
                mails: keep_maildir_mail(app, dir, at).await?,
            },
        }
    };
    let mut conn = app.store.conn().await?;
    let detail = serde_json::json!({ "old_mail": format!("{old:?}") }).to_string();
    events::log(&mut conn, at, 1, "old_mail", None, None, &detail).await?;
    Ok(old)
}

/// Store each file of a Maildir's `new/` as from before the game, then move it to
/// `cur/` (store first, as the intake does). Returns how many were stored.
async fn keep_maildir_mail(app: &App, dir: &Path, at: i64) -> Result<usize> {
    use crate::store::inbox::{self, NewMail, Source, Stored};
    use crate::store::messages::{self, state, NewMessage};
    let md = crate::transport::maildir::Maildir::open(dir)?;
    let cap = app.cfg.limits.max_mail_bytes.saturating_add(1);
    let mut kept = 0;
    for name in md.list_new()? {
        let mail = md.read_new_capped(&name, cap)?;
        let raw = super::intake::stored_part(&mail.raw, mail.size, app.cfg.limits.max_mail_bytes);
        let (key, mid, sha) = super::intake::dedup_key(raw);
        let mut tx = app.store.begin().await?;
        let stored = inbox::insert_before_game(
            &mut tx,
            &[NewMail {
                dedup_key: &key,
                message_id: mid.as_deref(),
                sha256: &sha,
                source: Source::Maildir,
                raw,
                size: mail.size,
                received_at: at,
                imap: None,
            }],
        )
        .await?;
        if let [Stored::New(inbox_id)] = stored[..] {
            let from = raw_from(raw);
            let id = messages::insert(
                &mut tx,
                &NewMessage {
                    inbox_id,
                    kind: messages::UNHANDLED,
                    from_addr: from.as_deref(),
                    subject: &super::fault::raw_subject(raw),
                    body: "",
                    state: state::BEFORE_GAME,
                    reason: Some(
                        "in the game's inbox before the game began (pbemd init): not played; \
                         `pbemd gm retry ID` plays it, `pbemd gm reject ID --reason …` drops it",
                    ),
                    round: 1,
                    at,
                    ..Default::default()
                },
            )
            .await?;
            events::log(&mut tx, at, 1, "before_game", None, Some(id), &name).await?;
            kept += 1;
        }
        tx.commit()
            .await
            .map_err(|e| crate::store::StoreError::Query {
                what: "commit a mail from before the game",
                source: e,
            })?;
        md.mark_seen(&name)?;
    }
    Ok(kept)
}

/// The first From address of a raw mail, if one can be read.
fn raw_from(raw: &[u8]) -> Option<String> {
    std::panic::catch_unwind(|| {
        let m = mail_parser::MessageParser::new().parse_headers(raw)?;
        let addr = m.from()?.first()?.address()?.to_lowercase();
        Some(super::fault::clean_text(&addr, 200))
    })
    .ok()
    .flatten()
}

/// What came of the opening forms `init` queued: how many were sent, how many wait in
/// the outbox to be tried again, how many were given up, and the first failure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpeningSent {
    pub queued: usize,
    pub sent: usize,
    pub waiting: usize,
    pub given_up: usize,
    pub first_error: Option<String>,
}

impl OpeningSent {
    /// The line `pbemd init` prints: "opening forms: 6 of 6 sent", or what waits and why.
    pub fn said(&self) -> String {
        let mut line = format!("opening forms: {} of {} sent", self.sent, self.queued);
        if self.waiting > 0 {
            line.push_str(&format!(
                "; {} {} in the outbox and {} retried by `pbemd run` (or `pbemd tick`)",
                self.waiting,
                if self.waiting == 1 { "waits" } else { "wait" },
                if self.waiting == 1 { "is" } else { "are" }
            ));
        }
        if self.given_up > 0 {
            line.push_str(&format!(
                "; {} given up (`pbemd gm retry-mail ID` sends one again)",
                self.given_up
            ));
        }
        if let Some(e) = &self.first_error {
            line.push_str(&format!(" (first error: {e})"));
        }
        line
    }
}

/// Send the opening forms queued by [`mail_opening_forms`] and count, from their
/// outbox rows, what was sent.
pub async fn send_opening_forms(app: &App) -> Result<OpeningSent> {
    super::sender::flush_all(app).await?;
    let mut conn = app.store.conn().await?;
    let (_, gs) = app.state(&mut conn).await?;
    let rows =
        crate::store::outbox::with_key_prefix(&mut conn, &format!("opening:{}:", gs.round)).await?;
    let mut r = OpeningSent {
        queued: rows.len(),
        ..OpeningSent::default()
    };
    for row in &rows {
        match row.state.as_str() {
            "sent" => r.sent += 1,
            "failed" => r.given_up += 1,
            _ => r.waiting += 1,
        }
        if r.first_error.is_none() && row.state != "sent" {
            r.first_error = row.last_error.clone();
        }
    }
    Ok(r)
}

//! Absences, missed weekends and replacements (docs/gm/season.md, Absences, missed weekends
//! and replacements).
//!
//! Everything lives in the state (`Realm::season`, the realm's `emails`), so it rolls
//! back with `gm rollback` and the directory the mail router reads follows at once:
//! `App::directory` is built from the current state for every mail, so a running
//! daemon sees a new or removed address with the next mail, without a restart.
//!
//! - An absence mail (`<Land> till SL: frånvaro N` / `<Realm> to GM: absence N`) is
//!   granted within the game's cap: a receipt to the realm, a notice to the GM. Beyond
//!   the cap it waits in the GM queue (`gm realm NAME absence N` grants it).
//! - At the weekend's close, a realm with no form of its own (a form reused by
//!   `forms.missing: reuse-last` is not its own) that is not away misses a weekend;
//!   after `season.missed_before_replacement` in a row it seeks a replacement, and the
//!   GM is told once. A form of its own clears both.
//! - The GM adds or removes an address, or hands the realm to a new player.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::{fault, App, AppError, Result};
use crate::clock;
use crate::game::state::{Absence, RealmSeason};
use crate::game::{GameState, Lang};
use crate::mail::classify::AbsenceTopic;
use crate::mail::compose::Outgoing;
use crate::mail::parse::Inbound;
use crate::render::season_realms as text;
use crate::store::messages::{self, state, NewMessage};
use crate::store::{self, events, Conn};

/// The most weekends the GM may give in one `gm realm NAME absence N`.
pub const GM_MAX_ABSENCE_WEEKENDS: u32 = 52;

/// An absence mail as the mail handler received it.
pub struct AbsenceMail<'a> {
    pub realm: &'a str,
    pub lang: Lang,
    pub mail: &'a Inbound,
    pub subject: &'a str,
    pub inbox_id: i64,
    /// The message as stored (state and reason are set here).
    pub base: &'a NewMessage<'a>,
}

/// Handle a realm's absence mail inside the mail's transaction: granted within the cap,
/// refused when its count is unreadable or out of range, else left to the GM.
pub async fn absence_mail(
    app: &App,
    conn: &mut Conn,
    m: &AbsenceMail<'_>,
    topic: AbsenceTopic,
) -> Result<()> {
    let max = app.cfg.season.max_absence_weekends;
    let n = match topic {
        AbsenceTopic::Weekends(n) if (1..=max).contains(&n) => n,
        AbsenceTopic::Weekends(_) => return refuse_absence(app, conn, m, max).await,
        AbsenceTopic::Unreadable(_) => return refuse_absence(app, conn, m, max).await,
    };
    let (_, gs) = app.state(conn).await?;
    let r = gs.realm(m.realm).ok_or_else(|| no_realm(m.realm))?;
    let used = r.season.absences_used;
    let cap = app.cfg.season.max_absences;
    // The same absence again (a reply to the receipt, say) is answered, not counted.
    let repeated = r.season.absent == Some(wanted(gs.round, n));
    if used >= cap && !repeated {
        return absence_to_gm(app, conn, m, used, cap).await;
    }
    let id = store_message(conn, m, state::ACCEPTED, None).await?;
    let g = grant(app, conn, m.realm, n, "mail", id).await?;
    let body = receipt_text(app, &g, m.lang);
    reply(app, conn, m, "absence_receipt", &body).await?;
    if g.repeated {
        return Ok(());
    }
    let gm = text::gm_absence(m.realm, Some(&g.receipt(&[])), g.used, cap);
    let subject = format!("Frånvaro / absence: {}", m.realm);
    app.notify_gm(conn, &format!("absence:{}", m.inbox_id), &subject, &gm)
        .await
}

/// The absence of `n` weekends from `round` on.
fn wanted(round: u32, n: u32) -> Absence {
    Absence {
        from_round: round,
        to_round: round.saturating_add(n.saturating_sub(1)),
    }
}

/// An absence granted: the state saved and audited.
struct Granted {
    /// The realm was already away for exactly these weekends: nothing changed.
    repeated: bool,
    realm: String,
    weekends: u32,
    absence: Absence,
    used: u32,
    cap: u32,
    reuse_last: bool,
    /// The form deadlines of the weekends away.
    deadlines: Vec<DateTime<Utc>>,
}

impl Granted {
    fn receipt<'a>(&'a self, deadlines: &'a [String]) -> text::AbsenceReceipt<'a> {
        text::AbsenceReceipt {
            realm: &self.realm,
            weekends: self.weekends,
            from_round: self.absence.from_round,
            to_round: self.absence.to_round,
            deadlines,
            reuse_last: self.reuse_last,
            used: self.used,
            cap: self.cap,
        }
    }
}

/// The receipt a realm reads for a granted absence.
fn receipt_text(app: &App, g: &Granted, lang: Lang) -> String {
    let deadlines: Vec<String> = g.deadlines.iter().map(|t| app.local(*t, lang)).collect();
    text::absence_receipt(lang, &g.receipt(&deadlines))
}

/// Mark `realm` away for `n` weekends from the current round on, as a new state version
/// (audited as `absence_granted`, `by` mail or the GM). `ref_id`: the message, if any.
async fn grant(
    app: &App,
    conn: &mut Conn,
    realm: &str,
    n: u32,
    by: &str,
    ref_id: i64,
) -> Result<Granted> {
    let (version, gs) = app.state(conn).await?;
    let mut gs = (*gs).clone();
    let round = gs.round;
    let absence = wanted(round, n);
    let r = gs.realm_mut(realm).ok_or_else(|| no_realm(realm))?;
    let repeated = r.season.absent == Some(absence);
    if !repeated {
        r.season.absent = Some(absence);
        r.season.absences_used = r.season.absences_used.saturating_add(1);
    }
    let used = r.season.absences_used;
    let v = if repeated {
        version
    } else {
        let reason = format!("{realm} is away for rounds {round}–{}", absence.to_round);
        app.save_state(conn, version, &gs, &reason).await?
    };
    let cap = app.cfg.season.max_absences;
    let d = json!({"weekends": n, "from_round": round, "to_round": absence.to_round,
                   "used": used, "cap": cap, "by": by, "state_version": v});
    let at = clock::to_ms(app.now());
    let kind = if repeated {
        "absence_repeated"
    } else {
        "absence_granted"
    };
    events::log(
        conn,
        at,
        round as i64,
        kind,
        Some(realm),
        Some(ref_id),
        &d.to_string(),
    )
    .await?;
    Ok(Granted {
        repeated,
        realm: realm.to_string(),
        weekends: n,
        absence,
        used,
        cap,
        reuse_last: app.cfg.forms.missing == crate::config::MissingForm::ReuseLast,
        deadlines: deadlines(app, conn, &gs, realm, n).await?,
    })
}

/// `realm`'s form deadlines of the next `n` weekends, the current round's first.
async fn deadlines(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    realm: &str,
    n: u32,
) -> Result<Vec<DateTime<Utc>>> {
    let mut out = Vec::new();
    let mut next = super::process::round_deadline(app, conn, gs, Some(realm)).await?;
    while let Some(t) = next.filter(|_| out.len() < n as usize) {
        out.push(t);
        let after = t + chrono::Duration::seconds(1);
        next = super::season_calendar::form_deadline(app, gs, Some(realm), after);
    }
    Ok(out)
}

/// Beyond the cap: the mail waits in the GM queue, the realm is told the GM decides,
/// and the GM is told.
async fn absence_to_gm(
    app: &App,
    conn: &mut Conn,
    m: &AbsenceMail<'_>,
    used: u32,
    cap: u32,
) -> Result<()> {
    let reason = format!("absence beyond the cap ({used} of {cap} used): the GM decides");
    let id = store_message(conn, m, state::GM_QUEUE, Some(&reason)).await?;
    let round = app.state(conn).await?.1.round as i64;
    let at = clock::to_ms(app.now());
    events::log(
        conn,
        at,
        round,
        "absence_held",
        Some(m.realm),
        Some(id),
        &reason,
    )
    .await?;
    let subject = fault::clean_text(m.subject, 200);
    let body = text::absence_beyond_cap(m.lang, &subject, cap);
    reply(app, conn, m, "absence_held", &body).await?;
    let gm = format!(
        "{}\n`pbemd gm show {id}`\n",
        text::gm_absence(m.realm, None, used, cap)
    );
    let subject = format!("Frånvaro / absence: {} (SL avgör / GM decides)", m.realm);
    app.notify_gm(conn, &format!("absence:{}", m.inbox_id), &subject, &gm)
        .await
}

/// An absence whose count is missing, unreadable or out of range: refused with the
/// right form.
async fn refuse_absence(app: &App, conn: &mut Conn, m: &AbsenceMail<'_>, max: u32) -> Result<()> {
    let subject = crate::mail::subject::shown(m.subject.trim());
    let reason = text::absence_refusal(m.lang, m.realm, &fault::clean_text(&subject, 200), max);
    let id = store_message(conn, m, state::REFUSED, Some(&reason)).await?;
    let data = json!({"realm": m.realm, "subject": subject, "reason": reason});
    let body = app.renderer.render("refusal", m.lang, &data)?;
    reply(app, conn, m, "refusal", &body).await?;
    let round = app.state(conn).await?.1.round as i64;
    let at = clock::to_ms(app.now());
    events::log(
        conn,
        at,
        round,
        "absence_refused",
        Some(m.realm),
        Some(id),
        &reason,
    )
    .await?;
    Ok(())
}

async fn store_message(
    conn: &mut Conn,
    m: &AbsenceMail<'_>,
    st: &str,
    reason: Option<&str>,
) -> Result<i64> {
    let row = NewMessage {
        state: st,
        reason,
        ..m.base.clone()
    };
    Ok(messages::insert(conn, &row).await?)
}

/// A reply to the absence mail, to the realm's addresses, keyed by the inbox row.
async fn reply(
    app: &App,
    conn: &mut Conn,
    m: &AbsenceMail<'_>,
    kind: &'static str,
    body: &str,
) -> Result<()> {
    let (_, gs) = app.state(conn).await?;
    let o = Outgoing {
        kind,
        dedup_key: format!("{kind}:{}", m.inbox_id),
        to: gs
            .realm(m.realm)
            .map(|r| r.emails.clone())
            .unwrap_or_default(),
        subject: crate::mail::subject::reply_subject(m.subject, m.lang),
        body: body.to_string(),
        in_reply_to: m.mail.message_id.clone(),
    };
    // A reply to a player's mail: flood control counts it with the others.
    super::season_notices::flood::enqueue_reply(app, conn, m.realm, &o).await?;
    Ok(())
}

fn no_realm(realm: &str) -> AppError {
    AppError::Refused(format!("no realm named {realm}"))
}

// ------------------------------------------------------------ the weekend's close

/// At the weekend's close (inside the resolution's transaction): count each playing
/// realm's missed weekend into `next` (the state about to be saved, already advanced),
/// end absences that are over, and tell the GM of each realm that now seeks a
/// replacement. `before` is the state resolved.
pub async fn count_weekend(
    app: &App,
    conn: &mut Conn,
    before: &GameState,
    next: &mut GameState,
) -> Result<()> {
    let round = before.round;
    let threshold = app.cfg.season.missed_before_replacement;
    let mut seeking = Vec::new();
    // The realms whose standing form of the round is their own: one reused by
    // `forms.missing: reuse-last` stores an earlier round's message again.
    let own_forms = store::forms::realms_with_own_form(conn, round as i64).await?;
    for r in before
        .realms
        .iter()
        .filter(|r| !r.emails.is_empty() && !r.eliminated)
    {
        let own = own_forms.contains(r.name.as_str());
        let Some(s) = next.realm_mut(&r.name).map(|n| &mut n.season) else {
            continue;
        };
        if missed(s, own, round, threshold) {
            seeking.push((r.name.clone(), s.missed_in_row));
        }
    }
    for r in &mut next.realms {
        if r.season.absent.is_some_and(|a| a.to_round < next.round) {
            r.season.absent = None;
        }
    }
    for (realm, n) in seeking {
        seeking_to_gm(app, conn, &realm, n, round).await?;
    }
    Ok(())
}

/// One realm's weekend: a form of its own clears the count and the mark; a weekend
/// away changes nothing; else one more missed. True when the realm starts seeking a
/// replacement now.
pub fn missed(s: &mut RealmSeason, own_form: bool, round: u32, threshold: u32) -> bool {
    if own_form {
        s.missed_in_row = 0;
        s.seeking_replacement = false;
        return false;
    }
    if s.absent_in(round) {
        return false;
    }
    s.missed_in_row = s.missed_in_row.saturating_add(1);
    if s.missed_in_row >= threshold && !s.seeking_replacement {
        s.seeking_replacement = true;
        return true;
    }
    false
}

async fn seeking_to_gm(app: &App, conn: &mut Conn, realm: &str, n: u32, round: u32) -> Result<()> {
    let at = clock::to_ms(app.now());
    let d = json!({"missed_in_row": n, "round": round}).to_string();
    events::log(
        conn,
        at,
        round as i64,
        "realm_seeking_replacement",
        Some(realm),
        None,
        &d,
    )
    .await?;
    let subject = format!("Ersättare sökes / seeking a replacement: {realm}");
    let body = text::gm_seeking_replacement(realm, n, round);
    app.notify_gm(conn, &format!("seeking:{round}:{realm}"), &subject, &body)
        .await
}

/// Whether the realm is away for the current round's weekend (reminders skip it; the
/// GM's list of missing forms names it apart).
pub fn away(gs: &GameState, realm: &str) -> bool {
    gs.realm(realm)
        .is_some_and(|r| r.season.absent_in(gs.round))
}

// ------------------------------------------------------------ the GM's commands

async fn commit(tx: store::Tx) -> Result<()> {
    tx.commit().await.map_err(|source| {
        AppError::Store(store::StoreError::Query {
            what: "commit a GM change of a realm",
            source,
        })
    })
}

/// An address as the GM typed it, checked and lower-cased: one `@`, a dot in the
/// domain, no spaces, quotes, brackets or control characters, at most 254 characters.
pub fn check_address(address: &str) -> Result<String> {
    let a = address.trim().trim_start_matches('<').trim_end_matches('>');
    let bad = |why: &str| {
        AppError::Refused(format!(
            "`{}` is not a mail address ({why}); write it as name@example.org",
            fault::clean_text(address, 100)
        ))
    };
    if a.is_empty() || a.chars().count() > 254 {
        return Err(bad("empty or longer than 254 characters"));
    }
    if a.chars()
        .any(|c| c.is_whitespace() || c.is_control() || "<>()[],;:\\\"".contains(c))
    {
        return Err(bad(
            "it holds a space, a control character or one of <>()[],;:\\\"",
        ));
    }
    match a.split_once('@') {
        Some((local, domain))
            if !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.') =>
        {
            Ok(a.to_lowercase())
        }
        _ => Err(bad("it needs one @ and a domain with a dot")),
    }
}

/// Refuse an address that belongs to another realm, the game or the GM.
fn check_free(app: &App, gs: &GameState, realm: &str, address: &str) -> Result<()> {
    if address.eq_ignore_ascii_case(&app.cfg.game_address)
        || address.eq_ignore_ascii_case(&app.cfg.gm_address)
    {
        return Err(AppError::Refused(format!(
            "{address} is the game's or the GM's own address, never a realm's"
        )));
    }
    match gs.realm_by_email(address) {
        Some(other) if other.name != realm => Err(AppError::Refused(format!(
            "{address} is already {}'s address; remove it there first (`pbemd gm realm {} address remove {address}`)",
            other.name, other.name
        ))),
        _ => Ok(()),
    }
}

/// A GM change of one realm: the state it starts from, in an open transaction.
struct Change {
    tx: store::Tx,
    version: i64,
    gs: GameState,
}

async fn begin(app: &App, realm: &str) -> Result<Change> {
    let mut tx = app.store.begin().await?;
    let (version, gs) = app.state(&mut tx).await?;
    if gs.realm(realm).is_none() {
        return Err(no_realm(realm));
    }
    Ok(Change {
        tx,
        version,
        gs: (*gs).clone(),
    })
}

impl Change {
    /// Save the changed state and log the change as `kind` with `detail` (not yet
    /// committed: the caller queues the mails first). Returns the state version.
    async fn save(
        &mut self,
        app: &App,
        realm: &str,
        kind: &str,
        detail: serde_json::Value,
    ) -> Result<i64> {
        let reason = format!("the GM changed {realm} ({kind})");
        let v = app
            .save_state(&mut self.tx, self.version, &self.gs, &reason)
            .await?;
        let at = clock::to_ms(app.now());
        let round = self.gs.round as i64;
        let d = detail.to_string();
        events::log(&mut self.tx, at, round, kind, Some(realm), Some(v), &d).await?;
        Ok(v)
    }

    /// Queue a mail to `to` for the realm, keyed `<kind>:<realm>:<version>`.
    async fn mail(
        &mut self,
        app: &App,
        key: String,
        to: Vec<String>,
        subject: String,
        body: String,
    ) -> Result<()> {
        let o = Outgoing {
            kind: "gm_realm",
            dedup_key: key,
            to,
            subject,
            body,
            in_reply_to: None,
        };
        app.enqueue(&mut self.tx, &o).await?;
        Ok(())
    }
}

/// The subject of the GM's notice to a realm about its addresses.
fn address_subject(realm: &str, lang: Lang) -> String {
    match lang {
        Lang::Sv => format!("{realm}: adresser / spelledaren"),
        Lang::En => format!("{realm}: addresses / the GM"),
    }
}

/// `gm realm NAME address add ADDRESS`: the address becomes the realm's too; every
/// address of the realm (the new one included) is told.
pub async fn address_add(app: &App, realm: &str, address: &str) -> Result<()> {
    let address = check_address(address)?;
    let mut c = begin(app, realm).await?;
    check_free(app, &c.gs, realm, &address)?;
    let r = c.gs.realm_mut(realm).ok_or_else(|| no_realm(realm))?;
    if r.emails.iter().any(|e| e.eq_ignore_ascii_case(&address)) {
        return Err(AppError::Refused(format!(
            "{address} is already {realm}'s address"
        )));
    }
    r.emails.push(address.clone());
    let (to, lang) = (r.emails.clone(), r.language);
    let d = json!({"address": address, "emails": to});
    let v = c.save(app, realm, "gm_address_add", d).await?;
    let body = text::address_changed(lang, realm, &address, true);
    let key = format!("gm_address_add:{realm}:{v}");
    c.mail(app, key, to, address_subject(realm, lang), body)
        .await?;
    commit(c.tx).await
}

/// `gm realm NAME address remove ADDRESS`: mail from it is no longer the realm's; the
/// realm's remaining addresses are told. The last address is never removed.
pub async fn address_remove(app: &App, realm: &str, address: &str) -> Result<()> {
    let wanted = address.trim().trim_start_matches('<').trim_end_matches('>');
    let mut c = begin(app, realm).await?;
    let r = c.gs.realm_mut(realm).ok_or_else(|| no_realm(realm))?;
    let Some(at) = r.emails.iter().position(|e| e.eq_ignore_ascii_case(wanted)) else {
        return Err(AppError::Refused(format!(
            "`{}` is not an address of {realm}; its addresses: {}",
            fault::clean_text(wanted, 100),
            r.emails.join(", ")
        )));
    };
    if r.emails.len() == 1 {
        return Err(AppError::Refused(format!(
            "{} is {realm}'s last address: a realm needs one; `pbemd gm realm {realm} replace NEW_ADDRESS` hands it to another address",
            r.emails[at]
        )));
    }
    let removed = r.emails.remove(at);
    let (to, lang) = (r.emails.clone(), r.language);
    let d = json!({"address": removed, "emails": to});
    let v = c.save(app, realm, "gm_address_remove", d).await?;
    let body = text::address_changed(lang, realm, &removed, false);
    let key = format!("gm_address_remove:{realm}:{v}");
    c.mail(app, key, to, address_subject(realm, lang), body)
        .await?;
    commit(c.tx).await
}

/// What `gm realm NAME replace` did.
#[derive(Debug)]
pub struct Replaced {
    pub old: Vec<String>,
    pub state_version: i64,
}

/// `gm realm NAME replace NEW_ADDRESS [--display NAME]`: the new address is the realm's
/// only one from the next mail on; the missed count, the mark and any absence are
/// cleared and the new player starts with the game's full allowance of absences; the
/// new player gets the realm's current form at once, under a welcome line.
pub async fn replace(
    app: &App,
    realm: &str,
    address: &str,
    display: Option<&str>,
) -> Result<Replaced> {
    let address = check_address(address)?;
    let display = display.map(check_display).transpose()?;
    let mut c = begin(app, realm).await?;
    check_free(app, &c.gs, realm, &address)?;
    let r = c.gs.realm_mut(realm).ok_or_else(|| no_realm(realm))?;
    let old = std::mem::replace(&mut r.emails, vec![address.clone()]);
    // The old player's secret never passes to the new one; in the token modes the new
    // player gets a fresh one with the welcome mail.
    r.token = app
        .cfg
        .sender_check
        .uses_token()
        .then(super::sender_auth::fresh_token);
    let note = r
        .token
        .as_deref()
        .map(|t| crate::render::sender_auth::token_note(r.language, realm, t))
        .unwrap_or_default();
    r.season = RealmSeason {
        player: display.clone(),
        ..RealmSeason::default()
    };
    let lang = r.language;
    let d = json!({"old": old, "new": address, "display": display});
    let v = c.save(app, realm, "gm_realm_replace", d).await?;
    let form = current_form(app, &mut c.tx, &c.gs, realm).await?;
    let body = format!(
        "{}
{note}{form}",
        text::welcome(lang, realm, display.as_deref())
    );
    let subject = super::scheduler::form_subject(realm, lang);
    let key = format!("gm_realm_replace:{realm}:{v}");
    c.mail(app, key, vec![address], subject, body).await?;
    commit(c.tx).await?;
    Ok(Replaced {
        old,
        state_version: v,
    })
}

/// A player's name as the GM gives it: 1–100 characters, no control characters.
fn check_display(name: &str) -> Result<String> {
    let n = name.trim();
    if n.is_empty() || n.chars().count() > 100 || n.chars().any(char::is_control) {
        return Err(AppError::Refused(
            "--display takes a name of 1 to 100 characters without control characters".into(),
        ));
    }
    Ok(n.to_string())
}

/// The realm's current form as a reminder shows it: the state, the last weekend's
/// report and this round's deadline.
async fn current_form(app: &App, conn: &mut Conn, gs: &GameState, realm: &str) -> Result<String> {
    let events = super::weekend::last_events(conn, gs).await?;
    // The round's deadline and window; a new player's first form names every realm, as
    // the opening forms do.
    let start = super::process::round_started(conn)
        .await?
        .unwrap_or_else(|| app.now());
    let ctx = super::process::form_context(app, gs, realm, start, None);
    Ok(app.renderer.result_form_with(gs, realm, &ctx, &events)?)
}

/// `gm realm NAME absence N`: the GM grants an absence of N weekends from the current
/// round on (counted, whatever the cap), and the realm gets the receipt; `absence 0`
/// ends an absence now. Returns the absence granted, if any.
pub async fn gm_absence(app: &App, realm: &str, n: u32) -> Result<Option<Absence>> {
    if n > GM_MAX_ABSENCE_WEEKENDS {
        return Err(AppError::Refused(format!(
            "an absence is at most {GM_MAX_ABSENCE_WEEKENDS} weekends; {n} is too many"
        )));
    }
    if n == 0 {
        return end_absence(app, realm).await.map(|()| None);
    }
    let mut tx = app.store.begin().await?;
    let (version, gs) = app.state(&mut tx).await?;
    let r = gs.realm(realm).ok_or_else(|| no_realm(realm))?;
    let (lang, to) = (r.language, r.emails.clone());
    let g = grant(app, &mut tx, realm, n, "gm", version).await?;
    let o = Outgoing {
        kind: "absence_receipt",
        dedup_key: format!("absence_gm:{realm}:{version}"),
        to,
        subject: absence_subject(realm, lang),
        body: receipt_text(app, &g, lang),
        in_reply_to: None,
    };
    app.enqueue(&mut tx, &o).await?;
    commit(tx).await?;
    Ok(Some(g.absence))
}

/// `gm realm NAME absence 0`: the realm's absence ends now (audited as
/// `absence_ended`); the realm is told its weekends count again from this round.
async fn end_absence(app: &App, realm: &str) -> Result<()> {
    let mut c = begin(app, realm).await?;
    let round = c.gs.round;
    let r = c.gs.realm_mut(realm).ok_or_else(|| no_realm(realm))?;
    let Some(was) = r.season.absent.take() else {
        return Err(AppError::Refused(format!("{realm} is not away")));
    };
    let (to, lang) = (r.emails.clone(), r.language);
    let v = c
        .save(app, realm, "absence_ended", json!({"ended": was}))
        .await?;
    let body = text::absence_ended(lang, realm, round);
    let key = format!("absence_ended:{realm}:{v}");
    c.mail(app, key, to, absence_subject(realm, lang), body)
        .await?;
    commit(c.tx).await
}

/// The subject of an absence the GM granted.
fn absence_subject(realm: &str, lang: Lang) -> String {
    match lang {
        Lang::Sv => format!("{realm}: frånvaro"),
        Lang::En => format!("{realm}: absence"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missed_weekends_count_up_to_the_mark_once_and_a_form_clears_them() {
        let mut s = RealmSeason::default();
        assert!(!missed(&mut s, false, 1, 2));
        assert_eq!(s.missed_in_row, 1);
        assert!(missed(&mut s, false, 2, 2));
        assert!(s.seeking_replacement);
        assert!(!missed(&mut s, false, 3, 2), "the GM is told once");
        assert_eq!(s.missed_in_row, 3);
        assert!(!missed(&mut s, true, 4, 2));
        assert_eq!((s.missed_in_row, s.seeking_replacement), (0, false));
    }

    #[test]
    fn an_address_is_checked_and_lower_cased() {
        assert_eq!(
            check_address(" <Eva@New.Example> ").unwrap(),
            "eva@new.example"
        );
        for bad in [
            "",
            "eva",
            "eva@",
            "@new.example",
            "eva@new",
            "eva@@new.example",
            "a@b@new.example",
            "eva smith@new.example",
            "eva@new.example\r\nBcc: x@y.example",
            "\"eva\"@new.example",
            "eva@.example",
        ] {
            assert!(check_address(bad).is_err(), "{bad:?}");
        }
        assert!(check_address(&format!("{}@new.example", "a".repeat(250))).is_err());
    }

    #[test]
    fn a_weekend_away_is_not_missed() {
        let mut s = RealmSeason {
            absent: Some(Absence {
                from_round: 3,
                to_round: 4,
            }),
            missed_in_row: 1,
            ..Default::default()
        };
        assert!(!missed(&mut s, false, 3, 2));
        assert!(!missed(&mut s, false, 4, 2));
        assert_eq!(s.missed_in_row, 1);
        assert!(missed(&mut s, false, 5, 2));
    }
}

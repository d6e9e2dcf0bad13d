//! The weekend in the app: resolved exactly once at the `resolve` event, told at the
//! `results` event, and in the GM's hands between the two (docs/gm/weekend.md).
//!
//! A resolution stores its inputs (the state version resolved, the orders that counted,
//! the rule settings, the seed) and its outputs (the engine's state, the events, the
//! rolls, the state version written) in the transaction that writes the new state, so a
//! crash leaves the previous state and a rerun gives the same result bit for bit. The
//! engine (`game::weekend::resolve`) is pure; this file gathers, stores and renders.

use serde_json::json;

use super::{fault, App, AppError, Result};
use crate::clock::{self, from_ms};
use crate::game::event::Event;
use crate::game::state::Phase;
use crate::game::state::Realm;
use crate::game::weekend::{self, FormOrders, Orders, Resolution};
use crate::game::GameState;
use crate::mail::compose::Outgoing;
use crate::render::view::FormIndex;
use crate::store::{self, events, meta, resolutions, Conn};

/// The meta key naming the round of the Monday forms the `results` event held, because
/// the weekend's resolution had been rolled back (`gm resolve` sends them) or the GM
/// asked to hold them (`gm results release` sends them); see
/// [`super::results_hold::waiting`].
pub const RESULTS_HELD: &str = "weekend_results_held";

fn json_err(e: serde_json::Error) -> AppError {
    AppError::BadState(e.to_string())
}

/// The orders that counted for the state's round: every realm's standing form (the
/// latest stored; with `forms.missing: reuse-last` the form-close event has already
/// stored last round's form for realms that sent none), its accepted orders in form
/// order, earliest form first. A stored form that no longer reads counts as no orders
/// and is logged.
pub async fn counted_orders(conn: &mut Conn, gs: &GameState, at: i64) -> Result<Orders> {
    let round = gs.round as i64;
    let mut forms = Vec::new();
    let mut standing = store::forms::standing_all(conn, round).await?;
    for realm in &gs.realms {
        let Some(f) = standing.remove(&realm.name) else {
            continue;
        };
        let checked = f
            .orders
            .as_deref()
            .map(serde_json::from_str::<crate::forms::Checked>);
        let orders = match checked {
            Some(Ok(c)) => c.orders().into_iter().cloned().collect(),
            Some(Err(e)) => {
                let d = json!({"form_id": f.id, "error": e.to_string()}).to_string();
                events::log(
                    conn,
                    at,
                    round,
                    "form_unreadable",
                    Some(&realm.name),
                    Some(f.id),
                    &d,
                )
                .await?;
                Vec::new()
            }
            None => Vec::new(),
        };
        forms.push(FormOrders {
            realm: realm.name.clone(),
            received_at: from_ms(f.received_at),
            orders,
        });
    }
    forms.sort_by(|a, b| (a.received_at, &a.realm).cmp(&(b.received_at, &b.realm)));
    Ok(Orders { forms })
}

/// Run the engine on the state's round with the state's settings and seed.
pub fn run_engine(gs: &GameState, orders: &Orders) -> Resolution {
    weekend::resolve(gs, orders, &gs.settings, gs.game.seed)
}

/// The round advance after a resolution: the next round begins, allowances renew
/// (R-AGENT-4), and spy mission 5 keeps contacts of this round and the last only.
pub fn advance(gs: &mut GameState) {
    gs.round += 1;
    for r in &mut gs.realms {
        r.sent = Default::default();
    }
    let round_now = gs.round;
    gs.contacts.retain(|c| c.round + 1 >= round_now);
}

/// What a resolution did.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub id: i64,
    pub round: i64,
    pub new_version: i64,
    pub forms_from: Vec<String>,
    pub events: usize,
    pub rolls: usize,
    /// The state written (`new_version`): for [`App::remember_state`] once the
    /// caller's transaction commits, so the next unit of work does not parse it again.
    pub saved: super::SavedState,
}

/// Resolve the current round and store it, inside the caller's transaction: the engine's
/// result plus the round advance as a new state version, and the resolution row. Refused
/// when a resolution of the round already stands (exactly once).
pub async fn resolve_round(
    app: &App,
    conn: &mut Conn,
    reason: &str,
    report_at: chrono::DateTime<chrono::Utc>,
) -> Result<Resolved> {
    use tracing::Instrument;
    let started = std::time::Instant::now();
    let span = tracing::info_span!(
        "resolve",
        game = %app.cfg.game_name,
        round = tracing::field::Empty,
    );
    let r = resolve_round_timed(app, conn, reason, report_at)
        .instrument(span.clone())
        .await;
    if let Ok(done) = &r {
        span.record("round", done.round);
        let took = started.elapsed().as_secs_f64();
        app.metrics.resolution.observe(took);
        span.in_scope(|| tracing::info!(seconds = took, "weekend resolved"));
    }
    r
}

async fn resolve_round_timed(
    app: &App,
    conn: &mut Conn,
    reason: &str,
    report_at: chrono::DateTime<chrono::Utc>,
) -> Result<Resolved> {
    let (version, gs) = app.state(conn).await?;
    let round = gs.round as i64;
    if resolutions::standing_told(conn, round).await?.is_some() {
        return Err(AppError::Refused(format!(
            "round {round} is already resolved; `pbemd gm rollback` undoes it first"
        )));
    }
    let at = clock::to_ms(app.now());
    let orders = counted_orders(conn, &gs, at).await?;
    let res = run_engine(&gs, &orders);
    let mut next = res.state.clone();
    advance(&mut next);
    // Missed weekends and absences (docs/gm/season.md): app bookkeeping on the
    // saved state, outside the engine's output that `gm replay` compares.
    super::season_realms::count_weekend(app, conn, &gs, &mut next).await?;
    let new_version = app.save_state(conn, version, &next, reason).await?;
    let next = std::sync::Arc::new(next);
    let row = resolutions::NewResolution {
        round,
        base_version: version,
        new_version,
        orders: &doc(&orders)?,
        settings: &doc(&gs.settings)?,
        seed: gs.game.seed,
        output_state: &doc(&res.state)?,
        events: &doc(&res.events)?,
        rolls: &doc(&res.rolls)?,
        at,
    };
    let id = resolutions::insert(conn, &row).await?;
    // Test-only: the process dies here, mid-resolution, before anything commits.
    fault::resolve_hook();
    let forms_from: Vec<String> = orders.forms.iter().map(|f| f.realm.clone()).collect();
    let d = json!({"resolution": id, "forms_from": forms_from, "events": res.events.len(),
                   "rolls": res.rolls.len(), "state_version": new_version, "seed": gs.game.seed.to_string()});
    events::log(
        conn,
        at,
        round,
        "weekend_resolved",
        None,
        Some(id),
        &d.to_string(),
    )
    .await?;
    // The GM's report of this resolution, in the same transaction (once).
    let w = super::season_report::Weekend {
        round,
        id,
        created_at: at,
        base: &gs,
        after: &res.state,
        orders: &orders,
        events: &res.events,
    };
    super::season_report::queue_fresh(app, conn, &w, report_at).await?;
    Ok(Resolved {
        id,
        round,
        new_version,
        forms_from,
        events: res.events.len(),
        rolls: res.rolls.len(),
        saved: super::SavedState {
            version: new_version,
            state: next,
        },
    })
}

/// A document as stored.
fn doc<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(json_err)
}

/// The events of the weekend the state's round follows (its standing resolution).
pub async fn last_events(conn: &mut Conn, gs: &GameState) -> Result<Vec<Event>> {
    let standing = resolutions::standing_told(conn, gs.round as i64 - 1).await?;
    events_of(standing.as_ref())
}

/// The events a stored resolution (if any) produced.
fn events_of(res: Option<&resolutions::Told>) -> Result<Vec<Event>> {
    res.map_or(Ok(Vec::new()), |r| {
        serde_json::from_str(&r.events).map_err(json_err)
    })
}

/// The `results` event: every realm's Monday form with its report of the weekend. When
/// the weekend's resolution was rolled back and not yet resolved again, or the GM asked
/// to hold them, the forms are held (the GM is told; `gm resolve`, or for the GM's hold
/// `gm results release`, sends them).
pub async fn results(
    app: &App,
    conn: &mut Conn,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<Mailed> {
    let (_, gs) = app.state(conn).await?;
    let w = super::results_hold::waiting(conn, &gs).await?;
    if !(w.rolled_back || w.asked) {
        return send_results(app, conn, &gs, at).await;
    }
    let now = clock::to_ms(app.now());
    meta::set(conn, RESULTS_HELD, &w.forms_round.to_string()).await?;
    let by = if w.asked { "gm" } else { "rollback" };
    let d = json!({"round": w.weekend, "forms_round": w.forms_round, "by": by}).to_string();
    events::log(
        conn,
        now,
        i64::from(gs.round),
        "results_held",
        None,
        None,
        &d,
    )
    .await?;
    let (sv, en) = match (w.asked, w.rolled_back) {
        (true, true) => (
            "spelledaren höll resultaten och helgen rullades tillbaka, så inga skickades. \
             `pbemd gm resolve` avgör den igen; `pbemd gm results release` skickar sedan \
             formulären.",
            "the GM held the results and the weekend was rolled back, so none went out. \
             `pbemd gm resolve` resolves it again; `pbemd gm results release` then sends \
             the forms.",
        ),
        (true, false) => (
            "spelledaren höll resultaten, så inga skickades. `pbemd gm results \
             release` skickar formulären.",
            "the GM held the results, so none went out. `pbemd gm results release` \
             sends the forms.",
        ),
        (false, _) => (
            "helgen rullades tillbaka och är inte avgjord igen, så inga resultat \
             skickades. `pbemd gm resolve` avgör den och skickar formulären.",
            "the weekend was rolled back and not resolved again, so no results went \
             out. `pbemd gm resolve` resolves it and sends the forms.",
        ),
    };
    let round = w.weekend;
    let o = Outgoing {
        kind: "gm_notice",
        dedup_key: format!("results_held:{}:{}", w.forms_round, clock::to_ms(at)),
        to: vec![app.cfg.gm_address.clone()],
        subject: format!("Resultat runda {round} väntar / results held"),
        body: format!("Runda {round}: {sv}\n\nRound {round}: {en}\n"),
        in_reply_to: None,
    };
    app.enqueue(conn, &o).await?;
    Ok(Mailed::default())
}

/// What a mailing of the Monday forms did.
#[derive(Debug, Default)]
pub struct Mailed {
    /// The realms mailed.
    pub realms: Vec<String>,
    /// The realms not mailed because they have their opening form of the round already
    /// (the `results` event before the first weekend).
    pub had_opening: Vec<String>,
    /// The state written when the results put it in the weekday phase: for
    /// [`App::remember_state`] once the caller's transaction commits.
    pub saved: Option<super::SavedState>,
}

/// The Monday forms of the weekend that stands, for the `results` event and for
/// `gm results release`.
pub(super) async fn send_results(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<Mailed> {
    let round = gs.round as i64;
    let standing = resolutions::standing_told(conn, round - 1).await?;
    let told = standing
        .as_ref()
        .is_none_or(|r| r.results_sent_at.is_some());
    if gs.phase == Phase::Finished && told {
        // A won game whose last results went out: nothing more to tell.
        return Ok(Mailed::default());
    }
    // Before the first weekend there is nothing to tell: a realm that has its opening
    // form of this round already (`init` mailed it) is not mailed the same form again.
    let had_opening = match standing {
        None => opening_forms_sent(conn, gs).await?,
        Some(_) => Default::default(),
    };
    let m = Mailing {
        state: gs,
        resolution: standing.as_ref(),
        deadline_from: at,
        key: format!("result:{round}:{}", clock::to_ms(at)),
        correction: false,
        skip: &had_opening,
    };
    let mut mailed = mail_monday(app, conn, &m).await?;
    mailed.had_opening = had_opening.into_iter().collect();
    mailed.had_opening.sort();
    Ok(mailed)
}

/// The playing realms whose opening form of the state's round is in the outbox.
async fn opening_forms_sent(
    conn: &mut Conn,
    gs: &GameState,
) -> Result<std::collections::HashSet<String>> {
    let keys: Vec<String> = gs
        .realms
        .iter()
        .map(|r| format!("opening:{}:{}", gs.round, r.name))
        .collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let found = store::outbox::ids_of(conn, &keys).await?;
    let prefix = format!("opening:{}:", gs.round);
    Ok(found
        .into_iter()
        .filter_map(|(key, _)| key.strip_prefix(&prefix).map(str::to_string))
        .collect())
}

/// One mailing of the Monday forms.
struct Mailing<'a> {
    /// The state the forms are drawn from (the weekend's resolution applied).
    state: &'a GameState,
    /// The weekend's standing resolution, whose events the forms tell (none before the
    /// first weekend).
    resolution: Option<&'a resolutions::Told>,
    /// Each realm's form deadline is its first after this instant.
    deadline_from: chrono::DateTime<chrono::Utc>,
    key: String,
    /// The forms correct those mailed earlier for the round.
    correction: bool,
    /// Realms not mailed (they have this form already).
    skip: &'a std::collections::HashSet<String>,
}

const CORRECTION_NOTE: (&str, &str) = (
    "RÄTTELSE: detta formulär ersätter det som skickades tidigare för denna runda.",
    "CORRECTION: this form replaces the one sent earlier for this round.",
);

/// Mail the Monday forms and what goes to the GM with them (what the weekend left to
/// the GM, R-EVIL-8; the victory of a game the weekend ended), mark the weekend's
/// results out and the state in the weekday phase. The `results` event, `gm results
/// release` and `gm resolve` (held or corrected forms) all mail through here, so none
/// of them can leave out the GM's mails.
async fn mail_monday(app: &App, conn: &mut Conn, m: &Mailing<'_>) -> Result<Mailed> {
    let gs = m.state;
    let events = events_of(m.resolution)?;
    let note = m.correction.then_some(CORRECTION_NOTE);
    let key = m.key.as_str();
    let to = MailedTo {
        events: &events,
        deadline_from: m.deadline_from,
        key,
        correction: note,
        skip: m.skip,
    };
    let sent = enqueue_forms_to(app, conn, gs, &to).await?;
    let round = i64::from(gs.round);
    gm_decisions(app, conn, &events, round, key, m.correction).await?;
    if let Some(r) = m.resolution.filter(|r| r.results_sent_at.is_none()) {
        resolutions::mark_results_sent(conn, r.id, clock::to_ms(app.now())).await?;
        if gs.phase == Phase::Finished {
            victory_to_gm(app, conn, gs, key, m.correction).await?;
        }
    }
    super::results_hold::clear(conn).await?;
    let saved = results_sent(app, conn).await?;
    Ok(Mailed {
        realms: sent,
        saved,
        had_opening: Vec::new(),
    })
}

/// The results are out: a state resolved and not yet told is in the weekday phase now
/// (a finished game stays finished). Returns the state written, if one was.
async fn results_sent(app: &App, conn: &mut Conn) -> Result<Option<super::SavedState>> {
    let (version, gs) = app.state(conn).await?;
    if gs.phase != Phase::Resolving {
        return Ok(None);
    }
    let mut gs = (*gs).clone();
    gs.phase = Phase::Weekday;
    let reason = format!("results of round {} sent", gs.round.saturating_sub(1));
    let version = app.save_state(conn, version, &gs, &reason).await?;
    Ok(Some(super::SavedState {
        version,
        state: std::sync::Arc::new(gs),
    }))
}

/// Whether `now` is the state `then` but for its phase (which the results change).
fn same_but_phase(then: &GameState, now: &GameState) -> bool {
    let mut then = then.clone();
    then.phase = now.phase;
    &then == now
}

/// What every playing realm's Monday form of one mailing is made from, found once:
/// the state with the events it tells, the instant its form deadlines are counted
/// from, the GM's notices, the realms' site links, the mailing's key and a correction
/// note. The `results` event, `gm
/// resolve`, the opening forms and `gm preview` (and the desk's drafts) all build a
/// realm's text with [`MondayForms::text`], so what the GM previews is what is mailed.
pub struct MondayForms<'a> {
    ix: FormIndex<'a>,
    gs: &'a GameState,
    made_at: chrono::DateTime<chrono::Utc>,
    /// Each realm's form deadline is its next after this instant
    /// ([`super::season_calendar::form_deadline`]).
    deadline_from: chrono::DateTime<chrono::Utc>,
    notices: super::season_notices::FormNotices,
    links: Option<super::site_links::Links>,
    key: &'a str,
    correction: Option<(&'a str, &'a str)>,
    /// The form window of every realm given no late deadline, looked up once.
    window: Option<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>)>,
}

impl<'a> MondayForms<'a> {
    /// The forms of `gs` telling `events`, made at `made_at` (what the skipped dates'
    /// notes and the links' expiry count from) and mailed under `key` (`opening:…` for
    /// the opening forms, which carry the sender-token note).
    pub async fn load(
        app: &App,
        conn: &mut Conn,
        gs: &'a GameState,
        events: &'a [Event],
        deadline_from: chrono::DateTime<chrono::Utc>,
        key: &'a str,
        made_at: chrono::DateTime<chrono::Utc>,
    ) -> Result<MondayForms<'a>> {
        Ok(MondayForms {
            ix: FormIndex::new(gs, events),
            gs,
            made_at,
            deadline_from,
            notices: super::season_notices::FormNotices::load(conn, gs.round as i64).await?,
            links: super::site_links::Links::load(app, conn, made_at).await?,
            key,
            correction: None,
            window: super::process::form_window(app, gs, None, deadline_from),
        })
    }

    /// The forms with a correction note (Swedish, English) above each.
    pub fn corrected(self, correction: Option<(&'a str, &'a str)>) -> Self {
        MondayForms { correction, ..self }
    }

    /// `realm`'s form, word for word as mailed: the schedule's notes and the GM's
    /// notices above the result form (an opening form's first line naming the player's
    /// guide), the sender-token note on an opening form, the realm's site link below
    /// it, a correction note on top.
    pub fn text(&self, app: &App, realm: &Realm) -> Result<String> {
        let lang = realm.language;
        // The opening forms name every realm; later forms in a large game name the
        // neighbours.
        let listed = (!self.key.starts_with("opening:")).then_some(app.cfg.render.realms_listed);
        let ctx = super::process::form_context_knowing(
            app,
            self.gs,
            &realm.name,
            self.deadline_from,
            listed,
            self.window,
        );
        let form = app.renderer.result_form_in(&self.ix, &realm.name, &ctx)?;
        let form = super::player_guide::on_opening_form(self.key, realm, form);
        let form = super::season_calendar::with_form_notes(app, lang, self.made_at, form);
        let form = self.notices.on_top(app, &realm.name, lang, form)?;
        let form = super::sender_auth::opening_note(app, self.key, realm, form);
        let form = super::site_links::with_link(app, self.links.as_ref(), realm, lang, form);
        Ok(match self.correction {
            None => form,
            Some((sv, en)) => {
                let note = if lang == crate::game::Lang::Sv {
                    sv
                } else {
                    en
                };
                format!("{note}\n\n{form}")
            }
        })
    }
}

/// Queue the Monday form of every playing realm, telling `events`, each with its
/// realm's first form deadline after `deadline_from`; each keyed `<key>:<realm>`. A
/// `correction` note (per language) goes above a corrected form.
pub async fn enqueue_forms(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    events: &[Event],
    deadline_from: chrono::DateTime<chrono::Utc>,
    key: &str,
    correction: Option<(&str, &str)>,
) -> Result<Vec<String>> {
    let to = MailedTo {
        events,
        deadline_from,
        key,
        correction,
        skip: &Default::default(),
    };
    enqueue_forms_to(app, conn, gs, &to).await
}

/// What one mailing of Monday forms tells, and to whom not.
struct MailedTo<'a> {
    events: &'a [Event],
    deadline_from: chrono::DateTime<chrono::Utc>,
    key: &'a str,
    correction: Option<(&'a str, &'a str)>,
    skip: &'a std::collections::HashSet<String>,
}

/// [`enqueue_forms`], leaving out the realms in `to.skip`.
async fn enqueue_forms_to(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    to: &MailedTo<'_>,
) -> Result<Vec<String>> {
    let (events, deadline_from, key) = (to.events, to.deadline_from, to.key);
    let mut sent = Vec::new();
    let forms = MondayForms::load(app, conn, gs, events, deadline_from, key, app.now())
        .await?
        .corrected(to.correction);
    let pictures = super::map_pictures::Pictures::new(app, gs);
    for realm in gs
        .realms
        .iter()
        .filter(|r| !r.emails.is_empty() && !to.skip.contains(&r.name))
    {
        let o = Outgoing {
            kind: "result_form",
            dedup_key: format!("{key}:{}", realm.name),
            to: realm.emails.clone(),
            subject: super::scheduler::form_subject(&realm.name, realm.language),
            body: forms.text(app, realm)?,
            in_reply_to: None,
        };
        app.enqueue_with(conn, &o, &pictures.of(realm)).await?;
        sent.push(realm.name.clone());
    }
    forms.notices.printed(app, conn).await?;
    Ok(sent)
}

/// What the weekend left to the GM (a treasure roll of 8, R-EVIL-8) is mailed to the
/// GM with the results, in both languages.
async fn gm_decisions(
    app: &App,
    conn: &mut Conn,
    events: &[Event],
    round: i64,
    key: &str,
    correction: bool,
) -> Result<()> {
    use crate::render::weekend::evil::gm_lines;
    let sv = gm_lines(events, crate::game::Lang::Sv);
    if sv.is_empty() {
        return Ok(());
    }
    let en = gm_lines(events, crate::game::Lang::En);
    let o = Outgoing {
        kind: "gm_notice",
        dedup_key: format!("{key}:gm_decisions"),
        to: vec![app.cfg.gm_address.clone()],
        subject: format!(
            "{}Att avgöra efter runda {} / for the GM",
            corrected(correction),
            round - 1
        ),
        body: format!("{}\n\n{}\n", sv.join("\n"), en.join("\n")),
        in_reply_to: None,
    };
    app.enqueue(conn, &o).await?;
    Ok(())
}

/// The subject's head of a mail to the GM that a correction sends again.
fn corrected(correction: bool) -> &'static str {
    if correction {
        "RÄTTELSE / CORRECTION: "
    } else {
        ""
    }
}

/// A finished game: the GM is mailed the victory with the final standings (every realm
/// reads it in its own Monday form).
async fn victory_to_gm(
    app: &App,
    conn: &mut Conn,
    gs: &GameState,
    key: &str,
    correction: bool,
) -> Result<()> {
    let mut realms: Vec<_> = gs.realms.iter().filter(|r| !r.eliminated).collect();
    realms.sort_by(|a, b| b.vp.cmp(&a.vp).then(a.name.cmp(&b.name)));
    let standings: Vec<String> = realms
        .iter()
        .map(|r| format!("  {:<16} {:>5} VP", r.name, r.vp))
        .collect();
    let round = gs.round.saturating_sub(1);
    let o = Outgoing {
        kind: "victory",
        dedup_key: format!("{key}:victory"),
        to: vec![app.cfg.gm_address.clone()],
        subject: format!(
            "{}Segern avgjord runda {round} / victory",
            corrected(correction)
        ),
        body: format!(
            "Spelet är avgjort efter runda {round} / the game was won in round {round}.\n\n{}\n",
            standings.join("\n")
        ),
        in_reply_to: None,
    };
    app.enqueue(conn, &o).await?;
    Ok(())
}

pub(super) async fn commit(tx: store::Tx, what: &'static str) -> Result<()> {
    tx.commit()
        .await
        .map_err(|source| AppError::Store(store::StoreError::Query { what, source }))
}

/// What `gm rollback` undid.
#[derive(Debug)]
pub struct RolledBack {
    pub round: i64,
    pub state_version: i64,
    pub results_had_gone_out: bool,
}

/// Undo the last standing resolution: the state it resolved is written again as a new
/// version (history is kept), the resolution is marked rolled back, and the round's
/// forms count again. Refused when the state has changed since, unless `force`.
pub async fn rollback(app: &App, force: bool) -> Result<RolledBack> {
    let mut tx = app.store.begin().await?;
    let (version, gs) = app.state(&mut tx).await?;
    let res = resolutions::latest(&mut tx)
        .await?
        .filter(|r| r.rolled_back_at.is_none() && r.round + 1 == gs.round as i64)
        .ok_or_else(|| {
            AppError::Refused(format!(
                "round {} has no resolution to roll back (the state is in round {})",
                gs.round as i64 - 1,
                gs.round
            ))
        })?;
    let resolved = store::state::get(&mut tx, res.new_version)
        .await?
        .ok_or_else(|| AppError::BadState(format!("state version {} is gone", res.new_version)))?;
    let resolved: GameState = serde_json::from_str(&resolved.doc).map_err(json_err)?;
    if !same_but_phase(&resolved, &gs) && !force {
        return Err(AppError::Refused(format!(
            "the state has changed since round {} was resolved (version {} then, {version} \
             now); rolling back would undo those changes too: add --force to do it anyway",
            res.round, res.new_version
        )));
    }
    let base = store::state::get(&mut tx, res.base_version)
        .await?
        .ok_or_else(|| AppError::BadState(format!("state version {} is gone", res.base_version)))?;
    let base_gs: GameState = serde_json::from_str(&base.doc).map_err(json_err)?;
    let reason = format!("the GM rolled back round {}'s resolution", res.round);
    let v = app.save_state(&mut tx, version, &base_gs, &reason).await?;
    let at = clock::to_ms(app.now());
    resolutions::mark_rolled_back(&mut tx, res.id, at).await?;
    let d = json!({"resolution": res.id, "state_version": v, "discarded_version": version});
    events::log(
        &mut tx,
        at,
        res.round,
        "gm_rollback",
        None,
        Some(res.id),
        &d.to_string(),
    )
    .await?;
    commit(tx, "commit a rollback").await?;
    Ok(RolledBack {
        round: res.round,
        state_version: v,
        results_had_gone_out: res.results_sent_at.is_some(),
    })
}

/// What `gm resolve` did.
#[derive(Debug)]
pub struct Reresolved {
    pub resolved: Resolved,
    /// What became of the round's Monday forms.
    pub forms: FormsAfter,
}

/// What became of the Monday forms at `gm resolve`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormsAfter {
    /// Their results had gone out: corrected forms were mailed to these realms.
    Corrected(Vec<String>),
    /// The `results` event had passed while the weekend was rolled back: the held
    /// forms were mailed to these realms.
    Held(Vec<String>),
    /// The GM holds them (`gm results hold`): `gm results release` sends them; the
    /// `results` event has passed (`event_passed`) or will keep them back.
    KeptByGm { event_passed: bool },
    /// The `results` event is still to come (at this time) and sends them.
    AtResults(Option<chrono::DateTime<chrono::Utc>>),
}

impl FormsAfter {
    /// The realms mailed now.
    pub fn mailed(&self) -> &[String] {
        match self {
            FormsAfter::Corrected(r) | FormsAfter::Held(r) => r,
            FormsAfter::KeptByGm { .. } | FormsAfter::AtResults(_) => &[],
        }
    }

    /// What happened, in words (the CLI and the desk say the same).
    pub fn said(&self, app: &App) -> String {
        match self {
            FormsAfter::Corrected(r) => format!("corrected forms mailed to {}", r.join(", ")),
            FormsAfter::Held(r) => format!("held Monday forms mailed to {}", r.join(", ")),
            FormsAfter::KeptByGm { event_passed: true } => "the Monday forms stay held, as the \
                 GM asked: `pbemd gm results release` sends them"
                .into(),
            FormsAfter::KeptByGm {
                event_passed: false,
            } => "the GM holds the Monday forms: the results event keeps them back, and \
                  `pbemd gm results release` sends them"
                .into(),
            FormsAfter::AtResults(at) => format!(
                "the Monday forms go out at the results event{}",
                at.map(|t| format!(" ({})", app.game_time(t)))
                    .unwrap_or_default()
            ),
        }
    }
}

/// Resolve again a round whose resolution was rolled back; send corrected forms when
/// its results had already gone out, or the held forms when the `results` event passed
/// while it was rolled back (unless the GM holds them).
pub async fn gm_resolve(app: &App) -> Result<Reresolved> {
    let mut tx = app.store.begin().await?;
    let (_, gs) = app.state(&mut tx).await?;
    let round = gs.round as i64;
    let w = super::results_hold::waiting(&mut tx, &gs).await?;
    if !w.rolled_back {
        return Err(AppError::Refused(format!(
            "round {round} has no rolled-back resolution: the weekend is resolved at its \
             deadline (`pbemd resolve --dry-run` shows the result now; `pbemd gm rollback` \
             undoes a resolution)"
        )));
    }
    let reason = format!("weekend of round {round} resolved again by the GM");
    // The GM's report's deadlines are the schedule events not yet fired.
    let after = super::scheduler::last_now(app, &mut tx).await?;
    let resolved = resolve_round(app, &mut tx, &reason, after).await?;
    let mut saved = Some(resolved.saved.clone());
    let correction = resolutions::results_went_out(&mut tx, round).await?;
    let forms = if correction || (w.held && !w.asked) {
        let next = resolved.saved.state.clone();
        let standing = resolutions::standing_told(&mut tx, round).await?;
        let deadline_from = super::process::round_started(&mut tx)
            .await?
            .unwrap_or_else(|| app.now());
        let m = Mailing {
            state: &next,
            resolution: standing.as_ref(),
            deadline_from,
            key: format!("result:{}:gm:{}", next.round, resolved.id),
            correction,
            skip: &Default::default(),
        };
        let mailed = mail_monday(app, &mut tx, &m).await?;
        saved = mailed.saved.or(saved);
        let mailed = mailed.realms;
        if correction {
            FormsAfter::Corrected(mailed)
        } else {
            FormsAfter::Held(mailed)
        }
    } else if w.asked {
        FormsAfter::KeptByGm {
            event_passed: w.held,
        }
    } else {
        FormsAfter::AtResults(next_results(app, after))
    };
    commit(tx, "commit a GM resolution").await?;
    if let Some(saved) = saved {
        app.remember_state(saved);
    }
    Ok(Reresolved { resolved, forms })
}

/// The next `results` event after `t` (within two weeks).
fn next_results(
    app: &App,
    t: chrono::DateTime<chrono::Utc>,
) -> Option<chrono::DateTime<chrono::Utc>> {
    app.schedule
        .due(t, t + chrono::Duration::days(15))
        .into_iter()
        .find(|d| d.kind == crate::schedule::EventKind::Results)
        .map(|d| d.at)
}

/// What `resolve --dry-run` found: the resolution and every realm's report.
pub struct DryRun {
    pub round: u32,
    pub forms_from: Vec<String>,
    pub resolution: Resolution,
    /// (realm, its report lines) for every realm.
    pub reports: Vec<(String, Vec<String>)>,
}

/// Resolve the current weekend now from the forms standing, saving nothing.
pub async fn dry_run(app: &App) -> Result<DryRun> {
    // Everything is read in a transaction that is never committed (`counted_orders`
    // may log an unreadable form).
    let mut tx = app.store.begin().await?;
    let (_, gs) = app.state(&mut tx).await?;
    let orders = counted_orders(&mut tx, &gs, clock::to_ms(app.now())).await?;
    drop(tx);
    let resolution = run_engine(&gs, &orders);
    let seen = crate::render::weekend::seen_by_realm(&resolution.events);
    let reports = gs
        .realms
        .iter()
        .map(|r| {
            let which = seen.get(r.name.as_str()).map_or(&[][..], Vec::as_slice);
            let lines = crate::render::weekend::lines_of(
                which.iter().map(|&i| &resolution.events[i]),
                &resolution.state,
                &r.name,
                r.language,
            );
            (r.name.clone(), lines)
        })
        .collect();
    Ok(DryRun {
        round: gs.round,
        forms_from: orders.forms.iter().map(|f| f.realm.clone()).collect(),
        resolution,
        reports,
    })
}

/// The drafted Monday forms: the state they are drawn from and (realm, text) of each.
pub struct Drafts {
    pub state: std::sync::Arc<GameState>,
    pub forms: Vec<(String, String)>,
}

/// The drafted Monday forms (of `realm`, or every playing realm): the current state
/// with the report of its weekend's standing resolution, built by the same
/// [`MondayForms::text`] as the `results` event's mails, so each text is the body
/// `results` would mail at `at` (default now: the links count their days from then).
pub async fn preview(
    app: &App,
    realm: Option<&str>,
    at: Option<chrono::DateTime<chrono::Utc>>,
) -> Result<Drafts> {
    let mut conn = app.store.conn().await?;
    let (_, gs) = app.state(&mut conn).await?;
    let events = last_events(&mut conn, &gs).await?;
    let deadline_from = super::process::round_started(&mut conn)
        .await?
        .unwrap_or_else(|| app.now());
    // A Monday form's key (never `opening:`): no sender-token note, as on `results`.
    let key = format!("result:{}:preview", gs.round);
    let made_at = at.unwrap_or_else(|| app.now());
    let forms =
        MondayForms::load(app, &mut conn, &gs, &events, deadline_from, &key, made_at).await?;
    let mut out = Vec::new();
    for r in gs
        .realms
        .iter()
        .filter(|r| realm.map_or(!r.emails.is_empty(), |n| n == r.name))
    {
        out.push((r.name.clone(), forms.text(app, r)?));
    }
    drop(forms);
    Ok(Drafts {
        state: gs,
        forms: out,
    })
}

/// What `gm replay` found.
pub struct Replay {
    pub resolution_id: i64,
    pub round: i64,
    pub events: usize,
    pub rolls: usize,
    /// Every difference between the stored output and the rerun (empty: identical).
    pub differences: Vec<String>,
}

/// Rerun round `round` from its stored inputs (its standing resolution, else its
/// newest) and compare with the stored output.
pub async fn replay(app: &App, round: i64) -> Result<Replay> {
    let mut conn = app.store.conn().await?;
    let res = match resolutions::standing(&mut conn, round).await? {
        Some(r) => r,
        None => resolutions::latest_of(&mut conn, round)
            .await?
            .ok_or_else(|| AppError::Refused(format!("round {round} has no stored resolution")))?,
    };
    let base = store::state::get(&mut conn, res.base_version)
        .await?
        .ok_or_else(|| AppError::BadState(format!("state version {} is gone", res.base_version)))?;
    let gs: GameState = serde_json::from_str(&base.doc).map_err(json_err)?;
    let orders: Orders = serde_json::from_str(&res.orders).map_err(json_err)?;
    let settings = serde_json::from_str(&res.settings).map_err(json_err)?;
    let again = weekend::resolve(&gs, &orders, &settings, res.seed);
    let mut differences = Vec::new();
    for (what, stored, rerun) in [
        (
            "state",
            &res.output_state,
            serde_json::to_value(&again.state),
        ),
        ("events", &res.events, serde_json::to_value(&again.events)),
        ("rolls", &res.rolls, serde_json::to_value(&again.rolls)),
    ] {
        let stored: serde_json::Value = serde_json::from_str(stored).map_err(json_err)?;
        diff(what, &stored, &rerun.map_err(json_err)?, &mut differences);
    }
    Ok(Replay {
        resolution_id: res.id,
        round: res.round,
        events: again.events.len(),
        rolls: again.rolls.len(),
        differences,
    })
}

/// At most this many differences are listed.
const MAX_DIFFERENCES: usize = 50;

/// The paths where `a` (stored) and `b` (rerun) differ, as `path: stored → rerun`.
pub fn diff(path: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    if out.len() >= MAX_DIFFERENCES || a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let null = Value::Null;
                let p = format!("{path}.{k}");
                diff(
                    &p,
                    x.get(k).unwrap_or(&null),
                    y.get(k).unwrap_or(&null),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                diff(&format!("{path}[{i}]"), u, v, out);
            }
        }
        _ => out.push(format!("{path}: stored {} → rerun {}", short(a), short(b))),
    }
}

fn short(v: &serde_json::Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(79).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_names_the_paths_that_differ() {
        let a = json!({"round": 3, "realms": [{"vp": 1}, {"vp": 2}], "x": [1]});
        let b = json!({"round": 3, "realms": [{"vp": 1}, {"vp": 5}], "x": [1, 2]});
        let mut out = Vec::new();
        diff("state", &a, &b, &mut out);
        assert_eq!(
            out,
            [
                "state.realms[1].vp: stored 2 → rerun 5",
                "state.x: stored [1] → rerun [1,2]"
            ]
        );
        let mut none = Vec::new();
        diff("state", &a, &a, &mut none);
        assert!(none.is_empty());
    }

    #[test]
    fn the_round_advance_renews_allowances_and_prunes_old_contacts() {
        let mut gs =
            crate::game::load_scenario(include_str!("../../scenarios/demo.yaml")).expect("demo");
        let before = gs.round;
        advance(&mut gs);
        assert_eq!(gs.round, before + 1);
        assert!(gs.realms.iter().all(|r| r.sent == Default::default()));
    }
}

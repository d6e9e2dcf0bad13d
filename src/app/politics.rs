//! The GM's hand on missions and random events (R-MISSION-3, R-RAND-1; docs/rules.md
//! Rulings 48 and 50). Every change is a new state version and an audit event.
//!
//! `gm event` and the weekend: the GM's choice is stored in the state as an input of
//! the weekend it is for (`GameState::gm_events`), never applied by hand to a resolved
//! state, so the resolution stays a pure function of its stored inputs and `gm replay`
//! still reproduces it. Before the weekend is resolved the choice waits for it. Between
//! the resolution and the results event (phase `resolving`), the resolution is rolled
//! back, the choice written into the state it resolved, and the weekend resolved again
//! (the same dice: every other roll and event stays as it was), so the Monday forms and
//! the state agree. After the results are out, a choice is for the coming weekend; to
//! correct a weekend already told, `gm rollback`, `gm event`, `gm resolve` (corrected
//! forms go out).

use serde_json::json;

use super::weekend::{self, Reresolved};
use super::{App, AppError, Result};
use crate::clock;
use crate::game::state::{DrawnEvent, GmEvent, MissionDone, Phase};
use crate::game::weekend::politics::MISSION_VP;
use crate::game::GameState;
use crate::store::{self, events};

async fn commit(tx: store::Tx) -> Result<()> {
    tx.commit().await.map_err(|source| {
        AppError::Store(store::StoreError::Query {
            what: "commit a GM politics action",
            source,
        })
    })
}

/// Change the state in one transaction: `f` edits a copy (or refuses), which is saved
/// with `reason` and logged as `kind` with `detail`.
async fn change<T>(
    app: &App,
    realm: &str,
    kind: &str,
    f: impl FnOnce(&mut GameState) -> Result<(T, serde_json::Value, String)>,
) -> Result<T> {
    let mut tx = app.store.begin().await?;
    let (version, gs) = app.state(&mut tx).await?;
    let mut gs = (*gs).clone();
    let (out, detail, reason) = f(&mut gs)?;
    let v = app.save_state(&mut tx, version, &gs, &reason).await?;
    let at = clock::to_ms(app.now());
    let d = detail.to_string();
    events::log(&mut tx, at, gs.round as i64, kind, Some(realm), Some(v), &d).await?;
    commit(tx).await?;
    Ok(out)
}

fn no_realm(realm: &str) -> AppError {
    AppError::Refused(format!("no realm named {realm}"))
}

/// `gm mission REALM done`: +300 VP now; the realm's next Monday form tells it.
/// Returns the realm's VP.
pub async fn mission_done(app: &App, realm: &str) -> Result<i64> {
    change(app, realm, "gm_mission_done", |gs| {
        let r = gs.realm_mut(realm).ok_or_else(|| no_realm(realm))?;
        if r.mission_done {
            return Err(AppError::Refused(format!(
                "{realm}'s mission is already done; `gm mission {realm} set TEXT` gives a new one"
            )));
        }
        r.mission_done = true;
        r.vp = r.vp.saturating_add(MISSION_VP);
        let (vp, mission) = (r.vp, r.mission.clone());
        gs.missions_done.push(MissionDone {
            realm: realm.to_string(),
            mission: mission.clone(),
            vp: MISSION_VP,
        });
        let d = json!({"mission": mission, "vp": MISSION_VP, "vp_now": vp});
        Ok((vp, d, format!("the GM judged {realm}'s mission done")))
    })
    .await
}

/// `gm mission REALM set TEXT`: a new mission, not yet done.
pub async fn mission_set(app: &App, realm: &str, text: &str) -> Result<()> {
    let text = text.trim();
    if text.is_empty() {
        return Err(AppError::Refused("the mission text is empty".into()));
    }
    change(app, realm, "gm_mission_set", |gs| {
        let r = gs.realm_mut(realm).ok_or_else(|| no_realm(realm))?;
        let old = std::mem::replace(&mut r.mission, text.to_string());
        r.mission_done = false;
        let d = json!({"mission": text, "was": old});
        Ok(((), d, format!("the GM set {realm}'s mission")))
    })
    .await
}

/// Which event the GM chose: an entry of a table (1-based), or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Good(usize),
    Bad(usize),
    Nothing,
}

/// The table entry `choice` names, or why not.
pub fn drawn(gs: &GameState, choice: Choice) -> Result<Option<DrawnEvent>> {
    let (good, n) = match choice {
        Choice::Nothing => return Ok(None),
        Choice::Good(n) => (true, n),
        Choice::Bad(n) => (false, n),
    };
    let table = if good {
        &gs.settings.good_events
    } else {
        &gs.settings.bad_events
    };
    let entry = n.checked_sub(1).and_then(|k| table.get(k)).ok_or_else(|| {
        AppError::Refused(format!(
            "the {} table has {} entries (1–{}); no entry {n}",
            if good { "good" } else { "bad" },
            table.len(),
            table.len()
        ))
    })?;
    Ok(Some(DrawnEvent {
        good,
        entry: entry.clone(),
    }))
}

/// What `gm event` did.
#[derive(Debug)]
pub struct EventSet {
    /// The round whose weekend the choice is for.
    pub round: u32,
    /// The weekend resolved again with the choice (it had been resolved already).
    pub reresolved: Option<Reresolved>,
}

/// `gm event REALM …`: see the module text for when it re-resolves.
pub async fn gm_event(app: &App, realm: &str, choice: Choice) -> Result<EventSet> {
    let phase = {
        let mut conn = app.store.conn().await?;
        let (_, gs) = app.state(&mut conn).await?;
        drawn(&gs, choice)?;
        gs.phase
    };
    if phase == Phase::Resolving {
        weekend::rollback(app, false).await.map_err(|e| match e {
            AppError::Refused(m) => AppError::Refused(format!(
                "{m} (for `gm event`: `pbemd gm rollback --force`, then `gm event`, then \
                 `gm resolve`)"
            )),
            e => e,
        })?;
        let round = set_event(app, realm, choice).await?;
        let r = weekend::gm_resolve(app).await?;
        return Ok(EventSet {
            round,
            reresolved: Some(r),
        });
    }
    let round = set_event(app, realm, choice).await?;
    Ok(EventSet {
        round,
        reresolved: None,
    })
}

/// Store the choice for the state's round (replacing an earlier one).
async fn set_event(app: &App, realm: &str, choice: Choice) -> Result<u32> {
    change(app, realm, "gm_event", |gs| {
        gs.realm(realm).ok_or_else(|| no_realm(realm))?;
        let event = drawn(gs, choice)?;
        let round = gs.round;
        gs.gm_events
            .retain(|g| !(g.round == round && g.realm == realm));
        let d = json!({"round": round, "event": event});
        gs.gm_events.push(GmEvent {
            round,
            realm: realm.to_string(),
            event,
        });
        let reason = format!("the GM chose {realm}'s random event of round {round}");
        Ok((round, d, reason))
    })
    .await
}

//! `gm results hold` and `gm results release` (docs/gm/weekend.md): the GM keeps a
//! resolved weekend's Monday forms back past the `results` event, and sends them when
//! ready. A hold is asked for between the resolution and the results; the `results`
//! event then holds the forms (as it does for a rolled-back weekend) and tells the GM.
//! Release sends them at once, or, when the event has not come yet, only lifts the hold.
//!
//! Both markers (the GM's hold, [`HOLD_ASKED`], and the forms the `results` event held,
//! [`super::weekend::RESULTS_HELD`]) name the round of the Monday forms that wait, as
//! [`waiting`] finds it, whether the weekend stands resolved or is rolled back: so a hold
//! outlives a rollback and a second resolution, and every path (hold, release, rollback,
//! `gm resolve`, the `results` event, the desk) reads the same marker the same way.

use serde_json::json;

use super::{App, AppError, Result};
use crate::clock;
use crate::game::state::Phase;
use crate::game::GameState;
use crate::store::{events, meta, resolutions, Conn};

/// The meta key naming the round of the Monday forms the GM asked to hold.
pub const HOLD_ASKED: &str = "weekend_results_hold_asked";

/// A marker's value when nothing is held (rounds start at 1, Monday forms at 2).
const NONE: &str = "0";

/// The Monday forms that wait, and what holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waiting {
    /// The round the weekend resolved (or to be resolved again) is.
    pub weekend: i64,
    /// The round of its Monday forms (`weekend + 1`): the round both markers name.
    pub forms_round: i64,
    /// The weekend's resolution is rolled back: the state is the one it resolved.
    pub rolled_back: bool,
    /// The GM asked to hold these forms (`gm results hold`).
    pub asked: bool,
    /// The `results` event passed and held them.
    pub held: bool,
}

/// The Monday forms that wait in the state `gs`: the state's round is their round once
/// the weekend is resolved; while its resolution is rolled back the state is the one
/// the weekend resolved, and their round is one more.
pub async fn waiting(conn: &mut Conn, gs: &GameState) -> Result<Waiting> {
    let round = i64::from(gs.round);
    let rolled_back = resolutions::latest_of(conn, round)
        .await?
        .is_some_and(|r| r.rolled_back_at.is_some());
    let forms_round = if rolled_back { round + 1 } else { round };
    let marked = |v: Option<i64>| v == Some(forms_round);
    let held = meta::get_i64(conn, super::weekend::RESULTS_HELD).await?;
    Ok(Waiting {
        weekend: forms_round - 1,
        forms_round,
        rolled_back,
        asked: marked(meta::get_i64(conn, HOLD_ASKED).await?),
        // Before the markers named the forms' round, the `results` event marked forms it
        // held for a rolled-back weekend with the state's round: such a marker, stored
        // by an older pbemd, still holds them.
        held: marked(held) || (rolled_back && held == Some(round)),
    })
}

/// The Monday forms went out: neither marker holds anything any more.
pub(super) async fn clear(conn: &mut Conn) -> Result<()> {
    meta::set(conn, HOLD_ASKED, NONE).await?;
    meta::set(conn, super::weekend::RESULTS_HELD, NONE).await?;
    Ok(())
}

/// What `gm results release` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Released {
    /// The `results` event had not come: the hold is lifted, the event sends them.
    HoldLifted { round: i64 },
    /// The held forms went out now, to these realms.
    Sent { round: i64, realms: Vec<String> },
    /// The hold is lifted, but the weekend is rolled back: `gm resolve` resolves it
    /// again and then sends the forms at once (`event_passed`) or leaves them to the
    /// `results` event.
    AwaitsResolve { round: i64, event_passed: bool },
}

impl Released {
    /// What happened, in words (the CLI and the desk say the same).
    pub fn said(&self) -> String {
        match self {
            Released::HoldLifted { round } => {
                format!("the hold on round {round}'s results is lifted: they go out at the results event")
            }
            Released::Sent { round, realms } => {
                format!(
                    "the results of round {round} mailed to {}",
                    realms.join(", ")
                )
            }
            Released::AwaitsResolve {
                round,
                event_passed,
            } => format!(
                "the hold on round {round}'s results is lifted, but the weekend is rolled back: \
                 `pbemd gm resolve` resolves it again{}",
                if *event_passed {
                    " and mails the Monday forms at once"
                } else {
                    "; the results event sends the Monday forms"
                }
            ),
        }
    }
}

/// `gm results hold`: keep this weekend's Monday forms back at the `results` event (and
/// at `gm resolve`, if the weekend is rolled back and resolved again). Asked for between
/// the resolution and the results, or while the weekend is rolled back before its
/// results went out. Returns the weekend's round.
pub async fn hold(app: &App) -> Result<i64> {
    let mut tx = app.store.begin().await?;
    let (_, gs) = app.state(&mut tx).await?;
    let w = waiting(&mut tx, &gs).await?;
    let unsent = if w.rolled_back {
        !resolutions::results_went_out(&mut tx, w.weekend).await?
    } else {
        gs.phase == Phase::Resolving
            && resolutions::standing(&mut tx, w.weekend)
                .await?
                .is_some_and(|r| r.results_sent_at.is_none())
    };
    if !unsent {
        return Err(AppError::Refused(format!(
            "no resolved weekend waits for its results (the state is in round {}): a \
             hold is asked for between the weekend's resolution and the results event",
            gs.round
        )));
    }
    if w.asked {
        return Err(AppError::Refused(format!(
            "the results of round {} are already held",
            w.weekend
        )));
    }
    meta::set(&mut tx, HOLD_ASKED, &w.forms_round.to_string()).await?;
    let now = clock::to_ms(app.now());
    let d = json!({"round": w.weekend, "forms_round": w.forms_round}).to_string();
    events::log(
        &mut tx,
        now,
        i64::from(gs.round),
        "gm_results_hold",
        None,
        None,
        &d,
    )
    .await?;
    super::weekend::commit(tx, "commit a results hold or release").await?;
    Ok(w.weekend)
}

/// `gm results release`: lift the GM's hold, and send the forms if the `results` event
/// already held them (unless the weekend is rolled back: then `gm resolve` sends them).
pub async fn release(app: &App) -> Result<Released> {
    let mut tx = app.store.begin().await?;
    let (_, gs) = app.state(&mut tx).await?;
    let w = waiting(&mut tx, &gs).await?;
    if !w.asked {
        let why = if w.held {
            "the results wait because the weekend was rolled back: `pbemd gm resolve` \
             resolves it and sends them"
        } else {
            "no results are held"
        };
        return Err(AppError::Refused(why.into()));
    }
    meta::set(&mut tx, HOLD_ASKED, NONE).await?;
    let round = w.weekend;
    let mut saved = None;
    let out = if w.rolled_back {
        // The `results` event's marker stays: `gm resolve` sends what it held.
        Released::AwaitsResolve {
            round,
            event_passed: w.held,
        }
    } else if w.held {
        let mailed = super::weekend::send_results(app, &mut tx, &gs, app.now()).await?;
        saved = mailed.saved;
        Released::Sent {
            round,
            realms: mailed.realms,
        }
    } else {
        Released::HoldLifted { round }
    };
    let now = clock::to_ms(app.now());
    let mailed = match &out {
        Released::Sent { realms, .. } => realms.len(),
        _ => 0,
    };
    let d = json!({"round": round, "forms_round": w.forms_round, "mailed": mailed}).to_string();
    events::log(
        &mut tx,
        now,
        i64::from(gs.round),
        "gm_results_release",
        None,
        None,
        &d,
    )
    .await?;
    super::weekend::commit(tx, "commit a results hold or release").await?;
    if let Some(saved) = saved {
        app.remember_state(saved);
    }
    app.wake.notify_one();
    Ok(out)
}

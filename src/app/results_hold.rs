//! `gm results hold` and `gm results release` (README, The GM's weekend): the GM keeps a
//! resolved weekend's Monday forms back past the `results` event, and sends them when
//! ready. A hold is asked for between the resolution and the results; the `results`
//! event then holds the forms (as it does for a rolled-back weekend) and tells the GM.
//! Release sends them at once, or, when the event has not come yet, only lifts the hold.

use serde_json::json;

use super::{App, AppError, Result};
use crate::clock;
use crate::game::state::Phase;
use crate::store::{events, meta, resolutions};

/// The meta key naming the round whose results the GM asked to hold.
pub const HOLD_ASKED: &str = "weekend_results_hold_asked";

/// What `gm results release` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Released {
    /// The `results` event had not come: the hold is lifted, the event sends them.
    HoldLifted { round: i64 },
    /// The held forms went out now, to these realms.
    Sent { round: i64, realms: Vec<String> },
}

/// `gm results hold`: keep this weekend's Monday forms back at the `results` event.
pub async fn hold(app: &App) -> Result<i64> {
    let mut tx = app.store.begin().await?;
    let (_, gs) = app.state(&mut tx).await?;
    let round = gs.round as i64;
    let waiting = resolutions::standing(&mut tx, round - 1)
        .await?
        .is_some_and(|r| r.results_sent_at.is_none());
    if gs.phase != Phase::Resolving || !waiting {
        return Err(AppError::Refused(format!(
            "no resolved weekend waits for its results (the state is in round {round}): a \
             hold is asked for between the weekend's resolution and the results event"
        )));
    }
    if meta::get_i64(&mut tx, HOLD_ASKED).await? == Some(round) {
        return Err(AppError::Refused(format!(
            "the results of round {} are already held",
            round - 1
        )));
    }
    meta::set(&mut tx, HOLD_ASKED, &round.to_string()).await?;
    let now = clock::to_ms(app.now());
    let d = json!({"round": round}).to_string();
    events::log(&mut tx, now, round, "gm_results_hold", None, None, &d).await?;
    super::weekend::commit(tx, "commit a results hold or release").await?;
    Ok(round - 1)
}

/// `gm results release`: lift the GM's hold, and send the forms if the `results` event
/// already held them.
pub async fn release(app: &App) -> Result<Released> {
    let mut tx = app.store.begin().await?;
    let (_, gs) = app.state(&mut tx).await?;
    let round = gs.round as i64;
    let asked = meta::get_i64(&mut tx, HOLD_ASKED).await? == Some(round);
    let held = meta::get_i64(&mut tx, super::weekend::RESULTS_HELD).await? == Some(round);
    if !asked {
        let why = if held {
            "the results wait because the weekend was rolled back: `pbemd gm resolve` \
             resolves it and sends them"
        } else {
            "no results are held"
        };
        return Err(AppError::Refused(why.into()));
    }
    meta::set(&mut tx, HOLD_ASKED, "0").await?;
    let out = if held {
        meta::set(&mut tx, super::weekend::RESULTS_HELD, "0").await?;
        let realms = super::weekend::send_results(app, &mut tx, &gs, app.now()).await?;
        Released::Sent {
            round: round - 1,
            realms,
        }
    } else {
        Released::HoldLifted { round: round - 1 }
    };
    let now = clock::to_ms(app.now());
    let mailed = match &out {
        Released::Sent { realms, .. } => realms.len(),
        Released::HoldLifted { .. } => 0,
    };
    let d = json!({"round": round, "mailed": mailed}).to_string();
    events::log(&mut tx, now, round, "gm_results_release", None, None, &d).await?;
    super::weekend::commit(tx, "commit a results hold or release").await?;
    app.wake.notify_one();
    Ok(out)
}

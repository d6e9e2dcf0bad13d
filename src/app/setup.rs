//! Starting a game: `pbemd new DIR` writes a ready-to-run game directory, `pbemd init`
//! loads the scenario into the database as round 1.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::{App, AppError, Result};
use crate::clock;
use crate::config;
use crate::store::{events, meta, state};

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

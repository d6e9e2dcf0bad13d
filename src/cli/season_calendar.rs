//! `pbemd gm pause`, `gm resume` and `gm extend`: the GM's calendar.

use std::process::ExitCode;

use anyhow::Result;
use chrono::{DateTime, Utc};

use crate::app::{season_calendar as cal, sender, App};

/// `--at TIME`, the instant to act at (for replays and tests).
fn at(a: Option<&str>) -> Result<Option<DateTime<Utc>>> {
    a.map(|s| crate::clock::parse_rfc3339(s).map_err(anyhow::Error::msg))
        .transpose()
}

/// `gm pause [--until DATE] [--reason TEXT]`.
pub async fn pause(
    app: &App,
    until: Option<&str>,
    reason: Option<&str>,
    at_time: Option<&str>,
) -> Result<ExitCode> {
    let tz = app.schedule.timezone();
    let until = until.map(|u| cal::parse_until(u, tz)).transpose()?;
    let p = cal::pause(app, until, reason.unwrap_or(""), at(at_time)?).await?;
    sender::flush_all(app).await?;
    println!(
        "the game is paused from {} until {} (it resumes by itself then; `pbemd gm resume` \
         ends it earlier); told: {}",
        app.game_time(p.since),
        app.game_time(p.until),
        list(&p.told)
    );
    Ok(ExitCode::SUCCESS)
}

/// `gm resume`.
pub async fn resume(app: &App, at_time: Option<&str>) -> Result<ExitCode> {
    let r = cal::resume(app, at(at_time)?).await?;
    sender::flush_all(app).await?;
    let minutes = cal::wall_minutes(app, r.since, r.resumed_at);
    println!(
        "the game resumes at {} after a pause of {} h {:02} min; every later time moves by \
         that much; next form deadline {}; told: {}",
        app.game_time(r.resumed_at),
        minutes / 60,
        minutes % 60,
        r.deadline
            .map(|d| app.game_time(d))
            .unwrap_or_else(|| "-".into()),
        list(&r.told)
    );
    Ok(ExitCode::SUCCESS)
}

/// `gm extend [--realm NAME] HOURS`.
pub async fn extend(
    app: &App,
    realm: Option<&str>,
    hours: u32,
    at_time: Option<&str>,
) -> Result<ExitCode> {
    let realm = match realm {
        None => None,
        Some(name) => {
            let mut conn = app.store.conn().await?;
            let (_, gs) = app.state(&mut conn).await?;
            Some(super::canonical_realm(&gs, name)?)
        }
    };
    let e = cal::extend(app, realm.as_deref(), hours, at(at_time)?).await?;
    sender::flush_all(app).await?;
    let whom = realm
        .as_deref()
        .map_or("every realm".to_string(), |r| format!("{r}'s form"));
    println!(
        "deadline {} extended for {whom} until {}{}; told: {}",
        app.game_time(e.deadline),
        app.game_time(e.until),
        match &e.hold {
            Some(h) => format!(
                "; what was due from {} fires at {}",
                app.game_time(h.from),
                app.game_time(h.to)
            ),
            None => String::new(),
        },
        list(&e.told)
    );
    Ok(ExitCode::SUCCESS)
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "-".into()
    } else {
        v.join(", ")
    }
}

//! `pbemd gm mission …` and `pbemd gm event …`: the GM's hand on missions and random
//! events (docs/rules.md, R-MISSION-3 and R-RAND-1).

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::{Subcommand, ValueEnum};

use super::gm::shown;
use crate::app::politics::{self, Choice};
use crate::app::App;

#[derive(Debug, Subcommand)]
pub enum MissionAction {
    /// The mission is done: +300 VP now, told on the realm's next Monday form.
    ///
    /// Refused when the mission is already done. Audited.
    Done,
    /// Give the realm a new mission (not yet done).
    ///
    /// Audited.
    Set {
        /// The mission text (the words are joined with spaces).
        #[arg(required = true, num_args = 1..)]
        text: Vec<String>,
    },
}

/// Which table the GM's event comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EventKind {
    /// An entry of the scenario's good table.
    Good,
    /// An entry of the scenario's bad table.
    Bad,
    /// No event at all.
    None,
}

async fn realm_name(app: &App, name: &str) -> Result<String> {
    let mut conn = app.store.conn().await?;
    let (_, gs) = app.state(&mut conn).await?;
    super::canonical_realm(&gs, name)
}

/// `gm mission REALM done | set TEXT`.
pub async fn mission(app: &App, realm: &str, action: MissionAction) -> Result<ExitCode> {
    let realm = realm_name(app, realm).await?;
    match action {
        MissionAction::Done => {
            let vp = politics::mission_done(app, &realm).await?;
            println!(
                "{realm}'s mission is done: +300 VP ({vp} now); its next Monday form tells it"
            );
        }
        MissionAction::Set { text } => {
            let text = text.join(" ");
            politics::mission_set(app, &realm, &text).await?;
            println!("{realm}'s mission is now: {}", shown(&text));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `gm event REALM good N | bad N | none`; without N, the table is listed.
pub async fn event(app: &App, realm: &str, kind: EventKind, n: Option<usize>) -> Result<ExitCode> {
    let realm = realm_name(app, realm).await?;
    let choice = match (kind, n) {
        (EventKind::None, None) => Choice::Nothing,
        (EventKind::None, Some(_)) => bail!("`none` takes no entry number"),
        (EventKind::Good, Some(n)) => Choice::Good(n),
        (EventKind::Bad, Some(n)) => Choice::Bad(n),
        (k, None) => {
            list(app, k == EventKind::Good).await?;
            bail!(
                "name the entry: `pbemd gm event {realm} {} N`",
                if k == EventKind::Good { "good" } else { "bad" }
            );
        }
    };
    let r = politics::gm_event(app, &realm, choice).await?;
    crate::app::sender::flush_all(app).await?;
    match &r.reresolved {
        None => println!(
            "{realm}'s random event of round {} is the GM's choice; the weekend applies it",
            r.round
        ),
        Some(x) => println!(
            "{realm}'s random event of round {} is the GM's choice: the weekend was resolved \
             again (resolution {}, state version {}); {}",
            r.round,
            x.resolved.id,
            x.resolved.new_version,
            x.forms.said(app)
        ),
    }
    Ok(ExitCode::SUCCESS)
}

/// The good or bad table, numbered.
async fn list(app: &App, good: bool) -> Result<()> {
    let mut conn = app.store.conn().await?;
    let (_, gs) = app.state(&mut conn).await?;
    let table = if good {
        &gs.settings.good_events
    } else {
        &gs.settings.bad_events
    };
    if table.is_empty() {
        println!(
            "the scenario has no {} events",
            if good { "good" } else { "bad" }
        );
    }
    for (i, e) in table.iter().enumerate() {
        println!("{:>3}  {}", i + 1, shown(e.text.en.trim()));
    }
    Ok(())
}

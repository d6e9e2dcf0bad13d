//! `pbemd gm notice …` (a notice on the next Monday forms, or mailed now) and
//! `pbemd gm release …` (replies held by flood control), and the held replies' lines
//! of `gm queue`.

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

use super::gm::shown;
use crate::app::season_notices::{self, flood};
use crate::app::App;
use crate::clock::from_ms;
use crate::store::notices::{self, Release};

#[derive(Debug, Args)]
pub struct NoticeArgs {
    /// Only this realm's form (default: every playing realm's).
    #[arg(long)]
    pub realm: Option<String>,
    /// Mail it at once, as a mail of its own, instead of on the next Monday forms.
    #[arg(long)]
    pub now: bool,
    /// The notice (the words are joined with spaces).
    #[arg(required = true, num_args = 1..)]
    pub text: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ReleaseArgs {
    /// Outbox ids of held replies (as `gm queue` shows them).
    pub ids: Vec<i64>,
    /// Every held reply to this realm.
    #[arg(long, conflicts_with = "all")]
    pub realm: Option<String>,
    /// Every held reply.
    #[arg(long)]
    pub all: bool,
}

async fn realm_name(app: &App, name: &str) -> Result<String> {
    let mut conn = app.store.conn().await?;
    let (_, gs) = app.state(&mut conn).await?;
    super::canonical_realm(&gs, name)
}

/// `gm notice [--realm NAME] [--now] TEXT`.
pub async fn notice(app: &App, a: NoticeArgs) -> Result<ExitCode> {
    let realm = match &a.realm {
        Some(r) => Some(realm_name(app, r).await?),
        None => None,
    };
    let text = a.text.join(" ");
    let given = season_notices::give(app, realm.as_deref(), &text, a.now).await?;
    let who = given.realms.join(", ");
    if given.mailed {
        crate::app::sender::flush_all(app).await?;
        println!("notice {} mailed now to {who}", given.id);
    } else {
        println!(
            "notice {} waits for the next Monday forms of {who}: {}",
            given.id,
            shown(&season_notices::clean_notice(&text))
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `gm release [IDS…] [--realm NAME | --all]`.
pub async fn release(app: &App, a: ReleaseArgs) -> Result<ExitCode> {
    let realm = match &a.realm {
        Some(r) => Some(realm_name(app, r).await?),
        None => None,
    };
    let choices: Vec<Release> = match (&realm, a.all, a.ids.is_empty()) {
        (Some(r), _, true) => vec![Release::Realm(r)],
        (None, true, true) => vec![Release::All],
        (None, false, false) => a.ids.iter().map(|&id| Release::One(id)).collect(),
        (None, false, true) => bail!("name what to release: outbox ids, --realm NAME or --all"),
        _ => bail!("give either outbox ids or --realm/--all, not both"),
    };
    let (mut total, mut not_held) = (0, Vec::new());
    for c in &choices {
        let n = flood::release(app, c).await?;
        if let (Release::One(id), 0) = (c, n) {
            not_held.push(id.to_string());
        }
        total += n;
    }
    crate::app::sender::flush_all(app).await?;
    println!("{total} held replies released");
    if !not_held.is_empty() {
        bail!(
            "not held replies: outbox {}; `pbemd gm queue` lists the held ones",
            not_held.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The held replies in `gm queue`: one line per realm.
pub async fn print_held(app: &App, conn: &mut crate::store::Conn) -> Result<()> {
    let held = notices::held(conn).await?;
    if held.is_empty() {
        return Ok(());
    }
    println!("\nreplies held by flood control (`pbemd gm release --realm NAME` sends them):");
    for g in held {
        println!(
            "  {:<16} {:>6} held since {}  outbox {}–{}",
            g.realm,
            g.count,
            app.game_time(from_ms(g.first_held_at)),
            g.first_id,
            g.last_id
        );
    }
    Ok(())
}

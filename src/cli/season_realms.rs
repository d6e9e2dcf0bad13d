//! `pbemd gm realm NAME …`: a realm's addresses, its replacement by a new player, and
//! absences the GM grants (README, Running a season).

use std::process::ExitCode;

use anyhow::Result;
use clap::{Subcommand, ValueEnum};

use super::gm::shown;
use crate::app::season_realms as season;
use crate::app::App;

#[derive(Debug, Subcommand)]
pub enum RealmAction {
    /// Add or remove one of the realm's addresses (`add`/`ADD`, `remove`/`REMOVE`).
    Address {
        #[arg(ignore_case = true)]
        op: AddressOp,
        address: String,
    },
    /// Hand the realm to a new player: NEW_ADDRESS becomes its only address from the
    /// next mail on, and gets the current form at once.
    Replace {
        new_address: String,
        /// The new player's name, for the welcome line.
        #[arg(long)]
        display: Option<String>,
    },
    /// Grant an absence of N weekends from the current round on (0 ends an absence).
    Absence { weekends: u32 },
}

/// What `gm realm NAME address` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AddressOp {
    Add,
    Remove,
}

/// `gm realm NAME …`.
pub async fn realm(app: &App, name: &str, action: RealmAction) -> Result<ExitCode> {
    let realm = {
        let mut conn = app.store.conn().await?;
        let (_, gs) = app.state(&mut conn).await?;
        super::canonical_realm(&gs, name)?
    };
    match action {
        RealmAction::Address {
            op: AddressOp::Add,
            address,
        } => {
            season::address_add(app, &realm, &address).await?;
            println!(
                "{} is now also {realm}'s address; the realm was told",
                shown(&address)
            );
        }
        RealmAction::Address {
            op: AddressOp::Remove,
            address,
        } => {
            season::address_remove(app, &realm, &address).await?;
            println!(
                "{} is no longer {realm}'s address; mail from it is now from an unknown sender",
                shown(&address)
            );
        }
        RealmAction::Replace {
            new_address,
            display,
        } => {
            let r = season::replace(app, &realm, &new_address, display.as_deref()).await?;
            println!(
                "{realm} is now played from {} (state version {}); the old address(es) {} \
                 are no longer the realm's; the current form was mailed to the new player",
                shown(&new_address),
                r.state_version,
                shown(&r.old.join(", "))
            );
        }
        RealmAction::Absence { weekends } => match season::gm_absence(app, &realm, weekends).await?
        {
            Some(a) => println!(
                "{realm} is away for rounds {}–{}; the realm was told",
                a.from_round, a.to_round
            ),
            None => println!("{realm}'s absence is ended"),
        },
    }
    crate::app::sender::flush_all(app).await?;
    Ok(ExitCode::SUCCESS)
}

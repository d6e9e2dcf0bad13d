//! `pbemd gm realm NAME …`: a realm's addresses, its replacement by a new player, and
//! absences the GM grants (docs/gm/season.md).

use std::process::ExitCode;

use anyhow::Result;
use clap::{Subcommand, ValueEnum};

use super::gm::shown;
use crate::app::season_realms as season;
use crate::app::App;

#[derive(Debug, Subcommand)]
pub enum RealmAction {
    /// Add or remove one of the realm's addresses (`add`/`ADD`, `remove`/`REMOVE`).
    ///
    /// The realm is told. Refused for another realm's address, the game's or the
    /// GM's, and for the realm's last address.
    Address {
        /// `add` or `remove`, in any case.
        #[arg(ignore_case = true)]
        op: AddressOp,
        /// The mail address.
        address: String,
    },
    /// Hand the realm to a new player: NEW_ADDRESS becomes its only address from the
    /// next mail on, and gets the current form at once.
    ///
    /// The form comes with a welcome line (docs/gm/season.md).
    Replace {
        /// The new player's address.
        new_address: String,
        /// The new player's name, for the welcome line.
        #[arg(long)]
        display: Option<String>,
    },
    /// Grant an absence of N weekends from the current round on (0 ends an absence).
    ///
    /// N is 1 to 52, whatever the cap on absences by mail
    /// (`season.max_absence_weekends`); the realm is told.
    Absence {
        /// How many weekends (0 ends the realm's absence).
        weekends: u32,
    },
}

/// What `gm realm NAME address` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AddressOp {
    /// Register the address for the realm.
    Add,
    /// Remove it.
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

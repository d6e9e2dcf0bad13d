//! `pbemd gm token REALM [--new]`: a realm's secret token for `sender_check: token`
//! (docs/reference/mail.md).

use std::process::ExitCode;

use anyhow::Result;

use crate::app::sender_auth;
use crate::app::App;

/// `gm token REALM`: print the token; with `new`, rotate it and mail it to the realm.
pub async fn token(app: &App, name: &str, new: bool) -> Result<ExitCode> {
    let realm = {
        let mut conn = app.store.conn().await?;
        let (_, gs) = app.state(&mut conn).await?;
        super::canonical_realm(&gs, name)?
    };
    if new {
        let r = sender_auth::rotate(app, &realm).await?;
        crate::app::sender::flush_all(app).await?;
        if r.mailed_to.is_empty() {
            println!(
                "{realm} has a new token {} (state version {}); it has no address to mail it to",
                r.token, r.state_version
            );
        } else {
            println!(
                "{realm} has a new token {} (state version {}); mailed to {}",
                r.token,
                r.state_version,
                r.mailed_to.join(", ")
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    match sender_auth::current(app, &realm).await? {
        Some(t) => println!("{realm}'s token: {t}"),
        None => println!("{realm} has no token; `pbemd gm token {realm} --new` gives it one"),
    }
    if !app.cfg.sender_check.uses_token() {
        println!(
            "(sender_check is {}: tokens are not checked in this game)",
            app.cfg.sender_check.as_str()
        );
    }
    Ok(ExitCode::SUCCESS)
}

//! `pbemd gm report [--round N]`: the GM's report of a resolved round, as it was mailed
//! to the GM (docs/gm/season.md).

use std::process::ExitCode;

use anyhow::Result;

use crate::app::App;

/// Print the report of round `round` (default: the latest round resolved); a round
/// without a standing resolution is an error (exit 1).
pub async fn report(app: &App, round: Option<i64>) -> Result<ExitCode> {
    let (_, text) = crate::app::season_report::text(app, round).await?;
    print!("{}", super::gm::shown(&text));
    Ok(ExitCode::SUCCESS)
}

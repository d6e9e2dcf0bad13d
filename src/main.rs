//! The `pbemd` binary: parse the command line, set up logging, hand over to the
//! library. A failure prints one line to stderr (each cause once) and exits non-zero;
//! a closed stdout (`pbemd gm show 1 | head`) ends the command quietly with exit 0.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = pbemd::cli::Cli::parse();
    let default = if matches!(cli.command, pbemd::cli::Command::Run) {
        "info"
    } else {
        "warn"
    };
    // Colours only for a person at a terminal; never in files, pipes or journald.
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match cli.log_format {
        pbemd::cli::LogFormat::Json => logs.json().with_current_span(true).init(),
        pbemd::cli::LogFormat::Text => logs.with_ansi(colour).init(),
    }
    match pbemd::cli::run(cli).await {
        Ok(code) => code,
        Err(e) if e.is::<pbemd::cli::StdoutClosed>() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "pbemd: {}", pbemd::cli::error_line(&e));
            ExitCode::FAILURE
        }
    }
}

//! The `pbemd` binary: parse the command line, set up logging, hand over to the
//! library. A failure prints one line to stderr and exits non-zero.

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
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default)),
        )
        .with_writer(std::io::stderr)
        .init();
    match pbemd::cli::run(cli).await {
        Ok(code) => code,
        Err(e) => {
            let line = format!("{e:#}").replace('\n', " ");
            eprintln!("pbemd: {line}");
            ExitCode::FAILURE
        }
    }
}

//! The command line (docs/reference/commands.md): argument definitions and one thin function
//! per subcommand, each a call into `app/`. Output for people goes to stdout; errors
//! reach `main`, which prints them as one line with each cause once ([`error_line`]).
//!
//! A closed stdout (`pbemd gm show 1 | head`) is no failure: every line goes through
//! [`write_out`], which turns the broken pipe into [`StdoutClosed`], and `main` ends
//! quietly with exit 0. Commands print only after their work is committed.

use std::io::Write;

/// Lines for people on stdout. This shadows the standard `println!` in this module and
/// in `gm` (textual macro scope), so no line can panic on a closed pipe: a write error
/// returns from the enclosing function with `?`.
macro_rules! println {
    () => {
        $crate::cli::write_out(format_args!("\n"))?
    };
    ($($arg:tt)*) => {
        $crate::cli::write_out(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// Like the `println!` above, without the newline.
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::cli::write_out(format_args!($($arg)*))?
    };
}

mod battle;
mod check_config;
mod gm;
mod gm_passwd;
mod politics;
pub mod reference;
mod season_calendar;
mod season_notices;
mod season_realms;
mod season_report;
mod sender_auth;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use crate::app::{self, App};
use crate::clock::{self, FixedClock, SystemClock};
use crate::config::Config;
use crate::game::lang::count;

/// pbemd: a play-by-email daemon for Världsstrategispelet.
///
/// Every command reads the game's configuration file (--config). It exits 0 on
/// success; a failure prints one line to stderr, `pbemd: ` and the error with each of
/// its causes once, and exits non-zero. The reference of every command is
/// docs/reference/commands.md; the configuration's keys, docs/reference/config.md.
#[derive(Debug, Parser)]
#[command(name = "pbemd", version)]
pub struct Cli {
    /// The game's configuration file. Relative paths inside it are read from its folder.
    #[arg(long, global = true, default_value = "pbemd.yaml")]
    pub config: PathBuf,
    /// How log lines are written to stderr: `text` for people, `json` (one object a
    /// line, span fields included) for a log collector.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value = "text",
        env = "PBEMD_LOG_FORMAT"
    )]
    pub log_format: LogFormat,
    #[command(subcommand)]
    pub command: Command,
}

/// The log line format (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Lines for people, coloured when stderr is a terminal and `NO_COLOR` is unset.
    Text,
    /// One JSON object a line, with the fields of its spans.
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a ready-to-run game directory (config, scenario, schedule, Maildirs).
    ///
    /// DIR gets `pbemd.yaml` (the database an SQLite file in DIR, mail taken from the
    /// Maildir `DIR/inbox` and written to the Maildir `DIR/outbox`), `scenario.yaml`
    /// (the demo's unless --scenario names another) and `schedule.yaml` (the
    /// rulebook's week). The command prints how to start the game:
    /// `pbemd --config DIR/pbemd.yaml init`.
    New {
        /// The game directory to create.
        dir: PathBuf,
        /// Scenario file to copy in (default: the built-in demo scenario).
        #[arg(long)]
        scenario: Option<PathBuf>,
    },
    /// Create or migrate the database and start the game from the scenario in round 1.
    ///
    /// The scenario named in the config is loaded as round 1, starting at --now
    /// (default: now); the schedule's events fire only after that instant. A game
    /// already in the database is not overwritten unless --force, which deletes it.
    ///
    /// The mail already in the game's inbox is set aside, not played, unless
    /// --take-old-mail (docs/reference/decisions.md, mail from before the game). To
    /// note where an IMAP inbox ends, `init` needs the IMAP password, unless
    /// --take-old-mail.
    ///
    /// Then every realm with an address is mailed its opening form (round 1's result
    /// form with the starting position and the first weekend's deadline), and the
    /// command says how many went out (`opening forms: 6 of 6 sent`, or how many wait
    /// in the outbox and the first error). That needs the SMTP password; --quiet skips
    /// the mailing. It prints `game started at 2026-11-24T09:00:00+01:00 in round 1
    /// with 6 realms`.
    Init {
        /// When the game starts (RFC 3339); schedule events fire only after it.
        #[arg(long)]
        now: Option<String>,
        /// Delete an existing game in this database and start over.
        #[arg(long)]
        force: bool,
        /// Do not mail the realms their opening forms (then no SMTP password is needed).
        #[arg(long)]
        quiet: bool,
        /// Take and play the mail already in the game's inbox, as mail of the game
        /// (without it, that mail is set aside; docs/reference/decisions.md).
        #[arg(long)]
        take_old_mail: bool,
    },
    /// Log in to the IMAP and SMTP servers (no mail sent), or look at the Maildirs,
    /// and say for each part what works or what to fix; exit 0 only when all works.
    ///
    /// It reads the config, logs in to the IMAP server (selects the mailbox and counts
    /// its mails) and to the SMTP server (EHLO, STARTTLS or TLS, AUTH; no mail is
    /// sent); for a Maildir it checks that `new/`, `cur/` and `tmp/` exist and are
    /// writable; and it checks the webhook's secret. It prints one line per part:
    /// `ok` with what works, or `FAIL` with the fix.
    ///
    /// The fixes it names: for an untrusted certificate, `set inbound.imap.ca_file to
    /// its certificate or CA (self-signed?)` (or `outbound.smtp.ca_file`); for a
    /// refused login, `wrong user or password (read from PBEMD_IMAP_PASSWORD)`, naming
    /// the variable or file the password came from; for nothing listening or an
    /// unknown host, the host and port and the keys to check. A missing password is a
    /// failure here.
    ///
    /// Exit 0 only when every part works, else 1. The daemon logs its connection
    /// failures in the same words (`IMAP connect failed: IMAP sl@… at …: wrong user or
    /// password …`, with `retry_in`) and keeps retrying with backoff; an outgoing
    /// mail's last error in `gm queue` reads the same.
    CheckConfig,
    /// Run the daemon until SIGTERM/SIGINT.
    ///
    /// It runs the intake (IMAP IDLE or polling, or a Maildir), the worker (mail and
    /// schedule events in time order, courier batches, the outbox) and, when
    /// `http.listen` is set, the HTTP server: `/inbound` (the webhook), `/healthz`,
    /// `/metrics` and the web site (the GM's desk under `/gm`, the realms' pages under
    /// `/realm`, the trade board at `/board`; docs/gm/web.md).
    ///
    /// It needs both mail servers' passwords and, with a webhook, its secret's
    /// variable; it refuses to start without them, naming the key. SIGTERM or SIGINT
    /// stops it within a few seconds, also in the middle of a mail
    /// (docs/gm/reliability.md).
    Run,
    /// One full pass as if the time were --now, then exit.
    ///
    /// It ingests every waiting mail, handles the stored mail and the schedule's
    /// events in time order up to --now (docs/gm/reliability.md), runs a courier batch
    /// (in `immediate` mode), flushes the outbox and exits. It prints what it did
    /// (`tick 2026-11-28T00:00:00+01:00: 3 stored, 3 handled, 1 event, …`) and each
    /// event it fired. It needs both mail servers' passwords.
    ///
    /// Exit 0 also when units of work failed: it prints `N failed and parked for the
    /// GM` (`gm queue` lists them). A --now before the game's latest time is refused;
    /// one more than `limits.max_tick_span_days` after it is refused with the number of
    /// events it would fire, unless --force.
    Tick {
        /// The time to run as (RFC 3339), not before the game's latest time.
        #[arg(long)]
        now: String,
        /// Run even when --now is more than limits.max_tick_span_days past the
        /// game's latest time.
        #[arg(long)]
        force: bool,
    },
    /// A self-contained demo week on SQLite + Maildir.
    ///
    /// The scripted demo week (a game from Monday 23 November 2026, player mail
    /// through the week, the weekend resolved, Monday's forms) in DIR; an earlier demo
    /// there is replaced. It prints where to look next; everything pbemd sent is in
    /// `DIR/outbox/new`.
    Demo {
        /// Where the demo game is made.
        #[arg(long, default_value = "pbemd-demo")]
        dir: PathBuf,
    },
    /// The GM's view of the state, or one realm's own view.
    ///
    /// A summary (state version, round, and per realm its VP and addresses), or with
    /// --json the GM's whole state document, or with --realm that realm's own view.
    State {
        /// Only this realm (its own view with --json).
        #[arg(long)]
        realm: Option<String>,
        /// Print JSON (the full document) instead of a summary.
        #[arg(long)]
        json: bool,
    },
    /// Parse and check a weekend form offline against the current state and print the
    /// receipt: exit 0 when every order is accepted, 1 when any is refused (or the form
    /// answers an earlier round), 2 when the file cannot be read or the realm is unknown.
    ///
    /// The receipt is the one the realm would get by mail, with the deadline of the
    /// round it checks (the first weekend closing after the current round began),
    /// whatever the machine's clock says. For an unknown realm the error lists the
    /// realms. docs/reference/orders.md has the form and its orders.
    CheckForm {
        /// The realm whose form it is (case and diacritics do not matter).
        #[arg(long)]
        realm: String,
        /// The form: a text file, as the player would mail it.
        file: PathBuf,
    },
    /// Resolve the current weekend now from the forms standing and print every realm's
    /// report; with --dry-run (required) nothing is saved.
    ///
    /// The weekend is resolved for real only at its deadline, or by `gm resolve` after
    /// `gm rollback` (docs/gm/weekend.md).
    Resolve {
        /// Save nothing (required).
        #[arg(long, required = true)]
        dry_run: bool,
    },
    /// The battle calculator: fight one battle with the engine's combat rules.
    ///
    /// It needs no game and no config. Units are `count name` items separated by
    /// commas, in cannon-fodder order (the last named falls first), Swedish or
    /// English, singular or plural; a missing count is 1. With --naval they are ships.
    /// A bonus is the Befälhavare (land) or Amiral (sea) value. --walls and
    /// --city-population describe a defended city; with --city-population and no
    /// --defender the city defends alone.
    ///
    /// How a battle goes: archers (galleasses at sea) fire first: the side with fewer
    /// loses the difference, a side with none counts as fewer; walls spare a defender
    /// with units its archer losses, never the attacker. Then each siege tower brings
    /// down one wall and is used up. Then rounds: each side rolls a d20; the lower
    /// total loses one unit per full 5 points of difference, from the tail of its
    /// line. Walls add 10 each while the city has army units. A city with no army
    /// units defends with population/10 + d20 each round; it falls the first round the
    /// attacker is 5 or more ahead, and the attacker loses units as usual when the
    /// city is 5 or more ahead. The battle runs until one side has no units, or the
    /// round limit, after which the attacker withdraws (`winner: none`). Walls play no
    /// part at sea.
    ///
    /// --json prints `pre_battle {attacker_losses, defender_losses, walls_removed, …}`,
    /// `rounds [{attacker_roll, defender_roll, attacker_total, defender_total,
    /// attacker_losses, defender_losses, attacker_value, defender_value}]`, `winner`
    /// (`attacker`, `defender` or `none`), `attacker_left` and `defender_left` (the
    /// survivors as `count name` items, front first, in the chosen language),
    /// `walls_left` and `undefended_city`. A total is the side's value plus its roll.
    ///
    /// Example: `pbemd battle --attacker "5 lätt infanteri, 2 tungt infanteri"
    /// --attacker-bonus 4 --defender "3 bågskyttar, 4 tungt infanteri"
    /// --defender-bonus 3 --walls 1 --city-population 40 --rolls 8,1 --json`. The
    /// combat code is the engine's own (`src/game/combat.rs`).
    Battle(battle::BattleArgs),
    /// The GM's commands: the review queue, the weekend, the season, the realms.
    Gm {
        #[command(subcommand)]
        command: gm::GmCommand,
    },
}

/// Stdout was closed by the reader (a broken pipe): the command stops printing and
/// `main` exits 0 without a message.
#[derive(Debug, thiserror::Error)]
#[error("stdout was closed")]
pub struct StdoutClosed;

/// Write to stdout; a broken pipe becomes [`StdoutClosed`].
pub fn write_out(args: std::fmt::Arguments<'_>) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_fmt(args).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(StdoutClosed.into()),
        Err(e) => Err(anyhow::Error::new(e).context("cannot write to stdout")),
    }
}

/// An error and its causes as one line, each cause once: a cause whose text the line
/// already holds (a `thiserror` message that embeds its `#[source]`, or a library
/// that repeats its inner error) is left out.
pub fn error_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string().replace('\n', " ");
        let text = text.trim();
        if text.is_empty() || line.contains(text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(text);
    }
    line
}

/// Run a parsed command line.
pub async fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::New { dir, scenario } => {
            let cfg = app::setup::new_game_dir(&dir, scenario.as_deref())?;
            println!("created {}", dir.display());
            println!("start the game with: pbemd --config {} init", cfg.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Init {
            now,
            force,
            quiet,
            take_old_mail,
        } => {
            let now = match now {
                Some(s) => clock::parse_rfc3339(&s).map_err(anyhow::Error::msg)?,
                None => clock::Clock::now(&SystemClock),
            };
            // The passwords `init` needs: SMTP for the opening forms (unless --quiet),
            // IMAP to note where the inbox ends (unless --take-old-mail).
            let cfg = Config::load(&cli.config)?;
            if !quiet {
                cfg.require_outbound_secret().context(
                    "`init` mails the opening forms; `init --quiet` starts the game without them",
                )?;
            }
            if !take_old_mail {
                cfg.require_inbound_secret().context(
                    "`init` notes where the game's inbox ends; `init --take-old-mail` starts \
                     without it (the mail already there is then played)",
                )?;
            }
            let app = App::open(cfg, Arc::new(FixedClock::new(now))).await?;
            // Before the game is made: a refused login leaves nothing half made.
            let end = if take_old_mail {
                None
            } else {
                app::setup::imap_inbox_end(&app).await?
            };
            app::setup::init(&app, now, force).await?;
            let old = app::setup::set_aside_old_mail(&app, now, end, take_old_mail).await?;
            let mut conn = app.store.conn().await?;
            let (_, gs) = app.state(&mut conn).await?;
            println!(
                "game started at {} in round {} with {} realms",
                app.game_time(now),
                gs.round,
                gs.realms.len()
            );
            drop(conn);
            println!("{}", old.said());
            if quiet {
                println!("opening forms: none sent (--quiet)");
            } else {
                app::setup::mail_opening_forms(&app, now).await?;
                let sent = app::setup::send_opening_forms(&app).await?;
                println!("{}", sent.said());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::CheckConfig => check_config::run(&cli.config).await,
        Command::Run => {
            let cfg = Config::load(&cli.config)?;
            cfg.require_run_secrets()?;
            let app = Arc::new(App::open(cfg, Arc::new(SystemClock)).await?);
            let cancel = tokio_util::sync::CancellationToken::new();
            let c = cancel.clone();
            tokio::spawn(async move {
                shutdown_signal().await;
                tracing::info!("shutdown requested; finishing the work in hand");
                c.cancel();
            });
            if app::daemon::run(app, cancel).await? == app::daemon::Stopped::Abandoned {
                // The unit in hand never committed; ending the process rolls it back
                // (waiting for the runtime would wait for that unit).
                std::process::exit(0);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Tick { now, force } => {
            let now = clock::parse_rfc3339(&now).map_err(anyhow::Error::msg)?;
            let cfg = Config::load(&cli.config)?;
            // A tick reads and sends mail: it needs both mail servers' passwords.
            cfg.require_mail_secrets()?;
            let app = App::open(cfg, Arc::new(FixedClock::new(now))).await?;
            let r = match app::tick::tick_with(&app, force).await {
                Ok(r) => r,
                // The IMAP server's failure in the words of `check-config`.
                Err(e @ app::AppError::Transport(_)) => {
                    anyhow::bail!("{}", app::intake::explain(&app, &e))
                }
                Err(e) => return Err(e.into()),
            };
            println!(
                "tick {}: {} stored, {} handled, {}, {} delivered, {} sent, {}",
                app.game_time(now),
                r.stored,
                r.handled,
                count(r.events.len(), "event", "events"),
                r.delivered,
                r.sent,
                count(r.send_failures, "send failure", "send failures")
            );
            for e in &r.events {
                println!("  fired {e}");
            }
            if r.parked > 0 {
                println!(
                    "  {} failed and parked for the GM: `pbemd gm queue` lists them",
                    r.parked
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Demo { dir } => {
            print!("{}", app::demo::run(&dir).await?);
            Ok(ExitCode::SUCCESS)
        }
        Command::State { realm, json } => {
            let app = open(&cli.config, Arc::new(SystemClock)).await?;
            let mut conn = app.store.conn().await?;
            let (version, gs) = app.state(&mut conn).await?;
            let value = match &realm {
                None => serde_json::to_value(&gs)?,
                Some(name) => {
                    let canonical = canonical_realm(&gs, name)?;
                    serde_json::to_value(gs.realm_view(&canonical).context("realm view")?)?
                }
            };
            if json {
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                println!("state version {version}, round {}", gs.round);
                for r in &gs.realms {
                    if realm.as_deref().is_none_or(|n| {
                        crate::game::text::fold(n) == crate::game::text::fold(&r.name)
                    }) {
                        println!("  {:<10} {:>5} VP  {}", r.name, r.vp, r.emails.join(", "));
                    }
                }
                println!("(--json prints the whole document)");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::CheckForm { realm, file } => {
            let text = match std::fs::read(&file) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) => {
                    let _ = writeln!(
                        std::io::stderr(),
                        "pbemd: cannot read {}: {e}",
                        file.display()
                    );
                    return Ok(ExitCode::from(2));
                }
            };
            let app = open(&cli.config, Arc::new(SystemClock)).await?;
            let mut conn = app.store.conn().await?;
            let (_, gs) = app.state(&mut conn).await?;
            let Some(r) = canonical_realm(&gs, &realm)
                .ok()
                .and_then(|name| gs.realm(&name))
            else {
                eprintln!(
                    "pbemd: no realm named {realm}; realms: {}",
                    gs.realm_names().join(", ")
                );
                return Ok(ExitCode::from(2));
            };
            let canonical = r.name.clone();
            if let Some((_, made_for)) =
                crate::forms::form_title(&text).filter(|&(_, n)| n < gs.round)
            {
                // As the daemon would answer: a form for an old round is not applied.
                let note =
                    crate::forms::stale_form_text(r.language, made_for, gs.round, None, true);
                println!("{note}");
                return Ok(ExitCode::from(1));
            }
            let checked = crate::forms::read_form(&gs, &canonical, &text, &[]);
            // The deadline of the round being checked (not the next one after the
            // machine's clock, which may be another week than the game's).
            let deadline = app::process::round_deadline(&app, &mut conn, &gs, Some(&canonical))
                .await?
                .map(|t| app.local(t, r.language))
                .unwrap_or_default();
            print!(
                "{}",
                crate::forms::receipt_text(&checked, r.language, &deadline)
            );
            Ok(if checked.refused() == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Resolve { dry_run: _ } => {
            let app = open(&cli.config, Arc::new(SystemClock)).await?;
            gm::dry_run(&app).await
        }
        Command::Battle(args) => battle::run(&args),
        Command::Gm { command } => {
            let app = open(&cli.config, Arc::new(SystemClock)).await?;
            gm::run(&app, command).await
        }
    }
}

/// A realm's canonical name from what a person typed (case and diacritics ignored).
fn canonical_realm(gs: &crate::game::GameState, name: &str) -> Result<String> {
    let fold = crate::game::text::fold;
    gs.realm_names()
        .into_iter()
        .find(|n| fold(n) == fold(name))
        .map(str::to_string)
        .with_context(|| {
            format!(
                "no realm named {name}; realms: {}",
                gs.realm_names().join(", ")
            )
        })
}

/// Load the config and open the app.
pub async fn open(config: &std::path::Path, clock: Arc<dyn clock::Clock>) -> Result<App> {
    let cfg = Config::load(config)?;
    Ok(App::open(cfg, clock).await?)
}

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A boundary error that embeds its source in its message, as
    /// `#[error("database error: {0}")]` with `#[source]` does.
    #[derive(Debug, thiserror::Error)]
    #[error("database error while saving: {0}")]
    struct Outer(#[source] Middle);

    #[derive(Debug, thiserror::Error)]
    #[error("error returned from database: {0}")]
    struct Middle(#[source] Inner);

    #[derive(Debug, thiserror::Error)]
    #[error("invalid byte sequence for encoding \"UTF8\": 0x00")]
    struct Inner;

    #[test]
    fn error_line_names_each_cause_once() {
        let e = anyhow::Error::new(Outer(Middle(Inner))).context("cannot handle mail 7");
        assert_eq!(
            error_line(&e),
            "cannot handle mail 7: database error while saving: error returned from database: \
             invalid byte sequence for encoding \"UTF8\": 0x00"
        );
    }

    #[test]
    fn error_line_keeps_causes_that_add_something() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(io).context("cannot read pbemd.yaml");
        assert_eq!(error_line(&e), "cannot read pbemd.yaml: no such file");
    }
}

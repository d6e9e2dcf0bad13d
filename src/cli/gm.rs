//! `pbemd gm …`: the GM's commands (the review queue, the weekend, the season).

use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;

use crate::app::App;
use crate::clock::from_ms;
use crate::store::messages;

/// What `gm results` does.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ResultsAction {
    /// Keep the Monday forms back at the `results` event.
    Hold,
    /// Send them now; before the `results` event, lift the hold.
    Release,
}

/// `gm results hold|release`.
async fn results(app: &App, action: ResultsAction) -> Result<()> {
    use crate::app::results_hold::{self, Released};
    match action {
        ResultsAction::Hold => {
            let round = results_hold::hold(app).await?;
            println!(
                "the results of round {round} are held: the results event keeps the Monday \
                 forms back; `pbemd gm results release` sends them"
            );
        }
        ResultsAction::Release => {
            let r = results_hold::release(app).await?;
            if matches!(r, Released::Sent { .. }) {
                crate::app::sender::flush_all(app).await?;
            }
            println!("{}", r.said());
        }
    }
    Ok(())
}

#[derive(Debug, Subcommand)]
pub enum GmCommand {
    /// What waits for the GM, oldest first (and mail that could not be sent).
    ///
    /// Parked units of work first, then mail held for review, queued for the courier,
    /// and mail to the GM, each with its id, kind, realms and age; then outgoing mail
    /// that failed or is being retried (by outbox id), and per realm the replies held
    /// by flood control. An answered or closed item leaves the queue; --all lists
    /// refused, answered and closed (`done`) mail too.
    Queue {
        /// Also list refused, answered and closed mail (kept for the GM).
        #[arg(long)]
        all: bool,
    },
    /// One message in full, with its raw mail.
    ///
    /// For a parked message an `error:` line says what failed. Control characters and
    /// bidirectional overrides are shown escaped (docs/gm/reliability.md).
    Show {
        /// The message's id, as `gm queue` lists it.
        id: i64,
    },
    /// Release a held message to the courier (the next batch, or now with --now).
    ///
    /// In `immediate` courier mode it goes at once. On an item waiting for the GM it
    /// is refused with the command that fits (a realm's mail to the GM: "answer it with
    /// `pbemd gm answer 7` or close it with `pbemd gm done 7`").
    Approve {
        /// The message's id.
        id: i64,
        /// Let the courier decide it now instead of at the next batch.
        #[arg(long)]
        now: bool,
    },
    /// Refuse a held, queued or parked message; the sender gets the reason (when it is
    /// a realm's), nothing is charged.
    ///
    /// It also closes an item waiting for the GM other than a realm's mail to the GM
    /// (that one is refused, naming `gm answer` and `gm done`). The sender gets the
    /// reason when the mail is a realm's with an address. The command says "the sender
    /// was told why (mailed to …)" only when the refusal went out; that it waits in the
    /// outbox, and why, when it did not; and "no mail went to anyone" and why (an
    /// unknown sender, no realm, no address) when none was queued.
    Reject {
        /// The message's id.
        id: i64,
        /// Why, in words the sender reads.
        #[arg(long)]
        reason: String,
    },
    /// Answer a realm's mail to the GM: the text (from --file, else standard input)
    /// goes to every address of the realm from the game's address, in the realm's
    /// language; the message is marked answered (audited).
    ///
    /// The message must be a realm's mail to the GM (kind `to_gm`). The text is sent
    /// as written, from the game's address (never the GM's), to every registered
    /// address of the realm, in its language (`Svar från SL` / `Answer from the GM`
    /// around the text), in reply to the realm's mail, with the subject `Re: <Land>
    /// till SL: <ämne>` / `Re: <Realm> to GM: <topic>`, so the realm's Reply to it is
    /// mail to the GM again.
    ///
    /// The message becomes `answered` (out of the queue); the answer is audited as
    /// `gm_answered` with the text and `via` (`command`, `desk` or `mail`). An answered
    /// or closed item can be answered again (the same text twice is one mail). An empty
    /// text, a message that is not a realm's mail to the GM, or a realm without an
    /// address is refused. The command says whether the answer went out (`message 7
    /// answered: the answer went to Kaldor (kaldor@game.test)`) or waits in the outbox
    /// and why. Replying to the notice the GM got about the mail does the same
    /// (docs/reference/mail.md).
    Answer {
        /// The message's id.
        id: i64,
        /// Read the answer from this file instead of standard input.
        #[arg(long)]
        file: Option<std::path::PathBuf>,
    },
    /// Close an item that waits for the GM (a realm's mail to the GM, a mail of an
    /// unknown sender …) without any mail (audited).
    ///
    /// Any item waiting for the GM (a realm's mail to the GM, a mail of an unknown or
    /// doubtful sender, the GM's own mail …) becomes `done`, out of the queue; audited
    /// as `gm_done`. A message in another state is refused with the command that fits.
    Done {
        /// The message's id.
        id: i64,
    },
    /// Try a parked message again (one whose handling failed; `gm show` has the error).
    ///
    /// A mail goes back to the inbox and is handled again, with its original receipt
    /// time, by the next `tick` or within 30 seconds by a running daemon; a courier
    /// message goes back to the courier's queue. A mail from before the game (`gm
    /// queue` lists it as `from before the game`) is played, as received at the game's
    /// latest time.
    Retry {
        /// The message's id.
        id: i64,
    },
    /// Send again an outgoing mail that the sender gave up (ID: its outbox id, as
    /// `gm queue` lists it), or with --all every mail not yet delivered (given up, or
    /// waiting for its next try).
    ///
    /// One of ID and --all is required. With ID, a mail the sender gave up (`failed`)
    /// is due at once with a fresh count of attempts (a new failure is retried with
    /// backoff, as a new mail's is); the outbox is flushed and the command says whether
    /// it went out (`outbox 12 sent to …`) or failed again and why. The very same bytes
    /// and Message-ID go out. A mail already sent, held by flood control or never tried
    /// is refused, and so is one waiting for its next try: it is tried again by itself,
    /// and at that moment a sender may hold it (a sender's lease looks like a wait), so
    /// making it due again could send it twice.
    ///
    /// With --all, every outgoing mail not yet delivered is tried now: each one given
    /// up as with ID, and each one waiting for its next try made due now, unless that
    /// try comes within two minutes (a running daemon may hold its lease at this
    /// moment; it is tried by itself within that time). The outbox is flushed and the
    /// command says what came of it: `3 mails sent again, 1 still failing: outbox 12 to
    /// … (535 …; given up)`. Each mail retried is audited as `gm_mail_retried`, with
    /// the attempts and the error it had.
    #[command(group(clap::ArgGroup::new("which").required(true).args(["id", "all"])))]
    RetryMail {
        /// The outbox id of a mail the sender gave up.
        id: Option<i64>,
        /// Every outgoing mail not yet delivered.
        #[arg(long)]
        all: bool,
    },
    /// Hold a queued message for review.
    ///
    /// It waits for `gm approve` or `gm reject`.
    Hold {
        /// The message's id.
        id: i64,
    },
    /// Correct a held or queued message's text, or a realm's standing weekend form
    /// before its round is resolved (from --file, else standard input).
    ///
    /// A form can be edited while its round is not yet resolved, so: after
    /// `gm rollback`. It is checked again (the command says how many orders are
    /// accepted and refused) and counts in place of the old one, keeping its receipt
    /// time. The old and the new text are audited.
    Edit {
        /// The message's id (a weekend form is a message too).
        id: i64,
        /// Read the new text from this file instead of standard input.
        #[arg(long)]
        file: Option<std::path::PathBuf>,
    },
    /// Replace the state with a GM-corrected JSON document (validated and audited).
    ///
    /// The document is the one `pbemd state --json` prints; it must parse and
    /// validate.
    ImportState {
        /// The corrected state document (JSON).
        file: std::path::PathBuf,
    },
    /// The drafted Monday forms (every playing realm's, or one), with the report of the
    /// weekend resolved, as the `results` event will mail them.
    ///
    /// Word for word the text `results` mails, built by the same code: the skipped
    /// dates' notes and the GM's notices above the form, the realm's site link below
    /// it.
    Preview {
        /// Only this realm's form.
        #[arg(long)]
        realm: Option<String>,
        /// Make the forms as if at this RFC 3339 time, as `results` would then (the
        /// links' expiry and the skipped dates' notes count from it; default now).
        #[arg(long)]
        at: Option<String>,
    },
    /// Undo the last weekend resolution: the state before it comes back and the
    /// round's forms count again (`gm resolve` resolves it again).
    ///
    /// The state before the resolution is written again as a new version; the
    /// resolution is kept, marked as rolled back. Refused when the state has changed
    /// since (e.g. by weekday courier batches), unless --force.
    Rollback {
        /// Roll back even if the state has changed since the resolution.
        #[arg(long)]
        force: bool,
    },
    /// Resolve again a weekend that was rolled back (after corrections); if its results
    /// had gone out, corrected forms are mailed, marked as a correction.
    ///
    /// The corrected forms go out at once if the round's results had gone out (or
    /// were held), else at the `results` event.
    Resolve,
    /// Keep this weekend's Monday forms back at the results event (`hold`), or send
    /// them (`release`).
    ///
    /// docs/gm/weekend.md tells when to use it.
    Results {
        /// `hold` or `release`.
        #[arg(value_enum)]
        action: ResultsAction,
    },
    /// Rerun round N from its stored inputs and report any difference from the stored
    /// output (exit 1 when they differ).
    ///
    /// It prints `identical`, or every path of the state that differs (at most 50) and
    /// exits 1.
    Replay {
        /// The round to rerun.
        #[arg(long)]
        round: i64,
    },
    /// A realm's mission: `done` (+300 VP, audited) or `set TEXT`.
    Mission {
        /// The realm.
        realm: String,
        #[command(subcommand)]
        action: super::politics::MissionAction,
    },
    /// Choose a realm's random event in place of the roll: `good N`, `bad N` or `none`
    /// (without N the table is listed). Before the weekend it waits for it; between the
    /// resolution and the results the weekend is resolved again with it.
    ///
    /// N is an entry of the scenario's good or bad table, used in place of the realm's
    /// d10. `good` or `bad` without N lists that table and chooses nothing. Audited
    /// (docs/gm/weekend.md).
    Event {
        /// The realm.
        realm: String,
        /// Which table: `good`, `bad`, or `none` for no event.
        kind: super::politics::EventKind,
        /// The table's entry (without it the table is listed).
        n: Option<usize>,
    },
    /// Pause the game: no window opens or closes, nothing is resolved or sent out;
    /// player mail is kept, answered with a notice, and handled after the pause. Every
    /// realm is told. It resumes by itself at --until (at most season.max_pause_days
    /// days, also the end without --until), or with `gm resume`. While paused,
    /// `gm pause --until DATE` moves the end.
    ///
    /// docs/gm/season.md has pauses, extensions and holidays.
    Pause {
        /// When the pause ends: a date YYYY-MM-DD (00:00 that day in the game's time
        /// zone) or an RFC 3339 time (2027-01-04T12:00:00+01:00).
        #[arg(long, value_name = "DATE")]
        until: Option<String>,
        /// Why (told to the players).
        #[arg(long)]
        reason: Option<String>,
        /// Act as if at this RFC 3339 time (replays and tests; never before the game's
        /// latest time).
        #[arg(long)]
        at: Option<String>,
    },
    /// End the pause now: the week goes on from where it stood, every later time moved
    /// by the pause's length; every realm is told the new form deadline.
    Resume {
        /// Act as if at this RFC 3339 time (replays and tests).
        #[arg(long)]
        at: Option<String>,
    },
    /// Extend this weekend's form deadline by HOURS (local clock; at most
    /// season.max_extend_hours) for every realm, or with --realm accept that realm's
    /// form late; the round is resolved after the latest such deadline. Realms told.
    Extend {
        /// Only this realm's form is accepted late.
        #[arg(long, value_name = "NAME")]
        realm: Option<String>,
        /// Hours after the schedule's deadline (1 to season.max_extend_hours).
        hours: u32,
        /// Act as if at this RFC 3339 time (replays and tests).
        #[arg(long)]
        at: Option<String>,
    },
    /// A realm's addresses, its replacement by a new player, or an absence:
    /// `address add|remove ADDRESS`, `replace NEW_ADDRESS [--display NAME]`, `absence N`.
    ///
    /// docs/gm/season.md has absences, missed weekends and replacements.
    Realm {
        /// The realm.
        realm: String,
        #[command(subcommand)]
        action: super::season_realms::RealmAction,
    },
    /// The GM's report of a resolved round (default: the latest), as it was mailed to
    /// the GM after the resolution: forms, battles, VP, parked and failed, deadlines.
    ///
    /// Exit 1 with one line when the round has no standing resolution.
    Report {
        /// The round (default: the latest resolved).
        #[arg(long)]
        round: Option<i64>,
    },
    /// A notice from the GM at the top of the next Monday forms (every realm's, or one),
    /// or mailed now with --now.
    ///
    /// The notice is printed once, on the next Monday forms of every playing realm or
    /// of one; with --now it is mailed at once instead (docs/gm/season.md).
    Notice(super::season_notices::NoticeArgs),
    /// Send replies held by flood control (outbox ids, --realm NAME or --all).
    ///
    /// The outbox ids are those `gm queue` shows; --realm sends every held reply to
    /// one realm, --all every held reply (`limits.max_replies_per_hour`).
    Release(super::season_notices::ReleaseArgs),
    /// Set the GM's password for the web desk: read twice from the terminal (or one
    /// line from standard input), stored as an Argon2id hash in the config's `http:`
    /// block (`gm_password_hash`).
    ///
    /// From a terminal it is read twice without echo; from a pipe, one line. It must
    /// be at least 8 characters. The Argon2id hash is written into
    /// `http.gm_password_hash` of the config file (edited as text, its comments kept);
    /// every GM session ends; audited as `gm_password_set`. Restart `pbemd run` to use
    /// it (docs/gm/web.md).
    Passwd,
    /// A realm's secret token for `sender_check: token` (printed); --new gives it a new
    /// one, mailed to the realm's registered addresses (audited).
    ///
    /// The token counts for `sender_check: token` and `dkim-or-token`. With --new the
    /// new token is saved at once as a new state version and audited (`gm_token_new`;
    /// the token itself is never written to the audit log), and mailed to the realm's
    /// registered addresses in its language (`<Realm>: new secret token` / `<Land>: ny
    /// hemlig nyckel`). The old token stops counting with the next mail handled
    /// (docs/reference/mail.md).
    Token {
        /// The realm.
        realm: String,
        /// Give the realm a new token and mail it.
        #[arg(long)]
        new: bool,
    },
    /// The audit log: every courier decision, dice roll, schedule event and GM action.
    Log {
        /// Only this realm's entries.
        #[arg(long)]
        realm: Option<String>,
        /// Only this round's entries.
        #[arg(long)]
        round: Option<i64>,
    },
}

pub async fn run(app: &App, cmd: GmCommand) -> Result<ExitCode> {
    let mut conn = app.store.conn().await?;
    let now = app.now();
    match cmd {
        GmCommand::Queue { all } => {
            let q = crate::app::desk::queue(app, all).await?;
            let items = &q.messages;
            if items.is_empty() {
                println!("the GM queue is empty");
            }
            for m in items {
                let age = now - from_ms(m.created_at);
                // Mail from before the game reads as that, over its state and kind.
                let what = if m.state == messages::state::BEFORE_GAME {
                    "from before the game".to_string()
                } else {
                    format!("{:<9} {}", m.state, m.kind)
                };
                println!(
                    "{:>5}  {:<25} {:<22} {:>6}  {}",
                    m.id,
                    what,
                    who(m),
                    human_age(age),
                    one_line(&m.subject, 60)
                );
            }
            super::season_notices::print_held(app, &mut conn).await?;
            let failed = q.undelivered;
            if !failed.is_empty() {
                println!(
                    "\noutgoing mail not yet delivered (`pbemd gm retry-mail ID` sends a failed one again, \
                     `pbemd gm retry-mail --all` every one now; pending ones are also tried again by themselves):"
                );
                for f in failed {
                    println!(
                        "  outbox {:>5}  {:<8} attempts {:<3} to {}  {}",
                        f.id,
                        f.state,
                        f.attempts,
                        f.to_addrs,
                        one_line(f.last_error.as_deref().unwrap_or(""), 60)
                    );
                }
            }
        }
        GmCommand::Show { id } => {
            drop(conn);
            let view = crate::app::desk::message(app, id).await?;
            let m = view.message;
            println!("message {}  ({}, {})", m.id, m.kind, m.state);
            println!("received: {}", app.game_time(from_ms(m.created_at)));
            println!("from:     {}", shown(m.from_addr.as_deref().unwrap_or("-")));
            println!("realm:    {}", shown(m.realm.as_deref().unwrap_or("-")));
            println!("to realm: {}", shown(m.to_realm.as_deref().unwrap_or("-")));
            println!("round:    {}", m.round);
            println!("subject:  {}", shown(&m.subject));
            if let Some(r) = &m.reason {
                let label = if m.state == messages::state::PARKED {
                    "error:    "
                } else {
                    "reason:   "
                };
                println!("{label}{}", shown(r));
            }
            if m.state == messages::state::PARKED {
                println!("(parked: `pbemd gm retry {id}` tries again, `pbemd gm reject {id} --reason …` refuses it)");
            } else if m.kind == crate::app::gm::TO_GM && m.state == messages::state::GM_QUEUE {
                println!("(mail to the GM: `pbemd gm answer {id}` answers it, `pbemd gm done {id}` closes it without mail; a reply to the notice mailed to the GM answers it too)");
            } else if m.state == messages::state::GM_QUEUE {
                println!("(`pbemd gm done {id}` closes it without mail)");
            }
            println!("\n{}", shown(&m.body));
            if let Some(raw) = view.raw {
                println!("\n----- raw mail ({} bytes) -----", raw.len());
                let text = String::from_utf8_lossy(&raw[..raw.len().min(64 * 1024)]);
                println!("{}", shown(&text.replace("\r\n", "\n")));
            }
        }
        GmCommand::Approve { id, now } => {
            drop(conn);
            let r = crate::app::gm::approve(app, id, now).await?;
            crate::app::sender::flush_all(app).await?;
            if r.decided > 0 {
                println!(
                    "message {id} approved; the courier decided {} message(s) now",
                    r.decided
                );
            } else {
                println!("message {id} approved; it goes out with the next courier batch");
            }
        }
        GmCommand::Reject { id, reason } => {
            drop(conn);
            let r = crate::app::gm::reject(app, id, &reason).await?;
            crate::app::sender::flush_all(app).await?;
            println!("{}", r.said(app).await?);
        }
        GmCommand::Answer { id, file } => {
            drop(conn);
            let text = match file {
                Some(f) => std::fs::read_to_string(&f)
                    .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", f.display()))?,
                None => std::io::read_to_string(std::io::stdin())?,
            };
            let a = crate::app::gm::answer(app, id, &text, "command").await?;
            crate::app::sender::flush_all(app).await?;
            println!("{}", a.said(app).await?);
        }
        GmCommand::Done { id } => {
            drop(conn);
            crate::app::gm::done(app, id).await?;
            println!("message {id} closed without any mail");
        }
        GmCommand::Retry { id } => {
            drop(conn);
            crate::app::gm::retry(app, id).await?;
            println!(
                "message {id} will be tried again by the next tick, or at once by a running daemon"
            );
        }
        GmCommand::RetryMail { id, all } => {
            drop(conn);
            match id {
                Some(id) if !all => {
                    let r = crate::app::gm::retry_mail(app, id).await?;
                    println!("{}", r.summary());
                }
                _ => {
                    let r = crate::app::gm::retry_mail_all(app).await?;
                    println!("{}", r.summary());
                }
            }
        }
        GmCommand::Hold { id } => {
            drop(conn);
            crate::app::gm::hold(app, id).await?;
            println!("message {id} held");
        }
        GmCommand::Edit { id, file } => {
            drop(conn);
            let text = match file {
                Some(f) => std::fs::read_to_string(&f)
                    .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", f.display()))?,
                None => std::io::read_to_string(std::io::stdin())?,
            };
            match crate::app::gm::edit(app, id, &text).await? {
                None => println!("message {id} edited (the change is in the audit log)"),
                Some(f) => println!(
                    "weekend form {id} edited and checked again: {} accepted, {} refused; \
                     it counts at the next resolution (the change is in the audit log)",
                    f.accepted, f.refused
                ),
            }
        }
        GmCommand::ImportState { file } => {
            drop(conn);
            let text = std::fs::read_to_string(&file)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
            let v = crate::app::gm::import_state(app, &text).await?;
            println!("state version {v} imported from {}", file.display());
        }
        GmCommand::Preview { realm, at } => {
            drop(conn);
            return preview(app, realm.as_deref(), at.as_deref()).await;
        }
        GmCommand::Rollback { force } => {
            drop(conn);
            let r = crate::app::weekend::rollback(app, force).await?;
            println!(
                "round {} rolled back: state version {} is the state before it; its forms count again",
                r.round, r.state_version
            );
            if r.results_had_gone_out {
                println!("its results had gone out: `pbemd gm resolve` mails corrected forms");
            } else {
                println!("`pbemd gm resolve` resolves it again");
            }
        }
        GmCommand::Resolve => {
            drop(conn);
            let r = crate::app::weekend::gm_resolve(app).await?;
            crate::app::sender::flush_all(app).await?;
            let x = &r.resolved;
            println!(
                "round {} resolved again (resolution {}, state version {}): forms from {}; {} events",
                x.round,
                x.id,
                x.new_version,
                list(&x.forms_from),
                x.events
            );
            println!("{}", r.forms.said(app));
        }
        GmCommand::Results { action } => {
            drop(conn);
            results(app, action).await?;
        }
        GmCommand::Replay { round } => {
            drop(conn);
            let r = crate::app::weekend::replay(app, round).await?;
            if r.differences.is_empty() {
                println!(
                    "round {} (resolution {}) replayed: identical ({} events, {} rolls)",
                    r.round, r.resolution_id, r.events, r.rolls
                );
            } else {
                println!(
                    "round {} (resolution {}) replayed: {} difference(s) from the stored output",
                    r.round,
                    r.resolution_id,
                    r.differences.len()
                );
                for d in &r.differences {
                    println!("  {}", shown(d));
                }
                return Ok(ExitCode::from(1));
            }
        }
        GmCommand::Mission { realm, action } => {
            drop(conn);
            return super::politics::mission(app, &realm, action).await;
        }
        GmCommand::Event { realm, kind, n } => {
            drop(conn);
            return super::politics::event(app, &realm, kind, n).await;
        }
        GmCommand::Pause { until, reason, at } => {
            drop(conn);
            let (u, r, a) = (until.as_deref(), reason.as_deref(), at.as_deref());
            return super::season_calendar::pause(app, u, r, a).await;
        }
        GmCommand::Resume { at } => {
            drop(conn);
            return super::season_calendar::resume(app, at.as_deref()).await;
        }
        GmCommand::Extend { realm, hours, at } => {
            drop(conn);
            let (r, a) = (realm.as_deref(), at.as_deref());
            return super::season_calendar::extend(app, r, hours, a).await;
        }
        GmCommand::Realm { realm, action } => {
            drop(conn);
            return super::season_realms::realm(app, &realm, action).await;
        }
        GmCommand::Report { round } => {
            drop(conn);
            return super::season_report::report(app, round).await;
        }
        GmCommand::Notice(a) => {
            drop(conn);
            return super::season_notices::notice(app, a).await;
        }
        GmCommand::Release(a) => {
            drop(conn);
            return super::season_notices::release(app, a).await;
        }
        GmCommand::Passwd => {
            drop(conn);
            return super::gm_passwd::passwd(app).await;
        }
        GmCommand::Token { realm, new } => {
            drop(conn);
            return super::sender_auth::token(app, &realm, new).await;
        }
        GmCommand::Log { realm, round } => {
            for e in crate::store::events::filtered(&mut conn, realm.as_deref(), round).await? {
                println!(
                    "{}  r{:<3} {:<22} {:<10} {}",
                    app.game_time(from_ms(e.at)),
                    e.round,
                    e.kind,
                    e.realm.as_deref().unwrap_or("-"),
                    one_line(&e.detail, 200)
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `pbemd resolve --dry-run`: every realm's report of the weekend resolved now.
pub async fn dry_run(app: &App) -> Result<ExitCode> {
    let d = crate::app::weekend::dry_run(app).await?;
    println!(
        "dry run of round {}: forms from {}; {} events, {} rolls; nothing was saved",
        d.round,
        list(&d.forms_from),
        d.resolution.events.len(),
        d.resolution.rolls.len()
    );
    for (realm, lines) in &d.reports {
        println!("\n== {} ==", shown(realm));
        if lines.is_empty() {
            println!("  (nothing to report)");
        }
        for l in lines {
            println!("{}", shown(l));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `pbemd gm preview`: the drafted Monday forms.
async fn preview(app: &App, realm: Option<&str>, at: Option<&str>) -> Result<ExitCode> {
    let at = at
        .map(|s| crate::clock::parse_rfc3339(s).map_err(anyhow::Error::msg))
        .transpose()?;
    let realm = match realm {
        None => None,
        Some(name) => {
            let mut conn = app.store.conn().await?;
            let (_, gs) = app.state(&mut conn).await?;
            Some(super::canonical_realm(&gs, name)?)
        }
    };
    let drafts = crate::app::weekend::preview(app, realm.as_deref(), at).await?;
    for (name, form) in drafts.forms {
        println!("===== {} =====", shown(&name));
        println!("{}", shown(&form));
    }
    Ok(ExitCode::SUCCESS)
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "no realm".into()
    } else {
        v.join(", ")
    }
}

/// Player text as the GM's terminal may show it: every control character other than
/// line feed and tab (BEL, ESC, CR, the C1 controls …) and every bidirectional override
/// is written as an escape (`\x1b`, `\u{202e}`), so a mail can neither drive the
/// terminal nor reorder what the GM reads.
pub fn shown(s: &str) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let bidi = matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        match c {
            '\n' | '\t' => out.push(c),
            c if (c as u32) < 0x80 && c.is_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() || bidi => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

fn who(m: &messages::Message) -> String {
    match (&m.realm, &m.to_realm, &m.from_addr) {
        (Some(r), Some(t), _) => format!("{r} → {t}"),
        (Some(r), None, _) => r.clone(),
        (None, _, Some(a)) => a.clone(),
        _ => "-".into(),
    }
}

fn human_age(d: chrono::Duration) -> String {
    let m = d.num_minutes().max(0);
    if m < 60 {
        format!("{m}m")
    } else if m < 48 * 60 {
        format!("{}h", m / 60)
    } else {
        format!("{}d", m / (24 * 60))
    }
}

fn one_line(s: &str, max: usize) -> String {
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().count() > max {
        format!("{}…", s.chars().take(max - 1).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn gm_show_escapes_terminal_controls_and_bidi_overrides() {
        let s = shown("a\x07b\x1b[2Jc\rd\u{9b}e\u{202e}f\0g\x7f\nline\ttab");
        assert_eq!(
            s,
            "a\\x07b\\x1b[2Jc\\x0dd\\u{9b}e\\u{202e}f\\x00g\\x7f\nline\ttab"
        );
        assert!(!s.chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
        assert_eq!(shown("Östvik → Afani"), "Östvik → Afani");
    }
}

//! `pbemd gm …`: the GM's review queue.

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Subcommand;

use crate::app::App;
use crate::clock::from_ms;
use crate::store::{inbox, messages, outbox};

#[derive(Debug, Subcommand)]
pub enum GmCommand {
    /// What waits for the GM, oldest first (and mail that could not be sent).
    Queue {
        /// Also list refused mail (already answered; kept for the GM).
        #[arg(long)]
        all: bool,
    },
    /// One message in full, with its raw mail.
    Show { id: i64 },
}

pub async fn run(app: &App, cmd: GmCommand) -> Result<ExitCode> {
    let mut conn = app.store.conn().await?;
    let now = app.now();
    match cmd {
        GmCommand::Queue { all } => {
            let states: &[&str] = if all {
                &[messages::state::GM_QUEUE, messages::state::REFUSED]
            } else {
                &[messages::state::GM_QUEUE]
            };
            let items = messages::in_states(&mut conn, states).await?;
            if items.is_empty() {
                println!("the GM queue is empty");
            }
            for m in &items {
                let age = now - from_ms(m.created_at);
                println!(
                    "{:>5}  {:<9} {:<15} {:<22} {:>6}  {}",
                    m.id,
                    m.state,
                    m.kind,
                    who(m),
                    human_age(age),
                    one_line(&m.subject, 60)
                );
            }
            let failed = outbox::failed_or_retrying(&mut conn).await?;
            if !failed.is_empty() {
                println!("\noutgoing mail not yet delivered:");
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
            let Some(m) = messages::get(&mut conn, id).await? else {
                bail!("no message {id}; `pbemd gm queue --all` lists them");
            };
            println!("message {}  ({}, {})", m.id, m.kind, m.state);
            println!("received: {}", from_ms(m.created_at).to_rfc3339());
            println!("from:     {}", m.from_addr.as_deref().unwrap_or("-"));
            println!("realm:    {}", m.realm.as_deref().unwrap_or("-"));
            println!("to realm: {}", m.to_realm.as_deref().unwrap_or("-"));
            println!("round:    {}", m.round);
            println!("subject:  {}", m.subject);
            if let Some(r) = &m.reason {
                println!("reason:   {r}");
            }
            println!("\n{}", m.body);
            if let Some(raw) = inbox::raw(&mut conn, m.inbox_id).await? {
                println!("\n----- raw mail ({} bytes) -----", raw.len());
                println!(
                    "{}",
                    String::from_utf8_lossy(&raw[..raw.len().min(64 * 1024)])
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
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

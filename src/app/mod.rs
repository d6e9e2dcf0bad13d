//! The application: one `App` context that every entry point shares (daemon, `tick`,
//! `demo`, tests), and the workers that move mail through the rooms.
//!
//! Each worker is a `*_once` function that does one unit of work in one transaction
//! and says whether there was any; `tick` calls them until they are idle, the daemon
//! loops them with sleeps, wake-ups and cancellation. This room owns the order of
//! things and the transactions; the rules live in `courier/`, `game/`, `forms/`, the
//! SQL in `store/`, the bytes on the wire in `transport/`.

pub mod check_config;
pub mod courier;
pub mod daemon;
pub mod demo;
pub mod desk;
pub mod fault;
pub mod gm;
pub mod intake;
pub mod lease;
pub mod map_pictures;
pub mod metrics;
pub mod par;
pub mod player_guide;
pub mod politics;
pub mod process;
pub mod results_hold;
pub mod scheduler;
pub mod season_calendar;
pub mod season_notices;
pub mod season_realms;
pub mod season_report;
pub mod sender;
pub mod sender_auth;
pub mod setup;
pub mod site_links;
pub mod site_player;
pub mod tick;
pub mod weekend;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use tokio::sync::{Mutex, Notify};

use crate::clock::{self, Clock};
use crate::config::{Config, Outbound};
use crate::game::{GameState, Lang};
use crate::mail::classify::{DirEntry, Directory};
use crate::mail::compose::{ComposeError, Outgoing};
use crate::render::{RenderError, Renderer};
use crate::schedule::{Schedule, ScheduleError};
use crate::store::{self, events, Conn, Store, StoreError};
use crate::transport::maildir::Maildir;
use crate::transport::smtp::SmtpSender;
use crate::transport::TransportError;

/// A state version written in a transaction not yet committed, with the state it
/// holds: handed to [`App::remember_state`] by whoever commits that transaction.
#[derive(Debug, Clone)]
pub struct SavedState {
    pub version: i64,
    pub state: Arc<GameState>,
}

/// Why a unit of work could not be done (the machine broke, or the game is not set up).
/// Rule outcomes are never errors: they are replies and audit events.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Transport(#[from] TransportError),
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Compose(#[from] ComposeError),
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
    #[error("no game has been started in this database: run `pbemd init` first")]
    NotStarted,
    #[error("stored game state cannot be read: {0}")]
    BadState(String),
    #[error("{0}")]
    Refused(String),
}

pub type Result<T, E = AppError> = std::result::Result<T, E>;

/// Where outgoing mail goes.
pub enum Sink {
    Maildir(Maildir),
    Smtp(Box<Mutex<SmtpSender>>),
}

/// Everything a unit of work needs.
pub struct App {
    pub cfg: Config,
    pub store: Store,
    /// The schedule file's week as the calendar (pauses, skips, extensions) moved it.
    pub schedule: season_calendar::CalendarSchedule,
    pub renderer: Renderer,
    pub clock: Arc<dyn Clock>,
    pub sink: Sink,
    /// Poked whenever new work arrives (a stored mail, a queued reply).
    pub wake: Arc<Notify>,
    /// The daemon worker's health, for `/healthz`.
    pub health: Arc<daemon::Health>,
    /// The last state document read, by version: a version is never changed once
    /// written, so it is parsed once, not once per mail.
    state_cache: std::sync::Mutex<Option<(i64, Arc<GameState>)>>,
    /// Latency and duration histograms for `/metrics`.
    pub metrics: Arc<metrics::Metrics>,
    /// The web site's signing key (sessions, CSRF tokens, realm links), read once.
    site_secret: tokio::sync::OnceCell<[u8; 32]>,
}

impl App {
    /// Open the database (migrating it) and the outbound transport.
    pub async fn open(cfg: Config, clock: Arc<dyn Clock>) -> Result<App> {
        let store = Store::open(&cfg.database_url).await?;
        let schedule = match &cfg.schedule {
            None => Schedule::default_week(),
            Some(p) => {
                let text = std::fs::read_to_string(p).map_err(|e| {
                    AppError::Refused(format!("cannot read schedule file {}: {e}", p.display()))
                })?;
                Schedule::from_yaml(&text)?
            }
        };
        let sink = match &cfg.outbound {
            Outbound::Maildir(dir) => Sink::Maildir(Maildir::open(dir)?),
            Outbound::Smtp(p) => Sink::Smtp(Box::new(Mutex::new(SmtpSender::new(p.clone())))),
        };
        Ok(App {
            cfg,
            store,
            schedule: season_calendar::CalendarSchedule::new(schedule),
            renderer: Renderer::new()?,
            clock,
            sink,
            wake: Arc::new(Notify::new()),
            health: Arc::default(),
            state_cache: std::sync::Mutex::new(None),
            metrics: Arc::default(),
            site_secret: tokio::sync::OnceCell::new(),
        })
    }

    /// The web site's signing key: 32 random bytes made the first time any replica
    /// asks, kept in the game's database so every replica and restart agrees.
    pub async fn site_secret(&self) -> Result<[u8; 32]> {
        let key = self
            .site_secret
            .get_or_try_init(|| async {
                use rand_core::RngCore;
                let mut fresh = [0u8; 32];
                rand_core::OsRng.fill_bytes(&mut fresh);
                let mut conn = self.store.conn().await?;
                let stored = store::meta::get_or_init(
                    &mut conn,
                    store::meta::SITE_SECRET,
                    &hex::encode(fresh),
                )
                .await?;
                let mut key = [0u8; 32];
                hex::decode_to_slice(stored.trim(), &mut key)
                    .map_err(|e| AppError::BadState(format!("meta site_secret: {e}")))?;
                Ok::<_, AppError>(key)
            })
            .await?;
        Ok(*key)
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// The current game state and its version (as seen by `conn`'s transaction).
    pub async fn state(&self, conn: &mut Conn) -> Result<(i64, Arc<GameState>)> {
        let version = store::state::latest_version(conn)
            .await?
            .ok_or(AppError::NotStarted)?;
        if let Some((v, gs)) = self.cache().clone() {
            if v == version {
                self.schedule.refresh(&gs);
                return Ok((version, gs));
            }
        }
        let row = store::state::get(conn, version)
            .await?
            .ok_or(AppError::NotStarted)?;
        let state: Arc<GameState> = Arc::new(
            serde_json::from_str(&row.doc).map_err(|e| AppError::BadState(e.to_string()))?,
        );
        *self.cache() = Some((version, state.clone()));
        self.schedule.refresh(&state);
        Ok((version, state))
    }

    /// The state cache (a panic elsewhere never makes it unusable: it only holds a
    /// parsed copy of a stored version).
    fn cache(&self) -> std::sync::MutexGuard<'_, Option<(i64, Arc<GameState>)>> {
        self.state_cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Forget the cached state: after a rolled-back unit of work, a version number it
    /// wrote may be written again with other content.
    pub fn forget_state(&self) {
        *self.cache() = None;
    }

    /// Keep a state version this process wrote as the cached state, once the
    /// transaction that wrote it has committed (never before: a version rolled back
    /// may be written again with other content), so the next unit of work does not
    /// read back and parse the document it has just written (a courier batch writes
    /// one after every batch of mail). A stored version is never changed, and the
    /// state is what its document parses to. A newer version cached meanwhile stays.
    pub fn remember_state(&self, saved: SavedState) {
        let mut cache = self.cache();
        if cache.as_ref().is_none_or(|(v, _)| *v <= saved.version) {
            *cache = Some((saved.version, saved.state));
        }
    }

    /// Write a new state version with its audit event (inside the caller's transaction).
    pub async fn save_state(
        &self,
        conn: &mut Conn,
        base_version: i64,
        state: &GameState,
        reason: &str,
    ) -> Result<i64> {
        let doc = serde_json::to_string(state).map_err(|e| AppError::BadState(e.to_string()))?;
        let at = clock::to_ms(self.now());
        let round = state.round as i64;
        let v = store::state::save(
            conn,
            base_version,
            round,
            crate::game::SCHEMA_VERSION as i64,
            &doc,
            reason,
            at,
        )
        .await?;
        events::log(conn, at, round, "state_saved", None, Some(v), reason).await?;
        Ok(v)
    }

    /// The realm directory classification needs.
    pub fn directory(&self, state: &GameState) -> Directory {
        Directory {
            realms: state
                .realms
                .iter()
                .filter(|r| !r.emails.is_empty())
                .map(|r| DirEntry {
                    name: r.name.clone(),
                    emails: r.emails.iter().map(|e| e.to_lowercase()).collect(),
                    lang: r.language,
                })
                .collect(),
            game_address: self.cfg.game_address.clone(),
            gm_address: self.cfg.gm_address.clone(),
        }
    }

    /// Queue a notice to the GM at `game.gm_address` (kind `gm_notice`, once per
    /// `key`); nothing when that address is empty or the game's own.
    pub async fn notify_gm(
        &self,
        conn: &mut Conn,
        key: &str,
        subject: &str,
        body: &str,
    ) -> Result<()> {
        let gm = self.cfg.gm_address.trim();
        if gm.is_empty() || gm.eq_ignore_ascii_case(&self.cfg.game_address) {
            return Ok(());
        }
        let o = Outgoing {
            kind: "gm_notice",
            dedup_key: key.to_string(),
            to: vec![gm.to_string()],
            subject: subject.to_string(),
            body: body.to_string(),
            in_reply_to: None,
        };
        self.enqueue(conn, &o).await?;
        Ok(())
    }

    /// Format a mail and queue it in the outbox (inside the caller's transaction).
    pub async fn enqueue(&self, conn: &mut Conn, o: &Outgoing) -> Result<i64> {
        self.enqueue_with(conn, o, &[]).await
    }

    /// A time as RFC 3339 in the game's zone, for the GM (`2026-11-24T18:00:00+01:00`).
    pub fn game_time(&self, t: DateTime<Utc>) -> String {
        t.with_timezone(&self.schedule.timezone()).to_rfc3339()
    }

    /// A time in the game's zone, written for a realm.
    pub fn local(&self, t: DateTime<Utc>, lang: Lang) -> String {
        crate::schedule::describe_local(t, self.schedule.timezone(), lang == Lang::Sv)
    }
}

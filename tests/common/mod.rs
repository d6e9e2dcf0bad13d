//! Helpers shared by the integration tests: temporary databases on both backends, and
//! the rule that a missing server fails the test unless skipping was asked for
//! (`PBEMD_SKIP_SERVER_TESTS=1`, see `servers.rs`).
#![allow(dead_code)]

pub mod servers;

use std::sync::atomic::{AtomicU32, Ordering};

use pbemd::store::Store;

pub use servers::missing;

/// A fresh SQLite database in a temporary folder (kept alive by the returned guard).
pub async fn sqlite_store() -> (Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
    (Store::open(&url).await.expect("open sqlite"), dir)
}

/// A fresh PostgreSQL database, if `PBEMD_TEST_PG_URL` points at a server.
pub async fn pg_store() -> Option<Store> {
    let url = pg_database_url().await?;
    Some(Store::open(&url).await.expect("open postgres"))
}

/// The URL of a fresh, empty PostgreSQL database on the server `PBEMD_TEST_PG_URL`
/// names; `None` (after `missing`) when there is none.
pub async fn pg_database_url() -> Option<String> {
    let Ok(admin) = std::env::var("PBEMD_TEST_PG_URL") else {
        missing("PostgreSQL (PBEMD_TEST_PG_URL)");
        return None;
    };
    static N: AtomicU32 = AtomicU32::new(0);
    let name = format!(
        "pbemd_t_{}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst),
        chrono::Utc::now().timestamp_micros() % 1_000_000
    );
    sqlx::any::install_default_drivers();
    let mut conn = match <sqlx::AnyConnection as sqlx::Connection>::connect(&admin).await {
        Ok(conn) => conn,
        Err(e) => {
            missing(&format!("PostgreSQL at PBEMD_TEST_PG_URL ({e})"));
            return None;
        }
    };
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("create test database");
    let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
    Some(format!("{base}/{name}"))
}

/// `pg_database_url` for a test outside a runtime (one that drives the binary).
pub fn pg_database_url_blocking() -> Option<String> {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(pg_database_url())
}

/// Run the same async test body against SQLite and PostgreSQL.
#[macro_export]
macro_rules! on_both_backends {
    ($name:ident, $body:expr) => {
        mod $name {
            use super::*;
            #[tokio::test]
            async fn sqlite() {
                let (store, _dir) = $crate::common::sqlite_store().await;
                ($body)(store).await;
            }
            #[tokio::test]
            async fn postgres() {
                if let Some(store) = $crate::common::pg_store().await {
                    ($body)(store).await;
                }
            }
        }
    };
}

use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use pbemd::app::App;
use pbemd::clock::FixedClock;
use pbemd::config::Config;
use pbemd::transport::maildir::Maildir;

/// An instant from RFC 3339.
pub fn at(s: &str) -> DateTime<Utc> {
    pbemd::clock::parse_rfc3339(s).expect("test time")
}

/// A game in a temporary directory on SQLite + Maildir, started at `start`.
pub struct Game {
    pub dir: tempfile::TempDir,
    pub app: App,
    pub clock: Arc<FixedClock>,
    pub inbox: Maildir,
    seq: std::sync::atomic::AtomicU64,
}

impl Game {
    pub async fn start(start: &str) -> Game {
        Self::start_with(start, "").await
    }

    /// A game whose config has `extra` appended (e.g. `courier: {review: all}`).
    pub async fn start_with(start: &str, extra: &str) -> Game {
        let dir = tempfile::tempdir().expect("temp dir");
        let cfg_path =
            pbemd::app::setup::new_game_dir(&dir.path().join("g"), None).expect("new game");
        let text = std::fs::read_to_string(&cfg_path).unwrap() + extra;
        std::fs::write(&cfg_path, text).unwrap();
        Self::open_at(dir, &cfg_path, start, true).await
    }

    /// Change the state as the GM would (a new audited version).
    pub async fn edit_state(&self, f: impl FnOnce(&mut pbemd::game::GameState)) {
        let mut tx = self.app.store.begin().await.unwrap();
        let (v, gs) = self.app.state(&mut tx).await.unwrap();
        let mut gs = (*gs).clone();
        f(&mut gs);
        self.app
            .save_state(&mut tx, v, &gs, "test setup")
            .await
            .unwrap();
        tx.commit().await.unwrap();
    }

    /// The current state.
    pub async fn state(&self) -> std::sync::Arc<pbemd::game::GameState> {
        let mut c = self.app.store.conn().await.unwrap();
        self.app.state(&mut c).await.unwrap().1
    }

    /// Open (and optionally init) the game whose config is `cfg_path`.
    pub async fn open_at(dir: tempfile::TempDir, cfg_path: &Path, start: &str, init: bool) -> Game {
        let cfg = Config::load(cfg_path).expect("config");
        let clock = Arc::new(FixedClock::new(at(start)));
        let app = App::open(cfg, clock.clone()).await.expect("open app");
        if init {
            pbemd::app::setup::init(&app, at(start), false)
                .await
                .expect("init");
        }
        let inbox = Maildir::open(&cfg_path.parent().unwrap().join("inbox")).unwrap();
        Game {
            dir,
            app,
            clock,
            inbox,
            seq: Default::default(),
        }
    }

    pub fn game_dir(&self) -> PathBuf {
        self.dir.path().join("g")
    }

    /// A player mails the game.
    pub fn send(&self, from: &str, subject: &str, body: &str) {
        let n = self.seq.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.drop_raw(&mail(from, subject, body, &format!("t{n}@players.test")));
    }

    pub fn drop_raw(&self, raw: &[u8]) {
        let n = self.seq.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inbox.drop_in(n, raw).expect("drop mail");
    }

    /// `tick` at `when`.
    pub async fn tick(&self, when: &str) -> pbemd::app::tick::TickReport {
        self.clock.set(at(when));
        pbemd::app::tick::tick(&self.app).await.expect("tick")
    }

    /// Every mail pbemd wrote to the outbox Maildir, parsed, in name order.
    pub fn outbox(&self) -> Vec<Sent> {
        let dir = self.game_dir().join("outbox").join("new");
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        names.sort();
        let mut out: Vec<Sent> = names
            .iter()
            .map(|p| Sent::parse(&std::fs::read(p).unwrap()))
            .collect();
        out.sort_by(|a, b| a.date.cmp(&b.date).then(a.subject.cmp(&b.subject)));
        out
    }
}

/// A sent mail, parsed back.
#[derive(Debug, Clone)]
pub struct Sent {
    pub raw: String,
    pub to: Vec<String>,
    pub subject: String,
    pub text: String,
    pub in_reply_to: Option<String>,
    pub message_id: String,
    pub date: i64,
}

impl Sent {
    pub fn parse(raw: &[u8]) -> Sent {
        let m = mail_parser::MessageParser::default()
            .parse(raw)
            .expect("parse sent mail");
        let to = m
            .to()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.address().map(|s| s.to_string()))
                    .collect()
            })
            .unwrap_or_default();
        Sent {
            raw: String::from_utf8_lossy(raw).into_owned(),
            to,
            subject: m.subject().unwrap_or_default().to_string(),
            text: m.body_text(0).map(|t| t.into_owned()).unwrap_or_default(),
            in_reply_to: m.in_reply_to().as_text().map(str::to_string),
            message_id: m.message_id().unwrap_or_default().to_string(),
            date: m.date().map(|d| d.to_timestamp()).unwrap_or_default(),
        }
    }

    pub fn to_is(&self, addr: &str) -> bool {
        self.to.iter().any(|t| t.eq_ignore_ascii_case(addr))
    }
}

/// A plain UTF-8 mail from a player.
pub fn mail(from: &str, subject: &str, body: &str, message_id: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: sl@game.test\r\nSubject: {subject}\r\nMessage-ID: <{message_id}>\r\n\
Date: Tue, 24 Nov 2026 10:00:00 +0100\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
Content-Transfer-Encoding: 8bit\r\n\r\n{}\r\n",
        body.replace('\n', "\r\n")
    )
    .into_bytes()
}

//! The scheduler lease. Several `pbemd run` replicas on one PostgreSQL database all
//! store and handle mail and send the outbox, but only the holder of this lease fires
//! schedule events (the courier batches, the reminders, the weekend's resolution) and
//! moves the game's time on. The lease is a PostgreSQL advisory lock held by a session
//! of its own: when the holder dies, even by SIGKILL, PostgreSQL ends the session and
//! frees the lock, and the next replica to ask takes it over. Each event still fires
//! once whoever fires it: its `(name, instant)` is claimed in the transaction that
//! applies it, so an event cut short by a dying holder rolls back whole and fires
//! again under the next holder. On SQLite (one process) the lease is always held.

use sqlx::Connection;

use crate::store::{lease, Backend, Conn};

/// This replica's hold on the scheduler lease.
pub struct SchedulerLease {
    url: String,
    backend: Backend,
    conn: Option<Conn>,
    held: bool,
}

impl SchedulerLease {
    /// A lease on the database at `url` (not yet asked for).
    pub fn new(url: &str, backend: Backend) -> SchedulerLease {
        SchedulerLease {
            url: url.to_string(),
            backend,
            conn: None,
            held: false,
        }
    }

    /// True when this replica holds the lease now: it keeps it while its session
    /// answers, and otherwise tries to take it (false while another replica has it, or
    /// while the database cannot be reached).
    pub async fn hold(&mut self) -> bool {
        if self.backend == Backend::Sqlite {
            return true;
        }
        if let Some(conn) = self.conn.as_mut() {
            if !lease::alive(conn).await {
                if self.held {
                    tracing::warn!("the scheduler lease's session ended; the lease is lost");
                }
                self.conn = None;
                self.held = false;
            }
        }
        if self.held {
            return true;
        }
        match self.try_take().await {
            Ok(held) => self.held = held,
            Err(e) => {
                tracing::warn!(error = %e, "cannot ask for the scheduler lease");
                self.conn = None;
            }
        }
        if self.held {
            tracing::info!("this replica holds the scheduler lease");
        }
        self.held
    }

    async fn try_take(&mut self) -> Result<bool, crate::store::StoreError> {
        if self.conn.is_none() {
            let conn = Conn::connect(&self.url).await.map_err(|source| {
                crate::store::StoreError::Query {
                    what: "open the scheduler lease's connection",
                    source,
                }
            })?;
            self.conn = Some(conn);
        }
        match self.conn.as_mut() {
            Some(conn) => lease::try_session_lock(conn, lease::SCHEDULER_KEY).await,
            None => Ok(false),
        }
    }

    /// Give the lease up (closing its session).
    pub async fn release(&mut self) {
        if let Some(conn) = self.conn.take() {
            let _ = conn.close().await;
        }
        self.held = false;
    }
}

/// Test hook: with `PBEMD_TEST_PAUSE_RESOLVE` set, a replica stops dead inside the
/// weekend resolution's transaction (after its effects, before its commit), so a test
/// can SIGKILL it there and prove the next lease holder resolves the weekend once.
pub fn pause_resolve_hook() {
    if std::env::var_os("PBEMD_TEST_PAUSE_RESOLVE").is_some() {
        eprintln!("PBEMD_TEST_PAUSE_RESOLVE: pausing before committing the resolution");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
}

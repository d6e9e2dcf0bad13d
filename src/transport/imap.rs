//! Inbound IMAP transport: one logged-in session on one mailbox (async-imap over tokio).
//!
//! Owns: connecting (plain, STARTTLS, IMAPS), SELECT, fetching raw messages by UID without
//! setting `\Seen`, flagging `\Seen` after the caller has stored the bytes, and waiting for
//! new mail (IDLE, or sleep-and-NOOP when the server lacks IDLE).
//!
//! Must not touch: parsing or classifying mail, the store, the UID bookkeeping. The caller
//! keeps `(uid_validity, last_uid)` durable and decides when to call [`ImapSession::mark_seen`]
//! (only after the raw bytes are committed: docs/gm/reliability.md, "nothing received is lost").

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use async_imap::types::UnsolicitedResponse;
use async_imap::{Client, Session};
use futures::TryStreamExt;
use tokio::time::Instant;

pub use super::tls::TlsMode;
use super::tls::{
    client_config, connect_tcp, tls_handshake, with_timeout, MailStream, TransportError,
};

/// Time allowed for TCP connect + TLS + greeting + login.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Time allowed for one ordinary command (SELECT, SEARCH, STORE, NOOP, LOGOUT, DONE).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// Time allowed for one batch FETCH (bodies of up to `max` messages).
const FETCH_TIMEOUT: Duration = Duration::from_secs(300);
/// RFC 2177: re-issue IDLE at least every 29 minutes.
const IDLE_MAX: Duration = Duration::from_secs(29 * 60);
/// Without IDLE, NOOP this often while waiting.
const POLL_INTERVAL: Duration = Duration::from_secs(5);
/// At most this many UIDs per `UID STORE` command line (keeps lines far below server limits).
const STORE_CHUNK: usize = 500;

/// The most bytes one fetch brings (by the server's RFC822.SIZE): a batch of many large
/// mails comes in several fetches, never one that the memory, the fetch's time limit or
/// one database statement cannot hold (a mail larger than this comes alone).
pub const FETCH_BATCH_BYTES: u64 = 64 << 20;

/// Where and how to read mail.
#[derive(Debug, Clone)]
pub struct ImapParams {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub tls: TlsMode,
    /// Extra trusted root (PEM), for self-signed test servers. Mozilla roots are always trusted.
    pub ca_file: Option<PathBuf>,
    /// Mailbox to select, usually `INBOX`.
    pub mailbox: String,
}

/// What SELECT reported. If `uid_validity` differs from the stored one, every stored UID of
/// this mailbox is void: the caller must refetch from 0 (Message-ID dedup keeps that safe).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailboxState {
    pub uid_validity: u32,
    pub uid_next: Option<u32>,
    pub exists: u32,
}

/// One fetched message: its UID, the exact bytes the server holds, and its
/// INTERNALDATE (when the server accepted it), if the server sent one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub uid: u32,
    pub raw: Vec<u8>,
    pub internal_date: Option<chrono::DateTime<chrono::Utc>>,
}

/// A logged-in IMAP session.
pub struct ImapSession {
    session: Session<MailStream>,
    has_idle: bool,
    mailbox: String,
    /// `user@host:port`, for error messages and logs.
    who: String,
}

impl std::fmt::Debug for ImapSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImapSession")
            .field("who", &self.who)
            .field("mailbox", &self.mailbox)
            .field("has_idle", &self.has_idle)
            .finish_non_exhaustive()
    }
}

impl ImapSession {
    /// Connects, reads the greeting, upgrades with STARTTLS when asked (before any
    /// credentials are sent) and logs in. Does not select the mailbox: call [`Self::select`].
    pub async fn connect(p: &ImapParams) -> Result<ImapSession, TransportError> {
        let server = format!("{}:{}", p.host, p.port);
        with_timeout(
            CONNECT_TIMEOUT,
            || format!("connect and log in to IMAP server {server} as {}", p.user),
            Self::connect_inner(p, &server),
        )
        .await
    }

    async fn connect_inner(p: &ImapParams, server: &str) -> Result<ImapSession, TransportError> {
        let tcp = connect_tcp(&p.host, p.port).await?;
        let tls_config = match p.tls {
            TlsMode::None => None,
            TlsMode::Starttls | TlsMode::Tls => Some(client_config(p.ca_file.as_ref())?),
        };
        let stream = match (&p.tls, &tls_config) {
            (TlsMode::Tls, Some(cfg)) => {
                MailStream::Tls(Box::new(tls_handshake(tcp, &p.host, cfg.clone()).await?))
            }
            _ => MailStream::Plain(tcp),
        };
        let mut client = Client::new(stream);
        read_greeting(&mut client, server).await?;

        if let (TlsMode::Starttls, Some(cfg)) = (&p.tls, tls_config) {
            client
                .run_command_and_check_ok("STARTTLS", None)
                .await
                .map_err(|e| TransportError::imap(format!("start TLS on {server}"), e))?;
            let MailStream::Plain(tcp) = client.into_inner() else {
                unreachable!("STARTTLS is only issued on a plain stream")
            };
            let tls = tls_handshake(tcp, &p.host, cfg).await?;
            client = Client::new(MailStream::Tls(Box::new(tls)));
        }

        let mut session = client.login(&p.user, &p.password).await.map_err(|(e, _)| {
            TransportError::LoginRefused {
                user: p.user.clone(),
                server: server.to_owned(),
                source: e,
            }
        })?;
        let caps = session
            .capabilities()
            .await
            .map_err(|e| TransportError::imap(format!("ask {server} for its capabilities"), e))?;
        let has_idle = caps.has_str("IDLE");
        tracing::debug!(server, user = %p.user, tls = ?p.tls, has_idle, "IMAP session open");
        Ok(ImapSession {
            session,
            has_idle,
            mailbox: p.mailbox.clone(),
            who: format!("{}@{}", p.user, server),
        })
    }

    /// Whether the server announced IDLE (RFC 2177).
    pub fn has_idle(&self) -> bool {
        self.has_idle
    }

    /// Tests only: behave as if the server lacked IDLE, to exercise the NOOP fallback.
    #[doc(hidden)]
    pub fn pretend_no_idle(&mut self) {
        self.has_idle = false;
    }

    /// SELECTs the configured mailbox (read-write, so `mark_seen` works).
    pub async fn select(&mut self) -> Result<MailboxState, TransportError> {
        let action = || format!("select mailbox {:?} as {}", self.mailbox, self.who);
        let mb = with_timeout(COMMAND_TIMEOUT, action, async {
            self.session
                .select(&self.mailbox)
                .await
                .map_err(|e| TransportError::imap(action(), e))
        })
        .await?;
        let uid_validity = mb
            .uid_validity
            .ok_or_else(|| TransportError::protocol(action(), "server sent no UIDVALIDITY"))?;
        // SELECT answers fully describe the mailbox; older notifications are stale.
        self.drain_unsolicited();
        Ok(MailboxState {
            uid_validity,
            uid_next: mb.uid_next,
            exists: mb.exists,
        })
    }

    /// SELECTs the mailbox and finds its last UID now (0 when it is empty): UIDNEXT − 1,
    /// or where the server sends no UIDNEXT, the UID of its last message. Mail up to it
    /// is there now; `fetch_after` that UID brings only what comes later.
    pub async fn end(&mut self) -> Result<(MailboxState, u32), TransportError> {
        let st = self.select().await?;
        if let Some(next) = st.uid_next {
            return Ok((st.clone(), next.saturating_sub(1)));
        }
        if st.exists == 0 {
            return Ok((st, 0));
        }
        let action = || format!("find the last UID in {:?}", self.mailbox);
        let last = with_timeout(COMMAND_TIMEOUT, action, async {
            self.session
                .uid_search("*")
                .await
                .map_err(|e| TransportError::imap(action(), e))
        })
        .await?
        .into_iter()
        .max()
        .unwrap_or(0);
        Ok((st, last))
    }

    /// Fetches the raw bytes of at most `max` messages with UID > `after_uid`, lowest UIDs
    /// first; the next call (with the highest UID returned) continues. Never sets `\Seen`
    /// (`BODY.PEEK[]`).
    ///
    /// Two round trips: `UID SEARCH UID n:*` finds which UIDs exist (so a gap of expunged
    /// UIDs larger than `max` cannot stall the caller), then one
    /// `UID FETCH n:last (UID INTERNALDATE BODY.PEEK[])` for all of them. `n:*` always includes the
    /// highest message even when n > its UID, so results are filtered to `uid > after_uid`.
    pub async fn fetch_after(
        &mut self,
        after_uid: u32,
        max: usize,
    ) -> Result<Vec<Fetched>, TransportError> {
        self.fetch_after_within(after_uid, max, FETCH_BATCH_BYTES)
            .await
    }

    /// As [`fetch_after`](Self::fetch_after), bringing at most `max_bytes` (by the
    /// server's RFC822.SIZE, asked for first when there is more than one mail; the
    /// first mail always comes).
    pub async fn fetch_after_within(
        &mut self,
        after_uid: u32,
        max: usize,
        max_bytes: u64,
    ) -> Result<Vec<Fetched>, TransportError> {
        let Some(first) = after_uid.checked_add(1) else {
            return Ok(Vec::new());
        };
        if max == 0 {
            return Ok(Vec::new());
        }
        let search_action = || format!("list UIDs above {after_uid} in {:?}", self.mailbox);
        let mut uids: Vec<u32> = with_timeout(COMMAND_TIMEOUT, search_action, async {
            self.session
                .uid_search(format!("UID {first}:*"))
                .await
                .map_err(|e| TransportError::imap(search_action(), e))
        })
        .await?
        .into_iter()
        .filter(|&u| u > after_uid)
        .collect();
        if uids.is_empty() {
            return Ok(Vec::new());
        }
        uids.sort_unstable();
        uids.truncate(max);
        if uids.len() > 1 {
            let sizes = self.sizes(first, *uids.last().expect("not empty")).await?;
            let size_of = |u: &u32| sizes.get(u).copied().unwrap_or(0);
            let sizes: Vec<u64> = uids.iter().map(size_of).collect();
            uids.truncate(within_budget(&sizes, max_bytes));
        }
        let last = *uids.last().expect("not empty");

        let fetch_action = || {
            format!(
                "fetch messages with UID {first}:{last} from {:?} as {}",
                self.mailbox, self.who
            )
        };
        let mut out: Vec<Fetched> = Vec::with_capacity(uids.len());
        let session = &mut self.session;
        with_timeout(FETCH_TIMEOUT, fetch_action, async {
            let mut stream = session
                .uid_fetch(format!("{first}:{last}"), "(UID INTERNALDATE BODY.PEEK[])")
                .await
                .map_err(|e| TransportError::imap(fetch_action(), e))?;
            while let Some(f) = stream
                .try_next()
                .await
                .map_err(|e| TransportError::imap(fetch_action(), e))?
            {
                // Unsolicited FETCH (e.g. a flag change by another client) carries no body.
                let (Some(uid), Some(body)) = (f.uid, f.body()) else {
                    continue;
                };
                if uid > after_uid && uid <= last {
                    out.push(Fetched {
                        uid,
                        raw: body.to_vec(),
                        internal_date: f.internal_date().map(|d| d.with_timezone(&chrono::Utc)),
                    });
                }
            }
            Ok(())
        })
        .await?;
        out.sort_unstable_by_key(|f| f.uid);
        out.dedup_by_key(|f| f.uid);
        tracing::debug!(who = %self.who, after_uid, count = out.len(), "IMAP fetched");
        Ok(out)
    }

    /// The server's RFC822.SIZE of the messages with UID `first..=last`.
    async fn sizes(
        &mut self,
        first: u32,
        last: u32,
    ) -> Result<std::collections::HashMap<u32, u64>, TransportError> {
        let action = || format!("ask the sizes of UID {first}:{last} in {:?}", self.mailbox);
        let mut out = std::collections::HashMap::new();
        let session = &mut self.session;
        with_timeout(COMMAND_TIMEOUT, action, async {
            let mut stream = session
                .uid_fetch(format!("{first}:{last}"), "(UID RFC822.SIZE)")
                .await
                .map_err(|e| TransportError::imap(action(), e))?;
            while let Some(f) = stream
                .try_next()
                .await
                .map_err(|e| TransportError::imap(action(), e))?
            {
                if let (Some(uid), Some(size)) = (f.uid, f.size) {
                    out.insert(uid, u64::from(size));
                }
            }
            Ok(())
        })
        .await?;
        Ok(out)
    }

    /// Appends a mail to the selected mailbox with the given INTERNALDATE (the server's
    /// receipt time; now when `None`). For tests and tools that file mail by hand.
    pub async fn append(
        &mut self,
        raw: &[u8],
        internal_date: Option<chrono::DateTime<chrono::Utc>>,
    ) -> Result<(), TransportError> {
        let date = internal_date.map(|d| format!("\"{}\"", d.format("%d-%b-%Y %H:%M:%S +0000")));
        let action = || format!("append a mail to {:?} as {}", self.mailbox, self.who);
        let mailbox = self.mailbox.clone();
        let session = &mut self.session;
        with_timeout(COMMAND_TIMEOUT, action, async {
            session
                .append(&mailbox, None, date.as_deref(), raw)
                .await
                .map_err(|e| TransportError::imap(action(), e))
        })
        .await
    }

    /// Adds `\Seen` to these UIDs (`UID STORE … +FLAGS.SILENT (\Seen)`). Call only after the
    /// raw bytes are committed. UIDs that no longer exist are ignored by the server.
    pub async fn mark_seen(&mut self, uids: &[u32]) -> Result<(), TransportError> {
        let mut sorted = uids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        for chunk in sorted.chunks(STORE_CHUNK) {
            let set = uid_set(chunk);
            let action = || format!("flag UIDs {set} as \\Seen in {:?}", self.mailbox);
            let session = &mut self.session;
            with_timeout(COMMAND_TIMEOUT, action, async {
                let stream = session
                    .uid_store(&set, "+FLAGS.SILENT (\\Seen)")
                    .await
                    .map_err(|e| TransportError::imap(action(), e))?;
                let _: Vec<_> = stream
                    .try_collect()
                    .await
                    .map_err(|e| TransportError::imap(action(), e))?;
                Ok(())
            })
            .await?;
        }
        Ok(())
    }

    /// Waits until the server reports a change (new mail, expunge, flags) or `timeout` passes.
    /// Returns the session back and whether something (may have) changed: `true` can be
    /// spurious (a notification that arrived during an earlier command), so the caller simply
    /// calls [`Self::fetch_after`] again. Uses IDLE when available, else NOOP every 5 s.
    pub async fn wait_for_change(
        self,
        timeout: Duration,
    ) -> Result<(ImapSession, bool), TransportError> {
        self.wait_for_change_or(timeout, std::future::pending())
            .await
    }

    /// Like [`Self::wait_for_change`], but also stops (returning `false`) as soon as `cancel`
    /// resolves, e.g. `token.cancelled()` of a `CancellationToken` at shutdown. The IDLE is
    /// ended cleanly with DONE, so the session stays usable (e.g. for `logout`).
    pub async fn wait_for_change_or(
        mut self,
        timeout: Duration,
        cancel: impl Future<Output = ()>,
    ) -> Result<(ImapSession, bool), TransportError> {
        if self.drain_unsolicited() {
            return Ok((self, true));
        }
        let deadline = Instant::now() + timeout.min(IDLE_MAX);
        if !self.has_idle {
            return self.poll_until(deadline, cancel).await;
        }
        let ImapSession {
            session,
            has_idle,
            mailbox,
            who,
        } = self;
        let action = || format!("IDLE on {mailbox:?} as {who}");

        let mut handle = session.idle();
        with_timeout(COMMAND_TIMEOUT, action, async {
            handle
                .init()
                .await
                .map_err(|e| TransportError::imap(action(), e))
        })
        .await?;
        let changed = {
            let remaining = deadline.saturating_duration_since(Instant::now());
            let (fut, stop) = handle.wait_with_timeout(remaining);
            tokio::pin!(fut);
            tokio::pin!(cancel);
            // The crate's own timeout restarts on every "* OK Still here" keepalive, so the
            // deadline is enforced here too. Stopping goes through the StopSource (dropping it
            // makes `fut` end with ManualInterrupt) rather than dropping `fut` mid-read.
            let early = tokio::select! {
                r = &mut fut => Some(r),
                _ = tokio::time::sleep_until(deadline) => None,
                _ = &mut cancel => None,
            };
            let result = match early {
                Some(r) => r,
                None => {
                    drop(stop);
                    fut.await
                }
            };
            match result.map_err(|e| TransportError::imap(action(), e))? {
                async_imap::extensions::idle::IdleResponse::NewData(data) => {
                    tracing::debug!(who = %who, response = ?data.parsed(), "IMAP IDLE woke");
                    true
                }
                _ => false,
            }
        };
        let session = with_timeout(COMMAND_TIMEOUT, action, async {
            handle
                .done()
                .await
                .map_err(|e| TransportError::imap(action(), e))
        })
        .await?;
        let mut this = ImapSession {
            session,
            has_idle,
            mailbox,
            who,
        };
        // Notifications that came with the DONE answer belong to this wait.
        let more = this.drain_unsolicited();
        Ok((this, changed || more))
    }

    /// The no-IDLE fallback: sleep, NOOP, look at what the server said; until `deadline`.
    async fn poll_until(
        mut self,
        deadline: Instant,
        cancel: impl Future<Output = ()>,
    ) -> Result<(ImapSession, bool), TransportError> {
        tokio::pin!(cancel);
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Ok((self, false));
            }
            let wake = deadline.min(now + POLL_INTERVAL);
            tokio::select! {
                _ = tokio::time::sleep_until(wake) => {}
                _ = &mut cancel => return Ok((self, false)),
            }
            let action = || format!("NOOP on {:?} as {}", self.mailbox, self.who);
            let session = &mut self.session;
            with_timeout(COMMAND_TIMEOUT, action, async {
                session
                    .noop()
                    .await
                    .map_err(|e| TransportError::imap(action(), e))
            })
            .await?;
            if self.drain_unsolicited() {
                return Ok((self, true));
            }
        }
    }

    /// Sends LOGOUT and closes the connection.
    pub async fn logout(mut self) -> Result<(), TransportError> {
        let action = || format!("log out {}", self.who);
        let session = &mut self.session;
        with_timeout(COMMAND_TIMEOUT, action, async {
            session
                .logout()
                .await
                .map_err(|e| TransportError::imap(action(), e))
        })
        .await
    }

    /// Empties the unsolicited-response queue (async-imap drops new ones once 100 are queued);
    /// returns whether any of them reports a mailbox change.
    fn drain_unsolicited(&mut self) -> bool {
        let mut changed = false;
        while let Ok(r) = self.session.unsolicited_responses.try_recv() {
            match r {
                UnsolicitedResponse::Exists(_)
                | UnsolicitedResponse::Recent(_)
                | UnsolicitedResponse::Expunge(_) => changed = true,
                other => tracing::trace!(who = %self.who, response = ?other, "IMAP unsolicited"),
            }
        }
        changed
    }
}

/// Reads the server greeting; `* BYE` or a closed connection is an error.
async fn read_greeting(
    client: &mut Client<MailStream>,
    server: &str,
) -> Result<(), TransportError> {
    use async_imap::imap_proto::{Response, Status};
    let action = || format!("read the IMAP greeting of {server}");
    let greeting = client
        .read_response()
        .await
        .map_err(|e| TransportError::io(action(), e))?
        .ok_or_else(|| TransportError::protocol(action(), "connection closed before greeting"))?;
    match greeting.parsed() {
        Response::Data {
            status: Status::Ok, ..
        } => Ok(()),
        other => Err(TransportError::protocol(
            action(),
            format!("unexpected greeting {other:?}"),
        )),
    }
}

/// Sorted, deduplicated UIDs as a compact IMAP set: `1:5,7,9:10`.
fn uid_set(sorted: &[u32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            out.push_str(&start.to_string());
        } else {
            out.push_str(&format!("{start}:{end}"));
        }
        i += 1;
    }
    out
}

/// How many of the mails of `sizes` (in order) one fetch brings within `budget` bytes:
/// the longest run from the first whose sizes fit, at least one.
fn within_budget(sizes: &[u64], budget: u64) -> usize {
    let mut total: u64 = 0;
    let fit = sizes
        .iter()
        .take_while(|&&n| {
            total = total.saturating_add(n);
            total <= budget
        })
        .count();
    fit.max(1).min(sizes.len())
}

#[cfg(test)]
mod tests {
    use super::{uid_set, within_budget};

    #[test]
    fn uid_set_compresses_runs() {
        assert_eq!(uid_set(&[1, 2, 3, 5, 7, 8]), "1:3,5,7:8");
        assert_eq!(uid_set(&[42]), "42");
        assert_eq!(uid_set(&[]), "");
        assert_eq!(uid_set(&[u32::MAX - 1, u32::MAX]), "4294967294:4294967295");
    }

    #[test]
    fn a_fetch_brings_the_mails_that_fit_its_bytes_and_at_least_one() {
        assert_eq!(within_budget(&[10, 10, 10], 25), 2);
        assert_eq!(within_budget(&[10, 10, 10], 30), 3);
        assert_eq!(
            within_budget(&[100, 1, 1], 25),
            1,
            "a large first mail comes alone"
        );
        assert_eq!(
            within_budget(&[1, 100, 1], 25),
            1,
            "and stops the run before it"
        );
        assert_eq!(within_budget(&[u64::MAX, u64::MAX], 10), 1);
        assert_eq!(within_budget(&[], 10), 0);
    }
}

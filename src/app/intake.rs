//! Intake, store-first: every mail's raw bytes are committed before its source is told
//! it was taken (Maildir file moved to `cur/`, IMAP message flagged `\Seen`). A mail
//! seen twice (same Message-ID, else same SHA-256) is stored once. A mail counts as
//! received when it was taken (Maildir, webhook: now, `--now` under `tick`) or, for
//! IMAP, at its INTERNALDATE — when the game's mail server accepted it.

use sha2::{Digest, Sha256};

use super::{App, Result};
use crate::clock;
use crate::store::inbox::{self, NewMail, Source, Stored};
use crate::transport::imap::{Fetched, ImapSession};
use crate::transport::maildir::Maildir;

/// The key under which a mail is stored once: its Message-ID, else its content hash.
pub fn dedup_key(raw: &[u8]) -> (String, Option<String>, String) {
    let sha = hex::encode(Sha256::digest(raw));
    // mail-parser has never panicked on our fuzzing, but intake must survive any bytes:
    // a panic here would stop the mail being stored at all.
    // Only the Message-ID lines are read (the rest of the header is not parsed for it).
    let ids = message_id_lines(raw);
    let mid = std::panic::catch_unwind(|| {
        mail_parser::MessageParser::new()
            .parse_headers(&ids[..])
            .and_then(|m| m.message_id().map(|s| s.trim().to_string()))
    })
    .ok()
    .flatten()
    .filter(|s| !s.is_empty());
    match mid {
        Some(m) => (format!("mid:{m}"), Some(m), sha),
        None => (format!("sha256:{sha}"), None, sha),
    }
}

/// The `Message-ID` fields of a mail's header (any case, with their folded lines), in
/// order, then an empty line; empty when there is none.
fn message_id_lines(raw: &[u8]) -> Vec<u8> {
    let head = match header_end(raw) {
        0 => raw,
        end => &raw[..end],
    };
    let mut out = Vec::new();
    let mut taking = false;
    for line in head.split_inclusive(|&b| b == b'\n') {
        if matches!(line.first(), Some(b' ' | b'\t')) {
            if taking {
                out.extend_from_slice(line);
            }
            continue;
        }
        taking = line.iter().position(|&b| b == b':').is_some_and(|colon| {
            line[..colon]
                .trim_ascii()
                .eq_ignore_ascii_case(b"message-id")
        });
        if taking {
            out.extend_from_slice(line);
        }
    }
    // An unended last line stays unended, as in the whole header.
    if out.ends_with(b"\n") {
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// How much of an over-limit mail's body is stored after its headers.
pub const KEPT_BODY_BYTES: usize = 64 * 1024;

/// The part of a mail that is stored: all of it when it is within `limit` bytes; else
/// its headers and the first [`KEPT_BODY_BYTES`] of its body (never more than `limit`
/// in all). `size` is the mail's full size (`raw` may already be only a prefix).
pub fn stored_part(raw: &[u8], size: usize, limit: usize) -> &[u8] {
    if size <= limit && raw.len() <= limit {
        return raw;
    }
    let keep = header_end(raw)
        .saturating_add(KEPT_BODY_BYTES)
        .min(limit)
        .min(raw.len());
    &raw[..keep]
}

/// Where the body starts: after the first empty line (`\n\n` or `\n\r\n`); 0 when
/// there is none.
pub(super) fn header_end(raw: &[u8]) -> usize {
    let mut i = 0;
    while let Some(p) = raw[i..].iter().position(|&b| b == b'\n') {
        let after = i + p + 1;
        match (raw.get(after), raw.get(after + 1)) {
            (Some(b'\n'), _) => return after + 1,
            (Some(b'\r'), Some(b'\n')) => return after + 2,
            _ => i = after,
        }
    }
    0
}

/// Store one mail as received now; wakes the workers when it is new.
pub async fn store_raw(
    app: &App,
    raw: &[u8],
    source: Source,
    imap: Option<(u32, u32)>,
) -> Result<Stored> {
    store_sized(app, raw, raw.len(), source, imap).await
}

/// Store a mail of `size` bytes of which `raw` is all or a prefix; an over-limit mail
/// keeps only [`stored_part`], marked truncated (the original stays in its mailbox).
pub async fn store_sized(
    app: &App,
    raw: &[u8],
    size: usize,
    source: Source,
    imap: Option<(u32, u32)>,
) -> Result<Stored> {
    let raw = stored_part(raw, size, app.cfg.limits.max_mail_bytes);
    let (key, mid, sha) = dedup_key(raw);
    let mut conn = app.store.conn().await?;
    let stored = inbox::insert(
        &mut conn,
        &NewMail {
            dedup_key: &key,
            message_id: mid.as_deref(),
            sha256: &sha,
            source,
            raw,
            size,
            received_at: clock::to_ms(app.now()),
            imap,
        },
    )
    .await?;
    if let Stored::New(id) = stored {
        let truncated = size > raw.len();
        tracing::info!(inbox_id = id, source = source.as_str(), message_id = ?mid, truncated, "mail stored");
        super::season_calendar::notice_if_paused(app, id, raw).await;
        app.wake.notify_one();
    } else {
        tracing::info!(source = source.as_str(), message_id = ?mid, "duplicate mail ignored");
    }
    Ok(stored)
}

/// Take every mail waiting in a Maildir's `new/`. Returns how many were new.
pub async fn maildir_once(app: &App, md: &Maildir) -> Result<usize> {
    let mut new = 0;
    let cap = app.cfg.limits.max_mail_bytes.saturating_add(1);
    for name in md.list_new()? {
        let mail = md.read_new_capped(&name, cap)?;
        let stored = store_sized(app, &mail.raw, mail.size, Source::Maildir, None).await?;
        if let Stored::New(_) = stored {
            new += 1;
        }
        md.mark_seen(&name)?;
    }
    Ok(new)
}

/// Test hook: stop dead right after a batch of IMAP mail is committed and before it is
/// flagged, so a test can SIGKILL the process exactly there and prove that a crash at
/// that point loses and repeats nothing.
const PAUSE_HOOK: &str = "PBEMD_TEST_PAUSE_AFTER_STORE";

/// What a pass over an IMAP mailbox did: mails stored, and of them those handled in
/// the transaction that stored them, with the envoys and merchants their courier
/// batches delivered (`immediate` mode).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Taken {
    pub stored: usize,
    pub handled: usize,
    pub delivered: usize,
}

/// Fetch and store everything new in the selected IMAP mailbox, in batches; returns
/// how many were new (see [`imap_pass`]).
pub async fn imap_once(app: &App, session: &mut ImapSession, batch: usize) -> Result<usize> {
    Ok(imap_pass(app, session, batch).await?.stored)
}

/// Fetch and store everything new in the selected IMAP mailbox, in batches. Order per
/// batch: commit the raw bytes, flag them `\Seen`, then move the cursor (written with
/// the next batch's mails, or at the end, so a batch costs one write, not two; also
/// when a later batch fails). A crash between any two steps refetches the batch and
/// the dedup key drops the repeats. A batch is handled in the transaction that stores
/// it when time order allows (`process::handle_in_store`); else it waits for the
/// worker. While a batch is stored, the one before it is flagged and the next one
/// fetched.
pub async fn imap_pass(app: &App, session: &mut ImapSession, batch: usize) -> Result<Taken> {
    let mailbox = session_mailbox(app);
    let st = session.select().await?;
    let mut conn = app.store.conn().await?;
    let last_uid = match inbox::imap_cursor(&mut conn, &mailbox).await? {
        Some((validity, uid)) if validity == st.uid_validity => uid,
        Some((validity, _)) => {
            tracing::warn!(
                old = validity,
                new = st.uid_validity,
                "UIDVALIDITY changed: reading the mailbox again from the start"
            );
            0
        }
        None => 0,
    };
    drop(conn);
    let mut flagged_to: Option<u32> = None;
    let taken = store_batches(
        app,
        session,
        (st.uid_validity, last_uid),
        batch,
        &mut flagged_to,
    )
    .await;
    if let Some(uid) = flagged_to {
        let mut conn = app.store.conn().await?;
        inbox::set_imap_cursor(&mut conn, &mailbox, st.uid_validity, uid).await?;
    }
    taken
}

/// The batches of [`imap_pass`] after the cursor `(uid validity, last uid)`; the last
/// flagged UID whose cursor is not yet written is left in `flagged_to`.
async fn store_batches(
    app: &App,
    session: &mut ImapSession,
    (validity, last_uid): (u32, u32),
    batch: usize,
    flagged_to: &mut Option<u32>,
) -> Result<Taken> {
    let mut taken = Taken::default();
    let mut fetched = session.fetch_after(last_uid, batch).await?;
    // The batch before this one, committed and not yet flagged: its UIDs and last UID.
    let mut committed: Option<(Vec<u32>, u32)> = None;
    while !fetched.is_empty() {
        let uids: Vec<u32> = fetched.iter().map(|f| f.uid).collect();
        let last = uids.iter().copied().max().unwrap_or(last_uid);
        // While this batch is stored, the one before it (committed) is flagged and the
        // next one comes over the network; nothing is flagged before it is committed.
        let before = committed.take();
        let (stored, (flagged, next)) = tokio::join!(
            store_fetched(app, &fetched, (validity, *flagged_to), true),
            async {
                let flagged = match &before {
                    Some((uids, _)) => session.mark_seen(uids).await,
                    None => Ok(()),
                };
                let next = match flagged {
                    Ok(()) => session.fetch_after(last, batch).await,
                    Err(_) => Ok(Vec::new()),
                };
                (flagged, next)
            }
        );
        if let (Ok(()), Some((_, flagged_last))) = (&flagged, &before) {
            *flagged_to = Some(*flagged_last);
        }
        let b = stored?;
        flagged?;
        taken.stored += b.stored;
        taken.handled += b.handled;
        taken.delivered += b.delivered;
        if std::env::var_os(PAUSE_HOOK).is_some() {
            eprintln!(
                "{PAUSE_HOOK}: stored {} mails, pausing before flagging",
                uids.len()
            );
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
        committed = Some((uids, last));
        app.wake.notify_one();
        fetched = next?;
    }
    if let Some((uids, last)) = committed {
        session.mark_seen(&uids).await?;
        *flagged_to = Some(last);
    }
    Ok(taken)
}

/// Store one fetched batch of the mailbox of UIDVALIDITY `validity` in one
/// transaction, with the cursor up to `flagged_to`, and when `handle` is set and time
/// order allows (`process::may_handle_in_store`), handled in it: its rows are written
/// as handled and the worker's code handles them (`process::handle_in_store`). Commit;
/// then the paused notices, if the game stands still. Should the handling of the batch
/// fail, the transaction is rolled back and the batch stored again for the worker.
/// Flagging is the caller's.
pub async fn store_fetched(
    app: &App,
    fetched: &[Fetched],
    (validity, flagged_to): (u32, Option<u32>),
    handle: bool,
) -> Result<Taken> {
    // Keys and hashes before the write lock is taken, not while holding it, on the
    // machine's cores at once.
    let keyed: Vec<_> = super::par::map_runs(fetched, |run| {
        run.iter()
            .map(|f| {
                let raw = stored_part(&f.raw, f.raw.len(), app.cfg.limits.max_mail_bytes);
                (raw, dedup_key(raw))
            })
            .collect::<Vec<_>>()
    })
    .concat();
    let mut handle = handle && !fetched.is_empty();
    loop {
        match store_keyed(app, fetched, &keyed, (validity, flagged_to), handle).await? {
            Ok(taken) => return Ok(taken),
            Err(error) => {
                tracing::warn!(%error, "handling a batch as it was stored failed; stored for the worker");
                handle = false;
            }
        }
    }
}

/// A fetched mail's stored part, with its key, Message-ID and hash ([`dedup_key`]).
type Keyed<'a> = (&'a [u8], (String, Option<String>, String));

/// [`store_fetched`] once, with the keys of `fetched`; the inner `Err` (the failure's
/// text) when its handling failed and the transaction was rolled back.
async fn store_keyed(
    app: &App,
    fetched: &[Fetched],
    keyed: &[Keyed<'_>],
    (validity, flagged_to): (u32, Option<u32>),
    handle: bool,
) -> Result<std::result::Result<Taken, String>> {
    let mailbox = session_mailbox(app);
    let mut tx = app.store.begin_write().await?;
    if let Some(uid) = flagged_to {
        inbox::set_imap_cursor(&mut tx, &mailbox, validity, uid).await?;
    }
    let (floor, now) = received_bounds(app, &mut tx).await?;
    // Every mail of the batch in a few statements, committed before any is flagged.
    let mails: Vec<NewMail> = fetched
        .iter()
        .zip(keyed)
        .map(|(f, (raw, (key, mid, sha)))| NewMail {
            dedup_key: key,
            message_id: mid.as_deref(),
            sha256: sha,
            source: Source::Imap,
            raw,
            size: f.raw.len(),
            // The server's receipt time, so a mail sent on time counts as on time
            // even if pbemd was down; never before the game's latest time (events
            // up to it have fired) nor after now.
            received_at: f
                .internal_date
                .map_or(now, |d| clock::to_ms(d).clamp(floor, now)),
            imap: Some((validity, f.uid)),
        })
        .collect();
    let received = mails.iter().map(|m| m.received_at);
    let span = (received.clone().min(), received.max());
    let handle = match span {
        (Some(first), Some(latest)) if handle => {
            super::process::may_handle_in_store(app, &mut tx, (first, latest)).await?
        }
        _ => false,
    };
    let done_at = handle.then_some(now);
    let stored = inbox::insert_many_as(&mut tx, &mails, done_at).await?;
    let mut taken = Taken {
        stored: stored
            .iter()
            .filter(|s| matches!(s, Stored::New(_)))
            .count(),
        ..Taken::default()
    };
    // The state version the batch's courier wrote, remembered once committed.
    let mut saved = None;
    if handle {
        let new: Vec<inbox::Waiting> = stored
            .iter()
            .zip(&mails)
            .filter_map(|(s, m)| match s {
                Stored::New(id) => Some(inbox::Waiting {
                    id: *id,
                    raw: m.raw.to_vec(),
                    received_at: m.received_at,
                    message_id: m.message_id.map(str::to_string),
                    size: m.size.max(m.raw.len()),
                }),
                Stored::Duplicate => None,
            })
            .collect();
        match super::process::handle_in_store(app, &mut tx, new).await {
            Ok((handled, report)) => {
                taken.handled = handled;
                if let Some(r) = report {
                    taken.delivered = r.delivered;
                    saved = r.saved;
                }
            }
            Err(failed) => {
                let _ = tx.rollback().await;
                app.forget_state();
                return Ok(Err(match failed {
                    super::fault::Failed::Unit(e) => e,
                    super::fault::Failed::Machine(e) => super::fault::error_text(&e),
                }));
            }
        }
    }
    tx.commit()
        .await
        .map_err(|e| crate::store::StoreError::Query {
            what: "commit fetched mail",
            source: e,
        })?;
    if let Some(saved) = saved {
        app.remember_state(saved);
    }
    if !handle {
        let raws: Vec<&[u8]> = keyed.iter().map(|(raw, _)| *raw).collect();
        notices_if_still(app, &stored, &raws).await?;
    }
    Ok(Ok(taken))
}

/// While the game stands still, each newly stored mail of a batch is answered with the
/// paused notice, as a mail stored alone is (`store_sized`).
async fn notices_if_still(app: &App, stored: &[Stored], raws: &[&[u8]]) -> Result<()> {
    let mut conn = app.store.conn().await?;
    let still = super::season_calendar::stands_still(app, &mut conn).await;
    drop(conn);
    if !matches!(still, Ok(true)) {
        return Ok(());
    }
    for (s, raw) in stored.iter().zip(raws.iter().copied()) {
        if let Stored::New(id) = s {
            super::season_calendar::notice_if_paused(app, *id, raw).await;
        }
    }
    Ok(())
}

/// The earliest and latest instant a fetched mail may count as received: the game's
/// latest time and now (ms).
async fn received_bounds(app: &App, conn: &mut crate::store::Conn) -> Result<(i64, i64)> {
    // Under the game lock (a no-op on SQLite, where the write lock already orders
    // writers): a schedule event firing on another connection or replica (the
    // resolution at the form deadline) commits first, with the game's latest time in
    // its transaction, so a mail received before that event but stored after it is
    // taken as received at the event, never as earlier (it would be handled in the
    // window the event closed, against the state the event made).
    crate::store::lease::game_lock(&app.store, conn).await?;
    let now = clock::to_ms(app.now());
    let floor = match super::scheduler::last_now(app, conn).await {
        Ok(t) => clock::to_ms(t).min(now),
        Err(super::AppError::NotStarted) => now,
        Err(e) => return Err(e),
    };
    Ok((floor, now))
}

/// A failure of the IMAP intake as the GM reads it: the server's name and what to
/// fix ([`crate::transport::diagnose::explain`]), the same words `check-config` uses;
/// a failure that is not the server's (the database) in its own words.
pub fn explain(app: &App, e: &super::AppError) -> String {
    match (e, app.cfg.imap_server()) {
        (super::AppError::Transport(t), Some(s)) => explain_transport(&s, t),
        _ => e.to_string(),
    }
}

/// [`explain`] of a transport failure on the IMAP server `s`.
pub fn explain_transport(
    s: &crate::transport::diagnose::Server,
    e: &crate::transport::TransportError,
) -> String {
    format!(
        "{}: {}",
        s.name(),
        crate::transport::diagnose::explain(e, s)
    )
}

fn session_mailbox(app: &App) -> String {
    match &app.cfg.inbound {
        crate::config::Inbound::Imap(i) => i.params.mailbox.clone(),
        crate::config::Inbound::Maildir(_) => "INBOX".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::{dedup_key, stored_part, KEPT_BODY_BYTES};

    #[test]
    fn an_over_limit_mail_keeps_its_headers_and_the_start_of_its_body() {
        let head = b"From: a@b.se\r\nSubject: x\r\n\r\n".to_vec();
        let mut raw = head.clone();
        raw.extend(std::iter::repeat_n(b'y', 3 * KEPT_BODY_BYTES));
        let limit = 2 * KEPT_BODY_BYTES;
        assert_eq!(
            stored_part(&raw, raw.len(), raw.len()),
            &raw[..],
            "at the limit: whole"
        );
        let kept = stored_part(&raw, raw.len(), limit);
        assert_eq!(kept.len(), head.len() + KEPT_BODY_BYTES);
        assert!(kept.starts_with(&head));
        // A prefix already cut by the reader, LF line ends, no body, no blank line.
        let lf = b"From: a@b.se\nSubject: x\n\nbody".to_vec();
        assert_eq!(stored_part(&lf, 10 * limit, limit), &lf[..]);
        let noise = vec![b'z'; 3 * limit];
        assert_eq!(
            stored_part(&noise, noise.len(), limit).len(),
            KEPT_BODY_BYTES
        );
    }

    #[test]
    fn the_dedup_key_is_the_message_id_else_the_content_hash() {
        let (k, mid, _) = dedup_key(b"Message-ID: <a@b>\r\nSubject: x\r\n\r\nbody");
        assert_eq!((k.as_str(), mid.as_deref()), ("mid:a@b", Some("a@b")));
        let (k1, none, sha) = dedup_key(b"Subject: x\r\n\r\nbody");
        assert_eq!(none, None);
        assert_eq!(k1, format!("sha256:{sha}"));
        let (k2, _, _) = dedup_key(b"Subject: x\r\n\r\nbody!");
        assert_ne!(k1, k2);
        for garbage in [&b""[..], b"\x00\xff\xfe", b"\r\n\r\n\r\n", b"Message-ID: <"] {
            dedup_key(garbage);
        }
    }

    /// Reading only the Message-ID lines gives the id the whole header's parse gives:
    /// any case, folded, with a comment, twice, after other fields, LF line ends, none,
    /// and one in the body only.
    #[test]
    fn the_message_id_read_alone_is_the_one_the_whole_header_gives() {
        let whole = |raw: &[u8]| {
            mail_parser::MessageParser::new()
                .parse_headers(raw)
                .and_then(|m| m.message_id().map(|s| s.trim().to_string()))
                .filter(|s| !s.is_empty())
        };
        let mails: [&[u8]; 9] = [
            b"Message-ID: <a@b>\r\nSubject: x\r\n\r\nbody",
            b"Subject: x\r\nmessage-id:   <low@case>\r\n\r\nbody",
            b"From: a@b\r\nMessage-Id:\r\n <folded@x.y>\r\nTo: c@d\r\n\r\nb",
            b"Message-ID: <c@d> (a comment)\r\n\r\n",
            b"Message-ID: <first@x>\r\nMessage-ID: <second@x>\r\n\r\n",
            b"Subject: lf only\nMessage-ID: <lf@x>\n\nbody\n",
            b"Subject: none\r\n\r\nMessage-ID: <in-body@x>\r\n",
            b"Message-ID : <space@before.colon>\r\n\r\n",
            b"Message-ID: <no-body@x>",
        ];
        for raw in mails {
            let (_, mid, _) = dedup_key(raw);
            assert_eq!(mid, whole(raw), "{}", String::from_utf8_lossy(raw));
        }
    }
}

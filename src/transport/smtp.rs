//! Outbound SMTP transport: hands already-formatted RFC 5322 messages to a submission server.
//!
//! Owns: one reusable SMTP connection (lettre's `AsyncSmtpConnection` over a `TcpStream` we
//! open ourselves with `TCP_NODELAY`), plain / STARTTLS / SMTPS, AUTH PLAIN/LOGIN, reconnecting
//! when the connection broke, and sorting failures into permanent (5xx) and transient ones.
//!
//! Must not touch: building messages (that is `mail/`), the outbox rows, retry scheduling.
//! This module sends once; the outbox worker decides whether and when to try again.

use std::path::PathBuf;
use std::time::Duration;

use lettre::address::Envelope;
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{
    AsyncSmtpConnection, AsyncTokioStream, Certificate, TlsParameters,
};
use lettre::transport::smtp::extension::ClientId;
use lettre::Address;
use tokio::time::Instant;

pub use super::tls::TlsMode;
use super::tls::{
    client_config, connect_tcp, tls_handshake, with_timeout, MailStream, TransportError,
    SEND_ACTION,
};

/// Time allowed for TCP connect + TLS + greeting + EHLO (+ STARTTLS) + AUTH.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Base time allowed for one message (MAIL, RCPT…, DATA, body, final reply) …
const SEND_TIMEOUT: Duration = Duration::from_secs(60);
/// … plus one second per this many bytes of message.
const SEND_BYTES_PER_SEC: usize = 64 * 1024;
/// A connection unused for longer than this is checked with NOOP before reuse (servers drop
/// idle clients; Postfix after 300 s), so a dead connection never eats a message.
const IDLE_CHECK_AFTER: Duration = Duration::from_secs(10);
const NOOP_TIMEOUT: Duration = Duration::from_secs(10);

/// Where and how to send mail.
#[derive(Debug, Clone)]
pub struct SmtpParams {
    pub host: String,
    pub port: u16,
    /// AUTH (PLAIN or LOGIN) is used when both user and password are set.
    pub user: Option<String>,
    pub password: Option<String>,
    pub tls: TlsMode,
    /// Extra trusted root (PEM), for self-signed test servers. Mozilla roots are always trusted.
    pub ca_file: Option<PathBuf>,
    /// Our name in EHLO.
    pub hello_name: String,
}

/// lettre's boxed stream type needs `peer_addr`; our stream is TCP underneath.
impl AsyncTokioStream for MailStream {
    fn peer_addr(&self) -> std::io::Result<std::net::SocketAddr> {
        self.tcp().peer_addr()
    }
}

/// Sends messages over one kept-open SMTP connection, reconnecting when it broke.
/// Not `Clone`: one sender is one connection; use several for parallel sending.
pub struct SmtpSender {
    params: SmtpParams,
    conn: Option<AsyncSmtpConnection>,
    last_used: Instant,
}

impl std::fmt::Debug for SmtpSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpSender")
            .field(
                "server",
                &format_args!("{}:{}", self.params.host, self.params.port),
            )
            .field("tls", &self.params.tls)
            .field("connected", &self.conn.is_some())
            .finish_non_exhaustive()
    }
}

impl SmtpSender {
    /// No I/O happens here; the first [`Self::send_raw`] connects.
    pub fn new(p: SmtpParams) -> SmtpSender {
        SmtpSender {
            params: p,
            conn: None,
            last_used: Instant::now(),
        }
    }

    /// Sends one already-formatted RFC 5322 message (`raw`, CRLF or LF line ends; lettre
    /// dot-stuffs it) with this envelope.
    ///
    /// Errors: [`TransportError::Permanent`] for a 5xx refusal (or a message this server can
    /// never take, e.g. 8-bit without 8BITMIME): do not retry. [`TransportError::Transient`],
    /// `Io` or `Timeout` for 4xx and broken connections: retry later with backoff.
    /// `Protocol`/`TlsConfig` for local configuration problems. After any error the connection
    /// is dropped and the next call reconnects.
    ///
    /// A failure while waiting for the reply to the final `.` leaves it unknown whether the
    /// server took the message; a retry may then deliver it twice (as with every SMTP client).
    pub async fn send_raw(
        &mut self,
        envelope_from: &str,
        to: &[String],
        raw: &[u8],
    ) -> Result<(), TransportError> {
        let envelope = build_envelope(envelope_from, to)?;
        self.ensure_connected().await?;
        let conn = self.conn.as_mut().expect("connected above");
        let limit = SEND_TIMEOUT + Duration::from_secs((raw.len() / SEND_BYTES_PER_SEC) as u64);
        let action = || format!("{SEND_ACTION} from <{envelope_from}> to {to:?}");
        let result = with_timeout(limit, action, async {
            conn.send(&envelope, raw)
                .await
                .map_err(|e| classify(action(), e))
        })
        .await;
        self.last_used = Instant::now();
        match result {
            Ok(reply) => {
                tracing::debug!(
                    from = envelope_from,
                    ?to,
                    bytes = raw.len(),
                    reply = reply.first_line().unwrap_or(""),
                    "SMTP accepted"
                );
                Ok(())
            }
            Err(e) => {
                // lettre has already sent QUIT on an SMTP error; a timeout leaves the
                // connection mid-command. Either way it is not reused.
                self.conn = None;
                tracing::debug!(error = %e, "SMTP send failed");
                Err(e)
            }
        }
    }

    /// Sends QUIT and closes the connection, if one is open. Dropping the sender without it
    /// just closes the socket, which servers tolerate.
    pub async fn close(&mut self) {
        if let Some(mut conn) = self.conn.take() {
            let _ = tokio::time::timeout(NOOP_TIMEOUT, conn.quit()).await;
        }
    }

    async fn ensure_connected(&mut self) -> Result<(), TransportError> {
        if let Some(conn) = self.conn.as_mut() {
            let healthy = !conn.has_broken()
                && (self.last_used.elapsed() < IDLE_CHECK_AFTER
                    || tokio::time::timeout(NOOP_TIMEOUT, conn.test_connected())
                        .await
                        .unwrap_or(false));
            if healthy {
                return Ok(());
            }
            tracing::debug!("SMTP connection broken or gone stale; reconnecting");
            self.conn = None;
        }
        let server = format!("{}:{}", self.params.host, self.params.port);
        let conn = with_timeout(
            CONNECT_TIMEOUT,
            || format!("connect to SMTP server {server}"),
            connect(&self.params, &server),
        )
        .await?;
        self.conn = Some(conn);
        self.last_used = Instant::now();
        Ok(())
    }
}

/// What a login without sending found (`pbemd check-config`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probed {
    /// Whether AUTH was done (a user and password are set).
    pub logged_in: bool,
}

/// Connects, greets (EHLO), upgrades (STARTTLS or TLS) and authenticates as sending
/// would, then says QUIT: no mail is sent.
pub async fn probe(p: &SmtpParams) -> Result<Probed, TransportError> {
    let server = format!("{}:{}", p.host, p.port);
    let mut conn = with_timeout(
        CONNECT_TIMEOUT,
        || format!("connect to SMTP server {server}"),
        connect(p, &server),
    )
    .await?;
    let _ = tokio::time::timeout(NOOP_TIMEOUT, conn.quit()).await;
    Ok(Probed {
        logged_in: p.user.is_some() && p.password.is_some(),
    })
}

/// Opens, greets (EHLO), upgrades (STARTTLS) and authenticates one connection.
async fn connect(p: &SmtpParams, server: &str) -> Result<AsyncSmtpConnection, TransportError> {
    let hello = ClientId::Domain(p.hello_name.clone());
    let tcp = connect_tcp(&p.host, p.port).await?;
    let stream = match p.tls {
        TlsMode::Tls => {
            let cfg = client_config(p.ca_file.as_ref())?;
            MailStream::Tls(Box::new(tls_handshake(tcp, &p.host, cfg).await?))
        }
        TlsMode::None | TlsMode::Starttls => MailStream::Plain(tcp),
    };
    let mut conn = AsyncSmtpConnection::connect_with_transport(Box::new(stream), &hello)
        .await
        .map_err(|e| classify(format!("greet SMTP server {server}"), e))?;

    if p.tls == TlsMode::Starttls {
        if !conn.can_starttls() {
            conn.abort().await;
            return Err(TransportError::protocol(
                format!("start TLS with {server}"),
                "server does not offer STARTTLS (refusing to continue in plain text)",
            ));
        }
        let params = lettre_tls_params(p)?;
        conn.starttls(params, &hello)
            .await
            .map_err(|e| classify(format!("start TLS with {server}"), e))?;
    }

    if let (Some(user), Some(password)) = (&p.user, &p.password) {
        let creds = Credentials::new(user.clone(), password.clone());
        conn.auth(&[Mechanism::Plain, Mechanism::Login], &creds)
            .await
            .map_err(|e| classify(format!("authenticate as {user} on {server}"), e))?;
    }
    tracing::debug!(server, tls = ?p.tls, "SMTP connection open");
    Ok(conn)
}

/// lettre's own TLS settings, used for STARTTLS (lettre performs that upgrade itself): the
/// webpki roots plus the extra PEM root, same trust as [`client_config`].
fn lettre_tls_params(p: &SmtpParams) -> Result<TlsParameters, TransportError> {
    let mut builder = TlsParameters::builder(p.host.clone());
    if let Some(path) = &p.ca_file {
        let action = || format!("load trusted root certificates from {}", path.display());
        let pem = std::fs::read(path).map_err(|e| TransportError::io(action(), e))?;
        let cert = Certificate::from_pem(&pem).map_err(|e| TransportError::TlsConfig {
            action: action(),
            reason: e.to_string(),
        })?;
        builder = builder.add_root_certificate(cert);
    }
    builder
        .build_rustls()
        .map_err(|e| TransportError::TlsConfig {
            action: format!("set up TLS for {}", p.host),
            reason: e.to_string(),
        })
}

fn build_envelope(from: &str, to: &[String]) -> Result<Envelope, TransportError> {
    let action = || format!("build the SMTP envelope <{from}> → {to:?}");
    let parse = |a: &str| {
        a.parse::<Address>()
            .map_err(|e| TransportError::protocol(action(), format!("bad address {a:?}: {e}")))
    };
    let from_addr = if from.is_empty() {
        None // null reverse-path `<>`, for bounces and auto-replies
    } else {
        Some(parse(from)?)
    };
    let rcpts = to.iter().map(|a| parse(a)).collect::<Result<Vec<_>, _>>()?;
    Envelope::new(from_addr, rcpts).map_err(|e| TransportError::protocol(action(), e.to_string()))
}

/// 5xx and "this server can never take it" → Permanent; everything else → Transient.
fn classify(action: String, e: lettre::transport::smtp::Error) -> TransportError {
    if e.is_permanent() || e.is_client() {
        TransportError::Permanent { action, source: e }
    } else {
        TransportError::Transient { action, source: e }
    }
}

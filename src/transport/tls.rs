//! TLS plumbing shared by the IMAP and SMTP transports, and the transport boundary error.
//!
//! Owns: [`TlsMode`], [`TransportError`], the rustls client configuration (Mozilla roots from
//! `webpki-roots` plus an optional extra PEM root for self-signed test servers), and
//! [`MailStream`], a TCP-or-TLS byte stream with `TCP_NODELAY` set. It knows nothing about
//! IMAP or SMTP commands and must not: those live in `imap.rs` and `smtp.rs`.
//!
//! One crypto provider only (`ring`), chosen explicitly with `builder_with_provider`, so the
//! process-wide default provider is never consulted (it panics when two are compiled in).

use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

/// How a connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TlsMode {
    /// Plain text (loopback tests only).
    None,
    /// Plain connect, then upgrade with STARTTLS before any credentials are sent.
    Starttls,
    /// TLS from the first byte (IMAPS 993, SMTPS 465).
    Tls,
}

/// Everything that can go wrong talking to a mail server. Each variant says what was being
/// done (`action`), so a log line or a GM-visible error reads "cannot … : cause".
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// Network I/O failed (connect, read, write, TLS handshake).
    #[error("cannot {action}: {source}")]
    Io {
        action: String,
        #[source]
        source: io::Error,
    },
    /// An operation did not finish in time.
    #[error("cannot {action}: timed out after {after:?}")]
    Timeout { action: String, after: Duration },
    /// Local TLS setup is wrong (unreadable or invalid CA file, bad server name).
    #[error("cannot {action}: {reason}")]
    TlsConfig { action: String, reason: String },
    /// The IMAP server answered NO/BAD or the session broke.
    #[error("cannot {action}: {source}")]
    Imap {
        action: String,
        #[source]
        source: async_imap::error::Error,
    },
    /// The IMAP server refused the credentials.
    #[error("IMAP login as {user} on {server} refused: {source}")]
    LoginRefused {
        user: String,
        server: String,
        #[source]
        source: async_imap::error::Error,
    },
    /// The server lacks something we require (STARTTLS, UIDVALIDITY, …) or said something
    /// we cannot use. Retrying will not help until the configuration changes.
    #[error("cannot {action}: {reason}")]
    Protocol { action: String, reason: String },
    /// SMTP 5xx (or a refusal that retrying cannot fix): do not retry this message.
    #[error("SMTP refused permanently while trying to {action}: {source}")]
    Permanent {
        action: String,
        #[source]
        source: lettre::transport::smtp::Error,
    },
    /// SMTP 4xx, or the connection broke/timed out: retry later with backoff.
    #[error("SMTP failed (transient) while trying to {action}: {source}")]
    Transient {
        action: String,
        #[source]
        source: lettre::transport::smtp::Error,
    },
}

impl TransportError {
    pub(crate) fn io(action: impl Into<String>, source: io::Error) -> Self {
        TransportError::Io {
            action: action.into(),
            source,
        }
    }

    pub(crate) fn imap(action: impl Into<String>, source: async_imap::error::Error) -> Self {
        TransportError::Imap {
            action: action.into(),
            source,
        }
    }

    pub(crate) fn protocol(action: impl Into<String>, reason: impl Into<String>) -> Self {
        TransportError::Protocol {
            action: action.into(),
            reason: reason.into(),
        }
    }

    /// Whether the server refused this very message (a 5xx to MAIL FROM, RCPT TO or
    /// DATA): sending it again cannot help. A 5xx while connecting, greeting, starting
    /// TLS or logging in (a wrong password: 535) is the setup's fault, not the
    /// message's: the message waits and is tried again once the GM fixes the setup.
    pub fn refuses_the_message(&self) -> bool {
        matches!(self, TransportError::Permanent { action, .. } if action.starts_with(SEND_ACTION))
    }

    /// Whether retrying the same operation later can succeed (network trouble, 4xx, time-outs).
    /// `false` for permanent refusals and configuration errors.
    pub fn is_retryable(&self) -> bool {
        match self {
            TransportError::Io { .. }
            | TransportError::Timeout { .. }
            | TransportError::Transient { .. } => true,
            TransportError::Imap { source, .. } => !matches!(
                source,
                async_imap::error::Error::No(_)
                    | async_imap::error::Error::Bad(_)
                    | async_imap::error::Error::Validate(_)
            ),
            TransportError::TlsConfig { .. }
            | TransportError::LoginRefused { .. }
            | TransportError::Protocol { .. }
            | TransportError::Permanent { .. } => false,
        }
    }
}

/// How the action of sending one message begins (`smtp.rs`), for
/// [`TransportError::refuses_the_message`].
pub(crate) const SEND_ACTION: &str = "send a message";

/// Runs `fut` with a time limit; a timeout becomes [`TransportError::Timeout`] for `action`.
pub(crate) async fn with_timeout<T>(
    after: Duration,
    action: impl FnOnce() -> String,
    fut: impl std::future::Future<Output = Result<T, TransportError>>,
) -> Result<T, TransportError> {
    match tokio::time::timeout(after, fut).await {
        Ok(r) => r,
        Err(_) => Err(TransportError::Timeout {
            action: action(),
            after,
        }),
    }
}

/// Reads every certificate of a PEM file (the extra trusted roots).
pub fn load_pem_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, TransportError> {
    let action = || format!("load trusted root certificates from {}", path.display());
    let pem = std::fs::read(path).map_err(|e| TransportError::io(action(), e))?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TransportError::TlsConfig {
            action: action(),
            reason: e.to_string(),
        })?;
    if certs.is_empty() {
        return Err(TransportError::TlsConfig {
            action: action(),
            reason: "no PEM CERTIFICATE block found".into(),
        });
    }
    Ok(certs)
}

/// rustls client configuration: webpki (Mozilla) roots plus the certificates in `ca_file`.
pub fn client_config(
    ca_file: Option<&PathBuf>,
) -> Result<Arc<rustls::ClientConfig>, TransportError> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = ca_file {
        for cert in load_pem_certs(path)? {
            roots.add(cert).map_err(|e| TransportError::TlsConfig {
                action: format!("trust the certificate in {}", path.display()),
                reason: e.to_string(),
            })?;
        }
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| TransportError::TlsConfig {
        action: "set up TLS protocol versions".into(),
        reason: e.to_string(),
    })?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(Arc::new(config))
}

/// Opens a TCP connection to `host:port` with `TCP_NODELAY` on (without it Nagle plus delayed
/// ACK cost ~40 ms per SMTP message, see MAILSTACK.md pitfall 5).
pub async fn connect_tcp(host: &str, port: u16) -> Result<TcpStream, TransportError> {
    let action = || format!("connect to {host}:{port}");
    let tcp = TcpStream::connect((host, port))
        .await
        .map_err(|e| TransportError::io(action(), e))?;
    tcp.set_nodelay(true)
        .map_err(|e| TransportError::io(format!("set TCP_NODELAY on {host}:{port}"), e))?;
    Ok(tcp)
}

/// TLS handshake over an open TCP stream, verifying the certificate against `host`.
pub async fn tls_handshake(
    tcp: TcpStream,
    host: &str,
    config: Arc<rustls::ClientConfig>,
) -> Result<TlsStream<TcpStream>, TransportError> {
    let name = ServerName::try_from(host.to_owned()).map_err(|e| TransportError::TlsConfig {
        action: format!("use {host:?} as a TLS server name"),
        reason: e.to_string(),
    })?;
    TlsConnector::from(config)
        .connect(name, tcp)
        .await
        .map_err(|e| TransportError::io(format!("complete the TLS handshake with {host}"), e))
}

/// A TCP stream, plain or wrapped in TLS. Implements tokio's `AsyncRead`/`AsyncWrite`, so
/// async-imap and lettre can run over either.
#[derive(Debug)]
pub enum MailStream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl MailStream {
    /// The underlying TCP stream (for `peer_addr` and socket options).
    pub fn tcp(&self) -> &TcpStream {
        match self {
            MailStream::Plain(s) => s,
            MailStream::Tls(s) => s.get_ref().0,
        }
    }
}

impl AsyncRead for MailStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            MailStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            MailStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for MailStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            MailStream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            MailStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            MailStream::Plain(s) => Pin::new(s).poll_flush(cx),
            MailStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            MailStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            MailStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

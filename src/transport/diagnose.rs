//! The words for a failure to reach a mail server: one line that says what is wrong
//! and, where the GM can fix it, which setting to change. `pbemd check-config`, the
//! daemon's intake and sender loops, and the outbox's `last_error` (shown by
//! `gm queue` and `init`) all say a failure with [`explain`], so the same failure
//! reads the same everywhere.
//!
//! Must not touch: retrying, logging, the config file. The caller says which setting
//! the server came from ([`Server`]); this module only reads the error.

use std::error::Error as StdError;
use std::io;

use super::tls::{TlsMode, TransportError};

/// Which kind of server a setting is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Imap,
    Smtp,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Imap => "IMAP",
            Protocol::Smtp => "SMTP",
        }
    }

    /// The port of TLS from the first byte.
    fn tls_port(self) -> u16 {
        match self {
            Protocol::Imap => 993,
            Protocol::Smtp => 465,
        }
    }
}

/// One mail server as the config names it, for the words of its failures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub protocol: Protocol,
    /// The config's block: `inbound.imap` or `outbound.smtp`.
    pub key: String,
    pub host: String,
    pub port: u16,
    pub user: Option<String>,
    /// Where the password was read from: a variable's name or a file's path.
    pub password_from: Option<String>,
    pub tls: TlsMode,
    /// The IMAP mailbox.
    pub mailbox: Option<String>,
}

impl Server {
    /// `IMAP sl@game.test at mail.example.org:993`, to begin a log or report line.
    pub fn name(&self) -> String {
        match &self.user {
            Some(u) => format!(
                "{} {u} at {}:{}",
                self.protocol.as_str(),
                self.host,
                self.port
            ),
            None => format!("{} {}:{}", self.protocol.as_str(), self.host, self.port),
        }
    }
}

/// What is wrong and how to fix it, in one line (without the server's name: see
/// [`Server::name`]).
pub fn explain(e: &TransportError, s: &Server) -> String {
    let key = &s.key;
    let at = format!("{}:{}", s.host, s.port);
    let said = || server_said(e);
    if let Some(cert) = certificate_problem(e) {
        return match cert {
            Cert::UnknownIssuer => format!(
                "the server's certificate is not trusted: set {key}.ca_file to its certificate \
                 or CA (self-signed?)"
            ),
            Cert::WrongName => format!(
                "the server's certificate is not made out for {}: set {key}.host to a name on \
                 its certificate",
                s.host
            ),
            Cert::Expired => format!(
                "the server's certificate has expired or is not yet valid: renew it on {}",
                s.host
            ),
            Cert::NotTls => format!(
                "{at} does not speak TLS from the first byte: set {key}.tls: starttls, or \
                 {key}.port to the port of TLS ({})",
                s.protocol.tls_port()
            ),
            Cert::Other(why) => format!("the server's certificate is not accepted ({why})"),
        };
    }
    match e {
        TransportError::LoginRefused { .. } => wrong_password(s, &said()),
        TransportError::Permanent { source, action }
        | TransportError::Transient { source, action } => {
            let code = source.status().map(|c| c.to_string());
            match code.as_deref() {
                Some("535") | Some("534") => wrong_password(s, &said()),
                Some("530") if s.user.is_none() => format!(
                    "the server wants a login: set {key}.user and {key}.password_env (or \
                     password_file){}",
                    said()
                ),
                Some("530") => format!(
                    "the server wants TLS before the login: set {key}.tls: starttls (or tls){}",
                    said()
                ),
                _ if action.starts_with("authenticate") && source.is_client() => format!(
                    "the server offers no login method pbemd speaks (PLAIN or LOGIN){}: {source}",
                    if s.tls == TlsMode::None {
                        format!("; it may offer one only over TLS: set {key}.tls: starttls")
                    } else {
                        String::new()
                    }
                ),
                _ => e.to_string(),
            }
        }
        TransportError::Timeout { after, .. } => format!(
            "{at} did not answer within {} s: check {key}.host, {key}.port and the firewall",
            after.as_secs()
        ),
        TransportError::Protocol { reason, .. } if reason.contains("STARTTLS") => format!(
            "{at} does not offer STARTTLS: set {key}.tls: tls and {key}.port to the port of \
             TLS ({})",
            s.protocol.tls_port()
        ),
        TransportError::Imap { action, source } if action.starts_with("select mailbox") => {
            match source {
                async_imap::error::Error::No(_) | async_imap::error::Error::Bad(_) => format!(
                    "there is no mailbox {:?} for this user: check {key}.mailbox{}",
                    s.mailbox.as_deref().unwrap_or("INBOX"),
                    said()
                ),
                _ => e.to_string(),
            }
        }
        TransportError::TlsConfig { .. } => format!("{e}: check {key}.ca_file"),
        TransportError::Io { action, .. } if action.starts_with("load trusted root") => {
            format!("{e}: check {key}.ca_file")
        }
        TransportError::Io { action, source } if action.starts_with("connect to") => {
            connect_problem(source, s, &at)
        }
        _ => match io_error(e) {
            Some(io) if action_of(e).starts_with("connect to") => connect_problem(io, s, &at),
            _ => e.to_string(),
        },
    }
}

fn action_of(e: &TransportError) -> &str {
    match e {
        TransportError::Io { action, .. }
        | TransportError::Timeout { action, .. }
        | TransportError::TlsConfig { action, .. }
        | TransportError::Imap { action, .. }
        | TransportError::Protocol { action, .. }
        | TransportError::Permanent { action, .. }
        | TransportError::Transient { action, .. } => action,
        TransportError::LoginRefused { .. } => "log in",
    }
}

/// A failed TCP connect: refused, unknown host, or something else on the way.
fn connect_problem(io: &io::Error, s: &Server, at: &str) -> String {
    let key = &s.key;
    let text = io.to_string();
    if io.kind() == io::ErrorKind::ConnectionRefused {
        format!(
            "nothing answers at {at} (connection refused): check {key}.host and {key}.port, \
             and that the server runs"
        )
    } else if text.contains("lookup") || text.contains("Name or service not known") {
        format!(
            "the host name {} is not known ({text}): check {key}.host",
            s.host
        )
    } else {
        format!("cannot reach {at} ({text}): check {key}.host, {key}.port and the network")
    }
}

fn wrong_password(s: &Server, said: &str) -> String {
    let from = match &s.password_from {
        Some(f) => format!("read from {f}"),
        None => format!("none set: {}.password_env or password_file", s.key),
    };
    format!("wrong user or password ({from}){said}")
}

/// The server's own words in async-imap's rendering of a tagged `NO`/`BAD`
/// (`code: None, info: Some("[AUTHENTICATIONFAILED] Authentication failed.")`): the
/// text inside `info: Some("…")`; any other text as it is.
fn imap_words(t: &str) -> &str {
    t.split_once("info: Some(\"")
        .and_then(|(_, rest)| rest.rsplit_once("\")"))
        .map_or(t, |(words, _)| words)
}

/// `: the server said …` with the server's own words, when it gave any.
fn server_said(e: &TransportError) -> String {
    let text = match e {
        TransportError::LoginRefused { source, .. } | TransportError::Imap { source, .. } => {
            match source {
                async_imap::error::Error::No(t) | async_imap::error::Error::Bad(t) => {
                    imap_words(t).to_string()
                }
                other => imap_words(&other.to_string()).to_string(),
            }
        }
        TransportError::Permanent { source, .. } | TransportError::Transient { source, .. } => {
            let code = source.status().map(|c| c.to_string()).unwrap_or_default();
            let words = source
                .to_string()
                .split_once(": ")
                .map(|(_, w)| w.to_string())
                .unwrap_or_default();
            format!("{code} {words}").trim().to_string()
        }
        _ => String::new(),
    };
    let text = text.trim();
    if text.is_empty() {
        String::new()
    } else {
        format!(
            "; the server said: {}",
            crate::mail::parse::clean_chars(text)
                .take(200)
                .collect::<String>()
        )
    }
}

/// What was wrong with the server's certificate (or its TLS), if that was the failure.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cert {
    UnknownIssuer,
    WrongName,
    Expired,
    /// The other side answered a TLS hello with something that is not TLS.
    NotTls,
    Other(String),
}

fn certificate_problem(e: &TransportError) -> Option<Cert> {
    let mut cause: Option<&(dyn StdError + 'static)> = Some(e);
    while let Some(c) = cause {
        if let Some(r) = c.downcast_ref::<rustls::Error>() {
            return rustls_problem(r);
        }
        if let Some(io) = c.downcast_ref::<io::Error>() {
            if let Some(r) = io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
                return rustls_problem(r);
            }
        }
        cause = c.source();
    }
    // lettre's STARTTLS may wrap rustls in its own error types: the words then.
    let text = chain_text(e);
    if text.contains("UnknownIssuer") {
        Some(Cert::UnknownIssuer)
    } else if text.contains("NotValidForName") {
        Some(Cert::WrongName)
    } else if text.contains("Expired") && text.contains("certificate") {
        Some(Cert::Expired)
    } else if text.contains("InvalidContentType") || text.contains("corrupt message") {
        Some(Cert::NotTls)
    } else {
        None
    }
}

fn rustls_problem(r: &rustls::Error) -> Option<Cert> {
    use rustls::CertificateError as C;
    Some(match r {
        rustls::Error::InvalidCertificate(c) => match c {
            C::UnknownIssuer => Cert::UnknownIssuer,
            C::NotValidForName | C::NotValidForNameContext { .. } => Cert::WrongName,
            C::Expired
            | C::ExpiredContext { .. }
            | C::NotValidYet
            | C::NotValidYetContext { .. } => Cert::Expired,
            other => Cert::Other(format!("{other:?}")),
        },
        rustls::Error::InvalidMessage(_) => Cert::NotTls,
        _ => return None,
    })
}

/// The error and all its causes as one text (for words deep inside other crates).
fn chain_text(e: &TransportError) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&format!("{c} {c:?}"));
        cause = c.source();
    }
    out
}

/// The I/O error somewhere in the causes, if any.
fn io_error(e: &TransportError) -> Option<&io::Error> {
    let mut cause: Option<&(dyn StdError + 'static)> = e.source();
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<io::Error>() {
            return Some(io);
        }
        cause = c.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imap() -> Server {
        Server {
            protocol: Protocol::Imap,
            key: "inbound.imap".into(),
            host: "mail.example.org".into(),
            port: 993,
            user: Some("sl@example.org".into()),
            password_from: Some("PBEMD_IMAP_PASSWORD".into()),
            tls: TlsMode::Tls,
            mailbox: Some("INBOX".into()),
        }
    }

    #[test]
    fn an_imap_refusal_quotes_the_servers_words_not_the_librarys_rendering() {
        assert_eq!(
            imap_words(
                r#"code: None, info: Some("[AUTHENTICATIONFAILED] Authentication failed.")"#
            ),
            "[AUTHENTICATIONFAILED] Authentication failed."
        );
        assert_eq!(imap_words("Mailbox is full"), "Mailbox is full");
    }

    #[test]
    fn an_unknown_issuer_names_the_ca_file_setting() {
        let e = TransportError::io(
            "complete the TLS handshake with mail.example.org",
            io::Error::new(
                io::ErrorKind::InvalidData,
                rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
            ),
        );
        assert_eq!(
            explain(&e, &imap()),
            "the server's certificate is not trusted: set inbound.imap.ca_file to its \
             certificate or CA (self-signed?)"
        );
    }

    #[test]
    fn a_refused_login_names_where_the_password_came_from() {
        let e = TransportError::LoginRefused {
            user: "sl@example.org".into(),
            server: "mail.example.org:993".into(),
            source: async_imap::error::Error::No(
                "[AUTHENTICATIONFAILED] Authentication failed.".into(),
            ),
        };
        let line = explain(&e, &imap());
        assert!(
            line.starts_with("wrong user or password (read from PBEMD_IMAP_PASSWORD)"),
            "{line}"
        );
        assert!(line.contains("AUTHENTICATIONFAILED"), "{line}");
    }

    #[test]
    fn a_refused_connection_names_the_host_and_port() {
        let e = TransportError::io(
            "connect to mail.example.org:993",
            io::Error::new(io::ErrorKind::ConnectionRefused, "Connection refused"),
        );
        let line = explain(&e, &imap());
        assert!(
            line.starts_with("nothing answers at mail.example.org:993 (connection refused)"),
            "{line}"
        );
        let e = TransportError::io(
            "connect to mail.example.org:993",
            io::Error::other("failed to lookup address information: Name or service not known"),
        );
        let line = explain(&e, &imap());
        assert!(
            line.starts_with("the host name mail.example.org is not known"),
            "{line}"
        );
    }
}

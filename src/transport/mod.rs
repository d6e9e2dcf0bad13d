//! Transports: the only code that talks to mail servers or mail folders.
//!
//! Inbound: IMAP (`imap`), a local Maildir (`maildir`); the webhook lives in `web/`.
//! Outbound: SMTP (`smtp`) or a Maildir. Everything above this room sees raw RFC 5322
//! bytes going in and out; what the bytes mean is `mail/`'s business.

pub mod diagnose;
pub mod imap;
pub mod maildir;
pub mod smtp;
pub mod tls;

pub use tls::TransportError;

//! Mail as data: parse raw inbound bytes (`parse`), read the subject grammar
//! (`subject`), decide what a mail is and whose (`classify`), and build outgoing mail
//! (`compose`). No network and no database here: transports move the bytes, the store
//! keeps them.

pub mod classify;
pub mod compose;
pub mod mime;
pub mod parse;
pub mod sender_auth;
pub mod subject;

//! Outgoing mail: a plain-text RFC 5322 message from the game's own address, with a
//! Message-ID derived from the outbox key (the same row always yields the same ID) and
//! In-Reply-To/References when it answers a player's mail.

use chrono::{DateTime, TimeZone};
use lettre::message::{header::ContentType, Mailbox, Message, MultiPart, SinglePart};
use sha2::{Digest, Sha256};

/// A mail to send, before formatting.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// What it is (`envoy`, `refusal`, `result_form` …): shown to the GM, used in metrics.
    pub kind: &'static str,
    /// Why it exists; queueing the same key twice sends one mail.
    pub dedup_key: String,
    pub to: Vec<String>,
    pub subject: String,
    pub body: String,
    /// The Message-ID (without `<>`) of the mail this answers.
    pub in_reply_to: Option<String>,
}

/// A file sent along with a mail's text (a map picture): the text stays the first
/// part, the files follow it in a `multipart/mixed` mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The file name the reader sees (`karta.png`).
    pub name: String,
    /// Its media type (`image/png`).
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// A formatted mail.
#[derive(Debug, Clone)]
pub struct Composed {
    /// With angle brackets, as in the header.
    pub message_id: String,
    pub raw: Vec<u8>,
}

/// Building the mail failed (an address that is not one).
#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    #[error("`{0}` is not a usable mail address")]
    Address(String),
    #[error("cannot build mail: {0}")]
    Build(String),
}

/// The Message-ID for an outbox key: stable across retries and restarts.
pub fn message_id_for(game: &str, dedup_key: &str, from_addr: &str) -> String {
    let mut h = Sha256::new();
    h.update(game.as_bytes());
    h.update([0]);
    h.update(dedup_key.as_bytes());
    let digest = hex::encode(h.finalize());
    let domain = from_addr.rsplit('@').next().unwrap_or("pbemd.invalid");
    format!("<{}.pbemd@{}>", &digest[..24], domain)
}

/// Format `o` as sent by `from_name <from_addr>` at `date`; the `Date:` header is
/// written in `date`'s zone (the game's).
pub fn compose<Z: TimeZone>(
    o: &Outgoing,
    game: &str,
    from_name: &str,
    from_addr: &str,
    date: DateTime<Z>,
) -> Result<Composed, ComposeError>
where
    Z::Offset: std::fmt::Display,
{
    compose_with(o, &[], game, from_name, from_addr, date)
}

/// [`compose`] with files after the text: with none this is the plain-text mail
/// `compose` writes; with some, a `multipart/mixed` mail whose first part is that
/// same text. The boundary comes from the Message-ID, so the same row always yields
/// the same bytes.
pub fn compose_with<Z: TimeZone>(
    o: &Outgoing,
    attachments: &[Attachment],
    game: &str,
    from_name: &str,
    from_addr: &str,
    date: DateTime<Z>,
) -> Result<Composed, ComposeError>
where
    Z::Offset: std::fmt::Display,
{
    let from_name = header_text(from_name);
    let from = Mailbox::new(
        (!from_name.is_empty()).then_some(from_name),
        from_addr
            .parse()
            .map_err(|_| ComposeError::Address(from_addr.to_string()))?,
    );
    let message_id = message_id_for(game, &o.dedup_key, from_addr);
    let mut b = Message::builder()
        .from(from)
        .subject(header_text(&o.subject))
        .message_id(Some(message_id.clone()))
        .date(std::time::SystemTime::from(date.clone()));
    for to in &o.to {
        b = b.to(to.parse().map_err(|_| ComposeError::Address(to.clone()))?);
    }
    if let Some(parent) = &o.in_reply_to {
        let parent = format!("<{}>", parent.trim_matches(['<', '>']));
        b = b.in_reply_to(parent.clone()).references(parent);
    }
    let msg = if attachments.is_empty() {
        b.header(ContentType::TEXT_PLAIN).body(crlf_body(&o.body))
    } else {
        b.multipart(with_files(&o.body, attachments, &message_id)?)
    }
    .map_err(|e| ComposeError::Build(e.to_string()))?;
    Ok(Composed {
        message_id,
        raw: local_date(msg.formatted(), &date.to_rfc2822()),
    })
}

/// The text as the first part, then each file.
fn with_files(
    body: &str,
    attachments: &[Attachment],
    message_id: &str,
) -> Result<MultiPart, ComposeError> {
    let boundary = format!(
        "pbemd-{}",
        message_id.trim_matches(['<', '>']).replace(['@', '.'], "-")
    );
    let text = SinglePart::builder()
        .header(ContentType::TEXT_PLAIN)
        .body(crlf_body(body));
    let mut parts = MultiPart::mixed().boundary(boundary).singlepart(text);
    for a in attachments {
        let kind = ContentType::parse(&a.content_type).map_err(|_| {
            ComposeError::Build(format!("`{}` is not a media type", a.content_type))
        })?;
        let name = header_text(&a.name);
        parts =
            parts.singlepart(lettre::message::Attachment::new(name).body(a.bytes.clone(), kind));
    }
    Ok(parts)
}

/// The message with its `Date:` header (lettre writes it in UTC) set to `date`.
fn local_date(raw: Vec<u8>, date: &str) -> Vec<u8> {
    let head_end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(raw.len());
    let mut at = 0;
    while at < head_end {
        let end = raw[at..]
            .windows(2)
            .position(|w| w == b"\r\n")
            .map_or(raw.len(), |i| at + i);
        if raw[at..end].starts_with(b"Date: ") {
            let mut out = Vec::with_capacity(raw.len() + 8);
            out.extend_from_slice(&raw[..at]);
            out.extend_from_slice(format!("Date: {date}").as_bytes());
            out.extend_from_slice(&raw[end..]);
            return out;
        }
        at = end + 2;
    }
    raw
}

/// Header text without any control character (a player's subject quoted in a reply,
/// a realm's name): BEL, ESC, CR, LF and the rest never reach a header, where they
/// could add a header or drive the reader's terminal.
fn header_text(s: &str) -> String {
    crate::mail::parse::clean_line(s)
}

/// `body` with CRLF line endings and a final line break, in one pass. (Handed LF
/// lines, lettre inserts each `\r` in place, which is quadratic in the line count.)
fn crlf_body(body: &str) -> String {
    // Whole-string passes (memchr-fast) rather than a char at a time: a Monday form is
    // long, and every form of a weekend passes here.
    let mut out = if body.contains('\r') {
        body.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        body.replace('\n', "\r\n")
    };
    if !out.ends_with('\n') {
        out.push_str("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mail_parser::MimeHeaders;

    fn sample() -> Outgoing {
        Outgoing {
            kind: "refusal",
            dedup_key: "refusal:7".into(),
            to: vec!["afani@game.test".into()],
            subject: "Sändebud från Genogien".into(),
            body: "Hej från Genogien — åäö".into(),
            in_reply_to: Some("orig@player.test".into()),
        }
    }

    #[test]
    fn bodies_get_crlf_line_endings_once() {
        assert_eq!(crlf_body("a\nb\r\nc"), "a\r\nb\r\nc\r\n");
        assert_eq!(crlf_body(""), "\r\n");
        assert_eq!(crlf_body("\n\n"), "\r\n\r\n");
    }

    /// Linearity without a clock: 200,000 short lines compose (a quadratic CRLF
    /// conversion needs minutes for this in a debug build).
    #[test]
    fn many_short_lines_compose_and_decode_back() {
        let t = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let mut o = sample();
        o.body = "rad åäö\n".repeat(200_000);
        let c = compose(&o, "demo", "Spelet", "sl@game.test", t).unwrap();
        let parsed = mail_parser::MessageParser::default().parse(&c.raw).unwrap();
        assert_eq!(parsed.body_text(0).unwrap().lines().count(), 200_000);
    }

    #[test]
    fn the_same_row_always_gets_the_same_message_id() {
        let t = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let a = compose(&sample(), "demo", "Spelet", "sl@game.test", t).unwrap();
        let b = compose(&sample(), "demo", "Spelet", "sl@game.test", t).unwrap();
        assert_eq!(a.message_id, b.message_id);
        assert_eq!(a.raw, b.raw);
        let mut other = sample();
        other.dedup_key = "refusal:8".into();
        assert_ne!(
            compose(&other, "demo", "Spelet", "sl@game.test", t)
                .unwrap()
                .message_id,
            a.message_id
        );
    }

    #[test]
    fn date_header_is_in_the_games_time_zone() {
        let t = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let local = t.with_timezone(&chrono_tz::Europe::Stockholm);
        let c = compose(&sample(), "demo", "Spelet", "sl@game.test", local).unwrap();
        let text = String::from_utf8_lossy(&c.raw);
        // 2027-01-15 08:00 UTC is 09:00 in Stockholm (winter time, +0100).
        assert!(
            text.contains("\r\nDate: Fri, 15 Jan 2027 09:00:00 +0100\r\n"),
            "{text}"
        );
        assert_eq!(text.matches("Date:").count(), 1, "{text}");
        let parsed = mail_parser::MessageParser::default().parse(&c.raw).unwrap();
        assert_eq!(parsed.date().unwrap().to_timestamp(), 1_800_000_000);
    }

    #[test]
    fn control_characters_never_reach_a_header() {
        let t = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let mut o = sample();
        o.subject = "Re: Hej\x07\x1b[2J\u{9b}1m\r\nBcc: x@evil.test\0 slut".into();
        let c = compose(&o, "demo", "Spel\x1b]0;x\x07et", "sl@game.test", t).unwrap();
        let text = String::from_utf8_lossy(&c.raw);
        let head = text.split("\r\n\r\n").next().unwrap();
        assert!(
            !head
                .chars()
                .any(|c| c.is_control() && c != '\r' && c != '\n'),
            "{head:?}"
        );
        let parsed = mail_parser::MessageParser::default().parse(&c.raw).unwrap();
        let subject = parsed.subject().unwrap();
        assert_eq!(subject, "Re: Hej [2J 1m Bcc: x@evil.test slut");
        assert!(parsed.header_raw("Bcc").is_none());
        let name = parsed.from().unwrap().first().unwrap().name().unwrap();
        assert_eq!(name, "Spel ]0;x et");
    }

    #[test]
    fn an_attachment_follows_the_unchanged_text_in_a_mixed_mail() {
        let t = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let png = Attachment {
            name: "karta.png".into(),
            content_type: "image/png".into(),
            bytes: vec![0x89, b'P', b'N', b'G', 0, 1, 2, 255],
        };
        let plain = compose(&sample(), "demo", "Spelet", "sl@game.test", t).unwrap();
        let c = compose_with(
            &sample(),
            std::slice::from_ref(&png),
            "demo",
            "Spelet",
            "sl@game.test",
            t,
        )
        .unwrap();
        let again = compose_with(&sample(), &[png], "demo", "Spelet", "sl@game.test", t).unwrap();
        assert_eq!(c.raw, again.raw, "the same row, the same bytes");
        assert_eq!(c.message_id, plain.message_id);
        let parsed = mail_parser::MessageParser::default().parse(&c.raw).unwrap();
        let head = String::from_utf8_lossy(&c.raw);
        assert!(head.contains("multipart/mixed"), "{head}");
        assert_eq!(
            parsed.body_text(0).unwrap().trim_end(),
            "Hej från Genogien — åäö"
        );
        let a = parsed.attachment(0).unwrap();
        assert_eq!(a.attachment_name(), Some("karta.png"));
        assert_eq!(a.contents(), &[0x89, b'P', b'N', b'G', 0, 1, 2, 255]);
        let ct = a.content_type().unwrap();
        assert_eq!((ct.ctype(), ct.subtype()), ("image", Some("png")));
    }

    #[test]
    fn replies_carry_in_reply_to_and_references_and_decode_back() {
        let t = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let c = compose(&sample(), "demo", "Spelet", "sl@game.test", t).unwrap();
        let text = String::from_utf8_lossy(&c.raw);
        assert!(text.contains("In-Reply-To: <orig@player.test>"), "{text}");
        assert!(text.contains("References: <orig@player.test>"), "{text}");
        let parsed = mail_parser::MessageParser::default().parse(&c.raw).unwrap();
        assert_eq!(parsed.subject(), Some("Sändebud från Genogien"));
        assert_eq!(
            parsed.body_text(0).unwrap().trim_end(),
            "Hej från Genogien — åäö"
        );
    }
}

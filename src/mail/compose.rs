//! Outgoing mail: a plain-text RFC 5322 message from the game's own address, with a
//! Message-ID derived from the outbox key (the same row always yields the same ID) and
//! In-Reply-To/References when it answers a player's mail.

use chrono::{DateTime, TimeZone};
use sha2::{Digest, Sha256};

use super::mime;

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
///
/// Written directly (`mime.rs` holds the encodings): every reply, delivery and Monday
/// form passes here, and a general-purpose builder tried two body encodings per mail.
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
    let (head, checked) = head_of(o, from_name, from_addr, date)?;
    let message_id = message_id_for(game, &o.dedup_key, from_addr);
    let raw = format(
        &Fields {
            head: &head,
            from_addr: &checked.from,
            to: &checked.to,
            subject: &o.subject,
            message_id: &message_id,
            body: &o.body,
        },
        attachments,
    )?;
    Ok(Composed { message_id, raw })
}

/// What a plain mail (no files) is made of beyond the outbox row's own columns (its
/// sender's address, recipients, subject, Message-ID): the outbox keeps this and the
/// text, and formats the mail when it is read ([`format`]), into the very bytes
/// [`compose`] gives at the moment it was queued.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Head {
    /// The sender's display name.
    pub from_name: String,
    /// The `Date:` header's value, fixed when the mail is queued.
    pub date: String,
    /// The Message-ID (without `<>`) of the mail this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_reply_to: Option<String>,
    /// The `Reply-To:` address, checked (see [`REPLY_TO_SENDER`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_to: Option<String>,
}

/// The kinds of mail that carry `Reply-To:` the sender's (the game's) own address: the
/// notices to the GM, whose Reply must come back to the game (a reply to a notice about
/// a realm's mail is the GM's answer to that realm), whatever the GM's mail program
/// does with a mail whose From it also sends from. Kept by kind rather than as a field
/// of [`Outgoing`], which every mail of the game is built as.
pub const REPLY_TO_SENDER: &[&str] = &["gm_notice"];

/// The checked addresses of a mail, as its headers carry them.
struct Checked {
    from: String,
    to: Vec<String>,
}

/// `o`'s [`Head`] as sent by `from_name <from_addr>` at `date`, and its checked
/// addresses (an address that is not one is refused here, when the mail is queued).
fn head_of<Z: TimeZone>(
    o: &Outgoing,
    from_name: &str,
    from_addr: &str,
    date: DateTime<Z>,
) -> Result<(Head, Checked), ComposeError>
where
    Z::Offset: std::fmt::Display,
{
    let checked = Checked {
        from: address(from_addr)?,
        to: o.to.iter().map(|t| address(t)).collect::<Result<_, _>>()?,
    };
    let head = Head {
        from_name: from_name.to_string(),
        date: date.to_rfc2822(),
        in_reply_to: o.in_reply_to.clone(),
        reply_to: REPLY_TO_SENDER
            .contains(&o.kind)
            .then(|| checked.from.clone()),
    };
    Ok((head, checked))
}

/// [`compose`]'s mail kept as its [`Head`] and text instead of its bytes: `None` when
/// the outbox's columns would not give its input back exactly (an address that its
/// check rewrites or that holds the `, ` joining the row's recipients, a NUL the
/// subject column drops), so it is queued formatted.
pub fn head_to_keep<Z: TimeZone>(
    o: &Outgoing,
    from_name: &str,
    from_addr: &str,
    date: DateTime<Z>,
) -> Result<Option<Head>, ComposeError>
where
    Z::Offset: std::fmt::Display,
{
    let (head, checked) = head_of(o, from_name, from_addr, date)?;
    let kept = checked.from == from_addr
        && checked.to == o.to
        && o.to.iter().all(|t| !t.is_empty() && !t.contains(", "))
        && !o.subject.contains('\0');
    Ok(kept.then_some(head))
}

/// Everything a formatted mail is made of.
pub struct Fields<'a> {
    pub head: &'a Head,
    /// The sender's address, checked.
    pub from_addr: &'a str,
    /// The recipients' addresses, checked.
    pub to: &'a [String],
    pub subject: &'a str,
    /// With angle brackets, as in the header.
    pub message_id: &'a str,
    pub body: &'a str,
}

/// The mail of `f`, with files after its text.
pub fn format(f: &Fields<'_>, attachments: &[Attachment]) -> Result<Vec<u8>, ComposeError> {
    let body = crlf_body(f.body);
    let files: usize = attachments
        .iter()
        .map(|a| a.bytes.len() / 3 * 4 + 256)
        .sum();
    let mut out = String::with_capacity(body.len() + body.len() / 4 + files + 640);
    mime::mailbox_header(
        &mut out,
        "From",
        &header_text(&f.head.from_name),
        f.from_addr,
    );
    mime::address_list_header(&mut out, "To", f.to);
    mime::text_header(&mut out, "Subject", &header_text(f.subject));
    mime::raw_header(&mut out, "Message-ID", f.message_id);
    mime::raw_header(&mut out, "Date", &f.head.date);
    if let Some(parent) = &f.head.in_reply_to {
        let parent = format!("<{}>", header_text(parent.trim_matches(['<', '>'])));
        mime::raw_header(&mut out, "In-Reply-To", &parent);
        mime::raw_header(&mut out, "References", &parent);
    }
    if let Some(reply_to) = &f.head.reply_to {
        mime::address_list_header(&mut out, "Reply-To", &[address(reply_to)?]);
    }
    mime::raw_header(&mut out, "MIME-Version", "1.0");
    if attachments.is_empty() {
        mime::text_part(&mut out, &body);
    } else {
        let boundary = format!(
            "pbemd-{}",
            f.message_id
                .trim_matches(['<', '>'])
                .replace(['@', '.'], "-")
        );
        mime::raw_header(
            &mut out,
            "Content-Type",
            &format!("multipart/mixed;\r\n boundary=\"{boundary}\""),
        );
        out.push_str("\r\n");
        out.push_str(&format!("--{boundary}\r\n"));
        mime::text_part(&mut out, &body);
        for a in attachments {
            out.push_str(&format!("\r\n--{boundary}\r\n"));
            mime::file_part(&mut out, a)?;
        }
        out.push_str(&format!("\r\n--{boundary}--\r\n"));
    }
    Ok(out.into_bytes())
}

/// `addr` as a checked mail address (never a display name, never a line break).
fn address(addr: &str) -> Result<String, ComposeError> {
    addr.parse::<lettre::Address>()
        .map(|a| a.to_string())
        .map_err(|_| ComposeError::Address(addr.to_string()))
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

    #[test]
    fn a_notice_to_the_gm_carries_reply_to_the_game_and_other_mail_none() {
        let t = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let mut o = sample();
        let plain = compose(&o, "demo", "Spelet", "sl@game.test", t).unwrap();
        assert!(!String::from_utf8_lossy(&plain.raw).contains("\r\nReply-To:"));
        o.kind = "gm_notice";
        let c = compose(&o, "demo", "Spelet", "sl@game.test", t).unwrap();
        let text = String::from_utf8_lossy(&c.raw);
        assert!(text.contains("\r\nReply-To: sl@game.test\r\n"), "{text}");
        let head = head_to_keep(&o, "Spelet", "sl@game.test", t)
            .unwrap()
            .unwrap();
        assert_eq!(head.reply_to.as_deref(), Some("sl@game.test"));
        let kept = serde_json::to_string(&head).unwrap();
        let back: Head = serde_json::from_str(&kept).unwrap();
        assert_eq!(back, head, "kept in the outbox row and read back");
        let old: Head = serde_json::from_str(r#"{"from_name":"S","date":"d"}"#).unwrap();
        assert_eq!(old.reply_to, None, "a row queued before keeps reading");
    }

    fn parsed(raw: &[u8]) -> mail_parser::Message<'_> {
        mail_parser::MessageParser::default().parse(raw).unwrap()
    }

    fn with(subject: &str, name: &str, body: &str) -> Composed {
        let t = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let mut o = sample();
        o.subject = subject.into();
        o.body = body.into();
        compose(&o, "demo", name, "sl@game.test", t).unwrap()
    }

    fn header_of(c: &Composed) -> String {
        let text = String::from_utf8_lossy(&c.raw).into_owned();
        text.split("\r\n\r\n").next().unwrap().to_string()
    }

    #[test]
    fn short_ascii_text_goes_as_7bit_and_swedish_as_quoted_printable() {
        let plain = with("Hello", "Spelet", "Your envoy went out.\nRound 4.");
        assert!(header_of(&plain).contains("Content-Transfer-Encoding: 7bit"));
        assert!(String::from_utf8_lossy(&plain.raw)
            .ends_with("\r\n\r\nYour envoy went out.\r\nRound 4.\r\n"));
        let swedish = with("Hej", "Spelet", "Sändebud från Genogien");
        assert!(header_of(&swedish).contains("Content-Transfer-Encoding: quoted-printable"));
        assert!(String::from_utf8_lossy(&swedish.raw).contains("S=C3=A4ndebud fr=C3=A5n Genogien"));
    }

    #[test]
    fn a_long_subject_is_folded_and_decodes_to_the_same_text() {
        let subject = "Re: Genogien skickar ett sändebud till Afani om handel med järn och timmer längs hela gränsen i norr";
        let c = with(subject, "Spelet", "x");
        for line in header_of(&c).split("\r\n") {
            assert!(line.len() <= 78, "{line:?}");
        }
        assert_eq!(parsed(&c.raw).subject(), Some(subject));
        let ascii = "Re: Genogien sends an envoy to Afani about trade in iron and timber along the whole northern border";
        let c = with(ascii, "Spelet", "x");
        assert!(
            header_of(&c).contains("Subject: Re: Genogien"),
            "plain ASCII stays readable"
        );
        assert_eq!(parsed(&c.raw).subject(), Some(ascii));
    }

    #[test]
    fn a_subject_that_looks_like_an_encoded_word_stays_literal() {
        let subject = "Re: =?utf-8?b?SGVq?= and =?x?q?y?=";
        let c = with(subject, "Spelet", "x");
        assert_eq!(parsed(&c.raw).subject(), Some(subject));
    }

    #[test]
    fn display_names_are_quoted_or_encoded_as_they_need() {
        for name in [
            "Spelet",
            "Spelet \"VSS\" (SL)",
            "Världsstrategispelet",
            "a\\b",
            "=?utf-8?b?SGVq?=",
        ] {
            let c = with("x", name, "x");
            let p = parsed(&c.raw);
            let from = p.from().unwrap().first().unwrap();
            assert_eq!(from.name(), Some(name), "{}", header_of(&c));
            assert_eq!(from.address(), Some("sl@game.test"));
        }
    }

    #[test]
    fn a_long_unbroken_line_is_broken_softly_and_decodes_whole() {
        let body = format!("{}\n{}", "å".repeat(500), "x".repeat(300));
        let c = with("x", "Spelet", &body);
        let raw = String::from_utf8_lossy(&c.raw).into_owned();
        for line in raw.split("\r\n") {
            assert!(line.len() <= 78, "{line:?}");
        }
        let text = parsed(&c.raw).body_text(0).unwrap().replace("\r\n", "\n");
        assert_eq!(text.trim_end(), body);
    }

    /// The sample with one file of this name and type.
    fn with_file(name: &str, content_type: &str, bytes: Vec<u8>) -> Result<Composed, ComposeError> {
        let t = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let file = Attachment {
            name: name.into(),
            content_type: content_type.into(),
            bytes,
        };
        compose_with(&sample(), &[file], "demo", "Spelet", "sl@game.test", t)
    }

    #[test]
    fn an_attachment_with_a_swedish_name_keeps_it() {
        let c = with_file("kärta över Afani.png", "image/png", (0..=255).collect()).unwrap();
        let p = parsed(&c.raw);
        let a = p.attachment(0).unwrap();
        assert_eq!(a.attachment_name(), Some("kärta över Afani.png"));
        assert_eq!(a.contents(), (0..=255).collect::<Vec<u8>>().as_slice());
    }

    #[test]
    fn a_file_whose_type_is_not_a_media_type_is_refused() {
        let e = with_file("k.png", "image/png\r\nBcc: x@evil.test", vec![1]);
        assert!(matches!(e, Err(ComposeError::Build(_))), "{e:?}");
    }

    #[test]
    fn an_address_that_is_not_one_is_refused() {
        let t = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let mut o = sample();
        o.to = vec!["afani@game.test\r\nBcc: x@evil.test".into()];
        let e = compose(&o, "demo", "Spelet", "sl@game.test", t);
        assert!(matches!(e, Err(ComposeError::Address(_))), "{e:?}");
    }

    proptest::proptest! {
        /// Whatever the subject, sender name and text, the mail reads back as written,
        /// and no line of it is longer than the 998 characters a mail may carry.
        #[test]
        fn any_subject_name_and_text_read_back_as_written(
            subject in "[ a-zA-Zåäö=?_.:-]{0,200}",
            name in "[ a-zA-Zåäö\"()<>,@]{0,40}",
            body in "([ a-zA-Zåäö=.\t]{0,120}\n){0,8}[ a-zA-Zåäö=.]{0,300}",
        ) {
            let c = with(&subject, &name, &body);
            let raw = String::from_utf8(c.raw.clone()).unwrap();
            for line in raw.split("\r\n") {
                proptest::prop_assert!(line.len() <= 998, "{:?}", line);
            }
            let p = parsed(&c.raw);
            let want_subject = header_text(&subject);
            let want_subject = want_subject.trim();
            proptest::prop_assert_eq!(p.subject().unwrap_or("").trim(), want_subject);
            let want_name = header_text(&name);
            let want_name = want_name.trim();
            let got_name = p.from().unwrap().first().unwrap().name().unwrap_or("").trim().to_string();
            proptest::prop_assert_eq!(got_name.as_str(), want_name);
            let text = p.body_text(0).unwrap_or_default().replace("\r\n", "\n");
            proptest::prop_assert_eq!(text.trim_end(), body.trim_end());
        }
    }
}

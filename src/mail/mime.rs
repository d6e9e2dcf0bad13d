//! The encodings an outgoing mail needs, written for our one shape of mail (plain text,
//! perhaps with files after it): header lines kept under 78 characters where they can
//! be, RFC 2047 encoded words for text that is not ASCII, quoted-printable or 7bit
//! bodies, base64 files. Each is one pass over its input.

use base64::Engine as _;

use super::compose::{Attachment, ComposeError};

/// How long a header or body line may grow before it is folded or broken (RFC 5322
/// recommends 78; quoted-printable allows 76).
const FOLD_AT: usize = 76;
/// Bytes of text in one encoded word: `=?utf-8?b?` + base64 of 39 bytes + `?=` is 64
/// characters, which leaves room for the header's name on the first line.
const WORD_BYTES: usize = 39;
/// A word longer than this cannot be folded into a legal header line (998).
const LONGEST_WORD: usize = 900;

/// `Name: value` as it is (a Message-ID, a date, a fixed value).
pub fn raw_header(out: &mut String, name: &str, value: &str) {
    out.push_str(name);
    out.push_str(": ");
    out.push_str(value);
    out.push_str("\r\n");
}

/// `Name: Display Name <addr>`, the name quoted or encoded as it needs.
pub fn mailbox_header(out: &mut String, name: &str, display: &str, addr: &str) {
    out.push_str(name);
    out.push_str(": ");
    if !display.is_empty() {
        // As in a subject: a name that looks like an encoded word is encoded.
        if display.contains("=?") {
            encoded_words(out, display);
        } else if display.bytes().all(is_atom_or_space) {
            out.push_str(display);
        } else if display.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            out.push('"');
            for c in display.chars() {
                if c == '"' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        } else {
            encoded_words(out, display);
        }
        out.push(' ');
    }
    out.push('<');
    out.push_str(addr);
    out.push_str(">\r\n");
}

/// `Name: a, b, …`, one address a line after the first.
pub fn address_list_header(out: &mut String, name: &str, addrs: &[String]) {
    out.push_str(name);
    out.push_str(": ");
    for (i, a) in addrs.iter().enumerate() {
        if i > 0 {
            out.push_str(",\r\n ");
        }
        out.push_str(a);
    }
    out.push_str("\r\n");
}

/// `Name: text` for unstructured text (a subject): folded at spaces when it is ASCII,
/// encoded words when it is not (or has a word too long to fold).
pub fn text_header(out: &mut String, name: &str, text: &str) {
    out.push_str(name);
    out.push_str(": ");
    let printable = text.bytes().all(|b| (0x20..0x7f).contains(&b));
    let foldable = text.split(' ').all(|w| w.len() <= LONGEST_WORD);
    // A text that looks like an encoded word would be decoded by the reader: encode it.
    if printable && foldable && !text.contains("=?") {
        let mut line = name.len() + 2;
        for (i, word) in text.split(' ').enumerate() {
            if i > 0 {
                if line + 1 + word.len() > FOLD_AT && line > name.len() + 2 {
                    out.push_str("\r\n");
                    line = 0;
                }
                out.push(' ');
                line += 1;
            }
            out.push_str(word);
            line += word.len();
        }
    } else {
        encoded_words(out, text);
    }
    out.push_str("\r\n");
}

/// `text` as RFC 2047 base64 encoded words, each at most 39 bytes of whole characters,
/// one a line (readers join adjacent encoded words without the space between them).
fn encoded_words(out: &mut String, text: &str) {
    let mut rest = text;
    let mut first = true;
    while !rest.is_empty() {
        let mut cut = rest.len().min(WORD_BYTES);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        if !first {
            out.push_str("\r\n ");
        }
        first = false;
        out.push_str("=?utf-8?b?");
        base64::engine::general_purpose::STANDARD.encode_string(&rest[..cut], out);
        out.push_str("?=");
        rest = &rest[cut..];
    }
}

/// RFC 5322 atext and spaces: a display name of these needs no quotes.
fn is_atom_or_space(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b" !#$%&'*+-/=?^_`{|}~".contains(&b)
}

/// The text part's headers, a blank line and `body` (CRLF lines, ending in CRLF):
/// 7bit when every line is short printable ASCII, quoted-printable otherwise.
pub fn text_part(out: &mut String, body: &str) {
    out.push_str("Content-Type: text/plain; charset=utf-8\r\n");
    if is_7bit(body) {
        out.push_str("Content-Transfer-Encoding: 7bit\r\n\r\n");
        out.push_str(body);
    } else {
        out.push_str("Content-Transfer-Encoding: quoted-printable\r\n\r\n");
        quoted_printable(out, body);
    }
}

/// Printable ASCII and tabs in CRLF lines of at most 76 characters, and no line that
/// ends in white space (some relays strip it).
fn is_7bit(body: &str) -> bool {
    body.split("\r\n").all(|line| {
        line.len() <= FOLD_AT
            && line
                .bytes()
                .all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
            && !line.ends_with([' ', '\t'])
    })
}

/// `body` (CRLF lines) quoted-printable: CRLF stays a hard line break, every other
/// line is broken softly before it grows past 76 characters.
fn quoted_printable(out: &mut String, body: &str) {
    let mut lines = body.split("\r\n").peekable();
    while let Some(line) = lines.next() {
        quoted_printable_line(out, line);
        if lines.peek().is_some() {
            out.push_str("\r\n");
        }
    }
}

/// One line of [`quoted_printable`]. Runs of bytes that stay as they are (ASCII, so
/// they begin and end on character boundaries) are copied whole.
fn quoted_printable_line(out: &mut String, line: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = line.as_bytes();
    let mut width = 0;
    // The start of the run of literal bytes not yet copied.
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let last = i + 1 == bytes.len();
        let literal = (b == b' ' || b == b'\t') && !last || (0x21..0x7f).contains(&b) && b != b'=';
        let need = if literal { 1 } else { 3 };
        // Room for the soft break's `=` after this token, unless the line ends here.
        let room = if last { FOLD_AT } else { FOLD_AT - 1 };
        if width + need > room {
            copy_run(out, line, run, i);
            run = i;
            out.push_str("=\r\n");
            width = 0;
        }
        if !literal {
            copy_run(out, line, run, i);
            out.push('=');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
            // Past a byte of a longer character: `run` stays off the string's
            // character boundaries only until the character's last byte.
            run = i + 1;
        }
        width += need;
    }
    copy_run(out, line, run, bytes.len());
}

/// Copy `line[from..to]`, a run of literal ASCII bytes, unless it is empty (then
/// `from` may sit inside a character).
fn copy_run(out: &mut String, line: &str, from: usize, to: usize) {
    if from < to {
        out.push_str(&line[from..to]);
    }
}

/// A file's part: its type, its name (RFC 2231 when not plain ASCII), base64 lines.
pub fn file_part(out: &mut String, a: &Attachment) -> Result<(), ComposeError> {
    if !is_media_type(&a.content_type) {
        return Err(ComposeError::Build(format!(
            "`{}` is not a media type",
            a.content_type
        )));
    }
    raw_header(out, "Content-Type", &a.content_type);
    out.push_str("Content-Disposition: attachment;\r\n filename");
    let name = crate::mail::parse::clean_line(&a.name);
    if name
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        out.push_str("=\"");
        out.push_str(&name);
        out.push('"');
    } else {
        out.push_str("*=utf-8''");
        for b in name.bytes() {
            if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out.push_str("\r\nContent-Transfer-Encoding: base64\r\n\r\n");
    let encoded = base64::engine::general_purpose::STANDARD.encode(&a.bytes);
    let mut rest = encoded.as_str();
    while !rest.is_empty() {
        let (line, tail) = rest.split_at(rest.len().min(FOLD_AT));
        out.push_str(line);
        out.push_str("\r\n");
        rest = tail;
    }
    Ok(())
}

/// `type/subtype`, both RFC 2045 tokens.
fn is_media_type(s: &str) -> bool {
    let token = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| (0x21..0x7f).contains(&b) && !b"()<>@,;:\\\"/[]?=".contains(&b))
    };
    matches!(s.split_once('/'), Some((t, sub)) if token(t) && token(sub))
}

//! Finding the orders section in a reply, whatever the mail client did:
//! `>` quoting at any depth, top- or bottom-posting, inline replies inside
//! the quoted form, HTML already converted to text, a `.txt` attachment,
//! lost markers, signatures. Pure text in, numbered lines out; parsing the
//! lines is `grammar`'s job.
//!
//! Precedence (first that yields anything wins):
//! 1. unquoted marker sections of the body with content;
//! 2. unquoted lines written inside a quoted marker pair (inline reply);
//! 3. unquoted marker sections of an attachment with content;
//! 4. markers lost: unquoted body lines, then attachment lines, that parse
//!    as orders, or (when no unquoted marker is there at all) start with an
//!    order keyword, so a mistyped order is refused, not dropped;
//! 5. the least-quoted marker section with content (a forwarded filled-in
//!    form).
//!
//! A line `INGA ORDRAR` / `NO ORDERS` (any case, diacritics optional) is
//! an explicit empty form: it is taken out of the lines and sets
//! `no_orders`, so an empty form can replace an earlier one on purpose.
//!
//! A quoted old form is never read while anything fresh exists, and the
//! untouched Monday form has no content lines (only `#` lines), so it
//! yields nothing. Signatures (`-- ` to the next quoted line) and text
//! after an "Original Message" / "… wrote:" separator count as quoted.

use serde::{Deserialize, Serialize};

use super::check::MAX_ORDER_LINES;
use super::grammar::{is_ignorable, parse_line, OrderKind};
use crate::game::text::fold;

/// The start marker line of the orders section (as in the template).
pub const START_MARKER: &str = "=== ORDRAR / ORDERS: skriv nedanför denna rad ===";
/// The end marker line.
pub const END_MARKER: &str = "=== SLUT PÅ ORDRAR / END OF ORDERS ===";

/// Where the extracted lines came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Nothing found.
    #[default]
    Nothing,
    /// Between the markers, unquoted, in the body.
    BodySection,
    /// Typed unquoted inside a quoted form's section.
    InlineReply,
    /// Between the markers in attachment number `n` (0-based).
    Attachment(usize),
    /// No markers: the body lines that parse as orders.
    BodyWithoutMarkers,
    /// No markers: attachment lines that parse as orders.
    AttachmentWithoutMarkers(usize),
    /// A quoted (forwarded) section with content, nothing fresher.
    QuotedSection,
}

/// The order lines of a reply: `(line number in its source, 1-based;
/// text without quote marks)`, blank and `#` lines already dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Extracted {
    pub lines: Vec<(usize, String)>,
    pub markers_found: bool,
    pub source: Source,
    /// A line `INGA ORDRAR` / `NO ORDERS` was found among the lines.
    #[serde(default)]
    pub no_orders: bool,
}

#[derive(Debug, Clone)]
struct Line {
    no: usize,
    depth: usize,
    text: String,
    /// The line's marker, found once (extraction asks often).
    marker: Option<Marker>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Start,
    End,
}

/// No marker line, however decorated, is longer than this many bytes; a longer line
/// is not folded to look for one.
const MARKER_MAX_BYTES: usize = 256;

fn marker(text: &str) -> Option<Marker> {
    if text.len() > MARKER_MAX_BYTES {
        return None;
    }
    let f: String = fold(text)
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '/')
        .collect();
    if f.contains("ordrar/orders") {
        Some(Marker::Start)
    } else if f.contains("slutpaordrar") || f.contains("endoforders") {
        Some(Marker::End)
    } else {
        None
    }
}

fn is_separator(text: &str) -> bool {
    // Reply separators are short lines too (see MARKER_MAX_BYTES).
    if text.len() > MARKER_MAX_BYTES {
        return false;
    }
    let t = fold(text.trim());
    let t = t.trim_matches('-').trim();
    t == "original message"
        || t == "ursprungligt meddelande"
        || t == "forwarded message"
        || t == "vidarebefordrat meddelande"
        || ((t.starts_with("on ") || t.starts_with("den ") || t.starts_with("am "))
            && (t.ends_with("wrote:") || t.ends_with("skrev:") || t.ends_with("schrieb:")))
}

/// Split into lines with their quote depth; signature and text after a
/// reply separator are pushed one level down (treated as quoted).
fn lines_of(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut in_sig = false;
    let mut after_sep = false;
    let raws: Vec<String> = text.lines().map(|l| l.replace('\u{a0}', " ")).collect();
    let next_quoted = next_line_quoted(&raws);
    for (i, raw) in raws.iter().enumerate() {
        let mut rest = raw.trim_start_matches('\u{feff}');
        let mut depth = 0;
        loop {
            let t = rest.trim_start();
            if let Some(r) = t.strip_prefix('>') {
                depth += 1;
                rest = r;
            } else {
                rest = if depth > 0 { t } else { rest };
                break;
            }
        }
        let body = rest.trim_end().to_string();
        if depth == 0 && !after_sep {
            if raw.trim_end() == "--" || raw == "-- " {
                in_sig = true;
            }
            // An attribution line followed by `>` quoting is only a label
            // (the quote marks already say what is old): fresh text may
            // follow the quote (bottom-posting).
            if is_separator(&body) && !next_quoted[i] {
                after_sep = true;
            }
        } else if depth > 0 {
            in_sig = false;
        }
        let extra = usize::from(in_sig || after_sep);
        out.push(Line {
            no: i + 1,
            depth: depth + extra,
            marker: marker(&body),
            text: body,
        });
    }
    out
}

/// For each line: whether the next non-blank line after it is `>` quoted. One pass
/// from the end, so a mail of many blank lines stays linear.
fn next_line_quoted(raws: &[String]) -> Vec<bool> {
    let mut out = vec![false; raws.len()];
    let mut quoted = false;
    for (i, l) in raws.iter().enumerate().rev() {
        out[i] = quoted;
        if !l.trim().is_empty() {
            quoted = l.trim_start().starts_with('>');
        }
    }
    out
}

/// `(depth, start index, end index exclusive)` of every marker pair.
fn sections(lines: &[Line]) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].marker == Some(Marker::Start) {
            let d = lines[i].depth;
            let end = (i + 1..lines.len())
                .find(|&j| lines[j].depth == d && lines[j].marker.is_some())
                .unwrap_or(lines.len());
            out.push((d, i + 1, end));
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

fn content(lines: &[Line], from: usize, to: usize, depth: usize) -> Vec<(usize, String)> {
    lines[from..to]
        .iter()
        .filter(|l| l.depth == depth && !is_ignorable(&l.text) && l.marker.is_none())
        .map(|l| (l.no, l.text.trim().to_string()))
        .collect()
}

fn marked(lines: &[Line]) -> Vec<(usize, String)> {
    sections(lines)
        .into_iter()
        .filter(|s| s.0 == 0)
        .flat_map(|(_, a, b)| content(lines, a, b, 0))
        .collect()
}

/// Without markers: a line that parses, or that starts with an order
/// keyword (so a mistyped order is refused with a reason, not dropped).
fn looks_like_order(text: &str) -> bool {
    parse_line(text, None).is_ok()
        || text
            .split_whitespace()
            .next()
            .is_some_and(|w| OrderKind::from_keyword(w.trim_end_matches(':')).is_some())
}

/// `INGA ORDRAR` / `NO ORDERS`: the explicit empty form.
pub fn says_no_orders(text: &str) -> bool {
    if text.len() > 40 {
        return false;
    }
    let words: Vec<String> = fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    words == ["inga", "ordrar"] || words == ["no", "orders"]
}

/// Markers lost: the unquoted lines that parse as orders. When no unquoted
/// marker is in sight at all, keyword-led lines count too; next to an
/// unquoted form (markers present, section empty) only real orders do, so
/// the form's own prose ("Anfall och försvar …") is never read.
fn parsing(lines: &[Line]) -> Vec<(usize, String)> {
    let lenient = !lines.iter().any(|l| l.depth == 0 && l.marker.is_some());
    lines
        .iter()
        .filter(|l| {
            l.depth == 0
                && !is_ignorable(&l.text)
                && if lenient {
                    looks_like_order(&l.text) || says_no_orders(&l.text)
                } else {
                    parse_line(&l.text, None).is_ok() || says_no_orders(&l.text)
                }
        })
        .map(|l| (l.no, l.text.trim().to_string()))
        // Past the bound nothing more is read (`check` refuses the first line beyond).
        .take(MAX_ORDER_LINES + 1)
        .collect()
}

/// Find the orders in a reply body and its text attachments.
pub fn extract_orders(text: &str, attachments: &[&str]) -> Extracted {
    let body = lines_of(text);
    let atts: Vec<Vec<Line>> = attachments.iter().map(|a| lines_of(a)).collect();
    let any_markers = body
        .iter()
        .chain(atts.iter().flatten())
        .any(|l| l.marker.is_some());
    let found = |mut lines: Vec<(usize, String)>, source: Source| {
        let before = lines.len();
        lines.retain(|(_, t)| !says_no_orders(t));
        Extracted {
            no_orders: lines.len() < before,
            lines,
            markers_found: any_markers,
            source,
        }
    };

    let v = marked(&body);
    if !v.is_empty() {
        return found(v, Source::BodySection);
    }
    let inline: Vec<(usize, String)> = sections(&body)
        .into_iter()
        .filter(|s| s.0 > 0)
        .flat_map(|(_, a, b)| content(&body, a, b, 0))
        .collect();
    if !inline.is_empty() {
        return found(inline, Source::InlineReply);
    }
    for (n, a) in atts.iter().enumerate() {
        let v = marked(a);
        if !v.is_empty() {
            return found(v, Source::Attachment(n));
        }
    }
    let v = parsing(&body);
    if !v.is_empty() {
        return found(v, Source::BodyWithoutMarkers);
    }
    for (n, a) in atts.iter().enumerate() {
        let v = parsing(a);
        if !v.is_empty() {
            return found(v, Source::AttachmentWithoutMarkers(n));
        }
    }
    let mut quoted: Vec<(usize, usize, usize)> =
        sections(&body).into_iter().filter(|s| s.0 > 0).collect();
    quoted.sort_by_key(|s| s.0);
    for (d, a, b) in quoted {
        let v = content(&body, a, b, d);
        if !v.is_empty() {
            return found(v, Source::QuotedSection);
        }
    }
    found(Vec::new(), Source::Nothing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inga_ordrar_or_no_orders_is_an_explicit_empty_form() {
        for text in [
            "INGA ORDRAR",
            "inga ordrar.",
            "No orders",
            "  NO  ORDERS!  ",
            &format!("{START_MARKER}\nINGA ORDRAR\n{END_MARKER}\n"),
            &format!("Hej!\n{START_MARKER}\nno orders\n{END_MARKER}\n-- \nBo"),
        ] {
            let ex = extract_orders(text, &[]);
            assert!(ex.lines.is_empty(), "{text:?}: {ex:?}");
            assert!(ex.no_orders, "{text:?}: {ex:?}");
        }
        let ex = extract_orders("Thanks, no orders from me? Maybe later.", &[]);
        assert!(!ex.no_orders, "prose is not the explicit line: {ex:?}");
        let ex = extract_orders("", &["INGA ORDRAR\n"]);
        assert!(ex.no_orders, "in an attachment too: {ex:?}");
        let ex = extract_orders("> INGA ORDRAR\n", &[]);
        assert!(!ex.no_orders, "a quoted line is old text: {ex:?}");
    }

    #[test]
    fn orders_next_to_inga_ordrar_still_count() {
        let ex = extract_orders("KÖP 1 spion\nINGA ORDRAR\n", &[]);
        assert_eq!(ex.lines, vec![(1, "KÖP 1 spion".to_string())]);
    }
}

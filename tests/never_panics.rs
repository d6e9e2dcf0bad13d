//! Every player-facing parser takes arbitrary input without panicking: the subject
//! grammar, the order grammar, form extraction, HTML-to-text and raw mail parsing.
//! Generated inputs mix the grammar's own words with arbitrary text; a failing case is
//! written by proptest to a `proptest-regressions` file, committed and re-run first.

use pbemd::forms::extract::{extract_orders, END_MARKER, START_MARKER};
use pbemd::forms::grammar::{parse_line, MAX_LINE_CHARS};
use pbemd::mail::parse::parse_inbound;
use pbemd::mail::subject::parse_subject;
use proptest::prelude::*;

const REALMS: &[&str] = &["Genogien", "Afani", "Östvik", "Mirandel", "Ondskan"];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "Re:",
            "SV:",
            "Fwd:",
            "skickar",
            "sends",
            "ett",
            "en",
            "a",
            "sändebud",
            "envoy",
            "handelsman",
            "merchant",
            "spion",
            "spy",
            "till",
            "to",
            "SL",
            "GM",
            ":",
            "formulär",
            "form",
            "Genogien",
            "Afani",
            "Östvik",
            "östvik",
            "Mirandel",
            "KÖP",
            "BUY",
            "FLYTTA",
            "MOVE",
            "ANFALL",
            "FORMEL",
            "BUD",
            "RÖST",
            "VÄN",
            "armé",
            "flotta",
            "5",
            "99999999999",
            "lätt",
            "infanteri",
            "mat",
            "guld",
            "K12",
            "I1",
            ">",
            ">>",
            "--",
            "#",
            "\u{130}",
            "\u{212A}",
            "\u{a0}",
            "\u{feff}",
        ])
        .prop_map(str::to_string),
        ".{0,12}",
    ]
}

fn phrase() -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 0..12).prop_map(|w| w.join(" "))
}

fn text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        phrase(),
        Just(START_MARKER.to_string()),
        Just(END_MARKER.to_string()),
        phrase().prop_map(|p| format!("> {p}")),
        Just("On Mon, Bo wrote:".to_string()),
        Just(String::new()),
    ];
    prop::collection::vec(line, 0..16).prop_map(|v| v.join("\n"))
}

fn html() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        phrase(),
        prop::sample::select(vec![
            "<div>",
            "</div>",
            "<p>",
            "</p>",
            "<br>",
            "<br/>",
            "<b>",
            "&amp;",
            "&lt;",
            "&#x130;",
            "&#99999999;",
            "<!--",
            "-->",
            "<script>",
            "</script>",
            "<style>",
            "<",
            ">",
            "&",
            "<table><tr><td>",
            "</td></tr></table>",
        ])
        .prop_map(str::to_string),
    ];
    prop::collection::vec(piece, 0..30).prop_map(|v| v.concat())
}

fn html_mail(body: &str) -> Vec<u8> {
    format!(
        "From: genogien@game.test\r\nSubject: Genogien formulär\r\nMIME-Version: 1.0\r\n\
Content-Type: text/html; charset=utf-8\r\n\r\n{body}\r\n"
    )
    .into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn subject_grammar_never_panics(s in prop_oneof![phrase(), ".{0,80}"]) {
        let _ = parse_subject(&s, REALMS);
    }

    #[test]
    fn order_grammar_never_panics(s in prop_oneof![phrase(), ".{0,80}"]) {
        let _ = parse_line(&s, None);
    }

    #[test]
    fn form_extraction_never_panics(body in text(), att in text()) {
        let e = extract_orders(&body, &[att.as_str()]);
        for (_, line) in &e.lines {
            let _ = parse_line(line, None);
        }
    }

    #[test]
    fn html_to_text_never_panics(body in html()) {
        let _ = parse_inbound(&html_mail(&body));
    }

    #[test]
    fn raw_mail_parsing_never_panics(raw in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = parse_inbound(&raw);
    }
}

#[test]
fn an_order_line_longer_than_the_bound_is_refused_quoting_its_start() {
    let line = format!("KÖP 5 lätt infanteri {}", "x".repeat(MAX_LINE_CHARS));
    let e = parse_line(&line, None).unwrap_err();
    let sv = e.message(pbemd::game::Lang::Sv);
    assert!(sv.starts_with("«KÖP 5 lätt infanteri xxx"), "{sv}");
    assert!(sv.contains("längre än 1000 tecken"), "{sv}");
    assert!(
        sv.len() < 400,
        "the quote is only the start: {} bytes",
        sv.len()
    );
    let en = e.message(pbemd::game::Lang::En);
    assert!(en.contains("longer than 1000 characters"), "{en}");
    let at_bound = format!("KÖP 5 lätt infanteri{}", " ".repeat(MAX_LINE_CHARS - 20));
    assert!(
        parse_line(&at_bound, None).is_ok(),
        "trailing spaces are trimmed"
    );
}

/// Counts on the form are bounded by the grammar (1 to 100,000), so no sum of them can
/// wrap: a larger count, or one too large for any integer, is refused with the number
/// quoted, in both languages.
#[test]
fn a_count_that_would_overflow_is_refused_by_the_order_grammar() {
    for line in [
        "KÖP 4294967295 lätt infanteri",
        "KÖP 99999999999999999999 lätt infanteri",
        "BUD 4294967295 guld 4294967295 guld",
    ] {
        let e = parse_line(line, None).unwrap_err();
        let sv = e.message(pbemd::game::Lang::Sv);
        let en = e.message(pbemd::game::Lang::En);
        let number = line.split_whitespace().nth(1).unwrap();
        assert!(sv.contains(&format!("`{number}`")), "{sv}");
        assert!(en.contains(&format!("`{number}`")), "{en}");
    }
}

/// A form of many order lines is read only to the bound (plus the first line past it,
/// which the check refuses), so a hostile form costs no more than a long real one.
#[test]
fn form_extraction_stops_one_line_past_the_order_line_bound() {
    use pbemd::forms::check::MAX_ORDER_LINES;
    let body = "KÖP 1 mat\n".repeat(3 * MAX_ORDER_LINES);
    let e = extract_orders(&body, &[]);
    assert_eq!(e.lines.len(), MAX_ORDER_LINES + 1);
    let marked = format!("{START_MARKER}\n{body}{END_MARKER}\n");
    assert!(extract_orders(&marked, &[]).lines.len() > MAX_ORDER_LINES);
}

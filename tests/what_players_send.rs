//! Mail as players really send it, hostile or clumsy: NUL bytes in every part of a
//! mail (on SQLite and PostgreSQL), headers that name more than one author, control
//! characters, HTML-only forms from common mail clients, forms without orders and
//! forms answering an old round.

mod common;

use common::{at, Game};
use pbemd::store::messages;

// Tuesday 24 November 2026 is inside the weekday window; Saturday 28 inside the weekend.
const TUESDAY: &str = "2026-11-24T09:00:00+01:00";
const SATURDAY: &str = "2026-11-28T10:00:00+01:00";

/// A fresh game on SQLite, or on a new PostgreSQL database when `pg` (None when no
/// server is configured and skipping is allowed).
async fn game_on(pg: bool, start: &str) -> Option<Game> {
    let dir = tempfile::tempdir().expect("temp dir");
    let cfg = pbemd::app::setup::new_game_dir(&dir.path().join("g"), None).expect("new game");
    if pg {
        let url = pg_database().await?;
        let text = std::fs::read_to_string(&cfg).unwrap();
        let text: Vec<String> = text
            .lines()
            .map(|l| {
                if l.starts_with("database:") {
                    format!("database: {url}")
                } else {
                    l.to_string()
                }
            })
            .collect();
        std::fs::write(&cfg, text.join("\n") + "\n").unwrap();
    }
    Some(Game::open_at(dir, &cfg, start, true).await)
}

/// The URL of a new, empty PostgreSQL database.
async fn pg_database() -> Option<String> {
    let Ok(admin) = std::env::var("PBEMD_TEST_PG_URL") else {
        common::missing("PostgreSQL (PBEMD_TEST_PG_URL)");
        return None;
    };
    let name = format!(
        "pbemd_h3_{}_{}",
        std::process::id(),
        chrono::Utc::now().timestamp_micros()
    );
    sqlx::any::install_default_drivers();
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&admin)
        .await
        .expect("connect to PBEMD_TEST_PG_URL");
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("create test database");
    let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
    Some(format!("{base}/{name}"))
}

/// A raw mail with the given header lines (CRLF added) and body bytes.
fn raw(headers: &[&[u8]], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for h in headers {
        out.extend_from_slice(h);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n");
    out.extend_from_slice(body);
    out.extend_from_slice(b"\r\n");
    out
}

async fn all_messages(g: &Game) -> Vec<messages::Message> {
    let mut c = g.app.store.conn().await.unwrap();
    messages::all(&mut c).await.unwrap()
}

async fn nul_bytes_in_every_part_of_a_mail_never_stop_tick(pg: bool) {
    let Some(g) = game_on(pg, TUESDAY).await else {
        return;
    };
    let weekday: Vec<Vec<u8>> = vec![
        // NUL in the raw subject and, encoded, in an RFC 2047 subject.
        raw(
            &[
                b"From: genogien@game.test",
                b"Subject: Genogien skickar\0 ett s\xc3\xa4ndebud till Afani",
                b"Message-ID: <n1@p.test>",
            ],
            b"hej",
        ),
        raw(
            &[
                b"From: genogien@game.test",
                b"Subject: =?UTF-8?Q?Genogien_skickar_ett_s=C3=A4ndebud_till_Afani=00?=",
                b"Message-ID: <n2@p.test>",
            ],
            b"hej igen",
        ),
        // NUL in the body of an envoy that is delivered to another realm.
        raw(
            &[
                b"From: genogien@game.test",
                b"Subject: Genogien skickar ett s\xc3\xa4ndebud till Kaldor",
                b"Message-ID: <n3@p.test>",
            ],
            b"Fred\0 vid gr\xc3\xa4nsen\0!",
        ),
        // NUL in the From display name, in an unknown sender's address and in other
        // header values (Message-ID, an X- header, References).
        raw(
            &[
                b"From: \"Kung\0 Gorm\" <genogien@game.test>",
                b"Subject: Genogien skickar ett s\xc3\xa4ndebud till Fugandri",
                b"Message-ID: <n4\0@p.test>",
                b"X-Note: a\0b",
                b"References: <r\0@p.test>",
            ],
            b"hej",
        ),
        raw(
            &[
                b"From: \"=?UTF-8?Q?N=00N?=\" <stranger\0@elsewhere.test>",
                b"Subject: hello\0",
                b"Message-ID: <n5@p.test>",
            ],
            b"who\0 am I",
        ),
    ];
    for m in &weekday {
        g.drop_raw(m);
    }
    // Not a mail at all, NUL bytes first: kept for the GM with its start quoted.
    g.drop_raw(b"\0\0hello\0 no header here\r\n");
    let r = g.tick("2026-11-24T10:00:00+01:00").await;
    assert_eq!((r.stored, r.handled), (6, 6), "{r:?}");
    // A form with NUL bytes, at the weekend.
    g.drop_raw(&raw(
        &[
            b"From: afani@game.test",
            b"Subject: Afani form\0",
            b"Message-ID: <n6@p.test>",
        ],
        b"BUY 1 spy\0\r\nUPGRADE\0 commander",
    ));
    let r = g.tick(SATURDAY).await;
    assert_eq!((r.stored, r.handled), (1, 1), "{r:?}");

    let all = all_messages(&g).await;
    assert_eq!(all.len(), 7, "every mail is recorded: {all:#?}");
    assert!(all.iter().any(|m| m.kind == "unreadable"), "{all:#?}");
    for m in &all {
        for text in [
            &m.subject,
            &m.body,
            m.reason.as_ref().unwrap_or(&String::new()),
        ] {
            assert!(
                !text.contains('\0'),
                "NUL stored in message {}: {text:?}",
                m.id
            );
        }
    }
    let out = g.outbox();
    let to_kaldor = out
        .iter()
        .find(|m| m.to_is("kaldor@game.test"))
        .expect("delivered");
    assert!(
        to_kaldor.text.contains("Fred vid gränsen!"),
        "{}",
        to_kaldor.text
    );
    assert!(out.iter().all(|m| !m.raw.contains('\0')), "no NUL goes out");
    let receipt = out
        .iter()
        .filter(|m| m.to_is("afani@game.test"))
        .find(|m| m.text.contains("Receipt"))
        .expect("form receipt");
    assert!(
        receipt.text.contains("2 orders accepted"),
        "{}",
        receipt.text
    );
    let mut c = g.app.store.conn().await.unwrap();
    assert!(pbemd::store::forms::current(&mut c, "Afani", 1)
        .await
        .unwrap()
        .is_some());
}

mod nul_bytes {
    use super::*;
    #[tokio::test]
    async fn sqlite() {
        nul_bytes_in_every_part_of_a_mail_never_stop_tick(false).await;
    }
    #[tokio::test]
    async fn postgres() {
        nul_bytes_in_every_part_of_a_mail_never_stop_tick(true).await;
    }
}

/// The mail went to the GM queue as a doubtful sender and nobody was answered.
async fn doubtful_and_unanswered(headers: &[&[u8]]) {
    let g = Game::start(TUESDAY).await;
    let mut h: Vec<&[u8]> = headers.to_vec();
    h.push(b"Subject: Genogien skickar ett s\xc3\xa4ndebud till Afani");
    h.push(b"Message-ID: <d1@p.test>");
    g.drop_raw(&raw(&h, b"Jag \xc3\xa4r Genogien, lita p\xc3\xa5 mig."));
    let r = g.tick("2026-11-24T10:00:00+01:00").await;
    assert_eq!((r.handled, r.delivered, r.sent), (1, 0, 0), "{r:?}");
    let all = all_messages(&g).await;
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].kind, "doubtful_sender");
    assert_eq!(all[0].state, messages::state::GM_QUEUE);
    assert!(all[0]
        .reason
        .as_deref()
        .unwrap_or("")
        .contains("sender in doubt"));
    assert!(g.outbox().is_empty(), "no reply, no delivery");
}

#[tokio::test]
async fn two_from_headers_go_to_the_gm_unanswered_whichever_comes_last() {
    doubtful_and_unanswered(&[b"From: kaldor@game.test", b"From: genogien@game.test"]).await;
    doubtful_and_unanswered(&[b"From: genogien@game.test", b"From: kaldor@game.test"]).await;
}

#[tokio::test]
async fn a_from_with_two_addresses_goes_to_the_gm_unanswered() {
    doubtful_and_unanswered(&[b"From: Gorm <genogien@game.test>, Kal <kaldor@game.test>"]).await;
    doubtful_and_unanswered(&[b"From: genogien@game.test, genogien@game.test"]).await;
}

#[tokio::test]
async fn a_sender_that_is_not_the_from_address_goes_to_the_gm_unanswered() {
    doubtful_and_unanswered(&[b"From: genogien@game.test", b"Sender: kaldor@game.test"]).await;
    doubtful_and_unanswered(&[b"Sender: spy@elsewhere.test", b"From: genogien@game.test"]).await;
}

#[tokio::test]
async fn a_sender_equal_to_the_from_address_is_the_realms_mail() {
    let g = Game::start(TUESDAY).await;
    g.drop_raw(&raw(
        &[
            b"From: Gorm <genogien@game.test>",
            b"Sender: <GENOGIEN@game.test>",
            b"Subject: Genogien skickar ett s\xc3\xa4ndebud till Afani",
            b"Message-ID: <s1@p.test>",
        ],
        b"hej",
    ));
    let r = g.tick("2026-11-24T10:00:00+01:00").await;
    assert_eq!((r.handled, r.delivered), (1, 1), "{r:?}");
}

#[tokio::test]
async fn control_characters_in_a_subject_never_reach_the_reply_headers() {
    let g = Game::start(TUESDAY).await;
    // BEL and ESC raw, and ESC/CSI/CR LF hidden in encoded words.
    g.drop_raw(&raw(
        &[
            b"From: genogien@game.test",
            b"Subject: Genogien \x07skickar \x1b[31mn\xc3\xa5got",
            b"Message-ID: <c1@p.test>",
        ],
        b"hej",
    ));
    g.drop_raw(&raw(
        &[
            b"From: genogien@game.test",
            b"Subject: =?UTF-8?Q?Genogien_=1B]0;pwned=07_=C2=9B2J_x=0D=0ABcc:_a@b.test?=",
            b"Message-ID: <c2@p.test>",
        ],
        b"hej",
    ));
    g.tick("2026-11-24T10:00:00+01:00").await;
    let out = g.outbox();
    assert_eq!(out.len(), 2, "two refusals: {out:#?}");
    for m in &out {
        let head = m.raw.split("\r\n\r\n").next().unwrap();
        assert!(
            !head
                .chars()
                .any(|c| c.is_control() && c != '\r' && c != '\n'),
            "control character in the headers: {head:?}"
        );
        assert!(
            !m.subject.chars().any(char::is_control),
            "control character in the decoded subject: {:?}",
            m.subject
        );
        assert!(
            !head.lines().any(|l| l.to_lowercase().starts_with("bcc:")),
            "no header added: {head}"
        );
        assert!(m.subject.starts_with("Re: Genogien"), "{}", m.subject);
    }
}

// ---------------------------------------------------------------------------------
// HTML-only forms as mail clients write them.

fn html_form(from: &str, subject: &str, html: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nSubject: {subject}\r\nMessage-ID: <{}@p.test>\r\nMIME-Version: 1.0\r\n\
Content-Type: text/html; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{html}\r\n",
        html.len()
    )
    .into_bytes()
}

async fn receipt_for_html(html: &str) -> String {
    let g = Game::start(SATURDAY).await;
    g.drop_raw(&html_form("afani@game.test", "Re: Afani form", html));
    g.tick("2026-11-28T11:00:00+01:00").await;
    let out = g.outbox();
    assert_eq!(out.len(), 1, "{out:#?}");
    out[0].text.clone()
}

#[tokio::test]
async fn a_gmail_html_form_gives_one_order_per_div_including_the_last_before_the_end_marker() {
    let html = "<div dir=\"ltr\"><div>=== ORDRAR / ORDERS: skriv nedanför denna rad ===</div>\
<div>BUY 1 spy</div><div>UPGRADE commander</div><div>FRIEND Genogien</div>\
<div>=== SLUT PÅ ORDRAR / END OF ORDERS ===</div><br></div><br>\
<div class=\"gmail_quote\"><div dir=\"ltr\" class=\"gmail_attr\">On Mon, Nov 23, 2026 at 12:00 PM \
&lt;sl@game.test&gt; wrote:<br></div><blockquote class=\"gmail_quote\" style=\"margin:0px 0px 0px 0.8ex\">\
=== ORDRAR / ORDERS: skriv nedanför denna rad ===<br>=== SLUT PÅ ORDRAR / END OF ORDERS ===<br>\
</blockquote></div>";
    let text = receipt_for_html(html).await;
    assert!(text.contains("3 orders accepted, 0 refused"), "{text}");
    assert!(text.contains("FRIEND Genogien"), "{text}");
}

#[tokio::test]
async fn an_outlook_html_form_gives_one_order_per_paragraph() {
    let html = "<html xmlns:o=\"urn:schemas-microsoft-com:office:office\"><head>\
<meta http-equiv=Content-Type content=\"text/html; charset=utf-8\"><style><!--\
p.MsoNormal {margin:0cm; font-size:11.0pt;} --></style></head><body lang=SV link=\"#0563C1\">\
<div class=WordSection1><p class=MsoNormal>BUY 1 spy<o:p></o:p></p>\
<p class=MsoNormal>UPGRADE commander<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p>\
<p class=MsoNormal>Regards,<o:p></o:p></p></div></body></html>";
    let text = receipt_for_html(html).await;
    assert!(text.contains("2 orders accepted, 0 refused"), "{text}");
}

#[tokio::test]
async fn an_apple_mail_html_form_with_divs_and_brs_gives_one_order_per_line() {
    let html = "<html><head><meta http-equiv=\"content-type\" content=\"text/html; charset=utf-8\"></head>\
<body style=\"word-wrap: break-word;\"><div>=== ORDRAR / ORDERS: skriv nedanför denna rad ===</div>\
BUY 1 spy<br>UPGRADE commander<br><div>FRIEND Genogien</div>\
<div>=== SLUT PÅ ORDRAR / END OF ORDERS ===</div><div><br></div></body></html>";
    let text = receipt_for_html(html).await;
    assert!(text.contains("3 orders accepted, 0 refused"), "{text}");
}

#[tokio::test]
async fn a_thunderbird_html_form_with_br_lines_and_a_quoted_form_reads_the_fresh_lines() {
    let html = "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=UTF-8\">\
</head><body><p>=== ORDRAR / ORDERS: skriv nedanför denna rad ===<br>BUY 1 spy<br>\
UPGRADE commander<br>=== SLUT PÅ ORDRAR / END OF ORDERS ===<br></p>\
<div class=\"moz-cite-prefix\">Den 2026-11-23 kl. 12:00, sl@game.test skrev:<br></div>\
<blockquote type=\"cite\" cite=\"mid:x@game.test\"><pre class=\"moz-quote-pre\" wrap=\"\">\
=== ORDRAR / ORDERS: skriv nedanför denna rad ===\nBUY 9 spy\n=== SLUT PÅ ORDRAR / END OF ORDERS ===</pre>\
</blockquote></body></html>";
    let text = receipt_for_html(html).await;
    assert!(text.contains("2 orders accepted, 0 refused"), "{text}");
    assert!(
        !text.contains("BUY 9"),
        "the quoted form is not read: {text}"
    );
}

// ---------------------------------------------------------------------------------
// A form without orders, an explicit empty form, a form for an old round.

async fn afani_receipts(g: &Game) -> Vec<String> {
    g.outbox()
        .into_iter()
        .filter(|m| m.to_is("afani@game.test"))
        .map(|m| m.text)
        .collect()
}

#[tokio::test]
async fn a_form_without_orders_leaves_the_earlier_form_standing_and_says_so() {
    let g = Game::start(SATURDAY).await;
    g.send("afani@game.test", "Afani form", "BUY 1 spy");
    g.tick("2026-11-28T11:00:00+01:00").await;
    g.send("afani@game.test", "Re: Afani form", "Thanks, see you soon!");
    g.tick("2026-11-28T12:00:00+01:00").await;
    let receipts = afani_receipts(&g).await;
    assert_eq!(receipts.len(), 2);
    let second = &receipts[1];
    assert!(
        second.contains("does not replace your earlier form"),
        "{second}"
    );
    assert!(
        second.contains("28 November 2026"),
        "names the standing form: {second}"
    );
    assert!(
        second.contains("NO ORDERS"),
        "says how to send none: {second}"
    );
    assert!(
        !second.contains("replaces your earlier form, received"),
        "{second}"
    );
    let mut c = g.app.store.conn().await.unwrap();
    let (_, received) = pbemd::store::forms::current(&mut c, "Afani", 1)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(received, at("2026-11-28T11:00:00+01:00").timestamp_millis());
}

#[tokio::test]
async fn ett_formulär_utan_order_ersätter_inte_det_tidigare_på_svenska() {
    let g = Game::start(SATURDAY).await;
    g.send("genogien@game.test", "Genogien helgformulär", "KÖP 1 spion");
    g.tick("2026-11-28T11:00:00+01:00").await;
    g.send("genogien@game.test", "Re: Genogien helgformulär", "Tack!");
    g.tick("2026-11-28T12:00:00+01:00").await;
    let last = g
        .outbox()
        .into_iter()
        .rfind(|m| m.to_is("genogien@game.test"))
        .unwrap()
        .text;
    assert!(
        last.contains("ersätter inte ditt tidigare formulär"),
        "{last}"
    );
    assert!(last.contains("INGA ORDRAR"), "{last}");
    assert!(!last.contains("earlier"), "{last}");
}

#[tokio::test]
async fn an_explicit_no_orders_form_replaces_the_earlier_one() {
    let g = Game::start(SATURDAY).await;
    g.send("afani@game.test", "Afani form", "BUY 1 spy");
    g.tick("2026-11-28T11:00:00+01:00").await;
    g.send("afani@game.test", "Re: Afani form", "no orders");
    g.tick("2026-11-28T12:00:00+01:00").await;
    g.send("genogien@game.test", "Genogien helgformulär", "KÖP 1 spion");
    g.tick("2026-11-28T13:00:00+01:00").await;
    g.send(
        "genogien@game.test",
        "Genogien helgformulär",
        "Inga ordrar.",
    );
    g.tick("2026-11-28T14:00:00+01:00").await;
    let receipts = afani_receipts(&g).await;
    assert!(receipts[1].contains("NO ORDERS"), "{}", receipts[1]);
    assert!(
        receipts[1].contains("replaces your earlier form"),
        "{}",
        receipts[1]
    );
    let mut c = g.app.store.conn().await.unwrap();
    for (realm, at_) in [
        ("Afani", "2026-11-28T12:00:00+01:00"),
        ("Genogien", "2026-11-28T14:00:00+01:00"),
    ] {
        let s = pbemd::store::forms::standing(&mut c, realm, 1)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(s.received_at, at(at_).timestamp_millis(), "{realm}");
        let checked: pbemd::forms::Checked =
            serde_json::from_str(s.orders.as_deref().unwrap()).unwrap();
        assert!(checked.lines.is_empty() && checked.no_orders, "{realm}");
    }
}

#[tokio::test]
async fn a_form_for_an_earlier_round_is_refused_naming_its_round_and_the_current_form() {
    let g = Game::start("2026-11-23T11:00:00+01:00").await;
    g.tick("2026-11-23T12:00:00+01:00").await;
    let round1 = g
        .outbox()
        .into_iter()
        .find(|m| m.to_is("afani@game.test"))
        .unwrap()
        .text;
    assert!(round1.contains("round 1"), "{round1}");
    g.tick("2026-11-29T15:00:00+01:00").await;
    g.tick("2026-11-30T12:00:00+01:00").await;
    assert_eq!(g.state().await.round, 2);
    let quoted: String = round1.lines().map(|l| format!("> {l}\n")).collect();
    g.send(
        "afani@game.test",
        "Re: Afani form",
        &format!("BUY 1 spy\n\nOn Mon 23 Nov, sl@game.test wrote:\n{quoted}"),
    );
    g.tick("2026-12-05T10:00:00+01:00").await;
    let last = afani_receipts(&g).await.pop().unwrap();
    assert!(last.contains("for round 1, but this is round 2"), "{last}");
    assert!(
        last.contains("30 November 2026"),
        "when round 2's form went out: {last}"
    );
    assert!(last.contains("do not count"), "{last}");
    let mut c = g.app.store.conn().await.unwrap();
    assert!(pbemd::store::forms::current(&mut c, "Afani", 2)
        .await
        .unwrap()
        .is_none());
}

// ---------------------------------------------------------------------------------
// Through the binary: `check-form` and `gm show`.

fn pbemd(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(args)
        .output()
        .expect("run pbemd")
}

/// A new game directory, started at `now`; returns (temp dir guard, config path).
fn new_game(now: &str) -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("game");
    assert!(pbemd(&["new", dir.to_str().unwrap()]).status.success());
    let cfg = dir.join("pbemd.yaml").to_str().unwrap().to_string();
    let out = pbemd(&["--config", &cfg, "init", "--now", now]);
    assert!(out.status.success(), "{out:?}");
    (tmp, cfg)
}

#[test]
fn check_form_prints_the_deadline_of_the_games_round_not_the_machines_week() {
    // The game's time is years away from the machine's clock.
    let (tmp, cfg) = new_game("2030-01-07T13:00:00+01:00");
    let form = tmp.path().join("f.txt");
    std::fs::write(&form, "BUY 1 spy\n").unwrap();
    let out = pbemd(&[
        "--config",
        &cfg,
        "check-form",
        "--realm",
        "afani",
        form.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("13 January 2030"),
        "round 1 closes Sunday 13 January: {text}"
    );
}

#[test]
fn check_form_exits_2_for_an_unknown_realm() {
    let (tmp, cfg) = new_game("2030-01-07T13:00:00+01:00");
    let form = tmp.path().join("f.txt");
    std::fs::write(&form, "BUY 1 spy\n").unwrap();
    let out = pbemd(&[
        "--config",
        &cfg,
        "check-form",
        "--realm",
        "Atlantis",
        form.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no realm named Atlantis") && err.contains("Afani"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn gm_show_escapes_control_characters_from_the_mail() {
    let (tmp, cfg) = new_game("2026-11-24T09:00:00+01:00");
    let inbox = tmp.path().join("game/inbox/new/1.m");
    std::fs::write(
        &inbox,
        raw(
            &[
                b"From: \"\x1b]0;owned\x07Mallory\" <mallory@elsewhere.test>",
                b"Subject: hi \x1b[2J\x07 \xe2\x80\xae",
                b"Message-ID: <g1@p.test>",
            ],
            b"body \x1b[31mred\x07 \xc2\x9b and \xe2\x80\xaeevil",
        ),
    )
    .unwrap();
    let out = pbemd(&[
        "--config",
        &cfg,
        "tick",
        "--now",
        "2026-11-24T10:00:00+01:00",
    ]);
    assert!(out.status.success(), "{out:?}");
    let out = pbemd(&["--config", &cfg, "gm", "show", "1"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text
            .chars()
            .any(|c| (c.is_control() && c != '\n' && c != '\t') || c == '\u{202e}'),
        "{text:?}"
    );
    assert!(
        text.contains("\\x1b[2J") && text.contains("\\x07"),
        "escaped in the raw mail: {text}"
    );
    assert!(text.contains("\\u{202e}"), "{text}");
}

#[test]
fn check_form_says_a_form_for_an_earlier_round_would_not_count() {
    let (tmp, cfg) = new_game("2026-11-23T11:00:00+01:00");
    for now in [
        "2026-11-23T12:00:00+01:00",
        "2026-11-29T15:00:00+01:00",
        "2026-11-30T12:00:00+01:00",
    ] {
        assert!(pbemd(&["--config", &cfg, "tick", "--now", now])
            .status
            .success());
    }
    let round1 = std::fs::read_dir(tmp.path().join("game/outbox/new"))
        .unwrap()
        .map(|e| common::Sent::parse(&std::fs::read(e.unwrap().path()).unwrap()))
        .filter(|m| m.to_is("afani@game.test") && m.text.contains("round 1"))
        .map(|m| m.text)
        .next()
        .expect("round 1's form");
    let form = tmp.path().join("old.txt");
    std::fs::write(&form, format!("BUY 1 spy\n\n{round1}")).unwrap();
    let out = pbemd(&[
        "--config",
        &cfg,
        "check-form",
        "--realm",
        "Afani",
        form.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("for round 1, but this is round 2"), "{text}");
}

//! The paths a player's plain Reply takes, through the binary (docs/reference/mail.md, A
//! reply to an envoy; D-42): in the token modes every mail to a realm ends its subject with
//! the realm's `[k:TOKEN]`, so the client's Reply to the opening form is the realm's form;
//! a Reply to an envoy delivery is an envoy back (`courier.reply_is_envoy`); pbemd's own
//! replies keep one `Re:`; the player's guide comes on request and is named where players
//! look.
//!
//! Replies are written as Gmail, Outlook, Apple Mail and mutt write them: `Re:`/`SV:`
//! subjects, `In-Reply-To`/`References`, the answered mail quoted below or above.

mod common;
#[path = "weekend_common/game_dir.rs"]
mod game_dir;

use game_dir::{ok, run, Dir, SATURDAY, TUESDAY};

const LATER: &str = "2026-11-24T10:00:00+01:00";
const GENOGIEN: &str = "genogien@game.test";
const AFANI: &str = "afani@game.test";

/// A new game whose config says `sender_check: <mode>` and has `extra` appended,
/// started on Tuesday with its opening forms mailed.
fn game_with(mode: &str, extra: &str) -> Dir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("game");
    ok(&run(&["new", dir.to_str().unwrap()], &[]));
    let cfg = dir.join("pbemd.yaml");
    let text = std::fs::read_to_string(&cfg).unwrap().replace(
        "sender_check: from-only\n",
        &format!("sender_check: {mode}\nauthserv_id: mx.game.test\n"),
    ) + extra;
    std::fs::write(&cfg, text).unwrap();
    let d = Dir {
        _tmp: tmp,
        dir,
        mails: Default::default(),
    };
    d.ok(&["init", "--now", TUESDAY]);
    d
}

fn ids(mails: &[common::Sent]) -> Vec<String> {
    mails.iter().map(|m| m.message_id.clone()).collect()
}

/// The realm's token as its game state holds it.
fn token_of(d: &Dir, realm: &str) -> String {
    let state = d.state();
    state["realms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == realm)
        .unwrap()["token"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// How a mail client answers a mail.
#[derive(Clone, Copy, Debug)]
enum Client {
    /// Gmail: `Re:`, own text on top, an attribution line and `>` quotes below.
    Gmail,
    /// Outlook (Swedish): `SV:`, own text on top, a line of underscores and a header
    /// block naming the answered mail's subject, the original unquoted.
    Outlook,
    /// Apple Mail: `Re:`, own text on top, the attribution then `>` quotes.
    Apple,
    /// mutt: `Re:`, the quote first, own text written below it.
    Mutt,
}

const CLIENTS: [Client; 4] = [Client::Gmail, Client::Outlook, Client::Apple, Client::Mutt];

fn quoted(text: &str) -> String {
    text.lines().map(|l| format!("> {l}\n")).collect()
}

/// The raw mail `client` makes when `from` answers `to_this` with `own` text.
fn reply_raw(client: Client, from: &str, to_this: &common::Sent, own: &str, n: u32) -> Vec<u8> {
    let (prefix, body) = match client {
        Client::Gmail => (
            "Re: ",
            format!(
                "{own}\n\nOn Tue, 24 Nov 2026 at 10:00, Demospelet <sl@game.test> wrote:\n\n{}",
                quoted(&to_this.text)
            ),
        ),
        Client::Outlook => (
            "SV: ",
            format!(
                "{own}\n\n________________________________\nFrån: Demospelet <sl@game.test>\n\
                 Skickat: den 24 november 2026 10:00\nTill: {from}\nÄmne: {}\n\n{}",
                to_this.subject, to_this.text
            ),
        ),
        Client::Apple => (
            "Re: ",
            format!(
                "{own}\n\n> On 24 Nov 2026, at 10:00, Demospelet <sl@game.test> wrote:\n> \n{}",
                quoted(&to_this.text)
            ),
        ),
        Client::Mutt => (
            "Re: ",
            format!(
                "On Tue, Nov 24, 2026 at 10:00:00AM +0100, Demospelet wrote:\n{}\n{own}\n",
                quoted(&to_this.text)
            ),
        ),
    };
    let id = to_this.message_id.trim_matches(['<', '>']);
    format!(
        "From: {from}\r\nTo: sl@game.test\r\nSubject: {prefix}{}\r\nMessage-ID: <r{n}@players.test>\r\n\
         In-Reply-To: <{id}>\r\nReferences: <{id}>\r\nDate: Tue, 24 Nov 2026 10:05:00 +0100\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: 8bit\r\n\r\n{}\r\n",
        to_this.subject,
        body.replace('\n', "\r\n")
    )
    .into_bytes()
}

/// Drop a client's reply into the game's inbox.
fn reply(d: &Dir, client: Client, from: &str, to_this: &common::Sent, own: &str) {
    let n = d.mails.get() + 1;
    d.mails.set(n);
    let raw = reply_raw(client, from, to_this, own, n);
    std::fs::write(d.dir.join("inbox/new").join(format!("{n}.m")), raw).unwrap();
}

fn unproven(d: &Dir) -> Vec<String> {
    d.ok(&["gm", "queue"])
        .lines()
        .filter(|l| l.contains("unproven_sender"))
        .map(str::to_string)
        .collect()
}

fn opening_form(d: &Dir, addr: &str) -> common::Sent {
    d.outbox()
        .into_iter()
        .find(|m| m.to_is(addr))
        .expect("an opening form")
}

// ---------------------------------------------------------------------------------
// The token in the subject.

#[test]
fn a_plain_reply_to_the_opening_form_is_the_realms_form_in_every_token_mode() {
    for mode in ["token", "dkim-or-token"] {
        let d = game_with(mode, "");
        let token = token_of(&d, "Genogien");
        let form = opening_form(&d, GENOGIEN);
        assert_eq!(
            form.subject,
            format!("Genogien helgformulär [k:{token}]"),
            "{mode}"
        );
        d.tick(SATURDAY);
        for (i, client) in CLIENTS.into_iter().enumerate() {
            let before = ids(&d.outbox());
            reply(&d, client, GENOGIEN, &form, "KÖP 1 spion");
            let at = format!("2026-11-28T1{i}:30:00+01:00");
            d.tick(&at);
            let sent = d.outbox_since(&before);
            let receipt = sent
                .iter()
                .find(|m| m.to_is(GENOGIEN))
                .unwrap_or_else(|| panic!("{mode} {client:?}: a receipt: {:?}", ids(&sent)));
            assert_eq!(
                receipt.subject,
                format!("Re: Genogien helgformulär [k:{token}]"),
                "{mode} {client:?}"
            );
            assert!(
                receipt.text.contains("1 order godkänd"),
                "{mode} {client:?}: {}",
                receipt.text
            );
            assert!(
                unproven(&d).is_empty(),
                "{mode} {client:?}: {}",
                d.ok(&["gm", "queue"])
            );
        }
    }
}

#[test]
fn every_mail_to_a_realm_carries_its_own_token_and_no_other_realms() {
    let d = game_with("token", "");
    let names = game_dir::REALMS;
    let tokens: Vec<(String, String)> = names
        .iter()
        .map(|r| (format!("{}@game.test", r.to_lowercase()), token_of(&d, r)))
        .collect();
    // An envoy, a mail to the GM (its notice goes to the GM), a bad subject.
    let afani = tokens.iter().find(|(a, _)| a == AFANI).unwrap().1.clone();
    d.send(
        AFANI,
        &format!("[{afani}] Afani sends an envoy to Genogien"),
        "Peace.",
    );
    d.send(AFANI, &format!("[{afani}] Afani to GM: a question"), "Hi.");
    d.send(AFANI, &format!("[{afani}] Hello there"), "Hi.");
    d.tick(LATER);
    let all = d.outbox();
    assert!(all.len() >= 6 + 4, "{:?}", ids(&all));
    let mut to_gm = 0;
    for m in &all {
        let owner = tokens.iter().find(|(a, _)| m.to_is(a));
        match owner {
            Some((addr, own)) => {
                assert_eq!(m.to, vec![addr.clone()], "one realm's addresses");
                assert!(
                    m.subject.ends_with(&format!(" [k:{own}]")),
                    "{addr}: {}",
                    m.subject
                );
            }
            None => {
                assert!(m.to_is("gm@game.test"), "{:?}", m.to);
                assert!(!m.subject.contains("[k:"), "{}", m.subject);
                to_gm += 1;
            }
        }
        for (addr, other) in &tokens {
            if !m.to_is(addr) {
                assert!(
                    !m.raw.to_uppercase().contains(other),
                    "{addr}'s token in a mail to {:?}: {}",
                    m.to,
                    m.raw
                );
            }
        }
    }
    assert!(to_gm >= 1, "the GM's notice");
}

#[test]
fn outside_the_token_modes_no_subject_is_tagged() {
    let d = game_with("from-only", "");
    for m in d.outbox() {
        assert!(!m.subject.contains("[k:"), "{}", m.subject);
    }
}

// ---------------------------------------------------------------------------------
// A reply to an envoy delivery.

/// Afani's envoy to Genogien, delivered; returns the delivery.
fn delivered_envoy(d: &Dir, text: &str) -> common::Sent {
    let before = ids(&d.outbox());
    let afani = token_of(d, "Afani");
    let tag = if afani.is_empty() {
        String::new()
    } else {
        format!("[{afani}] ")
    };
    d.send(
        AFANI,
        &format!("{tag}Afani sends an envoy to Genogien"),
        text,
    );
    d.tick(LATER);
    d.outbox_since(&before)
        .into_iter()
        .find(|m| m.to_is(GENOGIEN))
        .expect("the delivery")
}

#[test]
fn a_reply_to_an_envoy_delivery_is_an_envoy_back_from_every_mail_client() {
    let d = game_with("token", "");
    let gtoken = token_of(&d, "Genogien");
    let delivery = delivered_envoy(&d, "Shall we trade iron for stone?");
    assert!(
        delivery.subject.starts_with("Sändebud från Afani"),
        "{}",
        delivery.subject
    );
    assert!(
        delivery.text.contains("Svara på det här brevet"),
        "the delivery says a reply is an envoy: {}",
        delivery.text
    );
    for (i, client) in CLIENTS.into_iter().enumerate() {
        let before = ids(&d.outbox());
        let own = format!("Ja, gärna: järn mot sten, svar {i}.");
        reply(&d, client, GENOGIEN, &delivery, &own);
        d.tick(&format!("2026-11-24T1{}:00:00+01:00", i + 1));
        let sent = d.outbox_since(&before);
        let to_afani: Vec<_> = sent.iter().filter(|m| m.to_is(AFANI)).collect();
        assert_eq!(to_afani.len(), 1, "{client:?}: {:?}", ids(&sent));
        let envoy = to_afani[0];
        assert!(
            envoy.subject.starts_with("Envoy from Genogien"),
            "{client:?}: {}",
            envoy.subject
        );
        assert!(envoy.text.contains(&own), "{client:?}: {}", envoy.text);
        assert!(
            !envoy.text.contains("Shall we trade"),
            "{client:?}: the quoted delivery stays home: {}",
            envoy.text
        );
        assert!(
            !envoy.raw.to_uppercase().contains(&gtoken),
            "{client:?}: Genogien's token went to Afani: {}",
            envoy.raw
        );
        let receipt = sent
            .iter()
            .find(|m| m.to_is(GENOGIEN))
            .unwrap_or_else(|| panic!("{client:?}: a receipt"));
        assert!(
            receipt
                .text
                .contains("Genogien skickade ett sändebud till Afani"),
            "{client:?}: {}",
            receipt.text
        );
        assert_eq!(
            receipt.subject,
            format!("Re: Sändebud från Afani [k:{gtoken}]"),
            "{client:?}"
        );
    }
    assert!(unproven(&d).is_empty(), "{}", d.ok(&["gm", "queue"]));
}

#[test]
fn a_reply_to_an_envoy_delivery_is_windowed_like_any_envoy() {
    let d = game_with("from-only", "");
    let delivery = delivered_envoy(&d, "Peace?");
    let before = ids(&d.outbox());
    reply(&d, Client::Gmail, GENOGIEN, &delivery, "Fred.");
    d.tick(SATURDAY);
    let sent = d.outbox_since(&before);
    assert!(sent.iter().all(|m| !m.to_is(AFANI)), "{:?}", ids(&sent));
    let refusal = sent.iter().find(|m| m.to_is(GENOGIEN)).expect("a refusal");
    assert!(
        refusal.text.contains("måndag"),
        "names the window: {}",
        refusal.text
    );
}

#[test]
fn with_reply_is_envoy_false_a_reply_to_a_delivery_is_refused_naming_the_exact_subject() {
    let d = game_with("from-only", "courier:\n  reply_is_envoy: false\n");
    let delivery = delivered_envoy(&d, "Peace?");
    assert!(
        !delivery.text.contains("Svara på det här brevet"),
        "{}",
        delivery.text
    );
    let before = ids(&d.outbox());
    reply(&d, Client::Outlook, GENOGIEN, &delivery, "Fred.");
    d.tick("2026-11-24T11:00:00+01:00");
    let sent = d.outbox_since(&before);
    assert!(sent.iter().all(|m| !m.to_is(AFANI)), "{:?}", ids(&sent));
    let refusal = sent.iter().find(|m| m.to_is(GENOGIEN)).expect("a refusal");
    assert!(
        refusal
            .text
            .contains("«Genogien skickar ett sändebud till Afani»"),
        "{}",
        refusal.text
    );
    assert_eq!(refusal.subject, "Re: Sändebud från Afani");
}

#[test]
fn a_delivery_subject_written_without_replying_is_refused_naming_the_exact_subject() {
    let d = game_with("from-only", "");
    let before = ids(&d.outbox());
    d.send(AFANI, "Envoy from Genogien", "Hello?");
    d.tick(LATER);
    let sent = d.outbox_since(&before);
    assert!(sent.iter().all(|m| !m.to_is(GENOGIEN)), "{:?}", ids(&sent));
    let refusal = sent.iter().find(|m| m.to_is(AFANI)).expect("a refusal");
    assert!(
        refusal.text.contains("“Afani sends an envoy to Genogien”"),
        "{}",
        refusal.text
    );
}

// ---------------------------------------------------------------------------------
// One `Re:`.

#[test]
fn replies_keep_one_re_whatever_the_player_sent() {
    let d = game_with("from-only", "");
    d.send(GENOGIEN, "Sv: Re: hej", "hej");
    d.tick(LATER);
    let before = ids(&d.outbox());
    d.send(GENOGIEN, "Re: Re: Re: Genogien helgformulär", "KÖP 1 spion");
    d.send(AFANI, "AW: SV: RE: Afani to GM: a question", "Hi.");
    d.tick(SATURDAY);
    let all = d.outbox();
    let refusal = all
        .iter()
        .find(|m| m.to_is(GENOGIEN) && m.subject.contains("hej"))
        .expect("the refusal");
    assert_eq!(refusal.subject, "Re: hej");
    let sent = d.outbox_since(&before);
    let reply_to = |a: &str| {
        sent.iter()
            .find(|m| m.to_is(a) && m.subject.starts_with("Re:"))
            .unwrap_or_else(|| panic!("a reply to {a}: {:?}", ids(&sent)))
    };
    let receipt = reply_to(GENOGIEN);
    assert_eq!(receipt.subject, "Re: Genogien helgformulär");
    let ack = reply_to(AFANI);
    assert_eq!(ack.subject, "Re: Afani to GM: a question");
}

// ---------------------------------------------------------------------------------
// The player's guide.

#[test]
fn the_guide_comes_on_request_at_any_time_in_the_requests_language_and_is_audited() {
    let d = game_with("from-only", "");
    // Sunday evening, after the weekend's resolution: no window is open.
    d.tick("2026-11-29T20:00:00+01:00");
    let before = ids(&d.outbox());
    let state_before = d.state();
    d.send("kaldor@game.test", "Kaldor hjälp", "");
    d.send(AFANI, "Re: Afani help", "");
    d.tick("2026-11-29T20:30:00+01:00");
    let sent = d.outbox_since(&before);
    let sv = sent
        .iter()
        .find(|m| m.to_is("kaldor@game.test") && m.subject == "Spelarhandledning för Kaldor")
        .unwrap_or_else(|| panic!("the Swedish guide: {:?}", ids(&sent)));
    // The guide is wrapped to the mail's width: phrases are looked for in its words.
    let words = sv.text.split_whitespace().collect::<Vec<_>>().join(" ");
    for line in [
        "Ämne: Kaldor skickar ett sändebud till Afani",
        "Ämne: Kaldor helgformulär",
        "Ämne: Re: Sändebud från Afani",
        "Ämne: Kaldor hjälp",
        "måndag 12:00 – fredag 23:59",
        "lördag 00:00 – söndag 15:00",
        "skicka hela formuläret igen",
    ] {
        assert!(words.contains(line), "lacks {line:?}: {}", sv.text);
    }
    let en = sent
        .iter()
        .find(|m| m.to_is(AFANI) && m.subject == "Player's guide for Afani")
        .expect("the English guide");
    assert!(
        en.text
            .contains("Subject: Afani sends an envoy to Fugandri"),
        "{}",
        en.text
    );
    let log = d.ok(&["gm", "log", "--realm", "Kaldor"]);
    assert!(log.contains("player_guide_sent"), "{log}");
    // Free: the realm's stock and the courier's books are as they were.
    let state_after = d.state();
    assert_eq!(state_before, state_after);
}

#[test]
fn the_opening_form_names_the_guide_and_a_mail_of_no_known_kind_points_to_it() {
    let d = game_with("from-only", "");
    let form = opening_form(&d, GENOGIEN);
    assert!(form.text.contains("«Genogien hjälp»"), "{}", form.text);
    let en = opening_form(&d, AFANI);
    assert!(en.text.contains("“Afani help”"), "{}", en.text);
    let before = ids(&d.outbox());
    d.send(GENOGIEN, "Vad gör jag nu?", "?");
    d.tick(LATER);
    let refusal = d
        .outbox_since(&before)
        .into_iter()
        .find(|m| m.to_is(GENOGIEN))
        .expect("a refusal");
    assert!(
        refusal.text.contains("«Genogien hjälp»"),
        "{}",
        refusal.text
    );
}

/// Every subject the guide gives, in both languages, is read by the classifier as the
/// kind its section names, and every kind of mail a player can send has its section
/// with an example: the guide cannot drift from the subject grammar. The kinds are
/// listed by exhaustive matches on the classifier's and the courier's own enums, so a
/// new kind of mail fails to compile here until the guide is given it.
#[test]
fn every_subject_in_the_guide_classifies_as_the_kind_it_claims() {
    use pbemd::courier::{gm_request, GmRequest};
    use pbemd::game::text::MailKind;
    use pbemd::game::Lang;
    use pbemd::mail::classify::{
        absence_topic, classify, Classified, DirEntry, Directory, Refusal,
    };

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Want {
        Kind(MailKind),
        Absence,
        Reveal,
        HomeInvitation,
        Resend,
        Link,
        Help,
        DeliveryReply,
    }
    // The enums that define the kinds, matched whole: a new variant must be placed.
    fn kind(k: MailKind) -> Want {
        match k {
            MailKind::Envoy
            | MailKind::Merchant
            | MailKind::Spy
            | MailKind::Form
            | MailKind::ToGm => Want::Kind(k),
        }
    }
    fn request(r: &GmRequest) -> Want {
        match r {
            GmRequest::Reveal { .. } => Want::Reveal,
            GmRequest::HomeInvitation { .. } => Want::HomeInvitation,
            GmRequest::Plain => Want::Kind(MailKind::ToGm),
        }
    }
    // Every kind of mail a player sends: the subject kinds, the two requests the
    // courier reads in a mail to the GM, an absence, and the classifier's requests.
    let every: Vec<Want> = [
        MailKind::Envoy,
        MailKind::Merchant,
        MailKind::Spy,
        MailKind::Form,
        MailKind::ToGm,
    ]
    .into_iter()
    .map(kind)
    .chain([
        request(&GmRequest::Reveal { spell: None }),
        request(&GmRequest::HomeInvitation { army: true, id: 1 }),
        Want::Absence,
        Want::Resend,
        Want::Link,
        Want::Help,
        Want::DeliveryReply,
    ])
    .collect();
    // What a classified mail is, as a kind a player sends (`None`: the classifier's
    // answers that are no kind of mail: refusals and mail that is nobody's).
    let want_of = |c: &Classified, body: &str| -> Option<Want> {
        match c {
            Classified::Accepted { subject, .. } if subject.kind == MailKind::ToGm => {
                if absence_topic(subject.topic.as_deref()).is_some() {
                    return Some(Want::Absence);
                }
                gm_request(subject.topic.as_deref(), body)
                    .ok()
                    .map(|r| request(&r))
            }
            Classified::Accepted { subject, .. } => Some(kind(subject.kind)),
            Classified::Resend { .. } => Some(Want::Resend),
            Classified::Link { .. } => Some(Want::Link),
            Classified::Help { .. } => Some(Want::Help),
            Classified::DeliveryReply { .. } => Some(Want::DeliveryReply),
            Classified::UnknownSender { .. }
            | Classified::DoubtfulSender { .. }
            | Classified::FromGm
            | Classified::Refused {
                reason:
                    Refusal::NoSubject
                    | Refusal::BadSubject { .. }
                    | Refusal::WrongSender { .. }
                    | Refusal::EmptyBody { .. }
                    | Refusal::TooLarge { .. }
                    | Refusal::ReplyNotEnvoy { .. },
                ..
            } => None,
        }
    };
    let gs = pbemd::game::load_scenario(include_str!("../scenarios/demo.yaml")).unwrap();
    let dir = Directory {
        realms: gs
            .realms
            .iter()
            .map(|r| DirEntry {
                name: r.name.clone(),
                emails: r.emails.clone(),
                lang: r.language,
            })
            .collect(),
        game_address: "sl@game.test".into(),
        gm_address: "gm@game.test".into(),
    };
    // Each section of the guide and the kinds its examples may be; sections without
    // examples have none.
    use Want::*;
    let sections: &[(&str, &str, &[Want])] = &[
        ("Tider", "Times", &[]),
        ("Helgformulär", "Weekend form", &[Kind(MailKind::Form)]),
        ("Formulär igen", "Form again", &[Resend]),
        ("Sändebud", "Envoy", &[Kind(MailKind::Envoy)]),
        ("Svar på sändebud", "Reply to an envoy", &[DeliveryReply]),
        ("Handelsman", "Merchant", &[Kind(MailKind::Merchant)]),
        ("Spion", "Spy", &[Kind(MailKind::Spy)]),
        (
            "Till spelledaren",
            "To the GM",
            &[Kind(MailKind::ToGm), Reveal, HomeInvitation],
        ),
        ("Frånvaro", "Absence", &[Absence]),
        ("Länk", "Link", &[Link]),
        ("Hjälp", "Help", &[Help]),
        ("Nyckel", "Token", &[]),
        ("Vad det kostar", "What it costs", &[]),
        ("Om du inte får något svar", "If you get no answer", &[]),
    ];
    for (lang, me, other, label) in [
        (Lang::Sv, "Kaldor", "Afani", "  Ämne: "),
        (Lang::En, "Afani", "Fugandri", "  Subject: "),
    ] {
        let text = pbemd::app::player_guide::guide(lang, me, other);
        assert!(
            !text.contains("<Land>") && !text.contains("<Realm>"),
            "{text}"
        );
        let addr = format!("{}@game.test", me.to_lowercase());
        let mut allowed: Option<&[Want]> = None;
        let mut seen: Vec<Want> = Vec::new();
        for line in text.lines() {
            if let Some(h) = line.strip_prefix("== ").and_then(|l| l.strip_suffix(" ==")) {
                allowed = sections
                    .iter()
                    .find(|(sv, en, _)| if lang == Lang::Sv { *sv == h } else { *en == h })
                    .map(|s| s.2);
                assert!(
                    allowed.is_some(),
                    "{lang:?}: a section of no known kind: {h}"
                );
                continue;
            }
            let Some(subject) = line.strip_prefix(label) else {
                continue;
            };
            let allowed =
                allowed.unwrap_or_else(|| panic!("{lang:?}: {subject:?} outside a section"));
            let raw = format!(
                "From: {addr}\r\nTo: sl@game.test\r\nSubject: {subject}\r\nMessage-ID: <g@p.test>\r\n\
                 In-Reply-To: <abc.pbemd@game.test>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
                 Some text.\r\n"
            );
            let mail = pbemd::mail::parse::parse_inbound(raw.as_bytes()).unwrap();
            let got = classify(&mail, &dir, 1 << 20);
            let want = want_of(&got, "Some text.");
            let names_the_realms = match &got {
                Classified::Accepted { subject: s, .. } => {
                    s.from == me && (s.to.is_none() || s.to.as_deref() == Some(other))
                }
                Classified::Resend { realm, .. }
                | Classified::Link { realm, .. }
                | Classified::Help { realm, .. } => realm == me,
                Classified::DeliveryReply {
                    realm, to, replied, ..
                } => realm == me && to == other && *replied,
                _ => false,
            };
            assert!(
                names_the_realms && want.is_some_and(|w| allowed.contains(&w)),
                "{lang:?}: {subject:?} should be one of {allowed:?}, is {got:?}"
            );
            seen.extend(want);
        }
        for w in &every {
            assert!(seen.contains(w), "{lang:?}: no example of {w:?}");
        }
    }
}

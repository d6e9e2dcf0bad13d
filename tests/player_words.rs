//! Words a player understands (first-week issue, §5): form refusals speak of forms,
//! a spy's receipt says its price and when the report comes, reports name a mission
//! by its text, and a rule ID in a player's mail comes last, in parentheses.

mod common;

use common::Game;

// Tuesday 24 November 2026 is inside the weekday window (Mon 12:00 – Fri 23:59).
const TUESDAY: &str = "2026-11-24T09:00:00+01:00";

/// The mails to `addr` in the outbox.
fn to(g: &Game, addr: &str) -> Vec<common::Sent> {
    g.outbox().into_iter().filter(|m| m.to_is(addr)).collect()
}

#[tokio::test]
async fn a_late_form_is_refused_in_form_words_not_in_envoy_words() {
    let g = Game::start(TUESDAY).await;
    g.send("genogien@game.test", "Genogien formulär", "KÖP 1 spion");
    g.send("afani@game.test", "Afani form", "BUY 1 spy");
    // Sunday 16:00: after the form window closed.
    g.tick("2026-11-29T16:00:00+01:00").await;
    let sv = to(&g, "genogien@game.test");
    let en = to(&g, "afani@game.test");
    assert_eq!((sv.len(), en.len()), (1, 1), "{sv:#?}\n{en:#?}");
    let (sv, en) = (&sv[0].text, &en[0].text);
    for envoy_words in ["skickats vidare", "dragits från ditt lager"] {
        assert!(!sv.contains(envoy_words), "`{envoy_words}` in:\n{sv}");
    }
    for envoy_words in ["passed on", "nothing was charged"] {
        assert!(
            !en.to_lowercase().contains(envoy_words),
            "`{envoy_words}` in:\n{en}"
        );
    }
    assert!(sv.contains("Ditt formulär"), "{sv}");
    assert!(sv.contains("har inte räknats"), "{sv}");
    assert!(en.contains("Your form"), "{en}");
    assert!(en.contains("has not been counted"), "{en}");
    // The window is still named.
    assert!(sv.contains("lördag 00:00 – söndag 15:00"), "{sv}");
    assert!(en.contains("Saturday 00:00 – Sunday 15:00"), "{en}");
}

/// An envoy's receipt lists the stock it leaves: a rich realm's runs past one line, and
/// it wraps at the form's width like every line of the game's mail.
#[tokio::test]
async fn an_envoys_receipt_keeps_its_stock_line_to_the_forms_width() {
    let g = Game::start(TUESDAY).await;
    g.send(
        "afani@game.test",
        "Afani sends an envoy to Genogien",
        "Peace and trade!",
    );
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "Fred och handel!",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    for (addr, word) in [
        ("afani@game.test", "Stock after this"),
        ("genogien@game.test", "Lager efter detta"),
    ] {
        let receipt = to(&g, addr)
            .into_iter()
            .find(|m| m.text.contains(word))
            .unwrap_or_else(|| panic!("{addr} got its receipt"));
        for line in receipt.text.lines() {
            assert!(
                line.chars().count() <= 78,
                "{} chars: {line}\n{}",
                line.chars().count(),
                receipt.text
            );
        }
    }
}

/// Genogien (Swedish) and Afani (English) each hold a spy, and a roll that cannot
/// fail on anything but a 1.
async fn with_spies(g: &Game) {
    g.edit_state(|gs| {
        for name in ["Genogien", "Afani"] {
            let r = gs.realm_mut(name).unwrap();
            r.spies = 2;
            r.positions.informator = 10;
        }
    })
    .await;
}

#[tokio::test]
async fn a_spy_receipt_says_its_price_and_that_the_report_comes_with_it() {
    let g = Game::start(TUESDAY).await;
    with_spies(&g).await;
    g.send(
        "genogien@game.test",
        "Genogien skickar en spion till Kaldor",
        "Uppdrag: 1",
    );
    g.send(
        "afani@game.test",
        "Afani sends a spy to Kaldor",
        "Mission: resources",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    let receipt = |addr: &str, word: &str| {
        to(&g, addr)
            .into_iter()
            .find(|m| m.text.contains(word))
            .unwrap_or_else(|| panic!("no receipt to {addr}: {:#?}", to(&g, addr)))
            .text
    };
    let sv = receipt("genogien@game.test", "Kvitto");
    let en = receipt("afani@game.test", "Receipt");
    assert!(!sv.contains("Kostnad: -"), "{sv}");
    assert!(!en.contains("Cost: -"), "{en}");
    assert!(!sv.contains("får ni inte veta"), "{sv}");
    assert!(!en.contains("you are not told"), "{en}");
    assert!(sv.contains("Kostnad: en spion"), "{sv}");
    assert!(en.contains("Cost: one spy"), "{en}");
    assert!(sv.contains("Spionrapporten kommer"), "{sv}");
    assert!(en.contains("The spy's report comes"), "{en}");
}

#[tokio::test]
async fn a_spy_report_names_its_mission_by_its_text_not_its_number() {
    let g = Game::start(TUESDAY).await;
    with_spies(&g).await;
    g.send(
        "genogien@game.test",
        "Genogien skickar en spion till Kaldor",
        "Uppdrag: 1",
    );
    g.send(
        "afani@game.test",
        "Afani sends a spy to Kaldor",
        "Mission: armies",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    let report = |addr: &str, word: &str| {
        to(&g, addr)
            .into_iter()
            .find(|m| m.subject.contains(word))
            .unwrap_or_else(|| panic!("no report to {addr}: {:#?}", to(&g, addr)))
            .text
    };
    let sv = report("genogien@game.test", "Spionrapport");
    let en = report("afani@game.test", "Spy report");
    assert!(!sv.contains("uppdrag 1"), "{sv}");
    assert!(!en.contains("mission 3"), "{en}");
    assert!(sv.contains("Kaldors resurser"), "{sv}");
    assert!(en.contains("Kaldor's armies and fleets"), "{en}");
}

// ------------------------------------------------------------------ rule IDs

use pbemd::render::weekend::{misplaced_rule_ids, rule_citations as citations};

#[test]
fn the_rule_id_check_knows_a_good_citation_from_a_bad_one() {
    for good in [
        "Your vote for yourself does not count (R-VOTE-2).",
        "Staden kunde inte skövlas: det kostar 5 guld; den plundrades (R-EVIL-12).",
        "Refused: the spy is spent (R-SPY-6, Rulings 43). Next line.",
        "No rule here at all.",
    ] {
        assert!(misplaced_rule_ids(good).is_empty(), "{good}");
    }
    for bad in [
        "R-SPY-4: mission 1",
        "It costs 5 (R-EVIL-12); it was plundered instead.",
        "See R-VOTE-2 for why.",
        "(R-VOTE-2)",
        "Spies (R-SPY, Rulings 43–46 and more): many words",
    ] {
        assert!(!misplaced_rule_ids(bad).is_empty(), "{bad}");
    }
}

/// Every mail pbemd's demo sends a player through a whole week, and a week of forms
/// with refused orders (whose receipts and Monday forms cite rules), and every rule ID
/// in them: each comes last, in parentheses, after words that explain on their own.
#[tokio::test]
async fn in_a_demo_week_every_rule_id_in_a_players_mail_comes_last_in_parentheses() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .args(["demo", "--dir", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut mails: Vec<_> = std::fs::read_dir(dir.join("outbox/new"))
        .unwrap()
        .map(|e| common::Sent::parse(&std::fs::read(e.unwrap().path()).unwrap()))
        .collect();
    assert!(mails.len() > 20, "{}", mails.len());
    // A week of orders the rules refuse, on the form and at the weekend.
    let g = Game::start(TUESDAY).await;
    g.send(
        "genogien@game.test",
        "Genogien till SL: Hembjudan",
        "Hembjudan: armé 1",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    g.send(
        "genogien@game.test",
        "Genogien formulär",
        "RÖST Afani
BUD 12 järn
KÖP 99 lätt infanteri
FLYTTA armé 1: A1 A9
VÄN Genogien
KÖP 9 spion",
    );
    g.send(
        "afani@game.test",
        "Afani form",
        "VOTE Genogien
BID 12 iron
BUY 99 light infantry
FRIEND Afani
BUY 9 spy",
    );
    g.tick("2026-11-28T10:00:00+01:00").await;
    g.tick("2026-11-30T12:00:00+01:00").await;
    mails.extend(g.outbox());
    let mails: Vec<_> = mails
        .into_iter()
        .filter(|m| !m.to_is("gm@game.test"))
        .collect();
    let cited: usize = mails
        .iter()
        .map(|m| m.text.lines().map(|l| citations(l).len()).sum::<usize>())
        .sum();
    assert!(
        cited > 5,
        "the week's mail cites too few rules to check: {cited}"
    );
    let mut bad = Vec::new();
    for m in &mails {
        for line in misplaced_rule_ids(&m.text) {
            bad.push(format!("{}: {line}", m.subject));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// ------------------------------------------------------------ example orders

/// The example orders of a result form: the `# ` lines after the orders section's
/// "Exempel:" / "Examples:" line, up to the first line that is no comment.
fn example_orders(form: &str) -> Vec<String> {
    let start = pbemd::forms::extract::START_MARKER;
    let section = form.split_once(start).map_or("", |(_, s)| s);
    let mut out = Vec::new();
    let mut on = false;
    for line in section.lines() {
        if !on {
            on = line.starts_with('#') && (line.contains("Exempel:") || line.contains("Examples:"));
            continue;
        }
        match line.strip_prefix("# ") {
            Some(order) => out.push(order.trim().to_string()),
            None => break,
        }
    }
    out
}

/// For every realm of the demo and the Evil scenarios, each example order of its
/// opening form is an order `check-form` accepts for that realm as the game starts.
#[test]
fn every_example_order_of_an_opening_form_is_accepted_for_that_realm() {
    use pbemd::game::Lang;
    use pbemd::render::{FormContext, Renderer};
    let r = Renderer::new().unwrap();
    let mut bad = Vec::new();
    for scenario in [
        include_str!("../scenarios/demo.yaml"),
        include_str!("../scenarios/evil.yaml"),
    ] {
        let gs = pbemd::game::load_scenario(scenario).unwrap();
        for realm in gs.realms.iter().filter(|r| !r.eliminated) {
            let lang = realm.language;
            let ctx = FormContext {
                deadline_local: match lang {
                    Lang::Sv => "söndag 29 november 2026 15:00".into(),
                    Lang::En => "Sunday 29 November 2026 15:00".into(),
                },
                window_local: String::new(),
                game_address: "sl@game.test".into(),
                realms_listed: None,
            };
            let form = r.result_form(&gs, &realm.name, &ctx).unwrap();
            let examples = example_orders(&form);
            assert!(examples.len() >= 2, "{}: {examples:?}\n{form}", realm.name);
            for ex in examples {
                let checked = pbemd::forms::check(&gs, &realm.name, &[(1, ex.clone())]);
                if let Some(why) = checked.lines[0].refusal.as_ref() {
                    bad.push(format!("{}: `{ex}`: {}", realm.name, why.text(lang)));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// ------------------------------------------------------------------- bids

/// The receipt values a bid as the weekend does and shows the sum: the offer, the
/// penalty after a battle last weekend, and what the lot needs, rule last.
#[test]
fn r_free_4_a_bid_under_the_minimum_shows_its_sum_on_the_receipt() {
    use pbemd::game::state::{FreeMerchantOffer, Lot};
    use pbemd::game::{Lang, Resource};
    let mut gs = pbemd::game::load_scenario(include_str!("../scenarios/demo.yaml")).unwrap();
    gs.free_merchant = Some(FreeMerchantOffer {
        round: gs.round,
        lot: Lot::Resource {
            resource: Resource::Jarn,
            amount: 10,
        },
        min_bid: 10,
    });
    for name in ["Genogien", "Afani"] {
        let r = gs.realm_mut(name).unwrap();
        r.fought_last_weekend = true;
        r.stock.set(Resource::Guld, 20);
    }
    let sv = pbemd::forms::check(&gs, "Genogien", &[(1, "BUD 12 guld".to_string())]);
    let sv = sv.lines[0]
        .refusal
        .as_ref()
        .expect("refused")
        .text(Lang::Sv);
    assert_eq!(
        sv,
        "budet är värt 7: 12 guld − 5 efter strid; lotten kräver 10 (R-FREE-4)"
    );
    let en = pbemd::forms::check(&gs, "Afani", &[(1, "BID 12 gold".to_string())]);
    let en = en.lines[0]
        .refusal
        .as_ref()
        .expect("refused")
        .text(Lang::En);
    assert_eq!(
        en,
        "the bid is worth 7: 12 gold − 5 after battle; the lot needs 10 (R-FREE-4)"
    );
}

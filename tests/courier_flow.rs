//! The courier end to end: mail in, batch, mail out — allowances and costs, windows,
//! the GM's review, scheduled batches, merchant goods, spy interception.

mod common;

use common::Game;
use pbemd::game::Resources;
use pbemd::store::messages;

const TUESDAY: &str = "2026-11-24T09:00:00+01:00";

#[tokio::test]
async fn r_agent_4_the_sprakror_th_envoy_is_free_the_next_costs_and_a_dry_realm_is_refused_with_nothing_charged(
) {
    let g = Game::start(TUESDAY).await;
    g.edit_state(|s| {
        let r = s.realm_mut("Genogien").unwrap();
        r.positions.sprakror = 1;
        r.stock = Resources {
            mat: 1,
            tyg: 1,
            guld: 3,
            ..Resources::ZERO
        };
    })
    .await;
    for n in 1..=3 {
        g.send(
            "genogien@game.test",
            "Genogien skickar ett sändebud till Afani",
            &format!("Sändebud nummer {n}"),
        );
    }
    g.tick("2026-11-24T10:00:00+01:00").await;
    let out = g.outbox();
    let to_afani: Vec<_> = out.iter().filter(|m| m.to_is("afani@game.test")).collect();
    assert_eq!(to_afani.len(), 2, "the free one and the paid one arrive");
    let to_genogien: Vec<_> = out
        .iter()
        .filter(|m| m.to_is("genogien@game.test"))
        .collect();
    assert_eq!(to_genogien.len(), 3, "two receipts and a refusal");
    assert!(
        to_genogien.iter().any(|m| m.text.contains("fria kvoten")),
        "first is free"
    );
    assert!(
        to_genogien.iter().any(|m| m.text.contains("Kostnad:")),
        "second is paid"
    );
    let refusal = to_genogien
        .iter()
        .find(|m| !m.text.starts_with("Kvitto"))
        .unwrap();
    assert!(
        refusal.text.contains("Sändebud nummer 3") || refusal.text.contains("sändebud"),
        "{}",
        refusal.text
    );
    let s = g.state().await;
    assert_eq!(
        s.realm("Genogien").unwrap().stock,
        Resources::ZERO,
        "only the second was charged"
    );
}

#[tokio::test]
async fn r_mail_8_friday_23_59_59_is_accepted_and_saturday_00_00_00_refused() {
    let g = Game::start("2026-11-27T23:00:00+01:00").await;
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "i sista stund",
    );
    g.tick("2026-11-27T23:59:59+01:00").await;
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "för sent",
    );
    g.tick("2026-11-28T00:00:00+01:00").await;
    let to_afani: Vec<_> = g
        .outbox()
        .into_iter()
        .filter(|m| m.to_is("afani@game.test"))
        .collect();
    assert_eq!(to_afani.len(), 1);
    assert!(to_afani[0].text.contains("i sista stund"));
    let mut c = g.app.store.conn().await.unwrap();
    let refused = messages::in_states(&mut c, &[messages::state::REFUSED])
        .await
        .unwrap();
    assert_eq!(refused.len(), 1);
    assert!(refused[0].body.contains("för sent"));
}

#[tokio::test]
async fn r_mail_6_an_envoy_held_by_the_gm_over_the_weekend_still_goes_out_when_approved() {
    let g = Game::start_with("2026-11-27T20:00:00+01:00", "courier: {review: all}\n").await;
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "granskas",
    );
    g.tick("2026-11-27T21:00:00+01:00").await;
    assert!(
        g.outbox().iter().all(|m| !m.to_is("afani@game.test")),
        "held, not delivered"
    );
    let mut c = g.app.store.conn().await.unwrap();
    let held = messages::in_states(&mut c, &[messages::state::HELD])
        .await
        .unwrap();
    assert_eq!(held.len(), 1);
    drop(c);
    g.clock.set(common::at("2026-11-28T11:00:00+01:00"));
    let r = pbemd::app::gm::approve(&g.app, held[0].id, true)
        .await
        .unwrap();
    assert_eq!(
        r.delivered, 1,
        "judged by when it was received, not when approved"
    );
    pbemd::app::sender::flush_all(&g.app).await.unwrap();
    assert!(g
        .outbox()
        .iter()
        .any(|m| m.to_is("afani@game.test") && m.text.contains("granskas")));
}

#[tokio::test]
async fn a_rejected_message_tells_the_sender_and_charges_nothing() {
    let g = Game::start_with(TUESDAY, "courier: {review: all}\n").await;
    let before = g.state().await.realm("Genogien").unwrap().stock;
    g.send(
        "genogien@game.test",
        "Genogien skickar en handelsman till Afani",
        "Handel.\n****\nSkickar: 5 sten",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    let mut c = g.app.store.conn().await.unwrap();
    let held = messages::in_states(&mut c, &[messages::state::HELD])
        .await
        .unwrap();
    drop(c);
    pbemd::app::gm::reject(&g.app, held[0].id, "Handelsmän får bara handla.")
        .await
        .unwrap();
    pbemd::app::sender::flush_all(&g.app).await.unwrap();
    let to_g: Vec<_> = g
        .outbox()
        .into_iter()
        .filter(|m| m.to_is("genogien@game.test"))
        .collect();
    assert_eq!(to_g.len(), 1);
    assert!(
        to_g[0].text.contains("Handelsmän får bara handla."),
        "{}",
        to_g[0].text
    );
    assert_eq!(g.state().await.realm("Genogien").unwrap().stock, before);
    let mut c = g.app.store.conn().await.unwrap();
    let log = pbemd::store::events::filtered(&mut c, Some("Genogien"), Some(1))
        .await
        .unwrap();
    assert!(log.iter().any(|e| e.kind == "gm_rejected"), "{log:?}");
}

#[tokio::test]
async fn r_mail_6_in_batch_mode_envoys_go_out_at_the_next_courier_batch() {
    let g = Game::start_with(TUESDAY, "courier: {mode: batches}\n").await;
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "kvällsposten",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    assert!(g.outbox().is_empty(), "waits for the batch");
    let r = g.tick("2026-11-24T18:30:00+01:00").await;
    assert_eq!(r.delivered, 1);
    assert!(g
        .outbox()
        .iter()
        .any(|m| m.to_is("afani@game.test") && m.text.contains("kvällsposten")));
}

#[tokio::test]
async fn r_trade_6_merchant_goods_leave_the_sender_and_arrive_with_the_receiver() {
    let g = Game::start(TUESDAY).await;
    let sten = |s: &pbemd::game::GameState, r: &str| s.realm(r).unwrap().stock.sten;
    let (g0, a0) = {
        let s = g.state().await;
        (sten(&s, "Genogien"), sten(&s, "Afani"))
    };
    assert!(g0 >= 5, "the demo gives Genogien stone");
    g.send(
        "genogien@game.test",
        "Genogien skickar en handelsman till Afani",
        "Vi säljer sten.\n****\nSkickar: 5 sten\nVäntar: 6 guld",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    let s = g.state().await;
    assert_eq!((sten(&s, "Genogien"), sten(&s, "Afani")), (g0 - 5, a0 + 5));
    let delivery = g
        .outbox()
        .into_iter()
        .find(|m| m.to_is("afani@game.test"))
        .unwrap();
    assert!(
        delivery.text.contains("5") && delivery.text.contains("6"),
        "{}",
        delivery.text
    );
    // More than the sender holds: refused whole, nothing moves.
    g.send(
        "genogien@game.test",
        "Genogien skickar en handelsman till Afani",
        "Allt vi har.\n****\nSkickar: 9999 sten",
    );
    g.tick("2026-11-24T11:00:00+01:00").await;
    let s = g.state().await;
    assert_eq!((sten(&s, "Genogien"), sten(&s, "Afani")), (g0 - 5, a0 + 5));
}

#[tokio::test]
async fn r_spy_8_a_stationed_spy_steals_the_envoy_and_the_thief_gets_the_text() {
    let g = Game::start(TUESDAY).await;
    g.edit_state(|s| {
        let k = s.realm_mut("Kaldor").unwrap();
        k.spies = 1;
        k.positions.informator = 30;
    })
    .await;
    g.send(
        "kaldor@game.test",
        "Kaldor skickar en spion till Afani",
        "Uppdrag: stjäl sändebud",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "Hemliga planer för F5.",
    );
    g.tick("2026-11-24T11:00:00+01:00").await;
    let out = g.outbox();
    assert!(
        !out.iter()
            .any(|m| m.to_is("afani@game.test") && m.text.contains("Hemliga planer")),
        "the recipient never gets it"
    );
    let stolen = out
        .iter()
        .find(|m| m.to_is("kaldor@game.test") && m.text.contains("Hemliga planer"))
        .expect("the thief gets the full text");
    assert!(stolen.text.contains("Genogien"), "{}", stolen.text);
    // The right to one forgery is part of the versioned state.
    let rights = g.state().await.courier.forgery_rights.clone();
    assert_eq!(rights.len(), 1, "{rights:?}");
    assert_eq!(
        (rights[0].holder.as_str(), rights[0].used),
        ("Kaldor", false)
    );
    assert!(g
        .state()
        .await
        .contacts
        .iter()
        .any(|c| c.from == "Genogien" && c.to == "Afani"));
    // R-SPY-8: a plain reply to the interception mail is the free forged envoy, even
    // as a mail program writes it, quoting the mail it answers below the reply.
    let quoted: String = stolen.text.lines().map(|l| format!("> {l}\n")).collect();
    g.send(
        "kaldor@game.test",
        &format!("Re: {}", stolen.subject),
        &format!(
            "Avsändare: Genogien\nVi drar tillbaka allt vi sagt om F5.\n\n\
             Den tis 24 nov. 2026 kl 11:00 skrev <sl@game.test>:\n\n{quoted}"
        ),
    );
    g.tick("2026-11-24T12:00:00+01:00").await;
    let forged = g
        .outbox()
        .into_iter()
        .find(|m| m.to_is("afani@game.test") && m.text.contains("drar tillbaka"))
        .expect("the forgery reaches the original recipient");
    assert!(
        forged.subject.contains("Genogien"),
        "it looks like Genogien's: {}",
        forged.subject
    );
    assert!(
        !forged.text.contains("Kaldor"),
        "nothing gives the forger away: {}",
        forged.text
    );
    assert!(
        !forged.text.contains("snappat upp") && !forged.text.contains("Hemliga planer"),
        "nothing of the interception mail: {}",
        forged.text
    );
    let receipt = out.iter().find(|m| m.to_is("genogien@game.test")).unwrap();
    assert!(
        receipt.text.starts_with("Kvitto"),
        "the sender gets an ordinary receipt: {}",
        receipt.text
    );
}

/// R-INV-6, the rulebook's worked example, through mail and the weekend: A (Genogien)
/// asks B (Fugandri) for help by envoy, B answers that it will come if invited, A's
/// envoy carries the invitation to a square of A's land (C3); at the end of the weekend
/// B's army stands on C3, still B's, and may not move that round.
#[tokio::test]
async fn r_inv_6_the_worked_example_an_invited_army_is_teleported_to_the_square() {
    let g = Game::start(TUESDAY).await;
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Fugandri",
        "Hjälp oss mot Kaldor!",
    );
    g.send(
        "fugandri@game.test",
        "Fugandri skickar ett sändebud till Genogien",
        "Vi skickar en armé om vi får en inbjudan.",
    );
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Fugandri",
        "Kom till oss.\nInbjudan: C3",
    );
    g.tick("2026-11-24T10:00:00+01:00").await;
    let out = g.outbox();
    let to = |addr: &str, words: &str| out.iter().any(|m| m.to_is(addr) && m.text.contains(words));
    assert!(
        to("fugandri@game.test", "Hjälp oss mot Kaldor!"),
        "1. A asks B"
    );
    assert!(
        to("genogien@game.test", "om vi får en inbjudan"),
        "2. B answers"
    );
    let inv = g
        .state()
        .await
        .realm("Fugandri")
        .unwrap()
        .invitations
        .clone();
    assert_eq!(
        inv.iter()
            .map(|i| (i.from.as_str(), i.square.to_string()))
            .collect::<Vec<_>>(),
        [("Genogien", "C3".to_string())],
        "3. the invitation is Fugandri's to use"
    );
    let army = g.state().await.army("Fugandri", 1).unwrap().square;
    assert_ne!(army.to_string(), "C3");
    g.send(
        "fugandri@game.test",
        "Fugandri helgformulär",
        "INBJUDAN Genogien armé 1",
    );
    g.tick("2026-11-28T10:00:00+01:00").await;
    g.tick("2026-11-30T13:00:00+01:00").await;
    let s = g.state().await;
    assert_eq!(s.round, 2, "the weekend was resolved");
    let a = s.army("Fugandri", 1).expect("4. B's army, still B's");
    assert_eq!(a.square.to_string(), "C3", "4. teleported to the square");
    assert_eq!(
        a.no_move_until_round.map(|r| r.get()),
        Some(1),
        "4. it may not move that weekend"
    );
    assert!(
        s.realm("Fugandri").unwrap().invitations.is_empty(),
        "used up"
    );
    let monday = g
        .outbox()
        .into_iter()
        .rev()
        .find(|m| m.to_is("genogien@game.test") && m.subject.ends_with("helgformulär"))
        .expect("Genogien's Monday form");
    assert!(
        monday
            .text
            .contains("Fugandris armé 1 kom till C3 på din inbjudan."),
        "{}",
        monday.text
    );
}

/// R-INV-8 calls home troops that are in other countries: by mail, as on the form, a
/// home-invitation for a group in its own land is refused, and nothing is charged or
/// recorded.
#[tokio::test]
async fn r_inv_8_a_home_invitation_for_troops_at_home_is_refused_by_mail_too() {
    let g = Game::start("2026-11-27T09:00:00+01:00").await;
    let before = g.state().await.realm("Genogien").unwrap().stock;
    g.send(
        "genogien@game.test",
        "Genogien till SL: hembjudan",
        "Hembjudan: armé 1",
    );
    g.tick("2026-11-27T10:00:00+01:00").await;
    let s = g.state().await;
    assert!(s.home_invitations.is_empty());
    assert_eq!(
        s.realm("Genogien").unwrap().stock,
        before,
        "nothing charged"
    );
    let reply = g
        .outbox()
        .into_iter()
        .find(|m| {
            m.to_is("genogien@game.test") && m.text.contains("Armé 1 står redan i ert eget land")
        })
        .expect("the refusal, in Genogien's Swedish");
    assert!(reply.text.contains("R-INV-8"), "{}", reply.text);
}

#[tokio::test]
async fn r_inv_8_a_home_invitation_to_the_gm_is_recorded_and_shown_on_the_form() {
    let g = Game::start("2026-11-27T09:00:00+01:00").await;
    // Army 1 stands abroad, on a square of Afani's land without a city.
    g.edit_state(|s| {
        let abroad = s
            .map
            .squares
            .iter()
            .find(|(sq, m)| {
                m.owner.as_deref() == Some("Afani") && s.cities.iter().all(|c| c.square != *sq)
            })
            .expect("Afani's land")
            .0;
        s.armies
            .iter_mut()
            .find(|a| a.owner == "Genogien" && a.id == 1)
            .unwrap()
            .square = abroad;
    })
    .await;
    g.send(
        "genogien@game.test",
        "Genogien till SL: hembjudan",
        "Hembjudan: armé 1",
    );
    g.tick("2026-11-27T10:00:00+01:00").await;
    let s = g.state().await;
    assert_eq!(s.home_invitations.len(), 1, "recorded for the weekend");
    assert_eq!(s.home_invitations[0].realm, "Genogien");
    // Monday's form carries it… for the round it is valid in; the reminder on Sunday
    // shows the current form, which lists it.
    g.tick("2026-11-29T09:30:00+01:00").await;
    let reminder = g
        .outbox()
        .into_iter()
        .find(|m| m.to_is("genogien@game.test") && m.text.starts_with("Påminnelse"))
        .expect("Genogien sent no form, so it is reminded with its current form");
    assert!(
        reminder.text.contains("Hembjudan: armé 1"),
        "{}",
        reminder.text
    );
    // The form still parses back with the line on it.
    let form_start = reminder.text.find("======").unwrap();
    pbemd::forms::parse_form_view(&reminder.text[form_start..]).expect("parses back");
}

#[tokio::test]
async fn r_agent_4_the_free_allowance_renews_when_the_round_advances() {
    let g = Game::start("2026-11-27T09:00:00+01:00").await;
    g.edit_state(|s| {
        let r = s.realm_mut("Genogien").unwrap();
        r.positions.sprakror = 1;
        r.stock.guld = 30;
    })
    .await;
    let gold = |s: &pbemd::game::GameState| s.realm("Genogien").unwrap().stock.guld;
    for text in ["ett", "två"] {
        g.send(
            "genogien@game.test",
            "Genogien skickar ett sändebud till Afani",
            text,
        );
    }
    g.tick("2026-11-27T10:00:00+01:00").await;
    assert_eq!(
        gold(&*g.state().await),
        27,
        "round 1: the second envoy is paid for"
    );
    // The weekend closes (Sunday 15:00) and round 2's window opens on Monday.
    g.tick("2026-11-30T13:00:00+01:00").await;
    assert_eq!(g.state().await.round, 2);
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "tre",
    );
    g.tick("2026-11-30T14:00:00+01:00").await;
    assert_eq!(
        gold(&*g.state().await),
        27,
        "round 2's first envoy is free again"
    );
}

/// The d10 rolls of one courier batch in which Kaldor's five spies all go on a
/// mission, in a game whose config seed is `config_seed` and whose stored state
/// seed is then set to `state_seed`.
async fn spy_rolls(config_seed: u64, state_seed: u64) -> String {
    let g = Game::start_with(TUESDAY, "").await;
    let cfg = g.game_dir().join("pbemd.yaml");
    let g = if config_seed == 1 {
        g
    } else {
        let text = std::fs::read_to_string(&cfg).unwrap();
        assert!(text.contains("seed: 1\n"), "the new-game config has a seed");
        std::fs::write(
            &cfg,
            text.replace("seed: 1\n", &format!("seed: {config_seed}\n")),
        )
        .unwrap();
        let dir = g.dir;
        drop(g.app);
        Game::open_at(dir, &cfg, TUESDAY, false).await
    };
    g.edit_state(|s| {
        s.game.seed = state_seed;
        let k = s.realm_mut("Kaldor").unwrap();
        k.spies = 5;
        k.positions.informator = 5;
    })
    .await;
    for _ in 0..5 {
        g.send(
            "kaldor@game.test",
            "Kaldor skickar en spion till Afani",
            "Uppdrag: resurser",
        );
    }
    g.tick("2026-11-24T10:00:00+01:00").await;
    let mut c = g.app.store.conn().await.unwrap();
    let rolls = pbemd::store::events::of_kind(&mut c, "courier_dice")
        .await
        .unwrap();
    let detail: Vec<String> = rolls.into_iter().map(|e| e.detail).collect();
    assert!(
        detail.iter().any(|d| d != "[]"),
        "the spies rolled: {detail:?}"
    );
    detail.join("|")
}

#[tokio::test]
async fn courier_dice_come_from_the_seed_in_the_state_not_the_config() {
    let base = spy_rolls(1, 7).await;
    assert_eq!(
        spy_rolls(1, 7).await,
        base,
        "the same state seed rolls the same"
    );
    assert_eq!(
        spy_rolls(99, 7).await,
        base,
        "the config seed plays no part once the game is started"
    );
    assert_ne!(
        spy_rolls(1, 8).await,
        base,
        "another state seed rolls differently"
    );
}

#[tokio::test]
async fn init_stores_the_config_seed_in_the_state_over_the_scenario_seed() {
    let g = Game::start(TUESDAY).await;
    assert_eq!(
        g.state().await.game.seed,
        1,
        "the new-game config says seed: 1"
    );
}

#[tokio::test]
async fn batches_at_the_same_instant_roll_from_their_own_dice() {
    let g = Game::start(TUESDAY).await;
    g.edit_state(|s| {
        let k = s.realm_mut("Kaldor").unwrap();
        k.spies = 3;
        k.positions.informator = 5;
    })
    .await;
    // Mail handled together is decided by one batch: two passes at one instant make
    // two batches.
    for _ in 0..2 {
        g.send(
            "kaldor@game.test",
            "Kaldor skickar en spion till Afani",
            "Uppdrag: resurser",
        );
        g.tick("2026-11-24T10:00:00+01:00").await;
    }
    let mut c = g.app.store.conn().await.unwrap();
    let batches = pbemd::store::events::of_kind(&mut c, "courier_dice")
        .await
        .unwrap();
    let purposes: std::collections::BTreeSet<String> = batches
        .iter()
        .flat_map(|e| {
            let rolls: Vec<serde_json::Value> = serde_json::from_str(&e.detail).unwrap();
            rolls
                .into_iter()
                .map(|r| r["purpose"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        purposes.len(),
        batches.len(),
        "every batch has its own dice: {purposes:?}"
    );
    assert_eq!(batches.len(), 2, "one batch per pass in live mode");
}

/// Store what waits in the game's inbox, without handling it.
async fn store_waiting(g: &Game) {
    pbemd::app::intake::maildir_once(&g.app, &g.inbox)
        .await
        .unwrap();
}

/// Every message's outcome and every outgoing mail (kind, subject, text), as stored.
async fn written(
    g: &Game,
) -> (
    Vec<(i64, String, Option<String>)>,
    Vec<(String, String, String)>,
) {
    use sqlx::Row;
    let mut c = g.app.store.conn().await.unwrap();
    let ms = sqlx::query("SELECT id, state, reason FROM messages ORDER BY id")
        .fetch_all(&mut *c)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let out = pbemd::store::outbox::all_mail(&mut c)
        .await
        .unwrap()
        .into_iter()
        .map(|(kind, subject, raw)| (kind, subject, common::Sent::parse(&raw).text))
        .collect();
    (ms, out)
}

/// The same mails sent to a game: envoys (one with a NUL the store drops), a merchant
/// with goods it cannot pay, a spy, and a mail to the GM.
fn send_mixed(g: &Game) {
    let envoy = "Genogien skickar ett sändebud till Afani";
    g.send("genogien@game.test", envoy, "Första\u{0}sändebudet");
    g.send(
        "afani@game.test",
        "Afani skickar ett sändebud till Genogien",
        "Svar",
    );
    g.send(
        "genogien@game.test",
        "Genogien skickar en handelsman till Afani",
        "SKICKAR 5 guld\nVILL HA 2 tyg",
    );
    g.send(
        "genogien@game.test",
        "Genogien skickar en spion till Afani",
        "Uppdrag 1",
    );
    g.send("genogien@game.test", "Genogien till SL: en fråga", "Hej");
    g.send("genogien@game.test", envoy, "Andra sändebudet");
}

#[tokio::test]
async fn a_batch_and_its_courier_in_one_transaction_write_what_two_transactions_write() {
    let (one, two) = (Game::start(TUESDAY).await, Game::start(TUESDAY).await);
    for g in [&one, &two] {
        send_mixed(g);
        store_waiting(g).await;
    }
    let (handled, routed) = pbemd::app::process::process_and_route_before(&one.app, None)
        .await
        .unwrap();
    let routed = routed.expect("immediate mode: the courier ran in the batch");
    assert_eq!(handled, 6);
    assert!(routed.delivered >= 2, "{routed:?}");
    pbemd::app::process::process_batch_before(&two.app, None)
        .await
        .unwrap();
    let apart = pbemd::app::courier::batch_now(&two.app).await.unwrap();
    assert_eq!(
        (routed.decided, routed.delivered, routed.refused),
        (apart.decided, apart.delivered, apart.refused)
    );
    let (a, b) = (written(&one).await, written(&two).await);
    assert_eq!(a.0, b.0, "every message's outcome");
    assert_eq!(a.1.len(), b.1.len(), "as many mails out");
    for (x, y) in a.1.iter().zip(&b.1) {
        assert_eq!(x, y, "the same mail out");
    }
    assert!(
        a.1.iter()
            .any(|(_, _, text)| text.contains("Förstasändebudet")),
        "the envoy as stored, without its NUL"
    );
    assert_eq!(*one.state().await, *two.state().await);
}

#[tokio::test]
async fn messages_queued_before_a_batch_are_decided_with_it_in_order_of_receipt() {
    let g = Game::start(TUESDAY).await;
    let envoy = "Genogien skickar ett sändebud till Afani";
    g.send("genogien@game.test", envoy, "Sändebud nummer 1");
    store_waiting(&g).await;
    // Handled, not decided: it waits in the courier's queue.
    pbemd::app::process::process_batch_before(&g.app, None)
        .await
        .unwrap();
    g.send("genogien@game.test", envoy, "Sändebud nummer 2");
    store_waiting(&g).await;
    let (handled, routed) = pbemd::app::process::process_and_route_before(&g.app, None)
        .await
        .unwrap();
    assert_eq!(handled, 1);
    assert_eq!(routed.map(|r| r.delivered), Some(2), "both go out");
    let out = written(&g).await.1;
    let deliveries: Vec<usize> = out
        .iter()
        .filter(|(kind, _, _)| kind == "envoy_delivery")
        .filter_map(|(_, _, text)| {
            text.find("Sändebud nummer ")
                .map(|i| text.as_bytes()[i + 17])
        })
        .map(|d| usize::from(d - b'0'))
        .collect();
    assert_eq!(deliveries, [1, 2], "the older one first");
}

/// A batch as fetched over IMAP: the mixed mails of [`send_mixed`] and an unknown
/// sender, received from 09:10 on, not in order of UID, and one mail fetched twice.
fn fetched_mixed() -> Vec<pbemd::transport::imap::Fetched> {
    let envoy = "Genogien skickar ett sändebud till Afani";
    let mails = [
        ("genogien@game.test", envoy, "Första\u{0}sändebudet"),
        (
            "afani@game.test",
            "Afani skickar ett sändebud till Genogien",
            "Svar",
        ),
        (
            "genogien@game.test",
            "Genogien skickar en handelsman till Afani",
            "SKICKAR 5 guld\nVILL HA 2 tyg",
        ),
        (
            "genogien@game.test",
            "Genogien skickar en spion till Afani",
            "Uppdrag 1",
        ),
        ("genogien@game.test", "Genogien till SL: en fråga", "Hej"),
        ("nobody@elsewhere.test", envoy, "Vem är jag?"),
        ("genogien@game.test", envoy, "Andra sändebudet"),
    ];
    // Minutes after 09:00: the third mail came before the second.
    let minutes = [10, 30, 20, 40, 41, 42, 50];
    let mut out: Vec<_> = mails
        .iter()
        .zip(minutes)
        .enumerate()
        .map(
            |(i, ((from, subject, body), m))| pbemd::transport::imap::Fetched {
                uid: i as u32 + 1,
                raw: common::mail(from, subject, body, &format!("f{i}@players.test")),
                internal_date: Some(common::at(&format!("2026-11-24T09:{m}:00+01:00"))),
            },
        )
        .collect();
    let mut again = out[1].clone();
    again.uid = 8;
    out.push(again);
    out
}

/// Every row of every table of a game's database, each value as text (the game's
/// directory written as `<dir>`).
async fn every_row(g: &Game) -> Vec<(String, Vec<Vec<String>>)> {
    use sqlx::Row;
    let dir = g.dir.path().display().to_string();
    let mut c = g.app.store.conn().await.unwrap();
    let tables: Vec<String> = sqlx::query(
        "SELECT name FROM sqlite_master WHERE type = 'table' \
         AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_sqlx%' ORDER BY name",
    )
    .fetch_all(&mut *c)
    .await
    .unwrap()
    .iter()
    .map(|r| r.get(0))
    .collect();
    let mut out = Vec::new();
    for t in tables {
        let rows = sqlx::query(&format!("SELECT * FROM {t} ORDER BY 1"))
            .fetch_all(&mut *c)
            .await
            .unwrap();
        let rows = rows
            .iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| {
                        if let Ok(v) = r.try_get::<Option<i64>, _>(i) {
                            format!("{v:?}")
                        } else if let Ok(v) = r.try_get::<Option<String>, _>(i) {
                            format!("{v:?}")
                        } else if let Ok(v) = r.try_get::<Option<Vec<u8>>, _>(i) {
                            format!("{v:?}")
                        } else {
                            format!("{:?}", r.try_get::<Option<f64>, _>(i).unwrap())
                        }
                        .replace(&dir, "<dir>")
                    })
                    .collect()
            })
            .collect();
        out.push((t, rows));
    }
    out
}

/// docs/gm/reliability.md: a batch fetched over IMAP and handled in the transaction that
/// stores it writes, row by row, what storing it and then handling it as the worker
/// does write (in order of receipt, the duplicate stored once).
#[tokio::test]
async fn a_batch_handled_as_it_is_stored_writes_what_storing_then_handling_write() {
    use pbemd::app::intake::{store_fetched, Taken};
    let (one, two) = (Game::start(TUESDAY).await, Game::start(TUESDAY).await);
    // One signing key for both games (a notice to the GM is keyed with it).
    for g in [&one, &two] {
        let mut c = g.app.store.conn().await.unwrap();
        let key = pbemd::store::meta::SITE_SECRET;
        pbemd::store::meta::set(&mut c, key, &"ab".repeat(32))
            .await
            .unwrap();
    }
    let batch = fetched_mixed();
    for g in [&one, &two] {
        g.clock.set(common::at("2026-11-24T10:00:00+01:00"));
    }
    let taken = store_fetched(&one.app, &batch, (7, None), true)
        .await
        .unwrap();
    assert_eq!((taken.stored, taken.handled), (7, 7), "{taken:?}");
    assert!(taken.delivered >= 2, "{taken:?}");
    let apart = store_fetched(&two.app, &batch, (7, None), false)
        .await
        .unwrap();
    assert_eq!(
        apart,
        Taken {
            stored: 7,
            handled: 0,
            delivered: 0
        }
    );
    let (handled, routed) = pbemd::app::process::process_and_route_before(&two.app, None)
        .await
        .unwrap();
    assert_eq!(handled, 7);
    assert_eq!(routed.map(|r| r.delivered), Some(taken.delivered));
    let (a, b) = (every_row(&one).await, every_row(&two).await);
    assert_eq!(
        a.iter().map(|(t, _)| t).collect::<Vec<_>>(),
        b.iter().map(|(t, _)| t).collect::<Vec<_>>()
    );
    for ((table, x), (_, y)) in a.iter().zip(&b) {
        assert_eq!(x.len(), y.len(), "{table}: as many rows");
        for (rx, ry) in x.iter().zip(y) {
            assert_eq!(rx, ry, "{table}: the same row");
        }
    }
    let (ms, out) = written(&one).await;
    assert_eq!(ms.len(), 7, "a message for every mail stored");
    assert!(
        out.iter()
            .any(|(_, _, text)| text.contains("Förstasändebudet")),
        "the envoy as stored, without its NUL"
    );
}

/// Mail stored before a batch and still waiting is handled first: the batch is not
/// handled as it is stored but waits for the worker, which takes both in order.
#[tokio::test]
async fn a_batch_fetched_while_older_mail_waits_is_left_to_the_worker() {
    use pbemd::app::intake::store_fetched;
    let g = Game::start(TUESDAY).await;
    g.clock.set(common::at("2026-11-24T10:00:00+01:00"));
    let batch = fetched_mixed();
    let first = store_fetched(&g.app, &batch[..1], (7, None), false)
        .await
        .unwrap();
    assert_eq!((first.stored, first.handled), (1, 0));
    let rest = store_fetched(&g.app, &batch[1..], (7, Some(1)), true)
        .await
        .unwrap();
    assert_eq!((rest.stored, rest.handled), (6, 0), "left to the worker");
    let r = g.tick("2026-11-24T10:00:00+01:00").await;
    assert_eq!(r.handled, 7, "{r:?}");
    let mut c = g.app.store.conn().await.unwrap();
    let kinds: Vec<(i64, String)> = messages::all(&mut c)
        .await
        .unwrap()
        .into_iter()
        .map(|m| (m.inbox_id, m.kind))
        .collect();
    assert_eq!(kinds[0], (1, "envoy".to_string()), "the older one first");
}

/// A game not started yet keeps a fetched batch for later, unhandled, as it did
/// before batches were handled as they are stored.
#[tokio::test]
async fn a_batch_fetched_before_the_game_starts_is_stored_for_later() {
    use pbemd::app::intake::store_fetched;
    let dir = tempfile::tempdir().unwrap();
    let cfg = pbemd::app::setup::new_game_dir(&dir.path().join("g"), None).unwrap();
    let g = Game::open_at(dir, &cfg, TUESDAY, false).await;
    let taken = store_fetched(&g.app, &fetched_mixed()[..2], (7, None), true)
        .await
        .unwrap();
    assert_eq!((taken.stored, taken.handled), (2, 0), "{taken:?}");
}

/// A game like [`Game::start`] whose database is a fresh PostgreSQL one at `url`.
async fn pg_game(url: &str) -> Game {
    let dir = tempfile::tempdir().unwrap();
    let cfg = pbemd::app::setup::new_game_dir(&dir.path().join("g"), None).unwrap();
    let text = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("database: sqlite:pbemd.db", &format!("database: {url}"));
    assert!(text.contains(url), "the config names its database");
    std::fs::write(&cfg, text).unwrap();
    Game::open_at(dir, &cfg, TUESDAY, true).await
}

/// On PostgreSQL (where writers do not queue for one lock), a form received at 14:59:55
/// but stored while the resolution at the 15:00 deadline holds the game is taken as
/// received when the resolution committed, not before it: the time it is clamped to is
/// read under the game lock, and the event moves the game's latest time in its own
/// transaction. (It read the time before waiting, so the form counted in the closed
/// weekend against the next round's state.)
#[tokio::test]
async fn on_postgres_mail_stored_while_an_event_holds_the_game_is_received_after_it() {
    use pbemd::app::intake::store_fetched;
    use pbemd::store::meta;
    let Some(url) = common::pg_database_url().await else {
        return;
    };
    let g = pg_game(&url).await;
    let deadline = common::at("2026-11-29T15:00:00+01:00");
    g.clock.set(common::at("2026-11-29T15:00:05+01:00"));
    // The resolution in progress: it holds the game lock in its transaction.
    let mut event = g.app.store.begin().await.unwrap();
    pbemd::store::lease::game_lock(&g.app.store, &mut event)
        .await
        .unwrap();
    let form = pbemd::transport::imap::Fetched {
        uid: 1,
        raw: common::mail(
            "genogien@game.test",
            "Genogien helgformulär",
            "KÖP 1 spion",
            "late-form@players.test",
        ),
        internal_date: Some(common::at("2026-11-29T14:59:55+01:00")),
    };
    let done = std::sync::atomic::AtomicBool::new(false);
    let store = async {
        let taken = store_fetched(&g.app, &[form], (7, None), false).await;
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        taken
    };
    let event_commits = async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let waited = !done.load(std::sync::atomic::Ordering::SeqCst);
        let at = pbemd::clock::to_ms(deadline).to_string();
        meta::set(&mut event, meta::LAST_NOW, &at).await.unwrap();
        event.commit().await.unwrap();
        waited
    };
    let (taken, waited) = tokio::join!(store, event_commits);
    assert!(waited, "the intake waits for the event");
    assert_eq!(taken.unwrap().stored, 1);
    use sqlx::Row;
    let mut c = g.app.store.conn().await.unwrap();
    let received: i64 = sqlx::query("SELECT received_at FROM inbox")
        .fetch_one(&mut *c)
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        received,
        pbemd::clock::to_ms(deadline),
        "received when the deadline's event committed"
    );
}

/// Every stored mail's id, state and when it was handled.
async fn inbox_rows(g: &Game) -> Vec<(i64, String, Option<i64>)> {
    use sqlx::Row;
    let mut c = g.app.store.conn().await.unwrap();
    sqlx::query("SELECT id, state, processed_at FROM inbox ORDER BY id")
        .fetch_all(&mut *c)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

/// On PostgreSQL too, a batch handled as it is stored writes what storing it and then
/// handling it write: the stored mails, every message's outcome, every mail out.
#[tokio::test]
async fn on_postgres_a_batch_handled_as_it_is_stored_writes_what_storing_then_handling_write() {
    use pbemd::app::intake::store_fetched;
    let (Some(a), Some(b)) = (
        common::pg_database_url().await,
        common::pg_database_url().await,
    ) else {
        return;
    };
    let (one, two) = (pg_game(&a).await, pg_game(&b).await);
    let batch = fetched_mixed();
    for g in [&one, &two] {
        g.clock.set(common::at("2026-11-24T10:00:00+01:00"));
    }
    let taken = store_fetched(&one.app, &batch, (7, None), true)
        .await
        .unwrap();
    assert_eq!((taken.stored, taken.handled), (7, 7), "{taken:?}");
    store_fetched(&two.app, &batch, (7, None), false)
        .await
        .unwrap();
    let (handled, routed) = pbemd::app::process::process_and_route_before(&two.app, None)
        .await
        .unwrap();
    assert_eq!(handled, 7);
    assert_eq!(routed.map(|r| r.delivered), Some(taken.delivered));
    assert_eq!(inbox_rows(&one).await, inbox_rows(&two).await);
    let (x, y) = (written(&one).await, written(&two).await);
    assert_eq!(x.0, y.0, "every message's outcome");
    assert_eq!(x.1, y.1, "the same mails out");
    assert_eq!(*one.state().await, *two.state().await);
}

/// The state version a courier batch writes is kept as the cached state once its
/// transaction has committed (so the next batch does not read back and parse the
/// document it has just written), never before; and it is the state the store holds,
/// the same as that version read and parsed afresh.
#[tokio::test]
async fn the_state_a_courier_batch_wrote_is_kept_once_committed_and_is_the_stored_one() {
    let g = Game::start(TUESDAY).await;
    send_mixed(&g);
    store_waiting(&g).await;
    pbemd::app::process::process_batch_before(&g.app, None)
        .await
        .unwrap();
    let before = g.state().await;
    // A batch rolled back: what it wrote is not kept.
    let mut tx = g.app.store.begin_write().await.unwrap();
    let r = pbemd::app::courier::run_batch(&g.app, &mut tx, g.app.now())
        .await
        .unwrap();
    let saved = r.saved.expect("the batch wrote a version");
    tx.rollback().await.unwrap();
    assert!(std::sync::Arc::ptr_eq(&g.state().await, &before));
    // Committed (as `batch_now` does it): kept, and no longer in the report.
    let r = pbemd::app::courier::batch_now(&g.app).await.unwrap();
    assert!(r.decided > 0 && r.saved.is_none(), "{r:?}");
    let kept = g.state().await;
    assert_eq!(kept.contacts.len(), saved.state.contacts.len());
    assert!(kept.contacts.len() > before.contacts.len());
    // The same as read afresh from the store.
    g.app.forget_state();
    let read = g.state().await;
    assert!(!std::sync::Arc::ptr_eq(&kept, &read), "read afresh");
    assert_eq!(*kept, *read);
    assert_eq!(
        serde_json::to_string(&*kept).unwrap(),
        serde_json::to_string(&*read).unwrap()
    );
}

/// Handled and routed in one transaction, by the worker and by the IMAP intake's
/// path: the courier's version is kept once the batch has committed.
#[tokio::test]
async fn a_handled_batchs_courier_state_is_kept_once_committed() {
    let g = Game::start(TUESDAY).await;
    send_mixed(&g);
    store_waiting(&g).await;
    let (_, routed) = pbemd::app::process::process_and_route_before(&g.app, None)
        .await
        .unwrap();
    assert!(
        routed.expect("routed").saved.is_none(),
        "handed to the cache"
    );
    let kept = g.state().await;
    let mut c = g.app.store.conn().await.unwrap();
    let (version, _) = g.app.state(&mut c).await.unwrap();
    assert_eq!(
        Some(version),
        pbemd::store::state::latest_version(&mut c).await.unwrap()
    );
    g.app.forget_state();
    assert_eq!(*kept, *g.state().await);
}

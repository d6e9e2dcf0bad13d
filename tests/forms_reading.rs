//! Reading replies and checking them against the demo state: mail-client
//! shapes give the same orders; the untouched Monday form gives nothing;
//! costs run down in order; caps, limits, spells and paths are checked
//! (named by rule ID).

use pbemd::forms::{self, extract_orders, read_form, receipt_text, Checked, Refusal, Source};
use pbemd::game::{load_scenario, GameState, Lang, Resource, Resources};
use pbemd::render::{FormContext, Renderer};

const DEMO: &str = include_str!("../scenarios/demo.yaml");
const EVIL: &str = include_str!("../scenarios/evil.yaml");
const START: &str = "=== ORDRAR / ORDERS: skriv nedanför denna rad ===";
const END: &str = "=== SLUT PÅ ORDRAR / END OF ORDERS ===";

fn demo() -> GameState {
    load_scenario(DEMO).unwrap()
}

fn monday_form(s: &GameState, realm: &str) -> String {
    let ctx = FormContext {
        deadline_local: "söndag 29 november 2026 15:00".into(),
        window_local: String::new(),
        game_address: "sl@game.test".into(),
        realms_listed: None,
    };
    Renderer::new()
        .unwrap()
        .result_form(s, realm, &ctx)
        .unwrap()
}

fn filled(form: &str, orders: &[&str]) -> String {
    let mut out = String::new();
    for line in form.lines() {
        if line == END {
            for o in orders {
                out.push_str(o);
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn quote(text: &str, prefix: &str) -> String {
    text.lines().map(|l| format!("{prefix}{l}\n")).collect()
}

fn texts(e: &forms::Extracted) -> Vec<String> {
    e.lines.iter().map(|(_, t)| t.clone()).collect()
}

const ORDERS: &[&str] = &["KÖP 2 spion", "VÄN Afani", "FLYTTA armé 2: D3 D4"];

#[test]
fn the_untouched_monday_form_of_every_demo_realm_yields_zero_orders_and_zero_errors() {
    for yaml in [DEMO, EVIL] {
        let s = load_scenario(yaml).unwrap();
        for realm in s.realm_names() {
            let form = monday_form(&s, realm);
            let c = read_form(&s, realm, &form, &[]);
            assert!(c.lines.is_empty(), "{realm}: {:?}", c.lines);
            assert!(c.markers_found, "{realm}");
            // Also as a quoted reply with nothing added, and as an attachment.
            let c = read_form(&s, realm, &quote(&form, "> "), &[]);
            assert!(c.lines.is_empty(), "{realm} quoted: {:?}", c.lines);
            let c = read_form(&s, realm, "Se bifogat.", &[&form]);
            assert!(c.lines.is_empty(), "{realm} attached: {:?}", c.lines);
        }
    }
}

#[test]
fn replies_in_real_mail_clients_shapes_give_the_same_orders() {
    let s = demo();
    let form = monday_form(&s, "Genogien");
    let full = filled(&form, ORDERS);
    let fresh = ORDERS.join("\n");
    let sig = "-- \nKalle Kung\nGenogien\n";
    let html_like = full
        .replace(
            START,
            "===\u{a0}ORDRAR / ORDERS:  skriv nedanför denna rad ===  ",
        )
        .replace("KÖP 2 spion", "KÖP\u{a0}2 spion  ");
    let inline = {
        let q = quote(&form, "> ");
        let end = format!("> {END}");
        q.replace(&end, &format!("{fresh}\n{end}"))
    };
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        ("filled form", full.clone(), vec![]),
        ("filled form with signature", format!("{full}{sig}"), vec![]),
        ("forwarded, quoted once", quote(&full, "> "), vec![]),
        ("forwarded, quoted twice", quote(&full, "> > "), vec![]),
        ("quoted without space", quote(&full, ">"), vec![]),
        (
            "top-posted above the quoted form",
            format!(
                "Hej!\n{fresh}\n\n{sig}\nDen 23 nov. 2026 skrev sl@game.test:\n{}",
                quote(&form, "> ")
            ),
            vec![],
        ),
        (
            "bottom-posted below the quoted form",
            format!(
                "On Mon, 23 Nov 2026 sl@game.test wrote:\n{}\n{fresh}\n{sig}",
                quote(&form, "> ")
            ),
            vec![],
        ),
        ("inline inside the quoted section", inline, vec![]),
        ("html converted", html_like, vec![]),
        (
            "outlook top-post over an unquoted old form",
            format!("{fresh}\n\n-----Original Message-----\nFrom: sl@game.test\n{form}"),
            vec![],
        ),
        (
            "markers lost",
            format!("Hej SL,\nhär är mina order:\n{fresh}\nMvh\n{sig}"),
            vec![],
        ),
        (
            "attachment",
            "Se bifogad fil.\n-- \nKalle".to_string(),
            vec![full.as_str()],
        ),
    ];
    for (name, body, atts) in cases {
        let e = extract_orders(&body, &atts);
        assert_eq!(texts(&e), ORDERS, "{name}: {:?}", e);
        let c = read_form(&s, "Genogien", &body, &atts);
        assert_eq!(c.lines.len(), ORDERS.len(), "{name}");
    }
}

#[test]
fn fresh_orders_win_over_a_quoted_filled_form_and_signatures_never_become_orders() {
    let s = demo();
    let form = monday_form(&s, "Genogien");
    let old = filled(&form, &["RÖST Kaldor", "KÖP 1 spion"]);
    let new = filled(&form, ORDERS);
    let body = format!("{new}\n-- \nVÄN Kaldor\n\n{}", quote(&old, "> "));
    let e = extract_orders(&body, &[]);
    assert_eq!(texts(&e), ORDERS);
    assert_eq!(e.source, Source::BodySection);
    // Markers lost and a signature that looks like an order.
    let e = extract_orders("VÄN Afani\n-- \nRÖST Kaldor\n", &[]);
    assert_eq!(texts(&e), vec!["VÄN Afani"]);
}

fn genogien_rich() -> GameState {
    let mut s = demo();
    for c in s.cities.iter_mut().filter(|c| c.owner == "Genogien") {
        c.population = 300;
    }
    s
}

fn set_stock(s: &mut GameState, pairs: &[(Resource, u32)]) {
    s.realm_mut("Genogien").unwrap().stock = Resources::from_pairs(pairs);
}

fn lines(v: &[&str]) -> Vec<(usize, String)> {
    v.iter()
        .enumerate()
        .map(|(i, t)| (i + 1, t.to_string()))
        .collect()
}

fn rule(c: &Checked, i: usize) -> String {
    match &c.lines[i].refusal {
        Some(r @ Refusal::Syntax(_)) | Some(r @ Refusal::Earlier { .. }) => {
            panic!("line {i}: {r:?}")
        }
        Some(r) => r.rule().expect("a rule refusal cites its rule").to_string(),
        None => panic!("line {i} was accepted"),
    }
}

#[test]
fn r_build_4_costs_run_down_in_order_the_overdraw_is_refused_and_later_cheaper_orders_pass() {
    use Resource::*;
    let mut s = genogien_rich();
    set_stock(&mut s, &[(Mat, 10), (Guld, 10), (Tyg, 10), (Jarn, 10)]);
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&[
            "KÖP 5 lätt infanteri B2",
            "KÖP 3 tungt infanteri B2",
            "KÖP 2 lätt infanteri B2",
        ]),
    );
    assert!(c.lines[0].accepted());
    assert_eq!(rule(&c, 1), "R-BUILD-4");
    assert!(c.lines[2].accepted());
    assert_eq!(c.lines[1].cost, Resources::ZERO);
    assert_eq!(
        c.stock_after,
        Resources::from_pairs(&[(Mat, 3), (Guld, 3), (Tyg, 3), (Jarn, 3)])
    );
    let text = receipt_text(&c, Lang::Sv, "söndag 29 november 2026 15:00");
    assert!(text.lines().all(|l| l.chars().count() <= 78), "{text}");
    assert!(text.contains("[NEJ] KÖP 3 tungt infanteri B2"), "{text}");
    assert!(text.contains("armé 1 står kvar på B2"), "{text}");
    let json = serde_json::to_string(&c).unwrap();
    let back: Checked = serde_json::from_str(&json).unwrap();
    assert_eq!(back, c);
}

#[test]
fn r_pop_2_purchase_over_the_cap_is_refused() {
    let mut s = demo();
    // Genogien: 13 counted units; population 130 puts it at the cap.
    for (c, pop) in s
        .cities
        .iter_mut()
        .filter(|c| c.owner == "Genogien")
        .zip([60, 40, 30])
    {
        c.population = pop;
    }
    set_stock(
        &mut s,
        &[
            (Resource::Mat, 99),
            (Resource::Guld, 99),
            (Resource::Tyg, 99),
            (Resource::Jarn, 99),
            (Resource::Hastar, 99),
        ],
    );
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&["KÖP 1 lätt infanteri B2", "KÖP 1 spion", "VÄN Afani"]),
    );
    assert_eq!(rule(&c, 0), "R-POP-2");
    assert_eq!(rule(&c, 1), "R-POP-2");
    assert!(c.lines[2].accepted());
}

#[test]
fn rulings_43_spies_over_the_informant_cap_are_refused() {
    let mut s = genogien_rich(); // Informatör 5, 1 spy held.
    set_stock(
        &mut s,
        &[
            (Resource::Mat, 99),
            (Resource::Guld, 99),
            (Resource::Hastar, 99),
        ],
    );
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&["KÖP 5 spion", "KÖP 4 spion", "KÖP 1 spion"]),
    );
    assert_eq!(rule(&c, 0), "RULINGS 43");
    assert!(c.lines[1].accepted());
    assert_eq!(rule(&c, 2), "RULINGS 43");
}

#[test]
fn r_pos_2_and_rulings_9_one_step_per_position_and_at_most_forskare_steps() {
    use Resource::*;
    let mut s = genogien_rich(); // Forskare 3.
    set_stock(
        &mut s,
        &[
            (Guld, 99),
            (Mat, 99),
            (Eld, 99),
            (Timmer, 99),
            (Jarn, 99),
            (Slavar, 99),
            (Sten, 99),
            (Hastar, 99),
        ],
    );
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&[
            "UPPGRADERA befälhavare",
            "UPPGRADERA befälhavare",
            "UPPGRADERA amiral 5 eld",
            "PRODUKTION B2 järn",
            "PRODUKTION B2 sten",
            "UPPGRADERA amiral 2 eld 2 guld 1 mat",
        ]),
    );
    assert!(c.lines[0].accepted());
    assert_eq!(rule(&c, 1), "R-POS-2");
    assert!(c.lines[2].accepted());
    assert!(c.lines[3].accepted());
    assert_eq!(rule(&c, 4), "RULINGS 9");
    assert_eq!(c.lines[0].cost.eld, 5);
}

#[test]
fn r_spell_1_each_spell_once_a_round() {
    let mut s = genogien_rich();
    set_stock(&mut s, &[(Resource::Eld, 20), (Resource::Vatten, 20)]);
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&[
            "FORMEL skörd",
            "FORMEL skörd",
            "FORMEL svält Afani",
            "FORMEL brand Narnia",
        ]),
    );
    assert!(c.lines[0].accepted());
    assert_eq!(rule(&c, 1), "R-SPELL-1");
    assert!(c.lines[2].accepted());
    assert_eq!(rule(&c, 3), "R-SPELL-11");
}

#[test]
fn rulings_26_squares_exist_paths_connect_and_fit_the_movement() {
    let s = genogien_rich();
    // Army 1 (B2): movement 1. Army 2 (D2, light cavalry): movement 3.
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&[
            "FLYTTA armé 2: D3 E5",
            "FLYTTA armé 2: Z40",
            "FLYTTA armé 1: B3 B4",
            "FLYTTA armé 9: B3",
            "FLYTTA armé 2: D3 D4 D5",
            "FLYTTA armé 2: D3",
        ]),
    );
    assert_eq!(rule(&c, 0), "RULINGS 26");
    assert_eq!(rule(&c, 1), "R-MOVE-12");
    assert_eq!(rule(&c, 2), "R-MOVE-1");
    assert_eq!(rule(&c, 3), "R-MOVE-1");
    assert!(c.lines[4].accepted());
    assert_eq!(rule(&c, 5), "R-MOVE-1");
    assert!(
        c.standing
            .iter()
            .any(|st| st.sv == "armé 2 flyttar till D5"),
        "{:?}",
        c.standing
    );
}

#[test]
fn rulings_24_group_movement_min_limits_the_form_to_the_slowest_unit() {
    let mut s = genogien_rich();
    s.settings.group_movement = pbemd::game::state::GroupMovement::Min;
    // Army 2 (D2): light cavalry (movement 3) and now a light infantry (movement 1).
    let a = s
        .armies
        .iter_mut()
        .find(|a| a.owner == "Genogien" && a.id == 2)
        .unwrap();
    let mut slow = a.units[0];
    slow.kind = pbemd::game::UnitKind::LattInfanteri;
    a.units.push(slow);
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&["FLYTTA armé 2: D3 D4", "FLYTTA armé 2: D3"]),
    );
    assert_eq!(rule(&c, 0), "R-MOVE-1");
    assert!(c.lines[1].accepted());
}

#[test]
fn rulings_26_adjacency_8_lets_the_form_take_a_diagonal_step() {
    let mut s = genogien_rich();
    // Army 2 stands on D2; E3 touches it only at a corner.
    let c = forms::check(&s, "Genogien", &lines(&["FLYTTA armé 2: E3"]));
    assert_eq!(rule(&c, 0), "RULINGS 26");
    s.settings.adjacency = 8;
    let c = forms::check(&s, "Genogien", &lines(&["FLYTTA armé 2: E3"]));
    assert!(c.lines[0].accepted());
}

#[test]
fn rulings_40_the_form_checks_the_engineers_price_setting() {
    let mut s = genogien_rich();
    set_stock(&mut s, &[(Resource::Jarn, 99), (Resource::Sten, 99)]);
    s.settings.engineers_price = 40;
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&["INGENJÖRER 10 järn 20 sten", "INGENJÖRER 20 järn 20 sten"]),
    );
    assert_eq!(rule(&c, 0), "R-FREE-7");
    assert!(c.lines[1].accepted());
}

#[test]
fn rulings_47_the_form_counts_rewards_by_the_threshold_step_setting() {
    let mut s = genogien_rich();
    s.realm_mut("Genogien").unwrap().vp = 650;
    s.realm_mut("Genogien").unwrap().vp_rewards_taken.clear();
    s.settings.vp_threshold_step = 300;
    // 650 VP: thresholds 300 and 600, two rewards.
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&[
            "BELÖNING befälhavare",
            "BELÖNING amiral",
            "BELÖNING informatör",
        ]),
    );
    assert!(c.lines[0].accepted());
    assert!(c.lines[1].accepted());
    assert_eq!(rule(&c, 2), "R-VP-4");
}

#[test]
fn rulings_9_the_form_lets_a_vp_reward_and_an_upgrade_raise_one_position() {
    let mut s = genogien_rich();
    let all: Vec<(Resource, u32)> = Resource::ALL.iter().map(|&r| (r, 99)).collect();
    set_stock(&mut s, &all);
    s.realm_mut("Genogien").unwrap().vp = 500;
    s.realm_mut("Genogien").unwrap().vp_rewards_taken.clear();
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&["BELÖNING amiral", "UPPGRADERA amiral", "UPPGRADERA amiral"]),
    );
    assert!(c.lines[0].accepted());
    assert!(c.lines[1].accepted());
    assert_eq!(rule(&c, 2), "R-POS-2");
}

#[test]
fn rulings_40_the_receipt_takes_the_conflict_penalty_setting_off_a_bid() {
    use pbemd::game::state::{FreeMerchantOffer, Lot};
    let mut s = genogien_rich();
    set_stock(&mut s, &[(Resource::Sten, 99)]);
    s.free_merchant = Some(FreeMerchantOffer {
        round: s.round,
        lot: Lot::Resource {
            resource: Resource::Jarn,
            amount: 10,
        },
        min_bid: 10,
    });
    s.realm_mut("Genogien").unwrap().fought_last_weekend = true;
    let bid = lines(&["BUD 12 sten"]);
    // 12 less the default 5 after a battle: under the lot's 10.
    assert_eq!(rule(&forms::check(&s, "Genogien", &bid), 0), "R-FREE-4");
    s.settings.conflict_penalty = 2;
    assert!(forms::check(&s, "Genogien", &bid).lines[0].accepted());
}

#[test]
fn rulings_49_the_form_takes_a_vote_in_the_rounds_the_vote_every_setting_names() {
    let mut s = genogien_rich();
    s.settings.vote_every = 3;
    let vote = lines(&["RÖST Afani"]);
    for (round, votes) in [(3, true), (4, false), (6, true)] {
        s.round = round;
        let c = forms::check(&s, "Genogien", &vote);
        assert_eq!(c.lines[0].accepted(), votes, "round {round}");
    }
    s.round = 4;
    assert_eq!(rule(&forms::check(&s, "Genogien", &vote), 0), "R-VOTE-1");
}

#[test]
fn rulings_41_the_form_prices_a_researched_frigate_by_the_setting() {
    let mut s = genogien_rich();
    let all: Vec<(Resource, u32)> = Resource::ALL.iter().map(|&r| (r, 99)).collect();
    set_stock(&mut s, &all);
    s.realm_mut("Genogien").unwrap().researched = vec![pbemd::game::state::Researched::Fregatt];
    let buy = lines(&["KÖP 1 fregatt D2"]);
    assert_eq!(rule(&forms::check(&s, "Genogien", &buy), 0), "RULINGS 41");
    let price = Resources::from_pairs(&[(Resource::Timmer, 7), (Resource::Guld, 3)]);
    s.settings.research_costs.fregatt = Some(price);
    let c = forms::check(&s, "Genogien", &buy);
    assert!(c.lines[0].accepted());
    assert_eq!(c.lines[0].cost, price);
}

#[test]
fn ownership_and_city_outcomes_are_checked() {
    let s = genogien_rich();
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&[
            "PRODUKTION I1 järn",
            "ANFALL armé 1 B2 plundra",
            "HUVUDHAMN C4",
            "HUVUDSTAD C4",
            "RÖST Afani",
            "VÄN Genogien",
            "ORDNING armé 2: 2 lätt infanteri 1 lätt kavalleri",
            "ORDNING armé 2: 1 lätt kavalleri",
        ]),
    );
    assert_eq!(rule(&c, 0), "R-CITY-1");
    assert_eq!(rule(&c, 1), "R-CITY-4");
    assert!(c.lines[3].accepted());
    assert_eq!(rule(&c, 4), "R-VOTE-1"); // round 1 is no voting round
    assert_eq!(rule(&c, 5), "R-ALLY-1");
    assert!(c.lines[6].accepted());
    assert_eq!(rule(&c, 7), "R-COMBAT-9");
    // HUVUDHAMN C4: checked for ownership and the coast either way.
    assert!(c.lines[2].order.is_some());
}

// ---- the rules table: one row per rule case ---------------------------

type Tweak = fn(&mut GameState);

fn no_tweak(_: &mut GameState) {}

/// (rule case, state tweak, lines, expected: `None` = accepted, else the
/// rule ID of the refusal).
type Row = (
    &'static str,
    Tweak,
    Vec<&'static str>,
    Vec<Option<&'static str>>,
);

fn rules_table() -> Vec<Row> {
    use pbemd::game::state::{FreeMerchantOffer, Invitation, Lot, RulerBenefit};
    use pbemd::game::UnitKind;
    vec![
        (
            "r_city_2_new_city_takes_10_standard_points_at_most_5_each",
            no_tweak,
            vec![
                "KÖP stad C3: 5 mat 5 järn",
                "KÖP stad B3: 6 mat 4 järn",
                "KÖP stad B3: 5 mat 5 guld",
                "KÖP stad C3: 5 mat 5 sten",
                "KÖP stad E5: 5 mat 5 järn",
            ],
            vec![
                None,
                Some("R-CITY-2"),
                Some("R-CITY-2"),
                Some("RULINGS 27"),
                Some("RULINGS 27"),
            ],
        ),
        (
            "rulings_36_walls_are_capped_by_population",
            |s| {
                for c in s.cities.iter_mut() {
                    c.population = 60;
                }
            },
            vec!["KÖP 4 mur B2", "KÖP 1 mur B2", "KÖP 1 mur I2"],
            vec![None, Some("RULINGS 36"), Some("R-CITY-1")],
        ),
        (
            "r_nav_5_ships_are_capped_by_admiral",
            no_tweak,
            vec![
                "KÖP 14 transportskepp D2",
                "KÖP 13 transportskepp D2",
                "KÖP 1 galeas",
            ],
            vec![Some("R-NAV-5"), None, Some("R-NAV-5")],
        ),
        (
            "r_unit_6_elementals_are_capped_by_conjurer",
            no_tweak,
            vec!["KÖP 7 eldelementarer B2", "KÖP 6 eldelementarer B2"],
            vec![Some("R-UNIT-6"), None],
        ),
        (
            "r_pos_4_a_new_army_group_counts_against_commander",
            |s| s.realm_mut("Genogien").unwrap().positions.befalhavare = 1,
            vec![
                "KÖP 1 lätt infanteri C4",
                "KÖP 1 lätt infanteri B2",
                "DELA armé 1: 1 veteran",
                "DELA armé 1: 2 bågskyttar",
            ],
            vec![Some("R-POS-4"), None, Some("R-MOVE-8"), Some("R-POS-4")],
        ),
        (
            "r_eng_3_unresearched_kinds_cannot_be_bought",
            no_tweak,
            vec!["KÖP 1 beriden bågskytt B2", "KÖP 1 fregatt D2"],
            vec![Some("R-ENG-3"), Some("R-ENG-3")],
        ),
        (
            "r_evil_9_only_the_evil_has_demons",
            no_tweak,
            vec!["KÖP 1 högre demon B2"],
            vec![Some("R-EVIL-9")],
        ),
        (
            "rulings_2_slaves_convert_to_a_produced_ordinary_resource",
            no_tweak,
            vec![
                "OMVANDLA 3 järn",
                "OMVANDLA 3 eld",
                "OMVANDLA 3 guld",
                "OMVANDLA 200 mat",
            ],
            vec![
                None,
                Some("RULINGS 2"),
                Some("RULINGS 2"),
                Some("R-BUILD-4"),
            ],
        ),
        (
            "r_combat_12_two_attacks_on_one_target_name_first_and_second",
            no_tweak,
            vec![
                "ANFALL armé 1 E5",
                "ANFALL armé 2 E5",
                "ANFALL armé 1 E4 första",
                "ANFALL armé 2 E4 andra",
                "ANFALL armé 1 E3 plundra",
            ],
            vec![None, Some("R-COMBAT-12"), None, None, Some("R-CITY-4")],
        ),
        (
            "r_free_2_one_bid_worth_the_minimum",
            |s| {
                s.free_merchant = Some(FreeMerchantOffer {
                    round: 1,
                    lot: Lot::Resource {
                        resource: Resource::Jarn,
                        amount: 10,
                    },
                    min_bid: 10,
                })
            },
            vec!["BUD 5 järn", "BUD 5 eld", "BUD 12 sten"],
            vec![Some("R-FREE-4"), None, Some("R-FREE-2")],
        ),
        (
            "r_free_1_no_bid_without_an_offer",
            no_tweak,
            vec!["BUD 12 järn"],
            vec![Some("R-FREE-1")],
        ),
        (
            "r_free_7_engineers_once_for_30_resources",
            no_tweak,
            vec![
                "INGENJÖRER 10 järn",
                "INGENJÖRER 10 järn 20 sten",
                "INGENJÖRER 30 mat",
            ],
            vec![Some("R-FREE-7"), None, Some("R-FREE-7")],
        ),
        (
            "r_eng_2_research_needs_engineers",
            no_tweak,
            vec!["FORSKA fregatt"],
            vec![Some("R-ENG-1")],
        ),
        (
            "rulings_41_one_research_attempt_a_round",
            |s| s.realm_mut("Genogien").unwrap().engineers = true,
            vec!["FORSKA fregatt", "FORSKA beridna bågskyttar"],
            vec![None, Some("RULINGS 41")],
        ),
        (
            "r_inv_3_an_invitation_must_be_held_and_valid",
            no_tweak,
            vec!["INBJUDAN Afani armé 1"],
            vec![Some("R-INV-3")],
        ),
        (
            "r_inv_1_a_held_invitation_is_used_once",
            |s| {
                s.realm_mut("Genogien")
                    .unwrap()
                    .invitations
                    .push(Invitation {
                        id: 7,
                        from: "Afani".into(),
                        square: Square::parse("I3").unwrap(),
                        sent_round: 1,
                        valid_until_round: 1,
                        intercepted_from: None,
                        used: false,
                    })
            },
            vec!["INBJUDAN afani armé 1", "INBJUDAN Afani armé 2"],
            vec![None, Some("R-INV-3")],
        ),
        (
            "r_inv_8_home_invitation_only_for_groups_abroad",
            no_tweak,
            vec!["HEMBJUDAN armé 1"],
            vec![Some("R-INV-8")],
        ),
        (
            "r_vote_2_one_vote_not_for_oneself",
            |s| s.round = 4,
            vec!["RÖST Genogien", "RÖST Afani", "RÖST Kaldor"],
            vec![Some("R-VOTE-2"), None, Some("R-VOTE-2")],
        ),
        (
            "r_nav_3_embarking_fits_the_transports",
            no_tweak,
            vec!["LASTA armé 1 flotta 1"],
            vec![Some("R-NAV-3")],
        ),
        (
            "r_move_3_only_an_army_aboard_disembarks",
            no_tweak,
            vec!["LOSSA armé 1", "LOSSA armé 2 D3"],
            vec![Some("R-MOVE-3"), None],
        ),
        (
            "rulings_22_teleport_lands_on_land",
            no_tweak,
            vec![
                "FORMEL teleportera armé 1 A1",
                "FORMEL teleportera armé 1 E5",
            ],
            vec![Some("RULINGS 22"), None],
        ),
        (
            "r_move_1_whirlwind_adds_a_step",
            no_tweak,
            vec![
                "FLYTTA armé 1: B3 C3",
                "FORMEL virvelvind armé 1",
                "FLYTTA armé 1: B3 C3",
            ],
            vec![Some("R-MOVE-1"), None, None],
        ),
        (
            "r_vote_5_the_sole_winner_chooses_one_benefit",
            |s| s.ruler = Some(ruler(None)),
            vec!["FÖRMÅN dubbla bud", "BENEFIT first"],
            vec![None, Some("R-VOTE-5")],
        ),
        (
            "r_vote_5_no_benefit_without_winning_the_vote",
            no_tweak,
            vec!["FÖRMÅN befolkning"],
            vec![Some("R-VOTE-5")],
        ),
        (
            "r_vote_5_a_chosen_benefit_stays",
            |s| s.ruler = Some(ruler(Some(RulerBenefit::MoveFirst))),
            vec!["FÖRMÅN fria spioner"],
            vec![Some("R-VOTE-5")],
        ),
        (
            "r_vp_4_no_reward_below_the_first_threshold",
            no_tweak,
            vec!["BELÖNING befälhavare"],
            vec![Some("R-VP-4")],
        ),
        (
            "r_vp_4_one_reward_per_threshold_not_yet_rewarded",
            |s| {
                let r = s.realm_mut("Genogien").unwrap();
                r.vp = 1100;
                r.vp_rewards_taken = vec![500];
            },
            vec![
                "BELÖNING produktion B2 guld",
                "BELÖNING produktion E5 järn",
                "BELÖNING 20 järn 3 slavar",
                "BELÖNING 15 järn 5 slavar",
                "BELÖNING befälhavare",
            ],
            vec![
                Some("R-VP-4"),
                Some("R-CITY-1"),
                Some("R-VP-4"),
                None,
                Some("R-VP-4"),
            ],
        ),
        (
            "r_vp_4_two_thresholds_give_two_rewards",
            |s| s.realm_mut("Genogien").unwrap().vp = 1000,
            vec![
                "BELÖNING produktion B2 järn",
                "REWARD commander",
                "REWARD 25 food",
            ],
            vec![None, None, Some("R-VP-4")],
        ),
        (
            "r_free_9_place_only_the_waiting_troops_in_own_cities",
            |s| {
                s.realm_mut("Genogien").unwrap().unplaced_troops =
                    vec![(UnitKind::TungtKavalleri, 3)];
            },
            vec![
                "PLACERA 2 tungt kavalleri B2, 2 tungt kavalleri D2",
                "PLACERA 2 tungt kavalleri B2",
                "PLACERA 1 tungt kavalleri E5",
                "PLACE 1 heavy cavalry C4",
                "PLACERA 1 tungt kavalleri C4",
                "PLACERA 1 veteran B2",
            ],
            vec![
                Some("R-FREE-9"),
                None,
                Some("R-CITY-1"),
                None,
                Some("R-FREE-9"),
                Some("R-FREE-9"),
            ],
        ),
    ]
}

fn ruler(benefit: Option<pbemd::game::state::RulerBenefit>) -> pbemd::game::state::Ruler {
    pbemd::game::state::Ruler {
        realm: "Genogien".into(),
        benefit,
        from_round: 1,
        until_round: 4,
    }
}

use pbemd::game::Square;

#[test]
fn rules_table_cases() {
    for (name, tweak, ls, want) in rules_table() {
        let mut s = genogien_rich();
        let all: Vec<(Resource, u32)> = Resource::ALL.iter().map(|&r| (r, 99)).collect();
        set_stock(&mut s, &all);
        tweak(&mut s);
        let c = forms::check(&s, "Genogien", &lines(&ls));
        let got: Vec<Option<String>> = c
            .lines
            .iter()
            .map(|l| match &l.refusal {
                None => None,
                Some(Refusal::Syntax(e)) => Some(format!("syntax: {}", e.message(Lang::En))),
                Some(r) => r.rule().map(str::to_string),
            })
            .collect();
        let want: Vec<Option<String>> = want.iter().map(|w| w.map(str::to_string)).collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn the_english_receipt_lists_refusals_with_reason_and_right_form() {
    let s = demo();
    let c = read_form(&s, "Afani", "BUY 5 dragons\nFRIEND Genogien\n", &[]);
    let text = receipt_text(&c, Lang::En, "Sunday 29 November 2026 15:00");
    assert!(text.contains("[NO]  BUY 5 dragons"), "{text}");
    assert!(text.contains("Right form: BUY"), "{text}");
    assert!(text.contains("[OK]  FRIEND Genogien"), "{text}");
    assert!(text.contains("If no other form arrives:"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 78), "{text}");
}

#[test]
fn the_forms_reminder_lines_are_valid_orders() {
    let s = demo();
    for realm in s.realm_names() {
        let form = monday_form(&s, realm);
        let section = form.split(START).nth(1).unwrap().split(END).next().unwrap();
        let examples: Vec<&str> = section
            .lines()
            .filter_map(|l| l.strip_prefix("# "))
            .filter(|l| {
                l.chars().next().is_some_and(|c| c.is_uppercase())
                    && l.split_whitespace()
                        .next()
                        .is_some_and(|w| pbemd::forms::OrderKind::from_keyword(w).is_some())
            })
            .collect();
        assert!(examples.len() >= 3, "{realm}: {examples:?}");
        for ex in examples {
            assert!(pbemd::forms::parse_line(ex, None).is_ok(), "{realm}: {ex}");
        }
    }
}

#[test]
fn r_vp_4_a_resource_reward_adds_to_the_stock_left() {
    let mut s = demo();
    s.realm_mut("Genogien").unwrap().vp = 500;
    let before = s.realm("Genogien").unwrap().stock;
    let c = forms::check(&s, "Genogien", &lines(&["BELÖNING 15 järn 5 slavar"]));
    assert_eq!(c.refused(), 0, "{:?}", c.lines);
    assert_eq!(
        c.stock_after.get(Resource::Jarn),
        before.get(Resource::Jarn) + 15
    );
    assert_eq!(
        c.stock_after.get(Resource::Slavar),
        before.get(Resource::Slavar) + 5
    );
}

#[test]
fn r_pop_1_army_units_ships_and_spies_count_against_the_cap_envoys_and_merchants_do_not() {
    let mut s = demo();
    let count = |s: &GameState| s.counted_units("Genogien").counted();
    let before = count(&s);
    s.realm_mut("Genogien").expect("Genogien").spies += 2;
    assert_eq!(count(&s), before + 2, "spies count");
    let fleet = s
        .fleets
        .iter_mut()
        .find(|f| f.owner == "Genogien")
        .expect("a fleet of Genogien's");
    let ship = fleet.ships[0];
    fleet.ships.push(ship);
    assert_eq!(count(&s), before + 3, "ships count");
    let army = s
        .armies
        .iter_mut()
        .find(|a| a.owner == "Genogien")
        .expect("an army of Genogien's");
    let unit = army.units[0];
    army.units.push(unit);
    assert_eq!(count(&s), before + 4, "army units count");
    let sent = &mut s.realm_mut("Genogien").expect("Genogien").sent;
    sent.envoys += 5;
    sent.merchants += 5;
    assert_eq!(count(&s), before + 4, "envoys and merchants do not count");
}

// ---- Rules pinned by their own ID (docs/rules.md) ----------------------------

fn genogien_stocked() -> GameState {
    let mut s = genogien_rich();
    let all: Vec<(Resource, u32)> = Resource::ALL.iter().map(|&r| (r, 99)).collect();
    set_stock(&mut s, &all);
    s
}

#[test]
fn r_city_1_a_city_is_named_by_its_square_and_only_an_own_city_square_passes() {
    let s = genogien_stocked();
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&[
            "PRODUKTION C4 järn",
            "PRODUKTION Stenvik järn",
            "PRODUKTION C3 järn",
            "PRODUKTION I4 järn",
        ]),
    );
    assert!(c.lines[0].accepted(), "{:?}", c.lines[0]);
    assert!(
        matches!(c.lines[1].refusal, Some(Refusal::Syntax(_))),
        "a city's name is not its square: {:?}",
        c.lines[1]
    );
    assert_eq!(rule(&c, 2), "R-CITY-1", "own land, no city");
    assert_eq!(rule(&c, 3), "R-CITY-1", "Afani's city");
}

#[test]
fn r_city_3_a_new_city_may_stand_next_to_the_capital_and_next_to_another_new_one() {
    let s = genogien_stocked();
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&[
            "KÖP stad B3: 5 mat 5 järn",
            "KÖP stad C3: 5 sten 5 eld",
            "KÖP stad B4: 5 mat 5 sten",
        ]),
    );
    assert!(
        c.lines.iter().all(|l| l.accepted()),
        "no distance between cities is asked: {:?}",
        c.lines
    );
    assert_eq!(
        c.stock_after.plus(&{
            let mut three = Resources::ZERO;
            for _ in 0..3 {
                three = three.plus(&pbemd::game::units::build_cost::new_city());
            }
            three
        }),
        c.stock_before
    );
}

#[test]
fn r_city_4_an_attack_on_a_foreign_city_must_name_its_outcome_and_not_on_ones_own() {
    let s = genogien_stocked();
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&[
            "ANFALL armé 1 I4",
            "ANFALL armé 1 C4 överta",
            "ANFALL armé 2 I4 rasera",
        ]),
    );
    assert_eq!(rule(&c, 0), "R-CITY-4", "no outcome named");
    assert!(matches!(c.lines[0].refusal, Some(Refusal::ChooseOutcome)));
    assert_eq!(rule(&c, 1), "R-CITY-4", "Stenvik is Genogien's own");
    assert!(
        matches!(c.lines[1].refusal, Some(Refusal::OwnCityAttacked { .. })),
        "{:?}",
        c.lines[1]
    );
    assert!(c.lines[2].accepted(), "{:?}", c.lines[2]);
}

#[test]
fn r_unit_6_elementals_held_of_every_kind_count_against_three_times_besvarjare() {
    use pbemd::game::state::Unit;
    use pbemd::game::UnitKind;
    let mut s = genogien_stocked(); // Besvärjare 2: at most 6 elementals.
    let army = s.armies.iter_mut().find(|a| a.owner == "Genogien").unwrap();
    for kind in [UnitKind::Jordelementar, UnitKind::Vattenelementar] {
        army.units.push(Unit {
            kind,
            built_round: 0,
        });
    }
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&[
            "KÖP 5 eldelementarer B2",
            "KÖP 3 luftelementarer B2",
            "KÖP 1 luftelementar B2",
        ]),
    );
    assert_eq!(rule(&c, 0), "R-UNIT-6", "2 held + 5 = 7");
    assert!(c.lines[1].accepted(), "2 held + 3 = 5: {:?}", c.lines[1]);
    assert!(c.lines[2].accepted(), "6: at the cap: {:?}", c.lines[2]);
}

#[test]
fn r_nav_5_ships_in_every_fleet_count_against_five_times_amiral() {
    let mut s = genogien_stocked();
    s.realm_mut("Genogien").unwrap().positions.amiral = 2; // at most 10 ships
    let mut second = s
        .fleets
        .iter()
        .find(|f| f.owner == "Genogien")
        .unwrap()
        .clone();
    assert_eq!(second.ships.len(), 2);
    second.id = 2;
    second.cargo.clear();
    s.fleets.push(second);
    // 4 held in two fleets.
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&["KÖP 7 transportskepp D2", "KÖP 6 transportskepp D2"]),
    );
    assert_eq!(rule(&c, 0), "R-NAV-5");
    assert!(c.lines[1].accepted(), "{:?}", c.lines[1]);
}

#[test]
fn r_pop_3_the_cap_is_a_tenth_of_the_realms_total_population_rounded_down() {
    let with = |pops: [u32; 3]| {
        let mut s = demo();
        for (c, pop) in s
            .cities
            .iter_mut()
            .filter(|c| c.owner == "Genogien")
            .zip(pops)
        {
            c.population = pop;
        }
        let all: Vec<(Resource, u32)> = Resource::ALL.iter().map(|&r| (r, 99)).collect();
        set_stock(&mut s, &all);
        // Genogien holds 13 counted units.
        assert_eq!(s.counted_units("Genogien").counted(), 13);
        forms::check(
            &s,
            "Genogien",
            &lines(&["KÖP 1 lätt infanteri B2", "KÖP 1 lätt infanteri B2"]),
        )
    };
    // 65 + 45 + 30 = 140: cap 14, although each city's tenth rounded down makes 13.
    let c = with([65, 45, 30]);
    assert!(c.lines[0].accepted(), "{:?}", c.lines[0]);
    assert_eq!(rule(&c, 1), "R-POP-2");
    // 139 rounds down to 13.
    let c = with([64, 45, 30]);
    assert_eq!(rule(&c, 0), "R-POP-2");
}

#[test]
fn r_pos_6_value_and_production_steps_share_the_forskare_allowance() {
    let mut s = genogien_stocked();
    s.realm_mut("Genogien").unwrap().positions.forskare = 1;
    let ls = lines(&["UPPGRADERA amiral", "PRODUKTION B2 järn"]);
    let c = forms::check(&s, "Genogien", &ls);
    assert!(c.lines[0].accepted(), "{:?}", c.lines[0]);
    assert_eq!(rule(&c, 1), "RULINGS 9", "the one step went to Amiral");
    s.realm_mut("Genogien").unwrap().positions.forskare = 2;
    let c = forms::check(&s, "Genogien", &ls);
    assert_eq!(c.refused(), 0, "{:?}", c.lines);
}

#[test]
fn r_res_5_a_new_citys_production_follows_the_scenarios_standard_resources() {
    let mut s = genogien_stocked();
    let ls = lines(&["KÖP stad C3: 5 mat 5 järn"]);
    assert!(forms::check(&s, "Genogien", &ls).lines[0].accepted());
    // The same line once the scenario's standard list has no iron.
    s.realm_mut("Genogien").unwrap().standard = vec![Resource::Mat, Resource::Sten];
    let c = forms::check(&s, "Genogien", &ls);
    assert_eq!(rule(&c, 0), "R-CITY-2");
    assert!(
        matches!(&c.lines[0].refusal, Some(Refusal::CityProduction { standard }) if *standard == [Resource::Mat, Resource::Sten])
    );
}

#[test]
fn r_gen_5_the_weekend_charges_each_purchase_what_the_receipt_charged() {
    use pbemd::game::weekend::economy::EconomyEvent;
    use pbemd::game::weekend::{resolve, FormOrders, Orders};
    let s = genogien_stocked();
    let c = forms::check(
        &s,
        "Genogien",
        &lines(&[
            "KÖP 2 lätt infanteri B2",
            "KÖP 1 mur D2",
            "UPPGRADERA amiral",
            "PRODUKTION C4 sten",
            "KÖP 1 spion",
        ]),
    );
    assert_eq!(c.refused(), 0, "{:?}", c.lines);
    let receipt: Vec<Resources> = c.lines.iter().map(|l| l.cost).collect();
    assert!(receipt.iter().all(|r| *r != Resources::ZERO));
    let orders = Orders {
        forms: vec![FormOrders {
            realm: "Genogien".into(),
            received_at: chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
            orders: c.lines.iter().filter_map(|l| l.order.clone()).collect(),
        }],
    };
    let res = resolve(&s, &orders, &s.settings, 7);
    let charged: Vec<Resources> = res
        .events
        .iter()
        .filter_map(|e| match e.what.economy() {
            Some(EconomyEvent::Bought { realm, cost, .. }) if realm == "Genogien" => Some(*cost),
            _ => None,
        })
        .collect();
    assert_eq!(charged, receipt);
}

//! State model tests: the demo scenario loads and validates, JSON
//! round-trips, scenario errors name their key, and realm views hide
//! other realms' secrets.

use pbemd::game::{load_scenario, GameState, Lang, Resource, ScenarioError, SCHEMA_VERSION};

const DEMO: &str = include_str!("../scenarios/evil.yaml");

fn demo() -> GameState {
    load_scenario(DEMO).unwrap_or_else(|e| panic!("demo scenario: {e}"))
}

#[test]
fn demo_loads_with_six_player_realms_and_the_evil() {
    let s = demo();
    assert_eq!(s.schema_version, SCHEMA_VERSION);
    assert_eq!(s.round, 1);
    assert_eq!(
        s.realm_names(),
        ["Genogien", "Afani", "Fugandri", "Kaldor", "Mirandel", "Ostvik", "Ondskan"]
    );
    assert_eq!(s.realms.iter().filter(|r| !r.is_evil).count(), 6);
    for r in &s.realms {
        assert_eq!(r.emails[0], format!("{}@game.test", r.name.to_lowercase()));
        assert_eq!(r.vp, 300);
        assert!(!r.mission.is_empty());
    }
    assert_eq!(s.realm("Afani").unwrap().language, Lang::En);
    assert_eq!(s.realm("Ostvik").unwrap().language, Lang::En);
    assert_eq!(s.realm("Kaldor").unwrap().language, Lang::Sv);
    assert_eq!(s.game.address.as_deref(), Some("sl@game.test"));
    assert!(s.validate().is_ok());
    // Standard resources are spread evenly: every resource twice.
    for res in Resource::ALL {
        let n = s
            .realms
            .iter()
            .filter(|r| r.standard.contains(&res))
            .count();
        assert_eq!(n, 2, "{res}");
    }
}

#[test]
fn r_res_4_missing_stock_is_seven_times_production() {
    let s = demo();
    let g = s.realm("Genogien").unwrap();
    let prod = g.production(&s);
    assert_eq!(prod.mat, 5);
    assert_eq!(g.stock, prod.times(7));
    // Kaldor gives its stock explicitly.
    assert_eq!(s.realm("Kaldor").unwrap().stock.jarn, 40);
}

#[test]
fn r_vp_1_the_starting_vp_is_a_setting() {
    let text = DEMO.replacen("\nsettings:\n", "\nsettings:\n  starting_vp: 120\n", 1);
    assert_ne!(text, DEMO, "the scenario has a settings block");
    let s = load_scenario(&text).unwrap();
    for r in &s.realms {
        assert_eq!(r.vp, 120, "{}", r.name);
    }
}

#[test]
fn realm_by_email_is_case_insensitive() {
    let s = demo();
    assert_eq!(
        s.realm_by_email("GENOGIEN@Game.Test").unwrap().name,
        "Genogien"
    );
    assert_eq!(
        s.realm_by_email("kung@kaldor.example").unwrap().name,
        "Kaldor"
    );
    assert!(s.realm_by_email("nobody@game.test").is_none());
}

#[test]
fn json_round_trip_is_lossless() {
    let s = demo();
    let json = serde_json::to_string_pretty(&s).unwrap();
    let back: GameState = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    assert!(json.contains("\"järn\""));
    assert!(json.contains("\"befalhavare\""));
}

#[test]
fn an_army_group_is_stored_as_before_its_treasure_and_its_invitation_round_made_compact() {
    let mut s = demo();
    let a = &mut s.armies[0];
    a.treasure.set(Resource::Guld, 27);
    a.no_move_until_round = std::num::NonZeroU32::new(3);
    let json = serde_json::to_value(&s.armies[..2]).expect("json");
    // The treasure is the resources map (zero ones included), the round a number.
    assert_eq!(json[0]["treasure"]["guld"], 27);
    assert_eq!(json[0]["treasure"]["mat"], 0);
    assert_eq!(json[0]["no_move_until_round"], 3);
    assert_eq!(json[1]["treasure"]["guld"], 0);
    assert!(json[1]["no_move_until_round"].is_null());
    let back: Vec<pbemd::game::state::ArmyGroup> =
        serde_json::from_value(json.clone()).expect("read");
    assert_eq!(back[0].treasure.get(Resource::Guld), 27);
    assert!(back[1].treasure.is_zero());
    assert_eq!(back[..], s.armies[..2]);
    // A stored round 0 (no round has that number) and a treasure of nothing read as none.
    let mut old = json;
    old[0]["no_move_until_round"] = 0.into();
    old[0]["treasure"] = serde_json::json!({"guld": 0});
    let back: Vec<pbemd::game::state::ArmyGroup> = serde_json::from_value(old).expect("read");
    assert_eq!(back[0].no_move_until_round, None);
    assert!(back[0].treasure.is_zero());
    assert_eq!(back[0].treasure, Default::default());
}

#[test]
fn a_state_read_back_keeps_one_name_a_realm_in_its_groups_cities_and_squares() {
    let s = demo();
    let back: GameState = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
    let realm = "Kaldor";
    let mut mentions = back
        .armies
        .iter()
        .map(|a| &a.owner)
        .chain(back.cities.iter().map(|c| &c.owner))
        .chain(back.map.squares.values().filter_map(|m| m.owner.as_ref()))
        .filter(|n| **n == realm);
    let first = mentions.next().expect("Kaldor is mentioned");
    let rest: Vec<_> = mentions.collect();
    assert!(rest.len() > 10, "{} mentions", rest.len() + 1);
    assert!(
        rest.iter().all(|n| n.same(first)),
        "every mention is one name"
    );
    let other = back
        .armies
        .iter()
        .find(|a| a.owner != realm)
        .expect("another realm");
    assert!(!other.owner.same(first));
}

#[test]
fn realm_view_of_afani_shows_nothing_of_kaldor() {
    let s = demo();
    let v = s.realm_view("Afani").unwrap();
    assert!(v.realm.token.is_none());
    assert!(v.armies.iter().all(|a| a.owner == "Afani"));
    assert!(v.cities.iter().all(|c| c.owner == "Afani"));
    let json = serde_json::to_value(&v).unwrap();
    let text = json.to_string();
    // Kaldor's name is public; its stock, cities and mission are not.
    assert!(text.contains("Kaldor"));
    assert!(!text.contains("Kaldorhem"));
    assert!(!text.contains("relationsrutan"));
    let kaldor_stock = serde_json::to_value(s.realm("Kaldor").unwrap().stock).unwrap();
    assert_ne!(json["realm"]["stock"], kaldor_stock);
    assert!(!text.contains("\"Kaldor\",\"emails\""));
    assert_eq!(v.mutual_friends, ["Genogien"]);
    assert!(s.realm_view("Nowhere").is_none());
}

#[test]
fn token_is_never_in_a_view() {
    let mut s = demo();
    s.realm_mut("Afani").unwrap().token = Some("sekret-123".into());
    let text = serde_json::to_string(&s.realm_view("Afani").unwrap()).unwrap();
    assert!(!text.contains("sekret-123"));
}

fn err_of(yaml: &str) -> String {
    match load_scenario(yaml) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn unknown_square_names_the_key() {
    let bad = DEMO.replace("{square: J2, name: Afanis", "{square: M13, name: Afanis");
    let e = err_of(&bad);
    assert!(e.contains("realms[Afani].cities[0].square"), "{e}");
    assert!(e.contains("M13"), "{e}");
    let bad = DEMO.replace("capital: D11", "capital: 11D");
    let e = err_of(&bad);
    assert!(e.contains("realms[Mirandel].capital"), "{e}");
}

#[test]
fn duplicate_realm_names_the_key() {
    let bad = DEMO.replace("- name: Ostvik", "- name: Afani");
    let e = err_of(&bad);
    assert!(e.contains("realms[5].name"), "{e}");
    assert!(e.contains("Afani"), "{e}");
    assert!(e.contains("twice"), "{e}");
}

#[test]
fn bad_resource_name_names_the_key() {
    let bad = DEMO.replace(
        "production: {mat: 3, järn: 2, sten: 2, eld: 1}",
        "production: {mat: 3, jarnn: 2}",
    );
    let e = err_of(&bad);
    assert!(
        e.contains("realms[Genogien].cities[0].production.jarnn"),
        "{e}"
    );
    let bad = DEMO.replace(
        "standard: [guld, tyg, hästar, luft]",
        "standard: [guld, plutonium]",
    );
    let e = err_of(&bad);
    assert!(e.contains("realms[Afani].standard"), "{e}");
    assert!(e.contains("plutonium"), "{e}");
}

#[test]
fn rulings_26_an_adjacency_other_than_4_or_8_is_refused() {
    let with = |n: u8| {
        DEMO.replacen(
            "\nsettings:\n",
            &format!("\nsettings:\n  adjacency: {n}\n"),
            1,
        )
    };
    let e = err_of(&with(6));
    assert!(e.contains("settings.adjacency is 6; use 4 or 8"), "{e}");
    assert_eq!(load_scenario(&with(8)).unwrap().settings.adjacency, 8);
}

#[test]
fn other_scenario_errors_are_clear() {
    // Unknown field: serde names it.
    let e = err_of(&DEMO.replace("spies: 3", "spys: 3"));
    assert!(e.contains("spys"), "{e}");
    // Unknown unit.
    let e = err_of(&DEMO.replace("\"luftelementar\"", "\"drake\""));
    assert!(e.contains("realms[Afani].armies[1].units[0]"), "{e}");
    // Unknown friend.
    let e = err_of(&DEMO.replace("friends: [Mirandel]", "friends: [Narnia]"));
    assert!(e.contains("realms[Kaldor].friends"), "{e}");
    // Cross-reference: two realms with one address.
    let e = err_of(&DEMO.replace("[ostvik@game.test]", "[afani@game.test]"));
    assert!(matches!(
        load_scenario(&DEMO.replace("[ostvik@game.test]", "[afani@game.test]")),
        Err(ScenarioError::Invalid(_))
    ));
    assert!(e.contains("afani@game.test"), "{e}");
    // Cargo over capacity.
    let e = err_of(&DEMO.replace(
        "ships: [\"transportskepp\", \"lätt krigsskepp\"]",
        "ships: [\"lätt krigsskepp\"]",
    ));
    assert!(e.contains("fleet 1 of Genogien"), "{e}");
}

#[test]
fn validate_catches_broken_references() {
    let mut s = demo();
    s.armies[0].owner = "Nobody".into();
    s.cities[0].walls = 99;
    let errs = s.validate().unwrap_err();
    assert!(
        errs.iter().any(|e| e.contains("army 1 of Nobody")),
        "{errs:?}"
    );
    assert!(errs.iter().any(|e| e.contains("walls exceed")), "{errs:?}");
}

#[test]
fn the_demo_scenario_has_exactly_the_six_realms_of_the_design() {
    let s = load_scenario(include_str!("../scenarios/demo.yaml")).expect("demo loads");
    assert_eq!(
        s.realm_names(),
        ["Genogien", "Afani", "Fugandri", "Kaldor", "Mirandel", "Ostvik"]
    );
    for r in &s.realms {
        assert_eq!(r.emails, [format!("{}@game.test", r.name.to_lowercase())]);
        assert_eq!(r.vp, 300);
    }
    assert!(s.realms.iter().any(|r| r.language == pbemd::game::Lang::En));
    s.validate().expect("valid");
}

#[test]
fn r_gen_1_every_realm_plays_by_mail_the_evil_only_where_the_scenario_has_it() {
    let plain = load_scenario(include_str!("../scenarios/demo.yaml")).expect("demo");
    assert!(plain.evil.is_none());
    assert!(plain.realms.iter().all(|r| !r.is_evil));
    assert_eq!(plain.game.gm.as_deref(), Some("gm@game.test"));
    let evil = demo();
    assert_eq!(
        evil.evil.as_ref().map(|e| e.realm.as_str()),
        Some("Ondskan")
    );
    let evil_realms: Vec<&str> = evil
        .realms
        .iter()
        .filter(|r| r.is_evil)
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(evil_realms, ["Ondskan"]);
    assert_eq!(evil.game.gm.as_deref(), Some("gm@game.test"));
    for s in [&plain, &evil] {
        for r in &s.realms {
            assert!(!r.emails.is_empty(), "{}", r.name);
            for e in &r.emails {
                assert_eq!(
                    s.realm_by_email(e).map(|x| x.name.as_str()),
                    Some(r.name.as_str())
                );
            }
        }
    }
}

#[test]
fn r_pos_1_seven_values_from_the_scenario_with_no_upper_limit() {
    use pbemd::game::orders::Order;
    use pbemd::game::weekend::{resolve, FormOrders, Orders};
    use pbemd::game::Position;
    let yaml = include_str!("../scenarios/demo.yaml").replace(
        "positions: {amiral: 3, befalhavare: 4, besvarjare: 2, informator: 5, forskare: 3, skattmastare: 4, sprakror: 6}",
        "positions: {amiral: 30, befalhavare: 4, besvarjare: 2, informator: 5, forskare: 3, skattmastare: 4, sprakror: 6}",
    );
    let mut s = load_scenario(&yaml).expect("a value of 30 loads");
    let p = s.realm("Genogien").unwrap().positions;
    assert_eq!(
        [
            p.amiral,
            p.befalhavare,
            p.besvarjare,
            p.informator,
            p.forskare,
            p.skattmastare,
            p.sprakror
        ],
        [30, 4, 2, 5, 3, 4, 6]
    );
    s.realm_mut("Genogien").unwrap().stock =
        pbemd::game::Resources::from_pairs(&Resource::ALL.map(|r| (r, 99)));
    let orders = Orders {
        forms: vec![FormOrders {
            realm: "Genogien".into(),
            received_at: chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
            orders: vec![Order::UpgradePosition {
                position: Position::Amiral,
                crystals: vec![],
            }],
        }],
    };
    let res = resolve(&s, &orders, &s.settings, 1);
    assert_eq!(res.state.realm("Genogien").unwrap().positions.amiral, 31);
}

#[test]
fn r_pos_3_a_realm_that_starts_at_11_holds_its_secret_advantage_from_the_start() {
    // Genogien starts at Amiral 11 (a text) and Besvärjare 12 (no text).
    let yaml = DEMO.replacen(
        "positions: {amiral: 3, befalhavare: 4, besvarjare: 2,",
        "positions: {amiral: 11, befalhavare: 4, besvarjare: 12,",
        1,
    );
    assert_ne!(yaml, DEMO, "the scenario's first realm changed");
    let gs = load_scenario(&yaml).expect("loads");
    let g = gs.realm("Genogien").unwrap();
    let held: Vec<_> = g.secret_bonuses.iter().collect();
    assert_eq!(
        held,
        vec![(
            &pbemd::game::Position::Amiral,
            &"Dina skepp seglar ett steg längre i egna vatten.".to_string()
        )]
    );
    assert!(demo().realms.iter().all(|r| r.secret_bonuses.is_empty()));
}

//! `pbemd battle`, the battle calculator, driven through the real binary: the JSON
//! contract, the report, given rolls, and clear errors for bad input.

use std::process::{Command, Output};

fn battle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("battle")
        .args(args)
        .output()
        .expect("run pbemd")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = battle(args);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn r_combat_6_worked_example_through_the_calculator() {
    // 11 attack with the commander against 13 defence with it; rolls 8 and 1.
    let v = json(&[
        "--attacker",
        "5 lätt infanteri",
        "--attacker-bonus",
        "6",
        "--defender",
        "5 tungt infanteri",
        "--defender-bonus",
        "3",
        "--rolls",
        "8,1",
        "--json",
    ]);
    let r = &v["rounds"][0];
    assert_eq!(r["attacker_roll"], 8);
    assert_eq!(r["defender_roll"], 1);
    assert_eq!(r["attacker_total"], 19);
    assert_eq!(r["defender_total"], 14);
    assert_eq!(r["attacker_losses"], 0);
    assert_eq!(r["defender_losses"], 1);
    assert_eq!(
        v["rounds"][1]["defender_total"].as_u64().unwrap()
            - v["rounds"][1]["defender_roll"].as_u64().unwrap(),
        11
    );
    for key in ["attacker_losses", "defender_losses", "walls_removed"] {
        assert!(v["pre_battle"][key].is_u64(), "pre_battle.{key}");
    }
    assert!(["attacker", "defender", "none"].contains(&v["winner"].as_str().unwrap()));
    assert!(v["attacker_left"].is_array() && v["defender_left"].is_array());
}

#[test]
fn r_unit_2_archers_5_against_2_through_the_calculator() {
    let v = json(&[
        "--attacker",
        "5 archers",
        "--defender",
        "2 bågskyttar, 4 tungt infanteri",
        "--rolls",
        "10,10",
        "--json",
    ]);
    assert_eq!(v["pre_battle"]["defender_losses"], 3);
    assert_eq!(v["pre_battle"]["attacker_losses"], 0);
}

#[test]
fn r_city_11_an_empty_defender_with_a_population_is_an_undefended_city() {
    let v = json(&[
        "--attacker",
        "2 lätt infanteri",
        "--defender",
        "",
        "--city-population",
        "60",
        "--walls",
        "3",
        "--rolls",
        "15,4",
        "--json",
    ]);
    assert_eq!(
        v["rounds"][0]["defender_total"], 10,
        "60/10 + 4, walls ignored"
    );
    assert_eq!(v["winner"], "attacker");
}

#[test]
fn the_same_seed_gives_the_same_battle_and_rolls_come_first() {
    let args = [
        "--attacker",
        "6 lätt infanteri, 2 veteran",
        "--defender",
        "5 tungt infanteri",
        "--seed",
        "42",
        "--json",
    ];
    assert_eq!(json(&args), json(&args));
    let v = json(&[
        "--attacker",
        "6 lätt infanteri, 2 veteran",
        "--defender",
        "5 tungt infanteri",
        "--rolls",
        "3,17",
        "--json",
    ]);
    assert_eq!(v["rounds"][0]["attacker_roll"], 3);
    assert_eq!(v["rounds"][0]["defender_roll"], 17);
}

#[test]
fn r_nav_2_a_naval_battle_reads_ships_and_uses_the_admiral() {
    let v = json(&[
        "--naval",
        "--attacker",
        "2 galeas, 1 tungt krigsskepp",
        "--attacker-bonus",
        "2",
        "--defender",
        "3 transport ships",
        "--rolls",
        "10,10",
        "--json",
    ]);
    assert_eq!(v["pre_battle"]["defender_losses"], 2);
    assert_eq!(v["rounds"][0]["attacker_total"], 2 + 3 + 2 + 10);
}

#[test]
fn without_json_the_report_is_text_in_the_chosen_language() {
    let out = battle(&[
        "--attacker",
        "5 lätt infanteri",
        "--attacker-bonus",
        "6",
        "--defender",
        "5 tungt infanteri",
        "--defender-bonus",
        "3",
        "--rolls",
        "8,1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Runda 1: anfall 11 + 8 = 19, försvar 13 + 1 = 14"),
        "{text}"
    );
    let out = battle(&[
        "--attacker",
        "5 light infantry",
        "--defender",
        "5 heavy infantry",
        "--rolls",
        "8,1",
        "--lang",
        "en",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Round 1: attack 5 + 8 = 13"), "{text}");
}

#[test]
fn bad_units_and_rolls_are_refused_with_one_clear_line() {
    for (args, needle) in [
        (
            vec!["--attacker", "5 drakar", "--defender", "1 veteran"],
            "`5 drakar`",
        ),
        (
            vec![
                "--attacker",
                "1 veteran",
                "--defender",
                "1 veteran",
                "--rolls",
                "21",
            ],
            "`21`",
        ),
        (
            vec!["--attacker", "1 veteran", "--defender", ""],
            "--city-population",
        ),
        (
            vec![
                "--attacker",
                "1 veteran",
                "--defender",
                "1 veteran",
                "--lang",
                "fi",
            ],
            "sv or en",
        ),
    ] {
        let out = battle(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

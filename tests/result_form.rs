//! Result-form tests: golden files for every demo realm (write
//! `<file>.failed` on mismatch; regenerate with `UPDATE_GOLDEN=1`), the
//! 78-column / no-tab layout, the order markers, and strict-mode errors.

use std::path::PathBuf;

use pbemd::game::state::{LocalText, LogEntry};
use pbemd::game::text::WIDTH;
use pbemd::game::{load_scenario, GameState, Lang};
use pbemd::render::{FormContext, RenderError, Renderer, TEMPLATES};

const DEMO: &str = include_str!("../scenarios/evil.yaml");
const START: &str = "=== ORDRAR / ORDERS: skriv nedanför denna rad ===";
const END: &str = "=== SLUT PÅ ORDRAR / END OF ORDERS ===";

fn demo() -> GameState {
    load_scenario(DEMO).expect("demo scenario loads")
}

fn ctx(lang: Lang) -> FormContext {
    FormContext {
        deadline_local: match lang {
            Lang::Sv => "söndag 29 november 2026 15:00".into(),
            Lang::En => "Sunday 29 November 2026 15:00".into(),
        },
        window_local: match lang {
            Lang::Sv => {
                "lördag 28 november 00:00 – söndag 29 november 15:00 (Europe/Stockholm)".into()
            }
            Lang::En => {
                "Saturday 28 November 00:00 – Sunday 29 November 15:00 (Europe/Stockholm)".into()
            }
        },
        game_address: "sl@game.test".into(),
        realms_listed: None,
    }
}

fn form(r: &Renderer, s: &GameState, realm: &str) -> String {
    let lang = s.realm(realm).unwrap().language;
    r.result_form(s, realm, &ctx(lang)).unwrap()
}

fn check_golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let failed = path.with_extension("txt.failed");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        let _ = std::fs::remove_file(&failed);
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing; run with UPDATE_GOLDEN=1", path.display()));
    if expected != actual {
        std::fs::write(&failed, actual).unwrap();
        panic!(
            "{name} differs from the golden file; see {} (diff it, then UPDATE_GOLDEN=1)",
            failed.display()
        );
    }
    let _ = std::fs::remove_file(&failed);
}

#[test]
fn golden_forms_for_every_demo_realm() {
    let s = demo();
    let r = Renderer::new().unwrap();
    for realm in s.realm_names() {
        let text = form(&r, &s, realm);
        check_golden(&format!("result_form_{}.txt", realm.to_lowercase()), &text);
    }
}

#[test]
fn every_line_fits_and_has_no_tabs() {
    let mut s = demo();
    // Stress the wrapping: long texts everywhere the state has free text.
    s.last_weekend.push(LogEntry {
        id: 1,
        round: 1,
        step: 4,
        visible_to: vec![],
        text: LocalText {
            sv: "Strid på D4: ".to_string()
                + &"runda 1 slag 17 mot 12, försvararen förlorar en enhet; ".repeat(5),
            en: "Battle on D4: ".to_string()
                + &"round 1 rolls 17 against 12, the defender loses one unit; ".repeat(5),
        },
    });
    fill_every_section(&mut s);
    for r in &mut s.realms {
        r.mission = "Ett mycket långt uppdrag ".repeat(12) + &"x".repeat(120);
    }
    let r = Renderer::new().unwrap();
    for realm in s.realm_names() {
        for (ctx_name, c) in [
            ("normal", ctx(Lang::Sv)),
            (
                "long",
                FormContext {
                    deadline_local: "söndag ".repeat(15),
                    window_local: "lördag ".repeat(15),
                    game_address: "a-very-long-game-address-for-testing@".to_string()
                        + &"sub.".repeat(8)
                        + "example",
                    realms_listed: None,
                },
            ),
        ] {
            let text = r.result_form(&s, realm, &c).unwrap();
            for (i, line) in text.lines().enumerate() {
                assert!(
                    line.chars().count() <= WIDTH,
                    "{realm} ({ctx_name}) line {} has {} chars: {line}",
                    i + 1,
                    line.chars().count()
                );
                assert!(!line.contains('\t'), "{realm} line {} has a tab", i + 1);
            }
        }
    }
}

/// Put something in every optional part of the form, and push every
/// realm over its caps, so strict mode sees every template branch.
fn fill_every_section(s: &mut GameState) {
    use pbemd::game::state::*;
    use pbemd::game::{Position, Resource, Resources, Square, UnitKind};
    let placed = chrono::DateTime::parse_from_rfc3339("2026-11-18T10:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    let names: Vec<String> = s.realms.iter().map(|r| r.name.clone()).collect();
    for (i, name) in names.iter().enumerate() {
        let other = names[(i + 1) % names.len()].clone();
        let r = s.realm_mut(name).unwrap();
        r.positions = Positions::default();
        r.mission_done = true;
        r.secret_bonuses
            .insert(Position::Amiral, "Dina skepp seglar längre. ".repeat(6));
        r.invitations.push(Invitation {
            id: i as u64,
            from: other.clone(),
            square: Square::parse("E5").unwrap(),
            sent_round: 1,
            valid_until_round: 2,
            intercepted_from: None,
            used: false,
        });
        r.friends = names.iter().filter(|n| *n != name).cloned().collect();
        s.spies.push(StationedSpy {
            id: 100 + i as u64,
            owner: name.clone(),
            realm: other,
            placed_at: placed,
            mission: SpyMission::Steal { filter: None },
            state: SpyState::Waiting,
            done_round: None,
            saw: None,
        });
    }
    for a in &mut s.armies {
        a.treasure = Treasure::of(Resources::from_pairs(&[(Resource::Jarn, 25)]));
        a.units.push(Unit {
            kind: UnitKind::Veteran,
            built_round: s.round,
        });
    }
    for r in &mut s.realms {
        r.unplaced_troops = vec![(UnitKind::TungtKavalleri, 10)];
    }
    s.free_merchant = Some(FreeMerchantOffer {
        round: 1,
        lot: Lot::Resource {
            resource: Resource::Eld,
            amount: 10,
        },
        min_bid: 10,
    });
}

#[test]
fn every_branch_renders_in_strict_mode() {
    let mut s = demo();
    fill_every_section(&mut s);
    let r = Renderer::new().unwrap();
    let text = form(&r, &s, "Genogien");
    assert!(
        text.contains("ÖVER GRÄNSEN: inga nya kan skaffas"),
        "{text}"
    );
    assert!(text.contains("Hemliga fördelar:"));
    assert!(
        text.contains("Spion i Afani: stjäla ett sändebud"),
        "{text}"
    );
    assert!(text.contains("Från Afani till E5"));
    assert!(text.contains("varav 1 ny som"), "{text}");
    assert!(text.contains("bär skatt: 25 järn"));
    assert!(text.contains("De fria köpmännen erbjuder: 10 eld"));
    assert!(
        text.contains("Väntar på sina städer (PLACERA): 10 "),
        "{text}"
    );
    assert!(text.contains("Uppdrag (klart):"));
    let text = form(&r, &s, "Afani");
    assert!(text.contains("OVER THE CAP: no new ones can be acquired"));
    assert!(text.contains("carrying treasure: 25 iron"));
    assert!(
        text.contains("Waiting for their cities (PLACE): 10 heavy cavalry"),
        "{text}"
    );
}

#[test]
fn orders_section_is_marked_and_empty_apart_from_comments() {
    let s = demo();
    let r = Renderer::new().unwrap();
    for realm in s.realm_names() {
        let text = form(&r, &s, realm);
        let lines: Vec<&str> = text.lines().collect();
        let start = lines
            .iter()
            .position(|l| *l == START)
            .expect("start marker");
        let end = lines.iter().position(|l| *l == END).expect("end marker");
        assert!(start < end);
        assert_eq!(end, lines.len() - 1, "end marker is the last line");
        for l in &lines[start + 1..end] {
            assert!(l.is_empty() || l.starts_with('#'), "{realm}: {l}");
        }
        assert!(text.ends_with('\n'));
    }
}

#[test]
fn form_language_follows_the_realm() {
    let s = demo();
    let r = Renderer::new().unwrap();
    let afani = form(&r, &s, "Afani");
    assert!(afani.contains("STOCK (stock box)"));
    assert!(afani.contains("# BUY 1 spy"), "{afani}");
    let gen = form(&r, &s, "Genogien");
    assert!(gen.contains("LAGER (lagerrutan)"));
    assert!(gen.contains("mat*"));
    assert!(gen.contains("Inget hände förra helgen."));
}

#[test]
fn last_weekend_shows_only_what_the_realm_may_see() {
    let mut s = demo();
    s.last_weekend.push(LogEntry {
        id: 1,
        round: 1,
        step: 2,
        visible_to: vec!["Kaldor".into()],
        text: LocalText {
            sv: "Eldklot mot armé 1 lyckades.".into(),
            en: "Fireball on army 1 succeeded.".into(),
        },
    });
    let r = Renderer::new().unwrap();
    assert!(form(&r, &s, "Kaldor").contains("Eldklot mot armé 1 lyckades."));
    let afani = form(&r, &s, "Afani");
    assert!(!afani.contains("Fireball"));
    assert!(afani.contains("Nothing happened last weekend."));
}

#[test]
fn afani_form_shows_nothing_of_kaldor() {
    let s = demo();
    let r = Renderer::new().unwrap();
    let text = form(&r, &s, "Afani");
    assert!(!text.contains("Kaldorhem"));
    assert!(!text.contains("relationsrutan"));
}

#[test]
fn generic_render_is_strict() {
    let r = Renderer::new().unwrap();
    let err = r
        .render("result_form", Lang::Sv, &serde_json::json!({}))
        .unwrap_err();
    assert!(matches!(err, RenderError::Render { .. }), "{err}");
    let err = r
        .render("nope", Lang::En, &serde_json::json!({}))
        .unwrap_err();
    assert!(matches!(err, RenderError::NoTemplate { .. }), "{err}");
    assert!(matches!(
        r.result_form(&demo(), "Narnia", &ctx(Lang::Sv)),
        Err(RenderError::UnknownRealm(_))
    ));
    // Every template exists in both languages.
    for (name, _, _) in TEMPLATES {
        for lang in [Lang::Sv, Lang::En] {
            assert!(
                TEMPLATES.iter().any(|(n, l, _)| n == name && *l == lang),
                "{name} has no {lang:?} version"
            );
        }
    }
}

#[test]
fn main_crate_can_add_templates() {
    let mut r = Renderer::new().unwrap();
    r.register("receipt", Lang::En, "Receipt for {{realm}}\n")
        .unwrap();
    let out = r
        .render("receipt", Lang::En, &serde_json::json!({"realm": "Afani"}))
        .unwrap();
    assert_eq!(out, "Receipt for Afani\n");
}

#[test]
fn r_mission_1_each_form_shows_its_own_mission_and_done_once_judged() {
    let mut s = demo();
    s.realm_mut("Genogien").unwrap().mission = "Bygg ett fyrtorn på Genogiens udde.".into();
    s.realm_mut("Afani").unwrap().mission = "Hold the desert pass of Afani.".into();
    let r = Renderer::new().unwrap();
    let gen = form(&r, &s, "Genogien");
    assert!(gen.contains("Uppdrag:\n"), "{gen}");
    assert!(gen.contains("Bygg ett fyrtorn på Genogiens udde."), "{gen}");
    assert!(!gen.contains("desert pass"), "Afani's mission stays hidden");
    let afani = form(&r, &s, "Afani");
    assert!(afani.contains("Hold the desert pass of Afani."), "{afani}");
    assert!(!afani.contains("fyrtorn"));
    s.realm_mut("Genogien").unwrap().mission_done = true;
    let gen = form(&r, &s, "Genogien");
    assert!(gen.contains("Uppdrag (klart):"), "{gen}");
    assert!(!form(&r, &s, "Afani").contains("(done)"));
}

#[test]
fn r_phase_2_the_form_marks_the_cap_a_realm_is_over_and_only_that_one() {
    let mut s = demo();
    let r = Renderer::new().unwrap();
    let mark = "ÖVER GRÄNSEN: inga nya kan skaffas";
    assert!(!form(&r, &s, "Genogien").contains(mark));
    // Three army groups against Befälhavare 1 (at most 2).
    s.realm_mut("Genogien").unwrap().positions.befalhavare = 1;
    let text = form(&r, &s, "Genogien");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("Befälhavare"))
        .expect("the commander's line");
    assert!(
        lines[at].contains("högst 2 armégrupper (har 3)"),
        "{}",
        lines[at]
    );
    assert_eq!(lines[at + 1].trim(), mark);
    assert_eq!(text.matches(mark).count(), 1, "{text}");
}

#[test]
fn r_pos_3_a_granted_secret_bonus_is_on_its_realms_form_only() {
    use pbemd::game::Position;
    let mut s = demo();
    s.realm_mut("Genogien").unwrap().secret_bonuses.insert(
        Position::Amiral,
        "Dina skepp seglar ett steg längre.".into(),
    );
    let r = Renderer::new().unwrap();
    let gen = form(&r, &s, "Genogien");
    assert!(
        gen.contains("Hemliga fördelar:\n  Amiral 11+: Dina skepp seglar ett steg längre."),
        "{gen}"
    );
    for other in ["Afani", "Kaldor"] {
        let text = form(&r, &s, other);
        assert!(!text.contains("Dina skepp seglar"), "{other}");
        assert!(!text.contains("Secret advantages"), "{other}");
        assert!(!text.contains("Hemliga fördelar"), "{other}");
    }
}

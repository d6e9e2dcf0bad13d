//! The weekend form (docs/reference/orders.md): rendering a form and parsing it back yields
//! the same state. For every realm of the demo and Evil scenarios, in both languages, and
//! for generated states (proptest over the demo), `parse_form_view` of the rendered Monday
//! form equals `form_state_of` the state, plain and quoted in a reply, and `read_form`
//! finds no order and no error in it.

use pbemd::forms::view::FormParseError;
use pbemd::forms::{form_state_of, parse_form_view, read_form};
use pbemd::game::state::{Invitation, Ship, Unit};
use pbemd::game::{load_scenario, GameState, Lang, Resource, ShipKind, Square, UnitKind};
use pbemd::render::{FormContext, Renderer};
use proptest::prelude::*;

const DEMO: &str = include_str!("../scenarios/demo.yaml");
const EVIL: &str = include_str!("../scenarios/evil.yaml");

fn ctx(lang: Lang) -> FormContext {
    FormContext {
        deadline_local: match lang {
            Lang::Sv => "söndag 29 november 2026 15:00".into(),
            Lang::En => "Sunday 29 November 2026 15:00".into(),
        },
        window_local: String::new(),
        game_address: "sl@game.test".into(),
        realms_listed: None,
    }
}

fn render(r: &Renderer, s: &GameState, realm: &str) -> String {
    let lang = s.realm(realm).unwrap().language;
    r.result_form(s, realm, &ctx(lang)).unwrap()
}

fn quoted(text: &str) -> String {
    let mut out = String::from(
        "Hej SL,\n\nmina ordrar kommer nästa vecka.\n\nDen 23 nov skrev sl@game.test:\n",
    );
    for l in text.lines() {
        if l.is_empty() {
            out.push_str(">\n");
        } else {
            out.push_str("> ");
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

/// The property, for one realm: parse(render) == form_state_of, plain and
/// quoted; the untouched form holds no orders and no errors.
fn assert_round_trip(r: &Renderer, s: &GameState, realm: &str) -> Result<(), String> {
    let text = render(r, s, realm);
    let want = form_state_of(s, realm);
    let got = parse_form_view(&text).map_err(|e| format!("{realm}: {e}\n{text}"))?;
    if got != want {
        return Err(format!(
            "{realm}: parsed form differs\nparsed:   {got:?}\nexpected: {want:?}\n{text}"
        ));
    }
    let got_q = parse_form_view(&quoted(&text)).map_err(|e| format!("{realm} quoted: {e}"))?;
    if got_q != want {
        return Err(format!("{realm}: the quoted form parses differently"));
    }
    let checked = read_form(s, realm, &text, &[]);
    if !checked.lines.is_empty() {
        return Err(format!(
            "{realm}: read_form found lines in the untouched form: {:?}",
            checked.lines
        ));
    }
    Ok(())
}

fn all_realms_both_languages(yaml: &str) {
    let r = Renderer::new().unwrap();
    let s = load_scenario(yaml).unwrap();
    for realm in s.realm_names() {
        assert_round_trip(&r, &s, realm).unwrap();
        let mut other = s.clone();
        let x = other.realm_mut(realm).unwrap();
        x.language = match x.language {
            Lang::Sv => Lang::En,
            Lang::En => Lang::Sv,
        };
        assert_round_trip(&r, &other, realm).unwrap();
    }
}

#[test]
fn every_demo_realm_round_trips_in_both_languages() {
    all_realms_both_languages(DEMO);
}

#[test]
fn every_evil_scenario_realm_round_trips_in_both_languages() {
    all_realms_both_languages(EVIL);
}

#[test]
fn the_parsed_form_is_the_realms_own_state() {
    let r = Renderer::new().unwrap();
    let s = load_scenario(DEMO).unwrap();
    let f = parse_form_view(&render(&r, &s, "Genogien")).unwrap();
    assert_eq!(f.realm, "Genogien");
    assert_eq!(f.round, 1);
    assert_eq!(f.lang, Lang::Sv);
    assert_eq!(f.stock.get(Resource::Mat), 30);
    assert_eq!(
        f.standard,
        vec![Resource::Mat, Resource::Jarn, Resource::Sten, Resource::Eld]
    );
    assert_eq!(f.positions.befalhavare, 4);
    assert_eq!(f.population, 200);
    assert_eq!(f.cities.len(), 3);
    assert_eq!(f.cities[0].name, "Genborg");
    assert!(f.cities[0].capital && f.cities[0].coastal && !f.cities[0].harbour);
    assert_eq!(f.cities[0].production.get(Resource::Jarn), 2);
    assert_eq!(
        f.armies[0].units,
        vec![
            (UnitKind::TungtInfanteri, 2),
            (UnitKind::Bagskyttar, 2),
            (UnitKind::LattInfanteri, 3)
        ]
    );
    assert_eq!(f.armies[1].aboard, Some(1));
    assert_eq!(f.fleets[0].cargo, vec![2]);
    assert_eq!(f.spies_held, 1);
    assert_eq!(f.friends, vec!["Afani".to_string()]);
    assert_eq!(f.vp, 300);
    assert!(f
        .mission
        .starts_with("Se till att Genogien har minst fyra städer"));
    assert_eq!(f.wishes_buy, vec![Resource::Hastar, Resource::Guld]);
}

#[test]
fn a_form_quoted_twice_under_a_reply_still_parses() {
    let r = Renderer::new().unwrap();
    let s = load_scenario(EVIL).unwrap();
    let text = quoted(&quoted(&render(&r, &s, "Ondskan")));
    assert_eq!(
        parse_form_view(&text).unwrap(),
        form_state_of(&s, "Ondskan")
    );
}

#[test]
fn a_broken_line_is_quoted_in_the_error() {
    let r = Renderer::new().unwrap();
    let s = load_scenario(DEMO).unwrap();
    let text = render(&r, &s, "Genogien").replace(
        "järn*              25           3",
        "järn*              tjugo        3",
    );
    let err = parse_form_view(&text).unwrap_err();
    match &err {
        FormParseError::BadLine { line_no, line, .. } => {
            assert_eq!(line, "järn*              tjugo        3");
            assert_eq!(text.lines().nth(line_no - 1).unwrap(), line);
        }
        e => panic!("wrong error {e:?}"),
    }
    assert!(err
        .to_string()
        .contains("«järn*              tjugo        3»"));

    let text = render(&r, &s, "Afani").replace("Army 1 on J2 (Afanis)", "Army one on J2 (Afanis)");
    let err = parse_form_view(&text).unwrap_err().to_string();
    assert!(err.contains("«Army one on J2 (Afanis)»"), "{err}");
}

#[test]
fn a_missing_section_is_named() {
    let r = Renderer::new().unwrap();
    let s = load_scenario(DEMO).unwrap();
    let text = render(&r, &s, "Afani").replace("-- FLEETS ---", "-- FLOTSAM ---");
    assert_eq!(
        parse_form_view(&text),
        Err(FormParseError::MissingSection("FLEETS"))
    );
}

#[test]
fn text_without_a_form_is_no_form() {
    assert_eq!(
        parse_form_view("Hej!\nHär är mina ordrar:\nKÖP 2 spion\n"),
        Err(FormParseError::NoForm)
    );
}

/// What a generated state changes in the demo.
#[derive(Debug, Clone)]
struct Mutation {
    stock: Vec<u32>,
    positions: Vec<u32>,
    vp: i64,
    cities: Vec<(u32, u32)>,
    armies: Vec<Vec<(u8, bool)>>,
    drop_army: Option<usize>,
    fleets: Vec<Vec<u8>>,
    spies: u32,
    friends: Vec<bool>,
    sent: (u32, u32),
    english: Vec<bool>,
    mission_done: bool,
    wishes: (Vec<u8>, Vec<u8>),
    invitation: Option<(usize, u8, bool)>,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (
        (
            prop::collection::vec(0u32..=9999, 12),
            prop::collection::vec(1u32..=30, 7),
            -200i64..=3000,
            prop::collection::vec((0u32..=400, 0u32..=40), 20),
            prop::collection::vec(prop::collection::vec((0u8..12, any::<bool>()), 1..=14), 16),
            prop::option::of(0usize..16),
        ),
        (
            prop::collection::vec(prop::collection::vec(0u8..4, 1..=9), 12),
            0u32..=12,
            prop::collection::vec(any::<bool>(), 8),
            (0u32..=9, 0u32..=9),
            prop::collection::vec(any::<bool>(), 8),
            any::<bool>(),
            (
                prop::collection::vec(0u8..12, 0..=2),
                prop::collection::vec(0u8..12, 0..=2),
            ),
            prop::option::of((0usize..8, 0u8..4, any::<bool>())),
        ),
    )
        .prop_map(
            |(
                (stock, positions, vp, cities, armies, drop_army),
                (fleets, spies, friends, sent, english, mission_done, wishes, invitation),
            )| Mutation {
                stock,
                positions,
                vp,
                cities,
                armies,
                drop_army,
                fleets,
                spies,
                friends,
                sent,
                english,
                mission_done,
                wishes,
                invitation,
            },
        )
}

/// Army units a non-Evil realm may have (demons are the Evil's).
const KINDS: [UnitKind; 12] = [
    UnitKind::LattInfanteri,
    UnitKind::TungtInfanteri,
    UnitKind::Bagskyttar,
    UnitKind::LattKavalleri,
    UnitKind::TungtKavalleri,
    UnitKind::Veteran,
    UnitKind::Belagringstorn,
    UnitKind::Eldelementar,
    UnitKind::Jordelementar,
    UnitKind::Luftelementar,
    UnitKind::Vattenelementar,
    UnitKind::BeridnaBagskyttar,
];
const SHIPS: [ShipKind; 4] = [
    ShipKind::Transportskepp,
    ShipKind::LattKrigsskepp,
    ShipKind::TungtKrigsskepp,
    ShipKind::Galeas,
];

fn apply(base: &GameState, m: &Mutation) -> GameState {
    let mut s = base.clone();
    let round = s.round;
    let names: Vec<String> = s.realms.iter().map(|r| r.name.clone()).collect();
    for (i, name) in names.iter().enumerate() {
        let r = s.realm_mut(name).unwrap();
        for (k, res) in Resource::ALL.iter().enumerate() {
            *r.stock.get_mut(*res) = (m.stock[k] + 97 * i as u32) % 10_000;
        }
        for (k, p) in pbemd::game::Position::ALL.iter().enumerate() {
            *r.positions.get_mut(*p) = 1 + (m.positions[k] - 1 + i as u32) % 30;
        }
        r.vp = m.vp + 7 * i as i64;
        r.spies = (m.spies + i as u32) % 13;
        r.sent.merchants = m.sent.0;
        r.sent.envoys = m.sent.1;
        r.mission_done = m.mission_done ^ (i % 2 == 0);
        if m.english[i % m.english.len()] {
            r.language = match r.language {
                Lang::Sv => Lang::En,
                Lang::En => Lang::Sv,
            };
        }
        r.friends = names
            .iter()
            .enumerate()
            .filter(|(j, n)| *n != name && m.friends[(i + j) % m.friends.len()])
            .map(|(_, n)| n.clone())
            .collect();
        let pick = |v: &[u8]| -> Vec<Resource> {
            let mut out: Vec<Resource> = Vec::new();
            for x in v {
                let res = Resource::ALL[*x as usize];
                if !out.contains(&res) {
                    out.push(res);
                }
            }
            out
        };
        r.trade_wishes.buy = pick(&m.wishes.0);
        r.trade_wishes.sell = pick(&m.wishes.1);
        if let Some((from, sq, used)) = m.invitation {
            let from = names[(i + 1 + from) % names.len()].clone();
            if &from != name {
                r.invitations.push(Invitation {
                    id: 900 + i as u64,
                    from,
                    square: Square::parse(["E5", "B2", "L12", "A1"][sq as usize]).unwrap(),
                    sent_round: round,
                    valid_until_round: round + sq as u32,
                    intercepted_from: None,
                    used,
                });
            }
        }
    }
    for (c, (pop, w)) in s.cities.iter_mut().zip(m.cities.iter().cycle()) {
        c.population = *pop;
        c.walls = w % (pop / 10 + 1);
    }
    for (a, units) in s.armies.iter_mut().zip(m.armies.iter().cycle()) {
        a.units = units
            .iter()
            .map(|(k, new)| Unit {
                kind: KINDS[*k as usize],
                built_round: if *new { round } else { 0 },
            })
            .collect();
    }
    if let Some(i) = m.drop_army {
        if i < s.armies.len() {
            let gone = s.armies.remove(i);
            for f in s.fleets.iter_mut().filter(|f| f.owner == gone.owner) {
                f.cargo.retain(|id| *id != gone.id);
            }
        }
    }
    for (f, ships) in s.fleets.iter_mut().zip(m.fleets.iter().cycle()) {
        f.ships = ships
            .iter()
            .map(|k| Ship {
                kind: SHIPS[*k as usize],
                built_round: 0,
            })
            .collect();
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn generated_states_round_trip_for_every_realm(m in mutation()) {
        let base = load_scenario(DEMO).unwrap();
        let s = apply(&base, &m);
        let r = Renderer::new().unwrap();
        for realm in s.realm_names() {
            if let Err(e) = assert_round_trip(&r, &s, realm) {
                prop_assert!(false, "{}", e);
            }
        }
    }
}

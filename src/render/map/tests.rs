use super::*;
use crate::game::state::{SpyMission, SpyState, StationedSpy};

fn demo() -> GameState {
    crate::game::load_scenario(include_str!("../../../scenarios/demo.yaml")).unwrap()
}

fn evil_game() -> GameState {
    crate::game::load_scenario(include_str!("../../../scenarios/evil.yaml")).unwrap()
}

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

fn has_army(v: &MapView, owner: &str, id: u32) -> Option<Known> {
    v.armies
        .iter()
        .find(|a| a.owner == owner && a.id == id)
        .map(|a| a.known)
}

#[test]
fn a_realm_sees_its_own_and_the_adjacent_enemy_but_not_the_far_one() {
    let gs = demo();
    let v = view(&gs, Viewer::Realm("Kaldor"), Dimension::Normal);
    assert_eq!(has_army(&v, "Kaldor", 1), Some(Known::Own));
    // Ostvik's army 3 stands on H7, next to Kaldor's army 2 on I7.
    assert_eq!(gs.army("Ostvik", 3).unwrap().square, sq("H7"));
    assert_eq!(has_army(&v, "Ostvik", 3), Some(Known::Border));
    for far in ["Genogien", "Afani", "Fugandri", "Mirandel"] {
        assert!(
            v.armies.iter().all(|a| a.owner != far),
            "{far}: {:?}",
            v.armies
        );
        assert!(v.fleets.iter().all(|f| f.owner != far), "{far}");
        assert!(v.cities.iter().all(|c| c.owner != far), "{far}");
    }
    assert!(v.squares.iter().all(|s| s.square != sq("B2")));
    assert_eq!(v.realms.first().map(String::as_str), Some("Kaldor"));
    let kaldorhem = v.cities.iter().find(|c| c.square == sq("J8")).unwrap();
    assert!(kaldorhem.capital && kaldorhem.walls == 4);
}

#[test]
fn the_realms_picture_covers_only_what_it_knows_plus_a_margin() {
    let gs = demo();
    let v = view(&gs, Viewer::Realm("Kaldor"), Dimension::Normal);
    assert!(v.width < 12 && v.height < 12, "{}×{}", v.width, v.height);
    for s in &v.squares {
        let (c, r) = (s.square.col(), s.square.row());
        assert!(
            c >= v.left && u32::from(c - v.left) < v.width,
            "{}",
            s.square
        );
        assert!(
            r >= v.top && u32::from(r - v.top) < v.height,
            "{}",
            s.square
        );
    }
}

#[test]
fn a_successful_spy_shows_what_it_reported_and_a_failed_one_nothing() {
    let mut gs = demo();
    let mut spy = StationedSpy {
        id: 900,
        owner: "Kaldor".into(),
        realm: "Genogien".into(),
        placed_at: chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
        mission: SpyMission::Armies,
        state: SpyState::Failed,
    };
    gs.spies.push(spy.clone());
    let v = view(&gs, Viewer::Realm("Kaldor"), Dimension::Normal);
    assert_eq!(has_army(&v, "Genogien", 1), None);
    spy.state = SpyState::Succeeded;
    gs.spies = vec![spy];
    let v = view(&gs, Viewer::Realm("Kaldor"), Dimension::Normal);
    assert_eq!(has_army(&v, "Genogien", 1), Some(Known::Spy));
    assert!(v
        .fleets
        .iter()
        .any(|f| f.owner == "Genogien" && f.known == Known::Spy));
    assert!(v.squares.iter().any(|s| s.square == sq("B2")));
    // Others see nothing of it.
    let o = view(&gs, Viewer::Realm("Ostvik"), Dimension::Normal);
    assert_eq!(has_army(&o, "Genogien", 1), None);
}

#[test]
fn the_gm_sees_everything_in_both_dimensions() {
    let gs = evil_game();
    let n = view(&gs, Viewer::Gm, Dimension::Normal);
    let e = view(&gs, Viewer::Gm, Dimension::Evil);
    assert_eq!((n.width, n.height), (12, 12));
    assert_eq!(n.squares.len(), 144);
    let in_dim = |d| gs.armies.iter().filter(|a| a.dimension == d).count();
    assert_eq!(n.armies.len(), in_dim(Dimension::Normal));
    assert_eq!(e.armies.len(), in_dim(Dimension::Evil));
    assert!(e.armies.iter().all(|a| a.known == Known::Gm));
    assert_eq!(n.fleets.len(), gs.fleets.len());
    assert!(n.squares.iter().any(|s| s.portal) && e.squares.iter().any(|s| s.portal));
    assert_eq!(e.squares.iter().filter(|s| s.treasure).count(), 4);
    assert!(n.squares.iter().all(|s| !s.treasure));
    assert!(e
        .squares
        .iter()
        .all(|s| matches!(s.ground, Ground::Lava | Ground::Rock)));
    assert!(e.cities.iter().any(|c| c.owner == "Ondskan" && c.capital));
}

#[test]
fn the_evil_dimension_shows_a_realm_only_what_sight_allows() {
    let gs = evil_game();
    let g = view(&gs, Viewer::Realm("Genogien"), Dimension::Evil);
    assert!(
        g.is_empty(),
        "Genogien has nothing in the Evil dimension: {g:?}"
    );
    let o = view(&gs, Viewer::Realm("Ondskan"), Dimension::Evil);
    assert!(o
        .armies
        .iter()
        .any(|a| a.owner == "Ondskan" && a.known == Known::Own));
    assert!(o.squares.iter().any(|s| s.treasure));
    // The portal on B4 lies in Genogien's land: Genogien sees it, Kaldor does not.
    let gn = view(&gs, Viewer::Realm("Genogien"), Dimension::Normal);
    assert!(gn.squares.iter().any(|s| s.square == sq("B4") && s.portal));
    let k = view(&gs, Viewer::Realm("Kaldor"), Dimension::Normal);
    assert!(k.squares.iter().all(|s| !s.portal));
}

#[test]
fn an_evil_army_near_a_portal_is_sighted_by_the_realm_there_only() {
    let mut gs = evil_game();
    let i = gs.armies.iter().position(|a| a.owner == "Ondskan").unwrap();
    gs.armies[i].dimension = Dimension::Normal;
    gs.armies[i].square = sq("E5");
    let id = gs.armies[i].id;
    let g = view(&gs, Viewer::Realm("Genogien"), Dimension::Normal);
    assert!(matches!(
        has_army(&g, "Ondskan", id),
        Some(Known::Sight | Known::Border)
    ));
    let m = view(&gs, Viewer::Realm("Mirandel"), Dimension::Normal);
    assert_eq!(has_army(&m, "Ondskan", id), None);
    // The Evil sees Genogien's armies within five squares of its portal.
    let o = view(&gs, Viewer::Realm("Ondskan"), Dimension::Normal);
    assert_eq!(has_army(&o, "Genogien", 1), Some(Known::Sight));
    assert_eq!(has_army(&o, "Kaldor", 1), None);
}

#[test]
fn an_unknown_realm_sees_nothing() {
    let v = view(&demo(), Viewer::Realm("Nobody"), Dimension::Normal);
    assert!(v.is_empty() && v.armies.is_empty() && v.width == 0);
    assert!(svg(&v, "en").contains("Nothing known here"));
}

#[test]
fn the_svg_escapes_names_and_fetches_nothing() {
    let mut gs = demo();
    let evil_name = "<script>alert(1)</script>&\"K'";
    for r in gs.realms.iter_mut().filter(|r| r.name == "Kaldor") {
        r.name = evil_name.into();
    }
    for m in gs
        .map
        .squares
        .values_mut()
        .filter(|m| m.owner.as_deref() == Some("Kaldor"))
    {
        m.owner = Some(evil_name.into());
    }
    for c in gs.cities.iter_mut().filter(|c| c.owner == "Kaldor") {
        c.owner = evil_name.into();
        c.name = "<img src=x onerror=alert(2)>".into();
    }
    for a in gs.armies.iter_mut().filter(|a| a.owner == "Kaldor") {
        a.owner = evil_name.into();
    }
    let v = view(&gs, Viewer::Realm(evil_name), Dimension::Normal);
    assert!(!v.armies.is_empty());
    for lang in ["sv", "en"] {
        let s = svg(&v, lang);
        assert!(
            s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{s}"
        );
        assert!(!s.contains("<script") && !s.contains("<img"), "{s}");
        assert!(
            s.contains("&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;K&#39;"),
            "{s}"
        );
        assert!(!s.contains("href") && !s.contains("url("), "{s}");
        assert!(s.contains("DejaVu Sans, sans-serif"));
    }
    assert!(svg(&v, "sv").contains("runda") && svg(&v, "en").contains("round"));
}

#[test]
fn the_png_decodes_with_the_layouts_size() {
    let gs = demo();
    for viewer in [Viewer::Gm, Viewer::Realm("Afani")] {
        let v = view(&gs, viewer, Dimension::Normal);
        let bytes = png(&v, "sv").unwrap();
        assert!(bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]));
        let p = layout(&v, "sv");
        let dec = ::png::Decoder::new(std::io::Cursor::new(bytes));
        let r = dec.read_info().unwrap();
        assert_eq!((r.info().width, r.info().height), (p.width, p.height));
    }
    // Without a font the picture is still drawn (without its text).
    let v = view(&gs, Viewer::Realm("Afani"), Dimension::Normal);
    let bare = png_with(&v, "en", None).unwrap();
    assert!(bare.starts_with(&[0x89, b'P', b'N', b'G']));
}

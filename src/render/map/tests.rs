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

/// Kaldor's spy on Genogien's armies (mission 3), its report made in `round` from the
/// demo's state as it is.
fn spy_on_genogien(gs: &GameState, state: SpyState, round: u32) -> StationedSpy {
    let intel = crate::courier::mission::gather(gs, "Kaldor", "Genogien", &SpyMission::Armies, &[])
        .expect("Genogien's armies");
    let mut saw = crate::courier::mission::findings(gs, &intel).expect("mission 3 has places");
    saw.round = round;
    StationedSpy {
        id: 900,
        owner: "Kaldor".into(),
        realm: "Genogien".into(),
        placed_at: chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
        mission: SpyMission::Armies,
        state,
        done_round: Some(round),
        saw: (state == SpyState::Succeeded).then_some(saw),
    }
}

#[test]
fn a_successful_spy_shows_what_it_reported_and_a_failed_one_nothing() {
    let mut gs = demo();
    gs.spies
        .push(spy_on_genogien(&gs, SpyState::Failed, gs.round));
    let v = view(&gs, Viewer::Realm("Kaldor"), Dimension::Normal);
    assert_eq!(has_army(&v, "Genogien", 1), None);
    gs.spies = vec![spy_on_genogien(&gs, SpyState::Succeeded, gs.round)];
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
fn a_spy_report_shows_the_groups_where_they_stood_then_not_where_they_moved() {
    let mut gs = demo();
    gs.spies = vec![spy_on_genogien(&gs, SpyState::Succeeded, gs.round)];
    let reported = gs.army("Genogien", 1).unwrap().clone();
    // After the report the army moves and loses a unit: the spy did not see that.
    let a = gs
        .armies
        .iter_mut()
        .find(|a| a.owner == "Genogien" && a.id == 1)
        .unwrap();
    a.square = sq("C3");
    a.units.pop();
    let v = view(&gs, Viewer::Realm("Kaldor"), Dimension::Normal);
    let g = v
        .armies
        .iter()
        .find(|g| g.owner == "Genogien" && g.id == 1)
        .expect("the reported army");
    assert_eq!(
        (g.square, g.units, g.known),
        (reported.square, reported.units.len() as u32, Known::Spy)
    );
    assert!(v
        .armies
        .iter()
        .all(|g| !(g.owner == "Genogien" && g.id == 1 && g.square == sq("C3"))));
}

#[test]
fn a_spy_report_is_drawn_this_round_and_the_next_then_no_more() {
    let mut gs = demo();
    let round = gs.round;
    gs.spies = vec![spy_on_genogien(&gs, SpyState::Succeeded, round)];
    for (now, drawn) in [(round, true), (round + 1, true), (round + 2, false)] {
        gs.round = now;
        let v = view(&gs, Viewer::Realm("Kaldor"), Dimension::Normal);
        assert_eq!(
            has_army(&v, "Genogien", 1).is_some(),
            drawn,
            "a report of round {round} in round {now}"
        );
    }
}

#[test]
fn a_spy_without_a_kept_report_draws_nothing() {
    let mut gs = demo();
    let mut spy = spy_on_genogien(&gs, SpyState::Succeeded, gs.round);
    spy.saw = None;
    gs.spies = vec![spy];
    let v = view(&gs, Viewer::Realm("Kaldor"), Dimension::Normal);
    assert_eq!(has_army(&v, "Genogien", 1), None);
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

/// One element of an SVG document as written: its tag, attributes and text.
#[derive(Debug)]
struct Element {
    tag: String,
    attrs: std::collections::HashMap<String, String>,
    text: String,
}

impl Element {
    fn attr(&self, name: &str) -> &str {
        self.attrs.get(name).map_or("", String::as_str)
    }

    fn num(&self, name: &str) -> f32 {
        self.attr(name).parse().unwrap_or(f32::NAN)
    }

    /// The point the element marks: a circle's or a diamond's centre, a cross's
    /// crossing, a rectangle's middle, a text's anchor.
    fn centre(&self) -> (f32, f32) {
        let nums = |s: &str| -> Vec<f32> {
            s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
                .filter_map(|t| t.parse().ok())
                .collect()
        };
        match self.tag.as_str() {
            "circle" => (self.num("cx"), self.num("cy")),
            "rect" => (
                self.num("x") + self.num("width") / 2.0,
                self.num("y") + self.num("height") / 2.0,
            ),
            // top, right, bottom, left corners
            "polygon" => {
                let p = nums(self.attr("points"));
                (p[0], p[3])
            }
            // M x1 y1 L x2 y2 …: the first bar's middle
            "path" => {
                let p = nums(self.attr("d"));
                ((p[0] + p[2]) / 2.0, (p[1] + p[3]) / 2.0)
            }
            _ => (self.num("x"), self.num("y")),
        }
    }
}

/// The elements of `svg`, in document order.
fn elements(svg: &str) -> Vec<Element> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        if rest.starts_with('/') {
            continue;
        }
        let end = rest.find('>').expect("a closed tag");
        let inner = rest[..end].trim_end_matches('/');
        let (tag, mut attrs_text) = inner.split_once(' ').unwrap_or((inner, ""));
        let mut attrs = std::collections::HashMap::new();
        while let Some((name, after)) = attrs_text.split_once("=\"") {
            let (value, next) = after.split_once('"').expect("a quoted value");
            attrs.insert(name.trim().to_string(), value.to_string());
            attrs_text = next;
        }
        rest = &rest[end + 1..];
        let text = rest[..rest.find('<').unwrap_or(rest.len())].to_string();
        out.push(Element {
            tag: tag.to_string(),
            attrs,
            text,
        });
    }
    out
}

/// What the SVG of `v` draws on each square: (square, element) for every element
/// whose marked point lies on a square of the map (the legend and the rulers lie off
/// it). The squares are the grid's cells, drawn in the view's square order.
fn on_squares(v: &MapView, svg: &str) -> Vec<(Square, Element)> {
    let all = elements(svg);
    let cells: Vec<(f32, f32, f32)> = all
        .iter()
        .filter(|e| e.tag == "rect" && e.attr("stroke") == "#bebebe")
        .map(|e| (e.num("x"), e.num("y"), e.num("width")))
        .collect();
    assert_eq!(cells.len(), v.squares.len(), "one cell per known square");
    let square_at = |(x, y): (f32, f32)| {
        cells
            .iter()
            .zip(&v.squares)
            .find(|((cx, cy, w), _)| x > *cx && x < cx + w && y > *cy && y < cy + w)
            .map(|(_, s)| s.square)
    };
    all.into_iter()
        .filter(|e| !(e.tag == "rect" && e.attr("stroke") == "#bebebe"))
        .filter_map(|e| square_at(e.centre()).map(|s| (s, e)))
        .collect()
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

/// The squares on which `svg` draws an element matching `is`.
fn marked(drawn: &[(Square, Element)], is: impl Fn(&Element) -> bool) -> Vec<Square> {
    sorted(
        drawn
            .iter()
            .filter(|(_, e)| is(e))
            .map(|(s, _)| *s)
            .collect(),
    )
}

/// The numbers written in `colour` on the squares: (square, number).
fn numbers(drawn: &[(Square, Element)], colour: &str) -> Vec<(Square, u32)> {
    sorted(
        drawn
            .iter()
            .filter(|(_, e)| e.tag == "text" && e.attr("fill") == colour)
            .map(|(s, e)| (*s, e.text.parse().expect("a number")))
            .collect(),
    )
}

/// One marker per owner and square, numbered with the units summed.
fn summed(groups: &[GroupView]) -> Vec<(Square, u32)> {
    let mut at: std::collections::BTreeMap<(Square, &str), u32> = Default::default();
    for g in groups {
        *at.entry((g.square, g.owner.as_str())).or_default() += g.units;
    }
    sorted(at.into_iter().map(|((s, _), n)| (s, n)).collect())
}

#[test]
fn the_svg_draws_each_portal_treasure_city_wall_and_unit_number_on_its_square() {
    let gs = evil_game();
    let normal = view(&gs, Viewer::Gm, Dimension::Normal);
    let evil = view(&gs, Viewer::Gm, Dimension::Evil);
    let ondskan = view(&gs, Viewer::Realm("Ondskan"), Dimension::Evil);
    for v in [&normal, &evil, &ondskan] {
        assert!(
            v.width <= 30 && v.height <= 30,
            "a small map: numbers are drawn"
        );
        let drawn = on_squares(v, &svg(v, "en"));
        let portals: Vec<Square> = v
            .squares
            .iter()
            .filter(|s| s.portal)
            .map(|s| s.square)
            .collect();
        assert_eq!(
            marked(&drawn, |e| e.tag == "circle"
                && e.attr("fill") == "none"
                && e.attr("stroke") == "#7d3c98"),
            sorted(portals),
            "a purple ring on every portal the view shows"
        );
        let treasures: Vec<Square> = v
            .squares
            .iter()
            .filter(|s| s.treasure)
            .map(|s| s.square)
            .collect();
        assert_eq!(
            marked(&drawn, |e| e.tag == "path" && e.attr("stroke") == "#d6a200"),
            sorted(treasures),
            "a gold cross on every treasure"
        );
        let cities = |capital: bool| -> Vec<Square> {
            v.cities
                .iter()
                .filter(|c| c.capital == capital)
                .map(|c| c.square)
                .collect()
        };
        assert_eq!(
            marked(&drawn, |e| e.tag == "polygon"
                && e.attr("fill") == "#222222"),
            sorted(cities(true)),
            "a dark diamond on every capital"
        );
        assert_eq!(
            marked(&drawn, |e| e.tag == "polygon"
                && e.attr("fill") == "#ffffff"),
            sorted(cities(false)),
            "a light diamond on every other city"
        );
        let harbours: Vec<Square> = v
            .cities
            .iter()
            .filter(|c| c.harbour)
            .map(|c| c.square)
            .collect();
        assert_eq!(
            marked(&drawn, |e| e.tag == "circle" && e.attr("fill") == "#1f61b5"),
            sorted(harbours),
            "a blue dot on every main harbour"
        );
        let walls: Vec<(Square, u32)> = v
            .cities
            .iter()
            .filter(|c| c.walls > 0)
            .map(|c| (c.square, c.walls))
            .collect();
        assert_eq!(
            numbers(&drawn, "#222222"),
            sorted(walls),
            "the walls beside each city"
        );
        let mut units = summed(&v.armies);
        units.extend(summed(&v.fleets));
        assert_eq!(
            numbers(&drawn, "#ffffff"),
            sorted(units),
            "each marker's units"
        );
        assert_eq!(
            marked(&drawn, |e| e.tag == "rect" && e.attr("stroke") == "#222222"),
            sorted(summed(&v.armies).into_iter().map(|(s, _)| s).collect()),
            "an army marker per owner and square"
        );
        assert_eq!(
            marked(&drawn, |e| e.tag == "circle"
                && e.attr("stroke") == "#222222"),
            sorted(summed(&v.fleets).into_iter().map(|(s, _)| s).collect()),
            "a fleet marker per owner and square"
        );
    }
    // The scenario has every kind of mark, so none of the comparisons above is empty.
    assert!(normal.squares.iter().any(|s| s.portal) && evil.squares.iter().any(|s| s.portal));
    assert!(evil.squares.iter().any(|s| s.treasure) && ondskan.squares.iter().any(|s| s.treasure));
    assert!(normal.cities.iter().any(|c| c.capital) && normal.cities.iter().any(|c| !c.capital));
    assert!(normal.cities.iter().any(|c| c.harbour));
    assert!(normal.cities.iter().any(|c| c.walls > 0));
    assert!(!normal.armies.is_empty() && !normal.fleets.is_empty() && !evil.armies.is_empty());
}

/// The legend's labels of `v`'s picture in `lang`.
fn legend_labels(v: &MapView, lang: &str) -> Vec<String> {
    layout(v, lang)
        .shapes
        .iter()
        .filter_map(|s| match s {
            Shape::Text { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn outside_a_game_with_the_evil_the_legend_has_no_portal_or_treasure() {
    let gs = demo();
    assert!(gs.evil.is_none());
    for viewer in [Viewer::Gm, Viewer::Realm("Kaldor")] {
        let v = view(&gs, viewer, Dimension::Normal);
        for (lang, gone) in [("sv", ["portal", "skatt"]), ("en", ["portal", "treasure"])] {
            let labels = legend_labels(&v, lang);
            assert!(
                labels.iter().any(|l| l == "stad" || l == "city"),
                "{labels:?}"
            );
            for g in gone {
                assert!(!labels.iter().any(|l| l == g), "`{g}` in {labels:?}");
            }
        }
    }
    // With the Evil both keys stay.
    let gs = evil_game();
    let v = view(&gs, Viewer::Gm, Dimension::Normal);
    let labels = legend_labels(&v, "en");
    assert!(labels.iter().any(|l| l == "portal"), "{labels:?}");
    assert!(labels.iter().any(|l| l == "treasure"), "{labels:?}");
}

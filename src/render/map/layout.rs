//! The picture's shapes, worked out once from a [`MapView`]: the SVG writes them as
//! text and the PNG paints them, so both show the same thing. Sizes are in pixels.

use std::collections::BTreeMap;

use super::{Ground, MapView};
use crate::game::hash::FastMap;
use crate::game::state::Dimension;
use crate::game::{Lang, Square};

/// An RGB colour.
pub type Rgb = [u8; 3];

/// Where a text's `x` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
}

/// One thing to draw, in drawing order.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        fill: Rgb,
        stroke: Option<Rgb>,
    },
    Circle {
        cx: f32,
        cy: f32,
        r: f32,
        fill: Option<Rgb>,
        stroke: Option<Rgb>,
    },
    Diamond {
        cx: f32,
        cy: f32,
        r: f32,
        fill: Rgb,
        stroke: Rgb,
    },
    /// An X of two bars `r` from the centre.
    Cross {
        cx: f32,
        cy: f32,
        r: f32,
        color: Rgb,
    },
    /// `y` is the baseline.
    Text {
        x: f32,
        y: f32,
        size: f32,
        text: String,
        color: Rgb,
        anchor: Anchor,
    },
}

/// A whole picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    pub title: String,
    pub shapes: Vec<Shape>,
}

const WHITE: Rgb = [255, 255, 255];
const INK: Rgb = [34, 34, 34];
const LAND: Rgb = [233, 228, 200];
const SEA: Rgb = [168, 200, 232];
const LAVA: Rgb = [178, 100, 52];
const ROCK: Rgb = [138, 133, 128];
const UNKNOWN: Rgb = [216, 216, 216];
const HARBOUR: Rgb = [31, 97, 181];
const PORTAL: Rgb = [125, 60, 152];
const TREASURE: Rgb = [214, 162, 0];
/// Realm colours, the viewer's first; dark enough for white numbers.
const PALETTE: [Rgb; 12] = [
    [196, 30, 98],
    [192, 57, 43],
    [41, 128, 185],
    [39, 140, 80],
    [142, 68, 173],
    [211, 84, 0],
    [22, 160, 133],
    [120, 81, 45],
    [44, 62, 80],
    [176, 58, 120],
    [95, 110, 20],
    [0, 105, 150],
];
/// The longest side of the map area.
const MAP_PX: f32 = 720.0;
const MAX_MAP_PX: f32 = 2000.0;
const PAD: f32 = 8.0;
const LEGEND_ROW: f32 = 20.0;

/// The language of a `sv`/`en` code (Swedish unless English).
pub fn lang_of(code: &str) -> Lang {
    if code.trim().eq_ignore_ascii_case("en") {
        Lang::En
    } else {
        Lang::Sv
    }
}

/// The colour of the `k`-th realm of the legend.
pub fn realm_colour(k: usize) -> Rgb {
    PALETTE[k % PALETTE.len()]
}

fn tint(c: Rgb) -> Rgb {
    mix(c, WHITE)
}

/// One part `a` to two parts `b`.
fn mix(a: Rgb, b: Rgb) -> Rgb {
    [0, 1, 2].map(|k| ((u16::from(a[k]) + 2 * u16::from(b[k])) / 3) as u8)
}

/// The legend's neutral colour for the symbols.
const KEY: Rgb = [110, 110, 110];

/// Words of the picture in one language.
fn words(lang: Lang) -> [&'static str; 14] {
    match lang {
        Lang::Sv => [
            "Spelledaren",
            "runda",
            "normala dimensionen",
            "Ondskans dimension",
            "Inget känt här",
            "armégrupp (enheter)",
            "flotta (skepp)",
            "stad",
            "huvudstad",
            "hamn",
            "portal",
            "skatt",
            "okänt",
            "murar",
        ],
        Lang::En => [
            "Game master",
            "round",
            "the normal dimension",
            "the Evil's dimension",
            "Nothing known here",
            "army group (units)",
            "fleet (ships)",
            "city",
            "capital",
            "harbour",
            "portal",
            "treasure",
            "unknown",
            "walls",
        ],
    }
}

/// The shapes of `v`'s picture, labelled in `lang` (`sv` or `en`).
pub fn layout(v: &MapView, lang: &str) -> Picture {
    let lang = lang_of(lang);
    let w = words(lang);
    let who = v.viewer.clone().unwrap_or_else(|| w[0].to_string());
    let dim = if v.dimension == Dimension::Evil {
        w[3]
    } else {
        w[2]
    };
    let title = format!("{} — {who} — {} {} — {dim}", v.game, w[1], v.round);
    let top = PAD + 24.0;
    let (grid, ruler) = grid(v, top);
    let map_w = grid.cell * v.width as f32;
    let map_h = grid.cell * v.height as f32;
    // The title's width, roughly (DejaVu Sans averages about 0.6 em a character).
    let title_w = 2.0 * PAD + title.chars().count() as f32 * 15.0 * 0.6;
    let width = (grid.x0 + map_w + PAD).max(420.0).max(title_w.min(1600.0));
    let mut s = vec![
        Shape::Rect {
            x: 0.0,
            y: 0.0,
            w: width,
            h: 0.0,
            fill: WHITE,
            stroke: None,
        },
        text(PAD, PAD + 16.0, 15.0, &title, INK, Anchor::Start),
    ];
    if v.is_empty() {
        s.push(text(PAD, top + 20.0, 13.0, w[4], INK, Anchor::Start));
    } else {
        s.push(Shape::Rect {
            x: grid.x0,
            y: grid.y0,
            w: map_w,
            h: map_h,
            fill: UNKNOWN,
            stroke: None,
        });
        rulers(&mut s, v, &grid, ruler);
        squares(&mut s, v, &grid);
        cities(&mut s, v, &grid);
        groups(&mut s, v, &grid);
    }
    let legend_y = if v.is_empty() {
        top + 40.0
    } else {
        grid.y0 + map_h + PAD
    };
    let height = legend(&mut s, v, w, legend_y, width);
    if let Some(Shape::Rect { h, .. }) = s.first_mut() {
        *h = height;
    }
    Picture {
        width: width.ceil() as u32,
        height: height.ceil() as u32,
        title,
        shapes: s,
    }
}

/// The grid of `v`'s region below `top`, and the width of its rulers (none when the
/// squares are too small to label).
fn grid(v: &MapView, top: f32) -> (Grid<'_>, f32) {
    let longest = v.width.max(v.height).max(1) as f32;
    let mut cell = (MAP_PX / longest).floor().clamp(2.0, 24.0);
    if cell * longest > MAX_MAP_PX {
        cell = (MAX_MAP_PX / longest).max(1.0);
    }
    let ruler = if cell >= 14.0 { 22.0 } else { 0.0 };
    let grid = Grid {
        x0: PAD + ruler,
        y0: top + ruler,
        cell,
        left: v.left,
        top: v.top,
        places: v
            .realms
            .iter()
            .enumerate()
            .rev()
            .map(|(i, r)| (r.as_str(), i))
            .collect(),
    };
    (grid, ruler)
}

/// Where the region's squares go, and each realm's place in the legend.
struct Grid<'v> {
    x0: f32,
    y0: f32,
    cell: f32,
    left: u16,
    top: u16,
    places: FastMap<&'v str, usize>,
}

impl Grid<'_> {
    /// The realm's place in the legend (past the end for a realm not in it).
    fn place(&self, realm: &str) -> usize {
        self.places.get(realm).copied().unwrap_or(self.places.len())
    }

    fn colour(&self, realm: &str) -> Rgb {
        realm_colour(self.place(realm))
    }

    /// The top-left corner of `sq`'s cell.
    fn at(&self, sq: Square) -> (f32, f32) {
        let c = f32::from(sq.col().saturating_sub(self.left));
        let r = f32::from(sq.row().saturating_sub(self.top));
        (self.x0 + c * self.cell, self.y0 + r * self.cell)
    }
}

fn text(x: f32, y: f32, size: f32, t: &str, color: Rgb, anchor: Anchor) -> Shape {
    Shape::Text {
        x,
        y,
        size,
        text: t.to_string(),
        color,
        anchor,
    }
}

fn rulers(s: &mut Vec<Shape>, v: &MapView, g: &Grid, ruler: f32) {
    if ruler == 0.0 {
        return;
    }
    let size = (g.cell * 0.42).min(11.0);
    for k in 0..v.width {
        let Some(sq) = Square::new(v.left.saturating_add(k as u16), v.top) else {
            continue;
        };
        let name = sq.to_string();
        let letters = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let x = g.x0 + (k as f32 + 0.5) * g.cell;
        s.push(text(x, g.y0 - 7.0, size, letters, INK, Anchor::Middle));
    }
    for k in 0..v.height {
        let row = u32::from(v.top) + k;
        let y = g.y0 + (k as f32 + 0.5) * g.cell + size * 0.35;
        s.push(text(
            g.x0 - ruler / 2.0,
            y,
            size,
            &row.to_string(),
            INK,
            Anchor::Middle,
        ));
    }
}

fn squares(s: &mut Vec<Shape>, v: &MapView, g: &Grid) {
    for q in &v.squares {
        let base = match q.ground {
            Ground::Land => LAND,
            Ground::Sea => SEA,
            Ground::Lava => LAVA,
            Ground::Rock => ROCK,
        };
        let fill = match &q.owner {
            Some(o) if q.ground == Ground::Land => tint(g.colour(o)),
            Some(o) => mix(g.colour(o), base),
            None => base,
        };
        let (x, y) = g.at(q.square);
        let stroke = (g.cell >= 8.0).then_some([190, 190, 190]);
        s.push(Shape::Rect {
            x,
            y,
            w: g.cell,
            h: g.cell,
            fill,
            stroke,
        });
        let (cx, cy) = (x + g.cell / 2.0, y + g.cell / 2.0);
        if q.portal {
            s.push(Shape::Circle {
                cx,
                cy,
                r: g.cell * 0.44,
                fill: None,
                stroke: Some(PORTAL),
            });
        }
        if q.treasure {
            s.push(Shape::Cross {
                cx: x + g.cell * 0.78,
                cy: y + g.cell * 0.78,
                r: g.cell * 0.16,
                color: TREASURE,
            });
        }
    }
}

fn cities(s: &mut Vec<Shape>, v: &MapView, g: &Grid) {
    for c in &v.cities {
        let (x, y) = g.at(c.square);
        let (cx, cy) = (x + g.cell / 2.0, y + g.cell / 2.0);
        let own = g.colour(&c.owner);
        let fill = if c.capital { INK } else { WHITE };
        s.push(Shape::Diamond {
            cx,
            cy,
            r: g.cell * 0.3,
            fill,
            stroke: own,
        });
        if c.harbour {
            s.push(Shape::Circle {
                cx: x + g.cell * 0.8,
                cy: y + g.cell * 0.2,
                r: g.cell * 0.13,
                fill: Some(HARBOUR),
                stroke: None,
            });
        }
        if c.walls > 0 && g.cell >= 20.0 {
            let size = g.cell * 0.3;
            s.push(text(
                x + g.cell * 0.14,
                y + g.cell - 2.0,
                size,
                &c.walls.to_string(),
                INK,
                Anchor::Middle,
            ));
        }
    }
}

/// Armies top-left and fleets bottom-right of their squares, one marker per owner and
/// square with the units summed.
fn groups(s: &mut Vec<Shape>, v: &MapView, g: &Grid) {
    for (list, fleet) in [(&v.armies, false), (&v.fleets, true)] {
        let mut at: BTreeMap<(Square, usize), (String, u32)> = BTreeMap::new();
        for gv in list.iter() {
            let k = g.place(&gv.owner);
            let e = at
                .entry((gv.square, k))
                .or_insert_with(|| (gv.owner.clone(), 0));
            e.1 = e.1.saturating_add(gv.units);
        }
        let mut nth: BTreeMap<Square, f32> = BTreeMap::new();
        for ((sq, _), (owner, units)) in at {
            let slot = nth.entry(sq).or_insert(0.0);
            marker(s, g, (sq, &owner, units), fleet, *slot);
            *slot += 1.0;
        }
    }
}

fn marker(
    s: &mut Vec<Shape>,
    g: &Grid,
    (sq, owner, units): (Square, &str, u32),
    fleet: bool,
    slot: f32,
) {
    let (x, y) = g.at(sq);
    let size = g.cell * 0.46;
    let shift = slot.min(2.0) * g.cell * 0.2;
    let colour = g.colour(owner);
    let (cx, cy) = if fleet {
        (x + g.cell * 0.7 - shift, y + g.cell * 0.7 - shift)
    } else {
        (x + g.cell * 0.3 + shift, y + g.cell * 0.3 + shift)
    };
    if fleet {
        s.push(Shape::Circle {
            cx,
            cy,
            r: size / 2.0,
            fill: Some(colour),
            stroke: Some(INK),
        });
    } else {
        s.push(Shape::Rect {
            x: cx - size / 2.0,
            y: cy - size / 2.0,
            w: size,
            h: size,
            fill: colour,
            stroke: Some(INK),
        });
    }
    if g.cell >= 14.0 {
        let t = size * if units >= 10 { 0.62 } else { 0.78 };
        s.push(text(
            cx,
            cy + t * 0.36,
            t,
            &units.to_string(),
            WHITE,
            Anchor::Middle,
        ));
    }
}

/// The legend from `y`: the realms' colours, then the symbols. Returns the height.
fn legend(s: &mut Vec<Shape>, v: &MapView, w: [&'static str; 14], y: f32, width: f32) -> f32 {
    const COL: f32 = 200.0;
    let per_row = ((width - 2.0 * PAD) / COL).floor().max(1.0) as usize;
    let mut k = 0usize;
    let place = |k: usize| {
        let (c, r) = (k % per_row, k / per_row);
        (PAD + c as f32 * COL, y + r as f32 * LEGEND_ROW)
    };
    let mut items: Vec<(Shape, String)> = Vec::new();
    for (i, r) in v.realms.iter().enumerate().take(24) {
        let sw = Shape::Rect {
            x: 0.0,
            y: 0.0,
            w: 14.0,
            h: 14.0,
            fill: realm_colour(i),
            stroke: Some(INK),
        };
        items.push((sw, clip(r, 24)));
    }
    if v.realms.len() > 24 {
        let more = Shape::Rect {
            x: 0.0,
            y: 0.0,
            w: 14.0,
            h: 14.0,
            fill: WHITE,
            stroke: Some(INK),
        };
        items.push((more, format!("+{}", v.realms.len() - 24)));
    }
    // Portals and treasures exist only in a game with the Evil.
    let keys = keys(w)
        .into_iter()
        .filter(|(_, t)| v.evil || (*t != w[10] && *t != w[11]));
    items.extend(keys.map(|(sh, t)| (sh, t.to_string())));
    for (sh, label) in items {
        let (x, yy) = place(k);
        s.push(moved(sh, x, yy));
        s.push(text(x + 20.0, yy + 12.0, 12.0, &label, INK, Anchor::Start));
        k += 1;
    }
    let rows = k.div_ceil(per_row) as f32;
    y + rows * LEGEND_ROW + PAD
}

/// The symbols' keys, each drawn from (0, 0) in a 14-pixel box.
fn keys(w: [&'static str; 14]) -> [(Shape, &'static str); 9] {
    let square = |fill, stroke| Shape::Rect {
        x: 0.0,
        y: 0.0,
        w: 14.0,
        h: 14.0,
        fill,
        stroke,
    };
    let circle = |r, fill, stroke| Shape::Circle {
        cx: 7.0,
        cy: 7.0,
        r,
        fill,
        stroke,
    };
    let diamond = |fill| Shape::Diamond {
        cx: 7.0,
        cy: 7.0,
        r: 7.0,
        fill,
        stroke: INK,
    };
    [
        (square(KEY, Some(INK)), w[5]),
        (circle(7.0, Some(KEY), Some(INK)), w[6]),
        (diamond(WHITE), w[7]),
        (diamond(INK), w[8]),
        (circle(4.0, Some(HARBOUR), None), w[9]),
        (circle(7.0, None, Some(PORTAL)), w[10]),
        (
            Shape::Cross {
                cx: 7.0,
                cy: 7.0,
                r: 5.0,
                color: TREASURE,
            },
            w[11],
        ),
        (square(UNKNOWN, None), w[12]),
        (text(7.0, 12.0, 11.0, "3", INK, Anchor::Middle), w[13]),
    ]
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

/// `sh` drawn at legend position `(dx, dy)` (its own coordinates are from 0).
fn moved(mut sh: Shape, dx: f32, dy: f32) -> Shape {
    match &mut sh {
        Shape::Rect { x, y, .. } | Shape::Text { x, y, .. } => {
            *x += dx;
            *y += dy;
        }
        Shape::Circle { cx, cy, .. }
        | Shape::Diamond { cx, cy, .. }
        | Shape::Cross { cx, cy, .. } => {
            *cx += dx;
            *cy += dy;
        }
    }
    sh
}

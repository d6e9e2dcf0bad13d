//! The picture's shapes painted into RGB pixels and encoded as PNG. Shapes are filled
//! with a pixel of anti-aliasing; text uses the DejaVu font the set-up installs (read
//! once per process, its glyphs kept once drawn), and without it the picture is drawn
//! without text (a warning is logged once).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::layout::{layout, Anchor, Picture, Rgb, Shape};
use super::MapView;
use crate::game::hash::FastMap;

/// Where Debian's `fonts-dejavu-core` puts the font (the `render.font` default).
pub const DEFAULT_FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// A font, with the glyphs drawn so far by (character, size in quarter pixels).
pub struct Glyphs {
    font: fontdue::Font,
    drawn: Mutex<FastMap<(char, u32), Arc<Glyph>>>,
}

struct Glyph {
    metrics: fontdue::Metrics,
    coverage: Vec<u8>,
}

impl Glyphs {
    /// Read a TrueType font file.
    pub fn load(path: &Path) -> Result<Glyphs, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read font {}: {e}", path.display()))?;
        let font = fontdue::Font::from_bytes(bytes, fontdue::FontSettings::default())
            .map_err(|e| format!("font {} is not a usable TrueType font: {e}", path.display()))?;
        Ok(Glyphs {
            font,
            drawn: Mutex::new(FastMap::default()),
        })
    }

    fn glyph(&self, c: char, size: f32) -> Arc<Glyph> {
        let key = (c, (size * 4.0).round() as u32);
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        drawn
            .entry(key)
            .or_insert_with(|| {
                let (metrics, coverage) = self.font.rasterize(c, key.1 as f32 / 4.0);
                Arc::new(Glyph { metrics, coverage })
            })
            .clone()
    }

    /// The width of `text` at `size`.
    fn advance(&self, text: &str, size: f32) -> f32 {
        text.chars()
            .map(|c| self.glyph(c, size).metrics.advance_width)
            .sum()
    }
}

/// The font at `path`, read once per process; `None` (and a warning, once) when it
/// cannot be read.
pub fn font(path: &Path) -> Option<Arc<Glyphs>> {
    static FONTS: OnceLock<Mutex<FastMap<PathBuf, Option<Arc<Glyphs>>>>> = OnceLock::new();
    let fonts = FONTS.get_or_init(Default::default);
    let mut fonts = fonts.lock().unwrap_or_else(|e| e.into_inner());
    fonts
        .entry(path.to_path_buf())
        .or_insert_with(|| match Glyphs::load(path) {
            Ok(g) => Some(Arc::new(g)),
            Err(e) => {
                tracing::warn!("map pictures are drawn without labels: {e} (install fonts-dejavu-core or set render.font)");
                None
            }
        })
        .clone()
}

/// The picture as PNG bytes, its text in `glyphs` (none without).
pub fn png_with(view: &MapView, lang: &str, glyphs: Option<&Glyphs>) -> Result<Vec<u8>, String> {
    let p = layout(view, lang);
    let mut c = Canvas::new(p.width, p.height)?;
    paint(&mut c, &p, glyphs);
    c.encode()
}

fn paint(c: &mut Canvas, p: &Picture, glyphs: Option<&Glyphs>) {
    for s in &p.shapes {
        match s {
            Shape::Rect {
                x,
                y,
                w,
                h,
                fill,
                stroke,
            } => c.rect(*x, *y, *w, *h, *fill, *stroke),
            Shape::Circle {
                cx,
                cy,
                r,
                fill,
                stroke,
            } => c.circle(*cx, *cy, *r, *fill, *stroke),
            Shape::Diamond {
                cx,
                cy,
                r,
                fill,
                stroke,
            } => c.diamond(*cx, *cy, *r, *fill, *stroke),
            Shape::Cross { cx, cy, r, color } => c.cross(*cx, *cy, *r, *color),
            Shape::Text {
                x,
                y,
                size,
                text,
                color,
                anchor,
            } => {
                if let Some(g) = glyphs {
                    let x = match anchor {
                        Anchor::Start => *x,
                        Anchor::Middle => x - g.advance(text, *size) / 2.0,
                    };
                    c.text(g, x, *y, *size, text, *color);
                }
            }
        }
    }
}

/// RGB pixels, row by row.
struct Canvas {
    w: usize,
    h: usize,
    px: Vec<u8>,
}

/// Pictures larger than this many pixels are refused (a bug, never a real map).
const MAX_PIXELS: usize = 16_000_000;

impl Canvas {
    fn new(w: u32, h: u32) -> Result<Canvas, String> {
        let (w, h) = (w.max(1) as usize, h.max(1) as usize);
        if w.saturating_mul(h) > MAX_PIXELS {
            return Err(format!("a map picture of {w}×{h} pixels is too large"));
        }
        Ok(Canvas {
            w,
            h,
            px: vec![255; w * h * 3],
        })
    }

    /// Mix `c` into pixel `(x, y)` by `a` (0–1).
    fn blend(&mut self, x: i64, y: i64, c: Rgb, a: f32) {
        if a <= 0.0 || x < 0 || y < 0 || x as usize >= self.w || y as usize >= self.h {
            return;
        }
        let i = (y as usize * self.w + x as usize) * 3;
        let a = a.min(1.0);
        for k in 0..3 {
            let p = f32::from(self.px[i + k]);
            self.px[i + k] = (p + (f32::from(c[k]) - p) * a).round() as u8;
        }
    }

    /// Every pixel whose centre is within `[x0, x1) × [y0, y1)`, with `f(px, py)`'s
    /// coverage of colour `c`.
    fn each(
        &mut self,
        (x0, y0, x1, y1): (f32, f32, f32, f32),
        c: Rgb,
        f: impl Fn(f32, f32) -> f32,
    ) {
        let xa = x0.floor().max(0.0) as i64;
        let ya = y0.floor().max(0.0) as i64;
        let xb = (x1.ceil() as i64).min(self.w as i64);
        let yb = (y1.ceil() as i64).min(self.h as i64);
        for y in ya..yb {
            for x in xa..xb {
                let a = f(x as f32 + 0.5, y as f32 + 0.5);
                self.blend(x, y, c, a);
            }
        }
    }

    fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, fill: Rgb, stroke: Option<Rgb>) {
        let (x0, y0, x1, y1) = (x.round(), y.round(), (x + w).round(), (y + h).round());
        self.each((x0, y0, x1, y1), fill, |_, _| 1.0);
        if let Some(s) = stroke {
            self.each((x0, y0, x1, y0 + 1.0), s, |_, _| 1.0);
            self.each((x0, y1 - 1.0, x1, y1), s, |_, _| 1.0);
            self.each((x0, y0, x0 + 1.0, y1), s, |_, _| 1.0);
            self.each((x1 - 1.0, y0, x1, y1), s, |_, _| 1.0);
        }
    }

    fn circle(&mut self, cx: f32, cy: f32, r: f32, fill: Option<Rgb>, stroke: Option<Rgb>) {
        let bbox = (cx - r - 1.0, cy - r - 1.0, cx + r + 1.0, cy + r + 1.0);
        let d = move |x: f32, y: f32| ((x - cx).powi(2) + (y - cy).powi(2)).sqrt();
        if let Some(f) = fill {
            self.each(bbox, f, |x, y| (r + 0.5 - d(x, y)).clamp(0.0, 1.0));
        }
        if let Some(s) = stroke {
            let half = (r * 0.08).max(0.6);
            self.each(bbox, s, |x, y| {
                (half + 0.5 - (d(x, y) - r + half).abs()).clamp(0.0, 1.0)
            });
        }
    }

    fn diamond(&mut self, cx: f32, cy: f32, r: f32, fill: Rgb, stroke: Rgb) {
        let bbox = (cx - r - 1.0, cy - r - 1.0, cx + r + 1.0, cy + r + 1.0);
        // |dx| + |dy| scaled to a distance from the edge.
        let d =
            move |x: f32, y: f32| ((x - cx).abs() + (y - cy).abs() - r) / std::f32::consts::SQRT_2;
        self.each(bbox, fill, |x, y| (0.5 - d(x, y)).clamp(0.0, 1.0));
        let half = (r * 0.1).max(0.6);
        self.each(bbox, stroke, |x, y| {
            (half + 0.5 - (d(x, y) + half).abs()).clamp(0.0, 1.0)
        });
    }

    fn cross(&mut self, cx: f32, cy: f32, r: f32, c: Rgb) {
        let half = (r * 0.25).max(0.75);
        let bbox = (cx - r - 1.0, cy - r - 1.0, cx + r + 1.0, cy + r + 1.0);
        self.each(bbox, c, |x, y| {
            let (dx, dy) = (x - cx, y - cy);
            if dx.abs() > r + 0.5 || dy.abs() > r + 0.5 {
                return 0.0;
            }
            let line = (dx - dy).abs().min((dx + dy).abs()) / std::f32::consts::SQRT_2;
            (half + 0.5 - line).clamp(0.0, 1.0)
        });
    }

    fn text(&mut self, g: &Glyphs, x: f32, baseline: f32, size: f32, text: &str, c: Rgb) {
        let mut pen = x;
        for ch in text.chars() {
            let gl = g.glyph(ch, size);
            let m = &gl.metrics;
            let left = (pen + m.xmin as f32).round() as i64;
            let top = (baseline - (m.ymin as f32 + m.height as f32)).round() as i64;
            for (row, line) in gl.coverage.chunks(m.width.max(1)).enumerate() {
                for (col, a) in line.iter().enumerate() {
                    if *a > 0 {
                        self.blend(
                            left + col as i64,
                            top + row as i64,
                            c,
                            f32::from(*a) / 255.0,
                        );
                    }
                }
            }
            pen += m.advance_width;
        }
    }

    fn encode(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(self.px.len() / 8 + 64);
        let err = |e: png::EncodingError| format!("cannot encode the map picture: {e}");
        let mut enc = png::Encoder::new(&mut out, self.w as u32, self.h as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut w = enc.write_header().map_err(err)?;
        w.write_image_data(&self.px).map_err(err)?;
        w.finish().map_err(err)?;
        Ok(out)
    }
}

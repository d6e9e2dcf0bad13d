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

    /// The glyphs of `text` at `size`, each drawn once per process.
    fn glyphs(&self, text: &str, size: f32) -> Vec<Arc<Glyph>> {
        let q = (size * 4.0).round() as u32;
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        text.chars()
            .map(|c| {
                drawn
                    .entry((c, q))
                    .or_insert_with(|| {
                        let (metrics, coverage) = self.font.rasterize(c, q as f32 / 4.0);
                        Arc::new(Glyph { metrics, coverage })
                    })
                    .clone()
            })
            .collect()
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
                    let run = g.glyphs(text, *size);
                    let x = match anchor {
                        Anchor::Start => *x,
                        Anchor::Middle => {
                            x - run.iter().map(|g| g.metrics.advance_width).sum::<f32>() / 2.0
                        }
                    };
                    c.text(&run, x, *y, *color);
                }
            }
        }
    }
}

/// Pixels as places in a palette of at most 256 colours, row by row: a map has few
/// colours (flat fills, and edges mixed in quarters), so each pixel is one byte to
/// fill and to compress. Past 256 colours a new one takes the nearest in the palette.
struct Canvas {
    w: usize,
    h: usize,
    px: Vec<u8>,
    palette: Vec<Rgb>,
    places: FastMap<Rgb, u8>,
    /// The colour placed last and its place: most pixels repeat the one before.
    last: (Rgb, u8),
}

/// Pictures larger than this many pixels are refused (a bug, never a real map).
const MAX_PIXELS: usize = 16_000_000;

impl Canvas {
    /// A white canvas.
    fn new(w: u32, h: u32) -> Result<Canvas, String> {
        let (w, h) = (w.max(1) as usize, h.max(1) as usize);
        if w.saturating_mul(h) > MAX_PIXELS {
            return Err(format!("a map picture of {w}×{h} pixels is too large"));
        }
        let mut c = Canvas {
            w,
            h,
            px: vec![0; w * h],
            palette: Vec::new(),
            places: FastMap::default(),
            last: ([255, 255, 255], 0),
        };
        c.place([255, 255, 255]);
        Ok(c)
    }

    /// The palette place of `c` (added when new; the nearest once the palette is full).
    fn place(&mut self, c: Rgb) -> u8 {
        if self.last.0 == c && !self.palette.is_empty() {
            return self.last.1;
        }
        let i = self.place_slow(c);
        self.last = (c, i);
        i
    }

    fn place_slow(&mut self, c: Rgb) -> u8 {
        if let Some(i) = self.places.get(&c) {
            return *i;
        }
        if let Ok(i) = u8::try_from(self.palette.len()) {
            self.palette.push(c);
            self.places.insert(c, i);
            return i;
        }
        let dist = |p: &Rgb| -> i32 {
            (0..3)
                .map(|k| (i32::from(p[k]) - i32::from(c[k])).pow(2))
                .sum()
        };
        let nearest = (0..self.palette.len()).min_by_key(|i| dist(&self.palette[*i]));
        nearest.and_then(|i| u8::try_from(i).ok()).unwrap_or(0)
    }

    /// Mix `c` into pixel `(x, y)` by `a` (0–1), in quarters: edges stay smooth and
    /// the picture keeps few colours.
    fn blend(&mut self, x: i64, y: i64, c: Rgb, a: f32) {
        let a = (a * 4.0).round() / 4.0;
        if a <= 0.0 || x < 0 || y < 0 || x as usize >= self.w || y as usize >= self.h {
            return;
        }
        let i = y as usize * self.w + x as usize;
        if a >= 1.0 {
            self.px[i] = self.place(c);
            return;
        }
        let under = self.palette[usize::from(self.px[i])];
        let a = (a * 256.0) as i32;
        let mixed = [0, 1, 2].map(|k| {
            let p = i32::from(under[k]);
            (p + (((i32::from(c[k]) - p) * a) >> 8)) as u8
        });
        self.px[i] = self.place(mixed);
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
        let clamp = |v: f32, max: usize| (v.round().max(0.0) as usize).min(max);
        let (x0, x1) = (clamp(x, self.w), clamp(x + w, self.w));
        let (y0, y1) = (clamp(y, self.h), clamp(y + h, self.h));
        self.solid((x0, y0, x1, y1), fill);
        if let Some(s) = stroke {
            if x1 > x0 && y1 > y0 {
                self.solid((x0, y0, x1, y0 + 1), s);
                self.solid((x0, y1 - 1, x1, y1), s);
                self.solid((x0, y0, x0 + 1, y1), s);
                self.solid((x1 - 1, y0, x1, y1), s);
            }
        }
    }

    /// Fill pixels `[x0, x1) × [y0, y1)` (within the canvas) with `c`.
    fn solid(&mut self, (x0, y0, x1, y1): (usize, usize, usize, usize), c: Rgb) {
        if x1 <= x0 || y1 <= y0 || x1 > self.w || y1 > self.h {
            return;
        }
        let i = self.place(c);
        for y in y0..y1 {
            self.px[y * self.w + x0..y * self.w + x1].fill(i);
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

    fn text(&mut self, run: &[Arc<Glyph>], x: f32, baseline: f32, c: Rgb) {
        let mut pen = x;
        for gl in run {
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

    /// PNG bytes, with the palette.
    fn encode(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(self.px.len() / 8 + 1024);
        let err = |e: png::EncodingError| format!("cannot encode the map picture: {e}");
        let mut enc = png::Encoder::new(&mut out, self.w as u32, self.h as u32);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_color(png::ColorType::Indexed);
        enc.set_palette(self.palette.concat());
        // The Up filter with fdeflate's fastest mode: the rows of a map repeat within
        // each square, so this is small as well as fast.
        enc.set_compression(png::Compression::Fastest);
        let mut w = enc.write_header().map_err(err)?;
        w.write_image_data(&self.px).map_err(err)?;
        w.finish().map_err(err)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(bytes: &[u8]) -> (png::ColorType, Vec<u8>) {
        let mut r = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (r.info().color_type, buf)
    }

    #[test]
    fn the_palette_holds_the_colours_and_past_256_the_nearest_is_taken() {
        let mut c = Canvas::new(40, 30).unwrap();
        c.rect(2.0, 2.0, 20.0, 10.0, [200, 10, 10], Some([0, 0, 0]));
        c.circle(30.0, 20.0, 6.0, Some([10, 10, 200]), None);
        let (kind, data) = decoded(&c.encode().unwrap());
        assert_eq!(kind, png::ColorType::Indexed);
        assert_eq!(data, c.px);
        assert_eq!(c.palette[usize::from(c.px[5 * 40 + 5])], [200, 10, 10]);
        for k in 0..256u32 {
            let (x, y) = (i64::from(k % 40), i64::from(k / 40));
            c.blend(x, y, [k as u8, 0, 9], 1.0);
        }
        assert_eq!(c.palette.len(), 256);
        c.blend(0, 29, [200, 3, 9], 1.0);
        assert_eq!(c.palette[usize::from(c.px[29 * 40])], [200, 0, 9]);
        assert!(decoded(&c.encode().unwrap()).1.len() == 40 * 30);
    }
}

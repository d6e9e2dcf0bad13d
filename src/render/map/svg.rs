//! The picture's shapes as a standalone SVG document: no scripts, no external
//! references (fonts by family name only), every text escaped.

use std::fmt::Write;

use super::layout::{Anchor, Picture, Rgb, Shape};

/// `p` as an SVG document.
pub fn write(p: &Picture) -> String {
    let mut out = String::with_capacity(256 + p.shapes.len() * 96);
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans, sans-serif\" role=\"img\">\
         <title>{}</title>",
        escape(&p.title),
        w = p.width,
        h = p.height,
    );
    for s in &p.shapes {
        shape(&mut out, s);
    }
    out.push_str("</svg>");
    out
}

fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

fn stroke(c: Option<Rgb>) -> String {
    c.map_or_else(String::new, |c| {
        format!(" stroke=\"{}\" stroke-width=\"1\"", hex(c))
    })
}

fn shape(out: &mut String, s: &Shape) {
    let _ = match s {
        Shape::Rect { x, y, w, h, fill, stroke: st } => write!(
            out,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" fill=\"{}\"{}/>",
            hex(*fill),
            stroke(*st)
        ),
        Shape::Circle { cx, cy, r, fill, stroke: st } => write!(
            out,
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{r:.1}\" fill=\"{}\"{}/>",
            fill.map_or_else(|| "none".to_string(), hex),
            stroke(*st)
        ),
        Shape::Diamond { cx, cy, r, fill, stroke: st } => write!(
            out,
            "<polygon points=\"{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"{}\"{}/>",
            cx,
            cy - r,
            cx + r,
            cy,
            cx,
            cy + r,
            cx - r,
            cy,
            hex(*fill),
            stroke(Some(*st))
        ),
        Shape::Cross { cx, cy, r, color } => write!(
            out,
            "<path d=\"M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}\" stroke=\"{}\" stroke-width=\"{:.1}\"/>",
            cx - r,
            cy - r,
            cx + r,
            cy + r,
            cx - r,
            cy + r,
            cx + r,
            cy - r,
            hex(*color),
            (r * 0.5).max(1.5)
        ),
        Shape::Text { x, y, size, text, color, anchor } => write!(
            out,
            "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size:.1}\" fill=\"{}\"{}>{}</text>",
            hex(*color),
            if *anchor == Anchor::Middle { " text-anchor=\"middle\"" } else { "" },
            escape(text)
        ),
    };
}

/// Text for XML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

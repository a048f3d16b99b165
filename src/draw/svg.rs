//! A [`Pen`] that writes SVG, for `resilience-lab figure`: the picture the page draws on its
//! canvas, drawn by the same code, as a document. Text is measured with a system font's own
//! advances (the first of DejaVu Sans, Liberation Sans, Arial, else the system's sans-serif)
//! and written in that font first, so the labels laid out here do not overlap where the SVG is
//! shown; [`png`] renders it with resvg and the same fonts.

use std::cell::RefCell;
use std::fmt::Write;
use std::sync::{Arc, OnceLock};

use resvg::usvg::fontdb::{Database, Family, Query, Weight};
use skrifa::MetadataProvider;
use skrifa::instance::{LocationRef, Size};

use super::{Pen, Stamp};

/// The families tried for text, in order (the page's is the reader's system-ui).
const FAMILIES: [&str; 3] = ["DejaVu Sans", "Liberation Sans", "Arial"];

#[derive(Default)]
struct State {
    out: String,
    fill: String,
    stroke: String,
    line_width: f64,
    alpha: f64,
    dash: Vec<f64>,
    path: String,
    /// The current point of the path, if it has one, and where its subpath began.
    at: Option<(f64, f64)>,
    start: (f64, f64),
}

/// An SVG document `width` × `height` CSS pixels on a background.
pub struct Svg {
    width: f64,
    height: f64,
    state: RefCell<State>,
}

impl Svg {
    pub fn new(width: f64, height: f64, bg: &str) -> Self {
        let state =
            State { fill: "#000".into(), stroke: "#000".into(), line_width: 1.0, alpha: 1.0, ..State::default() };
        let svg = Svg { width, height, state: RefCell::new(state) };
        svg.fill_rect_with(0.0, 0.0, width, height, bg);
        svg
    }

    /// What was drawn, as an element of a larger document: an `<svg>` of its own size placed
    /// `y` px down, named `id` (its picture and its caption, which tests find by name).
    pub fn placed(self, id: &str, y: f64) -> String {
        let (w, h) = (n(self.width), n(self.height));
        format!(
            "<svg id=\"{id}\" y=\"{}\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n{}</svg>\n",
            n(y),
            self.state.into_inner().out
        )
    }

    /// A document `width` × `height` of `parts` (from [`Svg::placed`]).
    pub fn document(width: f64, height: f64, parts: &[String]) -> String {
        let (w, h) = (n(width), n(height));
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n{}</svg>\n",
            parts.concat()
        )
    }

    fn fill_rect_with(&self, x: f64, y: f64, w: f64, h: f64, ink: &str) {
        let mut s = self.state.borrow_mut();
        let opacity = opacity(s.alpha);
        let _ = writeln!(
            s.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{opacity}/>",
            n(x),
            n(y),
            n(w),
            n(h),
            escape(ink)
        );
    }
}

/// A number as SVG writes it: to a hundredth, without trailing zeros.
fn n(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

fn opacity(alpha: f64) -> String {
    if alpha < 1.0 { format!(" opacity=\"{}\"", n(alpha)) } else { String::new() }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

impl Pen for Svg {
    fn set_fill_style_str(&self, ink: &str) {
        self.state.borrow_mut().fill = ink.to_string();
    }

    fn set_stroke_style_str(&self, ink: &str) {
        self.state.borrow_mut().stroke = ink.to_string();
    }

    fn set_line_width(&self, w: f64) {
        self.state.borrow_mut().line_width = w;
    }

    fn set_global_alpha(&self, a: f64) {
        self.state.borrow_mut().alpha = a;
    }

    fn set_line_dash(&self, dash: &[f64]) {
        self.state.borrow_mut().dash = dash.to_vec();
    }

    fn begin_path(&self) {
        let mut s = self.state.borrow_mut();
        s.path.clear();
        s.at = None;
    }

    fn move_to(&self, x: f64, y: f64) {
        let mut s = self.state.borrow_mut();
        let _ = write!(s.path, "M{} {}", n(x), n(y));
        s.at = Some((x, y));
        s.start = (x, y);
    }

    fn line_to(&self, x: f64, y: f64) {
        let mut s = self.state.borrow_mut();
        let command = if s.at.is_some() { "L" } else { "M" };
        let _ = write!(s.path, "{command}{} {}", n(x), n(y));
        s.at = Some((x, y));
    }

    fn arc(&self, x: f64, y: f64, r: f64, from: f64, to: f64) {
        let point = |a: f64| (x + r * a.cos(), y + r * a.sin());
        let start = point(from);
        // As the canvas does: a line from the current point to the arc's start.
        let at = self.state.borrow().at;
        match at {
            Some(at) if (at.0 - start.0).abs() + (at.1 - start.1).abs() < 1e-9 => {}
            Some(_) => self.line_to(start.0, start.1),
            None => self.move_to(start.0, start.1),
        }
        let sweep = (to - from).min(std::f64::consts::TAU);
        let mut s = self.state.borrow_mut();
        // A whole circle is two half arcs: one SVG arc cannot end where it starts.
        let halves = if sweep >= std::f64::consts::TAU - 1e-9 {
            vec![from + sweep / 2.0, from + sweep]
        } else {
            vec![from + sweep]
        };
        for a in halves {
            let end = point(a);
            let large = u8::from(sweep > std::f64::consts::PI && sweep < std::f64::consts::TAU - 1e-9);
            let _ = write!(s.path, "A{r} {r} 0 {large} 1 {} {}", n(end.0), n(end.1), r = n(r));
            s.at = Some(end);
        }
    }

    fn rect(&self, x: f64, y: f64, w: f64, h: f64) {
        self.move_to(x, y);
        let mut s = self.state.borrow_mut();
        let _ = write!(s.path, "h{}v{}h{}Z", n(w), n(h), n(-w));
    }

    fn close_path(&self) {
        let mut s = self.state.borrow_mut();
        if s.at.is_some() {
            s.path.push('Z');
            s.at = Some(s.start);
        }
    }

    fn fill(&self) {
        let mut s = self.state.borrow_mut();
        if s.path.is_empty() {
            return;
        }
        let line = format!("<path d=\"{}\" fill=\"{}\"{}/>", s.path, escape(&s.fill), opacity(s.alpha));
        let _ = writeln!(s.out, "{line}");
    }

    fn stroke(&self) {
        let mut s = self.state.borrow_mut();
        if s.path.is_empty() {
            return;
        }
        let line = format!("<path d=\"{}\" fill=\"none\"{}/>", s.path, stroke_attributes(&s));
        let _ = writeln!(s.out, "{line}");
    }

    fn fill_rect(&self, x: f64, y: f64, w: f64, h: f64) {
        let ink = self.state.borrow().fill.clone();
        self.fill_rect_with(x, y, w, h, &ink);
    }

    fn stroke_rect(&self, x: f64, y: f64, w: f64, h: f64) {
        let mut s = self.state.borrow_mut();
        let line = format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\"{}/>",
            n(x),
            n(y),
            n(w),
            n(h),
            stroke_attributes(&s)
        );
        let _ = writeln!(s.out, "{line}");
    }

    fn text_width(&self, font: &'static str, text: &str) -> f64 {
        let (size, bold, _) = parse_font(font);
        measure(text, size, bold)
    }

    fn label(&self, l: &Stamp) {
        if let Some(bg) = l.bg {
            self.fill_rect_with(l.left, l.top, l.width, l.height, bg);
        }
        let (size, bold, families) = parse_font(l.font);
        let family = fonts().family.as_deref().map_or(String::new(), |f| format!("'{f}', "));
        let weight = if bold { " font-weight=\"bold\"" } else { "" };
        let weight =
            if l.font.starts_with("italic") { format!("{weight} font-style=\"italic\"") } else { weight.into() };
        let mut s = self.state.borrow_mut();
        let opacity = opacity(s.alpha);
        let _ = writeln!(
            s.out,
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" font-family=\"{}{}\"{weight} fill=\"{}\"{opacity}>{}</text>",
            n(l.left + l.text_x),
            n(l.top + l.baseline),
            n(size),
            escape(&family),
            escape(families),
            escape(l.ink),
            escape(l.text)
        );
    }
}

fn stroke_attributes(s: &State) -> String {
    let mut a = format!(" stroke=\"{}\" stroke-width=\"{}\"", escape(&s.stroke), n(s.line_width));
    if !s.dash.is_empty() {
        let dash: Vec<String> = s.dash.iter().map(|&d| n(d)).collect();
        let _ = write!(a, " stroke-dasharray=\"{}\"", dash.join(" "));
    }
    a.push_str(&opacity(s.alpha));
    a
}

/// A CSS font ("bold 11px system-ui, sans-serif", "600 11px …", "italic 11px …"): its size in
/// px, whether bold (a weight of 600 or more too, as the timeline's lane names), its families.
fn parse_font(font: &str) -> (f64, bool, &str) {
    let Some(px) = font.find("px") else { return (11.0, false, "sans-serif") };
    let before = &font[..px];
    let start = before.rfind(' ').map_or(0, |i| i + 1);
    let size = before[start..].parse().unwrap_or(11.0);
    let bold = before[..start].split(' ').any(|w| w == "bold" || w.parse::<u32>().is_ok_and(|n| n >= 600));
    (size, bold, font[px + 2..].trim())
}

/// The system's fonts, loaded once: for measuring here and for rendering in [`png`].
struct Fonts {
    db: Arc<Database>,
    /// The family text is measured in, and its regular and bold faces' data.
    family: Option<String>,
    faces: [Option<(Vec<u8>, u32)>; 2],
}

fn fonts() -> &'static Fonts {
    static FONTS: OnceLock<Fonts> = OnceLock::new();
    FONTS.get_or_init(|| {
        let mut db = Database::new();
        db.load_system_fonts();
        let family = FAMILIES
            .iter()
            .find(|f| db.query(&Query { families: &[Family::Name(f)], ..Query::default() }).is_some())
            .map(|f| f.to_string());
        if let Some(f) = &family {
            db.set_sans_serif_family(f.clone());
        }
        let face = |weight| {
            let id = db.query(&Query { families: &[Family::SansSerif], weight, ..Query::default() })?;
            db.with_face_data(id, |data, index| (data.to_vec(), index))
        };
        let faces = [face(Weight::NORMAL), face(Weight::BOLD)];
        Fonts { db: Arc::new(db), family, faces }
    })
}

/// The width of `text` at `size` px, from the font's advances (without kerning, as close to the
/// browser's as a label's layout needs); 0.6 em a character without a font.
fn measure(text: &str, size: f64, bold: bool) -> f64 {
    let face = fonts().faces[usize::from(bold)].as_ref().or(fonts().faces[0].as_ref());
    let font = face.and_then(|(data, index)| skrifa::FontRef::from_index(data, *index).ok());
    let Some(font) = font else { return text.chars().count() as f64 * size * 0.6 };
    let (charmap, metrics) = (font.charmap(), font.glyph_metrics(Size::new(size as f32), LocationRef::default()));
    text.chars().map(|c| charmap.map(c).and_then(|g| metrics.advance_width(g)).map_or(size * 0.6, f64::from)).sum()
}

/// The SVG rendered `width` px wide (its height in proportion), as PNG bytes.
pub fn png(svg: &str, width: u32) -> Result<Vec<u8>, String> {
    let options = resvg::usvg::Options { fontdb: fonts().db.clone(), ..Default::default() };
    let tree = resvg::usvg::Tree::from_str(svg, &options).map_err(|e| format!("the SVG does not parse: {e}"))?;
    let size = tree.size();
    let scale = width as f32 / size.width();
    let height = (size.height() * scale).round().max(1.0) as u32;
    let mut pixmap = resvg::tiny_skia::Pixmap::new(width.max(1), height).ok_or("an empty picture")?;
    resvg::render(&tree, resvg::tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| format!("PNG: {e}"))
}

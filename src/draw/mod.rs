//! The figures' pictures, drawn once for the page and the command line (issue 46): each picture
//! draws on a [`Pen`], the few Canvas 2D operations it needs. In the browser the pen is the
//! canvas's own context (`ui::kit::canvas`); natively it is an SVG writer ([`svg`]), which
//! `resilience-lab figure` prints or turns into a PNG. A picture is fed plain data (the model's
//! moment, its size, a [`Theme`]) and knows nothing of Leptos or the DOM.
//!
//! Generic, not `dyn`: the browser build has one pen, so each picture compiles to one copy that
//! calls the context directly, as it did when it was written against the context.

#[cfg(feature = "at-least-once")]
pub mod at_least_once;
#[cfg(feature = "cascade")]
pub mod cascade;
pub mod chart;
#[cfg(feature = "choosing-numbers")]
pub mod choosing_numbers;
#[cfg(feature = "deadline-chain")]
pub mod deadline_chain;
#[cfg(feature = "double-click")]
pub mod double_click;
#[cfg(not(target_arch = "wasm32"))]
pub mod figure;
pub mod labels;
#[cfg(feature = "retry-storm")]
pub mod retry_storm;
#[cfg(feature = "slow-server")]
pub mod slow_server;
#[cfg(not(target_arch = "wasm32"))]
pub mod svg;
pub mod theme;
pub mod timeline;
#[cfg(feature = "which-timeout")]
pub mod which_timeout;

pub use labels::{Labels, Spot};
pub use theme::{Theme, color, slot};

/// The font of every label the figures draw: the pictures', the charts' and the timeline's.
pub const FONT: &str = "11px system-ui, sans-serif";

/// Round numbers for axis ticks: 1, 2 or 5 times a power of ten.
pub fn nice_step(range: f64, target_ticks: f64) -> f64 {
    let raw = (range / target_ticks).max(1e-9);
    let mag = libm::pow(10.0, libm::floor(libm::log10(raw)));
    let norm = raw / mag;
    let nice = if norm < 1.5 {
        1.0
    } else if norm < 3.5 {
        2.0
    } else if norm < 7.5 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// The Canvas 2D operations the pictures use, named as the context names them; coordinates in
/// CSS pixels.
pub trait Pen {
    fn set_fill_style_str(&self, ink: &str);
    fn set_stroke_style_str(&self, ink: &str);
    fn set_line_width(&self, w: f64);
    fn set_global_alpha(&self, a: f64);
    /// The dash pattern, on and off lengths; empty: solid.
    fn set_line_dash(&self, dash: &[f64]);
    fn begin_path(&self);
    fn move_to(&self, x: f64, y: f64);
    fn line_to(&self, x: f64, y: f64);
    /// An arc clockwise (on the screen) from angle `from` to `to`, radians from the x axis.
    fn arc(&self, x: f64, y: f64, r: f64, from: f64, to: f64);
    fn rect(&self, x: f64, y: f64, w: f64, h: f64);
    fn close_path(&self);
    fn fill(&self);
    fn stroke(&self);
    fn fill_rect(&self, x: f64, y: f64, w: f64, h: f64);
    fn stroke_rect(&self, x: f64, y: f64, w: f64, h: f64);
    /// The width of `text` in `font` (a CSS font, "11px system-ui, sans-serif").
    fn text_width(&self, font: &'static str, text: &str) -> f64;
    /// Draws a label (see [`Stamp`]).
    fn label(&self, s: &Stamp);
}

/// A label to draw: `text` in `font` and `ink`, on a box of `bg` (none: on what is beneath), the
/// box's top-left corner at (`left`, `top`) and its size `width` × `height`, the text's left
/// edge and baseline at `text_x` and `baseline` from that corner. CSS pixels.
pub struct Stamp<'a> {
    pub text: &'a str,
    pub font: &'static str,
    pub ink: &'a str,
    pub bg: Option<&'a str>,
    pub left: f64,
    pub top: f64,
    pub width: f64,
    pub height: f64,
    pub text_x: f64,
    pub baseline: f64,
}

/// What a picture keeps of an earlier run, and what to call it (`ui::kit::ghost` makes it).
#[derive(Clone, Debug, PartialEq)]
pub struct Ghost<T> {
    /// The preset's label, or "before your change" when the run was not a preset's.
    pub label: String,
    pub trace: T,
}

/// Dots of radius `radius` at `points`, filled or as rings, in one path (a picture draws
/// hundreds of requests a frame: one path per kind, not one per dot).
pub fn dots(p: &impl Pen, ink: &str, points: impl Iterator<Item = (f64, f64)>, radius: f64, filled: bool) {
    p.begin_path();
    for (x, y) in points {
        p.move_to(x + radius, y);
        p.arc(x, y, if filled { radius } else { radius - 0.6 }, 0.0, std::f64::consts::TAU);
    }
    if filled {
        p.set_fill_style_str(ink);
        p.fill();
    } else {
        p.set_stroke_style_str(ink);
        p.set_line_width(1.2);
        p.stroke();
    }
    p.set_line_width(1.0);
}

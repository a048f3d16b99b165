//! Text on a chart that never overlaps: every label takes the first of its candidate places
//! that is inside the canvas and clear of the labels placed before it (axis labels first, so
//! nothing covers them). The boxes drawn are published on the canvas as `data-labels` (see
//! [`Labels::json`]), so the browser tests can check that no two overlap and none is cut off, at
//! any width.

use super::{Pen, Stamp};
use crate::sim::decimal::fixed;

/// The height of an 11 px label's box: from 9 px above its baseline to 3 px below.
pub const ASCENT: f64 = 9.0;
pub const DESCENT: f64 = 3.0;
/// Space kept between two labels.
const PAD: f64 = 1.0;
/// Space kept beside a label that names a line (a marker's, a range's): with less, two such
/// labels on either side of a line read as one ("pool fullrecommendations stops").
const APART: f64 = 8.0;

/// Where a label may go: its left edge and baseline.
#[derive(Clone, Copy, Debug)]
pub struct Spot {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Debug)]
struct Placed {
    text: String,
    x: f64,
    y: f64,
    w: f64,
}

impl Placed {
    fn overlaps(&self, x: f64, y: f64, w: f64, gap: f64) -> bool {
        x < self.x + self.w + gap
            && self.x < x + w + gap
            && y - ASCENT < self.y + DESCENT + PAD
            && self.y - ASCENT < y + DESCENT + PAD
    }
}

pub struct Labels<'a, P: Pen> {
    pen: &'a P,
    font: &'static str,
    width: f64,
    height: f64,
    halo: &'static str,
    placed: Vec<Placed>,
}

impl<'a, P: Pen> Labels<'a, P> {
    /// Labels in `font`.
    pub fn new(pen: &'a P, font: &'static str, width: f64, height: f64, halo: &'static str) -> Self {
        Self { pen, font, width, height, halo, placed: Vec::new() }
    }

    pub fn width_of(&self, text: &str) -> f64 {
        self.pen.text_width(self.font, text)
    }

    fn fits(&self, x: f64, y: f64, w: f64, gap: f64) -> bool {
        x >= 0.0
            && x + w <= self.width
            && y - ASCENT >= 0.0
            && y + DESCENT <= self.height
            && !self.placed.iter().any(|p| p.overlaps(x, y, w, gap))
    }

    /// Draws `text` in `fill` at the first free spot, on a box of the background colour so it
    /// stays readable over lines and bars; false when no spot was free (it is left out).
    pub fn place(&mut self, text: &str, fill: &str, spots: impl IntoIterator<Item = Spot>) -> bool {
        self.place_with_gap(text, fill, spots, PAD)
    }

    /// [`Labels::place`] for a label that names a line: a character's width clear of the others
    /// beside it, so the reader can tell which label is whose.
    pub fn place_apart(&mut self, text: &str, fill: &str, spots: impl IntoIterator<Item = Spot>) -> bool {
        self.place_with_gap(text, fill, spots, APART)
    }

    fn place_with_gap(&mut self, text: &str, fill: &str, spots: impl IntoIterator<Item = Spot>, gap: f64) -> bool {
        if text.is_empty() {
            return true;
        }
        let w = self.width_of(text);
        let Some(spot) = spots.into_iter().find(|s| self.fits(s.x, s.y, w, gap)) else { return false };
        // On a box of the background's colour, so it stays readable over lines and bars.
        self.pen.label(&Stamp {
            text,
            font: self.font,
            ink: fill,
            bg: Some(self.halo),
            left: spot.x - 1.5,
            top: spot.y - ASCENT,
            width: w + 3.0,
            height: ASCENT + DESCENT,
            text_x: 1.5,
            baseline: ASCENT,
        });
        self.placed.push(Placed { text: text.to_string(), x: spot.x, y: spot.y, w });
        true
    }

    /// The boxes drawn, as JSON `[{"text","x","y","w","h"}]` (top-left corner).
    pub fn json(&self) -> String {
        let boxes: Vec<String> =
            self.placed.iter().map(|p| label_json(&p.text, p.x, p.y - ASCENT, p.w, ASCENT + DESCENT)).collect();
        format!("[{}]", boxes.join(","))
    }
}

/// A drawn label's box as JSON for the tests: `{"text","x","y","w","h"}`, top-left corner, in
/// CSS pixels to a tenth.
pub fn label_json(text: &str, x: f64, y: f64, w: f64, h: f64) -> String {
    let text = text.replace('\\', "\\\\").replace('"', "\\\"");
    let [x, y, w, h] = [x, y, w, h].map(|v| fixed(v, 1));
    format!("{{\"text\":\"{text}\",\"x\":{x},\"y\":{y},\"w\":{w},\"h\":{h}}}")
}

//! Text on a chart that never overlaps: every label takes the first of its candidate places
//! that is inside the canvas and clear of the labels placed before it (axis labels first, so
//! nothing covers them). The boxes drawn are published on the canvas as `data-labels`, so the
//! browser tests can check that no two overlap and none is cut off, at any width.

use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::super::canvas::{set_attribute, text_width};

/// The height of an 11 px label's box: from 9 px above its baseline to 3 px below.
pub const ASCENT: f64 = 9.0;
pub const DESCENT: f64 = 3.0;
/// Space kept between two labels.
const PAD: f64 = 1.0;

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
    fn overlaps(&self, x: f64, y: f64, w: f64) -> bool {
        x < self.x + self.w + PAD
            && self.x < x + w + PAD
            && y - ASCENT < self.y + DESCENT + PAD
            && self.y - ASCENT < y + DESCENT + PAD
    }
}

pub struct Labels<'a> {
    ctx: &'a CanvasRenderingContext2d,
    font: &'static str,
    width: f64,
    height: f64,
    halo: &'static str,
    placed: Vec<Placed>,
}

impl<'a> Labels<'a> {
    /// Labels in `font`, which the context has.
    pub fn new(
        ctx: &'a CanvasRenderingContext2d,
        font: &'static str,
        width: f64,
        height: f64,
        halo: &'static str,
    ) -> Self {
        Self { ctx, font, width, height, halo, placed: Vec::new() }
    }

    pub fn width_of(&self, text: &str) -> f64 {
        text_width(self.ctx, self.font, text)
    }

    fn fits(&self, x: f64, y: f64, w: f64) -> bool {
        x >= 0.0
            && x + w <= self.width
            && y - ASCENT >= 0.0
            && y + DESCENT <= self.height
            && !self.placed.iter().any(|p| p.overlaps(x, y, w))
    }

    /// Draws `text` in `fill` at the first free spot, on a box of the background colour so it
    /// stays readable over lines and bars; false when no spot was free (it is left out).
    pub fn place(&mut self, text: &str, fill: &str, spots: impl IntoIterator<Item = Spot>) -> bool {
        if text.is_empty() {
            return true;
        }
        let w = self.width_of(text);
        let Some(spot) = spots.into_iter().find(|s| self.fits(s.x, s.y, w)) else { return false };
        self.ctx.set_text_align("left");
        // The background under the label's box: a rectangle costs a fraction of a stroked outline
        // of the glyphs (which was a fifth of a chart's frame on a phone's CPU).
        self.ctx.set_fill_style_str(self.halo);
        self.ctx.fill_rect(spot.x - 1.5, spot.y - ASCENT, w + 3.0, ASCENT + DESCENT);
        self.ctx.set_fill_style_str(fill);
        let _ = self.ctx.fill_text(text, spot.x, spot.y);
        self.placed.push(Placed { text: text.to_string(), x: spot.x, y: spot.y, w });
        true
    }

    /// Publishes the boxes drawn, as JSON `[{"text","x","y","w","h"}]` (top-left corner).
    pub fn publish(&self, el: &HtmlCanvasElement) {
        let boxes: Vec<String> = self
            .placed
            .iter()
            .map(|p| {
                let text = p.text.replace('\\', "\\\\").replace('"', "\\\"");
                format!(
                    "{{\"text\":\"{text}\",\"x\":{:.1},\"y\":{:.1},\"w\":{:.1},\"h\":{:.1}}}",
                    p.x,
                    p.y - ASCENT,
                    p.w,
                    ASCENT + DESCENT
                )
            })
            .collect();
        set_attribute(el, "data-labels", &format!("[{}]", boxes.join(",")));
    }
}

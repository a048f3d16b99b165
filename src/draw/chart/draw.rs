//! Drawing a [`ChartData`] on a [`Pen`]: the scale, the grid and axes, shaded ranges, bars,
//! lines, reference lines and markers, then every text label through [`Labels`], so no two
//! labels overlap and none is cut off by the canvas edge.

use super::data::{ChartData, XAxis};
use crate::draw::labels::{ASCENT, Labels, Spot};
use crate::draw::{FONT, Pen, Theme, color, nice_step};
use crate::format;

const RIGHT: f64 = 18.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 24.0;
/// Rows of labels below the plot's top edge (markers, shaded ranges), this far apart.
const ROW: f64 = 13.0;
const ROWS: usize = 4;

/// The y axis: its ticks and whether it is logarithmic.
struct YAxis {
    ticks: Vec<f64>,
    top: f64,
    log: Option<(f64, f64)>,
}

impl YAxis {
    fn of(d: &ChartData) -> Self {
        let mut y_max = d.y_min_max;
        let mut y_min_pos = f64::INFINITY;
        let band_ys = d.bands.iter().flat_map(|b| b.lo.iter().chain(&b.hi));
        for &y in d.lines.iter().flat_map(|l| &l.ys).chain(band_ys).filter(|y| y.is_finite()) {
            y_max = y_max.max(y);
            if y > 0.0 {
                y_min_pos = y_min_pos.min(y);
            }
        }
        if let Some(b) = &d.bars {
            for i in 0..b.xs.len() {
                y_max = y_max.max(b.stacks.iter().map(|(_, _, v)| v.get(i).copied().unwrap_or(0.0)).sum());
            }
        }
        for (y, _) in &d.hlines {
            y_max = y_max.max(*y * 1.1);
        }
        if d.log_y && y_min_pos.is_finite() {
            let lo = libm::floor(libm::log10(y_min_pos.max(0.1)));
            // A maximum of exactly 10,000 tops the axis at 10,000, not 100,000.
            let hi = libm::ceil(libm::log10(y_max.max(1.0)) - 1e-9).max(lo + 1.0);
            let ticks = (lo as i32..=hi as i32).map(|e| libm::pow(10.0, e as f64)).collect();
            return YAxis { ticks, top: 0.0, log: Some((lo, hi)) };
        }
        let step = nice_step(y_max.max(1e-9), 4.0);
        let top = libm::ceil(y_max / step) * step;
        let step = nice_step(top.max(1e-9), 4.0);
        let ticks = (0..=((top / step).round() as i32)).map(|k| k as f64 * step).collect();
        YAxis { ticks, top, log: None }
    }
}

/// Data to canvas coordinates.
struct Scale {
    x0: f64,
    x1: f64,
    left: f64,
    w: f64,
    h: f64,
    y: YAxis,
}

impl Scale {
    fn px(&self, x: f64) -> f64 {
        self.left + (x - self.x0) / (self.x1 - self.x0) * self.w
    }

    fn py(&self, y: f64) -> f64 {
        match self.y.log {
            Some((lo, hi)) => {
                let v = libm::log10(y.max(libm::pow(10.0, lo)));
                TOP + self.h - (v - lo) / (hi - lo).max(1e-9) * self.h
            }
            None => TOP + self.h - y / self.y.top.max(1e-9) * self.h,
        }
    }

    fn bottom(&self) -> f64 {
        TOP + self.h
    }
}

/// Where a chart's plot is: its left edge and width in CSS px, and the x values at its ends.
pub struct Plot {
    pub left: f64,
    pub width: f64,
    pub x0: f64,
    pub x1: f64,
}

/// What a drawn chart tells its page: where its plot is (for a pointer dragging a value along
/// x) and the boxes of the labels drawn, as JSON (the page's `data-labels`).
pub struct Drawn {
    pub plot: Plot,
    pub labels: String,
}

/// Draws `d` on `p`, `width` × `height` CSS px, in `theme`.
pub fn draw(p: &impl Pen, width: f64, height: f64, theme: &Theme, d: &ChartData) -> Drawn {
    let y = YAxis::of(d);
    let unit = if d.y_unit.is_empty() { String::new() } else { format!(" {}", d.y_unit) };
    let y_labels: Vec<String> = y.ticks.iter().map(|&t| format!("{}{unit}", format::tick(t))).collect();
    // The plot starts where the widest y label ends, so "100k ms" is never cut off.
    let left = y_labels.iter().map(|l| p.text_width(FONT, l)).fold(24.0, f64::max).ceil() + 8.0;
    let (x0, x1) = (d.x_range.0, d.x_range.1.max(d.x_range.0 + 1.0));
    let s = Scale { x0, x1, left, w: width - left - RIGHT, h: height - TOP - BOTTOM, y };
    let mut labels = Labels::new(p, FONT, width, height, theme.bg);

    // The grid first: a shaded range drawn over it tints its lines instead of cutting itself
    // into stripes.
    grid_and_y_axis(p, &s, &y_labels, theme, &mut labels);
    shade(p, &s, d, theme);
    x_axis(p, &s, d.x_axis, theme, &mut labels);
    bars(p, &s, d, theme);
    bands(p, &s, d, theme);
    lines(p, &s, d, theme);
    reference_lines(p, &s, d, theme, &mut labels);
    markers(p, &s, d, theme, &mut labels);
    shaded_labels(&s, d, theme, &mut labels);
    axes(p, &s, theme);
    Drawn { plot: Plot { left, width: s.w, x0, x1 }, labels: labels.json() }
}

fn shade(p: &impl Pen, s: &Scale, d: &ChartData, theme: &Theme) {
    for (a, b, _) in &d.shaded {
        let (xa, xb) = (s.px(a.max(s.x0)), s.px(b.min(s.x1)));
        if xb > xa {
            p.set_fill_style_str(theme.shade);
            p.fill_rect(xa, TOP, xb - xa, s.h);
        }
    }
}

fn grid_and_y_axis(p: &impl Pen, s: &Scale, texts: &[String], theme: &Theme, labels: &mut Labels<impl Pen>) {
    p.set_stroke_style_str(theme.grid);
    p.set_line_width(1.0);
    for (&t, text) in s.y.ticks.iter().zip(texts) {
        let yy = s.py(t).round() + 0.5;
        p.begin_path();
        p.move_to(s.left, yy);
        p.line_to(s.left + s.w, yy);
        p.stroke();
        let w = labels.width_of(text);
        // The top label sits lower rather than be cut by the canvas edge.
        labels.place(text, theme.muted, [Spot { x: s.left - 4.0 - w, y: (yy + 4.0).max(ASCENT + 1.0) }]);
    }
}

/// Seconds (or the parameter's values) along the bottom: about one label per 70 px; a label
/// that would touch its neighbour is left out.
fn x_axis(p: &impl Pen, s: &Scale, axis: XAxis, theme: &Theme, labels: &mut Labels<impl Pen>) {
    let (per_unit, unit) = match axis {
        XAxis::Time => (1000.0, "s"),
        XAxis::Value(unit) => (1.0, unit),
    };
    let step = nice_step((s.x1 - s.x0) / per_unit, (s.w / 70.0).clamp(2.0, 6.0));
    let mut t = libm::ceil(s.x0 / per_unit / step) * step;
    p.set_stroke_style_str(theme.grid);
    while t * per_unit <= s.x1 + 1e-6 {
        let xx = s.px(t * per_unit).round() + 0.5;
        p.begin_path();
        p.move_to(xx, s.bottom());
        p.line_to(xx, s.bottom() + 4.0);
        p.stroke();
        let text = match unit {
            "" => format::tick(t),
            "×" | "%" => format!("{}{unit}", format::tick(t)),
            _ => format!("{} {unit}", format::tick(t)),
        };
        let w = labels.width_of(&text);
        labels.place(&text, theme.muted, [Spot { x: xx - w / 2.0, y: s.bottom() + 18.0 }]);
        t += step;
    }
}

/// Bands, translucent, under the lines of the same colour.
fn bands(p: &impl Pen, s: &Scale, d: &ChartData, theme: &Theme) {
    for b in &d.bands {
        let points: Vec<(f64, f64, f64)> =
            b.xs.iter()
                .zip(b.lo.iter().zip(&b.hi))
                .filter(|(_, (lo, hi))| lo.is_finite() && hi.is_finite())
                .map(|(&x, (&lo, &hi))| (s.px(x), s.py(lo), s.py(hi)))
                .collect();
        let Some(&(x0, _, hi0)) = points.first() else { continue };
        p.set_fill_style_str(color(b.color, theme.dark));
        p.set_global_alpha(if theme.dark { 0.25 } else { 0.18 });
        p.begin_path();
        p.move_to(x0, hi0);
        for &(x, _, hi) in &points {
            p.line_to(x, hi);
        }
        for &(x, lo, _) in points.iter().rev() {
            p.line_to(x, lo);
        }
        p.close_path();
        p.fill();
        p.set_global_alpha(1.0);
    }
}

fn bars(p: &impl Pen, s: &Scale, d: &ChartData, theme: &Theme) {
    let Some(b) = &d.bars else { return };
    let bw = (b.width / (s.x1 - s.x0) * s.w).max(1.0);
    for (i, &x) in b.xs.iter().enumerate() {
        let mut base = 0.0;
        for (_, c, values) in &b.stacks {
            let v = values.get(i).copied().unwrap_or(0.0);
            if v > 0.0 {
                p.set_fill_style_str(color(*c, theme.dark));
                let (ya, yb) = (s.py(base + v), s.py(base));
                // A gap between bars only where there is room for one; thinner bars stay solid.
                p.fill_rect(s.px(x), ya, if bw >= 2.0 { bw - 0.5 } else { bw }, yb - ya);
            }
            base += v;
        }
    }
}

/// Lines, with gaps where a value is missing, and at most about two points per pixel column.
fn lines(p: &impl Pen, s: &Scale, d: &ChartData, theme: &Theme) {
    for l in &d.lines {
        p.set_stroke_style_str(color(l.color, theme.dark));
        p.set_line_width(if l.dashed { 1.5 } else { 2.0 });
        p.set_line_dash(if l.dashed { &[5.0, 4.0] } else { &[] });
        p.begin_path();
        let mut pen_down = false;
        let mut last_x = f64::NEG_INFINITY;
        for (x, y) in l.xs.iter().zip(&l.ys) {
            if !y.is_finite() || (s.y.log.is_some() && *y <= 0.0) {
                pen_down = false;
                continue;
            }
            let (xx, yy) = (s.px(*x), s.py(*y));
            if pen_down && xx - last_x < 0.5 {
                continue;
            }
            if pen_down {
                p.line_to(xx, yy)
            } else {
                p.move_to(xx, yy)
            }
            last_x = xx;
            pen_down = true;
        }
        p.stroke();
    }
    p.set_line_dash(&[]);
}

/// Horizontal reference lines (a capacity, a limit), labelled above the line at its left end,
/// else at its right end, else below it.
fn reference_lines(p: &impl Pen, s: &Scale, d: &ChartData, theme: &Theme, labels: &mut Labels<impl Pen>) {
    for (y, text) in &d.hlines {
        let yy = s.py(*y).round() + 0.5;
        p.set_stroke_style_str(theme.fg);
        p.set_line_width(1.5);
        p.set_line_dash(&[3.0, 3.0]);
        p.begin_path();
        p.move_to(s.left, yy);
        p.line_to(s.left + s.w, yy);
        p.stroke();
        p.set_line_dash(&[]);
        let w = labels.width_of(text);
        let (l, r) = (s.left + 4.0, s.left + s.w - w - 4.0);
        let spots = [
            Spot { x: l, y: yy - 4.0 },
            Spot { x: r, y: yy - 4.0 },
            Spot { x: l, y: yy + 13.0 },
            Spot { x: r, y: yy + 13.0 },
        ];
        labels.place(text, theme.fg, spots);
    }
}

/// Vertical marker lines (a slowdown, an ejection), each labelled beside its line in the first
/// free row from the top: two markers close together stack their labels instead of overprinting.
fn markers(p: &impl Pen, s: &Scale, d: &ChartData, theme: &Theme, labels: &mut Labels<impl Pen>) {
    for (x, text) in d.markers.iter().filter(|(x, _)| *x >= s.x0 && *x <= s.x1) {
        let xx = s.px(*x).round() + 0.5;
        p.set_stroke_style_str(theme.fg);
        p.set_line_width(1.0);
        p.begin_path();
        p.move_to(xx, TOP);
        p.line_to(xx, s.bottom());
        p.stroke();
        let w = labels.width_of(text);
        let (right, left) = (xx + 4.0, xx - 4.0 - w);
        let prefer_left = xx > s.left + s.w * 0.7;
        let spots = (0..ROWS).flat_map(|r| {
            let y = TOP + 11.0 + ROW * r as f64;
            let (a, b) = if prefer_left { (left, right) } else { (right, left) };
            [Spot { x: a, y }, Spot { x: b, y }]
        });
        labels.place_apart(text, theme.fg, spots);
    }
}

/// A shaded range's label, inside it near the top, in the first free row.
fn shaded_labels(s: &Scale, d: &ChartData, theme: &Theme, labels: &mut Labels<impl Pen>) {
    for (a, _, text) in &d.shaded {
        let x = s.px(a.max(s.x0)) + 3.0;
        let spots = (0..ROWS).map(|r| Spot { x, y: TOP + 11.0 + ROW * r as f64 });
        labels.place_apart(text, theme.muted, spots);
    }
}

fn axes(p: &impl Pen, s: &Scale, theme: &Theme) {
    p.set_stroke_style_str(theme.muted);
    p.set_line_width(1.0);
    p.begin_path();
    p.move_to(s.left + 0.5, TOP);
    p.line_to(s.left + 0.5, s.bottom() + 0.5);
    p.line_to(s.left + s.w, s.bottom() + 0.5);
    p.stroke();
}

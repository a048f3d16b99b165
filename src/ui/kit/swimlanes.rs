//! A swimlane timeline on Canvas 2D: one lane per participant with its bars (work, waiting),
//! a meter that runs out (a budget or a timer), marked moments, arrows between lanes for
//! messages, shaded ranges across all lanes and a playhead. Labels that would overlap are
//! stacked in rows and dropped when no row is free, so the page must tell the whole story in
//! text as well (the `summary`, and its own list of moments). Times are ms of simulated time.

use leptos::prelude::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::canvas::{context, drawn_canvas, text_width};
use super::chart::{color, nice_step, prefers_dark};
use super::stat::display;
use crate::sim::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Fill {
    #[default]
    Solid,
    /// An empty box: waiting rather than working.
    Outline,
    /// Stripes over whatever is beneath: work that was wasted.
    Hatched,
    /// A thin bar, drawn where a lane's meter goes.
    Thin,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SwimBar {
    pub from: f64,
    pub to: f64,
    pub color: usize,
    pub fill: Fill,
    /// Written inside the bar when it fits.
    pub label: String,
}

/// A span that runs out, such as a budget ending at a deadline: a thin bar whose part after
/// the playhead stays solid, labelled with what is left ("budget: 823 ms left").
#[derive(Clone, Debug, PartialEq)]
pub struct Meter {
    pub from: f64,
    pub to: f64,
    pub color: usize,
    pub label: String,
    /// When it stopped counting (its owner finished): from then on only its outline is drawn.
    pub ended: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Tick,
    /// Gave up, stopped.
    Cross,
    Dot,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SwimMark {
    pub t: f64,
    pub label: String,
    pub color: usize,
    pub shape: Shape,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct SwimLane {
    pub label: String,
    pub bars: Vec<SwimBar>,
    pub meter: Option<Meter>,
    /// In priority order: when labels collide, the earlier ones keep their place.
    pub marks: Vec<SwimMark>,
}

/// A message from one lane to another.
#[derive(Clone, Debug, PartialEq)]
pub struct Arrow {
    pub from: usize,
    pub to: usize,
    pub sent: f64,
    pub delivered: f64,
    pub label: String,
    pub color: usize,
    pub dashed: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LegendItem {
    pub label: String,
    pub color: usize,
    pub fill: Fill,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct SwimlaneData {
    pub x_range: (f64, f64),
    pub lanes: Vec<SwimLane>,
    /// In priority order, like marks.
    pub arrows: Vec<Arrow>,
    /// Ranges shaded across every lane: (from, to, label).
    pub shaded: Vec<(f64, f64, String)>,
    /// The playhead.
    pub now: Option<f64>,
    pub legend: Vec<LegendItem>,
}

const TOP: f64 = 18.0;
const BAR_H: f64 = 14.0;
const METER_Y: f64 = BAR_H + 3.0;
const METER_H: f64 = 4.0;
const ROW_H: f64 = 15.0;
const LABEL_ROWS: usize = 2;
/// Bar, meter and label rows.
const LANE_H: f64 = METER_Y + METER_H + 4.0 + LABEL_ROWS as f64 * ROW_H;
/// Between two lanes: rows for the arrows' labels.
const GAP_H: f64 = 2.0 * ROW_H + 6.0;
const AXIS_H: f64 = 22.0;

/// The canvas height for `lanes` lanes.
pub fn height(lanes: usize) -> f64 {
    TOP + lanes as f64 * LANE_H + lanes.saturating_sub(1) as f64 * GAP_H + AXIS_H
}

#[component]
pub fn Swimlanes(
    title: &'static str,
    data: Signal<SwimlaneData>,
    /// What the timeline shows now, in words, for screen readers.
    summary: Signal<String>,
    #[prop(optional)] id: &'static str,
) -> impl IntoView {
    let (canvas, data) = drawn_canvas(data, draw);
    let style = move || data.with(|d| format!("height:{}px", height(d.lanes.len())));
    let legend = move || {
        let dark = prefers_dark();
        data.with(|d| {
            d.legend
                .iter()
                .map(|item| {
                    let c = color(item.color, dark);
                    let style = match item.fill {
                        Fill::Solid => format!("background:{c}"),
                        Fill::Outline => format!("border:2px solid {c}"),
                        Fill::Hatched => format!("background:repeating-linear-gradient(135deg,{c} 0 2px,transparent 2px 5px);border:1px solid {c}"),
                        Fill::Thin => format!("background:{c};height:0.3rem;vertical-align:0.15rem"),
                    };
                    view! { <li><span class="swatch" style=style></span>{item.label.clone()}</li> }
                })
                .collect_view()
        })
    };
    view! {
        <figure class="chart swimlanes" id=id>
            <figcaption>{title}</figcaption>
            <canvas node_ref=canvas style=style role="img" aria-label=move || format!("{title}. {}", summary.get())></canvas>
            <ul class="legend">{legend}</ul>
        </figure>
    }
}

/// Whole milliseconds with thousands separators: 1,448.
pub fn fmt_ms(v: f64) -> String {
    display(&Value::Int(libm::round(v) as i64))
}

/// Free horizontal space in a few stacked rows of labels.
struct Rows(Vec<Vec<(f64, f64)>>);

impl Rows {
    fn new(n: usize) -> Self {
        Self(vec![Vec::new(); n])
    }

    /// The first row where [a, b] is free; it is then taken.
    fn take(&mut self, a: f64, b: f64) -> Option<usize> {
        let row = self.0.iter().position(|used| used.iter().all(|&(x, y)| b + 6.0 <= x || a >= y + 6.0))?;
        self.0[row].push((a, b));
        Some(row)
    }
}

struct Canvas<'a> {
    ctx: &'a CanvasRenderingContext2d,
    dark: bool,
    bg: &'static str,
    left: f64,
    right: f64,
}

impl Canvas<'_> {
    fn color(&self, slot: usize) -> &'static str {
        color(slot, self.dark)
    }

    /// Text with a halo in the background colour, so it stays readable over lines.
    fn text(&self, s: &str, x: f64, y: f64, fill: &str) {
        self.ctx.set_stroke_style_str(self.bg);
        self.ctx.set_line_width(3.0);
        let _ = self.ctx.stroke_text(s, x, y);
        self.ctx.set_fill_style_str(fill);
        let _ = self.ctx.fill_text(s, x, y);
    }

    /// Places a label next to `x` (after it, or before it if there is no room) in the first
    /// free row starting at `y0`; returns false when every row is taken.
    fn label(&self, rows: &mut Rows, s: &str, x: f64, y0: f64, fill: &str) -> bool {
        let w = text_width(self.ctx, s);
        let after = (x + 4.0).max(self.left);
        let before = (x - 4.0 - w).max(self.left);
        let mut spots = Vec::with_capacity(2);
        if after + w <= self.right {
            spots.push(after);
        }
        spots.push(before.min(self.right - w));
        for a in spots {
            if let Some(row) = rows.take(a, a + w) {
                self.ctx.set_text_align("left");
                self.text(s, a, y0 + row as f64 * ROW_H + 10.0, fill);
                return true;
            }
        }
        false
    }

    fn set_dash(&self, on: f64, off: f64) {
        let dash = js_sys::Array::new();
        if on > 0.0 {
            dash.push(&on.into());
            dash.push(&off.into());
        }
        let _ = self.ctx.set_line_dash(&dash);
    }
}

fn lane_top(i: usize) -> f64 {
    TOP + i as f64 * (LANE_H + GAP_H)
}

/// The height comes from the number of lanes; only the width is measured.
fn draw(el: &HtmlCanvasElement, css_w: f64, _measured_h: f64, d: &SwimlaneData) {
    let css_h = height(d.lanes.len());
    let Some(ctx) = context(el, css_w, css_h) else { return };
    let dark = prefers_dark();
    let (fg, bg, muted, grid) =
        if dark { ("#e6edf3", "#0d1117", "#9198a1", "#30363d") } else { ("#1f2328", "#ffffff", "#59636e", "#d8dee4") };
    ctx.set_font("11px system-ui, sans-serif");
    ctx.set_line_join("round");

    let left = if css_w < 500.0 { 40.0 } else { 52.0 };
    let right = css_w - 10.0;
    let (x0, x1) = (d.x_range.0, d.x_range.1.max(d.x_range.0 + 1.0));
    let px = |x: f64| left + (x.clamp(x0, x1) - x0) / (x1 - x0) * (right - left);
    let bottom = css_h - AXIS_H;
    let c = Canvas { ctx: &ctx, dark, bg, left, right };

    // Time axis and grid.
    let step = nice_step(x1 - x0, ((right - left) / 90.0).max(2.0));
    ctx.set_stroke_style_str(grid);
    ctx.set_line_width(1.0);
    ctx.set_fill_style_str(muted);
    let mut t = libm::ceil(x0 / step) * step;
    while t <= x1 + 1e-6 {
        let xx = px(t).round() + 0.5;
        ctx.begin_path();
        ctx.move_to(xx, TOP - 4.0);
        ctx.line_to(xx, bottom + 4.0);
        ctx.stroke();
        let last = t + step > x1 + 1e-6;
        let text = if last { format!("{} ms", fmt_ms(t)) } else { fmt_ms(t) };
        ctx.set_text_align(if last { "right" } else { "center" });
        let _ = ctx.fill_text(&text, if last { xx.min(right + 8.0) } else { xx }, bottom + 16.0);
        t += step;
    }

    // Shaded ranges, behind everything.
    let mut top_row = Rows::new(1);
    let now_label = d.now.filter(|n| *n >= x0 && *n <= x1).map(|n| (n, format!("{} ms", fmt_ms(n))));
    if let Some((n, s)) = &now_label {
        // Reserve the playhead's label spot first; it is drawn last, on top.
        let w = text_width(&ctx, s);
        let a = (px(*n) - w / 2.0).clamp(left, right - w);
        top_row.take(a, a + w);
    }
    for (a, b, label) in &d.shaded {
        let (xa, xb) = (px(*a), px(*b));
        if xb <= xa {
            continue;
        }
        ctx.set_fill_style_str(if dark { "rgba(248,81,73,0.13)" } else { "rgba(207,34,46,0.08)" });
        ctx.fill_rect(xa, TOP - 4.0, xb - xa, bottom - TOP + 4.0);
        c.label(&mut top_row, label, xa, 0.0, c.color(1));
    }

    // Lane names and separators.
    for (i, lane) in d.lanes.iter().enumerate() {
        let y = lane_top(i);
        ctx.set_font("600 12px system-ui, sans-serif");
        ctx.set_text_align("left");
        ctx.set_fill_style_str(fg);
        let _ = ctx.fill_text(&lane.label, 6.0, y + BAR_H - 2.0);
        ctx.set_font("11px system-ui, sans-serif");
        ctx.set_stroke_style_str(grid);
        ctx.set_line_width(1.0);
        ctx.begin_path();
        ctx.move_to(left, (y + BAR_H / 2.0).round() + 0.5);
        ctx.line_to(right, (y + BAR_H / 2.0).round() + 0.5);
        ctx.stroke();
    }

    // Arrows, under the bars' labels.
    let mut gap_rows: Vec<Rows> = (0..d.lanes.len()).map(|_| Rows::new(2)).collect();
    for a in &d.arrows {
        if a.from == a.to || a.from >= d.lanes.len() || a.to >= d.lanes.len() || a.delivered < x0 || a.sent > x1 {
            continue;
        }
        let down = a.to > a.from;
        let (ya, yb) = if down {
            (lane_top(a.from) + BAR_H, lane_top(a.to) - 1.0)
        } else {
            (lane_top(a.from) - 1.0, lane_top(a.to) + METER_Y + METER_H + 1.0)
        };
        let (xa, xb) = (px(a.sent), px(a.delivered));
        let col = c.color(a.color);
        ctx.set_stroke_style_str(col);
        ctx.set_line_width(1.5);
        c.set_dash(if a.dashed { 4.0 } else { 0.0 }, 3.0);
        ctx.begin_path();
        ctx.move_to(xa, ya);
        ctx.line_to(xb, yb);
        ctx.stroke();
        c.set_dash(0.0, 0.0);
        // The head.
        let ang = libm::atan2(yb - ya, xb - xa);
        ctx.set_fill_style_str(col);
        ctx.begin_path();
        ctx.move_to(xb, yb);
        ctx.line_to(xb - 7.0 * libm::cos(ang - 0.4), yb - 7.0 * libm::sin(ang - 0.4));
        ctx.line_to(xb - 7.0 * libm::cos(ang + 0.4), yb - 7.0 * libm::sin(ang + 0.4));
        ctx.close_path();
        ctx.fill();
        if !a.label.is_empty() {
            let gap = a.from.min(a.to);
            let y0 = lane_top(gap) + LANE_H + 2.0;
            c.label(&mut gap_rows[gap], &a.label, (xa + xb) / 2.0, y0, col);
        }
    }

    // Lanes: bars, meter, marks.
    for (i, lane) in d.lanes.iter().enumerate() {
        let y = lane_top(i);
        for b in lane.bars.iter().filter(|b| b.to >= x0 && b.from <= x1) {
            let (xa, xb) = (px(b.from), px(b.to));
            let w = (xb - xa).max(1.0);
            let col = c.color(b.color);
            match b.fill {
                Fill::Solid => {
                    ctx.set_fill_style_str(col);
                    ctx.fill_rect(xa, y, w, BAR_H);
                }
                Fill::Outline => {
                    ctx.set_global_alpha(0.12);
                    ctx.set_fill_style_str(col);
                    ctx.fill_rect(xa, y, w, BAR_H);
                    ctx.set_global_alpha(1.0);
                    ctx.set_stroke_style_str(col);
                    ctx.set_line_width(1.5);
                    ctx.stroke_rect(xa + 0.75, y + 0.75, (w - 1.5).max(0.5), BAR_H - 1.5);
                }
                Fill::Hatched => {
                    ctx.save();
                    ctx.begin_path();
                    ctx.rect(xa, y - 2.0, w, BAR_H + 4.0);
                    ctx.clip();
                    ctx.set_global_alpha(0.3);
                    ctx.set_fill_style_str(col);
                    ctx.fill_rect(xa, y - 2.0, w, BAR_H + 4.0);
                    ctx.set_global_alpha(1.0);
                    ctx.set_stroke_style_str(col);
                    ctx.set_line_width(2.0);
                    let mut sx = xa - BAR_H - 4.0;
                    while sx < xb {
                        ctx.begin_path();
                        ctx.move_to(sx, y + BAR_H + 2.0);
                        ctx.line_to(sx + BAR_H + 4.0, y - 2.0);
                        ctx.stroke();
                        sx += 6.0;
                    }
                    ctx.restore();
                    ctx.set_font("11px system-ui, sans-serif");
                }
                Fill::Thin => {
                    ctx.set_fill_style_str(col);
                    ctx.fill_rect(xa, y + METER_Y, w, METER_H);
                }
            }
            if !b.label.is_empty() && b.fill != Fill::Thin {
                let tw = text_width(&ctx, &b.label);
                if tw + 8.0 <= w {
                    let fill = if b.fill == Fill::Solid { bg } else { fg };
                    ctx.set_text_align("left");
                    ctx.set_fill_style_str(fill);
                    let _ = ctx.fill_text(&b.label, xa + 4.0, y + BAR_H - 3.0);
                }
            }
        }
        let mut rows = Rows::new(LABEL_ROWS);
        let rows_y = y + METER_Y + METER_H + 3.0;
        if let Some(m) = lane.meter.as_ref().filter(|m| m.to >= x0 && m.from <= x1) {
            let (xa, xb) = (px(m.from), px(m.to));
            let col = c.color(m.color);
            ctx.set_fill_style_str(col);
            ctx.set_global_alpha(0.25);
            ctx.fill_rect(xa, y + METER_Y, (xb - xa).max(1.0), METER_H);
            ctx.set_global_alpha(1.0);
            let n = d.now.unwrap_or(m.from).max(m.from);
            if n < m.to && m.ended.is_none_or(|e| n < e) {
                let xn = px(n);
                ctx.fill_rect(xn, y + METER_Y, (xb - xn).max(1.0), METER_H);
            }
            ctx.fill_rect(xb - 1.0, y + METER_Y - 3.0, 2.0, METER_H + 6.0);
        }
        for m in &lane.marks {
            if m.t < x0 || m.t > x1 {
                continue;
            }
            let (xx, yc) = (px(m.t), y + BAR_H / 2.0);
            let col = c.color(m.color);
            ctx.set_stroke_style_str(col);
            ctx.set_fill_style_str(col);
            match m.shape {
                Shape::Tick => {
                    ctx.set_line_width(2.0);
                    ctx.begin_path();
                    ctx.move_to(xx, y - 3.0);
                    ctx.line_to(xx, y + BAR_H + 3.0);
                    ctx.stroke();
                }
                Shape::Cross => {
                    for (w, s) in [(5.0, bg), (2.5, col)] {
                        ctx.set_stroke_style_str(s);
                        ctx.set_line_width(w);
                        ctx.begin_path();
                        ctx.move_to(xx - 5.0, yc - 5.0);
                        ctx.line_to(xx + 5.0, yc + 5.0);
                        ctx.move_to(xx + 5.0, yc - 5.0);
                        ctx.line_to(xx - 5.0, yc + 5.0);
                        ctx.stroke();
                    }
                }
                Shape::Dot => {
                    ctx.begin_path();
                    let _ = ctx.arc(xx, yc, 4.0, 0.0, std::f64::consts::TAU);
                    ctx.set_stroke_style_str(bg);
                    ctx.set_line_width(2.0);
                    ctx.stroke();
                    ctx.fill();
                }
            }
            if !m.label.is_empty() {
                c.label(&mut rows, &m.label, xx, rows_y, if m.color == 7 { fg } else { col });
            }
        }
        if let (Some(m), Some(n)) = (&lane.meter, d.now)
            && n >= m.from.max(x0)
            && n < m.to
            && n <= x1
            && m.ended.is_none_or(|e| n < e)
        {
            let s = format!("{}: {} ms left", m.label, fmt_ms(m.to - n));
            c.label(&mut rows, &s, px(n), rows_y, c.color(m.color));
        }
    }

    // The playhead, on top.
    if let Some((n, s)) = now_label {
        let xx = px(n).round() + 0.5;
        ctx.set_stroke_style_str(fg);
        ctx.set_line_width(1.5);
        ctx.begin_path();
        ctx.move_to(xx, TOP - 4.0);
        ctx.line_to(xx, bottom + 2.0);
        ctx.stroke();
        let w = text_width(&ctx, &s);
        let a = (xx - w / 2.0).clamp(left, right - w);
        ctx.set_text_align("left");
        ctx.set_font("600 11px system-ui, sans-serif");
        c.text(&s, a, 11.0, fg);
        ctx.set_font("11px system-ui, sans-serif");
    }
}


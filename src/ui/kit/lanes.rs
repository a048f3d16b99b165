//! A swimlane timeline on Canvas 2D: lanes of rows on a shared time axis, with bars (spans of
//! work, open while still running), marks (instants), shaded spans behind a lane and links
//! from one lane to another (a request travelling, an answer coming back). Labels that would
//! collide move above their row or are left out, so a page must also give a text equivalent.

use leptos::prelude::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::canvas::{context, drawn_canvas, text_width};
use super::chart::{color, nice_step, prefers_dark};

#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Dot,
    /// A click or other action: a downward triangle.
    Triangle,
    Diamond,
    /// A hollow circle: something that did nothing.
    Ring,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// Work from `from` to `to` (ms). `open`: still going, drawn with a ragged end.
    /// `end`: a label at the end with its own colour (the outcome).
    Bar { row: usize, from: f64, to: f64, open: bool, color: usize, label: String, end: Option<(String, usize)> },
    Mark { row: usize, at: f64, color: usize, label: String, shape: Shape },
    /// Shading behind the whole lane, labelled at its start.
    Span { from: f64, to: f64, color: usize, label: String },
}

/// A point on a lane's row at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Anchor {
    pub lane: usize,
    pub row: usize,
    pub at: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub from: Anchor,
    pub to: Anchor,
    pub color: usize,
    pub dashed: bool,
    /// Ends in a cross (delivered to nobody) instead of an arrowhead.
    pub cross: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    pub label: String,
    /// One label per row (short, or empty), drawn in the left gutter.
    pub rows: Vec<String>,
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct LanesData {
    /// The time axis (ms).
    pub x_range: (f64, f64),
    /// A cursor at the current time.
    pub now: Option<f64>,
    pub lanes: Vec<Lane>,
    pub links: Vec<Link>,
}

const GUTTER: f64 = 52.0;
const RIGHT: f64 = 10.0;
const HEADER: f64 = 19.0;
const ROW: f64 = 30.0;
const AXIS: f64 = 24.0;
/// The bar inside its row: from this far below the row's top, this tall.
const BAR_TOP: f64 = 13.0;
const BAR_H: f64 = 14.0;

/// The canvas height (CSS px) the data needs.
pub fn height(d: &LanesData) -> f64 {
    d.lanes.iter().map(|l| HEADER + ROW * l.rows.len().max(1) as f64).sum::<f64>() + AXIS + 4.0
}

#[component]
pub fn Lanes(
    title: &'static str,
    data: Signal<LanesData>,
    /// What the timeline shows now, in words, for screen readers.
    summary: Signal<String>,
    #[prop(optional)] id: &'static str,
) -> impl IntoView {
    let (canvas, _) = drawn_canvas(data, draw);
    view! {
        <figure class="chart lanes" id=id>
            <figcaption>{title}</figcaption>
            <canvas node_ref=canvas role="img" aria-label=move || format!("{title}. {}", summary.get())></canvas>
        </figure>
    }
}

/// Horizontal intervals already used on one text line of a row.
#[derive(Default)]
struct Taken(Vec<(f64, f64)>);

impl Taken {
    fn free(&self, a: f64, b: f64) -> bool {
        self.0.iter().all(|&(x, y)| b + 3.0 <= x || a >= y + 3.0)
    }
    fn take(&mut self, a: f64, b: f64) {
        self.0.push((a, b));
    }
}

/// The height comes from the data (one row per attempt lane); only the width is measured.
fn draw(el: &HtmlCanvasElement, css_w: f64, _measured_h: f64, d: &LanesData) {
    let css_h = height(d);
    let _ = el.set_attribute("style", &format!("height:{css_h}px"));
    let css_w = css_w.max(200.0);
    let Some(ctx) = context(el, css_w, css_h) else { return };
    let dark = prefers_dark();
    let (fg, muted, grid, bg) =
        if dark { ("#e6edf3", "#9198a1", "#30363d", "#0d1117") } else { ("#1f2328", "#59636e", "#d8dee4", "#ffffff") };
    let on_bar = if dark { "#0d1117" } else { "#ffffff" };

    let (x0, x1) = (d.x_range.0, d.x_range.1.max(d.x_range.0 + 1.0));
    let w = css_w - GUTTER - RIGHT;
    let px = |x: f64| GUTTER + (x.clamp(x0, x1) - x0) / (x1 - x0) * w;
    // The top of each lane's first row.
    let mut tops = Vec::with_capacity(d.lanes.len());
    let mut y = 0.0;
    for lane in &d.lanes {
        tops.push(y + HEADER);
        y += HEADER + ROW * lane.rows.len().max(1) as f64;
    }
    let plot_bottom = y;
    let row_top = |lane: usize, row: usize| tops.get(lane).copied().unwrap_or(0.0) + ROW * row as f64;

    // Lane headers, separators, row labels, time grid.
    ctx.set_line_width(1.0);
    let step = nice_step((x1 - x0) / 1000.0, (w / 90.0).clamp(3.0, 8.0));
    let mut t = libm::ceil(x0 / 1000.0 / step) * step;
    ctx.set_stroke_style_str(grid);
    ctx.set_fill_style_str(muted);
    ctx.set_font("11px system-ui, sans-serif");
    ctx.set_text_align("center");
    while t * 1000.0 <= x1 + 1e-6 {
        let xx = px(t * 1000.0).round() + 0.5;
        ctx.begin_path();
        ctx.move_to(xx, HEADER);
        ctx.line_to(xx, plot_bottom + 4.0);
        ctx.stroke();
        let label = format!("{} s", fmt_s(t));
        let half = text_width(&ctx, &label) / 2.0;
        let _ = ctx.fill_text(&label, xx.min(css_w - half - 1.0), plot_bottom + 16.0);
        t += step;
    }
    for (i, lane) in d.lanes.iter().enumerate() {
        let top = tops[i] - HEADER;
        if i > 0 {
            ctx.set_stroke_style_str(grid);
            ctx.begin_path();
            ctx.move_to(0.0, top + 0.5);
            ctx.line_to(css_w, top + 0.5);
            ctx.stroke();
        }
        ctx.set_fill_style_str(fg);
        ctx.set_font("600 12px system-ui, sans-serif");
        ctx.set_text_align("left");
        let _ = ctx.fill_text(&lane.label, 4.0, top + 14.0);
        ctx.set_fill_style_str(muted);
        ctx.set_font("11px system-ui, sans-serif");
        for (r, label) in lane.rows.iter().enumerate() {
            let _ = ctx.fill_text(label, 4.0, row_top(i, r) + BAR_TOP + BAR_H - 3.0);
        }
    }

    // Shaded spans.
    for (i, lane) in d.lanes.iter().enumerate() {
        let rows = lane.rows.len().max(1) as f64;
        for item in &lane.items {
            if let Item::Span { from, to, color: c, .. } = item {
                let (a, b) = (px(*from), px(*to));
                if b <= a {
                    continue;
                }
                ctx.set_global_alpha(if dark { 0.28 } else { 0.16 });
                ctx.set_fill_style_str(color(*c, dark));
                ctx.fill_rect(a, tops[i], b - a, ROW * rows);
                ctx.set_global_alpha(1.0);
            }
        }
    }

    // Per row: the text lines already used, beside the bars and above them.
    let mut beside: Vec<Vec<Taken>> = d.lanes.iter().map(|l| (0..l.rows.len().max(1)).map(|_| Taken::default()).collect()).collect();
    let mut above: Vec<Vec<Taken>> = d.lanes.iter().map(|l| (0..l.rows.len().max(1)).map(|_| Taken::default()).collect()).collect();

    // Bars, and marks' shapes; their bodies block labels.
    for (i, lane) in d.lanes.iter().enumerate() {
        for item in &lane.items {
            match item {
                Item::Bar { row, from, to, open, color: c, .. } => {
                    let (a, b) = (px(*from), px(*to).max(px(*from) + 2.0));
                    let top = row_top(i, *row) + BAR_TOP;
                    ctx.set_fill_style_str(color(*c, dark));
                    ctx.fill_rect(a, top, b - a, BAR_H);
                    if *open {
                        // A ragged end: still running.
                        ctx.set_fill_style_str(bg);
                        for k in 0..3 {
                            let yy = top + k as f64 * BAR_H / 3.0;
                            ctx.begin_path();
                            ctx.move_to(b + 0.5, yy);
                            ctx.line_to(b - 4.0, yy + BAR_H / 6.0);
                            ctx.line_to(b + 0.5, yy + BAR_H / 3.0);
                            ctx.fill();
                        }
                    }
                    if let Some(row) = beside[i].get_mut(*row) {
                        row.take(a, b);
                    }
                }
                Item::Mark { row, at, color: c, shape, .. } => {
                    let x = px(*at);
                    let cy = row_top(i, *row) + BAR_TOP + BAR_H / 2.0;
                    draw_shape(&ctx, shape, x, cy, color(*c, dark), bg);
                    if let Some(row) = beside[i].get_mut(*row) {
                        row.take(x - 6.0, x + 6.0);
                    }
                }
                Item::Span { .. } => {}
            }
        }
    }

    // Links over the bars: from the bottom of the upper row to the top of the lower one.
    for link in &d.links {
        let (f, t) = (link.from, link.to);
        let down = (f.lane, f.row) <= (t.lane, t.row);
        let fy = row_top(f.lane, f.row) + if down { BAR_TOP + BAR_H } else { BAR_TOP };
        let ty = row_top(t.lane, t.row) + if down { BAR_TOP } else { BAR_TOP + BAR_H + 1.0 };
        let (fx, tx) = (px(f.at), px(t.at));
        let c = color(link.color, dark);
        ctx.set_stroke_style_str(c);
        ctx.set_line_width(1.25);
        let dash = js_sys::Array::new();
        if link.dashed {
            dash.push(&4.0.into());
            dash.push(&3.0.into());
        }
        let _ = ctx.set_line_dash(&dash);
        ctx.begin_path();
        ctx.move_to(fx, fy);
        ctx.line_to(tx, ty);
        ctx.stroke();
        let _ = ctx.set_line_dash(&js_sys::Array::new());
        let angle = libm::atan2(ty - fy, tx - fx);
        if link.cross {
            if let Some(row) = beside.get_mut(t.lane).and_then(|l| l.get_mut(t.row)) {
                row.take(tx - 4.0, tx + 4.0);
            }
            ctx.set_line_width(2.0);
            ctx.begin_path();
            for (dx, dy) in [(-3.5, -3.5), (-3.5, 3.5)] {
                ctx.move_to(tx + dx, ty + dy);
                ctx.line_to(tx - dx, ty - dy);
            }
            ctx.stroke();
        } else {
            ctx.set_fill_style_str(c);
            ctx.begin_path();
            ctx.move_to(tx, ty);
            for side in [-0.45, 0.45] {
                ctx.line_to(tx - 6.0 * libm::cos(angle + side), ty - 6.0 * libm::sin(angle + side));
            }
            ctx.fill();
        }
        ctx.set_line_width(1.0);
    }

    // Labels: inside a bar when it fits; outcomes and marks beside their point, else above the
    // row, else left out; spans' labels last, only where they fit inside the span.
    const PLAIN: &str = "11px system-ui, sans-serif";
    const BOLD: &str = "600 11px system-ui, sans-serif";
    const ITALIC: &str = "italic 11px system-ui, sans-serif";
    let mut wanted: Vec<(usize, usize, f64, &str, &str, String, f64)> = Vec::new();
    let mut spans = Vec::new();
    ctx.set_font(PLAIN);
    ctx.set_text_align("left");
    for (i, lane) in d.lanes.iter().enumerate() {
        for item in &lane.items {
            match item {
                Item::Bar { row, from, to, label, end, .. } => {
                    let (a, b) = (px(*from), px(*to));
                    if !label.is_empty() && text_width(&ctx, label) + 8.0 <= b - a {
                        ctx.set_fill_style_str(on_bar);
                        let _ = ctx.fill_text(label, a + 4.0, row_top(i, *row) + BAR_TOP + BAR_H - 3.5);
                    }
                    if let Some((text, c)) = end {
                        wanted.push((i, *row, b + 4.0, text.as_str(), BOLD, color(*c, dark).to_string(), 8.0));
                    }
                }
                Item::Mark { row, at, label, .. } => wanted.push((i, *row, px(*at) + 10.0, label.as_str(), PLAIN, fg.to_string(), 20.0)),
                Item::Span { from, to, label, .. } => spans.push((i, lane.rows.len().max(1) - 1, px(*from), px(*to), label.as_str())),
            }
        }
    }
    for (i, row, x, label, font, fill, back) in wanted {
        if label.is_empty() {
            continue;
        }
        ctx.set_font(font);
        let lw = text_width(&ctx, label);
        let fits = x + lw <= css_w - 2.0;
        // Beside the point, or left of it; above the row, shifted left to fit the canvas. A
        // bar's outcome prefers above its end to beside its start.
        let left = (x - lw - back).max(GUTTER);
        let above_end = x.min(css_w - 2.0 - lw);
        let candidates = if back < 10.0 {
            [(fits, x, false), (true, above_end, true), (true, left, false), (true, left, true)]
        } else {
            [(fits, x, false), (true, left, false), (true, above_end, true), (true, left, true)]
        };
        ctx.set_fill_style_str(&fill);
        let top = row_top(i, row);
        for (ok, x, up) in candidates {
            let line = if up { &mut above[i][row] } else { &mut beside[i][row] };
            if ok && line.free(x, x + lw) {
                line.take(x, x + lw);
                let y = if up { top + BAR_TOP - 3.0 } else { top + BAR_TOP + BAR_H - 3.5 };
                let _ = ctx.fill_text(label, x, y);
                break;
            }
        }
    }
    ctx.set_font(ITALIC);
    ctx.set_fill_style_str(muted);
    for (i, row, a, b, label) in spans {
        let lw = text_width(&ctx, label);
        let top = row_top(i, row);
        // The first free place inside the span, on either line.
        let mut x = a + 4.0;
        while x + lw + 4.0 <= b {
            if above[i][row].free(x, x + lw) {
                above[i][row].take(x, x + lw);
                let _ = ctx.fill_text(label, x, top + BAR_TOP - 3.0);
                break;
            }
            if beside[i][row].free(x, x + lw) {
                beside[i][row].take(x, x + lw);
                let _ = ctx.fill_text(label, x, top + BAR_TOP + BAR_H - 3.5);
                break;
            }
            x += 12.0;
        }
    }

    // The current time.
    if let Some(now) = d.now.filter(|n| *n >= x0 && *n <= x1) {
        let xx = px(now).round() + 0.5;
        ctx.set_stroke_style_str(fg);
        ctx.set_global_alpha(0.6);
        let _ = ctx.set_line_dash(&js_sys::Array::of2(&2.0.into(), &3.0.into()));
        ctx.begin_path();
        ctx.move_to(xx, HEADER);
        ctx.line_to(xx, plot_bottom);
        ctx.stroke();
        let _ = ctx.set_line_dash(&js_sys::Array::new());
        ctx.set_global_alpha(1.0);
    }
    ctx.set_stroke_style_str(muted);
    ctx.begin_path();
    ctx.move_to(GUTTER, plot_bottom + 0.5);
    ctx.line_to(GUTTER + w, plot_bottom + 0.5);
    ctx.stroke();
}

fn draw_shape(ctx: &CanvasRenderingContext2d, shape: &Shape, x: f64, cy: f64, c: &str, bg: &str) {
    ctx.set_fill_style_str(c);
    ctx.set_stroke_style_str(c);
    ctx.begin_path();
    match shape {
        Shape::Dot => {
            let _ = ctx.arc(x, cy, 5.5, 0.0, std::f64::consts::TAU);
            ctx.fill();
        }
        Shape::Triangle => {
            ctx.move_to(x - 6.0, cy - 7.0);
            ctx.line_to(x + 6.0, cy - 7.0);
            ctx.line_to(x, cy + 5.0);
            ctx.close_path();
            ctx.fill();
        }
        Shape::Diamond => {
            ctx.move_to(x, cy - 6.5);
            ctx.line_to(x + 6.5, cy);
            ctx.line_to(x, cy + 6.5);
            ctx.line_to(x - 6.5, cy);
            ctx.close_path();
            ctx.fill();
        }
        Shape::Ring => {
            ctx.set_fill_style_str(bg);
            ctx.set_line_width(2.0);
            let _ = ctx.arc(x, cy, 5.0, 0.0, std::f64::consts::TAU);
            ctx.fill();
            ctx.stroke();
            ctx.set_line_width(1.0);
        }
    }
}


fn fmt_s(t: f64) -> String {
    let r = libm::round(t * 1000.0) / 1000.0;
    if r == libm::trunc(r) { format!("{}", r as i64) } else { format!("{r}") }
}

//! A live time-series chart on Canvas 2D: several line series or stacked bars, axes with
//! units, marker lines, shaded ranges, crisp on HiDPI screens, a legend in HTML and a text
//! summary for screen readers. It redraws only when its data changes.

use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use super::canvas::{context, drawn_canvas, text_width};

/// Palette slots; each has a light and a dark colour, both readable on their background.
const LIGHT: [&str; 8] = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00", "#1b7c83", "#bf3989", "#6e7781"];
const DARK: [&str; 8] = ["#4493f8", "#ff7b72", "#3fb950", "#bc8cff", "#ffa657", "#39c5cf", "#ff80c8", "#9198a1"];

/// The palette slots by name, so pages say which colour they mean.
pub mod slot {
    pub const BLUE: usize = 0;
    pub const RED: usize = 1;
    pub const GREEN: usize = 2;
    pub const PURPLE: usize = 3;
    pub const ORANGE: usize = 4;
    pub const TEAL: usize = 5;
    pub const PINK: usize = 6;
    pub const GRAY: usize = 7;
}

pub fn color(slot: usize, dark: bool) -> &'static str {
    if dark { DARK[slot % 8] } else { LIGHT[slot % 8] }
}

pub fn prefers_dark() -> bool {
    window().match_media("(prefers-color-scheme: dark)").ok().flatten().is_some_and(|m| m.matches())
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Line {
    pub label: String,
    pub color: usize,
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
    pub dashed: bool,
}

/// Stacked bars: one bar per x (bin start), each split into the stacks in order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Bars {
    pub xs: Vec<f64>,
    pub width: f64,
    pub stacks: Vec<(String, usize, Vec<f64>)>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct ChartData {
    /// The x range (ms of simulated time).
    pub x_range: (f64, f64),
    pub y_unit: &'static str,
    pub lines: Vec<Line>,
    pub bars: Option<Bars>,
    /// Vertical markers: (x, label).
    pub markers: Vec<(f64, String)>,
    /// Shaded x ranges: (from, to, label).
    pub shaded: Vec<(f64, f64, String)>,
    /// Horizontal reference lines: (y, label).
    pub hlines: Vec<(f64, String)>,
    pub log_y: bool,
    /// At least this y maximum (so a flat line near zero does not fill the chart).
    pub y_min_max: f64,
}

#[component]
pub fn Chart(
    title: &'static str,
    data: Signal<ChartData>,
    /// What the chart shows now, in words, for screen readers.
    summary: Signal<String>,
    #[prop(optional)] id: &'static str,
) -> impl IntoView {
    let (canvas, data) = drawn_canvas(data, draw);
    let legend = move || {
        let dark = prefers_dark();
        data.with(|d| {
            let mut items: Vec<(String, usize)> = d.lines.iter().map(|l| (l.label.clone(), l.color)).collect();
            if let Some(b) = &d.bars {
                items.extend(b.stacks.iter().map(|(l, c, _)| (l.clone(), *c)));
            }
            items
                .into_iter()
                .filter(|(l, _)| !l.is_empty())
                .map(|(label, c)| {
                    let style = format!("background:{}", color(c, dark));
                    view! { <li><span class="swatch" style=style></span>{label}</li> }
                })
                .collect_view()
        })
    };
    view! {
        <figure class="chart" id=id>
            <figcaption>{title}</figcaption>
            <canvas node_ref=canvas role="img" aria-label=move || format!("{title}. {}", summary.get())></canvas>
            <ul class="legend">{legend}</ul>
            <p class="visually-hidden" aria-live="polite">{move || summary.get()}</p>
        </figure>
    }
}

/// Round numbers for axis ticks: 1, 2 or 5 times a power of ten.
pub fn nice_step(range: f64, target_ticks: f64) -> f64 {
    let raw = (range / target_ticks).max(1e-9);
    let mag = libm::pow(10.0, libm::floor(libm::log10(raw)));
    let norm = raw / mag;
    let nice = if norm < 1.5 { 1.0 } else if norm < 3.5 { 2.0 } else if norm < 7.5 { 5.0 } else { 10.0 };
    nice * mag
}

fn fmt_tick(v: f64) -> String {
    if v.abs() >= 1000.0 {
        let k = v / 1000.0;
        if k == libm::trunc(k) { format!("{}k", k as i64) } else { format!("{k:.1}k") }
    } else if v == libm::trunc(v) {
        format!("{}", v as i64)
    } else {
        format!("{v:.1}")
    }
}

fn draw(el: &HtmlCanvasElement, css_w: f64, css_h: f64, d: &ChartData) {
    let Some(ctx) = context(el, css_w, css_h) else { return };
    let dark = prefers_dark();
    let (fg, muted, grid) = if dark { ("#e6edf3", "#9198a1", "#30363d") } else { ("#1f2328", "#59636e", "#d8dee4") };
    ctx.set_font("11px system-ui, sans-serif");

    let (right, top, bottom) = (18.0, 10.0, 24.0);
    let (x0, x1) = (d.x_range.0, d.x_range.1.max(d.x_range.0 + 1.0));

    // The y range from the data.
    let mut y_max = d.y_min_max;
    let mut y_min_pos = f64::INFINITY;
    for l in &d.lines {
        for &y in &l.ys {
            if y.is_finite() {
                y_max = y_max.max(y);
                if y > 0.0 {
                    y_min_pos = y_min_pos.min(y);
                }
            }
        }
    }
    if let Some(b) = &d.bars {
        for i in 0..b.xs.len() {
            let total: f64 = b.stacks.iter().map(|(_, _, v)| v.get(i).copied().unwrap_or(0.0)).sum();
            y_max = y_max.max(total);
        }
    }
    for (y, _) in &d.hlines {
        y_max = y_max.max(*y * 1.1);
    }
    let log = d.log_y && y_min_pos.is_finite();
    let (ly0, ly1) = if log {
        (libm::floor(libm::log10(y_min_pos.max(0.1))), libm::ceil(libm::log10(y_max.max(1.0)) + 0.01))
    } else {
        (0.0, 0.0)
    };
    let y_top = if log { 0.0 } else { let s = nice_step(y_max.max(1e-9), 4.0); libm::ceil(y_max / s) * s };
    let y_ticks: Vec<f64> = if log {
        (ly0 as i32..=ly1 as i32).map(|e| libm::pow(10.0, e as f64)).collect()
    } else {
        let s = nice_step(y_top.max(1e-9), 4.0);
        (0..=((y_top / s).round() as i32)).map(|k| k as f64 * s).collect()
    };
    let unit = if d.y_unit.is_empty() { String::new() } else { format!(" {}", d.y_unit) };
    let y_labels: Vec<String> = y_ticks.iter().map(|&y| format!("{}{unit}", fmt_tick(y))).collect();
    // The plot starts where the widest y label ends, so "100k ms" is never cut off.
    let left = y_labels.iter().map(|l| text_width(&ctx, l)).fold(24.0, f64::max).ceil() + 8.0;
    let (w, h) = (css_w - left - right, css_h - top - bottom);
    let px = |x: f64| left + (x - x0) / (x1 - x0) * w;
    let py = |y: f64| {
        if log {
            let v = libm::log10(y.max(libm::pow(10.0, ly0)));
            top + h - (v - ly0) / (ly1 - ly0).max(1e-9) * h
        } else {
            top + h - y / y_top.max(1e-9) * h
        }
    };

    // Shaded ranges.
    for (a, b, label) in &d.shaded {
        let (xa, xb) = (px(a.max(x0)), px(b.min(x1)));
        if xb > xa {
            ctx.set_fill_style_str(if dark { "rgba(248,81,73,0.12)" } else { "rgba(207,34,46,0.08)" });
            ctx.fill_rect(xa, top, xb - xa, h);
            ctx.set_fill_style_str(muted);
            let _ = ctx.fill_text(label, xa + 3.0, top + 11.0);
        }
    }

    // Grid and y axis labels.
    ctx.set_stroke_style_str(grid);
    ctx.set_fill_style_str(muted);
    ctx.set_line_width(1.0);
    ctx.set_text_align("right");
    for (&y, label) in y_ticks.iter().zip(&y_labels) {
        let yy = py(y).round() + 0.5;
        ctx.begin_path();
        ctx.move_to(left, yy);
        ctx.line_to(left + w, yy);
        ctx.stroke();
        let _ = ctx.fill_text(label, left - 4.0, yy + 4.0);
    }
    // X axis: seconds.
    ctx.set_text_align("center");
    // About one label per 70 px, so narrow charts (phones, side-by-side columns) stay legible.
    let xs = nice_step((x1 - x0) / 1000.0, (w / 70.0).clamp(2.0, 6.0));
    let mut t = libm::ceil(x0 / 1000.0 / xs) * xs;
    while t * 1000.0 <= x1 + 1e-6 {
        let xx = px(t * 1000.0).round() + 0.5;
        ctx.begin_path();
        ctx.move_to(xx, top + h);
        ctx.line_to(xx, top + h + 4.0);
        ctx.stroke();
        let _ = ctx.fill_text(&format!("{} s", fmt_tick(t)), xx, top + h + 16.0);
        t += xs;
    }

    // Bars.
    if let Some(b) = &d.bars {
        let bw = (b.width / (x1 - x0) * w).max(1.0);
        for (i, &x) in b.xs.iter().enumerate() {
            let mut base = 0.0;
            for (_, c, values) in &b.stacks {
                let v = values.get(i).copied().unwrap_or(0.0);
                if v > 0.0 {
                    ctx.set_fill_style_str(color(*c, dark));
                    let (ya, yb) = (py(base + v), py(base));
                    // A gap between bars only where there is room for one; thinner bars stay solid.
                    ctx.fill_rect(px(x), ya, if bw >= 2.0 { bw - 0.5 } else { bw }, yb - ya);
                }
                base += v;
            }
        }
    }

    // Lines: gaps where a value is missing.
    for l in &d.lines {
        ctx.set_stroke_style_str(color(l.color, dark));
        ctx.set_line_width(if l.dashed { 1.5 } else { 2.0 });
        let dash = js_sys::Array::new();
        if l.dashed {
            dash.push(&5.0.into());
            dash.push(&4.0.into());
        }
        let _ = ctx.set_line_dash(&dash);
        ctx.begin_path();
        let mut pen_down = false;
        let mut last_x = f64::NEG_INFINITY;
        for (x, y) in l.xs.iter().zip(&l.ys) {
            if !y.is_finite() || (log && *y <= 0.0) {
                pen_down = false;
                continue;
            }
            let (xx, yy) = (px(*x), py(*y));
            // At most about two points per pixel column: more cannot be seen.
            if pen_down && xx - last_x < 0.5 {
                continue;
            }
            if pen_down { ctx.line_to(xx, yy) } else { ctx.move_to(xx, yy) }
            last_x = xx;
            pen_down = true;
        }
        ctx.stroke();
    }
    let _ = ctx.set_line_dash(&js_sys::Array::new());

    // Horizontal reference lines and markers.
    ctx.set_text_align("left");
    for (y, label) in &d.hlines {
        let yy = py(*y).round() + 0.5;
        ctx.set_stroke_style_str(fg);
        ctx.set_line_width(1.5);
        let dash = js_sys::Array::of2(&3.0.into(), &3.0.into());
        let _ = ctx.set_line_dash(&dash);
        ctx.begin_path();
        ctx.move_to(left, yy);
        ctx.line_to(left + w, yy);
        ctx.stroke();
        let _ = ctx.set_line_dash(&js_sys::Array::new());
        ctx.set_fill_style_str(fg);
        let _ = ctx.fill_text(label, left + 4.0, yy - 4.0);
    }
    for (x, label) in &d.markers {
        if *x < x0 || *x > x1 {
            continue;
        }
        let xx = px(*x).round() + 0.5;
        ctx.set_stroke_style_str(fg);
        ctx.set_line_width(1.0);
        ctx.begin_path();
        ctx.move_to(xx, top);
        ctx.line_to(xx, top + h);
        ctx.stroke();
        ctx.set_fill_style_str(fg);
        let right_half = xx > left + w * 0.7;
        ctx.set_text_align(if right_half { "right" } else { "left" });
        let _ = ctx.fill_text(label, if right_half { xx - 4.0 } else { xx + 4.0 }, top + 24.0);
    }
    // Axes.
    ctx.set_stroke_style_str(muted);
    ctx.begin_path();
    ctx.move_to(left + 0.5, top);
    ctx.line_to(left + 0.5, top + h + 0.5);
    ctx.line_to(left + w, top + h + 0.5);
    ctx.stroke();
}

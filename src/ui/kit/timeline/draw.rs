//! Drawing a laid-out timeline: shading, grid, bars, meters, marks, links, the playhead, then
//! the labels where the layout put them.

use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use super::data::{Fill, Shape, TimelineData};
use super::layout::{self, BAR, Font, Ink, LABEL_H, Plan};
use crate::draw::Stamp;
use crate::ui::kit::canvas::{context, set_attribute, stamp, text_width};
use crate::ui::kit::chart::{color, is_dark};
use crate::ui::kit::number::shortest;

struct Pen<'a> {
    ctx: &'a CanvasRenderingContext2d,
    dark: bool,
    fg: &'static str,
    muted: &'static str,
    grid: &'static str,
    bg: &'static str,
}

impl Pen<'_> {
    fn slot(&self, slot: usize) -> &'static str {
        color(slot, self.dark)
    }

    fn dash(&self, on: f64, off: f64) {
        let dash = js_sys::Array::new();
        if on > 0.0 {
            dash.push(&on.into());
            dash.push(&off.into());
        }
        let _ = self.ctx.set_line_dash(&dash);
    }

    fn line(&self, x0: f64, y0: f64, x1: f64, y1: f64) {
        self.ctx.begin_path();
        self.ctx.move_to(x0, y0);
        self.ctx.line_to(x1, y1);
        self.ctx.stroke();
    }
}

/// The height comes from the data; only the width is measured.
pub fn draw(el: &HtmlCanvasElement, css_w: f64, _measured_h: f64, d: &TimelineData) {
    let css_w = css_w.max(200.0);
    let css_h = layout::height(d);
    set_attribute(el, "style", &format!("height:{}px", shortest(css_h)));
    let Some(ctx) = context(el, css_w, css_h) else { return };
    let dark = is_dark();
    let (fg, muted, grid, bg) =
        if dark { ("#e6edf3", "#9198a1", "#30363d", "#0d1117") } else { ("#1f2328", "#59636e", "#d8dee4", "#ffffff") };
    let pen = Pen { ctx: &ctx, dark, fg, muted, grid, bg };
    let measure = |text: &str, font: Font| text_width(&ctx, font.css(), text);
    let plan = layout::plan(d, css_w, &measure);
    set_attribute(el, "data-labels", &plan.labels_json());

    shading(&pen, &plan, d);
    grid_and_lanes(&pen, &plan);
    ghosts(&pen, &plan, d);
    bars(&pen, &plan, d);
    meters(&pen, &plan, d);
    marks(&pen, &plan, d);
    links(&pen, &plan, d);
    playhead(&pen, &plan, d);
    labels(&pen, &plan);
}

fn shading(pen: &Pen, plan: &Plan, d: &TimelineData) {
    let ctx = pen.ctx;
    for s in &d.spans {
        let (a, b) = (plan.px(s.from), plan.px(s.to));
        if b <= a {
            continue;
        }
        let (top, bottom) = match s.lane.and_then(|l| plan.rows.get(l)) {
            Some(rows) => {
                (rows.first().map_or(plan.plot_top, |r| r.top), rows.last().map_or(plan.plot_bottom, |r| r.bottom))
            }
            None => (plan.plot_top, plan.plot_bottom),
        };
        ctx.set_global_alpha(if pen.dark { 0.22 } else { 0.12 });
        ctx.set_fill_style_str(pen.slot(s.color));
        ctx.fill_rect(a, top, b - a, bottom - top);
        ctx.set_global_alpha(1.0);
    }
}

fn grid_and_lanes(pen: &Pen, plan: &Plan) {
    let ctx = pen.ctx;
    ctx.set_line_width(1.0);
    ctx.set_stroke_style_str(pen.grid);
    for &t in &plan.ticks {
        let x = plan.px(t).round() + 0.5;
        pen.line(x, plan.plot_top, x, plan.plot_bottom + 3.0);
    }
    // A separator above every lane but the first, and a faint line along each row's bar.
    for (i, lane) in plan.rows.iter().enumerate() {
        if let (Some(first), true) = (lane.first(), i > 0) {
            let y = first.top.round() + 0.5;
            pen.line(0.0, y, plan.width, y);
        }
    }
    ctx.set_stroke_style_str(pen.muted);
    let y = plan.plot_bottom.round() + 0.5;
    pen.line(plan.left, y, plan.right, y);
}

fn bars(pen: &Pen, plan: &Plan, d: &TimelineData) {
    let ctx = pen.ctx;
    for (i, lane) in d.lanes.iter().enumerate() {
        for b in &lane.bars {
            let Some(row) = plan.row(i, b.row) else { continue };
            let (a, z) = (plan.px(b.from), plan.px(b.to).max(plan.px(b.from) + 2.0));
            let (y, w, c) = (row.bar, z - a, pen.slot(b.color));
            match b.fill {
                Fill::Solid => {
                    ctx.set_fill_style_str(c);
                    ctx.fill_rect(a, y, w, BAR);
                }
                Fill::Outline => {
                    ctx.set_global_alpha(0.12);
                    ctx.set_fill_style_str(c);
                    ctx.fill_rect(a, y, w, BAR);
                    ctx.set_global_alpha(1.0);
                    ctx.set_stroke_style_str(c);
                    ctx.set_line_width(1.5);
                    ctx.stroke_rect(a + 0.75, y + 0.75, (w - 1.5).max(0.5), BAR - 1.5);
                }
                Fill::Hatched => hatch(pen, a, y, w, c),
            }
            if b.open {
                // A ragged end: still going.
                ctx.set_fill_style_str(pen.bg);
                for k in 0..3 {
                    let yy = y + k as f64 * BAR / 3.0;
                    ctx.begin_path();
                    ctx.move_to(z + 0.5, yy);
                    ctx.line_to(z - 4.0, yy + BAR / 6.0);
                    ctx.line_to(z + 0.5, yy + BAR / 3.0);
                    ctx.fill();
                }
            }
        }
    }
}

fn hatch(pen: &Pen, a: f64, y: f64, w: f64, c: &str) {
    let ctx = pen.ctx;
    ctx.save();
    ctx.begin_path();
    ctx.rect(a, y - 2.0, w, BAR + 4.0);
    ctx.clip();
    ctx.set_global_alpha(0.3);
    ctx.set_fill_style_str(c);
    ctx.fill_rect(a, y - 2.0, w, BAR + 4.0);
    ctx.set_global_alpha(1.0);
    ctx.set_stroke_style_str(c);
    ctx.set_line_width(2.0);
    let mut sx = a - BAR - 4.0;
    while sx < a + w {
        pen.line(sx, y + BAR + 2.0, sx + BAR + 4.0, y - 2.0);
        sx += 6.0;
    }
    ctx.restore();
}

fn meters(pen: &Pen, plan: &Plan, d: &TimelineData) {
    let ctx = pen.ctx;
    for (i, lane) in d.lanes.iter().enumerate() {
        for m in &lane.meters {
            let Some(y) = plan.row(i, m.row).and_then(|r| r.meter) else { continue };
            let (a, z) = (plan.px(m.from), plan.px(m.to));
            ctx.set_fill_style_str(pen.slot(m.color));
            ctx.set_global_alpha(0.25);
            ctx.fill_rect(a, y, (z - a).max(1.0), 4.0);
            ctx.set_global_alpha(1.0);
            let now = d.now.unwrap_or(m.from).max(m.from);
            if now < m.to && m.ended.is_none_or(|e| now < e) {
                let xn = plan.px(now);
                ctx.fill_rect(xn, y, (z - xn).max(1.0), 4.0);
            }
            ctx.fill_rect(z - 1.0, y - 3.0, 2.0, 10.0);
        }
    }
}

fn marks(pen: &Pen, plan: &Plan, d: &TimelineData) {
    for (i, lane) in d.lanes.iter().enumerate() {
        for m in &lane.marks {
            let Some(row) = plan.row(i, m.row) else { continue };
            if m.at < plan.x0 || m.at > plan.x1 {
                continue;
            }
            shape(pen, m.shape, plan.px(m.at), row.bar, pen.slot(m.color));
        }
    }
}

/// The earlier runs' marks, faded, behind this run's.
fn ghosts(pen: &Pen, plan: &Plan, d: &TimelineData) {
    pen.ctx.set_global_alpha(0.6);
    for (i, lane) in d.lanes.iter().enumerate() {
        for m in lane.ghost.iter().flat_map(|g| &g.marks) {
            if let Some(row) = plan.row(i, m.row).filter(|_| m.at >= plan.x0 && m.at <= plan.x1) {
                shape(pen, m.shape, plan.px(m.at), row.bar, pen.slot(m.color));
            }
        }
    }
    pen.ctx.set_global_alpha(1.0);
}

/// A mark's shape at `x` on the bar line whose top is `y`.
fn shape(pen: &Pen, shape: Shape, x: f64, y: f64, c: &str) {
    let ctx = pen.ctx;
    let cy = y + BAR / 2.0;
    ctx.set_fill_style_str(c);
    ctx.set_stroke_style_str(c);
    ctx.begin_path();
    match shape {
        Shape::Dot => {
            let _ = ctx.arc(x, cy, 4.5, 0.0, std::f64::consts::TAU);
            ctx.set_stroke_style_str(pen.bg);
            ctx.set_line_width(2.0);
            ctx.stroke();
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
            let _ = ctx.arc(x, cy, 5.0, 0.0, std::f64::consts::TAU);
            ctx.set_fill_style_str(pen.bg);
            ctx.set_line_width(2.0);
            ctx.fill();
            ctx.stroke();
        }
        Shape::Tick => {
            ctx.set_line_width(2.0);
            pen.line(x, y - 3.0, x, y + BAR + 3.0);
        }
        Shape::Cross => {
            for (w, s) in [(5.0, pen.bg), (2.5, c)] {
                ctx.set_stroke_style_str(s);
                ctx.set_line_width(w);
                pen.line(x - 5.0, cy - 5.0, x + 5.0, cy + 5.0);
                pen.line(x + 5.0, cy - 5.0, x - 5.0, cy + 5.0);
            }
        }
    }
    ctx.set_line_width(1.0);
}

fn links(pen: &Pen, plan: &Plan, d: &TimelineData) {
    let ctx = pen.ctx;
    for link in &d.links {
        let (f, t) = (link.from, link.to);
        if t.t < plan.x0 || f.t > plan.x1 {
            continue;
        }
        let down = (f.lane, f.row) <= (t.lane, t.row);
        let (fy, ty) = (plan.link_y(f.lane, f.row, down), plan.link_y(t.lane, t.row, !down));
        let (fx, tx) = (plan.px(f.t), plan.px(t.t));
        let c = pen.slot(link.color);
        ctx.set_stroke_style_str(c);
        ctx.set_line_width(1.5);
        pen.dash(if link.dashed { 4.0 } else { 0.0 }, 3.0);
        pen.line(fx, fy, tx, ty);
        pen.dash(0.0, 0.0);
        if link.cross {
            ctx.set_line_width(2.0);
            pen.line(tx - 3.5, ty - 3.5, tx + 3.5, ty + 3.5);
            pen.line(tx - 3.5, ty + 3.5, tx + 3.5, ty - 3.5);
        } else {
            // A head 7 px long and 5.5 px wide, along the line.
            let len = libm::sqrt((tx - fx) * (tx - fx) + (ty - fy) * (ty - fy)).max(1e-9);
            let (ux, uy) = ((tx - fx) / len, (ty - fy) / len);
            let (bx, by) = (tx - 7.0 * ux, ty - 7.0 * uy);
            ctx.set_fill_style_str(c);
            ctx.begin_path();
            ctx.move_to(tx, ty);
            for side in [-2.75, 2.75] {
                ctx.line_to(bx - side * uy, by + side * ux);
            }
            ctx.close_path();
            ctx.fill();
        }
        ctx.set_line_width(1.0);
    }
}

fn playhead(pen: &Pen, plan: &Plan, d: &TimelineData) {
    let Some(now) = d.now.filter(|n| *n >= plan.x0 && *n <= plan.x1) else { return };
    let x = plan.px(now).round() + 0.5;
    pen.ctx.set_stroke_style_str(pen.fg);
    pen.ctx.set_line_width(1.5);
    pen.line(x, plan.plot_top - 2.0, x, plan.plot_bottom + 2.0);
    pen.ctx.set_line_width(1.0);
}

fn labels(pen: &Pen, plan: &Plan) {
    for l in &plan.labels {
        let ink = match l.ink {
            Ink::Fg => pen.fg,
            Ink::Muted => pen.muted,
            Ink::Slot(7) => pen.muted,
            Ink::Slot(s) => pen.slot(s),
            Ink::OnSolid => pen.bg,
        };
        // On the background's colour, so lines pass under it (inside a bar, on the bar).
        stamp(
            pen.ctx,
            &Stamp {
                text: &l.text,
                font: l.font.css(),
                ink,
                bg: (!l.inside_bar).then_some(pen.bg),
                left: l.x - 1.0,
                top: l.y,
                width: l.w + 2.0,
                height: LABEL_H,
                text_x: 1.0,
                baseline: LABEL_H - 3.5,
            },
        );
    }
}

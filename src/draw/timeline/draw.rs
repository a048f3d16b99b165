//! Drawing a laid-out timeline: shading, grid, bars, meters, marks, links, the playhead, then
//! the labels where the layout put them.

use super::data::{Fill, Shape, TimelineData};
use super::layout::{self, BAR, Font, Ink, LABEL_H, Plan};
use crate::draw::{Pen, Stamp, Theme, color};

/// The pen and the theme's inks.
struct Brush<'a, P: Pen> {
    p: &'a P,
    theme: &'a Theme,
}

impl<P: Pen> Brush<'_, P> {
    fn slot(&self, slot: usize) -> &'static str {
        color(slot, self.theme.dark)
    }

    fn line(&self, x0: f64, y0: f64, x1: f64, y1: f64) {
        self.p.begin_path();
        self.p.move_to(x0, y0);
        self.p.line_to(x1, y1);
        self.p.stroke();
    }
}

/// Draws `d` on `p`, `width` px wide and [`layout::height`] tall, in `theme`; returns the
/// boxes of the labels drawn, as JSON (the page's `data-labels`).
pub fn draw(p: &impl Pen, width: f64, theme: &Theme, d: &TimelineData) -> String {
    let measure = |text: &str, font: Font| p.text_width(font.css(), text);
    let plan = layout::plan(d, width, &measure);
    let b = Brush { p, theme };
    shading(&b, &plan, d);
    grid_and_lanes(&b, &plan);
    ghosts(&b, &plan, d);
    bars(&b, &plan, d);
    meters(&b, &plan, d);
    marks(&b, &plan, d);
    links(&b, &plan, d);
    playhead(&b, &plan, d);
    labels(&b, &plan);
    plan.labels_json()
}

fn shading(b: &Brush<impl Pen>, plan: &Plan, d: &TimelineData) {
    let p = b.p;
    for s in &d.spans {
        let (a, z) = (plan.px(s.from), plan.px(s.to));
        if z <= a {
            continue;
        }
        let (top, bottom) = match s.lane.and_then(|l| plan.rows.get(l)) {
            Some(rows) => {
                (rows.first().map_or(plan.plot_top, |r| r.top), rows.last().map_or(plan.plot_bottom, |r| r.bottom))
            }
            None => (plan.plot_top, plan.plot_bottom),
        };
        p.set_global_alpha(if b.theme.dark { 0.22 } else { 0.12 });
        p.set_fill_style_str(b.slot(s.color));
        p.fill_rect(a, top, z - a, bottom - top);
        p.set_global_alpha(1.0);
    }
}

fn grid_and_lanes(b: &Brush<impl Pen>, plan: &Plan) {
    let p = b.p;
    p.set_line_width(1.0);
    p.set_stroke_style_str(b.theme.grid);
    for &t in &plan.ticks {
        let x = plan.px(t).round() + 0.5;
        b.line(x, plan.plot_top, x, plan.plot_bottom + 3.0);
    }
    // A separator above every lane but the first, and a faint line along each row's bar.
    for (i, lane) in plan.rows.iter().enumerate() {
        if let (Some(first), true) = (lane.first(), i > 0) {
            let y = first.top.round() + 0.5;
            b.line(0.0, y, plan.width, y);
        }
    }
    p.set_stroke_style_str(b.theme.muted);
    let y = plan.plot_bottom.round() + 0.5;
    b.line(plan.left, y, plan.right, y);
}

fn bars(b: &Brush<impl Pen>, plan: &Plan, d: &TimelineData) {
    let p = b.p;
    for (i, lane) in d.lanes.iter().enumerate() {
        for bar in &lane.bars {
            let Some(row) = plan.row(i, bar.row) else { continue };
            let (a, z) = (plan.px(bar.from), plan.px(bar.to).max(plan.px(bar.from) + 2.0));
            let (y, w, c) = (row.bar, z - a, b.slot(bar.color));
            match bar.fill {
                Fill::Solid => {
                    p.set_fill_style_str(c);
                    p.fill_rect(a, y, w, BAR);
                }
                Fill::Outline => {
                    p.set_global_alpha(0.12);
                    p.set_fill_style_str(c);
                    p.fill_rect(a, y, w, BAR);
                    p.set_global_alpha(1.0);
                    p.set_stroke_style_str(c);
                    p.set_line_width(1.5);
                    p.stroke_rect(a + 0.75, y + 0.75, (w - 1.5).max(0.5), BAR - 1.5);
                }
                Fill::Hatched => hatch(p, a, y, w, c),
            }
            if bar.open {
                // A ragged end: still going.
                p.set_fill_style_str(b.theme.bg);
                for k in 0..3 {
                    let yy = y + k as f64 * BAR / 3.0;
                    p.begin_path();
                    p.move_to(z + 0.5, yy);
                    p.line_to(z - 4.0, yy + BAR / 6.0);
                    p.line_to(z + 0.5, yy + BAR / 3.0);
                    p.fill();
                }
            }
        }
    }
}

/// A hatched bar: faint, with stripes 2 px wide every 6 px rising to the right, each cut to
/// the bar's box (2 px taller than the bar) as a polygon: the pens have no clipping.
fn hatch(p: &impl Pen, a: f64, y: f64, w: f64, c: &str) {
    let (top, h) = (y - 2.0, BAR + 4.0);
    p.set_global_alpha(0.3);
    p.set_fill_style_str(c);
    p.fill_rect(a, top, w, h);
    p.set_global_alpha(1.0);
    let bbox = [(a, top), (a + w, top), (a + w, top + h), (a, top + h)];
    // A 2 px line's half width, measured along x + y (constant along a stripe).
    let half = std::f64::consts::SQRT_2;
    p.begin_path();
    let mut sx = a - BAR - 4.0;
    while sx < a + w {
        // The stripe from the box's bottom at `sx` up to its top: x + y is `mid` along it.
        let mid = sx + top + h;
        let stripe = cut(&cut(&bbox, |x, y| x + y - (mid - half)), |x, y| mid + half - x - y);
        if let Some((&(x0, y0), rest)) = stripe.split_first() {
            p.move_to(x0, y0);
            rest.iter().for_each(|&(x, y)| p.line_to(x, y));
            p.close_path();
        }
        sx += 6.0;
    }
    p.fill();
}

/// The part of the convex polygon `poly` where the linear `f` is at least 0.
fn cut(poly: &[(f64, f64)], f: impl Fn(f64, f64) -> f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(poly.len() + 1);
    for (i, &(x0, y0)) in poly.iter().enumerate() {
        let (x1, y1) = poly[(i + 1) % poly.len()];
        let (f0, f1) = (f(x0, y0), f(x1, y1));
        if f0 >= 0.0 {
            out.push((x0, y0));
        }
        if (f0 >= 0.0) != (f1 >= 0.0) {
            let k = f0 / (f0 - f1);
            out.push((x0 + k * (x1 - x0), y0 + k * (y1 - y0)));
        }
    }
    out
}

fn meters(b: &Brush<impl Pen>, plan: &Plan, d: &TimelineData) {
    let p = b.p;
    for (i, lane) in d.lanes.iter().enumerate() {
        for m in &lane.meters {
            let Some(y) = plan.row(i, m.row).and_then(|r| r.meter) else { continue };
            let (a, z) = (plan.px(m.from), plan.px(m.to));
            p.set_fill_style_str(b.slot(m.color));
            p.set_global_alpha(0.25);
            p.fill_rect(a, y, (z - a).max(1.0), 4.0);
            p.set_global_alpha(1.0);
            let now = d.now.unwrap_or(m.from).max(m.from);
            if now < m.to && m.ended.is_none_or(|e| now < e) {
                let xn = plan.px(now);
                p.fill_rect(xn, y, (z - xn).max(1.0), 4.0);
            }
            p.fill_rect(z - 1.0, y - 3.0, 2.0, 10.0);
        }
    }
}

fn marks(b: &Brush<impl Pen>, plan: &Plan, d: &TimelineData) {
    for (i, lane) in d.lanes.iter().enumerate() {
        for m in &lane.marks {
            let Some(row) = plan.row(i, m.row) else { continue };
            if m.at < plan.x0 || m.at > plan.x1 {
                continue;
            }
            shape(b, m.shape, plan.px(m.at), row.bar, b.slot(m.color));
        }
    }
}

/// The earlier runs' marks, faded, behind this run's.
fn ghosts(b: &Brush<impl Pen>, plan: &Plan, d: &TimelineData) {
    b.p.set_global_alpha(0.6);
    for (i, lane) in d.lanes.iter().enumerate() {
        for m in lane.ghost.iter().flat_map(|g| &g.marks) {
            if let Some(row) = plan.row(i, m.row).filter(|_| m.at >= plan.x0 && m.at <= plan.x1) {
                shape(b, m.shape, plan.px(m.at), row.bar, b.slot(m.color));
            }
        }
    }
    b.p.set_global_alpha(1.0);
}

/// A mark's shape at `x` on the bar line whose top is `y`.
fn shape(b: &Brush<impl Pen>, shape: Shape, x: f64, y: f64, c: &str) {
    let (p, bg) = (b.p, b.theme.bg);
    let cy = y + BAR / 2.0;
    p.set_fill_style_str(c);
    p.set_stroke_style_str(c);
    p.begin_path();
    match shape {
        Shape::Dot => {
            p.arc(x, cy, 4.5, 0.0, std::f64::consts::TAU);
            p.set_stroke_style_str(bg);
            p.set_line_width(2.0);
            p.stroke();
            p.fill();
        }
        Shape::Triangle => {
            p.move_to(x - 6.0, cy - 7.0);
            p.line_to(x + 6.0, cy - 7.0);
            p.line_to(x, cy + 5.0);
            p.close_path();
            p.fill();
        }
        Shape::Diamond => {
            p.move_to(x, cy - 6.5);
            p.line_to(x + 6.5, cy);
            p.line_to(x, cy + 6.5);
            p.line_to(x - 6.5, cy);
            p.close_path();
            p.fill();
        }
        Shape::Ring => {
            p.arc(x, cy, 5.0, 0.0, std::f64::consts::TAU);
            p.set_fill_style_str(bg);
            p.set_line_width(2.0);
            p.fill();
            p.stroke();
        }
        Shape::Tick => {
            p.set_line_width(2.0);
            b.line(x, y - 3.0, x, y + BAR + 3.0);
        }
        Shape::Cross => {
            for (w, s) in [(5.0, bg), (2.5, c)] {
                p.set_stroke_style_str(s);
                p.set_line_width(w);
                b.line(x - 5.0, cy - 5.0, x + 5.0, cy + 5.0);
                b.line(x + 5.0, cy - 5.0, x - 5.0, cy + 5.0);
            }
        }
    }
    p.set_line_width(1.0);
}

fn links(b: &Brush<impl Pen>, plan: &Plan, d: &TimelineData) {
    let p = b.p;
    for link in &d.links {
        let (f, t) = (link.from, link.to);
        if t.t < plan.x0 || f.t > plan.x1 {
            continue;
        }
        let down = (f.lane, f.row) <= (t.lane, t.row);
        let (fy, ty) = (plan.link_y(f.lane, f.row, down), plan.link_y(t.lane, t.row, !down));
        let (fx, tx) = (plan.px(f.t), plan.px(t.t));
        let c = b.slot(link.color);
        p.set_stroke_style_str(c);
        p.set_line_width(1.5);
        p.set_line_dash(if link.dashed { &[4.0, 3.0] } else { &[] });
        b.line(fx, fy, tx, ty);
        p.set_line_dash(&[]);
        if link.cross {
            p.set_line_width(2.0);
            b.line(tx - 3.5, ty - 3.5, tx + 3.5, ty + 3.5);
            b.line(tx - 3.5, ty + 3.5, tx + 3.5, ty - 3.5);
        } else {
            // A head 7 px long and 5.5 px wide, along the line.
            let len = libm::sqrt((tx - fx) * (tx - fx) + (ty - fy) * (ty - fy)).max(1e-9);
            let (ux, uy) = ((tx - fx) / len, (ty - fy) / len);
            let (bx, by) = (tx - 7.0 * ux, ty - 7.0 * uy);
            p.set_fill_style_str(c);
            p.begin_path();
            p.move_to(tx, ty);
            for side in [-2.75, 2.75] {
                p.line_to(bx - side * uy, by + side * ux);
            }
            p.close_path();
            p.fill();
        }
        p.set_line_width(1.0);
    }
}

fn playhead(b: &Brush<impl Pen>, plan: &Plan, d: &TimelineData) {
    let Some(now) = d.now.filter(|n| *n >= plan.x0 && *n <= plan.x1) else { return };
    let x = plan.px(now).round() + 0.5;
    b.p.set_stroke_style_str(b.theme.fg);
    b.p.set_line_width(1.5);
    b.line(x, plan.plot_top - 2.0, x, plan.plot_bottom + 2.0);
    b.p.set_line_width(1.0);
}

fn labels(b: &Brush<impl Pen>, plan: &Plan) {
    let t = b.theme;
    for l in &plan.labels {
        let ink = match l.ink {
            Ink::Fg => t.fg,
            Ink::Muted | Ink::Slot(7) => t.muted,
            Ink::Slot(s) => b.slot(s),
            Ink::OnSolid => t.bg,
        };
        // On the background's colour, so lines pass under it (inside a bar, on the bar).
        b.p.label(&Stamp {
            text: &l.text,
            font: l.font.css(),
            ink,
            bg: (!l.inside_bar).then_some(t.bg),
            left: l.x - 1.0,
            top: l.y,
            width: l.w + 2.0,
            height: LABEL_H,
            text_x: 1.0,
            baseline: LABEL_H - 3.5,
        });
    }
}

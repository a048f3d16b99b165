//! The slow-server picture: the balancer at the top, a column per server under it. A request is
//! a dot: sent by the balancer down its server's lane, waiting in the server's line (the head of
//! the line at the bottom, next to the workers), in service in a worker's slot. A dot whose client
//! gave up is a ring (the server still has the work), and the give-up itself goes back up the lane
//! in red. The count of each line is written over it. Everything is the model's state now
//! (`SlowServer::picture`).

use leptos::prelude::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::format;
use crate::scenarios::slow_server::{Picture as Moment, ServerPicture, SlowServer, server_name};
use crate::ui::kit::chart::labels::{Labels, Spot};
use crate::ui::kit::chart::{Theme, color, slot};
use crate::ui::kit::canvas::context;
use crate::ui::kit::picture::dots;
use crate::ui::kit::{Mark, Picture};
use crate::sim::{Host, Model, Simulation};
use crate::ui::runner::Runner;

/// The moment drawn, and the balancer's policy it is drawn with.
#[derive(Clone, PartialEq)]
pub struct Scene {
    moment: Moment,
    policy: &'static str,
}

const FONT: &str = "11px system-ui, sans-serif";
/// A dot's pitch in a line, and its radius.
const PITCH: f64 = 6.0;
const RADIUS: f64 = 2.3;
const BALANCER_H: f64 = 22.0;
/// Where the lanes end and each line's count is written.
const LANES_END: f64 = 50.0;
const COUNT_BASELINE: f64 = 64.0;
const LINE_TOP: f64 = 70.0;
const SERVER_H: f64 = 22.0;
/// A line longer than this many is drawn in the bad tone (as B's card).
const LONG_LINE: u32 = 20;

const LEGEND: &[(&str, Mark)] = &[
    ("sent, waiting", Mark::Dot(slot::BLUE)),
    ("in service", Mark::Dot(slot::GREEN)),
    ("client gone, work left", Mark::Ring(slot::GRAY)),
    ("client gives up", Mark::Dot(slot::RED)),
];

#[component]
pub fn QueuePicture(runner: Runner<SlowServer>) -> impl IntoView {
    let data = Signal::derive(move || {
        runner.track(|s| Scene { moment: s.picture(s.now()), policy: s.config().policy.label() })
    });
    let summary = Signal::derive(move || runner.track(at_each_server));
    view! {
        <Picture
            id="picture"
            title="Each dot is a request"
            data
            draw=draw
            drawn=|scene: &Scene| scene.moment.drawn_json()
            summary
            legend=LEGEND
        />
    }
}

/// The requests at each server now, for screen readers: "Requests at each server at 4.2 s: A 0,
/// B 143, C 1."
pub(super) fn at_each_server(s: &Host<SlowServer>) -> String {
    let parts: Vec<String> =
        s.servers().iter().enumerate().map(|(i, sv)| format!("{} {}", server_name(i), sv.outstanding())).collect();
    format!("Requests at each server at {}: {}.", format::seconds(s.now()), parts.join(", "))
}

/// Where a server's column is: its centre and the width of its line.
struct Column {
    centre: f64,
    width: f64,
}

fn draw(el: &HtmlCanvasElement, w: f64, h: f64, scene: &Scene) {
    let Some(ctx) = context(el, w, h) else { return };
    let theme = Theme::now();
    let n = scene.moment.servers.len().max(1);
    let pad = 6.0;
    let column_w = (w - 2.0 * pad) / n as f64;
    let columns: Vec<Column> = (0..n)
        .map(|i| Column { centre: pad + column_w * (i as f64 + 0.5), width: (column_w - 8.0).min(132.0) })
        .collect();
    let mut labels = Labels::new(&ctx, FONT, w, h, theme.bg);
    let balancer = balancer(&ctx, &mut labels, &theme, w, scene.policy);
    let server_top = h - SERVER_H - 4.0;
    for (server, column) in scene.moment.servers.iter().zip(&columns) {
        lane(&ctx, &theme, balancer, column);
        let line_bottom = slots(&ctx, &theme, server, column, server_top);
        line(&ctx, &theme, &mut labels, server, column, line_bottom);
        server_box(&ctx, &theme, &mut labels, server, column, server_top);
    }
    on_their_way(&ctx, &theme, balancer, &columns, &scene.moment);
    labels.publish(el);
}

/// The balancer's box at the top, centred; returns the point its lanes leave from.
fn balancer(ctx: &CanvasRenderingContext2d, labels: &mut Labels, theme: &Theme, w: f64, policy: &str) -> (f64, f64) {
    let text = format!("Balancer: {}", policy.to_ascii_lowercase());
    let box_w = (labels.width_of(&text) + 16.0).min(w - 8.0);
    let left = (w - box_w) / 2.0;
    ctx.set_stroke_style_str(theme.muted);
    ctx.set_line_width(1.0);
    ctx.stroke_rect(left + 0.5, 2.5, box_w - 1.0, BALANCER_H);
    labels.place(&text, theme.fg, [Spot { x: left + 8.0, y: 2.0 + BALANCER_H / 2.0 + 4.0 }]);
    (w / 2.0, 2.0 + BALANCER_H)
}

/// A faint lane from the balancer to a server's column.
fn lane(ctx: &CanvasRenderingContext2d, theme: &Theme, from: (f64, f64), column: &Column) {
    ctx.set_stroke_style_str(theme.grid);
    ctx.set_line_width(1.0);
    ctx.begin_path();
    ctx.move_to(from.0, from.1);
    ctx.line_to(column.centre, LANES_END);
    ctx.stroke();
}

/// How many dots fit across a column.
fn across(column: &Column) -> usize {
    ((column.width / PITCH) as usize).max(1)
}

/// The workers' slots, a row of squares over the server's box, filled for each busy worker.
/// Returns where the waiting line's bottom is.
fn slots(ctx: &CanvasRenderingContext2d, theme: &Theme, s: &ServerPicture, column: &Column, server_top: f64) -> f64 {
    let across = across(column);
    let workers = s.workers as usize;
    let rows = workers.div_ceil(across);
    let green = color(slot::GREEN, theme.dark);
    let left = column.centre - (across.min(workers) as f64 * PITCH) / 2.0;
    for k in 0..workers {
        let (x, y) = (left + (k % across) as f64 * PITCH, server_top - 3.0 - ((k / across) + 1) as f64 * PITCH);
        match s.in_service.get(k) {
            Some(false) => {
                ctx.set_fill_style_str(green);
                ctx.fill_rect(x + 0.5, y + 0.5, PITCH - 1.0, PITCH - 1.0);
            }
            Some(true) => {
                ctx.set_stroke_style_str(green);
                ctx.stroke_rect(x + 1.0, y + 1.0, PITCH - 2.0, PITCH - 2.0);
            }
            None => {
                ctx.set_stroke_style_str(theme.grid);
                ctx.stroke_rect(x + 1.0, y + 1.0, PITCH - 2.0, PITCH - 2.0);
            }
        }
    }
    server_top - 5.0 - rows as f64 * PITCH
}

/// A server's waiting line as a pile of dots, the head of the line at the bottom, and its count
/// over it.
fn line(ctx: &CanvasRenderingContext2d, theme: &Theme, labels: &mut Labels, s: &ServerPicture, column: &Column, bottom: f64) {
    let across = across(column);
    let rows = (((bottom - LINE_TOP) / PITCH) as usize).max(1);
    let fits = across * rows;
    let left = column.centre - (across as f64 * PITCH) / 2.0;
    let at = |k: usize| (left + (k % across) as f64 * PITCH + PITCH / 2.0, bottom - (k / across) as f64 * PITCH - PITCH / 2.0);
    let shown = s.line.len().min(fits);
    dots(ctx, color(slot::BLUE, theme.dark), (0..shown).filter(|&k| !s.line[k]).map(at), RADIUS, true);
    dots(ctx, color(slot::GRAY, theme.dark), (0..shown).filter(|&k| s.line[k]).map(at), RADIUS, false);
    let more = s.waiting as usize - shown;
    let count = if more > 0 {
        format!("{} waiting, {} over the top", format::count(s.waiting as u64), format::count(more as u64))
    } else {
        format!("{} waiting", format::count(s.waiting as u64))
    };
    let ink = if s.waiting > LONG_LINE { color(slot::RED, theme.dark) } else { theme.fg };
    let short = format::count(s.waiting as u64);
    let centred = |text: &str, labels: &Labels| Spot { x: column.centre - labels.width_of(text) / 2.0, y: COUNT_BASELINE };
    if labels.width_of(&count) <= column.width + 6.0 {
        labels.place(&count, ink, [centred(&count, labels)]);
    } else {
        labels.place(&short, ink, [centred(&short, labels)]);
    }
}

/// The server's box: its name, and what has happened to it (slower, down, ejected).
fn server_box(ctx: &CanvasRenderingContext2d, theme: &Theme, labels: &mut Labels, s: &ServerPicture, column: &Column, top: f64) {
    let left = column.centre - column.width / 2.0;
    let (tag, tone) = if s.ejected {
        (" ejected".to_string(), Some(slot::GRAY))
    } else if s.down {
        (" down".to_string(), Some(slot::RED))
    } else if s.slowdown > 1.0 {
        (format!(" ×{} slower", format::plain(s.slowdown)), Some(slot::ORANGE))
    } else {
        (String::new(), None)
    };
    if let Some(tone) = tone {
        ctx.set_fill_style_str(color(tone, theme.dark));
        ctx.set_global_alpha(0.18);
        ctx.fill_rect(left, top, column.width, SERVER_H);
        ctx.set_global_alpha(1.0);
    }
    ctx.set_stroke_style_str(theme.muted);
    ctx.stroke_rect(left + 0.5, top + 0.5, column.width - 1.0, SERVER_H - 1.0);
    let baseline = top + SERVER_H / 2.0 + 4.0;
    let name = s.name.to_string();
    let full = format!("{name}{tag}");
    let text = if labels.width_of(&full) <= column.width - 6.0 { full } else { name };
    labels.place(&text, theme.fg, [Spot { x: column.centre - labels.width_of(&text) / 2.0, y: baseline }]);
}

/// The requests sent in the last moments, on their way down their server's lane, and the
/// clients that gave up, going back up it in red (beside it, so the two never hide each other).
fn on_their_way(ctx: &CanvasRenderingContext2d, theme: &Theme, from: (f64, f64), columns: &[Column], moment: &Moment) {
    let along = |server: u8, p: f64, side: f64| {
        let c = &columns[(server as usize).min(columns.len() - 1)];
        (from.0 + (c.centre - from.0) * p + side, from.1 + (LANES_END - from.1) * p)
    };
    dots(ctx, color(slot::BLUE, theme.dark), moment.sent.iter().map(|&(s, p)| along(s, p, 0.0)), RADIUS, true);
    dots(ctx, color(slot::RED, theme.dark), moment.timed_out.iter().map(|&(s, p)| along(s, 1.0 - p, 5.0)), RADIUS, true);
}

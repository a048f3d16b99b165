//! The slow-server picture: the balancer at the top, a column per server under it. A request is
//! a dot: sent by the balancer down its server's lane, waiting in the server's line (the head of
//! the line at the bottom, next to the workers), in service in a worker's slot. A dot whose client
//! gave up is a ring (the server still has the work), and the give-up itself goes back up the lane
//! in red. The count of each line is written over it. Everything is the model's state now
//! (`SlowServer::picture`). After the reader switches policy (or any setting), the run before
//! stays as a ghost: each server's longest line in that run as a dashed outline on its column,
//! on the same dots, its name at the top left and B's peak at the top right.

use super::FONT;
use super::{Ghost, Labels, Pen, Spot, Theme, color, dots, slot};
use crate::format;
use crate::scenarios::slow_server::{Picture as Moment, ServerPicture, SlowServer, server_name};
use crate::sim::{Host, Model, Simulation};

/// The moment drawn, the balancer's policy it is drawn with, and the run before the reader's
/// last change.
#[derive(Clone, PartialEq)]
pub struct Scene {
    pub moment: Moment,
    pub policy: &'static str,
    pub ghost: Option<Ghost<Trace>>,
}

/// What a ghost keeps of its run: each server's most requests at once (the `servers` metric's
/// `max_queue`: waiting and in service), and the workers, to draw its longest line.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub max_queue: Vec<u32>,
    workers: u32,
}

impl Scene {
    pub fn of(run: &Host<SlowServer>, ghost: Option<Ghost<Trace>>) -> Self {
        Scene { moment: run.picture(run.now()), policy: run.config().policy.label(), ghost }
    }
}

pub fn trace(run: &Host<SlowServer>) -> Trace {
    Trace { max_queue: run.servers().iter().map(|s| s.max_outstanding()).collect(), workers: run.config().workers }
}

impl Trace {
    /// The longest line server `i` had: with more requests than workers, every worker was busy.
    fn most_waiting(&self, i: usize) -> Option<u32> {
        self.max_queue.get(i).map(|&q| q.saturating_sub(self.workers))
    }
}

/// The picture's height in a figure: a chart's, as the style sheet sets no other for it.
pub const HEIGHT: f64 = super::chart::FIGURE_HEIGHT;
const PAD: f64 = 6.0;
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

/// Where a server's column is: its centre and the width of its line.
struct Column {
    centre: f64,
    width: f64,
}

/// Draws `scene` `w` × `h` CSS pixels; returns the labels drawn (see [`Labels::json`]).
pub fn draw<P: Pen>(ctx: &P, w: f64, h: f64, theme: &Theme, scene: &Scene) -> String {
    let n = scene.moment.servers.len().max(1);
    let column_w = (w - 2.0 * PAD) / n as f64;
    let columns: Vec<Column> = (0..n)
        .map(|i| Column { centre: PAD + column_w * (i as f64 + 0.5), width: (column_w - 8.0).min(132.0) })
        .collect();
    let mut labels = Labels::new(ctx, FONT, w, h, theme.bg);
    let (balancer, balancer_left) = balancer(ctx, &mut labels, theme, w, scene.policy, scene.moment.sampled());
    let server_top = h - SERVER_H - 4.0;
    for (i, (server, column)) in scene.moment.servers.iter().zip(&columns).enumerate() {
        lane(ctx, theme, balancer, column);
        let line_bottom = slots(ctx, theme, server, column, server_top);
        line(ctx, theme, &mut labels, server, column, line_bottom);
        if let Some(n) = scene.ghost.as_ref().and_then(|g| g.trace.most_waiting(i)) {
            ghost_line(ctx, theme, n, column, line_bottom);
        }
        server_box(ctx, theme, &mut labels, server, column, server_top);
    }
    on_their_way(ctx, theme, balancer, &columns, &scene.moment);
    if let Some(g) = &scene.ghost {
        ghost_label(&mut labels, theme, g, (balancer_left - 2.0 * PAD, w));
    }
    labels.json()
}

/// The balancer's box at the top, centred; returns the point its lanes leave from, and the
/// box's left edge. `sampled`: its lanes draw a sample of the requests on their way.
fn balancer<P: Pen>(
    ctx: &P,
    labels: &mut Labels<P>,
    theme: &Theme,
    w: f64,
    policy: &str,
    sampled: bool,
) -> ((f64, f64), f64) {
    let policy = policy.to_ascii_lowercase();
    let text = if sampled { format!("Balancer: {policy} (lanes: a sample)") } else { format!("Balancer: {policy}") };
    let box_w = (labels.width_of(&text) + 16.0).min(w - 8.0);
    let left = (w - box_w) / 2.0;
    ctx.set_stroke_style_str(theme.muted);
    ctx.set_line_width(1.0);
    ctx.stroke_rect(left + 0.5, 2.5, box_w - 1.0, BALANCER_H);
    labels.place(&text, theme.fg, [Spot { x: left + 8.0, y: 2.0 + BALANCER_H / 2.0 + 4.0 }]);
    ((w / 2.0, 2.0 + BALANCER_H), left)
}

/// A faint lane from the balancer to a server's column.
fn lane<P: Pen>(ctx: &P, theme: &Theme, from: (f64, f64), column: &Column) {
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
fn slots<P: Pen>(ctx: &P, theme: &Theme, s: &ServerPicture, column: &Column, server_top: f64) -> f64 {
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
fn line<P: Pen>(ctx: &P, theme: &Theme, labels: &mut Labels<P>, s: &ServerPicture, column: &Column, bottom: f64) {
    let across = across(column);
    let rows = (((bottom - LINE_TOP) / PITCH) as usize).max(1);
    let fits = across * rows;
    let left = column.centre - (across as f64 * PITCH) / 2.0;
    let at = |k: usize| {
        (left + (k % across) as f64 * PITCH + PITCH / 2.0, bottom - (k / across) as f64 * PITCH - PITCH / 2.0)
    };
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
    // Narrower, what is waiting without what is over the top, then the bare number: always
    // "waiting" where it fits, so it does not read as the card's queue (which counts the
    // request in service too).
    let waiting = format!("{} waiting", format::count(s.waiting as u64));
    let short = format::count(s.waiting as u64);
    let centred =
        |text: &str, labels: &Labels<P>| Spot { x: column.centre - labels.width_of(text) / 2.0, y: COUNT_BASELINE };
    let fits = |text: &str, labels: &Labels<P>| labels.width_of(text) <= column.width + 6.0;
    let text = [&count, &waiting].into_iter().find(|t| fits(t, labels)).unwrap_or(&short);
    labels.place(text, ink, [centred(text, labels)]);
}

/// The server's box: its name, and what has happened to it (slower, down, ejected).
fn server_box<P: Pen>(ctx: &P, theme: &Theme, labels: &mut Labels<P>, s: &ServerPicture, column: &Column, top: f64) {
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
fn on_their_way<P: Pen>(ctx: &P, theme: &Theme, from: (f64, f64), columns: &[Column], moment: &Moment) {
    let along = |server: u8, p: f64, side: f64| {
        let c = &columns[(server as usize).min(columns.len() - 1)];
        (from.0 + (c.centre - from.0) * p + side, from.1 + (LANES_END - from.1) * p)
    };
    dots(ctx, color(slot::BLUE, theme.dark), moment.sent.iter().map(|&(s, p)| along(s, p, 0.0)), RADIUS, true);
    dots(
        ctx,
        color(slot::RED, theme.dark),
        moment.timed_out.iter().map(|&(s, p)| along(s, 1.0 - p, 5.0)),
        RADIUS,
        true,
    );
}

/// The ghost's longest line at a server, `waiting` requests, as a dashed outline of the pile
/// they would make on its column (open at the top when it would not fit, as the line's count
/// says "over the top").
fn ghost_line<P: Pen>(ctx: &P, theme: &Theme, waiting: u32, column: &Column, bottom: f64) {
    if waiting == 0 {
        return;
    }
    let across = across(column);
    let (n, rows) = (waiting as usize, (((bottom - LINE_TOP) / PITCH) as usize).max(1));
    let left = column.centre - (across as f64 * PITCH) / 2.0;
    let right = left + across as f64 * PITCH;
    let (full, rest) = (n / across, n % across);
    let row_y = |r: usize| bottom - r as f64 * PITCH;
    ctx.set_stroke_style_str(theme.fg);
    ctx.set_global_alpha(0.7);
    ctx.set_line_dash(&[3.0, 2.0]);
    ctx.begin_path();
    ctx.move_to(left, bottom);
    if n.div_ceil(across) > rows {
        ctx.line_to(left, LINE_TOP);
        ctx.move_to(right, LINE_TOP);
    } else if rest == 0 {
        ctx.line_to(left, row_y(full));
        ctx.line_to(right, row_y(full));
    } else {
        // The top row is partly filled from the left, as the line's dots are.
        let step_x = left + rest as f64 * PITCH;
        ctx.line_to(left, row_y(full + 1));
        ctx.line_to(step_x, row_y(full + 1));
        ctx.line_to(step_x, row_y(full));
        if full > 0 {
            ctx.line_to(right, row_y(full));
        }
    }
    if full > 0 || n.div_ceil(across) > rows {
        ctx.line_to(right, bottom);
    } else {
        ctx.line_to(left + rest as f64 * PITCH, bottom);
    }
    ctx.stroke();
    ctx.set_line_dash(&[]);
    ctx.set_global_alpha(1.0);
}

/// What the dashed outlines are, beside the balancer (`room` wide each side): at the left the
/// run's name, at the right B's longest queue in it (A's when there is no B), each in at most
/// three rows, shorter when even those are too narrow.
fn ghost_label<P: Pen>(labels: &mut Labels<P>, theme: &Theme, g: &Ghost<Trace>, (room, w): (f64, f64)) {
    const ROWS: [f64; 3] = [12.0, 26.0, 40.0];
    let short = g.label.split(" (").next().unwrap_or(&g.label);
    let names = [format!("dashed: {}", g.label), format!("dashed: {short}"), "dashed: before".to_string()];
    if let Some(rows) = names.iter().find_map(|t| wrap(labels, t, room, ROWS.len())) {
        for (text, y) in rows.iter().zip(ROWS) {
            labels.place(text, theme.fg, [Spot { x: PAD, y }]);
        }
    }
    let i = usize::from(g.trace.max_queue.len() > 1);
    let Some(&most) = g.trace.max_queue.get(i) else { return };
    let (server, n) = (server_name(i), format::count(u64::from(most)));
    let peaks = [format!("{server}'s queue peaked at {n}"), format!("{server}'s peak: {n}")];
    if let Some(rows) = peaks.iter().find_map(|t| wrap(labels, t, room, ROWS.len())) {
        for (text, y) in rows.iter().zip(ROWS) {
            labels.place(text, theme.fg, [Spot { x: w - PAD - labels.width_of(text), y }]);
        }
    }
}

/// `text` in rows no wider than `room`, broken at spaces; None when it takes more than `most`.
fn wrap<P: Pen>(labels: &Labels<P>, text: &str, room: f64, most: usize) -> Option<Vec<String>> {
    let mut rows: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match rows.last_mut() {
            Some(row) if labels.width_of(&format!("{row} {word}")) <= room => *row = format!("{row} {word}"),
            _ if labels.width_of(word) <= room => rows.push(word.to_string()),
            _ => return None,
        }
    }
    (rows.len() <= most).then_some(rows)
}

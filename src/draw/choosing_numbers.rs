//! The choosing-numbers picture. Above: the dependency's latency on a log axis, the fitted
//! shape with the part slower than the timeout in red and its share written at the timeout,
//! and the latest attempts landing on it as dots at the latency each took (red: the timeout
//! passed first). Below: the slowest request so far, a row per call and a bar per attempt, on
//! an axis as long as the settings' worst wait, with the route's deadline. Moving the timeout
//! moves the red part and its share at once, without restarting the run. Everything is the
//! model's state now (`ChoosingNumbers::picture`).

use super::FONT;
use super::{Ghost, Labels, Pen, Spot, Theme, color, dots, slot};
use crate::format;
use crate::scenarios::choosing_numbers::{AttemptEnd, ChoosingNumbers, Latency, Picture as Moment};
use crate::sim::{Host, Micros, Simulation};

/// The picture's height in a figure: its canvas's 246 px (`choosing_numbers/style.css`) less
/// its border.
pub const HEIGHT: f64 = 244.0;

const PAD: f64 = 6.0;
/// Log-spaced bins of the latency axis: the fitted shape's, and the landed dots' columns.
const SHAPE_BINS: usize = 72;
const DOT_BINS: usize = 36;
const DOT_PITCH: f64 = 4.0;
/// The share of the height the latency takes; the slowest request has the rest.
const TOP_SHARE: f64 = 0.56;
/// Room for the call names at the left of the slowest request's rows.
const ROW_NAMES: f64 = 40.0;

/// What a ghost keeps of its run: its timeout, the share slower than it, its slowest wait.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub timeout: Option<Micros>,
    pub tail_pct: Option<f64>,
    pub worst: Option<Micros>,
}

pub fn trace(run: &Host<ChoosingNumbers>) -> Trace {
    let m = run.picture(run.now());
    Trace { timeout: m.timeout, tail_pct: m.tail_pct(), worst: m.slowest.map(|r| r.latency) }
}

/// The moment drawn, the run before the reader's last change, and the slowest request's axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    pub moment: Moment,
    pub ghost: Option<Ghost<Trace>>,
    /// The slowest request's axis: the longest wait any of the figure's presets allows, or the
    /// ghost's or this run's slowest when longer, so switching presets keeps it.
    pub axis_end: Micros,
}

impl Scene {
    /// `run`'s moment, its slowest request on an axis at least `bound` long (the longest wait
    /// the settings allow).
    pub fn of(run: &Host<ChoosingNumbers>, ghost: Option<Ghost<Trace>>, bound: Micros) -> Self {
        let moment = run.picture(run.now());
        let ghost_worst = ghost.as_ref().and_then(|g| g.trace.worst).unwrap_or(0);
        let axis_end = moment.axis_end.max(bound).max(ghost_worst);
        Scene { moment, ghost, axis_end }
    }
}

/// Draws `scene` `w` × `h` CSS pixels; returns the labels drawn (see [`Labels::json`]).
pub fn draw<P: Pen>(ctx: &P, w: f64, h: f64, theme: &Theme, scene: &Scene) -> String {
    let mut labels = Labels::new(ctx, FONT, w, h, theme.bg);
    let split = (h * TOP_SHARE).round();
    let axis = LogAxis::of(&scene.moment, PAD, w - PAD);
    latency(ctx, theme, &mut labels, scene, &axis, (16.0, split - 16.0));
    slowest(ctx, theme, &mut labels, scene, (PAD, split + 4.0, w - PAD, h - 2.0));
    labels.json()
}

/// A log axis of latency from `lo` to `hi` ms over `left`..`right` px.
struct LogAxis {
    lo: f64,
    hi: f64,
    left: f64,
    right: f64,
}

impl LogAxis {
    /// From a quarter of the median to past the p99.9 and the timeout.
    fn of(m: &Moment, left: f64, right: f64) -> Self {
        let l = &m.latency;
        let timeout = m.timeout.map_or(0.0, |t| t as f64 / 1000.0);
        let lo = (l.p50_ms / 4.0).max(0.5);
        let hi = (l.p999_ms * 2.0).max(timeout * 1.4).max(lo * 20.0);
        Self { lo, hi, left, right }
    }

    fn x(&self, ms: f64) -> f64 {
        let f = (libm::log(ms.max(self.lo)) - libm::log(self.lo)) / (libm::log(self.hi) - libm::log(self.lo));
        self.left + f.clamp(0.0, 1.0) * (self.right - self.left)
    }

    /// The edges of bin `i` of `n`, in ms.
    fn bin(&self, i: usize, n: usize) -> (f64, f64) {
        let at = |k: usize| self.lo * libm::pow(self.hi / self.lo, k as f64 / n as f64);
        (at(i), at(i + 1))
    }

    fn bin_of(&self, ms: f64, n: usize) -> usize {
        let f = (libm::log(ms.max(self.lo)) - libm::log(self.lo)) / (libm::log(self.hi) - libm::log(self.lo));
        ((f * n as f64) as usize).min(n - 1)
    }
}

/// The fitted shape, red past the timeout, the landed attempts as dots, the timeout and its
/// share, between `top` and `base` px.
fn latency<P: Pen>(
    ctx: &P,
    theme: &Theme,
    labels: &mut Labels<P>,
    scene: &Scene,
    axis: &LogAxis,
    (top, base): (f64, f64),
) {
    let m = &scene.moment;
    let timeout = m.timeout.map(|t| t as f64 / 1000.0);
    shape(ctx, theme, &m.latency, axis, timeout, (top + 12.0, base));
    landed(ctx, theme, labels, m, axis, (top + 12.0, base));
    ctx.set_stroke_style_str(theme.muted);
    ctx.begin_path();
    ctx.move_to(axis.left, base + 0.5);
    ctx.line_to(axis.right, base + 0.5);
    ctx.stroke();
    for (ms, text) in [(1.0, "1 ms"), (10.0, "10 ms"), (100.0, "100 ms"), (1000.0, "1 s"), (10_000.0, "10 s")] {
        if ms > axis.lo && ms < axis.hi {
            let x = axis.x(ms);
            labels.place(text, theme.muted, [Spot { x: x - labels.width_of(text) / 2.0, y: base + 12.0 }]);
        }
    }
    // The earlier run's timeout, when it was another.
    if let Some(g) =
        scene.ghost.as_ref().and_then(|g| g.trace.timeout.filter(|t| Some(*t) != m.timeout).map(|t| (g, t)))
    {
        ghost_timeout(ctx, theme, labels, axis, g, (top, base));
    }
    if let (Some(t), Some(p)) = (timeout, m.tail_pct()) {
        let red = color(slot::RED, theme.dark);
        let x = axis.x(t);
        ctx.set_stroke_style_str(red);
        ctx.set_line_width(2.0);
        ctx.begin_path();
        ctx.move_to(x, top);
        ctx.line_to(x, base);
        ctx.stroke();
        ctx.set_line_width(1.0);
        let text = format!("timeout {}: {} slower", format::ms(t), format::pct(p));
        let w = labels.width_of(&text);
        labels.place(&text, red, [Spot { x: centred(x, w, axis), y: top + 8.0 }]);
    } else {
        labels.place("no timeout: nothing is cut off", theme.fg, [Spot { x: axis.left, y: top + 8.0 }]);
    }
}

/// Where a label `w` wide centred on `x` starts, kept on the axis. Not `clamp`: a label wider
/// than the axis (a canvas being resized) would make its bounds cross, and clamp panics then.
fn centred(x: f64, w: f64, axis: &LogAxis) -> f64 {
    (x - w / 2.0).min(axis.right - w).max(axis.left)
}

/// The fitted latency as a silhouette: each log bin as tall as its share of calls.
fn shape<P: Pen>(ctx: &P, theme: &Theme, l: &Latency, axis: &LogAxis, timeout: Option<f64>, (top, base): (f64, f64)) {
    let mass: Vec<f64> = (0..SHAPE_BINS).map(|i| axis.bin(i, SHAPE_BINS)).map(|(a, b)| l.tail(a) - l.tail(b)).collect();
    let most = mass.iter().copied().fold(0.0, f64::max).max(1e-12);
    for (slower, ink) in [(false, color(slot::BLUE, theme.dark)), (true, color(slot::RED, theme.dark))] {
        ctx.begin_path();
        for (i, share) in mass.iter().enumerate() {
            let (a, b) = axis.bin(i, SHAPE_BINS);
            if timeout.is_some_and(|t| a >= t) != slower {
                continue;
            }
            let height = (share / most) * (base - top);
            ctx.rect(axis.x(a), base - height, (axis.x(b) - axis.x(a)).max(0.5), height);
        }
        ctx.set_fill_style_str(ink);
        ctx.set_global_alpha(0.22);
        ctx.fill();
    }
    ctx.set_global_alpha(1.0);
}

/// The latest attempts, a dot each, stacked in their latency's column, and how many timed out.
fn landed<P: Pen>(ctx: &P, theme: &Theme, labels: &mut Labels<P>, m: &Moment, axis: &LogAxis, (top, base): (f64, f64)) {
    let fits = ((base - top) / DOT_PITCH) as usize;
    let mut height = [0usize; DOT_BINS];
    let mut spots: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    for l in &m.landed {
        let ms = l.latency as f64 / 1000.0;
        let bin = axis.bin_of(ms, DOT_BINS);
        if height[bin] >= fits {
            continue;
        }
        let (a, b) = axis.bin(bin, DOT_BINS);
        let x = (axis.x(a) + axis.x(b)) / 2.0;
        spots[usize::from(l.timed_out)].push((x, base - DOT_PITCH * (height[bin] as f64 + 0.5)));
        height[bin] += 1;
    }
    dots(ctx, color(slot::BLUE, theme.dark), spots[0].iter().copied(), 1.7, true);
    dots(ctx, color(slot::RED, theme.dark), spots[1].iter().copied(), 1.7, true);
    let text = format!(
        "latest {} calls: {} timed out",
        format::count(m.landed.len() as u64),
        format::count(m.landed_timed_out() as u64)
    );
    labels.place(&text, theme.fg, [Spot { x: axis.left, y: 10.0 }]);
}

fn ghost_timeout<P: Pen>(
    ctx: &P,
    theme: &Theme,
    labels: &mut Labels<P>,
    axis: &LogAxis,
    (g, t): (&Ghost<Trace>, Micros),
    (top, base): (f64, f64),
) {
    let x = axis.x(t as f64 / 1000.0);
    ctx.set_stroke_style_str(theme.fg);
    ctx.set_line_dash(&[3.0, 3.0]);
    ctx.begin_path();
    ctx.move_to(x, top + 10.0);
    ctx.line_to(x, base);
    ctx.stroke();
    ctx.set_line_dash(&[]);
    let text = match g.trace.tail_pct {
        Some(p) => format!("before: {}, {} slower", format::us_as_ms(t), format::pct(p)),
        None => format!("before: {}", format::us_as_ms(t)),
    };
    let w = labels.width_of(&text);
    labels.place(&text, theme.fg, [Spot { x: centred(x, w, axis), y: top + 21.0 }]);
}

/// The slowest request so far: a row per call, a bar per attempt, the route's deadline, how
/// long it waited, on an axis from its arrival to the settings' worst wait.
fn slowest<P: Pen>(
    ctx: &P,
    theme: &Theme,
    labels: &mut Labels<P>,
    scene: &Scene,
    (left, top, right, bottom): (f64, f64, f64, f64),
) {
    let m = &scene.moment;
    let end = scene.axis_end.max(1) as f64;
    let plot = (left + ROW_NAMES, right);
    let x = |t: Micros| plot.0 + (t as f64 / end).min(1.0) * (plot.1 - plot.0);
    let Some(r) = &m.slowest else {
        labels.place("slowest request: none answered yet", theme.muted, [Spot { x: left, y: top + 10.0 }]);
        return;
    };
    let head = format!("slowest request so far: waited {}", format::us_as_ms(r.latency));
    labels.place(&head, theme.fg, [Spot { x: left, y: top + 10.0 }]);
    let rows = r.shown_calls().max(1);
    let axis_y = bottom - 13.0;
    let row_h = ((axis_y - top - 16.0) / rows as f64).min(22.0);
    // The rows sit on the axis, as close to the times they are drawn against as they can be.
    let rows_top = axis_y - 4.0 - rows as f64 * row_h;
    for c in 0..r.shown_calls() {
        let y = rows_top + c as f64 * row_h;
        labels.place(&format!("call {}", c + 1), theme.muted, [Spot { x: left, y: y + row_h / 2.0 + 4.0 }]);
        for a in r.attempts_of(c) {
            attempt(ctx, theme, a, (x(a.start), x(a.end.max(a.start))), (y + 2.0, row_h - 4.0));
        }
    }
    ctx.set_stroke_style_str(theme.muted);
    ctx.begin_path();
    ctx.move_to(plot.0, axis_y + 0.5);
    ctx.line_to(plot.1, axis_y + 0.5);
    ctx.stroke();
    labels.place("0 s", theme.muted, [Spot { x: plot.0, y: bottom - 1.0 }]);
    let end_text = format::seconds(scene.axis_end);
    labels.place(&end_text, theme.muted, [Spot { x: plot.1 - labels.width_of(&end_text), y: bottom - 1.0 }]);
    if let Some(d) = m.deadline {
        marker(
            ctx,
            labels,
            color(slot::TEAL, theme.dark),
            x(d),
            &format!("deadline {}", format::seconds(d)),
            (rows_top, axis_y),
        );
    }
    if let Some(worst) = scene.ghost.as_ref().and_then(|g| g.trace.worst) {
        let text = format!("before: {}", format::seconds(worst));
        marker(ctx, labels, theme.fg, x(worst), &text, (rows_top, axis_y));
    }
}

fn attempt<P: Pen>(
    ctx: &P,
    theme: &Theme,
    a: &crate::scenarios::choosing_numbers::AttemptRecord,
    (x0, x1): (f64, f64),
    (y, h): (f64, f64),
) {
    let (ink, filled) = match a.outcome {
        AttemptEnd::Answered => (color(slot::BLUE, theme.dark), true),
        AttemptEnd::TimedOut => (color(slot::RED, theme.dark), false),
        AttemptEnd::ConnectFailed => (color(slot::ORANGE, theme.dark), false),
        AttemptEnd::Cut | AttemptEnd::Open => (color(slot::GRAY, theme.dark), false),
    };
    let w = (x1 - x0).max(1.5);
    if filled {
        ctx.set_fill_style_str(ink);
        ctx.fill_rect(x0, y, w, h);
    } else {
        ctx.set_stroke_style_str(ink);
        ctx.set_line_width(1.5);
        ctx.stroke_rect(x0 + 0.75, y + 0.75, (w - 1.5).max(0.5), h - 1.5);
        ctx.set_line_width(1.0);
    }
}

/// A dashed vertical line across the rows, named under the axis (or over the rows).
fn marker<P: Pen>(ctx: &P, labels: &mut Labels<P>, ink: &str, x: f64, text: &str, (top, axis_y): (f64, f64)) {
    ctx.set_stroke_style_str(ink);
    ctx.set_line_dash(&[3.0, 3.0]);
    ctx.begin_path();
    ctx.move_to(x, top - 2.0);
    ctx.line_to(x, axis_y);
    ctx.stroke();
    ctx.set_line_dash(&[]);
    let w = labels.width_of(text);
    let spots = [
        Spot { x: x - w / 2.0, y: axis_y + 12.0 },
        Spot { x: x - w - 3.0, y: axis_y + 12.0 },
        Spot { x: x + 3.0, y: top + 9.0 },
        Spot { x: x - w - 3.0, y: top + 9.0 },
    ];
    labels.place(text, ink, spots);
}

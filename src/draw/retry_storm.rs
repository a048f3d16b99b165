//! The retry-storm picture: every client as a dot (blue in a call, orange waiting out its
//! backoff with the part still to wait filled, a ring when idle); each attempt of the 100 ms
//! tick in progress as a line from its client to the provider, in its outcome's colour; the
//! provider with its capacity for the tick as slots, filled by the calls it admitted, and the
//! calls it turned away beside them; the breaker at its door. Under it, the attempts of every
//! tick so far against the capacity, on an axis the figure's presets share, with the run before
//! the reader's last change as a ghost. Everything is the model's state now
//! (`RetryStorm::picture`).

use super::FONT;
use super::{Ghost, Labels, Pen, Spot, Theme, color, dots, slot};
use crate::format;
use crate::scenarios::retry_storm::{
    BreakerNow, ClientState, Fan, Leaf, Outcome, Picture as Moment, RetryStorm, RetryStormConfig, TickSample,
};
use crate::sim::{Host, Simulation};

/// The picture's height in a figure: its canvas's 280 px (`retry_storm/style.css`) less its
/// border.
pub const HEIGHT: f64 = 278.0;
const PAD: f64 = 6.0;
/// The strip of attempts per tick at the bottom, and the row of labels over the machine.
const STRIP_H: f64 = 100.0;
const TOP: f64 = 20.0;
/// A client's dot pitch: the largest that lets every client fit.
const PITCHES: [f64; 8] = [18.0, 16.0, 14.0, 12.0, 10.0, 9.0, 8.0, 7.0];
/// A capacity slot's side: the largest that lets every slot fit.
const SLOT_SIDES: [f64; 6] = [14.0, 12.0, 10.0, 8.0, 6.0, 4.0];

/// What a ghost keeps of its run: its attempts per charted row and its busiest tick after
/// recovery.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub rows: Vec<(f64, u32)>,
    pub peak: Option<u32>,
    /// The most provider calls one user action made (the fan's number).
    pub most_calls: u64,
}

pub fn trace(run: &Host<RetryStorm>) -> Trace {
    let moment = run.picture(run.now());
    let rows = moment.history.iter().map(|(t, r)| (*t, attempts(r))).collect();
    let most_calls = run.metrics_now().max_calls_per_user_action;
    Trace { rows, peak: moment.peak.map(|(n, _)| n), most_calls }
}

fn attempts(r: &TickSample) -> u32 {
    (r.served + r.rejected + r.failed) as u32
}

/// One frame: the moment, the ghost, and the strip's height in attempts (from the settings,
/// not the run, so the figure's presets share it).
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    pub moment: Moment,
    pub ghost: Option<Ghost<Trace>>,
    pub y_top: f64,
}

impl Scene {
    /// `run`'s moment, on a strip `y_top` attempts high (see [`y_top`]).
    pub fn of(run: &Host<RetryStorm>, ghost: Option<Ghost<Trace>>, y_top: f64) -> Self {
        Scene { moment: run.picture(run.now()), ghost, y_top }
    }
}

/// The strip's height: the clients, or half again the capacity when that is more. A tick can
/// take more attempts than there are clients only when layers retry within it; those bars are
/// cut at the top.
pub fn y_top(c: &RetryStormConfig) -> f64 {
    (c.clients.max(1) as f64).max(c.capacity as f64 * 1.5)
}

pub fn breaker_word(b: BreakerNow) -> &'static str {
    match b {
        BreakerNow::Closed => "closed",
        BreakerNow::Open { .. } => "open",
        BreakerNow::HalfOpen => "half-open",
    }
}

/// Where things are on a canvas `w` × `h`.
struct Layout {
    clients_right: f64,
    provider: (f64, f64, f64, f64),
    breaker_x: f64,
    strip_top: f64,
}

fn layout(w: f64, h: f64) -> Layout {
    let strip_top = h - STRIP_H;
    let px = (w * 0.6).max(w - 190.0);
    let room = strip_top - 8.0 - TOP;
    let ph = room.min(110.0);
    Layout {
        clients_right: w * 0.44,
        provider: (px, TOP + (room - ph) / 2.0, w - PAD - px, ph),
        breaker_x: px - 10.0,
        strip_top,
    }
}

/// Draws `scene` `w` × `h` CSS pixels; returns the labels drawn (see [`Labels::json`]).
pub fn draw<P: Pen>(ctx: &P, w: f64, h: f64, theme: &Theme, scene: &Scene) -> String {
    let at = layout(w, h);
    let mut labels = Labels::new(ctx, FONT, w, h, theme.bg);
    let m = &scene.moment;
    let spots = client_spots(m.clients.len(), PAD, at.clients_right, TOP, at.strip_top - 8.0);
    flights(ctx, theme, m, &spots, &at);
    clients(ctx, theme, m, &spots);
    provider(ctx, theme, &mut labels, m, &at);
    breaker(ctx, theme, &mut labels, m, &at);
    let c = &m.clients_now;
    let head = format!("{} in a call, {} waiting to retry", c.in_call, c.waiting);
    labels.place(&head, theme.fg, [Spot { x: PAD, y: 12.0 }]);
    match &m.fan {
        Some(f) => {
            let ghost = scene.ghost.as_ref().map(|g| (g.label.as_str(), g.trace.most_calls));
            fan(ctx, theme, &mut labels, f, ghost, (PAD, at.strip_top, w - PAD, h - 4.0));
        }
        None => strip(ctx, theme, &mut labels, scene, w, &at),
    }
    labels.json()
}

/// Each client's centre, in a grid filling the box from `left` to `right`, `top` to `bottom`.
fn client_spots(n: usize, left: f64, right: f64, top: f64, bottom: f64) -> Vec<(f64, f64)> {
    let (w, h) = (right - left, bottom - top);
    let pitch = PITCHES
        .into_iter()
        .find(|p| ((w / p).floor().max(1.0) as usize) * ((h / p).floor() as usize) >= n)
        .unwrap_or(PITCHES[PITCHES.len() - 1]);
    let across = ((w / pitch).floor() as usize).max(1);
    (0..n).map(|k| (left + ((k % across) as f64 + 0.5) * pitch, top + ((k / across) as f64 + 0.5) * pitch)).collect()
}

fn radius(spots: &[(f64, f64)]) -> f64 {
    let pitch = match spots {
        [a, b, ..] if (b.0 - a.0).abs() > 0.0 => (b.0 - a.0).abs(),
        _ => PITCHES[0],
    };
    (pitch * 0.34).clamp(2.0, 5.5)
}

fn clients<P: Pen>(ctx: &P, theme: &Theme, m: &Moment, spots: &[(f64, f64)]) {
    let r = radius(spots);
    let of = |state: ClientState| m.clients.iter().zip(spots).filter(move |(c, _)| c.state == state).map(|(_, p)| *p);
    dots(ctx, color(slot::BLUE, theme.dark), of(ClientState::InFlight), r, true);
    dots(ctx, color(slot::GRAY, theme.dark), of(ClientState::Idle), r, false);
    let orange = color(slot::ORANGE, theme.dark);
    dots(ctx, orange, of(ClientState::WaitingToRetry), r, false);
    // The backoff still to wait, as a pie that empties until the client tries again.
    ctx.begin_path();
    for (c, &(x, y)) in m.clients.iter().zip(spots) {
        if let Some(left) = c.wait_left.filter(|l| *l > 0.0) {
            let start = -std::f64::consts::FRAC_PI_2;
            ctx.move_to(x, y);
            ctx.arc(x, y, r, start, start + left * std::f64::consts::TAU);
            ctx.close_path();
        }
    }
    ctx.set_fill_style_str(orange);
    ctx.fill();
}

fn outcome_ink(o: Outcome, dark: bool) -> &'static str {
    match o {
        Outcome::Served => color(slot::GREEN, dark),
        Outcome::Rejected | Outcome::ShortCircuited => color(slot::RED, dark),
        Outcome::Down | Outcome::Reset => color(slot::GRAY, dark),
    }
}

/// The tick's attempts, a line each from its client to the provider's door (to the breaker's,
/// for the ones it failed), one path per outcome.
fn flights<P: Pen>(ctx: &P, theme: &Theme, m: &Moment, spots: &[(f64, f64)], at: &Layout) {
    let (px, py, _, ph) = at.provider;
    let door = py + ph / 2.0;
    ctx.set_line_width(1.0);
    ctx.set_global_alpha(0.55);
    for o in [Outcome::Served, Outcome::Rejected, Outcome::Down, Outcome::Reset, Outcome::ShortCircuited] {
        let end = if o == Outcome::ShortCircuited { at.breaker_x } else { px };
        ctx.begin_path();
        for (c, &(x, y)) in m.clients.iter().zip(spots) {
            if c.attempt == Some(o) {
                ctx.move_to(x, y);
                ctx.line_to(end, door);
            }
        }
        ctx.set_stroke_style_str(outcome_ink(o, theme.dark));
        ctx.stroke();
    }
    ctx.set_global_alpha(1.0);
}

/// The provider's box: up or down, its capacity for this tick as slots filled by the calls it
/// admitted, the calls it turned away (or failed, down) as dots under them, and the count.
fn provider<P: Pen>(ctx: &P, theme: &Theme, labels: &mut Labels<P>, m: &Moment, at: &Layout) {
    let (x, y, w, h) = at.provider;
    if m.down {
        ctx.set_fill_style_str(color(slot::GRAY, theme.dark));
        ctx.set_global_alpha(0.2);
        ctx.fill_rect(x, y, w, h);
        ctx.set_global_alpha(1.0);
    }
    ctx.set_stroke_style_str(theme.muted);
    ctx.stroke_rect(x + 0.5, y + 0.5, w - 1.0, h - 1.0);
    let title =
        if m.down { format!("Provider: down until {}", format::seconds(m.outage.1)) } else { "Provider".to_string() };
    let title = if labels.width_of(&title) <= w {
        title
    } else if m.down {
        "Provider: down".to_string()
    } else {
        title
    };
    labels.place(&title, if m.down { color(slot::RED, theme.dark) } else { theme.fg }, [Spot { x, y: y - 4.0 }]);
    let inner = (x + 5.0, y + 5.0, w - 10.0);
    let cap = m.capacity as usize;
    let side = SLOT_SIDES
        .into_iter()
        .find(|s| cap.div_ceil(((inner.2 / s) as usize).max(1)) as f64 * s <= h * 0.45)
        .unwrap_or(4.0);
    let across = ((inner.2 / side) as usize).max(1);
    let green = color(slot::GREEN, theme.dark);
    for k in 0..cap {
        let (sx, sy) = (inner.0 + (k % across) as f64 * side, inner.1 + (k / across) as f64 * side);
        if k < m.tick.served as usize {
            ctx.set_fill_style_str(green);
            ctx.fill_rect(sx + 0.5, sy + 0.5, side - 1.0, side - 1.0);
        } else {
            ctx.set_stroke_style_str(theme.grid);
            ctx.stroke_rect(sx + 1.0, sy + 1.0, side - 2.0, side - 2.0);
        }
    }
    let below = inner.1 + cap.div_ceil(across) as f64 * side + 4.0;
    turned_away(ctx, theme, m, (inner.0, below, inner.2, y + h - 16.0 - below));
    let t = &m.tick;
    let count = format!("this tick: {}", format::counted(t.attempts().into(), "call", "calls"));
    let ink = if t.attempts() > m.capacity { color(slot::RED, theme.dark) } else { theme.fg };
    labels.place(&count, ink, [Spot { x: x + 4.0, y: y + h - 4.0 }]);
}

/// The tick's turned-away (red) and failed (grey) attempts as small dots in the box's middle.
fn turned_away<P: Pen>(ctx: &P, theme: &Theme, m: &Moment, (x, y, w, h): (f64, f64, f64, f64)) {
    const P: f64 = 6.0;
    let across = ((w / P) as usize).max(1);
    let fits = across * ((h / P).max(0.0) as usize);
    let at = |k: usize| (x + ((k % across) as f64 + 0.5) * P, y + ((k / across) as f64 + 0.5) * P);
    let rejected = (m.tick.rejected as usize).min(fits);
    let failed = (m.tick.failed as usize).min(fits - rejected);
    dots(ctx, color(slot::RED, theme.dark), (0..rejected).map(at), 2.2, true);
    dots(ctx, color(slot::GRAY, theme.dark), (rejected..rejected + failed).map(at), 2.2, true);
}

/// The breaker at the provider's door: a bar, red while open, orange with its probe out.
fn breaker<P: Pen>(ctx: &P, theme: &Theme, labels: &mut Labels<P>, m: &Moment, at: &Layout) {
    let Some(state) = m.breaker else { return };
    let (_, y, _, h) = at.provider;
    let ink = match state {
        BreakerNow::Closed => theme.muted,
        BreakerNow::Open { .. } => color(slot::RED, theme.dark),
        BreakerNow::HalfOpen => color(slot::ORANGE, theme.dark),
    };
    ctx.set_stroke_style_str(ink);
    ctx.set_line_width(if state == BreakerNow::Closed { 1.0 } else { 3.0 });
    ctx.begin_path();
    ctx.move_to(at.breaker_x, y);
    ctx.line_to(at.breaker_x, y + h);
    ctx.stroke();
    ctx.set_line_width(1.0);
    let text = format!("breaker {}", breaker_word(state));
    let x = at.breaker_x - labels.width_of(&text) - 3.0;
    labels.place(&text, ink, [Spot { x, y: y + h - 4.0 }, Spot { x, y: y + 10.0 }]);
}

/// Attempts per tick over the whole run, against the capacity, on the figure's fixed axis,
/// the ghost's as a dashed outline behind them.
fn strip<P: Pen>(ctx: &P, theme: &Theme, labels: &mut Labels<P>, scene: &Scene, w: f64, at: &Layout) {
    let m = &scene.moment;
    let (left, right, bottom) = (PAD, w - PAD, at.strip_top + STRIP_H - 15.0);
    let height = STRIP_H - 30.0;
    let end = m.end.max(1) as f64 / 1000.0;
    let x = |t_ms: f64| left + (t_ms / end).clamp(0.0, 1.0) * (right - left);
    let y = |n: f64| bottom - (n / scene.y_top).min(1.0) * height;
    let (from, until) = m.outage;
    if until > from {
        ctx.set_fill_style_str(theme.shade);
        let (a, b) = (x(from as f64 / 1000.0), x(until as f64 / 1000.0));
        ctx.fill_rect(a, bottom - height, (b - a).max(1.0), height);
    }
    let bar_w = (x(m.row as f64 / 1000.0) - left).max(1.0);
    // Stacked as the provider's box shows a tick: served, turned away, failed while down.
    let stacks: [(usize, Span); 3] = [
        (slot::GREEN, |r| (0.0, r.served)),
        (slot::RED, |r| (r.served, r.served + r.rejected)),
        (slot::GRAY, |r| (r.served + r.rejected, r.served + r.rejected + r.failed)),
    ];
    let t = &m.tick;
    let now = (
        t.start as f64 / 1000.0,
        TickSample {
            served: t.served.into(),
            rejected: t.rejected.into(),
            failed: t.failed.into(),
            ..Default::default()
        },
    );
    let rows: Vec<_> = m.history.iter().copied().chain([now]).collect();
    for (ink, span) in stacks {
        bars(ctx, color(ink, theme.dark), &rows, span, &x, &y, bar_w);
    }
    if let Some(g) = &scene.ghost {
        ghost_outline(ctx, theme, &g.trace.rows, &x, &y, bar_w, bottom);
    }
    ctx.set_stroke_style_str(theme.fg);
    ctx.set_line_dash(&[4.0, 3.0]);
    ctx.begin_path();
    ctx.move_to(left, y(m.capacity as f64));
    ctx.line_to(right, y(m.capacity as f64));
    ctx.stroke();
    ctx.set_line_dash(&[]);
    ctx.set_stroke_style_str(theme.muted);
    ctx.begin_path();
    ctx.move_to(left, bottom + 0.5);
    ctx.line_to(right, bottom + 0.5);
    ctx.move_to(x(m.at as f64 / 1000.0), bottom - height);
    ctx.line_to(x(m.at as f64 / 1000.0), bottom);
    ctx.stroke();
    strip_labels(labels, theme, scene, (left, right, bottom, height), &x, &y);
}

/// Where one part of a row's bar starts and ends, in attempts.
type Span = fn(&TickSample) -> (f64, f64);

/// One part of every row's bar, from `span(row).0` attempts up to `span(row).1`.
fn bars<P: Pen>(
    ctx: &P,
    ink: &str,
    rows: &[(f64, TickSample)],
    span: Span,
    x: &impl Fn(f64) -> f64,
    y: &impl Fn(f64) -> f64,
    bar_w: f64,
) {
    ctx.begin_path();
    for (t, r) in rows {
        let (from, to) = span(r);
        let (base, top) = (y(from), y(to));
        if top < base {
            ctx.rect(x(*t), top, bar_w, base - top);
        }
    }
    ctx.set_fill_style_str(ink);
    ctx.fill();
}

/// The ghost run's attempts per tick as a dashed step outline.
fn ghost_outline<P: Pen>(
    ctx: &P,
    theme: &Theme,
    rows: &[(f64, u32)],
    x: &impl Fn(f64) -> f64,
    y: &impl Fn(f64) -> f64,
    bar_w: f64,
    bottom: f64,
) {
    ctx.set_stroke_style_str(theme.fg);
    ctx.set_global_alpha(0.6);
    ctx.set_line_dash(&[2.0, 2.0]);
    ctx.begin_path();
    ctx.move_to(x(0.0), bottom);
    for &(t, n) in rows {
        ctx.line_to(x(t), y(n as f64));
        ctx.line_to(x(t) + bar_w, y(n as f64));
    }
    ctx.stroke();
    ctx.set_line_dash(&[]);
    ctx.set_global_alpha(1.0);
}

/// The capacity, the busiest tick since recovery where it is, and the ghost's name and peak.
fn strip_labels<P: Pen>(
    labels: &mut Labels<P>,
    theme: &Theme,
    scene: &Scene,
    (left, right, bottom, height): (f64, f64, f64, f64),
    x: &impl Fn(f64) -> f64,
    y: &impl Fn(f64) -> f64,
) {
    let m = &scene.moment;
    let red = color(slot::RED, theme.dark);
    if let Some((n, at)) = m.peak {
        let text = format!("busiest tick since back: {n}");
        let ink = if n > m.capacity { red } else { theme.fg };
        let px = (x(at as f64 / 1000.0) + 4.0).min(right - labels.width_of(&text));
        let top = bottom - height + 10.0;
        labels.place(&text, ink, [Spot { x: px, y: top }, Spot { x: px, y: y(n as f64).max(top) + 12.0 }]);
    }
    let cap = format!("capacity {}", m.capacity);
    let cx = right - labels.width_of(&cap);
    labels.place(
        &cap,
        theme.fg,
        [Spot { x: cx, y: y(m.capacity as f64) - 3.0 }, Spot { x: cx, y: y(m.capacity as f64) + 12.0 }],
    );
    let title = bottom - height - 4.0;
    labels.place("attempts per tick", theme.muted, [Spot { x: left, y: title }]);
    if let Some(g) = &scene.ghost {
        let peak = g.trace.peak.map_or(String::new(), |n| format!(", busiest {n}"));
        let text = format!("dashed: {}{peak}", g.label);
        let gx = right - labels.width_of(&text);
        labels.place(&text, theme.fg, [Spot { x: gx, y: title }, Spot { x: gx, y: bottom - height + 10.0 }]);
    }
    let under = bottom + 11.0;
    let (from, until) = m.outage;
    if until > from {
        let mid = (x(from as f64 / 1000.0) + x(until as f64 / 1000.0)) / 2.0;
        labels.place("down", theme.muted, [Spot { x: mid - labels.width_of("down") / 2.0, y: under }]);
    }
    let end = format::seconds(m.end);
    labels.place("0 s", theme.muted, [Spot { x: left, y: under }]);
    labels.place(&end, theme.muted, [Spot { x: right - labels.width_of(&end), y: under }]);
}

/// With layers that retry, the busiest user action as a tree: its first attempts at the top,
/// each layer's attempts under the one that made them, the calls to the provider at the bottom,
/// a dot per leaf in its outcome's colour (a ring: not made; a red ring: failed by the breaker).
/// `ghost`: the run before the reader's last change, its name and the most calls one of its
/// actions made, said under the heading.
fn fan<P: Pen>(
    ctx: &P,
    theme: &Theme,
    labels: &mut Labels<P>,
    f: &Fan,
    ghost: Option<(&str, u64)>,
    (left, top, right, bottom): (f64, f64, f64, f64),
) {
    let bound = f.bound().max(1);
    let pitch = (right - left) / bound as f64;
    let leaf_x = |leaf: f64| left + (leaf + 0.5) * pitch;
    let levels = f.shape.len();
    let tree_top = top + if ghost.is_some() { 34.0 } else { 22.0 };
    let leaves_y = bottom - 16.0;
    let level_y = |l: usize| tree_top + (leaves_y - tree_top) * l as f64 / levels as f64;
    // The number of leaves under one node of each level, and whether any of them was made.
    let under = |l: usize| f.shape[l + 1..].iter().product::<u32>();
    let made = |l: usize, node: u32| f.leaves.iter().any(|leaf| leaf.index / under(l) == node);
    let span_x = |l: usize, node: u32| leaf_x(((node * under(l)) as f64 + ((node + 1) * under(l)) as f64 - 1.0) / 2.0);
    for l in 0..levels {
        let nodes: u32 = f.shape[..=l].iter().product();
        for node in 0..nodes {
            let (parent_x, parent_y) = if l == 0 {
                ((left + right) / 2.0, tree_top - 8.0)
            } else {
                (span_x(l - 1, node / f.shape[l]), level_y(l))
            };
            let (x, y) = (span_x(l, node), level_y(l + 1));
            ctx.set_stroke_style_str(if made(l, node) { theme.fg } else { theme.grid });
            ctx.begin_path();
            ctx.move_to(parent_x, parent_y);
            ctx.line_to(x, y);
            ctx.stroke();
        }
    }
    let r = (pitch * 0.4).clamp(1.0, 4.5);
    let at = |leaf: &Leaf| (leaf_x(leaf.index as f64), leaves_y);
    let made_ones: Vec<u32> = f.leaves.iter().map(|l| l.index).collect();
    dots(
        ctx,
        theme.grid,
        (0..bound).filter(|i| !made_ones.contains(i)).map(|i| (leaf_x(i as f64), leaves_y)),
        r,
        false,
    );
    for o in [Outcome::Served, Outcome::Rejected, Outcome::Down, Outcome::Reset] {
        dots(ctx, outcome_ink(o, theme.dark), f.leaves.iter().filter(|l| l.outcome == o).map(at), r, true);
    }
    let stopped = f.leaves.iter().filter(|l| l.outcome == Outcome::ShortCircuited);
    dots(ctx, outcome_ink(Outcome::ShortCircuited, theme.dark), stopped.clone().map(at), r, false);
    let shape = f.shape.iter().map(u32::to_string).collect::<Vec<_>>().join(" × ");
    let head = format!("one action's attempts: up to {shape} = {bound}");
    labels.place(&head, theme.fg, [Spot { x: left, y: top + 10.0 }]);
    if let Some((name, most)) = ghost {
        let calls = format::counted(most, "call", "calls");
        let long = format!("before, {name}: at most {calls} per action");
        let text =
            if labels.width_of(&long) <= right - left { long } else { format!("before: at most {calls} per action") };
        labels.place(&text, theme.fg, [Spot { x: left, y: top + 23.0 }]);
    }
    let count = stopped.count();
    let text = if count > 0 {
        format!("made {}, {} reached the provider, {count} stopped at the breaker", f.attempts, f.calls)
    } else {
        format!("made {}, {} reached the provider", f.attempts, f.calls)
    };
    labels.place(&text, theme.fg, [Spot { x: left, y: bottom - 1.0 }]);
}

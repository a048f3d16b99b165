//! The cascade picture: each connection pool as a row of slots, a square per connection,
//! coloured by the call that holds it (red: a recommendations call that will never be
//! answered), and under it the pool's line of calls waiting for a connection, a dot each, head
//! of the line first: /home's calls and /checkout's price calls, in the order the pool will
//! serve them. With the bulkhead, recommendations' own pool is drawn beside or under the
//! shared one. Everything is the model's state now (`Cascade::picture`). After the reader
//! switches fix (or any setting), the run before stays on the shared pool as a ghost: dashed
//! around as many slots as it ever held at once and around the longest line it had, at the
//! live line's dot size, with its name, when its pool filled and its checkouts written under.

use super::FONT;
use super::{Ghost, Labels, Pen, Spot, Theme, color, dots, slot};
use crate::format;
use crate::scenarios::cascade::{Cascade, Holder, Picture as Moment, PoolPicture, Waiter};
use crate::sim::{Host, Simulation};

/// The picture's height in a figure: its canvas's 200 px (`cascade/style.css`) less its border.
pub const HEIGHT: f64 = 198.0;
const PAD: f64 = 6.0;
/// The largest and smallest slot square, the smallest that still reads as a square, and how
/// tall the slots of a pool with a line may stand.
const SLOT_MAX: f64 = 22.0;
const SLOT_MIN: f64 = 4.0;
const SLOT_COMFY: f64 = 10.0;
const SLOTS_MAX_H: f64 = 36.0;
/// A waiting call's dot pitch: the largest first, smaller when the line would not fit.
const DOT_PITCHES: [f64; 7] = [10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0];
/// Two pools side by side from this width (if the shared pool's slots keep their size), else
/// one under the other.
const SIDE_BY_SIDE: f64 = 560.0;
/// From a label's baseline to the next thing under it.
const BELOW_LABEL: f64 = 6.0;

/// What a ghost keeps of its run, as its metrics name it: when the shared pool first filled,
/// the most of it in use and waiting for it at once, and how /checkout fared.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub pool_full_at_ms: Option<f64>,
    pub pool_in_use_max: u64,
    pub pool_waiting_max: u64,
    pub checkout_ok: u64,
    pub checkout_arrived: u64,
}

pub fn trace(run: &Host<Cascade>) -> Trace {
    let m = run.metrics_now();
    Trace {
        pool_full_at_ms: m.pool_full_at_ms,
        pool_in_use_max: m.pool_in_use_max,
        pool_waiting_max: m.pool_waiting_max,
        checkout_ok: m.checkout_ok,
        checkout_arrived: m.checkout_arrived,
    }
}

/// The moment drawn, and the run before the reader's last change.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    pub moment: Moment,
    pub ghost: Option<Ghost<Trace>>,
}

impl Scene {
    pub fn of(run: &Host<Cascade>, ghost: Option<Ghost<Trace>>) -> Self {
        Scene { moment: run.picture(run.now()), ghost }
    }
}

/// Where a pool is drawn.
#[derive(Clone, Copy)]
struct Area {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

/// Draws `scene` `w` × `h` CSS pixels; returns the labels drawn (see [`Labels::json`]).
pub fn draw<P: Pen>(ctx: &P, w: f64, h: f64, theme: &Theme, scene: &Scene) -> String {
    let mut labels = Labels::new(ctx, FONT, w, h, theme.bg);
    let whole = Area { x: PAD, y: 2.0, w: w - 2.0 * PAD, h: h - 4.0 };
    let (m, ghost) = (&scene.moment, scene.ghost.as_ref());
    match &m.recs_pool {
        None => pool(ctx, theme, &mut labels, &m.shared, whole, full_label(&m.shared, m.pool_full_at), ghost),
        Some(recs) => {
            let (first, second) = split(whole, &m.shared);
            pool(ctx, theme, &mut labels, &m.shared, first, full_label(&m.shared, m.pool_full_at), ghost);
            pool(ctx, theme, &mut labels, recs, second, full_label(recs, None), None);
        }
    }
    labels.json()
}

/// Two areas for two pools: side by side when wide enough and the shared pool's slots are
/// as large as with one pool (so a fix with a separate pool and one without draw it alike, and
/// the ghost of one fits the other), else one under the other.
fn split(a: Area, shared: &PoolPicture) -> (Area, Area) {
    const GAP: f64 = 14.0;
    let w = (a.w - GAP) / 2.0;
    if a.w >= SIDE_BY_SIDE && slot_grid(shared, Area { w, ..a }) == slot_grid(shared, a) {
        (Area { w, ..a }, Area { x: a.x + w + GAP, w, ..a })
    } else {
        let h = (a.h - GAP) / 2.0;
        (Area { h, ..a }, Area { y: a.y + h + GAP, h, ..a })
    }
}

/// The pool's headline moment: since when it is full (it has been, without a gap, since then),
/// or, for the shared pool no longer full, when it first filled (`pool_full_at`).
fn full_label(p: &PoolPicture, first_full_at: Option<u64>) -> Option<(String, bool)> {
    match (p.full_since, first_full_at) {
        (Some(since), _) => Some((format!("pool full at {}", format::seconds(since)), true)),
        (None, Some(first)) => Some((format!("was full at {}", format::seconds(first)), false)),
        (None, None) => None,
    }
}

/// One pool: its title and count, its slots, when it filled, its line, and the ghost of the
/// run before over them (given for the shared pool only: its metrics are the shared pool's).
fn pool<P: Pen>(
    ctx: &P,
    theme: &Theme,
    labels: &mut Labels<P>,
    p: &PoolPicture,
    a: Area,
    full: Option<(String, bool)>,
    ghost: Option<&Ghost<Trace>>,
) {
    let title_y = a.y + 11.0;
    let (pitch, cols) = slot_grid(p, a);
    let slots_right = a.x + cols.min(p.slots.len()) as f64 * pitch;
    // "pool full at" ends over the pool's last slot (at the row's end for a pool of a few), and
    // the title takes the row but for its room.
    let full_w = full.as_ref().map_or(0.0, |(text, _)| labels.width_of(text));
    let full_x = if slots_right - a.x >= full_w + 120.0 { slots_right - full_w } else { a.x + a.w - full_w };
    let room = if full.is_some() { full_x - a.x - 12.0 } else { a.w };
    title(labels, theme, p, a.x, room, title_y);
    let bottom = slots(ctx, theme, p, a.x, title_y + BELOW_LABEL, pitch, cols);
    if let Some(g) = ghost {
        let held = (g.trace.pool_in_use_max as usize).min(p.slots.len());
        let gap = slot_gap(pitch);
        let cells =
            Cells { x: a.x - 1.0, y: title_y + BELOW_LABEL - 1.0, pitch, cols, rows: usize::MAX, trim: gap - 2.0 };
        dashed_cells(ctx, theme, &cells, held);
    }
    if let Some((text, now)) = full {
        let ink = if now { color(slot::RED, theme.dark) } else { theme.muted };
        labels.place_apart(&text, ink, [Spot { x: full_x, y: title_y }]);
    }
    let more = p.slots_total - p.slots.len();
    let mut line_y = bottom + 14.0;
    if more > 0 {
        let text = format!("+{} more open, not drawn", format::count(more as u64));
        labels.place(&text, theme.muted, [Spot { x: a.x, y: line_y }]);
        line_y += 14.0;
    }
    line_label(labels, theme, p, a, line_y);
    if let Some(most) = ghost.map(|g| g.trace.pool_waiting_max).filter(|&n| n > 0) {
        // How long the ghost's line got, at the row's end when there is room beside this line's.
        let n = format::count(most);
        for text in [format!("dashed: up to {n} waiting"), format!("up to {n}")] {
            if labels.place(&text, theme.fg, [Spot { x: a.x + a.w - labels.width_of(&text), y: line_y }]) {
                break;
            }
        }
    }
    let mut line_area = Area { y: line_y + BELOW_LABEL, h: a.y + a.h - line_y - BELOW_LABEL, ..a };
    // Rows under the dots, from the bottom: the ghost's name and outcome, then that the line
    // goes on.
    let mut under = a.y + a.h - 2.0;
    if let Some(g) = ghost {
        line_area.h -= 14.0;
        ghost_label(labels, theme, g, a.x, a.w, under);
        under -= 14.0;
    }
    let not_drawn = (p.waiting_home + p.waiting_checkout) as usize - p.line.len();
    if not_drawn > 0 {
        line_area.h -= 14.0;
        let text = format!("+{} more in line, not drawn", format::count(not_drawn as u64));
        labels.place(&text, theme.muted, [Spot { x: a.x, y: under }]);
    }
    let (pitch, cols) = line_pitch(p.line.len(), line_area);
    line(ctx, theme, p, line_area, pitch, cols);
    if let Some(g) = ghost {
        let rows = (line_area.h / pitch).max(0.0) as usize;
        let cells = Cells { x: line_area.x, y: line_area.y, pitch, cols, rows, trim: 0.0 };
        dashed_cells(ctx, theme, &cells, g.trace.pool_waiting_max as usize);
    }
}

/// The ghost's name, when its shared pool filled, and its checkouts, at `y` in `w`: the
/// longest that fits.
fn ghost_label<P: Pen>(labels: &mut Labels<P>, theme: &Theme, g: &Ghost<Trace>, x: f64, w: f64, y: f64) {
    let t = &g.trace;
    let full =
        t.pool_full_at_ms.map_or("never full".to_string(), |ms| format!("full at {}", format::secs(ms / 1000.0)));
    let (ok, of) = (format::count(t.checkout_ok), format::count(t.checkout_arrived));
    let texts = [
        format!("dashed: {}: {full}, {ok} of {of} checkouts succeeded", g.label),
        format!("dashed: {}: {full}, {ok} of {of} checkouts ok", g.label),
        format!("dashed: {}: {ok} of {of} checkouts ok", g.label),
        format!("dashed: {full}, {ok} of {of} checkouts ok"),
        format!("dashed: {ok}/{of} checkouts ok"),
    ];
    let text = texts.iter().find(|t| labels.width_of(t) <= w).unwrap_or(&texts[texts.len() - 1]);
    labels.place(text, theme.fg, [Spot { x, y }]);
}

/// A grid filled row by row from the top left: its corner, its pitch and columns, the rows
/// it has room for, and how much shorter than the pitch each cell's outline ends.
struct Cells {
    x: f64,
    y: f64,
    pitch: f64,
    cols: usize,
    rows: usize,
    trim: f64,
}

/// A dashed outline around the first `n` cells of a grid, as a ghost's: open at the bottom
/// when they would take more rows than it has.
fn dashed_cells<P: Pen>(ctx: &P, theme: &Theme, g: &Cells, n: usize) {
    if n == 0 || g.rows == 0 {
        return;
    }
    let (full, rest) = (n / g.cols, n % g.cols);
    let x_at = |c: usize| g.x + c as f64 * g.pitch - if c > 0 { g.trim } else { 0.0 };
    let y_at = |r: usize| g.y + r as f64 * g.pitch - if r > 0 { g.trim } else { 0.0 };
    let right = x_at(if full > 0 { g.cols } else { rest });
    ctx.set_stroke_style_str(theme.fg);
    ctx.set_global_alpha(0.7);
    ctx.set_line_dash(&[3.0, 2.0]);
    ctx.begin_path();
    if n.div_ceil(g.cols) > g.rows {
        let bottom = y_at(g.rows);
        ctx.move_to(x_at(0), bottom);
        ctx.line_to(x_at(0), y_at(0));
        ctx.line_to(right, y_at(0));
        ctx.line_to(right, bottom);
    } else {
        ctx.move_to(x_at(0), y_at(0));
        ctx.line_to(right, y_at(0));
        if rest > 0 && full > 0 {
            // The last row is partly filled from the left, as the line's dots are.
            ctx.line_to(right, y_at(full));
            ctx.line_to(x_at(rest), y_at(full));
        }
        let last = if rest > 0 { full + 1 } else { full };
        ctx.line_to(if rest > 0 { x_at(rest) } else { right }, y_at(last));
        ctx.line_to(x_at(0), y_at(last));
        ctx.close_path();
    }
    ctx.stroke();
    ctx.set_line_dash(&[]);
    ctx.set_global_alpha(1.0);
}

/// The pitch and columns of a pool's slots in `a`.
fn slot_grid(p: &PoolPicture, a: Area) -> (f64, usize) {
    // Without a limit nothing waits: the open connections may take the whole area.
    let max_h = if p.now.limit.is_none() { (a.h - 48.0).max(SLOTS_MAX_H) } else { SLOTS_MAX_H };
    slot_pitch(p.slots.len(), a.w, max_h)
}

/// "Shared pool: 20 of 20 in use", or shorter when it does not fit.
fn title<P: Pen>(labels: &mut Labels<P>, theme: &Theme, p: &PoolPicture, x: f64, room: f64, y: f64) {
    let (long, short) =
        if p.name == "recs" { ("Recommendations' pool", "Recommendations") } else { ("Shared pool", "Shared") };
    let texts = match p.now.limit {
        Some(limit) => [
            format!("{long}: {} of {limit} in use", p.now.in_use),
            format!("{short}: {} of {limit} in use", p.now.in_use),
            format!("{short}: {}/{limit}", p.now.in_use),
        ],
        None => [
            format!("{long}, no limit: {} open", format::count(u64::from(p.now.open))),
            format!("{short}, no limit: {} open", format::count(u64::from(p.now.open))),
            format!("{short}: {} open", format::count(u64::from(p.now.open))),
        ],
    };
    let fits = texts.iter().find(|t| labels.width_of(t) <= room).unwrap_or(&texts[2]);
    labels.place(fits, theme.fg, [Spot { x, y }]);
}

/// The slots' pitch and columns: in as few rows as keep each square comfortable, else the
/// largest pitch at which they fit within `max_h`.
fn slot_pitch(n: usize, w: f64, max_h: f64) -> (f64, usize) {
    let n = n.max(1);
    let rows = (1..=n).find(|&r| n.div_ceil(r) as f64 * SLOT_COMFY <= w).unwrap_or(n);
    let pitch = (w / n.div_ceil(rows) as f64).floor().min(SLOT_MAX);
    if rows as f64 * pitch <= max_h {
        return (pitch, n.div_ceil(rows));
    }
    let mut pitch = SLOT_MAX;
    loop {
        let cols = ((w / pitch) as usize).max(1);
        if pitch <= SLOT_MIN || n.div_ceil(cols) as f64 * pitch <= max_h {
            return (pitch, cols);
        }
        pitch -= 1.0;
    }
}

/// A square per slot, coloured by its holder; a full pool is framed in red. Returns the
/// slots' bottom.
fn slots<P: Pen>(ctx: &P, theme: &Theme, p: &PoolPicture, x: f64, y: f64, pitch: f64, cols: usize) -> f64 {
    let rows = p.slots.len().div_ceil(cols).max(1);
    let gap = slot_gap(pitch);
    let side = pitch - gap;
    for (k, holder) in p.slots.iter().enumerate() {
        let (sx, sy) = (x + (k % cols) as f64 * pitch, y + (k / cols) as f64 * pitch);
        match fill_of(*holder) {
            Some((tone, true)) => {
                ctx.set_fill_style_str(color(tone, theme.dark));
                ctx.fill_rect(sx, sy, side, side);
            }
            Some((tone, false)) => outline(ctx, color(tone, theme.dark), sx, sy, side, 1.5),
            None if *holder == Holder::Free => outline(ctx, theme.muted, sx, sy, side, 1.0),
            None => outline(ctx, theme.grid, sx, sy, side, 1.0),
        }
    }
    let bottom = y + rows as f64 * pitch - gap;
    if p.full() {
        let w = cols.min(p.slots.len()) as f64 * pitch - gap;
        ctx.set_stroke_style_str(color(slot::RED, theme.dark));
        ctx.set_line_width(1.5);
        ctx.stroke_rect(x - 2.5, y - 2.5, w + 5.0, bottom - y + 5.0);
        ctx.set_line_width(1.0);
    }
    bottom + 2.5
}

/// The space between two slots' squares.
fn slot_gap(pitch: f64) -> f64 {
    if pitch >= 10.0 { 2.0 } else { 1.0 }
}

/// A holder's colour, and whether its square is filled (else outlined).
fn fill_of(h: Holder) -> Option<(usize, bool)> {
    match h {
        Holder::Recs { hung: true } => Some((slot::RED, true)),
        Holder::Recs { hung: false } => Some((slot::ORANGE, true)),
        Holder::HomePrice => Some((slot::BLUE, true)),
        Holder::CheckoutPrice { client_gone } => Some((slot::GREEN, !client_gone)),
        Holder::Closed | Holder::Free => None,
    }
}

fn outline<P: Pen>(ctx: &P, ink: &str, x: f64, y: f64, side: f64, width: f64) {
    ctx.set_stroke_style_str(ink);
    ctx.set_line_width(width);
    ctx.stroke_rect(x + width / 2.0, y + width / 2.0, side - width, side - width);
}

/// "272 calls wait: /home 247, /checkout 25", or shorter when it does not fit.
fn line_label<P: Pen>(labels: &mut Labels<P>, theme: &Theme, p: &PoolPicture, a: Area, y: f64) {
    let waiting = p.waiting_home + p.waiting_checkout;
    let texts: Vec<String> = if waiting == 0 {
        let none =
            if p.now.limit.is_none() { "nobody waits: each call opens one" } else { "no call waits for a connection" };
        vec![none.to_string(), "none waiting".to_string()]
    } else {
        let calls_wait = format::counted(u64::from(waiting), "call waits", "calls wait");
        let (all, home, checkout) = (format::count(u64::from(waiting)), p.waiting_home, p.waiting_checkout);
        let gone = p.waiting_checkout_client_gone;
        let mut texts = Vec::new();
        if gone > 0 {
            texts.push(format!("{calls_wait}: /home {home}, /checkout {checkout} ({gone} client gone)"));
        }
        texts.push(format!("{calls_wait}: /home {home}, /checkout {checkout}"));
        texts.push(format!("{all} wait: /home {home}, /checkout {checkout}"));
        texts.push(format!("{all} waiting"));
        texts
    };
    let fits = texts.iter().find(|t| labels.width_of(t) <= a.w).unwrap_or(&texts[texts.len() - 1]);
    let ink = if p.waiting_checkout > 0 { color(slot::RED, theme.dark) } else { theme.fg };
    labels.place(fits, ink, [Spot { x: a.x, y }]);
}

/// How many dots fit in `a` at `pitch`.
fn dots_fit(a: Area, pitch: f64) -> usize {
    ((a.w / pitch) as usize).max(1) * ((a.h / pitch).max(0.0) as usize)
}

/// The line's dot pitch, the largest at which `n` dots fit in `a`, and its columns.
fn line_pitch(n: usize, a: Area) -> (f64, usize) {
    let pitch =
        DOT_PITCHES.into_iter().find(|&pitch| dots_fit(a, pitch) >= n).unwrap_or(DOT_PITCHES[DOT_PITCHES.len() - 1]);
    (pitch, ((a.w / pitch) as usize).max(1))
}

/// The line of waiting calls, a dot each, head first, row by row, at `pitch` in `cols`.
fn line<P: Pen>(ctx: &P, theme: &Theme, p: &PoolPicture, a: Area, pitch: f64, cols: usize) {
    let n = p.line.len();
    // /checkout's calls a little larger: they are the ones the reader looks for.
    let radius = |of: Waiter| if of.for_home() { pitch * 0.36 } else { pitch * 0.46 };
    let at = |k: usize| (a.x + (k % cols) as f64 * pitch + pitch / 2.0, a.y + (k / cols) as f64 * pitch + pitch / 2.0);
    let shown = n.min(dots_fit(a, pitch));
    for (tone, filled, of) in [
        (slot::ORANGE, true, Waiter::Recs),
        (slot::BLUE, true, Waiter::HomePrice),
        (slot::GREEN, true, Waiter::CheckoutPrice { client_gone: false }),
        (slot::GREEN, false, Waiter::CheckoutPrice { client_gone: true }),
    ] {
        let points = (0..shown).filter(|&k| p.line[k] == of).map(at);
        dots(ctx, color(tone, theme.dark), points, radius(of), filled);
    }
}

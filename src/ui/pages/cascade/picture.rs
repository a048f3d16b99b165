//! The cascade picture: each connection pool as a row of slots, a square per connection,
//! coloured by the call that holds it (red: a recommendations call that will never be
//! answered), and under it the pool's line of calls waiting for a connection, a dot each, head
//! of the line first: /home's calls and /checkout's price calls, in the order the pool will
//! serve them. With the bulkhead, recommendations' own pool is drawn beside or under the
//! shared one. Everything is the model's state now (`Cascade::picture`).

use leptos::prelude::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::format;
use crate::scenarios::cascade::{Cascade, Holder, Picture as Moment, PoolPicture, Waiter};
use crate::sim::Simulation;
use crate::ui::kit::canvas::context;
use crate::ui::kit::chart::labels::{Labels, Spot};
use crate::ui::kit::chart::{Theme, color, slot};
use crate::ui::kit::picture::dots;
use crate::ui::kit::{Mark, Picture};
use crate::ui::runner::Runner;

const FONT: &str = "11px system-ui, sans-serif";
const PAD: f64 = 6.0;
/// The largest and smallest slot square, the smallest that still reads as a square, and how
/// tall the slots of a pool with a line may stand.
const SLOT_MAX: f64 = 22.0;
const SLOT_MIN: f64 = 4.0;
const SLOT_COMFY: f64 = 10.0;
const SLOTS_MAX_H: f64 = 36.0;
/// A waiting call's dot pitch: the largest first, smaller when the line would not fit.
const DOT_PITCHES: [f64; 7] = [10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0];
/// Two pools side by side from this width, else one under the other.
const SIDE_BY_SIDE: f64 = 560.0;
/// From a label's baseline to the next thing under it.
const BELOW_LABEL: f64 = 6.0;

/// Short, so that the legend fits the figure's chart box on a phone.
const LEGEND: &[(&str, Mark)] = &[
    ("recommendations, hung", Mark::Dot(slot::RED)),
    ("recommendations", Mark::Dot(slot::ORANGE)),
    ("/home's price", Mark::Dot(slot::BLUE)),
    ("/checkout's price", Mark::Dot(slot::GREEN)),
    ("client gone", Mark::Ring(slot::GREEN)),
    ("free", Mark::Ring(slot::GRAY)),
];

#[component]
pub fn PoolPicture(runner: Runner<Cascade>) -> impl IntoView {
    let data = Signal::derive(move || runner.track(|s| s.picture(s.now())));
    let summary = Signal::derive(move || data.with(summary));
    view! {
        <Picture
            id="picture"
            title="The connection pool, call by call"
            data
            draw=draw
            drawn=|moment: &Moment| moment.drawn_json()
            summary
            legend=LEGEND
        />
    }
}

/// The picture in words, for screen readers.
fn summary(m: &Moment) -> String {
    let pool = |p: &PoolPicture, name: &str| {
        let size = p.now.limit.map_or("no limit".to_string(), |l| format!("{l} connections"));
        format!(
            "{name} ({size}): {} in use, {} by recommendations calls that never answer; {} calls wait, {} of them /checkout's.",
            p.now.in_use, p.held.recs_hung, p.now.waiting, p.waiting_checkout
        )
    };
    let mut text = pool(&m.shared, "Shared pool");
    if let Some(t) = m.pool_full_at {
        text += &format!(" It was first full at {}.", format::seconds(t));
    }
    if let Some(r) = &m.recs_pool {
        text += &format!(" {}", pool(r, "Recommendations' pool"));
    }
    text
}

/// Where a pool is drawn.
#[derive(Clone, Copy)]
struct Area {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

fn draw(el: &HtmlCanvasElement, w: f64, h: f64, m: &Moment) {
    let Some(ctx) = context(el, w, h) else { return };
    let theme = Theme::now();
    let mut labels = Labels::new(&ctx, FONT, w, h, theme.bg);
    let whole = Area { x: PAD, y: 2.0, w: w - 2.0 * PAD, h: h - 4.0 };
    match &m.recs_pool {
        None => pool(&ctx, &theme, &mut labels, &m.shared, whole, full_label(&m.shared, m.pool_full_at)),
        Some(recs) => {
            let (first, second) = split(whole);
            pool(&ctx, &theme, &mut labels, &m.shared, first, full_label(&m.shared, m.pool_full_at));
            pool(&ctx, &theme, &mut labels, recs, second, full_label(recs, None));
        }
    }
    labels.publish(el);
}

/// Two areas for two pools: side by side when wide enough, else one under the other.
fn split(a: Area) -> (Area, Area) {
    const GAP: f64 = 14.0;
    if a.w >= SIDE_BY_SIDE {
        let w = (a.w - GAP) / 2.0;
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

/// One pool: its title and count, its slots, when it filled, its line.
fn pool(
    ctx: &CanvasRenderingContext2d,
    theme: &Theme,
    labels: &mut Labels,
    p: &PoolPicture,
    a: Area,
    full: Option<(String, bool)>,
) {
    let title_y = a.y + 11.0;
    // Without a limit nothing waits: the open connections may take the whole area.
    let max_h = if p.now.limit.is_none() { (a.h - 48.0).max(SLOTS_MAX_H) } else { SLOTS_MAX_H };
    let (pitch, cols) = slot_pitch(p.slots.len(), a.w, max_h);
    let slots_right = a.x + cols.min(p.slots.len()) as f64 * pitch;
    // "pool full at" ends over the pool's last slot (at the row's end for a pool of a few), and
    // the title takes the row but for its room.
    let full_w = full.as_ref().map_or(0.0, |(text, _)| labels.width_of(text));
    let full_x = if slots_right - a.x >= full_w + 120.0 { slots_right - full_w } else { a.x + a.w - full_w };
    let room = if full.is_some() { full_x - a.x - 12.0 } else { a.w };
    title(labels, theme, p, a.x, room, title_y);
    let bottom = slots(ctx, theme, p, a.x, title_y + BELOW_LABEL, pitch, cols);
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
    let mut line_area = Area { y: line_y + BELOW_LABEL, h: a.y + a.h - line_y - BELOW_LABEL, ..a };
    let not_drawn = (p.waiting_home + p.waiting_checkout) as usize - p.line.len();
    if not_drawn > 0 {
        // A row under the dots says the line goes on.
        line_area.h -= 14.0;
        let text = format!("+{} more in line, not drawn", format::count(not_drawn as u64));
        labels.place(&text, theme.muted, [Spot { x: a.x, y: a.y + a.h - 2.0 }]);
    }
    line(ctx, theme, p, line_area);
}

/// "Shared pool: 20 of 20 in use", or shorter when it does not fit.
fn title(labels: &mut Labels, theme: &Theme, p: &PoolPicture, x: f64, room: f64, y: f64) {
    let (long, short) = if p.name == "recs" {
        ("Recommendations' pool", "Recommendations")
    } else {
        ("Shared pool", "Shared")
    };
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
fn slots(ctx: &CanvasRenderingContext2d, theme: &Theme, p: &PoolPicture, x: f64, y: f64, pitch: f64, cols: usize) -> f64 {
    let rows = p.slots.len().div_ceil(cols).max(1);
    let gap = if pitch >= 10.0 { 2.0 } else { 1.0 };
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

fn outline(ctx: &CanvasRenderingContext2d, ink: &str, x: f64, y: f64, side: f64, width: f64) {
    ctx.set_stroke_style_str(ink);
    ctx.set_line_width(width);
    ctx.stroke_rect(x + width / 2.0, y + width / 2.0, side - width, side - width);
}

/// "272 calls wait: /home 247, /checkout 25", or shorter when it does not fit.
fn line_label(labels: &mut Labels, theme: &Theme, p: &PoolPicture, a: Area, y: f64) {
    let waiting = p.waiting_home + p.waiting_checkout;
    let texts: Vec<String> = if waiting == 0 {
        let none = if p.now.limit.is_none() { "nobody waits: each call opens one" } else { "no call waits for a connection" };
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

/// The line of waiting calls, a dot each, head first, row by row.
fn line(ctx: &CanvasRenderingContext2d, theme: &Theme, p: &PoolPicture, a: Area) {
    let n = p.line.len();
    let fits = |pitch: f64| ((a.w / pitch) as usize).max(1) * ((a.h / pitch) as usize);
    let pitch = DOT_PITCHES.into_iter().find(|&pitch| fits(pitch) >= n).unwrap_or(DOT_PITCHES[DOT_PITCHES.len() - 1]);
    let cols = ((a.w / pitch) as usize).max(1);
    // /checkout's calls a little larger: they are the ones the reader looks for.
    let radius = |of: Waiter| if of.for_home() { pitch * 0.36 } else { pitch * 0.46 };
    let at = |k: usize| (a.x + (k % cols) as f64 * pitch + pitch / 2.0, a.y + (k / cols) as f64 * pitch + pitch / 2.0);
    let shown = n.min(fits(pitch));
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

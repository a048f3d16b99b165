//! The at-least-once picture, top to bottom as a message travels: the broker's queue of ready
//! messages (a dot each, the next to go at the left), the messages out of sight (leases of
//! crashed consumers running out, the outbox's copies, the late ones, the dead-letter queue),
//! the consumers and the copy each works on, and the ledger, a square per event by how often it
//! was credited, a double credit ringed in red (a lost event too) and counted over the ledger. A
//! message redelivered is a ring wherever it is. Everything is the model's state now (`AtLeastOnce::picture`).

use super::FONT;
use super::{Labels, Pen, Spot, Theme, color, dots, slot};
use crate::format;
use crate::scenarios::at_least_once::{Cause, ConsumerNow, Entry, Picture as Moment, Step};

/// The picture's height in a figure: its canvas's 250 px (`at_least_once/style.css`) less its
/// border.
pub const HEIGHT: f64 = 248.0;

const PAD: f64 = 6.0;
/// A message's dot: its pitch and radius.
const PITCH: f64 = 10.0;
const RADIUS: f64 = 3.6;
/// A row: its label's baseline from the row's top, then its dots or boxes.
const LABEL_Y: f64 = 11.0;
const ROW_H: f64 = 34.0;
const CONSUMER_H: f64 = 18.0;
/// The ledger's squares: the largest pitch, and the smallest that still reads as a square.
const ENTRY_MAX: f64 = 10.0;
const ENTRY_MIN: f64 = 3.0;

/// Where a message's kind is drawn: its colour and whether its dot is filled (else a ring).
fn mark_of(cause: Cause) -> (usize, bool) {
    match cause {
        Cause::First => (slot::BLUE, true),
        Cause::AfterEarlyCrash | Cause::AfterMiddleCrash | Cause::LeaseOutlived => (slot::ORANGE, false),
        Cause::Republished | Cause::Late | Cause::Redriven => (slot::PURPLE, true),
    }
}

/// Draws `m` `w` × `h` CSS pixels; returns the labels drawn (see [`Labels::json`]).
pub fn draw<P: Pen>(ctx: &P, w: f64, h: f64, theme: &Theme, m: &Moment) -> String {
    let mut labels = Labels::new(ctx, FONT, w, h, theme.bg);
    let inner = w - 2.0 * PAD;
    queue(ctx, theme, &mut labels, m, 0.0, inner);
    out_of_sight(ctx, theme, &mut labels, m, ROW_H, inner);
    consumers(ctx, theme, &mut labels, m, 2.0 * ROW_H, inner);
    ledger(ctx, theme, &mut labels, m, 3.0 * ROW_H + 4.0, inner, h);
    labels.json()
}

/// The first text of `texts` that fits `room`, else the last.
fn fitting<'t, P: Pen>(labels: &Labels<P>, texts: &'t [String], room: f64) -> &'t str {
    texts.iter().find(|t| labels.width_of(t) <= room).unwrap_or(&texts[texts.len() - 1])
}

/// A row of dots, one per message of `kinds` in its mark, from the left; past the room for
/// them, "+N more" of the `total`.
fn row_of_dots<P: Pen>(
    ctx: &P,
    theme: &Theme,
    labels: &mut Labels<P>,
    kinds: &[(usize, bool)],
    total: usize,
    top: f64,
    room: f64,
) {
    let fits = (((room - labels.width_of("+0,000 more")) / PITCH) as usize).min(kinds.len());
    let at = |k: usize| (PAD + k as f64 * PITCH + PITCH / 2.0, top + 16.0 + PITCH / 2.0);
    for mark in [(slot::BLUE, true), (slot::PURPLE, true), (slot::GRAY, true), (slot::ORANGE, false)] {
        let points = (0..fits).filter(|&k| kinds[k] == mark).map(at);
        dots(ctx, color(mark.0, theme.dark), points, RADIUS, mark.1);
    }
    if total > fits {
        let text = format!("+{} more", format::count((total - fits) as u64));
        labels.place(&text, theme.muted, [Spot { x: PAD + fits as f64 * PITCH + 4.0, y: top + 25.0 }]);
    }
}

/// The broker's queue: "Queue: 12 ready, 3 came back", and a dot per ready message.
fn queue<P: Pen>(ctx: &P, theme: &Theme, labels: &mut Labels<P>, m: &Moment, top: f64, room: f64) {
    let back = m.ready_after_crash + m.ready_after_lease;
    let ready = format::count(m.ready_total);
    let mut texts = Vec::new();
    if back > 0 {
        texts.push(format!("Queue: {ready} ready, {back} came back"));
        texts.push(format!("Queue: {ready}, {back} back"));
    }
    texts.push(format!("Queue: {ready} ready"));
    texts.push(format!("Queue: {ready}"));
    labels.place(fitting(labels, &texts, room), theme.fg, [Spot { x: PAD, y: top + LABEL_Y }]);
    let kinds: Vec<(usize, bool)> = m.ready.iter().map(|c| mark_of(*c)).collect();
    row_of_dots(ctx, theme, labels, &kinds, m.ready_total as usize, top, room);
}

/// Messages the consumers cannot see now: leased to a crashed consumer (back when the lease
/// runs out), the outbox's second publishes, acked ones due back late, the dead-letter queue.
fn out_of_sight<P: Pen>(ctx: &P, theme: &Theme, labels: &mut Labels<P>, m: &Moment, top: f64, room: f64) {
    let leases = m.orphans;
    let mut kinds: Vec<(usize, bool)> = vec![(slot::ORANGE, false); leases as usize];
    kinds.extend(std::iter::repeat_n((slot::PURPLE, true), (m.outbox + m.late) as usize));
    kinds.extend(std::iter::repeat_n((slot::GRAY, true), m.dead_letter_queue as usize));
    // Each kind's count, said long and short.
    let mut parts = Vec::new();
    if let Some(next) = m.next_orphan {
        let left = format::span_ms(libm::ceil((next.until - m.at) as f64 / 1e6) * 1000.0);
        // SQS dead-letters a message on the receive past its limit, so a last lease's message
        // comes back first, and its next receive moves it.
        let (then, short) = if next.to_dead_letter { (", then dead-lettered", ", then DLQ") } else { ("", "") };
        let leases = format::counted(leases, "lease", "leases");
        parts.push((
            format!("{leases} of crashed consumers, next back in {left}{then}"),
            format!("{leases} of crashed, back in {left}{short}"),
        ));
    }
    for (n, long, short) in
        [(m.outbox, "outbox", "outbox"), (m.late, "due back late", "late"), (m.dead_letter_queue, "dead-letter", "DLQ")]
    {
        if n > 0 {
            parts.push((format!("{long} {}", format::count(n)), format!("{short} {}", format::count(n))));
        }
    }
    let texts = if parts.is_empty() {
        vec![
            "Out of sight: none (a crashed consumer's message waits here)".to_string(),
            "Out of sight: none".to_string(),
        ]
    } else {
        let long: Vec<&str> = parts.iter().map(|p| p.0.as_str()).collect();
        let short: Vec<&str> = parts.iter().map(|p| p.1.as_str()).collect();
        vec![
            format!("Out of sight: {}", long.join(" · ")),
            format!("Out of sight: {}", short.join(" · ")),
            short.join(" · "),
        ]
    };
    let ink = if leases > 0 { color(slot::ORANGE, theme.dark) } else { theme.fg };
    labels.place(fitting(labels, &texts, room), ink, [Spot { x: PAD, y: top + LABEL_Y }]);
    row_of_dots(ctx, theme, labels, &kinds, kinds.len(), top, room);
}

/// The consumers, a box each: the copy it works on and its step, or a cross while it restarts.
fn consumers<P: Pen>(ctx: &P, theme: &Theme, labels: &mut Labels<P>, m: &Moment, top: f64, room: f64) {
    let (busy, restarting) = (m.busy(), m.restarting());
    let mut texts = vec![format!("Consumers: {busy} busy"), format!("{busy} busy")];
    if restarting > 0 {
        texts.insert(0, format!("Consumers: {busy} busy, {restarting} crashed, restarting"));
        texts.insert(1, format!("Consumers: {busy} busy, {restarting} restarting"));
    }
    labels.place(fitting(labels, &texts, room), theme.fg, [Spot { x: PAD, y: top + LABEL_Y }]);
    let n = m.consumers.len().max(1);
    let box_w = ((room + 4.0) / n as f64 - 4.0).min(80.0);
    let y = top + 15.0;
    for (k, c) in m.consumers.iter().enumerate() {
        let x = PAD + k as f64 * (box_w + 4.0);
        ctx.set_stroke_style_str(theme.muted);
        ctx.set_line_width(1.0);
        ctx.stroke_rect(x + 0.5, y + 0.5, box_w - 1.0, CONSUMER_H - 1.0);
        match *c {
            ConsumerNow::Busy { cause, step, .. } => {
                let (tone, filled) = mark_of(cause);
                let at = (x + RADIUS + 4.0, y + CONSUMER_H / 2.0);
                dots(ctx, color(tone, theme.dark), std::iter::once(at), RADIUS, filled);
                let text = match step {
                    Step::Work => "work",
                    Step::Ack => "ack",
                    Step::Record => "record",
                };
                if labels.width_of(text) <= box_w - 2.0 * RADIUS - 10.0 {
                    labels.place(text, theme.muted, [Spot { x: x + 2.0 * RADIUS + 7.0, y: y + 13.0 }]);
                }
            }
            ConsumerNow::Restarting => cross(ctx, color(slot::RED, theme.dark), x + box_w / 2.0, y + CONSUMER_H / 2.0),
            ConsumerNow::Idle => {}
        }
    }
}

fn cross<P: Pen>(ctx: &P, ink: &str, x: f64, y: f64) {
    ctx.set_stroke_style_str(ink);
    ctx.set_line_width(2.0);
    ctx.begin_path();
    ctx.move_to(x - 4.0, y - 4.0);
    ctx.line_to(x + 4.0, y + 4.0);
    ctx.move_to(x + 4.0, y - 4.0);
    ctx.line_to(x - 4.0, y + 4.0);
    ctx.stroke();
    ctx.set_line_width(1.0);
}

/// The ledger: its balance against the expected one, "credited twice: N" in red, and a square
/// per event in event order, each double credit ringed in red where it landed.
fn ledger<P: Pen>(ctx: &P, theme: &Theme, labels: &mut Labels<P>, m: &Moment, top: f64, room: f64, h: f64) {
    let red = color(slot::RED, theme.dark);
    let twice = m.duplicated() as u64;
    let lost = m.lost() as u64;
    let mut headline =
        vec![format!("credited twice: {}", format::count(twice)), format!("twice: {}", format::count(twice))];
    if lost > 0 {
        headline = vec![
            format!("lost: {}, credited twice: {}", format::count(lost), format::count(twice)),
            format!("lost {}, twice {}", format::count(lost), format::count(twice)),
        ];
    }
    let bad = twice > 0 || lost > 0;
    let head = fitting(labels, &headline, room / 2.0).to_string();
    let head_w = labels.width_of(&head);
    labels.place(&head, if bad { red } else { theme.muted }, [Spot { x: PAD + room - head_w, y: top + LABEL_Y }]);
    let balance = format::count(m.ledger_balance.max(0) as u64);
    let expected = format::count(m.expected_balance.max(0) as u64);
    let texts =
        [format!("Ledger: ${balance} of ${expected} expected"), format!("Ledger: ${balance}"), format!("${balance}")];
    labels.place(fitting(labels, &texts, room - head_w - 12.0), theme.fg, [Spot { x: PAD, y: top + LABEL_Y }]);
    let grid_top = top + 17.0;
    entries(ctx, theme, m, PAD, grid_top, room, h - grid_top - 3.0);
}

/// A square per event, row by row, at the largest pitch at which they all fit.
fn entries<P: Pen>(ctx: &P, theme: &Theme, m: &Moment, x: f64, y: f64, w: f64, h: f64) {
    let n = m.ledger.len().max(1);
    let fits = |pitch: f64| ((w / pitch) as usize).max(1) * ((h / pitch) as usize) >= n;
    let mut pitch = ENTRY_MAX;
    while pitch > ENTRY_MIN && !fits(pitch) {
        pitch -= 0.5;
    }
    let cols = ((w / pitch) as usize).max(1);
    let side = if pitch >= 6.0 { pitch - 1.5 } else { pitch - 1.0 };
    let at = |k: usize| (x + (k % cols) as f64 * pitch, y + (k / cols) as f64 * pitch);
    for (kind, ink, filled) in [
        (Entry::Unpublished, theme.grid, false),
        (Entry::Uncredited, theme.muted, false),
        (Entry::Once, color(slot::GREEN, theme.dark), true),
        (Entry::Parked, color(slot::GRAY, theme.dark), true),
        (Entry::Lost, color(slot::RED, theme.dark), false),
        (Entry::Twice, color(slot::RED, theme.dark), true),
    ] {
        // A stroke is centred on the edge: inset by half a pixel it stays inside the square.
        let (inset, edge) = if filled { (0.0, side) } else { (0.5, side - 1.0) };
        ctx.begin_path();
        for (ex, ey) in m.ledger.iter().enumerate().filter(|(_, e)| **e == kind).map(|(k, _)| at(k)) {
            ctx.rect(ex + inset, ey + inset, edge, edge);
        }
        if filled {
            ctx.set_fill_style_str(ink);
            ctx.fill();
        } else {
            ctx.set_stroke_style_str(ink);
            ctx.stroke();
        }
    }
    // A double credit or a lost event is a square among hundreds: a ring finds it at any pitch.
    let ring = |k: usize| {
        let (ex, ey) = at(k);
        (ex + side / 2.0, ey + side / 2.0)
    };
    let wrong =
        m.ledger.iter().enumerate().filter(|(_, e)| matches!(e, Entry::Twice | Entry::Lost)).map(|(k, _)| ring(k));
    dots(ctx, color(slot::RED, theme.dark), wrong, side / 2.0 + 3.0, false);
}

//! One purchase on the timeline: the page, the helper's attempts (a row per click), the server's
//! runs and the card's charges as lanes; requests and answers as links. The page draws it with
//! the ghost of the run before the reader's last change; `resilience-lab figure` without.

use super::Ghost;
use super::slot::{self, GRAY, GREEN, ORANGE, PINK, RED};
use super::timeline::{At, Bar, Key, Lane, LegendItem, Link, Mark, Shape, Span, TimelineData};
use crate::scenarios::double_click::{
    AttemptOutcome, BuyerOutcome, ClickEffect, DoubleClick, DoubleClickConfig, DoubleClickMetrics, Fix, ServerResult,
    Timeline as Records,
};
use crate::sim::{Host, Micros, Model, Simulation};

// Blue and purple for the two clicks; the other colours mark outcomes.
const CLICK_COLORS: [usize; 2] = [slot::BLUE, slot::PURPLE];
const PAGE: usize = 0;
const HELPER: usize = 1;
const SERVER: usize = 2;
const CARD: usize = 3;

fn click_color(click: usize) -> usize {
    CLICK_COLORS[click.min(1)]
}

fn outcome_color(o: AttemptOutcome) -> usize {
    match o {
        AttemptOutcome::Pending | AttemptOutcome::Aborted => GRAY,
        AttemptOutcome::Timeout | AttemptOutcome::Reset | AttemptOutcome::ServerError => RED,
        AttemptOutcome::Conflict => ORANGE,
        AttemptOutcome::Ok { .. } => GREEN,
        AttemptOutcome::Rejected => PINK,
    }
}

fn ms(t: Micros) -> f64 {
    t as f64 / 1000.0
}

/// Server rows: each request goes in the first row free at its arrival.
fn server_rows(t: &Records) -> Vec<usize> {
    let mut ends: Vec<Micros> = Vec::new();
    t.server
        .iter()
        .map(|s| {
            let end = s.end.unwrap_or(Micros::MAX);
            match ends.iter().position(|&e| e <= s.arrived) {
                Some(r) => {
                    ends[r] = end;
                    r
                }
                None => {
                    ends.push(end);
                    ends.len() - 1
                }
            }
        })
        .collect()
}

/// What the timeline keeps still while the run plays: the time axis, from the settings (the
/// latest moment any fix, or any of the figure's presets, can reach: switching between them
/// does not rescale it), and the rows, from this run played to its end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extent {
    x_max_ms: f64,
    clicks: usize,
    server_rows: usize,
    /// The recovery job settles an order in this run: the card lane gets its row.
    recovery: bool,
}

/// Up to the next half second after `reach_ms`, with a little room for the last labels.
fn axis_end(reach_ms: f64) -> f64 {
    libm::ceil((reach_ms * 1.04 + 100.0) / 500.0) * 500.0
}

/// `reach_ms`: the latest moment the runs compared on this axis can reach.
pub fn extent(config: DoubleClickConfig, seed: u64, end: Micros, reach_ms: f64) -> Extent {
    let mut sim = Host::<DoubleClick>::start(config, seed, end);
    sim.run_to_end();
    let t = sim.timeline();
    Extent {
        x_max_ms: axis_end(reach_ms),
        clicks: t.clicks.len().max(1),
        server_rows: server_rows(&t).iter().max().map_or(1, |m| m + 1),
        recovery: !t.recoveries.is_empty(),
    }
}

/// What the ghost keeps of an earlier run: its fix, its charges and the counts `run --json`
/// gives for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    fix: Fix,
    /// When each charge committed (ms), by its id.
    ledger: Vec<(f64, u32)>,
    metrics: DoubleClickMetrics,
}

impl Trace {
    /// What its buyer saw against what its card shows.
    pub fn summary(&self) -> &str {
        &self.metrics.summary
    }
}

pub fn trace(run: &Host<DoubleClick>) -> Trace {
    let ledger = run.timeline().ledger.iter().map(|c| (ms(c.at), c.id)).collect();
    Trace { fix: run.config().fix, ledger, metrics: run.metrics_now() }
}

/// `data-ghost`: the ghost's name and its numbers, named as `run double-click --json` names them.
pub fn ghost_json(g: &Ghost<Trace>) -> String {
    let m = &g.trace.metrics;
    format!(
        "{{\"label\":\"{}\",\"fix\":\"{}\",\"charges\":{},\"card_charged\":{},\"client_outcome\":\"{}\",\"server_requests\":{},\"timeouts_seen\":{}}}",
        g.label.replace('"', "'"),
        g.trace.fix.id(),
        m.charges,
        m.card_charged,
        m.client_outcome,
        m.server_requests,
        m.timeouts_seen
    )
}

/// The ghost on the card's ledger: its charges as faded rings, named by its fix when this run's
/// differs ("before: None, 3 charges").
fn ghost_on_ledger(g: &Ghost<Trace>, fix: Fix) -> super::timeline::Ghost {
    let marks = g
        .trace
        .ledger
        .iter()
        .map(|&(at, id)| Mark { row: 0, at, color: charge_color(id), shape: Shape::Ring, label: String::new() })
        .collect();
    let name = if g.trace.fix != fix { g.trace.fix.label() } else { "before your change" };
    let n = g.trace.metrics.card_charged;
    let label = format!("rings: {name}, {n} {}", if n == 1 { "charge" } else { "charges" });
    super::timeline::Ghost { marks, label }
}

fn charge_color(id: u32) -> usize {
    if id == 1 { GREEN } else { RED }
}

pub fn data(sim: &Host<DoubleClick>, ext: Extent, ghost: Option<&Ghost<Trace>>) -> TimelineData {
    let t = sim.timeline();
    let now = sim.now();
    let rows = server_rows(&t);
    let mut links = Vec::new();
    let (page, spans) = page_lane(&t, now);
    let helper = helper_lane(&t, ext, now);
    let server = server_lane(&t, &rows, ext, now, sim.config().network_ms, &mut links);
    let mut card = card_lane(&t, &rows, ext, now, &mut links);
    card.ghost = ghost.map(|g| ghost_on_ledger(g, sim.config().fix));
    // Longer when the ghost came from settings that ran later, so its every charge shows.
    let ghost_end = ghost.and_then(|g| g.trace.ledger.last()).map_or(0.0, |&(t, _)| axis_end(t));
    TimelineData {
        x_range: (0.0, ext.x_max_ms.max(ghost_end)),
        lanes: vec![page, helper, server, card],
        links,
        spans,
        now: Some(ms(now)),
        legend: legend(ext, !t.disabled.is_empty()),
        log_from: None,
    }
}

fn page_lane(t: &Records, now: Micros) -> (Lane, Vec<Span>) {
    let mut spans = Vec::new();
    for d in t.disabled {
        let until = ms(d.until.unwrap_or(now));
        spans.push(Span {
            lane: Some(PAGE),
            from: ms(d.from),
            to: until,
            color: GRAY,
            label: "button disabled".into(),
        });
    }
    // "Processing…": from a click's first 409 until the page tells the buyer how it ended.
    for c in t.clicks {
        if let Some(from) = c.processing_from {
            let to = ms(c.finished_at.filter(|_| c.outcome != BuyerOutcome::Processing).unwrap_or(now));
            spans.push(Span {
                lane: Some(PAGE),
                from: ms(from),
                to,
                color: ORANGE,
                label: "processing\u{2026}".into(),
            });
        }
    }
    if let Some(paid) = t.clicks.iter().filter(|c| c.outcome == BuyerOutcome::Paid).find_map(|c| c.finished_at) {
        spans.push(Span { lane: Some(PAGE), from: ms(paid), to: ms(now), color: GREEN, label: "receipt shown".into() });
    }
    let mut marks = Vec::new();
    for (i, c) in t.clicks.iter().enumerate() {
        let (color, label) = match c.effect {
            ClickEffect::Started => (click_color(i), format!("click {}", i + 1)),
            _ => (GRAY, format!("click {}: ignored", i + 1)),
        };
        marks.push(Mark { row: 0, at: ms(c.at), color, shape: Shape::Triangle, label });
        let Some(done) = c.finished_at else { continue };
        let (color, label) = match c.outcome {
            BuyerOutcome::Paid => (GREEN, "\u{201c}paid\u{201d}"),
            BuyerOutcome::Failed => (RED, "\u{201c}payment failed\u{201d}"),
            BuyerOutcome::Processing => (ORANGE, "\u{201c}processing\u{201d}"),
            BuyerOutcome::Rejected => (PINK, "error"),
            _ => continue,
        };
        marks.push(Mark { row: 0, at: ms(done), color, shape: Shape::Diamond, label: label.into() });
    }
    (Lane { label: "Page".into(), rows: vec!["button".into()], marks, ..Default::default() }, spans)
}

fn helper_lane(t: &Records, ext: Extent, now: Micros) -> Lane {
    let mut lane = Lane {
        label: "Helper".into(),
        rows: (0..ext.clicks.max(t.clicks.len()).max(1)).map(|i| format!("click {}", i + 1)).collect(),
        ..Default::default()
    };
    for (i, c) in t.clicks.iter().enumerate().filter(|(_, c)| c.effect != ClickEffect::Started) {
        let why =
            if c.effect == ClickEffect::IgnoredDisabled { "nothing sent: disabled" } else { "nothing sent: paid" };
        lane.marks.push(Mark { row: i, at: ms(c.at), color: GRAY, shape: Shape::Ring, label: why.into() });
    }
    for a in t.attempts {
        lane.bars.push(Bar {
            row: a.click,
            from: ms(a.start),
            to: ms(a.end.unwrap_or(now)),
            open: a.end.is_none(),
            color: click_color(a.click),
            label: format!("attempt {}", a.number),
            end: a.end.map(|_| (a.outcome.label(), outcome_color(a.outcome))),
            ..Default::default()
        });
    }
    lane
}

fn server_lane(t: &Records, rows: &[usize], ext: Extent, now: Micros, network_ms: f64, links: &mut Vec<Link>) -> Lane {
    let row_count = ext.server_rows.max(rows.iter().max().map_or(1, |m| m + 1));
    let mut lane = Lane { label: "Server".into(), rows: vec![String::new(); row_count], ..Default::default() };
    for (i, s) in t.server.iter().enumerate() {
        let row = rows[i];
        let a = &t.attempts[s.attempt];
        links.push(Link {
            from: At { lane: HELPER, row: a.click, t: ms(a.start) },
            to: At { lane: SERVER, row, t: ms(s.arrived) },
            color: click_color(a.click),
            dashed: false,
            cross: false,
            label: String::new(),
        });
        let answered_at = s.waited_until.unwrap_or(s.arrived);
        let dot = |color: usize, label: String| Mark { row, at: ms(answered_at), color, shape: Shape::Dot, label };
        if s.result == ServerResult::Waiting || s.waited_until.is_some() {
            lane.bars.push(Bar {
                row,
                from: ms(s.arrived),
                to: ms(s.waited_until.unwrap_or(now)),
                open: s.waited_until.is_none(),
                color: click_color(a.click),
                label: "waits for the key".into(),
                ..Default::default()
            });
        }
        match s.result {
            ServerResult::Running | ServerResult::Charged { .. } => {
                let end = match s.result {
                    ServerResult::Charged { charge } => {
                        let what = match (s.rolled_back, s.crashed) {
                            (true, _) => format!("ch_{charge}, then rollback"),
                            (false, true) => format!("commit ch_{charge}, then crash"),
                            (false, false) => format!("commit ch_{charge}"),
                        };
                        Some((what, if charge == 1 { GREEN } else { RED }))
                    }
                    _ => None,
                };
                lane.bars.push(Bar {
                    row,
                    from: ms(s.arrived),
                    to: ms(s.end.unwrap_or(now)),
                    open: s.end.is_none(),
                    color: click_color(a.click),
                    label: "charging".into(),
                    end,
                    ..Default::default()
                });
            }
            ServerResult::Conflict => lane.marks.push(dot(ORANGE, "409".into())),
            ServerResult::Replayed { charge } => lane.marks.push(dot(GREEN, format!("replay ch_{charge}"))),
            ServerResult::Rejected => lane.marks.push(dot(PINK, "422".into())),
            ServerResult::Waiting => {}
        }
        // The answer on its way back: to the attempt that waits for it, or to nobody.
        let Some(e) = s.end else { continue };
        let back = ms(e) + network_ms;
        if back <= ms(now) {
            let dropped = matches!(a.outcome, AttemptOutcome::Timeout | AttemptOutcome::Aborted);
            links.push(Link {
                from: At { lane: SERVER, row, t: ms(e) },
                to: At { lane: HELPER, row: a.click, t: back },
                color: if dropped { GRAY } else { outcome_color(a.outcome) },
                dashed: dropped,
                cross: dropped,
                label: String::new(),
            });
        }
    }
    lane
}

fn card_lane(t: &Records, rows: &[usize], ext: Extent, now: Micros, links: &mut Vec<Link>) -> Lane {
    let mut lane = Lane { label: "Card".into(), rows: vec!["ledger".into()], ..Default::default() };
    if ext.recovery || !t.recoveries.is_empty() {
        lane.rows.push("recovery job".into());
    }
    // The recovery job's provider calls, each ending in what the provider answered.
    for r in t.recoveries {
        let end = r.charge.map(|c| {
            if r.new_charge {
                (format!("charged again: ch_{c}"), RED)
            } else {
                (format!("ch_{c}, no new charge"), GREEN)
            }
        });
        lane.bars.push(Bar {
            row: 1,
            from: ms(r.start),
            to: ms(r.end.unwrap_or(now)),
            open: r.end.is_none(),
            color: ORANGE,
            label: format!("recovery: {}", r.provider_key.label()),
            end,
            ..Default::default()
        });
    }
    for c in t.ledger {
        let color = charge_color(c.id);
        let label = format!("ch_{}", c.id);
        lane.marks.push(Mark { row: 0, at: ms(c.at), color, shape: Shape::Dot, label });
        let from = if c.by_recovery {
            At { lane: CARD, row: 1, t: ms(c.at) }
        } else {
            At { lane: SERVER, row: rows[c.server], t: ms(c.at) }
        };
        links.push(Link {
            from,
            to: At { lane: CARD, row: 0, t: ms(c.at) },
            color,
            dashed: false,
            cross: false,
            label: String::new(),
        });
    }
    lane
}

fn legend(ext: Extent, disabled: bool) -> Vec<LegendItem> {
    let item = |label: &str, color: usize, key: Key| LegendItem { label: label.into(), color, key };
    let mut items = vec![item("click 1's requests", click_color(0), Key::Fill(Default::default()))];
    if ext.clicks > 1 {
        items.push(item("click 2's requests", click_color(1), Key::Fill(Default::default())));
    }
    items.extend([
        item("a click", GRAY, Key::Shape(Shape::Triangle)),
        item("what the page tells the buyer", GRAY, Key::Shape(Shape::Diamond)),
        item("an answer nobody waits for any more", GRAY, Key::Link { dashed: true, cross: true }),
    ]);
    if disabled {
        items.push(item("the button disabled", GRAY, Key::Span));
    }
    if ext.recovery {
        items.push(item("the recovery job's call to the provider", ORANGE, Key::Fill(Default::default())));
    }
    items
}

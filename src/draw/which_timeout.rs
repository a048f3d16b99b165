//! which-timeout's headline. The call on the timeline: its phases as bars, each armed timer as
//! a meter counting to its deadline with its lateness after it, and the server: when the
//! request reached its code, its work, and when it saw the connection close. With a failover
//! (Chapter 1, Break 5), its calls on a chart instead: the line of calls waiting for a
//! connection climbs while the pool's connections hang on the old address, and the answered
//! calls climb once connects reach the new one.

use super::chart::{ChartData, Line};
use super::slot;
use super::timeline::{Bar, Fill, Key, Lane, LegendItem, Mark, Meter, Shape, TimelineData};
use crate::format;
use crate::scenarios::which_timeout::{ArmedTimer, FleetSample, Phase, TimerKind, WhichTimeout};
use crate::sim::{Host, Micros, Simulation};

// What each colour means on the timeline and the failover's chart.
const PHASE: usize = slot::BLUE;
const WAITING: usize = slot::GRAY;
const BAD: usize = slot::RED;
const GOOD: usize = slot::GREEN;
const TIMER: usize = slot::PURPLE;
const SERVER: usize = slot::TEAL;
const IN_LINE: usize = slot::ORANGE;

fn ms(t: Micros) -> f64 {
    t as f64 / 1000.0
}

/// From this run length on, the axis is logarithmic from 1 ms: a 2 ms DNS lookup and a 300 s
/// headers timeout are then both legible (on a linear axis the first is a hair at 0).
const LOG_AXIS_FROM: Micros = 10_000_000;

/// The timeline at the run's current time, over the whole run.
pub fn data(s: &Host<WhichTimeout>) -> TimelineData {
    let now = s.now();
    TimelineData {
        x_range: (0.0, ms(s.end())),
        log_from: (s.end() >= LOG_AXIS_FROM).then_some(1.0),
        lanes: vec![call_lane(s, now), timer_lane(s, now), server_lane(s, now)],
        links: Vec::new(),
        spans: Vec::new(),
        now: Some(ms(now)),
        legend: legend(),
    }
}

/// A short name for a phase inside its bar.
fn short(phase: Phase) -> &'static str {
    match phase {
        Phase::Pool => "pool",
        Phase::Dns => "DNS",
        Phase::Connect => "connect",
        Phase::Tls => "TLS",
        Phase::Ttfb => "first byte",
        Phase::Body => "body",
        Phase::Done => "done",
    }
}

fn call_lane(s: &WhichTimeout, now: Micros) -> Lane {
    let mut lane = Lane { label: "Call".into(), rows: vec![String::new()], lines_below: 1, ..Default::default() };
    for span in s.phases().iter().filter(|p| p.phase != Phase::Done) {
        let end = span.end.unwrap_or(now);
        // Waiting in the pool happens inside the process: drawn as waiting, not as the network's work.
        let (color, fill) = if span.phase == Phase::Pool { (WAITING, Fill::Outline) } else { (PHASE, Fill::Solid) };
        lane.bars.push(Bar {
            from: ms(span.start),
            to: ms(end),
            color,
            fill,
            open: span.end.is_none(),
            label: short(span.phase).into(),
            ..Default::default()
        });
    }
    if let Some(at) = s.error_seen_at() {
        let label = format!("{} at {}", s.error_id(), format::us_as_ms(at));
        lane.marks.push(Mark { row: 0, at: ms(at), color: BAD, shape: Shape::Cross, label });
    }
    if let Some(at) = s.completed_at() {
        let label = format!("complete at {}", format::us_as_ms(at));
        lane.marks.push(Mark { row: 0, at: ms(at), color: GOOD, shape: Shape::Dot, label });
    }
    lane
}

/// One row per armed timer, in the order armed, then a line per timer set to 0 ("off").
fn timer_lane(s: &WhichTimeout, now: Micros) -> Lane {
    let timers = s.timers();
    let mut lane = Lane {
        label: "Timers".into(),
        rows: timers.iter().map(|t| row_name(t.kind).to_string()).collect(),
        lines_below: 1,
        ..Default::default()
    };
    for (row, t) in timers.iter().enumerate() {
        timer_row(&mut lane, row, t, now);
    }
    // A timer set to 0 is off: named on a short line of its own, with nothing counting.
    lane.notes = s.timers_off().map(|k| format!("{} off", row_name(k))).collect();
    if lane.rows.is_empty() && lane.notes.is_empty() {
        lane.rows.push("none".into());
    }
    lane
}

fn row_name(kind: TimerKind) -> &'static str {
    match kind {
        TimerKind::Total => "total",
        TimerKind::Connect => "connect",
        TimerKind::Headers => "headers",
        TimerKind::Body => "body",
        TimerKind::HttpIdle => "timeout",
        TimerKind::OsConnect => "OS",
    }
}

/// A timer's countdown (from its last reset) to its deadline, then how late it fired.
fn timer_row(lane: &mut Lane, row: usize, t: &ArmedTimer, now: Micros) {
    let deadline = t.fired_deadline.unwrap_or_else(|| t.deadline());
    let from = t.counting_from.min(deadline.saturating_sub(t.timeout));
    let ended = t.fired_at.or(t.cleared_at).filter(|&e| e <= now);
    // A timer cleared before its deadline stops there: no outline counting on to a deadline
    // it will never reach.
    let cleared = t.cleared_at.filter(|&c| c <= now && t.fired_at.is_none());
    lane.meters.push(Meter {
        row,
        from: ms(from),
        to: ms(cleared.unwrap_or(deadline)),
        color: TIMER,
        label: row_name(t.kind).into(),
        ended: ended.map(ms),
    });
    if let Some(c) = cleared {
        let label = format!("cleared at {}", format::us_as_ms(c));
        lane.marks.push(Mark { row, at: ms(c), color: TIMER, shape: Shape::Dot, label });
        return;
    }
    let Some(fired) = t.fired_at.filter(|&f| f <= now) else { return };
    if fired > deadline {
        let late = format!("+{} late", format::us_as_ms(fired - deadline));
        lane.bars.push(Bar {
            row,
            from: ms(deadline),
            to: ms(fired),
            color: BAD,
            fill: Fill::Hatched,
            end: Some((late, BAD)),
            ..Default::default()
        });
    }
    let what = if t.ended_call { "fires" } else { "fires, ends nothing" };
    let label = format!("{what} at {}", format::us_as_ms(fired));
    let color = if t.ended_call { BAD } else { TIMER };
    lane.marks.push(Mark { row, at: ms(fired), color, shape: Shape::Cross, label });
}

fn server_lane(s: &WhichTimeout, now: Micros) -> Lane {
    let mut lane = Lane { label: "Server".into(), rows: vec![String::new()], lines_below: 1, ..Default::default() };
    let Some(arrived) = s.request_arrived_at().filter(|&a| a <= now) else { return lane };
    if let Some(done) = s.server_done_at() {
        lane.bars.push(Bar {
            from: ms(arrived),
            to: ms(done.min(now)),
            color: SERVER,
            open: done > now,
            label: "handler".into(),
            ..Default::default()
        });
    }
    let label = format!("request in its code at {}", format::us_as_ms(arrived));
    lane.marks.push(Mark { row: 0, at: ms(arrived), color: SERVER, shape: Shape::Dot, label });
    if let Some(close) = s.server_saw_close_at().filter(|&c| c <= now) {
        let label = format!("sees the close at {}", format::us_as_ms(close));
        lane.marks.push(Mark { row: 0, at: ms(close), color: WAITING, shape: Shape::Ring, label });
    }
    lane
}

fn legend() -> Vec<LegendItem> {
    let item = |label: &str, color, key| LegendItem { label: label.into(), color, key };
    vec![
        item("phase of the call", PHASE, Key::Fill(Fill::Solid)),
        item("waiting for a connection", WAITING, Key::Fill(Fill::Outline)),
        item("timer counting to its deadline", TIMER, Key::Meter),
        item("fired late", BAD, Key::Fill(Fill::Hatched)),
        item("timer fires", BAD, Key::Shape(Shape::Cross)),
        item("timer cleared", TIMER, Key::Shape(Shape::Dot)),
        item("server's handler", SERVER, Key::Fill(Fill::Solid)),
    ]
}

/// The failover's calls over the whole run, up to now: waiting for a connection, answered and,
/// if any, failed; when the pool filled and when the name changed; the pool's size.
pub fn failover(s: &Host<WhichTimeout>) -> ChartData {
    let f = s.failover();
    let (points, now) = (f.samples(), f.state());
    // The series' points, then the state now: the line ends where the cards are.
    let line = |label: &str, color: usize, pick: fn(&FleetSample) -> f64| {
        let mut l = Line::of(points, label, color, pick);
        l.xs.push(ms(s.now()));
        l.ys.push(pick(&now));
        l
    };
    let mut lines =
        vec![line("Waiting for a connection", IN_LINE, |r| r.waiting), line("Answered", GOOD, |r| r.answered)];
    if f.failed > 0 {
        lines.push(line("Failed", BAD, |r| r.failed));
    }
    let mut markers = Vec::new();
    if let Some(full) = f.pool_full_at {
        markers.push((ms(full), format!("pool full at {}", format::us_as_ms(full))));
    }
    if f.re_resolves() {
        markers.push((ms(f.dns_switch()), "DNS gives the new address".to_string()));
    }
    ChartData {
        x_range: (0.0, ms(s.end())),
        y_unit: "calls",
        lines,
        markers,
        hlines: vec![(f.pool_size() as f64, format!("pool of {}", f.pool_size()))],
        y_min_max: 10.0,
        ..Default::default()
    }
}

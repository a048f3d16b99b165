//! One request through the deadline chain on the timeline: the user and the three hops as
//! lanes, their work and waiting as bars, budgets and timeouts as meters, the messages as links
//! between lanes. The page draws it, and `resilience-lab figure` (over the whole run).

use super::slot;
use super::timeline::{At, Bar, Fill, Key, Lane, LegendItem, Link, Mark, Meter, Shape, Span, TimelineData};
use crate::format;
use crate::scenarios::deadline_chain::{
    DeadlineChain, DeadlineChainConfig, HOPS, Lane as Hop, MarkKind, MsgKind, Party, StoppedWaiting, WorkOutcome,
    after_shown, kept_working_past_deadline,
};
use crate::sim::{Host, Micros, Simulation};

// What each colour means on this timeline.
const WORK: usize = slot::BLUE;
const BAD: usize = slot::RED;
const GOOD: usize = slot::GREEN;
const TIMER: usize = slot::PURPLE;
const USER_BUDGET: usize = slot::ORANGE;
const BUDGET: usize = slot::TEAL;
const MUTED: usize = slot::GRAY;
const C: usize = HOPS - 1;
/// How much the zoom shows: the end of the user's wait and the chain unwinding.
const ZOOM_MS: f64 = 170.0;

fn ms(t: Micros) -> f64 {
    t as f64 / 1000.0
}

fn when(t: Micros) -> String {
    format::us_as_ms(t)
}

/// The lane of a party: the user on top, then A, B, C.
fn lane_of(p: Party) -> usize {
    match p {
        Party::User => 0,
        Party::Hop(h) => h + 1,
    }
}

/// When a hop stopped waiting for its callee (now, if it still is).
fn wait_end(hop: &Hop, now: Micros) -> Micros {
    hop.gave_up
        .map(|g| g.0)
        .or_else(|| hop.marks().iter().find(|m| m.kind == MarkKind::CallAnswered).map(|m| m.t))
        .unwrap_or(now)
}

/// When a hop finished with the request: it answered, gave up, stopped or failed fast.
fn hop_done(hop: &Hop) -> Option<Micros> {
    hop.answered
        .map(|a| a.at)
        .or(hop.gave_up.map(|g| g.0))
        .or(match hop.work_outcome {
            Some(WorkOutcome::Stopped(_)) => hop.work_end,
            _ => None,
        })
        .or(hop.failed_fast)
}

/// The zoomed window: the 170 ms around the moment the user stopped waiting in this run
/// played to its end.
pub fn unwind_window(config: DeadlineChainConfig, seed: u64, end: Micros) -> (f64, f64) {
    let budget = config.user_budget_ms;
    let mut run = Host::<DeadlineChain>::start(config, seed, end);
    run.run_to_end();
    let end_ms = ms(end);
    let stopped = run.user_stopped_waiting(end).map_or(budget, |s| ms(s.0));
    let from = (libm::floor((stopped - 110.0) / 10.0) * 10.0).clamp(0.0, (end_ms - ZOOM_MS).max(0.0));
    (from, (from + ZOOM_MS).min(end_ms))
}

/// "1,850 to 2,020 ms".
pub fn window_words((a, b): (f64, f64)) -> String {
    format!("{} to {}", format::count(a as u64), format::ms(b))
}

/// The timeline at the run's current time, over `0..whole_ms` or `zoom`.
pub fn data(s: &Host<DeadlineChain>, whole_ms: f64, zoom: Option<(f64, f64)>) -> TimelineData {
    let now = s.now();
    let mut lanes = vec![user_lane(s, now)];
    lanes.extend(s.lanes().iter().enumerate().map(|(h, hop)| hop_lane(s, h, hop, now)));
    let spans = s
        .user_stopped_waiting(now)
        .map(|(t, why)| {
            let label = match why {
                StoppedWaiting::Answered => "after the user's answer",
                StoppedWaiting::BrowserGaveUp => "after the browser gave up",
                StoppedWaiting::BudgetRanOut => "after the user's budget ran out",
            };
            vec![Span { lane: None, from: ms(t), to: ms(s.end()), color: BAD, label: label.into() }]
        })
        .unwrap_or_default();
    TimelineData {
        x_range: zoom.unwrap_or((0.0, whole_ms)),
        lanes,
        links: links(s),
        spans,
        now: Some(ms(now)),
        legend: legend(s),
        log_from: None,
    }
}

fn user_lane(s: &DeadlineChain, now: Micros) -> Lane {
    let user = s.user();
    let end = user.answer.map(|a| a.received).or(user.gave_up).unwrap_or(now);
    let mut lane = Lane { label: "User".into(), rows: vec![String::new()], lines_below: 1, ..Default::default() };
    lane.bars.push(Bar {
        from: 0.0,
        to: ms(end),
        color: MUTED,
        fill: Fill::Outline,
        label: "waiting".into(),
        ..Default::default()
    });
    lane.meters.push(Meter {
        row: 0,
        from: 0.0,
        to: s.user_budget_ms() as f64,
        color: USER_BUDGET,
        label: "user's budget".into(),
        ended: s.user_stopped_waiting(now).map(|w| ms(w.0)),
    });
    if let Some(a) = user.answer {
        let color = if a.status == 200 { GOOD } else { BAD };
        let label = format!("gets {} at {}", a.status, when(a.received));
        lane.marks.push(Mark { row: 0, at: ms(a.received), color, shape: Shape::Dot, label });
    }
    if let Some(g) = user.gave_up {
        let label = format!("browser gives up {}", when(g));
        lane.marks.push(Mark { row: 0, at: ms(g), color: BAD, shape: Shape::Cross, label });
    }
    lane
}

fn hop_lane(s: &DeadlineChain, h: usize, hop: &Hop, now: Micros) -> Lane {
    let mut lane =
        Lane { label: hop.name.to_string(), rows: vec![String::new()], lines_below: 2, ..Default::default() };
    if let Some((a, b)) = hop.work_interval(now) {
        lane.bars.push(Bar { from: ms(a), to: ms(b), color: WORK, label: "work".into(), ..Default::default() });
    }
    if let Some(sent) = hop.call_sent {
        let label = format!("waiting for {}", Party::Hop(h + 1).name());
        lane.bars.push(Bar {
            from: ms(sent),
            to: ms(wait_end(hop, now)),
            color: MUTED,
            fill: Fill::Outline,
            label,
            ..Default::default()
        });
    }
    if let Some((a, b)) = s.wasted_intervals(now)[h] {
        lane.bars.push(Bar { from: ms(a), to: ms(b), color: BAD, fill: Fill::Hatched, ..Default::default() });
    }
    lane.meters.extend(meter(s, hop, now));
    lane.marks = marks(s, h, hop, now);
    lane
}

/// The budget left to the hop's deadline (propagated), or the time left on its call's
/// timeout (fixed).
fn meter(s: &DeadlineChain, hop: &Hop, now: Micros) -> Option<Meter> {
    if s.propagated() {
        let ended = hop_done(hop).map(ms);
        hop.deadline_ms.zip(hop.received).map(|(d, r)| Meter {
            row: 0,
            from: ms(r),
            to: d as f64,
            color: BUDGET,
            label: "budget".into(),
            ended,
        })
    } else {
        let ended = hop.call_sent.and(hop_done(hop)).map(|_| ms(wait_end(hop, now)));
        hop.call_sent.zip(hop.call_timeout).map(|(c, t)| Meter {
            row: 0,
            from: ms(c),
            to: ms(c + t),
            color: TIMER,
            label: "timeout".into(),
            ended,
        })
    }
}

fn marks(s: &DeadlineChain, h: usize, hop: &Hop, now: Micros) -> Vec<Mark> {
    let mark = |t: Micros, label: String, color: usize, shape: Shape| Mark { row: 0, at: ms(t), color, shape, label };
    let mut marks = Vec::new();
    if let Some((t, why)) = hop.gave_up {
        marks.push(mark(t, format!("gives up {} ({})", when(t), why.label()), BAD, Shape::Cross));
    }
    if let (Some(WorkOutcome::Stopped(why)), Some(t)) = (hop.work_outcome, hop.work_end) {
        marks.push(mark(t, format!("stopped {} ({})", when(t), why.label()), GOOD, Shape::Cross));
    }
    if let Some(t) = hop.failed_fast {
        marks.push(mark(t, format!("fails fast {}", when(t)), BAD, Shape::Cross));
    }
    if h == C
        && let (Some(WorkOutcome::Finished), Some(t)) = (hop.work_outcome, hop.work_end)
    {
        let for_nobody = s.user_stopped_waiting(now).is_some_and(|w| after_shown(w.0, t));
        let label = format!("commits {}{}", when(t), if for_nobody { ", for nobody" } else { "" });
        marks.push(mark(t, label, if for_nobody { BAD } else { GOOD }, Shape::Tick));
    }
    if kept_working_past_deadline(hop)
        && let Some(t) = hop.deadline_passed
    {
        marks.push(mark(t, "deadline passes, keeps working".into(), USER_BUDGET, Shape::Tick));
    }
    if let Some(t) = hop.caller_left_noticed {
        let label = if s.listens_for_close() { "caller left" } else { "caller left, ignored" };
        marks.push(mark(t, label.into(), MUTED, Shape::Dot));
    }
    marks
}

/// The messages, in the order their labels matter most: budgets, answers, hang-ups, calls.
fn links(s: &DeadlineChain) -> Vec<Link> {
    let links: Vec<(u8, Link)> = s
        .messages()
        .iter()
        .map(|m| {
            let (rank, label, color, dashed) = match m.kind {
                MsgKind::Request { header_ms: Some(v) } => (0, format!("x-request-timeout-ms: {v}"), WORK, false),
                MsgKind::Request { header_ms: None } => (3, "request".to_string(), WORK, false),
                MsgKind::Response { status, origin } => {
                    let from = if origin != m.from { format!(" from {}", origin.name()) } else { String::new() };
                    let nobody = m.heard == Some(false);
                    let color = if nobody {
                        MUTED
                    } else if status == 200 {
                        GOOD
                    } else {
                        BAD
                    };
                    (1, format!("{status}{from}{}", if nobody { ", for nobody" } else { "" }), color, nobody)
                }
                MsgKind::Close => (2, "hangs up".to_string(), MUTED, true),
            };
            let (from, to) = (lane_of(m.from), lane_of(m.to));
            let link = Link {
                from: At { lane: from, row: 0, t: ms(m.sent) },
                to: At { lane: to, row: 0, t: ms(m.delivered) },
                color,
                dashed,
                cross: false,
                label,
            };
            (rank, link)
        })
        .collect();
    // By rank, in the order sent within a rank.
    (0..4).flat_map(|r| links.iter().filter(move |(rank, _)| *rank == r).map(|(_, l)| l.clone())).collect()
}

fn legend(s: &DeadlineChain) -> Vec<LegendItem> {
    let item = |label: String, color: usize, key: Key| LegendItem { label, color, key };
    let meter = if s.propagated() {
        item("budget left, to the hop's deadline".into(), BUDGET, Key::Meter)
    } else {
        item("time left on the call's timeout".into(), TIMER, Key::Meter)
    };
    vec![
        item("work".into(), WORK, Key::Fill(Fill::Solid)),
        item("waiting for the next hop".into(), MUTED, Key::Fill(Fill::Outline)),
        meter,
        item(format!("the user's {}", format::duration_ms(s.user_budget_ms() as f64)), USER_BUDGET, Key::Meter),
        item("work for nobody (after the user stopped waiting)".into(), BAD, Key::Fill(Fill::Hatched)),
        item(
            "message; dashed: a hang-up or an answer nobody hears".into(),
            MUTED,
            Key::Link { dashed: false, cross: false },
        ),
    ]
}

//! Two requests on the kit's timeline, from their arrival: the slowest answered so far and the
//! latest. One row per call (the first four), one bar per attempt, the dependency's work after
//! the caller gave up hatched, and the route's budget running out on the first row.

use crate::format;
use crate::scenarios::choosing_numbers::{AttemptEnd, ChoosingNumbers, RequestRecord, RouteOutcome};
use crate::sim::{Host, Micros};
use crate::ui::kit::chart::slot;
use crate::draw::timeline::{Bar, Fill, Key, Lane, LegendItem, Mark, Meter, Shape, TimelineData};

const ANSWERED: usize = slot::BLUE;
const TIMED_OUT: usize = slot::RED;
const NO_CONNECTION: usize = slot::ORANGE;
const CUT: usize = slot::GRAY;
const BUDGET: usize = slot::TEAL;
const GOOD: usize = slot::GREEN;

fn ms(t: Micros) -> f64 {
    t as f64 / 1000.0
}

fn attempt_bar(row: usize, i: usize, a: &crate::scenarios::choosing_numbers::AttemptRecord) -> Bar {
    let (color, fill, end) = match a.outcome {
        AttemptEnd::Answered => (ANSWERED, Fill::Solid, None),
        AttemptEnd::TimedOut => (TIMED_OUT, Fill::Outline, Some("timed out")),
        AttemptEnd::ConnectFailed => (NO_CONNECTION, Fill::Outline, Some("no connection")),
        AttemptEnd::Cut | AttemptEnd::Open => (CUT, Fill::Outline, Some("cut")),
    };
    Bar {
        row,
        from: ms(a.start),
        to: ms(a.end),
        color,
        fill,
        open: false,
        label: format!("#{}", i + 1),
        end: end.map(|e| (e.to_string(), color)),
    }
}

fn lane(name: &str, r: &RequestRecord) -> Lane {
    let shown = r.shown_calls();
    let rows = (0..shown).map(|c| format!("call {}", c + 1)).collect();
    let mut lane = Lane { label: name.to_string(), rows, lines_below: 1, ..Default::default() };
    for c in 0..shown {
        for (i, a) in r.attempts_of(c).iter().enumerate() {
            lane.bars.push(attempt_bar(c, i, a));
            if a.work_end > a.end {
                lane.bars.push(Bar {
                    row: c,
                    from: ms(a.end),
                    to: ms(a.work_end),
                    color: TIMED_OUT,
                    fill: Fill::Hatched,
                    ..Default::default()
                });
            }
        }
    }
    let (label, color) = match r.outcome {
        RouteOutcome::Complete | RouteOutcome::Open => ("answered", GOOD),
        RouteOutcome::Partial => ("partial answer", NO_CONNECTION),
        RouteOutcome::Error => ("error", TIMED_OUT),
    };
    let at = ms(r.latency);
    lane.marks.push(Mark { row: 0, at, color, shape: Shape::Diamond, label: format!("{label} {}", format::ms(at)) });
    if let Some(d) = r.deadline {
        lane.meters.push(Meter { row: 0, from: 0.0, to: ms(d), color: BUDGET, label: "budget".into(), ended: Some(at) });
    }
    lane
}

fn legend() -> Vec<LegendItem> {
    let item = |label: &str, color, key| LegendItem { label: label.to_string(), color, key };
    vec![
        item("attempt answered", ANSWERED, Key::Fill(Fill::Solid)),
        item("attempt timed out", TIMED_OUT, Key::Fill(Fill::Outline)),
        item("no connection", NO_CONNECTION, Key::Fill(Fill::Outline)),
        item("cut by the route", CUT, Key::Fill(Fill::Outline)),
        item("work for nobody", TIMED_OUT, Key::Fill(Fill::Hatched)),
        item("the route's budget", BUDGET, Key::Meter),
    ]
}

pub fn data(s: &Host<ChoosingNumbers>) -> TimelineData {
    let records: Vec<(&str, &RequestRecord)> =
        [("Slowest", s.slowest()), ("Latest", s.latest())].into_iter().filter_map(|(n, r)| Some((n, r?))).collect();
    let far = records
        .iter()
        .flat_map(|(_, r)| {
            let work = (0..r.shown_calls()).flat_map(|c| r.attempts_of(c).iter().map(|a| a.work_end));
            work.chain([r.latency, r.deadline.unwrap_or(0)])
        })
        .max()
        .unwrap_or(0);
    TimelineData {
        x_range: (0.0, ms(far).max(10.0)),
        lanes: records.iter().map(|(n, r)| lane(n, r)).collect(),
        links: Vec::new(),
        spans: Vec::new(),
        now: None,
        legend: legend(),
        log_from: None,
    }
}

/// The two requests in words.
pub fn summary(s: &Host<ChoosingNumbers>) -> String {
    let words = |name: &str, r: &RequestRecord| {
        let tries: usize = (0..r.calls.min(crate::scenarios::choosing_numbers::SHOWN_CALLS))
            .map(|c| r.attempts_of(c).len())
            .sum();
        format!("{name}: answered after {} with {} attempts on its first calls.", format::us_as_ms(r.latency), tries)
    };
    match (s.slowest(), s.latest()) {
        (Some(a), Some(b)) => format!("{} {}", words("The slowest request", a), words("The latest", b)),
        _ => "No request has been answered yet.".to_string(),
    }
}

//! The deliveries of the first events something happened to (a crash, a redelivery, a second
//! publish, a late copy), on the kit's timeline: one lane per event, one row per delivery,
//! each row on its own clock from its receive, so a redelivery four days later lines up with
//! the first. Bars are the steps (ack, work, record), a cross a crash, a dot a credit (red
//! when it is a second one), a ring a copy the dedupe store skipped, the strip the lease.

use leptos::prelude::*;

use crate::format;
use crate::scenarios::at_least_once::{AtLeastOnce, DeliveryRecord, Outcome, Step};
use crate::sim::{Host, Micros, Model, Simulation};
use crate::ui::kit::Timeline;
use crate::ui::kit::chart::slot;
use crate::draw::timeline::{Bar, Fill, Key, Lane, LegendItem, Mark, Meter, Shape, TimelineData};
use crate::ui::runner::Runner;

// What each colour means on this timeline.
const WORK: usize = slot::BLUE;
const ACK: usize = slot::GREEN;
const RECORD: usize = slot::TEAL;
const BAD: usize = slot::RED;
const LEASE: usize = slot::PURPLE;
const MUTED: usize = slot::GRAY;
/// Events shown, and deliveries shown per event.
const EVENTS: usize = 4;
const ROWS: usize = 4;

fn ms(t: Micros) -> f64 {
    t as f64 / 1000.0
}

fn step_words(step: Step) -> (&'static str, usize) {
    match step {
        Step::Ack => ("ack", ACK),
        Step::Work => ("work", WORK),
        Step::Record => ("record", RECORD),
    }
}

fn is_notable(d: &DeliveryRecord) -> bool {
    d.receive > 1 || d.skipped || matches!(d.outcome, Outcome::Crashed) || d.credit_number > 1
}

/// The deliveries to show, grouped by event: the first events something happened to, then
/// (if there are not enough of those) the first events.
fn chosen(s: &Host<AtLeastOnce>) -> Vec<(u32, Vec<DeliveryRecord>)> {
    let all: Vec<DeliveryRecord> = s.timeline().iter().chain(s.in_progress()).copied().collect();
    let mut events: Vec<u32> = Vec::new();
    let notable = all.iter().filter(|d| is_notable(d)).map(|d| d.event);
    for e in notable.chain(all.iter().map(|d| d.event)) {
        if events.len() == EVENTS {
            break;
        }
        if !events.contains(&e) {
            events.push(e);
        }
    }
    events.sort_unstable();
    events
        .into_iter()
        .map(|e| {
            let mut ds: Vec<DeliveryRecord> = all.iter().filter(|d| d.event == e).copied().collect();
            ds.sort_by_key(|d| d.received_at);
            ds.truncate(ROWS);
            (e, ds)
        })
        .collect()
}

/// When a delivery's last step ended (now, for one in progress).
fn last_end(d: &DeliveryRecord, now: Micros) -> Micros {
    match d.outcome {
        Outcome::Running => now,
        _ => d.steps().last().map_or(d.received_at, |st| st.end),
    }
}

/// "42.3 s", "3 min", "4.0 days": when a delivery was received.
fn when(t: Micros) -> String {
    let s = t as f64 / 1e6;
    if s < 120.0 {
        format::secs(s)
    } else if s < 2.0 * 3600.0 {
        format!("{} min", format::count((s / 60.0) as u64))
    } else if s < 2.0 * 86_400.0 {
        format!("{} h", format::number(s / 3600.0))
    } else {
        format!("{} days", format::number(s / 86_400.0))
    }
}

pub fn data(s: &Host<AtLeastOnce>) -> TimelineData {
    let now = s.now();
    let config = s.config();
    let chosen = chosen(s);
    let longest = chosen.iter().flat_map(|(_, ds)| ds).map(|d| last_end(d, now) - d.received_at).max().unwrap_or(0);
    let lease = (!config.extend_lease).then_some(config.visibility_timeout_ms);
    let mut lanes: Vec<Lane> = chosen.iter().map(|(e, ds)| event_lane(*e, ds, now, lease)).collect();
    // Until there are enough deliveries, the first events still waiting keep their lanes, so the
    // timeline is named and as tall before Play as once the run has started.
    let waiting = (0..config.messages).filter(|e| !chosen.iter().any(|(c, _)| c == e));
    lanes.extend(waiting.take(EVENTS.saturating_sub(chosen.len())).map(not_delivered_lane));
    TimelineData {
        // At least one job's time: a delivery's steps are on the axis from the start.
        x_range: (0.0, (ms(longest).max(config.work_ms) * 1.15).max(50.0)),
        lanes,
        links: Vec::new(),
        spans: Vec::new(),
        now: None,
        legend: legend(lease.is_some()),
        log_from: None,
    }
}

fn event_lane(event: u32, ds: &[DeliveryRecord], now: Micros, lease_ms: Option<f64>) -> Lane {
    let mut lane = Lane {
        label: format!("Event {}", format::count(event as u64 + 1)),
        rows: ds.iter().map(|d| format!("#{} {}", d.receive, when(d.received_at))).collect(),
        lines_below: 1,
        ..Default::default()
    };
    for (row, d) in ds.iter().enumerate() {
        delivery_row(&mut lane, row, d, now, lease_ms);
    }
    lane
}

/// An event not delivered yet: its name and one row that says so.
fn not_delivered_lane(event: u32) -> Lane {
    Lane {
        label: format!("Event {}", format::count(event as u64 + 1)),
        rows: vec!["not delivered yet".into()],
        lines_below: 1,
        ..Default::default()
    }
}

fn delivery_row(lane: &mut Lane, row: usize, d: &DeliveryRecord, now: Micros, lease_ms: Option<f64>) {
    let since = |t: Micros| ms(t.saturating_sub(d.received_at));
    let end = last_end(d, now);
    if let Some(lease) = lease_ms {
        lane.meters.push(Meter { row, from: 0.0, to: lease, color: LEASE, label: "lease".into(), ended: Some(since(end)) });
    }
    for st in d.steps() {
        let (label, color) = step_words(st.step);
        let (color, fill) = if st.completed { (color, Fill::Solid) } else { (BAD, Fill::Hatched) };
        lane.bars.push(Bar { row, from: since(st.start), to: since(st.end), color, fill, label: label.into(), ..Default::default() });
    }
    if matches!(d.outcome, Outcome::Running) {
        lane.bars.push(Bar { row, from: since(end), to: since(now), color: MUTED, open: true, ..Default::default() });
    }
    let mut mark = |at: Micros, color, shape, label: String| lane.marks.push(Mark { row, at: since(at), color, shape, label });
    match d.outcome {
        Outcome::Crashed => mark(end, BAD, Shape::Cross, "crash".into()),
        Outcome::Skipped => mark(end, MUTED, Shape::Ring, "ID found: skipped".into()),
        _ => {}
    }
    if d.credited {
        let at = d.steps().iter().find(|st| matches!(st.step, Step::Work)).map_or(end, |st| st.end);
        let (color, label) =
            if d.credit_number > 1 { (BAD, format!("credit #{}", d.credit_number)) } else { (ACK, "credit".into()) };
        mark(at, color, Shape::Dot, label);
    }
}

fn legend(lease: bool) -> Vec<LegendItem> {
    let item = |label: &str, color, key| LegendItem { label: label.into(), color, key };
    let mut items = vec![
        item("work", WORK, Key::Fill(Fill::Solid)),
        item("ack", ACK, Key::Fill(Fill::Solid)),
        item("record the ID", RECORD, Key::Fill(Fill::Solid)),
        item("cut short by a crash", BAD, Key::Fill(Fill::Hatched)),
        item("credit (red: a second one)", ACK, Key::Shape(Shape::Dot)),
        item("skipped as a duplicate", MUTED, Key::Shape(Shape::Ring)),
    ];
    if lease {
        items.push(item("lease (visibility timeout)", LEASE, Key::Meter));
    }
    items
}

#[component]
pub fn Deliveries(runner: Runner<AtLeastOnce>) -> impl IntoView {
    let data = Signal::derive(move || runner.track(data));
    let summary = Signal::derive(move || {
        runner.track(|s| {
            chosen(s)
                .iter()
                .map(|(e, ds)| {
                    let steps: Vec<String> = ds.iter().map(|d| format!("delivery {}: {}", d.receive, outcome_words(d))).collect();
                    format!("Event {}: {}.", e + 1, steps.join(", "))
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
    });
    view! {
        <Timeline
            id="timeline"
            title="Deliveries of the first events something happened to, each from its receive"
            data
            summary
        />
    }
}

fn outcome_words(d: &DeliveryRecord) -> &'static str {
    match (d.outcome, d.credited) {
        (Outcome::Running, _) => "in progress",
        (Outcome::Crashed, true) => "credited, then the consumer crashed",
        (Outcome::Crashed, false) => "the consumer crashed",
        (Outcome::Skipped, _) => "skipped as a duplicate",
        (Outcome::Done, true) => "credited",
        (Outcome::Done, false) => "acked without a credit",
    }
}

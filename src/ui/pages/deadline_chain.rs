//! The deadline-chain page (Chapter 1, Part 4): one request through A, B and C drawn as
//! swimlanes, with fixed timeouts or a propagated budget. The mode switch is the chapter's
//! question, so it sits above everything; the table beside the stat cards is the chapter's
//! table, computed from the reader's settings in both modes.

use leptos::prelude::*;

use crate::scenarios::deadline_chain::{DeadlineChain, HOPS, Lane, MODES, MarkKind, MsgKind, Party, Phase, Reason, WorkOutcome};
use crate::sim::{Micros, Params, Simulation, Value};
use crate::ui::kit::chart::slot;
use crate::ui::kit::stat::display;
use crate::ui::kit::{
    Arrow, Fill, LegendItem, Meter, Shape, SimFrame, SimState, StatCard, SwimBar, SwimLane, SwimMark, SwimlaneData,
    Swimlanes,
};

// What each colour means on this page's timeline.
const WORK: usize = slot::BLUE;
const BAD: usize = slot::RED;
const GOOD: usize = slot::GREEN;
const TIMER: usize = slot::PURPLE;
const USER_BUDGET: usize = slot::ORANGE;
const BUDGET: usize = slot::TEAL;
const MUTED: usize = slot::GRAY;
const C: usize = HOPS - 1;

fn ms(t: Micros) -> f64 {
    t as f64 / 1000.0
}

/// A metric as a card shows it, with a whole number below 100 written without ".0".
fn tidy(v: Value) -> Value {
    match v {
        Value::Num(x) if x == libm::trunc(x) && x.abs() < 1e15 => Value::Int(x as i64),
        v => v,
    }
}

/// Milliseconds as the stat cards print them: "2,008 ms", "3.5 ms", "0 ms".
fn ms_words(v: f64) -> String {
    format!("{} ms", display(&tidy(Value::num(v))))
}

fn when(t: Micros) -> String {
    ms_words(ms(t))
}

fn hop(h: usize) -> &'static str {
    Party::Hop(h).name()
}

/// The lane index of a party: the user on top, then A, B, C.
fn row(p: Party) -> usize {
    match p {
        Party::User => 0,
        Party::Hop(h) => h + 1,
    }
}

/// When a hop stopped waiting for its callee (now, if it still is).
fn wait_end(lane: &Lane, now: Micros) -> Micros {
    lane.gave_up
        .map(|g| g.0)
        .or_else(|| lane.marks().iter().find(|m| m.kind == MarkKind::CallAnswered).map(|m| m.t))
        .unwrap_or(now)
}

/// When a hop finished with the request: it answered, gave up, stopped or failed fast.
fn hop_done(lane: &Lane) -> Option<Micros> {
    lane.answered
        .map(|a| a.at)
        .or(lane.gave_up.map(|g| g.0))
        .or(match lane.work_outcome {
            Some(WorkOutcome::Stopped(_)) => lane.work_end,
            _ => None,
        })
        .or(lane.failed_fast)
}

/// Whether the hop's work carried on past its deadline (rather than stopping because of it).
fn kept_working_past_deadline(lane: &Lane) -> bool {
    match (lane.deadline_passed, lane.work_start, lane.work_outcome) {
        (_, _, Some(WorkOutcome::Stopped(Reason::Deadline))) => false,
        (Some(d), Some(s), _) => s <= d && lane.work_end.is_none_or(|e| e > d),
        _ => false,
    }
}

fn total_ms(intervals: &[Option<(Micros, Micros)>]) -> f64 {
    intervals.iter().flatten().fold(0.0, |acc, (a, b)| acc + ms(b - a))
}

/// "3 s", "1.8 s" or "1,850 ms", as the chapter writes durations ("C's 3 s of work").
fn duration_words(v: f64) -> String {
    if v >= 1000.0 && v % 100.0 == 0.0 { format!("{} s", v / 1000.0) } else { ms_words(v) }
}

/// The zoomed time range of a finished run: the 170 ms around the end of the user's wait,
/// where the chain unwinds.
fn zoom_range(s: &DeadlineChain) -> (f64, f64) {
    let end = ms(s.end());
    let done = s.user().done().map_or(s.user_budget_ms() as f64, ms);
    let from = (libm::floor((done - 110.0) / 10.0) * 10.0).clamp(0.0, (end - 170.0).max(0.0));
    (from, (from + 170.0).min(end))
}

/// The swimlanes at the simulation's current time.
fn timeline(s: &DeadlineChain, zoom: Option<(f64, f64)>) -> SwimlaneData {
    let now = s.now();
    let user = s.user();
    let propagated = s.propagated();
    let mut lanes = Vec::with_capacity(HOPS + 1);

    let mut u = SwimLane { label: "User".into(), ..Default::default() };
    let user_end = user.answer.map(|a| a.received).or(user.gave_up).unwrap_or(now);
    u.bars.push(SwimBar { from: 0.0, to: ms(user_end), color: MUTED, fill: Fill::Outline, label: "waiting".into() });
    u.meter = Some(Meter {
        from: 0.0,
        to: s.user_budget_ms() as f64,
        color: USER_BUDGET,
        label: "user's budget".into(),
        ended: user.done().map(ms),
    });
    if let Some(a) = user.answer {
        let color = if a.status == 200 { GOOD } else { BAD };
        u.marks.push(SwimMark { t: ms(a.received), label: format!("gets {} at {}", a.status, when(a.received)), color, shape: Shape::Dot });
    }
    if let Some(g) = user.gave_up {
        u.marks.push(SwimMark { t: ms(g), label: format!("browser gives up {}", when(g)), color: BAD, shape: Shape::Cross });
    }
    lanes.push(u);

    let done = user.done();
    let wasted = s.wasted_intervals();
    for (h, lane) in s.lanes().iter().enumerate() {
        let mut l = SwimLane { label: lane.name.to_string(), ..Default::default() };
        if let Some((a, b)) = lane.work_interval(now) {
            l.bars.push(SwimBar { from: ms(a), to: ms(b), color: WORK, fill: Fill::Solid, label: "work".into() });
        }
        if let Some(sent) = lane.call_sent {
            let label = format!("waiting for {}", hop(h + 1));
            l.bars.push(SwimBar { from: ms(sent), to: ms(wait_end(lane, now)), color: MUTED, fill: Fill::Outline, label });
        }
        if let Some((a, b)) = wasted[h] {
            l.bars.push(SwimBar { from: ms(a), to: ms(b), color: BAD, fill: Fill::Hatched, label: String::new() });
        }
        l.meter = if propagated {
            let ended = hop_done(lane).map(ms);
            lane.deadline_ms.zip(lane.received).map(|(d, r)| Meter { from: ms(r), to: d as f64, color: BUDGET, label: "budget".into(), ended })
        } else {
            let ended = lane.call_sent.and(hop_done(lane)).map(|_| ms(wait_end(lane, now)));
            lane.call_sent.zip(lane.call_timeout).map(|(c, t)| Meter {
                from: ms(c),
                to: ms(c + t),
                color: TIMER,
                label: "timeout".into(),
                ended,
            })
        };
        if let Some((t, why)) = lane.gave_up {
            l.marks.push(SwimMark { t: ms(t), label: format!("gives up {} ({})", when(t), why.label()), color: BAD, shape: Shape::Cross });
        }
        if let (Some(WorkOutcome::Stopped(why)), Some(t)) = (lane.work_outcome, lane.work_end) {
            l.marks.push(SwimMark { t: ms(t), label: format!("stopped {} ({})", when(t), why.label()), color: GOOD, shape: Shape::Cross });
        }
        if let Some(t) = lane.failed_fast {
            l.marks.push(SwimMark { t: ms(t), label: format!("fails fast {}", when(t)), color: BAD, shape: Shape::Cross });
        }
        if h == C
            && let (Some(WorkOutcome::Finished), Some(t)) = (lane.work_outcome, lane.work_end)
        {
            let for_nobody = done.is_some_and(|d| d < t);
            let label = format!("commits {}{}", when(t), if for_nobody { ", for nobody" } else { "" });
            l.marks.push(SwimMark { t: ms(t), label, color: if for_nobody { BAD } else { GOOD }, shape: Shape::Tick });
        }
        if kept_working_past_deadline(lane)
            && let Some(t) = lane.deadline_passed
        {
            l.marks.push(SwimMark { t: ms(t), label: "deadline passes, keeps working".into(), color: USER_BUDGET, shape: Shape::Tick });
        }
        if let Some(t) = lane.caller_left_noticed {
            let label = if propagated { "caller left" } else { "caller left, ignored" };
            l.marks.push(SwimMark { t: ms(t), label: label.into(), color: MUTED, shape: Shape::Dot });
        }
        lanes.push(l);
    }

    // Arrows in the order their labels matter most: budgets, answers, hang-ups, plain calls.
    let mut arrows: Vec<(u8, Arrow)> = s
        .messages()
        .iter()
        .map(|m| {
            let (rank, label, color, dashed) = match m.kind {
                MsgKind::Request { header_ms: Some(v) } => (0, format!("x-request-timeout-ms: {v}"), WORK, false),
                MsgKind::Request { header_ms: None } => (3, "request".to_string(), WORK, false),
                MsgKind::Response { status, origin } => {
                    let from = if origin != m.from { format!(" from {}", origin.name()) } else { String::new() };
                    let nobody = m.heard == Some(false);
                    let color = if nobody { MUTED } else if status == 200 { GOOD } else { BAD };
                    (1, format!("{status}{from}{}", if nobody { ", for nobody" } else { "" }), color, nobody)
                }
                MsgKind::Close => (2, "hangs up".to_string(), MUTED, true),
            };
            let arrow = Arrow { from: row(m.from), to: row(m.to), sent: ms(m.sent), delivered: ms(m.delivered), label, color, dashed };
            (rank, arrow)
        })
        .collect();
    arrows.sort_by_key(|(rank, _)| *rank);

    let end = ms(s.end());
    let shaded = done
        .map(|d| {
            let label = if user.answer.is_some() { "after the user's answer" } else { "after the user gave up" };
            vec![(ms(d), end, label.to_string())]
        })
        .unwrap_or_default();
    let meter = if propagated {
        LegendItem { label: "budget left, to the hop's deadline".into(), color: BUDGET, fill: Fill::Thin }
    } else {
        LegendItem { label: "time left on the call's timeout".into(), color: TIMER, fill: Fill::Thin }
    };
    SwimlaneData {
        x_range: zoom.unwrap_or((0.0, end)),
        lanes,
        arrows: arrows.into_iter().map(|(_, a)| a).collect(),
        shaded,
        now: Some(ms(now)),
        legend: vec![
            LegendItem { label: "work".into(), color: WORK, fill: Fill::Solid },
            LegendItem { label: "waiting for the next hop".into(), color: MUTED, fill: Fill::Outline },
            meter,
            LegendItem { label: format!("the user's {}", duration_words(s.user_budget_ms() as f64)), color: USER_BUDGET, fill: Fill::Thin },
            LegendItem { label: "work for nobody (after the user's wait ended)".into(), color: BAD, fill: Fill::Hatched },
        ],
    }
}

/// One or two sentences on the run so far.
fn verdict(s: &DeadlineChain) -> String {
    let user = s.user();
    let budget = s.user_budget_ms();
    let mut out = match (user.answer, user.gave_up) {
        (Some(a), _) => {
            let from = if a.origin != Party::Hop(0) { format!(" (from {})", a.origin.name()) } else { String::new() };
            let within = if a.answered_at <= budget as Micros * 1000 { "within" } else { "after" };
            format!(
                "A answered the user with a {}{from} at {}, {within} the user's {} ms.",
                a.status,
                when(a.answered_at),
                display(&Value::Int(budget))
            )
        }
        (None, Some(g)) => format!("The browser gave up at {} with no answer.", when(g)),
        _ if s.now() == 0 => "Press play or step: the user's request is on its way to A.".to_string(),
        // Constant while nothing changes: this line is a live region.
        _ => format!("The user is waiting; they will wait {} ms.", display(&Value::Int(budget))),
    };
    if let Some(done) = user.done() {
        let c = &s.lanes()[C];
        match (c.work_outcome, c.work_end, c.work_start) {
            (Some(WorkOutcome::Finished), Some(t), _) if t > done => {
                out += &format!(" C committed at {}, {} after that: for nobody.", when(t), when(t - done));
            }
            (Some(WorkOutcome::Finished), Some(t), _) => out += &format!(" C committed at {}.", when(t)),
            (Some(WorkOutcome::Stopped(why)), Some(t), _) => out += &format!(" C stopped at {} ({}).", when(t), why.label()),
            (None, _, Some(_)) => out += " C is still working, for nobody.",
            _ => out += " C was never called.",
        }
        out += &format!(" Work done for nobody: {}.", ms_words(total_ms(&s.wasted_intervals())));
    }
    out
}

/// Every moment so far, in words: the text equivalent of the swimlanes.
fn moments(s: &DeadlineChain, reserve_ms: f64) -> Vec<(Micros, String)> {
    let propagated = s.propagated();
    let lanes = s.lanes();
    let mut out: Vec<(Micros, String)> = Vec::with_capacity(48);
    out.push((0, format!("The user's request leaves the browser; the user will wait {} ms.", display(&Value::Int(s.user_budget_ms())))));
    for (h, lane) in lanes.iter().enumerate() {
        let name = hop(h);
        let next = if h + 1 < HOPS { hop(h + 1) } else { "" };
        for m in lane.marks() {
            let text = match m.kind {
                MarkKind::Received => match (propagated, lane.budget_told_ms, lane.deadline_ms) {
                    (true, Some(b), Some(d)) if h == 0 => format!(
                        "A receives the request. The browser sends no header, so A starts from the user's {} ms: its deadline is {} ms.",
                        display(&Value::Int(b)),
                        display(&Value::Int(d))
                    ),
                    (true, Some(b), Some(d)) => format!(
                        "{name} receives the request with x-request-timeout-ms: {b}. Its deadline: arrival + {b} − {} reserve = {} ms.",
                        ms_words(reserve_ms),
                        display(&Value::Int(d))
                    ),
                    _ => format!("{name} receives the request and starts its work."),
                },
                MarkKind::WorkFinished if h == C => "C finishes its work and commits.".to_string(),
                MarkKind::WorkFinished => format!("{name} finishes its work."),
                MarkKind::WorkStopped => match lane.work_outcome {
                    Some(WorkOutcome::Stopped(why)) => format!("{name} stops its work ({}).", why.label()),
                    _ => format!("{name} stops its work."),
                },
                MarkKind::CallSent => {
                    let wait = lane.call_timeout.map_or("with no timeout".to_string(), |t| format!("and will wait at most {}", when(t)));
                    match lane.call_header_ms {
                        Some(v) => format!("{name} calls {next} with x-request-timeout-ms: {v} {wait}."),
                        None => format!("{name} calls {next} {wait}."),
                    }
                }
                MarkKind::CallAnswered => match lanes.get(h + 1).and_then(|l| l.answered) {
                    Some(a) => format!("{name} gets {next}'s {}.", a.status),
                    None => format!("{name} gets {next}'s answer."),
                },
                MarkKind::DeadlinePassed if kept_working_past_deadline(lane) => {
                    format!("{name}'s deadline passes, but its work does not listen to the deadline: it keeps working.")
                }
                MarkKind::DeadlinePassed => format!("{name}'s deadline passes."),
                MarkKind::GaveUp => match lane.gave_up {
                    Some((_, why)) => format!("{name} gives up on {next} ({}).", why.label()),
                    None => format!("{name} gives up on {next}."),
                },
                MarkKind::FailedFast => format!("{name} has no budget left: it answers 504 without calling {next}."),
                MarkKind::CallerLeft if propagated => format!("{name} sees its caller hang up."),
                MarkKind::CallerLeft => format!("{name} sees its caller hang up, but nothing listens: it carries on."),
                MarkKind::Answered => match lane.answered {
                    Some(a) => {
                        let caller = if h == 0 { "the user".to_string() } else { hop(h - 1).to_string() };
                        let from = if a.origin != Party::Hop(h) { format!(" (from {})", a.origin.name()) } else { String::new() };
                        let nobody = if a.heard == Some(false) { format!(", for nobody: {caller} had stopped waiting") } else { String::new() };
                        format!("{name} answers {}{from} to {caller}{nobody}.", a.status)
                    }
                    None => format!("{name} answers."),
                },
                MarkKind::LateAnswer => format!("{name} gets {next}'s answer after it stopped waiting."),
            };
            out.push((m.t, text));
        }
    }
    for m in s.messages() {
        if let (MsgKind::Close, Party::Hop(h), Party::Hop(to)) = (m.kind, m.from, m.to) {
            out.push((m.sent, format!("{} hangs up on {}: the connection closes.", hop(h), hop(to))));
        }
    }
    let user = s.user();
    if let Some(a) = user.answer {
        let from = if a.origin != Party::Hop(0) { format!(" from {}", a.origin.name()) } else { String::new() };
        out.push((a.received, format!("The user gets {}{from}.", a.status)));
    }
    if let Some(g) = user.gave_up {
        out.push((g, "The browser gives up and closes the connection to A.".to_string()));
    }
    out.sort_by_key(|(t, _)| *t);
    out
}

/// The chapter's table for one mode, run to the end.
#[derive(Clone, PartialEq)]
struct Column {
    mode: &'static str,
    answer: String,
    b_gives_up: String,
    c_work: String,
    c_told: String,
    for_nobody: String,
    zoom: (f64, f64),
}

fn column(params: &Params, mode: &'static str, seed: u64, end: Micros) -> Column {
    let mut p = params.clone();
    let _ = p.set_text("mode", mode);
    let mut s = DeadlineChain::new(&p, seed, end);
    s.run_to_end();
    let user = s.user();
    let done = user.done();
    let [_, b, c] = s.lanes();
    let answer = match (user.answer, user.gave_up) {
        (Some(a), _) => {
            let from = if a.origin != Party::Hop(0) { format!(", from {}", a.origin.name()) } else { String::new() };
            format!("{} at {}{from}", a.status, when(a.answered_at))
        }
        (None, Some(g)) => format!("none: the browser gave up at {}", when(g)),
        _ => "none by the end".to_string(),
    };
    let b_gives_up = match b.gave_up {
        Some((t, why)) => {
            let late = if done.is_some_and(|d| d < t) { ", after the user already left" } else { "" };
            format!("{} ({}){late}", when(t), why.label())
        }
        None if b.call_sent.is_none() => "never called C".to_string(),
        None if b.phase == Phase::Calling => "still waiting at the end".to_string(),
        None => "doesn't: C answered".to_string(),
    };
    let c_work = match (c.work_outcome, c.work_end) {
        (Some(WorkOutcome::Finished), Some(t)) => {
            let nobody = if done.is_some_and(|d| d < t) { ", for nobody" } else { "" };
            format!("Finished and committed at {}{nobody}", when(t))
        }
        (Some(WorkOutcome::Stopped(why)), Some(t)) => format!("Stopped at {} (\u{201c}{}\u{201d})", when(t), why.label()),
        _ if c.work_start.is_some() => "Still working at the end".to_string(),
        _ => "Never started".to_string(),
    };
    let c_told = b.call_header_ms.map_or("no header".to_string(), |v| format!("{} ms", display(&Value::Int(v))));
    let for_nobody = ms_words(total_ms(&s.wasted_intervals()));
    Column { mode, answer, b_gives_up, c_work, c_told, for_nobody, zoom: zoom_range(&s) }
}

#[component]
pub fn DeadlineChainPage(state: SimState) -> impl IntoView {
    let runner = state.runner(DeadlineChain::new, 0);
    let metrics = Memo::new(move |_| runner.track(|s| s.metrics()));
    let metric = move |key: &'static str| {
        Signal::derive(move || metrics.with(|m| m.iter().find(|(k, _)| *k == key).map_or(Value::Null, |(_, v)| tidy(v.clone()))))
    };
    let finished = Memo::new(move |_| runner.track(|s| s.finished()));

    // The mode switch: the chapter's question. After a finished run, show the other mode's
    // finished run so the two can be compared at a glance.
    let mode = Memo::new(move |_| state.params.with(|p| p.choice("mode")));
    let set_mode = move |m: &'static str| {
        let was_finished = finished.get_untracked();
        state.params.update(|p| {
            let _ = p.set_text("mode", m);
        });
        runner.rebuild();
        if was_finished {
            runner.skip_to_end();
        }
    };
    let fixed_desc = move || {
        state.params.with(|p| {
            let t = |id| if p.get(id) > 0.0 { duration_words(p.get(id)) } else { "none".to_string() };
            format!("A→B {}, B→C {}; nobody stops when its caller leaves.", t("a_to_b_timeout_ms"), t("b_to_c_timeout_ms"))
        })
    };

    let verdict_text = Signal::derive(move || runner.track(verdict));
    let moment_list = move || {
        let reserve = state.params.with(|p| p.get("reserve_ms"));
        runner.track(|s| moments(s, reserve))
            .into_iter()
            .map(|(t, text)| view! { <li><span class="t">{when(t)}</span>" "{text}</li> })
            .collect_view()
    };

    let table = Memo::new(move |_| {
        let params = state.params.get();
        let seed = state.seed.get();
        let end = state.duration_ms * 1000;
        MODES.iter().map(|m| column(&params, m, seed, end)).collect::<Vec<_>>()
    });
    // The zoom shows the current mode's whole run around the end of the user's wait, so the
    // window stays put while the run plays.
    let zoom = RwSignal::new(false);
    let zoom_range_now = Memo::new(move |_| table.with(|cols| cols.iter().find(|c| c.mode == mode.get()).map(|c| c.zoom)));
    let zoom_label = move || match zoom_range_now.get() {
        Some((a, b)) => format!("{} to {}", display(&Value::Int(a as i64)), ms_words(b)),
        None => String::new(),
    };
    let lanes = Signal::derive(move || {
        let z = if zoom.get() { zoom_range_now.get() } else { None };
        runner.track(|s| timeline(s, z))
    });
    let c_label = move || state.params.with(|p| format!("C's {} of work", duration_words(p.get("c_work_ms"))));
    let cell = move |pick: fn(&Column) -> &String, key: &'static str| {
        move || {
            table.with(|cols| {
                cols.iter()
                    .map(|c| {
                        let m = c.mode;
                        let current = move || mode.get() == m;
                        view! { <td data-mode=m data-row=key class:current=current>{pick(c).clone()}</td> }
                    })
                    .collect_view()
            })
        }
    };

    // Notes under the cards, from the live run.
    let answer_note = Signal::derive(move || {
        runner.track(|s| match (s.user().answer, s.user().gave_up) {
            (Some(a), _) => format!("{} from {}", a.status, a.origin.name()),
            (None, Some(g)) => format!("none: browser gave up at {}", when(g)),
            _ => "the user is waiting".to_string(),
        })
    });
    let answer_tone = Signal::derive(move || match metric("user_in_budget").get() {
        Value::Bool(false) => "bad",
        _ if metric("user_gave_up_ms").get().as_f64().is_some() => "bad",
        _ => "",
    });
    let b_note = Signal::derive(move || {
        runner.track(|s| {
            let b = &s.lanes()[1];
            match (b.gave_up, s.user().done()) {
                (Some((t, why)), Some(d)) if d < t => format!("{}, after the user left", why.label()),
                (Some((_, why)), _) => why.label().to_string(),
                _ => String::new(),
            }
        })
    });
    let b_tone = Signal::derive(move || if b_note.get().contains("after") { "bad" } else { "" });
    let c_note = Signal::derive(move || {
        runner.track(|s| {
            let c = &s.lanes()[C];
            match (c.work_outcome, c.work_end, s.user().done()) {
                (Some(WorkOutcome::Finished), Some(t), Some(d)) if d < t => "committed, for nobody".to_string(),
                (Some(WorkOutcome::Finished), _, _) => "committed".to_string(),
                (Some(WorkOutcome::Stopped(why)), _, _) => format!("stopped ({})", why.label()),
                _ if c.work_start.is_some() => "working".to_string(),
                _ => "not called yet".to_string(),
            }
        })
    });
    let c_tone = Signal::derive(move || match c_note.get().as_str() {
        n if n.ends_with("for nobody") => "bad",
        n if n.starts_with("stopped") => "good",
        _ => "",
    });
    let told_note = Signal::derive(move || {
        if mode.get() == "propagated" { "in x-request-timeout-ms".to_string() } else { "fixed mode sends no budget".to_string() }
    });
    let waste_tone = Signal::derive(move || match metric("wasted_work_ms").get().as_f64() {
        Some(w) if w > 0.0 => "bad",
        _ if finished.get() => "good",
        _ => "",
    });

    view! {
        <SimFrame state runner>
            <fieldset class="mode-switch" data-mode-switch>
                <legend>"How does the chain handle time?"</legend>
                <label>
                    <input
                        type="radio"
                        name="mode-switch"
                        value="fixed"
                        prop:checked=move || mode.get() == "fixed"
                        on:change=move |_| set_mode("fixed")
                    />
                    <strong>"Fixed timeouts"</strong>
                    <span class="desc">{fixed_desc}</span>
                </label>
                <label>
                    <input
                        type="radio"
                        name="mode-switch"
                        value="propagated"
                        prop:checked=move || mode.get() == "propagated"
                        on:change=move |_| set_mode("propagated")
                    />
                    <strong>"Propagated budget"</strong>
                    <span class="desc">"The time left travels as x-request-timeout-ms; a hop stops when its caller leaves."</span>
                </label>
            </fieldset>
            <p class="verdict" role="status" data-verdict>{move || verdict_text.get()}</p>
            <div class="zoom" role="group" aria-label="Time range shown">
                <button data-zoom="whole" aria-pressed=move || (!zoom.get()).to_string() on:click=move |_| zoom.set(false)>"Whole run"</button>
                <button
                    data-zoom="end"
                    title="The 170 ms around the end of the user's wait, where the chain unwinds"
                    aria-pressed=move || zoom.get().to_string()
                    on:click=move |_| zoom.set(true)
                >
                    "Zoom: " {zoom_label}
                </button>
            </div>
            <Swimlanes id="swimlanes" title="One request through A, B and C (time in ms)" data=lanes summary=verdict_text/>
            <div class="dc-results">
                <div class="stats">
                    <StatCard key="user_answer_ms" label="A answers the user" unit="ms" value=metric("user_answer_ms") note=answer_note tone=answer_tone/>
                    <StatCard key="b_gives_up_ms" label="B gives up on C" unit="ms" value=metric("b_gives_up_ms") note=b_note tone=b_tone/>
                    <StatCard key="c_end_ms" label="C's work ends" unit="ms" value=metric("c_end_ms") note=c_note tone=c_tone/>
                    <StatCard key="c_budget_told_ms" label="C was told" unit="ms" value=metric("c_budget_told_ms") note=told_note/>
                    <StatCard key="wasted_work_ms" label="Work done for nobody" unit="ms" value=metric("wasted_work_ms") tone=waste_tone/>
                </div>
                <div class="table-wrap">
                    <table class="data dc-table" data-chapter-table>
                        <caption>"The chapter's table as this model runs it with these settings (each mode to the end; at the defaults, within 3.5 ms of the chapter's figures)"</caption>
                        <thead>
                            <tr>
                                <td></td>
                                <th scope="col" class:current=move || mode.get() == "fixed">"Fixed timeouts"</th>
                                <th scope="col" class:current=move || mode.get() == "propagated">"Propagated budget plus \u{201c}caller left\u{201d}"</th>
                            </tr>
                        </thead>
                        <tbody>
                            <tr><th scope="row">"A answers the user"</th>{cell(|c| &c.answer, "answer")}</tr>
                            <tr><th scope="row">"B gives up on C"</th>{cell(|c| &c.b_gives_up, "b_gives_up")}</tr>
                            <tr><th scope="row">{c_label}</th>{cell(|c| &c.c_work, "c_work")}</tr>
                            <tr><th scope="row">"C was told"</th>{cell(|c| &c.c_told, "c_told")}</tr>
                            <tr><th scope="row">"Work done for nobody"</th>{cell(|c| &c.for_nobody, "for_nobody")}</tr>
                        </tbody>
                    </table>
                </div>
            </div>
            <section class="moments" aria-labelledby="moments-title">
                <h2 id="moments-title">"The run so far, moment by moment"</h2>
                <ol data-moments>{moment_list}</ol>
            </section>
        </SimFrame>
    }
}

//! The deadline-chain model: one request through three hops, its events, and what it shows.

mod handlers;

use super::lane::{Lane, Reason, StoppedWaiting, UserAnswer, UserLane, WorkOutcome};
use super::message::{Message, MsgKind, Party};
use super::spec::{DEFAULT_DURATION_MS, DeadlineChainConfig, Mode};
use crate::sim::metrics::MetricValue;
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::{EventQueue, MS, Micros, Model, TimerKey, Value};

pub const HOPS: usize = 3;
pub const HOP_NAMES: [char; HOPS] = ['A', 'B', 'C'];
const A: usize = 0;
pub(super) const C: usize = 2;
/// One request crosses three hops: at most a request, an answer and a close per connection.
const MAX_MESSAGES: usize = 16;

#[derive(Clone, Copy, Debug)]
pub enum Event {
    Deliver { msg: Message, log: usize },
    WorkDone { hop: usize },
    CallTimer { hop: usize },
    DeadlineTimer { hop: usize },
    Resume { hop: usize },
    BrowserTimeout,
}

/// The timers a hop may have pending. They are withdrawn when the hop is done, and a call's
/// timer when the call is aborted, so every timer that fires still matters.
#[derive(Clone, Copy, Debug, Default)]
struct HopTimers {
    work: Option<TimerKey>,
    call: Option<TimerKey>,
    deadline: Option<TimerKey>,
    abort: Option<TimerKey>,
}

/// The model: one user request through A, B and C, message by message.
pub struct DeadlineChain {
    pub(super) config: DeadlineChainConfig,
    /// When the run ends.
    pub(super) end: Micros,
    user_budget_ms: i64,
    work: [Micros; HOPS],
    /// Per caller (A, B): the limit on its call; 0 = none.
    caps: [Micros; 2],
    reserve_ms: i64,
    net: Micros,
    handling: Micros,
    late: Micros,
    abort: Micros,
    jitter: Micros,
    jitter_rng: SimRng,

    lanes: [Lane; HOPS],
    user: UserLane,
    messages: Vec<Message>,
    /// Per connection (user–A, A–B, B–C) and direction: the latest delivery so far, so that
    /// messages on one connection arrive in order whatever the jitter (TCP keeps order).
    last_delivery: [[Micros; 2]; HOPS],
    timers: [HopTimers; HOPS],
    /// The browser's timeout, withdrawn once the user has the answer.
    browser_timer: Option<TimerKey>,
}

/// `Date.now()`: whole milliseconds.
fn clock_ms(t: Micros) -> i64 {
    (t / MS) as i64
}

fn ms_i64(ms: i64) -> Micros {
    ms.max(0) as Micros * MS
}

impl DeadlineChain {
    /// The three swimlanes, A, B, C.
    pub fn lanes(&self) -> &[Lane; HOPS] {
        &self.lanes
    }

    pub fn user(&self) -> &UserLane {
        &self.user
    }

    /// Every message so far, in the order sent: the arrows between lanes.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Whether the time left travels with each call and becomes each hop's deadline.
    pub fn propagated(&self) -> bool {
        self.config.mode == Mode::Propagated || self.config.budget_header
    }

    /// Whether a hop stops when its caller's connection closes.
    pub fn listens_for_close(&self) -> bool {
        self.config.mode == Mode::Propagated || self.config.listen_for_close
    }

    pub fn user_budget_ms(&self) -> i64 {
        self.user_budget_ms
    }

    /// The delay a message takes without jitter (network + handling), for the page's legend
    /// and for bounds in tests.
    pub fn delivery(&self) -> Micros {
        self.net + self.handling
    }

    pub fn abort_delay(&self) -> Micros {
        self.abort
    }

    pub fn max_jitter(&self) -> Micros {
        self.jitter
    }

    /// Whether A's answer came within the user's budget (on the whole-millisecond clock).
    pub fn in_budget(&self, answer: UserAnswer) -> bool {
        clock_ms(answer.answered_at) <= self.user_budget_ms
    }

    /// When the user stopped waiting, as of `now`, and why: A's answer came within the budget,
    /// or the browser gave up, or the user's budget ran out first (an answer after it comes too
    /// late to be of use, even if the browser is still open to receive it).
    pub fn user_stopped_waiting(&self, now: Micros) -> Option<(Micros, StoppedWaiting)> {
        if let Some(a) = self.user.answer.filter(|a| self.in_budget(*a)) {
            return Some((a.answered_at, StoppedWaiting::Answered));
        }
        let budget_end = ms_i64(self.user_budget_ms);
        let gave_up = self.user.gave_up.map(|g| (g, StoppedWaiting::BrowserGaveUp));
        let ran_out = (now >= budget_end).then_some((budget_end, StoppedWaiting::BudgetRanOut));
        match (gave_up, ran_out) {
            (Some(g), Some(r)) => Some(if g.0 < r.0 { g } else { r }),
            (g, r) => g.or(r),
        }
    }

    /// Per hop: the work it did after the user stopped waiting (highlighted as waste: work for
    /// nobody), counting work still going on up to `now`.
    pub fn wasted_intervals(&self, now: Micros) -> [Option<(Micros, Micros)>; HOPS] {
        let from = self.user_stopped_waiting(now).map(|s| s.0);
        std::array::from_fn(|h| after(self.lanes[h].work_interval(now), from))
    }

    /// The first hang-up in the chain, and whose caller it was: the browser closing on A (0),
    /// A giving up on B (1) or B on C (2). From then on the user gets an error (or nothing),
    /// whatever C does.
    pub fn first_hang_up(&self) -> Option<(Micros, usize)> {
        (0..HOPS).filter_map(|h| self.lanes[h].caller_hung_up.map(|t| (t, h))).min()
    }

    /// The commit-before-abort window as of `now`: from the first hang-up (or C's start, if
    /// later) to the end of C's work, committed or stopped (or `now` while it still works). A
    /// commit by C in it lands for a user who gets an error. Without cancellation it lasts
    /// until C finishes; with it, until the close has travelled down to C and its abort has
    /// taken effect. None when nobody hung up while C worked.
    pub fn commit_window(&self, now: Micros) -> Option<Micros> {
        let c = &self.lanes[C];
        let (hang, _) = self.first_hang_up()?;
        let from = hang.max(c.work_start?);
        let end = if c.work_outcome.is_some() { c.work_end? } else { now };
        (end > from).then(|| end - from)
    }

    /// Per hop: the work it did after its own caller hung up, up to `now`.
    pub fn after_caller_left_intervals(&self, now: Micros) -> [Option<(Micros, Micros)>; HOPS] {
        std::array::from_fn(|h| {
            let lane = &self.lanes[h];
            after(lane.work_interval(now), lane.caller_hung_up)
        })
    }
}

/// The part of `interval` from `from` on.
fn after(interval: Option<(Micros, Micros)>, from: Option<Micros>) -> Option<(Micros, Micros)> {
    let (start, end) = interval?;
    let start = start.max(from?);
    (end > start).then_some((start, end))
}

pub(super) fn total_ms(intervals: &[Option<(Micros, Micros)>; HOPS]) -> f64 {
    // A fold from +0.0: an empty f64 `sum()` is -0.0, which would print as "-0".
    intervals.iter().flatten().fold(0.0, |acc, (s, e)| acc + (e - s) as f64 / 1000.0)
}

/// A moment in ms, typed, for the metrics.
fn millis(t: Option<Micros>) -> Option<f64> {
    t.map(|t| t as f64 / 1000.0)
}

/// The same as a record's value.
fn ms_value(t: Option<Micros>) -> Value {
    millis(t).to_value()
}

fn int_value(v: Option<i64>) -> Value {
    v.map_or(Value::Null, Value::Int)
}

impl Model for DeadlineChain {
    type Config = DeadlineChainConfig;
    type Event = Event;
    type Metrics = crate::scenarios::deadline_chain::spec::DeadlineChainMetrics;

    fn new(config: DeadlineChainConfig, seed: u64, end: Micros, queue: &mut EventQueue<Event>) -> Self {
        let browser = ms_to_us(config.browser_timeout_ms);
        let mut model = Self {
            user_budget_ms: config.user_budget_ms as i64,
            work: [ms_to_us(config.a_work_ms), ms_to_us(config.b_work_ms), ms_to_us(config.c_work_ms)],
            caps: [ms_to_us(config.a_to_b_timeout_ms), ms_to_us(config.b_to_c_timeout_ms)],
            reserve_ms: config.reserve_ms as i64,
            net: ms_to_us(config.net_ms),
            handling: ms_to_us(config.handling_ms),
            late: ms_to_us(config.timer_late_ms),
            abort: ms_to_us(config.abort_ms),
            jitter: ms_to_us(config.jitter_ms),
            jitter_rng: SimRng::stream(seed, 1),
            lanes: HOP_NAMES.map(Lane::new),
            user: UserLane::default(),
            messages: Vec::with_capacity(MAX_MESSAGES),
            last_delivery: [[0; 2]; HOPS],
            timers: [HopTimers::default(); HOPS],
            browser_timer: None,
            end,
            config,
        };
        if browser > 0 {
            model.browser_timer = Some(queue.timer_at(browser + model.late, Event::BrowserTimeout));
        }
        model.send(queue, Party::User, Party::Hop(A), MsgKind::Request { header_ms: None });
        model
    }

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        match event {
            Event::Deliver { msg, log } => self.deliver(q, now, msg, log),
            Event::WorkDone { hop } => self.work_done(q, now, hop),
            Event::CallTimer { hop } => self.abort_call(q, now, hop, Reason::Timeout),
            Event::DeadlineTimer { hop } => self.deadline_passed(q, now, hop),
            Event::Resume { hop } => self.resume(q, now, hop),
            Event::BrowserTimeout => self.browser_gives_up(q, now),
        }
    }

    fn metrics(&self, now: Micros) -> Self::Metrics {
        let [a, b, c] = &self.lanes;
        let answer = self.user.answer;
        let c_outcome = match (c.work_outcome, c.work_start) {
            (Some(WorkOutcome::Finished), _) => "committed",
            (Some(WorkOutcome::Stopped(_)), _) => "stopped",
            (None, Some(_)) => "working",
            (None, None) => "not called",
        };
        Self::Metrics {
            user_answer_ms: millis(answer.map(|a| a.answered_at)),
            user_status: answer.map(|a| a.status as i64),
            user_answer_from: answer.map_or("none", |a| a.origin.name()).to_string(),
            user_in_budget: answer.map(|reply| self.in_budget(reply)),
            user_gave_up_ms: millis(self.user.gave_up),
            a_gives_up_ms: millis(a.gave_up.map(|g| g.0)),
            b_gives_up_ms: millis(b.gave_up.map(|g| g.0)),
            b_budget_told_ms: a.call_header_ms,
            c_budget_told_ms: b.call_header_ms,
            c_end_ms: millis(c.work_outcome.and(c.work_end)),
            c_outcome: c_outcome.to_string(),
            wasted_work_ms: total_ms(&self.wasted_intervals(now)),
            work_after_caller_left_ms: total_ms(&self.after_caller_left_intervals(now)),
            hops: Value::List(self.lanes.iter().map(lane_record).collect()),
            commit_window_ms: millis(self.commit_window(now)),
        }
    }

    fn config(&self) -> &DeadlineChainConfig {
        &self.config
    }

    /// Long enough for the chain to settle: in either mode nothing happens after C's work
    /// would end had nobody stopped it, plus every timer's lateness, the messages' trips and the
    /// aborts on the way back; in whole seconds, and never shorter than the default 4 s.
    fn run_length_ms(c: &DeadlineChainConfig) -> Option<u64> {
        let trip = c.net_ms + c.handling_ms + c.jitter_ms;
        let settled = c.a_work_ms
            + c.b_work_ms
            + c.c_work_ms
            + HOPS as f64 * (c.timer_late_ms + c.abort_ms)
            + MAX_MESSAGES as f64 * trip;
        let seconds = libm::ceil((settled + 100.0) / 1000.0) as u64;
        Some((seconds * 1000).max(DEFAULT_DURATION_MS))
    }
}

fn lane_record(lane: &Lane) -> Vec<(&'static str, Value)> {
    let outcome = match lane.work_outcome {
        Some(WorkOutcome::Finished) => "finished".to_string(),
        Some(WorkOutcome::Stopped(r)) => format!("stopped ({})", r.label()),
        None if lane.work_start.is_some() => "working".to_string(),
        None => "not called".to_string(),
    };
    vec![
        ("name", Value::Text(lane.name.to_string())),
        ("received_ms", ms_value(lane.received)),
        ("budget_told_ms", int_value(lane.budget_told_ms)),
        ("deadline_ms", int_value(lane.deadline_ms)),
        ("work_end_ms", ms_value(lane.work_end)),
        ("work", Value::Text(outcome)),
        ("call_sent_ms", ms_value(lane.call_sent)),
        ("gave_up_ms", ms_value(lane.gave_up.map(|g| g.0))),
        ("gave_up_why", lane.gave_up.map_or(Value::Null, |g| Value::Text(g.1.label().to_string()))),
        ("answered_ms", ms_value(lane.answered.map(|a| a.at))),
        ("status", int_value(lane.answered.map(|a| a.status as i64))),
        ("heard", lane.answered.and_then(|a| a.heard).map_or(Value::Null, Value::Bool)),
    ]
}

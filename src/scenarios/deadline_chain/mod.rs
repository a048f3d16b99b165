//! Chapter 1, Part 4: "Measured: fixed timeouts vs a propagated budget".
//!
//! One user request crosses three hops: A works 200 ms and calls B, B works 300 ms and calls
//! C, C needs 3 s. The user waits 2 s. In `fixed` mode each call has its own timeout (A→B
//! 1.8 s, B→C 2 s) and nobody listens for its caller hanging up. In `propagated` mode each
//! hop runs the chapter's deadline middleware: it turns the budget it was told into a local
//! deadline (arrival + header − reserve, on a whole-millisecond clock like `Date.now()`),
//! sends `left = deadline − now` with each call and waits `min(left, cap)`, and stops when
//! its caller leaves.
//!
//! `mode` is the pair of two switches, kept as one choice because presets and URLs name it:
//! `budget_header` (the time left travels in `x-request-timeout-ms` and becomes each hop's
//! deadline) and `listen_for_close` (a hop aborts its work or its call when its caller's
//! connection closes). `fixed` turns both off, `propagated` both on; with `fixed` either switch
//! alone shows what that half does. Node gives neither by default: a handler is told of the
//! close by the request's `'close'` event only, and stops only if it passes an `AbortSignal`
//! on (<https://nodejs.org/api/http.html#event-close_2>).
//!
//! Everything happens through events on the queue: requests, answers and connection closes
//! are messages that take `net_ms + handling_ms` to reach the other side's code; work, call
//! timeouts and deadlines are timers that fire `timer_late_ms` late; an abort takes
//! `abort_ms` to reach the code that was working or waiting. Those small delays are what turn
//! the round numbers (200, 300, 1,800 …) into the chapter's measured ones (2,004, 1,448 …).
//!
//! Two toggles make the chapter's run explicit. The chapter's C was told 1,448 ms =
//! 2,000 − 50 − 200 − 300 − 2: one reserve in the whole chain, so A (the edge, which gets no
//! header from the browser) took the user's full budget as its deadline; `edge_reserve`
//! makes A subtract it too. And the chapter's C kept working past its own deadline until B
//! hung up; `stop_at_deadline` makes every hop's work also stop at its own deadline.

mod reading;

pub use reading::{CHAPTER_FIXED, CHAPTER_PROPAGATED, Cell, ChapterRun, Row, after_shown, kept_working_past_deadline};

use crate::sim::model::ModelOf;
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::scenario::SweepDefault;
use crate::sim::{
    EventQueue, MS, MetricSpec, Micros, Model, ParamSpec, Preset, ScenarioSpec, TimerKey, Value,
};

pub const HOPS: usize = 3;
pub const HOP_NAMES: [char; HOPS] = ['A', 'B', 'C'];
const A: usize = 0;
const C: usize = 2;
/// Each hop records at most a dozen moments; the cap only guards against a future bug.
const MAX_MARKS: usize = 24;
/// One request crosses three hops: at most a request, an answer and a close per connection.
const MAX_MESSAGES: usize = 16;

crate::choice! {
    /// How a hop limits its call, and whether it stops when its caller leaves.
    pub enum Mode {
        Fixed = ("fixed", "Fixed timeouts",
            "Each call has its own timeout, and every hop keeps working after its caller has left."),
        Propagated = ("propagated", "Propagated budget",
            "The time left travels with each call; each hop makes it its own deadline and stops when its \
             caller leaves."),
    }
}

crate::config! {
    /// What the deadline-chain model reads from its parameters.
    ///
    /// Where the defaults come from. Work (200, 300, 3,000 ms), the user's 2 s, the fixed
    /// timeouts (1.8 s, 2 s) and the 50 ms reserve are the chapter's; the browser's 10 s is Part
    /// 5's "browser 10 s > … API route deadline 2 s". The small delays are the measured run's:
    /// `timer_late_ms` 1 is Node's usual timer lateness and is what makes C's 1,448 ms
    /// (1,450 − 2 × 1 for A's and B's work timers); `net_ms` 1 is a local hop (Part 5: "inside a
    /// region a connect takes about 1 ms"); `handling_ms` 2.5 and `abort_ms` 2 are fitted to the
    /// chapter's table, which puts every figure within 3.5 ms. Closer is impossible: the table's
    /// two B give-up times differ by 546 ms, but both of B's waits start when B calls C, so they
    /// must differ by 2,000 − 1,448 = 552 ms.
    pub struct DeadlineChainConfig in PARAMS {
        pub mode: Mode = ParamSpec::choice("mode", "Mode", Mode::OPTIONS, Mode::Fixed as usize,
            "How each hop limits its call to the next one, and whether it stops when its caller leaves: \
             'Propagated budget' turns on both switches below, 'Fixed timeouts' leaves them to you."),
        pub budget_header: bool = ParamSpec::toggle("budget_header", "Send the budget on", false,
            "With fixed timeouts: each hop still sends the time left in a header, makes it its deadline and waits \
             at most that long for its call (always on with a propagated budget)."),
        pub listen_for_close: bool = ParamSpec::toggle("listen_for_close", "Stop when the caller leaves", false,
            "With fixed timeouts: each hop still listens for its caller's connection closing and aborts its work or \
             its call (always on with a propagated budget)."),
        pub user_budget_ms: f64 = ParamSpec::number("user_budget_ms", "User's budget", "ms", 2000.0,
            (100.0, 10_000.0, 50.0),
            "How long the user waits for the answer. With a propagated budget A (the edge) starts the \
             budget from it; with fixed timeouts nothing carries it: it only marks when an answer stops \
             being useful."),
        pub a_work_ms: f64 = ParamSpec::number("a_work_ms", "A's work", "ms", 200.0, (0.0, 5000.0, 10.0),
            "What A does before it calls B."),
        pub b_work_ms: f64 = ParamSpec::number("b_work_ms", "B's work", "ms", 300.0, (0.0, 5000.0, 10.0),
            "What B does before it calls C."),
        pub c_work_ms: f64 = ParamSpec::number("c_work_ms", "C's work", "ms", 3000.0, (0.0, 10_000.0, 10.0),
            "What C needs before it commits and answers."),
        pub reserve_ms: f64 = ParamSpec::number("reserve_ms", "Reserve", "ms", 50.0, (0.0, 500.0, 5.0),
            "With a propagated budget: a hop sets its deadline this much before its arrival plus the budget \
             it was told, keeping time for the wire and for writing its own reply."),
        pub edge_reserve: bool = ParamSpec::toggle("edge_reserve", "A keeps a reserve too", false,
            "Off (the chapter's run): A takes the user's whole budget as its deadline, so the \
             chain holds one reserve and C is told about 1,448 ms. On: A subtracts the reserve as \
             well, every deadline moves 50 ms earlier."),
        pub stop_at_deadline: bool = ParamSpec::toggle("stop_at_deadline", "Work stops at its own deadline", false,
            "Off (the chapter's run): a hop's own work stops only when its caller leaves; its \
             deadline bounds its outbound call. On: the work also stops when the hop's own \
             deadline passes, and the hop answers 504."),
        pub a_to_b_timeout_ms: f64 = ParamSpec::number("a_to_b_timeout_ms", "A→B timeout", "ms", 1800.0,
            (0.0, 10_000.0, 50.0),
            "A's limit on its call to B; 0 means none. With a propagated budget it is a cap: the call \
             waits for the budget left or this, whichever is shorter."),
        pub b_to_c_timeout_ms: f64 = ParamSpec::number("b_to_c_timeout_ms", "B→C timeout", "ms", 2000.0,
            (0.0, 10_000.0, 50.0),
            "B's limit on its call to C; 0 means none. With a propagated budget it is a cap, as for A."),
        pub browser_timeout_ms: f64 = ParamSpec::number("browser_timeout_ms", "Browser gives up after", "ms",
            10_000.0, (0.0, 30_000.0, 100.0),
            "When the user's browser closes the connection if no answer came; 0 means never. \
             Chapter 1 Part 5: the browser's 10 s is longer than the API's 2 s deadline."),
        pub net_ms: f64 = ParamSpec::number("net_ms", "Network, one way", "ms", 1.0, (0.0, 50.0, 0.1),
            "Time a request, an answer or a connection close spends on the wire between two hops."),
        pub handling_ms: f64 = ParamSpec::number("handling_ms", "Message handling", "ms", 2.5, (0.0, 50.0, 0.1),
            "Time from a message arriving to the receiver's code running on it: HTTP parsing, \
             middleware, an event-loop turn."),
        pub timer_late_ms: f64 = ParamSpec::number("timer_late_ms", "Timer lateness", "ms", 1.0, (0.0, 20.0, 0.1),
            "How late every timer fires (work, call timeouts, deadlines). Node's timers fire \
             about 1 ms late."),
        pub abort_ms: f64 = ParamSpec::number("abort_ms", "Abort takes", "ms", 2.0, (0.0, 20.0, 0.1),
            "Time from an abort signal firing (timeout, deadline, caller left) to the work \
             stopping or the waiting code giving up. The connection closes at once."),
        pub jitter_ms: f64 = ParamSpec::number("jitter_ms", "Network jitter", "ms", 0.0, (0.0, 20.0, 0.1),
            "Random extra delay per message, anywhere from nothing to this. 0 gives the same run \
             for every seed (the chapter's, within 3.5 ms); above 0 the seed matters."),
    }
}

const DEFAULT_DURATION_MS: u64 = 4000;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "deadline-chain",
    title: "A deadline that travels",
    chapter: "Chapter 1, Part 4: Deadlines that travel",
    summary: "A calls B calls C; C needs 3 s, the user waits 2 s. With fixed timeouts C finishes \
              for nobody; with a propagated budget every hop knows what is left and C stops when \
              B hangs up.",
    params: PARAMS,
    presets: &[
        Preset {
            id: "fixed",
            label: "Fixed timeouts",
            description: "A→B 1.8 s, B→C 2 s, no cancellation: the user gets 504 at about 2 s, C commits at \
                          3.5 s for nobody.",
            values: &[("mode", "fixed")],
        },
        Preset {
            id: "propagated",
            label: "Propagated budget",
            description: "The budget travels as a header and a hop stops when its caller leaves: B's 504 \
                          reaches the user before 2 s and C stops.",
            values: &[("mode", "propagated")],
        },
        Preset {
            id: "wrong-order",
            label: "Timeouts in the wrong order",
            description: "Inner timeouts longer than outer ones: the browser gives up at 2 s, A at 3.2 s, \
                          and B relays C's answer to nobody.",
            values: &[
                ("mode", "fixed"),
                ("browser_timeout_ms", "2000"),
                ("a_to_b_timeout_ms", "3000"),
                ("b_to_c_timeout_ms", "4000"),
            ],
        },
        Preset {
            id: "ordered",
            label: "Fixed, in the right order",
            description: "B→C shorter than A→B: the user hears B's 504 in time, but C still commits for nobody.",
            values: &[("mode", "fixed"), ("b_to_c_timeout_ms", "1400")],
        },
        Preset {
            id: "every-hop",
            label: "The middleware at every hop",
            description: "Propagated, with A keeping a reserve and every hop's work stopping at its own \
                          deadline: C gives up first and its 504 travels back.",
            values: &[("mode", "propagated"), ("edge_reserve", "true"), ("stop_at_deadline", "true")],
        },
    ],
    metrics: &[
        MetricSpec {
            key: "user_answer_ms",
            label: "User answered at",
            unit: "ms",
            help: "When A answered the user (null if the user heard nothing).",
        },
        MetricSpec { key: "user_status", label: "User got", unit: "", help: "The HTTP status the user received." },
        MetricSpec {
            key: "user_answer_from",
            label: "Answer came from",
            unit: "",
            help: "The hop whose answer A relayed: A, B or C (none if the user heard nothing).",
        },
        MetricSpec {
            key: "user_in_budget",
            label: "Within the user's budget",
            unit: "",
            help: "Whether the answer came within the user's budget.",
        },
        MetricSpec {
            key: "user_gave_up_ms",
            label: "Browser gave up at",
            unit: "ms",
            help: "When the browser closed the connection without an answer.",
        },
        MetricSpec {
            key: "a_gives_up_ms",
            label: "A gives up on B",
            unit: "ms",
            help: "When A stopped waiting for B without an answer.",
        },
        MetricSpec {
            key: "b_gives_up_ms",
            label: "B gives up on C",
            unit: "ms",
            help: "When B stopped waiting for C without an answer.",
        },
        MetricSpec {
            key: "b_budget_told_ms",
            label: "B was told",
            unit: "ms",
            help: "The budget A sent B in the header (propagated mode).",
        },
        MetricSpec {
            key: "c_budget_told_ms",
            label: "C was told",
            unit: "ms",
            help: "The budget B sent C in the header (propagated mode).",
        },
        MetricSpec { key: "c_end_ms", label: "C's work ended", unit: "ms", help: "When C committed or was stopped." },
        MetricSpec {
            key: "c_outcome",
            label: "C's work",
            unit: "",
            help: "committed, stopped, working, or not called.",
        },
        MetricSpec {
            key: "wasted_work_ms",
            label: "Work done for nobody",
            unit: "ms",
            help: "Work done by all hops after the user stopped waiting: after an answer within the \
                   user's budget, after the browser gave up, or after the budget ran out, whichever \
                   came first.",
        },
        MetricSpec {
            key: "work_after_caller_left_ms",
            label: "Work after the caller left",
            unit: "ms",
            help: "Work each hop did after its own caller hung up, summed.",
        },
        MetricSpec {
            key: "hops",
            label: "Hops",
            unit: "",
            help: "Per hop: budget, deadline, work, call, give-up and answer.",
        },
    ],
    headline: &["user_answer_ms", "b_gives_up_ms", "c_end_ms", "wasted_work_ms"],
    default_duration_ms: DEFAULT_DURATION_MS,
    sweep: SweepDefault {
        x: "user_budget_ms",
        from: 500.0,
        to: 5000.0,
        steps: 15,
        by: Some("mode"),
        metric: "wasted_work_ms",
    },
    model: &ModelOf::<DeadlineChain>::NEW,
};

/// Who sends or receives a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Party {
    User,
    Hop(usize),
}

impl Party {
    pub fn name(self) -> &'static str {
        match self {
            Party::User => "user",
            Party::Hop(h) => ["A", "B", "C"][h],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsgKind {
    /// A call, with the budget header in propagated mode.
    Request { header_ms: Option<i64> },
    /// An answer; `origin` is the hop that produced it (a relay keeps it).
    Response { status: u16, origin: Party },
    /// The caller hung up (aborted the call or closed the browser tab).
    Close,
}

/// One message, as the page draws it: an arrow between two lanes.
#[derive(Clone, Copy, Debug)]
pub struct Message {
    pub from: Party,
    pub to: Party,
    pub kind: MsgKind,
    pub sent: Micros,
    pub delivered: Micros,
    /// For an answer: whether anyone was still waiting for it (known once delivered).
    pub heard: Option<bool>,
}

/// Why a hop stopped waiting or working.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The call's own timeout fired.
    Timeout,
    /// The hop's own deadline passed.
    Deadline,
    /// The hop's caller hung up.
    CallerLeft,
}

impl Reason {
    pub fn label(self) -> &'static str {
        match self {
            Reason::Timeout => "timeout",
            Reason::Deadline => "deadline",
            Reason::CallerLeft => "caller left",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Idle,
    Working,
    Calling,
    /// An abort fired; it takes effect `abort_ms` later.
    Aborting {
        reason: Reason,
        was_working: bool,
    },
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkOutcome {
    Finished,
    Stopped(Reason),
}

/// What a hop answered its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    pub at: Micros,
    pub status: u16,
    pub origin: Party,
    /// Whether the caller was still waiting when it arrived (known once delivered).
    pub heard: Option<bool>,
}

/// A moment on a hop's lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    Received,
    WorkFinished,
    WorkStopped,
    CallSent,
    CallAnswered,
    DeadlinePassed,
    GaveUp,
    FailedFast,
    CallerLeft,
    Answered,
    /// The callee's answer arrived after this hop stopped waiting: for nobody.
    LateAnswer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub t: Micros,
    pub kind: MarkKind,
}

/// Everything the page needs to draw one hop's swimlane.
#[derive(Clone, Debug)]
pub struct Lane {
    pub name: char,
    pub phase: Phase,
    /// When its code started on the request.
    pub received: Option<Micros>,
    /// The budget it started from: the header (B, C) or the user's budget (A); propagated only.
    pub budget_told_ms: Option<i64>,
    /// Its local deadline on the whole-millisecond clock; propagated only. The budget left
    /// at time t is `deadline_ms − t`.
    pub deadline_ms: Option<i64>,
    pub work_start: Option<Micros>,
    /// When its work finished or was stopped.
    pub work_end: Option<Micros>,
    pub work_outcome: Option<WorkOutcome>,
    pub call_sent: Option<Micros>,
    /// The limit it set on its call (None: it would wait forever).
    pub call_timeout: Option<Micros>,
    /// The budget it told its callee; propagated only.
    pub call_header_ms: Option<i64>,
    pub gave_up: Option<(Micros, Reason)>,
    /// Its budget was gone when its work finished, so it answered 504 without calling.
    pub failed_fast: Option<Micros>,
    /// When its caller hung up (the close left the caller).
    pub caller_hung_up: Option<Micros>,
    /// When the close reached its code.
    pub caller_left_noticed: Option<Micros>,
    pub deadline_passed: Option<Micros>,
    pub answered: Option<Answer>,
    marks: Vec<Mark>,
}

impl Lane {
    fn new(name: char) -> Self {
        Self {
            name,
            phase: Phase::Idle,
            received: None,
            budget_told_ms: None,
            deadline_ms: None,
            work_start: None,
            work_end: None,
            work_outcome: None,
            call_sent: None,
            call_timeout: None,
            call_header_ms: None,
            gave_up: None,
            failed_fast: None,
            caller_hung_up: None,
            caller_left_noticed: None,
            deadline_passed: None,
            answered: None,
            marks: Vec::with_capacity(MAX_MARKS),
        }
    }

    /// Its moments in the order they happened.
    pub fn marks(&self) -> &[Mark] {
        &self.marks
    }

    /// Its work so far: start and end (`now` while it is still working).
    pub fn work_interval(&self, now: Micros) -> Option<(Micros, Micros)> {
        self.work_start.map(|s| (s, self.work_end.unwrap_or(now)))
    }

    /// How much of its budget is left at `t_ms`; propagated only.
    pub fn budget_left_ms(&self, t_ms: f64) -> Option<f64> {
        self.deadline_ms.map(|d| d as f64 - t_ms)
    }

    fn mark(&mut self, t: Micros, kind: MarkKind) {
        if self.marks.len() < MAX_MARKS {
            self.marks.push(Mark { t, kind });
        }
    }
}

/// What the user saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserAnswer {
    /// When A answered (the chapter's "A answers the user").
    pub answered_at: Micros,
    /// When it reached the browser.
    pub received: Micros,
    pub status: u16,
    pub origin: Party,
}

/// Why the user stopped waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoppedWaiting {
    /// A's answer came within the user's budget.
    Answered,
    /// The browser closed the connection before an answer came.
    BrowserGaveUp,
    /// The user's budget ran out with no answer yet: whatever comes later is too late.
    BudgetRanOut,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct UserLane {
    pub answer: Option<UserAnswer>,
    pub gave_up: Option<Micros>,
}

impl UserLane {
    /// When the user's wait ended: A answered (and it was heard) or the browser gave up.
    pub fn done(&self) -> Option<Micros> {
        self.answer.map(|a| a.answered_at).or(self.gave_up)
    }

    fn waiting(&self) -> bool {
        self.answer.is_none() && self.gave_up.is_none()
    }
}

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
    config: DeadlineChainConfig,
    /// When the run ends.
    end: Micros,
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

fn total_ms(intervals: &[Option<(Micros, Micros)>; HOPS]) -> f64 {
    // A fold from +0.0: an empty f64 `sum()` is -0.0, which would print as "-0".
    intervals.iter().flatten().fold(0.0, |acc, (s, e)| acc + (e - s) as f64 / 1000.0)
}

fn ms_value(t: Option<Micros>) -> Value {
    t.map_or(Value::Null, |t| Value::num(t as f64 / 1000.0))
}

fn int_value(v: Option<i64>) -> Value {
    v.map_or(Value::Null, Value::Int)
}

impl Model for DeadlineChain {
    type Config = DeadlineChainConfig;
    type Event = Event;

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

    fn metrics(&self, now: Micros) -> Vec<(&'static str, Value)> {
        let [a, b, c] = &self.lanes;
        let answer = self.user.answer;
        let c_outcome = match (c.work_outcome, c.work_start) {
            (Some(WorkOutcome::Finished), _) => "committed",
            (Some(WorkOutcome::Stopped(_)), _) => "stopped",
            (None, Some(_)) => "working",
            (None, None) => "not called",
        };
        let in_budget = |reply: UserAnswer| Value::Bool(self.in_budget(reply));
        vec![
            ("user_answer_ms", ms_value(answer.map(|a| a.answered_at))),
            ("user_status", int_value(answer.map(|a| a.status as i64))),
            ("user_answer_from", Value::Text(answer.map_or("none", |a| a.origin.name()).to_string())),
            ("user_in_budget", answer.map_or(Value::Null, in_budget)),
            ("user_gave_up_ms", ms_value(self.user.gave_up)),
            ("a_gives_up_ms", ms_value(a.gave_up.map(|g| g.0))),
            ("b_gives_up_ms", ms_value(b.gave_up.map(|g| g.0))),
            ("b_budget_told_ms", int_value(a.call_header_ms)),
            ("c_budget_told_ms", int_value(b.call_header_ms)),
            ("c_end_ms", ms_value(c.work_outcome.and(c.work_end))),
            ("c_outcome", Value::Text(c_outcome.to_string())),
            ("wasted_work_ms", Value::num(total_ms(&self.wasted_intervals(now)))),
            ("work_after_caller_left_ms", Value::num(total_ms(&self.after_caller_left_intervals(now)))),
            ("hops", Value::List(self.lanes.iter().map(lane_record).collect())),
        ]
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

impl DeadlineChain {
    /// Puts a message on the wire; it reaches the receiver's code after network, handling and
    /// jitter, never before an earlier message on the same connection.
    fn send(&mut self, q: &mut EventQueue<Event>, from: Party, to: Party, kind: MsgKind) {
        let now = q.now();
        // A connection is named by its callee; answers travel back on it.
        let (callee, dir) = match kind {
            MsgKind::Response { .. } => (from, 1),
            _ => (to, 0),
        };
        let conn = match callee {
            Party::Hop(c) => c,
            Party::User => A, // never a callee
        };
        let jitter = if self.jitter > 0 { (self.jitter_rng.uniform() * self.jitter as f64) as Micros } else { 0 };
        let at = (now + self.net + self.handling + jitter).max(self.last_delivery[conn][dir]);
        self.last_delivery[conn][dir] = at;
        let msg = Message { from, to, kind, sent: now, delivered: at, heard: None };
        let log = self.messages.len();
        if log < MAX_MESSAGES {
            self.messages.push(msg);
        }
        q.schedule_at(at, Event::Deliver { msg, log });
    }

    fn deliver(&mut self, q: &mut EventQueue<Event>, now: Micros, msg: Message, log: usize) {
        match (msg.to, msg.kind) {
            (Party::Hop(h), MsgKind::Request { header_ms }) => self.start(q, now, h, header_ms),
            (Party::Hop(h), MsgKind::Close) => self.caller_left(q, now, h),
            (Party::Hop(h), MsgKind::Response { status, origin }) => {
                let heard = self.lanes[h].phase == Phase::Calling;
                self.mark_heard(msg.from, log, heard);
                if heard {
                    self.lanes[h].mark(now, MarkKind::CallAnswered);
                    self.finish(q, h);
                    self.answer(q, now, h, status, origin);
                } else {
                    self.lanes[h].mark(now, MarkKind::LateAnswer);
                }
            }
            (Party::User, MsgKind::Response { status, origin }) => {
                let heard = self.user.waiting();
                self.mark_heard(msg.from, log, heard);
                if heard {
                    self.user.answer = Some(UserAnswer { answered_at: msg.sent, received: now, status, origin });
                    if let Some(browser) = self.browser_timer.take() {
                        q.cancel(browser);
                    }
                }
            }
            (Party::User, _) => {}
        }
    }

    fn mark_heard(&mut self, from: Party, log: usize, heard: bool) {
        if let Some(m) = self.messages.get_mut(log) {
            m.heard = Some(heard);
        }
        if let Party::Hop(f) = from
            && let Some(answer) = self.lanes[f].answered.as_mut()
        {
            answer.heard = Some(heard);
        }
    }

    /// The request reaches hop `h`'s code: the middleware sets the deadline, the work starts.
    fn start(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize, header_ms: Option<i64>) {
        let late = self.late;
        if self.propagated() {
            // The browser sends no header: A, the edge, starts from the user's budget.
            let budget = header_ms.unwrap_or(self.user_budget_ms);
            let reserve = if h == A && !self.config.edge_reserve { 0 } else { self.reserve_ms };
            let at = clock_ms(now) + budget - reserve;
            let lane = &mut self.lanes[h];
            lane.budget_told_ms = Some(budget);
            lane.deadline_ms = Some(at);
            // AbortSignal.timeout(Math.max(0, at - Date.now())).
            self.timers[h].deadline =
                Some(q.timer_in(ms_i64(at - clock_ms(now)) + late, Event::DeadlineTimer { hop: h }));
        }
        let lane = &mut self.lanes[h];
        lane.received = Some(now);
        lane.mark(now, MarkKind::Received);
        lane.phase = Phase::Working;
        lane.work_start = Some(now);
        self.timers[h].work = Some(q.timer_in(self.work[h] + late, Event::WorkDone { hop: h }));
    }

    /// The work timer is withdrawn when the work is stopped, so the hop is still working here,
    /// or aborting its work.
    fn work_done(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize) {
        let lane = &mut self.lanes[h];
        // Work can also complete after an abort was sent but before it took effect: C's commit
        // then stands, while A or B cannot call on with an aborted signal and will answer when
        // the abort lands.
        let aborting = matches!(lane.phase, Phase::Aborting { .. });
        lane.work_end = Some(now);
        lane.work_outcome = Some(WorkOutcome::Finished);
        lane.mark(now, MarkKind::WorkFinished);
        if h == C {
            self.finish(q, h);
            self.answer(q, now, h, 200, Party::Hop(C));
        } else if !aborting {
            self.call(q, now, h);
        }
    }

    /// Hop `h` calls the next hop: `forCall(cap)` in propagated mode, a plain timeout otherwise.
    fn call(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize) {
        let cap = self.caps[h];
        let (limit, header_ms) = if self.propagated() {
            let left = self.lanes[h].deadline_ms.unwrap_or(0) - clock_ms(now);
            if left <= 0 {
                let lane = &mut self.lanes[h];
                lane.failed_fast = Some(now);
                lane.mark(now, MarkKind::FailedFast);
                self.finish(q, h);
                self.answer(q, now, h, 504, Party::Hop(h));
                return;
            }
            let left_us = ms_i64(left);
            (Some(if cap > 0 { left_us.min(cap) } else { left_us }), Some(left))
        } else {
            ((cap > 0).then_some(cap), None)
        };
        let lane = &mut self.lanes[h];
        lane.phase = Phase::Calling;
        lane.call_sent = Some(now);
        lane.call_timeout = limit;
        lane.call_header_ms = header_ms;
        lane.mark(now, MarkKind::CallSent);
        if let Some(limit) = limit {
            self.timers[h].call = Some(q.timer_in(limit + self.late, Event::CallTimer { hop: h }));
        }
        self.send(q, Party::Hop(h), Party::Hop(h + 1), MsgKind::Request { header_ms });
    }

    /// The deadline timer is withdrawn when the hop is done, so the hop is still busy here.
    fn deadline_passed(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize) {
        let phase = self.lanes[h].phase;
        let lane = &mut self.lanes[h];
        lane.deadline_passed = Some(now);
        lane.mark(now, MarkKind::DeadlinePassed);
        match phase {
            Phase::Calling => self.abort_call(q, now, h, Reason::Deadline),
            Phase::Working if self.config.stop_at_deadline => self.abort(q, h, Reason::Deadline, true),
            _ => {}
        }
    }

    /// The call's signal fired: the connection to the callee closes at once, the waiting code
    /// gives up `abort_ms` later.
    fn abort_call(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize, reason: Reason) {
        if let Some(call) = self.timers[h].call.take() {
            q.cancel(call);
        }
        self.lanes[h + 1].caller_hung_up.get_or_insert(now);
        self.send(q, Party::Hop(h), Party::Hop(h + 1), MsgKind::Close);
        self.abort(q, h, reason, false);
    }

    fn abort(&mut self, q: &mut EventQueue<Event>, h: usize, reason: Reason, was_working: bool) {
        self.lanes[h].phase = Phase::Aborting { reason, was_working };
        self.timers[h].abort = Some(q.timer_in(self.abort, Event::Resume { hop: h }));
    }

    /// The abort takes effect: the work stops or the wait ends; the hop answers 504 unless
    /// its caller is gone.
    fn resume(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize) {
        let Phase::Aborting { reason, was_working } = self.lanes[h].phase else {
            unreachable!("the abort timer is withdrawn when its hop is done")
        };
        let lane = &mut self.lanes[h];
        if !was_working {
            lane.gave_up = Some((now, reason));
            lane.mark(now, MarkKind::GaveUp);
        } else if lane.work_outcome.is_none() {
            lane.work_end = Some(now);
            lane.work_outcome = Some(WorkOutcome::Stopped(reason));
            lane.mark(now, MarkKind::WorkStopped);
        }
        self.finish(q, h);
        if reason != Reason::CallerLeft {
            self.answer(q, now, h, 504, Party::Hop(h));
        }
    }

    /// The close from hop `h`'s caller reaches its code. Only a hop that listens stops.
    fn caller_left(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize) {
        let lane = &mut self.lanes[h];
        lane.caller_left_noticed = Some(now);
        lane.mark(now, MarkKind::CallerLeft);
        if !self.listens_for_close() {
            return;
        }
        match self.lanes[h].phase {
            Phase::Working => self.abort(q, h, Reason::CallerLeft, true),
            Phase::Calling => self.abort_call(q, now, h, Reason::CallerLeft),
            _ => {}
        }
    }

    /// Hop `h` is done: nothing it was waiting for matters any more, so its timers are
    /// withdrawn (cancelling one that already fired does nothing).
    fn finish(&mut self, q: &mut EventQueue<Event>, h: usize) {
        self.lanes[h].phase = Phase::Done;
        let HopTimers { work, call, deadline, abort } = std::mem::take(&mut self.timers[h]);
        for timer in [work, call, deadline, abort].into_iter().flatten() {
            q.cancel(timer);
        }
    }

    /// The browser closes the connection; its timer is withdrawn if an answer came first.
    fn browser_gives_up(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.user.gave_up = Some(now);
        self.lanes[A].caller_hung_up = Some(now);
        self.send(q, Party::User, Party::Hop(A), MsgKind::Close);
    }

    fn answer(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize, status: u16, origin: Party) {
        let lane = &mut self.lanes[h];
        lane.answered = Some(Answer { at: now, status, origin, heard: None });
        lane.mark(now, MarkKind::Answered);
        let caller = if h == A { Party::User } else { Party::Hop(h - 1) };
        self.send(q, Party::Hop(h), caller, MsgKind::Response { status, origin });
    }
}

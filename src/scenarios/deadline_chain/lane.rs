//! The swimlanes: what each hop did and when, and what the user saw.

use super::message::Party;
use crate::sim::Micros;

/// Each hop records at most a dozen moments; the cap only guards against a future bug.
const MAX_MARKS: usize = 24;

/// Why a hop stopped waiting or working.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
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
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
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
    pub(super) fn new(name: char) -> Self {
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

    pub(super) fn mark(&mut self, t: Micros, kind: MarkKind) {
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
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
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

    pub(super) fn waiting(&self) -> bool {
        self.answer.is_none() && self.gave_up.is_none()
    }
}

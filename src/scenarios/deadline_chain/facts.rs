//! What a deadline-chain run shows, taken from the run once: who answered the user and when,
//! who gave up when, what C's work came to and whether anyone was still waiting for it, the
//! work done for nobody and the commit window. "After the user stopped waiting" has one anchor,
//! `user_stopped_at_us`. Every sentence (`reading/`) restates these and nothing else, besides
//! the settings it names.

use super::chapter::{TableClaim, TableLine, table_claim};
use super::lane::{Phase, Reason, StoppedWaiting, WorkOutcome};
use super::message::Party;
use super::moment::Moment;
use super::model::{C, DeadlineChain, total_ms};
use super::shown::{after_shown, ms_of};
use crate::sim::Micros;

/// What a deadline-chain run shows (times in µs from the user's request).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct DeadlineChainFacts {
    /// The moment these facts are of.
    pub now_us: Micros,
    /// The run has reached its end.
    pub finished: bool,
    /// How long the user waits (their budget).
    pub user_budget_us: Micros,
    /// What the user got so far.
    pub user: UserGot,
    /// When the user stopped waiting, if they have: the one anchor for "after the user stopped waiting".
    pub user_stopped_at_us: Option<Micros>,
    /// Why the user stopped waiting.
    pub user_stopped_why: Option<StoppedWaiting>,
    /// When A gave up on B, and why.
    pub a_gave_up: Option<GaveUp>,
    /// When B gave up on C, and why.
    pub b_gave_up: Option<GaveUp>,
    /// What C's work came to.
    pub c_work: CWork,
    /// Work done after the user stopped waiting, every hop's (ms, to 0.1).
    pub wasted_ms: f64,
    /// The commit-before-abort window: from the first hang-up to the end of C's work.
    pub commit_window_us: Option<Micros>,
    /// Who hung up first, and when (the window's start, unless C started later).
    pub first_hang_up: Option<HangUp>,
    /// Whether every hop stops when its caller's connection closes (a propagated budget, or
    /// listening for the close).
    pub listens_for_close: bool,
    /// Once C committed: whether it had already seen its caller hang up (its abort had not yet
    /// taken effect) rather than committing before the close reached it.
    pub c_saw_close_before_commit: Option<bool>,
    /// Every moment so far, in time order: the text equivalent of the timeline.
    pub moments: Vec<Moment>,
    /// The chapter's table for the run's mode: this run's cells beside the chapter's.
    pub table: Vec<TableLine>,
    /// How this run's column compares with the chapter's.
    pub table_claim: TableClaim,
}

/// The first hang-up of the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct HangUp {
    /// When the connection closed.
    pub at_us: Micros,
    /// The hop whose caller hung up on it: 0 when the browser hung up on A, 1 when A hung up on
    /// B, 2 when B hung up on C.
    pub on_hop: usize,
}

/// What the user got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum UserGot {
    /// A answered with `status`, produced by `origin`; `late_by_us` after the budget ran out, unless in budget.
    Answered { status: u16, origin: Party, at_us: Micros, in_budget: bool, late_by_us: Micros },
    /// The browser gave up with no answer.
    BrowserGaveUp { at_us: Micros },
    /// Before Play.
    NotStarted,
    /// The budget ran out with no answer (the browser still open).
    BudgetRanOut,
    /// Still within the budget, waiting.
    Waiting,
}

/// A hop giving up on its call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct GaveUp {
    /// When.
    pub at_us: Micros,
    /// Why: its timeout, its deadline, or its caller left.
    pub why: Reason,
}

/// What C's work came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum CWork {
    /// C committed at `at_us`; `for_nobody_by_us` after the user stopped waiting, if it was after (as shown, to 0.1 ms).
    Committed { at_us: Micros, for_nobody_by_us: Option<Micros> },
    /// C stopped at `at_us`, for `why`.
    Stopped { at_us: Micros, why: Reason },
    /// C is still working.
    Working,
    /// The chain ended without calling C.
    NeverCalled,
    /// C has not been called yet.
    NotCalledYet,
}

impl DeadlineChainFacts {
    /// B gave up on C after the user had stopped waiting (as the metrics show the times).
    pub fn b_gave_up_after_user_left(&self) -> bool {
        matches!((self.b_gave_up, self.user_stopped_at_us), (Some(g), Some(s)) if after_shown(s, g.at_us))
    }
}

impl DeadlineChain {
    /// The facts of this run at `now`.
    pub fn facts(&self, now: Micros) -> DeadlineChainFacts {
        let stopped = self.user_stopped_waiting(now);
        let [a, b, _] = self.lanes();
        let table = self.table(now);
        DeadlineChainFacts {
            now_us: now,
            finished: self.finished(now),
            user_budget_us: ms_of(self.user_budget_ms()),
            user: self.user_got(now),
            user_stopped_at_us: stopped.map(|s| s.0),
            user_stopped_why: stopped.map(|s| s.1),
            a_gave_up: a.gave_up.map(|(at_us, why)| GaveUp { at_us, why }),
            b_gave_up: b.gave_up.map(|(at_us, why)| GaveUp { at_us, why }),
            c_work: self.c_work(now),
            wasted_ms: self.wasted_ms(now),
            commit_window_us: self.commit_window(now),
            first_hang_up: self.first_hang_up().map(|(at_us, on_hop)| HangUp { at_us, on_hop }),
            listens_for_close: self.listens_for_close(),
            c_saw_close_before_commit: self.c_saw_close_before_commit(),
            moments: self.moments(now),
            table_claim: table_claim(&table, self.finished(now)),
            table,
        }
    }

    fn c_saw_close_before_commit(&self) -> Option<bool> {
        let c = &self.lanes()[C];
        match (c.work_outcome, c.work_end) {
            (Some(WorkOutcome::Finished), Some(end)) => Some(c.caller_left_noticed.is_some_and(|t| t <= end)),
            _ => None,
        }
    }

    fn user_got(&self, now: Micros) -> UserGot {
        let user = self.user();
        let budget_end = ms_of(self.user_budget_ms());
        match (user.answer, user.gave_up) {
            (Some(a), _) => UserGot::Answered {
                status: a.status,
                origin: a.origin,
                at_us: a.answered_at,
                in_budget: self.in_budget(a),
                late_by_us: a.answered_at.saturating_sub(budget_end),
            },
            (None, Some(at_us)) => UserGot::BrowserGaveUp { at_us },
            _ if now == 0 => UserGot::NotStarted,
            _ if now >= budget_end => UserGot::BudgetRanOut,
            _ => UserGot::Waiting,
        }
    }

    fn c_work(&self, now: Micros) -> CWork {
        let c = &self.lanes()[C];
        let stop = self.stopped(now);
        match (c.work_outcome, c.work_end, c.work_start) {
            (Some(WorkOutcome::Finished), Some(at_us), _) => CWork::Committed {
                at_us,
                for_nobody_by_us: stop.filter(|&s| after_shown(s, at_us)).map(|s| at_us - s),
            },
            (Some(WorkOutcome::Stopped(why)), Some(at_us), _) => CWork::Stopped { at_us, why },
            (None, _, Some(_)) => CWork::Working,
            _ if self.finished(now) || self.lanes()[1].phase == Phase::Done => CWork::NeverCalled,
            _ => CWork::NotCalledYet,
        }
    }

    pub(super) fn finished(&self, now: Micros) -> bool {
        now >= self.end
    }

    /// When the user stopped waiting, as of `now`.
    pub(super) fn stopped(&self, now: Micros) -> Option<Micros> {
        self.user_stopped_waiting(now).map(|s| s.0)
    }

    pub(super) fn wasted_ms(&self, now: Micros) -> f64 {
        // As the metric reports it (rounded to 0.1 ms).
        crate::sim::Value::num(total_ms(&self.wasted_intervals(now))).as_f64().unwrap_or(0.0)
    }
}

//! Every moment of a deadline-chain run so far, as facts: the text equivalent of the timeline.
//! Each moment carries what its sentence says about it, read once from the lanes, the messages
//! and the user's side, so `reading/moments.rs` renders it without looking at the model.

use super::shown::ms_of;
use super::lane::{Lane, MarkKind, Reason, StoppedWaiting, WorkOutcome};
use super::message::{MsgKind, Party};
use super::model::DeadlineChain;
use crate::sim::Micros;
use crate::sim::base::sort_short;

/// One moment of the run.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct Moment {
    /// When it happened (µs from the user's request).
    pub at_us: Micros,
    /// What happened.
    pub what: Happened,
}

/// What happened at a moment. `hop` is 0 for A, 1 for B, 2 for C.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Happened {
    /// The user's request leaves the browser; the user will wait `budget_us`.
    RequestLeft { budget_us: Micros },
    /// The hop's code starts on the request, with no budget to start from.
    Received { hop: usize },
    /// The hop starts from a budget of `budget_ms` (A: the user's; B, C: the header) and makes
    /// `deadline_ms` its deadline, less `reserve_ms` (A: only with the edge reserve).
    ReceivedWithBudget { hop: usize, budget_ms: i64, deadline_ms: i64, reserve_ms: Option<f64> },
    /// The hop's work finished (C's ends in its commit).
    WorkFinished { hop: usize },
    /// The hop's work stopped, for `why` once its outcome is known.
    WorkStopped { hop: usize, why: Option<Reason> },
    /// The hop called the next, telling it `header_ms` and waiting at most `timeout_us`.
    CallSent { hop: usize, header_ms: Option<i64>, timeout_us: Option<Micros> },
    /// The hop got the next hop's answer (`status`, once it is known).
    CallAnswered { hop: usize, status: Option<u16> },
    /// The hop's deadline passed; `kept_working`: its work ran on past it.
    DeadlinePassed { hop: usize, kept_working: bool },
    /// The hop gave up on the next, for `why` once known.
    GaveUp { hop: usize, why: Option<Reason> },
    /// The hop had no budget left and answered 504 without calling the next.
    FailedFast { hop: usize },
    /// The close from the hop's caller reached it; `listens`: it stops on it.
    CallerLeft { hop: usize, listens: bool },
    /// The hop answered its caller.
    Answered { hop: usize, answer: Option<HopAnswer> },
    /// The next hop's answer came after the hop stopped waiting.
    LateAnswer { hop: usize },
    /// The hop hung up on `on`: the connection closed.
    HungUp { hop: usize, on: usize },
    /// The user got `status`, produced by `origin`.
    UserGot { status: u16, origin: Party },
    /// The browser gave up and closed its connection to A.
    BrowserGaveUp,
    /// The user's budget ran out: an answer from now on comes too late.
    BudgetRanOut,
}

/// A hop's answer to its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct HopAnswer {
    pub status: u16,
    /// The hop that produced it (a relay keeps it).
    pub origin: Party,
    /// Its caller had stopped waiting when it arrived.
    pub for_nobody: bool,
}

/// Whether the hop's work carried on past its deadline (rather than stopping because of it).
pub fn kept_working_past_deadline(lane: &Lane) -> bool {
    match (lane.deadline_passed, lane.work_start, lane.work_outcome) {
        (_, _, Some(WorkOutcome::Stopped(Reason::Deadline))) => false,
        (Some(d), Some(s), _) => s <= d && lane.work_end.is_none_or(|e| e > d),
        _ => false,
    }
}

impl DeadlineChain {
    /// Every moment so far, in time order; what happened at the same moment keeps the order
    /// it is listed in (the request, each hop's marks, the hang-ups, the user's side).
    pub fn moments(&self, now: Micros) -> Vec<Moment> {
        let mut out: Vec<Moment> = Vec::with_capacity(48);
        out.push(Moment { at_us: 0, what: Happened::RequestLeft { budget_us: ms_of(self.user_budget_ms()) } });
        for (h, lane) in self.lanes().iter().enumerate() {
            out.extend(lane.marks().iter().map(|m| Moment { at_us: m.t, what: self.mark_moment(h, lane, m.kind) }));
        }
        for m in self.messages() {
            if let (MsgKind::Close, Party::Hop(hop), Party::Hop(on)) = (m.kind, m.from, m.to) {
                out.push(Moment { at_us: m.sent, what: Happened::HungUp { hop, on } });
            }
        }
        let user = self.user();
        if let Some(a) = user.answer {
            out.push(Moment { at_us: a.received, what: Happened::UserGot { status: a.status, origin: a.origin } });
        }
        if let Some(g) = user.gave_up {
            out.push(Moment { at_us: g, what: Happened::BrowserGaveUp });
        }
        if let Some((t, StoppedWaiting::BudgetRanOut)) = self.user_stopped_waiting(now) {
            out.push(Moment { at_us: t, what: Happened::BudgetRanOut });
        }
        sort_short(&mut out, |m| m.at_us);
        out
    }

    fn mark_moment(&self, hop: usize, lane: &Lane, kind: MarkKind) -> Happened {
        match kind {
            MarkKind::Received => self.received(hop, lane),
            MarkKind::WorkFinished => Happened::WorkFinished { hop },
            MarkKind::WorkStopped => Happened::WorkStopped {
                hop,
                why: match lane.work_outcome {
                    Some(WorkOutcome::Stopped(why)) => Some(why),
                    _ => None,
                },
            },
            MarkKind::CallSent => {
                Happened::CallSent { hop, header_ms: lane.call_header_ms, timeout_us: lane.call_timeout }
            }
            MarkKind::CallAnswered => Happened::CallAnswered {
                hop,
                status: self.lanes().get(hop + 1).and_then(|l| l.answered).map(|a| a.status),
            },
            MarkKind::DeadlinePassed => Happened::DeadlinePassed { hop, kept_working: kept_working_past_deadline(lane) },
            MarkKind::GaveUp => Happened::GaveUp { hop, why: lane.gave_up.map(|g| g.1) },
            MarkKind::FailedFast => Happened::FailedFast { hop },
            MarkKind::CallerLeft => Happened::CallerLeft { hop, listens: self.listens_for_close() },
            MarkKind::Answered => Happened::Answered {
                hop,
                answer: lane.answered.map(|a| HopAnswer {
                    status: a.status,
                    origin: a.origin,
                    for_nobody: a.heard == Some(false),
                }),
            },
            MarkKind::LateAnswer => Happened::LateAnswer { hop },
        }
    }

    /// A hop starting on the request: from a budget it was told (propagated), or not.
    fn received(&self, hop: usize, lane: &Lane) -> Happened {
        match (self.propagated(), lane.budget_told_ms, lane.deadline_ms) {
            (true, Some(budget_ms), Some(deadline_ms)) => {
                // A, the edge, subtracts the reserve only with the edge reserve switched on.
                let reserve = hop > 0 || self.config.edge_reserve;
                let reserve_ms = reserve.then_some(self.config.reserve_ms);
                Happened::ReceivedWithBudget { hop, budget_ms, deadline_ms, reserve_ms }
            }
            _ => Happened::Received { hop },
        }
    }
}

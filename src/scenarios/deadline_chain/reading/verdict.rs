//! The verdict: what the user got and what C's work was for; and the notes under the stat cards.

use super::words::when;
use crate::format;
use crate::scenarios::deadline_chain::facts::{CWork, DeadlineChainFacts, UserGot, after_shown};
use crate::scenarios::deadline_chain::model::C;
use crate::scenarios::deadline_chain::{DeadlineChain, Party, WorkOutcome};
use crate::sim::Micros;

/// The verdict: what the user got, then (once they stopped waiting) what C's work came to and
/// the work done for nobody.
pub fn verdict(f: &DeadlineChainFacts) -> String {
    let out = user_sentence(f);
    if f.user_stopped_at_us.is_none() {
        return out;
    }
    let so_far = if f.finished { "" } else { " so far" };
    format!("{out}{} Work done for nobody{so_far}: {}.", c_sentence(f), format::ms(f.wasted_ms))
}

fn user_sentence(f: &DeadlineChainFacts) -> String {
    let budget = when(f.user_budget_us);
    match f.user {
        UserGot::Answered { status, origin, at_us, in_budget, late_by_us } => {
            let from = if origin != Party::Hop(0) { format!(" (from {})", origin.name()) } else { String::new() };
            let timing = if in_budget {
                format!("within the user's {budget}")
            } else {
                format!("{} after the user's {budget} had run out: too late to be of use", when(late_by_us))
            };
            format!("A answered the user with a {status}{from} at {}, {timing}.", when(at_us))
        }
        UserGot::BrowserGaveUp { at_us } => format!("The browser gave up at {} with no answer.", when(at_us)),
        UserGot::NotStarted => "Press play or step: the user's request is on its way to A.".to_string(),
        UserGot::BudgetRanOut => {
            format!("The user's {budget} ran out with no answer: whatever comes now comes too late.")
        }
        UserGot::Waiting => format!("The user is waiting; they will wait {budget}."),
    }
}

fn c_sentence(f: &DeadlineChainFacts) -> String {
    match f.c_work {
        CWork::Committed { at_us, for_nobody_by_us: Some(by) } => {
            format!(" C committed at {}, {} after the user stopped waiting: for nobody.", when(at_us), when(by))
        }
        CWork::Committed { at_us, for_nobody_by_us: None } => format!(" C committed at {}.", when(at_us)),
        CWork::Stopped { at_us, why } => format!(" C stopped at {} ({}).", when(at_us), why.label()),
        CWork::Working => " C is still working, for nobody.".to_string(),
        CWork::NeverCalled => " C was never called.".to_string(),
        CWork::NotCalledYet => " C has not been called yet.".to_string(),
    }
}

impl DeadlineChain {
    pub(super) fn answer_note(&self) -> String {
        let user = self.user();
        match (user.answer, user.gave_up) {
            (Some(a), _) => format!("{} from {}", a.status, a.origin.name()),
            (None, Some(g)) => format!("none: browser gave up at {}", when(g)),
            _ => "the user is waiting".to_string(),
        }
    }

    pub(super) fn b_note(&self, now: Micros) -> String {
        let b = &self.lanes()[1];
        match (b.gave_up, self.stopped(now)) {
            (Some((t, why)), Some(s)) if after_shown(s, t) => format!("{}, after the user left", why.label()),
            (Some((_, why)), _) => why.label().to_string(),
            _ => String::new(),
        }
    }

    pub(super) fn c_note(&self, now: Micros) -> String {
        let c = &self.lanes()[C];
        match (c.work_outcome, c.work_end, self.stopped(now)) {
            (Some(WorkOutcome::Finished), Some(t), Some(s)) if after_shown(s, t) => "committed, for nobody".to_string(),
            (Some(WorkOutcome::Finished), _, _) => "committed".to_string(),
            (Some(WorkOutcome::Stopped(why)), _, _) => format!("stopped ({})", why.label()),
            _ if c.work_start.is_some() => "working".to_string(),
            _ => "not called yet".to_string(),
        }
    }

    pub(super) fn told_note(&self) -> String {
        if self.propagated() {
            "in x-request-timeout-ms".to_string()
        } else {
            "fixed timeouts send no budget".to_string()
        }
    }
}

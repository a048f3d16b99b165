//! The verdict: what the user got and what C's work was for; and the notes under the stat cards.

use super::words::{after_shown, ms_of, when};
use crate::format;
use crate::scenarios::deadline_chain::{DeadlineChain, Party, Phase, WorkOutcome};
use crate::scenarios::deadline_chain::model::C;
use crate::sim::Micros;

impl DeadlineChain {
    pub(super) fn verdict(&self, now: Micros) -> String {
        let user = self.user();
        let budget = when(ms_of(self.user_budget_ms()));
        let budget_end = ms_of(self.user_budget_ms());
        let mut out = match (user.answer, user.gave_up) {
            (Some(a), _) => {
                let from =
                    if a.origin != Party::Hop(0) { format!(" (from {})", a.origin.name()) } else { String::new() };
                let timing = if self.in_budget(a) {
                    format!("within the user's {budget}")
                } else {
                    format!(
                        "{} after the user's {budget} had run out: too late to be of use",
                        when(a.answered_at.saturating_sub(budget_end))
                    )
                };
                format!("A answered the user with a {}{from} at {}, {timing}.", a.status, when(a.answered_at))
            }
            (None, Some(g)) => format!("The browser gave up at {} with no answer.", when(g)),
            _ if now == 0 => "Press play or step: the user's request is on its way to A.".to_string(),
            _ if now >= budget_end => {
                format!("The user's {budget} ran out with no answer: whatever comes now comes too late.")
            }
            _ => format!("The user is waiting; they will wait {budget}."),
        };
        let Some(stop) = self.stopped(now) else { return out };
        let c = &self.lanes()[C];
        match (c.work_outcome, c.work_end, c.work_start) {
            (Some(WorkOutcome::Finished), Some(t), _) if after_shown(stop, t) => {
                out += &format!(
                    " C committed at {}, {} after the user stopped waiting: for nobody.",
                    when(t),
                    when(t - stop)
                );
            }
            (Some(WorkOutcome::Finished), Some(t), _) => out += &format!(" C committed at {}.", when(t)),
            (Some(WorkOutcome::Stopped(why)), Some(t), _) => {
                out += &format!(" C stopped at {} ({}).", when(t), why.label());
            }
            (None, _, Some(_)) => out += " C is still working, for nobody.",
            _ if self.finished(now) || self.lanes()[1].phase == Phase::Done => out += " C was never called.",
            _ => out += " C has not been called yet.",
        }
        let so_far = if self.finished(now) { "" } else { " so far" };
        out + &format!(" Work done for nobody{so_far}: {}.", format::ms(self.wasted_ms(now)))
    }

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

//! The verdict: what the user got and what C's work was for; and the notes under the stat cards.

use super::words::when;
use crate::format;
use crate::scenarios::deadline_chain::facts::{CWork, DeadlineChainFacts, UserGot};
use crate::scenarios::deadline_chain::{DeadlineChain, Party};

/// The verdict: what the user got, then (once they stopped waiting) what C's work came to and
/// the work done for nobody. When C worked on for nobody, that leads: it is the chapter's point
/// (issue 45, item 4), and the lead is what a figure shows before "Why?".
pub fn verdict(f: &DeadlineChainFacts) -> String {
    let user = user_sentence(f);
    if f.user_stopped_at_us.is_none() {
        return user;
    }
    let so_far = if f.finished { "" } else { " so far" };
    let wasted = format!("Work done for nobody{so_far}: {}.", format::ms(f.wasted_ms));
    let c = c_sentence(f);
    if for_nobody(f) { format!("{} {user} {wasted}", c.trim_start()) } else { format!("{user}{c} {wasted}") }
}

/// C committed, or works on, after the user stopped waiting.
fn for_nobody(f: &DeadlineChainFacts) -> bool {
    matches!(f.c_work, CWork::Committed { for_nobody_by_us: Some(_), .. } | CWork::Working)
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

/// The note under the answer's card: what the user got.
pub fn answer_note(f: &DeadlineChainFacts) -> String {
    match f.user {
        UserGot::Answered { status, origin, .. } => format!("{status} from {}", origin.name()),
        UserGot::BrowserGaveUp { at_us } => format!("none: browser gave up at {}", when(at_us)),
        _ => "the user is waiting".to_string(),
    }
}

/// The note under B's card: why B gave up on C, and whether the user had left by then.
pub fn b_note(f: &DeadlineChainFacts) -> String {
    match f.b_gave_up {
        // A figure's card note has one line: "user gone" for "after the user left".
        Some(g) if f.b_gave_up_after_user_left() => format!("{}; user gone", g.why.label()),
        Some(g) => g.why.label().to_string(),
        None => String::new(),
    }
}

/// The note under C's card: what C's work came to.
pub fn c_note(f: &DeadlineChainFacts) -> String {
    match f.c_work {
        CWork::Committed { for_nobody_by_us: Some(_), .. } => "committed, for nobody".to_string(),
        CWork::Committed { .. } => "committed".to_string(),
        CWork::Stopped { why, .. } => format!("stopped ({})", why.label()),
        CWork::Working => "working".to_string(),
        CWork::NeverCalled | CWork::NotCalledYet => "not called yet".to_string(),
    }
}

impl DeadlineChain {
    pub(super) fn told_note(&self) -> String {
        if self.propagated() {
            "in x-request-timeout-ms".to_string()
        } else {
            "fixed timeouts send no budget".to_string()
        }
    }
}

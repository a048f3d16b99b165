//! Chapter 1, Break 3 in words: the commit-before-abort window. Who hung up first, and what
//! C's work did after it: ran on to its commit, committed before the close reached it, or was
//! stopped by it, and how long that took.

use super::words::{hop, when};
use crate::format;
use crate::scenarios::deadline_chain::model::C;
use crate::scenarios::deadline_chain::{DeadlineChain, WorkOutcome};
use crate::sim::Micros;

impl DeadlineChain {
    /// The `commit_window` key: empty until someone hangs up while C works.
    pub(super) fn window_words(&self, now: Micros) -> String {
        let (Some(window), Some((hang, first))) = (self.commit_window(now), self.first_hang_up()) else {
            return String::new();
        };
        let who = match first {
            0 => format!("The browser gave up at {}", when(hang)),
            h => format!("{} gave up on {} at {}", hop(h - 1), hop(h), when(hang)),
        };
        let c = &self.lanes()[C];
        let work = format::ms(self.config.c_work_ms);
        let listens = self.listens_for_close();
        match (c.work_outcome, c.work_end) {
            (Some(WorkOutcome::Finished), Some(end)) if !listens => format!(
                "{who}, and nothing passed it on: C finished its {work} of work at {}, {} after {}, for nobody.",
                when(end),
                when(window),
                if first == 0 { "the user's error" } else { "it" }
            ),
            (Some(WorkOutcome::Finished), Some(end)) => {
                let before = match c.caller_left_noticed {
                    Some(t) if t <= end => "before its abort took effect",
                    _ => "before the close reached it",
                };
                format!(
                    "{who}, and every hop passes the close on, yet C committed at {}, {} later, {before}: \
                     cancellation narrows the window, it cannot close it, so the write needs an idempotency key too.",
                    when(end),
                    when(window)
                )
            }
            (Some(WorkOutcome::Stopped(why)), Some(end)) => format!(
                "{who}; C stopped at {} ({}), {} later: a commit due in those {} would still have landed, for a \
                 user who got an error. Cancellation narrows the window; it cannot close it.",
                when(end),
                why.label(),
                when(window),
                when(window)
            ),
            _ => format!("{who}, and C is still working, {} after it.", when(window)),
        }
    }
}

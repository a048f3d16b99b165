//! Chapter 1, Break 3 in words: the commit-before-abort window. Who hung up first, and what
//! C's work did after it: ran on to its commit, committed before the close reached it, or was
//! stopped by it, and how long that took. Rendered from the run's facts only.

use super::words::{hop, when};
use crate::format;
use crate::scenarios::deadline_chain::DeadlineChainConfig;
use crate::scenarios::deadline_chain::facts::{CWork, DeadlineChainFacts, HangUp};

/// The `commit_window` key: empty until someone hangs up while C works.
pub fn window_words(f: &DeadlineChainFacts, config: &DeadlineChainConfig) -> String {
    let (Some(window), Some(HangUp { at_us: hang, on_hop: first })) = (f.commit_window_us, f.first_hang_up) else {
        return String::new();
    };
    let who = match first {
        0 => format!("The browser gave up at {}", when(hang)),
        h => format!("{} gave up on {} at {}", hop(h - 1), hop(h), when(hang)),
    };
    let work = format::ms(config.c_work_ms);
    match f.c_work {
        CWork::Committed { at_us: end, .. } if !f.listens_for_close => format!(
            "{who}, and nothing passed it on: C finished its {work} of work at {}, {} after {}, for nobody.",
            when(end),
            when(window),
            if first == 0 { "the user's error" } else { "it" }
        ),
        CWork::Committed { at_us: end, .. } => {
            let before = if f.c_saw_close_before_commit == Some(true) {
                "before its abort took effect"
            } else {
                "before the close reached it"
            };
            format!(
                "{who}, and every hop passes the close on, yet C committed at {}, {} later, {before}: \
                 cancellation narrows the window, it cannot close it, so the write needs an idempotency key too.",
                when(end),
                when(window)
            )
        }
        CWork::Stopped { at_us: end, why } => format!(
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

//! The table "every fault with these settings" in words: each cell rendered from its row's
//! facts (`chapter.rs`).

use crate::scenarios::which_timeout::chapter::{Ending, FaultRow, RetryCell};
use crate::format;

/// The "First to fire" cell.
pub fn first_fired_cell(row: &FaultRow) -> String {
    match row.first_fired {
        Some((kind, t)) => format!("{} at {}", kind.label(), format::moment(t)),
        None => "none".to_string(),
    }
}

/// The "Caller sees" cell: the error and when, the body's completion, or still open.
pub fn caller_cell(row: &FaultRow) -> String {
    match row.ending {
        Ending::Failed { error, at_us } => format!("{} at {}", error.id(), format::moment(at_us)),
        Ending::Completed { at_us } => format!("completed at {}", format::moment(at_us)),
        Ending::StillOpen { at_us, phase, timeout_event } => {
            let event = if timeout_event { "timeout-event" } else { "none" };
            format!("{event}; still open at {} ({})", format::seconds(at_us), phase.label())
        }
        Ending::FailedUnseen { error } => error.id().to_string(),
    }
}

/// The "Server did the work" cell.
pub fn work_cell(row: &FaultRow) -> &'static str {
    if row.server_did_work { "yes" } else { "no" }
}

/// The "Safe to retry without a key" cell.
pub fn retry_cell(row: &FaultRow) -> &'static str {
    match row.retry {
        RetryCell::NothingToRetry => "nothing to retry",
        RetryCell::NotSentYet => "yes, if given up now: not sent yet",
        RetryCell::AlreadySent => "no: already sent",
        RetryCell::Safe => "yes",
        RetryCell::NeedsKey => "no",
    }
}

/// The chapter's figure for a row as the chapter writes it ("2,502 ms", "10.5 s", "300.9 s"), or
/// a dash where it measured other settings or none.
pub fn chapter_cell(row: &FaultRow) -> String {
    let as_written = |ms: f64| if ms < 10_000.0 { format::ms(ms) } else { format::secs(ms / 1000.0) };
    row.chapter_ms.map_or_else(|| "—".to_string(), as_written)
}

//! The chapter's table for the run's mode in words: this run's cells beside the chapter's,
//! and how they compare, rendered from the table in the facts.

use crate::format;
use crate::scenarios::deadline_chain::{DeadlineChainConfig, Mode, Party, TableCell, TableClaim, TableLine, TableRow};

/// A row, `"<row label>\t<this run>\t<the chapter's>"`; `finished`: the run has ended.
pub(super) fn row_words(line: &TableLine, finished: bool, config: &DeadlineChainConfig) -> String {
    format!("{}\t{}\t{}", label(line.row, config), cell(&line.this, finished), cell(&line.chapter, true))
}

/// A row's label (C's row names its work's length, a setting).
fn label(row: TableRow, config: &DeadlineChainConfig) -> String {
    match row {
        TableRow::Answer => "A answers the user".to_string(),
        TableRow::BGivesUp => "B gives up on C".to_string(),
        TableRow::CWork => format!("C's {} of work", format::duration_ms(config.c_work_ms)),
        TableRow::CTold => "C was told".to_string(),
    }
}

fn cell(c: &TableCell, finished: bool) -> String {
    let at = |ms: f64| format::ms(libm::round(ms));
    match *c {
        TableCell::Answered { status, origin, at_ms } => {
            let from = if origin != Party::Hop(0) { format!(", from {}", origin.name()) } else { String::new() };
            format!("{status} at {}{from}", at(at_ms))
        }
        TableCell::BrowserGaveUp { at_ms } => format!("none: the browser gave up at {}", at(at_ms)),
        TableCell::GaveUpOnC { at_ms, after_user_left } => {
            let late = if after_user_left { ", after the user already left" } else { "" };
            format!("{}{late}", at(at_ms))
        }
        TableCell::NeverCalledC => "never called C".to_string(),
        TableCell::CAnswered => "doesn't: C answered".to_string(),
        TableCell::Committed { at_ms, for_nobody } => {
            let nobody = if for_nobody { ", for nobody" } else { "" };
            format!("Finished and committed at {}{nobody}", at(at_ms))
        }
        TableCell::Stopped { at_ms, why } => format!("Stopped at {} (\u{201c}{}\u{201d})", at(at_ms), why.label()),
        TableCell::Working if finished => "Still working at the end".to_string(),
        TableCell::Working => "Working".to_string(),
        TableCell::NotStarted if finished => "Never started".to_string(),
        TableCell::NotStarted => "Not started yet".to_string(),
        TableCell::Told { ms } => at(ms),
        TableCell::NoHeader => "no header".to_string(),
        TableCell::NotYet if finished => "none by the end".to_string(),
        TableCell::NotYet => "not yet".to_string(),
    }
}

/// The caption naming the two columns' runs (the mode is a setting).
pub(super) fn caption(config: &DeadlineChainConfig) -> String {
    let mode = match config.mode {
        Mode::Fixed => "fixed timeouts",
        Mode::Propagated => "a propagated budget",
    };
    format!("The chapter's measured run with {mode}, beside this run so far")
}

/// How this run's column compares with the chapter's; the rows named by their labels.
pub(super) fn claim(claim: &TableClaim, config: &DeadlineChainConfig) -> String {
    let agree = |most: Option<f64>| {
        most.map(|d| {
            if d == 0.0 {
                "matches the chapter's figure to the millisecond".to_string()
            } else {
                format!("is within {} of the chapter's figure", format::ms(d))
            }
        })
    };
    match claim {
        TableClaim::Same { most_apart_ms } => match agree(*most_apart_ms) {
            Some(a) => format!("Every row reads as the chapter's, and every time {a}."),
            None => "Every row reads as the chapter's.".to_string(),
        },
        TableClaim::FillingIn => {
            "This run's column fills in as the run plays; the chapter's is its finished run.".to_string()
        }
        TableClaim::Differs { rows, most_apart_ms } => {
            let labels: Vec<String> = rows.iter().map(|&r| label(r, config)).collect();
            let rest = agree(*most_apart_ms).map(|a| format!("; every other time {a}")).unwrap_or_default();
            format!("This run differs from the chapter's in: {}{rest}.", labels.join("; "))
        }
    }
}

//! Every moment of the run so far, in words: the text equivalent of the timeline, rendered
//! from the moments in the facts.

use super::words::{hop, when};
use crate::format;
use crate::scenarios::deadline_chain::model::C;
use crate::scenarios::deadline_chain::{HOPS, Happened, HopAnswer, Moment, Party};

/// The `moments` key: one line per moment, `"<time>: <what happened>"`.
pub(super) fn moments_words(moments: &[Moment]) -> String {
    moments.iter().map(|m| format!("{}: {}", when(m.at_us), moment(m))).collect::<Vec<_>>().join("\n")
}

fn moment(m: &Moment) -> String {
    match m.what {
        Happened::RequestLeft { budget_us } => {
            format!("The user's request leaves the browser; the user will wait {}.", when(budget_us))
        }
        Happened::Received { hop: h } => format!("{} receives the request and starts its work.", hop(h)),
        Happened::ReceivedWithBudget { hop: h, budget_ms, deadline_ms, reserve_ms } => {
            received_with_budget(h, budget_ms, deadline_ms, reserve_ms)
        }
        Happened::WorkFinished { hop: C } => "C finishes its work and commits.".to_string(),
        Happened::WorkFinished { hop: h } => format!("{} finishes its work.", hop(h)),
        Happened::WorkStopped { hop: h, why: Some(why) } => format!("{} stops its work ({}).", hop(h), why.label()),
        Happened::WorkStopped { hop: h, why: None } => format!("{} stops its work.", hop(h)),
        Happened::CallSent { hop: h, header_ms, timeout_us } => {
            let wait = timeout_us.map_or("with no timeout".to_string(), |t| format!("and will wait at most {}", when(t)));
            match header_ms {
                Some(v) => format!("{} calls {} with x-request-timeout-ms: {v} {wait}.", hop(h), next(h)),
                None => format!("{} calls {} {wait}.", hop(h), next(h)),
            }
        }
        Happened::CallAnswered { hop: h, status: Some(s) } => format!("{} gets {}'s {s}.", hop(h), next(h)),
        Happened::CallAnswered { hop: h, status: None } => format!("{} gets {}'s answer.", hop(h), next(h)),
        Happened::DeadlinePassed { hop: h, kept_working: true } => format!(
            "{}'s deadline passes, but its work does not listen to the deadline: it keeps working.",
            hop(h)
        ),
        Happened::DeadlinePassed { hop: h, kept_working: false } => format!("{}'s deadline passes.", hop(h)),
        Happened::GaveUp { hop: h, why: Some(why) } => format!("{} gives up on {} ({}).", hop(h), next(h), why.label()),
        Happened::GaveUp { hop: h, why: None } => format!("{} gives up on {}.", hop(h), next(h)),
        Happened::FailedFast { hop: h } => {
            format!("{} has no budget left: it answers 504 without calling {}.", hop(h), next(h))
        }
        Happened::CallerLeft { hop: h, listens: true } => format!("{} sees its caller hang up.", hop(h)),
        Happened::CallerLeft { hop: h, listens: false } => {
            format!("{} sees its caller hang up, but nothing listens: it carries on.", hop(h))
        }
        Happened::Answered { hop: h, answer: Some(a) } => answered(h, a),
        Happened::Answered { hop: h, answer: None } => format!("{} answers.", hop(h)),
        Happened::LateAnswer { hop: h } => format!("{} gets {}'s answer after it stopped waiting.", hop(h), next(h)),
        Happened::HungUp { hop: h, on } => format!("{} hangs up on {}: the connection closes.", hop(h), hop(on)),
        Happened::UserGot { status, origin } => {
            let from = if origin != Party::Hop(0) { format!(" from {}", origin.name()) } else { String::new() };
            format!("The user gets {status}{from}.")
        }
        Happened::BrowserGaveUp => "The browser gives up and closes the connection to A.".to_string(),
        Happened::BudgetRanOut => {
            format!("The user's {} run out: an answer from now on comes too late.", when(m.at_us))
        }
    }
}

/// The hop after `h` (none after C).
fn next(h: usize) -> &'static str {
    if h + 1 < HOPS { hop(h + 1) } else { "" }
}

fn received_with_budget(h: usize, budget_ms: i64, deadline_ms: i64, reserve_ms: Option<f64>) -> String {
    if h == 0 {
        let reserve = reserve_ms.map(|r| format!(" (less its {} reserve)", format::ms(r))).unwrap_or_default();
        format!(
            "A receives the request. The browser sends no header, so A starts from the user's {}: its deadline is {}{reserve}.",
            format::ms(budget_ms as f64),
            format::ms(deadline_ms as f64),
        )
    } else {
        format!(
            "{} receives the request with x-request-timeout-ms: {budget_ms}. Its deadline: arrival + {budget_ms} − {} reserve = {}.",
            hop(h),
            format::ms(reserve_ms.unwrap_or_default()),
            format::ms(deadline_ms as f64)
        )
    }
}

fn answered(h: usize, a: HopAnswer) -> String {
    let caller = if h == 0 { "the user".to_string() } else { hop(h - 1).to_string() };
    let from = if a.origin != Party::Hop(h) { format!(" (from {})", a.origin.name()) } else { String::new() };
    let nobody = if a.for_nobody { format!(", for nobody: {caller} had stopped waiting") } else { String::new() };
    format!("{} answers {}{from} to {caller}{nobody}.", hop(h), a.status)
}

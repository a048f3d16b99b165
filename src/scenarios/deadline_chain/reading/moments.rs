//! Every moment of the run so far, in words: the text equivalent of the timeline.

use super::words::{hop, kept_working_past_deadline, when};
use crate::scenarios::deadline_chain::facts::ms_of;
use crate::format;
use crate::scenarios::deadline_chain::{DeadlineChain, HOPS, Lane, MarkKind, MsgKind, Party, StoppedWaiting, WorkOutcome};
use crate::scenarios::deadline_chain::model::C;
use crate::sim::Micros;
use crate::sim::base::sort_short;

impl DeadlineChain {
    /// Every moment so far, in words: the text equivalent of the timeline.
    pub fn moments(&self, now: Micros) -> Vec<(Micros, String)> {
        let lanes = self.lanes();
        let mut out: Vec<(Micros, String)> = Vec::with_capacity(48);
        out.push((
            0,
            format!(
                "The user's request leaves the browser; the user will wait {}.",
                when(ms_of(self.user_budget_ms()))
            ),
        ));
        for (h, lane) in lanes.iter().enumerate() {
            for m in lane.marks() {
                out.push((m.t, self.moment(h, lane, m.kind)));
            }
        }
        for m in self.messages() {
            if let (MsgKind::Close, Party::Hop(h), Party::Hop(to)) = (m.kind, m.from, m.to) {
                out.push((m.sent, format!("{} hangs up on {}: the connection closes.", hop(h), hop(to))));
            }
        }
        let user = self.user();
        if let Some(a) = user.answer {
            let from = if a.origin != Party::Hop(0) { format!(" from {}", a.origin.name()) } else { String::new() };
            out.push((a.received, format!("The user gets {}{from}.", a.status)));
        }
        if let Some(g) = user.gave_up {
            out.push((g, "The browser gives up and closes the connection to A.".to_string()));
        }
        if let Some((t, StoppedWaiting::BudgetRanOut)) = self.user_stopped_waiting(now) {
            out.push((t, format!("The user's {} run out: an answer from now on comes too late.", when(t))));
        }
        // In time order; what happened at the same moment keeps the order it was listed in.
        sort_short(&mut out, |m| m.0);
        out
    }

    fn moment(&self, h: usize, lane: &Lane, kind: MarkKind) -> String {
        let name = hop(h);
        let next = if h + 1 < HOPS { hop(h + 1) } else { "" };
        match kind {
            MarkKind::Received => match (self.propagated(), lane.budget_told_ms, lane.deadline_ms) {
                (true, Some(b), Some(d)) if h == 0 => format!(
                    "A receives the request. The browser sends no header, so A starts from the user's {}: its deadline is {}{}.",
                    format::ms(b as f64),
                    format::ms(d as f64),
                    if self.config.edge_reserve {
                        format!(" (less its {} reserve)", format::ms(self.config.reserve_ms))
                    } else {
                        String::new()
                    }
                ),
                (true, Some(b), Some(d)) => format!(
                    "{name} receives the request with x-request-timeout-ms: {b}. Its deadline: arrival + {b} − {} reserve = {}.",
                    format::ms(self.config.reserve_ms),
                    format::ms(d as f64)
                ),
                _ => format!("{name} receives the request and starts its work."),
            },
            MarkKind::WorkFinished if h == C => "C finishes its work and commits.".to_string(),
            MarkKind::WorkFinished => format!("{name} finishes its work."),
            MarkKind::WorkStopped => match lane.work_outcome {
                Some(WorkOutcome::Stopped(why)) => format!("{name} stops its work ({}).", why.label()),
                _ => format!("{name} stops its work."),
            },
            MarkKind::CallSent => {
                let wait = lane
                    .call_timeout
                    .map_or("with no timeout".to_string(), |t| format!("and will wait at most {}", when(t)));
                match lane.call_header_ms {
                    Some(v) => format!("{name} calls {next} with x-request-timeout-ms: {v} {wait}."),
                    None => format!("{name} calls {next} {wait}."),
                }
            }
            MarkKind::CallAnswered => match self.lanes().get(h + 1).and_then(|l| l.answered) {
                Some(a) => format!("{name} gets {next}'s {}.", a.status),
                None => format!("{name} gets {next}'s answer."),
            },
            MarkKind::DeadlinePassed if kept_working_past_deadline(lane) => {
                format!("{name}'s deadline passes, but its work does not listen to the deadline: it keeps working.")
            }
            MarkKind::DeadlinePassed => format!("{name}'s deadline passes."),
            MarkKind::GaveUp => match lane.gave_up {
                Some((_, why)) => format!("{name} gives up on {next} ({}).", why.label()),
                None => format!("{name} gives up on {next}."),
            },
            MarkKind::FailedFast => format!("{name} has no budget left: it answers 504 without calling {next}."),
            MarkKind::CallerLeft if self.listens_for_close() => format!("{name} sees its caller hang up."),
            MarkKind::CallerLeft => format!("{name} sees its caller hang up, but nothing listens: it carries on."),
            MarkKind::Answered => match lane.answered {
                Some(a) => {
                    let caller = if h == 0 { "the user".to_string() } else { hop(h - 1).to_string() };
                    let from =
                        if a.origin != Party::Hop(h) { format!(" (from {})", a.origin.name()) } else { String::new() };
                    let nobody = if a.heard == Some(false) {
                        format!(", for nobody: {caller} had stopped waiting")
                    } else {
                        String::new()
                    };
                    format!("{name} answers {}{from} to {caller}{nobody}.", a.status)
                }
                None => format!("{name} answers."),
            },
            MarkKind::LateAnswer => format!("{name} gets {next}'s answer after it stopped waiting."),
        }
    }
}

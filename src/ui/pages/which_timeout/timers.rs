//! Every armed timer as a row: its clock, what it was set to, its deadline, when it fired and
//! how late, or when it was cleared. The timeline's meters in numbers, for reading and quoting.

use leptos::prelude::*;

use crate::format;
use crate::scenarios::which_timeout::{ArmedTimer, TimerClock, WhichTimeout};
use crate::sim::{Micros, Simulation};
use crate::ui::kit::Table;
use crate::ui::runner::Runner;

/// What makes a timer late, in a few words.
fn clock_words(clock: TimerClock) -> &'static str {
    match clock {
        TimerClock::UndiciTick => "undici's 499 ms tick",
        TimerClock::NodeTimer => "Node's timer",
        TimerClock::Kernel => "the kernel",
    }
}

/// One row's cells, as text.
#[derive(Clone, PartialEq)]
struct Row {
    id: &'static str,
    name: &'static str,
    clock: &'static str,
    set_to: String,
    deadline: String,
    fired: String,
    late: String,
    outcome: String,
}

fn row(t: &ArmedTimer, now: Micros) -> Row {
    let fired = t.fired_at.filter(|&f| f <= now);
    let late = t.lateness().filter(|_| fired.is_some()).map_or(String::new(), |l| {
        let sign = if l < 0 { "−" } else { "+" };
        format!("{sign}{}", format::us_as_ms(l.unsigned_abs()))
    });
    let cleared = t.cleared_at.filter(|&c| c <= now);
    let outcome = match (fired, cleared) {
        (Some(_), _) if t.ended_call => "ended the call".to_string(),
        (Some(_), _) => "fired; ended nothing".to_string(),
        (None, Some(c)) => format!("cleared at {}", format::us_as_ms(c)),
        (None, None) => "counting".to_string(),
    };
    let resets = if t.resets > 0 { format!(" (reset {}×)", format::count(t.resets as u64)) } else { String::new() };
    Row {
        id: t.kind.id(),
        name: t.kind.label(),
        clock: clock_words(t.kind.clock()),
        set_to: format::us_as_ms(t.timeout),
        deadline: format!("{}{resets}", format::us_as_ms(t.fired_deadline.unwrap_or_else(|| t.deadline()))),
        fired: fired.map_or(String::new(), format::us_as_ms),
        late,
        outcome,
    }
}

#[component]
pub fn TimerTable(runner: Runner<WhichTimeout>) -> impl IntoView {
    let rows = Memo::new(move |_| runner.track_words(|s| s.timers().iter().map(|t| row(t, s.now())).collect::<Vec<_>>()));
    let body = move || {
        rows.get()
            .into_iter()
            .map(|r| {
                view! {
                    <tr data-timer=r.id>
                        <th scope="row">{r.name}</th>
                        <td>{r.clock}</td>
                        <td class="num">{r.set_to}</td>
                        <td class="num" data-col="deadline">{r.deadline}</td>
                        <td class="num" data-col="fired">{r.fired}</td>
                        <td class="num" data-col="late">{r.late}</td>
                        <td data-col="outcome">{r.outcome}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <Table
            hook="data-timer-table"
            caption="Every timer this call armed"
            head=&["Timer", "Clock", "Set to", "Deadline", "Fired at", "Late by", "Outcome"]
        >
            {body}
        </Table>
    }
}

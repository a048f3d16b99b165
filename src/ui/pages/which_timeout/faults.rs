//! "Every fault with these settings": the model runs the call once per fault with the reader's
//! client and timers (each run takes microseconds), one row each: what fires first and when,
//! what the caller sees, whether the server did the work, whether a plain retry is safe, and
//! what the chapter measured where these settings are its setup for that fault. A row's button
//! shows that fault in the simulation above.

use leptos::prelude::*;

use crate::format;
use crate::scenarios::which_timeout::{Fault, FaultRow, WhichTimeout, WhichTimeoutConfig, every_fault};
use crate::sim::{Config, Micros, SEC};
use crate::ui::kit::{SimState, Table};
use crate::ui::runner::Runner;

/// A moment for people: "2,502 ms" below 10 s, "10.5 s" above.
fn at(t: Micros) -> String {
    if t < 10 * SEC { format::us_as_ms(t) } else { format::seconds(t) }
}

fn first_fired(row: &FaultRow) -> String {
    match row.first_fired {
        Some((kind, t)) => format!("{} at {}", kind.label(), at(t)),
        None => "none".to_string(),
    }
}

/// How the call ended: the error and when, the body's completion, or still open.
fn ending(row: &FaultRow) -> String {
    match (row.gave_up_at, row.completed_at) {
        (Some(t), _) => format!("{} at {}", row.error, at(t)),
        (None, Some(t)) => format!("completed at {}", at(t)),
        (None, None) if row.still_open => {
            format!("{}; still open at {} ({})", row.error, format::seconds(row.run_ms * 1000), row.phase.label())
        }
        (None, None) => row.error.to_string(),
    }
}

/// The chapter's figure for a row, or a dash where it measured other settings or none.
fn chapter_cell(row: &FaultRow) -> String {
    row.chapter_ms.map_or_else(|| "—".to_string(), |ms| at((ms * 1000.0) as Micros))
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

#[component]
pub fn FaultTable(state: SimState, runner: Runner<WhichTimeout>) -> impl IntoView {
    // From the parameters, not the running model: nothing here changes while the run plays.
    let config = Memo::new(move |_| state.params.with(WhichTimeoutConfig::from_params));
    let rows = Memo::new(move |_| every_fault(&config.get()));
    let show = move |fault: Fault| {
        state.params.set(WhichTimeoutConfig { fault, ..config.get_untracked() }.to_params());
        runner.rebuild();
    };
    let body = move || {
        let current = config.get().fault;
        rows.get()
            .into_iter()
            .map(|row| {
                let fault = row.fault;
                let is_current = fault == current;
                view! {
                    <tr data-fault=fault.id() aria-current=is_current.then_some("true")>
                        <th scope="row">
                            <button class="link" disabled=is_current title=fault.help() on:click=move |_| show(fault)>
                                {fault.label()}
                            </button>
                        </th>
                        <td data-col="first">{first_fired(&row)}</td>
                        <td data-col="caller">{ending(&row)}</td>
                        <td data-col="work">{yes_no(row.server_did_work)}</td>
                        <td data-col="retry">{row.retry_cell()}</td>
                        <td data-col="chapter">{chapter_cell(&row)}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <Table
            hook="data-fault-table"
            caption="Every fault with these settings (the one shown above is marked)"
            head=&[
                "What goes wrong",
                "First to fire",
                "Caller sees",
                "Server did the work",
                "Safe to retry without a key",
                "The chapter measured",
            ]
        >
            {body}
        </Table>
    }
}

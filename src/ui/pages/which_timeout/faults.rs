//! "Every fault with these settings": the model runs the call once per fault with the reader's
//! client and timers (each run takes microseconds), one row each: what fires first and when,
//! what the caller sees, whether the server did the work, whether a plain retry is safe, and
//! what the chapter measured where these settings are its setup for that fault, each cell
//! rendered from the row's facts (`scenarios/which_timeout/reading/fault.rs`). A row's button
//! shows that fault in the simulation above.

use leptos::prelude::*;

use crate::scenarios::which_timeout::{
    Fault, WhichTimeout, WhichTimeoutConfig, caller_cell, chapter_cell, every_fault, first_fired_cell, retry_cell,
    work_cell,
};
use crate::sim::Config;
use crate::ui::kit::{SimState, Table};
use crate::ui::runner::Runner;

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
                        <td data-col="first">{first_fired_cell(&row)}</td>
                        <td data-col="caller">{caller_cell(&row)}</td>
                        <td data-col="work">{work_cell(&row)}</td>
                        <td data-col="retry">{retry_cell(&row)}</td>
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

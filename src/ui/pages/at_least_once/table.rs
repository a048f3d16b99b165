//! The chapter's order-of-operations table, with this run's row beside the chapter's row for
//! the same order: what a crash in the middle did here, and the guarantee the ledger shows.

use leptos::prelude::*;

use crate::scenarios::at_least_once::{AtLeastOnce, AtLeastOnceWords, CHAPTER_TABLE};
use crate::ui::kit::Table;
use crate::ui::runner::Runner;

#[component]
pub fn ChapterTable(runner: Runner<AtLeastOnce>) -> impl IntoView {
    let run = Memo::new(move |_| runner.track_words(|s| s.run_row()));
    let rows = move || {
        let run = run.get();
        CHAPTER_TABLE
            .iter()
            .map(|row| {
                let this = row.order == run.order;
                let run_row = this.then(|| {
                    let class = match (run.judged, run.agrees) {
                        (false, _) => "run-row",
                        (true, true) => "run-row good",
                        (true, false) => "run-row bad",
                    };
                    view! {
                        <tr class=class data-row="run">
                            <th scope="row">"This run"</th>
                            <td data-col="middle" data-reading=AtLeastOnceWords::crash_in_the_middle.key>{run.crash_in_the_middle.clone()}</td>
                            <td data-col="guarantee">{run.result.clone()}</td>
                        </tr>
                    }
                });
                view! {
                    <tr data-row=row.order.id() aria-current=this.then_some("true")>
                        <th scope="row">{row.order_text}</th>
                        <td>{row.crash_in_the_middle}</td>
                        <td>{row.guarantee.label()}</td>
                    </tr>
                    {run_row}
                }
            })
            .collect_view()
    };
    view! {
        <Table
            hook="data-chapter-table"
            caption="The chapter's table, with this run's row under its order"
            head=&["Order", "Crash in the middle", "Result"]
        >
            {rows}
        </Table>
    }
}

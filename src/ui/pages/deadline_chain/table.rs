//! The chapter's table for the run's mode: this run's column beside the chapter's measured
//! run, labelled as the chapter's, and the claim the run's reading computes from the cells.

use leptos::prelude::*;

use crate::ui::kit::{Metrics, Table};

/// The table's rows, as the reading names them.
const ROWS: [&str; 4] = ["table_answer", "table_b_gives_up", "table_c_work", "table_c_told"];

#[component]
pub fn ChapterTable(metrics: Metrics) -> impl IntoView {
    let rows = Memo::new(move |_| {
        ROWS.iter()
            .filter_map(|key| {
                let row = metrics.reading(key);
                let mut cells = row.split('\t').map(str::to_string);
                Some((*key, cells.next()?, cells.next()?, cells.next()?))
            })
            .collect::<Vec<_>>()
    });
    let body = move || {
        rows.get()
            .into_iter()
            .map(|(key, label, this, chapter)| {
                view! {
                    <tr data-row=key>
                        <th scope="row">{label}</th>
                        <td data-col="run">{this}</td>
                        <td data-col="chapter">{chapter}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <Table
            hook="data-chapter-table"
            class="dc-table"
            caption=metrics.reading_signal("table_caption")
            head=&["", "This run", "The chapter's run"]
        >
            {body}
        </Table>
        <p class="help" data-table-claim>{metrics.reading_signal("table_claim")}</p>
    }
}

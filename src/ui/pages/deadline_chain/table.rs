//! The chapter's table for the run's mode: this run's column beside the chapter's measured
//! run, labelled as the chapter's, and the claim the run's reading computes from the cells.

use leptos::prelude::*;

use crate::ui::kit::table::ChapterRows;
use crate::ui::kit::{Metrics, Table};

/// The table's rows, as the reading names them.
const ROWS: [&str; 4] = ["table_answer", "table_b_gives_up", "table_c_work", "table_c_told"];

#[component]
pub fn ChapterTable(metrics: Metrics) -> impl IntoView {
    view! {
        <Table
            hook="data-chapter-table"
            class="dc-table"
            caption=metrics.reading_signal("table_caption")
            head=&["", "This run", "The chapter's run"]
        >
            <ChapterRows metrics rows=&ROWS/>
        </Table>
        <p class="help" data-table-claim>{metrics.reading_signal("table_claim")}</p>
    }
}

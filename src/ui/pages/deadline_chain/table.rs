//! The chapter's table for the run's mode: this run's column beside the chapter's measured
//! run, labelled as the chapter's, and the claim the run's reading computes from the cells.

use leptos::prelude::*;

use crate::scenarios::deadline_chain::{DeadlineChain, DeadlineChainWords};
use crate::sim::metrics::Said;
use crate::ui::kit::table::{ChapterRow, ChapterRows};
use crate::ui::kit::{Metrics, Table};

/// The table's rows: their hooks and sentences.
const ROWS: [ChapterRow<DeadlineChainWords>; 4] = [
    ("table_answer", |w| w.table_answer.text()),
    ("table_b_gives_up", |w| w.table_b_gives_up.text()),
    ("table_c_work", |w| w.table_c_work.text()),
    ("table_c_told", |w| w.table_c_told.text()),
];

#[component]
pub fn ChapterTable(metrics: Metrics<DeadlineChain>) -> impl IntoView {
    view! {
        <Table
            hook="data-chapter-table"
            class="dc-table"
            caption=metrics.said_signal(|w| &w.table_caption)
            caption_reading="table_caption"
            head=&["", "This run", "The chapter's run"]
        >
            <ChapterRows metrics rows=&ROWS/>
        </Table>
        <p class="help" data-table-claim data-reading="table_claim">{metrics.said_signal(|w| &w.table_claim)}</p>
    }
}

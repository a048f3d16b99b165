//! The chapter's table for the run's mode: this run's column beside the chapter's measured
//! run, labelled as the chapter's, and the claim the run's reading computes from the cells.

use leptos::prelude::*;

use crate::scenarios::deadline_chain::{DeadlineChain, DeadlineChainWords};
use crate::sim::Word;
use crate::ui::kit::table::ChapterRows;
use crate::ui::kit::{Metrics, Table};

/// The table's rows: their hooks and sentences.
const ROWS: [Word<DeadlineChainWords>; 4] = [
    DeadlineChainWords::table_answer,
    DeadlineChainWords::table_b_gives_up,
    DeadlineChainWords::table_c_work,
    DeadlineChainWords::table_c_told,
];

#[component]
pub fn ChapterTable(metrics: Metrics<DeadlineChain>) -> impl IntoView {
    view! {
        <Table
            hook="data-chapter-table"
            class="dc-table"
            caption=metrics.said_signal(DeadlineChainWords::table_caption)
            caption_reading=DeadlineChainWords::table_caption.key
            head=&["", "This run", "The chapter's run"]
        >
            <ChapterRows metrics rows=&ROWS/>
        </Table>
        <p class="help" data-table-claim data-reading=DeadlineChainWords::table_claim.key>{metrics.said_signal(DeadlineChainWords::table_claim)}</p>
    }
}

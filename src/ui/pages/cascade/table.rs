//! The chapter's table, row by row as printed, and this run's row in the same words.

use leptos::prelude::*;

use crate::scenarios::cascade::{CHAPTER_TABLE, Cascade, CascadeWords};
use crate::sim::{Model, Word};
use crate::ui::kit::{Metrics, Table};
use crate::ui::runner::Runner;

/// The chapter's column headings (each cell carries its own, for the narrow layout).
const COLUMNS: [&str; 4] = ["Fix", "/home in flight after 10 s", "/checkout succeeded", "/checkout failed"];

#[component]
pub fn ChapterTable(runner: Runner<Cascade>, metrics: Metrics<Cascade>) -> impl IntoView {
    // The chapter's row this run reproduces, if it is the chapter's setup with one of its fixes.
    let matching = Memo::new(move |_| runner.track(|s| s.config().chapter_row().map(|r| r.variant)));
    let cell = move |word: Word<CascadeWords>| view! { <span data-reading=word.key>{metrics.said_signal(word)}</span> };
    view! {
        <h2>"The chapter's table, and this run"</h2>
        <Table hook="data-chapter-table" class="chapter-table" label="The chapter's table, and this run" head=&COLUMNS>
            {CHAPTER_TABLE
                .iter()
                .map(|row| view! {
                    <tr class:current=move || matching.get() == Some(row.variant)>
                        <th scope="row">{row.fix} <span class="muted">" (the chapter)"</span></th>
                        <td data-label=COLUMNS[1]>{row.home}</td>
                        <td data-label=COLUMNS[2]>{row.ok}</td>
                        <td data-label=COLUMNS[3]>{row.failed}</td>
                    </tr>
                })
                .collect_view()}
            <tr class="this-run" data-run-row>
                <th scope="row">{cell(CascadeWords::row_label)}</th>
                <td data-label=COLUMNS[1]>{cell(CascadeWords::row_home)}</td>
                <td data-label=COLUMNS[2]>{cell(CascadeWords::row_ok)}</td>
                <td data-label=COLUMNS[3]>{cell(CascadeWords::row_failed)}</td>
            </tr>
        </Table>
        <p class="help">
            "The chapter's rows are its measured run; this run's row comes from the model. At the chapter's settings "
            "they agree within a few requests and about a millisecond."
        </p>
    }
}

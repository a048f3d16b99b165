//! The chapter's table, row by row as printed, and this run's row in the same words.

use leptos::prelude::*;

use crate::scenarios::cascade::{CHAPTER_TABLE, Cascade};
use crate::sim::Model;
use crate::ui::kit::Metrics;
use crate::ui::runner::Runner;

/// The chapter's column headings (each cell carries its own, for the narrow layout).
const HEADERS: [&str; 3] = ["/home in flight after 10 s", "/checkout succeeded", "/checkout failed"];

#[component]
pub fn ChapterTable(runner: Runner<Cascade>, metrics: Metrics) -> impl IntoView {
    // The chapter's row this run reproduces, if it is the chapter's setup with one of its fixes.
    let matching = Memo::new(move |_| runner.track(|s| s.config().chapter_row().map(|r| r.variant)));
    let cell = |key: &'static str| metrics.reading_signal(key);
    view! {
        <h2>"The chapter's table, and this run"</h2>
        <div class="table-wrap">
            <table class="data chapter-table">
                <thead>
                    <tr>
                        <th scope="col">"Fix"</th>
                        {HEADERS.iter().map(|h| view! { <th scope="col">{*h}</th> }).collect_view()}
                    </tr>
                </thead>
                <tbody>
                    {CHAPTER_TABLE
                        .iter()
                        .map(|row| view! {
                            <tr class:current=move || matching.get() == Some(row.variant)>
                                <th scope="row">{row.fix} <span class="muted">" (the chapter)"</span></th>
                                <td data-label=HEADERS[0]>{row.home}</td>
                                <td data-label=HEADERS[1]>{row.ok}</td>
                                <td data-label=HEADERS[2]>{row.failed}</td>
                            </tr>
                        })
                        .collect_view()}
                    <tr class="this-run" data-run-row>
                        <th scope="row">{cell("row_label")}</th>
                        <td data-label=HEADERS[0]>{cell("row_home")}</td>
                        <td data-label=HEADERS[1]>{cell("row_ok")}</td>
                        <td data-label=HEADERS[2]>{cell("row_failed")}</td>
                    </tr>
                </tbody>
            </table>
        </div>
        <p class="help">
            "The chapter's rows are its measured run; this run's row comes from the model. At the chapter's settings "
            "they agree within a few requests and about a millisecond."
        </p>
    }
}

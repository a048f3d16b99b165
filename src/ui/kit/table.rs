//! A table of numbers or words (`table.data`): its column headings, a caption or an accessible
//! name, its `data-` hook, and the rows the page gives. A page writes each `<tr>` itself, so a
//! row or a cell carries the page's own classes and hooks (`data-row`, `aria-current`,
//! `data-label`). The table sits in a `.table-wrap`, which scrolls sideways on a phone instead of
//! widening the page.

use leptos::html;
use leptos::prelude::*;

use super::Metrics;
use crate::sim::{Explain, Word};

#[component]
pub fn Table(
    /// The `data-` attribute that finds the table, e.g. `"data-fault-table"`.
    hook: &'static str,
    /// The column headings; an empty one is the empty corner above the rows' own headings.
    head: &'static [&'static str],
    /// The caption, shown above the table.
    #[prop(optional, into)]
    caption: Option<Signal<String>>,
    /// The caption's key in the run's reading, where the caption is a sentence of it (the
    /// `data-reading` hook the browser tests compare with `run --json`).
    #[prop(optional)]
    caption_reading: Option<&'static str>,
    /// The table's name for a screen reader, where a heading or summary beside it names it.
    #[prop(optional)]
    label: Option<&'static str>,
    /// The page's class for this table, beside `data`.
    #[prop(optional)]
    class: Option<&'static str>,
    /// The rows: `<tr>`s.
    children: Children,
) -> impl IntoView {
    let class = class.map_or_else(|| "data".to_string(), |c| format!("data {c}"));
    let head = head.iter().map(|&h| heading(h)).collect_view();
    let table = html::table().class(class).attr(hook, "").attr("aria-label", label).child(view! {
        {caption.map(|c| view! { <caption data-reading=caption_reading>{c}</caption> })}
        <thead>
            <tr>{head}</tr>
        </thead>
        <tbody>{children()}</tbody>
    });
    view! { <div class="table-wrap">{table}</div> }.into_any()
}

/// A column's heading; the empty corner is a plain cell (an empty heading names nothing).
fn heading(text: &'static str) -> AnyView {
    if text.is_empty() { view! { <td></td> }.into_any() } else { view! { <th scope="col">{text}</th> }.into_any() }
}

/// The rows of a table of this run beside the chapter's: each row is a sentence of the run's
/// words, "label\tthis run\tthe chapter's" (by its field: `DeadlineChainWords::table_answer`), under `data-row="<key>"` (and `data-reading-cells`,
/// the hook that the browser tests compare, cell by cell, with `run --json`'s reading), its cells
/// `data-col="run"` and `data-col="chapter"`. A sentence without three cells is left out.
#[component]
pub fn ChapterRows<M: Explain>(metrics: Metrics<M>, rows: &'static [Word<M::Words>]) -> impl IntoView {
    let cells = Memo::new(move |_| {
        metrics.words(|w| {
            rows.iter()
                .filter_map(|row| {
                    let mut cells = row.of(w).split('\t').map(str::to_string);
                    Some((row.key, cells.next()?, cells.next()?, cells.next()?))
                })
                .collect::<Vec<_>>()
        })
    });
    move || {
        cells
            .get()
            .into_iter()
            .map(|(key, label, this, chapter)| {
                view! {
                    <tr data-row=key data-reading-cells=key>
                        <th scope="row">{label}</th>
                        <td data-col="run">{this}</td>
                        <td data-col="chapter">{chapter}</td>
                    </tr>
                }
            })
            .collect_view()
    }
}

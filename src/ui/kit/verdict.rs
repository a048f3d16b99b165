//! The run's verdict: its first sentences, at most [`VERDICT_WORDS`] words (fewer in a figure),
//! and the rest behind a "Why?" a reader opens. The disclosure stays in the page while the words change (and there
//! is more to say), so a reader who opened it keeps it open as the run plays.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::format::{self, FIGURE_VERDICT_WORDS, VERDICT_WORDS};

/// In a figure the verdict's box has a height of its own and scrolls: an opened "Why?" scrolls
/// that box (not the page) so the reader sees what opened.
fn show_opened(ev: web_sys::Event) {
    let Some(details) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
    let Some(scroller) = details.closest(".figure-verdict").ok().flatten() else { return };
    if details.has_attribute("open") {
        let offset = details.get_bounding_client_rect().top() - scroller.get_bounding_client_rect().top();
        scroller.set_scroll_top(scroller.scroll_top() + offset as i32);
    }
}

/// A verdict from `text`. The page's hooks and role go on its root (`{..} data-verdict=""`).
#[component]
pub fn Verdict(
    #[prop(into)] text: Signal<String>,
    /// In an embed's figure: a shorter lead, so it and its "Why?" fit the verdict's box.
    #[prop(optional)]
    figure: bool,
) -> impl IntoView {
    let words = if figure { FIGURE_VERDICT_WORDS } else { VERDICT_WORDS };
    let split = Memo::new(move |_| {
        text.with(|t| {
            let (lead, rest) = format::lead(t, words);
            (lead.to_string(), rest.to_string())
        })
    });
    // One paragraph a sentence: the detail reads as steps, not as one run-on block.
    let rest = move || {
        split.with(|(_, rest)| {
            format::sentences(rest).into_iter().map(|s| view! { <p>{s.to_string()}</p> }).collect_view()
        })
    };
    let more = Memo::new(move |_| split.with(|(_, rest)| !rest.is_empty()));
    view! {
        <div class="verdict">
            <p class="lead">{move || split.with(|(lead, _)| lead.clone())}</p>
            <Show when=move || more.get()>
                <details class="why" on:toggle=show_opened>
                    <summary>"Why?"</summary>
                    {rest}
                </details>
            </Show>
        </div>
    }
}

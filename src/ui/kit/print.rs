//! Printing a chapter (issue 46: the course ships a PDF): a figure that never ran prints at the
//! end of its run, one the reader left mid-run prints that moment. The print style
//! (`style.css`, `@media print`) hides the play bar and the controls and prints the live
//! figure's link as text.

use leptos::prelude::*;

use super::canvas::set_printing;
use crate::ui::runner::Playback;

/// Before the browser lays the page out for print: a run still at its start goes to its end,
/// and every canvas draws at once (the effects that draw run before the layout, as microtasks
/// after this listener). After printing, canvases draw in animation frames again.
pub fn print_at_the_end(runner: Playback) {
    let before = window_event_listener_untyped("beforeprint", move |_| {
        set_printing(true);
        if runner.clock().0 == 0 && !runner.playing.get_untracked() {
            runner.seek(crate::sim::Micros::MAX);
        }
    });
    let after = window_event_listener_untyped("afterprint", move |_| set_printing(false));
    on_cleanup(move || {
        before.remove();
        after.remove();
    });
}

/// The live figure's address, printed under it as text (a printed link cannot be clicked).
#[component]
pub fn PrintLink(link: Signal<String>) -> impl IntoView {
    let base = window().location().href().ok().map(|h| h.split(['?', '#']).next().unwrap_or_default().to_string());
    view! { <p class="print-link">"Live figure: " {move || format!("{}{}", base.clone().unwrap_or_default(), link.get())}</p> }
}

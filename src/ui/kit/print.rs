//! Printing a chapter (issue 46: the course ships a PDF): a figure that never ran prints at the
//! end of its run, one the reader left mid-run prints that moment. The print style
//! (`style.css`, `@media print`) hides the play bar and the controls and prints the live
//! figure's address as text after it (the body's `data-live-figure`).

use leptos::prelude::*;

use super::canvas::set_printing;
use crate::ui::runner::Playback;

/// Before the browser lays the page out for print: a run still at its start goes to its end,
/// every canvas draws at once (the effects that draw run before the layout, as microtasks after
/// this listener; the print style scales a canvas evenly to the paper's width), and the body carries the live figure's address,
/// `link` made absolute (a printed link cannot be clicked). After printing, canvases draw in
/// animation frames again.
pub fn print_at_the_end(runner: Playback, link: Signal<String>) {
    let before = window_event_listener_untyped("beforeprint", move |_| {
        set_printing(true);
        if runner.clock().0 == 0 && !runner.playing.get_untracked() {
            runner.seek(crate::sim::Micros::MAX);
        }
        let at = window().location();
        let page = at.origin().unwrap_or_default() + &at.pathname().unwrap_or_default();
        let _ = document().body().map(|b| b.set_attribute("data-live-figure", &(page + &link.get_untracked())));
    });
    let after = window_event_listener_untyped("afterprint", move |_| set_printing(false));
    on_cleanup(move || {
        before.remove();
        after.remove();
    });
}

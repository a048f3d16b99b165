//! The playback speed a page starts at: the link's, or one that shows what matters in a few
//! seconds of the reader's time.

use leptos::prelude::*;

use crate::ui::runner::Playback;
use crate::url;

/// Whether the page's link sets a playback speed (a page with its own default speed keeps
/// the link's).
pub fn link_sets_speed() -> bool {
    url::names(&window().location().search().unwrap_or_default(), "speed")
}

/// Sets the speed so that the `span_s` simulated seconds that matter play in about
/// `watch_s` wall seconds (a 300 s hang at 32×, a 2 s one at 1×), again whenever the settings
/// change the span, unless the link sets a speed.
pub fn speed_to_watch(runner: Playback, watch_s: f64, span_s: impl Fn() -> f64 + Send + Sync + 'static) {
    if link_sets_speed() {
        return;
    }
    let span = Memo::new(move |_| span_s());
    Effect::new(move |_| {
        let wanted = (span.get() / watch_s).max(1.0);
        let speed = url::SPEEDS.iter().copied().find(|&s| s >= wanted).unwrap_or(url::SPEEDS[url::SPEEDS.len() - 1]);
        runner.speed.set(speed);
    });
}

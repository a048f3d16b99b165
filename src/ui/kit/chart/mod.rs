//! A live time-series chart on Canvas 2D: several line series or stacked bars, axes with
//! units, marker lines, shaded ranges, crisp on HiDPI screens, a legend in HTML and a text
//! summary for screen readers. It redraws only when its data changes.

use leptos::prelude::*;

mod data;
mod draw;
mod labels;
pub mod theme;

pub use data::{Band, Bars, ChartData, Line, XAxis};
pub use theme::{color, nice_step, prefers_dark, slot};

use super::canvas::drawn_canvas;
use crate::ui::runner::{Playback, now_ms};

#[component]
pub fn Chart(
    title: &'static str,
    data: Signal<ChartData>,
    /// What the chart shows now, in words, for screen readers.
    summary: Signal<String>,
    #[prop(optional)] id: &'static str,
) -> impl IntoView {
    let (canvas, data) = drawn_canvas(data, draw::draw);
    let spoken = spoken_summary(summary);
    // The legend's items change far less often than the data: rebuilding its swatches every
    // frame made the browser recompute the page's style before each chart could draw text.
    let items = Memo::new(move |_| {
        data.with(|d| {
            let bars = d.bars.iter().flat_map(|b| b.stacks.iter().map(|(l, c, _)| (l.clone(), *c)));
            d.lines
                .iter()
                .map(|l| (l.label.clone(), l.color))
                .chain(bars)
                .filter(|(l, _)| !l.is_empty())
                .collect::<Vec<_>>()
        })
    });
    let legend = move || {
        let dark = prefers_dark();
        items
            .get()
            .into_iter()
            .map(|(label, c)| {
                let style = format!("background:{}", color(c, dark));
                view! { <li><span class="swatch" style=style></span>{label}</li> }
            })
            .collect_view()
    };
    view! {
        <figure class="chart" id=id>
            <figcaption>{title}</figcaption>
            <canvas node_ref=canvas role="img" aria-label=move || format!("{title}. {}", spoken.get())></canvas>
            <ul class="legend">{legend}</ul>
            <p class="visually-hidden" aria-live="polite">{move || spoken.get()}</p>
        </figure>
    }
}

/// How often a chart's summary may change for screen readers while the run plays.
const SPOKEN_EVERY_MS: f64 = 1000.0;

/// The summary a screen reader hears: at most once a second while the run plays (a live region
/// that changes every frame is read out without end, and each change costs the page a layout),
/// and at once when it pauses, steps or ends.
fn spoken_summary(summary: Signal<String>) -> Memo<String> {
    let playing = use_context::<Playback>().map(|p| p.playing);
    let spoke_at = StoredValue::new(f64::NEG_INFINITY);
    Memo::new(move |before: Option<&String>| {
        let text = summary.get();
        let playing = playing.is_some_and(|p| p.get());
        match before {
            Some(before) if playing && now_ms() - spoke_at.get_value() < SPOKEN_EVERY_MS => before.clone(),
            _ => {
                spoke_at.set_value(now_ms());
                text
            }
        }
    })
}

//! A picture of a mechanism, a figure's headline part: a canvas a page draws from its model's
//! state at the moment shown (requests as dots in a server's line, a pool's slots), with a
//! legend, a summary for screen readers, and `data-drawn`: what the picture draws at that
//! moment as JSON, counts named as `run --json` names them, so a test can compare the two.

use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use super::canvas::{drawn_canvas, set_attribute};
use super::chart::{color, is_dark, spoken_summary};

/// How a legend item is marked: a dot of a palette slot's colour, filled or as a ring.
#[derive(Clone, Copy)]
pub enum Mark {
    Dot(usize),
    Ring(usize),
}

#[component]
pub fn Picture<T: Clone + PartialEq + Send + Sync + 'static>(
    title: &'static str,
    #[prop(optional)] id: &'static str,
    /// The moment to draw, read from the running model.
    data: Signal<T>,
    /// Draws `data` on the canvas, `width` × `height` CSS pixels.
    draw: fn(&HtmlCanvasElement, f64, f64, &T),
    /// What `draw` draws, as JSON for `data-drawn`.
    drawn: fn(&T) -> String,
    /// What the picture shows now, in words, for screen readers.
    summary: Signal<String>,
    legend: &'static [(&'static str, Mark)],
    /// The earlier run drawn behind this one, as JSON for `data-drawn`'s neighbour
    /// `data-ghost` (none: no ghost now).
    #[prop(optional)]
    ghost: Option<fn(&T) -> Option<String>>,
) -> impl IntoView {
    let (canvas, _) = drawn_canvas(data, move |el, w, h, d| {
        draw(el, w, h, d);
        set_attribute(el, "data-drawn", &drawn(d));
        match ghost.and_then(|g| g(d)) {
            Some(json) => set_attribute(el, "data-ghost", &json),
            None => {
                let _ = el.remove_attribute("data-ghost");
            }
        }
    });
    let spoken = spoken_summary(summary);
    let dark = is_dark();
    let items = legend
        .iter()
        .map(|(label, mark)| {
            let style = match *mark {
                Mark::Dot(slot) => format!("background:{}", color(slot, dark)),
                Mark::Ring(slot) => {
                    format!("background:transparent;box-shadow:inset 0 0 0 1.5px {}", color(slot, dark))
                }
            };
            view! { <li><span class="swatch dot" style=style></span>{*label}</li> }
        })
        .collect_view();
    view! {
        <figure class="chart picture" id=id data-picture>
            <figcaption>{title}</figcaption>
            <canvas node_ref=canvas role="img" aria-label=move || format!("{title}. {}", spoken.get())></canvas>
            <ul class="legend">{items}</ul>
            <p class="visually-hidden" aria-live="polite">{move || spoken.get()}</p>
        </figure>
    }
}

//! The request timeline on the page: the drawing (`draw::timeline`, shared with `resilience-lab
//! figure`) on a canvas sized to the data's height, its label boxes as `data-labels` for the
//! tests, a legend, and a summary for screen readers.

use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::draw::timeline::{self, Fill, Key, LegendItem, Shape, TimelineData};

use super::canvas::{context, drawn_canvas, set_attribute};
use super::chart::{Theme, color, is_dark, spoken_summary};
use super::number::shortest;

/// The height comes from the data; only the width is measured.
fn draw(el: &HtmlCanvasElement, css_w: f64, _measured_h: f64, d: &TimelineData) {
    let css_w = css_w.max(200.0);
    let css_h = timeline::height(d);
    set_attribute(el, "style", &format!("height:{}px", shortest(css_h)));
    let Some(ctx) = context(el, css_w, css_h) else { return };
    let labels = timeline::draw(&ctx, css_w, &Theme::now(), d);
    set_attribute(el, "data-labels", &labels);
}

#[component]
pub fn Timeline(
    title: &'static str,
    data: Signal<TimelineData>,
    /// What the timeline shows now, in words, for screen readers.
    summary: Signal<String>,
    #[prop(optional)] id: &'static str,
    /// The earlier run drawn behind this one, as JSON for the canvas's `data-ghost` (none: no
    /// ghost now).
    #[prop(optional, into)]
    ghost: Option<Signal<Option<String>>>,
) -> impl IntoView {
    let (canvas, data) = drawn_canvas(data, draw);
    // At most once a second while the run plays, as a chart's.
    let spoken = spoken_summary(summary);
    // The legend's items change far less often than the data (as the chart's): rebuilt every
    // frame, its swatches' classes and styles were set anew each time, a tenth of an embed's
    // frame on a phone's CPU.
    let items = Memo::new(move |_| data.with(|d| d.legend.clone()));
    let legend = move || {
        let dark = is_dark();
        items.with(|items| {
            items
                .iter()
                .map(|item| {
                    let (class, style, glyph) = swatch(item, color(item.color, dark));
                    view! { <li><span class=class style=style>{glyph}</span>{item.label.clone()}</li> }
                })
                .collect_view()
        })
    };
    view! {
        <figure class="chart timeline" id=id>
            <figcaption>{title}</figcaption>
            <canvas
                node_ref=canvas
                role="img"
                aria-label=move || format!("{title}. {}", spoken.get())
                data-ghost=move || ghost.and_then(|g| g.get())
            ></canvas>
            <ul class="legend">{legend}</ul>
        </figure>
    }
}

/// A legend entry's swatch: its class, its style and the glyph it shows, if any.
fn swatch(item: &LegendItem, c: &str) -> (&'static str, String, &'static str) {
    match item.key {
        Key::Fill(Fill::Solid) => ("swatch", format!("background:{c}"), ""),
        Key::Fill(Fill::Outline) => ("swatch", format!("border:2px solid {c}"), ""),
        Key::Fill(Fill::Hatched) => (
            "swatch",
            format!("background:repeating-linear-gradient(135deg,{c} 0 2px,transparent 2px 5px);border:1px solid {c}"),
            "",
        ),
        Key::Meter => ("swatch", format!("background:{c};height:0.3rem;vertical-align:0.15rem"), ""),
        Key::Span => ("swatch", format!("background:{c};opacity:0.3"), ""),
        Key::Link { dashed, cross } => {
            let glyph = match (dashed, cross) {
                (true, true) => "- - \u{2715}",
                (true, false) => "- - \u{25b8}",
                (false, true) => "\u{2014}\u{2715}",
                (false, false) => "\u{2014}\u{25b8}",
            };
            ("glyph", format!("color:{c}"), glyph)
        }
        Key::Shape(shape) => {
            let glyph = match shape {
                Shape::Dot => "\u{25cf}",
                Shape::Triangle => "\u{25bc}",
                Shape::Diamond => "\u{25c6}",
                Shape::Ring => "\u{25cb}",
                Shape::Tick => "|",
                Shape::Cross => "\u{2715}",
            };
            ("glyph", format!("color:{c}"), glyph)
        }
    }
}

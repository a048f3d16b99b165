//! A live chart on the page: the drawing (`draw::chart`, shared with `resilience-lab figure`)
//! on a canvas, crisp on HiDPI screens, with a legend in HTML, a text summary for screen readers,
//! and a press or drag on the plot that sets an x value. It redraws only when its data changes.

use leptos::ev::PointerEvent;
use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

pub mod theme;

pub use crate::draw::chart::{Band, Bars, ChartData, Line, XAxis};
pub use theme::{Theme, color, force, is_dark, nice_step, slot};

use super::canvas::{context, drawn_canvas, set_attribute};
use super::number::shortest;
use crate::draw::chart;
use crate::sim::decimal;
use crate::ui::runner::{Playback, now_ms};

/// Draws the chart on its canvas, `css_w` × `css_h`, and publishes where its plot is
/// (`data-plot`: left, width, x0, x1; for a pointer dragging a value along x, and for the
/// browser tests) and its labels' boxes (`data-labels`).
fn draw(el: &HtmlCanvasElement, css_w: f64, css_h: f64, d: &ChartData) {
    let Some(ctx) = context(el, css_w, css_h) else { return };
    let chart::Drawn { plot, labels } = chart::draw(&ctx, css_w, css_h, &Theme::now(), d);
    set_attribute(el, "data-plot", &[plot.left, plot.width, plot.x0, plot.x1].map(shortest).join(" "));
    set_attribute(el, "data-labels", &labels);
}

#[component]
pub fn Chart(
    title: &'static str,
    data: Signal<ChartData>,
    /// What the chart shows now, in words, for screen readers.
    summary: Signal<String>,
    #[prop(optional)] id: &'static str,
    /// Set: a press or a drag on the plot sets this x value (a timeout on a latency axis), as
    /// the slider beside it does. The slider stays the keyboard's way to set it.
    #[prop(optional)]
    drag: Option<Callback<f64>>,
) -> impl IntoView {
    // While a drag lasts, the x axis keeps at least the range it had when it began, so the
    // value under the finger stays where it was (a page may fit its range to the value).
    let held = RwSignal::new(None::<(f64, f64)>);
    let data = Signal::derive(move || {
        let mut d = data.get();
        if let Some((a, b)) = held.get() {
            d.x_range = (d.x_range.0.min(a), d.x_range.1.max(b));
        }
        d
    });
    let (canvas, data) = drawn_canvas(data, draw);
    let dragging = StoredValue::new(false);
    let release = move || {
        dragging.set_value(false);
        held.set(None);
    };
    let drag_to = move |ev: &PointerEvent| {
        if let (Some(set), Some(el)) = (drag, canvas.get_untracked())
            && let Some(x) = plot_x(&el, f64::from(ev.offset_x()))
        {
            set.run(x);
        }
    };
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
        let dark = is_dark();
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
            <canvas
                node_ref=canvas
                role="img"
                class:draggable=drag.is_some()
                aria-label=move || format!("{title}. {}", spoken.get())
                on:pointerdown=move |ev| {
                    if drag.is_some() && ev.is_primary() {
                        if let Some(el) = canvas.get_untracked() {
                            let _ = el.set_pointer_capture(ev.pointer_id());
                        }
                        dragging.set_value(true);
                        held.set(Some(data.with_untracked(|d| d.x_range)));
                        drag_to(&ev);
                    }
                }
                on:pointermove=move |ev| {
                    if dragging.get_value() {
                        drag_to(&ev);
                    }
                }
                on:pointerup=move |_| release()
                on:pointercancel=move |_| release()
            ></canvas>
            <ul class="legend">{legend}</ul>
            <p class="visually-hidden" aria-live="polite">{move || spoken.get()}</p>
        </figure>
    }
}

/// The x value under a pointer `offset_x` px from the canvas's left edge, from the plot's
/// place as the last draw published it (`data-plot`: left, width, x0, x1).
fn plot_x(el: &HtmlCanvasElement, offset_x: f64) -> Option<f64> {
    let plot = el.get_attribute("data-plot")?;
    let v: Vec<f64> = plot.split(' ').filter_map(decimal::parse).collect();
    let [left, w, x0, x1] = v[..] else { return None };
    (w > 0.0).then(|| x0 + ((offset_x - left) / w).clamp(0.0, 1.0) * (x1 - x0))
}

/// How often a chart's summary may change for screen readers while the run plays.
const SPOKEN_EVERY_MS: f64 = 1000.0;

/// The summary a screen reader hears (a chart's accessible name and a polite live region): read
/// only at the words' moments, so that it names a moment the cards and the sentences beside it
/// showed, never one between two of theirs (issue 45, item 1); at most once a second of those
/// while the run plays (a live region that changes often is read out without end, issue 23), and
/// at once when it pauses, steps or ends, with the words.
pub fn spoken_summary(summary: Signal<String>) -> Memo<String> {
    let playback = use_context::<Playback>();
    let spoke_at = StoredValue::new(f64::NEG_INFINITY);
    Memo::new(move |before: Option<&String>| {
        let Some(p) = playback else { return summary.get() };
        p.track_words(|_| ());
        match before {
            Some(before) if p.playing.get_untracked() && now_ms() - spoke_at.get_value() < SPOKEN_EVERY_MS => {
                before.clone()
            }
            _ => {
                spoke_at.set_value(now_ms());
                summary.get_untracked()
            }
        }
    })
}

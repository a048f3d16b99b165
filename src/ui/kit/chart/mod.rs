//! A live time-series chart on Canvas 2D: several line series or stacked bars, axes with
//! units, marker lines, shaded ranges, crisp on HiDPI screens, a legend in HTML and a text
//! summary for screen readers. It redraws only when its data changes.

use leptos::prelude::*;

mod draw;
mod labels;

use super::canvas::drawn_canvas;
use crate::sim::stats::Series;
use crate::ui::runner::{Playback, now_ms};

/// Palette slots; each has a light and a dark colour, both readable on their background.
const LIGHT: [&str; 8] = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00", "#1b7c83", "#bf3989", "#6e7781"];
const DARK: [&str; 8] = ["#4493f8", "#ff7b72", "#3fb950", "#bc8cff", "#ffa657", "#39c5cf", "#ff80c8", "#9198a1"];

/// The palette slots by name, so pages say which colour they mean.
pub mod slot {
    pub const BLUE: usize = 0;
    pub const RED: usize = 1;
    pub const GREEN: usize = 2;
    pub const PURPLE: usize = 3;
    pub const ORANGE: usize = 4;
    pub const TEAL: usize = 5;
    pub const PINK: usize = 6;
    pub const GRAY: usize = 7;
}

pub fn color(slot: usize, dark: bool) -> &'static str {
    if dark { DARK[slot % 8] } else { LIGHT[slot % 8] }
}

/// Whether the reader's system is in dark mode. Asked once, then kept up to date by the
/// media query's change event: asking every frame (each chart, each draw) made the browser
/// bring the page's style and layout up to date before every chart.
pub fn prefers_dark() -> bool {
    use std::cell::Cell;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    thread_local! {
        static DARK: Cell<Option<bool>> = const { Cell::new(None) };
    }
    if let Some(dark) = DARK.get() {
        return dark;
    }
    let Some(query) = window().match_media("(prefers-color-scheme: dark)").ok().flatten() else { return false };
    let dark = query.matches();
    DARK.set(Some(dark));
    let on_change = Closure::<dyn Fn(web_sys::MediaQueryListEvent)>::new(|e: web_sys::MediaQueryListEvent| {
        DARK.set(Some(e.matches()));
    });
    query.set_onchange(Some(on_change.as_ref().unchecked_ref()));
    // The query and its listener live as long as the page.
    on_change.forget();
    std::mem::forget(query);
    dark
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Line {
    pub label: String,
    pub color: usize,
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
    pub dashed: bool,
}

impl Line {
    /// One column of a model's series, picked by name, against the series' times.
    pub fn of<R: Copy>(series: &Series<R>, label: impl Into<String>, color: usize, pick: impl Fn(&R) -> f64) -> Self {
        Self { label: label.into(), color, xs: series.times_ms().to_vec(), ys: series.column(pick), dashed: false }
    }

    pub fn dashed(self) -> Self {
        Self { dashed: true, ..self }
    }
}

/// Stacked bars: one bar per x (bin start), each split into the stacks in order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Bars {
    pub xs: Vec<f64>,
    pub width: f64,
    pub stacks: Vec<(String, usize, Vec<f64>)>,
}

/// A shaded band between two curves, e.g. the 10th to 90th percentile over seeds.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Band {
    pub color: usize,
    pub xs: Vec<f64>,
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

/// What the x axis measures.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum XAxis {
    /// Simulated time in ms, labelled in seconds.
    #[default]
    Time,
    /// A parameter's value, labelled with its unit.
    Value(&'static str),
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct ChartData {
    /// The x range (ms of simulated time, or the parameter's values).
    pub x_range: (f64, f64),
    pub x_axis: XAxis,
    pub y_unit: &'static str,
    pub lines: Vec<Line>,
    /// Drawn under the lines.
    pub bands: Vec<Band>,
    pub bars: Option<Bars>,
    /// Vertical markers: (x, label).
    pub markers: Vec<(f64, String)>,
    /// Shaded x ranges: (from, to, label).
    pub shaded: Vec<(f64, f64, String)>,
    /// Horizontal reference lines: (y, label).
    pub hlines: Vec<(f64, String)>,
    pub log_y: bool,
    /// At least this y maximum (so a flat line near zero does not fill the chart).
    pub y_min_max: f64,
}

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

/// Round numbers for axis ticks: 1, 2 or 5 times a power of ten.
pub fn nice_step(range: f64, target_ticks: f64) -> f64 {
    let raw = (range / target_ticks).max(1e-9);
    let mag = libm::pow(10.0, libm::floor(libm::log10(raw)));
    let norm = raw / mag;
    let nice = if norm < 1.5 {
        1.0
    } else if norm < 3.5 {
        2.0
    } else if norm < 7.5 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

//! The request timeline, on Canvas 2D: lanes of rows on one time axis, with one vocabulary for
//! every request picture: bars (work, waiting; solid, outlined or hatched; open while still
//! going), marks with shapes (a click, an answer, a give-up), meters that run out (a budget, a
//! timeout), shaded spans, links between rows (a request travelling, an answer coming back,
//! dashed and crossed when nobody waits for it), a playhead and a legend.
//!
//! Every label goes through one placement rule (`layout`): lane names and row names in the
//! left gutter, axis labels chosen so they fit, then each label at the first free place among
//! its candidates, or left out. No two labels overlap, none crosses the canvas edge, and lines
//! pass under them. The boxes drawn are exposed as `data-labels` (JSON) on the canvas for the
//! tests. A label may be left out, so a page always gives the story in text as well.
//! Times are milliseconds of simulated time.

mod draw;
mod layout;

use leptos::prelude::*;

use super::canvas::drawn_canvas;
use super::chart::{color, prefers_dark};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Fill {
    /// Work.
    #[default]
    Solid,
    /// An empty box: waiting rather than working.
    Outline,
    /// Stripes: work that was wasted.
    Hatched,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Dot,
    /// A click or another action: a downward triangle.
    Triangle,
    /// Something told to a person.
    Diamond,
    /// Something that did nothing: a hollow circle.
    Ring,
    /// A moment across the row: a commit, a deadline.
    Tick,
    /// Gave up, stopped.
    Cross,
}

/// Work or waiting on one row, from `from` to `to`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Bar {
    pub row: usize,
    pub from: f64,
    pub to: f64,
    pub color: usize,
    pub fill: Fill,
    /// Still going: drawn with a ragged end.
    pub open: bool,
    /// Written inside the bar when it fits.
    pub label: String,
    /// The outcome, written at the bar's end in its own colour.
    pub end: Option<(String, usize)>,
}

/// A moment on one row.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub row: usize,
    pub at: f64,
    pub color: usize,
    pub shape: Shape,
    pub label: String,
}

/// A span that runs out, such as a budget ending at a deadline: a thin strip under the row's
/// bar whose part after the playhead stays solid, labelled with what is left at the playhead
/// ("budget: 823 ms left").
#[derive(Clone, Debug, PartialEq)]
pub struct Meter {
    pub row: usize,
    pub from: f64,
    pub to: f64,
    pub color: usize,
    pub label: String,
    /// When it stopped counting (its owner finished): from then on only its outline is drawn.
    pub ended: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Lane {
    /// A short name, in the left gutter.
    pub label: String,
    /// One name per row (short, or empty), in the gutter too.
    pub rows: Vec<String>,
    pub bars: Vec<Bar>,
    /// In priority order: when labels collide, the earlier ones keep their place.
    pub marks: Vec<Mark>,
    pub meters: Vec<Meter>,
    /// Lines for labels under each row's bar (0: labels go beside the bars and above them).
    pub lines_below: usize,
}

/// A point on a lane's row at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct At {
    pub lane: usize,
    pub row: usize,
    pub t: f64,
}

/// A message from one row to another.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub from: At,
    pub to: At,
    pub color: usize,
    pub dashed: bool,
    /// Ends in a cross (delivered to nobody) instead of an arrowhead.
    pub cross: bool,
    /// Written beside the line, between the two rows, where there is room.
    pub label: String,
}

/// Shading from `from` to `to`: behind one lane, or behind all of them (`lane: None`, labelled
/// above the lanes).
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub lane: Option<usize>,
    pub from: f64,
    pub to: f64,
    pub color: usize,
    pub label: String,
}

/// How a legend entry is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Key {
    Fill(Fill),
    Shape(Shape),
    Meter,
    Span,
    Link { dashed: bool, cross: bool },
}

#[derive(Clone, Debug, PartialEq)]
pub struct LegendItem {
    pub label: String,
    pub color: usize,
    pub key: Key,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct TimelineData {
    /// The time axis (ms).
    pub x_range: (f64, f64),
    pub lanes: Vec<Lane>,
    /// In priority order for their labels.
    pub links: Vec<Link>,
    pub spans: Vec<Span>,
    /// The playhead.
    pub now: Option<f64>,
    pub legend: Vec<LegendItem>,
}

#[component]
pub fn Timeline(
    title: &'static str,
    data: Signal<TimelineData>,
    /// What the timeline shows now, in words, for screen readers.
    summary: Signal<String>,
    #[prop(optional)] id: &'static str,
) -> impl IntoView {
    let (canvas, data) = drawn_canvas(data, draw::draw);
    let legend = move || {
        let dark = prefers_dark();
        data.with(|d| {
            d.legend
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
            <canvas node_ref=canvas role="img" aria-label=move || format!("{title}. {}", summary.get())></canvas>
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

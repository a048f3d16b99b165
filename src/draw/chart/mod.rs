//! The line chart: line series, bands or stacked bars against time or a parameter's value,
//! axes with units, marker lines, shaded ranges and reference lines, every label placed so
//! none overlaps (`labels`). Drawn on a [`Pen`](super::Pen): the page's canvas (`ui::kit::Chart`,
//! which adds the legend, the summary for screen readers and dragging along x) or an SVG. Pages
//! build a [`ChartData`] each frame.

mod data;
mod draw;

pub use data::{Band, Bars, ChartData, Line, XAxis};
pub use draw::{Drawn, Plot, draw};

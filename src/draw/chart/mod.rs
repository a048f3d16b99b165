//! The line chart: line series, bands or stacked bars against time or a parameter's value,
//! axes with units, marker lines, shaded ranges and reference lines, every label placed so
//! none overlaps (`labels`). Drawn on a [`Pen`](super::Pen): the page's canvas (`ui::kit::Chart`,
//! which adds the legend, the summary for screen readers and dragging along x) or `resilience-lab
//! figure`'s SVG (which-timeout's failover). Pages build a [`ChartData`] each frame.

mod data;
mod draw;

pub use data::{Band, Bars, ChartData, Line, XAxis};
pub use draw::{Drawn, Plot, draw};

/// A chart's height in a figure: its canvas's 230 px (`.figure-chart .chart canvas` in the
/// kit's style sheet) less its border.
pub const FIGURE_HEIGHT: f64 = 228.0;

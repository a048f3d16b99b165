//! What a chart shows: its series, bars, bands, markers and axes, built by a page each frame.

use crate::sim::stats::Series;

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

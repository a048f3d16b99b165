//! What a timeline shows: lanes of rows with bars, marks and meters, links between rows, shaded
//! spans, the playhead and the legend, built from a run (times in ms).

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
    /// Names alone, a short line each under the rows, for what has no row because it is not
    /// there: a timer set to 0 reads "total off".
    pub notes: Vec<String>,
    /// The run before the reader's last change, to compare with.
    pub ghost: Option<Ghost>,
}

/// An earlier run kept on a lane to compare with (issue 44's ghost): its moments drawn faded
/// behind this run's, and one line naming it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Ghost {
    /// Unlabelled; their shapes and colours as this run's would be.
    pub marks: Vec<Mark>,
    /// On the line above its first mark's row, at the right end.
    pub label: String,
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
    /// A log time axis from this many ms to the range's end (its decades labelled), for a
    /// timeline whose moments run from milliseconds to minutes; None: linear.
    pub log_from: Option<f64>,
}

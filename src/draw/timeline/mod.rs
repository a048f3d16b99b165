//! The request timeline: lanes of rows on one time axis, with one vocabulary for every request
//! picture: bars (work, waiting; solid, outlined or hatched; open while still going), marks with
//! shapes (a click, an answer, a give-up), meters that run out (a budget, a timeout), shaded
//! spans, links between rows (a request travelling, an answer coming back, dashed and crossed
//! when nobody waits for it), a playhead and a legend. Drawn on a [`Pen`](super::Pen): the
//! page's canvas (`ui::kit::Timeline`, which adds the legend) and `resilience-lab figure`'s SVG.
//!
//! Every label goes through one placement rule (`layout`): lane names and row names in the
//! left gutter, axis labels chosen so they fit, then each label at the first free place among
//! its candidates, or left out. No two labels overlap, none crosses the canvas edge, and lines
//! pass under them. The boxes drawn are returned as JSON, which the page exposes as
//! `data-labels` on the canvas for the tests. A label may be left out, so a page always gives
//! the story in text as well. Times are milliseconds of simulated time.

mod data;
mod draw;
mod layout;

pub use data::{At, Bar, Fill, Ghost, Key, Lane, LegendItem, Link, Mark, Meter, Shape, Span, TimelineData};
pub use draw::draw;
pub use layout::height;

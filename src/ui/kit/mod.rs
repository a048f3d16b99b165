//! The kit every simulation page is built from: a page declares what it shows (which metrics,
//! which charts, which readings) and the kit draws it the same way everywhere.

pub mod background;
pub mod canvas;
pub mod chart;
pub mod compare;
pub mod controls;
pub mod figure;
pub mod frame;
pub mod metrics;
pub mod moment;
pub mod play;
pub mod predict;
pub mod snippet;
pub mod spread;
pub mod stat;
pub mod sweep;
pub mod table;
pub mod timeline;
pub mod tour;

pub use chart::{Chart, ChartData, Line};
pub use figure::{Part, Role};
pub use frame::{Lead, SimFrame, SimState};
pub use metrics::Metrics;
pub use stat::{StatCard, Tone};
pub use table::Table;
pub use timeline::Timeline;
pub use tour::{Tour, TourState};

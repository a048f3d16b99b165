//! The kit every simulation page is built from: a page declares what it shows (which metrics,
//! which charts, which readings) and the kit draws it the same way everywhere.

pub mod autoplay;
pub mod background;
pub mod canvas;
pub mod chart;
pub mod compare;
pub mod controls;
pub mod figure;
pub mod ghost;
pub mod layout;
pub mod metrics;
pub mod number;
pub mod picture;
pub mod play;
pub mod predict;
pub mod presets;
pub mod print;
pub mod seed;
pub mod share;
pub mod snippet;
pub mod speed;
pub mod spread;
pub mod stat;
pub mod state;
pub mod sweep;
pub mod table;
pub mod timeline;
pub mod tour;
pub mod url_sync;
pub mod verdict;

pub use chart::{Chart, ChartData, Line};
pub use figure::{Lead, Part, Role};
pub use layout::SimLayout;
pub use metrics::Metrics;
pub use picture::{Mark, Picture};
pub use stat::{StatCard, Tone};
pub use state::SimState;
pub use table::Table;
pub use timeline::Timeline;
pub use tour::{Tour, TourState};
pub use verdict::Verdict;

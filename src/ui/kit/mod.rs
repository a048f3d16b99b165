//! The small kit every simulation page is built from.

pub mod canvas;
pub mod chart;
pub mod controls;
pub mod frame;
pub mod lanes;
pub mod play;
pub mod stat;
pub mod swimlanes;

pub use chart::{Chart, ChartData, Line};
pub use frame::{SimFrame, SimState};
pub use stat::StatCard;
pub use swimlanes::{Arrow, Fill, LegendItem, Meter, Shape, SwimBar, SwimLane, SwimMark, SwimlaneData, Swimlanes};

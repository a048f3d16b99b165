//! `resilience-lab figure`: a run's headline picture at the moment it was played to, drawn as
//! SVG by the page's own drawing code, in the light theme, at the height the figure's style
//! sheet gives it.

use std::any::Any;

use super::Theme;
use super::svg::Svg;
use crate::sim::{Host, Simulation};

/// The picture of `sim` now, `width` CSS pixels wide; None for a simulation without one.
pub fn svg(sim: &dyn Simulation, width: f64) -> Option<String> {
    let run: &dyn Any = sim;
    let theme = Theme::of(false);
    #[cfg(feature = "slow-server")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::slow_server::SlowServer>>() {
        use super::slow_server::{HEIGHT, Scene, draw};
        let pen = Svg::new(width, HEIGHT, theme.bg);
        draw(&pen, width, HEIGHT, &theme, &Scene::of(run, None));
        return Some(pen.finish());
    }
    None
}

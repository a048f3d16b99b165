//! `resilience-lab figure`: a run's headline picture at the moment it was played to, drawn as
//! SVG by the page's own drawing code, in the light theme, at the height the figure's style
//! sheet gives it.

use std::any::Any;

use super::Theme;
use super::svg::Svg;
use crate::sim::{Host, Model, Simulation};

/// The picture of `sim` now, `width` CSS pixels wide; None for a simulation without one.
pub fn svg(sim: &dyn Simulation, width: f64) -> Option<String> {
    let run: &dyn Any = sim;
    #[cfg(feature = "slow-server")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::slow_server::SlowServer>>() {
        use super::slow_server::{HEIGHT, Scene, draw};
        return Some(drawn(width, HEIGHT, |p, w, h, t| draw(p, w, h, t, &Scene::of(run, None))));
    }
    #[cfg(feature = "cascade")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::cascade::Cascade>>() {
        use super::cascade::{HEIGHT, Scene, draw};
        return Some(drawn(width, HEIGHT, |p, w, h, t| draw(p, w, h, t, &Scene::of(run, None))));
    }
    #[cfg(feature = "retry-storm")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::retry_storm::RetryStorm>>() {
        use super::retry_storm::{HEIGHT, Scene, draw, y_top};
        let scene = Scene::of(run, None, y_top(run.config()));
        return Some(drawn(width, HEIGHT, |p, w, h, t| draw(p, w, h, t, &scene)));
    }
    #[cfg(feature = "at-least-once")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::at_least_once::AtLeastOnce>>() {
        use super::at_least_once::{HEIGHT, draw};
        let moment = run.picture(run.now());
        return Some(drawn(width, HEIGHT, |p, w, h, t| draw(p, w, h, t, &moment)));
    }
    #[cfg(feature = "choosing-numbers")]
    if let Some(run) = run.downcast_ref::<Host<crate::scenarios::choosing_numbers::ChoosingNumbers>>() {
        use super::choosing_numbers::{HEIGHT, Scene, draw};
        let bound = crate::scenarios::choosing_numbers::worst_wait_bound(run.config());
        let scene = Scene::of(run, None, bound);
        return Some(drawn(width, HEIGHT, |p, w, h, t| draw(p, w, h, t, &scene)));
    }
    None
}

/// An SVG `width` × `height` on the light theme's background, drawn by `draw`.
fn drawn(width: f64, height: f64, draw: impl FnOnce(&Svg, f64, f64, &Theme) -> String) -> String {
    let theme = Theme::of(false);
    let pen = Svg::new(width, height, theme.bg);
    draw(&pen, width, height, &theme);
    pen.finish()
}

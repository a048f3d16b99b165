//! Playback of one simulation: play, pause, step, reset, speed, skip to end, driven by
//! requestAnimationFrame. The simulation itself lives here; pages read it through `with`.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;

use crate::sim::{Micros, Simulation};

/// The most events one animation frame may process, so no setting can freeze the page.
pub const EVENTS_PER_FRAME: u64 = 200_000;
/// Wall time longer than this between frames (a background tab) is not caught up on.
const MAX_FRAME_GAP_MS: f64 = 100.0;

pub struct Runner<T: Simulation + 'static> {
    sim: StoredValue<T, LocalStorage>,
    build: StoredValue<Rc<dyn Fn() -> T>, LocalStorage>,
    /// Bumped whenever the simulation changes; everything that draws it tracks this.
    pub frame: RwSignal<u64>,
    pub playing: RwSignal<bool>,
    /// Simulated seconds per wall second.
    pub speed: RwSignal<f64>,
    /// What one press of Step advances: a span of simulated time, or 0 for one event.
    step: Micros,
    /// Identifies the running animation loop, so a reset or pause ends the old one.
    generation: StoredValue<Rc<Cell<u64>>, LocalStorage>,
}

impl<T: Simulation + 'static> Clone for Runner<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Simulation + 'static> Copy for Runner<T> {}

impl<T: Simulation + 'static> Runner<T> {
    pub fn new(build: impl Fn() -> T + 'static, speed: f64, step: Micros) -> Self {
        Self {
            sim: StoredValue::new_local(build()),
            build: StoredValue::new_local(Rc::new(build)),
            frame: RwSignal::new(0),
            playing: RwSignal::new(false),
            speed: RwSignal::new(speed),
            step,
            generation: StoredValue::new_local(Rc::new(Cell::new(0))),
        }
    }

    /// Reads the simulation and subscribes to its changes.
    pub fn track<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        self.frame.track();
        self.sim.with_value(f)
    }

    fn changed(&self) {
        self.frame.update(|f| *f += 1);
    }

    pub fn play(&self) {
        if self.sim.with_value(|s| s.finished()) {
            self.rebuild();
        }
        if self.playing.get_untracked() {
            return;
        }
        self.playing.set(true);
        let generation = self.generation.with_value(|g| {
            g.set(g.get() + 1);
            g.get()
        });
        let runner = *self;
        request_animation_frame(move || runner.tick(generation, now_ms()));
    }

    pub fn pause(&self) {
        self.playing.set(false);
        self.generation.with_value(|g| g.set(g.get() + 1));
    }

    /// Builds the simulation again from the page's current state (after a change of
    /// parameters, seed or preset); keeps playing if it was.
    pub fn rebuild(&self) {
        let build = self.build.get_value();
        self.sim.set_value(build());
        self.changed();
    }

    /// Builds the simulation again and runs it, paused, to `t` (capped at its end): a given
    /// moment of the run, e.g. a step of a guided tour.
    pub fn seek(&self, t: Micros) {
        self.pause();
        let build = self.build.get_value();
        let mut sim = build();
        sim.advance(t.min(sim.end()), u64::MAX);
        self.sim.set_value(sim);
        self.changed();
    }

    pub fn reset(&self) {
        self.pause();
        self.rebuild();
    }

    pub fn step(&self) {
        self.pause();
        self.sim.update_value(|s| {
            if self.step == 0 {
                s.advance(s.end(), 1);
            } else {
                let target = (s.now() / self.step + 1) * self.step;
                s.advance(target, EVENTS_PER_FRAME);
            }
        });
        self.changed();
    }

    pub fn skip_to_end(&self) {
        self.pause();
        self.sim.update_value(|s| s.run_to_end());
        self.changed();
    }

    fn tick(self, generation: u64, last: f64) {
        let current = self.generation.try_with_value(|g| g.get());
        if current != Some(generation) || !self.playing.get_untracked() {
            return;
        }
        let now = now_ms();
        let wall_ms = (now - last).clamp(0.0, MAX_FRAME_GAP_MS);
        let speed = self.speed.get_untracked();
        let finished = self.sim.try_update_value(|s| {
            let target = s.now() + (wall_ms * speed * 1000.0) as Micros;
            s.advance(target, EVENTS_PER_FRAME);
            s.finished()
        });
        match finished {
            None => {}
            Some(true) => {
                self.playing.set(false);
                self.changed();
            }
            Some(false) => {
                self.changed();
                request_animation_frame(move || self.tick(generation, now));
            }
        }
    }
}

pub fn now_ms() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

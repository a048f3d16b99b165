//! Many runs in the background of a page: a [`Sweep`]'s jobs run a slice at a time on
//! animation frames, each slice stopping after [`BUDGET_MS`] of work, so playback and drawing
//! stay smooth. Starting a new sweep drops the old one at once: its points are never shown.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;

use crate::sim::Simulation;
use crate::sweep::{Job, Point, Summary, Sweep};
use crate::ui::runner::now_ms;

/// The most work one frame spends on background runs.
pub const BUDGET_MS: f64 = 5.0;
/// Events a run advances between two looks at the clock.
const EVENTS_PER_CHECK: u64 = 2_000;

/// A finished sweep: what was run, what it gave and how long it took (wall ms).
#[derive(Clone)]
pub struct Done {
    pub sweep: Sweep,
    pub points: Vec<Point>,
    pub summary: Vec<Summary>,
    pub took_ms: f64,
}

impl PartialEq for Done {
    fn eq(&self, other: &Self) -> bool {
        self.points == other.points && self.sweep.xs == other.sweep.xs && self.sweep.metrics == other.sweep.metrics
    }
}

struct Work {
    sweep: Sweep,
    jobs: Vec<Job>,
    next: usize,
    current: Option<(Job, Box<dyn Simulation>)>,
    points: Vec<Point>,
}

impl Work {
    /// Runs jobs until `deadline` (ms of `performance.now()`); true when every job is done.
    fn run_until(&mut self, deadline: f64) -> bool {
        while now_ms() < deadline {
            let (job, sim) = match &mut self.current {
                Some(c) => c,
                None => {
                    let Some(&job) = self.jobs.get(self.next) else { return true };
                    self.next += 1;
                    self.current.insert((job, self.sweep.start(&job)))
                }
            };
            sim.advance(sim.end(), EVENTS_PER_CHECK);
            if sim.finished() {
                let point = self.sweep.point(*job, &**sim);
                self.points.push(point);
                self.current = None;
            }
        }
        self.next >= self.jobs.len() && self.current.is_none()
    }
}

/// A background runner a component owns.
#[derive(Clone, Copy)]
pub struct Background {
    work: StoredValue<Option<Work>, LocalStorage>,
    generation: StoredValue<Rc<Cell<u64>>, LocalStorage>,
    /// Runs done and runs in all, while a sweep runs.
    pub progress: RwSignal<Option<(usize, usize)>>,
    pub done: RwSignal<Option<Done>>,
    /// When the running sweep started (ms of `performance.now()`).
    started: StoredValue<f64>,
}

impl Background {
    pub fn new() -> Self {
        Self {
            work: StoredValue::new_local(None),
            generation: StoredValue::new_local(Rc::new(Cell::new(0))),
            progress: RwSignal::new(None),
            done: RwSignal::new(None),
            started: StoredValue::new(0.0),
        }
    }

    /// Drops whatever runs and whatever was shown; nothing once its owner is gone.
    pub fn stop(&self) {
        self.generation.try_with_value(|g| g.set(g.get() + 1));
        self.work.try_set_value(None);
        self.progress.try_set(None);
        self.done.try_set(None);
    }

    /// Runs `sweep` from now on, instead of anything before it; nothing once its owner is gone
    /// (a settle timer can fire after a figure's part was closed: the compare view's columns).
    pub fn start(&self, sweep: Sweep) {
        if self.generation.try_with_value(|_| ()).is_none() {
            return;
        }
        self.stop();
        let jobs = sweep.jobs();
        self.progress.set(Some((0, jobs.len())));
        self.started.set_value(now_ms());
        self.work.set_value(Some(Work { sweep, jobs, next: 0, current: None, points: Vec::new() }));
        let generation = self.generation.with_value(|g| g.get());
        let me = *self;
        request_animation_frame(move || me.slice(generation));
    }

    fn slice(self, generation: u64) {
        if self.generation.try_with_value(|g| g.get()) != Some(generation) {
            return; // a newer sweep, or the page is gone
        }
        let deadline = now_ms() + BUDGET_MS;
        let status = self.work.try_update_value(|w| {
            let w = w.as_mut()?;
            let finished = w.run_until(deadline);
            Some((finished, w.points.len(), w.jobs.len()))
        });
        let Some(Some((finished, done, total))) = status else { return };
        if finished {
            let work = self.work.try_update_value(Option::take).flatten();
            if let Some(w) = work {
                let summary = w.sweep.summarize(&w.points);
                self.progress.set(None);
                let took_ms = now_ms() - self.started.get_value();
                self.done.set(Some(Done { sweep: w.sweep, points: w.points, summary, took_ms }));
            }
        } else {
            self.progress.set(Some((done, total)));
            request_animation_frame(move || self.slice(generation));
        }
    }
}

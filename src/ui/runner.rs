//! Playback of one simulation: play, pause, step, reset, speed, skip to end, driven by
//! requestAnimationFrame.
//!
//! `Playback` does the work on a `Box<dyn Simulation>`, so the animation loop and the shared
//! controls are compiled once, not once per scenario (that keeps the wasm bundle small).
//! `Runner<M>` is the typed handle a page holds to read its own model's charts and config.

use std::any::Any;
use std::cell::Cell;
use std::marker::PhantomData;
use std::ops::Deref;
use std::rc::Rc;

use leptos::prelude::*;

use crate::sim::{Explain, Host, Micros, Simulation};

/// The most events one animation frame may process, so no setting can freeze the page.
pub const EVENTS_PER_FRAME: u64 = 200_000;
/// The wall time a playing frame may spend simulating: the rest of a 16.7 ms frame is for
/// drawing (the phone profile, 4× slower, draws a picture in about 5 ms).
const WORK_PER_FRAME_MS: f64 = 6.0;
/// Events simulated between two looks at the clock while a frame plays.
const EVENTS_PER_CHUNK: u64 = 2_000;
/// The most events "skip to end", or bringing a rebuilt run to the reader's moment, processes
/// in one frame (a few tens of milliseconds).
pub const EVENTS_PER_SKIP_CHUNK: u64 = 400_000;
/// Wall time longer than this between frames (a background tab) is not caught up on.
const MAX_FRAME_GAP_MS: f64 = 100.0;
/// With `skip_idle`, a stretch with no event longer than this much wall time at the current
/// speed is jumped over.
const IDLE_JUMP_WALL_MS: f64 = 1_500.0;
/// While the run plays, the words (sentences, notes, table rows) change at most this often: a
/// reader cannot read faster, and rewriting them every frame costs a phone its frames. The
/// numbers that are the animation still change every frame.
pub const WORDS_EVERY_MS: f64 = 250.0;

type Build = Rc<dyn Fn() -> Box<dyn Simulation>>;

#[derive(Clone, Copy)]
pub struct Playback {
    sim: StoredValue<Box<dyn Simulation>, LocalStorage>,
    build: StoredValue<Build, LocalStorage>,
    /// Bumped whenever the simulation changes; everything that draws it tracks this.
    pub frame: RwSignal<u64>,
    /// Bumped when the words may have changed: at once after a reader's action (step, reset,
    /// pause, the run's end), at most every [`WORDS_EVERY_MS`] while it plays.
    words: RwSignal<u64>,
    words_pace: StoredValue<Rc<Trailing>, LocalStorage>,
    pub playing: RwSignal<bool>,
    /// Simulated seconds per wall second.
    pub speed: RwSignal<f64>,
    /// Jump over long idle stretches while playing (a redelivery four days later plays at once).
    pub skip_idle: RwSignal<bool>,
    /// What one press of Step advances: a span of simulated time, or 0 for one event.
    step: Micros,
    /// Identifies the running animation loop, so a reset or pause ends the old one.
    generation: StoredValue<Rc<Cell<u64>>, LocalStorage>,
}

impl Playback {
    fn new(build: Build, speed: f64, step: Micros) -> Self {
        Self {
            sim: StoredValue::new_local(build()),
            build: StoredValue::new_local(build),
            frame: RwSignal::new(0),
            words: RwSignal::new(0),
            words_pace: StoredValue::new_local(Trailing::new()),
            playing: RwSignal::new(false),
            speed: RwSignal::new(speed),
            skip_idle: RwSignal::new(false),
            step,
            generation: StoredValue::new_local(Rc::new(Cell::new(0))),
        }
    }

    /// Reads the simulation and subscribes to its changes.
    pub fn track_dyn<R>(&self, f: impl FnOnce(&dyn Simulation) -> R) -> R {
        self.frame.track();
        self.sim.with_value(|s| f(&**s))
    }

    /// Reads the simulation for words about it, and subscribes to the changes of
    /// [`Self::words`]: a few times a second while the run plays.
    pub fn track_words<R>(&self, f: impl FnOnce(&dyn Simulation) -> R) -> R {
        self.words.track();
        self.sim.with_value(|s| f(&**s))
    }

    /// The simulated moment (µs) of the snapshot the words, the cards and the charts' words show,
    /// tracked as they are (a few times a second while the run plays): `data-words-at`.
    pub fn words_at(&self) -> String {
        self.track_words(|s| s.now()).to_string()
    }

    /// Whether the run has reached its end (untracked).
    pub fn is_over(&self) -> bool {
        self.sim.with_value(|s| s.finished())
    }

    /// Simulated now and end, in µs, tracked.
    pub fn clock(&self) -> (Micros, Micros) {
        self.track_dyn(|s| (s.now(), s.end()))
    }

    /// The simulation changed by a reader's action: numbers and words follow at once.
    fn changed(&self) {
        self.frame.update(|f| *f += 1);
        self.words_now();
    }

    /// The simulation moved on by itself (a frame of play): the numbers follow at once, the
    /// words within [`WORDS_EVERY_MS`].
    fn moved(&self) {
        self.frame.update(|f| *f += 1);
        let me = *self;
        self.words_pace.get_value().call(WORDS_EVERY_MS, move || me.bump_words());
    }

    fn words_now(&self) {
        self.words_pace.with_value(|p| p.ran());
        self.bump_words();
    }

    fn bump_words(&self) {
        let _ = self.words.try_update(|w| *w += 1);
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
        let me = *self;
        request_animation_frame(move || me.tick(generation, now_ms()));
    }

    pub fn pause(&self) {
        self.stop_loop();
        self.words_now();
    }

    /// Ends the animation loop under way (play, skip, catching up), and returns the new
    /// loop's generation.
    fn stop_loop(&self) -> u64 {
        self.playing.set(false);
        self.generation.with_value(|g| {
            g.set(g.get() + 1);
            g.get()
        })
    }

    /// The reader changed a setting (a control, a preset, the seed): builds the run again with
    /// the page's new state and brings it to the moment the old one was at (its end, if the old
    /// one had ended), playing on if it was playing. The new run is replayed from its start, as
    /// the link will give it, so the same link still gives the same run; the reader's clock
    /// never goes back. A long replay goes on over the next frames, as a skip does.
    pub fn rebuild_in_place(&self) {
        let (was_at, ended) = self.sim.with_value(|s| (s.now(), s.finished()));
        let resume = self.playing.get_untracked();
        let generation = self.stop_loop();
        let build = self.build.get_value();
        self.sim.set_value(build());
        let target = if ended { Micros::MAX } else { was_at };
        self.catch_up(generation, target, resume);
    }

    fn catch_up(self, generation: u64, target: Micros, resume: bool) {
        if self.generation.try_with_value(|g| g.get()) != Some(generation) {
            return;
        }
        let reached = self.sim.try_update_value(|s| s.advance(target.min(s.end()), EVENTS_PER_SKIP_CHUNK).reached);
        match reached {
            None => {}
            Some(false) => {
                self.moved();
                request_animation_frame(move || self.catch_up(generation, target, resume));
            }
            Some(true) => {
                self.changed();
                // A run that now ends before the old moment stops at its end (Play would start it again).
                if resume && !self.sim.with_value(|s| s.finished()) {
                    self.play();
                }
            }
        }
    }

    /// Builds the simulation again from the page's current state (after a change of
    /// parameters, seed or preset); keeps playing if it was.
    pub fn rebuild(&self) {
        let build = self.build.get_value();
        self.sim.set_value(build());
        self.changed();
    }

    pub fn reset(&self) {
        self.pause();
        self.rebuild();
    }

    pub fn step(&self) {
        self.pause();
        let step = self.step;
        self.sim.update_value(|s| match s.now().checked_div(step) {
            // Step 0 means one event at a time.
            None => {
                s.advance(s.end(), 1);
            }
            Some(steps_done) => {
                s.advance((steps_done + 1) * step, EVENTS_PER_FRAME);
            }
        });
        self.changed();
    }

    /// Rebuilds and runs to simulated time `t` (guided tours jump to a moment of the run).
    pub fn seek(&self, t: Micros) {
        self.pause();
        let build = self.build.get_value();
        let mut sim = build();
        while sim.now() < t.min(sim.end()) {
            sim.advance(t, u64::MAX);
        }
        self.sim.set_value(sim);
        self.changed();
    }

    /// Moves toward simulated time `t` by at most `max_events` events, rebuilding first when
    /// `t` is before now: a view that plays in step with another run's clock (the comparison
    /// columns) calls it each frame. Returns whether it got there.
    pub fn follow(&self, t: Micros, max_events: u64) -> bool {
        let before = self.sim.with_value(|s| s.now());
        if before > t {
            let build = self.build.get_value();
            self.sim.set_value(build());
        }
        let (reached, moved) = self
            .sim
            .try_update_value(|s| {
                s.advance(t, max_events);
                (s.now() >= t.min(s.end()), before > t || s.now() != before)
            })
            .unwrap_or((true, false));
        if before > t {
            self.changed();
        } else if moved {
            self.moved();
        }
        reached
    }

    /// Runs to the end in chunks of at most [`EVENTS_PER_SKIP_CHUNK`] events, one chunk per
    /// animation frame, so even a four-hour run at the highest rate never freezes the page
    /// (ten simulated minutes at the defaults finish in the first chunk). Play or Pause stops it.
    pub fn skip_to_end(&self) {
        self.pause();
        let generation = self.generation.with_value(|g| g.get());
        self.skip_chunk(generation);
    }

    fn skip_chunk(self, generation: u64) {
        if self.generation.try_with_value(|g| g.get()) != Some(generation) {
            return;
        }
        let finished = self.sim.try_update_value(|s| {
            s.advance(s.end(), EVENTS_PER_SKIP_CHUNK);
            s.finished()
        });
        if finished == Some(false) {
            self.moved();
            request_animation_frame(move || self.skip_chunk(generation));
        } else {
            self.changed();
        }
    }

    fn tick(self, generation: u64, last: f64) {
        let current = self.generation.try_with_value(|g| g.get());
        if current != Some(generation) || !self.playing.get_untracked() {
            return;
        }
        let now = now_ms();
        let wall_ms = (now - last).clamp(0.0, MAX_FRAME_GAP_MS);
        let speed = self.speed.get_untracked();
        let skip_idle = self.skip_idle.get_untracked();
        let finished = self.sim.try_update_value(|s| {
            let mut target = s.now() + (wall_ms * speed * 1000.0) as Micros;
            let longest_wait = (IDLE_JUMP_WALL_MS * speed * 1000.0) as Micros;
            if let Some(next) = s.next_event_time().filter(|&t| skip_idle && t > s.now() + longest_wait) {
                target = target.max(next);
            }
            advance_within(&mut **s, target, now);
            s.finished()
        });
        match finished {
            None => {}
            Some(true) => {
                self.playing.set(false);
                self.changed();
            }
            Some(false) => {
                self.moved();
                request_animation_frame(move || self.tick(generation, now));
            }
        }
    }
}

/// Moves `s` toward `target` in small chunks until the frame that began at `frame_start` has
/// spent [`WORK_PER_FRAME_MS`] on it (and never more than [`EVENTS_PER_FRAME`] events): a setting
/// too heavy for the device at the chosen speed then plays slower, its clock honest, instead of
/// dropping frames. The run is the same; only how fast it is shown changes.
fn advance_within(s: &mut dyn Simulation, target: Micros, frame_start: f64) {
    let mut events = 0;
    while events < EVENTS_PER_FRAME {
        let out = s.advance(target, EVENTS_PER_CHUNK);
        events += out.events;
        if out.reached || now_ms() - frame_start > WORK_PER_FRAME_MS {
            return;
        }
    }
}

/// Runs an action at most every so often, and once more after the last call it held back, so
/// the last state is never missed (the words of a playing run, a chart out of view).
pub struct Trailing {
    ran_at: Cell<f64>,
    held_back: Cell<bool>,
}

impl Trailing {
    pub fn new() -> Rc<Self> {
        Rc::new(Self { ran_at: Cell::new(f64::NEG_INFINITY), held_back: Cell::new(false) })
    }

    /// The action ran just now, not through [`Self::call`]: a call held back is dropped.
    pub fn ran(&self) {
        self.ran_at.set(now_ms());
        self.held_back.set(false);
    }

    /// Runs `action` now if it last ran `every_ms` ago or more; otherwise once when that time
    /// comes, unless a call is held back already.
    pub fn call(self: &Rc<Self>, every_ms: f64, action: impl FnOnce() + 'static) {
        let since = now_ms() - self.ran_at.get();
        if since >= every_ms {
            self.ran();
            action();
        } else if !self.held_back.replace(true) {
            let me = self.clone();
            set_timeout(
                move || {
                    if me.held_back.get() {
                        me.ran();
                        action();
                    }
                },
                std::time::Duration::from_millis((every_ms - since).ceil() as u64),
            );
        }
    }
}

/// A page's typed handle on its running model; everything else comes from [`Playback`].
pub struct Runner<M: Explain> {
    playback: Playback,
    kind: PhantomData<fn() -> M>,
}

impl<M: Explain> Clone for Runner<M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M: Explain> Copy for Runner<M> {}

impl<M: Explain> Deref for Runner<M> {
    type Target = Playback;
    fn deref(&self) -> &Playback {
        &self.playback
    }
}

impl<M: Explain> From<Runner<M>> for Playback {
    fn from(r: Runner<M>) -> Playback {
        r.playback
    }
}

impl<M: Explain> Runner<M> {
    pub fn new(build: impl Fn() -> Host<M> + 'static, speed: f64, step: Micros) -> Self {
        let build: Build = Rc::new(move || Box::new(build()));
        Self { playback: Playback::new(build, speed, step), kind: PhantomData }
    }

    /// Reads the running model and subscribes to its changes.
    pub fn track<R>(&self, f: impl FnOnce(&Host<M>) -> R) -> R {
        self.playback.track_dyn(|s| {
            let any: &dyn Any = s;
            f(any.downcast_ref::<Host<M>>().expect("a runner holds the model it was built with"))
        })
    }

    /// The same, for words about it (table rows, notes): subscribes to
    /// [`Playback::track_words`]'s changes, a few times a second while the run plays.
    pub fn track_words<R>(&self, f: impl FnOnce(&Host<M>) -> R) -> R {
        self.playback.track_words(|s| {
            let any: &dyn Any = s;
            f(any.downcast_ref::<Host<M>>().expect("a runner holds the model it was built with"))
        })
    }

    /// The configuration of the running model (tracked): what the page shows is what runs.
    pub fn config(&self) -> M::Config {
        self.track(|s| s.config().clone())
    }
}

pub fn now_ms() -> f64 {
    window().performance().map(|p| p.now()).unwrap_or(0.0)
}

//! What a cascade run means, in words. Every sentence is computed from the run's configuration
//! and what the run has done by the moment it is read, so it is true of the run on screen
//! whatever the reader changed (`tests/cascade.rs` checks each claim against random runs).
//!
//! Keys:
//! - `fix`: what the chosen fix does, with this run's numbers.
//! - `verdict`: what happened, and why.
//! - `row_label`, `row_home`, `row_ok`, `row_failed`: this run's row of the chapter's table.
//! - `note_home`, `note_growth`, `note_ok`, `note_failed`, `note_p99`, `note_pool`,
//!   `note_downstream`: the lines under the stat cards.
//! - `shared_pool_title`, `shared_pool`, `recs_pool_title`, `recs_pool`: the pools drawn slot
//!   by slot, and what each holds now (the last two only with a separate pool).
//! - `tour_recs`, `tour_home`, `tour_pool`, `tour_checkout`, `tour_explanation`: this run at the
//!   chapter's moment the run has reached (see [`GUIDED_STEPS`]), at that moment, not now.

use super::{Cascade, GUIDED_STEPS, Moment, PARAMS, PoolNow, Variant};
use crate::format;
use crate::sim::params::Config;
use crate::sim::{MS, Micros, Reading};
use crate::sim::Explain;

impl Explain for Cascade {
    fn reading(&self, now: Micros) -> Reading {
        self.reading_at(now)
    }

    fn sweep_theory(c: &super::CascadeConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

/// A growth of /home in flight below this, either way, is "flat" (requests per second).
pub const FLAT: f64 = 1.0;

/// A p99 at or above this share of the /checkout client's timeout is "close to" it.
const CLOSE_TO_GIVING_UP: f64 = 0.8;

/// The chapter's way of saying a slope: "flat", "growing about 48 per second".
pub fn growth_words(g: f64) -> String {
    if g.abs() < FLAT {
        "flat".into()
    } else if g > 0.0 {
        format!("growing about {} per second", format::number(libm::round(g)))
    } else {
        format!("falling about {} per second", format::number(libm::round(-g)))
    }
}

/// A count as the reading writes it (one copy of the code, however many sentences use it).
#[inline(never)]
fn count(n: u64) -> String {
    format::count(n)
}

/// A time as the reading writes it.
#[inline(never)]
fn seconds(t: Micros) -> String {
    format::seconds(t)
}

/// A number as the metrics report it (to 0.1), so that a sentence and a card never disagree.
fn shown(x: f64) -> f64 {
    libm::round(x * 10.0) / 10.0
}

/// A time rounded to a tenth of a second, as the chapter quotes "the first 0.4 s".
fn tenths(t: Micros) -> String {
    seconds((t + 50 * MS) / (100 * MS) * (100 * MS))
}

fn calls(n: u64) -> String {
    format::counted(n, "call", "calls")
}

fn connections(n: u64) -> String {
    format::counted(n, "connection", "connections")
}

/// The same, starting a sentence: "All 20 connections", "The one connection".
fn all_connections_cap(n: u32) -> String {
    if n == 1 { "The one connection".into() } else { format!("All {} connections", count(n.into())) }
}

/// The verb after [`all_connections`].
fn was(limit: Option<u32>) -> &'static str {
    if limit == Some(1) { "was" } else { "were" }
}

/// "all 20 connections", "the one connection".
fn all_connections(n: u32) -> String {
    if n == 1 { "the one connection".into() } else { format!("all {} connections", count(n.into())) }
}

impl PoolNow {
    /// What the pool holds: "3 of 20 in use, 3 by recommendations; 0 calls waiting".
    pub fn status(&self, with_recs: bool) -> String {
        let held = match self.limit {
            Some(l) => format!("{} of {} in use", count(self.in_use.into()), count(l.into())),
            None => format!("{} open, {} in use (no limit)", count(self.open.into()), count(self.in_use.into())),
        };
        let recs =
            if with_recs { format!(", {} by recommendations", count(self.recs_held.into())) } else { String::new() };
        format!("{held}{recs}; {} waiting", calls(self.waiting.into()))
    }
}

impl Cascade {
    pub(super) fn reading_at(&self, now: Micros) -> Reading {
        let step = Cascade::step_at(now);
        let mut reading = vec![
            ("fix", self.fix()),
            ("verdict", self.verdict(now)),
            ("row_label", self.row_label()),
            ("row_home", self.row_home(now)),
            ("row_ok", self.row_ok()),
            ("row_failed", count(self.checkout_failed)),
            ("note_home", self.note_home(now)),
            ("note_growth", self.note_growth(now)),
            ("note_ok", self.note_ok()),
            ("note_failed", self.note_failed()),
            ("note_p99", self.note_p99()),
            ("note_pool", self.note_pool()),
            ("note_downstream", format!("{} open now, from every pool", count(self.downstream_open().into()))),
            ("shared_pool_title", self.shared_pool_title()),
            ("shared_pool", self.shared_now().status(!self.config.variant.has_bulkhead())),
        ];
        if let Some(p) = self.recs_pool_now() {
            reading.push(("recs_pool_title", self.recs_pool_title()));
            reading.push(("recs_pool", p.status(false)));
        }
        if let Some(m) = self.moment(step, now) {
            reading.extend([
                ("tour_recs", self.tour_recs(&m)),
                ("tour_home", tour_home(&m)),
                ("tour_pool", self.tour_pool(&m)),
                ("tour_checkout", tour_checkout(&m)),
                ("tour_explanation", self.tour_explanation(step, &m)),
            ]);
        }
        reading
    }

    fn timeout_words(&self) -> String {
        format::duration_ms(self.config.recs_timeout_ms)
    }

    fn checkout_timeout_words(&self) -> String {
        format::duration_ms(self.config.checkout_timeout_ms)
    }

    /// "one shared pool of 20 connections" / "one shared pool with no connection limit".
    fn shared_words(&self) -> String {
        if self.config.unbounded_pool {
            "one shared pool with no connection limit".into()
        } else {
            format!("one shared pool of {}", connections(self.config.pool_size.into()))
        }
    }

    /// The bulkhead's size: "20 connections" / "no connection limit".
    fn recs_pool_words(&self) -> String {
        if self.config.unbounded_pool {
            "no connection limit".into()
        } else {
            connections(self.config.recs_pool_size.into())
        }
    }

    /// When recommendations stops answering, said against the run's end.
    fn stop_words(&self) -> String {
        let at = seconds(self.recs_stops_at);
        if self.recs_stops_at >= self.end {
            format!("Recommendations would stop answering at {at}, after this run ends at {}.", seconds(self.end))
        } else {
            format!("Recommendations stops answering at {at}.")
        }
    }

    /// What the chosen fix does.
    fn fix(&self) -> String {
        let (t, shared) = (self.timeout_words(), self.shared_words());
        let what = match self.config.variant {
            Variant::NoTimeout if self.config.unbounded_pool => format!(
                "No timeout, and no limit: {shared} for recommendations and price; /home waits for recommendations as \
                 long as it takes."
            ),
            Variant::NoTimeout => {
                format!(
                    "No fix: {shared} for recommendations and price; /home waits for recommendations as long as it takes."
                )
            }
            Variant::Timeout => format!(
                "A {t} timeout on recommendations, the wait for a connection included, then /home renders without them; \
                 {shared} for recommendations and price."
            ),
            Variant::Bulkhead => format!(
                "A separate pool for recommendations ({}) and no timeout: price calls keep {shared} to themselves.",
                self.recs_pool_words()
            ),
            Variant::Both => format!(
                "A {t} timeout on recommendations and a separate pool for them ({}): price calls keep {shared} to themselves.",
                self.recs_pool_words()
            ),
        };
        format!("{what} {}", self.stop_words())
    }

    /// The parameters, other than the fix and the pools the row's label names, that differ
    /// from the chapter's run.
    fn changed_settings(&self) -> Vec<&'static str> {
        let named = ["variant", "recs_timeout_ms", "pool_size", "recs_pool_size", "unbounded_pool"];
        let chapter = super::CascadeConfig::defaults().to_values();
        PARAMS
            .iter()
            .zip(self.config.to_values().iter().zip(chapter))
            .filter(|(spec, (v, c))| !named.contains(&spec.id) && **v != *c)
            .map(|(spec, _)| spec.label)
            .collect()
    }

    /// This run's row of the chapter's table: the fix as the chapter would name it, with the
    /// pool it really has.
    fn row_label(&self) -> String {
        let c = &self.config;
        let t = self.timeout_words();
        let fix = match (c.variant, c.unbounded_pool) {
            (Variant::NoTimeout, false) => format!("No timeout, one shared pool of {}", c.pool_size),
            (Variant::NoTimeout, true) => "No timeout, no connection limit".to_string(),
            (Variant::Timeout, false) => format!("{t} timeout on recommendations, one shared pool of {}", c.pool_size),
            (Variant::Timeout, true) => format!("{t} timeout on recommendations, no connection limit"),
            (Variant::Bulkhead, _) => {
                format!("Separate pool for recommendations ({}), no timeout", self.recs_pool_words())
            }
            (Variant::Both, _) => {
                format!("{t} timeout and a separate pool for recommendations ({})", self.recs_pool_words())
            }
        };
        let changed = self.changed_settings();
        if changed.is_empty() {
            format!("This run: {fix}")
        } else {
            format!("This run: {fix} (also changed: {})", changed.join(", "))
        }
    }

    /// /home in flight when the load stopped (or now, before), and its growth.
    /// (the growth rounded as its metric is).
    fn home_now(&self) -> (u64, Option<f64>) {
        let (n, g) = self.at_load_end.unwrap_or_else(|| (self.counts().home_in_flight, self.growth_now()));
        (n, g.map(shown))
    }

    fn load_ended(&self) -> bool {
        self.at_load_end.is_some()
    }

    fn row_home(&self, now: Micros) -> String {
        let (n, g) = self.home_now();
        let mut s = count(n);
        if let Some(g) = g {
            s = format!("{s}, {}", growth_words(g));
        }
        if !self.load_ended() {
            s.push_str(&format!(" so far (at {}; the load lasts {})", seconds(now), seconds(self.load_end)));
        } else if self.load_end != 10_000 * MS {
            s.push_str(&format!(" after {}", seconds(self.load_end)));
        }
        s
    }

    /// Whether the checkouts that succeeded were all sent before any that failed.
    fn successes_came_first(&self) -> Option<Micros> {
        match (self.last_ok_sent, self.first_failed_sent) {
            (Some(ok), Some(failed)) if ok < failed => Some(ok),
            _ => None,
        }
    }

    /// /checkout's p99 (ms, rounded as its metric is).
    fn p99(&self) -> Option<f64> {
        self.checkout_latency.quantile_ms(0.99).map(shown)
    }

    fn row_ok(&self) -> String {
        let c = self.counts();
        let mut s = format!("{} of {}", count(c.checkout_ok), count(c.checkout_arrived));
        if c.checkout_failed == 0 && c.checkout_ok > 0 {
            if let Some(p) = self.p99() {
                s.push_str(&format!(", p99 {}", format::ms(p)));
            }
        } else if let (true, Some(t)) = (c.checkout_ok > 0, self.successes_came_first()) {
            s.push_str(&format!(" (the first {})", tenths(t)));
        }
        if c.checkout_in_flight > 0 {
            s.push_str(&format!("; {} still waiting", count(c.checkout_in_flight)));
        }
        s
    }

    fn verdict(&self, now: Micros) -> String {
        if now == 0 {
            return "Nothing has happened yet: press Play, or Skip to end.".into();
        }
        let mut parts = vec![self.cause(now), self.home_sentence(now)];
        parts.extend(self.pool_sentence());
        parts.push(self.checkout_sentence());
        parts.join(" ")
    }

    /// What recommendations did, and how /home waits for it.
    fn cause(&self, now: Micros) -> String {
        let stop = seconds(self.recs_stops_at);
        if self.recs_stops_at >= self.end {
            return format!(
                "Recommendations answers throughout this run: it would stop at {stop}, after the run ends at {}, so no call hangs.",
                seconds(self.end)
            );
        }
        if now <= self.recs_stops_at {
            return format!("Recommendations answers until {stop}; no call hangs yet.");
        }
        if self.config.variant.has_timeout() {
            format!(
                "Recommendations stopped answering at {stop}; each /home gives up on it after {} and renders without it.",
                self.timeout_words()
            )
        } else {
            format!("Recommendations stopped answering at {stop}, and /home waits for it without a timeout.")
        }
    }

    /// /home in flight, and why it grew or stayed flat when the reason is clear.
    fn home_sentence(&self, now: Micros) -> String {
        let (n, g) = self.home_now();
        let when = if self.load_ended() {
            format!("when the load stopped at {}", seconds(self.load_end))
        } else {
            format!("at {}", seconds(now))
        };
        let Some(g) = g else {
            return format!("/home in flight {when}: {}.", count(n));
        };
        let mut s = format!("/home in flight {when}: {}, {}.", count(n), growth_words(g));
        let stopped = self.recs_stops_at < now.min(self.load_end);
        if stopped && !self.config.variant.has_timeout() && g >= FLAT {
            s.push_str(&format!(
                " Every /home that arrived after {} is still waiting, so the count grows with the arrivals \
                 (Little's law with a wait that never ends).",
                seconds(self.recs_stops_at)
            ));
        } else if stopped && self.config.variant.has_timeout() && g.abs() < FLAT && n > 0 {
            s.push_str(&format!(
                " Each /home waits at most about {} for recommendations, so the count stops growing: in flight = \
                 arrival rate × time in the system (Little's law).",
                self.timeout_words()
            ));
        }
        s
    }

    /// Who held the connections, and who waited for them.
    fn pool_sentence(&self) -> Option<String> {
        let shared = &self.pools[super::SHARED];
        if self.config.unbounded_pool {
            let max = self.downstream_open_max;
            return (max > 0).then(|| {
                format!(
                    "With no connection limit no call ever waits for a connection, but every call in progress holds \
                     one open on the downstream host: {} at most.",
                    count(max.into())
                )
            });
        }
        let limit = count(shared.limit.unwrap_or(0).into());
        let all = all_connections(shared.limit.unwrap_or(0));
        let waited = if shared.waiting_max > 0 {
            format!(", and up to {} waited for one at once", calls(shared.waiting_max.into()))
        } else {
            String::new()
        };
        if let Some(recs) = self.recs_pool() {
            let recs_limit = count(recs.limit.unwrap_or(0).into());
            let recs_all = all_connections(recs.limit.unwrap_or(0));
            let recs_words = match recs.full_of_hung_at {
                Some(t) if self.config.variant.has_timeout() => format!(
                    "From {}, {recs_all} of recommendations' own pool {} held at times by calls that will never be \
                     answered, each until its {} timeout fired",
                    seconds(t),
                    was(recs.limit),
                    self.timeout_words()
                ),
                Some(t) => format!(
                    "From {}, {recs_all} of recommendations' own pool {} held by calls that will never return",
                    seconds(t),
                    was(recs.limit)
                ),
                None => format!(
                    "Recommendations' own pool had at most {} of {recs_limit} connections in use",
                    count(recs.in_use_max.into())
                ),
            };
            return Some(format!(
                "{recs_words}, while price calls kept the shared pool to themselves: at most {} of {limit} in use{waited}.",
                count(shared.in_use_max.into())
            ));
        }
        let held = match (shared.full_of_hung_at, self.pool_exhausted_at) {
            (Some(t), _) if !self.config.variant.has_timeout() => format!(
                "From {}, {all} of the shared pool {} held by recommendations calls that will never return",
                seconds(t),
                was(shared.limit)
            ),
            (Some(t), _) => format!(
                "From {}, {all} of the shared pool {} held at times by recommendations calls that \
                 will never be answered, each until its {} timeout fired",
                seconds(t),
                was(shared.limit),
                self.timeout_words()
            ),
            (_, Some(t)) if self.config.variant.has_timeout() => format!(
                "From {}, recommendations calls held {all} of the shared pool at times, each until it \
                 was answered or its {} timeout fired",
                seconds(t),
                self.timeout_words()
            ),
            (_, Some(t)) => {
                format!("From {}, recommendations calls held {all} of the shared pool", seconds(t))
            }
            (_, None) => format!(
                "Recommendations calls never held the whole shared pool: at most {} of {limit} connections were in use at once",
                count(shared.in_use_max.into())
            ),
        };
        Some(format!("{held}{waited}."))
    }

    /// What /checkout's clients got.
    fn checkout_sentence(&self) -> String {
        let c = self.counts();
        let (arrived, ok, failed) = (c.checkout_arrived, c.checkout_ok, c.checkout_failed);
        if arrived == 0 {
            return if self.config.checkout_rate > 0.0 {
                "No /checkout has been sent yet.".into()
            } else {
                "The load sends no /checkout.".into()
            };
        }
        let of = |n: u64| format!("{} of {}", count(n), count(arrived));
        let still = if c.checkout_in_flight > 0 {
            format!(" {} still waiting.", count(c.checkout_in_flight))
        } else {
            String::new()
        };
        let give_up = self.checkout_timeout_words();
        if failed > 0 {
            let head = if self.checkout_failed_queued > 0 {
                let failed = if self.recs_stops_at < self.end {
                    format!("/checkout never calls recommendations, yet {} failed", of(failed))
                } else {
                    format!("{} checkouts failed", of(failed))
                };
                format!(
                    "{failed}: each client gave up after {give_up}, and {} of them were still waiting for a \
                     connection, without ever leaving the process.",
                    count(self.checkout_failed_queued)
                )
            } else {
                format!("{} checkouts failed: each client gave up after {give_up}.", of(failed))
            };
            let succeeded = match (ok, self.successes_came_first()) {
                (0, _) => " None succeeded.".to_string(),
                (_, Some(t)) => format!(" {} succeeded, those sent in the first {}.", count(ok), tenths(t)),
                _ => format!(" {} succeeded.", count(ok)),
            };
            return format!("{head}{succeeded}{still}");
        }
        if ok == 0 {
            return format!("No /checkout has finished yet;{still}");
        }
        let p99 = self.p99().map(|p| format!(", p99 {}", format::ms(p))).unwrap_or_default();
        let close = match self.p99() {
            Some(p) if p >= CLOSE_TO_GIVING_UP * self.config.checkout_timeout_ms => {
                format!(", close to the {give_up} after which the client gives up")
            }
            _ => String::new(),
        };
        let queued = if self.checkout_queued > 0 {
            format!(" {} had to wait for a connection first.", of(self.checkout_queued))
        } else {
            String::new()
        };
        format!("{} checkouts succeeded{p99}{close}.{queued}{still}", of(ok))
    }

    fn note_home(&self, now: Micros) -> String {
        let (_, g) = self.home_now();
        let load = seconds(self.load_end);
        match (self.load_ended(), g) {
            (true, Some(g)) => format!("when the load stopped at {load}; {}", growth_words(g)),
            (true, None) => format!("when the load stopped at {load}"),
            (false, Some(g)) => format!("at {}, {}; the load stops at {load}", seconds(now), growth_words(g)),
            (false, None) => format!("at {}; the load stops at {load}", seconds(now)),
        }
    }

    fn note_growth(&self, now: Micros) -> String {
        if self.load_ended() {
            "over the last 5 s of the load".into()
        } else if now < super::GROWTH_WINDOW {
            "since the start".into()
        } else {
            "over the last 5 s".into()
        }
    }

    fn note_ok(&self) -> String {
        let c = self.counts();
        let mut note = format!("of {} sent", count(c.checkout_arrived));
        if let (true, Some(t)) = (c.checkout_failed > 0 && c.checkout_ok > 0, self.successes_came_first()) {
            note.push_str(&format!(" (those sent in the first {})", tenths(t)));
        }
        if c.checkout_in_flight > 0 {
            note.push_str(&format!(", {} waiting", count(c.checkout_in_flight)));
        }
        note
    }

    fn note_failed(&self) -> String {
        let after = self.checkout_timeout_words();
        match self.first_failed_at {
            Some(t) => format!("each gave up after {after}; the first at {}", seconds(t)),
            None => format!("a client gives up after {after}"),
        }
    }

    fn note_p99(&self) -> String {
        match self.checkout_latency.quantile_ms(0.5).map(shown) {
            Some(p) if self.checkout_failed > 0 => format!("p50 {}; a failure counts as its wait", format::ms(p)),
            Some(p) => format!("p50 {}", format::ms(p)),
            None => "no checkout has finished yet".into(),
        }
    }

    fn note_pool(&self) -> String {
        match (self.shared_pool().limit(), self.pool_exhausted_at) {
            (None, _) => "no limit".into(),
            (Some(l), Some(t)) => {
                format!("of {}; all held by recommendations from {}", count(l.into()), seconds(t))
            }
            (Some(l), None) => format!("of {}", count(l.into())),
        }
    }

    fn shared_pool_title(&self) -> String {
        let size = match self.shared_pool().limit() {
            Some(l) => connections(l.into()),
            None => "no limit".into(),
        };
        let users = if self.config.variant.has_bulkhead() {
            "price calls of /home and /checkout"
        } else {
            "recommendations and price, for /home and /checkout"
        };
        format!("Shared pool ({size}): {users}")
    }

    fn recs_pool_title(&self) -> String {
        format!("Recommendations' own pool ({}): the bulkhead", self.recs_pool_words())
    }

    /// The pool recommendations uses, at a moment.
    fn recs_side(&self, m: &Moment) -> PoolNow {
        m.recs_pool.unwrap_or(m.shared)
    }

    fn tour_recs(&self, m: &Moment) -> String {
        if m.at < self.recs_stops_at {
            return format!("answering (it stops at {})", seconds(self.recs_stops_at));
        }
        let held = self.recs_side(m).recs_held;
        let mut s = format!(
            "stopped at {}; {} {} a connection",
            seconds(self.recs_stops_at),
            calls(held.into()),
            if held == 1 { "holds" } else { "hold" }
        );
        if m.recs_timed_out > 0 {
            s.push_str(&format!(", {} timed out so far", count(m.recs_timed_out)));
        }
        s
    }

    fn tour_pool(&self, m: &Moment) -> String {
        match m.recs_pool {
            Some(r) => format!(
                "price only: {}. Recommendations' own pool: {}",
                m.shared.status(false),
                match r.limit {
                    Some(l) => format!("{} of {} in use", count(r.in_use.into()), count(l.into())),
                    None => format!("{} in use (no limit)", count(r.in_use.into())),
                }
            ),
            None => m.shared.status(true),
        }
    }

    /// The chapter's explanation of a moment when this is the chapter's run; otherwise what
    /// this run was doing at that moment.
    fn tour_explanation(&self, step: usize, m: &Moment) -> String {
        if self.config.is_chapter_timeline() {
            return GUIDED_STEPS[step].explanation.to_string();
        }
        let t = seconds(m.at);
        let queued = m.checkout_queued;
        if m.at < self.recs_stops_at {
            let waits = if queued > 0 {
                format!("{} waiting for a connection", format::counted(queued.into(), "checkout is", "checkouts are"))
            } else {
                "no checkout is waiting for a connection".into()
            };
            return format!(
                "At {t} recommendations still answers (it stops at {}): its calls come and go, and {waits}.",
                seconds(self.recs_stops_at)
            );
        }
        let p = self.recs_side(m);
        let (name, name_cap) = if m.recs_pool.is_some() {
            ("recommendations' own pool", "Recommendations' own pool")
        } else {
            ("the shared pool", "The shared pool")
        };
        let held = match p.limit {
            None => format!(
                "With no connection limit every recommendations call holds a connection of its own: {} now, and {} \
                 open on the downstream host.",
                count(p.recs_held.into()),
                count(m.downstream_open.into())
            ),
            Some(l) if p.full_of_hung() && !self.config.variant.has_timeout() => format!(
                "{} of {name} {} held by recommendations calls that will never return.",
                all_connections_cap(l),
                if l == 1 { "is" } else { "are" }
            ),
            Some(l) if p.full_of_recs() && self.config.variant.has_timeout() => format!(
                "{} of {name} {} held by recommendations calls; each frees its connection when it is answered or its \
                 {} timeout fires.",
                all_connections_cap(l),
                if l == 1 { "is" } else { "are" },
                self.timeout_words()
            ),
            Some(l) => format!(
                "{} of {} has {} held by recommendations calls.",
                name_cap,
                connections(l.into()),
                count(p.recs_held.into())
            ),
        };
        let waiting = if m.recs_pool.is_some() {
            format!(" Price calls have the shared pool to themselves: {}.", m.shared.status(false))
        } else if m.shared.waiting > 0 {
            let of_checkout =
                if queued > 0 { format!(", {} of them /checkout's", count(queued.into())) } else { String::new() };
            format!(
                " {} for a connection of the shared pool{of_checkout}.",
                format::counted(m.shared.waiting.into(), "call waits", "calls wait")
            )
        } else {
            " No call waits for a connection.".into()
        };
        let checkout = if m.counts.checkout_failed > 0 {
            format!(
                " {} so far.",
                format::counted(m.counts.checkout_failed, "checkout has failed", "checkouts have failed")
            )
        } else if queued > 0 && m.recs_pool.is_none() {
            " /checkout never calls recommendations, yet it waits in that queue.".into()
        } else {
            " Every checkout so far got its answer or is still waiting.".into()
        };
        format!("{held}{waiting}{checkout}")
    }
}

fn tour_home(m: &Moment) -> String {
    format!("{} in flight, {} answered", count(m.counts.home_in_flight), count(m.counts.home_done))
}

fn tour_checkout(m: &Moment) -> String {
    let c = &m.counts;
    let latest = m.last_ok_latency.map(|l| format!(" (the latest in {})", format::us_as_ms(l))).unwrap_or_default();
    let mut s = format!(
        "{} ok{latest}, {} failed, {} waiting",
        count(c.checkout_ok),
        count(c.checkout_failed),
        count(c.checkout_in_flight)
    );
    if m.checkout_queued > 0 {
        s.push_str(&format!(", {} of them for a connection", count(m.checkout_queued.into())));
    }
    s
}

/// Why the default sweep's curves (/checkout's successes against the recommendations timeout,
/// by fix) look as they do, from the parameters and Little's law.
pub fn sweep_theory(c: &super::CascadeConfig, x: &str) -> Option<String> {
    if x != "recs_timeout_ms" {
        return None;
    }
    if c.home_rate <= 0.0 {
        return Some(
            "With no /home load nothing calls recommendations, so no connection hangs and /checkout succeeds \
             whatever the timeout."
                .into(),
        );
    }
    let fills_in_ms = c.pool_size as f64 / c.home_rate * 1000.0;
    Some(format!(
        "Without a timeout each /home call to a silent recommendations holds one of the {} shared connections for \
         good: at {} /home per second the pool is full within {}, and /checkout waits behind it until it gives up \
         after {}. With a timeout t about {} × t calls hang at once (Little's law), so the shared pool has room while \
         t stays under {}; beyond that /checkout waits up to t for a connection and still succeeds while t is under \
         its own {}. A separate pool for recommendations keeps /checkout's connections free whatever the timeout.",
        format::count(c.pool_size as u64),
        format::number(c.home_rate),
        format::ms(fills_in_ms),
        format::ms(c.checkout_timeout_ms),
        format::number(c.home_rate),
        format::ms(fills_in_ms),
        format::ms(c.checkout_timeout_ms)
    ))
}

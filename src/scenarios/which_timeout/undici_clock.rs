//! undici's "fast timers" (its `lib/util/timers.js`), as a clock the model runs on its queue.
//!
//! undici does not give each of its timeouts a Node timer. It keeps them in one list and
//! sweeps the list from a single Node timer of 499 ms (half its 1,000 ms resolution, minus
//! 1 ms) that counts time in ticks, whatever the wall clock did:
//!
//! - Arming or refreshing a timer marks it pending. The next tick makes it active and dates
//!   its start one tick back; from the tick after, it fires on the first tick at which the
//!   ticks counted since that date cover its timeout. So a timeout of `t` ms fires on the
//!   `max(2, ceil(t / 499))`th tick after it was armed: 1,000 ms on the 3rd, 2,000 ms on the
//!   5th, 10,000 ms on the 21st, anything up to 998 ms on the 2nd. Dating the start a tick
//!   back credits a timer armed just before a tick with time it did not wait: it can fire up
//!   to a tick early as well as up to a tick late (undici's stated accuracy is 500 ms).
//! - When the armed timer is the only one in the list, undici restarts the 499 ms timer, so
//!   the first tick comes a full tick later and a lone timer is late by almost a tick: 2,000 ms
//!   becomes 5 × 500 = 2,500 ms. When other timers are in the list, the clock keeps its own
//!   rhythm and the first tick may come at once: the same timer fires between 0 and 500 ms
//!   late, depending on that phase.
//! - A cleared timer stays in the list until the next tick, and counts as a member until then:
//!   a timer armed right after another was cleared does not restart the clock.
//! - The clock stops when a sweep leaves the list empty.
//!
//! The connect timeout (`lib/core/connect.js` through `setupConnectTimeout` in
//! `lib/core/util.js`) and the parser's headers and body timeouts
//! (`lib/dispatcher/client-h1.js`, `TIMEOUT_HEADERS` and `TIMEOUT_BODY`) are all fast timers,
//! whatever their value.

use super::model::{Event, TimerKind};
use crate::sim::{EventQueue, Micros, TimerKey};

/// undici's tick: `(RESOLUTION_MS >> 1) - 1` with its resolution of 1,000 ms.
pub const TICK_MS: u64 = 499;

/// On which tick after it was armed a fast timer of `timeout_ms` fires: the tick that makes it
/// active is never the one that fires it.
pub fn ticks_for(timeout_ms: u64) -> u64 {
    timeout_ms.div_ceil(TICK_MS).max(2)
}

/// One of this call's timers in undici's list.
#[derive(Clone, Copy, Debug)]
struct Entry {
    timer: TimerKind,
    /// Cleared: it leaves the list at the next tick.
    cleared: bool,
    /// The tick on which it fires unless refreshed or cleared.
    due: Micros,
}

/// undici's timer list and the Node timer that sweeps it.
#[derive(Clone, Debug)]
pub struct UndiciClock {
    /// Real time between ticks: 499 ms plus how late Node's own timer fires.
    period: Micros,
    /// Whether the sweeping Node timer was ever created (undici's `fastNowTimeout`).
    started: bool,
    next_tick: Option<(Micros, TimerKey)>,
    entries: Vec<Entry>,
    /// Timers of other calls in the process that stay in the list for the whole run.
    others: usize,
    ticks: Vec<Micros>,
}

impl UndiciClock {
    /// A clock that has not started: this call's first fast timer will start it. It records
    /// the ticks of a run of `end` µs (ticks are at least a period apart, so the record is
    /// sized once and never grows).
    pub fn idle(period: Micros, end: Micros) -> Self {
        let ticks = Vec::with_capacity((end / period) as usize + 1);
        Self { period, started: false, next_tick: None, entries: Vec::with_capacity(4), others: 0, ticks }
    }

    /// A clock kept running by other calls' timers, next ticking at `first_tick`.
    pub fn running(period: Micros, end: Micros, first_tick: Micros, q: &mut EventQueue<Event>) -> Self {
        let mut clock = Self::idle(period, end);
        clock.others = 1;
        clock.started = true;
        clock.schedule_tick(q, first_tick);
        clock
    }

    /// Real time between two ticks.
    pub fn period(&self) -> Micros {
        self.period
    }

    /// Every tick so far (within the run it was sized for).
    pub fn ticks(&self) -> &[Micros] {
        &self.ticks
    }

    /// When the next tick is due, if the clock is running.
    pub fn next_tick(&self) -> Option<Micros> {
        self.next_tick.map(|(at, _)| at)
    }

    /// Arms or refreshes `timer` (undici's `FastTimer.refresh`): returns the tick on which it
    /// fires unless it is refreshed or cleared before.
    pub fn refresh(&mut self, q: &mut EventQueue<Event>, now: Micros, timer: TimerKind, timeout_ms: u64) -> Micros {
        let i = match self.entries.iter().position(|e| e.timer == timer) {
            Some(i) => i,
            None => {
                self.entries.push(Entry { timer, cleared: false, due: 0 });
                self.entries.len() - 1
            }
        };
        // The only timer in the list: undici restarts its 499 ms timer "for better resolution".
        if !self.started || self.entries.len() + self.others == 1 {
            self.schedule_tick(q, now + self.period);
        }
        let first = self.next_tick().expect("a refreshed timer keeps the clock running");
        let due = first + (ticks_for(timeout_ms) - 1) * self.period;
        self.entries[i] = Entry { timer, cleared: false, due };
        due
    }

    /// Clears `timer` (undici's `clear`): it stays in the list until the next tick.
    pub fn clear(&mut self, timer: TimerKind) {
        if let Some(e) = self.entries.iter_mut().find(|e| e.timer == timer) {
            e.cleared = true;
        }
    }

    /// `timer` fired: its tick takes it out of the list.
    pub fn fired(&mut self, timer: TimerKind) {
        self.entries.retain(|e| e.timer != timer);
    }

    /// The parser keeps one timer object and re-arms it for the body when the body timeout
    /// equals the headers timeout (`Parser.setTimeout` refreshes instead of replacing it).
    pub fn hand_over(&mut self, from: TimerKind, to: TimerKind) {
        if let Some(e) = self.entries.iter_mut().find(|e| e.timer == from) {
            e.timer = to;
        }
    }

    /// One sweep: cleared and due timers leave the list; the clock goes on while any is left.
    pub fn tick(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if self.ticks.len() < self.ticks.capacity() {
            self.ticks.push(now);
        }
        self.next_tick = None;
        self.entries.retain(|e| !e.cleared && e.due > now);
        if !self.entries.is_empty() || self.others > 0 {
            self.schedule_tick(q, now + self.period);
        }
    }

    fn schedule_tick(&mut self, q: &mut EventQueue<Event>, at: Micros) {
        if let Some((_, key)) = self.next_tick.take() {
            q.cancel(key);
        }
        self.next_tick = Some((at, q.timer_at(at, Event::Tick)));
        self.started = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{MS, SEC as SECOND};

    const PERIOD: Micros = 500 * MS;

    /// Runs the queue to `until`, sweeping on ticks; returns the fire events seen.
    fn run(clock: &mut UndiciClock, q: &mut EventQueue<Event>, until: Micros) -> Vec<(Micros, TimerKind)> {
        let mut fired = vec![];
        q.run_until(until, u64::MAX, |q, t, e| match e {
            Event::Tick => clock.tick(q, t),
            Event::Fire(kind) => {
                clock.fired(kind);
                fired.push((t, kind));
            }
            _ => {}
        });
        fired
    }

    #[test]
    fn timeouts_need_whole_ticks() {
        assert_eq!(ticks_for(1_000), 3, "two ticks are 998 ms: one short");
        assert_eq!(ticks_for(2_000), 5);
        assert_eq!(ticks_for(10_000), 21);
        assert_eq!(ticks_for(300_000), 602);
        assert_eq!(ticks_for(100), 2, "never on the tick that activates it");
        assert_eq!(ticks_for(998), 2);
    }

    #[test]
    fn a_lone_timer_restarts_the_clock_and_is_almost_a_tick_late() {
        let mut q = EventQueue::new();
        let mut clock = UndiciClock::idle(PERIOD, 60 * SECOND);
        let due = clock.refresh(&mut q, 0, TimerKind::Headers, 2_000);
        assert_eq!(due, 2_500 * MS);
        q.timer_at(due, Event::Fire(TimerKind::Headers));
        assert_eq!(run(&mut clock, &mut q, 10 * 1_000 * MS), vec![(2_500 * MS, TimerKind::Headers)]);
        assert_eq!(clock.ticks().len(), 5, "the clock stops once its list is empty");
    }

    #[test]
    fn a_running_clock_keeps_its_phase() {
        let mut q = EventQueue::new();
        let mut clock = UndiciClock::running(PERIOD, 60 * SECOND, 10 * MS, &mut q);
        let due = clock.refresh(&mut q, 0, TimerKind::Connect, 10_000);
        assert_eq!(due, 10_010 * MS, "the first tick comes 10 ms after arming: 10 ms late, not 500");
    }

    #[test]
    fn a_cleared_timer_still_counts_until_the_next_tick() {
        let mut q = EventQueue::new();
        let mut clock = UndiciClock::idle(PERIOD, 60 * SECOND);
        clock.refresh(&mut q, 0, TimerKind::Connect, 10_000);
        clock.clear(TimerKind::Connect);
        // Armed 3 ms later while the cleared one is still listed: no restart, first tick at 500.
        assert_eq!(clock.refresh(&mut q, 3 * MS, TimerKind::Headers, 2_000), 2_500 * MS);
        run(&mut clock, &mut q, 600 * MS);
        // Refreshed alone after that tick: the clock restarts.
        assert_eq!(clock.refresh(&mut q, 700 * MS, TimerKind::Headers, 2_000), 3_200 * MS);
    }
}

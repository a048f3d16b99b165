//! A time-ordered event queue with integer time.
//!
//! Time is in microseconds so that no rounding ever reorders events. Events at the same
//! instant come out in the order they were scheduled (a sequence number breaks ties),
//! which makes every run a pure function of its seed and parameters.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Simulated time in microseconds.
pub type Micros = u64;
pub const MS: Micros = 1_000;
pub const SEC: Micros = 1_000_000;

struct Entry<E> {
    at: Micros,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.at.cmp(&self.at).then_with(|| other.seq.cmp(&self.seq))
    }
}

/// What one call to [`EventQueue::run_until`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepOutcome {
    pub events: u64,
    /// True when the simulation reached the requested time (false: it stopped at the event cap).
    pub reached: bool,
}

/// The future event list of one simulation.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Micros,
    processed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self { heap: BinaryHeap::with_capacity(256), next_seq: 0, now: 0, processed: 0 }
    }

    /// The time of the event most recently taken from the queue.
    pub fn now(&self) -> Micros {
        self.now
    }

    /// How many events have been taken from the queue so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Schedules `event` at absolute time `at`. A time in the past is moved to now:
    /// simulated time never goes backwards.
    pub fn schedule_at(&mut self, at: Micros, event: E) {
        let at = at.max(self.now);
        self.heap.push(Entry { at, seq: self.next_seq, event });
        self.next_seq += 1;
    }

    /// Schedules `event` after `delay` from now.
    pub fn schedule_in(&mut self, delay: Micros, event: E) {
        self.schedule_at(self.now.saturating_add(delay), event);
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<Micros> {
        self.heap.peek().map(|e| e.at)
    }

    /// Takes the next event if it is due before `until`, advancing the clock to it.
    ///
    /// The bound is exclusive, so a run always covers `[0, end)`: an event due exactly at the
    /// end belongs to no run, whether the run was stepped in one call or in many.
    pub fn pop_until(&mut self, until: Micros) -> Option<(Micros, E)> {
        if self.heap.peek()?.at >= until {
            return None;
        }
        let entry = self.heap.pop()?;
        self.now = entry.at;
        self.processed += 1;
        Some((entry.at, entry.event))
    }

    /// Runs events due before `until` through `handle`, at most `max_events` of them. When no
    /// event is left before `until`, the clock moves to `until`.
    pub fn run_until(
        &mut self,
        until: Micros,
        max_events: u64,
        mut handle: impl FnMut(&mut Self, Micros, E),
    ) -> StepOutcome {
        let mut events = 0;
        while events < max_events {
            match self.pop_until(until) {
                Some((t, event)) => {
                    handle(self, t, event);
                    events += 1;
                }
                None => {
                    self.advance_to(until);
                    return StepOutcome { events, reached: true };
                }
            }
        }
        let reached = self.peek_time().is_none_or(|t| t >= until);
        if reached {
            self.advance_to(until);
        }
        StepOutcome { events, reached }
    }

    /// Moves the clock forward to `t` when no event is due before it (idle time passes).
    pub fn advance_to(&mut self, t: Micros) {
        debug_assert!(self.peek_time().is_none_or(|next| next >= t));
        self.now = self.now.max(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_out_in_time_order_and_fifo_at_ties() {
        let mut q = EventQueue::new();
        q.schedule_at(30, "c");
        q.schedule_at(10, "a1");
        q.schedule_at(20, "b");
        q.schedule_at(10, "a2");
        let mut out = vec![];
        q.run_until(25, u64::MAX, |_, t, e| out.push((t, e)));
        assert_eq!(out, vec![(10, "a1"), (10, "a2"), (20, "b")]);
        assert_eq!(q.now(), 25);
        q.schedule_at(5, "late"); // in the past: moved to now
        assert_eq!(q.peek_time(), Some(25));
    }

    #[test]
    fn event_cap_stops_early() {
        let mut q = EventQueue::new();
        for t in 0..10 {
            q.schedule_at(t, t);
        }
        let step = q.run_until(100, 4, |_, _, _| {});
        assert_eq!(step, StepOutcome { events: 4, reached: false });
        assert_eq!(q.now(), 3);
        let step = q.run_until(100, 100, |_, _, _| {});
        assert_eq!(step, StepOutcome { events: 6, reached: true });
        assert_eq!(q.now(), 100);
        assert_eq!(q.processed(), 10);
    }
}

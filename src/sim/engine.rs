//! A time-ordered event queue with integer time and cancellable timers.
//!
//! Time is in microseconds so that no rounding ever reorders events. Events at the same
//! instant come out in the order they were scheduled (a sequence number breaks ties),
//! which makes every run a pure function of its seed and parameters.
//!
//! A timer scheduled with [`EventQueue::timer_at`] or [`EventQueue::timer_in`] returns a
//! [`TimerKey`]; [`EventQueue::cancel`] withdraws it, and a withdrawn entry is skipped when
//! it reaches the front (as nexosim's keyed events are), so models need no generation counters.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Simulated time in microseconds.
pub type Micros = u64;
pub const MS: Micros = 1_000;
pub const SEC: Micros = 1_000_000;

/// A pending timer; [`EventQueue::cancel`] withdraws it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerKey {
    slot: u32,
    generation: u32,
}

struct Entry<E> {
    at: Micros,
    seq: u64,
    /// A cancellable timer's slot plus one; 0 for a plain event. (An index rather than the key
    /// keeps entries at 32 bytes for the common event sizes: the heap moves them a lot.)
    timer: u32,
    event: E,
}

/// The state of one timer slot. A slot stays taken until its entry leaves the heap, so an
/// entry never needs to check that its slot still belongs to it.
#[derive(Clone, Copy)]
struct TimerSlot {
    generation: u32,
    cancelled: bool,
}

/// Timer slots, reused: a generation per slot tells a live key from a stale one.
#[derive(Default)]
struct Timers {
    slots: Vec<TimerSlot>,
    free: Vec<u32>,
    /// Cancelled timers whose entries are still in the heap (none: nothing to skip).
    cancelled: usize,
}

impl Timers {
    fn take(&mut self) -> TimerKey {
        match self.free.pop() {
            Some(slot) => {
                let s = &mut self.slots[slot as usize];
                s.cancelled = false;
                TimerKey { slot, generation: s.generation }
            }
            None => {
                self.slots.push(TimerSlot { generation: 0, cancelled: false });
                // Room for every slot on the free list, grown here with the slots, so that
                // releasing timers never allocates, even when many drain at once.
                self.free.reserve(self.slots.len());
                TimerKey { slot: self.slots.len() as u32 - 1, generation: 0 }
            }
        }
    }

    fn is_pending(&self, key: TimerKey) -> bool {
        self.slots.get(key.slot as usize).is_some_and(|s| s.generation == key.generation && !s.cancelled)
    }

    fn cancel(&mut self, key: TimerKey) -> bool {
        let pending = self.is_pending(key);
        if pending {
            self.slots[key.slot as usize].cancelled = true;
            self.cancelled += 1;
        }
        pending
    }

    /// The entry holding `slot` left the heap: frees the slot; true when its timer was live.
    fn release(&mut self, slot: u32) -> bool {
        let s = &mut self.slots[slot as usize];
        let live = !s.cancelled;
        s.generation = s.generation.wrapping_add(1);
        self.cancelled -= usize::from(!live);
        self.free.push(slot);
        live
    }
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
    timers: Timers,
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
        Self { heap: BinaryHeap::with_capacity(256), timers: Timers::default(), next_seq: 0, now: 0, processed: 0 }
    }

    /// The time of the event most recently taken from the queue.
    pub fn now(&self) -> Micros {
        self.now
    }

    /// How many events have been handled so far (cancelled timers do not count).
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Entries in the queue, cancelled ones not yet skipped included (for memory bounds).
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    fn push(&mut self, at: Micros, timer: u32, event: E) {
        // Simulated time never goes backwards: a time in the past is moved to now.
        let at = at.max(self.now);
        self.heap.push(Entry { at, seq: self.next_seq, timer, event });
        self.next_seq += 1;
    }

    /// Schedules `event` at absolute time `at` (a time in the past is moved to now).
    pub fn schedule_at(&mut self, at: Micros, event: E) {
        self.push(at, 0, event);
    }

    /// Schedules `event` after `delay` from now.
    pub fn schedule_in(&mut self, delay: Micros, event: E) {
        self.schedule_at(self.now.saturating_add(delay), event);
    }

    /// Schedules a cancellable `event` at `at`.
    pub fn timer_at(&mut self, at: Micros, event: E) -> TimerKey {
        let key = self.timers.take();
        self.push(at, key.slot + 1, event);
        key
    }

    /// Schedules a cancellable `event` after `delay` from now.
    pub fn timer_in(&mut self, delay: Micros, event: E) -> TimerKey {
        self.timer_at(self.now.saturating_add(delay), event)
    }

    /// Withdraws a timer; its event will not be handled. False when it already fired or was
    /// cancelled before.
    pub fn cancel(&mut self, key: TimerKey) -> bool {
        let cancelled = self.timers.cancel(key);
        if cancelled {
            self.skip_cancelled();
        }
        cancelled
    }

    /// Whether a timer is still due to fire.
    pub fn is_pending(&self, key: TimerKey) -> bool {
        self.timers.is_pending(key)
    }

    /// Drops cancelled timers from the front, so that the front is always an event that will be
    /// handled (kept after every pop and cancel: then peeking needs no `&mut`).
    #[inline]
    fn skip_cancelled(&mut self) {
        if self.timers.cancelled == 0 {
            return;
        }
        while let Some(&Entry { timer, .. }) = self.heap.peek() {
            if timer == 0 || !self.timers.slots[timer as usize - 1].cancelled {
                return;
            }
            self.heap.pop();
            self.timers.release(timer - 1);
        }
    }

    /// The time of the next event that will be handled, if any.
    pub fn peek_time(&self) -> Option<Micros> {
        self.heap.peek().map(|e| e.at)
    }

    /// Takes the next event if it is due before `until`, advancing the clock to it.
    ///
    /// The bound is exclusive, so a run always covers `[0, end)`: an event due exactly at the
    /// end belongs to no run, whether the run was stepped in one call or in many.
    #[inline]
    pub fn pop_until(&mut self, until: Micros) -> Option<(Micros, E)> {
        if self.peek_time()? >= until {
            return None;
        }
        let entry = self.heap.pop()?;
        if entry.timer != 0 {
            // A cancelled entry never gets here: it is dropped as soon as it reaches the front.
            self.timers.release(entry.timer - 1);
        }
        self.skip_cancelled();
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
                    self.now = self.now.max(until);
                    return StepOutcome { events, reached: true };
                }
            }
        }
        let reached = self.peek_time().is_none_or(|t| t >= until);
        if reached {
            self.now = self.now.max(until);
        }
        StepOutcome { events, reached }
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

    #[test]
    fn cancelled_timers_never_fire_and_do_not_count() {
        let mut q = EventQueue::new();
        let a = q.timer_at(10, "a");
        let b = q.timer_at(20, "b");
        q.schedule_at(30, "c");
        assert!(q.is_pending(a));
        assert!(q.cancel(a));
        assert!(!q.cancel(a), "a second cancel finds nothing");
        assert_eq!(q.peek_time(), Some(20), "the cancelled front entry is skipped");
        let mut out = vec![];
        q.run_until(100, u64::MAX, |_, t, e| out.push((t, e)));
        assert_eq!(out, vec![(20, "b"), (30, "c")]);
        assert!(!q.is_pending(b), "a fired timer is no longer pending");
        assert!(!q.cancel(b), "cancelling a fired timer does nothing");
        assert_eq!(q.processed(), 2);
        assert!(q.is_empty());
    }

    #[test]
    fn a_cancelled_front_does_not_stop_a_capped_step_short() {
        let mut q = EventQueue::new();
        q.schedule_at(5, 1);
        let t = q.timer_at(8, 2);
        q.cancel(t);
        let step = q.run_until(10, 1, |_, _, _| {});
        assert_eq!(step, StepOutcome { events: 1, reached: true });
        assert_eq!(q.now(), 10);
    }
}

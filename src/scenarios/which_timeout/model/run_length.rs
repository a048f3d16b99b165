//! How long a run needs: the model runs the call on its own until nothing about the outcome
//! can change, or for a while past its timers when it never ends.

use super::super::spec::{Fault, WhichTimeoutConfig};
use super::{Outcome, WhichTimeout};
use crate::sim::rng::ms_to_us;
use crate::sim::{EventQueue, MS, Micros, Model, SEC};

/// How long a run goes on after the outcome is settled, so the end is visible.
const TAIL: Micros = SEC;
/// A call that never ends is watched for this many times its longest timer still armed (the
/// chapter watched a 1 s timeout to 3.5 s and a 2 s one to 7 s) …
const WATCH_FACTOR: f64 = 3.5;
/// … or this long when no timer is armed at all.
const DEFAULT_WATCH: Micros = 10 * SEC;

impl WhichTimeout {
    /// How long a run of `config` needs to show its outcome (ms): until the caller has the
    /// error or the body and the server has finished (or will never), plus a second; for a call
    /// that never ends, 3.5 times its longest timer still armed (10 s with none).
    pub fn run_length_for(config: &WhichTimeoutConfig) -> u64 {
        let mut q = EventQueue::new();
        // A run of no length records no ticks: only the outcome matters here.
        let mut model = Self::new(config.clone(), 0, 0, &mut q);
        let end = loop {
            if let Some(settled) = model.settled_at() {
                break settled + TAIL;
            }
            let watch = model.watch_until();
            match q.pop_until(watch) {
                Some((t, event)) => model.handle(&mut q, t, event),
                None => break watch,
            }
        };
        // Break 5's failover run: until its last call has ended (its events alone are left
        // once the one call's outcome is known, or none at all).
        let mut last = 0;
        while !model.failover.done() {
            let Some((t, event)) = q.pop_until(Micros::MAX) else { break };
            model.handle(&mut q, t, event);
            last = t;
        }
        let end = if model.failover.enabled() { end.max(last + TAIL) } else { end };
        end.div_ceil(100 * MS) * 100
    }

    /// When nothing more about the outcome can change: the caller has the error or the body,
    /// and the server has its request's fate (it finishes at a known time, or never).
    fn settled_at(&self) -> Option<Micros> {
        let ended = match self.outcome? {
            Outcome::Completed { at } => at,
            Outcome::Failed { .. } => self.error_seen_at?,
        };
        let request_in_flight = self.request_sent_at.is_some() && self.request_arrived_at.is_none();
        (!request_in_flight).then(|| ended.max(self.server_done_at.unwrap_or(0)))
    }

    /// How long to watch a call that has not ended: 3.5 times each timer still set, from when it
    /// was armed, and past whatever the fault itself is waiting for.
    fn watch_until(&self) -> Micros {
        let timers = self
            .timers
            .iter()
            .filter(|t| t.cleared_at.is_none())
            .map(|t| t.armed_at + (t.timeout as f64 * WATCH_FACTOR) as Micros)
            .max()
            .unwrap_or(DEFAULT_WATCH);
        let c = &self.config;
        let own = match c.fault {
            Fault::DnsSlow => ms_to_us(c.dns_ms),
            Fault::Slow => ms_to_us(c.server_ms),
            _ => 0,
        };
        timers.max(own + 10 * self.rtt + TAIL)
    }
}

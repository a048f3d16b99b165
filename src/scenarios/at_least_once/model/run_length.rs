//! How long a run must be for the broker, the outbox and the consumers to hold nothing more.
//!
//! A run's end is fixed when it starts, so it is an upper bound from the parameters. The
//! consumers never idle while a message is ready, so all the work is done by the latest
//! `t + (work arriving from t on) / consumers`, over the moments `t` where arrivals start or
//! stop: the producer's messages over the publishing span, the outbox's copies the same span
//! [`PRODUCER_RESTART_MS`] later. The work is its expected value plus [`DEVIATIONS`] standard
//! deviations (few messages vary a lot: 8 long jobs where 4 were expected). After that, the
//! last message's own story may still play out: a chain of crashes, each waiting out a lease
//! and a restart, as long as a chain that happens anywhere in the run with a chance of
//! [`CHAIN_MISS_CHANCE`] or more, and a job outliving its lease. Late redeliveries arrive
//! `redelivery_after_ms` after acks that all happen by then, so they add that wait, their own
//! work as if it came all at once, and the story again. A redrive does the same after
//! `redrive_after_ms`, bounded by every copy (the outbox's too) coming back.
//!
//! Simulated time jumps over the quiet stretches, so a generous end costs nothing; the tests
//! check that runs settle by it.

use crate::scenarios::at_least_once::spec::{ACK_MS, AtLeastOnceConfig, Order, PRODUCER_RESTART_MS, RECORD_MS, WORK_CAP, WORK_CV};
use crate::sim::base::MAX_RUN_LENGTH_MS;

/// The run is long enough that the chance of a crash chain outlasting it is below this.
const CHAIN_MISS_CHANCE: f64 = 1e-4;
/// The run allows for this many standard deviations more work than expected.
const DEVIATIONS: f64 = 4.0;
/// Quiet time after the last possible event.
const TAIL_MS: f64 = 1_000.0;

/// The run length in ms, at most [`MAX_RUN_LENGTH_MS`].
pub(super) fn estimate_ms(c: &AtLeastOnceConfig) -> u64 {
    let copy = CopyWork::of(c);
    let consumers = c.consumers.max(1) as f64;
    let span = publish_span_ms(c);
    let originals = Stream { start: 0.0, span, copies: Count::exactly(c.messages as f64) };
    let republished = Count::binomial(c.messages as f64, fraction(c.producer_republish_rate));
    let restart = if republished.mean > 0.0 { PRODUCER_RESTART_MS as f64 } else { 0.0 };
    let outbox = Stream { start: restart, span, copies: republished };
    let story = last_message_ms(c);
    let mut end = work_done_by(&[originals, outbox], &copy, consumers) + story;
    if c.late_redelivery_rate > 0.0 {
        let late = Count::binomial(c.messages as f64, fraction(c.late_redelivery_rate));
        end += c.redelivery_after_ms + copy.bound(late) / consumers + story;
    }
    if c.redrive {
        // Every copy dead-lettered by now comes back once: at most all of them, the outbox's
        // republished copies too.
        let copies = Count { mean: c.messages as f64 + republished.mean, variance: republished.variance };
        end += c.redrive_after_ms + copy.bound(copies) / consumers + story;
    }
    (libm::ceil(end + TAIL_MS) as u64).min(MAX_RUN_LENGTH_MS)
}

/// How many copies, as a mean and a variance.
#[derive(Clone, Copy)]
struct Count {
    mean: f64,
    variance: f64,
}

impl Count {
    fn exactly(n: f64) -> Self {
        Self { mean: n, variance: 0.0 }
    }

    /// Each of `n` events with chance `p`.
    fn binomial(n: f64, p: f64) -> Self {
        Self { mean: n * p, variance: n * p * (1.0 - p) }
    }

    fn share(self, share: f64) -> Self {
        Self { mean: self.mean * share, variance: self.variance * share }
    }
}

/// Copies arriving evenly from `start` over `span` ms.
struct Stream {
    start: f64,
    span: f64,
    copies: Count,
}

impl Stream {
    /// The share of the stream that arrives at `t` or later.
    fn share_from(&self, t: f64) -> f64 {
        if self.span <= 0.0 {
            return if t <= self.start { 1.0 } else { 0.0 };
        }
        ((self.start + self.span - t) / self.span).clamp(0.0, 1.0)
    }
}

/// When the consumers have done all the work of `streams`: the latest `t + work from t on /
/// consumers`, taken where it can be largest (where a stream starts or ends).
fn work_done_by(streams: &[Stream], copy: &CopyWork, consumers: f64) -> f64 {
    let moments = streams.iter().flat_map(|s| [s.start, s.start + s.span]);
    moments
        .map(|t| {
            let shares = streams.iter().map(|s| s.copies.share(s.share_from(t)));
            let copies = shares
                .fold(Count::exactly(0.0), |a, b| Count { mean: a.mean + b.mean, variance: a.variance + b.variance });
            t + copy.bound(copies) / consumers
        })
        .fold(0.0, f64::max)
}

/// The consumer time one copy of an event costs, as a mean and a variance: a number of
/// deliveries (one more after each crash, up to the limit), each a job with its steps, more
/// deliveries when the job outlives its lease, and a restart when the consumer crashes.
struct CopyWork {
    mean: f64,
    variance: f64,
    /// Copies per event: an event's copies share its job length, so their costs move together
    /// and the spread of a sum grows by this factor more than for independent copies.
    copies_per_event: f64,
}

impl CopyWork {
    fn of(c: &AtLeastOnceConfig) -> Self {
        let crash = fraction(c.crash_rate);
        let long = fraction(c.long_job_rate);
        let steps = (ACK_MS + RECORD_MS) as f64;
        // One delivery: a normal or a long job (with the copies an outlived lease adds), plus
        // a restart with chance `crash`.
        let normal = deliveries_per_copy(c, c.work_ms) * (c.work_ms + steps);
        let normal_spread = deliveries_per_copy(c, c.work_ms) * WORK_CV * c.work_ms;
        let long_job = deliveries_per_copy(c, c.long_job_ms) * (c.long_job_ms + steps);
        let job = (1.0 - long) * normal + long * long_job;
        let job_squared = (1.0 - long) * (normal * normal + normal_spread * normal_spread) + long * long_job * long_job;
        let delivery = job + crash * c.restart_ms;
        let delivery_squared = job_squared + 2.0 * job * crash * c.restart_ms + crash * c.restart_ms * c.restart_ms;
        let delivery_variance = (delivery_squared - delivery * delivery).max(0.0);
        // Tries until one does not crash, at most the limit: P(tries ≥ k) = crash^(k-1).
        let at_least = |k: u32| libm::pow(crash, (k - 1) as f64);
        let limit = c.max_deliveries.max(1);
        let tries: f64 = (1..=limit).map(at_least).sum();
        let tries_squared: f64 = (1..=limit).map(|k| (2 * k - 1) as f64 * at_least(k)).sum();
        let tries_variance = (tries_squared - tries * tries).max(0.0);
        Self {
            mean: tries * delivery,
            variance: tries * delivery_variance + tries_variance * delivery * delivery,
            copies_per_event: 1.0 + fraction(c.producer_republish_rate) + fraction(c.late_redelivery_rate),
        }
    }

    /// The work of `copies`, [`DEVIATIONS`] standard deviations above its mean.
    fn bound(&self, copies: Count) -> f64 {
        let variance = copies.mean * self.variance * self.copies_per_event + copies.variance * self.mean * self.mean;
        copies.mean * self.mean + DEVIATIONS * libm::sqrt(variance)
    }
}

fn publish_span_ms(c: &AtLeastOnceConfig) -> f64 {
    c.messages.saturating_sub(1) as f64 * 1000.0 / c.publish_rate.max(1e-3)
}

fn fraction(pct: f64) -> f64 {
    (pct / 100.0).clamp(0.0, 1.0)
}

/// Whether a job longer than the lease is redelivered while it runs.
fn leases_run_out(c: &AtLeastOnceConfig) -> bool {
    !c.extend_lease && c.order != Order::AckThenProcess
}

/// Deliveries of one copy of a job of `job_ms`: one more for each lease it outlives, at most
/// the limit.
fn deliveries_per_copy(c: &AtLeastOnceConfig, job_ms: f64) -> f64 {
    let outlived = if leases_run_out(c) { job_ms / c.visibility_timeout_ms } else { 0.0 };
    (1.0 + outlived).min(c.max_deliveries.max(1) as f64)
}

/// The longest one delivery keeps a consumer busy.
fn longest_delivery_ms(c: &AtLeastOnceConfig) -> f64 {
    let normal = if c.long_job_rate < 100.0 { WORK_CAP * c.work_ms } else { 0.0 };
    let long = if c.long_job_rate > 0.0 { c.long_job_ms } else { 0.0 };
    normal.max(long) + (ACK_MS + RECORD_MS) as f64
}

/// The longest crash chain the run should expect anywhere: the smallest k such that k crashes
/// in a row happen to any copy with a chance under [`CHAIN_MISS_CHANCE`], at most the limit.
fn crash_chain(c: &AtLeastOnceConfig) -> f64 {
    let crash = fraction(c.crash_rate);
    let limit = c.max_deliveries as f64;
    if crash <= 0.0 {
        return 0.0;
    }
    if crash >= 1.0 {
        return limit;
    }
    let copies = c.messages as f64 * 4.0;
    libm::ceil(libm::log(CHAIN_MISS_CHANCE / copies) / libm::log(crash)).clamp(1.0, limit)
}

/// From the moment a copy is first received until nothing of it is left: its crash chain,
/// each link a lease and a restart; its job; and, when leases run out under it, the copy
/// that started last running a whole job after the first finished.
fn last_message_ms(c: &AtLeastOnceConfig) -> f64 {
    let delivery = longest_delivery_ms(c);
    let chain = crash_chain(c) * (c.visibility_timeout_ms + c.restart_ms + delivery);
    let outlived = if leases_run_out(c) { delivery } else { 0.0 };
    chain + delivery + outlived
}

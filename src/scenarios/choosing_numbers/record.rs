//! What a run keeps for the page beyond its counters: the attempts of a few requests (the
//! slowest and the latest, for the timeline) and the alert's sliding window. Fixed sizes: keeping
//! them costs no allocation per request.

use super::spec::{MAX_ALERT_WINDOW_S, MAX_ATTEMPTS};
use crate::sim::Micros;

/// The calls of a request the timeline shows (one row each); a request may have more.
pub const SHOWN_CALLS: usize = 4;

/// How an attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AttemptEnd {
    /// Still going (or never started).
    #[default]
    Open,
    /// The dependency answered in time.
    Answered,
    /// The attempt's own timeout (its limit) passed first.
    TimedOut,
    /// The connection did not open before the connect timeout (or the kernel gave up).
    ConnectFailed,
    /// The route stopped waiting: its deadline passed, or another call failed it.
    Cut,
}

/// One attempt of one call, times from the request's arrival (µs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AttemptRecord {
    pub start: Micros,
    /// When the caller stopped waiting or got its answer.
    pub end: Micros,
    /// When the connection was open and the dependency started working (None: it never was).
    pub connected: Option<Micros>,
    /// When the dependency stopped working on it (after `end` when it kept working for nobody).
    pub work_end: Micros,
    pub outcome: AttemptEnd,
}

/// A request as the timeline draws it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RequestRecord {
    /// When it arrived (µs of the run).
    pub arrived: Micros,
    /// How long the route took to answer (µs); 0 while open.
    pub latency: Micros,
    /// The route's deadline, from the arrival (µs), if it has one.
    pub deadline: Option<Micros>,
    /// How many calls the request makes in all, and the step of each shown one.
    pub calls: usize,
    pub step: [u8; SHOWN_CALLS],
    pub attempts: [[AttemptRecord; MAX_ATTEMPTS]; SHOWN_CALLS],
    pub tries: [u8; SHOWN_CALLS],
    /// Whether the call used its fallback.
    pub fallback: [bool; SHOWN_CALLS],
    pub outcome: RouteOutcome,
    pub stuck: bool,
}

impl RequestRecord {
    /// The attempts of shown call `c`.
    pub fn attempts_of(&self, c: usize) -> &[AttemptRecord] {
        &self.attempts[c][..self.tries[c] as usize]
    }

    pub fn shown_calls(&self) -> usize {
        self.calls.min(SHOWN_CALLS)
    }
}

/// What the route answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RouteOutcome {
    #[default]
    Open,
    /// Every call answered.
    Complete,
    /// A call failed or was cut and its fallback was used.
    Partial,
    /// A call without a fallback failed, or was cut by the deadline.
    Error,
}

/// Ended and timed-out attempts per second over the last [`MAX_ALERT_WINDOW_S`] seconds; the
/// rule reads the last `alert_window_s` of them.
#[derive(Clone, Debug)]
pub struct AlertWindow {
    ended: [u64; MAX_ALERT_WINDOW_S],
    timed_out: [u64; MAX_ALERT_WINDOW_S],
    slot: usize,
}

impl Default for AlertWindow {
    fn default() -> Self {
        Self { ended: [0; MAX_ALERT_WINDOW_S], timed_out: [0; MAX_ALERT_WINDOW_S], slot: 0 }
    }
}

impl AlertWindow {
    pub fn record(&mut self, timed_out: bool) {
        self.ended[self.slot] += 1;
        self.timed_out[self.slot] += u64::from(timed_out);
    }

    /// The attempts that ended, and those that timed out, in the last `seconds` (the current
    /// second included; at most [`MAX_ALERT_WINDOW_S`]).
    pub fn counts(&self, seconds: usize) -> (u64, u64) {
        let n = MAX_ALERT_WINDOW_S;
        (0..seconds.min(n)).map(|back| (self.slot + n - back) % n).fold((0, 0), |(e, t), i| {
            (e + self.ended[i], t + self.timed_out[i])
        })
    }

    /// Moves on by one second: the oldest second drops out.
    pub fn rotate(&mut self) {
        self.slot = (self.slot + 1) % MAX_ALERT_WINDOW_S;
        self.ended[self.slot] = 0;
        self.timed_out[self.slot] = 0;
    }
}

/// Where the alert is, as Prometheus names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "lowercase"))]
pub enum AlertState {
    /// The rule's condition does not hold.
    #[default]
    Inactive,
    /// It holds, but not yet for the rule's `for` duration.
    Pending,
    Firing,
}

/// The alert rule, as a Prometheus rule on the timeout rate would say it:
/// `timeouts / ended > threshold and timeouts >= min_timeouts` over the window, `for: for_us`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct AlertRule {
    pub window_s: usize,
    pub threshold_pct: f64,
    pub min_timeouts: u64,
    pub for_us: Micros,
}

/// The rule, its window, and since when its condition has held (Prometheus's `activeAt`).
#[derive(Clone, Debug)]
pub struct TimeoutAlert {
    pub rule: AlertRule,
    window: AlertWindow,
    held_since: Option<Micros>,
}

impl TimeoutAlert {
    pub fn new(rule: AlertRule) -> Self {
        Self { rule, window: AlertWindow::default(), held_since: None }
    }

    pub fn record(&mut self, timed_out: bool) {
        self.window.record(timed_out);
    }

    /// The timeout rate over the window (%), None when no attempt ended in it.
    pub fn rate_pct(&self) -> Option<f64> {
        let (ended, timed_out) = self.window.counts(self.rule.window_s);
        (ended > 0).then(|| 100.0 * timed_out as f64 / ended as f64)
    }

    /// Whether the rule's condition holds now: the rate above the threshold, on enough timeouts.
    fn holds(&self) -> bool {
        let (_, timed_out) = self.window.counts(self.rule.window_s);
        timed_out >= self.rule.min_timeouts && self.rate_pct().is_some_and(|r| r > self.rule.threshold_pct)
    }

    /// Evaluates the rule at `now`, then moves the window on by one second: firing once the
    /// condition has held at every evaluation for `for_us`; one evaluation without it resets it.
    pub fn evaluate(&mut self, now: Micros) -> AlertState {
        let holds = self.holds();
        self.window.rotate();
        self.held_since = if holds { Some(self.held_since.unwrap_or(now)) } else { None };
        match self.held_since {
            None => AlertState::Inactive,
            Some(since) if now - since >= self.rule.for_us => AlertState::Firing,
            Some(_) => AlertState::Pending,
        }
    }

    /// Since when the condition has held (pending or firing), if it holds.
    pub fn held_since(&self) -> Option<Micros> {
        self.held_since
    }
}

/// The most recent attempts the picture keeps, landing on the latency they took.
pub const LANDED_KEPT: usize = 200;

/// An attempt that reached the dependency: how long the dependency took (or would have taken,
/// when the caller stopped waiting first) and whether its timeout passed first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Landed {
    pub latency: Micros,
    pub timed_out: bool,
}

/// The last [`LANDED_KEPT`] attempts that reached the dependency, and how many did in all.
#[derive(Clone, Debug)]
pub struct LandedRing {
    kept: [Landed; LANDED_KEPT],
    total: u64,
}

impl Default for LandedRing {
    fn default() -> Self {
        Self { kept: [Landed::default(); LANDED_KEPT], total: 0 }
    }
}

impl LandedRing {
    pub fn push(&mut self, landed: Landed) {
        self.kept[(self.total % LANDED_KEPT as u64) as usize] = landed;
        self.total += 1;
    }

    /// Every attempt that reached the dependency so far.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The kept ones, oldest first.
    pub fn recent(&self) -> Vec<Landed> {
        let n = (self.total as usize).min(LANDED_KEPT);
        let start = (self.total as usize).saturating_sub(n);
        (start..start + n).map(|i| self.kept[i % LANDED_KEPT]).collect()
    }
}

//! What a choosing-numbers run did, as typed facts taken from the model once: every sentence
//! of the reading (`reading/`) restates these and nothing else.

use super::model::ChoosingNumbers;
use super::record::{AlertRule, AlertState};
use crate::sim::Micros;

/// What the words say, taken from the run once.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct Facts {
    pub finished: u64,
    /// The per-attempt timeout (ms), if set.
    pub timeout_ms: Option<f64>,
    pub deadline_ms: Option<f64>,
    pub timeout_rate_pct: Option<f64>,
    pub tail_pct: Option<f64>,
    pub calls_per_request: Option<f64>,
    /// Calls a request makes when nothing is retried.
    pub calls_without_retries: usize,
    pub fan_out: usize,
    pub route_p99_ms: Option<f64>,
    pub worst_ms: Option<f64>,
    pub past_deadline_pct: Option<f64>,
    pub slow_pct: Option<f64>,
    pub attempts_fit: Option<u64>,
    pub alert: AlertState,
    /// Since when the alert's condition has held (µs), while it does.
    pub alert_held_since: Option<Micros>,
    pub alert_first_fired: Option<Micros>,
    pub alert_rule: AlertRule,
}

impl ChoosingNumbers {
    pub fn facts(&self) -> Facts {
        let c = &self.config;
        let ms = |us: u64| us as f64 / 1000.0;
        Facts {
            finished: self.answered(),
            timeout_ms: (c.timeout_ms > 0.0).then_some(c.timeout_ms),
            deadline_ms: (c.deadline_ms > 0.0).then_some(c.deadline_ms),
            timeout_rate_pct: self.timeout_rate_pct(),
            tail_pct: self.tail_at_timeout_pct(),
            calls_per_request: self.calls_per_request(),
            calls_without_retries: c.fan_out * c.sequential_calls,
            fan_out: c.fan_out,
            route_p99_ms: self.route().quantile(0.99).map(ms),
            worst_ms: (self.answered() > 0).then(|| ms(self.route().max())),
            past_deadline_pct: self.past_deadline_pct(),
            slow_pct: self.slow_request_pct(),
            attempts_fit: self.attempts_fit(),
            alert: self.alert_state(),
            alert_held_since: self.alert_held_since(),
            alert_first_fired: self.alert_fired_at(),
            alert_rule: self.alert_rule(),
        }
    }
}

//! What the circuit breaker and the pending orders did (Chapter 2, Breaks 2 and 5), from the
//! run's own counts.

use super::words::wait;
use crate::format;
use crate::scenarios::retry_storm::{BreakerState, RetryStorm};
use crate::sim::Micros;

impl RetryStorm {
    /// "so far" while the run goes on.
    fn so_far(&self, now: Micros) -> &'static str {
        if now < self.end { " so far" } else { "" }
    }

    /// How many calls reached the provider while it was down, once the outage has begun.
    fn while_down(&self, now: Micros) -> Option<String> {
        (self.has_outage() && now > self.down_from).then(|| {
            format!(
                "{} the provider while it was down",
                format::counted(self.calls_while_down, "call reached", "calls reached")
            )
        })
    }

    /// The breaker's rule and what it did.
    pub(super) fn breaker_words(&self, now: Micros) -> String {
        let Some(b) = &self.breaker else {
            let head = "No circuit breaker: every attempt goes to the provider, down or not.";
            return match self.while_down(now) {
                Some(down) => format!("{head} {}{}.", capitalised(&down), self.so_far(now)),
                None => head.to_string(),
            };
        };
        let c = &self.config;
        let mut text = format!(
            "A circuit breaker in front of the provider opens after {} within {}, then fails every call at once, \
             without sending it, for {}; after that one probe goes through, and its answer closes the breaker or \
             opens it again.",
            format::counted(b.failure_threshold() as u64, "failure", "failures"),
            wait(c.breaker_window_ms * 1000.0),
            wait(c.breaker_cooldown_ms * 1000.0)
        );
        match b.first_open() {
            None => text += &format!(" It has not opened{}.", self.so_far(now)),
            Some(at) => {
                text += &format!(" It first opened at {}", format::seconds(at));
                if b.opens() > 1 {
                    text += &format!(
                        " and opened {} in all, {} of them when a probe failed",
                        times(b.opens()),
                        format::count(b.failed_probes())
                    );
                }
                text += &format!(
                    "; it failed {} fast{}.",
                    format::counted(self.short_circuited, "call", "calls"),
                    self.so_far(now)
                );
            }
        }
        if let Some(down) = self.while_down(now) {
            text += &format!(" {}{}.", capitalised(&down), self.so_far(now));
        }
        text
    }

    /// The breaker's state now, for the page: "breaker closed", "breaker open until 7 s",
    /// "breaker half-open: one probe out".
    pub(super) fn breaker_state(&self) -> Option<String> {
        self.breaker.as_ref().map(|b| match b.state() {
            BreakerState::Closed => "breaker closed".to_string(),
            BreakerState::Open { until } => format!("breaker open until {}", format::seconds(until)),
            BreakerState::HalfOpen { .. } => "breaker half-open: one probe out".to_string(),
        })
    }

    /// What accepting as pending did: the orders, the backlog, when the worker had drained it.
    pub(super) fn pending_words(&self, now: Micros) -> String {
        let Some(p) = &self.pending else {
            return format!(
                "Nothing is accepted as pending: an action whose attempts all fail is a failed action ({}{}).",
                format::count(self.actions_failed),
                self.so_far(now)
            );
        };
        let counts = p.counts();
        let mut text = format!(
            "Accept as pending: an action whose attempts all failed is accepted as a pending order, and a worker \
             charges the backlog, oldest first, at {} a second (one call every {}).",
            format::number(self.config.drain_rate),
            wait(p.interval() as f64)
        );
        if counts.accepted == 0 {
            text += &format!(" No order was accepted as pending{}.", self.so_far(now));
            return text;
        }
        text += &format!(
            " {} accepted{}; the backlog peaked at {}.",
            format::counted(counts.accepted, "order was", "orders were"),
            self.so_far(now),
            format::count(counts.backlog_max)
        );
        if let Some(b) = self.backlog_at_recovery.filter(|_| self.has_outage() && now >= self.down_until) {
            text += &format!(
                " When the provider came back at {}, {} waiting.",
                format::seconds(self.down_until),
                format::counted(b, "was", "were")
            );
        }
        match p.drained_at() {
            Some(d) if self.has_outage() && d >= self.down_until => {
                text += &format!(
                    " The worker had charged every order at {}, {} after the provider came back.",
                    format::seconds(d),
                    format::seconds(d - self.down_until)
                );
            }
            Some(d) => text += &format!(" The worker had charged every order at {}.", format::seconds(d)),
            None => {
                text += &format!(
                    " {} still pending{}.",
                    format::counted(counts.backlog + counts.in_flight, "order is", "orders are"),
                    if now >= self.end { " at the end" } else { "" }
                );
            }
        }
        text
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// "2 times", "5 times".
fn times(n: u64) -> String {
    format::counted(n, "time", "times")
}

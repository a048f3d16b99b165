//! Calls per user action across the retrying layers.

use super::words::round1;
use crate::format;
use crate::scenarios::retry_storm::RetryStorm;
use crate::sim::Micros;

impl RetryStorm {
    /// Whether any layer makes more than one attempt.
    pub(super) fn retries_at_all(&self) -> bool {
        self.max_attempts > 1 || (self.layers > 1 && self.attempts_per_layer > 1)
    }

    /// The most calls one user action can make: the product of the layers' attempts.
    pub fn calls_per_action_bound(&self) -> u64 {
        (1..self.layers).fold(self.max_attempts as u64, |n, _| n * self.attempts_per_layer as u64)
    }

    pub(super) fn product(&self) -> String {
        let factors: Vec<String> = std::iter::once(self.max_attempts)
            .chain((1..self.layers).map(|_| self.attempts_per_layer))
            .map(|n| n.to_string())
            .collect();
        format!("{} = {}", factors.join(" × "), format::count(self.calls_per_action_bound()))
    }

    fn most_per_action(&self) -> u64 {
        let current = self.clients.iter().map(|c| c.action_calls).max().unwrap_or(0);
        self.max_calls_per_action.max(current) as u64
    }

    /// Calls per user action across the layers, and over the run.
    pub(super) fn layers_words(&self, now: Micros) -> String {
        let head = if !self.retries_at_all() {
            "No layer retries (each makes one attempt), so every user action makes exactly one provider call."
                .to_string()
        } else if self.layers == 1 {
            format!(
                "Only the client retries: at most {} for one user action (its max attempts). The most one action \
                 made in this run: {}.",
                format::counted(self.max_attempts as u64, "provider call", "provider calls"),
                format::count(self.most_per_action())
            )
        } else {
            format!(
                "The client makes up to {} and each of the {} layers below it up to {} for every attempt from \
                 above: up to {} provider calls for one user action. The most one action made in this run: {}.",
                format::counted(self.max_attempts as u64, "attempt", "attempts"),
                self.layers - 1,
                self.attempts_per_layer,
                self.product(),
                format::count(self.most_per_action())
            )
        };
        let budget = if self.has_budget() && self.retries_at_all() {
            " The retry budget can stop a layer before its attempts run out."
        } else {
            ""
        };
        let attempts = self.clients.iter().map(|c| c.action_attempts).max().unwrap_or(0);
        let breaker = match &self.breaker {
            Some(_) if self.actions > 0 => format!(
                " The breaker fails attempts at once while it is open, without sending them: the most attempts \
                 the layers made for one action was {}, those it failed fast included.",
                format::count(self.max_attempts_per_action.max(attempts) as u64)
            ),
            _ => String::new(),
        };
        if self.actions == 0 {
            return format!("{head}{budget}");
        }
        let sent = self.pending.as_ref().map_or(0, |p| p.counts().sent);
        let worker = if sent > 0 {
            format!(" (the pending worker's {} included)", format::counted(sent, "call", "calls"))
        } else {
            String::new()
        };
        format!(
            "{head}{budget}{breaker} Over the run{}, {}{worker} for {}: amplification {}.",
            if now < self.end { " so far" } else { "" },
            format::counted(self.attempts, "provider call", "provider calls"),
            format::counted(self.actions, "user action", "user actions"),
            format::times(round1(self.attempts as f64 / self.actions as f64))
        )
    }
}

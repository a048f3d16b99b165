//! What the chosen backoff does, with the run's own delays.

use super::words::wait;
use crate::format;
use crate::scenarios::retry_storm::{Mode, RetryAfterKind, RetryStorm};

impl RetryStorm {
    /// The exponential waits of the run, from the base delay doubling up to the cap:
    /// "100 ms, 200 ms, 400 ms, 800 ms, 1,600 ms, then 2 s".
    fn doubling(&self) -> String {
        let mut waits = Vec::new();
        let mut w = self.base_us;
        while w < self.cap_us && waits.len() < 6 {
            waits.push(wait(w));
            w *= 2.0;
        }
        if waits.is_empty() {
            return format!("{} (the cap, which is below the base delay)", wait(self.cap_us));
        }
        let last = if w < self.cap_us { "…".to_string() } else { format!("then {}", wait(self.cap_us)) };
        format!("{}, {last}", waits.join(", "))
    }

    /// Whether clients failed together when the provider went down, so that a backoff without
    /// jitter keeps them together (`they` says how), and whether that made waves.
    fn in_step(&self, they: &str) -> String {
        let (from, until) = self.outage();
        match self.failed_at_down {
            _ if until <= from => "There is no outage in this run, so no clients fail together.".to_string(),
            None => format!("When the provider goes down it fails every call then in flight at once, and those clients {they}."),
            Some(0) => "No call was in flight when the provider went down, so no clients failed together.".to_string(),
            Some(n) => {
                let waves = match self.waves_so_far() {
                    0 => String::new(),
                    w => format!(": in waves ({} over capacity after it came back)", format::counted(w, "wave", "waves")),
                };
                format!(
                    "The provider failed the {} in flight at once when it went down, and those clients {they}{waves}.",
                    format::counted(n, "call", "calls")
                )
            }
        }
    }

    /// What the chosen backoff does, with the run's own delays.
    pub(super) fn backoff_words(&self) -> String {
        let c = &self.config;
        let (base, cap) = (wait(self.base_us), wait(self.cap_us));
        let how = match c.mode {
            Mode::Fixed => format!(
                "Fixed: every client waits the same {} after each failed attempt. {}",
                wait(self.fixed_us),
                self.in_step(&format!("retry at the same instants, {} apart", wait(self.fixed_us)))
            ),
            Mode::Exponential => format!(
                "Exponential: a client waits {base} after its first failed attempt, and the wait doubles with every \
                 attempt up to {cap} ({}). Every client follows the same sequence. {}",
                self.doubling(),
                self.in_step("stay in step, their retries further apart each time")
            ),
            Mode::Jitter => format!(
                "Exp + jitter: a client waits a random time between zero and the exponential wait, which starts at \
                 {base} and doubles with every attempt up to {cap} ({}). Clients that failed together pick \
                 different waits, so their retries spread out instead of landing in the same tick.",
                self.doubling()
            ),
            Mode::Decorrelated => format!(
                "Decorrelated jitter: a client waits a random time between {base} and three times its previous \
                 wait, up to {cap}. The waits are random from the first retry, so clients that failed together \
                 drift apart."
            ),
            Mode::Equal => format!(
                "Equal jitter: a client waits half the exponential wait ({}) plus a random part of the other half: \
                 partly in step, partly spread.",
                self.doubling()
            ),
        };
        let attempts = format!(
            " Each user action makes at most {} at the client.",
            format::counted(self.max_attempts as u64, "attempt", "attempts")
        );
        let retry_after = match (c.retry_after, c.retry_after_kind) {
            (false, _) => String::new(),
            (true, RetryAfterKind::IdealSlots) => " When the provider turns a call away with a 503 it says \
                 when to come back (the first tick with room for that caller), and clients wait exactly that instead."
                .to_string(),
            (true, RetryAfterKind::UniformSeconds) => format!(
                " When the provider turns a call away with a 503 it says Retry-After: {}, the same for every caller, \
                 and clients wait exactly that instead, so those turned away together come back together.",
                format::plain(libm::round(c.retry_after_s))
            ),
        };
        format!("{how}{attempts}{retry_after}")
    }
}

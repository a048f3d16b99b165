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

    /// What the chosen backoff does, with the run's own delays.
    pub(super) fn backoff_words(&self) -> String {
        let c = &self.config;
        let (base, cap) = (wait(self.base_us), wait(self.cap_us));
        let how = match c.mode {
            Mode::Fixed => format!(
                "Fixed: every client waits the same {} after each failed attempt. The provider failed every call in \
                 flight at the same instant when it went down, so those clients retry at the same instants, {} \
                 apart: in waves.",
                wait(self.fixed_us),
                wait(self.fixed_us)
            ),
            Mode::Exponential => format!(
                "Exponential: a client waits {base} after its first failed attempt, and the wait doubles with every \
                 attempt up to {cap} ({}). Every client follows the same sequence, so clients that failed together \
                 stay in step: the waves come further apart, not smaller.",
                self.doubling()
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

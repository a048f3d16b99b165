//! The lines under the stat cards.

use super::words::round1;
use crate::format;
use crate::scenarios::retry_storm::RetryStorm;
use crate::sim::Micros;

impl RetryStorm {
    pub(super) fn peak_note(&self, now: Micros) -> String {
        match self.peak_now(now) {
            Some((peak, _)) => format!(
                "{} of capacity ({} per tick)",
                format::times(round1(peak as f64 / self.capacity as f64)),
                self.capacity
            ),
            None => format!("capacity {} per tick", self.capacity),
        }
    }

    pub(super) fn waves_note(&self, now: Micros) -> String {
        if self.peak_now(now).is_none() {
            return "after recovery".to_string();
        }
        let starts = self.wave_starts();
        let gaps: Vec<Micros> = starts.windows(2).map(|w| w[1] - w[0]).collect();
        match (starts.first(), gaps.first()) {
            (None, _) => "no tick over capacity".to_string(),
            (Some(s), Some(g)) if gaps.iter().all(|x| x == g) => {
                format!("from {}, {} apart", format::seconds(*s), format::seconds(*g))
            }
            (Some(s), _) => format!("from {}", format::seconds(*s)),
        }
    }

    pub(super) fn recovered_note(&self, now: Micros) -> String {
        match self.recovered {
            Some(r) if r == self.down_until => "as the provider came back".to_string(),
            Some(r) => format!("{} after the provider came back", format::seconds(r - self.down_until)),
            None if now >= self.end && now < self.down_until => "the provider was still down at the end".to_string(),
            None if now >= self.end => "still retrying at the end".to_string(),
            None => String::new(),
        }
    }

    pub(super) fn amplification_note(&self) -> String {
        format!(
            "{} for {}",
            format::counted(self.attempts, "call", "calls"),
            format::counted(self.actions, "user action", "user actions")
        )
    }

    pub(super) fn attempts_note(&self) -> String {
        format!("{} rejected (503), {} failed while down", format::count(self.rejected), format::count(self.failed))
    }

    pub(super) fn calls_note(&self) -> String {
        if self.layers > 1 {
            format!("at most {}", self.product())
        } else {
            format!("at most {} (max attempts)", self.max_attempts)
        }
    }

    pub(super) fn traffic_note(&self, now: Micros) -> String {
        match (self.calls_per_tick_outage(now), self.calls_per_tick_before()) {
            (Some(d), Some(b)) => {
                format!("{} calls per tick, {} before", format::number(round1(d)), format::number(round1(b)))
            }
            (Some(d), None) => format!("{} calls per tick", format::number(round1(d))),
            _ => String::new(),
        }
    }

    pub(super) fn retry_note(&self) -> String {
        match self.outage_retries() {
            Some((r, u, _)) => format!(
                "{} for {}",
                format::counted(r, "retry", "retries"),
                format::counted(u, "user call", "user calls")
            ),
            None => "while the provider is down".to_string(),
        }
    }
}

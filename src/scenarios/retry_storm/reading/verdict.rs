//! The verdict: the peak after recovery against the capacity, the waves, when the clients were
//! done retrying; and the one line for a comparison column.

use super::words::round1;
use crate::format;
use crate::scenarios::retry_storm::{MAX_WAVES, RetryStorm, TICK};
use crate::sim::Micros;

/// The wave starts a sentence lists before "…".
const LISTED_WAVES: usize = 5;

impl RetryStorm {
    /// The peak after recovery against the capacity, the waves and when the retries ended.
    pub(super) fn verdict(&self, now: Micros) -> String {
        let (from, until) = (format::seconds(self.down_from), format::seconds(self.down_until));
        let cap = self.capacity;
        if !self.has_outage() {
            let head = format!(
                "The provider never goes down in this run (it would be back at {until}, before going down at {from}), \
                 so no calls fail together and nothing lines the retries up."
            );
            return match self.peak_now(now) {
                Some((peak, _)) => {
                    format!("{head} {}", self.peak_sentence(peak, &format!("The busiest tick after {until}")))
                }
                None => head,
            };
        }
        if now < self.down_from {
            return format!(
                "The provider goes down at {from} and is back at {until}; it can take {cap} calls per 100 ms tick. \
                 Nothing has failed yet."
            );
        }
        if now < self.down_until {
            let n = self.waiting_clients() as u64;
            return format!(
                "The provider is down from {from} to {until}: every call fails at once, and {} waiting to retry.",
                format::counted(n, "client is", "clients are")
            );
        }
        let (peak, _) = self.peak_now(now).expect("the provider is back");
        let mut text = self.peak_sentence(peak, "Peak after recovery");
        text.push(' ');
        text += &self.waves_sentence(peak);
        text.push(' ');
        text += &self.done_sentence(now);
        text
    }

    /// "Peak after recovery: 40 calls in one 100 ms tick, ×5.0 of the provider's capacity (8 per tick)."
    fn peak_sentence(&self, peak: u32, head: &str) -> String {
        format!(
            "{head}: {} in one 100 ms tick, {} of the provider's capacity ({} per tick).",
            format::counted(peak as u64, "call", "calls"),
            format::times(round1(peak as f64 / self.capacity as f64)),
            self.capacity
        )
    }

    /// When each wave after recovery started, the one in progress included.
    pub(super) fn wave_starts(&self) -> Vec<Micros> {
        let mut starts: Vec<Micros> = self.waves.iter().map(|w| (w.start_ms * 1000.0) as Micros).collect();
        if self.waves_so_far() > self.wave_count && starts.len() < MAX_WAVES {
            starts.push(self.tick * TICK);
        }
        starts
    }

    fn waves_sentence(&self, peak: u32) -> String {
        let waves = self.waves_so_far();
        if peak <= self.capacity {
            return "No tick went over capacity after the provider came back.".to_string();
        }
        let starts = self.wave_starts();
        let listed: Vec<String> = starts.iter().take(LISTED_WAVES).map(|t| format::seconds(*t)).collect();
        let more = if waves as usize > listed.len() { ", …" } else { "" };
        let gaps: Vec<Micros> = starts.windows(2).map(|w| w[1] - w[0]).collect();
        let apart = match gaps.first() {
            Some(g) if gaps.len() >= 2 && gaps.iter().all(|x| x == g) => format!(", {} apart", format::seconds(*g)),
            _ => String::new(),
        };
        format!(
            "{} over capacity after the provider came back{apart}, starting at {}{more}.",
            format::counted(waves, "wave went", "waves went"),
            listed.join(", ")
        )
    }

    fn done_sentence(&self, now: Micros) -> String {
        match self.recovered {
            Some(r) if r == self.down_until => format!(
                "No client was waiting to retry when the provider came back at {}.",
                format::seconds(self.down_until)
            ),
            Some(r) => format!(
                "Every client was done retrying at {}, {} after the provider came back.",
                format::seconds(r),
                format::seconds(r - self.down_until)
            ),
            None if now >= self.end => {
                format!("Clients were still retrying when the run ended at {}.", format::seconds(self.end))
            }
            None => format!(
                "{} still waiting to retry.",
                format::counted(self.waiting_clients() as u64, "client is", "clients are")
            ),
        }
    }

    /// One line for a comparison column.
    pub(super) fn summary(&self, now: Micros) -> String {
        let Some((peak, _)) = self.peak_now(now) else {
            return if now < self.down_from {
                "The provider is up.".to_string()
            } else {
                format!("The provider is down; {} waiting to retry.", self.waiting_clients())
            };
        };
        let waves = self.waves_so_far();
        let done = match self.recovered {
            Some(r) => format!("done retrying at {}", format::seconds(r)),
            None if now >= self.end => "still retrying at the end".to_string(),
            None => "still retrying".to_string(),
        };
        format!(
            "{} of capacity · {} over capacity · {done}",
            format::times(round1(peak as f64 / self.capacity as f64)),
            format::counted(waves, "wave", "waves")
        )
    }
}

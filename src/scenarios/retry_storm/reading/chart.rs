//! The attempts chart's accessible text: the last charted row, in words.

use crate::format;
use crate::scenarios::retry_storm::{RetryStorm, TICK};
use crate::sim::Micros;

impl RetryStorm {
    /// "Tick at 3.1 s: 0 served, 0 rejected, 12 failed while the provider was down; capacity 8
    /// per tick." The failed count is named only for a row the outage overlaps: after the
    /// provider is back nothing fails that way, and "while the provider was down" would be false.
    pub fn attempts_chart_words(&self) -> String {
        let Some((t, r)) = self.ticks().last() else { return "No tick has finished yet.".to_string() };
        let start = (t * 1000.0) as Micros;
        let (from, until) = self.outage();
        let down = start < until && from < start + self.ticks_per_row() * TICK;
        let failed = if down || r.failed > 0.0 {
            format!(", {} failed while the provider was down", format::number(r.failed))
        } else {
            String::new()
        };
        format!(
            "Tick at {}: {} served, {} rejected{failed}; capacity {} per tick.",
            format::secs(t / 1000.0),
            format::number(r.served),
            format::number(r.rejected),
            self.capacity()
        )
    }
}

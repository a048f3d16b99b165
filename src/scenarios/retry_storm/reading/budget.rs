//! The outage's traffic, and what the retry budget (or its absence) did during it.

use super::words::round1;
use crate::format;
use crate::scenarios::retry_storm::{BudgetWindow, RetryStorm, TICK};
use crate::sim::Micros;

impl RetryStorm {
    /// The outage's calls per tick against the calls per tick before it.
    pub(super) fn traffic_words(&self, now: Micros) -> String {
        let Some(during) = self.calls_per_tick_outage(now) else {
            return if self.has_outage() {
                format!(
                    "The provider goes down at {}; its traffic then is compared with the traffic before.",
                    format::seconds(self.down_from)
                )
            } else {
                "The provider never goes down, so there is no outage traffic to compare.".to_string()
            };
        };
        let elapsed = (now.min(self.down_until) - self.down_from) as f64 / TICK as f64;
        let users = self.outage_user_calls as f64 / elapsed;
        let split = format!(
            "{} per tick were user actions' first calls and {} were retries",
            format::number(round1(users)),
            format::number(round1(during - users))
        );
        // With a breaker or a pending worker the provider's calls are not the layers' attempts
        // (the breaker fails some at once, the worker adds its own): the sentence is about the
        // layers'.
        let layers = self.breaker.is_some() || self.pending.is_some();
        let (when, gets) = match (now < self.down_until, layers) {
            (true, false) => ("So far in the outage", "the provider gets"),
            (false, false) => ("While it was down", "the provider got"),
            (true, true) => ("So far in the outage", "the clients' layers make"),
            (false, true) => ("While it was down", "the clients' layers made"),
        };
        match self.outage_traffic(now) {
            Some((before, during)) => format!(
                "{when} {gets} {} calls per 100 ms tick, {} the {} per tick before it went down: {split}.",
                format::number(round1(during)),
                format::times(round1(during / before)),
                format::number(round1(before))
            ),
            None => format!(
                "{when} {gets} {} calls per 100 ms tick ({split}); there was no traffic before the outage to \
                 compare with.",
                format::number(round1(during))
            ),
        }
    }

    /// Retries during the outage against its user calls: "120 retries for 6 user calls".
    pub(super) fn outage_retries(&self) -> Option<(u64, u64, f64)> {
        let users = self.outage_user_calls;
        let retries = self.outage_attempts - users;
        (users > 0).then(|| (retries, users, round1(100.0 * retries as f64 / users as f64)))
    }

    pub(super) fn budget_words(&self, now: Micros) -> String {
        let share = self.config.budget_pct;
        let outage = self.outage_retries().filter(|_| now > self.down_from && self.has_outage());
        if !self.has_budget() {
            let head = "No retry budget: a layer retries until its attempts run out.";
            return match outage {
                Some((r, u, pct)) => format!(
                    "{head} During the outage, retries were {} of the user calls made then ({} for {}).",
                    format::pct(pct),
                    format::counted(r, "retry", "retries"),
                    format::counted(u, "user call", "user calls")
                ),
                None => head.to_string(),
            };
        }
        let pct = format::pct(share);
        let floor = self.config.budget_min_retries_per_s;
        let reserve = format::counted(self.budget_reserve as u64, "retry", "retries");
        // "A 10% retry budget", or "A retry budget of 10% and 10 retries a second".
        let (before, after) = match (floor > 0.0, share > 0.0) {
            (false, _) => (format!("{pct} "), String::new()),
            (true, true) => (String::new(), format!(" of {pct} and {} retries a second", format::plain(floor))),
            (true, false) => (String::new(), format!(" of {} retries a second", format::plain(floor))),
        };
        if self.layers > 1 {
            let head =
                format!("Each of the {} retrying layers has its own {before}budget{after} over its last 10 s.", self.layers);
            return match outage {
                Some((r, u, p)) => format!(
                    "{head} During the outage, retries at all layers together were {} of the user calls made then \
                     ({} for {}).",
                    format::pct(p),
                    format::counted(r, "retry", "retries"),
                    format::counted(u, "user call", "user calls")
                ),
                None => head,
            };
        }
        let within = match (floor > 0.0, share > 0.0) {
            (false, _) => format!("{pct} of its user calls over those 10 s"),
            (true, true) => format!("{reserve} (its floor) plus {pct} of its user calls over those 10 s"),
            (true, false) => format!("{reserve} (its floor)"),
        };
        let mut text = format!(
            "A {before}retry budget{after}: the client retries only while its retries over the last 10 s stay within \
             {within}; past that, it fails the action at once."
        );
        if let Some(w) = self.budget_window(now) {
            text.push(' ');
            text += &self.window_sentence(now, &w);
        }
        if let Some((r, u, p)) = outage {
            let window_reaches_back = self.budget_window(now).is_some_and(|w| w.firsts_before_outage > 0);
            let why = if p <= share {
                ": within the budget"
            } else if floor > 0.0 {
                ": above the percentage, which the floor's retries come on top of"
            } else if window_reaches_back {
                ": above the budget, because the window still counted the calls from before the outage"
            } else if self.attempts_before > 0 {
                ": above the budget, because in the outage's first 10 s the window still counted the calls from \
                 before it"
            } else {
                ": above the budget"
            };
            text += &format!(
                " The outage {} {} and {}, {} of them{why}.",
                if now < self.down_until { "so far has" } else { "alone had" },
                format::counted(u, "user call", "user calls"),
                format::counted(r, "retry", "retries"),
                format::pct(p)
            );
        }
        text
    }

    /// The budget's window when the provider came back, or now during the outage.
    fn budget_window(&self, now: Micros) -> Option<BudgetWindow> {
        if !self.has_outage() || now <= self.down_from {
            return None;
        }
        if now >= self.down_until {
            return self.budget_at_recovery;
        }
        self.budgets.first().map(|b| b.window(self.outage_first_tick()))
    }

    fn window_sentence(&self, now: Micros, w: &BudgetWindow) -> String {
        let when = if now >= self.down_until {
            format!("When the provider came back at {}, those 10 s held", format::seconds(self.down_until))
        } else {
            "The last 10 s hold".to_string()
        };
        let before = match w.firsts_before_outage {
            0 => "all made during the outage".to_string(),
            n => format!("{} of them made before the outage", format::count(n)),
        };
        let share = if w.firsts > 0 {
            format!(": {}", format::pct(round1(100.0 * w.retries as f64 / w.firsts as f64)))
        } else {
            String::new()
        };
        format!(
            "{when} {} ({before}) and {}{share}.",
            format::counted(w.firsts, "user call", "user calls"),
            format::counted(w.retries, "retry", "retries")
        )
    }
}

//! What a retry-storm run means, in words. Every sentence is computed from the run's
//! configuration and its counts at the moment it is read, so it is true of the run on screen
//! whatever the reader changed (tests/retry_storm.rs checks each claim against random runs).
//!
//! Keys: `verdict` (the peak after recovery against the capacity, the waves, when the clients
//! were done retrying), `prediction` (which of the page's answers the peak bears out: `near`,
//! `double` or `storm`; once the provider is back), `backoff` (what the chosen backoff does,
//! with the run's delays), `traffic` (the outage's calls per tick against the calls before it),
//! `budget` (what the retry budget, or its absence, did during the outage), `layers` (calls
//! per user action across the retrying layers), `summary` (one line for a comparison column),
//! and the stat cards' notes: `peak_note`, `waves_note`, `recovered_note`, `amplification_note`,
//! `attempts_note`, `calls_note`, `traffic_note`, `retry_note`.

use super::{BudgetWindow, ClientState, Mode, RetryStorm, TICK};
use crate::format;
use crate::sim::{Micros, Reading};
use crate::sim::Explain;

impl Explain for RetryStorm {
    fn reading(&self, now: Micros) -> Reading {
        self.reading_at(now)
    }

    fn sweep_theory(c: &super::RetryStormConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

/// A peak up to this multiple of the capacity is "about what it can take"; up to [`STORM`]
/// "up to about twice"; above, "several times".
const NEAR: f64 = 1.5;
const STORM: f64 = 3.0;
/// The wave starts a sentence lists before "…".
const LISTED_WAVES: usize = 5;

/// Which of the page's predictions a peak-to-capacity ratio bears out.
pub fn prediction(ratio: f64) -> &'static str {
    if ratio <= NEAR {
        "near"
    } else if ratio <= STORM {
        "double"
    } else {
        "storm"
    }
}

/// A ratio as the metrics round it (to 0.1), so a sentence quotes the number on the card.
fn round1(x: f64) -> f64 {
    libm::round(x * 10.0) / 10.0
}

/// A duration in µs as a reader says it: "1 s", "100 ms", "1,600 ms".
fn wait(us: f64) -> String {
    format::duration_ms(libm::round(us / 1000.0))
}

impl RetryStorm {
    pub(super) fn reading_at(&self, now: Micros) -> Reading {
        let mut reading = vec![("verdict", self.verdict(now))];
        if let Some((peak, _)) = self.peak_now(now) {
            reading.push(("prediction", prediction(peak as f64 / self.capacity as f64).to_string()));
        }
        reading.extend([
            ("backoff", self.backoff_words()),
            ("traffic", self.traffic_words(now)),
            ("budget", self.budget_words(now)),
            ("layers", self.layers_words(now)),
            ("summary", self.summary(now)),
            ("peak_note", self.peak_note(now)),
            ("waves_note", self.waves_note(now)),
            ("recovered_note", self.recovered_note(now)),
            ("amplification_note", self.amplification_note()),
            ("attempts_note", self.attempts_note()),
            ("calls_note", self.calls_note()),
            ("traffic_note", self.traffic_note(now)),
            ("retry_note", self.retry_note()),
        ]);
        reading
    }

    fn has_outage(&self) -> bool {
        self.down_until > self.down_from
    }

    fn waiting_clients(&self) -> usize {
        self.clients.iter().filter(|c| c.state == ClientState::WaitingToRetry).count()
    }

    /// The peak after recovery against the capacity, the waves and when the retries ended.
    fn verdict(&self, now: Micros) -> String {
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
    fn wave_starts(&self) -> Vec<Micros> {
        let mut starts: Vec<Micros> = self.waves.iter().map(|w| (w.start_ms * 1000.0) as Micros).collect();
        if self.waves_so_far() > self.wave_count && starts.len() < super::MAX_WAVES {
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
    fn backoff_words(&self) -> String {
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
            (true, super::RetryAfterKind::IdealSlots) => " When the provider turns a call away with a 503 it says \
                 when to come back (the first tick with room for that caller), and clients wait exactly that instead."
                .to_string(),
            (true, super::RetryAfterKind::UniformSeconds) => format!(
                " When the provider turns a call away with a 503 it says Retry-After: {}, the same for every caller, \
                 and clients wait exactly that instead, so those turned away together come back together.",
                format::plain(libm::round(c.retry_after_s))
            ),
        };
        format!("{how}{attempts}{retry_after}")
    }

    /// The outage's calls per tick against the calls per tick before it.
    fn traffic_words(&self, now: Micros) -> String {
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
        let (when, gets) = if now < self.down_until {
            ("So far in the outage", "the provider gets")
        } else {
            ("While it was down", "the provider got")
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
    fn outage_retries(&self) -> Option<(u64, u64, f64)> {
        let users = self.outage_user_calls;
        let retries = self.outage_attempts - users;
        (users > 0).then(|| (retries, users, round1(100.0 * retries as f64 / users as f64)))
    }

    fn budget_words(&self, now: Micros) -> String {
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

    /// Whether any layer makes more than one attempt.
    fn retries_at_all(&self) -> bool {
        self.max_attempts > 1 || (self.layers > 1 && self.attempts_per_layer > 1)
    }

    /// The most calls one user action can make: the product of the layers' attempts.
    pub fn calls_per_action_bound(&self) -> u64 {
        (1..self.layers).fold(self.max_attempts as u64, |n, _| n * self.attempts_per_layer as u64)
    }

    fn product(&self) -> String {
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
    fn layers_words(&self, now: Micros) -> String {
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
        if self.actions == 0 {
            return format!("{head}{budget}");
        }
        format!(
            "{head}{budget} Over the run{}, {} for {}: amplification {}.",
            if now < self.end { " so far" } else { "" },
            format::counted(self.attempts, "provider call", "provider calls"),
            format::counted(self.actions, "user action", "user actions"),
            format::times(round1(self.attempts as f64 / self.actions as f64))
        )
    }

    /// One line for a comparison column.
    fn summary(&self, now: Micros) -> String {
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

    fn peak_note(&self, now: Micros) -> String {
        match self.peak_now(now) {
            Some((peak, _)) => format!(
                "{} of capacity ({} per tick)",
                format::times(round1(peak as f64 / self.capacity as f64)),
                self.capacity
            ),
            None => format!("capacity {} per tick", self.capacity),
        }
    }

    fn waves_note(&self, now: Micros) -> String {
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

    fn recovered_note(&self, now: Micros) -> String {
        match self.recovered {
            Some(r) if r == self.down_until => "as the provider came back".to_string(),
            Some(r) => format!("{} after the provider came back", format::seconds(r - self.down_until)),
            None if now >= self.end && now < self.down_until => "the provider was still down at the end".to_string(),
            None if now >= self.end => "still retrying at the end".to_string(),
            None => String::new(),
        }
    }

    fn amplification_note(&self) -> String {
        format!(
            "{} for {}",
            format::counted(self.attempts, "call", "calls"),
            format::counted(self.actions, "user action", "user actions")
        )
    }

    fn attempts_note(&self) -> String {
        format!("{} rejected (503), {} failed while down", format::count(self.rejected), format::count(self.failed))
    }

    fn calls_note(&self) -> String {
        if self.layers > 1 {
            format!("at most {}", self.product())
        } else {
            format!("at most {} (max attempts)", self.max_attempts)
        }
    }

    fn traffic_note(&self, now: Micros) -> String {
        match (self.calls_per_tick_outage(now), self.calls_per_tick_before()) {
            (Some(d), Some(b)) => {
                format!("{} calls per tick, {} before", format::number(round1(d)), format::number(round1(b)))
            }
            (Some(d), None) => format!("{} calls per tick", format::number(round1(d))),
            _ => String::new(),
        }
    }

    fn retry_note(&self) -> String {
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

/// Why the default sweep's curves (the peak after recovery against the base delay, by backoff)
/// look as they do, from the parameters.
pub fn sweep_theory(c: &super::RetryStormConfig, x: &str) -> Option<String> {
    (x == "base_ms").then(|| {
        format!(
            "While the provider is down every call fails at once, so clients that failed together wait and retry \
             together. With a fixed or an exponential wait they all wait the same time, and up to {} calls come back \
             in one wave against a capacity of {} per tick, whatever the base delay (the fixed wait does not use it \
             at all). Jitter draws each wait at random between zero and the exponential one, so clients that failed \
             together come back spread out; the exponential wait soon reaches the {} cap, which is why the base \
             delay changes little.",
            format::count(c.clients as u64),
            format::count(c.capacity as u64),
            format::ms(c.cap_ms)
        )
    })
}

//! What a retry-storm run did, as typed facts taken from the model once: the verdict and the
//! backoff sentence restate these and nothing else (issue 24, item 2).

use super::{ClientState, MAX_WAVES, Mode, RetryAfterKind, RetryStorm, TICK};
use crate::sim::Micros;

/// Where the run is against the outage, which decides what the verdict can say.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum Phase {
    /// The provider never goes down (it would be back before it goes down).
    NoOutage,
    /// The outage has not begun.
    Before,
    /// The provider is down now.
    Down,
    /// The provider is back.
    Back,
}

/// Whether the outage lined the clients up: it can only through calls in flight when it began.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum LinedUp {
    /// There is no outage, so nothing fails together.
    NoOutage,
    /// The outage has not begun yet.
    NotYet,
    /// Nothing was in flight when it began (e.g. it began at 0), so nothing failed together.
    NothingInFlight,
    /// This many calls were in flight and failed together when it began.
    Together { calls: u64 },
}

/// When the clients were done retrying after the provider came back.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum RetriesEnded {
    /// No client was waiting to retry at the moment the provider came back.
    NoneWaiting,
    /// Every client was done retrying at this moment (µs), after the provider came back.
    At { at: Micros },
    /// Clients were still retrying when the run ended.
    NotByTheEnd,
    /// Clients are still retrying now; the run goes on.
    NotYet,
}

/// The backoff the clients use, with the waits it quotes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum Backoff {
    /// The same wait after every failure.
    Fixed,
    /// Base delay doubling up to the cap, the same for every client.
    Exponential,
    /// Random between zero and the exponential wait.
    Jitter,
    /// Random between the base delay and three times the previous wait.
    Decorrelated,
    /// Half the exponential wait plus a random part of the other half.
    Equal,
}

/// What a 503's Retry-After tells the clients, when they honour it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum RetryAfter {
    /// Each caller gets the first tick with room for it.
    IdealSlots,
    /// Every caller gets the same whole number of seconds.
    UniformSeconds { seconds: f64 },
}

/// What a retry-storm run did, and why.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct RetryStormFacts {
    /// Where the run is against the outage.
    pub phase: Phase,
    /// When the provider goes down (µs).
    pub down_from: Micros,
    /// When it is back (µs; at or before `down_from` when there is no outage).
    pub down_until: Micros,
    /// When the run ends (µs).
    pub end: Micros,
    /// Calls the provider admits per 100 ms tick.
    pub capacity: u32,
    /// Most attempts in one tick after the provider is back (none before).
    pub peak_after_recovery: Option<u32>,
    /// That peak divided by the capacity.
    pub peak_vs_capacity: Option<f64>,
    /// Whether some tick after recovery went over capacity.
    pub over_capacity: bool,
    /// Waves over capacity after recovery, the one in progress included.
    pub waves: u64,
    /// When each listed wave started (µs), the one in progress included.
    pub wave_starts: Vec<Micros>,
    /// Whether the outage lined the clients up.
    pub lined_up: LinedUp,
    /// Clients waiting to retry now.
    pub waiting: u64,
    /// When the retries ended (once the provider is back).
    pub retries_ended: Option<RetriesEnded>,
    /// Provider calls per tick before the outage (none when it starts at 0 or never).
    pub calls_per_tick_before: Option<f64>,
    /// Those calls per tick divided by the capacity: the load before the outage.
    pub load_before_vs_capacity: Option<f64>,
    /// The backoff mode.
    pub backoff: Backoff,
    /// The fixed wait (µs).
    pub fixed_us: f64,
    /// The exponential base delay (µs).
    pub base_us: f64,
    /// The cap on any wait (µs).
    pub cap_us: f64,
    /// Attempts a user action makes at most at the client.
    pub max_attempts: u32,
    /// What Retry-After tells the clients, when they honour it.
    pub retry_after: Option<RetryAfter>,
}

impl RetryStormFacts {
    /// Whether the backoff sentence says the clients came back in waves: a backoff without
    /// jitter kept clients that failed together in step, and some tick went over capacity.
    pub fn in_waves(&self) -> bool {
        matches!(self.lined_up, LinedUp::Together { calls } if calls > 0) && self.waves > 0
    }
}

impl RetryStorm {
    /// The run's facts at `now`.
    pub fn facts(&self, now: Micros) -> RetryStormFacts {
        let c = &self.config;
        let peak = self.peak_now(now).map(|(p, _)| p);
        let before = self.calls_per_tick_before();
        RetryStormFacts {
            phase: self.phase(now),
            down_from: self.down_from,
            down_until: self.down_until,
            end: self.end,
            capacity: self.capacity,
            peak_after_recovery: peak,
            peak_vs_capacity: peak.map(|p| p as f64 / self.capacity as f64),
            over_capacity: peak.is_some_and(|p| p > self.capacity),
            waves: self.waves_so_far(),
            wave_starts: self.wave_starts(),
            lined_up: self.lined_up(),
            waiting: self.clients.iter().filter(|c| c.state == ClientState::WaitingToRetry).count() as u64,
            retries_ended: (now >= self.down_until).then(|| self.retries_ended(now)),
            calls_per_tick_before: before,
            load_before_vs_capacity: before.map(|b| b / self.capacity as f64),
            backoff: backoff(c.mode),
            fixed_us: self.fixed_us,
            base_us: self.base_us,
            cap_us: self.cap_us,
            max_attempts: self.max_attempts,
            retry_after: c.retry_after.then_some(match c.retry_after_kind {
                RetryAfterKind::IdealSlots => RetryAfter::IdealSlots,
                RetryAfterKind::UniformSeconds => RetryAfter::UniformSeconds { seconds: c.retry_after_s },
            }),
        }
    }

    fn phase(&self, now: Micros) -> Phase {
        if self.down_until <= self.down_from {
            Phase::NoOutage
        } else if now < self.down_from {
            Phase::Before
        } else if now < self.down_until {
            Phase::Down
        } else {
            Phase::Back
        }
    }

    fn lined_up(&self) -> LinedUp {
        match self.failed_at_down {
            _ if self.down_until <= self.down_from => LinedUp::NoOutage,
            None => LinedUp::NotYet,
            Some(0) => LinedUp::NothingInFlight,
            Some(calls) => LinedUp::Together { calls },
        }
    }

    fn retries_ended(&self, now: Micros) -> RetriesEnded {
        match self.recovered {
            Some(r) if r == self.down_until => RetriesEnded::NoneWaiting,
            Some(at) => RetriesEnded::At { at },
            None if now >= self.end => RetriesEnded::NotByTheEnd,
            None => RetriesEnded::NotYet,
        }
    }

    /// When each wave after recovery started, the one in progress included.
    pub(super) fn wave_starts(&self) -> Vec<Micros> {
        let mut starts: Vec<Micros> = self.waves.iter().map(|w| (w.start_ms * 1000.0) as Micros).collect();
        if self.waves_so_far() > self.wave_count && starts.len() < MAX_WAVES {
            starts.push(self.tick * TICK);
        }
        starts
    }
}

fn backoff(mode: Mode) -> Backoff {
    match mode {
        Mode::Fixed => Backoff::Fixed,
        Mode::Exponential => Backoff::Exponential,
        Mode::Jitter => Backoff::Jitter,
        Mode::Decorrelated => Backoff::Decorrelated,
        Mode::Equal => Backoff::Equal,
    }
}

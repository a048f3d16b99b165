//! The retrying layers between a client and the provider: how many attempts each makes, how
//! long each waits before the next, and the retry budget each keeps.

use crate::scenarios::retry_storm::budget::{BUDGET_SLOTS, Budget, BudgetWindow};
use crate::scenarios::retry_storm::client::Client;
use crate::scenarios::retry_storm::spec::{MAX_LAYERS, Mode, RetryStormConfig, TICK};
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::{MS, Micros};

pub struct Layers {
    /// How many layers retry, the client's own loop (layer 0) included.
    count: usize,
    /// Attempts layer 0 makes, and each layer above it.
    max_attempts: u32,
    attempts_per_layer: u32,
    mode: Mode,
    fixed_us: f64,
    base_us: f64,
    cap_us: f64,
    /// Retry budget as a fraction of first attempts (so a full outage adds that fraction, as
    /// the chapter says); 0 = off.
    budget_share: f64,
    /// Finagle's reserve: the floor's retries over the budget's 10 s.
    budget_reserve: f64,
    budgets: Vec<Budget>,
    jitter_rng: SimRng,
}

impl Layers {
    pub(super) fn new(config: &RetryStormConfig, seed: u64) -> Self {
        // The declared ranges start at 1; a configuration built by hand gets the same floors.
        let count = config.layers.clamp(1, MAX_LAYERS);
        let budget_secs = (BUDGET_SLOTS as u64 * TICK / (1000 * MS)) as f64;
        Self {
            count,
            max_attempts: config.max_attempts.max(1),
            attempts_per_layer: config.attempts_per_layer.max(1),
            mode: config.mode,
            fixed_us: ms_to_us(config.fixed_ms) as f64,
            base_us: ms_to_us(config.base_ms) as f64,
            cap_us: ms_to_us(config.cap_ms) as f64,
            budget_share: config.budget_pct.clamp(0.0, 100.0) / 100.0,
            budget_reserve: config.budget_min_retries_per_s.max(0.0) * budget_secs,
            budgets: vec![Budget::new(); count],
            jitter_rng: SimRng::stream(seed, 3),
        }
    }

    pub fn count(&self) -> usize {
        self.count
    }

    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    pub fn attempts_per_layer(&self) -> u32 {
        self.attempts_per_layer
    }

    /// The attempts layer `l` makes for one attempt from above.
    pub fn limit(&self, l: usize) -> u32 {
        if l == 0 { self.max_attempts } else { self.attempts_per_layer }
    }

    /// Every layer's limit, the client's first.
    pub fn shape(&self) -> Vec<u32> {
        (0..self.count).map(|l| self.limit(l)).collect()
    }

    pub fn fixed_us(&self) -> f64 {
        self.fixed_us
    }

    pub fn base_us(&self) -> f64 {
        self.base_us
    }

    pub fn cap_us(&self) -> f64 {
        self.cap_us
    }

    /// Whether the layers retry under a budget: a share, a floor, or both.
    pub fn has_budget(&self) -> bool {
        self.budget_share > 0.0 || self.budget_reserve > 0.0
    }

    pub fn budget_reserve(&self) -> f64 {
        self.budget_reserve
    }

    /// Layer 0's budget window, its first calls before tick `before` counted apart.
    pub fn window(&self, before: u64) -> BudgetWindow {
        self.budgets[0].window(before)
    }

    /// Moves every budget's window on to `tick`.
    pub(super) fn advance(&mut self, tick: u64) {
        for b in &mut self.budgets {
            b.advance(tick);
        }
    }

    /// Layers `from` and above start afresh for `client`: a first attempt each, deposited in
    /// their budgets.
    pub(super) fn invoke(&mut self, client: &mut Client, from: usize) {
        for l in from..self.count {
            client.attempts[l] = 1;
            client.last_delay[l] = self.base_us;
            self.budgets[l].record_first();
        }
    }

    /// Whether layer `l` retries `client`'s failed attempt: it has attempts left and, with a
    /// budget, the budget allows it (the retry is then withdrawn from it).
    pub(super) fn take_retry(&mut self, client: &Client, l: usize) -> bool {
        if client.attempts[l] >= self.limit(l) {
            return false;
        }
        if self.has_budget() {
            if !self.budgets[l].allows_retry(self.budget_share, self.budget_reserve) {
                return false;
            }
            self.budgets[l].record_retry();
        }
        true
    }

    /// The delay before layer `l`'s next attempt for `client`, in µs.
    pub(super) fn backoff(&mut self, client: &mut Client, l: usize) -> Micros {
        // Failures so far at this layer, minus one: the first retry waits `base`.
        let k = client.attempts[l].saturating_sub(1);
        let doubled = if k >= 40 { f64::INFINITY } else { self.base_us * (1u64 << k) as f64 };
        let exp = doubled.min(self.cap_us);
        let delay = match self.mode {
            Mode::Fixed => self.fixed_us,
            Mode::Exponential => exp,
            Mode::Jitter => self.jitter_rng.uniform() * exp,
            Mode::Equal => exp / 2.0 + self.jitter_rng.uniform() * exp / 2.0,
            Mode::Decorrelated => {
                // AWS's "decorrelated jitter": sleep = min(cap, random_between(base, sleep × 3)).
                let last = client.last_delay[l];
                let d = self.jitter_rng.between(self.base_us, last * 3.0).min(self.cap_us);
                client.last_delay[l] = d;
                d
            }
        };
        delay as Micros
    }

    /// `client`'s attempt as a leaf of the layers' tree: its place among every attempt the
    /// layers could make (layer 0's attempt is the most significant digit).
    pub(super) fn leaf_index(&self, client: &Client) -> u32 {
        (0..self.count).fold(0, |index, l| index * self.limit(l) + client.attempts[l].saturating_sub(1))
    }
}

//! A retry budget (Finagle's `RetryBudget`) and what its window holds.

/// Budgets count requests over the last 10 s (Finagle's default RetryBudget lets its credits
/// expire after 10 s), in one slot per tick.
pub(super) const BUDGET_SLOTS: usize = 100;

/// What a retry budget's 10 s window holds at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct BudgetWindow {
    /// User calls (first attempts) in the window.
    pub firsts: u64,
    /// Of those, the ones made before the provider went down.
    pub firsts_before_outage: u64,
    /// Retries in the window.
    pub retries: u64,
}

/// A retry budget: retries at most a reserve plus `share` of the first attempts of the last
/// 10 s (Finagle's `RetryBudget`, with its deposits and withdrawals expiring after the window).
#[derive(Clone, Debug)]
pub(super) struct Budget {
    firsts: [u32; BUDGET_SLOTS],
    retries: [u32; BUDGET_SLOTS],
    sum_firsts: u64,
    sum_retries: u64,
    tick: u64,
}

impl Budget {
    pub(super) fn new() -> Self {
        Self { firsts: [0; BUDGET_SLOTS], retries: [0; BUDGET_SLOTS], sum_firsts: 0, sum_retries: 0, tick: 0 }
    }

    /// Forgets the slots that left the window by `tick`.
    pub(super) fn advance(&mut self, tick: u64) {
        let steps = (tick.saturating_sub(self.tick)).min(BUDGET_SLOTS as u64);
        for k in 1..=steps {
            let i = ((self.tick + k) % BUDGET_SLOTS as u64) as usize;
            self.sum_firsts -= self.firsts[i] as u64;
            self.sum_retries -= self.retries[i] as u64;
            self.firsts[i] = 0;
            self.retries[i] = 0;
        }
        self.tick = self.tick.max(tick);
    }

    pub(super) fn slot(&self) -> usize {
        (self.tick % BUDGET_SLOTS as u64) as usize
    }

    pub(super) fn record_first(&mut self) {
        let i = self.slot();
        self.firsts[i] += 1;
        self.sum_firsts += 1;
    }

    /// Finagle's check: the reserve plus `share` of the window's deposits covers one more
    /// retry on top of the window's withdrawals.
    pub(super) fn allows_retry(&self, share: f64, reserve: f64) -> bool {
        (self.sum_retries + 1) as f64 <= reserve + share * self.sum_firsts as f64
    }

    /// What the window holds now: its user calls, those made before tick `before`, its retries.
    pub(super) fn window(&self, before: u64) -> BudgetWindow {
        let from = self.tick.saturating_sub(BUDGET_SLOTS as u64 - 1);
        let earlier =
            (from..before.min(self.tick + 1)).map(|t| self.firsts[(t % BUDGET_SLOTS as u64) as usize] as u64).sum();
        BudgetWindow { firsts: self.sum_firsts, firsts_before_outage: earlier, retries: self.sum_retries }
    }

    pub(super) fn record_retry(&mut self) {
        let i = self.slot();
        self.retries[i] += 1;
        self.sum_retries += 1;
    }
}

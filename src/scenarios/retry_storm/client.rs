//! A closed-loop client: what it is doing, and each retrying layer's attempts for its current
//! user action.

use super::spec::MAX_LAYERS;
use crate::sim::{Micros, TimerKey};

/// What a client is doing, for the page's per-client view.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ClientState {
    /// Between actions: thinking after an answer, or pausing after a failed action.
    Idle,
    InFlight,
    WaitingToRetry,
}

#[derive(Clone, Debug)]
pub struct Client {
    pub(super) state: ClientState,
    /// The completion of the call in flight, withdrawn if the provider goes down first.
    pub(super) call: Option<TimerKey>,
    /// Attempts each layer has made in its current invocation (layer 0 is the client).
    pub(super) attempts: [u32; MAX_LAYERS],
    /// The last delay per layer, for decorrelated jitter (µs).
    pub(super) last_delay: [f64; MAX_LAYERS],
    pub(super) retry_layer: u8,
    /// Provider calls made for the current user action.
    pub(super) action_calls: u32,
    /// Attempts the layers made for it, those a breaker failed fast included.
    pub(super) action_attempts: u32,
    /// Calls admitted and not yet finished: the invariant says at most one.
    pub(super) open_calls: u32,
    /// Its latest attempt: when, and what became of it (for the picture).
    pub(super) last: Option<Attempt>,
    /// While it waits to retry: when its backoff began and when it ends (µs).
    pub(super) backoff: Option<(Micros, Micros)>,
    /// The current (or last) action's attempts, in order, the first [`MOST_LEAVES`] of them.
    pub(super) leaves: Vec<Leaf>,
}

/// The most attempts of one action a client remembers for the picture's fan (the chapter's
/// 3 × 3 × 3 is 27).
pub const MOST_LEAVES: usize = 125;

/// One attempt of a user action: which leaf of the layers' tree it is (its place among every
/// attempt the layers could make, in the order they would make them) and its outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leaf {
    pub index: u32,
    pub outcome: Outcome,
}

/// What became of an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Admitted: the call is (or was) in service.
    Served,
    /// Turned away with a 503: over the tick's capacity.
    Rejected,
    /// Failed at once: the provider was down.
    Down,
    /// Failed at once by the open circuit breaker, never sent.
    ShortCircuited,
    /// In service when the provider went down, and reset then.
    Reset,
}

/// An attempt of a client's: when it was made (or reset) and its outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    pub at: Micros,
    pub outcome: Outcome,
}

impl Client {
    /// An idle client whose layers' first retry would wait `base_us`.
    pub(super) fn new(base_us: f64) -> Self {
        Self {
            state: ClientState::Idle,
            call: None,
            attempts: [0; MAX_LAYERS],
            last_delay: [base_us; MAX_LAYERS],
            retry_layer: 0,
            action_calls: 0,
            action_attempts: 0,
            open_calls: 0,
            last: None,
            backoff: None,
            leaves: Vec::new(),
        }
    }

    pub fn state(&self) -> ClientState {
        self.state
    }
    /// Provider calls made for the current (or last) user action.
    pub fn action_calls(&self) -> u32 {
        self.action_calls
    }
    /// Attempts the layers made for the current (or last) user action, those a breaker failed
    /// fast included.
    pub fn action_attempts(&self) -> u32 {
        self.action_attempts
    }
    /// The layer whose retry the client waits for (0 = the client's own loop).
    pub fn retry_layer(&self) -> usize {
        self.retry_layer as usize
    }
    /// Its latest attempt, if it made one.
    pub fn last_attempt(&self) -> Option<Attempt> {
        self.last
    }
    /// While it waits to retry: when its backoff began and when it ends (µs).
    pub fn backoff(&self) -> Option<(Micros, Micros)> {
        self.backoff
    }
    /// The current (or last) action's attempts, in order, the first [`MOST_LEAVES`].
    pub fn leaves(&self) -> &[Leaf] {
        &self.leaves
    }
}

/// The clients, counted by what they are doing now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct ClientsNow {
    pub in_call: u32,
    pub waiting: u32,
    pub idle: u32,
}

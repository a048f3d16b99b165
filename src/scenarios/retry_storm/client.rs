//! A closed-loop client: what it is doing, and each retrying layer's attempts for its current
//! user action.

use super::spec::MAX_LAYERS;
use crate::sim::TimerKey;

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
}

impl Client {
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
}

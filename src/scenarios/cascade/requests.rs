//! The requests in flight: /home and /checkout handlers and their outbound calls.

use slotmap::new_key_type;

use crate::sim::{Micros, TimerKey};

new_key_type! {
    /// A /home request whose handler is running.
    pub struct HomeKey;
    /// A /checkout request whose client is still waiting.
    pub struct CheckoutKey;
    /// An outbound call, queued for a connection or sent.
    pub struct CallKey;
}

/// Which call it is, and the request whose handler made it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum CallKind {
    Recs(HomeKey),
    HomePrice(HomeKey),
    CheckoutPrice(CheckoutKey),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum CallState {
    /// Waiting in its pool's queue.
    Queued,
    /// Holding connection `slot`; `answer` is the reply on its way (None: it will never come).
    Sent { slot: u32, answer: Option<TimerKey> },
}

/// One outbound call from a handler to the downstream host.
#[derive(Clone, Copy, Debug)]
pub(super) struct Call {
    pub(super) kind: CallKind,
    pub(super) pool: usize,
    pub(super) state: CallState,
    /// Recommendations' AbortSignal.timeout, with the timeout variants.
    pub(super) timeout: Option<TimerKey>,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Home {
    /// Calls not settled yet (answered or timed out).
    pub(super) unsettled: u8,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Checkout {
    pub(super) sent: Micros,
    /// The request on its way to the handler, later the answer on its way back: whichever is
    /// pending is dropped when the client gives up.
    pub(super) in_transit: TimerKey,
    /// The client's timer.
    pub(super) deadline: TimerKey,
    /// The handler's price call, once the handler runs.
    pub(super) call: Option<CallKey>,
    /// The client gave up, and the handler, not told, goes on.
    pub(super) abandoned: bool,
}

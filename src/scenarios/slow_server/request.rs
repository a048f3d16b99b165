//! A request as the model tracks it, from its arrival to its answer or its client's timeout.

use slotmap::new_key_type;

use crate::sim::{Micros, TimerKey};

new_key_type! {
    /// A request the model is tracking.
    pub struct RequestKey;
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Stage {
    Queued,
    InService,
    /// Cancelled while queued; dropped when the queue reaches it.
    Cancelled,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Request {
    pub(super) arrived: Micros,
    pub(super) server: u8,
    pub(super) stage: Stage,
    /// The client stopped waiting (timed out).
    pub(super) abandoned: bool,
    /// The balancer has the request open on its server's upstream connection (counted in
    /// that server's `proxied`).
    pub(super) proxied: bool,
    /// The service's end while in service (cancelled when a timeout cancels the work, or when
    /// B's reset ends the attempt).
    pub(super) done: Option<TimerKey>,
    /// The client's timeout, while it waits (cancelled when the answer comes first).
    pub(super) timeout: Option<TimerKey>,
}

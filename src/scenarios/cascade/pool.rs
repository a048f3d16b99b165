//! A client connection pool (undici Pool), slot by slot, and what it holds at one moment.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::requests::{CallKey, CallKind};
use crate::sim::Micros;

/// A pool at one moment: what its status line and the tour read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct PoolNow {
    /// The connection limit; None when unbounded.
    pub limit: Option<u32>,
    pub in_use: u32,
    pub recs_held: u32,
    /// Connections held by recommendations calls that will never be answered.
    pub hung: u32,
    pub waiting: u32,
    pub open: u32,
}

impl PoolNow {
    pub(super) fn of(p: &Pool) -> Self {
        Self {
            limit: p.limit,
            in_use: p.in_use,
            recs_held: p.recs_held,
            hung: p.hung,
            waiting: p.waiting,
            open: p.open,
        }
    }

    /// Every connection it may open is held by a recommendations call.
    pub fn full_of_recs(&self) -> bool {
        self.limit.is_some_and(|l| l > 0 && self.recs_held == l)
    }

    /// Every connection it may open is held by a call that will never be answered.
    pub fn full_of_hung(&self) -> bool {
        self.limit.is_some_and(|l| l > 0 && self.hung == l)
    }
}

/// What a connection slot of a pool is doing, for drawing the pool slot by slot.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Slot {
    /// No connection open in this slot.
    Closed,
    /// Open, kept alive, free for the next call.
    Idle,
    /// Held by a recommendations call.
    Recs,
    /// Held by /home's price call.
    HomePrice,
    /// Held by /checkout's price call.
    CheckoutPrice,
}

/// A client connection pool (undici Pool): reuses the lowest idle connection, else opens a new
/// one while under its limit, else queues the call (FIFO).
#[derive(Clone, Debug)]
pub struct Pool {
    pub(super) limit: Option<u32>,
    pub(super) slots: Vec<Slot>,
    pub(super) idle: BinaryHeap<Reverse<u32>>,
    pub(super) closed: BinaryHeap<Reverse<u32>>,
    /// Waiting calls; entries of calls aborted while queued are skipped when reached.
    pub(super) queue: VecDeque<CallKey>,
    pub(super) waiting: u32,
    pub(super) in_use: u32,
    pub(super) recs_held: u32,
    /// Connections held by recommendations calls that will never be answered.
    pub(super) hung: u32,
    /// When every connection it may open was first held by such a call.
    pub(super) full_of_hung_at: Option<Micros>,
    pub(super) open: u32,
    /// Since when every connection it may open is in use (None: not now).
    full_since: Option<Micros>,
    /// How long every connection was in use, before `full_since`.
    full_for: Micros,
    pub(super) in_use_max: u32,
    pub(super) waiting_max: u32,
}

impl Pool {
    pub(super) fn new(limit: Option<u32>) -> Self {
        let n = limit.unwrap_or(0);
        Self {
            limit,
            slots: vec![Slot::Closed; n as usize],
            idle: BinaryHeap::new(),
            closed: (0..n).map(Reverse).collect(),
            queue: VecDeque::new(),
            waiting: 0,
            in_use: 0,
            recs_held: 0,
            hung: 0,
            full_of_hung_at: None,
            open: 0,
            full_since: None,
            full_for: 0,
            in_use_max: 0,
            waiting_max: 0,
        }
    }

    /// The connection limit; None when unbounded.
    pub fn limit(&self) -> Option<u32> {
        self.limit
    }
    /// Every slot's state (an unbounded pool has as many slots as it ever had connections).
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }
    /// Connections held by a call now.
    pub fn in_use(&self) -> u32 {
        self.in_use
    }
    /// Connections held by recommendations calls now.
    pub fn recs_held(&self) -> u32 {
        self.recs_held
    }
    /// Calls waiting for a connection now.
    pub fn waiting(&self) -> u32 {
        self.waiting
    }
    /// Connections open now (in use or idle).
    pub fn open(&self) -> u32 {
        self.open
    }
    pub fn in_use_max(&self) -> u32 {
        self.in_use_max
    }
    pub fn waiting_max(&self) -> u32 {
        self.waiting_max
    }
    /// When every connection it may open was first held by a recommendations call that will
    /// never be answered (None: never).
    pub fn full_of_hung_at(&self) -> Option<Micros> {
        self.full_of_hung_at
    }

    /// Since when every connection it may open has been in use without a gap (None: not now).
    pub fn full_since(&self) -> Option<Micros> {
        self.full_since
    }

    /// How long, by `now`, every connection it may open was in use (0 without a limit).
    pub fn full_for(&self, now: Micros) -> Micros {
        self.full_for + self.full_since.map_or(0, |since| now.saturating_sub(since))
    }

    /// Every connection the pool may open is held by a recommendations call.
    pub(super) fn full_of_recs(&self) -> bool {
        self.limit.is_some_and(|l| l > 0 && self.recs_held == l)
    }

    /// A connection for a new call: `(slot, freshly opened)`, or None when the call must queue.
    pub(super) fn take(&mut self) -> Option<(u32, bool)> {
        if let Some(Reverse(s)) = self.idle.pop() {
            return Some((s, false));
        }
        let slot = match self.closed.pop() {
            Some(Reverse(s)) => s,
            None if self.limit.is_none() => {
                self.slots.push(Slot::Closed);
                self.slots.len() as u32 - 1
            }
            None => return None,
        };
        self.open += 1;
        Some((slot, true))
    }

    pub(super) fn hold(&mut self, now: Micros, slot: u32, kind: CallKind) {
        self.slots[slot as usize] = kind.slot();
        self.in_use += 1;
        self.in_use_max = self.in_use_max.max(self.in_use);
        if self.limit.is_some_and(|l| l > 0 && self.in_use == l) && self.full_since.is_none() {
            self.full_since = Some(now);
        }
        if matches!(kind, CallKind::Recs(_)) {
            self.recs_held += 1;
        }
    }

    pub(super) fn unhold(&mut self, now: Micros, slot: u32) {
        if let Some(since) = self.full_since.take() {
            self.full_for += now - since;
        }
        if self.slots[slot as usize] == Slot::Recs {
            self.recs_held -= 1;
        }
        self.in_use -= 1;
    }

    pub(super) fn enqueue(&mut self, call: CallKey) {
        self.queue.push_back(call);
        self.waiting += 1;
        self.waiting_max = self.waiting_max.max(self.waiting);
    }
}

impl CallKind {
    /// What a connection held by this call shows (here, so that a call need not know the pool).
    fn slot(self) -> Slot {
        match self {
            CallKind::Recs(_) => Slot::Recs,
            CallKind::HomePrice(_) => Slot::HomePrice,
            CallKind::CheckoutPrice(_) => Slot::CheckoutPrice,
        }
    }
}

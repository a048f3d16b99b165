//! What the figure's picture draws at one moment, read off the model: each pool's connection
//! slots and the call holding each one (a recommendations call that will never be answered, a
//! price call for /home or for /checkout, whose client may have left), and the pool's line of
//! calls waiting for a connection, in the order the pool will serve them. Nothing in it is made
//! for the animation: every slot and every dot is a connection or a call the model holds now.

use super::model::{Cascade, RECS_POOL, SHARED};
use super::pool::{Pool, PoolNow, Slot};
use super::requests::{CallKind, CallState};
use crate::sim::Micros;
use crate::sim::decimal::fixed;

/// The most slots drawn for one pool: an unbounded pool opens a connection per hung call.
pub const MOST_SLOTS_DRAWN: usize = 400;
/// The most waiting calls drawn for one pool, head of the line first (its counts say all).
pub const MOST_WAITING_DRAWN: usize = 500;

/// Who holds a connection, or that none does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// Not open.
    Closed,
    /// Open and free for the next call.
    Free,
    /// A recommendations call; `hung` when it will never be answered.
    Recs { hung: bool },
    /// /home's price call.
    HomePrice,
    /// /checkout's price call; `client_gone` when its client already gave up.
    CheckoutPrice { client_gone: bool },
}

/// A call waiting in a pool's line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiter {
    /// /home's recommendations call.
    Recs,
    /// /home's price call.
    HomePrice,
    /// /checkout's price call; `client_gone` when its client already gave up.
    CheckoutPrice { client_gone: bool },
}

impl Waiter {
    fn of(kind: CallKind, client_gone: bool) -> Self {
        match kind {
            CallKind::Recs(_) => Waiter::Recs,
            CallKind::HomePrice(_) => Waiter::HomePrice,
            CallKind::CheckoutPrice(_) => Waiter::CheckoutPrice { client_gone },
        }
    }

    /// Made by a /home handler (else by a /checkout one).
    pub fn for_home(self) -> bool {
        matches!(self, Waiter::Recs | Waiter::HomePrice)
    }
}

/// One pool as the picture draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolPicture {
    /// "shared" or "recs", as the facts name the pools.
    pub name: &'static str,
    /// The pool's own counts now (the facts' `shared_now`, `recs_pool_now`).
    pub now: PoolNow,
    /// The first [`MOST_SLOTS_DRAWN`] slots, in slot order.
    pub slots: Vec<Holder>,
    /// Every slot the pool has (more than `slots` only for an unbounded pool).
    pub slots_total: usize,
    /// Held connections by holder, over every slot.
    pub held: Held,
    /// The first [`MOST_WAITING_DRAWN`] waiting calls, head of the line first.
    pub line: Vec<Waiter>,
    /// Every waiting call made by /home, by /checkout, and those of /checkout's whose client left.
    pub waiting_home: u32,
    pub waiting_checkout: u32,
    pub waiting_checkout_client_gone: u32,
    /// Since when every connection it may open has been in use without a gap (None: not now).
    pub full_since: Option<Micros>,
}

/// Held connections, counted by holder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held {
    pub recs_hung: u32,
    pub recs: u32,
    pub home_price: u32,
    pub checkout_price: u32,
    pub checkout_price_client_gone: u32,
}

impl Held {
    fn count(&mut self, h: Holder) {
        match h {
            Holder::Recs { hung: true } => self.recs_hung += 1,
            Holder::Recs { hung: false } => self.recs += 1,
            Holder::HomePrice => self.home_price += 1,
            Holder::CheckoutPrice { client_gone: false } => self.checkout_price += 1,
            Holder::CheckoutPrice { client_gone: true } => self.checkout_price_client_gone += 1,
            Holder::Closed | Holder::Free => {}
        }
    }

    pub fn total(&self) -> u32 {
        self.recs_hung + self.recs + self.home_price + self.checkout_price + self.checkout_price_client_gone
    }
}

impl PoolPicture {
    /// Every connection it may open is in use now.
    pub fn full(&self) -> bool {
        self.now.limit.is_some_and(|l| l > 0 && self.now.in_use == l)
    }
}

/// The picture of one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// The moment drawn.
    pub at: Micros,
    pub shared: PoolPicture,
    /// The bulkhead's pool for recommendations (None without one).
    pub recs_pool: Option<PoolPicture>,
    /// When every connection of the shared pool was first in use (`pool_full_at_ms`).
    pub pool_full_at: Option<Micros>,
    /// When every one was first held by a recommendations call (`pool_exhausted_ms`).
    pub pool_exhausted_at: Option<Micros>,
    pub home_in_flight: u64,
    pub checkout_waiting: u64,
    pub downstream_open: u32,
}

impl Cascade {
    /// What the picture draws at `now`, the model's present.
    pub fn picture(&self, now: Micros) -> Picture {
        let c = self.counts();
        Picture {
            at: now,
            shared: self.pool_picture("shared", SHARED, self.shared_pool()),
            recs_pool: self.recs_pool().map(|p| self.pool_picture("recs", RECS_POOL, p)),
            pool_full_at: self.pool_full_at,
            pool_exhausted_at: self.pool_exhausted_at,
            home_in_flight: c.home_in_flight,
            checkout_waiting: c.checkout_in_flight,
            downstream_open: self.downstream_open(),
        }
    }

    fn pool_picture(&self, name: &'static str, pool_id: usize, pool: &Pool) -> PoolPicture {
        let holders = self.holders(pool_id, pool);
        let mut held = Held::default();
        holders.iter().for_each(|&h| held.count(h));
        let waiters: Vec<Waiter> = pool
            .queue
            .iter()
            // A call aborted while it waited is gone from the model; the pool skips its entry.
            .filter_map(|&key| self.calls.get(key))
            .map(|call| Waiter::of(call.kind, self.client_gone(call.kind)))
            .collect();
        let waiting_checkout_client_gone =
            waiters.iter().filter(|w| **w == Waiter::CheckoutPrice { client_gone: true }).count() as u32;
        let waiting_home = waiters.iter().filter(|w| w.for_home()).count() as u32;
        PoolPicture {
            name,
            now: PoolNow::of(pool),
            slots_total: holders.len(),
            slots: holders.into_iter().take(MOST_SLOTS_DRAWN).collect(),
            held,
            waiting_checkout: waiters.len() as u32 - waiting_home,
            waiting_home,
            waiting_checkout_client_gone,
            line: waiters.into_iter().take(MOST_WAITING_DRAWN).collect(),
            full_since: pool.full_since(),
        }
    }

    /// Each slot's holder: the pool knows what kind of call holds a slot, the call knows
    /// whether it will be answered and whose client has left.
    fn holders(&self, pool_id: usize, pool: &Pool) -> Vec<Holder> {
        let mut holders: Vec<Holder> = pool
            .slots()
            .iter()
            .map(|s| match s {
                Slot::Closed => Holder::Closed,
                Slot::Idle => Holder::Free,
                Slot::Recs => Holder::Recs { hung: false },
                Slot::HomePrice => Holder::HomePrice,
                Slot::CheckoutPrice => Holder::CheckoutPrice { client_gone: false },
            })
            .collect();
        for call in self.calls.values().filter(|c| c.pool == pool_id) {
            let CallState::Sent { slot, answer } = call.state else { continue };
            holders[slot as usize] = match call.kind {
                CallKind::Recs(_) => Holder::Recs { hung: answer.is_none() },
                CallKind::HomePrice(_) => Holder::HomePrice,
                CallKind::CheckoutPrice(_) => Holder::CheckoutPrice { client_gone: self.client_gone(call.kind) },
            };
        }
        holders
    }

    /// A /checkout call whose client already gave up (its handler, not told, goes on).
    fn client_gone(&self, kind: CallKind) -> bool {
        match kind {
            CallKind::CheckoutPrice(checkout) => self.checkouts.get(checkout).is_some_and(|c| c.abandoned),
            CallKind::Recs(_) | CallKind::HomePrice(_) => false,
        }
    }
}

/// A time as `run --json` gives a metric: ms to a tenth, or null. Written with
/// `decimal::fixed`, not `{}`: formatting a float brings core's float formatter and its tables
/// into the module (tests/browser/modules.test.mjs).
fn ms_json(t: Option<Micros>) -> String {
    t.map_or("null".to_string(), |t| fixed(libm::round(t as f64 / 100.0) / 10.0, 1))
}

/// A pool's counts as the facts name them (`shared_now`, `recs_pool_now`).
fn pool_now_json(p: &PoolNow) -> String {
    let limit = p.limit.map_or("null".to_string(), |l| l.to_string());
    format!(
        "{{\"limit\":{limit},\"in_use\":{},\"recs_held\":{},\"hung\":{},\"waiting\":{},\"open\":{}}}",
        p.in_use, p.recs_held, p.hung, p.waiting, p.open
    )
}

impl PoolPicture {
    fn drawn_json(&self) -> String {
        let h = &self.held;
        let count = |kind: Holder| self.slots.iter().filter(|s| **s == kind).count();
        format!(
            "{{\"name\":\"{}\",\"slots_total\":{},\"slots_drawn\":{},\"capped\":{},\"free_drawn\":{},\"closed_drawn\":{},\
             \"held\":{{\"recs_hung\":{},\"recs\":{},\"home_price\":{},\"checkout_price\":{},\"checkout_price_client_gone\":{}}},\
             \"waiting_home\":{},\"waiting_checkout\":{},\"waiting_checkout_client_gone\":{},\"line_drawn\":{},\"full\":{},\"full_since_ms\":{}}}",
            self.name,
            self.slots_total,
            self.slots.len(),
            self.slots_total > self.slots.len(),
            count(Holder::Free),
            count(Holder::Closed),
            h.recs_hung,
            h.recs,
            h.home_price,
            h.checkout_price,
            h.checkout_price_client_gone,
            self.waiting_home,
            self.waiting_checkout,
            self.waiting_checkout_client_gone,
            self.line.len(),
            self.full(),
            ms_json(self.full_since),
        )
    }
}

impl Picture {
    /// What the picture draws, as JSON for the page's `data-drawn` hook: counts named as
    /// `run --json` names them (its metrics, and its facts' `shared_now`, `recs_pool_now`), and
    /// each pool's slots and line by kind.
    pub fn drawn_json(&self) -> String {
        let pools: Vec<String> = std::iter::once(&self.shared).chain(&self.recs_pool).map(|p| p.drawn_json()).collect();
        format!(
            "{{\"at_ms\":{},\"pool_full_at_ms\":{},\"pool_exhausted_ms\":{},\"home_in_flight_now\":{},\"checkout_waiting\":{},\
             \"downstream_open_connections\":{},\"shared_now\":{},\"recs_pool_now\":{},\"pools\":[{}]}}",
            fixed(self.at as f64 / 1000.0, 3),
            ms_json(self.pool_full_at),
            ms_json(self.pool_exhausted_at),
            self.home_in_flight,
            self.checkout_waiting,
            self.downstream_open,
            pool_now_json(&self.shared.now),
            self.recs_pool.as_ref().map_or("null".to_string(), |p| pool_now_json(&p.now)),
            pools.join(","),
        )
    }
}

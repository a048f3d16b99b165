//! The load balancer's choice of a server, by its policy, among the servers it still sends to.

use super::server::Server;
use super::spec::{MAX_SERVERS, Policy};
use crate::sim::rng::SimRng;

pub(super) struct Balancer {
    policy: Policy,
    rng: SimRng,
    /// Servers the balancer still sends to.
    eligible: Vec<u8>,
    next_rr: usize,
    /// The rotation of retries after a refused connection.
    next_retry_rr: usize,
}

impl Balancer {
    pub(super) fn new(policy: Policy, rng: SimRng, servers: usize) -> Self {
        Self { policy, rng, eligible: (0..servers as u8).collect(), next_rr: 0, next_retry_rr: 0 }
    }

    /// Health checks removed `server` from the pool: the balancer no longer sends to it.
    pub(super) fn eject(&mut self, server: u8) {
        self.eligible.retain(|&s| s != server);
    }

    /// The balancer's choice among the servers it still considers healthy and has not tried
    /// for this request (`tried`: a bit per server); None when none is left.
    pub(super) fn pick(&mut self, servers: &[Server], tried: u32) -> Option<usize> {
        let mut candidates = [0u8; MAX_SERVERS];
        let mut n = 0;
        for &s in self.eligible.iter().filter(|&&s| tried & (1 << s) == 0) {
            candidates[n] = s;
            n += 1;
        }
        if n == 0 {
            return None;
        }
        let load = |i: usize| servers[candidates[i] as usize].proxied;
        // A retry keeps its own rotation, so that B's share alternates over the others.
        let rotation = if tried == 0 { &mut self.next_rr } else { &mut self.next_retry_rr };
        let choice = match self.policy {
            Policy::RoundRobin => {
                let i = *rotation % n;
                *rotation = i + 1;
                i
            }
            Policy::Random => self.rng.below(n as u64) as usize,
            Policy::LeastOutstanding => {
                // Start the scan at a rotating index so ties spread evenly.
                let start = *rotation % n;
                *rotation = start + 1;
                (0..n).map(|k| (start + k) % n).min_by_key(|&i| load(i)).unwrap_or(0)
            }
            Policy::TwoChoices => {
                let a = self.rng.below(n as u64) as usize;
                let b = if n > 1 { (a + 1 + self.rng.below(n as u64 - 1) as usize) % n } else { a };
                if load(b) < load(a) { b } else { a }
            }
        };
        Some(candidates[choice] as usize)
    }
}

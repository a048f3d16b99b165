//! One server behind the balancer: its FIFO queue, its workers, and what the balancer knows of it.

use std::collections::VecDeque;

use super::request::RequestKey;

/// One server as the simulation sees it.
#[derive(Clone, Debug, Default)]
pub struct Server {
    pub(super) queue: VecDeque<RequestKey>,
    pub(super) in_service: Vec<RequestKey>,
    /// Requests at this server: queued (not cancelled) plus in service.
    pub(super) outstanding: u32,
    /// Requests the balancer has open on this server, whose clients still wait: what least
    /// outstanding and two choices compare.
    pub(super) proxied: u32,
    pub(super) served: u64,
    pub(super) max_outstanding: u32,
    pub(super) factor: f64,
    pub(super) down: bool,
    pub(super) ejected: bool,
}

impl Server {
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }
    pub fn served(&self) -> u64 {
        self.served
    }
    /// Requests the balancer has open on this server (whose clients still wait).
    pub fn proxied(&self) -> u32 {
        self.proxied
    }
    pub fn max_outstanding(&self) -> u32 {
        self.max_outstanding
    }
    pub fn is_down(&self) -> bool {
        self.down
    }
    pub fn is_ejected(&self) -> bool {
        self.ejected
    }
}

pub fn server_name(i: usize) -> char {
    (b'A' + i as u8) as char
}

//! What the figure's picture draws at one moment, read off the model: each server's line of
//! waiting requests in order (whose client still waits, or has left), the requests in service,
//! the requests the balancer sent just before, and the clients that gave up just before. Nothing
//! in it is made for the animation: every dot is a request the model holds or moved.

use std::collections::VecDeque;

use super::model::SlowServer;
use super::request::Stage;
use super::server::server_name;
use crate::sim::{MS, Micros};

/// How long a request the balancer sent is drawn on its way to its server.
pub const SENT_SHOWN: Micros = 300 * MS;
/// How long a request whose client gave up is drawn leaving its server.
pub const TIMED_OUT_SHOWN: Micros = 600 * MS;
/// The most waiting requests drawn for one server, head of the line first (its count says all).
pub const MOST_WAITING_DRAWN: usize = 600;
/// The most dots of one kind on one lane. At thousands of requests a second a lane draws a
/// sample (and the picture says so) instead of 900 dots that overlap and that a phone cannot
/// draw in a frame; at the chapter's 150 req/s every request is drawn.
pub const MOST_PER_LANE: usize = 60;
/// One server as the picture draws it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerPicture {
    pub name: char,
    /// Requests waiting in its line (a request cancelled while waiting is gone from it).
    pub waiting: u32,
    /// The first [`MOST_WAITING_DRAWN`] of them, head first: true where the client has left.
    pub line: Vec<bool>,
    /// One per busy worker: true where the client has left.
    pub in_service: Vec<bool>,
    pub workers: u32,
    /// Its service time's factor now (B's slowdown once it has begun).
    pub slowdown: f64,
    pub down: bool,
    pub ejected: bool,
}

impl ServerPicture {
    /// Waiting plus in service: what the `b_queue` metric and `final_queue` count.
    pub fn outstanding(&self) -> u32 {
        self.waiting + self.in_service.len() as u32
    }
}

/// The picture of one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Picture {
    pub servers: Vec<ServerPicture>,
    /// Requests sent in the last [`SENT_SHOWN`], or a sample of them on a busy lane (see
    /// [`MOST_PER_LANE`]): (server, how far along, 0 to 1).
    pub sent: Vec<(u8, f64)>,
    /// How many were sent in the last [`SENT_SHOWN`], drawn or not.
    pub sent_recent: usize,
    /// Clients that gave up in the last [`TIMED_OUT_SHOWN`], or a sample on a busy lane:
    /// (server, how far gone, 0 to 1).
    pub timed_out: Vec<(u8, f64)>,
    /// How many gave up in the last [`TIMED_OUT_SHOWN`], drawn or not.
    pub timed_out_recent: usize,
    /// Every timeout so far (the `timed_out` metric).
    pub timed_out_total: u64,
}

impl SlowServer {
    /// What the picture draws at `now`, the model's present.
    pub fn picture(&self, now: Micros) -> Picture {
        let servers = self.servers.iter().enumerate().map(|(i, s)| {
            let line: Vec<bool> = s
                .queue
                .iter()
                .map(|&k| &self.requests[k])
                .filter(|r| r.stage != Stage::Cancelled)
                .take(MOST_WAITING_DRAWN)
                .map(|r| r.abandoned)
                .collect();
            ServerPicture {
                name: server_name(i),
                waiting: s.outstanding - s.in_service.len() as u32,
                line,
                in_service: s.in_service.iter().map(|&k| self.requests[k].abandoned).collect(),
                workers: self.config.workers,
                slowdown: s.factor,
                down: s.down,
                ejected: s.ejected,
            }
        });
        let (sent, sent_recent) = within(self.moves.sent(), now, SENT_SHOWN);
        let (timed_out, timed_out_recent) = within(self.moves.timed_out(), now, TIMED_OUT_SHOWN);
        Picture {
            servers: servers.collect(),
            sent,
            sent_recent,
            timed_out,
            timed_out_recent,
            timed_out_total: self.timed_out,
        }
    }
}

/// The moves of the last `shown` before `now`, each with how far along it is (0 to 1), and how
/// many there were: a lane with more than [`MOST_PER_LANE`] draws every second, third … of them.
fn within(moves: &VecDeque<(Micros, u8)>, now: Micros, shown: Micros) -> (Vec<(u8, f64)>, usize) {
    let since = now.saturating_sub(shown);
    let recent = || moves.iter().filter(move |(at, _)| *at >= since && *at <= now);
    let mut per_lane = [0usize; 256];
    for &(_, server) in recent() {
        per_lane[server as usize] += 1;
    }
    let mut seen = [0usize; 256];
    let mut drawn = Vec::new();
    for &(at, server) in recent() {
        let (k, n) = (&mut seen[server as usize], per_lane[server as usize]);
        if *k % n.div_ceil(MOST_PER_LANE) == 0 {
            drawn.push((server, (now - at) as f64 / shown as f64));
        }
        *k += 1;
    }
    (drawn, per_lane.iter().sum())
}

impl Picture {
    /// True when a lane draws a sample of its moves, not every one.
    pub fn sampled(&self) -> bool {
        self.sent.len() < self.sent_recent || self.timed_out.len() < self.timed_out_recent
    }

    /// What the picture draws, as JSON for the page's `data-drawn` hook: the counts by kind,
    /// named as `run --json` names them (`b_queue`, `timed_out`, each server's `final_queue`).
    pub fn drawn_json(&self) -> String {
        let servers: Vec<String> = self
            .servers
            .iter()
            .map(|s| {
                format!(
                    "{{\"name\":\"{}\",\"final_queue\":{},\"waiting\":{},\"in_service\":{},\"waiting_drawn\":{},\"client_left_drawn\":{}}}",
                    s.name,
                    s.outstanding(),
                    s.waiting,
                    s.in_service.len(),
                    s.line.len(),
                    s.line.iter().filter(|left| **left).count() + s.in_service.iter().filter(|left| **left).count(),
                )
            })
            .collect();
        let b_queue = self.servers.get(1).map_or("null".to_string(), |b| b.outstanding().to_string());
        format!(
            "{{\"b_queue\":{b_queue},\"timed_out\":{},\"servers\":[{}],\"sent_drawn\":{},\"sent_recent\":{},\"timed_out_drawn\":{},\"timed_out_recent\":{},\"sampled\":{}}}",
            self.timed_out_total,
            servers.join(","),
            self.sent.len(),
            self.sent_recent,
            self.timed_out.len(),
            self.timed_out_recent,
            self.sampled(),
        )
    }
}

//! Chapter 1, Part 3: "server B becomes 5× slower at 1 s but stays healthy. Predict what
//! happens to p99 under round robin, then watch B's queue."
//!
//! Open-loop Poisson arrivals go through a load balancer to `servers` servers, each with
//! `workers` workers and a FIFO queue. At `slow_at_ms` server B slows down (or, with
//! `b_fails`, refuses connections until health checks eject it). A client timeout ends the
//! client's wait; the server keeps working unless `cancel_on_timeout` is on.
//!
//! The balancer as nginx and Envoy behave:
//! - A connection a down B refuses is retried on another server chosen by the same policy
//!   among the servers not tried yet for this request (nginx's `proxy_next_upstream error`
//!   marks the peer tried and picks again, `ngx_http_upstream_round_robin.c`; Envoy's retries
//!   choose a host through the load balancer, `previous_hosts` keeping off the failed one), so
//!   B's share spreads over the healthy servers instead of landing on the next index.
//! - Least outstanding counts the requests the balancer has open on each server's upstream
//!   connections (nginx's `least_conn` counts `peer->conns`, Envoy's least request counts a
//!   host's active requests). When a client gives up the balancer closes its upstream request
//!   (nginx by default, `proxy_ignore_client_abort off`), so the count drops at once, even
//!   though the server, never told, may go on working on it (its queue still shows it).
//!
//! The real limits at the ends of the ranges: `backlog` is a server's whole line, up to
//! 100,000. The kernel's accept queue in front of a server is capped at `net.core.somaxconn`
//! (4,096 since Linux 5.4, 128 before, `listen(2)`; Node asks for 511), but Node accepts
//! connections as fast as they come and keeps their requests in its own memory, with no cap but
//! that, so a line this long is real. A full line refuses at once, as a kernel with
//! `tcp_abort_on_overflow` = 1 does; by default Linux instead drops the handshake's last ACK and
//! the client waits on retransmissions, which is not modelled (no chapter run fills the line:
//! the default of 10,000 is far above them). `timeout_ms` (30 s) is far below Node's largest
//! timer (`tests/real_limits.rs`).

mod balancer;
mod charts;
mod facts;
mod model;
mod moves;
mod picture;
mod reading;
mod request;
mod server;
mod spec;
mod tail;

pub use charts::{Charts, InFlightSample, LatencySample, QueueSample};
pub use facts::{BChange, Busiest, SlowServerFacts, Spread, Why};
pub use model::{Event, SAMPLE_EVERY, SlowServer};
pub use picture::{MOST_PER_LANE, Picture, ServerPicture};
pub use reading::{PREDICTIONS, prediction, sweep_knee};
pub use request::RequestKey;
pub use server::{Server, server_name};
pub use spec::{MAX_SERVERS, PARAMS, Policy, ServiceDist, SlowServerConfig};
pub use reading::SlowServerWords;
pub use spec::SlowServerMetrics;

use crate::sim::ScenarioSpec;
use crate::sim::model::ModelOf;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "slow-server",
    title: "One slow server",
    chapter: "Chapter 1, Part 3: No timeout, as a cascade",
    summary: "Server B becomes 5× slower at 1 s but stays healthy. Predict what happens to p99 \
              under round robin, then watch B's queue.",
    params: PARAMS,
    presets: spec::PRESETS,
    metrics: spec::METRICS,
    headline: spec::HEADLINE,
    quotes: reading::QUOTES,
    default_duration_ms: spec::DEFAULT_DURATION_MS,
    sweep: spec::SWEEP,
    model: &ModelOf::<SlowServer>::NEW,
};

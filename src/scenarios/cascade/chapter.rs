//! The chapter's run as printed: its seven-step timeline (the guided tour) and its table.

use super::spec::{CascadeConfig, Variant};
use crate::sim::params::Config;

/// One moment of the chapter's run, for the page's guided mode ("1 / 7"). Each column is what
/// that part of the system is doing at `time_ms` under the defaults (variant `no-timeout`);
/// the tests check every number here against the model.
#[derive(Clone, Copy, Debug)]
pub struct GuidedStep {
    pub time_ms: u64,
    pub title: &'static str,
    pub recs: &'static str,
    pub home: &'static str,
    pub pool: &'static str,
    pub checkout: &'static str,
    pub explanation: &'static str,
}

/// The chapter's seven-step timeline of the `no-timeout` run. Step 1 is the chapter's own row.
pub static GUIDED_STEPS: [GuidedStep; 7] = [
    GuidedStep {
        time_ms: 0,
        title: "Recommendations stops answering",
        recs: "stops answering at 0 s",
        home: "50 per second arrive, each awaits recs",
        pool: "0 of 20 used",
        checkout: "8 ms, fine",
        explanation: "Recommendations accepts every request and never answers: no error, no refusal, \
                      nothing for a health check to see. /home awaits it without a timeout.",
    },
    GuidedStep {
        time_ms: 200,
        title: "Hung calls pile up",
        recs: "9 calls open, none answered",
        home: "9 in flight, all waiting on recs",
        pool: "9 of 20 held by recs; price calls come and go",
        checkout: "8 ms, fine",
        explanation: "Each /home takes a connection for its recommendations call and keeps it. Little's law with \
                      an infinite duration: in flight grows by the arrival rate, about 48 per second.",
    },
    GuidedStep {
        time_ms: 430,
        title: "The pool is full",
        recs: "20 calls open, none will return",
        home: "20 in flight; the 20th's price call finds no connection",
        pool: "20 of 20 held by recs",
        checkout: "the one sent at 0.4 s got one of the last free connections",
        explanation: "Just before this moment the 20th /home's recommendations call took the last connection. \
                      From now on nothing ever returns a connection to the pool.",
    },
    GuidedStep {
        time_ms: 510,
        title: "/checkout starts waiting",
        recs: "still 20 open requests, CPU idle",
        home: "24 in flight, growing",
        pool: "20 of 20; every new call queues",
        checkout: "waits for a connection, never leaves the process",
        explanation: "/checkout never calls recommendations, yet its price call queues behind /home's calls \
                      for a connection that will not come back. Price itself is healthy and idle.",
    },
    GuidedStep {
        time_ms: 5_510,
        title: "The first checkout fails",
        recs: "still 20 open requests",
        home: "264 in flight",
        pool: "20 of 20; over 500 calls queued",
        checkout: "gave up after 5 s: looks like a slow server",
        explanation: "The checkout sent at 0.5 s gives up after 5 s without ever reaching the downstream. \
                      Its error looks exactly like a slow price service: log the pool wait separately.",
    },
    GuidedStep {
        time_ms: 10_000,
        title: "The load stops",
        recs: "20 open requests the whole time",
        home: "479 in flight, grew about 48 per second",
        pool: "20 of 20",
        checkout: "4 succeeded, 45 failed, 50 still waiting",
        explanation: "The downstream was never overloaded: it held 20 open requests and its graphs look fine. \
                      The failure is entirely waiting, inside the caller.",
    },
    GuidedStep {
        time_ms: 15_010,
        title: "The last checkout fails",
        recs: "20 open requests, forever",
        home: "479 still in flight; none will ever finish",
        pool: "20 of 20, forever",
        checkout: "4 of 99 succeeded (the first 0.4 s), 95 failed",
        explanation: "The healthy endpoint died first in user terms. A shared, bounded pool plus an unbounded \
                      wait equals a full pool. A timeout bounds the wait; a bulkhead bounds who shares it.",
    },
];

/// One row of the chapter's table: the fix as the chapter names it, and what its measured run
/// gave (/home in flight after 10 s, /checkout succeeded, /checkout failed). The tests check
/// each against the model at the chapter's settings.
#[derive(Clone, Copy, Debug)]
pub struct ChapterRow {
    pub variant: Variant,
    pub fix: &'static str,
    pub home: &'static str,
    pub ok: &'static str,
    pub failed: &'static str,
}

/// The chapter's table, as printed.
pub static CHAPTER_TABLE: [ChapterRow; 3] = [
    ChapterRow {
        variant: Variant::NoTimeout,
        fix: "No timeout, one shared pool",
        home: "479, growing about 48 per second",
        ok: "4 of 99 (the first 0.4 s)",
        failed: "95",
    },
    ChapterRow {
        variant: Variant::Timeout,
        fix: "300 ms timeout on recommendations, page renders without them",
        home: "15, flat",
        ok: "99 of 99, p99 10 ms",
        failed: "0",
    },
    ChapterRow {
        variant: Variant::Bulkhead,
        fix: "Separate pool for recommendations, no timeout",
        home: "480, still growing",
        ok: "99 of 99, p99 11 ms",
        failed: "0",
    },
];

impl CascadeConfig {
    /// The row of the chapter's table this configuration reproduces: the chapter's settings in
    /// every parameter the fix reads but the fix itself, and a fix the table has a row for (a
    /// timeout moved under No timeout changes nothing). None otherwise.
    pub fn chapter_row(&self) -> Option<&'static ChapterRow> {
        let chapter = CascadeConfig { variant: self.variant, ..CascadeConfig::defaults() };
        if self.as_read() != chapter.as_read() {
            return None;
        }
        CHAPTER_TABLE.iter().find(|r| r.variant == self.variant)
    }

    /// Whether this is the run the chapter's timeline (the guided tour) describes.
    pub fn is_chapter_timeline(&self) -> bool {
        self.as_read() == CascadeConfig::defaults().as_read()
    }
}

//! Chapter 1, Break 5 in words: what many calls saw during the failover, from the run.

use super::failover::HangEnd;
use super::model::WhichTimeout;
use super::spec::Client;
use crate::format;
use crate::sim::{Micros, SEC};

fn at(t: Micros) -> String {
    if t < 10 * SEC { format::us_as_ms(t) } else { format::seconds(t) }
}

fn calls(n: u64) -> String {
    format::counted(n, "call", "calls")
}

impl WhichTimeout {
    /// The `failover` key, and `failover_outcome` (what the calls saw, without the setting it
    /// opens with, for the figure's verdict): only in a run with a failover.
    pub(super) fn failover_words(&self, now: Micros) -> Option<(String, String)> {
        let f = self.failover();
        if !f.enabled() {
            return None;
        }
        if f.calls == 0 {
            let words = "The database fails over at 0; no call has started yet.".to_string();
            return Some((words.clone(), words));
        }
        let c = &self.config;
        let mut out = vec![format!(
            "The database failed over at 0 and its old address drops every packet. {}{}, {} a second, share a \
             pool of {}.",
            calls(f.calls),
            if now < self.end() { " so far" } else { "" },
            format::number(c.failover_calls_per_s),
            format::count(f.pool_size() as u64)
        )];
        out.push(if f.re_resolves() {
            format!(
                "Each new connection looks the name up again; it gave the old address until {}.",
                at(f.dns_switch())
            )
        } else {
            "The client kept the address it resolved before the failover: every connect goes to the old one.".into()
        });
        let setting = out.len();
        if let Some(hung) = f.hung_for {
            let what = match (f.hang_end(), c.client) {
                (HangEnd::UndiciConnect, _) => "undici's connect timeout ended it",
                (HangEnd::HttpIdle, _) => "the socket's idle timer fired and the 'timeout' handler destroyed it",
                (HangEnd::Kernel, Client::Fetch) => "the kernel gave up on its SYNs (the connect timeout is off)",
                (HangEnd::Kernel, Client::NodeHttp) => {
                    "the kernel gave up on its SYNs (node:http has no connect timeout)"
                }
            };
            out.push(format!(
                "{} went to the old address; each hung until {what} ({} for the latest).",
                format::counted(f.connect_hangs, "connect", "connects"),
                at(hung)
            ));
        } else if f.connect_hangs > 0 {
            out.push(format!(
                "{} to the old address {} still hanging.",
                format::counted(f.connect_hangs, "connect", "connects"),
                format::plural(f.connect_hangs, "is", "are")
            ));
        }
        if let Some(full) = f.pool_full_at {
            out.push(format!(
                "The pool was full at {}, and up to {} waited for a connection at once.",
                at(full),
                calls(f.waiting_max)
            ));
        }
        if f.retries > 0 {
            let lookup = if f.re_resolves() { ", which looked the name up again" } else { "" };
            out.push(format!(
                "{} retried at once on a new connection{lookup}: safe even for a write, the request was never sent.",
                format::counted(f.retries, "failed connect was", "failed connects were")
            ));
        }
        let answered = match (f.first_ok_at, f.slowest_ok) {
            (Some(first), Some(slowest)) => format!(
                "{} answered, the first at {}, the slowest after {}",
                calls(f.ok),
                at(first),
                at(slowest)
            ),
            _ => "None answered".to_string(),
        };
        let failed = if f.failed > 0 { format!("; {} failed", calls(f.failed)) } else { "; none failed".into() };
        let pending = f.pending();
        let still = if pending > 0 {
            let when = if now >= self.end() { "when the run ended" } else { "yet" };
            format!("; {} not ended {when}", calls(pending))
        } else {
            String::new()
        };
        out.push(format!("{answered}{failed}{still}."));
        Some((out.join(" "), out[setting..].join(" ")))
    }
}

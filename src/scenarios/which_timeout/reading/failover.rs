//! Chapter 1, Break 5 in words: what many calls saw during the failover, rendered from the
//! failover's facts (and the arrival rate, a setting).

use crate::scenarios::which_timeout::failover::{HangEnd, RequestEnd};
use crate::scenarios::which_timeout::facts::{Answered, FailoverFacts, Hangs, Lookup, Pooled};
use crate::scenarios::which_timeout::spec::{Client, WhichTimeoutConfig};
use crate::format;

fn calls(n: u64) -> String {
    format::counted(n, "call", "calls")
}

fn connects(n: u64) -> String {
    format::counted(n, "connect", "connects")
}

/// The `failover` key, and `failover_outcome` (what the calls saw, without the setting it opens
/// with, for the figure's verdict).
pub(super) fn failover_words(f: &FailoverFacts, client: Client, config: &WhichTimeoutConfig) -> (String, String) {
    if f.calls == 0 {
        let words = "The database fails over at 0; no call has started yet.".to_string();
        return (words.clone(), words);
    }
    let setting = [
        format!(
            "The database failed over at 0 and its old address drops every packet. {}{}, {} a second, share a \
             pool of {}.",
            calls(f.calls),
            if f.run_ended { "" } else { " so far" },
            format::number(config.failover_calls_per_s),
            format::count(f.pool_size)
        ),
        match f.lookup {
            Lookup::ReResolved { old_until_us } => format!(
                "Each new connection looks the name up again; it gave the old address until {}.",
                format::moment(old_until_us)
            ),
            Lookup::KeptOldAddress => {
                "The client kept the address it resolved before the failover: every connect goes to the old one."
                    .into()
            }
        },
    ];
    let outcome = [pooled(f.pooled), dropped(f.pooled), hangs(f.hangs, client), pool_full(f), retries(f), Some(ended(f))];
    let outcome = outcome.into_iter().flatten().collect::<Vec<_>>().join(" ");
    (format!("{} {outcome}", setting.join(" ")), outcome)
}

fn hangs(h: Hangs, client: Client) -> Option<String> {
    match h {
        Hangs::None => None,
        Hangs::StillHanging { connects: n } => Some(format!(
            "{} to the old address {} still hanging.",
            connects(n),
            format::plural(n, "is", "are")
        )),
        Hangs::Ended { connects: n, latest_us, ended_by } => {
            let what = match (ended_by, client) {
                (HangEnd::UndiciConnect, _) => "undici's connect timeout ended it",
                (HangEnd::HttpIdle, _) => "the socket's idle timer fired and the 'timeout' handler destroyed it",
                (HangEnd::Kernel, Client::Fetch) => "the kernel gave up on its SYNs (the connect timeout is off)",
                (HangEnd::Kernel, Client::NodeHttp) => {
                    "the kernel gave up on its SYNs (node:http has no connect timeout)"
                }
            };
            Some(format!(
                "{} went to the old address; each hung until {what} ({} for the latest).",
                connects(n),
                format::moment(latest_us)
            ))
        }
    }
}

fn pooled(p: Option<Pooled>) -> Option<String> {
    let p = p.filter(|p| p.requests > 0)?;
    let sent = format!(
        "{} went out on keep-alive connections the pool held to the old address, and got no answer",
        format::counted(p.requests, "request", "requests")
    );
    Some(match p.ended {
        None => format!("{sent}."),
        Some((end, latest)) => {
            let what = match end {
                RequestEnd::HeadersTimeout => "undici's headers timeout ended it",
                RequestEnd::HttpIdle => "the socket's idle timer fired and the 'timeout' handler destroyed it",
                RequestEnd::Kernel => "the kernel gave up resending it",
            };
            format!("{sent}; each waited until {what} ({} for the latest), and its call failed.", format::moment(latest))
        }
    })
}

fn dropped(p: Option<Pooled>) -> Option<String> {
    let p = p.filter(|p| p.dropped > 0)?;
    Some(format!(
        "When the name changed at {}, the client dropped {} to the old address: a call waiting on one failed \
         then.",
        format::moment(p.changed_at_us),
        format::counted(p.dropped, "pooled connection", "pooled connections")
    ))
}

fn pool_full(f: &FailoverFacts) -> Option<String> {
    f.pool_full.map(|full| {
        format!(
            "The pool was full at {}, and up to {} waited for a connection at once.",
            format::moment(full.at_us),
            calls(full.waiting_max)
        )
    })
}

fn retries(f: &FailoverFacts) -> Option<String> {
    (f.retries > 0).then(|| {
        let lookup = if matches!(f.lookup, Lookup::ReResolved { .. }) { ", which looked the name up again" } else { "" };
        format!(
            "{} retried at once on a new connection{lookup}: safe even for a write, the request was never sent.",
            format::counted(f.retries, "failed connect was", "failed connects were")
        )
    })
}

/// How the calls ended: answered, failed, or not yet.
fn ended(f: &FailoverFacts) -> String {
    let answered = match f.answered {
        Some(Answered { calls: n, first_at_us, slowest_us }) => format!(
            "{} answered, the first at {}; the slowest took {}",
            calls(n),
            format::moment(first_at_us),
            format::moment(slowest_us)
        ),
        None => "None answered".to_string(),
    };
    let failed = if f.failed > 0 { format!("; {} failed", calls(f.failed)) } else { "; none failed".into() };
    let still = if f.pending > 0 {
        let when = if f.run_ended { "when the run ended" } else { "yet" };
        format!("; {} not ended {when}", calls(f.pending))
    } else {
        String::new()
    };
    format!("{answered}{failed}{still}.")
}

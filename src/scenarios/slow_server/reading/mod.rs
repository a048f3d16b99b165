//! What a slow-server run means, in words. `ratio`, `answer` and `limit` restate the run's facts
//! ([`super::SlowServerFacts`], taken once per reading) and nothing else, so they are true of
//! the run on screen whatever the reader changed (tests/slow_server_facts.rs checks the facts
//! and each claim's precondition against random runs).
//!
//! Keys: `ratio` (p99 before and after, the one ratio the page quotes), `answer` (why p99 did
//! what it did), `prediction` (which of the page's predictions this run bears out: `same`,
//! `double` or `explodes`; absent when none does, e.g. p99 rose ×4 and then recovered),
//! `limit` (only when a server's backlog overflowed: what was refused).

use super::facts::{BChange, SlowServerFacts, Spread, Why};
use super::model::SlowServer;
use super::spec::SlowServerConfig;
use super::tail::card_ms;
use crate::format;
use crate::sim::{Guess, Micros};
use crate::sim::{Caption, Explain};
use crate::sim::scenario::Quote;
use super::spec::SlowServerMetrics;

crate::words! {
    /// What a slow-server run means, in words (the keys above).
    pub struct SlowServerWords {
        pub ratio: Option<String>,
        pub prediction: Option<String>,
        pub answer: String,
        pub limit: Option<String>,
    }
}

/// The headline cards in the order the page shows them: p99 before the slowdown, then after.
const FIGURE_CARDS: &[&str] = &[
    SlowServerMetrics::p99_ms_before.key(),
    SlowServerMetrics::p99_ms_after_with_waiting.key(),
    SlowServerMetrics::b_queue.key(),
    SlowServerMetrics::timed_out.key(),
];

impl Explain for SlowServer {
    type Facts = super::SlowServerFacts;
    type Words = SlowServerWords;

    fn facts(&self, now: Micros) -> super::SlowServerFacts {
        SlowServer::facts(self, now)
    }

    fn words(&self, facts: &super::SlowServerFacts) -> SlowServerWords {
        self.words_at(facts)
    }

    /// The numbers once the slowdown has some (`ratio`), what is happening until then.
    fn caption(_config: &SlowServerConfig, words: &SlowServerWords) -> Caption {
        let verdict = if words.ratio.is_some() { SlowServerWords::ratio } else { SlowServerWords::answer };
        Caption::of(FIGURE_CARDS, verdict.key)
    }

    fn sweep_theory(c: &SlowServerConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

/// A ratio of p99 after the slowdown to p99 before it below this is "about the same"; from
/// it to [`EXPLODES`] "roughly doubles, then settles"; from [`EXPLODES`] on, "many times over
/// and keeps growing" when the last five seconds are worse still.
const SAME: f64 = 1.5;
const EXPLODES: f64 = 4.0;

/// The page's answers to "what happens to p99 when B slows down?", in the order shown.
pub const STAYS: Guess = ("same", "p99 stays about the same: the other servers pick up the slack");
pub const DOUBLES: Guess = ("double", "p99 roughly doubles, then settles");
pub const GROWS: Guess = ("explodes", "p99 grows many times over and keeps growing");
pub const PREDICTIONS: &[Guess] = &[STAYS, DOUBLES, GROWS];

impl SlowServer {
    pub(super) fn words_at(&self, facts: &super::SlowServerFacts) -> SlowServerWords {
        SlowServerWords {
            ratio: facts.p99_ratio.map(|r| ratio_sentence(facts, r)),
            prediction: facts.p99_ratio.and_then(|r| prediction(r, facts.still_growing)).map(str::to_string),
            answer: answer(facts),
            limit: (facts.backlog_refused > 0).then(|| backlog_sentence(facts)),
        }
    }
}

fn backlog_sentence(f: &SlowServerFacts) -> String {
    format!(
        "{} refused: a server's backlog of {} waiting requests was full, so they failed at once (they count in no percentile). A real server's accept queue overflows the same way.",
        format::counted(f.backlog_refused, "request was", "requests were"),
        format::count(f.backlog as u64)
    )
}

fn ratio_sentence(f: &SlowServerFacts, ratio: f64) -> String {
    // Each p99 as its card shows it: the same number, rendered the same way.
    let q = |p99: Option<f64>| card_ms(p99).map_or("—".into(), format::card_ms);
    let before = format::counted(f.before_count, "request", "requests");
    let after = format::counted(f.after_count + f.after_waiting, "request", "requests");
    // Its own sentence, so that a figure's verdict leads with the numbers and says this under "Why?".
    let waiting = match f.after_waiting {
        0 => String::new(),
        1 => format!(
            " 1 of the {} is still waiting, counted at its wait so far: the least it will be.",
            format::count(f.after_count + 1)
        ),
        n => format!(
            " {} of the {} are still waiting, each counted at its wait so far: the least it will be.",
            format::count(n),
            format::count(f.after_count + n)
        ),
    };
    let event = match f.b_change {
        // Nothing changes at "the slowdown": the two windows differ only in that the first
        // starts from empty queues.
        BChange::Unchanged => {
            return format!(
                "B does not slow down (×1). p99 was {} in the first {} ({before}), from empty queues, and {} after ({after}): {}.{waiting}",
                q(f.p99_before_ms),
                format::seconds(f.slow_at),
                q(f.p99_after_with_waiting_ms),
                format::times(ratio)
            );
        }
        BChange::Fails => "B went down",
        BChange::Slows => "the slowdown",
    };
    format!(
        "p99 went from {} before {event} ({before}) to {} after it ({after}): {}.{waiting}",
        q(f.p99_before_ms),
        q(f.p99_after_with_waiting_ms),
        format::times(ratio)
    )
}

/// Why p99 did what it did: the load against what the servers can serve, what the policy
/// and the health checks did, and what the client timeout changed.
fn answer(f: &SlowServerFacts) -> String {
    let (fails, slows) = (f.b_change == BChange::Fails, f.b_change == BChange::Slows);
    match f.why {
        Why::OneServerOverloaded | Why::OneServerBusy | Why::OneServerFits => one_server(f),
        Why::ChangeAfterTheEnd => format!(
            "B does not {} within this run: that comes after the end. Move it earlier or run longer.",
            if fails { "go down" } else { "slow down" }
        ),
        Why::ChangeNotYet => format!(
            "B {} at {}; nothing has changed yet.",
            if fails { "goes down" } else { "slows down" },
            format::seconds(f.slow_at)
        ),
        Why::BDown => b_down(f) + &timeouts(f, false),
        Why::PoolOverloaded => {
            let grows = if f.cancels() { "" } else { " Queues grow whatever the policy." };
            format!(
                "Even the whole pool cannot keep up: {} it serves about {} req/s in all, less than the {} req/s arriving.{grows}{}",
                if slows { "with B slowed" } else { "with B at full speed" },
                format::number(f.pool_capacity),
                format::number(f.rate),
                timeouts(f, true)
            )
        }
        Why::LoadAware => format!(
            "This policy looks at the servers' load, so B gets only what it can handle and the others take the rest.{}",
            timeouts(f, false)
        ),
        Why::BShareFits | Why::BShareNearFull | Why::BShareOverloaded => b_share(f),
    }
}

fn one_server(f: &SlowServerFacts) -> String {
    let head = "There is one server, so there is no B to slow down";
    match f.why {
        Why::OneServerOverloaded => {
            let grows = if f.cancels() {
                String::new()
            } else {
                format!(" Its queue grows by about {} every second.", format::number(f.rate - f.healthy_capacity))
            };
            format!(
                "{head}, but it can serve only about {} req/s and {} arrive: it cannot keep up.{grows}{}",
                format::number(f.healthy_capacity),
                format::number(f.rate),
                timeouts(f, true)
            )
        }
        Why::OneServerBusy => format!(
            "{head}. It is {} busy, so its queue swings long and short.{}",
            format::pct(f.rate / f.healthy_capacity * 100.0),
            timeouts(f, false)
        ),
        _ => format!(
            "{head}: it can serve about {} req/s, more than the {} arriving, so waits stay short.{}",
            format::number(f.healthy_capacity),
            format::number(f.rate),
            timeouts(f, false)
        ),
    }
}

/// B went down: what the health checks did, whether the others can carry the load, and
/// where B's load went.
fn b_down(f: &SlowServerFacts) -> String {
    let from = format::seconds(f.slow_at);
    let ejected = match f.b_ejected_at {
        Some(t) => format!("Health checks removed B at {}.", format::seconds(t)),
        None if f.run_over => format!(
            "Health checks take {} to remove B and had not by the end of the run.",
            format::seconds(f.eject_after)
        ),
        None => format!("Health checks take {} to remove B; they have not yet.", format::seconds(f.eject_after)),
    };
    let rest = if f.capacity_without_b < f.rate {
        format!(
            " The servers left can serve only about {} req/s of the {} arriving, so their queues grow.",
            format::number(f.capacity_without_b),
            format::number(f.rate)
        )
    } else {
        String::new()
    };
    let busiest = match f.busiest_other {
        Some(b) => format!(
            " The most loaded of the others was {}, with up to {} at once.",
            b.server,
            format::counted(b.max_queue as u64, "request", "requests")
        ),
        None => String::new(),
    };
    format!(
        "B refused connections from {from}, so the balancer sent each refused request to another server. {ejected}{rest}{busiest}"
    )
}

/// Round robin and random choice send B its share whatever B's state.
fn b_share(f: &SlowServerFacts) -> String {
    let slows = f.b_change == BChange::Slows;
    let (even, still, now) = if slows { ("Even slowed, B", " still", " now") } else { ("B", "", "") };
    match f.why {
        Why::BShareFits => {
            return format!(
                "{even} can serve {} req/s, more than its share of {} req/s: its queue stays short{}.{}",
                format::number(f.b_capacity),
                format::number(f.share),
                if slows { ", and only B's slower service shows in the tail" } else { "" },
                timeouts(f, false)
            );
        }
        Why::BShareNearFull => {
            return format!(
                "B's share, {} req/s, is{now} {} of what B can serve: so close to full, its queue grows long and swings without settling.{}",
                format::number(f.share),
                format::pct(f.b_load.expect("B is up") * 100.0),
                timeouts(f, false)
            );
        }
        _ => {}
    }
    let (name, on_average) =
        if f.spread == Spread::Random { ("Random choice", " on average") } else { ("Round robin", "") };
    let grows = if f.cancels() {
        String::new()
    } else {
        format!(
            " Its queue grows by about {} requests every second, and every request sent to B waits behind all of them.",
            format::number(f.share - f.b_capacity)
        )
    };
    format!(
        "{name}{still} sends B its share, {} req/s{on_average}, but B can{now} serve only {} req/s.{grows}{}",
        format::number(f.share),
        format::number(f.b_capacity),
        timeouts(f, true)
    )
}

/// What the client timeout did. `queues_grow`: the sentence may say that abandoned work
/// keeps the queue growing (only where it does).
fn timeouts(f: &SlowServerFacts, queues_grow: bool) -> String {
    let Some(timeout) = f.timeout else { return String::new() };
    let limit = format::us_as_ms(timeout);
    if f.timed_out == 0 {
        return format!(" No request waited the full {limit}, so the client timeout never fired.");
    }
    let share = f.timed_out_pct.map(format::pct).unwrap_or_default();
    let n = format::counted(f.timed_out, "request", "requests");
    let how = format!(" A timed-out request counts in the percentiles as {limit}, so they cannot go above it.");
    if f.cancel_on_timeout {
        format!(
            " {n} ({share}) timed out after {limit}; each left its server's queue with its client, so queues stay bounded and slow requests became timeouts.{how}"
        )
    } else if queues_grow {
        format!(
            " {n} ({share}) timed out after {limit}, but the servers still work through every abandoned request, so the queue grows all the same.{how}"
        )
    } else {
        format!(" {n} ({share}) timed out after {limit}; the servers still finished their work.{how}")
    }
}

/// Which of the page's three predictions a run bears out, from its p99 ratio and whether its
/// tail is still growing; none when it fits none of them.
pub fn prediction(ratio: f64, growing: bool) -> Option<&'static str> {
    if ratio < SAME {
        Some(STAYS.0)
    } else if ratio < EXPLODES {
        (!growing).then_some(DOUBLES.0)
    } else {
        growing.then_some(GROWS.0)
    }
}

/// Where B's queue starts to grow without bound in a sweep of the slowdown or the rate, from
/// queueing theory: B gets rate / servers under round robin and random choice whatever its
/// state, and serves workers × 1000 / (service_ms × slowdown) once slowed. The knee is the
/// slowdown (×) or the rate (req/s) where the two meet; None for another x, or one server.
pub fn sweep_knee(c: &SlowServerConfig, x: &str) -> Option<f64> {
    let servers = c.servers as f64;
    if servers < 2.0 {
        return None;
    }
    let healthy = c.workers as f64 * 1000.0 / c.service_ms;
    match x {
        SlowServerConfig::slowdown => Some(healthy / (c.rate / servers)),
        SlowServerConfig::rate => Some(servers * healthy / c.slowdown),
        _ => None,
    }
}

/// The sweep's explanation of its curves, rendered from [`sweep_knee`].
pub fn sweep_theory(c: &SlowServerConfig, x: &str) -> Option<String> {
    let knee = sweep_knee(c, x)?;
    let knee = if x == SlowServerConfig::slowdown {
        format!("from a slowdown of ×{} on", format::number(knee))
    } else {
        format!("from {} req/s on", format::number(knee))
    };
    Some(format!(
        "Round robin and random choice keep sending B its share of the load, so once B's share exceeds what the slowed B can serve its queue grows without bound: {knee} (rate ÷ servers > workers × 1000 ÷ (service time × slowdown)). Least outstanding and two choices send B only what it can take."
    ))
}

/// Which sentences quote which cards (see [`Quote`]).
/// The verdict's ratio sentence quotes the two p99 cards; the answer, the timeouts'.
pub static QUOTES: &[Quote] = &[
    Quote { reading: SlowServerWords::ratio.key, metrics: &[SlowServerMetrics::p99_ms_before.key(), SlowServerMetrics::p99_ms_after_with_waiting.key()] },
    Quote { reading: SlowServerWords::answer.key, metrics: &[SlowServerMetrics::timed_out.key()] },
];

//! The outage's traffic, and what the retry budget (or its absence) did during it, from the
//! run's facts (and the budget's settings) only.

use super::words::{per_tick, round1};
use crate::format;
use crate::scenarios::retry_storm::RetryStormConfig;
use crate::scenarios::retry_storm::facts::{BudgetWhy, OutageRetries, Phase, RetryStormFacts};
use crate::scenarios::retry_storm::BudgetWindow;

/// The outage's calls per tick against the calls per tick before it.
pub(super) fn traffic_words(f: &RetryStormFacts) -> String {
    let (Some(during), Some(users)) = (f.calls_per_tick_outage, f.user_calls_per_tick_outage) else {
        return if f.has_outage() {
            format!(
                "The provider goes down at {}; its traffic then is compared with the traffic before.",
                format::seconds(f.down_from)
            )
        } else {
            "The provider never goes down, so there is no outage traffic to compare.".to_string()
        };
    };
    let split = format!(
        "{} per tick were user actions' first calls and {} were retries",
        per_tick(users),
        per_tick(during - users)
    );
    // With a breaker or a pending worker the provider's calls are not the layers' attempts
    // (the breaker fails some at once, the worker adds its own): the sentence is about the
    // layers'.
    let layers = f.breaker.is_some() || f.pending.is_some();
    let (when, gets) = match (f.phase == Phase::Down, layers) {
        (true, false) => ("So far in the outage", "the provider gets"),
        (false, false) => ("While it was down", "the provider got"),
        (true, true) => ("So far in the outage", "the clients' layers make"),
        (false, true) => ("While it was down", "the clients' layers made"),
    };
    match f.calls_per_tick_before.filter(|b| *b > 0.0) {
        Some(before) => format!(
            "{when} {gets} {} calls per 100 ms tick, {} the {} per tick before it went down: {split}.",
            per_tick(during),
            format::times(round1(during / before)),
            per_tick(before)
        ),
        None => format!(
            "{when} {gets} {} calls per 100 ms tick ({split}); there was no traffic before the outage to \
             compare with.",
            per_tick(during)
        ),
    }
}

/// "120 retries for 6 user calls".
pub(super) fn retries_for(o: &OutageRetries) -> String {
    format!(
        "{} for {}",
        format::counted(o.retries, "retry", "retries"),
        format::counted(o.user_calls, "user call", "user calls")
    )
}

pub(super) fn budget_words(f: &RetryStormFacts, c: &RetryStormConfig) -> String {
    let share = c.budget_pct;
    let outage = f.outage_retries.filter(|_| f.outage_begun());
    if !f.has_budget {
        let head = "No retry budget: a layer retries until its attempts run out.";
        return match outage {
            Some(o) => format!(
                "{head} During the outage, retries were {} of the user calls made then ({}).",
                format::pct(o.retry_pct),
                retries_for(&o)
            ),
            None => head.to_string(),
        };
    }
    let pct = format::pct(share);
    let floor = c.budget_min_retries_per_s;
    let reserve = format::counted(f.budget_reserve as u64, "retry", "retries");
    // "A 10% retry budget", or "A retry budget of 10% and 10 retries a second".
    let (before, after) = match (floor > 0.0, share > 0.0) {
        (false, _) => (format!("{pct} "), String::new()),
        (true, true) => (String::new(), format!(" of {pct} and {} retries a second", format::plain(floor))),
        (true, false) => (String::new(), format!(" of {} retries a second", format::plain(floor))),
    };
    if f.layers > 1 {
        let head = format!("Each of the {} retrying layers has its own {before}budget{after} over its last 10 s.", f.layers);
        return match outage {
            Some(o) => format!(
                "{head} During the outage, retries at all layers together were {} of the user calls made then \
                 ({}).",
                format::pct(o.retry_pct),
                retries_for(&o)
            ),
            None => head,
        };
    }
    let within = match (floor > 0.0, share > 0.0) {
        (false, _) => format!("{pct} of its user calls over those 10 s"),
        (true, true) => format!("{reserve} (its floor) plus {pct} of its user calls over those 10 s"),
        (true, false) => format!("{reserve} (its floor)"),
    };
    let mut text = format!(
        "A {before}retry budget{after}: the client retries only while its retries over the last 10 s stay within \
         {within}; past that, it fails the action at once."
    );
    if let Some(w) = &f.budget_window {
        text.push(' ');
        text += &window_sentence(f, w);
    }
    if let Some(o) = outage {
        let why = match o.why.expect("with a budget") {
            BudgetWhy::Within => ": within the budget",
            BudgetWhy::AboveWithFloor => ": above the percentage, which the floor's retries come on top of",
            BudgetWhy::WindowReachesBack => {
                ": above the budget, because the window still counted the calls from before the outage"
            }
            BudgetWhy::EarlyWindow => {
                ": above the budget, because in the outage's first 10 s the window still counted the calls from \
                 before it"
            }
            BudgetWhy::Above => ": above the budget",
        };
        text += &format!(
            " The outage {} {} and {}, {} of them{why}.",
            if f.phase == Phase::Down { "so far has" } else { "alone had" },
            format::counted(o.user_calls, "user call", "user calls"),
            format::counted(o.retries, "retry", "retries"),
            format::pct(o.retry_pct)
        );
    }
    text
}

fn window_sentence(f: &RetryStormFacts, w: &BudgetWindow) -> String {
    let when = if f.phase == Phase::Back {
        format!("When the provider came back at {}, those 10 s held", format::seconds(f.down_until))
    } else {
        "The last 10 s hold".to_string()
    };
    let before = match w.firsts_before_outage {
        0 => "all made during the outage".to_string(),
        n => format!("{} of them made before the outage", format::count(n)),
    };
    let share = if w.firsts > 0 {
        format!(": {}", format::pct(round1(100.0 * w.retries as f64 / w.firsts as f64)))
    } else {
        String::new()
    };
    format!(
        "{when} {} ({before}) and {}{share}.",
        format::counted(w.firsts, "user call", "user calls"),
        format::counted(w.retries, "retry", "retries")
    )
}

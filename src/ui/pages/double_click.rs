//! The double-click page: pick a fix, play or step through one purchase, and watch every
//! click, attempt, server run and charge on swimlanes, with the charges counted beside what
//! the buyer was told.

use leptos::prelude::*;

use crate::scenarios::double_click::{
    AMOUNT_CENTS, AttemptOutcome, BuyerOutcome, ButtonState, ClickEffect, DoubleClick, FIXES, ServerResult, Timeline,
};
use crate::sim::rng::ms_to_us;
use crate::sim::{Micros, Params, Simulation, Value};
use crate::ui::kit::lanes::{Anchor, Item, Lane, Lanes, LanesData, Link, Shape};
use crate::ui::kit::chart::slot::{self, GRAY, GREEN, ORANGE, PINK, RED};
use crate::ui::kit::{SimFrame, SimState, StatCard};

/// The fix choices as a reader reads them, in the order of [`FIXES`].
const FIX_TEXT: &[(&str, &str)] = &[
    ("No fix", "Every click and every retry is a new request to charge."),
    ("Disable the button", "After the first click. The helper still retries."),
    ("Idempotency key", "One key per purchase, sent on every attempt."),
    ("Key per click", "Bug: the click handler makes a new key."),
    ("Key per attempt", "Bug: the retry loop makes a new key."),
];

/// Without `speed` in the link, the page plays at half speed: a 1 s timeout then takes 2 s
/// to watch, and the whole story about 7 s.
const DEFAULT_SPEED: f64 = 0.5;

// Blue and purple for the two clicks; the other colours mark outcomes.
const CLICK_COLORS: [usize; 2] = [slot::BLUE, slot::PURPLE];

const LANE_PAGE: usize = 0;
const LANE_HELPER: usize = 1;
const LANE_SERVER: usize = 2;
const LANE_CARD: usize = 3;

fn click_color(click: usize) -> usize {
    CLICK_COLORS[click.min(1)]
}

fn outcome_color(o: AttemptOutcome) -> usize {
    match o {
        AttemptOutcome::Pending | AttemptOutcome::Aborted => GRAY,
        AttemptOutcome::Timeout | AttemptOutcome::Reset => RED,
        AttemptOutcome::Conflict => ORANGE,
        AttemptOutcome::Ok { .. } => GREEN,
        AttemptOutcome::Rejected => PINK,
    }
}

fn money(cents: u32) -> String {
    format!("${}.{:02}", cents / 100, cents % 100)
}

fn ms(t: Micros) -> String {
    let whole = t / 1000;
    let frac = t % 1000;
    let mut digits = whole.to_string();
    if whole >= 1000 {
        digits = format!("{},{:03}", whole / 1000, whole % 1000);
    }
    if frac == 0 { format!("{digits} ms") } else { format!("{digits}.{:01} ms", frac / 100) }
}

/// The parameters the text needs, as the model reads them.
struct Setup {
    network: Micros,
    timeout: Micros,
    retries: u32,
    read_then_insert: bool,
    claim_gap: Micros,
    fix: &'static str,
}

impl Setup {
    fn of(p: &Params) -> Self {
        Self {
            network: ms_to_us(p.get("network_ms")),
            timeout: ms_to_us(p.get("attempt_timeout_ms")).max(1),
            retries: p.get("retries") as u32,
            read_then_insert: p.choice("claim") == "read-then-insert",
            claim_gap: ms_to_us(p.get("claim_gap_ms")),
            fix: p.choice("fix"),
        }
    }
}

/// One line of the event list: when, where, what.
#[derive(Clone, Debug, PartialEq)]
struct Happening {
    at: Micros,
    /// Orders what happens in the same microsecond: cause before effect.
    order: (u8, usize),
    place: &'static str,
    text: String,
}

fn attempt_name(t: &Timeline, a: usize) -> String {
    let at = &t.attempts[a];
    format!("click {}'s attempt {}", at.click + 1, at.number)
}

fn key_name(k: u32) -> String {
    format!("k{k}")
}

/// When the server's answer to request `s` reaches the browser (None while it has not answered).
fn reply_at(t: &Timeline, setup: &Setup, s: usize) -> Option<Micros> {
    t.server[s].end.map(|e| e + setup.network)
}

/// The click that started at `at` (what it does in that instant is ordered with it).
fn click_at(t: &Timeline, at: Micros, after: Option<usize>) -> usize {
    t.clicks
        .iter()
        .enumerate()
        .find(|(j, c)| c.effect == ClickEffect::Started && c.at == at && after.is_none_or(|a| *j > a))
        .map_or(0, |(j, _)| j)
}

/// Everything that happened up to `now`, in order.
fn happenings(t: &Timeline, setup: &Setup, now: Micros) -> Vec<Happening> {
    let mut out = Vec::new();
    let mut push = |at: Micros, order: (u8, usize), place: &'static str, text: String| {
        if at <= now {
            out.push(Happening { at, order, place, text });
        }
    };
    for (i, c) in t.clicks.iter().enumerate() {
        let n = i + 1;
        let text = match c.effect {
            ClickEffect::Started => {
                let mut s = if i == 0 { "The buyer clicks Pay.".to_string() } else { format!("The buyer clicks Pay again (click {n}).") };
                if c.amount_cents != AMOUNT_CENTS {
                    s.push_str(&format!(" With a tip added, this click pays {}.", money(c.amount_cents)));
                }
                match (setup.fix, c.key) {
                    ("key", Some(k)) if i == 0 => s.push_str(&format!(" The page creates the purchase's idempotency key {}.", key_name(k))),
                    ("key", Some(k)) => s.push_str(&format!(" The page reuses the purchase's key {}.", key_name(k))),
                    (_, Some(k)) => s.push_str(&format!(" The click handler creates a new key {}.", key_name(k))),
                    _ => {}
                }
                s
            }
            ClickEffect::IgnoredDisabled => format!("The buyer clicks Pay again (click {n}), but the button is disabled: nothing is sent."),
            ClickEffect::IgnoredAfterPaid => format!("The buyer clicks again (click {n}), but the page already shows the receipt: nothing is sent."),
        };
        push(c.at, (0, i * 4), "Page", text);
        if let Some(f) = c.finished_at {
            let told = match c.outcome {
                BuyerOutcome::Paid => Some("The page shows the buyer the receipt: paid."),
                BuyerOutcome::Failed => Some("The page tells the buyer: \u{201c}Payment failed.\u{201d}"),
                BuyerOutcome::Processing => Some("The page tells the buyer: \u{201c}Your payment is processing.\u{201d}"),
                BuyerOutcome::Rejected => Some("The page shows the buyer an error."),
                _ => None,
            };
            if let Some(told) = told {
                push(f, (4, i), "Page", told.to_string());
            }
        }
    }
    for (i, d) in t.disabled.iter().enumerate() {
        push(d.from, (0, click_at(t, d.from, None) * 4 + 2), "Page", "The page disables the Pay button.".to_string());
        if let Some(u) = d.until {
            push(u, (5, i), "Page", "The page enables the Pay button again.".to_string());
        }
    }
    for (i, a) in t.attempts.iter().enumerate() {
        let name = attempt_name(t, i);
        let cap = format!("C{}", &name[1..]);
        let mut send = if a.number == 1 {
            format!("Click {}'s helper sends attempt 1: POST /charges", a.click + 1)
        } else {
            format!("Click {}'s helper retries: attempt {}, POST /charges", a.click + 1, a.number)
        };
        if a.amount_cents != AMOUNT_CENTS {
            send.push_str(&format!(" for {}", money(a.amount_cents)));
        }
        match a.key {
            Some(k) if setup.fix == "key-per-attempt" => send.push_str(&format!(" with a new Idempotency-Key {}, made in the retry loop", key_name(k))),
            Some(k) => send.push_str(&format!(" with Idempotency-Key {}", key_name(k))),
            None => {}
        }
        send.push('.');
        let order = if a.number == 1 { (0, a.click * 4 + 3) } else { (3, i * 8) };
        push(a.start, order, "Helper", send);
        let Some(end) = a.end else { continue };
        let retry = a.number <= setup.retries;
        let text = match a.outcome {
            AttemptOutcome::Aborted => {
                push(end, (0, click_at(t, end, Some(a.click)) * 4 + 1), "Helper", format!(
                    "The new click aborts {name} (AbortError). The page stops waiting; the request still reaches the server, and nobody tells the server."
                ));
                continue;
            }
            AttemptOutcome::Timeout => format!(
                "{cap}: TimeoutError after {}. The page cannot tell whether the charge happened. {}",
                ms(setup.timeout),
                if retry { "The helper backs off, then retries." } else { "No retries left." }
            ),
            AttemptOutcome::Reset => format!(
                "{cap}: connection reset (ECONNRESET). Again the page cannot tell whether the charge happened. {}",
                if retry { "The helper backs off, then retries." } else { "No retries left." }
            ),
            AttemptOutcome::Conflict => format!(
                "{cap} gets 409: the payment is in progress. {}",
                if retry { "The helper waits and tries again." } else { "No retries left." }
            ),
            AttemptOutcome::Ok { charge, replayed: false } => format!("{cap} gets 200 with ch_{charge}."),
            AttemptOutcome::Ok { charge, replayed: true } => {
                format!("{cap} gets 200 with ch_{charge}, replayed: the same charge, not a new one.")
            }
            AttemptOutcome::Rejected => format!("{cap} gets 422: the key was already used for another amount."),
            AttemptOutcome::Pending => continue,
        };
        push(end, (3, i * 8 + 3), "Helper", text);
    }
    for (i, s) in t.server.iter().enumerate() {
        let a = s.attempt;
        let at = &t.attempts[a];
        let name = attempt_name(t, a);
        let key = at.key.map(key_name);
        let text = match (s.result, &key) {
            (ServerResult::Running | ServerResult::Charged { .. }, Some(k)) if setup.read_then_insert => {
                format!("The server receives {name}, looks up key {k}, finds nothing, and starts charging the card.")
            }
            (ServerResult::Running | ServerResult::Charged { .. }, Some(k)) => {
                format!("The server receives {name}, claims key {k}, and starts charging the card.")
            }
            (ServerResult::Running | ServerResult::Charged { .. }, None) => {
                format!("The server receives {name} and starts charging the card.")
            }
            (ServerResult::Conflict, k) => format!(
                "The server receives {name}: key {} is held by a run still in progress. It answers 409.",
                k.as_deref().unwrap_or("?")
            ),
            (ServerResult::Replayed { charge }, k) => format!(
                "The server receives {name}: key {} is done. It replays the stored answer, 200 with ch_{charge}, and charges nothing.",
                k.as_deref().unwrap_or("?")
            ),
            (ServerResult::Rejected, k) => format!(
                "The server receives {name}: key {} was first used for {}, this request says {}. It answers 422.",
                k.as_deref().unwrap_or("?"),
                money(t.attempts.iter().find(|x| x.key == at.key).map_or(AMOUNT_CENTS, |x| x.amount_cents)),
                money(at.amount_cents)
            ),
        };
        push(s.arrived, (3, a * 8 + 1), "Server", text);
        if setup.read_then_insert
            && let (Some(k), ServerResult::Running | ServerResult::Charged { .. }) = (&key, s.result)
        {
            push(s.arrived + setup.claim_gap, (3, a * 8 + 2), "Server", format!(
                "The server inserts its claim on key {k}, {} after looking it up.",
                ms(setup.claim_gap)
            ));
        }
        // An answer that reaches a page no longer waiting for it.
        if let (Some(r), AttemptOutcome::Timeout | AttemptOutcome::Aborted, Some(gave_up)) = (reply_at(t, setup, i), at.outcome, at.end) {
            let what = match s.result {
                ServerResult::Charged { .. } if s.crashed => "a connection reset".to_string(),
                ServerResult::Charged { charge } => format!("200 with ch_{charge}"),
                ServerResult::Replayed { charge } => format!("200 with ch_{charge}, replayed"),
                ServerResult::Conflict => "409".to_string(),
                ServerResult::Rejected => "422".to_string(),
                ServerResult::Running => continue,
            };
            push(r, (3, a * 8 + 4), "Helper", format!(
                "The server's answer to {name} ({what}) reaches the browser, but the page stopped waiting at {}: nobody reads it.",
                ms(gave_up)
            ));
        }
    }
    for (n, c) in t.ledger.iter().enumerate() {
        let s = &t.server[c.server];
        let mut text = if n == 0 {
            format!("The server commits ch_{}: the card is charged {}.", c.id, money(c.amount_cents))
        } else {
            format!("The server commits ch_{}: the card is charged {} again, {} charges for one purchase.", c.id, money(c.amount_cents), n + 1)
        };
        if s.crashed {
            text.push_str(" Its worker dies before it can answer.");
        }
        push(c.at, (3, s.attempt * 8 + 2), "Card", text);
    }
    out.sort_by_key(|h| (h.at, h.order));
    out
}

/// Server rows: each request goes in the first row free at its arrival.
fn server_rows(t: &Timeline) -> Vec<usize> {
    let mut ends: Vec<Micros> = Vec::new();
    t.server
        .iter()
        .map(|s| {
            let end = s.end.unwrap_or(Micros::MAX);
            match ends.iter().position(|&e| e <= s.arrived) {
                Some(r) => {
                    ends[r] = end;
                    r
                }
                None => {
                    ends.push(end);
                    ends.len() - 1
                }
            }
        })
        .collect()
}

/// What the whole run will need, from a run to the end: the time axis and the rows, so the
/// timeline's scale and height stay still while it plays.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Extent {
    x_max_ms: f64,
    clicks: usize,
    server_rows: usize,
}

fn extent(sim: &DoubleClick, setup: &Setup) -> Extent {
    let t = sim.timeline();
    let last_said = happenings(&t, setup, sim.end()).last().map_or(0, |h| h.at);
    let last_timer = t.attempts.iter().map(|a| a.start + setup.timeout).max().unwrap_or(0).min(sim.end());
    let last = last_said.max(last_timer) as f64 / 1000.0;
    // Round up to the next half second, with a little room for the last labels.
    let x_max_ms = (libm::ceil((last * 1.04 + 100.0) / 500.0) * 500.0).min(sim.end() as f64 / 1000.0);
    Extent { x_max_ms, clicks: t.clicks.len().max(1), server_rows: server_rows(&t).iter().max().map_or(1, |m| m + 1) }
}

fn lanes(sim: &DoubleClick, setup: &Setup, ext: Extent) -> LanesData {
    let t = sim.timeline();
    let now = sim.now();
    let f = |x: Micros| x as f64 / 1000.0;
    let now_ms = f(now);

    let mut page = Vec::new();
    for d in t.disabled {
        page.push(Item::Span { from: f(d.from), to: f(d.until.unwrap_or(now)), color: GRAY, label: "button disabled".into() });
    }
    if let Some(paid) = t.clicks.iter().filter(|c| c.outcome == BuyerOutcome::Paid).find_map(|c| c.finished_at) {
        page.push(Item::Span { from: f(paid), to: now_ms, color: GREEN, label: "receipt shown".into() });
    }
    let mut helper = Vec::new();
    for (i, c) in t.clicks.iter().enumerate() {
        let (color, label) = match c.effect {
            ClickEffect::Started => (click_color(i), format!("click {}", i + 1)),
            ClickEffect::IgnoredDisabled | ClickEffect::IgnoredAfterPaid => (GRAY, format!("click {}: ignored", i + 1)),
        };
        page.push(Item::Mark { row: 0, at: f(c.at), color, label, shape: Shape::Triangle });
        if c.effect != ClickEffect::Started {
            let why = if c.effect == ClickEffect::IgnoredDisabled { "nothing sent: disabled" } else { "nothing sent: paid" };
            helper.push(Item::Mark { row: i, at: f(c.at), color: GRAY, label: why.into(), shape: Shape::Ring });
        }
        if let Some(done) = c.finished_at {
            let (color, label) = match c.outcome {
                BuyerOutcome::Paid => (GREEN, "\u{201c}paid\u{201d}"),
                BuyerOutcome::Failed => (RED, "\u{201c}payment failed\u{201d}"),
                BuyerOutcome::Processing => (ORANGE, "\u{201c}processing\u{201d}"),
                BuyerOutcome::Rejected => (PINK, "error"),
                _ => continue,
            };
            page.push(Item::Mark { row: 0, at: f(done), color, label: label.into(), shape: Shape::Diamond });
        }
    }
    let mut links = Vec::new();
    for a in t.attempts {
        let end = a.end.unwrap_or(now);
        helper.push(Item::Bar {
            row: a.click,
            from: f(a.start),
            to: f(end),
            open: a.end.is_none(),
            color: click_color(a.click),
            label: format!("attempt {}", a.number),
            end: a.end.map(|_| (a.outcome.label(), outcome_color(a.outcome))),
        });
    }
    let rows = server_rows(&t);
    let mut server = Vec::new();
    for (i, s) in t.server.iter().enumerate() {
        let row = rows[i];
        let a = &t.attempts[s.attempt];
        links.push(Link {
            from: Anchor { lane: LANE_HELPER, row: a.click, at: f(a.start) },
            to: Anchor { lane: LANE_SERVER, row, at: f(s.arrived) },
            color: click_color(a.click),
            dashed: false,
            cross: false,
        });
        match s.result {
            ServerResult::Running | ServerResult::Charged { .. } => {
                let end = match s.result {
                    ServerResult::Charged { charge } => {
                        Some((format!("commit ch_{charge}{}", if s.crashed { ", then crash" } else { "" }), if charge == 1 { GREEN } else { RED }))
                    }
                    _ => None,
                };
                server.push(Item::Bar {
                    row,
                    from: f(s.arrived),
                    to: f(s.end.unwrap_or(now)),
                    open: s.end.is_none(),
                    color: click_color(a.click),
                    label: "charging".into(),
                    end,
                });
            }
            ServerResult::Conflict => server.push(Item::Mark { row, at: f(s.arrived), color: ORANGE, label: "409".into(), shape: Shape::Dot }),
            ServerResult::Replayed { charge } => {
                server.push(Item::Mark { row, at: f(s.arrived), color: GREEN, label: format!("replay ch_{charge}"), shape: Shape::Dot })
            }
            ServerResult::Rejected => server.push(Item::Mark { row, at: f(s.arrived), color: PINK, label: "422".into(), shape: Shape::Dot }),
        }
        // The answer on its way back: to the attempt that waits for it, or to nobody.
        if let (Some(e), Some(r)) = (s.end, reply_at(&t, setup, i))
            && r <= now
        {
            let dropped = matches!(a.outcome, AttemptOutcome::Timeout | AttemptOutcome::Aborted);
            links.push(Link {
                from: Anchor { lane: LANE_SERVER, row, at: f(e) },
                to: Anchor { lane: LANE_HELPER, row: a.click, at: f(r) },
                color: if dropped { GRAY } else { outcome_color(a.outcome) },
                dashed: dropped,
                cross: dropped,
            });
        }
    }
    let mut card = Vec::new();
    for c in t.ledger {
        let color = if c.id == 1 { GREEN } else { RED };
        card.push(Item::Mark { row: 0, at: f(c.at), color, label: format!("ch_{}", c.id), shape: Shape::Dot });
        links.push(Link {
            from: Anchor { lane: LANE_SERVER, row: rows[c.server], at: f(c.at) },
            to: Anchor { lane: LANE_CARD, row: 0, at: f(c.at) },
            color,
            dashed: false,
            cross: false,
        });
    }
    let helper_rows = (0..ext.clicks.max(t.clicks.len()).max(1)).map(|i| format!("click {}", i + 1)).collect();
    let server_row_count = ext.server_rows.max(rows.iter().max().map_or(1, |m| m + 1));
    let mut lanes = vec![
        Lane { label: "The page: what the buyer sees".into(), rows: vec![String::new()], items: page },
        Lane { label: "The page's HTTP helper: attempts".into(), rows: helper_rows, items: helper },
        Lane { label: "The server: POST /charges".into(), rows: vec![String::new(); server_row_count], items: server },
        Lane { label: "The card: charges committed".into(), rows: vec![String::new()], items: card },
    ];
    debug_assert_eq!(lanes.len(), LANE_CARD + 1);
    lanes[LANE_PAGE].rows[0] = "button".into();
    lanes[LANE_CARD].rows[0] = "ledger".into();
    LanesData { x_range: (0.0, ext.x_max_ms), now: Some(now_ms), lanes, links }
}

/// What the page shows the buyer now: the Pay button's state and the message under it.
fn buyer_view(sim: &DoubleClick) -> (&'static str, String, String) {
    let t = sim.timeline();
    let paid_with = t.attempts.iter().rev().find_map(|a| match a.outcome {
        AttemptOutcome::Ok { charge, .. } => Some(charge),
        _ => None,
    });
    let price = money(t.clicks.last().map_or(AMOUNT_CENTS, |c| c.amount_cents));
    let (state, button) = match sim.button() {
        ButtonState::Enabled => ("enabled", format!("Pay {price}")),
        ButtonState::Disabled => ("disabled", format!("Pay {price}")),
        ButtonState::Receipt => ("receipt", "\u{2713} Paid".to_string()),
    };
    let message = if t.clicks.is_empty() {
        "The buyer is about to click Pay.".to_string()
    } else {
        match sim.buyer_outcome() {
            BuyerOutcome::Paid => format!("Thank you! Receipt {}.", paid_with.map_or(String::new(), |c| format!("ch_{c}"))),
            BuyerOutcome::Failed => "Payment failed. Please try again.".into(),
            BuyerOutcome::Processing => "Your payment is processing. We will email you.".into(),
            BuyerOutcome::Rejected => "Something went wrong. Please try again.".into(),
            _ => "Please wait\u{2026}".into(),
        }
    };
    (state, button, message)
}

/// Reads the link's `speed`, if it has one.
fn link_has_speed() -> bool {
    let search = window().location().search().unwrap_or_default();
    search.trim_start_matches('?').split('&').any(|kv| kv.split('=').next() == Some("speed"))
}

#[component]
pub fn DoubleClickPage(state: SimState) -> impl IntoView {
    let runner = state.runner(DoubleClick::new, 0);
    if !link_has_speed() {
        runner.speed.set(DEFAULT_SPEED);
    }
    let duration_us = state.duration_ms * 1000;
    let metrics = Memo::new(move |_| runner.track(|s| s.metrics()));
    let metric = move |key: &'static str| {
        Signal::derive(move || metrics.with(|m| m.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone()).unwrap_or(Value::Null)))
    };
    let num = move |key: &'static str| metric(key).get().as_f64().unwrap_or(0.0);

    // Nothing left to happen: finish the run rather than play an idle clock to its end.
    Effect::new(move |_| {
        let (idle, finished) = runner.track(|s| (s.next_event_at().is_none(), s.finished()));
        if idle && !finished && runner.playing.get_untracked() {
            runner.skip_to_end();
        }
    });

    let ext = Memo::new(move |_| {
        let seed = state.seed.get();
        state.params.with(|p| {
            let mut s = DoubleClick::new(p, seed, duration_us);
            s.run_to_end();
            extent(&s, &Setup::of(p))
        })
    });
    let events = Memo::new(move |_| state.params.with(|p| runner.track(|s| happenings(&s.timeline(), &Setup::of(p), s.now()))));
    let lanes_data = Signal::derive(move || {
        let e = ext.get();
        state.params.with(|p| runner.track(|s| lanes(s, &Setup::of(p), e)))
    });
    let verdict = Signal::derive(move || {
        runner.track(|s| if s.events() == 0 { "Press Play to watch, or Step to go one event at a time.".to_string() } else { s.summary() })
    });
    // The buyer's view against the card, once nothing more can happen.
    let verdict_class = move || {
        runner.track(|s| {
            if s.next_event_at().is_some() || s.runs_in_progress() > 0 {
                return "verdict";
            }
            let charges = s.charges();
            let honest = match s.buyer_outcome() {
                BuyerOutcome::Paid => charges == 1,
                BuyerOutcome::Failed => charges == 0,
                BuyerOutcome::Processing => charges <= 1,
                _ => false,
            };
            if honest { "verdict good" } else { "verdict bad" }
        })
    };
    // Numbered as the list below numbers its rows (one simulator event can show as several
    // rows, and a timer for a request nobody waits for shows as none).
    let last_event = move || {
        let (count, now, finished) = runner.track(|s| (s.events(), s.now(), s.finished()));
        if count == 0 {
            return "No event yet.".to_string();
        }
        events.with(|ev| {
            let first = ev.iter().filter(|h| h.at < now).count() + 1;
            let same: Vec<&str> = ev.iter().filter(|h| h.at == now).map(|h| h.text.as_str()).collect();
            let numbers = match same.len() {
                1 => format!("Event {first}"),
                n => format!("Events {first}–{}", first + n - 1),
            };
            if !same.is_empty() {
                format!("{numbers}, at {}: {}", ms(now), same.join(" "))
            } else if finished {
                format!("The run is over ({} events). Every event is listed below.", ev.len())
            } else {
                format!(
                    "At {}: nothing visible changes. A timer fired for a request the page had already stopped waiting for.",
                    ms(now)
                )
            }
        })
    };

    let fix_index = Signal::derive(move || state.params.with(|p| p.get("fix") as usize));
    let set_fix = move |i: usize| {
        state.params.update(|p| p.set("fix", i as f64));
        runner.rebuild();
    };

    let charges_note = Signal::derive(move || {
        let ids = metric("charge_ids").get();
        match ids {
            Value::Text(t) if !t.is_empty() => {
                format!("{t} \u{b7} {}", money(num("amount_charged_cents") as u32))
            }
            _ => "none yet".to_string(),
        }
    });
    let charges_tone = Signal::derive(move || match num("charges") as u32 {
        0 => "charges",
        1 => "charges one",
        _ => "charges bad",
    });
    let buyer = move || runner.track(buyer_view);
    let lanes_summary = Signal::derive(move || {
        runner.track(|s| {
            let t = s.timeline();
            format!(
                "At {}: {} clicks, {} attempts sent, {} requests at the server, {} charges committed. {}",
                ms(s.now()),
                t.clicks.len(),
                t.attempts.len(),
                t.server.len(),
                t.ledger.len(),
                s.summary()
            )
        })
    });
    let show_422 = move || state.params.with(|p| p.flag("amount_changes"));
    let show_resets = move || state.params.with(|p| p.flag("crash_after_charge"));

    view! {
        <SimFrame state runner>
            <fieldset class="dc-fix">
                <legend>"The fix"</legend>
                <div class="dc-fix-options">
                    {FIXES
                        .iter()
                        .zip(FIX_TEXT)
                        .enumerate()
                        .map(|(i, (id, (name, help)))| {
                            view! {
                                <label data-fix=*id>
                                    <input
                                        type="radio"
                                        name="fix-choice"
                                        value=*id
                                        prop:checked=move || fix_index.get() == i
                                        on:change=move |_| set_fix(i)
                                    />
                                    <strong>{*name}</strong>
                                    <span>{*help}</span>
                                </label>
                            }
                        })
                        .collect_view()}
                </div>
            </fieldset>
            <div class="dc-board">
                <div class="dc-buyer" data-outcome=move || metric("client_outcome").with(crate::ui::kit::stat::raw)>
                    <span class="label">"What the buyer sees"</span>
                    <div class="dc-mock">
                        <span class=move || format!("dc-pay {}", buyer().0)>{move || buyer().1}</span>
                        <span class="dc-message">{move || buyer().2}</span>
                    </div>
                </div>
                <StatCard key="charges" label="Charges on the card" value=metric("charges") note=charges_note tone=charges_tone/>
                <p class=verdict_class data-verdict role="status">{verdict}</p>
            </div>
            <Lanes id="timeline" title="Every click, attempt, server run and charge" data=lanes_data summary=lanes_summary/>
            <ul class="legend dc-legend" aria-hidden="true">
                <li><span class="swatch c0"></span>"click 1's requests"</li>
                <Show when=move || { ext.get().clicks > 1 }>
                    <li><span class="swatch c3"></span>"click 2's requests"</li>
                </Show>
                <li><span class="dc-key">"▼"</span>"click"</li>
                <li><span class="dc-key">"◆"</span>"what the page tells the buyer"</li>
                <li><span class="dc-key">"- - ✕"</span>"an answer nobody waits for any more"</li>
            </ul>
            // Read out while stepping; silent while playing, where it would change every moment.
            <p
                class="dc-last"
                data-last-event
                data-events=move || runner.track(|s| s.events().to_string())
                aria-live=move || if runner.playing.get() { "off" } else { "polite" }
            >
                {last_event}
            </p>
            <div class="stats">
                <StatCard key="client_outcome" label="Buyer was told" value=metric("client_outcome")/>
                <StatCard key="client_attempts" label="Attempts sent" value=metric("client_attempts")/>
                <StatCard key="server_requests" label="Requests at the server" value=metric("server_requests")/>
                <StatCard key="timeouts_seen" label="TimeoutErrors" value=metric("timeouts_seen")/>
                <StatCard key="aborted_waits" label="Aborted waits" value=metric("aborted_waits")/>
                <StatCard key="conflicts_409" label="409 in progress" value=metric("conflicts_409")/>
                <StatCard key="replays" label="Replayed answers" value=metric("replays")/>
                <Show when=show_422>
                    <StatCard key="rejected_422" label="422 rejected" value=metric("rejected_422")/>
                </Show>
                <Show when=show_resets>
                    <StatCard key="resets_seen" label="Connection resets" value=metric("resets_seen")/>
                </Show>
            </div>
            <details class="dc-events" open>
                <summary>{move || events.with(|e| format!("Every event so far ({})", e.len()))}</summary>
                <div class="table-wrap">
                    <table class="data" data-events-table>
                        <thead>
                            <tr><th scope="col">"Time"</th><th scope="col">"Where"</th><th scope="col">"What happened"</th></tr>
                        </thead>
                        <tbody>
                            {move || {
                                events.with(|ev| {
                                    let latest = ev.last().map(|h| h.at);
                                    ev.iter()
                                        .map(|h| {
                                            let class = if Some(h.at) == latest { "latest" } else { "" };
                                            view! {
                                                <tr class=class>
                                                    <td class="num">{ms(h.at)}</td>
                                                    <td>{h.place}</td>
                                                    <td>{h.text.clone()}</td>
                                                </tr>
                                            }
                                        })
                                        .collect_view()
                                })
                            }}
                        </tbody>
                    </table>
                </div>
            </details>
        </SimFrame>
    }
}

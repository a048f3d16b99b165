//! The cascade page (Chapter 1, Part 3, "The measured run"): pick a fix, watch one hung
//! dependency fill the shared pool and take /checkout down with it (or not), and step through
//! the chapter's seven-moment timeline on the real run.

use leptos::prelude::*;

use crate::scenarios::cascade::{Cascade, Counts, GUIDED_STEPS, Pool, SPEC, Slot, VARIANTS};
use crate::sim::{MS, Micros, Simulation, Value};
use crate::ui::kit::chart::slot;
use crate::ui::kit::stat::display;
use crate::ui::kit::{Chart, ChartData, Line, SimFrame, SimState, StatCard};
use crate::url::DEFAULT_SEED;

/// The most connection slots drawn per pool: an unbounded pool can open thousands.
const MAX_SLOTS_DRAWN: usize = 600;

/// One of the four fixes, named as in the chapter, with the chapter's table row where it has
/// one: (/home in flight after 10 s, /checkout succeeded, /checkout failed).
struct Fix {
    id: &'static str,
    name: &'static str,
    chapter: Option<[&'static str; 3]>,
}

const FIXES: [Fix; 4] = [
    Fix { id: "no-timeout", name: "No timeout", chapter: Some(["479, growing about 48 per second", "4 of 99 (the first 0.4 s)", "95"]) },
    Fix { id: "timeout", name: "Timeout", chapter: Some(["15, flat", "99 of 99, p99 10 ms", "0"]) },
    Fix { id: "bulkhead", name: "Separate pool", chapter: Some(["480, still growing", "99 of 99, p99 11 ms", "0"]) },
    Fix { id: "both", name: "Timeout and separate pool", chapter: None },
];

/// What a fix does, in a line (the timeout's length is the reader's).
fn fix_what(id: &str, timeout_ms: f64) -> String {
    match id {
        "no-timeout" => "One shared pool; /home waits for recommendations forever.".into(),
        "timeout" => format!("{timeout_ms} ms on recommendations; the page renders without them."),
        "bulkhead" => "Recommendations gets a pool of its own (a bulkhead); no timeout.".into(),
        _ => format!("A {timeout_ms} ms timeout and a pool of its own for recommendations."),
    }
}

/// A pool at one moment, for the status lines.
#[derive(Clone, Copy, PartialEq)]
struct PoolNow {
    limit: Option<u32>,
    in_use: u32,
    recs_held: u32,
    waiting: u32,
    open: u32,
}

impl PoolNow {
    fn of(p: &Pool) -> Self {
        Self { limit: p.limit(), in_use: p.in_use(), recs_held: p.recs_held(), waiting: p.waiting(), open: p.open() }
    }

    fn status(&self, with_recs: bool) -> String {
        let held = match self.limit {
            Some(l) => format!("{} of {l} in use", self.in_use),
            None => format!("{} open, {} in use (no limit)", self.open, self.in_use),
        };
        let recs = if with_recs { format!(", {} by recommendations", self.recs_held) } else { String::new() };
        format!("{held}{recs}; {} {} waiting", self.waiting, plural(self.waiting as u64, "call", "calls"))
    }
}

/// What the page reads from the run each frame (small and copyable, so redraws are cheap).
#[derive(Clone, Copy, PartialEq)]
struct Live {
    now: Micros,
    end: Micros,
    counts: Counts,
    shared: PoolNow,
    recs: Option<PoolNow>,
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// Seconds for people: "0.43 s", "10 s".
fn seconds(us: Micros) -> String {
    let s = format!("{:.2}", us as f64 / 1e6);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s} s")
}

/// The chapter's way of saying a slope: "flat", "growing about 48 per second".
fn growth_words(g: f64) -> String {
    if g.abs() < 1.0 {
        "flat".into()
    } else if g > 0.0 {
        format!("growing about {g:.0} per second")
    } else {
        format!("falling about {:.0} per second", -g)
    }
}

fn slot_class(s: Option<Slot>) -> &'static str {
    match s {
        Some(Slot::Recs) => "slot recs",
        Some(Slot::HomePrice) => "slot home-price",
        Some(Slot::CheckoutPrice) => "slot checkout-price",
        Some(Slot::Idle) => "slot idle",
        Some(Slot::Closed) | None => "slot closed",
    }
}

/// The slots drawn (at most [`MAX_SLOTS_DRAWN`]) and how many the pool has.
fn drawn(p: &Pool) -> (Vec<Slot>, usize) {
    let s = p.slots();
    (s[..s.len().min(MAX_SLOTS_DRAWN)].to_vec(), s.len())
}

/// One pool, slot by slot: a box per connection, coloured by who holds it.
#[component]
fn PoolRow(id: &'static str, title: Signal<String>, slots: Signal<(Vec<Slot>, usize)>, status: Signal<String>) -> impl IntoView {
    let count = Memo::new(move |_| slots.with(|(s, _)| s.len()));
    let density = move || match count.get() {
        n if n > 200 => "slots tiny",
        n if n > 40 => "slots dense",
        _ => "slots",
    };
    let boxes = move || {
        (0..count.get())
            .map(|i| view! { <span class=move || slot_class(slots.with(|(s, _)| s.get(i).copied()))></span> })
            .collect_view()
    };
    let more = move || {
        slots.with(|(s, total)| {
            if *total > s.len() {
                format!("+{} more connections, not drawn", total - s.len())
            } else if *total == 0 {
                "No connection open yet.".to_string()
            } else {
                String::new()
            }
        })
    };
    view! {
        <div class="pool-row" data-pool=id>
            <h3>{title}</h3>
            <p class="pool-status" role="status">{status}</p>
            <div class=density aria-hidden="true">{boxes}</div>
            <p class="more">{more}</p>
        </div>
    }
}

#[component]
pub fn CascadePage(state: SimState) -> impl IntoView {
    let runner = state.runner(Cascade::new, 100 * MS);
    let metrics = Memo::new(move |_| runner.track(|s| s.metrics()));
    let metric = move |key: &'static str| {
        Signal::derive(move || metrics.with(|m| m.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone()).unwrap_or(Value::Null)))
    };
    let num = move |key: &'static str| metric(key).get().as_f64();
    let live = Memo::new(move |_| {
        runner.track(|s| Live {
            now: s.now(),
            end: s.end(),
            counts: s.counts(),
            shared: PoolNow::of(s.shared_pool()),
            recs: s.recs_pool().map(PoolNow::of),
        })
    });
    let variant = move || state.params.with(|p| p.choice("variant"));
    let bulkhead = move || matches!(variant(), "bulkhead" | "both");
    let unbounded = move || state.params.with(|p| p.flag("unbounded_pool"));
    let timeout_ms = move || state.params.with(|p| p.get("recs_timeout_ms"));
    let load_end_ms = move || state.params.with(|p| p.get("load_ms"));
    let load_ended = move || live.with(|l| l.now as f64 >= load_end_ms() * 1000.0);

    // The variant picker keeps the moment: the same run, rebuilt with the other fix, at the
    // same simulated time, so a reader can flip between fixes and compare.
    let choose = move |id: &'static str| {
        let Some(i) = VARIANTS.iter().position(|v| *v == id) else { return };
        let t = live.get_untracked().now;
        let playing = runner.playing.get_untracked();
        state.params.update(|p| p.set("variant", i as f64));
        if SPEC.preset(id).is_some() {
            state.preset.set(Some(id));
        }
        runner.seek(t);
        if playing {
            runner.play();
        }
    };
    let caption = move || {
        let v = variant();
        match (unbounded(), v) {
            (true, "no-timeout") => SPEC.preset("unbounded-pool").map_or("", |p| p.description).to_string(),
            (true, _) => format!(
                "{} The pool has no connection limit: a call that finds no free connection opens a new one on the downstream.",
                SPEC.preset(v).map_or("", |p| p.description)
            ),
            (false, _) => SPEC.preset(v).map_or("", |p| p.description).to_string(),
        }
    };

    // Stat cards, with notes that make them read as the chapter's table.
    let home_note = Signal::derive(move || {
        let stop_s = load_end_ms() / 1000.0;
        match num("home_in_flight_growth_per_s") {
            Some(g) if load_ended() => format!("when the load stopped at {stop_s} s; {}", growth_words(g)),
            Some(g) => format!("now, {}; the load stops at {stop_s} s", growth_words(g)),
            None => format!("now; the load stops at {stop_s} s"),
        }
    });
    let growth_note = Signal::derive(move || {
        if load_ended() { "over the last 5 s of the load" } else { "over the last 5 s so far" }.to_string()
    });
    let home_tone = Signal::derive(move || if num("home_in_flight_growth_per_s").unwrap_or(0.0) >= 1.0 { "bad" } else { "" });
    let ok_note = Signal::derive(move || {
        let c = live.get().counts;
        let mut note = format!("of {} sent", c.checkout_arrived);
        if let (true, Some(t)) = (c.checkout_failed > 0 && c.checkout_ok > 0, num("last_checkout_ok_sent_ms")) {
            note.push_str(&format!(" (those sent in the first {:.1} s)", t / 1000.0));
        }
        if c.checkout_in_flight > 0 {
            note.push_str(&format!(", {} waiting", c.checkout_in_flight));
        }
        note
    });
    let ok_tone = Signal::derive(move || {
        let c = live.get().counts;
        if c.checkout_failed > 0 { "bad" } else if c.checkout_ok > 0 { "good" } else { "" }
    });
    let failed_note = Signal::derive(move || {
        let after = state.params.with(|p| p.get("checkout_timeout_ms")) / 1000.0;
        match num("first_checkout_failed_ms") {
            Some(t) => format!("each gave up after {after} s; the first at {:.1} s", t / 1000.0),
            None => format!("the client gives up after {after} s"),
        }
    });
    let failed_tone = Signal::derive(move || if num("checkout_failed").unwrap_or(0.0) > 0.0 { "bad" } else { "" });
    let p99_note = Signal::derive(move || match num("checkout_p50_ms") {
        Some(p) => format!("p50 {} ms; a failure counts as its wait", display(&Value::num(p))),
        None => "no checkout has ended yet".into(),
    });
    let pool_note = Signal::derive(move || {
        let pool = state.params.with(|p| p.get("pool_size"));
        match (unbounded(), num("pool_exhausted_ms")) {
            (true, _) => "no limit".to_string(),
            (false, Some(t)) => format!("of {pool}; all hung from {:.2} s", t / 1000.0),
            (false, None) => format!("of {pool}"),
        }
    });
    let queue_note = Signal::derive(move || "calls waiting at once for a connection".to_string());
    let queue_tone = Signal::derive(move || if num("pool_waiting_max").unwrap_or(0.0) > 0.0 { "bad" } else { "" });
    let downstream_note = Signal::derive(move || {
        let l = live.get();
        format!("{} open now, from every pool", l.shared.open + l.recs.map_or(0, |r| r.open))
    });
    let downstream_tone = Signal::derive(move || if num("downstream_open_connections_max").unwrap_or(0.0) > 100.0 { "bad" } else { "" });

    // The pools, slot by slot.
    let shared_slots = Memo::new(move |_| runner.track(|s| drawn(s.shared_pool())));
    let recs_slots = Memo::new(move |_| runner.track(|s| s.recs_pool().map(drawn).unwrap_or_default()));
    let shared_title = Signal::derive(move || {
        let size = match live.get().shared.limit {
            Some(l) => format!("{l} {}", plural(l as u64, "connection", "connections")),
            None => "no limit".into(),
        };
        let users = if bulkhead() { "price calls of /home and /checkout" } else { "recommendations and price, for /home and /checkout" };
        format!("Shared pool ({size}): {users}")
    });
    let shared_status = Signal::derive(move || live.get().shared.status(!bulkhead()));
    let recs_title = Signal::derive(move || match live.get().recs.and_then(|r| r.limit) {
        Some(l) => format!("Recommendations pool ({l} {}): the bulkhead", plural(l as u64, "connection", "connections")),
        None => "Recommendations pool (no limit): the bulkhead".into(),
    });
    let recs_status = Signal::derive(move || live.get().recs.map(|r| r.status(false)).unwrap_or_default());

    // Charts.
    // The first second holds the whole collapse (the pool is full at 0.42 s), so the time axis
    // starts at 1 s and widens in a few steps, rather than showing that second as a sliver.
    let x_range = |s: &Cascade| {
        let end = s.end() as f64 / 1000.0;
        let span = [1_000.0, 2_000.0, 5_000.0].into_iter().find(|&w| s.now() as f64 / 1000.0 <= w).unwrap_or(end);
        (0.0, span.min(end))
    };
    let markers = move |s: &Cascade| {
        let mut m = Vec::new();
        if let Some(t) = num("pool_exhausted_ms") {
            m.push((t, "pool full".to_string()));
        }
        let load_end = s.load_end() as f64 / 1000.0;
        if load_end < s.end() as f64 / 1000.0 {
            m.push((load_end, "load stops".to_string()));
        }
        m
    };
    let series = |xs: &[f64], values: Vec<f64>, label: &str, color: usize, dashed: bool| Line {
        label: label.to_string(),
        color,
        xs: xs.to_vec(),
        ys: values,
        dashed,
    };
    let home_chart = Signal::derive(move || {
        runner.track(|s| {
            let c = &s.charts().home_in_flight;
            ChartData {
                x_range: x_range(s),
                lines: vec![series(&c.times_ms, c.values.iter().map(|v| v[0]).collect(), "/home handlers in flight", slot::BLUE, false)],
                markers: markers(s),
                y_min_max: 20.0,
                ..Default::default()
            }
        })
    });
    let home_summary = Signal::derive(move || {
        let l = live.get();
        format!("{} /home handlers in flight at {}; {} answered.", l.counts.home_in_flight, seconds(l.now), l.counts.home_done)
    });
    let pool_chart = Signal::derive(move || {
        runner.track(|s| {
            let c = &s.charts().pool;
            let col = |k: usize| c.values.iter().map(|v| v[k]).collect::<Vec<f64>>();
            let mut lines = vec![series(&c.times_ms, col(0), "Shared pool in use", slot::BLUE, false)];
            if !bulkhead() {
                lines.push(series(&c.times_ms, col(1), "Held by recommendations", slot::RED, false));
            } else {
                lines.push(series(&c.times_ms, col(3), "Recommendations pool in use", slot::RED, false));
            }
            if unbounded() || bulkhead() {
                lines.push(series(&c.times_ms, col(4), "Open on the downstream", slot::GRAY, true));
            }
            let shared = s.shared_pool().limit();
            let recs = s.recs_pool().and_then(|p| p.limit());
            let hlines = match (shared, recs) {
                (Some(a), Some(b)) if a == b => vec![(a as f64, format!("each pool's limit, {a}"))],
                (a, b) => a
                    .map(|l| (l as f64, format!("shared pool limit {l}")))
                    .into_iter()
                    .chain(b.map(|l| (l as f64, format!("recommendations pool limit {l}"))))
                    .collect(),
            };
            // No "pool full" marker here: the lines meeting the limit show it.
            let markers = markers(s).into_iter().filter(|(_, label)| label != "pool full").collect();
            ChartData { x_range: x_range(s), lines, markers, hlines, y_min_max: 5.0, ..Default::default() }
        })
    });
    let pool_summary = Signal::derive(move || format!("Shared pool at {}: {}.", seconds(live.get().now), live.get().shared.status(!bulkhead())));
    let waiting_chart = Signal::derive(move || {
        runner.track(|s| {
            let c = &s.charts().pool;
            ChartData {
                x_range: x_range(s),
                lines: vec![series(&c.times_ms, c.values.iter().map(|v| v[2]).collect(), "Calls waiting for a shared connection", slot::PURPLE, false)],
                markers: markers(s),
                y_min_max: 5.0,
                ..Default::default()
            }
        })
    });
    let waiting_summary = Signal::derive(move || {
        let w = live.get().shared.waiting;
        format!("{w} {} waiting for a connection of the shared pool.", plural(w as u64, "call", "calls"))
    });
    let checkout_chart = Signal::derive(move || {
        runner.track(|s| {
            let c = &s.charts().checkout;
            let col = |k: usize| c.values.iter().map(|v| v[k]).collect::<Vec<f64>>();
            let mut m = Vec::new();
            if let Some(t) = num("first_checkout_failed_ms") {
                m.push((t, "first failure".to_string()));
            }
            ChartData {
                x_range: x_range(s),
                lines: vec![
                    series(&c.times_ms, col(0), "Succeeded so far", slot::GREEN, false),
                    series(&c.times_ms, col(1), "Failed so far", slot::RED, false),
                    series(&c.times_ms, col(2), "Waiting now", slot::BLUE, true),
                ],
                markers: m,
                y_min_max: 10.0,
                ..Default::default()
            }
        })
    });
    let checkout_summary = Signal::derive(move || {
        let c = live.get().counts;
        format!("/checkout: {} succeeded, {} failed, {} waiting, of {} sent.", c.checkout_ok, c.checkout_failed, c.checkout_in_flight, c.checkout_arrived)
    });

    // Guided mode: the step is the last of the chapter's moments the run has reached, so it
    // follows the clock whether the reader steps, plays or skips.
    let step = Memo::new(move |_| {
        let now = live.get().now;
        GUIDED_STEPS.iter().rposition(|g| g.time_ms * MS <= now).unwrap_or(0)
    });
    let reachable = move |i: usize| GUIDED_STEPS.get(i).is_some_and(|g| g.time_ms * MS <= live.get().end);
    let go = move |i: usize| {
        if let Some(g) = GUIDED_STEPS.get(i) {
            runner.seek(g.time_ms * MS);
        }
    };
    let chapter_run = move || state.seed.get() == DEFAULT_SEED && state.params.with(|p| *p == SPEC.defaults());
    let back_to_chapter = move |_| {
        state.params.set(SPEC.defaults());
        state.preset.set(Some("no-timeout"));
        state.seed.set(DEFAULT_SEED);
        go(step.get_untracked());
    };
    let fix_name = move || FIXES.iter().find(|f| f.id == variant()).map_or("", |f| f.name);
    let now_recs = move || {
        let l = live.get();
        let open = if bulkhead() { l.recs.map_or(0, |r| r.in_use) } else { l.shared.recs_held };
        let mut t = format!("{open} {} open", plural(open as u64, "call", "calls"));
        if let Some(n) = num("recs_timed_out").filter(|n| *n > 0.0) {
            t.push_str(&format!(", {n} timed out"));
        }
        t
    };
    let now_home = move || {
        let c = live.get().counts;
        format!("{} in flight, {} answered", c.home_in_flight, c.home_done)
    };
    let now_pool = move || {
        let p = live.get().shared;
        match p.limit {
            Some(l) => format!("{} of {l} in use, {} by recs; {} waiting", p.in_use, p.recs_held, p.waiting),
            None => format!("{} open (no limit), {} by recs", p.open, p.recs_held),
        }
    };
    let now_checkout = move || {
        let c = live.get().counts;
        format!("{} ok, {} failed, {} waiting", c.checkout_ok, c.checkout_failed, c.checkout_in_flight)
    };
    let pool_heading = move || match live.get().shared.limit {
        Some(l) => format!("Shared pool ({l})"),
        None => "Shared pool (no limit)".into(),
    };
    let g = move || GUIDED_STEPS[step.get()];

    // The chapter's table, and this run's row in its words.
    let run_home = move || match (num("home_in_flight_end"), num("home_in_flight_growth_per_s")) {
        (Some(n), Some(gr)) if load_ended() => format!("{n}, {}", growth_words(gr)),
        (Some(n), Some(gr)) => format!("{n}, {} (at {})", growth_words(gr), seconds(live.get().now)),
        (Some(n), None) => format!("{n} (at {})", seconds(live.get().now)),
        _ => "—".into(),
    };
    let run_ok = move || {
        let c = live.get().counts;
        let mut t = format!("{} of {}", c.checkout_ok, c.checkout_arrived);
        if c.checkout_failed == 0 {
            if let Some(p) = num("checkout_p99_ms") {
                t.push_str(&format!(", p99 {p:.0} ms"));
            }
        } else if let (true, Some(s)) = (c.checkout_ok > 0, num("last_checkout_ok_sent_ms")) {
            t.push_str(&format!(" (the first {:.1} s)", s / 1000.0));
        }
        if c.checkout_in_flight > 0 {
            t.push_str(&format!("; {} waiting", c.checkout_in_flight));
        }
        t
    };
    let run_failed = move || live.get().counts.checkout_failed.to_string();

    view! {
        <SimFrame state runner>
            <section class="variant-picker" aria-labelledby="variant-picker-title">
                <h2 id="variant-picker-title">"Pick the fix, then play or skip to the end"</h2>
                <div class="options" role="group" aria-label="Fix">
                    {FIXES
                        .iter()
                        .map(|f| view! {
                            <button
                                data-variant=f.id
                                aria-pressed=move || (variant() == f.id).to_string()
                                on:click=move |_| choose(f.id)
                            >
                                <span class="name">{f.name}</span>
                                <span class="what">{move || fix_what(f.id, timeout_ms())}</span>
                            </button>
                        })
                        .collect_view()}
                </div>
                <p class="caption">{caption}</p>
            </section>
            <div class="stats cascade-stats">
                <StatCard key="home_in_flight_end" label="/home in flight" unit="req"
                    value=metric("home_in_flight_end") note=home_note tone=home_tone/>
                <StatCard key="home_in_flight_growth_per_s" label="/home in-flight growth" unit="req/s"
                    value=metric("home_in_flight_growth_per_s") note=growth_note tone=home_tone/>
                <StatCard key="checkout_ok" label="/checkout succeeded" unit="req" value=metric("checkout_ok") note=ok_note tone=ok_tone/>
                <StatCard key="checkout_failed" label="/checkout failed" unit="req" value=metric("checkout_failed") note=failed_note tone=failed_tone/>
                <StatCard key="checkout_p99_ms" label="/checkout p99" unit="ms" value=metric("checkout_p99_ms") note=p99_note/>
                <StatCard key="pool_in_use_max" label="Shared pool, most in use" unit="connections" value=metric("pool_in_use_max") note=pool_note/>
                <StatCard key="pool_waiting_max" label="Shared pool, longest queue" unit="calls" value=metric("pool_waiting_max") note=queue_note tone=queue_tone/>
                <StatCard key="downstream_open_connections_max" label="Downstream connections, most" unit="connections"
                    value=metric("downstream_open_connections_max") note=downstream_note tone=downstream_tone/>
            </div>
            <section class="pools" aria-label="Connection pools, slot by slot">
                <PoolRow id="shared" title=shared_title slots=shared_slots.into() status=shared_status/>
                <Show when=bulkhead>
                    <PoolRow id="recs" title=recs_title slots=recs_slots.into() status=recs_status/>
                </Show>
                <ul class="legend slot-legend">
                    <li><span class="slot recs"></span>"held by a recommendations call"</li>
                    <li><span class="slot home-price"></span>"held by /home's price call"</li>
                    <li><span class="slot checkout-price"></span>"held by /checkout's price call"</li>
                    <li><span class="slot idle"></span>"open, free"</li>
                    <li><span class="slot closed"></span>"not open"</li>
                </ul>
            </section>
            <section class="guided" aria-labelledby="guided-title" data-guided>
                <div class="guided-head">
                    <h2 id="guided-title">
                        "The run as a timeline: "
                        <span class="step-title">{move || g().title}</span>
                        <span class="step-time">{move || format!(" at {}", seconds(g().time_ms * MS))}</span>
                    </h2>
                    <div class="guided-nav">
                        <button data-action="guided-back" prop:disabled=move || step.get() == 0 on:click=move |_| go(step.get_untracked().saturating_sub(1))>
                            "Back"
                        </button>
                        <span class="counter" data-guided-step=move || (step.get() + 1).to_string() aria-live="polite">
                            {move || format!("{} / {}", step.get() + 1, GUIDED_STEPS.len())}
                        </span>
                        <button class="primary" data-action="guided-next" prop:disabled=move || !reachable(step.get() + 1) on:click=move |_| go(step.get_untracked() + 1)>
                            "Next"
                        </button>
                    </div>
                </div>
                <div class="columns">
                    <div class="col">
                        <h3>"Recommendations"</h3>
                        <p>{move || g().recs}</p>
                        <p class="now">"This run: " {now_recs}</p>
                    </div>
                    <div class="col">
                        <h3>"/home handlers"</h3>
                        <p>{move || g().home}</p>
                        <p class="now">"This run: " {now_home}</p>
                    </div>
                    <div class="col">
                        <h3>{pool_heading}</h3>
                        <p>{move || g().pool}</p>
                        <p class="now">"This run: " {now_pool}</p>
                    </div>
                    <div class="col">
                        <h3>"/checkout"</h3>
                        <p>{move || g().checkout}</p>
                        <p class="now">"This run: " {now_checkout}</p>
                    </div>
                </div>
                <p class="explanation" data-guided-explanation>{move || g().explanation}</p>
                <Show when=move || !chapter_run()>
                    <p class="guided-note">
                        "The columns describe the chapter's run (no timeout, one shared pool, default settings). You are watching "
                        <strong>{fix_name}</strong>
                        {move || if variant() == "no-timeout" { " with other settings" } else { "" }}
                        ": the \"This run\" lines show what it does at the same moment. "
                        <button data-action="guided-chapter" on:click=back_to_chapter>"Show the chapter's run"</button>
                    </p>
                </Show>
                <Show when=move || !reachable(GUIDED_STEPS.len() - 1)>
                    <p class="guided-note">{move || format!("This run ends at {}, before the last steps.", seconds(live.get().end))}</p>
                </Show>
            </section>
            <div class="charts-grid">
                <Chart id="chart-home" title="/home handlers in flight" data=home_chart summary=home_summary/>
                <Chart id="chart-pool" title="Connections in use" data=pool_chart summary=pool_summary/>
                <Chart id="chart-waiting" title="Calls queued for a shared connection" data=waiting_chart summary=waiting_summary/>
                <Chart id="chart-checkout" title="/checkout outcomes" data=checkout_chart summary=checkout_summary/>
            </div>
            <h2>"The chapter's table, and this run"</h2>
            <div class="table-wrap">
                <table class="data chapter-table">
                    <thead>
                        <tr>
                            <th scope="col">"Fix"</th>
                            <th scope="col">{move || format!("/home in flight after {} s", load_end_ms() / 1000.0)}</th>
                            <th scope="col">"/checkout succeeded"</th>
                            <th scope="col">"/checkout failed"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {FIXES
                            .iter()
                            .filter_map(|f| f.chapter.map(|row| (f, row)))
                            .map(|(f, [home, ok, failed])| view! {
                                <tr class:current=move || variant() == f.id>
                                    <th scope="row">{f.name} <span class="muted">" (chapter)"</span></th>
                                    <td>{home}</td>
                                    <td>{ok}</td>
                                    <td>{failed}</td>
                                </tr>
                            })
                            .collect_view()}
                        <tr class="this-run" data-run-row>
                            <th scope="row">"This run: " {fix_name}</th>
                            <td>{run_home}</td>
                            <td>{run_ok}</td>
                            <td>{run_failed}</td>
                        </tr>
                    </tbody>
                </table>
            </div>
            <p class="help">
                "The chapter's rows are its measured run; this run's row comes from the model. At the chapter's settings "
                "they agree within a few requests and about a millisecond."
            </p>
        </SimFrame>
    }
}

//! The retry-storm page (Chapter 2, Part 1): pick a backoff mode, watch the attempts per tick
//! against the provider's capacity, and compare fixed, exponential and jittered backoff side
//! by side on the same seed.

use leptos::prelude::*;

use crate::scenarios::retry_storm::{ClientState, MODES, RetryStorm, TICK, col};
use crate::sim::params::format_number;
use crate::sim::{Params, Simulation, Value};
use crate::ui::kit::chart::{Bars, color, prefers_dark, slot};
use crate::ui::kit::stat::display;
use crate::ui::kit::{Chart, ChartData, Line, SimFrame, SimState, StatCard};

/// The chapter's three runs, in its order; the compare view shows one column each.
const COMPARED: [&str; 3] = ["fixed", "exponential", "jitter"];

const LEGEND_SERVED: &str = "Served";
const LEGEND_REJECTED: &str = "Rejected: over capacity (503)";
const LEGEND_FAILED: &str = "Failed: provider down";

/// The legend of the bar charts, with their palette slots.
const BAR_LEGEND: [(&str, usize); 3] = [(LEGEND_SERVED, slot::GREEN), (LEGEND_REJECTED, slot::RED), (LEGEND_FAILED, slot::GRAY)];

/// A peak above this multiple of the capacity reads as a storm (red), below it as fine.
const STORM_RATIO: f64 = 1.5;

fn metric_of(metrics: &[(&'static str, Value)], key: &str) -> Value {
    metrics.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone()).unwrap_or(Value::Null)
}

fn ms_text(ms: f64) -> String {
    if ms >= 1000.0 && ms % 1000.0 == 0.0 { format!("{} s", format_number(ms / 1000.0)) } else { format!("{} ms", format_number(ms)) }
}

/// How the mode reads on its button.
fn mode_label(mode: &str, p: &Params) -> String {
    match mode {
        "fixed" => format!("Fixed {}", ms_text(p.get("fixed_ms"))),
        "exponential" => "Exponential".into(),
        "jitter" => "Exp + jitter".into(),
        "decorrelated" => "Decorrelated jitter".into(),
        _ => "Equal jitter".into(),
    }
}

/// What the mode does to clients that failed at the same moment.
fn mode_explain(mode: &str, p: &Params) -> String {
    let (base, cap) = (ms_text(p.get("base_ms")), ms_text(p.get("cap_ms")));
    match mode {
        "fixed" => format!(
            "Every client waits the same {} after each failure. They all failed together when the provider went down, \
             so they retry together, in waves.",
            ms_text(p.get("fixed_ms"))
        ),
        "exponential" => format!(
            "Every client waits {base}, then twice that, then four times… up to {cap}: the same sequence for all of them. \
             The waves come further apart, but the clients stay in step."
        ),
        "jitter" => format!(
            "Each client waits random() × min({cap}, {base} × 2^attempt). Clients that failed together spread their \
             retries over the whole interval instead of landing in the same tick."
        ),
        "decorrelated" => format!(
            "Each client waits a random time between {base} and 3 × its last wait, capped at {cap}: random, so clients drift apart."
        ),
        _ => format!(
            "Each client waits half of min({cap}, {base} × 2^attempt) plus a random share of the other half: \
             partly in step, partly spread."
        ),
    }
}

fn column(s: &RetryStorm, k: usize) -> Vec<f64> {
    s.ticks().values.iter().map(|v| v[k]).collect()
}

fn outage_shade(s: &RetryStorm, label: &str) -> Vec<(f64, f64, String)> {
    let (from, until) = s.outage();
    if until > from { vec![(from as f64 / 1000.0, until as f64 / 1000.0, label.into())] } else { Vec::new() }
}

/// The most attempts in any tick so far (for a shared y scale across the compare columns).
fn tallest_tick(s: &RetryStorm) -> f64 {
    s.ticks().values.iter().map(|v| v[col::SERVED] + v[col::REJECTED] + v[col::FAILED]).fold(0.0, f64::max)
}

/// Attempts per tick, stacked by outcome, with the capacity line and the outage shaded.
/// `legend`: false where one legend serves several charts.
fn attempts_chart(s: &RetryStorm, y_floor: f64, legend: bool) -> ChartData {
    let label = |text: &str| if legend { text.to_string() } else { String::new() };
    let t = s.ticks();
    // One bar per kept sample: a tick, or more once a long run's series has been thinned.
    let width = if t.len() >= 2 { t.times_ms[1] - t.times_ms[0] } else { TICK as f64 / 1000.0 };
    let mut markers = Vec::new();
    if let Some(r) = s.recovered_at() {
        markers.push((r as f64 / 1000.0, "retries over".to_string()));
    }
    ChartData {
        x_range: (0.0, s.end() as f64 / 1000.0),
        y_unit: "",
        bars: Some(Bars {
            xs: t.times_ms.clone(),
            width,
            stacks: vec![
                (label(BAR_LEGEND[0].0), BAR_LEGEND[0].1, column(s, col::SERVED)),
                (label(BAR_LEGEND[1].0), BAR_LEGEND[1].1, column(s, col::REJECTED)),
                (label(BAR_LEGEND[2].0), BAR_LEGEND[2].1, column(s, col::FAILED)),
            ],
        }),
        hlines: vec![(s.capacity() as f64, format!("capacity {}/tick", s.capacity()))],
        // Narrow charts get the short label, so it does not run into the "retries over" marker.
        shaded: outage_shade(s, if legend { "provider down" } else { "down" }),
        markers,
        // A little headroom above the tallest bar for the shaded range's label.
        y_min_max: y_floor.max(tallest_tick(s)).max(s.capacity() as f64 * 1.5) * 1.05,
        ..Default::default()
    }
}

/// The three compared runs and what they were built from.
struct Trio {
    params: Params,
    seed: u64,
    sims: [RetryStorm; 3],
}

#[component]
pub fn RetryStormPage(state: SimState) -> impl IntoView {
    let runner = state.runner(RetryStorm::new, TICK);
    let metrics = Memo::new(move |_| runner.track(|s| s.metrics()));
    let metric = move |key: &'static str| Signal::derive(move || metrics.with(|m| metric_of(m, key)));
    let num = move |key: &'static str| metrics.with(|m| metric_of(m, key).as_f64());
    let capacity = move || state.params.with(|p| p.get("capacity"));
    let mode = move || state.params.with(|p| p.choice("mode"));

    let set_mode = move |m: &str| {
        let Some(i) = MODES.iter().position(|x| *x == m) else { return };
        state.params.update(|p| p.set("mode", i as f64));
        runner.rebuild();
    };

    // Stat card notes.
    let peak_note = Signal::derive(move || match num("peak_after_recovery") {
        Some(peak) => format!("×{:.1} of capacity ({}/tick)", peak / capacity(), format_number(capacity())),
        None => format!("shown once the provider is back; capacity {}/tick", format_number(capacity())),
    });
    let peak_tone = Signal::derive(move || match num("peak_after_recovery") {
        Some(peak) if peak > STORM_RATIO * capacity() => "bad big",
        Some(_) => "good big",
        None => "big",
    });
    let attempts_note = Signal::derive(move || {
        format!(
            "{} rejected, {} failed while down",
            display(&metric("rejected_total").get()),
            display(&metric("failed_total").get())
        )
    });
    let recovered_note = Signal::derive(move || {
        let back = state.params.with(|p| p.get("down_until_ms"));
        match num("recovered_ms") {
            Some(r) => format!("{:.1}\u{a0}s after the provider came back", (r - back).max(0.0) / 1000.0),
            None if runner.track(|s| s.finished()) => "clients were still retrying at the end".into(),
            None => "once no client is waiting on a retry".into(),
        }
    });
    let outage_note = Signal::derive(move || match (num("outage_attempts"), num("outage_user_calls")) {
        (Some(all), Some(users)) if all > 0.0 => {
            format!("{} retries on top of {} user calls while down", format_number(all - users), format_number(users))
        }
        _ => "retries added while the provider is down".into(),
    });
    let calls_note = Signal::derive(move || {
        state.params.with(|p| {
            let layers = p.get("layers") as u32;
            let first = p.get("max_attempts");
            let per = p.get("attempts_per_layer");
            if layers <= 1 {
                format!("at most {} (max attempts)", format_number(first))
            } else {
                let mut factors = vec![format_number(first)];
                factors.extend((1..layers).map(|_| format_number(per)));
                let product = first * libm::pow(per, f64::from(layers - 1));
                format!("at most {} = {}", factors.join(" × "), format_number(product))
            }
        })
    });

    let verdict = move || {
        let peak = num("peak_after_recovery")?;
        let cap = capacity();
        let ratio = peak / cap;
        let mut text = format!(
            "Peak after recovery: {} calls in one 100 ms tick, ×{ratio:.1} what the provider can take ({}). ",
            format_number(peak),
            format_number(cap)
        );
        let waves = num("waves_after_recovery").unwrap_or(0.0);
        if runner.track(|s| s.finished()) {
            text += &match (waves as u64, num("recovered_ms")) {
                (0, Some(r)) => format!("No tick went over capacity, and every client was done retrying at {:.1}\u{a0}s.", r / 1000.0),
                (0, None) => "No tick went over capacity.".into(),
                (w, Some(r)) => format!(
                    "{w} wave{} over capacity; every client was done retrying at {:.1}\u{a0}s.",
                    if w == 1 { "" } else { "s" },
                    r / 1000.0
                ),
                (w, None) => format!("{w} wave{} over capacity, and clients were still retrying at the end.", if w == 1 { "" } else { "s" }),
            };
        }
        Some(text)
    };

    // The main charts.
    let attempts = Signal::derive(move || runner.track(|s| attempts_chart(s, 0.0, true)));
    let attempts_summary = Signal::derive(move || {
        runner.track(|s| match s.ticks().last() {
            Some((t, v)) => format!(
                "Tick at {:.1}\u{a0}s: {} served, {} rejected, {} failed while the provider was down; capacity {} per tick.",
                t / 1000.0,
                v[col::SERVED],
                v[col::REJECTED],
                v[col::FAILED],
                s.capacity()
            ),
            None => "No tick has finished yet.".into(),
        })
    });
    let waiting = Signal::derive(move || {
        runner.track(|s| {
            let xs = s.ticks().times_ms.clone();
            ChartData {
                x_range: (0.0, s.end() as f64 / 1000.0),
                y_unit: "",
                lines: vec![
                    Line { label: "Waiting to retry".into(), color: slot::ORANGE, xs: xs.clone(), ys: column(s, col::WAITING), dashed: false },
                    Line { label: "In a call".into(), color: slot::BLUE, xs, ys: column(s, col::IN_FLIGHT), dashed: true },
                ],
                shaded: outage_shade(s, "provider down"),
                y_min_max: s.clients().len() as f64 * 1.15,
                ..Default::default()
            }
        })
    });
    let waiting_summary = Signal::derive(move || {
        runner.track(|s| {
            let c = s.counts();
            format!("At {:.1}\u{a0}s: {} clients waiting to retry, {} in a call.", s.now() as f64 / 1e6, c.waiting, c.in_flight)
        })
    });

    // The clients as dots; the spans are rebuilt only when the number of clients changes.
    let n_clients = Memo::new(move |_| runner.track(|s| s.clients().len()));
    let client_counts = move || {
        runner.track(|s| {
            let mut n = [0usize; 3];
            for c in s.clients() {
                n[match c.state() {
                    ClientState::InFlight => 0,
                    ClientState::WaitingToRetry => 1,
                    ClientState::Idle => 2,
                }] += 1;
            }
            n
        })
    };
    let dots = move || {
        (0..n_clients.get())
            .map(|i| {
                let class = move || {
                    runner.track(|s| match s.clients().get(i).map(|c| c.state()) {
                        Some(ClientState::InFlight) => "dot in-call",
                        Some(ClientState::WaitingToRetry) => "dot waiting",
                        _ => "dot idle",
                    })
                };
                view! { <span class=class></span> }
            })
            .collect_view()
    };

    // The compare view: the three modes on the same seed and parameters, played in step
    // with the main run's clock.
    let compare_on = RwSignal::new(false);
    let trio = StoredValue::new_local(None::<Trio>);
    let trio_frame = RwSignal::new(0u64);
    let duration_us = state.duration_ms * 1000;
    Effect::new(move |_| {
        let now = runner.track(|s| s.now());
        if !compare_on.get() {
            trio.set_value(None);
            return;
        }
        let params = state.params.get_untracked();
        let seed = state.seed.get_untracked();
        trio.update_value(|t| {
            let stale = t.as_ref().is_none_or(|t| t.params != params || t.seed != seed || t.sims[0].now() > now);
            if stale {
                let build = |m: &str| {
                    let mut p = params.clone();
                    p.set("mode", MODES.iter().position(|x| *x == m).unwrap_or(0) as f64);
                    RetryStorm::new(&p, seed, duration_us)
                };
                *t = Some(Trio { params: params.clone(), seed, sims: COMPARED.map(build) });
            }
            if let Some(t) = t {
                for s in &mut t.sims {
                    s.advance(now, u64::MAX);
                }
            }
        });
        trio_frame.update(|f| *f += 1);
    });
    let with_trio = move |f: &dyn Fn(&Trio) -> f64| -> f64 {
        trio_frame.track();
        trio.with_value(|t| t.as_ref().map_or(0.0, f))
    };
    let shared_top = Memo::new(move |_| with_trio(&|t| t.sims.iter().map(tallest_tick).fold(0.0, f64::max)));
    let compare_columns = move || {
        COMPARED
            .iter()
            .enumerate()
            .map(|(i, &m)| {
                let col_metrics = Memo::new(move |_| {
                    trio_frame.track();
                    trio.with_value(|t| t.as_ref().map(|t| t.sims[i].metrics()).unwrap_or_default())
                });
                let value = move |key: &'static str| Signal::derive(move || col_metrics.with(|c| metric_of(c, key)));
                let peak_note = Signal::derive(move || match value("peak_after_recovery").get().as_f64() {
                    Some(peak) => format!("×{:.1} of capacity", peak / capacity()),
                    None => "after the provider is back".into(),
                });
                let tone = Signal::derive(move || match value("peak_after_recovery").get().as_f64() {
                    Some(peak) if peak > STORM_RATIO * capacity() => "bad",
                    Some(_) => "good",
                    None => "",
                });
                let chart = Signal::derive(move || {
                    trio_frame.track();
                    let top = shared_top.get();
                    trio.with_value(|t| t.as_ref().map(|t| attempts_chart(&t.sims[i], top, false)).unwrap_or_default())
                });
                let summary = Signal::derive(move || {
                    let peak = value("peak_after_recovery").get();
                    let waves = value("waves_after_recovery").get();
                    let recovered = value("recovered_ms").get();
                    format!(
                        "{}: peak after recovery {}, {} waves over capacity, done retrying at {} ms.",
                        state.params.with(|p| mode_label(m, p)),
                        display(&peak),
                        display(&waves),
                        display(&recovered)
                    )
                });
                let detail = move || {
                    let waves = value("waves_after_recovery").get().as_f64().unwrap_or(0.0) as u64;
                    let rec = match value("recovered_ms").get().as_f64() {
                        Some(r) => format!("done retrying at {:.1}\u{a0}s", r / 1000.0),
                        None => "still retrying".into(),
                    };
                    format!("{waves} wave{} over capacity · {rec}", if waves == 1 { "" } else { "s" })
                };
                let current = move || mode() == m;
                view! {
                    <section class="compare-col" class:current=current data-compare=m>
                        <h3>
                            {move || state.params.with(|p| mode_label(m, p))}
                            <Show when=current>
                                <span class="badge">"selected"</span>
                            </Show>
                        </h3>
                        <StatCard key="peak_after_recovery" label="Peak after recovery" unit="calls/tick"
                            value=value("peak_after_recovery") note=peak_note tone=tone/>
                        <p class="compare-detail">{detail}</p>
                        <Chart title="Attempts per 100 ms tick" data=chart summary=summary/>
                    </section>
                }
            })
            .collect_view()
    };

    view! {
        <SimFrame state runner>
            <div class="mode-switch" role="group" aria-labelledby="mode-switch-label">
                <div class="mode-row">
                    <span id="mode-switch-label" class="mode-title">"Retry backoff"</span>
                    <div class="mode-buttons">
                        {MODES
                            .iter()
                            .map(|&m| {
                                view! {
                                    <button
                                        data-mode=m
                                        aria-pressed=move || (mode() == m).to_string()
                                        on:click=move |_| set_mode(m)
                                    >
                                        {move || state.params.with(|p| mode_label(m, p))}
                                    </button>
                                }
                            })
                            .collect_view()}
                    </div>
                </div>
                <p class="mode-explain">{move || state.params.with(|p| mode_explain(p.choice("mode"), p))}</p>
                <button
                    class="compare-toggle"
                    data-action="compare"
                    aria-pressed=move || compare_on.get().to_string()
                    // Only name the view while it exists: a reference to a missing id is invalid ARIA.
                    aria-controls=move || compare_on.get().then_some("compare-view")
                    on:click=move |_| compare_on.update(|c| *c = !*c)
                >
                    {move || if compare_on.get() { "Hide the comparison" } else { "Compare fixed, exponential and jitter side by side" }}
                </button>
            </div>
            <div class="stats">
                <StatCard key="peak_after_recovery" label="Peak after recovery" unit="calls/tick"
                    value=metric("peak_after_recovery") note=peak_note tone=peak_tone/>
                <StatCard key="attempts_total" label="Attempts" unit="calls" value=metric("attempts_total") note=attempts_note/>
                <StatCard key="amplification" label="Amplification" unit="×" value=metric("amplification")
                    note=Signal::derive(|| "attempts per successful call".to_string())/>
                <StatCard key="recovered_ms" label="Done retrying at" unit="ms" value=metric("recovered_ms") note=recovered_note/>
                <StatCard key="waves_after_recovery" label="Waves over capacity" value=metric("waves_after_recovery")
                    note=Signal::derive(|| "after the provider is back".to_string())/>
                <StatCard key="max_calls_per_user_action" label="Calls for one user action" unit="calls"
                    value=metric("max_calls_per_user_action") note=calls_note/>
                <StatCard key="outage_retry_pct" label="Outage traffic growth" unit="%"
                    value=metric("outage_retry_pct") note=outage_note/>
            </div>
            {move || verdict().map(|v| view! { <p class="verdict" data-verdict role="status">{v}</p> })}
            <Show when=move || compare_on.get()>
                <section id="compare-view" class="compare" aria-label="Fixed, exponential and jitter on the same seed">
                    <p class="help">
                        "The same clients, seed and parameters, with only the backoff changed. The three runs play with the main clock; "
                        "“Skip to end” finishes all of them. The y axes share one scale."
                    </p>
                    <ul class="legend">
                        {BAR_LEGEND
                            .iter()
                            .map(|&(label, palette_slot)| {
                                let style = format!("background:{}", color(palette_slot, prefers_dark()));
                                view! { <li><span class="swatch" style=style></span>{label}</li> }
                            })
                            .collect_view()}
                    </ul>
                    <div class="compare-grid">{compare_columns}</div>
                </section>
            </Show>
            <Chart id="chart-attempts" title="Attempts per 100 ms tick: served, rejected, failed" data=attempts summary=attempts_summary/>
            <div class="charts-grid">
                <Chart id="chart-waiting" title="Clients waiting to retry" data=waiting summary=waiting_summary/>
                <figure class="clients-strip">
                    <figcaption>"The clients now"</figcaption>
                    <div class="dots" role="img" aria-label=move || {
                        let [a, b, c] = client_counts();
                        format!("{a} clients in a call, {b} waiting to retry, {c} idle.")
                    }>{dots}</div>
                    <ul class="legend">
                        {move || {
                            let [a, b, c] = client_counts();
                            view! {
                                <li><span class="dot in-call"></span>{format!("{a} in a call")}</li>
                                <li><span class="dot waiting"></span>{format!("{b} waiting to retry")}</li>
                                <li><span class="dot idle"></span>{format!("{c} idle (thinking or paused)")}</li>
                            }
                        }}
                    </ul>
                </figure>
            </div>
        </SimFrame>
    }
}

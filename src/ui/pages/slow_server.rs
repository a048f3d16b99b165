//! The slow-server page: predict, then watch B's queue and p99 under the balancing policy.

use leptos::prelude::*;

use crate::scenarios::slow_server::{SAMPLE_EVERY, SlowServer, server_name};
use crate::sim::{Params, Simulation, Value};
use crate::ui::kit::chart::slot;
use crate::ui::kit::stat::display;
use crate::ui::kit::{Chart, ChartData, Line, SimFrame, SimState, StatCard};

const PREDICTIONS: &[(&str, &str)] = &[
    ("same", "p99 stays about the same: the other servers pick up the slack"),
    ("double", "p99 roughly doubles, then settles"),
    ("explodes", "p99 grows many times over and keeps growing"),
];

/// Why p99 did what it did, from the parameters: B's share of the load against what B can
/// serve once slowed, and what the balancing policy and the client timeout change.
fn why(p: &Params, slowed: bool) -> String {
    let servers = p.get("servers");
    let share = p.get("rate") / servers;
    let healthy_capacity = p.get("workers") * 1000.0 / p.get("service_ms");
    let b_capacity = healthy_capacity / p.get("slowdown");
    let pool_capacity = healthy_capacity * (servers - 1.0) + b_capacity;
    let timeout = p.get("timeout_ms");
    if servers < 2.0 {
        return "With one server there is no B to slow down.".into();
    }
    if !slowed {
        return "B does not slow down within this run: the slowdown comes after the end. Move it earlier or run longer.".into();
    }
    if p.flag("b_fails") {
        return "B refused connections, the balancer retried elsewhere, and health checks removed it: down is a fast, visible failure.".into();
    }
    let cancel = timeout > 0.0 && p.flag("cancel_on_timeout");
    let timeouts = if cancel {
        format!(
            " Each client gives up after {timeout} ms and its request leaves the queue, so queues stay bounded and p99 stays near the timeout: slow requests become timeouts instead."
        )
    } else if timeout > 0.0 {
        format!(" Clients give up after {timeout} ms, but the servers still work through every abandoned request, so the queue grows all the same.")
    } else {
        String::new()
    };
    if pool_capacity < p.get("rate") {
        let grows = if cancel { "" } else { " Queues grow whatever the policy." };
        return format!(
            "Even the whole pool cannot keep up: with B slowed it serves about {pool_capacity:.0} req/s in all, less than the {:.0} req/s arriving.{grows}{timeouts}",
            p.get("rate")
        );
    }
    let policy = p.choice("policy");
    if !matches!(policy, "round-robin" | "random") {
        return "This policy looks at the servers' load, so B gets only what it can handle and the others take the rest.".into();
    }
    let utilisation = share / b_capacity;
    if utilisation < 0.9 {
        return format!(
            "Even slowed, B can serve {b_capacity:.0} req/s, more than its share of {share:.0} req/s: its queue stays short, and only B's slower service shows in the tail."
        );
    }
    if utilisation <= 1.0 {
        return format!(
            "B's share, {share:.0} req/s, is now {:.0}% of what B can serve: so close to full, its queue grows long and swings without settling.{timeouts}",
            utilisation * 100.0
        );
    }
    let (name, on_average) = if policy == "random" { ("Random choice", " on average") } else { ("Round robin", "") };
    let grows = if cancel {
        String::new()
    } else {
        format!(" Its queue grows by about {:.0} requests every second, and every request sent to B waits behind all of them.", share - b_capacity)
    };
    format!("{name} still sends B its share, {share:.0} req/s{on_average}, but B can now serve only {b_capacity:.0} req/s.{grows}{timeouts}")
}

#[component]
pub fn SlowServerPage(state: SimState) -> impl IntoView {
    let runner = state.runner(SlowServer::new, SAMPLE_EVERY);
    let metrics = Memo::new(move |_| runner.track(|s| s.metrics()));
    let metric = move |key: &'static str| {
        Signal::derive(move || metrics.with(|m| m.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone()).unwrap_or(Value::Null)))
    };
    let num = move |key: &'static str| metric(key).get().as_f64();

    // The prediction: the answer waits for the run to be 2 s past the slowdown and for the
    // reader's guess (or the end of the run, for a reader who skipped ahead without guessing).
    let guess = RwSignal::new(None::<&'static str>);
    let past_slowdown = move || runner.track(|s| s.now() >= s.slow_at() + 2_000_000);
    let finished = move || runner.track(|s| s.finished());
    let revealed = move || finished() || (past_slowdown() && guess.get().is_some());
    let waiting_note = move || {
        if past_slowdown() { "Pick an answer to see what happened." } else { "Press play: the answer appears once the run is past the slowdown." }
    };
    let answer = move || {
        let before = num("p99_ms_before");
        let now = num("p99_ms_now");
        let slowed = runner.track(|s| s.slow_at() < s.end());
        let ratio = match (before, now) {
            (Some(b), Some(n)) if b > 0.0 && slowed => format!(
                "p99 went from {} ms before the slowdown to {} ms now (×{:.1}). ",
                display(&Value::num(b)),
                display(&Value::num(n)),
                n / b
            ),
            _ => String::new(),
        };
        format!("{ratio}{}", state.params.with(|p| why(p, slowed)))
    };
    let servers = move || state.params.with(|p| p.get("servers") as usize);
    let markers = move |s: &SlowServer| {
        let mut m = Vec::new();
        if servers() > 1 {
            let label = if state.params.with(|p| p.flag("b_fails")) { "B goes down".to_string() } else {
                format!("B ×{} slower", state.params.with(|p| p.get("slowdown")))
            };
            m.push((s.slow_at() as f64 / 1000.0, label));
            if let Some(e) = s.ejected_at() {
                m.push((e as f64 / 1000.0, "B ejected".to_string()));
            }
        }
        m
    };
    let queue_chart = Signal::derive(move || {
        runner.track(|s| {
            let c = &s.charts().queues;
            ChartData {
                x_range: (0.0, s.end() as f64 / 1000.0),
                y_unit: "",
                lines: (0..servers())
                    .map(|i| Line {
                        label: format!("Server {}", server_name(i)),
                        color: i,
                        xs: c.times_ms.clone(),
                        ys: c.values.iter().map(|v| v[i]).collect(),
                        dashed: false,
                    })
                    .collect(),
                markers: markers(s),
                y_min_max: 5.0,
                ..Default::default()
            }
        })
    });
    let queue_summary = Signal::derive(move || {
        runner.track(|s| {
            let parts: Vec<String> =
                s.servers().iter().enumerate().map(|(i, sv)| format!("{} {}", server_name(i), sv.outstanding())).collect();
            format!("Requests at each server at {:.1} s: {}.", s.now() as f64 / 1e6, parts.join(", "))
        })
    });
    let latency_chart = Signal::derive(move || {
        runner.track(|s| {
            let c = &s.charts().latency;
            let line = |label: &str, color, k: usize| Line {
                label: label.to_string(),
                color,
                xs: c.times_ms.clone(),
                ys: c.values.iter().map(|v| v[k]).collect(),
                dashed: false,
            };
            ChartData {
                x_range: (0.0, s.end() as f64 / 1000.0),
                y_unit: "ms",
                lines: vec![line("p50 (last 1 s)", slot::GREEN, 0), line("p99 (last 1 s)", slot::RED, 1)],
                markers: markers(s),
                log_y: true,
                y_min_max: 10.0,
                ..Default::default()
            }
        })
    });
    let latency_summary = Signal::derive(move || match (num("p50_ms_before"), num("p99_ms_before"), num("p99_ms_now")) {
        (_, Some(b), Some(n)) => format!("p99 was {b:.0} ms before the slowdown and is {n:.0} ms over the last second."),
        _ => "No request has finished yet.".to_string(),
    });
    let in_flight_chart = Signal::derive(move || {
        runner.track(|s| {
            let c = &s.charts().in_flight;
            ChartData {
                x_range: (0.0, s.end() as f64 / 1000.0),
                y_unit: "",
                lines: vec![
                    Line { label: "In flight".into(), color: slot::BLUE, xs: c.times_ms.clone(), ys: c.values.iter().map(|v| v[0]).collect(), dashed: false },
                    Line {
                        label: "Little's law: rate × mean latency (last 1 s)".into(),
                        color: slot::ORANGE,
                        xs: c.times_ms.clone(),
                        ys: c.values.iter().map(|v| v[1]).collect(),
                        dashed: true,
                    },
                ],
                markers: markers(s),
                y_min_max: 5.0,
                ..Default::default()
            }
        })
    });
    let in_flight_summary = Signal::derive(move || {
        runner.track(|s| match s.littles_law_now() {
            Some(l) => format!("{} requests in flight; Little's law predicts {l:.1} from the last second.", s.in_flight()),
            None => format!("{} requests in flight.", s.in_flight()),
        })
    });
    let p99_ratio = Signal::derive(move || match (num("p99_ms_before"), num("p99_ms_after")) {
        (Some(b), Some(a)) if b > 0.0 => format!("×{:.1} of before", a / b),
        _ => String::new(),
    });
    let little_note = Signal::derive(move || match num("littles_law_now") {
        Some(l) => format!("Little's law: {l:.1}"),
        None => String::new(),
    });
    let b_tone = Signal::derive(move || if num("b_queue").unwrap_or(0.0) > 20.0 { "bad" } else { "" });

    view! {
        <SimFrame state runner>
            <div class="predict" data-prediction>
                <fieldset>
                    <legend>"Predict: when B becomes slower but stays healthy, what happens to p99?"</legend>
                    {PREDICTIONS
                        .iter()
                        .map(|(id, text)| view! {
                            <label>
                                <input type="radio" name="prediction" value=*id on:change=move |_| guess.set(Some(id))/>
                                " " {*text}
                            </label>
                        })
                        .collect_view()}
                </fieldset>
                <Show
                    when=revealed
                    fallback=move || view! { <p class="answer help">{waiting_note}</p> }
                >
                    <p class="answer" data-answer role="status">
                        {move || match guess.get() {
                            Some(g) => format!("You said: {}. ", PREDICTIONS.iter().find(|(id, _)| *id == g).map_or("", |p| p.1)),
                            None => String::new(),
                        }}
                        <strong>{answer}</strong>
                    </p>
                </Show>
            </div>
            <div class="stats">
                <StatCard key="p99_ms_now" label="p99 now (last 1 s)" unit="ms" value=metric("p99_ms_now")/>
                <StatCard key="p99_ms_before" label="p99 before the slowdown" unit="ms" value=metric("p99_ms_before")/>
                <StatCard key="p99_ms_after" label="p99 after the slowdown" unit="ms" value=metric("p99_ms_after") note=p99_ratio/>
                <StatCard key="b_queue" label="B's queue" unit="req" value=metric("b_queue") tone=b_tone/>
                <StatCard key="in_flight_end" label="In flight now" unit="req" value=metric("in_flight_end") note=little_note/>
                <StatCard key="timed_out" label="Timed out" unit="req" value=metric("timed_out")/>
                <StatCard key="completed" label="Completed" unit="req" value=metric("completed")/>
            </div>
            <div class="charts-grid">
                <Chart id="chart-queues" title="Requests at each server (queue + in service)" data=queue_chart summary=queue_summary/>
                <Chart id="chart-latency" title="Latency percentiles over the last second (log scale)" data=latency_chart summary=latency_summary/>
                <div>
                    <Chart id="chart-in-flight" title="Requests in flight vs Little's law" data=in_flight_chart summary=in_flight_summary/>
                    <p class="help">
                        "Little's law (in flight = arrival rate × time in the system) holds while the system is steady. "
                        "Once B's queue grows, the requests stuck in it have not finished, so the latency of those that did "
                        "understates the wait, and the dashed line lags behind the solid one."
                    </p>
                </div>
            </div>
        </SimFrame>
    }
}

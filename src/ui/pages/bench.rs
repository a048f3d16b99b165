//! The in-browser half of the benchmark (`scripts/bench.sh`): the same core workloads as the
//! native `resilience-lab bench`, timed with `performance.now()`, and the memory of a one-hour
//! run. Not linked from the app; the benchmark opens `?sim=slow-server&bench=core` or
//! `?sim=slow-server&bench=memory`, and the determinism test `?sim=<id>&bench=fingerprints` (the
//! fingerprints of that simulation's own module). Only slow-server's module carries the core and
//! memory workloads: the other pages' bytes stay theirs (README, "What each page downloads").

use leptos::prelude::*;

#[cfg(feature = "slow-server")]
mod measured {
    use leptos::prelude::*;

    use crate::bench::measure;
    use crate::sim::decimal::fixed;
    use crate::sim::{Micros, SEC};
    use crate::ui::kit::number::shortest;
    use crate::ui::runner::now_ms;

    fn clock() -> f64 {
        now_ms() / 1000.0
    }

    /// Bytes of wasm linear memory and of the JS heap (Chromium's `performance.memory`).
    fn memory() -> [f64; 2] {
        let wasm = js_sys::Reflect::get(&wasm_bindgen::memory(), &"buffer".into())
            .and_then(|b| js_sys::Reflect::get(&b, &"byteLength".into()))
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(f64::NAN);
        let js = window()
            .performance()
            .and_then(|p| js_sys::Reflect::get(&p, &"memory".into()).ok())
            .and_then(|m| js_sys::Reflect::get(&m, &"usedJSHeapSize".into()).ok())
            .and_then(|v| v.as_f64())
            .unwrap_or(f64::NAN);
        [wasm, js]
    }

    pub(super) fn core_report() -> String {
        let core = measure("slow-server", 600_000, 11, &clock);
        let mut out = format!(
            "{{\"requests_per_s\":{},\"events_per_s\":{},\"events_per_request\":{},\"median_ms\":{}",
            fixed(core.requests_per_s(), 0),
            fixed(core.events_per_s(), 0),
            fixed(core.events_per_request(), 3),
            fixed(core.median_s * 1000.0, 3)
        );
        out.push_str(",\"scenarios\":{");
        let parts: Vec<String> = crate::scenarios::ALL
            .iter()
            .map(|s| format!("\"{}\":{}", s.id, fixed(measure(s.id, 600_000, 5, &clock).median_s * 1000.0, 3)))
            .collect();
        out.push_str(&parts.join(","));
        out.push_str("}}");
        out
    }

    /// A one-hour slow-server run at 1,000 requests/s (a stable configuration, so the model's own
    /// state stays bounded), reading its metrics and its reading every simulated second as the page
    /// does.
    pub(super) fn memory_report() -> String {
        let Some(spec) = crate::scenarios::find("slow-server") else { return "[]".into() };
        let mut params = spec.defaults();
        for (id, value) in [("rate", "1000"), ("service_ms", "1"), ("policy", "least-outstanding")] {
            params.set_text(id, value).expect("slow-server declares these");
        }
        let mut sim = spec.start(&params, 1, 3_600_000);
        let mut rows = Vec::new();
        for minutes in [1u64, 10, 60] {
            let target: Micros = minutes * 60 * SEC;
            while sim.now() < target {
                sim.advance((sim.now() + SEC).min(target), u64::MAX);
                std::hint::black_box((sim.metrics(), sim.reading()));
            }
            let [wasm, js] = memory().map(shortest);
            rows.push(format!(
                "{{\"minutes\":{minutes},\"wasm_bytes\":{wasm},\"js_heap_bytes\":{js},\"events\":{}}}",
                sim.events()
            ));
        }
        format!("[{}]", rows.join(","))
    }
}

/// The result of the benchmark `kind` in this module.
fn report(kind: &str) -> String {
    match kind {
        "fingerprints" => crate::bench::fingerprints(),
        #[cfg(feature = "slow-server")]
        "memory" => measured::memory_report(),
        #[cfg(feature = "slow-server")]
        _ => measured::core_report(),
        #[cfg(not(feature = "slow-server"))]
        _ => "{\"error\":\"only ?sim=slow-server measures the core and memory\"}".into(),
    }
}

#[component]
pub fn Bench(kind: String) -> impl IntoView {
    let result = RwSignal::new(String::new());
    // Let the page paint first, then measure.
    set_timeout(
        move || {
            result.set(report(&kind));
        },
        std::time::Duration::from_millis(50),
    );
    view! {
        <h1>"Benchmark"</h1>
        <pre id="bench-result" data-bench=move || (!result.get().is_empty()).then_some("done")>{move || result.get()}</pre>
    }
}

//! Benchmarks of the core, shared by the native CLI (`resilience-lab bench`) and the
//! browser's benchmark page, so both measure exactly the same work.
//!
//! A careful harness rather than criterion: it must also run inside wasm, where criterion
//! does not. Each figure is the median of several timed repetitions after a warm-up run.

use crate::scenarios;
use crate::sim::{Simulation, Value};

/// One timed workload: a scenario at its defaults for a simulated duration.
#[derive(Clone, Debug)]
pub struct Measurement {
    pub scenario: &'static str,
    pub simulated_ms: u64,
    pub requests: u64,
    pub events: u64,
    /// Median wall time of one run, in seconds.
    pub median_s: f64,
    pub repetitions: usize,
}

impl Measurement {
    pub fn requests_per_s(&self) -> f64 {
        self.requests as f64 / self.median_s
    }
    pub fn events_per_s(&self) -> f64 {
        self.events as f64 / self.median_s
    }
    pub fn events_per_request(&self) -> f64 {
        self.events as f64 / self.requests.max(1) as f64
    }
}

/// Runs `scenario` at its defaults for `simulated_ms`, `repetitions` times after one warm-up,
/// timing each with `clock` (seconds). The request count is the scenario's arrivals metric.
pub fn measure(scenario: &'static str, simulated_ms: u64, repetitions: usize, clock: &dyn Fn() -> f64) -> Measurement {
    let spec = scenarios::find(scenario).expect("benchmarked scenario exists");
    let params = spec.defaults();
    let run = || {
        let mut sim = spec.start(&params, 1, simulated_ms);
        sim.run_to_end();
        sim
    };
    let warm = run();
    let events = warm.events();
    let requests = request_count(&*warm);
    let mut times: Vec<f64> = (0..repetitions.max(1))
        .map(|_| {
            let start = clock();
            let sim = run();
            let elapsed = clock() - start;
            std::hint::black_box(sim.events());
            elapsed.max(1e-9)
        })
        .collect();
    times.sort_by(f64::total_cmp);
    Measurement { scenario, simulated_ms, requests, events, median_s: times[times.len() / 2], repetitions: times.len() }
}

/// The number of requests a run simulated: the first count metric among the usual names.
fn request_count(sim: &dyn Simulation) -> u64 {
    let metrics = sim.metrics();
    ["arrived", "attempts_total", "client_attempts", "requests"]
        .iter()
        .find_map(|k| metrics.iter().find(|(key, _)| key == k).and_then(|(_, v)| v.as_f64()))
        .unwrap_or(0.0) as u64
}

/// One line per scenario and preset (and the defaults): a hash of every metric's exact bits and
/// the event count after a run with seed 7. The browser test compares the wasm build's lines
/// with the native CLI's, so "the same seed gives the same run everywhere" is checked, not assumed.
pub fn fingerprints() -> String {
    let mut out = String::new();
    for spec in scenarios::ALL {
        let presets = std::iter::once(None).chain(spec.presets.iter().map(Some));
        for preset in presets {
            let mut params = spec.defaults();
            if let Some(p) = preset {
                params.apply_preset(p).expect("presets are valid (tested)");
            }
            let mut sim = spec.start(&params, 7, spec.duration_for(&params));
            sim.run_to_end();
            let mut hash = Fnv::default();
            for (key, value) in sim.metrics() {
                hash.write(key.as_bytes());
                hash.value(&value);
            }
            let name = preset.map_or("(defaults)", |p| p.id);
            out.push_str(&format!("{} {} {:016x} {}\n", spec.id, name, hash.0, sim.events()));
        }
    }
    out
}

/// FNV-1a: tiny, and identical on every platform.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ *b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.write(b"n"),
            Value::Bool(b) => self.write(&[b'b', *b as u8]),
            Value::Int(i) => self.write(&i.to_le_bytes()),
            Value::Num(x) => self.write(&x.to_bits().to_le_bytes()),
            Value::Text(t) => self.write(t.as_bytes()),
            Value::List(rows) => {
                for row in rows {
                    for (k, v) in row {
                        self.write(k.as_bytes());
                        self.value(v);
                    }
                }
            }
        }
    }
}

/// `resilience-lab bench`: the core's speed at the defaults, as a table or as JSON.
#[cfg(not(target_arch = "wasm32"))]
pub fn native_report(quick: bool, json: bool) -> String {
    use crate::format::{count, group};
    let start = std::time::Instant::now();
    let clock = move || start.elapsed().as_secs_f64();
    let reps = if quick { 3 } else { 11 };
    let core = measure("slow-server", 600_000, reps, &clock);
    let runs: Vec<Measurement> = scenarios::ALL.iter().map(|s| measure(s.id, 600_000, reps, &clock)).collect();
    if json {
        let skips: Vec<(&str, f64)> = runs.iter().map(|m| (m.scenario, m.median_s * 1000.0)).collect();
        let report = crate::report::BenchReport {
            requests_per_s: core.requests_per_s(),
            events_per_s: core.events_per_s(),
            events_per_request: core.events_per_request(),
            repetitions: core.repetitions,
            scenarios_ms: crate::report::Pairs(&skips),
        };
        return serde_json::to_string(&report).expect("JSON of plain values") + "\n";
    }
    let whole = |x: f64| group(libm::round(x) as i64);
    let mut out = format!("Native benchmark ({} repetitions after a warm-up, medians)\n", core.repetitions);
    let mut row = |figure: &str, measured: String, goal: &str| {
        out.push_str(&format!("{figure:<58} {measured:>16} {goal:>14}\n"));
    };
    row("figure", "measured".into(), "goal");
    row("slow-server 600 s: simulated requests per second", whole(core.requests_per_s()), ">= 4,000,000");
    row("slow-server 600 s: events per second", whole(core.events_per_s()), "");
    row("events per request", format!("{:.2}", core.events_per_request()), "");
    for m in &runs {
        let figure = format!("{}: 10 simulated minutes, {} events", m.scenario, count(m.events));
        row(&figure, format!("{:.3} ms", m.median_s * 1000.0), "");
    }
    out
}

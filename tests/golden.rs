//! Behaviour is preserved: every scenario at its defaults and at every preset, seed 7, reports
//! exactly the metrics recorded in `tests/golden/<scenario id>.json` (new metrics may be added).
//! One file per scenario, so a new scenario records its own and touches no other's.
//!
//! A change that is meant to change a number names the bug it fixes in its commit and
//! regenerates the files with `UPDATE_GOLDEN=1 cargo test --release --test golden`, then says
//! what moved in CHANGELOG.md (`tests/changelog.rs` fails until it does).

use std::path::Path;

use resilience_lab::report::Pairs;
use resilience_lab::scenarios::ALL;
use serde_json::{Map, Value as Json};

const SEED: u64 = 7;

fn file(scenario: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{scenario}.json"))
}

/// Every run's metrics, by scenario and then by preset ("(defaults)" for none).
fn current() -> Map<String, Json> {
    let mut all = Map::new();
    for spec in ALL {
        let mut runs = Map::new();
        let presets = std::iter::once(None).chain(spec.presets.iter().map(Some));
        for preset in presets {
            let mut params = spec.defaults();
            if let Some(p) = preset {
                params.apply_preset(p).expect("presets are valid");
            }
            let mut sim = spec.start(&params, SEED, spec.duration_for(&params));
            sim.run_to_end();
            let metrics = serde_json::to_value(Pairs(&sim.metrics())).expect("metrics serialize");
            runs.insert(preset.map_or("(defaults)", |p| p.id).to_string(), metrics);
        }
        all.insert(spec.id.to_string(), Json::Object(runs));
    }
    all
}

#[test]
fn every_default_and_preset_run_reports_the_recorded_metrics() {
    let now = current();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        for (scenario, runs) in &now {
            let text = serde_json::to_string_pretty(runs).expect("JSON") + "\n";
            std::fs::write(file(scenario), text).expect("golden file written");
        }
        return;
    }
    let recorded: Map<String, Json> = ALL
        .iter()
        .map(|spec| {
            let text = std::fs::read_to_string(file(spec.id)).unwrap_or_else(|_| {
                panic!("{}: no golden file; record it with UPDATE_GOLDEN=1 cargo test --release --test golden", spec.id)
            });
            (spec.id.to_string(), serde_json::from_str(&text).expect("golden JSON"))
        })
        .collect();
    let mut runs = 0;
    for (scenario, presets) in &recorded {
        let presets = presets.as_object().expect("runs by preset");
        for (preset, expected) in presets {
            let got = now
                .get(scenario)
                .and_then(|s| s.get(preset))
                .unwrap_or_else(|| panic!("{scenario} {preset}: no such run any more"));
            for (key, value) in expected.as_object().expect("metrics") {
                assert_eq!(got.get(key), Some(value), "{scenario} {preset}: metric {key} changed");
            }
            runs += 1;
        }
    }
    let expected_runs: usize = ALL.iter().map(|s| s.presets.len() + 1).sum();
    assert_eq!(runs, expected_runs, "every scenario's defaults and presets are recorded");
}

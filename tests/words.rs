//! The words by snapshot: every scenario at its defaults and at every preset, seed 7, says
//! exactly the sentences (`reading`) recorded in `tests/golden/words/<scenario id>.json`, and
//! rests them on exactly the facts recorded beside them. Facts are what the other tests check
//! against the metrics; this file only notices when a sentence or a fact changes.
//!
//! A change meant to change the words says which sentence and why in its commit, and
//! regenerates the files with `UPDATE_GOLDEN=1 cargo test --release --test words`.

use std::path::PathBuf;

use resilience_lab::report::Pairs;
use resilience_lab::scenarios::ALL;
use resilience_lab::sim::ScenarioSpec;
use serde_json::{Map, Value as Json, json};

const SEED: u64 = 7;

fn file(scenario: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/words/{scenario}.json"))
}

/// One scenario's runs: by preset ("(defaults)" for none), the reading and the facts at the end.
fn current(spec: &ScenarioSpec) -> Map<String, Json> {
    let presets = std::iter::once(None).chain(spec.presets.iter().map(Some));
    presets
        .map(|preset| {
            let mut params = spec.defaults();
            if let Some(p) = preset {
                params.apply_preset(p).expect("presets are valid");
            }
            let mut sim = spec.start(&params, SEED, spec.duration_for(&params));
            sim.run_to_end();
            let reading = serde_json::to_value(Pairs(&sim.reading())).expect("reading serializes");
            let run = json!({ "reading": reading, "facts": sim.facts() });
            (preset.map_or("(defaults)", |p| p.id).to_string(), run)
        })
        .collect()
}

#[test]
fn every_default_and_preset_run_says_the_recorded_words() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for spec in ALL {
        let now = current(spec);
        if update {
            std::fs::create_dir_all(file(spec.id).parent().unwrap()).expect("words folder");
            let text = serde_json::to_string_pretty(&now).expect("JSON") + "\n";
            std::fs::write(file(spec.id), text).expect("words file written");
            continue;
        }
        let text = std::fs::read_to_string(file(spec.id)).unwrap_or_else(|_| {
            panic!("{}: no words file; record it with UPDATE_GOLDEN=1 cargo test --release --test words", spec.id)
        });
        // Compared as text: the recorded floats are exact in it, and parsing them back need not be.
        let text_now = serde_json::to_string_pretty(&now).expect("JSON") + "\n";
        if text != text_now {
            let changed: Vec<&String> = now
                .iter()
                .filter(|(preset, run)| {
                    let run = serde_json::to_string_pretty(&json!({ preset.as_str(): run })).expect("JSON");
                    // The run as it sits in the file: its lines without the braces around it.
                    let lines: Vec<&str> = run.lines().collect();
                    let inner = lines[1..lines.len() - 1].join("\n");
                    !text.contains(inner.trim_end_matches(','))
                })
                .map(|(preset, _)| preset)
                .collect();
            panic!("{}: the reading or the facts changed at {changed:?} (or runs were added or removed)", spec.id);
        }
    }
}

/// which-timeout's every-fault table, cell by cell as the page shows it, at its defaults and
/// every preset: `tests/golden/words/which-timeout-faults.json` (regenerated as above).
#[test]
fn the_every_fault_table_says_the_recorded_words() {
    use resilience_lab::scenarios::which_timeout::{
        WhichTimeoutConfig, caller_cell, chapter_cell, every_fault, first_fired_cell, retry_cell, work_cell,
    };
    use resilience_lab::sim::Config;
    let spec = resilience_lab::scenarios::find("which-timeout").expect("which-timeout is registered");
    let presets = std::iter::once(None).chain(spec.presets.iter().map(Some));
    let now: Map<String, Json> = presets
        .map(|preset| {
            let mut params = spec.defaults();
            if let Some(p) = preset {
                params.apply_preset(p).expect("presets are valid");
            }
            let rows: Map<String, Json> = every_fault(&WhichTimeoutConfig::from_params(&params))
                .iter()
                .map(|row| {
                    let cells = json!({
                        "first": first_fired_cell(row),
                        "caller": caller_cell(row),
                        "work": work_cell(row),
                        "retry": retry_cell(row),
                        "chapter": chapter_cell(row),
                    });
                    (row.fault.id().to_string(), cells)
                })
                .collect();
            (preset.map_or("(defaults)", |p| p.id).to_string(), Json::Object(rows))
        })
        .collect();
    let path = file("which-timeout-faults");
    let text_now = serde_json::to_string_pretty(&now).expect("JSON") + "\n";
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text_now).expect("words file written");
        return;
    }
    let text = std::fs::read_to_string(&path).expect("which-timeout-faults.json; record it with UPDATE_GOLDEN=1");
    assert!(text == text_now, "which-timeout: a cell of the every-fault table changed");
}

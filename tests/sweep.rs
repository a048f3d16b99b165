//! Sweeps: many runs over a range of one parameter, by option, over seeds. The curves agree
//! with queueing theory where there is theory, every scenario's default sweep is valid and
//! runs, the summary is what its points say, and the CLI's output does not depend on threads.

use std::process::Command;

use resilience_lab::scenarios::slow_server::{SlowServerConfig, sweep_knee};
use resilience_lab::scenarios::{ALL, slow_server};
use resilience_lab::sim::Config;
use resilience_lab::sweep::{Summary, Sweep, quantile};
use serde_json::Value as Json;

/// The median of `metric` at `x` on the line `by`.
fn median_at(sweep: &Sweep, summary: &[Summary], by: &str, x: f64) -> f64 {
    summary
        .iter()
        .find(|s| sweep.line_name(s.by) == Some(by) && s.x == x)
        .and_then(|s| s.median)
        .unwrap_or_else(|| panic!("no median for {by} at {x}"))
}

fn slow_server_sweep() -> (Sweep, Vec<Summary>) {
    let spec = &slow_server::SPEC;
    let sweep =
        Sweep::new(spec, spec.defaults(), ("slowdown", 1.0, 5.0, 9), Some("policy"), 5, &["p99_ms_after"]).unwrap();
    let points: Vec<_> = sweep.jobs().into_iter().map(|j| sweep.run(j)).collect();
    let summary = sweep.summarize(&points);
    (sweep, summary)
}

/// Round robin sends B a third of 150 req/s whatever B's state; B serves 1000 / (10 ms × s)
/// req/s once s times slower, so its queue grows without bound from s = 2: the knee.
#[test]
fn round_robin_p99_has_its_knee_where_b_share_exceeds_b_capacity() {
    let spec = &slow_server::SPEC;
    let c = spec.defaults();
    let knee = c.get("workers") * 1000.0 / c.get("service_ms") / (c.get("rate") / c.get("servers"));
    assert_eq!(knee, 2.0, "at the defaults the knee is at slowdown 2");
    let (sweep, summary) = slow_server_sweep();
    let base = median_at(&sweep, &summary, "round-robin", 1.0);
    let below = median_at(&sweep, &summary, "round-robin", 1.5);
    let above = median_at(&sweep, &summary, "round-robin", 3.0);
    assert!(below < 5.0 * base, "below the knee p99 stays within 5× ({base} → {below})");
    assert!(above >= 10.0 * base, "past the knee p99 is at least 10× ({base} → {above})");
}

/// The knee the sweep's explanation states is computed from the parameters (slow-server's
/// `sweep_knee`): ×2 at the defaults, ×3 at 100 req/s, where B's share is 33.3 req/s. After the
/// explanation, one sentence a policy's line, from its summary.
#[test]
fn the_sweep_knee_follows_the_parameters() {
    let defaults = SlowServerConfig::defaults();
    assert_eq!(sweep_knee(&defaults, SlowServerConfig::slowdown), Some(2.0));
    assert_eq!(
        sweep_knee(&SlowServerConfig { rate: 100.0, ..defaults.clone() }, SlowServerConfig::slowdown),
        Some(3.0)
    );
    // Sweeping the rate at a slowdown of 5: 3 servers × 100 req/s ÷ 5 = 60 req/s.
    assert_eq!(sweep_knee(&defaults, SlowServerConfig::rate), Some(60.0));
    assert_eq!(sweep_knee(&SlowServerConfig { servers: 1, ..defaults }, SlowServerConfig::slowdown), None);
    let (sweep, summary) = slow_server_sweep();
    let policies = sweep.lines().len();
    assert_eq!(policies, 4);
    assert_eq!(sweep.reading(&summary).len(), 1 + policies);
}

#[test]
fn least_outstanding_keeps_p99_within_ten_times_from_slowdown_1_to_5() {
    let (sweep, summary) = slow_server_sweep();
    let base = median_at(&sweep, &summary, "least-outstanding", 1.0);
    for x in sweep.xs.iter().copied() {
        let p = median_at(&sweep, &summary, "least-outstanding", x);
        assert!(p < 10.0 * base, "least-outstanding at slowdown {x}: {p} vs {base}");
    }
}

#[test]
fn a_summary_is_the_median_and_percentiles_of_its_points() {
    let spec = &slow_server::SPEC;
    let sweep =
        Sweep::new(spec, spec.defaults(), ("rate", 100.0, 100.0, 1), None, 9, &["p99_ms_after", "completed"]).unwrap();
    let points: Vec<_> = sweep.jobs().into_iter().map(|j| sweep.run(j)).collect();
    assert_eq!(points.len(), 9, "one point per seed");
    let summary = sweep.summarize(&points);
    assert_eq!(summary.len(), 2, "one summary per metric");
    for (m, s) in summary.iter().enumerate() {
        let mut values: Vec<f64> = points.iter().map(|p| p.values[m].unwrap()).collect();
        values.sort_by(f64::total_cmp);
        assert_eq!(
            (s.median, s.p10, s.p90, s.n),
            (quantile(&values, 0.5), quantile(&values, 0.1), quantile(&values, 0.9), 9)
        );
        assert!(s.p10 <= s.median && s.median <= s.p90);
    }
}

#[test]
fn every_scenarios_default_sweep_is_valid_and_runs() {
    for spec in ALL {
        let d = spec.sweep;
        let sweep = Sweep::new(spec, spec.defaults(), (d.x, d.from, d.to, d.steps), d.by, 2, &[d.metric])
            .unwrap_or_else(|e| panic!("{}: default sweep invalid: {e}", spec.id));
        assert!(sweep.xs.len() >= 10, "{}: {} x values", spec.id, sweep.xs.len());
        let points: Vec<_> = sweep.jobs().into_iter().map(|j| sweep.run(j)).collect();
        let summary = sweep.summarize(&points);
        assert!(summary.iter().any(|s| s.median.is_some()), "{}: the default sweep gives no number", spec.id);
    }
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_resilience-lab")).args(args).output().expect("runs");
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn cli_sweep_is_byte_identical_for_any_thread_count() {
    let args = ["sweep", "retry-storm", "--x", "capacity=4..16:5", "--by", "mode", "--seeds", "3", "--json"];
    let (code, one, _) = cli(&[&args[..], &["--threads", "1"]].concat());
    assert_eq!(code, 0);
    for threads in ["2", "3", "8"] {
        let (_, many, _) = cli(&[&args[..], &["--threads", threads]].concat());
        assert_eq!(one, many, "--threads {threads} changed the output");
    }
    let j: Json = serde_json::from_str(&one).unwrap();
    assert_eq!(
        (j["scenario"].as_str(), j["x"].as_str(), j["by"].as_str()),
        (Some("retry-storm"), Some("capacity"), Some("mode"))
    );
    assert_eq!(j["points"].as_array().unwrap().len(), 5 * 5 * 3, "x values × modes × seeds");
    assert_eq!(j["summary"].as_array().unwrap().len(), 5 * 5, "one summary per x and mode");
    let p = &j["points"][0];
    for key in ["by", "x", "seed", "peak_after_recovery"] {
        assert!(p.get(key).is_some(), "a point has {key}: {p}");
    }
    let s = &j["summary"][0];
    for key in ["by", "x", "metric", "median", "p10", "p90", "n"] {
        assert!(s.get(key).is_some(), "a summary row has {key}: {s}");
    }
}

#[test]
fn cli_sweep_without_by_has_a_null_by_and_csv_has_one_row_per_summary() {
    let (code, out, _) = cli(&["sweep", "slow-server", "--x", "rate=50..150:3", "--seeds", "2", "--json"]);
    assert_eq!(code, 0);
    let j: Json = serde_json::from_str(&out).unwrap();
    assert!(j["by"].is_null() && j["points"][0]["by"].is_null());
    let (code, csv, _) =
        cli(&["sweep", "slow-server", "--x", "rate=50..150:3", "--seeds", "2", "--metric", "completed", "--csv"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "by,x,metric,median,p10,p90,min,max,n");
    assert_eq!(lines.len(), 1 + 3);
}

/// A sweep on the page is reproduced from its link: `--url` gives the view's x, lines, metric
/// and seeds; options given on the command line win over the link's.
#[test]
fn cli_sweep_follows_the_links_sweep_view() {
    let link = "?sim=slow-server&sweep=rate&by=service_dist&sweep_metric=b_queue&sweep_seeds=3&duration_ms=2000";
    let (code, out, err) = cli(&["sweep", "--url", link, "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: Json = serde_json::from_str(&out).unwrap();
    assert_eq!((j["x"].as_str(), j["by"].as_str()), (Some("rate"), Some("service_dist")));
    assert_eq!(j["metrics"], serde_json::json!(["b_queue"]));
    assert_eq!(j["seeds"], serde_json::json!([1, 2, 3]));
    assert_eq!(j["duration_ms"], 2000);
    let (_, out, _) = cli(&["sweep", "--url", link, "--json", "--seeds", "2", "--metric", "completed"]);
    let j: Json = serde_json::from_str(&out).unwrap();
    assert_eq!((j["seeds"].as_array().map(Vec::len), j["metrics"][0].as_str()), (Some(2), Some("completed")));
}

/// A choice parameter as x takes every option; summaries carry min and max and no float noise.
#[test]
fn cli_sweep_over_a_choice_with_min_and_max() {
    let (code, csv, err) =
        cli(&["sweep", "slow-server", "--x", "policy", "--seeds", "3", "--duration-ms", "2000", "--csv"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let xs: Vec<&str> = rows.iter().map(|r| r[1]).collect();
    assert_eq!(xs, ["round-robin", "random", "least-outstanding", "two-choices"]);
    for r in &rows {
        let [median, p10, p90, min, max] = [3, 4, 5, 6, 7].map(|i| r[i].parse::<f64>().unwrap());
        assert!(min <= p10 && p10 <= median && median <= p90 && p90 <= max, "{r:?}");
        for cell in &r[3..8] {
            assert!(cell.split('.').nth(1).is_none_or(|d| d.len() == 1), "{cell}: not rounded to 0.1");
        }
    }
}

#[test]
fn cli_sweep_errors_are_one_line_naming_what_is_allowed() {
    for (args, names) in [
        (vec!["sweep", "slow-server", "--x", "policy=1..2"], vec!["--x policy", "takes all its options"]),
        (vec!["sweep", "slow-server", "--x", "slowdown=0..100"], vec!["slowdown", "from 1 to 50"]),
        (vec!["sweep", "slow-server", "--x", "slowdown"], vec!["<param>=<from>..<to>"]),
        (vec!["sweep", "slow-server", "--by", "rate"], vec!["choice parameter", "policy"]),
        (vec!["sweep", "slow-server", "--metric", "nope"], vec!["p99_ms_after"]),
        (vec!["sweep", "slow-server", "--seeds", "0"], vec!["--seeds", "1 to 1000"]),
        (vec!["sweep", "slow-server", "--threads", "x"], vec!["--threads"]),
        (vec!["sweep", "nope"], vec!["slow-server"]),
        (vec!["sweep", "slow-server", "--frobnicate"], vec!["--x", "--preset"]),
    ] {
        let (code, out, err) = cli(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?} printed {out}");
        let line = err.trim_end();
        assert!(!line.contains('\n') && !line.contains("panicked"), "{args:?}: {err}");
        for n in names {
            assert!(line.contains(n), "{args:?}: {line} does not name {n}");
        }
    }
}

/// Every scenario's default sweep opens its reading with why the curves look as they do, with
/// the numbers of the parameters it was run with: change a parameter and the sentence follows.
/// The wording is kept by snapshot (`tests/golden/words/sweeps.json`) at a changed parameter of
/// each scenario (in the comments, what the sentence restates); regenerate it with
/// `UPDATE_GOLDEN=1 cargo test --release --test sweep`.
#[test]
fn every_default_sweep_explains_its_curves_from_the_parameters() {
    let cases: [(&str, &[(&str, f64)]); 7] = [
        // Up to 60 calls against a capacity of 12 per tick.
        ("retry-storm", &[("clients", 60.0), ("capacity", 12.0)]),
        // Up to 3 attempts of 800 ms.
        ("double-click", &[("retries", 2.0), ("attempt_timeout_ms", 800.0)]),
        // A→B's 1,800 ms against C's 2,500 ms of work.
        ("deadline-chain", &[("c_work_ms", 2500.0)]),
        // 20 connections at 40 /home per second: full within 500 ms, room while t < 500 ms.
        ("cascade", &[("home_rate", 40.0)]),
        // The error takes 5 ms to reach the caller's code.
        ("which-timeout", &[("error_delay_ms", 5.0)]),
        // Redelivered once the 2 min visibility timeout runs out.
        ("at-least-once", &[("visibility_timeout_ms", 120_000.0)]),
        // The fitted tail passes through 1% at the p99, whatever the p99 is set to.
        ("choosing-numbers", &[("p99_ms", 250.0)]),
    ];
    let mut said = serde_json::Map::new();
    for (id, sets) in cases {
        let spec = resilience_lab::scenarios::find(id).unwrap();
        let mut params = spec.defaults();
        for (k, v) in sets {
            params.set(k, *v);
        }
        let d = spec.sweep;
        let sweep = Sweep::new(spec, params, (d.x, d.from, d.to, d.steps), d.by, 1, &[d.metric]).unwrap();
        let reading = sweep.reading(&[]);
        assert_eq!(reading.len(), 1, "{id}: one explanation of the curves and no line yet: {reading:?}");
        let name = sets.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&");
        said.insert(format!("{id}?{name}"), Json::from(reading));
    }
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/words/sweeps.json");
    let now = serde_json::to_string_pretty(&said).unwrap() + "\n";
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&file, &now).unwrap();
    }
    let recorded =
        std::fs::read_to_string(&file).expect("record it with UPDATE_GOLDEN=1 cargo test --release --test sweep");
    assert_eq!(now, recorded, "the sweeps' explanations changed: say which sentence and why, then regenerate");
}

/// The curve's explanation reads as words and numbers at every corner of every parameter:
/// no "inf", "NaN", a number shown as "—" (how `format` shows one that is not finite), or an
/// empty sentence.
#[test]
fn sweep_explanations_hold_at_every_parameters_ends() {
    for spec in ALL {
        let d = spec.sweep;
        for p in spec.params {
            for v in [p.min, p.max] {
                let mut params = spec.defaults();
                params.set(p.id, v);
                let sweep = Sweep::new(spec, params, (d.x, d.from, d.to, d.steps), d.by, 1, &[d.metric]).unwrap();
                for sentence in sweep.reading(&[]) {
                    assert!(
                        !sentence.is_empty()
                            && !sentence.contains("inf")
                            && !sentence.contains("NaN")
                            && !sentence.contains('—'),
                        "{} {} = {v}: {sentence}",
                        spec.id,
                        p.id
                    );
                }
            }
        }
    }
}

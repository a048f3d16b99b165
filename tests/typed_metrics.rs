//! The typed metrics and words (`metrics!`, `words!`): what `run --json` prints comes from the
//! same declaration as the struct a page reads, key for key and value for value.

use resilience_lab::scenarios::{
    at_least_once::AtLeastOnce, cascade::Cascade, choosing_numbers::ChoosingNumbers, deadline_chain::DeadlineChain,
    double_click::DoubleClick, retry_storm::RetryStorm, slow_server::SlowServer, which_timeout::WhichTimeout,
};
use resilience_lab::sim::{Explain, Host, MetricSet, ScenarioSpec, Simulation, WordSet};

/// Runs `spec`'s defaults and each preset with model `M`, and checks that the typed metrics
/// serialize to the object `Simulation::metrics` gives the CLI, in the declaration's order,
/// and that the typed words are the reading.
fn same_as_declared<M: Explain>(id: &'static str) -> &'static str
where
    M::Metrics: serde::Serialize,
{
    let spec: &ScenarioSpec = resilience_lab::scenarios::find(id).expect("registered");
    // The same table by its keys: a debug build may keep a copy of a const table per codegen
    // unit, so addresses need not match.
    let keys = |table: &[resilience_lab::sim::MetricSpec]| table.iter().map(|m| m.key).collect::<Vec<_>>();
    assert_eq!(keys(spec.metrics), keys(M::Metrics::specs()), "{id}: the spec's table is the declaration's");
    let mut runs = vec![spec.defaults()];
    for preset in spec.presets {
        let mut params = spec.defaults();
        params.apply_preset(preset).expect("a declared preset applies");
        runs.push(params);
    }
    for params in runs {
        let mut host = Host::<M>::new(&params, 7, spec.duration_for(&params) * 1000);
        host.run_to_end();
        let typed = host.metrics_now();
        let keys: Vec<&str> = typed.values().iter().map(|(k, _)| *k).collect();
        let declared: Vec<&str> = spec.metrics.iter().map(|m| m.key).collect();
        assert_eq!(keys, declared, "{id}: one value per declared metric, in order");
        let json = serde_json::to_value(&typed).unwrap();
        let erased: serde_json::Map<String, serde_json::Value> =
            host.metrics().iter().map(|(k, v)| (k.to_string(), serde_json::to_value(v).unwrap())).collect();
        assert_eq!(json, serde_json::Value::Object(erased), "{id}: the struct's JSON is the CLI's");
        assert!(json.as_object().unwrap().keys().eq(declared.iter()), "{id}: the JSON keeps the declaration's order");
        assert_eq!(host.words_now().reading(), host.reading(), "{id}: the words are the reading");
    }
    id
}

/// Every registered scenario with its model type: a scenario registered and not listed here
/// fails, so a ninth is checked too.
#[test]
fn every_scenario_reports_its_declared_metrics() {
    let checked = [
        same_as_declared::<SlowServer>("slow-server"),
        same_as_declared::<Cascade>("cascade"),
        same_as_declared::<DeadlineChain>("deadline-chain"),
        same_as_declared::<RetryStorm>("retry-storm"),
        same_as_declared::<DoubleClick>("double-click"),
        same_as_declared::<WhichTimeout>("which-timeout"),
        same_as_declared::<AtLeastOnce>("at-least-once"),
        same_as_declared::<ChoosingNumbers>("choosing-numbers"),
    ];
    let registered: Vec<&str> = resilience_lab::scenarios::ALL.iter().map(|s| s.id).collect();
    assert_eq!(checked.to_vec(), registered, "every registered scenario, in the registry's order");
}

/// The frame's notice of a model limit is the words' `limit`, and only there.
#[test]
fn a_limit_is_said_where_the_frame_reads_it() {
    let spec = resilience_lab::scenarios::find("slow-server").unwrap();
    let mut params = spec.defaults();
    params.set("backlog", 10.0);
    params.set("rate", 600.0);
    let mut host = Host::<SlowServer>::new(&params, 7, 5_000_000);
    host.run_to_end();
    let words = host.words_now();
    assert!(host.metrics_now().backlog_full > 0, "the backlog overflowed");
    assert!(!words.limit().is_empty(), "the frame has a notice to show");
    assert_eq!(words.limit(), words.limit.as_deref().unwrap());
    let calm = Host::<SlowServer>::new(&spec.defaults(), 7, 1_000_000).words_now();
    assert_eq!(calm.limit(), "", "no limit, no notice");
}

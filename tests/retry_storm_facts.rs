//! The retry storm's facts (issue 24, item 2): their values at the chapter's runs, and each
//! fact and each claim the verdict and the backoff sentence make, checked against the metrics
//! of random runs. No test here reads the sentences.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use resilience_lab::scenarios::retry_storm::{
    Backoff, LinedUp, Phase, RetriesEnded, RetryStorm as Model, RetryStormFacts, SPEC,
};
use resilience_lab::sim::{Host, MS, Simulation};

#[path = "strategies/retry_storm.rs"]
mod strategies;
use strategies::any_params;

type RetryStorm = Host<Model>;

fn run(preset: &str, sets: &[(&str, &str)]) -> RetryStorm {
    let mut p = SPEC.defaults();
    p.apply_preset(SPEC.preset(preset).expect("preset exists")).unwrap();
    for (k, v) in sets {
        p.set_text(k, v).unwrap();
    }
    let mut sim = RetryStorm::new(&p, 7, SPEC.duration_for(&p) * MS);
    sim.run_to_end();
    sim
}

fn facts(sim: &RetryStorm) -> RetryStormFacts {
    sim.facts_now()
}

/// The chapter's three runs: Fixed and Exponential keep the 34 clients the outage failed
/// together in step, so they come back in waves at ×5 the capacity; jitter spreads them out.
#[test]
fn facts_of_the_chapters_runs() {
    let fixed = facts(&run("fixed", &[]));
    assert_eq!(fixed.phase, Phase::Back);
    assert_eq!((fixed.peak_after_recovery, fixed.capacity), (Some(40), 8));
    assert_eq!(fixed.peak_vs_capacity, Some(5.0));
    assert_eq!(fixed.waves, 5);
    assert_eq!(fixed.wave_starts, [6, 7, 8, 9, 10].map(|s| s * 1000 * MS));
    assert_eq!(fixed.lined_up, LinedUp::Together { calls: 34 });
    assert!(fixed.in_waves());
    assert_eq!(fixed.retries_ended, Some(RetriesEnded::At { at: 11_088_679 }));
    assert_eq!(fixed.calls_per_tick_before, Some(1.8));
    assert_eq!(fixed.load_before_vs_capacity, Some(0.225));
    assert_eq!(fixed.backoff, Backoff::Fixed);
    assert_eq!(fixed.retry_after, None);
    let exp = facts(&run("exponential", &[]));
    assert_eq!((exp.peak_after_recovery, exp.waves, exp.backoff), (Some(40), 4, Backoff::Exponential));
    assert_eq!(exp.wave_starts, [7_100, 9_100, 11_100, 13_100].map(|ms| ms * MS));
    assert!(exp.in_waves());
    let jitter = facts(&run("jitter", &[]));
    assert_eq!((jitter.peak_after_recovery, jitter.waves, jitter.over_capacity), (Some(7), 0, false));
    assert_eq!(jitter.retries_ended, Some(RetriesEnded::At { at: 7_335_559 }));
    assert!(!jitter.in_waves());
}

/// Issue 24, case 4: an outage from 0 s finds nothing in flight, so nothing lines the clients
/// up and the backoff sentence claims no waves.
#[test]
fn an_outage_from_zero_lines_nothing_up() {
    let f = facts(&run("fixed", &[("down_from_ms", "0")]));
    assert_eq!(f.lined_up, LinedUp::NothingInFlight);
    assert_eq!((f.waves, f.over_capacity, f.in_waves()), (0, false, false));
    assert_eq!(f.calls_per_tick_before, None);
}

/// The facts serialise for `run --json`, enums in kebab-case.
#[test]
fn the_facts_serialise() {
    let json = serde_json::to_value(facts(&run("fixed", &[]))).unwrap();
    assert_eq!(json["phase"], "back");
    assert_eq!(json["lined_up"], serde_json::json!({ "together": { "calls": 34 } }));
    assert_eq!(json["waves"], 5);
}

/// Each fact against the metrics, and each claim's precondition.
fn check_facts(sim: &RetryStorm) -> Result<(), TestCaseError> {
    let (f, m) = (facts(sim), sim.metrics_now());
    let ms = |us: u64| us as f64 / 1000.0;
    prop_assert_eq!(u64::from(f.capacity), m.capacity_per_tick);
    prop_assert_eq!(f.peak_after_recovery.map(u64::from), m.peak_after_recovery);
    prop_assert_eq!(f.peak_vs_capacity, m.peak_after_recovery.map(|p| p as f64 / m.capacity_per_tick as f64));
    prop_assert_eq!(f.waves, m.waves_after_recovery);
    prop_assert_eq!(f.calls_per_tick_before, m.calls_per_tick_before);
    prop_assert_eq!(f.load_before_vs_capacity, m.calls_per_tick_before.map(|b| b / m.capacity_per_tick as f64));
    prop_assert_eq!(f.waiting, sim.counts().waiting);
    // "No tick went over capacity" and "N waves went over capacity" choose on `over_capacity`.
    prop_assert_eq!(f.over_capacity, m.waves_after_recovery > 0);
    prop_assert_eq!(f.over_capacity, m.peak_after_recovery.is_some_and(|p| p > m.capacity_per_tick));
    prop_assert_eq!(f.wave_starts.len() as u64, m.waves_after_recovery.min(64));
    // "in waves" needs waves, and calls in flight that the outage failed together.
    if f.in_waves() {
        prop_assert!(m.waves_after_recovery > 0);
        let together = matches!(f.lined_up, LinedUp::Together { calls } if calls > 0);
        prop_assert!(together, "{:?}", f.lined_up);
    }
    let outage = f.down_until > f.down_from;
    prop_assert_eq!(f.lined_up == LinedUp::NoOutage, !outage);
    if outage && f.down_from == 0 {
        prop_assert_eq!(f.lined_up, LinedUp::NothingInFlight);
    }
    prop_assert_eq!(f.phase == Phase::Back, outage && m.peak_after_recovery.is_some());
    prop_assert_eq!(f.retries_ended.is_some(), m.peak_after_recovery.is_some());
    match f.retries_ended {
        Some(RetriesEnded::NoneWaiting) => prop_assert_eq!(m.recovered_ms, Some(ms(f.down_until))),
        Some(RetriesEnded::At { at }) => {
            prop_assert!(at > f.down_until);
            prop_assert_eq!(m.recovered_ms, Some(ms(at)));
        }
        Some(RetriesEnded::NotByTheEnd | RetriesEnded::NotYet) => prop_assert_eq!(m.recovered_ms, None),
        None => {}
    }
    // "Nothing has failed yet."
    if f.phase == Phase::Before {
        prop_assert_eq!(m.failed_total, 0);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The facts are the metrics' at any moment of any run, and the claims' preconditions hold.
    #[test]
    fn the_facts_agree_with_the_metrics(p in any_params(), seed in 0u64..1000, stop in 0.0f64..=1.0) {
        let end = SPEC.duration_for(&p);
        let mut sim = RetryStorm::new(&p, seed, end * MS);
        sim.advance((stop * end as f64) as u64 * MS, u64::MAX);
        check_facts(&sim)?;
        sim.run_to_end();
        check_facts(&sim)?;
    }
}

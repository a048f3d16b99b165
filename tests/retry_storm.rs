//! The retry storm (Chapter 2, Part 1): the chapter's three runs, the budget and the layers,
//! and the model's invariants.

use proptest::prelude::*;
use resilience_lab::scenarios::retry_storm::{ClientState, RetryStorm, SPEC, col};
use resilience_lab::sim::{MS, ParamKind, Params, Simulation, Value};

fn params(preset: &str, sets: &[(&str, &str)]) -> Params {
    let mut p = SPEC.defaults();
    p.apply_preset(SPEC.preset(preset).expect("preset exists")).unwrap();
    for (k, v) in sets {
        p.set_text(k, v).unwrap();
    }
    p
}

fn run_for(preset: &str, sets: &[(&str, &str)], seed: u64, duration_ms: u64) -> RetryStorm {
    let mut sim = RetryStorm::new(&params(preset, sets), seed, duration_ms * MS);
    sim.run_to_end();
    sim
}

fn run(preset: &str, sets: &[(&str, &str)], seed: u64) -> RetryStorm {
    run_for(preset, sets, seed, SPEC.default_duration_ms)
}

fn get(sim: &RetryStorm, key: &str) -> f64 {
    let metrics = sim.metrics();
    let value = &metrics.iter().find(|(k, _)| *k == key).unwrap_or_else(|| panic!("no metric {key}")).1;
    value.as_f64().unwrap_or_else(|| panic!("{key} is {value:?}"))
}

const SEEDS: std::ops::RangeInclusive<u64> = 1..=8;

/// Fixed 1 s: "all 40 clients land in one tick". About 95% of the clients are in a call when
/// the provider goes down (think 100 ms against calls of 2 s) and the rest call within the
/// same tick, so the first tick after recovery holds at least 36 attempts (tolerance: four
/// clients whose think time straddles the tick) against a capacity of 8. The 503s then come
/// back together every second: at least three waves, exactly 1 s apart.
#[test]
fn fixed_peak_is_several_times_capacity_in_repeated_waves() {
    for seed in SEEDS {
        let sim = run("fixed", &[], seed);
        let peak = get(&sim, "peak_after_recovery");
        assert!(peak >= 36.0, "seed {seed}: peak {peak}");
        assert_eq!(get(&sim, "capacity_per_tick"), 8.0);
        assert_eq!(get(&sim, "peak_after_recovery_at_ms"), 6000.0, "seed {seed}: the wave lands as the provider comes back");
        let waves = sim.waves();
        assert!(waves.len() >= 3, "seed {seed}: waves {waves:?}");
        for pair in waves.windows(2).take(3) {
            assert_eq!(pair[1].start_ms - pair[0].start_ms, 1000.0, "seed {seed}: waves {waves:?}");
        }
    }
}

/// Exponential without jitter: the same clients failed at the same instant and follow the
/// same schedule, so the wave is as tall as with fixed (backoff "just moves the spikes",
/// Break 2): well above capacity (at least 4×), later, and with waves at least 2 s apart (the
/// cap) where fixed has them 1 s apart.
#[test]
fn exponential_waves_stay_well_above_capacity_and_further_apart() {
    for seed in SEEDS {
        let exp = run("exponential", &[], seed);
        let fixed = run("fixed", &[], seed);
        let peak = get(&exp, "peak_after_recovery");
        assert!(peak >= 4.0 * 8.0, "seed {seed}: peak {peak}");
        assert!(peak <= get(&fixed, "peak_after_recovery"), "seed {seed}");
        assert!(get(&exp, "peak_after_recovery_at_ms") > get(&fixed, "peak_after_recovery_at_ms"));
        let waves = exp.waves();
        assert!(waves.len() >= 2, "seed {seed}: waves {waves:?}");
        for pair in waves.windows(2) {
            assert!(pair[1].start_ms - pair[0].start_ms >= 2000.0, "seed {seed}: waves {waves:?}");
        }
    }
}

/// Exp + jitter: the peak after recovery is near the capacity: at most 8 + 3 (how many of 40
/// spread retries share a tick is random; over 200 seeds the peak ranged up to 11) and at most
/// 8 on average over the seeds, with no wave over capacity twice in a row. The last waiting
/// client is served sooner than with fixed or exponential.
#[test]
fn jitter_peak_is_near_capacity_and_recovers_sooner() {
    let mut sum = 0.0;
    for seed in SEEDS {
        let jitter = run("jitter", &[], seed);
        let peak = get(&jitter, "peak_after_recovery");
        sum += peak;
        assert!(peak <= 11.0, "seed {seed}: peak {peak}");
        assert!(jitter.waves().iter().all(|w| w.ticks == 1), "seed {seed}: {:?}", jitter.waves());
        let recovered = get(&jitter, "recovered_ms");
        for other in ["fixed", "exponential"] {
            let r = get(&run(other, &[], seed), "recovered_ms");
            assert!(recovered < r, "seed {seed}: jitter recovered at {recovered} ms, {other} at {r} ms");
        }
    }
    let mean = sum / SEEDS.count() as f64;
    assert!(mean <= 8.0, "mean peak {mean}");
}

/// "Under a full outage, traffic grows by 10%, not by 3×." With 3 attempts per action and no
/// budget, the outage brings two retries per user call (+200%); a 10% budget holds retries to
/// about a tenth of the user calls. A 30 s outage makes the edges negligible: ± 3 points with
/// the budget (the 10 s window still holds some pre-outage traffic), ± 25 points without.
/// With the default 4 s outage the edges weigh more (the calls reset at 2 s started before it),
/// so there the bounds are looser: 12–16% against more than 150%.
#[test]
fn budget_limits_outage_growth_to_the_budget_share() {
    let long = [("max_attempts", "3"), ("down_until_ms", "32000")];
    for seed in 1..=3 {
        let with = run_for("jitter", &[long[0], long[1], ("budget_pct", "10")], seed, 40_000);
        let without = run_for("jitter", &long, seed, 40_000);
        let g = get(&with, "outage_retry_pct");
        assert!((g - 10.0).abs() <= 3.0, "seed {seed}: growth with budget {g}%");
        let g = get(&without, "outage_retry_pct");
        assert!((g - 200.0).abs() <= 25.0, "seed {seed}: growth without budget {g}%");

        let with = run("budget", &[], seed);
        let without = run("budget", &[("budget_pct", "0")], seed);
        // The preset's description promises 12–16% here.
        let g = get(&with, "outage_retry_pct");
        assert!((12.0..=16.0).contains(&g), "seed {seed}: growth with the budget preset {g}%");
        assert!(get(&without, "outage_retry_pct") > 150.0, "seed {seed}");
        assert!(get(&with, "outage_attempts") < get(&without, "outage_attempts") / 2.0);
    }
}

/// Break 5: three layers that each make 3 attempts send 3 × 3 × 3 = 27 calls for one user
/// action during the outage (the client's own loop is the top layer, so its max_attempts is 3
/// too); with two layers, 9; with one, 3. Exact: every call in the outage fails, so each
/// layer spends all its attempts.
#[test]
fn three_layers_of_three_attempts_make_27_calls_per_user_action() {
    assert_eq!(get(&run("three-layers", &[], 1), "max_calls_per_user_action"), 27.0);
    assert_eq!(get(&run("three-layers", &[("layers", "2")], 1), "max_calls_per_user_action"), 9.0);
    assert_eq!(get(&run("three-layers", &[("layers", "1")], 1), "max_calls_per_user_action"), 3.0);
    // A slower backoff does not change the count, given an outage long enough to hold it.
    let slow = run_for("three-layers", &[("mode", "exponential"), ("down_until_ms", "60000")], 2, 62_000);
    assert_eq!(get(&slow, "max_calls_per_user_action"), 27.0);
}

/// Retry-After from a provider that knows its rate sends each rejected caller to a tick with
/// room: after the first wave nobody is rejected again, and the backlog drains at capacity.
#[test]
fn retry_after_drains_the_backlog_at_capacity() {
    let sim = run("fixed", &[("retry_after", "true")], 1);
    assert_eq!(get(&sim, "waves_after_recovery"), 1.0);
    let first_wave_rejections = get(&sim, "peak_after_recovery") - 8.0;
    assert_eq!(get(&sim, "rejected_total"), first_wave_rejections);
    assert!(get(&sim, "recovered_ms") <= 6000.0 + 100.0 * (first_wave_rejections / 8.0).ceil());
}

/// The per-tick series the page charts: served never exceeds the capacity, and the outage
/// shows as failures only inside [from, until).
#[test]
fn tick_series_respect_capacity_and_outage() {
    let sim = run("fixed", &[], 3);
    let (from, until) = sim.outage();
    assert_eq!((from, until), (2000 * MS, 6000 * MS));
    let ticks = sim.ticks();
    // Each tick is recorded when the next one starts; the one starting at 19.9 s would close
    // at 20 s, the end of the run, which no run includes.
    assert_eq!(ticks.len(), 199);
    for (t, v) in ticks.times_ms.iter().zip(&ticks.values) {
        assert!(v[col::SERVED] <= 8.0, "tick {t}");
        if *t >= 2000.0 && *t < 6000.0 {
            assert_eq!(v[col::SERVED] + v[col::REJECTED], 0.0, "tick {t}");
        } else {
            assert_eq!(v[col::FAILED] + v[col::RESETS], 0.0, "tick {t}");
        }
    }
    // Everyone is waiting during the outage.
    let at_5s = ticks.times_ms.iter().position(|t| *t == 5000.0).unwrap();
    assert_eq!(ticks.values[at_5s][col::WAITING], 40.0);
}

/// Any parameters from the declared ranges, with long times kept short enough to matter in a
/// short run.
fn any_params() -> impl Strategy<Value = Params> {
    let specs = SPEC.params;
    proptest::collection::vec(0.0f64..=1.0, specs.len()).prop_map(move |fractions| {
        let mut p = SPEC.defaults();
        for (spec, f) in specs.iter().zip(fractions) {
            let v = match spec.kind {
                ParamKind::Number if spec.id.ends_with("_ms") && spec.max > 10_000.0 => {
                    spec.min + (spec.max.min(5_000.0) - spec.min) * f
                }
                ParamKind::Number if spec.id == "clients" => spec.min + 60.0 * f,
                _ => spec.at_fraction(f),
            };
            p.set(spec.id, v);
        }
        p
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Every attempt is served (succeeded or still in flight), rejected or failed, at every
    /// moment; no client ever has two calls in flight; the clients' states agree with the
    /// counts; no metric is NaN.
    #[test]
    fn attempts_are_conserved_and_one_call_per_client(p in any_params(), seed in 0u64..1000, stops in proptest::collection::vec(1u64..6_000, 1..6)) {
        let mut sim = RetryStorm::new(&p, seed, 6_000 * MS);
        let mut stops = stops;
        stops.sort_unstable();
        for t in stops.into_iter().chain([6_000]) {
            sim.advance(t * MS, u64::MAX);
            let c = sim.counts();
            prop_assert_eq!(c.attempts, c.succeeded + c.rejected + c.failed + c.in_flight);
            prop_assert!(sim.max_calls_in_flight_per_client() <= 1);
            let in_flight = sim.clients().iter().filter(|c| c.state() == ClientState::InFlight).count() as u64;
            let waiting = sim.clients().iter().filter(|c| c.state() == ClientState::WaitingToRetry).count() as u64;
            prop_assert_eq!(in_flight, c.in_flight);
            prop_assert_eq!(waiting, c.waiting);
        }
        for (key, value) in sim.metrics() {
            if let Value::Num(x) = value {
                prop_assert!(x.is_finite(), "{} = {}", key, x);
            }
        }
    }

    /// Same seed and parameters, same run: metrics and every charted tick.
    #[test]
    fn same_seed_same_run(p in any_params(), seed in 0u64..1000) {
        let mut a = RetryStorm::new(&p, seed, 4_000 * MS);
        let mut b = RetryStorm::new(&p, seed, 4_000 * MS);
        // Different step sizes must not change the run either.
        a.run_to_end();
        while !b.finished() {
            b.advance(b.now() + 37 * MS, 50);
        }
        prop_assert_eq!(a.metrics(), b.metrics());
        prop_assert_eq!(&a.ticks().values, &b.ticks().values);
        prop_assert_eq!(a.events(), b.events());
    }
}

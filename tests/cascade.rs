//! The shared-pool cascade (Chapter 1, Part 3, "The measured run"): the chapter's table row
//! by row, its seven-step timeline, and the model's invariants.

use proptest::prelude::*;
use resilience_lab::scenarios::cascade::{
    self, CHAPTER_TABLE, CascadeConfig, CascadeFacts, Cause, GUIDED_STEPS, Little, SPEC, Slot, Variant,
};
use resilience_lab::sim::{Config, Host, MS, Model, ParamKind, Simulation, Value};

#[path = "strategies/cascade.rs"]
mod strategies;
use strategies::any_params;

type Cascade = Host<cascade::Cascade>;

fn run(preset: &str, sets: &[(&str, &str)], seed: u64) -> Vec<(&'static str, Value)> {
    let mut sim = SPEC.start(&SPEC.configured(preset, sets), seed, SPEC.default_duration_ms);
    sim.run_to_end();
    sim.metrics()
}

fn get(metrics: &[(&'static str, Value)], key: &str) -> f64 {
    let value = &metrics.iter().find(|(k, _)| *k == key).unwrap_or_else(|| panic!("no metric {key}")).1;
    value.as_f64().unwrap_or_else(|| panic!("{key} is {value:?}"))
}

fn assert_near(metrics: &[(&'static str, Value)], key: &str, expected: f64, tolerance: f64) {
    let v = get(metrics, key);
    assert!((v - expected).abs() <= tolerance, "{key} = {v}, expected {expected} ± {tolerance}");
}

/// Row 1, no timeout, one shared pool: "479, growing about 48 per second; 4 of 99 (the first
/// 0.4 s); 95 failed". The load generator's timer lateness makes 50/s into about 48/s, so 479
/// /home arrive in 10 s and none ever finishes (± 3: which tick lands before 10 s depends on the
/// lateness drawn). The checkout counts are exact: 20 hung recommendations calls hold all 20
/// connections from about 0.42 s, so only the checkouts sent at 0.1 to 0.4 s get one.
#[test]
fn no_timeout_row() {
    let m = run("no-timeout", &[], 1);
    assert_near(&m, "home_in_flight_end", 479.0, 3.0);
    assert_near(&m, "home_in_flight_growth_per_s", 48.0, 1.0);
    assert_eq!(get(&m, "checkout_arrived"), 99.0);
    assert_eq!(get(&m, "checkout_ok"), 4.0);
    assert_eq!(get(&m, "checkout_failed"), 95.0);
    // "(the first 0.4 s)": the last checkout that succeeded was sent at about 0.4 s.
    assert_near(&m, "last_checkout_ok_sent_ms", 400.0, 10.0);
    // The pool is full of hung calls at about 0.42 s (the 20th /home at 20 × 20.85 ms).
    assert_near(&m, "pool_exhausted_ms", 420.0, 15.0);
    // A failed checkout waited its full 5 s (plus the timer's lateness).
    assert_near(&m, "checkout_p99_ms", 5_000.0, 5.0);
    // "It had 20 open requests the whole time": the downstream is not overloaded.
    assert_eq!(get(&m, "pool_in_use_max"), 20.0);
    assert_eq!(get(&m, "downstream_open_connections_max"), 20.0);
}

/// The row does not hinge on one seed: every seed gives 4 of 99 and 479 ± 3 in flight.
#[test]
fn no_timeout_row_holds_across_seeds() {
    for seed in 1..=12 {
        let m = run("no-timeout", &[], seed);
        assert_eq!((get(&m, "checkout_ok"), get(&m, "checkout_failed")), (4.0, 95.0), "seed {seed}");
        assert_near(&m, "home_in_flight_end", 479.0, 3.0);
    }
}

/// Row 2, 300 ms timeout on recommendations: "15, flat; 99 of 99, p99 10 ms". Little's law:
/// 48/s × (300 ms + handler, timer lateness and render, about 305 ms) = 14.6, so the count at
/// any instant is 14 or 15 (± 1). Flat: the slope over the last 5 s is within ±1 per second.
/// p99 of 99 checkouts is their maximum: 10 ms ± 1.
#[test]
fn timeout_row() {
    let m = run("timeout", &[], 1);
    assert_near(&m, "home_in_flight_end", 15.0, 1.0);
    assert_near(&m, "home_in_flight_growth_per_s", 0.0, 1.0);
    assert_eq!(get(&m, "checkout_ok"), 99.0);
    assert_eq!(get(&m, "checkout_failed"), 0.0);
    assert_near(&m, "checkout_p99_ms", 10.0, 1.0);
    // The chapter's "8 ms, fine" is the typical checkout.
    assert_near(&m, "checkout_p50_ms", 8.5, 0.5);
    // Only about 15 recommendations calls hold connections at once: the pool never fills.
    assert!(get(&m, "pool_in_use_max") < 20.0);
    assert_eq!(get(&m, "pool_waiting_max"), 0.0);
    assert_eq!(get(&m, "home_done"), get(&m, "home_arrived"));
}

/// Row 3, separate pool for recommendations, no timeout: "480, still growing; 99 of 99, p99
/// 11 ms". The /home pile-up is the same as without a fix (480 ± 3, growing 48 ± 1 per
/// second); the price pool is untouched, so checkouts are as fast as with the timeout
/// (p99 11 ± 1.5 ms: the model has no mechanism for the chapter's 1 ms difference between rows
/// 2 and 3, which is within the spread of the maximum of 99 latencies).
#[test]
fn bulkhead_row() {
    let m = run("bulkhead", &[], 1);
    assert_near(&m, "home_in_flight_end", 480.0, 3.0);
    assert_near(&m, "home_in_flight_growth_per_s", 48.0, 1.0);
    assert_eq!(get(&m, "checkout_ok"), 99.0);
    assert_eq!(get(&m, "checkout_failed"), 0.0);
    assert_near(&m, "checkout_p99_ms", 11.0, 1.5);
    // The recommendations pool is full of hung calls; the shared pool barely used.
    assert_eq!(get(&m, "recs_pool_in_use_max"), 20.0);
    assert!(get(&m, "pool_in_use_max") <= 3.0);
}

/// The p99 figures are maxima of 99 samples and vary by seed; their median over seeds sits at
/// the chapter's 10 to 11 ms (± 0.5).
#[test]
fn checkout_p99_over_seeds() {
    for preset in ["timeout", "bulkhead"] {
        let mut p99: Vec<f64> = (1..=15).map(|seed| get(&run(preset, &[], seed), "checkout_p99_ms")).collect();
        p99.sort_by(f64::total_cmp);
        let median = p99[p99.len() / 2];
        assert!((10.0..=11.5).contains(&median), "{preset}: median p99 {median} ({p99:?})");
    }
}

/// Both fixes: bounded waits and a price pool recommendations cannot touch.
#[test]
fn both_row() {
    let m = run("both", &[], 1);
    assert_near(&m, "home_in_flight_end", 15.0, 1.0);
    assert_eq!(get(&m, "checkout_ok"), 99.0);
    assert!(get(&m, "recs_pool_in_use_max") <= 16.0);
    assert!(get(&m, "pool_in_use_max") <= 3.0);
}

/// Little's law drives the flat line: doubling the timeout doubles /home in flight
/// (48/s × 0.605 s = 29, ± 1.5).
#[test]
fn timeout_in_flight_follows_littles_law() {
    let m = run("timeout", &[("recs_timeout_ms", "600")], 1);
    assert_near(&m, "home_in_flight_end", 29.0, 1.5);
    assert_near(&m, "home_in_flight_growth_per_s", 0.0, 1.0);
}

/// A timeout is not enough when the pool is smaller than what Little's law says the timed-out
/// calls hold (about 15): checkouts then queue behind recommendations calls until one times
/// out. With 12 connections the typical checkout takes several times its healthy 8.5 ms
/// (the model gives about 76 ms; asserted above 40), with 20 it does not wait at all.
#[test]
fn timeout_with_too_small_a_pool_slows_checkout() {
    let m = run("timeout", &[("pool_size", "12")], 1);
    assert!(get(&m, "checkout_p50_ms") > 40.0, "p50 {}", get(&m, "checkout_p50_ms"));
    assert_eq!(get(&m, "pool_in_use_max"), 12.0);
    assert!(get(&m, "pool_waiting_max") > 0.0);
}

/// The unbounded pool: /checkout survives, but every hung call is an open connection on the
/// downstream. With exactly paced load (no timer lateness) 499 /home arrive and hang: "500 hung
/// calls opened 500 connections" (± 2: price calls' connections come and go).
#[test]
fn unbounded_pool_moves_the_problem_downstream() {
    let m = run("unbounded-pool", &[], 1);
    assert_eq!(get(&m, "checkout_ok"), 99.0);
    let hung = get(&m, "home_in_flight_end");
    let open = get(&m, "downstream_open_connections_max");
    assert!(open >= hung && open <= hung + 3.0, "{hung} hung calls, {open} connections");

    let m = run("unbounded-pool", &[("timer_late_ms", "0")], 1);
    assert_eq!(get(&m, "home_in_flight_end"), 499.0);
    assert_near(&m, "downstream_open_connections_max", 500.0, 2.0);
}

/// Poisson arrivals tell the same story, only noisier: most checkouts fail and /home piles up
/// at about 50 per second.
#[test]
fn poisson_arrivals_same_story() {
    let m = run("no-timeout", &[("arrivals", "poisson")], 1);
    assert_near(&m, "home_in_flight_growth_per_s", 50.0, 8.0);
    assert!(get(&m, "checkout_failed") > 0.85 * get(&m, "checkout_arrived"));
}

/// Before recommendations stops answering, /home completes and nothing piles up.
#[test]
fn healthy_recommendations_then_the_cascade() {
    let m = run("no-timeout", &[("recs_stops_at_ms", "3000")], 1);
    // /home before 3 s finished; the ones after hang: about 48/s × 7 s = 335 (± 5).
    assert_near(&m, "home_in_flight_end", 335.0, 5.0);
    assert!(get(&m, "home_done") > 130.0);
    // Checkouts in the first 3.4 s succeed (34 ± 2).
    assert_near(&m, "checkout_ok", 34.0, 2.0);
}

/// The guided timeline's moments are real moments of the default run: each step's numbers are
/// what the model shows at that step's time.
#[test]
fn guided_steps_match_the_run() {
    assert_eq!(GUIDED_STEPS.len(), 7);
    assert!(GUIDED_STEPS.windows(2).all(|w| w[0].time_ms < w[1].time_ms));
    let mut sim = Cascade::new(&SPEC.defaults(), 1, SPEC.default_duration_ms * MS);
    let mut at = |i: usize| {
        sim.advance(GUIDED_STEPS[i].time_ms * MS, u64::MAX);
        let p = sim.shared_pool();
        (sim.counts(), p.in_use(), p.recs_held(), p.waiting())
    };
    // 1: "0 of 20 used".
    let (c, in_use, _, _) = at(0);
    assert_eq!((c.home_arrived, in_use), (0, 0));
    // 2: "9 in flight", "9 of 20 held by recs", checkouts fine.
    let (c, _, recs, _) = at(1);
    assert_eq!((c.home_in_flight, recs, c.checkout_failed), (9, 9, 0));
    // 3: "20 of 20 held by recs", "the 20th's price call finds no connection", 4 checkouts done.
    let (c, in_use, recs, waiting) = at(2);
    assert_eq!((c.home_in_flight, in_use, recs, c.checkout_ok), (20, 20, 20, 4));
    assert!(waiting >= 1);
    // "Just before this moment" the last connection was taken: after step 2, within 20 ms of step 3.
    let mut run = Cascade::new(&SPEC.defaults(), 1, SPEC.default_duration_ms * MS);
    run.advance(GUIDED_STEPS[2].time_ms * MS, u64::MAX);
    let full = run.shared_pool().full_of_hung_at().expect("the pool filled") / MS;
    assert!(
        full > GUIDED_STEPS[1].time_ms && full <= GUIDED_STEPS[2].time_ms && GUIDED_STEPS[2].time_ms - full <= 20,
        "{full}"
    );
    // 4: "24 in flight", the fifth checkout waits.
    let (c, _, _, waiting) = at(3);
    assert_eq!((c.home_in_flight, c.checkout_ok, c.checkout_in_flight), (24, 4, 1));
    assert!(waiting > 1);
    // 5: "264 in flight", "over 500 calls queued", the first checkout has failed.
    let (c, _, _, waiting) = at(4);
    assert_eq!((c.home_in_flight, c.checkout_failed), (264, 1));
    assert!(waiting > 500);
    // 6: "479 in flight", "4 succeeded, 45 failed, 50 still waiting".
    let (c, in_use, _, _) = at(5);
    assert_eq!((c.home_in_flight, c.checkout_ok, c.checkout_failed, c.checkout_in_flight), (479, 4, 45, 50));
    assert_eq!(in_use, 20);
    // 7: "4 of 99 succeeded, 95 failed", 479 still in flight.
    let (c, in_use, _, _) = at(6);
    assert_eq!((c.home_in_flight, c.checkout_ok, c.checkout_failed, c.checkout_in_flight), (479, 4, 95, 0));
    assert_eq!(in_use, 20);
    assert_eq!(sim.downstream_open(), 20);
}

/// The page's data: charts sampled, slots drawn per connection, outcomes per checkout.
#[test]
fn page_data_is_exposed_and_bounded() {
    let mut sim = Cascade::new(&SPEC.defaults(), 1, SPEC.default_duration_ms * MS);
    sim.run_to_end();
    let charts = sim.charts();
    assert!(charts.home_in_flight.len() > 500 && charts.home_in_flight.len() <= 1200);
    assert_eq!(charts.home_in_flight.last().unwrap().1.in_flight, 479.0);
    let checkout = charts.checkout.last().unwrap().1;
    assert_eq!((checkout.ok, checkout.failed, checkout.waiting), (4.0, 95.0, 0.0));
    let slots = sim.shared_pool().slots();
    assert_eq!(slots.len(), 20);
    assert!(slots.iter().all(|s| *s == Slot::Recs));
    assert!(sim.recs_pool().is_none());
    let log = sim.checkout_log();
    assert_eq!(log.len(), 99);
    assert_eq!(log.iter().filter(|o| o.ok).count(), 4);
    assert!(log.iter().filter(|o| o.ok).all(|o| o.sent_ms < 410.0 && o.latency_ms < 20.0));

    // A long run keeps its charts bounded.
    let mut sim = Cascade::new(&SPEC.configured("timeout", &[("load_ms", "600000")]), 1, 600_000 * MS);
    sim.run_to_end();
    assert!(sim.charts().pool.len() <= 1200);
    assert!(sim.checkout_log().len() <= 1024);
}

/// Checks the pool's bookkeeping against its slots, and its limit.
fn check_pools(sim: &Cascade) -> Result<(), TestCaseError> {
    for pool in std::iter::once(sim.shared_pool()).chain(sim.recs_pool()) {
        let slots = pool.slots();
        let busy = slots.iter().filter(|s| !matches!(s, Slot::Closed | Slot::Idle)).count() as u32;
        let open = slots.iter().filter(|s| **s != Slot::Closed).count() as u32;
        let recs = slots.iter().filter(|s| **s == Slot::Recs).count() as u32;
        prop_assert_eq!((pool.in_use(), pool.open(), pool.recs_held()), (busy, open, recs));
        if let Some(limit) = pool.limit() {
            prop_assert!(pool.in_use() <= limit && pool.open() <= limit && pool.in_use_max() <= limit);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Requests are conserved at every moment: arrived = done + failed + in flight, for both
    /// routes; and no pool ever exceeds its size.
    #[test]
    fn conservation_and_pool_limits(p in any_params(), seed in 0u64..1000, stops in proptest::collection::vec(1u64..3_000, 1..6)) {
        let mut sim = Cascade::new(&p, seed, 3_000 * MS);
        let mut stops = stops;
        stops.sort_unstable();
        for t in stops.into_iter().chain([3_000]) {
            sim.advance(t * MS, u64::MAX);
            let c = sim.counts();
            prop_assert_eq!(c.home_arrived, c.home_done + c.home_in_flight);
            prop_assert_eq!(c.checkout_arrived, c.checkout_ok + c.checkout_failed + c.checkout_in_flight);
            check_pools(&sim)?;
            let open = sim.shared_pool().open() + sim.recs_pool().map_or(0, |r| r.open());
            prop_assert_eq!(sim.downstream_open(), open);
        }
        for (key, value) in sim.metrics() {
            if let Value::Num(x) = value {
                prop_assert!(x.is_finite(), "{} = {}", key, x);
            }
        }
        let m = sim.metrics();
        let config = CascadeConfig::from_params(&p);
        if !config.unbounded_pool {
            prop_assert!(get(&m, "pool_in_use_max") <= f64::from(config.pool_size));
        }
    }

    /// Same seed and parameters, same run; small event caps reach the same end.
    #[test]
    fn same_seed_same_run(p in any_params(), seed in 0u64..1000, cap in 1u64..500) {
        let mut a = SPEC.start(&p, seed, 2_000);
        a.run_to_end();
        let mut b = SPEC.start(&p, seed, 2_000);
        while !b.finished() {
            b.advance(b.end(), cap);
        }
        prop_assert_eq!(a.metrics(), b.metrics());
        prop_assert_eq!(a.events(), b.events());
    }
}

/// The declaration is what the issue names.
#[test]
fn declaration() {
    let variant = SPEC.param("variant").unwrap();
    assert_eq!(variant.kind, ParamKind::Choice(Variant::OPTIONS));
    let ids: Vec<&str> = Variant::OPTIONS.iter().map(|o| o.id).collect();
    assert_eq!(ids, ["no-timeout", "timeout", "bulkhead", "both"]);
    for id in ["recs_timeout_ms", "pool_size", "unbounded_pool", "home_rate", "checkout_rate"] {
        assert!(SPEC.param(id).is_some(), "{id}");
    }
    for key in [
        "home_in_flight_end",
        "home_in_flight_growth_per_s",
        "checkout_ok",
        "checkout_failed",
        "checkout_p99_ms",
        "pool_in_use_max",
        "downstream_open_connections_max",
    ] {
        assert!(SPEC.metric(key).is_some(), "{key}");
    }
    for id in ["no-timeout", "timeout", "bulkhead", "both", "unbounded-pool"] {
        assert!(SPEC.preset(id).is_some(), "{id}");
    }
    let d = CascadeConfig::defaults();
    assert_eq!((d.variant, d.pool_size, d.home_rate, d.checkout_rate), (Variant::NoTimeout, 20, 50.0, 10.0));
    assert_eq!((d.recs_timeout_ms, d.checkout_timeout_ms, d.price_ms), (300.0, 5_000.0, 5.0));
}

// ---------------------------------------------------------------------------------------------
// The reading: every sentence the page shows about the run is rendered from its facts
// (`CascadeFacts`), so each test checks the facts a sentence says against the run; the chapter's
// rows are also checked word for word against the chapter's table.

fn sentence(sim: &Cascade, key: &str) -> String {
    sim.reading().into_iter().find(|(k, _)| *k == key).map(|(_, v)| v).unwrap_or_else(|| panic!("no reading {key}"))
}

fn finished(preset: &str, sets: &[(&str, &str)], seed: u64) -> Cascade {
    let p = SPEC.configured(preset, sets);
    let mut sim = Cascade::new(&p, seed, SPEC.duration_for(&p) * MS);
    sim.run_to_end();
    sim
}

/// Issue 24, case 13: a recommendations timeout longer than /checkout's own wait is named as
/// such (`recs_timeout_longer`), only where it holds, and the pool its hung calls filled is
/// told from when they filled it, not as held "at times".
#[test]
fn a_timeout_longer_than_checkouts_wait_is_named() {
    let sim = finished("timeout", &[("recs_timeout_ms", "6000")], 1);
    let f = sim.facts_now();
    assert!(f.checkout.recs_timeout_longer);
    assert_eq!((f.recs_timeout_ms, f.checkout_timeout_ms, f.shared.limit), (6_000.0, 5_000.0, Some(20)));
    assert!(f.checkout.failed_queued > 0 && f.checkout.failed == get(&sim.metrics(), "checkout_failed") as u64);
    // "From …, recommendations calls that will never be answered took all 20 connections".
    let hung = f.shared.full_of_hung_at_us.expect("hung calls filled the shared pool");
    assert_eq!(f.pool_exhausted_at_us.map(|t| t as f64 / 1000.0), sim.metrics_now().pool_exhausted_ms);
    assert!(hung >= f.recs_stops_at_us);
    assert!(!finished("timeout", &[], 1).facts_now().checkout.recs_timeout_longer);
}

/// Issue 24, case 13: with no /home traffic the verdict says so (`Cause::NoHome`), instead of
/// telling how /home waits for a recommendations service nothing calls.
#[test]
fn without_home_traffic_nothing_calls_recommendations() {
    for preset in ["no-timeout", "timeout", "bulkhead"] {
        let sim = finished(preset, &[("home_rate", "0")], 1);
        let f = sim.facts_now();
        assert_eq!((f.cause, f.little, f.home_rate), (Cause::NoHome, Little::Unexplained, 0.0), "{preset}");
        assert_eq!(get(&sim.metrics(), "home_arrived"), 0.0, "{preset}");
    }
}

/// The chapter's table, row by row, as this run's row reads at the chapter's settings.
#[test]
fn chapter_rows_read_as_the_chapter_prints_them() {
    let sim = finished("no-timeout", &[], 1);
    let m = sim.metrics();
    let n = get(&m, "home_in_flight_end");
    assert!((n - 479.0).abs() <= 3.0);
    assert_eq!(sentence(&sim, "row_label"), "This run: No timeout, one shared pool of 20");
    assert_eq!(sentence(&sim, "row_home"), format!("{n}, growing about 48 per second"));
    assert_eq!(sentence(&sim, "row_ok"), "4 of 99 (the first 0.4 s)");
    assert_eq!(sentence(&sim, "row_failed"), "95");
    assert_eq!(CHAPTER_TABLE[0].ok, "4 of 99 (the first 0.4 s)");
    assert!(std::ptr::eq(
        CascadeConfig::from_params(&SPEC.configured("no-timeout", &[])).chapter_row().unwrap(),
        &CHAPTER_TABLE[0]
    ));

    // "15, flat; 99 of 99, p99 10 ms; 0": every checkout answered within the chapter's 10-odd ms.
    let sim = finished("timeout", &[], 1);
    assert_eq!(sentence(&sim, "row_label"), "This run: 300 ms timeout on recommendations, one shared pool of 20");
    let f = sim.facts_now();
    assert!(f.home_in_flight == 15 || f.home_in_flight == 14, "{}", f.home_in_flight);
    assert!(f.home_growth_per_s.is_some_and(|g| g.abs() < 1.0), "flat: {:?}", f.home_growth_per_s);
    all_answered_within(&f, 10.0..20.0);

    // "480, still growing; 99 of 99, p99 11 ms; 0".
    let f = finished("bulkhead", &[], 1).facts_now();
    assert_eq!(f.home_growth_per_s.map(libm::round), Some(48.0));
    all_answered_within(&f, 10.0..20.0);
    // Other settings changed: the row says so, and it is no longer the chapter's row.
    let p = SPEC.configured("no-timeout", &[("home_rate", "80")]);
    assert!(CascadeConfig::from_params(&p).chapter_row().is_none());
    let mut sim = Cascade::new(&p, 1, SPEC.duration_for(&p) * MS);
    sim.run_to_end();
    assert_eq!(sentence(&sim, "row_label"), "This run: No timeout, one shared pool of 20 (also changed: /home rate)");
}

/// Every checkout succeeded and none is waiting (the row then quotes p99), a p99 in `p99`.
fn all_answered_within(f: &CascadeFacts, p99: std::ops::Range<f64>) {
    let c = &f.checkout;
    assert_eq!((c.ok, c.arrived, c.failed, c.in_flight), (99, 99, 0, 0));
    assert!(c.p99_ms.is_some_and(|p| p99.contains(&p)), "{:?}", c.p99_ms);
}

/// A 5 s timeout on recommendations is not the chapter's 300 ms: about 240 /home in flight
/// (48/s × 5 s), flat, and every checkout waits behind them (p99 about 4,620 ms, close to the
/// 5 s after which its client gives up). The facts say this run's numbers, not the chapter's
/// "15 /home in flight, flat, and /checkout is fine".
#[test]
fn reading_timeout_of_five_seconds() {
    let sim = finished("timeout", &[("recs_timeout_ms", "5000")], 1);
    let m = sim.metrics();
    assert!((get(&m, "home_in_flight_end") - 240.0).abs() <= 5.0);
    assert!((get(&m, "checkout_p99_ms") - 4_620.0).abs() <= 50.0, "{}", get(&m, "checkout_p99_ms"));
    let f = sim.facts_now();
    assert_eq!(f.home_in_flight as f64, get(&m, "home_in_flight_end"));
    assert!(f.home_growth_per_s.is_some_and(|g| g.abs() < 1.0), "flat: {:?}", f.home_growth_per_s);
    assert_eq!((f.recs_timeout_us, f.recs_timeout_ms, f.recs_pool), (Some(5_000 * MS), 5_000.0, None));
    assert_eq!(f.little, Little::TimeoutCaps);
    assert_eq!(f.checkout.p99_ms, Some(get(&m, "checkout_p99_ms")));
    assert_eq!((f.checkout.ok, f.checkout.failed), (99, 0));
    // "close to the 5 s after which the client gives up"; "… had to wait for a connection first".
    assert!(f.checkout.close_to_giving_up);
    assert_eq!(f.checkout.queued as f64, get(&m, "checkout_queued"));
    assert!(f.checkout.queued > 0);
    assert_eq!(sentence(&sim, "row_label"), "This run: 5 s timeout on recommendations, one shared pool of 20");
}

/// Recommendations that never stop within the run: nothing hangs and no checkout fails, at
/// the end or at the tour's moment, and the row names the setting changed.
#[test]
fn reading_when_recommendations_never_stop() {
    let sim = finished("no-timeout", &[("recs_stops_at_ms", "600000")], 1);
    let m = sim.metrics();
    assert_eq!((get(&m, "checkout_ok"), get(&m, "checkout_failed")), (99.0, 0.0));
    let f = sim.facts_now();
    assert_eq!((f.cause, f.checkout.failed, f.checkout.first_failed_at_us), (Cause::AnswersThroughout, 0, None));
    assert_eq!((f.shared.full_of_hung_at_us, f.pool_exhausted_at_us), (None, None));
    all_answered_within(&f, 0.0..f.checkout_timeout_ms);
    let tour = f.tour.expect("the run reached the chapter's moments");
    assert!(!tour.chapter_timeline && tour.moment.at < f.recs_stops_at_us);
    assert_eq!(tour.moment.counts.checkout_failed, 0);
    assert_eq!(
        sentence(&sim, "row_label"),
        "This run: No timeout, one shared pool of 20 (also changed: Recommendations stops at)"
    );
}

/// The unbounded pool is not the chapter's pool of 20: no pool has a limit, the verdict's
/// "… at most" is the most connections open on the downstream host, the tour tells every call
/// holding a connection of its own, and no checkout fails.
#[test]
fn reading_unbounded_pool() {
    let sim = finished("unbounded-pool", &[], 1);
    let m = sim.metrics();
    let open = get(&m, "downstream_open_connections_max");
    assert!((open - 481.0).abs() <= 5.0, "{open}");
    assert_eq!(sentence(&sim, "row_label"), "This run: No timeout, no connection limit");
    let f = sim.facts_now();
    assert!(f.unbounded_pool && f.shared.limit.is_none() && f.shared_now.limit.is_none());
    assert_eq!(f.downstream_open_max as f64, open);
    assert_eq!((f.checkout.failed, f.checkout.first_failed_at_us), (0, None));
    let tour = f.tour.expect("the run reached the chapter's moments");
    assert!(!tour.chapter_timeline && tour.moment.shared.limit.is_none());
    assert!(tour.moment.at >= f.recs_stops_at_us && tour.moment.counts.checkout_failed == 0);
}

/// The tour's "this run" lines are the run at the step's moment, not at the playing clock:
/// at 7.3 s the tour is on step 5 (5.51 s) and shows what the run had at 5.51 s.
#[test]
fn tour_lines_are_the_run_at_the_steps_moment() {
    let p = SPEC.defaults();
    let mut at_step = Cascade::new(&p, 1, SPEC.duration_for(&p) * MS);
    at_step.advance(GUIDED_STEPS[4].time_ms * MS, u64::MAX);
    let then = at_step.counts();
    let mut later = Cascade::new(&p, 1, SPEC.duration_for(&p) * MS);
    later.advance(7_300 * MS, u64::MAX);
    assert_eq!(cascade::Cascade::step_at(later.now()), 4);
    let tour = later.facts_now().tour.expect("step 5 reached");
    assert_eq!((tour.step, tour.moment.at, tour.moment.counts), (4, GUIDED_STEPS[4].time_ms * MS, then));
    assert_eq!(then.home_in_flight, 264);
    assert_ne!(later.counts().home_in_flight, then.home_in_flight);
    // The chapter's explanation only for the chapter's run.
    assert!(tour.chapter_timeline);
    assert_eq!(sentence(&later, "tour_explanation"), GUIDED_STEPS[4].explanation);
    // Another fix at the same moment: this run's own explanation, and no checkout failed by then.
    let p = SPEC.configured("timeout", &[]);
    let mut sim = Cascade::new(&p, 1, SPEC.duration_for(&p) * MS);
    sim.advance(7_300 * MS, u64::MAX);
    let tour = sim.facts_now().tour.expect("step 5 reached");
    assert!(!tour.chapter_timeline);
    assert_eq!(tour.moment.counts.checkout_failed, 0);
    assert_ne!(sentence(&sim, "tour_explanation"), GUIDED_STEPS[4].explanation);
}

/// `resilience-lab run cascade --json` carries the reading.
#[test]
fn the_run_report_carries_the_reading() {
    let sim = finished("no-timeout", &[], 1);
    let keys: Vec<&str> = sim.reading().iter().map(|(k, _)| *k).collect();
    for key in ["fix", "verdict", "row_label", "row_home", "row_ok", "row_failed", "tour_home", "tour_explanation"] {
        assert!(keys.contains(&key), "{key}");
    }
}

/// The facts the notes, the pools' lines, the fix, the row and the tour are rendered from,
/// against the model, the metrics and the configuration of the same moment; the verdict's
/// facts are checked the same way in `tests/cascade_facts.rs`.
fn check_facts(sim: &Cascade) -> Result<(), TestCaseError> {
    let (f, m, c, now) = (sim.facts_now(), sim.metrics_now(), sim.config(), sim.now());
    let ms = |us: u64| us as f64 / 1000.0;
    // The fix and the pools, as the fix, the row's label and the pools' titles restate them.
    let limit = |size: u32| (!c.unbounded_pool).then_some(size);
    prop_assert_eq!(f.unbounded_pool, c.unbounded_pool);
    prop_assert_eq!(f.shared.limit, limit(c.pool_size));
    prop_assert_eq!(f.recs_pool.map(|p| p.limit), c.variant.has_bulkhead().then(|| limit(c.recs_pool_size)));
    prop_assert_eq!(f.recs_timeout_us.map(ms), c.variant.has_timeout().then_some(c.recs_timeout_ms));
    prop_assert_eq!(
        (f.recs_timeout_ms, f.checkout_timeout_ms, f.home_rate),
        (c.recs_timeout_ms, c.checkout_timeout_ms, c.home_rate)
    );
    prop_assert_eq!(f.recs_stops_at_us, sim.recs_stops_at());
    // "stops answering" or "takes … a call" (and, from the run, the call that never returns).
    prop_assert_eq!(f.recs_slow_us.map(ms), (c.recs_latency_ms > 0.0).then_some(c.recs_latency_ms));
    if let Cause::Slow { slow_us, .. } = f.cause {
        prop_assert_eq!(Some(slow_us), f.recs_slow_us);
    }
    if matches!(f.cause, Cause::Stopped { .. }) || f.shared.full_of_hung_at_us.is_some() {
        prop_assert_eq!(f.recs_slow_us, None);
    }
    // The notes: the load's end, the first failure, the median, what is open now.
    prop_assert_eq!((f.now_us, f.load_end_us, f.end_us), (now, sim.load_end(), sim.end()));
    prop_assert_eq!(f.checkout.first_failed_at_us.map(ms), m.first_checkout_failed_ms);
    prop_assert_eq!(f.checkout.first_failed_at_us.is_some(), f.checkout.failed > 0);
    prop_assert_eq!(f.checkout.p50_ms, m.checkout_p50_ms.map(|p| (p * 10.0).round() / 10.0));
    prop_assert_eq!(u64::from(f.downstream_open_now), m.downstream_open_connections);
    prop_assert_eq!((f.shared_now, f.recs_pool_now), (sim.shared_now(), sim.recs_pool_now()));
    // The tour: the run at the chapter's moment the clock has reached, what it was then.
    let step = cascade::Cascade::step_at(now);
    let tour = f.tour.expect("the first moment is at 0");
    prop_assert_eq!(tour.step, step);
    prop_assert_eq!(Some(tour.moment), sim.moment(step, now));
    prop_assert!(tour.moment.at <= now);
    prop_assert_eq!(tour.chapter_timeline, c.is_chapter_timeline());
    prop_assert!(tour.moment.counts.checkout_failed <= f.checkout.failed);
    // The words the page shows only when there is something to show.
    let words = sim.words_now();
    prop_assert_eq!(words.recs_pool_title.is_some(), c.variant.has_bulkhead());
    prop_assert_eq!(words.tour_explanation.is_some(), f.tour.is_some());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(48) })]

    /// For random parameters anywhere in their ranges (their ends included), at a random moment
    /// and at the end, the facts every sentence is rendered from are the run's.
    #[test]
    fn every_reading_is_true_of_its_run(
        fractions in proptest::collection::vec(prop_oneof![2 => 0.0..1.0f64, 1 => Just(0.0), 1 => Just(1.0)], PARAMS_LEN),
        seed in 0u64..1000,
        stop in 0.0..1.0f64,
    ) {
        let mut p = SPEC.defaults();
        for (spec, f) in SPEC.params.iter().zip(fractions) {
            p.set(spec.id, spec.at_fraction(f));
        }
        let mut sim = Cascade::new(&p, seed, SPEC.duration_for(&p) * MS);
        let mid = (sim.end() as f64 * stop) as u64;
        sim.advance(mid, u64::MAX);
        check_facts(&sim)?;
        sim.run_to_end();
        check_facts(&sim)?;
    }
}

const PARAMS_LEN: usize = 21;

/// Node does not abort a handler's work when its client leaves: the request's 'close' event
/// fires (https://nodejs.org/api/http.html#event-close_2) and undici aborts a fetch only
/// through the `signal` it was given (undici `lib/api/api-request.js`, `lib/web/fetch/index.js`).
/// With slow price answers and a small pool, the abandoned checkouts' price calls still wait
/// for connections and use them; a handler that cancels on the close frees them.
#[test]
fn abandoned_checkouts_keep_their_price_calls_unless_the_handler_cancels() {
    let slow = |cancel: &str| {
        let sets = [
            ("recs_stops_at_ms", "600000"),
            ("home_rate", "0"),
            ("price_ms", "1000"),
            ("pool_size", "5"),
            ("checkout_timeout_ms", "1500"),
            ("cancel_on_client_close", cancel),
        ];
        let p = SPEC.configured("no-timeout", &sets);
        let mut sim = SPEC.start(&p, 7, SPEC.duration_for(&p));
        sim.run_to_end();
        sim.metrics()
    };
    let node = slow("false");
    let cancels = slow("true");
    assert!(get(&node, "checkout_abandoned_calls") > 50.0, "{}", get(&node, "checkout_abandoned_calls"));
    assert_eq!(get(&cancels, "checkout_abandoned_calls"), 0.0);
    assert!(get(&node, "pool_waiting_max") > 3.0 * get(&cancels, "pool_waiting_max"));
    // The chapter's runs come out the same either way.
    for preset in ["no-timeout", "timeout", "bulkhead"] {
        let a = run(preset, &[], 7);
        let b = run(preset, &[("cancel_on_client_close", "true")], 7);
        for key in ["checkout_ok", "checkout_failed", "home_in_flight_end"] {
            assert_eq!(get(&a, key), get(&b, key), "{preset} {key}");
        }
    }
}

// ---- Chapter 1, Break 1: a provider that takes 30 s ----

fn finished_sim(preset: &str, sets: &[(&str, &str)], seed: u64) -> Cascade {
    let p = SPEC.configured(preset, sets);
    let mut sim = Cascade::new(&p, seed, SPEC.duration_for(&p) * MS);
    sim.run_to_end();
    sim
}

/// "At 20 checkouts a second and 30 s each, that's 600 in flight instead of about 10, so the
/// outbound pool to the provider fills in under a second and every later checkout queues
/// behind it." Recommendations plays the provider: 500 ms for 10 s, then 30 s a call.
#[test]
fn break_1_a_30_s_provider_puts_600_in_flight_and_fills_the_pool_in_under_a_second() {
    for seed in [1, 7, 11] {
        let sim = finished_sim("ch1-break-1", &[], seed);
        let m = sim.metrics();
        // The paced generator's lateness makes 20/s into about 19.7/s: 30 s of slow calls.
        let in_flight = get(&m, "home_in_flight_end");
        assert!((560.0..=610.0).contains(&in_flight), "seed {seed}: {in_flight} in flight, not about 600");
        // Before the slowdown: about 20/s × 0.5 s = 10 in flight, and the pool not full.
        let series = &sim.charts().home_in_flight;
        let before = series.times_ms().iter().zip(series.rows()).filter(|(t, _)| (5_000.0..9_900.0).contains(*t));
        let (n, sum) = before.fold((0.0, 0.0), |(n, s), (_, h)| (n + 1.0, s + h.in_flight));
        assert!((8.0..=13.0).contains(&(sum / n)), "seed {seed}: {} in flight before the slowdown", sum / n);
        let full = get(&m, "pool_full_at_ms");
        assert!(full > 10_000.0 && full - 10_000.0 < 1_000.0, "seed {seed}: the pool filled at {full} ms");
        // Every later checkout queues behind it and gives up after its 5 s.
        assert!(get(&m, "checkout_failed") > 0.9 * get(&m, "checkout_arrived") - 110.0, "seed {seed}");
        assert!(get(&m, "checkout_queued") > 250.0, "seed {seed}: {}", get(&m, "checkout_queued"));
    }
}

/// The answer's fix: a 5 s timeout and a pool of its own. At most 20/s × 5 s = 100 calls wait
/// for the provider, and every checkout succeeds.
#[test]
fn break_1_a_5_s_timeout_and_its_own_pool_contain_it() {
    let sim = finished_sim("ch1-break-1-fix", &[], 7);
    let m = sim.metrics();
    let in_flight = get(&m, "home_in_flight_end");
    assert!((90.0..=105.0).contains(&in_flight), "{in_flight} in flight, not about 100");
    assert_eq!(get(&m, "checkout_failed"), 0.0);
    assert_eq!(get(&m, "checkout_ok"), get(&m, "checkout_arrived"));
    assert_eq!(metric(&m, "pool_full_at_ms"), Value::Null);
    // "Little's law asks for 100 recommendations calls": 20 /home a second, each waiting the 5 s
    // timeout rather than the 30 s call.
    let f = sim.facts_now();
    assert_eq!(f.cause, Cause::Slow { slow_us: 30_000 * MS, home_gives_up: true });
    assert_eq!((f.home_rate, f.recs_timeout_us), (20.0, Some(5_000 * MS)));
}

fn metric(m: &[(&'static str, Value)], key: &str) -> Value {
    m.iter().find(|(k, _)| *k == key).unwrap_or_else(|| panic!("no metric {key}")).1.clone()
}

/// The weak answer, "increase the timeout to 60 seconds": against a provider that does not
/// answer within it, 60 s doubles the in-flight count and the time it takes the pool to fill
/// up to it. The pool here is node:http's default agent (no limit), which grows until the
/// first timeout frees a connection; a bounded pool of 20 is full in under a second either way.
#[test]
fn break_1_a_60_s_timeout_doubles_the_in_flight_count_and_the_time_to_fill_the_pool() {
    // (when the open connections stopped growing, how many)
    let plateau = |timeout_ms: &str| {
        let sets = [
            ("variant", "timeout"),
            ("unbounded_pool", "true"),
            ("recs_stops_at_ms", "0"),
            ("recs_latency_ms", "0"),
            ("recs_timeout_ms", timeout_ms),
            ("load_ms", "100000"),
            ("checkout_rate", "0"),
        ];
        let p = SPEC.configured("ch1-break-1", &sets);
        let mut sim = Cascade::new(&p, 7, SPEC.duration_for(&p) * MS);
        let mut best = (0u64, 0.0);
        for s in 1..=95 {
            sim.advance(s * 1000 * MS, u64::MAX);
            let open = get(&sim.metrics(), "downstream_open_connections");
            if open > best.1 + 2.0 {
                best = (s, open);
            }
        }
        best
    };
    let (t30, n30) = plateau("30000");
    let (t60, n60) = plateau("60000");
    assert!((28..=31).contains(&t30) && (58..=61).contains(&t60), "filled at {t30} s and {t60} s");
    assert!((n60 / n30 - 2.0).abs() < 0.05, "{n30} then {n60} in flight");
    assert!((n30 / (19.67 * 30.0) - 1.0).abs() < 0.03, "{n30} is not 20/s × 30 s");
    // A bounded pool of 20 fills in under a second whatever the timeout.
    for timeout_ms in ["30000", "60000"] {
        let sets = [("variant", "timeout"), ("recs_latency_ms", "0"), ("recs_timeout_ms", timeout_ms)];
        let m = finished_sim("ch1-break-1", &sets, 7).metrics();
        let full = get(&m, "pool_full_at_ms") - 10_000.0;
        assert!((0.0..1000.0).contains(&full), "{timeout_ms}: filled {full} ms after the slowdown");
    }
}

/// A slow provider is not a silent one: every call is answered after the latency, none hangs.
#[test]
fn a_slow_recommendations_answers_every_call_after_its_latency() {
    let sets = [("recs_stops_at_ms", "0"), ("recs_latency_ms", "2000"), ("load_ms", "5000"), ("pool_size", "200")];
    let sim = finished_sim("no-timeout", &sets, 3);
    let m = sim.metrics();
    assert_eq!(get(&m, "home_done"), get(&m, "home_arrived"), "every /home was answered by the end");
    assert_eq!(sim.shared_now().hung, 0);
    assert_eq!(metric(&m, "pool_exhausted_ms"), Value::Null, "200 connections: 2 s × 48/s = 96 in use");
    assert_near(&m, "pool_in_use_max", 48.0 * 2.0, 8.0);
    // The chapter's run is the same with the parameter at 0.
    let chapter = run("no-timeout", &[], 1);
    assert_eq!(chapter, run("no-timeout", &[("recs_latency_ms", "0")], 1));
    // pool_full_at_ms: the pool full of anything, so no later than full of hung calls.
    assert!(get(&chapter, "pool_full_at_ms") <= get(&chapter, "pool_exhausted_ms"));
}

// ---- The figure's picture (issue 44): the pools and their lines, as the model holds them ----

mod picture {
    use super::*;
    use proptest::test_runner::TestCaseError;
    use resilience_lab::scenarios::cascade::{Holder, MOST_SLOTS_DRAWN, MOST_WAITING_DRAWN, PoolPicture, Waiter};

    /// A pool's picture against the pool: its slots, who holds them, its line.
    fn check_pool(drawn: &PoolPicture, pool: &cascade::Pool) -> Result<(), TestCaseError> {
        prop_assert_eq!(drawn.slots_total, pool.slots().len());
        prop_assert_eq!(drawn.slots.len(), pool.slots().len().min(MOST_SLOTS_DRAWN));
        for (holder, slot) in drawn.slots.iter().zip(pool.slots()) {
            let same_kind = match holder {
                Holder::Closed => *slot == Slot::Closed,
                Holder::Free => *slot == Slot::Idle,
                Holder::Recs { .. } => *slot == Slot::Recs,
                Holder::HomePrice => *slot == Slot::HomePrice,
                Holder::CheckoutPrice { .. } => *slot == Slot::CheckoutPrice,
            };
            prop_assert!(same_kind, "{:?} drawn for {:?}", holder, slot);
        }
        let held = drawn.held;
        prop_assert_eq!(held.total(), pool.in_use());
        prop_assert_eq!(held.recs_hung + held.recs, pool.recs_held());
        prop_assert_eq!(held.recs_hung, drawn.now.hung);
        prop_assert_eq!(drawn.waiting_home + drawn.waiting_checkout, pool.waiting());
        prop_assert_eq!(drawn.line.len(), (pool.waiting() as usize).min(MOST_WAITING_DRAWN));
        prop_assert!(drawn.waiting_checkout_client_gone <= drawn.waiting_checkout);
        prop_assert_eq!(drawn.full_since, pool.full_since());
        Ok(())
    }

    /// The picture at the model's present against the metrics and facts of the same moment.
    fn check(sim: &Cascade) -> Result<(), TestCaseError> {
        let (picture, m, f) = (sim.picture(sim.now()), sim.metrics_now(), sim.facts_now());
        let ms = |t: Option<u64>| t.map(|t| t as f64 / 1000.0);
        prop_assert_eq!(ms(picture.pool_full_at), m.pool_full_at_ms);
        prop_assert_eq!(ms(picture.pool_exhausted_at), m.pool_exhausted_ms);
        prop_assert_eq!(picture.home_in_flight, m.home_in_flight_now);
        prop_assert_eq!(picture.checkout_waiting, m.checkout_waiting);
        prop_assert_eq!(u64::from(picture.downstream_open), m.downstream_open_connections);
        prop_assert_eq!(picture.shared.now, f.shared_now);
        prop_assert_eq!(picture.recs_pool.as_ref().map(|p| p.now), f.recs_pool_now);
        check_pool(&picture.shared, sim.shared_pool())?;
        prop_assert_eq!(picture.recs_pool.is_some(), sim.recs_pool().is_some());
        if let (Some(drawn), Some(pool)) = (&picture.recs_pool, sim.recs_pool()) {
            check_pool(drawn, pool)?;
            prop_assert_eq!(drawn.waiting_checkout, 0, "only recommendations calls use the bulkhead");
        }
        // /checkout's price calls waiting for a connection, as the tour counts them.
        prop_assert_eq!(picture.shared.waiting_checkout, sim.moment_now(sim.now()).checkout_queued);
        let json: serde_json::Value = serde_json::from_str(&picture.drawn_json()).expect("data-drawn is JSON");
        let tenth = |x: Option<f64>| x.map(|x| (x * 10.0).round() / 10.0);
        prop_assert_eq!(json["pool_full_at_ms"].as_f64(), tenth(m.pool_full_at_ms));
        prop_assert_eq!(json["shared_now"].clone(), serde_json::to_value(f.shared_now).unwrap());
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(32) })]

        #[test]
        fn the_picture_is_the_models_state(p in any_params(), seed in 0u64..1000, stops in proptest::collection::vec(1u64..3_000, 1..5)) {
            let mut sim = Cascade::new(&p, seed, 3_000 * MS);
            let mut stops = stops;
            stops.sort_unstable();
            for t in stops.into_iter().chain([3_000]) {
                sim.advance(t * MS, u64::MAX);
                check(&sim)?;
            }
        }
    }

    /// The chapter's run at 3 s: 20 hung recommendations calls hold the whole shared pool (full
    /// from 0.4 s), and /checkout's price calls wait in its line among /home's calls.
    #[test]
    fn in_the_chapters_run_hung_calls_fill_the_pool_and_checkout_waits() {
        let mut sim = Cascade::new(&SPEC.configured("no-timeout", &[]), 1, SPEC.default_duration_ms * MS);
        sim.advance(3_000 * MS, u64::MAX);
        let picture = sim.picture(sim.now());
        let shared = &picture.shared;
        assert!(shared.full());
        assert_eq!(shared.slots, vec![Holder::Recs { hung: true }; 20]);
        assert_eq!(picture.pool_full_at, Some(398_530));
        assert!(shared.waiting_checkout >= 20, "{} checkouts in line", shared.waiting_checkout);
        assert!(shared.waiting_home > 200, "{} /home calls in line", shared.waiting_home);
        let first_checkout = shared.line.iter().position(|w| !w.for_home()).expect("a checkout in line");
        assert!(first_checkout > 0, "behind /home's calls");
        assert!(picture.recs_pool.is_none());
        let drawn = picture.drawn_json();
        assert!(
            drawn.starts_with("{\"at_ms\":3000.000,\"pool_full_at_ms\":398.5,\"pool_exhausted_ms\":419.8,"),
            "{drawn}"
        );
    }

    /// With the bulkhead the hung calls fill recommendations' own pool; the shared pool has
    /// room for price, and nobody waits in its line.
    #[test]
    fn with_a_bulkhead_the_hung_calls_fill_their_own_pool() {
        let mut sim = Cascade::new(&SPEC.configured("bulkhead", &[]), 1, SPEC.default_duration_ms * MS);
        sim.advance(3_000 * MS, u64::MAX);
        let picture = sim.picture(sim.now());
        let recs = picture.recs_pool.as_ref().expect("a pool of its own");
        assert_eq!(recs.held.recs_hung, 20);
        assert!(recs.line.iter().all(|w| *w == Waiter::Recs) && recs.line.len() > 100);
        assert!(!picture.shared.full() && picture.shared.line.is_empty());
        assert_eq!(picture.pool_full_at, None);
    }

    /// Without a limit nobody waits: every hung call opens a connection, and the picture draws
    /// the first [`MOST_SLOTS_DRAWN`] and says how many there are.
    #[test]
    fn an_unbounded_pool_draws_its_first_slots_and_counts_all() {
        let mut sim = Cascade::new(&SPEC.configured("unbounded-pool", &[]), 1, SPEC.default_duration_ms * MS);
        sim.advance(10_000 * MS, u64::MAX);
        let shared = sim.picture(sim.now()).shared;
        assert!(shared.slots_total > MOST_SLOTS_DRAWN && shared.slots.len() == MOST_SLOTS_DRAWN);
        assert!(shared.held.recs_hung > 450 && shared.line.is_empty());
        assert!(sim.picture(sim.now()).drawn_json().contains("\"capped\":true"));
    }
}

/// A parameter the fix does not read does not make the run another than the chapter's: the
/// recommendations timeout under No timeout or Separate pool, its pool size under Timeout.
#[test]
fn chapter_row_ignores_unused_parameters() {
    let row =
        |preset: &str, sets: &[(&str, &str)]| CascadeConfig::from_params(&SPEC.configured(preset, sets)).chapter_row();
    let no_timeout = CascadeConfig::from_params(&SPEC.configured("no-timeout", &[("recs_timeout_ms", "5000")]));
    assert!(std::ptr::eq(no_timeout.chapter_row().unwrap(), &CHAPTER_TABLE[0]));
    assert!(no_timeout.is_chapter_timeline());
    assert!(std::ptr::eq(row("timeout", &[("recs_pool_size", "3")]).unwrap(), &CHAPTER_TABLE[1]));
    assert!(std::ptr::eq(row("bulkhead", &[("recs_timeout_ms", "5000")]).unwrap(), &CHAPTER_TABLE[2]));
    // A parameter the fix reads still does.
    assert!(row("timeout", &[("recs_timeout_ms", "5000")]).is_none());
    assert!(row("bulkhead", &[("recs_pool_size", "3")]).is_none());
}

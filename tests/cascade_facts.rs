//! cascade's facts (issue 24, item 2): by value at the chapter's presets, and against the
//! metrics for any parameters, each claim the verdict makes with its precondition. No test here
//! reads the verdict: its choices are typed values in the facts.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use resilience_lab::scenarios::cascade::{self, CascadeFacts, Cause, Little, PoolNow, SPEC};
use resilience_lab::sim::{Host, MS, Micros, Params, Simulation};

#[path = "strategies/cascade.rs"]
mod strategies;
use strategies::any_params;

type Cascade = Host<cascade::Cascade>;

fn run(p: &Params) -> Cascade {
    let mut sim = Cascade::new(p, 7, SPEC.duration_for(p) * MS);
    sim.run_to_end();
    sim
}

fn facts_at(preset: &str, sets: &[(&str, &str)]) -> CascadeFacts {
    let sim = run(&SPEC.configured(preset, sets));
    sim.facts_now()
}

fn ms(us: Micros) -> f64 {
    us as f64 / 1000.0
}

/// Row 1: recommendations stops, nothing gives up on it, /home grows and the shared pool is full of hung calls.
#[test]
fn without_a_timeout_home_grows_and_checkouts_fail_queued() {
    let f = facts_at("no-timeout", &[]);
    assert_eq!(f.cause, Cause::Stopped { home_gives_up: false });
    assert_eq!(f.little, Little::WaitNeverEnds);
    assert!(f.shared.full_of_hung_at_us.is_some());
    assert_eq!((f.checkout.ok, f.checkout.failed), (4, 95));
    assert!(f.checkout.failed_queued > 0 && !f.checkout.recs_timeout_longer);
    // Full from when the hung calls took the last connection to the end, without a gap.
    assert_eq!(f.shared_full_since_us, f.shared.full_of_hung_at_us);
}

/// Issue 24, case 13: a 6 s recommendations timeout is longer than /checkout's 5 s, so it frees no connection in time.
#[test]
fn a_timeout_longer_than_checkouts_own_fails_the_checkouts() {
    let f = facts_at("timeout", &[("recs_timeout_ms", "6000")]);
    assert_eq!(f.cause, Cause::Stopped { home_gives_up: true });
    assert_eq!(f.checkout.failed, 95);
    assert!(f.checkout.recs_timeout_longer);
    assert!(f.recs_timeout_ms > f.checkout_timeout_ms);
    // Full for over 90% of the time since it filled, but with gaps as the 6 s timeouts fire.
    let full_at = f.pool_full_at_us.expect("the shared pool fills");
    assert!(f.shared.full_for_us * 10 > (f.now_us - full_at) * 9, "{:?}", f.shared);
    assert!(f.shared_full_since_us.is_some_and(|t| t > full_at));
    let short = facts_at("timeout", &[]);
    assert!(!short.checkout.recs_timeout_longer);
    assert_eq!(short.little, Little::TimeoutCaps);
}

#[test]
fn a_bulkhead_keeps_the_shared_pool_for_checkout() {
    let f = facts_at("bulkhead", &[]);
    let recs = f.recs_pool.expect("a recommendations pool");
    assert!(recs.full_of_hung_at_us.is_some());
    assert_eq!(f.checkout.failed, 0);
    assert_eq!(f.shared.full_of_hung_at_us, None);
}

/// Chapter 1, Break 1: recommendations slows to 30 s a call and /home waits for it.
#[test]
fn a_slow_dependency_fills_the_pool() {
    let f = facts_at("ch1-break-1", &[]);
    assert_eq!(f.cause, Cause::Slow { slow_us: 30_000 * MS, home_gives_up: false });
    assert_eq!(f.little, Little::SlowWait { wait_us: 30_000 * MS });
    assert!(f.pool_full_at_us.is_some_and(|t| t >= f.recs_stops_at_us));
    let fix = facts_at("ch1-break-1-fix", &[]);
    assert_eq!(fix.cause, Cause::Slow { slow_us: 30_000 * MS, home_gives_up: true });
}

#[test]
fn no_home_traffic_calls_nothing_and_before_play_nothing_happened() {
    let f = facts_at("no-timeout", &[("home_rate", "0")]);
    assert_eq!((f.cause, f.home_in_flight, f.little), (Cause::NoHome, 0, Little::Unexplained));
    let p = SPEC.configured("no-timeout", &[]);
    assert!(!Cascade::new(&p, 7, SPEC.duration_for(&p) * MS).facts_now().started);
}

/// What the notes, the pools' lines and the tour say at the end of the chapter's runs: without
/// a fix the shared pool is full of hung calls and the first checkout gave up at 5.5 s; with a
/// bulkhead the hung calls fill recommendations' own pool and the shared pool is idle; the tour
/// is at its last moment (15.01 s), the chapter's own explanation only for the chapter's run.
#[test]
fn facts_of_the_pools_now_and_the_tour() {
    let f = facts_at("no-timeout", &[]);
    let full_of_hung = PoolNow { limit: Some(20), in_use: 20, recs_held: 20, hung: 20, waiting: 1014, open: 20 };
    assert_eq!((f.shared_now, f.recs_pool_now, f.downstream_open_now), (full_of_hung, None, 20));
    assert_eq!(
        (f.checkout.first_failed_at_us, f.checkout.p50_ms, f.recs_slow_us),
        (Some(5_504_435), Some(5001.7), None)
    );
    let tour = f.tour.expect("the last moment");
    assert_eq!((tour.step, tour.chapter_timeline, tour.moment.at), (6, true, 15_010 * MS));
    assert_eq!((tour.moment.counts.checkout_ok, tour.moment.counts.checkout_failed), (4, 95));

    let b = facts_at("bulkhead", &[]);
    let recs = PoolNow { waiting: 459, ..full_of_hung };
    assert_eq!((b.recs_pool_now, b.shared_now.in_use, b.downstream_open_now), (Some(recs), 0, 22));
    assert_eq!((b.checkout.first_failed_at_us, b.checkout.p50_ms), (None, Some(8.4)));
    assert!(!b.tour.expect("the last moment").chapter_timeline);

    // Break 1: recommendations answers, 30 s later: nothing hangs, yet the shared pool is full.
    let slow = facts_at("ch1-break-1", &[]);
    assert_eq!(slow.recs_slow_us, Some(30_000 * MS));
    assert_eq!((slow.shared_now.in_use, slow.shared_now.hung), (20, 0));
}

/// The verdict quotes the growth and the p99 to 0.1.
fn tenth(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The numbers the verdict quotes, against the metrics.
fn check_counts(sim: &Cascade, f: &CascadeFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    prop_assert_eq!(f.home_in_flight, m.home_in_flight_end);
    prop_assert_eq!(f.home_growth_per_s, m.home_in_flight_growth_per_s.map(tenth));
    let c = &f.checkout;
    prop_assert_eq!(
        (c.arrived, c.ok, c.failed, c.in_flight),
        (m.checkout_arrived, m.checkout_ok, m.checkout_failed, m.checkout_waiting)
    );
    prop_assert_eq!((c.queued, c.failed_queued), (m.checkout_queued, m.checkout_failed_queued));
    prop_assert_eq!(c.p99_ms, m.checkout_p99_ms.map(tenth));
    prop_assert_eq!(u64::from(f.shared.in_use_max), m.pool_in_use_max);
    prop_assert_eq!(u64::from(f.shared.waiting_max), m.pool_waiting_max);
    prop_assert_eq!(f.recs_pool.map(|p| u64::from(p.in_use_max)), m.recs_pool_in_use_max);
    prop_assert_eq!(u64::from(f.downstream_open_max), m.downstream_open_connections_max);
    prop_assert_eq!(f.pool_exhausted_at_us.map(ms), m.pool_exhausted_ms);
    prop_assert_eq!(f.pool_full_at_us.map(ms), m.pool_full_at_ms);
    if let Some(t) = c.successes_first_sent_us {
        prop_assert_eq!(Some(ms(t)), m.last_checkout_ok_sent_ms);
        prop_assert!(c.ok > 0 && c.failed > 0 || m.first_checkout_failed_ms.is_some());
    }
    Ok(())
}

/// Each choice the verdict makes, and what it needs.
fn check_claims(sim: &Cascade, f: &CascadeFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    let stopped = f.now_us > f.recs_stops_at_us;
    match f.cause {
        Cause::NoHome => prop_assert!(f.home_rate <= 0.0 && m.home_arrived == 0),
        Cause::AnswersThroughout => prop_assert!(f.recs_stops_at_us >= f.end_us),
        Cause::NotYet => prop_assert!(!stopped),
        Cause::Slow { slow_us, home_gives_up } => {
            prop_assert!(stopped && f.home_rate > 0.0);
            prop_assert_eq!(home_gives_up, f.recs_timeout_us.is_some_and(|t| t < slow_us));
        }
        Cause::Stopped { home_gives_up } => {
            prop_assert!(stopped && f.home_rate > 0.0);
            prop_assert_eq!(home_gives_up, f.recs_timeout_us.is_some());
        }
    }
    let growth = f.home_growth_per_s.unwrap_or(0.0);
    let slow = matches!(f.cause, Cause::Slow { .. });
    match f.little {
        Little::Unexplained => {}
        Little::SlowWait { .. } => prop_assert!(growth >= 1.0 && slow),
        Little::WaitNeverEnds => prop_assert!(growth >= 1.0 && f.recs_timeout_us.is_none()),
        Little::TimeoutCaps => prop_assert!(growth.abs() < 1.0 && f.recs_timeout_us.is_some() && f.home_in_flight > 0),
    }
    let c = &f.checkout;
    if c.recs_timeout_longer {
        prop_assert!(f.recs_timeout_ms > f.checkout_timeout_ms && c.failed_queued > 0 && c.failed > 0);
    }
    if c.close_to_giving_up {
        prop_assert!(c.p99_with_waiting_ms.is_some_and(|p| p >= 0.8 * f.checkout_timeout_ms));
    }
    // Full throughout only if it filled, and never full longer than since it first filled.
    match f.pool_full_at_us {
        Some(t) => {
            prop_assert!(f.shared.full_for_us <= f.now_us - t);
            let since = f.shared_full_since_us.unwrap_or(f.now_us);
            prop_assert!(since >= t && f.shared.full_for_us >= f.now_us - since);
        }
        None => prop_assert!(f.shared.full_for_us == 0 && f.shared_full_since_us.is_none()),
    }
    if let Some(t) = f.shared.full_of_hung_at_us {
        prop_assert!(f.pool_exhausted_at_us.is_some_and(|e| e <= t) && t >= f.recs_stops_at_us);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(32) })]

    /// At the end of a run of any parameters, and part-way through it.
    #[test]
    fn every_fact_matches_the_metrics(p in any_params(), part in 0.0..1.0f64) {
        let end = SPEC.duration_for(&p) * MS;
        let mut sim = Cascade::new(&p, 7, end);
        sim.advance((end as f64 * part) as Micros, u64::MAX);
        for _ in 0..2 {
            let f = sim.facts_now();
            check_counts(&sim, &f)?;
            check_claims(&sim, &f)?;
            sim.run_to_end();
        }
    }
}

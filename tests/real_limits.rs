//! Issue 47, item 2: at the ends of every range, the real system's limit. A parameter whose
//! formula can run past a real cap (a timer, a doubling backoff) is checked at its range's ends
//! against the cap the real system has, named with its source. Each model's docs list which
//! parameters were checked and against what ("The real limits at the ends of the ranges").

use resilience_lab::scenarios::{ALL, choosing_numbers, retry_storm};
use resilience_lab::sim::{Host, MS, Micros, Params, ScenarioSpec, Simulation};

/// Node's largest timer: `setTimeout` with more fires after 1 ms instead
/// (`TIMEOUT_MAX` = 2^31 − 1 in `lib/internal/timers.js`).
const NODE_TIMEOUT_MAX_MS: f64 = 2_147_483_647.0;

/// undici's `RetryHandler`: waits double from 500 ms and stop at `maxTimeout`, 30 s by default
/// (undici's docs/api/RetryHandler.md).
const UNDICI_RETRY_MAX_TIMEOUT_MS: f64 = 30_000.0;

fn set(spec: &ScenarioSpec, sets: &[(&str, &str)]) -> Params {
    let mut p = spec.defaults();
    for (k, v) in sets {
        p.set_text(k, v).unwrap_or_else(|e| panic!("{k}: {e}"));
    }
    p
}

/// Every millisecond setting is a timer in a Node process, and fits in one, but at-least-once's
/// dedupe window: how long the dedupe store keeps an ID (a table's rows, swept by a job, or
/// Redis's `PX`, which takes any positive 64-bit count), up to 30 days.
#[test]
fn every_millisecond_setting_fits_in_a_node_timer() {
    let store_ttls = [("at-least-once", "dedupe_window_ms")];
    let mut checked = 0;
    for spec in ALL {
        for p in spec.params.iter().filter(|p| p.unit == "ms" && !store_ttls.contains(&(spec.id, p.id))) {
            assert!(p.max <= NODE_TIMEOUT_MAX_MS, "{}: {} goes to {} ms", spec.id, p.id, p.max);
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked} settings checked");
}

/// retry-storm's exponential backoff doubles from `base_ms` with every failure and stops at
/// `cap_ms`, whose top (120 s) is gRPC's `MAX_BACKOFF`. At the ranges' ends, 20 attempts from a
/// 10 s base against a provider down all run, no client waits longer than the cap, and some
/// wait exactly that long: the doubling reached it.
#[test]
fn retry_storm_backoff_stops_at_its_cap_at_the_ranges_ends() {
    let spec = &retry_storm::SPEC;
    let top = |id: &str| spec.params.iter().find(|p| p.id == id).expect("declared").max;
    let (base, cap, attempts) = (top("base_ms"), top("cap_ms"), top("max_attempts"));
    assert_eq!((base, cap, attempts), (10_000.0, 120_000.0, 20.0));
    let p = set(
        spec,
        &[
            ("mode", "exponential"),
            ("base_ms", "10000"),
            ("cap_ms", "120000"),
            ("max_attempts", "20"),
            ("down_from_ms", "0"),
            ("down_until_ms", "600000"),
        ],
    );
    let mut sim = Host::<retry_storm::RetryStorm>::new(&p, 7, 600_000 * MS);
    let (mut longest, mut waits) = (0 as Micros, 0u64);
    while !sim.finished() {
        let next = sim.now() + 1_000 * MS;
        sim.advance(next, u64::MAX);
        for (from, to) in sim.clients().iter().filter_map(|c| c.backoff()) {
            longest = longest.max(to - from);
            waits += 1;
        }
    }
    assert!(waits > 0, "clients waited to retry");
    assert_eq!(longest, 120_000 * MS, "the longest wait is the cap, never more");
}

/// choosing-numbers' retry doubles from `backoff_ms` with no cap of its own. At the ends of its
/// ranges (1,000 ms, 5 attempts, no jitter), a call whose every attempt times out waits
/// 1 + 2 + 4 + 8 s between its attempts: the longest, 8 s, is below undici's 30 s cap.
#[test]
fn choosing_numbers_longest_backoff_is_below_undicis_cap() {
    let spec = &choosing_numbers::SPEC;
    let top = |id: &str| spec.params.iter().find(|p| p.id == id).expect("declared").max;
    let (backoff, attempts) = (top("backoff_ms"), top("max_attempts"));
    assert_eq!((backoff, attempts), (1_000.0, 5.0));
    let p = set(
        spec,
        &[
            ("backoff_ms", "1000"),
            ("max_attempts", "5"),
            ("jitter_pct", "0"),
            ("timeout_ms", "10"),
            ("p50_ms", "2000"),
            ("p99_ms", "10000"),
            ("p999_ms", "20000"),
            ("deadline_ms", "0"),
            ("fan_out", "1"),
            ("sequential_calls", "1"),
        ],
    );
    let mut sim = Host::<choosing_numbers::ChoosingNumbers>::new(&p, 7, spec.duration_for(&p) * MS);
    sim.run_to_end();
    let waits: Vec<f64> = (0..attempts as i32 - 1).map(|k| backoff * 2f64.powi(k)).collect();
    assert_eq!(waits, [1_000.0, 2_000.0, 4_000.0, 8_000.0]);
    let worst = sim.metrics_now().worst_wait_ms.as_f64().expect("a call ended");
    assert_eq!(worst, attempts * 10.0 + waits.iter().sum::<f64>(), "five timed-out attempts and their four waits");
    assert!(waits.iter().all(|&w| w <= UNDICI_RETRY_MAX_TIMEOUT_MS));
}

//! The timeline's axis comes from the settings, not from the run on screen, so that switching
//! fixes or presets does not rescale it: `DoubleClick::last_moment_bound_ms` must bound every
//! run, and stay close enough to the chapter's runs to keep them legible.

use super::breaks::{joined, provider_settings};
use super::*;
use resilience_lab::scenarios::double_click::{DoubleClick as Model, FirstTxn};
use resilience_lab::sim::Model as _;
use resilience_lab::sim::rng::ms_to_us;

/// The last moment the timeline draws (ms): the last thing that happened, or the last
/// attempt's timeout (drawn even when an answer came first).
fn last_shown(sim: &DoubleClick) -> f64 {
    let timeout = ms_to_us(sim.config().attempt_timeout_ms).max(1);
    let said = sim.happenings(sim.now()).last().map_or(0, |h| h.at);
    let timers = sim.timeline().attempts.iter().map(|a| a.start + timeout).max().unwrap_or(0);
    said.max(timers) as f64 / MS as f64
}

fn bound(p: &Params) -> f64 {
    Model::last_moment_bound_ms(&DoubleClickConfig::from_params(p))
}

#[test]
fn every_preset_under_every_fix_ends_within_the_bound() {
    for preset in SPEC.presets {
        let variants: [&[(&str, &str)]; 3] =
            [&[], &[("retries", "0")], &[("retries", "0"), ("first_txn", "rolls-back")]];
        for (fix, set) in Fix::ALL.iter().flat_map(|f| variants.iter().map(move |v| (f, v))) {
            let p = SPEC.configured(preset.id, &[&[("fix", fix.id())], *set].concat());
            for seed in SEEDS {
                let mut sim = DoubleClick::new(&p, seed, SETTLE);
                sim.run_to_end();
                let (last, b) = (last_shown(&sim), bound(&p));
                assert!(
                    last <= b,
                    "{} with fix {} {set:?}, seed {seed}: {last} ms after the bound {b}",
                    preset.id,
                    fix.id()
                );
            }
        }
    }
}

/// The chapter's None, Disable and Key share one axis, about as long as None's run (3.44 s).
#[test]
fn the_chapters_three_fixes_share_an_axis_close_to_the_longest_run() {
    let axis: Vec<f64> = ["double-click", "disable", "key"]
        .iter()
        .map(|id| Model::last_moment_any_fix_ms(&DoubleClickConfig::from_params(&SPEC.configured(id, &[]))))
        .collect();
    assert!(axis.iter().all(|a| *a == axis[0]), "{axis:?}");
    let none = run(&SPEC.configured("double-click", &[]), 1);
    assert!(axis[0] >= last_shown(&none) && axis[0] < last_shown(&none) + 200.0, "{axis:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Any setting and seed: nothing the timeline shows comes after the bound.
    #[test]
    fn nothing_is_shown_after_the_bound(t in timings(), extra in provider_settings(), seed in any::<u64>(),
                                        fix in fix_name(), amount in any::<bool>(), rollback in any::<bool>()) {
        let mut p = joined(&t, &extra, fix);
        p.set_text("amount_changes", &amount.to_string()).unwrap();
        p.set_text("first_txn", if rollback { FirstTxn::RollsBack.id() } else { FirstTxn::Commits.id() }).unwrap();
        let mut sim = DoubleClick::new(&p, seed, SETTLE);
        sim.run_to_end();
        prop_assert!(last_shown(&sim) <= bound(&p), "{} ms after the bound {}", last_shown(&sim), bound(&p));
    }
}

/// A rollback frees the key to the request waiting on it, which then runs its own charge: the
/// bound holds two runs of the handler after the last attempt.
#[test]
fn a_waiter_that_takes_over_after_a_rollback_is_within_the_bound() {
    let p = SPEC.configured("rollback-external", &[("retries", "0"), ("handler_ms", "3000")]);
    let sim = run(&p, 1);
    assert!(last_shown(&sim) > 6000.0, "the second charge commits after 6 s: {}", last_shown(&sim));
    assert!(last_shown(&sim) <= bound(&p));
}

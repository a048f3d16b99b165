//! deadline-chain's facts (issue 24, item 2): by value at the chapter's presets, and against the
//! metrics for any parameters, each claim the verdict makes with its precondition. No test here
//! reads the verdict: its choices are typed values in the facts.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use resilience_lab::scenarios::deadline_chain::{
    self, CWork, DeadlineChainFacts, Party, Reason, SPEC, StoppedWaiting, UserGot,
};
use resilience_lab::sim::{Host, MS, Micros, Params, Simulation};

type DeadlineChain = Host<deadline_chain::DeadlineChain>;

/// Long enough for everything to end: the largest work and timeouts add up to about 30 s.
const PROP_RUN_MS: u64 = 45_000;

fn params(preset: &str) -> Params {
    let mut p = SPEC.defaults();
    if !preset.is_empty() {
        p.apply_preset(SPEC.preset(preset).expect("preset exists")).expect("preset applies");
    }
    p
}

fn facts_at(preset: &str) -> DeadlineChainFacts {
    let p = params(preset);
    let mut sim = DeadlineChain::new(&p, 7, SPEC.duration_for(&p) * MS);
    sim.run_to_end();
    sim.facts_now()
}

fn ms(us: Micros) -> f64 {
    us as f64 / 1000.0
}

/// Fixed timeouts: A's 504 comes after the user's budget ran out, and C commits for nobody,
/// counted from the moment the budget ran out.
#[test]
fn with_fixed_timeouts_c_commits_for_nobody() {
    let f = facts_at("fixed");
    assert!(matches!(f.user, UserGot::Answered { status: 504, origin: Party::Hop(0), in_budget: false, .. }));
    assert_eq!(
        (f.user_stopped_at_us, f.user_stopped_why),
        (Some(f.user_budget_us), Some(StoppedWaiting::BudgetRanOut))
    );
    let CWork::Committed { at_us, for_nobody_by_us: Some(by) } = f.c_work else { panic!("{:?}", f.c_work) };
    assert_eq!(by, at_us - f.user_budget_us);
    // One anchor: the work for nobody is C's, counted from the same moment.
    assert_eq!(f.wasted_ms, (ms(by) * 10.0).round() / 10.0);
}

/// A propagated budget: B's 504 within the budget, and C stops when its caller leaves.
#[test]
fn a_propagated_budget_stops_c_in_time() {
    let f = facts_at("propagated");
    assert!(matches!(f.user, UserGot::Answered { status: 504, origin: Party::Hop(1), in_budget: true, .. }));
    assert!(matches!(f.c_work, CWork::Stopped { why: Reason::CallerLeft, .. }), "{:?}", f.c_work);
    assert_eq!(f.b_gave_up.map(|g| g.why), Some(Reason::Deadline));
    assert_eq!(f.wasted_ms, 0.0);
    let every = facts_at("every-hop");
    assert!(matches!(every.c_work, CWork::Stopped { why: Reason::Deadline, .. }), "{:?}", every.c_work);
    assert_eq!(every.commit_window_us, None);
}

/// Chapter 1, Break 3: the browser gives up first; C commits in the window anyway.
#[test]
fn when_the_browser_gives_up_first_c_commits_in_the_window() {
    for preset in ["wrong-order", "ch1-break-3", "ch1-break-3-follow-up"] {
        let f = facts_at(preset);
        let UserGot::BrowserGaveUp { at_us } = f.user else { panic!("{preset}: {:?}", f.user) };
        // The budget ran out a moment before the browser closed: that is when the user stopped waiting.
        assert!(f.user_stopped_at_us.is_some_and(|s| s <= at_us), "{preset}");
        assert!(matches!(f.c_work, CWork::Committed { for_nobody_by_us: Some(_), .. }), "{preset}");
        assert!(f.commit_window_us.is_some(), "{preset}");
    }
}

#[test]
fn before_play_the_request_is_on_its_way() {
    let p = params("fixed");
    let sim = DeadlineChain::new(&p, 7, SPEC.duration_for(&p) * MS);
    let f = sim.facts_now();
    assert_eq!((f.user, f.user_stopped_at_us, f.c_work), (UserGot::NotStarted, None, CWork::NotCalledYet));
}

fn any_params() -> impl Strategy<Value = (Params, u64)> {
    let fraction = prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0f64];
    (prop::collection::vec(fraction, SPEC.params.len()), any::<u64>()).prop_map(|(fractions, seed)| {
        let mut p = SPEC.defaults();
        for (spec, f) in SPEC.params.iter().zip(fractions) {
            p.set(spec.id, spec.at_fraction(f));
        }
        (p, seed)
    })
}

/// Who answered, who gave up, and when the user stopped waiting, against the metrics.
fn check_user(sim: &DeadlineChain, f: &DeadlineChainFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    prop_assert_eq!(f.a_gave_up.map(|g| ms(g.at_us)), m.a_gives_up_ms);
    prop_assert_eq!(f.b_gave_up.map(|g| ms(g.at_us)), m.b_gives_up_ms);
    match f.user {
        UserGot::Answered { status, origin, at_us, in_budget, late_by_us } => {
            prop_assert_eq!(Some(ms(at_us)), m.user_answer_ms);
            prop_assert_eq!(Some(i64::from(status)), m.user_status);
            prop_assert_eq!(origin.name(), m.user_answer_from.as_str());
            prop_assert_eq!(Some(in_budget), m.user_in_budget);
            prop_assert_eq!(late_by_us, at_us.saturating_sub(f.user_budget_us));
        }
        UserGot::BrowserGaveUp { at_us } => {
            prop_assert!(m.user_answer_ms.is_none());
            prop_assert_eq!(Some(ms(at_us)), m.user_gave_up_ms);
        }
        UserGot::NotStarted => prop_assert_eq!(f.now_us, 0),
        UserGot::BudgetRanOut => prop_assert!(m.user_answer_ms.is_none() && f.now_us >= f.user_budget_us),
        UserGot::Waiting => prop_assert!(m.user_answer_ms.is_none() && f.now_us < f.user_budget_us),
    }
    // The one anchor: an answer in budget, the browser giving up, or the budget running out, whichever came first.
    let answered_in_budget = matches!(f.user, UserGot::Answered { in_budget: true, .. });
    match f.user_stopped_why {
        Some(StoppedWaiting::Answered) => prop_assert!(answered_in_budget),
        Some(StoppedWaiting::BrowserGaveUp) => prop_assert_eq!(f.user_stopped_at_us.map(ms), m.user_gave_up_ms),
        Some(StoppedWaiting::BudgetRanOut) => prop_assert_eq!(f.user_stopped_at_us, Some(f.user_budget_us)),
        None => prop_assert!(f.user_stopped_at_us.is_none() && f.wasted_ms == 0.0),
    }
    Ok(())
}

/// What C's work came to, and "for nobody" only after the user stopped waiting.
fn check_c(sim: &DeadlineChain, f: &DeadlineChainFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    // The verdict quotes it to 0.1 ms, as the card shows it.
    prop_assert_eq!(f.wasted_ms, (m.wasted_work_ms * 10.0).round() / 10.0);
    prop_assert_eq!(f.commit_window_us.map(ms), m.commit_window_ms);
    match f.c_work {
        CWork::Committed { at_us, for_nobody_by_us } => {
            prop_assert_eq!(m.c_outcome.as_str(), "committed");
            prop_assert_eq!(Some(ms(at_us)), m.c_end_ms);
            if let Some(by) = for_nobody_by_us {
                let stop = f.user_stopped_at_us.expect("for nobody needs the user gone");
                prop_assert!(by > 0 && stop + by == at_us && f.wasted_ms > 0.0);
            }
        }
        CWork::Stopped { at_us, .. } => {
            prop_assert_eq!(m.c_outcome.as_str(), "stopped");
            prop_assert_eq!(Some(ms(at_us)), m.c_end_ms);
        }
        CWork::Working => prop_assert_eq!(m.c_outcome.as_str(), "working"),
        CWork::NeverCalled | CWork::NotCalledYet => prop_assert_eq!(m.c_outcome.as_str(), "not called"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(48) })]

    /// At the end of a run of any parameters, and part-way through it.
    #[test]
    fn every_fact_matches_the_metrics((p, seed) in any_params(), part in 0.0..1.0f64) {
        let end = PROP_RUN_MS * MS;
        let mut sim = DeadlineChain::new(&p, seed, end);
        sim.advance((end as f64 * part) as Micros, u64::MAX);
        for _ in 0..2 {
            let f = sim.facts_now();
            check_user(&sim, &f)?;
            check_c(&sim, &f)?;
            sim.run_to_end();
        }
    }
}

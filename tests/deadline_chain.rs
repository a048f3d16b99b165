//! The deadline-chain scenario: Chapter 1 Part 4's table, and the invariants of the model.

use proptest::prelude::*;
use resilience_lab::scenarios::deadline_chain::{DeadlineChain, MarkKind, MsgKind, Party, Phase, Reason, SPEC, WorkOutcome};
use resilience_lab::sim::{MS, Micros, ParamKind, Params, Simulation, Value};

/// Tolerance for the chapter's figures, in ms. The chapter's own figures disagree with each
/// other by 6 ms: in both runs B's wait on C starts when B calls C, so B's two give-up times
/// must differ by 2,000 − 1,448 = 552 ms, but the table says 2,509 − 1,963 = 546 ms. No choice
/// of delays meets both within less than 3 ms; the defaults split the difference, and every
/// figure comes out within 3.5 ms.
const TOL_MS: f64 = 4.0;

fn params(preset: &str, sets: &[(&str, &str)]) -> Params {
    let mut p = SPEC.defaults();
    p.apply_preset(SPEC.preset(preset).expect("preset exists")).expect("preset applies");
    for (k, v) in sets {
        p.set_text(k, v).expect("valid setting");
    }
    p
}

fn run(p: &Params, seed: u64, duration_ms: u64) -> DeadlineChain {
    let mut sim = DeadlineChain::new(p, seed, duration_ms * MS);
    sim.run_to_end();
    sim
}

fn metric(sim: &DeadlineChain, key: &str) -> Value {
    sim.metrics().into_iter().find(|(k, _)| *k == key).unwrap_or_else(|| panic!("no metric {key}")).1
}

fn num(sim: &DeadlineChain, key: &str) -> f64 {
    metric(sim, key).as_f64().unwrap_or_else(|| panic!("{key} has no number"))
}

fn text(sim: &DeadlineChain, key: &str) -> String {
    match metric(sim, key) {
        Value::Text(t) => t,
        other => panic!("{key} is not text: {other:?}"),
    }
}

fn assert_near(sim: &DeadlineChain, key: &str, chapter: f64) {
    let got = num(sim, key);
    assert!((got - chapter).abs() <= TOL_MS, "{key}: model {got} ms, chapter {chapter} ms (±{TOL_MS})");
}

#[test]
fn fixed_timeouts_give_the_chapters_row() {
    let sim = run(&params("fixed", &[]), 1, 4000);
    // "A answers the user: 504 at 2,004 ms".
    assert_near(&sim, "user_answer_ms", 2004.0);
    assert_eq!(num(&sim, "user_status"), 504.0);
    assert_eq!(text(&sim, "user_answer_from"), "A");
    // "B gives up on C: 2,509 ms, after the user already left".
    assert_near(&sim, "b_gives_up_ms", 2509.0);
    assert!(num(&sim, "b_gives_up_ms") > num(&sim, "user_answer_ms"));
    // "C's 3 s of work: finished and committed at 3,510 ms, for nobody".
    assert_near(&sim, "c_end_ms", 3510.0);
    assert_eq!(text(&sim, "c_outcome"), "committed");
    assert_eq!(sim.lanes()[1].answered.and_then(|a| a.heard), Some(false), "B's 504 reaches nobody");
    assert_eq!(sim.lanes()[2].answered.and_then(|a| a.heard), Some(false), "C's 200 reaches nobody");
    // Nothing travels: no header, so no budget told.
    assert_eq!(metric(&sim, "c_budget_told_ms"), Value::Null);
    // C's work from the user's answer to its commit, about 1.5 s, was for nobody.
    let waste = num(&sim, "c_end_ms") - num(&sim, "user_answer_ms");
    assert!((num(&sim, "wasted_work_ms") - waste).abs() < 0.2, "waste is C's work after the answer");
    assert!(waste > 1400.0);
}

#[test]
fn propagated_budget_gives_the_chapters_row() {
    let sim = run(&params("propagated", &[]), 1, 4000);
    // "A answers the user: 504 at 1,966 ms, from B".
    assert_near(&sim, "user_answer_ms", 1966.0);
    assert_eq!(num(&sim, "user_status"), 504.0);
    assert_eq!(text(&sim, "user_answer_from"), "B");
    assert_eq!(metric(&sim, "user_in_budget"), Value::Bool(true));
    // "B gives up on C: 1,963 ms", at its own deadline.
    assert_near(&sim, "b_gives_up_ms", 1963.0);
    assert_eq!(sim.lanes()[1].gave_up.map(|g| g.1), Some(Reason::Deadline));
    // "C was told it had 1,448 ms when it started" (the model gives exactly 1,448).
    assert_near(&sim, "c_budget_told_ms", 1448.0);
    // "Stopped at 1,966 ms ('caller left')".
    assert_near(&sim, "c_end_ms", 1966.0);
    assert_eq!(text(&sim, "c_outcome"), "stopped");
    assert_eq!(sim.lanes()[2].work_outcome, Some(WorkOutcome::Stopped(Reason::CallerLeft)));
    // Nobody worked on after the user had the answer.
    assert!(num(&sim, "wasted_work_ms") <= 0.1);
}

#[test]
fn with_no_small_delays_the_round_numbers_come_out() {
    let zero = [("net_ms", "0"), ("handling_ms", "0"), ("timer_late_ms", "0"), ("abort_ms", "0")];
    let fixed = run(&params("fixed", &zero), 1, 4000);
    assert_eq!(num(&fixed, "user_answer_ms"), 2000.0);
    assert_eq!(num(&fixed, "b_gives_up_ms"), 2500.0);
    assert_eq!(num(&fixed, "c_end_ms"), 3500.0);
    let propagated = run(&params("propagated", &zero), 1, 4000);
    assert_eq!(num(&propagated, "c_budget_told_ms"), 1450.0, "2,000 − 50 − 200 − 300");
    assert_eq!(num(&propagated, "b_gives_up_ms"), 1950.0);
    assert_eq!(num(&propagated, "c_end_ms"), 1950.0);
    // Each millisecond of timer lateness on A's and B's work comes off what C is told.
    let late = run(&params("propagated", &[("timer_late_ms", "3")]), 1, 4000);
    assert_eq!(num(&late, "c_budget_told_ms"), 1444.0);
}

#[test]
fn timeouts_in_the_wrong_order_answer_nobody() {
    let sim = run(&params("wrong-order", &[]), 1, 4000);
    // The browser, the outermost limit, gives up first and hears nothing.
    assert_eq!(text(&sim, "user_answer_from"), "none");
    assert_eq!(metric(&sim, "user_status"), Value::Null);
    assert!((num(&sim, "user_gave_up_ms") - 2000.0).abs() <= TOL_MS);
    // A gives up on B later, and its 504 goes to nobody.
    let a = &sim.lanes()[0];
    assert!(a.gave_up.is_some_and(|(t, _)| t > 3000 * MS));
    assert_eq!(a.answered.and_then(|x| x.heard), Some(false));
    // C commits; B relays its 200 to an A that has left.
    assert_eq!(text(&sim, "c_outcome"), "committed");
    assert_eq!(sim.lanes()[1].answered.map(|x| (x.status, x.heard)), Some((200, Some(false))));
    assert!(num(&sim, "wasted_work_ms") > 1400.0);
}

#[test]
fn fixed_timeouts_in_the_right_order_still_waste_cs_work() {
    let sim = run(&params("ordered", &[]), 1, 4000);
    assert_eq!(text(&sim, "user_answer_from"), "B");
    assert!(num(&sim, "user_answer_ms") < 2000.0);
    // Without cancellation C still commits for nobody.
    assert_eq!(text(&sim, "c_outcome"), "committed");
    assert!(num(&sim, "wasted_work_ms") > 1500.0);
}

#[test]
fn the_middleware_at_every_hop_stops_c_at_its_own_deadline() {
    let sim = run(&params("every-hop", &[]), 1, 4000);
    // Two reserves in the chain now: C is told 50 ms less than in the chapter's run.
    assert!((num(&sim, "c_budget_told_ms") - 1398.0).abs() <= 1.0);
    assert_eq!(sim.lanes()[2].work_outcome, Some(WorkOutcome::Stopped(Reason::Deadline)));
    assert_eq!(text(&sim, "user_answer_from"), "C");
    assert_eq!(num(&sim, "user_status"), 504.0);
    assert!(num(&sim, "user_answer_ms") < num(&run(&params("propagated", &[]), 1, 4000), "user_answer_ms"));
}

#[test]
fn a_generous_budget_lets_c_answer_200() {
    let sim = run(&params("propagated", &[("user_budget_ms", "5000"), ("a_to_b_timeout_ms", "0"), ("b_to_c_timeout_ms", "0")]), 1, 6000);
    assert_eq!(num(&sim, "user_status"), 200.0);
    assert_eq!(text(&sim, "user_answer_from"), "C");
    assert_eq!(num(&sim, "wasted_work_ms"), 0.0);
}

#[test]
fn a_budget_spent_before_the_call_fails_fast() {
    let sim = run(&params("propagated", &[("user_budget_ms", "150")]), 1, 4000);
    let a = &sim.lanes()[0];
    assert!(a.failed_fast.is_some(), "A's work outlasted the budget: it answers 504 without calling B");
    assert!(sim.lanes()[1].received.is_none());
    assert_eq!(text(&sim, "user_answer_from"), "A");
    assert_eq!(text(&sim, "c_outcome"), "not called");
}

#[test]
fn the_swimlanes_show_budgets_shrinking_and_the_waste() {
    let sim = run(&params("propagated", &[]), 1, 4000);
    let [a, b, c] = sim.lanes();
    // Each hop was told less than its caller and has an earlier deadline.
    let told: Vec<i64> = [a, b, c].iter().map(|l| l.budget_told_ms.expect("told")).collect();
    assert!(told[0] > told[1] && told[1] > told[2], "{told:?}");
    let deadlines: Vec<i64> = [a, b, c].iter().map(|l| l.deadline_ms.expect("deadline")).collect();
    assert!(deadlines[1] < deadlines[0] && deadlines[2] < deadlines[1], "{deadlines:?}");
    assert_eq!(b.budget_left_ms(1000.0), Some(deadlines[1] as f64 - 1000.0));
    // The arrows: three requests with headers on the way in (A's has none: the browser sends none).
    let headers: Vec<Option<i64>> = sim
        .messages()
        .iter()
        .filter_map(|m| match m.kind {
            MsgKind::Request { header_ms } => Some(header_ms),
            _ => None,
        })
        .collect();
    assert_eq!(headers, vec![None, Some(1799), Some(1448)]);
    assert!(sim.messages().iter().any(|m| m.kind == MsgKind::Close && m.to == Party::Hop(2)));
    assert!(c.marks().iter().any(|m| m.kind == MarkKind::CallerLeft));

    let fixed = run(&params("fixed", &[]), 1, 4000);
    let waste = fixed.wasted_intervals();
    let (from, to) = waste[2].expect("C worked after the user was answered");
    let answer = fixed.user().answer.expect("answered");
    assert_eq!(from, answer.answered_at);
    assert_eq!(Some(to), fixed.lanes()[2].work_end);
    assert!(waste[0].is_none() && waste[1].is_none());
}

#[test]
fn jitter_makes_the_seed_matter() {
    let p = params("propagated", &[("jitter_ms", "5")]);
    let answers: Vec<f64> = (0..8).map(|seed| num(&run(&p, seed, 4000), "user_answer_ms")).collect();
    assert!(answers.windows(2).any(|w| w[0] != w[1]), "different seeds, different runs: {answers:?}");
}

#[test]
fn ten_minutes_at_defaults_is_a_handful_of_events() {
    let mut sim = SPEC.start(&SPEC.defaults(), 1, 600_000);
    sim.run_to_end();
    assert!(sim.events() < 40, "{} events", sim.events());
}

#[test]
fn the_declaration_is_complete() {
    let reserved = ["sim", "preset", "seed", "duration_ms", "speed", "embed", "controls", "autoplay"];
    for p in SPEC.params {
        assert!(!reserved.contains(&p.id), "{} is reserved", p.id);
        assert!(!p.label.is_empty() && !p.help.is_empty(), "{} needs a label and help", p.id);
        assert!(p.min <= p.default && p.default <= p.max, "{} default out of range", p.id);
    }
    assert_eq!(SPEC.param("mode").map(|p| p.kind), Some(ParamKind::Choice(&["fixed", "propagated"])));
    for id in ["fixed", "propagated", "wrong-order"] {
        assert!(SPEC.preset(id).is_some(), "preset {id}");
    }
    let keys: Vec<&str> = run(&SPEC.defaults(), 1, 4000).metrics().iter().map(|(k, _)| *k).collect();
    let declared: Vec<&str> = SPEC.metrics.iter().map(|m| m.key).collect();
    assert_eq!(keys, declared);
}

/// Any point of the declared parameter space, from fractions of each range.
fn params_from(fractions: &[f64]) -> Params {
    let mut p = SPEC.defaults();
    for (spec, f) in SPEC.params.iter().zip(fractions) {
        p.set(spec.id, spec.at_fraction(*f));
    }
    p
}

/// Long enough for everything to end: the largest work and timeouts add up to about 30 s.
const PROP_RUN_MS: u64 = 45_000;

fn any_params() -> impl Strategy<Value = (Params, u64)> {
    // The ends of each range (zero delays, no timeout, the longest work) as often as the inside.
    let fraction = prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0f64];
    (prop::collection::vec(fraction, SPEC.params.len()), any::<u64>()).prop_map(|(f, seed)| (params_from(&f), seed))
}

fn check_timeline(sim: &DeadlineChain) -> Result<(), TestCaseError> {
    for lane in sim.lanes() {
        for w in lane.marks().windows(2) {
            prop_assert!(w[0].t <= w[1].t, "{}: {:?} after {:?}", lane.name, w[1], w[0]);
        }
        // Each moment on the lane is the one its record holds.
        for m in lane.marks() {
            let field = match m.kind {
                MarkKind::Received => lane.received,
                MarkKind::WorkFinished | MarkKind::WorkStopped => lane.work_end,
                MarkKind::CallSent => lane.call_sent,
                MarkKind::GaveUp => lane.gave_up.map(|g| g.0),
                MarkKind::FailedFast => lane.failed_fast,
                MarkKind::CallerLeft => lane.caller_left_noticed,
                MarkKind::DeadlinePassed => lane.deadline_passed,
                MarkKind::Answered => lane.answered.map(|a| a.at),
                MarkKind::CallAnswered | MarkKind::LateAnswer => Some(m.t),
            };
            prop_assert_eq!(field, Some(m.t), "{}: {:?}", lane.name, m.kind);
        }
        if let (Some(hung_up), Some(noticed)) = (lane.caller_hung_up, lane.caller_left_noticed) {
            prop_assert!(hung_up <= noticed);
        }
        if let (Some(s), Some(e)) = (lane.work_start, lane.work_end) {
            prop_assert!(s <= e);
        }
        if let (Some(r), Some(a)) = (lane.received, lane.answered) {
            prop_assert!(r <= a.at);
        }
    }
    for m in sim.messages() {
        prop_assert!(m.sent <= m.delivered);
    }
    if let Some(answer) = sim.user().answer {
        prop_assert!(answer.answered_at <= answer.received);
        prop_assert_eq!(sim.lanes()[0].answered.map(|a| a.at), Some(answer.answered_at));
    }
    // A hop hears of a request only after its caller sent it.
    for h in 1..3 {
        if let Some(r) = sim.lanes()[h].received {
            let sent = sim.lanes()[h - 1].call_sent;
            prop_assert!(sent.is_some_and(|s| s <= r));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn time_never_goes_backwards_and_nothing_breaks((p, seed) in any_params()) {
        let sim = run(&p, seed, PROP_RUN_MS);
        check_timeline(&sim)?;
        for (key, value) in sim.metrics() {
            if let Value::Num(x) = value {
                prop_assert!(x.is_finite() && x >= 0.0, "{key} = {x}");
            }
        }
        // The run ends settled: every hop that started is done, the user's wait is over
        // unless the browser never gives up and nothing ever answers (not possible here).
        for lane in sim.lanes() {
            prop_assert!(matches!(lane.phase, Phase::Idle | Phase::Done), "{} is {:?}", lane.name, lane.phase);
        }
        prop_assert!(sim.user().done().is_some());
    }

    #[test]
    fn propagated_hops_stop_soon_after_their_caller_leaves((p, seed) in any_params()) {
        let mut p = p;
        p.set("mode", 1.0);
        let sim = run(&p, seed, PROP_RUN_MS);
        prop_assert!(sim.propagated());
        // A close takes at most delivery + jitter to arrive, and the abort `abort_ms` to land.
        let notice = sim.delivery() + sim.max_jitter();
        let slack: Micros = notice + sim.abort_delay();
        let end = sim.now();
        for (h, lane) in sim.lanes().iter().enumerate() {
            if let (Some(left), Some((_, work_end))) = (lane.caller_hung_up, lane.work_interval(end)) {
                prop_assert!(work_end <= left + slack,
                    "{} worked until {} though its caller left at {}", lane.name, work_end, left);
            }
            // And no work after the user's wait ended beyond the time the news takes to
            // travel down to this hop.
            if let Some(done) = sim.user().done() {
                let bound = done + (h as Micros + 1) * notice + sim.abort_delay();
                if let Some((_, work_end)) = lane.work_interval(end) {
                    prop_assert!(work_end <= bound,
                        "{} worked until {} after the user was done at {}", lane.name, work_end, done);
                }
            }
        }
    }

    #[test]
    fn fixed_mode_never_cancels_work((p, seed) in any_params()) {
        let mut p = p;
        p.set("mode", 0.0);
        let sim = run(&p, seed, PROP_RUN_MS);
        for lane in sim.lanes() {
            prop_assert!(lane.deadline_ms.is_none());
            if lane.work_start.is_some() {
                prop_assert_eq!(lane.work_outcome, Some(WorkOutcome::Finished));
            }
        }
    }

    #[test]
    fn same_seed_same_run((p, seed) in any_params()) {
        let a = run(&p, seed, PROP_RUN_MS);
        let b = run(&p, seed, PROP_RUN_MS);
        prop_assert_eq!(a.metrics(), b.metrics());
        prop_assert_eq!(a.events(), b.events());
        let times = |s: &DeadlineChain| s.messages().iter().map(|m| (m.sent, m.delivered)).collect::<Vec<_>>();
        prop_assert_eq!(times(&a), times(&b));
    }
}

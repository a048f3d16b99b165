//! The deadline-chain scenario: Chapter 1 Part 4's table, and the invariants of the model.

use proptest::prelude::*;
use resilience_lab::scenarios::deadline_chain::{
    CWork, DeadlineChain as Model, MarkKind, Mode, MsgKind, Party, Phase, Reason, SPEC, WorkOutcome,
};
use resilience_lab::sim::{Host, MS, Micros, ParamKind, Params, Simulation, Value};

type DeadlineChain = Host<Model>;

/// Tolerance for the chapter's figures, in ms. The chapter's own figures disagree with each
/// other by 6 ms: in both runs B's wait on C starts when B calls C, so B's two give-up times
/// must differ by 2,000 − 1,448 = 552 ms, but the table says 2,509 − 1,963 = 546 ms. No choice
/// of delays meets both within less than 3 ms; the defaults split the difference, and every
/// figure comes out within 3.5 ms.
const TOL_MS: f64 = 4.0;

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
    let sim = run(&SPEC.configured("fixed", &[]), 1, 4000);
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
    // C's work from the end of the user's 2,000 ms (the 504 came after it) to its commit,
    // about 1.5 s, was for nobody.
    let waste = num(&sim, "c_end_ms") - 2000.0;
    assert!((num(&sim, "wasted_work_ms") - waste).abs() < 0.2, "waste is C's work after the user's budget");
    assert!(waste > 1400.0);
}

#[test]
fn propagated_budget_gives_the_chapters_row() {
    let sim = run(&SPEC.configured("propagated", &[]), 1, 4000);
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
    let fixed = run(&SPEC.configured("fixed", &zero), 1, 4000);
    assert_eq!(num(&fixed, "user_answer_ms"), 2000.0);
    assert_eq!(num(&fixed, "b_gives_up_ms"), 2500.0);
    assert_eq!(num(&fixed, "c_end_ms"), 3500.0);
    let propagated = run(&SPEC.configured("propagated", &zero), 1, 4000);
    assert_eq!(num(&propagated, "c_budget_told_ms"), 1450.0, "2,000 − 50 − 200 − 300");
    assert_eq!(num(&propagated, "b_gives_up_ms"), 1950.0);
    assert_eq!(num(&propagated, "c_end_ms"), 1950.0);
    // Each millisecond of timer lateness on A's and B's work comes off what C is told.
    let late = run(&SPEC.configured("propagated", &[("timer_late_ms", "3")]), 1, 4000);
    assert_eq!(num(&late, "c_budget_told_ms"), 1444.0);
}

#[test]
fn timeouts_in_the_wrong_order_answer_nobody() {
    let sim = run(&SPEC.configured("wrong-order", &[]), 1, 4000);
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
    let sim = run(&SPEC.configured("ordered", &[]), 1, 4000);
    assert_eq!(text(&sim, "user_answer_from"), "B");
    assert!(num(&sim, "user_answer_ms") < 2000.0);
    // Without cancellation C still commits for nobody.
    assert_eq!(text(&sim, "c_outcome"), "committed");
    assert!(num(&sim, "wasted_work_ms") > 1500.0);
}

#[test]
fn the_middleware_at_every_hop_stops_c_at_its_own_deadline() {
    let sim = run(&SPEC.configured("every-hop", &[]), 1, 4000);
    // Two reserves in the chain now: C is told 50 ms less than in the chapter's run.
    assert!((num(&sim, "c_budget_told_ms") - 1398.0).abs() <= 1.0);
    assert_eq!(sim.lanes()[2].work_outcome, Some(WorkOutcome::Stopped(Reason::Deadline)));
    assert_eq!(text(&sim, "user_answer_from"), "C");
    assert_eq!(num(&sim, "user_status"), 504.0);
    assert!(num(&sim, "user_answer_ms") < num(&run(&SPEC.configured("propagated", &[]), 1, 4000), "user_answer_ms"));
}

#[test]
fn a_generous_budget_lets_c_answer_200() {
    let sim = run(
        &SPEC.configured(
            "propagated",
            &[("user_budget_ms", "5000"), ("a_to_b_timeout_ms", "0"), ("b_to_c_timeout_ms", "0")],
        ),
        1,
        6000,
    );
    assert_eq!(num(&sim, "user_status"), 200.0);
    assert_eq!(text(&sim, "user_answer_from"), "C");
    assert_eq!(num(&sim, "wasted_work_ms"), 0.0);
}

#[test]
fn a_budget_spent_before_the_call_fails_fast() {
    let sim = run(&SPEC.configured("propagated", &[("user_budget_ms", "150")]), 1, 4000);
    let a = &sim.lanes()[0];
    assert!(a.failed_fast.is_some(), "A's work outlasted the budget: it answers 504 without calling B");
    assert!(sim.lanes()[1].received.is_none());
    assert_eq!(text(&sim, "user_answer_from"), "A");
    assert_eq!(text(&sim, "c_outcome"), "not called");
}

#[test]
fn the_swimlanes_show_budgets_shrinking_and_the_waste() {
    let sim = run(&SPEC.configured("propagated", &[]), 1, 4000);
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

    let fixed = run(&SPEC.configured("fixed", &[]), 1, 4000);
    let waste = fixed.wasted_intervals(fixed.now());
    let (from, to) = waste[2].expect("C worked after the user stopped waiting");
    // The 504 came at about 2,008 ms, after the user's 2,000 ms: the user stopped waiting then.
    assert!(fixed.user().answer.is_some_and(|a| a.answered_at > 2000 * MS));
    assert_eq!(from, 2000 * MS);
    assert_eq!(Some(to), fixed.lanes()[2].work_end);
    assert!(waste[0].is_none() && waste[1].is_none());
}

#[test]
fn an_answer_after_the_users_budget_leaves_the_work_after_it_for_nobody() {
    // The bug: with no hop timeouts, C's 200 reached the user at 3,521 ms, after the user's
    // 2,000 ms, and the run counted no work for nobody because the browser was still open.
    let sim = run(&SPEC.configured("fixed", &[("a_to_b_timeout_ms", "0"), ("b_to_c_timeout_ms", "0")]), 1, 4000);
    assert_eq!(num(&sim, "user_status"), 200.0);
    assert_eq!(metric(&sim, "user_in_budget"), Value::Bool(false));
    let waste = num(&sim, "c_end_ms") - 2000.0;
    assert!((num(&sim, "wasted_work_ms") - waste).abs() < 0.2, "C's work after the user's 2,000 ms");
}

#[test]
fn jitter_makes_the_seed_matter() {
    let p = SPEC.configured("propagated", &[("jitter_ms", "5")]);
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
    // The option ids are an interface (links, the CLI, presets).
    assert_eq!(SPEC.param("mode").map(|p| p.kind), Some(ParamKind::Choice(Mode::OPTIONS)));
    assert_eq!(Mode::OPTIONS.iter().map(|o| o.id).collect::<Vec<_>>(), ["fixed", "propagated"]);
    for id in ["fixed", "propagated", "wrong-order"] {
        assert!(SPEC.preset(id).is_some(), "preset {id}");
    }
    let keys: Vec<&str> = run(&SPEC.defaults(), 1, 4000).metrics().iter().map(|(k, _)| *k).collect();
    let declared: Vec<&str> = SPEC.metrics.iter().map(|m| m.key).collect();
    assert_eq!(keys, declared);
    assert!(SPEC.headline.iter().all(|k| declared.contains(k)), "headline {:?}", SPEC.headline);
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
        p.set("budget_header", 0.0);
        p.set("listen_for_close", 0.0);
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

/// A time in µs, in ms.
fn ms(us: Micros) -> f64 {
    us as f64 / 1000.0
}

fn opt(sim: &DeadlineChain, key: &str) -> Option<f64> {
    metric(sim, key).as_f64()
}

#[test]
fn the_run_is_four_seconds_at_the_defaults_and_every_preset_and_covers_longer_work() {
    assert_eq!(SPEC.duration_for(&SPEC.defaults()), 4000);
    for preset in SPEC.presets {
        assert_eq!(SPEC.duration_for(&SPEC.configured(preset.id, &[])), 4000, "{}", preset.id);
    }
    let long =
        SPEC.configured("fixed", &[("c_work_ms", "10000"), ("a_to_b_timeout_ms", "0"), ("b_to_c_timeout_ms", "0")]);
    assert_eq!(SPEC.duration_for(&long), 11_000);
    let sim = run(&long, 1, SPEC.duration_for(&long));
    // The browser gives up at 10 s; C's 10 s of work still commits, and its 200 travels back.
    assert_eq!(text(&sim, "c_outcome"), "committed");
    assert_eq!(sim.lanes()[0].answered.map(|a| (a.status, a.heard)), Some((200, Some(false))));
}

/// The two halves of a propagated budget, each alone from fixed timeouts. Node tells a
/// handler its caller left only through the request's 'close' event
/// (https://nodejs.org/api/http.html#event-close_2); the work stops only where the handler
/// listens. `mode=propagated` is both switches on: the same run to the microsecond.
#[test]
fn the_budget_header_and_listening_for_the_close_each_do_their_half() {
    let both = run(&SPEC.configured("fixed", &[("budget_header", "true"), ("listen_for_close", "true")]), 1, 4000);
    let propagated = run(&SPEC.configured("propagated", &[]), 1, 4000);
    assert_eq!(both.metrics(), propagated.metrics(), "the two switches are the propagated mode");

    // The header alone: C is told a budget and its caller's wait is bounded by it, but no
    // hop stops its work when its caller leaves, so C still commits for nobody.
    let header = run(&SPEC.configured("fixed", &[("budget_header", "true")]), 1, 4000);
    assert!(opt(&header, "c_budget_told_ms").is_some());
    let c = &header.lanes()[2];
    assert_eq!(c.work_outcome, Some(WorkOutcome::Finished), "C commits: nobody stops it");
    assert!(c.caller_hung_up.is_some());

    // Listening alone: fixed timeouts, but each closed connection stops the hop below, so C
    // stops soon after its caller hangs up, with no budget told.
    let listen = run(&SPEC.configured("fixed", &[("listen_for_close", "true")]), 1, 4000);
    assert_eq!(opt(&listen, "c_budget_told_ms"), None);
    let c = &listen.lanes()[2];
    assert!(matches!(c.work_outcome, Some(WorkOutcome::Stopped(_))), "{:?}", c.work_outcome);
    let left = c.caller_hung_up.expect("B hung up on C");
    let (_, stopped) = c.work_interval(listen.now()).expect("C worked");
    assert!(stopped <= left + listen.delivery() + listen.max_jitter() + listen.abort_delay());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// By the scenario's own run length the chain has settled: every hop idle or done, and the
    /// user's wait over. (What the run shows is checked as facts in `deadline_chain_facts.rs`.)
    #[test]
    fn the_chain_settles_within_its_run_length((p, seed) in any_params()) {
        let sim = run(&p, seed, SPEC.duration_for(&p));
        for lane in sim.lanes() {
            prop_assert!(matches!(lane.phase, Phase::Idle | Phase::Done), "{} is {:?} at the end", lane.name, lane.phase);
        }
        prop_assert!(sim.user().done().is_some(), "the user's wait is over by the end");
    }
}

/// The timeline's whole-run axis is the run length, a function of the settings: every preset,
/// in either mode, settles within it, and at the defaults they share one (4 s), so switching
/// presets does not rescale the timeline.
#[test]
fn every_preset_in_either_mode_settles_within_one_shared_run_length() {
    for preset in SPEC.presets {
        for mode in ["fixed", "propagated"] {
            let p = SPEC.configured(preset.id, &[("mode", mode)]);
            assert_eq!(SPEC.duration_for(&p), 4000, "{} {mode}", preset.id);
            let sim = run(&p, 1, 4000);
            assert!(sim.lanes().iter().all(|l| matches!(l.phase, Phase::Idle | Phase::Done)), "{} {mode}", preset.id);
            assert!(sim.user().done().is_some() && sim.messages().iter().all(|m| m.delivered <= sim.end()));
        }
    }
}

// ---- Chapter 1, Break 3: the browser gave up after 2 s ----

fn finished(preset: &str, sets: &[(&str, &str)]) -> DeadlineChain {
    let p = SPEC.configured(preset, sets);
    run(&p, 1, SPEC.duration_for(&p))
}

/// "In a test, the innermost service finished three seconds of work a full second and a half
/// after the user got an error": nothing passes the browser's close on.
#[test]
fn break_3_c_finishes_its_3_s_of_work_1_5_s_after_the_users_error() {
    let sim = finished("ch1-break-3", &[]);
    let gave_up = num(&sim, "user_gave_up_ms");
    assert!((gave_up - 2000.0).abs() <= TOL_MS, "the browser gave up at {gave_up}");
    assert_eq!(metric(&sim, "user_answer_ms"), Value::Null, "A's 504 came after the browser left");
    assert_eq!(text(&sim, "c_outcome"), "committed");
    let after = num(&sim, "c_end_ms") - gave_up;
    assert!((after - 1500.0).abs() < 25.0, "C committed {after} ms after the user's error");
    assert_eq!(num(&sim, "commit_window_ms"), after, "the window runs from the browser's close to C's commit");
    // The window's words: "The browser gave up at 2,001 ms, and nothing passed it on: C finished
    // … {after} after the user's error, for nobody."
    let f = sim.facts_now();
    let hang = f.first_hang_up.expect("the browser hung up");
    assert_eq!(hang.on_hop, 0, "the browser hung up first");
    assert!((2000.5..2001.5).contains(&ms(hang.at_us)), "{hang:?}");
    assert!(!f.listens_for_close && matches!(f.c_work, CWork::Committed { .. }), "{:?}", f.c_work);
    assert_eq!(f.commit_window_us.map(ms), Some(after));
}

/// The follow-up: "Cancellation narrows the window but can't close it: the commit can succeed
/// just before the abort arrives." With every hop passing the close on, C's 3 s of work stops
/// about 12 ms after the browser leaves; a write due inside those milliseconds commits anyway.
#[test]
fn break_3_cancellation_narrows_the_window_and_cannot_close_it() {
    let fixed = finished("ch1-break-3", &[]);
    let cancel = finished("ch1-break-3", &[("listen_for_close", "true")]);
    assert_eq!(text(&cancel, "c_outcome"), "stopped");
    let window = num(&cancel, "commit_window_ms");
    let trip = 3.0 * cancel.delivery() as f64 / 1000.0 + cancel.abort_delay() as f64 / 1000.0;
    assert!(window > 0.0 && window <= trip + 1.0, "{window} ms, the close's trip and the abort are {trip} ms");
    assert!(window * 100.0 < num(&fixed, "commit_window_ms"));
    // "C stopped at … : a commit due in those … would still have landed".
    let f = cancel.facts_now();
    assert!(f.first_hang_up.is_some() && f.commit_window_us.is_some());
    assert!(matches!(f.c_work, CWork::Stopped { .. }), "{:?}", f.c_work);

    // C's work shortened so that it ends inside that window: it commits, with the user gone.
    let write = finished("ch1-break-3-follow-up", &[]);
    assert_eq!(text(&write, "c_outcome"), "committed");
    let gave_up = num(&write, "user_gave_up_ms");
    let committed = num(&write, "c_end_ms");
    assert!(committed > gave_up && committed - gave_up < window, "{committed} after {gave_up}");
    // B relays C's 200, but A has aborted its call: the user never hears it.
    assert_eq!(metric(&write, "user_answer_ms"), Value::Null, "the 200 reaches nobody");
    // "every hop passes the close on, yet C committed … before the close reached it: cancellation
    // narrows the window, it cannot close it".
    let f = write.facts_now();
    assert!(f.first_hang_up.is_some() && f.commit_window_us.is_some() && f.listens_for_close);
    assert!(matches!(f.c_work, CWork::Committed { .. }), "{:?}", f.c_work);
    assert_eq!(f.c_saw_close_before_commit, Some(false));

    // Every work length: C commits exactly when its work ends inside the window, and stops
    // otherwise; the window never closes.
    let mut committed_late = 0;
    for c_work in (1400..=1600).step_by(10) {
        let sim = finished("ch1-break-3-follow-up", &[("c_work_ms", &c_work.to_string())]);
        let end = num(&sim, "c_end_ms");
        let Some(hang) = metric(&sim, "user_gave_up_ms").as_f64() else {
            // Short enough for the user to get C's 200 in time: nobody hung up.
            assert_eq!(num(&sim, "user_status"), 200.0, "{c_work}");
            assert_eq!(metric(&sim, "commit_window_ms"), Value::Null, "{c_work}");
            continue;
        };
        match text(&sim, "c_outcome").as_str() {
            "committed" if end > hang => {
                committed_late += 1;
                assert!(end - hang <= window + 0.1, "{c_work}: committed {} ms after", end - hang);
            }
            "committed" => assert_eq!(metric(&sim, "commit_window_ms"), Value::Null),
            "stopped" => assert!((num(&sim, "commit_window_ms") - window).abs() < 0.1, "{c_work}"),
            other => panic!("{c_work}: {other}"),
        }
    }
    assert!(committed_late >= 1, "some commit lands between the close and the abort");
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(96) })]

    /// The window, for any parameters: it starts at the first hang-up, ends with C's work, and
    /// is as long as C's work after the hang-up (all of it without cancellation).
    #[test]
    fn the_commit_window_is_cs_work_after_the_first_hang_up((p, seed) in any_params()) {
        let sim = run(&p, seed, PROP_RUN_MS);
        let c = &sim.lanes()[2];
        match (metric(&sim, "commit_window_ms"), sim.first_hang_up()) {
            (Value::Null, hang) => {
                let after = hang.zip(c.work_interval(sim.now())).is_some_and(|((h, _), (s, e))| e > h.max(s));
                prop_assert!(!after, "C worked after the hang-up, but no window");
            }
            (w, Some((hang, _))) => {
                let (start, end) = c.work_interval(sim.now()).expect("C worked");
                let w = w.as_f64().expect("a number");
                let expected = (end - hang.max(start)) as f64 / 1000.0;
                prop_assert!((w - expected).abs() < 0.06, "{} vs {}", w, expected);
                prop_assert!(w > 0.0);
                // The words quote the window and who hung up first, and say "nothing passed it
                // on" exactly when no hop listens and C committed.
                let f = sim.facts_now();
                prop_assert_eq!(f.commit_window_us.map(ms), sim.metrics_now().commit_window_ms);
                prop_assert_eq!(f.first_hang_up.map(|h| (h.at_us, h.on_hop)), sim.first_hang_up());
                prop_assert_eq!(f.listens_for_close, sim.listens_for_close());
                let committed = text(&sim, "c_outcome") == "committed";
                prop_assert_eq!(matches!(f.c_work, CWork::Committed { .. }), committed);
                prop_assert_eq!(f.c_saw_close_before_commit.is_some(), committed);
            }
            (w, None) => prop_assert!(false, "a window {:?} with nobody hanging up", w),
        }
    }
}

/// Issue 45, item 4: the chapter's point, C committing for nobody, is the verdict's lead (what a
/// figure shows before "Why?"), within the figure's 20 words; what the user got comes after.
#[test]
fn the_verdict_leads_with_the_commit_for_nobody() {
    let sim = run(&SPEC.defaults(), 7, SPEC.default_duration_ms);
    let verdict = sim.words_now().verdict;
    let (lead, rest) = resilience_lab::format::lead(&verdict, resilience_lab::format::FIGURE_VERDICT_WORDS);
    assert_eq!(lead, "C committed at 3,514 ms, 1,514 ms after the user stopped waiting: for nobody.");
    assert!(rest.starts_with("A answered the user with a 504 at 2,008 ms"), "{rest}");
}

/// Issue 45, case 4: the card read "User answered at 2,008 ms" beside the user's lane's "gets 504
/// at 2,011 ms". They are two moments, A's answer and its arrival a network hop later: the card
/// names A's, the lane the user's, and the card's number is A's.
#[test]
fn the_answer_card_names_whose_moment_it_is() {
    let spec = SPEC.metrics.iter().find(|m| m.key == "user_answer_ms").expect("declared");
    assert_eq!(spec.label, "A answered the user at");
    for preset in ["fixed", "propagated"] {
        let sim = run(&SPEC.configured(preset, &[]), 7, SPEC.default_duration_ms);
        let answer = sim.user().answer.as_ref().expect("the user heard back");
        assert_eq!(num(&sim, "user_answer_ms"), answer.answered_at as f64 / MS as f64, "{preset}");
        assert!(answer.received > answer.answered_at, "{preset}: the lane's moment is later");
    }
}

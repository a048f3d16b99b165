//! which-timeout's facts (issue 24, item 2): by value at the chapter's presets, and against the
//! metrics for any parameters, each claim a sentence makes with its precondition. No test here
//! reads the sentences: the sentence's choice is a typed value in the facts.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use resilience_lab::scenarios::which_timeout::{
    CallError, Caller, Fault, NotFirst, Outcome, Phase, Retry, SPEC, Server, TimerClock, TimerKind,
    WhichTimeout as Model, WhichTimeoutFacts, WhyThen, Work,
};
use resilience_lab::sim::{Host, MS, Micros, Model as _, Params, Simulation, Value};

type WhichTimeout = Host<Model>;

fn params(preset: &str) -> Params {
    let mut p = SPEC.defaults();
    if !preset.is_empty() {
        p.apply_preset(SPEC.preset(preset).unwrap_or_else(|| panic!("preset {preset}"))).unwrap();
    }
    p
}

fn run(p: &Params) -> WhichTimeout {
    let mut sim = WhichTimeout::new(p, 7, SPEC.duration_for(p) * MS);
    sim.run_to_end();
    sim
}

fn facts_at(preset: &str) -> WhichTimeoutFacts {
    let sim = run(&params(preset));
    sim.facts_now()
}

fn ms(us: Micros) -> f64 {
    us as f64 / 1000.0
}

/// Issue 24, case 10: a timer on its deadline gives no reason for a lateness; one that fell on
/// undici's tick says so.
#[test]
fn fetch_no_tls_fires_on_time_on_a_tick() {
    let f = facts_at("fetch-no-tls");
    let first = f.first.expect("a timer fired");
    assert_eq!((first.kind, first.on_time, first.why), (TimerKind::Connect, true, Some(WhyThen::FellOnUndiciTick)));
    assert!(first.late_us.unsigned_abs() < MS / 2, "{}", first.late_us);
    assert_eq!(f.error, Some(CallError::ConnectTimeout));
    assert_eq!(f.retry, Retry::SafeErrorSays);
    assert_eq!(f.server, Server::NeverReached { still_open: false });
}

#[test]
fn undici_timers_fire_late_because_of_the_tick() {
    for (preset, kind) in [
        ("fetch-silent", TimerKind::Headers),
        ("fetch-blackhole", TimerKind::Connect),
        ("undici-headers-timeout", TimerKind::Headers),
        ("undici-connect-timeout", TimerKind::Connect),
    ] {
        let first = facts_at(preset).first.expect("a timer fired");
        assert_eq!((first.kind, first.on_time, first.why), (kind, false, Some(WhyThen::UndiciTick)), "{preset}");
        assert!(first.late_us > 400 * MS as i64, "{preset}: {}", first.late_us);
    }
    assert_eq!(facts_at("fetch-blackhole").first.map(|t| t.fired_at_us), Some(10_500 * MS));
}

#[test]
fn the_pool_wait_is_safe_only_by_the_logs() {
    let f = facts_at("pool-wait");
    let first = f.first.expect("a timer fired");
    assert_eq!((first.kind, first.why), (TimerKind::Total, Some(WhyThen::NodeTimerLate)));
    assert_eq!(f.phase, Phase::Pool);
    assert!(matches!(f.retry, Retry::SafePoolWait { pool_wait_us } if pool_wait_us > 1_900 * MS));
    assert_eq!(f.server, Server::NeverReached { still_open: false });
    assert!(f.others.iter().all(|o| o.why == NotFirst::NeverArmed), "{:?}", f.others);
}

#[test]
fn nodes_timeout_event_leaves_the_call_open() {
    let f = facts_at("http-timeout-event");
    let first = f.first.expect("a timer fired");
    assert_eq!((first.kind, first.ended_call), (TimerKind::HttpIdle, false));
    assert!(first.counted_from_us.is_some());
    assert!(matches!(f.caller, Caller::Open { timeout_events: 1, body_chunks: None, .. }), "{:?}", f.caller);
    assert_eq!(f.retry, Retry::NotFailedYet);
}

#[test]
fn a_trickle_resets_the_body_timeout_and_an_abort_after_headers_needs_a_key() {
    let f = facts_at("body-timeout-trickle");
    assert_eq!(f.first, None);
    let body = f.others.iter().find(|o| o.kind == TimerKind::Body).expect("body timer");
    assert!(matches!(body.why, NotFirst::StartsOver { resets: 7, .. }), "{:?}", body.why);
    assert!(matches!(f.caller, Caller::Open { body_chunks: Some(7), .. }), "{:?}", f.caller);
    let f = facts_at("abort-trickle");
    assert_eq!(f.retry, Retry::KeyServerAnswered { headers_at_us: 5 * MS });
    assert!(matches!(f.server, Server::Reached { work: Work::Done { .. }, .. }), "{:?}", f.server);
}

#[test]
fn the_kernel_gives_up_on_time_with_no_reason_to_give() {
    let first = facts_at("http-blackhole").first.expect("a timer fired");
    assert_eq!((first.kind, first.on_time, first.why), (TimerKind::OsConnect, true, None));
    assert_eq!((first.fired_at_us, first.late_us), (75_001 * MS, 0));
}

/// Issue 24, case 12: before Play no embed claims the pool-full fault.
#[test]
fn before_play_nothing_has_started() {
    for preset in ["fetch-silent", "fetch-blackhole", "pool-wait"] {
        let p = params(preset);
        let sim = WhichTimeout::new(&p, 7, SPEC.duration_for(&p) * MS);
        assert_eq!(sim.facts_now().caller, Caller::NotStarted, "{preset}");
    }
}

// Any parameters.

fn any_params() -> impl Strategy<Value = Params> {
    prop::collection::vec(prop_oneof![2 => 0.0..1.0f64, 1 => Just(0.0), 1 => Just(1.0)], SPEC.params.len()).prop_map(
        |fractions| {
            let mut p = SPEC.defaults();
            for (spec, f) in SPEC.params.iter().zip(fractions) {
                p.set(spec.id, spec.at_fraction(f));
            }
            p
        },
    )
}

/// The first timer: what the metrics say, and a reason only for a lateness that needs one.
fn check_first(sim: &WhichTimeout, f: &WhichTimeoutFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    prop_assert_eq!(f.first.map_or("none", |t| t.kind.id()), m.first_fired.as_str());
    prop_assert_eq!(f.first.map(|t| ms(t.fired_at_us)), m.first_fired_ms);
    let Some(first) = f.first else { return Ok(()) };
    let timer = sim.timer(first.kind).expect("the first timer was armed");
    prop_assert_eq!(Some(first.late_us), timer.lateness());
    prop_assert_eq!(first.on_time, first.late_us.unsigned_abs() < MS / 2);
    let clock = first.kind.clock();
    match first.why {
        Some(WhyThen::UndiciTick) => prop_assert!(clock == TimerClock::UndiciTick && !first.on_time),
        Some(WhyThen::FellOnUndiciTick) => prop_assert!(clock == TimerClock::UndiciTick && first.on_time),
        Some(WhyThen::NodeTimerLate) => prop_assert!(clock == TimerClock::NodeTimer && !first.on_time),
        None => prop_assert!(clock == TimerClock::Kernel || (clock == TimerClock::NodeTimer && first.on_time)),
    }
    // "It only emitted 'timeout'" is node:http's idle timer, and only it.
    let ended_it = matches!(f.outcome, Some(Outcome::Failed { by: Some(k), .. }) if k == first.kind);
    prop_assert_eq!(first.ended_call, ended_it);
    prop_assert!(first.ended_call || first.kind == TimerKind::HttpIdle);
    Ok(())
}

/// Each other timer's reason against the timer itself.
fn check_others(sim: &WhichTimeout, f: &WhichTimeoutFacts) -> Result<(), TestCaseError> {
    for o in &f.others {
        prop_assert!(f.first.is_none_or(|t| t.kind != o.kind), "{:?} is first and other", o.kind);
        let timer = sim.timer(o.kind);
        match o.why {
            NotFirst::NotSet | NotFirst::NeverArmed => prop_assert!(timer.is_none()),
            NotFirst::FiredToo { at_us } => prop_assert!(f.first.is_some_and(|t| t.fired_at_us <= at_us)),
            NotFirst::StillCounting { .. } => prop_assert!(f.outcome.is_some()),
            NotFirst::Cleared { at_us } => prop_assert_eq!(timer.and_then(|t| t.cleared_at), Some(at_us)),
            NotFirst::StartsOver { resets, .. } => prop_assert!(resets > 0 && o.kind.is_idle()),
            NotFirst::Due { at_us } => prop_assert_eq!(timer.and_then(|t| t.fires_at), Some(at_us)),
        }
    }
    Ok(())
}

/// What the caller sees against the metrics.
fn check_caller(sim: &WhichTimeout, f: &WhichTimeoutFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    prop_assert_eq!(f.phase.id(), m.phase.as_str());
    let open = m.still_open_at_end;
    match f.caller {
        Caller::Failed { error, seen_at_us, .. } => {
            prop_assert_eq!(error.id(), m.error.as_str());
            prop_assert_eq!(seen_at_us.map(ms), m.gave_up_ms);
        }
        Caller::Succeeded { at_us } => prop_assert_eq!(Some(ms(at_us)), m.completed_ms),
        Caller::NotStarted => prop_assert!(open && sim.phases().is_empty()),
        Caller::TakingConnection => prop_assert!(open && f.phase == Phase::Pool),
        Caller::PoolFull { pool_size } => {
            prop_assert!(open && f.phase == Phase::Pool && sim.config().fault == Fault::PoolFull);
            prop_assert_eq!(pool_size, sim.config().pool_size);
        }
        Caller::Open { timeout_events, first_event_us, body_chunks, .. } => {
            prop_assert!(open && f.phase > Phase::Pool);
            prop_assert_eq!(u64::from(timeout_events), m.timeout_events);
            prop_assert_eq!(first_event_us.is_some(), timeout_events > 0);
            prop_assert_eq!(body_chunks.is_some(), f.phase == Phase::Body);
            prop_assert!(body_chunks.is_none_or(|n| n == m.body_chunks));
        }
    }
    Ok(())
}

/// Whether the request reached the server and the server did the work.
fn check_server(sim: &WhichTimeout, f: &WhichTimeoutFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    prop_assert_eq!(f.reached_server_app, m.reached_server_app);
    prop_assert_eq!(f.server_did_work, m.server_did_work);
    match f.server {
        Server::Reached { work, saw_close_at_us, .. } => {
            prop_assert!(m.reached_server_app);
            prop_assert_eq!(matches!(work, Work::Done { .. }), m.server_did_work);
            prop_assert_eq!(saw_close_at_us.map(ms), m.server_saw_close_ms);
            if let Work::Done { after_give_up_us: Some(_), .. } = work {
                prop_assert!(m.error != "none" && m.error != "timeout-event");
            }
        }
        Server::OnItsWay { .. } => prop_assert!(!m.reached_server_app),
        Server::NeverReached { still_open } => {
            prop_assert!(!m.reached_server_app && !m.server_did_work);
            prop_assert_eq!(still_open, m.still_open_at_end);
        }
    }
    Ok(())
}

/// Whether a retry needs a key: "safe" only when the request was never sent, and the proof named holds.
fn check_retry(sim: &WhichTimeout, f: &WhichTimeoutFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    prop_assert_eq!(f.safe_to_retry_without_key, m.safe_to_retry_without_key);
    prop_assert_eq!(f.error_proves_not_sent, m.error_proves_not_sent);
    prop_assert_eq!(Value::num(ms(f.pool_wait_us)), m.pool_wait_ms.clone());
    let safe = matches!(f.retry, Retry::SafeErrorSays | Retry::SafePoolWait { .. } | Retry::SafePhase);
    prop_assert_eq!(safe, m.safe_to_retry_without_key);
    match f.retry {
        Retry::NothingFailed => prop_assert!(m.completed_ms.is_some()),
        Retry::NotFailedYet => prop_assert!(f.error.is_none() && m.completed_ms.is_none()),
        Retry::SafeErrorSays => prop_assert!(m.error_proves_not_sent),
        Retry::SafePoolWait { .. } => prop_assert!(!m.error_proves_not_sent && f.phase == Phase::Pool),
        Retry::SafePhase => prop_assert!(!m.error_proves_not_sent && f.phase != Phase::Pool),
        Retry::KeyServerAnswered { headers_at_us } => {
            prop_assert_eq!(Some(ms(headers_at_us)), m.response_ms);
            prop_assert!(sim.server_done_at().is_some());
        }
        Retry::KeySent { server_works } => {
            prop_assert!(f.error.is_some() && sim.request_sent_at().is_some());
            prop_assert_eq!(server_works, sim.server_done_at().is_some());
        }
    }
    Ok(())
}

fn check_facts(sim: &WhichTimeout) -> Result<(), TestCaseError> {
    let f = sim.facts_now();
    check_first(sim, &f)?;
    check_others(sim, &f)?;
    check_caller(sim, &f)?;
    check_server(sim, &f)?;
    check_retry(sim, &f)
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(48) })]

    /// At the end of a run of any parameters, and at a moment part-way through it.
    #[test]
    fn every_fact_matches_the_metrics(p in any_params(), part in 0.0..1.0f64) {
        let end = SPEC.duration_for(&p).min(3_600_000) * MS;
        let mut sim = WhichTimeout::new(&p, 7, end);
        sim.advance((end as f64 * part) as Micros, 1_000_000);
        check_facts(&sim)?;
        sim.run_to_end();
        check_facts(&sim)?;
    }
}

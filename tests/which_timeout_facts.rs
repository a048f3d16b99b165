//! which-timeout's facts (issue 24, item 2): by value at the chapter's presets, and against the
//! metrics for any parameters, each claim a sentence makes with its precondition: the call's
//! sentences, the failover's (Chapter 1, Break 5) and the every-fault table's cells. No test
//! here reads the sentences: the sentence's choice is a typed value in the facts.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use resilience_lab::scenarios::which_timeout::{
    CallError, Caller, Ending, FailoverFacts, Fault, FaultRow, Hangs, Lookup, NotFirst, Outcome, Phase, Retry,
    RetryCell, SPEC, Server, TICK_MS, TimerClock, TimerKind, WhichTimeout as Model, WhichTimeoutConfig,
    WhichTimeoutFacts, WhyThen, Work, every_fault, measured_with,
};
use resilience_lab::sim::base::MAX_DURATION_MS;
use resilience_lab::sim::params::Config;
use resilience_lab::sim::{Host, MS, Micros, Model as _, Params, SEC, Simulation, Value};

type WhichTimeout = Host<Model>;

fn run(p: &Params) -> WhichTimeout {
    let mut sim = WhichTimeout::new(p, 7, SPEC.duration_for(p) * MS);
    sim.run_to_end();
    sim
}

fn facts_at(preset: &str) -> WhichTimeoutFacts {
    let sim = run(&SPEC.configured(preset, &[]));
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
    assert_eq!(first.fired_at_us, 10 * SEC, "at 10 s, on its deadline");
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
    // Issue 45, case 10: 997 ms late is 602 ticks of 499 ms (398 ms over 300 s), each tick 1 ms
    // late (602 ms), the first 3 ms short of a whole tick.
    let silent = facts_at("fetch-silent").first.and_then(|t| t.ticks).expect("undici's ticks");
    assert_eq!((silent.count, silent.first_after_us, silent.period_us), (602, 497 * MS, 500 * MS));
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
        let p = SPEC.configured(preset, &[]);
        let sim = WhichTimeout::new(&p, 7, SPEC.duration_for(&p) * MS);
        assert_eq!(sim.facts_now().caller, Caller::NotStarted, "{preset}");
    }
}

/// Issue 24, case 10: the every-fault table's retry column. A completed call has nothing to
/// retry; a call still waiting in the pool never sent its request (Chapter 2, Part 2: safe).
#[test]
fn the_fault_tables_retry_column_reads_each_calls_state() {
    let rows = every_fault(&WhichTimeoutConfig::from_params(&SPEC.configured("fetch-silent", &[])));
    let cell = |f: Fault| rows.iter().find(|r| r.fault == f).expect("every fault has a row").retry;
    // fetch-silent's settings: fetch with undici's 300 s headersTimeout and no AbortSignal.
    assert_eq!(cell(Fault::None), RetryCell::NothingToRetry);
    assert_eq!(cell(Fault::Slow), RetryCell::NothingToRetry);
    assert_eq!(cell(Fault::PoolFull), RetryCell::NotSentYet);
    assert_eq!(cell(Fault::Trickle), RetryCell::AlreadySent);
    for f in [Fault::DnsSlow, Fault::Blackhole, Fault::Refused, Fault::NoTls] {
        assert_eq!(cell(f), RetryCell::Safe, "{f:?}: failed before the request was sent");
    }
    for f in [Fault::Silent, Fault::Stall] {
        assert_eq!(cell(f), RetryCell::NeedsKey, "{f:?}: failed after the request was sent");
    }
    let pool = rows.iter().find(|r| r.fault == Fault::PoolFull).expect("row");
    assert!(matches!(pool.ending, Ending::StillOpen { phase: Phase::Pool, timeout_event: false, .. }), "{pool:?}");
}

/// Chapter 1, Break 5: the hangs end on undici's connect timeout, the pool fills, and with a
/// short connect timeout every failed connect is retried at once and every call is answered.
#[test]
fn the_failover_facts_at_the_chapters_presets() {
    let f = facts_at("ch1-break-5").failover.expect("a failover");
    assert!(matches!(f.lookup, Lookup::ReResolved { old_until_us } if old_until_us == SEC), "{f:?}");
    assert!(matches!(f.hangs, Hangs::Ended { connects: 10, .. }), "{f:?}");
    assert!(f.pool_full.is_some_and(|p| p.at_us < SEC), "{f:?}");
    assert_eq!((f.retries, f.failed, f.pending), (0, 10, 0));
    let fix = facts_at("ch1-break-5-fix").failover.expect("a failover");
    assert_eq!((fix.retries, fix.failed, fix.answered.map(|a| a.calls)), (10, 0, Some(fix.calls)));
    assert_eq!(facts_at("fetch-blackhole").failover, None);
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
    // Issue 45, case 10: the ticks that fired an undici timer add up to when it fired, and are
    // the fewest whole ticks of 499 ms, after the one that takes it in, that cover its timeout.
    match first.ticks {
        Some(t) => {
            prop_assert_eq!(clock, TimerClock::UndiciTick);
            let started = timer.fired_deadline.expect("it fired") - first.timeout_us;
            prop_assert_eq!(first.fired_at_us, started + t.first_after_us + (t.count - 1) * t.period_us);
            prop_assert!(t.first_after_us <= t.period_us, "{:?}", t);
            prop_assert!(t.count >= 2 && t.count * TICK_MS * MS >= first.timeout_us, "{:?}", t);
            prop_assert!(t.count == 2 || (t.count - 1) * TICK_MS * MS < first.timeout_us, "{:?}", t);
        }
        None => prop_assert!(clock != TimerClock::UndiciTick),
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
    // The timeline's "off" lines: exactly the timers the facts call not set, none ever armed.
    let off: Vec<TimerKind> = sim.timers_off().collect();
    let not_set: Vec<TimerKind> = f.others.iter().filter(|o| o.why == NotFirst::NotSet).map(|o| o.kind).collect();
    prop_assert_eq!(&off, &not_set);
    prop_assert!(off.iter().all(|&k| sim.timer(k).is_none()), "{:?}", off);
    Ok(())
}

/// What the caller sees against the metrics.
fn check_caller(sim: &WhichTimeout, f: &WhichTimeoutFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    prop_assert_eq!(f.phase.id(), m.phase.as_str());
    let open = m.still_open_at_end;
    // "still open" or "still waiting" exactly while the call is open; "succeeded" exactly when it completed.
    prop_assert_eq!(matches!(f.caller, Caller::Failed { .. } | Caller::Succeeded { .. }), !open);
    prop_assert_eq!(matches!(f.caller, Caller::Succeeded { .. }), m.completed_ms.is_some());
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
            // "the server answered …, so it did the work": a failed call whose server finished.
            prop_assert_eq!(Some(ms(headers_at_us)), m.response_ms);
            prop_assert!(f.error.is_some() && m.server_did_work);
        }
        Retry::KeySent { server_works } => {
            prop_assert!(f.error.is_some() && sim.request_sent_at().is_some());
            prop_assert_eq!(server_works, sim.server_done_at().is_some());
        }
    }
    Ok(())
}

/// The failover's facts against its metrics: each count the words give, and each sentence's
/// precondition (the pool full, retries made, calls not ended).
fn check_failover(sim: &WhichTimeout, f: &WhichTimeoutFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    let fo = sim.failover();
    prop_assert_eq!(f.failover.is_some(), fo.enabled());
    let Some(ff) = f.failover else { return Ok(()) };
    let FailoverFacts {
        calls,
        run_ended,
        pool_size,
        lookup,
        hangs,
        pooled,
        pool_full,
        retries,
        answered,
        failed,
        pending,
    } = ff;
    prop_assert_eq!((calls, failed, retries), (m.failover_calls, m.failover_failed, m.failover_retries));
    prop_assert_eq!(pending, calls - m.failover_ok - failed);
    prop_assert_eq!(run_ended, f.now_us >= sim.end());
    prop_assert_eq!(pool_size, fo.pool_size() as u64);
    match lookup {
        Lookup::ReResolved { old_until_us } => prop_assert!(fo.re_resolves() && old_until_us == fo.dns_switch()),
        Lookup::KeptOldAddress => prop_assert!(!fo.re_resolves()),
    }
    match hangs {
        Hangs::None => prop_assert_eq!(m.failover_connect_hangs, 0),
        Hangs::StillHanging { connects } => {
            prop_assert!(connects == m.failover_connect_hangs && connects > 0 && m.failover_connect_hang_ms.is_none())
        }
        Hangs::Ended { connects, latest_us, ended_by } => {
            prop_assert_eq!(connects, m.failover_connect_hangs);
            prop_assert_eq!(Some(ms(latest_us)), m.failover_connect_hang_ms);
            prop_assert_eq!(ended_by, fo.hang_end());
        }
    }
    // The requests on pooled connections to the old address: counted, dropped, ended by what.
    match pooled {
        Some(p) => {
            prop_assert!(p.requests + p.dropped > 0 && sim.config().pooled_to_old_ip);
            prop_assert_eq!((p.requests, p.dropped), (fo.requests_hung, fo.dropped));
            prop_assert!(p.dropped == 0 || sim.config().drop_pool_on_dns_change);
            prop_assert!(p.ended.is_none_or(|(end, _)| end == fo.request_end()));
        }
        None => prop_assert_eq!((fo.requests_hung, fo.dropped), (0, 0)),
    }
    prop_assert_eq!(pool_full.map(|p| ms(p.at_us)), m.failover_pool_full_at_ms);
    prop_assert!(pool_full.is_none_or(|p| p.waiting_max == m.failover_waiting_max));
    match answered {
        Some(a) => {
            prop_assert!(a.calls == m.failover_ok && a.calls > 0);
            prop_assert_eq!(Some(ms(a.first_at_us)), m.failover_first_ok_ms);
            prop_assert_eq!(Some(ms(a.slowest_us)), m.failover_slowest_ok_ms);
        }
        None => prop_assert_eq!(m.failover_ok, 0),
    }
    Ok(())
}

fn check_facts(sim: &WhichTimeout) -> Result<(), TestCaseError> {
    let f = sim.facts_now();
    check_first(sim, &f)?;
    check_others(sim, &f)?;
    check_caller(sim, &f)?;
    check_server(sim, &f)?;
    check_retry(sim, &f)?;
    check_failover(sim, &f)
}

/// A row of the every-fault table against the metrics of that fault's own run.
fn check_fault_row(config: &WhichTimeoutConfig, row: &FaultRow) -> Result<(), TestCaseError> {
    let config = WhichTimeoutConfig { fault: row.fault, ..config.clone() };
    prop_assert_eq!(row.chapter_ms, measured_with(&config));
    let run_ms = Model::run_length_for(&config).min(MAX_DURATION_MS);
    let mut sim = WhichTimeout::new(&config.to_params(), 0, run_ms * MS);
    sim.run_to_end();
    let m = sim.metrics_now();
    prop_assert_eq!(row.first_fired.map_or("none", |(k, _)| k.id()), m.first_fired.as_str());
    prop_assert_eq!(row.first_fired.map(|(_, t)| ms(t)), m.first_fired_ms);
    prop_assert_eq!(row.server_did_work, m.server_did_work);
    match row.ending {
        Ending::Failed { error, at_us } => {
            prop_assert!(error.id() == m.error && Some(ms(at_us)) == m.gave_up_ms, "{:?}", row)
        }
        Ending::FailedUnseen { error } => prop_assert!(error.id() == m.error && m.gave_up_ms.is_none()),
        Ending::Completed { at_us } => prop_assert_eq!(Some(ms(at_us)), m.completed_ms),
        Ending::StillOpen { at_us, phase, timeout_event } => {
            prop_assert!(m.still_open_at_end && at_us == run_ms * MS);
            prop_assert_eq!(phase.id(), m.phase.as_str());
            prop_assert_eq!(timeout_event, m.timeout_events > 0);
        }
    }
    let sent = sim.request_sent_at().is_some();
    let open = m.still_open_at_end;
    match row.retry {
        RetryCell::NothingToRetry => prop_assert!(m.completed_ms.is_some()),
        RetryCell::NotSentYet => prop_assert!(open && !sent),
        RetryCell::AlreadySent => prop_assert!(open && sent),
        RetryCell::Safe => prop_assert!(!open && m.safe_to_retry_without_key && !sent),
        RetryCell::NeedsKey => prop_assert!(!open && m.completed_ms.is_none() && !m.safe_to_retry_without_key),
    }
    Ok(())
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

    /// Frame by frame, as the page steps a run: every fact true of the moment it is read.
    #[test]
    fn every_fact_holds_frame_by_frame(p in any_params(), steps in prop::collection::vec(1u64..400_000, 1..12)) {
        let end = SPEC.duration_for(&p).min(3_600_000) * MS;
        let mut sim = WhichTimeout::new(&p, 3, end);
        for i in 0.. {
            if sim.finished() {
                break;
            }
            // Frames from a millisecond to a few minutes of simulated time.
            sim.advance(sim.now() + steps[i % steps.len()] * MS / 100, 10_000);
            if i % 7 == 0 {
                check_facts(&sim)?;
            }
        }
        check_facts(&sim)?;
    }
}

proptest! {
    // Each case runs every fault twice (the table's run and the check's): a few cases suffice.
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(8) })]

    /// The every-fault table, for any settings: each row's cells are the facts of that fault's run.
    #[test]
    fn every_fault_row_is_its_runs_facts(p in any_params()) {
        let config = WhichTimeoutConfig::from_params(&p);
        let rows = every_fault(&config);
        prop_assert_eq!(rows.iter().map(|r| r.fault).collect::<Vec<_>>(), Fault::ALL.to_vec());
        for row in &rows {
            check_fault_row(&config, row)?;
        }
    }
}

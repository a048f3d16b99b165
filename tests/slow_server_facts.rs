//! The slow server's facts (issue 24, item 2): their values at the chapter's runs, and each
//! fact and each claim the `ratio` and `answer` sentences make, checked against the metrics of
//! random runs. No test here reads the sentences.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use resilience_lab::scenarios::slow_server::{
    BChange, Busiest, SPEC, SlowServer as Model, SlowServerFacts, Spread, Why,
};
use resilience_lab::sim::{Host, MS, Params, Simulation, Value};

#[path = "strategies/slow_server.rs"]
mod strategies;
use strategies::any_params;

type SlowServer = Host<Model>;

fn run(preset: &str, sets: &[(&str, &str)]) -> SlowServer {
    let mut p = SPEC.defaults();
    p.apply_preset(SPEC.preset(preset).expect("preset exists")).unwrap();
    for (k, v) in sets {
        p.set_text(k, v).unwrap();
    }
    let mut sim = SlowServer::new(&p, 7, SPEC.duration_for(&p) * MS);
    sim.run_to_end();
    sim
}

fn facts(sim: &SlowServer) -> SlowServerFacts {
    sim.facts_now()
}

/// The chapter's run: B slowed ×5 gets its round-robin share of 50 req/s against the 20 it
/// can serve, so its queue grows and p99 goes up ×138 and keeps growing.
#[test]
fn facts_of_the_chapters_run() {
    let f = facts(&run("chapter", &[]));
    assert_eq!((f.b_change, f.why, f.spread), (BChange::Slows, Why::BShareOverloaded, Spread::RoundRobin));
    assert_eq!((f.rate, f.share, f.healthy_capacity, f.b_capacity), (150.0, 50.0, 100.0, 20.0));
    assert_eq!((f.pool_capacity, f.capacity_without_b), (220.0, 200.0));
    assert_eq!((f.b_load, f.load_without_b), (Some(2.5), Some(0.75)));
    assert_eq!((f.before_count, f.after_count), (150, 2249));
    assert_eq!((f.p99_before_ms, f.p99_after_ms), (Some(78.336), Some(10420.224)));
    // The 557 requests still waiting in B's queue at the end are the tail (issue 45, item 2):
    // counted at their waits so far, p99 after is 10,813 ms, ×138.1 (×133.0 without them).
    assert_eq!((f.p99_after_with_waiting_ms, f.after_waiting), (Some(10813.44), 557));
    assert_eq!((f.p99_ratio, f.still_growing), (Some(138.1), true));
    assert_eq!((f.b_refused, f.b_ejected_at, f.timeout), (0, None, None));
    assert_eq!((f.backlog, f.backlog_refused), (10_000, 0));
    let aware = facts(&run("least-outstanding", &[]));
    assert_eq!((aware.why, aware.spread, aware.p99_ratio), (Why::LoadAware, Spread::ByLoad, Some(3.1)));
    let two = facts(&run("two-choices", &[]));
    assert_eq!((two.why, two.p99_ratio, two.still_growing), (Why::LoadAware, Some(4.8), false));
}

/// The timeout presets: the same overloaded B, its tail capped at the 500 ms timeout; with
/// cancelling, timed-out requests leave the queues.
#[test]
fn facts_of_the_timeout_runs() {
    let t = facts(&run("timeout", &[]));
    assert_eq!(
        (t.why, t.timeout, t.timed_out, t.cancel_on_timeout),
        (Why::BShareOverloaded, Some(500 * MS), 910, false)
    );
    assert_eq!((t.p99_after_ms, t.p99_ratio), (Some(500.0), Some(6.4)));
    assert!(!t.cancels());
    let c = facts(&run("timeout-cancel", &[]));
    assert_eq!((c.timed_out, c.cancel_on_timeout, c.cancels()), (528, true, true));
}

/// B fails: health checks remove it 2 s later, and the 102 requests it refused went to the
/// others, A holding the most. Issue 24, case 3: with a minute to eject B it refuses 2,961,
/// and C holds the most (19 at once), which the facts name.
#[test]
fn facts_of_b_failing() {
    let f = facts(&run("b-fails", &[]));
    assert_eq!((f.b_change, f.why, f.b_capacity, f.b_load), (BChange::Fails, Why::BDown, 0.0, None));
    assert_eq!((f.b_refused, f.b_ejected_at, f.eject_after), (102, Some(3_000 * MS), 2_000 * MS));
    let busiest = f.busiest_other.expect("the others held requests");
    assert_eq!((busiest.server, busiest.max_queue), ('A', 12));
    assert_eq!(f.load_without_b, Some(0.75));
    let slow = facts(&run("b-fails", &[("eject_after_ms", "60000")]));
    assert_eq!((slow.b_refused, slow.b_ejected_at), (2961, Some(61_000 * MS)));
    // C served 4,872 requests of 10 ms in 66 s: 74% busy, the even split of 150 req/s over
    // the 200 the two others serve.
    let busiest = slow.busiest_other.expect("the others held requests");
    assert_eq!(
        busiest,
        Busiest { server: 'C', max_queue: 19, served: 4872, utilisation: Some(4872.0 * 10.0 / 66_000.0) }
    );
    assert_eq!(slow.p99_ratio, Some(2.5));
}

/// Issue 24, case 5: at 290 req/s with no slowdown, nothing is credited to a slowdown: B is
/// unchanged and simply near full (97% of what it serves).
#[test]
fn no_slowdown_is_credited_to_none() {
    let f = facts(&run("chapter", &[("rate", "290"), ("slowdown", "1")]));
    assert_eq!((f.b_change, f.why), (BChange::Unchanged, Why::BShareNearFull));
    assert_eq!((f.b_capacity, f.share), (100.0, 290.0 / 3.0));
    assert_eq!(f.b_load, Some(0.29 / 0.3));
    assert_eq!((f.p99_ratio, f.before_count), (Some(2.0), 312));
}

/// One server at 3,000 req/s that serves 2 a second, with a backlog of 100: the backlog fills
/// at once and nearly every arrival is refused, which the `limit` sentence's facts count.
#[test]
fn facts_of_a_full_backlog() {
    let f = facts(&run("chapter", &[("servers", "1"), ("rate", "3000"), ("service_ms", "500"), ("backlog", "100")]));
    assert_eq!((f.why, f.backlog), (Why::OneServerOverloaded, 100));
    assert!(f.backlog_refused > 50_000, "{}", f.backlog_refused);
}

/// The facts serialise for `run --json`, enums in kebab-case.
#[test]
fn the_facts_serialise() {
    let json = serde_json::to_value(facts(&run("b-fails", &[]))).unwrap();
    assert_eq!((&json["b_change"], &json["why"]), (&serde_json::json!("fails"), &serde_json::json!("b-down")));
    assert_eq!(
        (&json["busiest_other"]["server"], &json["busiest_other"]["max_queue"]),
        (&serde_json::json!("A"), &serde_json::json!(12))
    );
}

/// Each other server's name, most requests held at once and requests served, from the metrics.
fn others_max_queues(servers: &Value) -> Vec<(char, u32, u64)> {
    let Value::List(rows) = servers else { panic!("servers is not a list") };
    let field = |r: &[(&str, Value)], k: &str| r.iter().find(|(f, _)| *f == k).expect("field").1.clone();
    rows.iter()
        .enumerate()
        .filter(|(i, _)| *i != 1)
        .map(|(_, r)| {
            let Value::Text(name) = field(r, "name") else { panic!("name is not text") };
            let n = |k: &str| field(r, k).as_f64().unwrap();
            (name.chars().next().unwrap(), n("max_queue") as u32, n("served") as u64)
        })
        .collect()
}

/// Each fact against the metrics and the parameters.
fn check_facts_are_the_runs(sim: &SlowServer, p: &Params) -> Result<(), TestCaseError> {
    let (f, m) = (facts(sim), sim.metrics_now());
    prop_assert_eq!(f.p99_before_ms, m.p99_ms_before);
    prop_assert_eq!(f.p99_after_ms, m.p99_ms_after);
    prop_assert_eq!((f.before_count, f.after_count), (m.before_count, m.after_count));
    prop_assert_eq!(f.p99_ratio, m.p99_ratio);
    prop_assert_eq!((f.timed_out, f.timed_out_pct), (m.timed_out, m.timed_out_pct));
    prop_assert_eq!(f.b_refused, m.refused);
    // The `limit` sentence: the requests a full backlog refused, and the backlog's size.
    prop_assert_eq!(f.backlog_refused, m.backlog_full);
    prop_assert_eq!(f.backlog as f64, p.get("backlog"));
    prop_assert_eq!(f.b_ejected_at.map(|t| t as f64 / 1000.0), m.b_ejected_at_ms);
    prop_assert_eq!(f.rate, p.get("rate"));
    prop_assert_eq!(f.servers as f64, p.get("servers"));
    prop_assert_eq!(f.share, p.get("rate") / p.get("servers"));
    prop_assert_eq!(f.healthy_capacity, p.get("workers") * 1000.0 / p.get("service_ms"));
    prop_assert_eq!(f.pool_capacity, f.capacity_without_b + f.b_capacity);
    prop_assert_eq!(f.run_over, sim.finished());
    // Where B's load went: the other server that held the most at once.
    let others = others_max_queues(&m.servers);
    let most = others.iter().map(|(_, q, _)| *q).max().unwrap_or(0);
    match f.busiest_other {
        Some(b) => {
            prop_assert!(b.max_queue == most && others.contains(&(b.server, most, b.served)), "{:?} {:?}", b, others);
            let busy_ms = b.served as f64 * p.get("service_ms");
            let utilisation = (sim.now() > 0).then(|| busy_ms / (p.get("workers") * sim.now() as f64 / 1000.0));
            prop_assert_eq!(b.utilisation, utilisation);
        }
        None => prop_assert_eq!(most, 0),
    }
    Ok(())
}

/// Each claim's precondition: the case the answer explains, and what it says of B.
fn check_claims(f: &SlowServerFacts, p: &Params) -> Result<(), TestCaseError> {
    let fails = p.get("b_fails") != 0.0;
    // "B slowed" needs a slowdown above 1 and B up; nothing is credited to a ×1 slowdown.
    match f.b_change {
        BChange::Slows => prop_assert!(f.slowdown > 1.0 && !fails && f.b_refused == 0),
        BChange::Fails => prop_assert!(fails && f.b_load.is_none() && f.b_capacity == 0.0),
        BChange::Unchanged => prop_assert!(f.slowdown == 1.0 && !fails && f.b_capacity == f.healthy_capacity),
    }
    if f.b_change != BChange::Fails {
        prop_assert_eq!(f.b_refused, 0);
        prop_assert_eq!(f.b_ejected_at, None);
    }
    let b_load = f.b_load.unwrap_or(f64::NAN);
    let one_server = matches!(f.why, Why::OneServerOverloaded | Why::OneServerBusy | Why::OneServerFits);
    prop_assert_eq!(one_server, f.servers == 1);
    match f.why {
        Why::OneServerOverloaded => prop_assert!(f.rate > f.healthy_capacity),
        Why::OneServerBusy => prop_assert!(f.rate >= 0.9 * f.healthy_capacity && f.rate <= f.healthy_capacity),
        Why::OneServerFits => prop_assert!(f.rate < 0.9 * f.healthy_capacity),
        Why::ChangeAfterTheEnd => prop_assert!(f.slow_at >= f.end && f.after_count == 0),
        Why::ChangeNotYet => prop_assert!(f.slow_at < f.end && !f.run_over),
        Why::BDown => prop_assert_eq!(f.b_change, BChange::Fails),
        Why::PoolOverloaded => prop_assert!(f.pool_capacity < f.rate && f.b_change != BChange::Fails),
        Why::LoadAware => prop_assert!(f.spread == Spread::ByLoad && f.pool_capacity >= f.rate),
        Why::BShareFits => prop_assert!(f.spread != Spread::ByLoad && b_load < 0.9),
        Why::BShareNearFull => prop_assert!(f.spread != Spread::ByLoad && (0.9..=1.0).contains(&b_load)),
        Why::BShareOverloaded => prop_assert!(f.spread != Spread::ByLoad && b_load > 1.0),
    }
    // "The servers left can serve only …": more arrives than the others serve without B.
    if f.why == Why::BDown {
        prop_assert_eq!(f.load_without_b.map(|l| l > 1.0), Some(f.capacity_without_b < f.rate));
    }
    // "the client timeout never fired" / "timed out after …, each left its server's queue".
    if f.timeout.is_none() {
        prop_assert_eq!(f.timed_out, 0);
    }
    prop_assert_eq!(f.cancels(), f.timeout.is_some() && f.cancel_on_timeout && f.timed_out > 0);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The facts are the metrics' at any moment of any run, and the claims' preconditions hold.
    #[test]
    fn the_facts_agree_with_the_metrics(p in any_params(), seed in 0u64..1000, stop in 0.0f64..=1.0) {
        let end = SPEC.duration_for(&p).min(8_000);
        let mut sim = SlowServer::new(&p, seed, end * MS);
        sim.advance((stop * end as f64) as u64 * MS, u64::MAX);
        check_facts_are_the_runs(&sim, &p)?;
        check_claims(&facts(&sim), &p)?;
        sim.run_to_end();
        check_facts_are_the_runs(&sim, &p)?;
        check_claims(&facts(&sim), &p)?;
    }
}

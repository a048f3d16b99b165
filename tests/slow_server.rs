//! The slow-server scenario against Chapter 1, Part 3: "server B becomes 5× slower at 1 s but
//! stays healthy. Predict what happens to p99 under round robin, then watch B's queue."
//!
//! Every test runs several seeds and states its tolerance; every run also checks
//! conservation (arrived = completed + timed out + in flight).

use resilience_lab::scenarios::slow_server::{BChange, SPEC, SlowServer as Model, Why};
use resilience_lab::sim::Host;

type SlowServer = Host<Model>;
use resilience_lab::sim::{Params, SEC, Simulation, Value};

#[path = "strategies/slow_server.rs"]
mod strategies;

const SEEDS: [u64; 6] = [1, 2, 3, 4, 5, 42];

fn start(p: &Params, seed: u64, seconds: u64) -> SlowServer {
    SlowServer::new(p, seed, seconds * SEC)
}

fn run(p: &Params, seed: u64, seconds: u64) -> SlowServer {
    let mut sim = start(p, seed, seconds);
    sim.run_to_end();
    check_conservation(&sim);
    sim
}

fn value(sim: &SlowServer, key: &str) -> Value {
    sim.metrics().into_iter().find(|(k, _)| *k == key).unwrap_or_else(|| panic!("no metric {key}")).1
}

fn num(sim: &SlowServer, key: &str) -> f64 {
    value(sim, key).as_f64().unwrap_or_else(|| panic!("{key} is null"))
}

fn check_conservation(sim: &SlowServer) {
    let (arrived, completed, timed_out, in_flight) =
        (num(sim, "arrived"), num(sim, "completed"), num(sim, "timed_out"), num(sim, "in_flight_end"));
    let refused = num(sim, "backlog_full");
    assert_eq!(arrived, completed + timed_out + refused + in_flight, "conservation at {} µs", sim.now());
    assert_eq!(in_flight, sim.in_flight() as f64);
}

/// One row of the `servers` metric.
#[derive(Debug, PartialEq)]
struct Row {
    name: String,
    served: f64,
    max_queue: f64,
    final_queue: f64,
}

fn servers(sim: &SlowServer) -> Vec<Row> {
    let Value::List(rows) = value(sim, "servers") else { panic!("servers is not a list") };
    rows.iter()
        .map(|r| {
            let field = |k: &str| r.iter().find(|(f, _)| *f == k).unwrap_or_else(|| panic!("no {k}")).1.clone();
            let Value::Text(name) = field("name") else { panic!("name is not text") };
            let n = |k: &str| field(k).as_f64().unwrap_or_else(|| panic!("{k} is not a number"));
            Row { name, served: n("served"), max_queue: n("max_queue"), final_queue: n("final_queue") }
        })
        .collect()
}

/// B's backlog grows at its arrival rate minus its service rate: round robin sends B a third
/// of 150/s = 50/s, and B, 5× slower, serves 1000 / (10 ms × 5) = 20/s: 30 more per second.
/// Growth is measured from 20 s to 40 s of one run, so the warm-up around the slowdown does
/// not count. Per seed, B's departures over 20 s have a standard deviation of about 20 and
/// its (Erlang-3) arrivals about 18, so the per-second rate has one of about 1.4/s: ±15%
/// (±4.5/s) per seed is over 3 standard deviations, and the average of six seeds must be
/// within ±7% (over 4 standard errors).
#[test]
fn round_robin_b_queue_grows_without_bound_while_a_and_c_stay_short() {
    let p = SPEC.defaults();
    let expected = p.get("rate") / p.get("servers") - 1000.0 / (p.get("service_ms") * p.get("slowdown"));
    assert_eq!(expected, 30.0);
    let mut rates = vec![];
    for seed in SEEDS {
        let mut sim = start(&p, seed, 40);
        let mut b = vec![];
        for t in [10, 20, 40] {
            sim.advance(t * SEC, u64::MAX);
            check_conservation(&sim);
            b.push(num(&sim, "b_queue"));
        }
        assert!(b[0] < b[1] && b[1] < b[2], "seed {seed}: B's queue {b:?} should keep growing");
        // By 10 s, B has been slow for 9 s: about 270 waiting.
        assert!((b[0] - 9.0 * expected).abs() < 0.25 * 9.0 * expected, "seed {seed}: B at 10 s {}", b[0]);
        let rate = (b[2] - b[1]) / 20.0;
        assert!((rate - expected).abs() <= 0.15 * expected, "seed {seed}: B grows {rate}/s, expected {expected}/s");
        rates.push(rate);

        let rows = servers(&sim);
        assert_eq!(rows.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["A", "B", "C"]);
        assert_eq!(rows[1].final_queue, b[2]);
        // A and C stay at ρ = 0.5: their queues peak at 12 at most over 40 seeds of 40 s;
        // 20 is short next to B's 1,000+.
        for r in [&rows[0], &rows[2]] {
            assert!(r.max_queue <= 20.0 && r.final_queue <= 20.0, "seed {seed}: {r:?}");
        }
        assert!(rows[1].max_queue > 1000.0, "seed {seed}: {:?}", rows[1]);
    }
    let mean = rates.iter().sum::<f64>() / rates.len() as f64;
    assert!((mean - expected).abs() <= 0.07 * expected, "mean growth {mean}/s");
}

/// After the slowdown, a third of the requests wait behind B's backlog: seconds, against tens
/// of milliseconds before. "Many times": at least 50× in every seed (the smallest of 40 seeds
/// is 114× at 20 s).
#[test]
fn round_robin_p99_after_is_many_times_p99_before() {
    for seed in SEEDS {
        let sim = run(&SPEC.defaults(), seed, 20);
        let (before, after) = (num(&sim, "p99_ms_before"), num(&sim, "p99_ms_after"));
        assert!(before < 150.0, "seed {seed}: p99 before {before}");
        assert!(after >= 50.0 * before, "seed {seed}: p99 after {after} vs before {before}");
        // The median barely moves: two requests in three go to healthy servers.
        assert!(num(&sim, "p50_ms_after") < 3.0 * num(&sim, "p50_ms_before").max(10.0));
    }
}

/// A policy that looks at load keeps p99 after the slowdown within a small multiple of p99
/// before. It cannot stay at 1×: any request B still gets takes B's slow service, whose own
/// p99 is 5 × 10 ms × ln 100 ≈ 230 ms, against about 55 ms before; p99 before is measured
/// over one second only and ranges from 37 to 95 ms across seeds. Over 40 seeds the ratio
/// stays between 3× and 9×; the test asks for under 10× in every seed and under 7× on
/// average, against over 100× for round robin.
fn check_policy_keeps_p99(preset: &str) {
    let mut ratios = vec![];
    for seed in SEEDS {
        let sim = run(&SPEC.configured(preset, &[]), seed, 20);
        let (before, after) = (num(&sim, "p99_ms_before"), num(&sim, "p99_ms_after"));
        let ratio = after / before;
        assert!(ratio < 10.0, "{preset} seed {seed}: p99 after {after} vs before {before}");
        ratios.push(ratio);
        // B is not overwhelmed: its queue stays short, like A's and C's (at most 11 over 40 seeds).
        let rows = servers(&sim);
        assert!(rows.iter().all(|r| r.max_queue <= 20.0), "{preset} seed {seed}: {rows:?}");
        // ...because the balancer sends B less than its third.
        assert!(rows[1].served < 0.2 * num(&sim, "arrived"), "{preset} seed {seed}: {rows:?}");
        let slow = run(&SPEC.defaults(), seed, 20);
        assert!(after * 20.0 < num(&slow, "p99_ms_after"), "{preset} seed {seed}: not much better than round robin");
    }
    let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
    assert!(mean < 7.0, "{preset}: mean ratio {mean} ({ratios:?})");
}

#[test]
fn least_outstanding_keeps_p99_within_a_small_multiple() {
    check_policy_keeps_p99("least-outstanding");
}

#[test]
fn two_choices_keeps_p99_within_a_small_multiple() {
    check_policy_keeps_p99("two-choices");
}

/// Slow is worse than down. When B refuses connections at 1 s the balancer picks again among the
/// others, and health checks eject B at 3 s; the two left run at ρ = 0.75, whose M/M/1
/// p99 is twice that at ρ = 0.5. The last five seconds (15 to 20 s) show it: under 6× p99
/// before in every seed (at most 4.3× over 40 seeds), and under a twentieth of the slow
/// case's (which is over 10 s).
#[test]
fn b_fails_p99_recovers_once_b_is_ejected() {
    for seed in SEEDS {
        let p = SPEC.configured("b-fails", &[]);
        let mut sim = start(&p, seed, 20);
        sim.advance(SEC + 1, u64::MAX);
        let b_served_when_down = servers(&sim)[1].served;
        assert!(sim.servers()[1].is_down() && !sim.servers()[1].is_ejected());
        sim.run_to_end();
        check_conservation(&sim);
        assert_eq!(sim.ejected_at(), Some(3 * SEC));
        assert!(sim.servers()[1].is_ejected());
        let rows = servers(&sim);
        assert_eq!(rows[1].served, b_served_when_down, "seed {seed}: a down B serves nothing");
        assert_eq!(rows[1].final_queue, 0.0);
        assert!(num(&sim, "refused") > 0.0);

        let slow = run(&SPEC.defaults(), seed, 20);
        let (before, recent) = (num(&sim, "p99_ms_before"), num(&sim, "p99_ms_recent"));
        let slow_recent = num(&slow, "p99_ms_recent");
        assert!(recent < 6.0 * before, "seed {seed}: p99 last 5 s {recent} vs before {before}");
        assert!(recent * 20.0 < slow_recent, "seed {seed}: down {recent} vs slow {slow_recent}");
        assert!(num(&sim, "p99_ms_after") * 10.0 < num(&slow, "p99_ms_after"), "seed {seed}: slow is worse than down");
    }
}

/// A refused connection is retried through the balancer's policy among the servers not tried
/// (nginx `proxy_next_upstream error` marks the peer tried and picks again,
/// src/http/ngx_http_upstream_round_robin.c; Envoy retries choose a host through the load
/// balancer): with B down for 10 s before its ejection, A and C share B's part evenly, where
/// sending it to the next index gave C 1,711 requests to A's 1,214.
#[test]
fn a_refused_request_is_repicked_among_the_healthy_servers() {
    for policy in ["round-robin", "random", "least-outstanding", "two-choices"] {
        for seed in [1, 7, 42] {
            let p = SPEC.configured("b-fails", &[("eject_after_ms", "10000"), ("policy", policy)]);
            let sim = run(&p, seed, SPEC.duration_for(&p) / 1000);
            let rows = servers(&sim);
            let (a, c) = (rows[0].served, rows[2].served);
            assert!((a - c).abs() < 0.06 * (a + c) / 2.0, "{policy} seed {seed}: A {a}, C {c}");
            assert!(num(&sim, "refused") > 0.0);
        }
    }
}

/// Least outstanding counts what the balancer has open on each server: nginx's least_conn
/// compares `peer->conns`, which drops when the client aborts and the proxy closes the
/// upstream (proxy_ignore_client_abort off, the default,
/// https://nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_ignore_client_abort). The
/// server, never told, may still be working on it: its queue counts it, the balancer no longer.
#[test]
fn least_outstanding_does_not_count_work_whose_client_left() {
    for seed in SEEDS {
        let p = SPEC.configured("least-outstanding", &[("timeout_ms", "100")]);
        let mut sim = start(&p, seed, 20);
        let mut saw_abandoned_work = false;
        while !sim.finished() {
            sim.advance(sim.end(), 200);
            let waiting: u32 = sim.servers().iter().map(|s| s.proxied()).sum();
            assert_eq!(
                waiting as f64,
                num(&sim, "in_flight_end"),
                "seed {seed}: the balancer counts the waiting clients"
            );
            for s in sim.servers() {
                assert!(s.proxied() <= s.outstanding());
                saw_abandoned_work |= s.proxied() < s.outstanding();
            }
        }
        assert!(saw_abandoned_work, "seed {seed}: a server still worked for a client that left");
    }
}

/// "Timeouts stop the waiter, not the worker": with a 500 ms client timeout and no
/// cancellation, the servers do exactly what they did without a timeout (the same seed gives
/// the same server-side numbers), B's queue grows as before, and timed-out requests pile up:
/// after the slowdown nearly everything sent to B (50/s) times out.
#[test]
fn timeout_without_cancellation_leaves_b_queue_growing() {
    for seed in SEEDS {
        let p = SPEC.configured("timeout", &[]);
        assert_eq!(p.get("timeout_ms"), 500.0);
        let mut sim = start(&p, seed, 40);
        let mut timed_out = vec![];
        let mut b = vec![];
        for t in [10, 20, 40] {
            sim.advance(t * SEC, u64::MAX);
            check_conservation(&sim);
            timed_out.push(num(&sim, "timed_out"));
            b.push(num(&sim, "b_queue"));
        }
        assert!(b[2] - b[1] >= 0.85 * 30.0 * 20.0, "seed {seed}: B's queue {b:?}");
        // 50/s reach B; at most 20/s of them (B's service rate) could finish in time.
        let per_s = (timed_out[2] - timed_out[1]) / 20.0;
        assert!((30.0..=52.0).contains(&per_s), "seed {seed}: {per_s} timeouts/s ({timed_out:?})");
        assert!(timed_out[0] < timed_out[1] && timed_out[1] < timed_out[2]);
        assert_eq!(num(&sim, "p99_ms_after"), 500.0, "a client never waits longer than its timeout");

        let no_timeout = run(&SPEC.defaults(), seed, 40);
        assert_eq!(servers(&sim), servers(&no_timeout), "seed {seed}: servers work the same with a timeout");
    }
}

/// With cancellation, a request leaves B when its client leaves, so B holds at most about half
/// a second of its arrivals (50/s × 0.5 s = 25, Erlang-spaced) plus the one in service; at
/// most 37 over 40 seeds, and the test allows 50 against over 1,000 without cancellation.
/// B's work then goes to requests someone still waits for, so more requests complete.
#[test]
fn timeout_with_cancellation_keeps_b_queue_bounded() {
    for seed in SEEDS {
        let mut sim = start(&SPEC.configured("timeout-cancel", &[]), seed, 40);
        sim.advance(20 * SEC, u64::MAX);
        let b20 = num(&sim, "b_queue");
        sim.run_to_end();
        check_conservation(&sim);
        let rows = servers(&sim);
        assert!(rows[1].max_queue <= 50.0 && b20 <= 50.0, "seed {seed}: B {:?}, at 20 s {b20}", rows[1]);
        assert!(num(&sim, "timed_out") > 0.0);

        let no_cancel = run(&SPEC.configured("timeout", &[]), seed, 40);
        assert!(servers(&no_cancel)[1].final_queue > 1000.0);
        assert!(
            num(&sim, "completed") > 1.1 * num(&no_cancel, "completed"),
            "seed {seed}: cancelling should let more requests complete"
        );
    }
}

/// Conservation at every step of a run that exercises every path: B fails with timeouts and
/// cancellation, checked after every few events.
#[test]
fn conservation_holds_at_every_step() {
    for (preset, set) in [
        ("b-fails", &[("timeout_ms", "200"), ("cancel_on_timeout", "true")][..]),
        ("b-fails", &[("timeout_ms", "200")][..]),
        ("timeout-cancel", &[("workers", "3"), ("policy", "two-choices")][..]),
        ("chapter", &[("servers", "1")][..]),
        ("b-fails", &[][..]),
    ] {
        let mut sim = start(&SPEC.configured(preset, set), 9, 6);
        while !sim.finished() {
            sim.advance(sim.end(), 37);
            check_conservation(&sim);
        }
        let total_queued: u32 = sim.servers().iter().map(|s| s.outstanding()).sum();
        if !SPEC.configured(preset, set).flag("cancel_on_timeout")
            && SPEC.configured(preset, set).get("timeout_ms") == 0.0
        {
            assert_eq!(total_queued as u64, sim.in_flight(), "{preset}: every waiting client is at a server");
        }
    }
}

/// The charts keep the whole run in bounded memory: an hour at the defaults still fits in the
/// series' 1,200 points, from the start to the end.
#[test]
fn charts_stay_bounded_over_a_long_run() {
    let sim = run(&SPEC.defaults(), 1, 3600);
    let charts = sim.charts();
    for (len, first, last) in [
        (charts.queues.len(), charts.queues.times_ms().first(), charts.queues.times_ms().last()),
        (charts.latency.len(), charts.latency.times_ms().first(), charts.latency.times_ms().last()),
        (charts.in_flight.len(), charts.in_flight.times_ms().first(), charts.in_flight.times_ms().last()),
    ] {
        assert!((600..=1200).contains(&len), "{len} points");
        assert_eq!(first, Some(&0.0));
        assert!(*last.unwrap() > 3_500_000.0);
    }
    // B's column of the queue chart ends where B's queue is.
    let b_last = charts.queues.last().unwrap().1.depth[1];
    assert!((b_last - num(&sim, "b_queue")).abs() < 100.0, "{b_last}");
}

/// A server holds at most its backlog: past it, new connections are refused and counted, so an
/// overload as bad as any setting allows keeps the model's state bounded.
#[test]
fn a_full_backlog_refuses_and_counts_instead_of_growing() {
    let p =
        SPEC.configured("chapter", &[("servers", "1"), ("rate", "3000"), ("service_ms", "500"), ("backlog", "100")]);
    let sim = run(&p, 1, 60);
    let served = &servers(&sim)[0];
    assert!(
        served.max_queue <= 101.0,
        "the queue stays within its backlog (plus the one in service): {}",
        served.max_queue
    );
    assert!(num(&sim, "backlog_full") > 100_000.0, "most of 180,000 arrivals are refused");
    // The `limit` sentence is rendered from these facts: the refusals and the backlog.
    let f = sim.facts_now();
    assert_eq!((f.backlog_refused, f.backlog), (num(&sim, "backlog_full") as u64, 100));
    assert!(sim.words_now().limit.is_some(), "the reading says so");
}

fn prediction(sim: &SlowServer) -> Option<String> {
    sim.words_now().prediction
}

/// The page's prediction question is answered from the first seconds after the slowdown, while
/// the p99 window still reaches back before it: at the defaults B's queue grows from the start,
/// so the run bears out "explodes" at every moment the page can be paused (it used to fit none
/// of the answers until 7 s); a client timeout that caps the tail bears out none of them.
#[test]
fn the_prediction_is_answered_from_the_first_seconds_after_the_slowdown() {
    let mut sim = start(&SPEC.defaults(), 1, 30);
    for t in [2, 3, 4, 5, 6, 8, 12, 20, 30] {
        while sim.now() < t * SEC {
            sim.advance(t * SEC, u64::MAX);
        }
        assert_eq!(prediction(&sim).as_deref(), Some("explodes"), "at {t} s");
    }
    assert_eq!(prediction(&run(&SPEC.configured("timeout", &[]), 1, 30)), None, "p99 is capped at the timeout");
    assert_eq!(prediction(&run(&SPEC.configured("least-outstanding", &[]), 1, 30)).as_deref(), Some("double"));
}

fn run_ms(p: &Params, seed: u64, ms: u64) -> SlowServer {
    let mut sim = SlowServer::new(p, seed, ms * resilience_lab::sim::MS);
    sim.run_to_end();
    check_conservation(&sim);
    sim
}

/// "B fails" with health checks that take a minute: in a 20 s run B is never ejected, the
/// metric says so (null) and so do the facts the answer is rendered from (not ejected, the run
/// over: "had not by the end of the run"); at the scenario's own run length, which follows the
/// ejection, B is ejected and the facts give the moment the metric gives.
#[test]
fn a_late_ejection_is_reported_only_when_it_happens() {
    let p = SPEC.configured("b-fails", &[("eject_after_ms", "60000")]);
    let short = run_ms(&p, 1, 20_000);
    assert_eq!(value(&short, "b_ejected_at_ms"), Value::Null);
    let f = short.facts_now();
    assert_eq!((f.why, f.b_ejected_at, f.run_over), (Why::BDown, None, true));
    assert_eq!(f.eject_after, 60 * SEC);

    let length = SPEC.duration_for(&p);
    assert!(length >= 66_000, "the run covers the ejection and what follows it: {length} ms");
    let full = run_ms(&p, 1, length);
    let at = num(&full, "b_ejected_at_ms");
    assert_eq!(at, 61_000.0, "B fails at 1 s and is ejected 60 s later");
    assert_eq!((full.facts_now().why, full.facts_now().b_ejected_at), (Why::BDown, Some(61 * SEC)));
}

/// Issue 24, case 5: with a slowdown of ×1 nothing is credited to a slowdown. The sentences
/// say "slowed", "now" or "before the slowdown" only of a B that `Slows`; an `Unchanged` B
/// gets the ratio sentence that says what the "before" window is (the run's start, from
/// empty queues); at 290 req/s B's share nears what it serves, at 320 the pool's 300 fall short.
#[test]
fn no_slowdown_is_credited_to_a_slowdown_of_one() {
    for (rate, why) in [("290", Why::BShareNearFull), ("320", Why::PoolOverloaded)] {
        let p = SPEC.configured("chapter", &[("rate", rate), ("slowdown", "1")]);
        let sim = run_ms(&p, 7, SPEC.duration_for(&p));
        let f = sim.facts_now();
        assert_eq!((f.b_change, f.why, f.slowdown), (BChange::Unchanged, why, 1.0), "rate {rate}");
        assert_eq!(f.b_capacity, f.healthy_capacity, "rate {rate}");
        assert_eq!((f.p99_ratio, f.slow_at), (value(&sim, "p99_ratio").as_f64(), SEC), "rate {rate}");
    }
}

/// Issue 24, case 3: B refuses and is ejected only after 60 s; the reading is B down (not B
/// slow), and it names the server its load went to, with that server's backlog from the run.
#[test]
fn a_slow_ejection_names_where_b_load_went() {
    let p = SPEC.configured("b-fails", &[("eject_after_ms", "60000")]);
    let sim = run_ms(&p, 7, SPEC.duration_for(&p));
    let f = sim.facts_now();
    assert_eq!((f.b_change, f.why), (BChange::Fails, Why::BDown));
    let others: Vec<Row> = servers(&sim).into_iter().filter(|r| r.name != "B").collect();
    let most = others.iter().map(|r| r.max_queue).fold(0.0, f64::max);
    let busiest = others.iter().find(|r| r.max_queue == most).unwrap();
    let named = f.busiest_other.expect("the others held requests");
    assert_eq!((named.server.to_string(), named.max_queue as f64), (busiest.name.clone(), most));
    assert_eq!(named.served as f64, busiest.served);
}

/// One server at 150 req/s against the 100 it can serve: the answer says it cannot keep up and
/// by how much its queue grows, not merely that there is no B.
#[test]
fn one_overloaded_server_is_called_overloaded() {
    let sim = run(&SPEC.configured("chapter", &[("servers", "1")]), 1, 20);
    let f = sim.facts_now();
    assert_eq!((f.why, f.healthy_capacity, f.rate), (Why::OneServerOverloaded, 100.0, 150.0));
    assert!(!f.cancels(), "no timeout takes work off the queue, so it grows by rate - capacity");
    assert!(num(&sim, "p99_ratio") > 4.0, "and p99 does rise: ×{}", num(&sim, "p99_ratio"));
}

/// A 30 s timeout that no request reaches: the answer says it never fired, and none timed out.
#[test]
fn a_timeout_that_never_fires_says_so() {
    let sim = run(&SPEC.configured("chapter", &[("timeout_ms", "30000")]), 1, 20);
    assert_eq!(num(&sim, "timed_out"), 0.0);
    let f = sim.facts_now();
    assert_eq!((f.timeout, f.timed_out, f.cancels()), (Some(30 * SEC), 0, false));
}

/// A 10 ms timeout that most requests hit: the timeout rate sits beside p99, and the reading
/// says a timed-out request counts as its timeout, which is why p99 cannot rise above it.
#[test]
fn a_timeout_most_requests_hit_shows_its_rate_and_how_it_counts() {
    let sim = run(&SPEC.configured("chapter", &[("timeout_ms", "10")]), 1, 20);
    let share = num(&sim, "timed_out_pct");
    assert!(share > 50.0, "most requests time out: {share}%");
    assert!((share - 100.0 * num(&sim, "timed_out") / num(&sim, "arrived")).abs() < 0.1);
    let f = sim.facts_now();
    assert_eq!((f.timeout, f.timed_out_pct), (Some(10 * resilience_lab::sim::MS), sim.metrics_now().timed_out_pct));
    assert_eq!(f.timed_out as f64, num(&sim, "timed_out"));
    assert!(num(&sim, "p99_ms_after") <= 10.0);
}

/// "p99 before" rests on the requests before the slowdown, and the reading says how many; the
/// ratio it quotes is the metric the card shows, computed once (the sentence is rendered from
/// these facts).
#[test]
fn the_ratio_sentence_counts_its_requests_and_quotes_the_cards_ratio() {
    for preset in ["chapter", "least-outstanding"] {
        let sim = run(&SPEC.configured(preset, &[]), 1, 20);
        let f = sim.facts_now();
        let before = num(&sim, "before_count") as u64;
        assert!((100..=200).contains(&before), "about 150 requests in the first second: {before}");
        assert_eq!((f.b_change, f.before_count), (BChange::Slows, before), "{preset}");
        assert_eq!(f.p99_ratio, Some(num(&sim, "p99_ratio")), "{preset}");
        assert!(sim.words_now().ratio.is_some(), "{preset}");
    }
}

/// What the page's three answers mean, and which one a run bears out.
#[test]
fn each_prediction_needs_its_ratio_and_its_trend() {
    use resilience_lab::scenarios::slow_server::prediction;
    assert_eq!(prediction(1.2, false), Some("same"));
    assert_eq!(prediction(2.5, false), Some("double"));
    assert_eq!(prediction(2.5, true), None, "rising past double: not settled yet");
    assert_eq!(prediction(9.0, true), Some("explodes"));
    assert_eq!(prediction(9.0, false), None, "high but recovered, as when B is ejected");
}

/// The run covers what the parameters set in motion: a slowdown anywhere in its range is
/// followed by ten seconds of its effect; an explicit duration still wins (the CLI and the URL).
#[test]
fn the_run_follows_the_slowdown_and_the_ejection() {
    assert_eq!(SPEC.duration_for(&SPEC.defaults()), 20_000);
    let late = SPEC.configured("chapter", &[("slow_at_ms", "600000")]);
    assert_eq!(SPEC.duration_for(&late), 610_000);
    let ejected = SPEC.configured("b-fails", &[("slow_at_ms", "30000"), ("eject_after_ms", "60000")]);
    assert_eq!(SPEC.duration_for(&ejected), 95_000);
}

mod readings {
    use super::*;
    use proptest::prelude::*;
    use resilience_lab::scenarios::slow_server::prediction;
    use resilience_lab::sim::{MS, Model};
    use strategies::any_params;

    /// Every claim of the reading against the metrics and the configuration of the same
    /// moment, through the facts each sentence is rendered from.
    fn check(sim: &SlowServer) -> Result<(), TestCaseError> {
        let (f, words, c) = (sim.facts_now(), sim.words_now(), sim.config());
        // "Health checks removed B at …" / "… had not by the end" / "they have not yet".
        prop_assert_eq!(f.b_ejected_at.map(|t| t as f64 / 1000.0), value(sim, "b_ejected_at_ms").as_f64());
        // "the client timeout never fired" / "… timed out after …".
        prop_assert_eq!(f.timed_out as f64, num(sim, "timed_out"));
        // "cannot keep up": what the servers serve, computed here from the configuration.
        if matches!(f.why, Why::OneServerOverloaded | Why::PoolOverloaded) {
            let can = c.workers as f64 * 1000.0 / c.service_ms
                * if c.servers > 1 { c.servers as f64 - 1.0 + 1.0 / c.slowdown } else { 1.0 };
            prop_assert!(can < c.rate, "{:?}: capacity {} < rate {}", f.why, can, c.rate);
        }
        // A slowdown is credited only where B slowed (issue 24, case 5): "with B slowed",
        // "Even slowed", "is now", "can now serve", "before the slowdown" need `Slows`.
        prop_assert_eq!(f.b_change == BChange::Slows, c.slowdown > 1.0 && !c.b_fails);
        prop_assert_eq!(words.limit.is_some(), num(sim, "backlog_full") > 0.0);
        prop_assert_eq!(f.backlog_refused as f64, num(sim, "backlog_full"));
        let ratio = value(sim, "p99_ratio").as_f64();
        prop_assert_eq!(ratio.is_some(), words.ratio.is_some());
        match (ratio, words.prediction.as_deref()) {
            (None, said) => prop_assert_eq!(said, None),
            (Some(_), None) => {}
            (Some(r), Some(said)) => {
                prop_assert!([Some("same"), prediction(r, true), prediction(r, false)].contains(&Some(said)));
                prop_assert!(said != "same" || r < 1.5);
                prop_assert!(said != "explodes" || r >= 4.0);
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(48) })]

        #[test]
        fn the_readings_are_true_of_the_metrics(p in any_params(), seed in 0u64..1000, length in 1_000u64..6_000) {
            let mut sim = SlowServer::new(&p, seed, length * MS);
            while !sim.finished() {
                sim.advance(sim.now() + 700 * MS, u64::MAX);
                check(&sim)?;
            }
        }
    }
}

/// The figure's picture (issue 44) draws what the model holds: each server's dots are its
/// waiting requests and busy workers, counted as `run --json` counts them, and the dots on their
/// way are requests sent in the last 300 ms.
mod picture {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;
    use resilience_lab::scenarios::slow_server::MOST_PER_LANE;
    use resilience_lab::sim::{MS, Model};
    use strategies::any_params;

    fn check(sim: &SlowServer) -> Result<(), TestCaseError> {
        let picture = sim.picture(sim.now());
        let rows = servers(sim);
        prop_assert_eq!(picture.servers.len(), rows.len());
        for (drawn, row) in picture.servers.iter().zip(&rows) {
            prop_assert_eq!(drawn.name.to_string(), row.name.clone());
            prop_assert_eq!(drawn.outstanding() as f64, row.final_queue);
            prop_assert_eq!(drawn.line.len(), (drawn.waiting as usize).min(600));
            prop_assert!(drawn.in_service.len() as u32 <= drawn.workers);
        }
        prop_assert_eq!(picture.servers.get(1).map(|b| b.outstanding() as f64), value(sim, "b_queue").as_f64());
        prop_assert_eq!(picture.timed_out_total as f64, num(sim, "timed_out"));
        for &(server, along) in picture.sent.iter().chain(&picture.timed_out) {
            prop_assert!((server as usize) < rows.len());
            prop_assert!((0.0..=1.0).contains(&along), "{along}");
        }
        // Every move of the window is drawn, or a sample of at most MOST_PER_LANE per lane.
        for (drawn, recent) in [(&picture.sent, picture.sent_recent), (&picture.timed_out, picture.timed_out_recent)] {
            prop_assert!(drawn.len() <= recent);
            for lane in 0..rows.len() as u8 {
                let on_lane = drawn.iter().filter(|(s, _)| *s == lane).count();
                prop_assert!(on_lane <= MOST_PER_LANE, "{} on lane {}", on_lane, lane);
            }
            if recent <= MOST_PER_LANE {
                prop_assert_eq!(drawn.len(), recent, "a quiet window is drawn whole");
            }
        }
        // No client gives up without a timeout, and none is drawn leaving before it could.
        if sim.config().timeout_ms == 0.0 {
            prop_assert!(picture.timed_out.is_empty());
            prop_assert!(picture.servers.iter().all(|s| !s.line.contains(&true) && !s.in_service.contains(&true)));
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(32) })]

        #[test]
        fn the_picture_is_the_models_state(p in any_params(), seed in 0u64..1000, length in 1_000u64..6_000) {
            let mut sim = SlowServer::new(&p, seed, length * MS);
            while !sim.finished() {
                sim.advance(sim.now() + 450 * MS, u64::MAX);
                check(&sim)?;
            }
        }
    }

    /// At 3,000 req/s a lane would hold about 300 dots: it draws a sample of at most
    /// MOST_PER_LANE, and says so; at the chapter's 150 req/s every request is drawn, and
    /// every client giving up at B with the chapter's timeout.
    #[test]
    fn a_busy_lane_draws_a_sample_and_a_quiet_one_every_request() {
        let mut p = SPEC.defaults();
        p.set("rate", 3000.0);
        let mut busy = start(&p, 1, 5);
        busy.advance(2 * SEC, u64::MAX);
        let picture = busy.picture(busy.now());
        assert!(picture.sampled() && picture.sent_recent > 800, "{} sent", picture.sent_recent);
        for lane in 0..3u8 {
            let drawn = picture.sent.iter().filter(|(s, _)| *s == lane).count();
            assert!(drawn > MOST_PER_LANE / 2 && drawn <= MOST_PER_LANE, "lane {lane}: {drawn}");
        }
        for preset in ["chapter", "timeout", "timeout-cancel", "least-outstanding"] {
            let mut quiet = start(&SPEC.configured(preset, &[]), 1, 20);
            for _ in 0..40 {
                quiet.advance(quiet.now() + 450 * MS, u64::MAX);
                let picture = quiet.picture(quiet.now());
                let (sent, gave_up) =
                    ((picture.sent.len(), picture.sent_recent), (picture.timed_out.len(), picture.timed_out_recent));
                assert!(!picture.sampled(), "{preset} at {} µs: sent {sent:?}, gave up {gave_up:?}", quiet.now());
            }
        }
    }

    /// The chapter's run at 5 s: B's line is long, A's and C's short; requests are on their way
    /// to every server (round robin: about a third each of 150/s over 300 ms, 15 each).
    #[test]
    fn in_the_chapters_run_b_is_the_long_line() {
        let mut sim = start(&SPEC.defaults(), 1, 20);
        sim.advance(5 * SEC, u64::MAX);
        let picture = sim.picture(sim.now());
        let [a, b, c] = [0, 1, 2].map(|i| picture.servers[i].waiting);
        assert!(b > 60 && a < 10 && c < 10, "A {a}, B {b}, C {c}");
        assert_eq!(picture.servers[1].slowdown, 5.0);
        for server in 0..3u8 {
            let on_way = picture.sent.iter().filter(|(s, _)| *s == server).count();
            assert!((5..=30).contains(&on_way), "{on_way} on their way to server {server}");
        }
        let drawn = picture.drawn_json();
        assert!(drawn.starts_with(&format!("{{\"b_queue\":{},\"timed_out\":0,", b + 1)), "{drawn}");
    }

    /// With a client timeout and no cancel, B's line fills with requests whose client has left:
    /// the server still works on them, and the picture draws them apart.
    #[test]
    fn a_timeout_leaves_work_for_nobody_in_bs_line() {
        let mut sim = start(&SPEC.configured("timeout", &[]), 1, 20);
        sim.advance(8 * SEC, u64::MAX);
        let picture = sim.picture(sim.now());
        let b = &picture.servers[1];
        let left = b.line.iter().filter(|left| **left).count();
        assert!(left > b.line.len() / 2, "{left} of {} waiting for nobody", b.line.len());
        assert!(!picture.timed_out.is_empty(), "clients are giving up");
    }
}

/// The tail counts the requests still waiting (issue 45, item 2): "p99 after the slowdown"
/// counts each request sent after it whose client still waits at its wait so far. At the end
/// of the chapter's run 576 requests wait in B's queue, about a fifth of those sent after 1 s;
/// without them the p99 after is 10,551 ms, with them 11,338 ms (×200.3 of before, not ×186.4).
#[test]
fn the_tail_after_the_slowdown_counts_the_requests_still_waiting() {
    let sim = run(&SPEC.defaults(), 1, 20);
    assert_eq!((num(&sim, "after_count"), num(&sim, "after_waiting")), (2247.0, 576.0));
    assert_eq!(num(&sim, "after_waiting"), num(&sim, "in_flight_end"), "every waiting request was sent after 1 s");
    assert_eq!((num(&sim, "p99_ms_after"), num(&sim, "p99_ms_after_with_waiting")), (10551.3, 11337.7));
    assert_eq!(num(&sim, "p99_ratio"), 200.3);
    let f = sim.facts_now();
    assert_eq!((f.after_count, f.after_waiting, f.p99_ratio), (2247, 576, Some(200.3)));
    let said = sim.words_now().ratio.expect("a ratio at the end");
    assert!(
        said.ends_with(
            "to 11,338 ms after it (2,823 requests): ×200.3. 576 of the 2,823 are still waiting, each counted at its wait so far: the least it will be."
        ),
        "{said}"
    );
    // A policy that keeps B's queue short leaves few waiting, and they barely move its tail.
    let aware = run(&SPEC.configured("least-outstanding", &[]), 1, 20);
    let (completed, counted) = (num(&aware, "p99_ms_after"), num(&aware, "p99_ms_after_with_waiting"));
    assert!(
        num(&aware, "after_waiting") < 10.0 && (counted - completed).abs() <= 0.02 * completed,
        "{completed} {counted}"
    );
}

/// At the end of the chapter's run the requests still waiting in B's queue are the tail:
/// counting them raises p99 after the slowdown on every seed. Not at every moment, nor in
/// every run: where a FIFO queue cannot keep up, the requests that finished are its oldest and
/// those still waiting younger, so their waits so far can be below the finished p99 though
/// they will end above it (the chapter's run at 3.5 s on seed 5: 1,450 ms counted, 1,466 ms
/// finished). The counted p99 is then the lower, and still the least the tail will be, as the
/// card says (each wait counted so far only grows, `Histogram::quantile_with`'s test); the
/// finished-only one bounds nothing.
#[test]
fn at_the_end_of_the_chapters_run_the_waiting_are_the_tail() {
    for seed in SEEDS {
        let sim = run(&SPEC.defaults(), seed, 20);
        let (finished, counted) = (num(&sim, "p99_ms_after"), num(&sim, "p99_ms_after_with_waiting"));
        let waiting = num(&sim, "after_waiting");
        assert!(waiting > 400.0, "seed {seed}: {waiting} waiting");
        assert!(counted > finished, "seed {seed}: {counted} <= {finished}");
    }
}

/// At any moment of any run: the p99 after the slowdown counts exactly the requests whose
/// client still waits, is the finished-only p99 when none wait, and the ratio the page quotes
/// divides the two cards, and the sentence quotes the card.
mod waiting {
    use super::*;
    use proptest::prelude::*;
    use resilience_lab::sim::MS;
    use strategies::any_params;

    fn check(sim: &SlowServer) -> Result<(), TestCaseError> {
        let waiting = num(sim, "after_waiting");
        let (finished, counted) =
            (value(sim, "p99_ms_after").as_f64(), value(sim, "p99_ms_after_with_waiting").as_f64());
        prop_assert!(waiting <= num(sim, "in_flight_end"));
        if sim.now() <= sim.slow_at() {
            prop_assert_eq!(waiting, 0.0, "nothing sent after the slowdown yet");
        }
        if waiting == 0.0 {
            prop_assert_eq!(counted, finished);
        } else {
            prop_assert!(counted.is_some());
        }
        let before = value(sim, "p99_ms_before").as_f64();
        let ratio = value(sim, "p99_ratio").as_f64();
        match (before, counted) {
            (Some(b), Some(a)) if b > 0.0 => prop_assert_eq!(ratio, Some((a / b * 10.0).round() / 10.0)),
            _ => prop_assert_eq!(ratio, None),
        }
        let f = sim.facts_now();
        prop_assert_eq!((f.after_waiting as f64, f.p99_ratio), (waiting, ratio));
        if let Some(said) = sim.words_now().ratio {
            let after = resilience_lab::format::ms(counted.unwrap());
            prop_assert!(said.contains(&format!("{after} after")), "{} does not quote {}", said, after);
            prop_assert_eq!(said.contains("still waiting"), waiting > 0.0);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(48) })]

        #[test]
        fn the_tail_counts_who_still_waits(p in any_params(), seed in 0u64..1000, length in 1_000u64..6_000, step in 100u64..900) {
            let mut sim = SlowServer::new(&p, seed, length * MS);
            while !sim.finished() {
                sim.advance(sim.now() + step * MS, u64::MAX);
                check(&sim)?;
            }
        }
    }
}

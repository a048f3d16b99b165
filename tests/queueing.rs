//! The engine against queueing theory, through the slow-server scenario with the slowdown
//! switched off (`slowdown = 1`, `slow_at_ms = 0`, so every request counts as "after" and
//! the `*_after` percentiles cover the whole run).
//!
//! Tolerances come from the spread of independent seeds. Response times of a queue are
//! strongly autocorrelated (the relaxation time of an M/M/1 queue is about
//! 1 / (μ(1 − √ρ)²): 0.12 s at ρ = 0.5, 0.9 s at ρ = 0.8), so the standard error is far
//! larger than σ/√n. Measured over 20 seeds, one 1,200 s run (60,000 to 96,000 requests)
//! has a standard deviation of 1.6% (mean) and 2.7% (p99) at ρ = 0.5, and 2.9% (mean) and
//! 7.8% (p99) at ρ = 0.8. Each check averages several seeds and allows about 3.5 to 5
//! standard errors of that average, plus the histogram's bucket error (under 0.8%).
//! Every run is seeded, so the tests are deterministic; the tolerances say how far the
//! result may be from theory without the seeds having been picked to pass.

use resilience_lab::scenarios::slow_server::SPEC;
use resilience_lab::sim::Params;

/// Service rate of one worker: `service_ms` = 10 ms, so μ = 100 per second.
const MU: f64 = 100.0;

struct Config<'a> {
    rate: f64,
    servers: u32,
    workers: u32,
    dist: &'a str,
    policy: &'a str,
    extra: &'a [(&'a str, &'a str)],
}

impl Config<'_> {
    fn mm1(rate: f64) -> Config<'static> {
        Config { rate, servers: 1, workers: 1, dist: "exponential", policy: "round-robin", extra: &[] }
    }

    fn params(&self) -> Params {
        let mut p = SPEC.defaults();
        let rate = self.rate.to_string();
        let servers = self.servers.to_string();
        let workers = self.workers.to_string();
        let base = [
            ("rate", rate.as_str()),
            ("servers", servers.as_str()),
            ("workers", workers.as_str()),
            ("service_ms", "10"),
            ("service_dist", self.dist),
            ("policy", self.policy),
            ("slowdown", "1"),
            ("slow_at_ms", "0"),
        ];
        for (k, v) in base.iter().chain(self.extra) {
            p.set_text(k, v).unwrap_or_else(|e| panic!("{k}={v}: {e}"));
        }
        p
    }
}

struct Run {
    mean_ms: f64,
    p50_ms: f64,
    p99_ms: f64,
    mean_in_flight: f64,
    littles_law: f64,
}

fn run(config: &Config, seed: u64, seconds: u64) -> Run {
    let mut sim = SPEC.start(&config.params(), seed, seconds * 1000);
    sim.run_to_end();
    let m = sim.metrics();
    let get = |key: &str| {
        m.iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.as_f64())
            .unwrap_or_else(|| panic!("metric {key} missing or null"))
    };
    let arrived = get("arrived");
    let ended = get("completed") + get("timed_out") + get("backlog_full");
    assert_eq!(arrived, ended + get("in_flight_end"), "conservation");
    Run {
        mean_ms: get("mean_ms"),
        p50_ms: get("p50_ms_after"),
        p99_ms: get("p99_ms_after"),
        mean_in_flight: get("mean_in_flight"),
        littles_law: get("littles_law_in_flight"),
    }
}

/// Mean, p50 and p99 of response time averaged over `seeds` runs.
fn averaged(config: &Config, seeds: u64, seconds: u64) -> (f64, f64, f64) {
    let runs: Vec<Run> = (1..=seeds).map(|s| run(config, s, seconds)).collect();
    let avg = |f: fn(&Run) -> f64| runs.iter().map(f).sum::<f64>() / runs.len() as f64;
    (avg(|r| r.mean_ms), avg(|r| r.p50_ms), avg(|r| r.p99_ms))
}

fn assert_close(what: &str, got: f64, want: f64, rel_tol: f64) {
    let err = (got - want).abs() / want;
    assert!(
        err <= rel_tol,
        "{what}: got {got:.2}, theory {want:.2} (error {:.1}% > {:.1}%)",
        err * 100.0,
        rel_tol * 100.0
    );
}

/// M/M/1: response time is exponential with rate μ − λ, so mean = 1/(μ−λ),
/// P(T > t) = e^{−(μ−λ)t}, p50 = ln 2/(μ−λ), p99 = ln 100/(μ−λ).
fn check_mm1(lambda: f64, seeds: u64, tol_mean: f64, tol_p50: f64, tol_p99: f64) {
    let (mean, p50, p99) = averaged(&Config::mm1(lambda), seeds, 1200);
    let theta = MU - lambda;
    let rho = lambda / MU;
    assert_close(&format!("M/M/1 ρ={rho} mean"), mean, 1000.0 / theta, tol_mean);
    assert_close(&format!("M/M/1 ρ={rho} p50"), p50, 1000.0 * 2f64.ln() / theta, tol_p50);
    assert_close(&format!("M/M/1 ρ={rho} p99"), p99, 1000.0 * 100f64.ln() / theta, tol_p99);
}

/// ρ = 0.3: per-run spread is below that at ρ = 0.5, so ρ = 0.5's tolerances are generous.
#[test]
fn mm1_at_rho_0_3_matches_theory() {
    check_mm1(30.0, 4, 0.03, 0.03, 0.05);
}

/// ρ = 0.5, 4 seeds × 1,200 s: standard errors 0.8% (mean), 0.6% (p50), 1.35% (p99).
#[test]
fn mm1_at_rho_0_5_matches_theory() {
    check_mm1(50.0, 4, 0.03, 0.03, 0.05);
}

/// ρ = 0.8, 8 seeds × 1,200 s: standard errors 1.0% (mean), 0.8% (p50), 2.8% (p99).
#[test]
fn mm1_at_rho_0_8_matches_theory() {
    check_mm1(80.0, 8, 0.04, 0.04, 0.10);
}

/// Erlang C: the probability that an arrival waits in an M/M/c queue with offered load a = λ/μ.
fn erlang_c(c: u32, a: f64) -> f64 {
    let mut term = 1.0;
    let mut sum = 0.0;
    for k in 0..c {
        if k > 0 {
            term *= a / k as f64;
        }
        sum += term;
    }
    let top = term * a / c as f64 * (c as f64 / (c as f64 - a));
    top / (sum + top)
}

/// M/M/c as one server with c workers sharing one FIFO queue. T = S + W, S ~ Exp(μ), W = 0
/// with probability 1 − C, else Exp(θ) with θ = cμ − λ; so E[T] = 1/μ + C/θ and
/// P(T > t) = e^{−μt} + C·μ/(θ − μ)·(e^{−μt} − e^{−θt}). p99 solved by bisection.
/// λ = 250, c = 4 (ρ = 0.625, C = 0.32): 4 seeds × 600 s, per-run spread 0.7% (mean) and
/// 1.0% (p99), so standard errors 0.35% and 0.5%.
#[test]
fn mmc_matches_erlang_c() {
    let (c, lambda) = (4, 250.0);
    let config =
        Config { rate: lambda, servers: 1, workers: c, dist: "exponential", policy: "round-robin", extra: &[] };
    let (mean, _, p99) = averaged(&config, 4, 600);
    let wait_prob = erlang_c(c, lambda / MU);
    assert!((wait_prob - 0.3199).abs() < 1e-3, "Erlang C {wait_prob}");
    let theta = c as f64 * MU - lambda;
    let tail = |t: f64| (-MU * t).exp() + wait_prob * MU / (theta - MU) * ((-MU * t).exp() - (-theta * t).exp());
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if tail(mid) > 0.01 { lo = mid } else { hi = mid }
    }
    assert_close("M/M/4 mean", mean, 1000.0 * (1.0 / MU + wait_prob / theta), 0.02);
    assert_close("M/M/4 p99", p99, 1000.0 * lo, 0.03);
}

/// Pollaczek–Khinchine: the mean wait of an M/G/1 queue is λE[S²] / (2(1 − ρ)).
/// Fixed service (M/D/1, E[S²] = E[S]²) at ρ = 0.8: T = 10 + 20 = 30 ms; 4 seeds × 600 s,
/// per-run spread 2.6%, standard error 1.3%.
#[test]
fn md1_matches_pollaczek_khinchine() {
    let config = Config { rate: 80.0, servers: 1, workers: 1, dist: "fixed", policy: "round-robin", extra: &[] };
    let (mean, _, _) = averaged(&config, 4, 600);
    let s = 1.0 / MU;
    let rho = 80.0 * s;
    let want = s + 80.0 * s * s / (2.0 * (1.0 - rho));
    assert_close("M/D/1 mean", mean, want * 1000.0, 0.05);
}

/// Lognormal service with CV 1.5 (E[S²] = (1 + 1.5²)E[S]²) at ρ = 0.6: T = 10 + 24.4 ms.
/// The heavy tail makes runs noisier: per-run spread 5.1%, 8 seeds, standard error 1.8%.
#[test]
fn mg1_lognormal_matches_pollaczek_khinchine() {
    let config = Config { rate: 60.0, servers: 1, workers: 1, dist: "lognormal", policy: "round-robin", extra: &[] };
    let (mean, _, _) = averaged(&config, 8, 600);
    let s = 1.0 / MU;
    let second_moment = (1.0 + 1.5 * 1.5) * s * s;
    let want = s + 60.0 * second_moment / (2.0 * (1.0 - 60.0 * s));
    assert_close("M/G/1 lognormal mean", mean, want * 1000.0, 0.07);
}

/// Random balancing splits a Poisson stream into independent Poisson streams, so each of 3
/// servers is an M/M/1 queue with λ/3 = 80 per second (ρ = 0.8): mean 50 ms, p99 230 ms.
/// 4 seeds × 600 s: per-run spread 1.8% (mean) and 3.8% (p99).
#[test]
fn random_split_is_three_mm1_queues() {
    let config = Config { rate: 240.0, servers: 3, workers: 1, dist: "exponential", policy: "random", extra: &[] };
    let (mean, _, p99) = averaged(&config, 4, 600);
    assert_close("random split mean", mean, 1000.0 / (MU - 80.0), 0.04);
    assert_close("random split p99", p99, 1000.0 * 100f64.ln() / (MU - 80.0), 0.08);
}

/// Little's law, L = λW: the time-averaged number of waiting clients equals the arrival rate
/// times the mean wait, whatever the queueing discipline, as long as waits end. Both metrics
/// are rounded to 0.1 (hence the 0.1 absolute slack); the rest of the gap is the observed
/// arrival rate differing from the nominal λ, relative standard deviation 1/√(λT) ≤ 0.5%
/// for λT ≥ 48,000, so 3% is six standard deviations.
#[test]
fn littles_law_holds_across_configurations() {
    let configs = [
        Config::mm1(80.0),
        Config { rate: 250.0, servers: 1, workers: 4, dist: "exponential", policy: "round-robin", extra: &[] },
        Config { rate: 240.0, servers: 3, workers: 1, dist: "exponential", policy: "random", extra: &[] },
        Config { rate: 240.0, servers: 3, workers: 1, dist: "exponential", policy: "round-robin", extra: &[] },
        Config { rate: 500.0, servers: 3, workers: 2, dist: "exponential", policy: "least-outstanding", extra: &[] },
        Config { rate: 400.0, servers: 5, workers: 1, dist: "lognormal", policy: "two-choices", extra: &[] },
        Config { rate: 250.0, servers: 3, workers: 1, dist: "fixed", policy: "round-robin", extra: &[] },
        // B slows down and its queue grows without bound, but a 100 ms client timeout ends
        // every wait, and a timed-out wait counts as its limit: the law still holds.
        Config {
            rate: 150.0,
            servers: 3,
            workers: 1,
            dist: "exponential",
            policy: "round-robin",
            extra: &[("slowdown", "5"), ("slow_at_ms", "1000"), ("timeout_ms", "100")],
        },
    ];
    for (i, config) in configs.iter().enumerate() {
        let r = run(config, 7 + i as u64, 600);
        assert!(r.littles_law > 2.0, "config {i}: L = {} is too small to test", r.littles_law);
        let gap = (r.mean_in_flight - r.littles_law).abs();
        assert!(
            gap <= 0.03 * r.littles_law + 0.1,
            "config {i}: mean in flight {} vs λW {}",
            r.mean_in_flight,
            r.littles_law
        );
    }
}

//! The chapters' numbers: each number a chapter quotes, the simulation and preset that give it,
//! and the metric it is. The one list `resilience-lab numbers` prints and the README's table
//! "The chapters' numbers" is checked against (`tests/readme.rs`), so a model change that moves
//! a chapter's number shows in both.

use crate::sim::ScenarioSpec;
use crate::url::State;

/// One number a chapter quotes. Each runs at seed 1 (the default) and, unless the row says
/// otherwise, the run's full length to its end, as `run <scenario> --preset <preset> --json` does.
#[derive(Clone, Copy, Debug)]
pub struct ChapterNumber {
    /// Where the chapter quotes it and what it says, as the README's first column.
    pub figure: &'static str,
    pub scenario: &'static str,
    pub preset: &'static str,
    /// The metric's key in `run --json`.
    pub metric: &'static str,
    /// A run of this length (`--duration-ms`) instead of the preset's.
    pub duration_ms: Option<u64>,
    /// The number at this moment of the run (`--at-ms`) instead of at its end.
    pub at_ms: Option<u64>,
}

const fn row(
    figure: &'static str,
    scenario: &'static str,
    preset: &'static str,
    metric: &'static str,
) -> ChapterNumber {
    ChapterNumber { figure, scenario, preset, metric, duration_ms: None, at_ms: None }
}

impl ChapterNumber {
    /// The same row over a run of `ms`.
    const fn lasting(self, ms: u64) -> Self {
        Self { duration_ms: Some(ms), ..self }
    }

    /// The same row at `ms` into the run.
    const fn at(self, ms: u64) -> Self {
        Self { at_ms: Some(ms), ..self }
    }

    /// The command that prints the number (among the run's other metrics).
    pub fn command(&self) -> String {
        let mut command = format!("resilience-lab run {} --preset {}", self.scenario, self.preset);
        if let Some(ms) = self.duration_ms {
            command += &format!(" --duration-ms {ms}");
        }
        if let Some(ms) = self.at_ms {
            command += &format!(" --at-ms {ms}");
        }
        command + " --json"
    }

    /// The number as `run --json` prints it: the metric's JSON value. Panics on a scenario,
    /// preset or metric that does not exist (tests/readme.rs runs every row).
    pub fn value(&self) -> serde_json::Value {
        let spec: &'static ScenarioSpec =
            crate::scenarios::find(self.scenario).unwrap_or_else(|| panic!("no scenario {}", self.scenario));
        let preset = spec.preset(self.preset).unwrap_or_else(|| panic!("{} has no preset {}", spec.id, self.preset));
        let mut state = State::new(spec);
        state.preset = Some(preset.id);
        state.params.apply_preset(preset).expect("presets are valid");
        state.duration_ms = self.duration_ms.or(state.duration_ms);
        let mut sim = spec.start(&state.params, state.seed, state.duration());
        match self.at_ms {
            Some(ms) => {
                sim.advance(ms * crate::sim::MS, u64::MAX);
            }
            None => sim.run_to_end(),
        }
        let metrics = sim.metrics();
        let (_, value) = metrics
            .iter()
            .find(|(key, _)| *key == self.metric)
            .unwrap_or_else(|| panic!("{} has no metric {}", spec.id, self.metric));
        serde_json::to_value(value).expect("a metric serializes")
    }
}

/// In the chapters' order, as the README's table lists them.
pub const ROWS: &[ChapterNumber] = &[
    row("Ch. 1 Part 3, \"B becomes 5× slower\": p99 before, ~60 ms", "slow-server", "chapter", "p99_ms_before"),
    row("the same run: p99 after, seconds", "slow-server", "chapter", "p99_ms_after"),
    row(
        "the same run: p99 after, counting the requests still waiting at their wait so far",
        "slow-server",
        "chapter",
        "p99_ms_after_with_waiting",
    ),
    row(
        "the same run: requests sent after the slowdown still waiting at the end",
        "slow-server",
        "chapter",
        "after_waiting",
    ),
    row(
        "Ch. 1 Part 3, \"The measured run\", no timeout: /home in flight, 479",
        "cascade",
        "no-timeout",
        "home_in_flight_end",
    ),
    row("the same: growing about 48 per second", "cascade", "no-timeout", "home_in_flight_growth_per_s"),
    row("the same: /checkout succeeded, 4 of 99", "cascade", "no-timeout", "checkout_ok"),
    row("the same: /checkout failed, 95", "cascade", "no-timeout", "checkout_failed"),
    row(
        "the same run at 4 s: /checkout p99, counting the clients still waiting at their wait so far (the 4 \
         answered alone: 9.2 ms)",
        "cascade",
        "no-timeout",
        "checkout_p99_ms_with_waiting",
    )
    .at(4_000),
    row("the same moment: /checkout clients still waiting", "cascade", "no-timeout", "checkout_waiting").at(4_000),
    row("300 ms timeout: /home in flight, 15, flat", "cascade", "timeout", "home_in_flight_end"),
    row("300 ms timeout: /checkout p99, 10 ms", "cascade", "timeout", "checkout_p99_ms"),
    row("separate pool: /home in flight, 480, still growing", "cascade", "bulkhead", "home_in_flight_end"),
    row("separate pool: /checkout succeeded, 99 of 99", "cascade", "bulkhead", "checkout_ok"),
    row(
        "the unlimited default dispatcher: 500 hung calls, 500 connections",
        "cascade",
        "unbounded-pool",
        "downstream_open_connections_max",
    ),
    row("Ch. 1 Part 4, fixed timeouts: A answers 504 at 2,004 ms", "deadline-chain", "fixed", "user_answer_ms"),
    row("fixed timeouts: B gives up on C at 2,509 ms", "deadline-chain", "fixed", "b_gives_up_ms"),
    row("fixed timeouts: C commits at 3,510 ms, for nobody", "deadline-chain", "fixed", "c_end_ms"),
    row("propagated budget: 504 at 1,966 ms", "deadline-chain", "propagated", "user_answer_ms"),
    row("propagated budget: C was told it had 1,448 ms", "deadline-chain", "propagated", "c_budget_told_ms"),
    row(
        "Ch. 1 Part 2, \"What Node 22 actually does\": fetch, silent server, 300.9 s",
        "which-timeout",
        "fetch-silent",
        "gave_up_ms",
    ),
    row("fetch, blackholed address: 10.5 s", "which-timeout", "fetch-blackhole", "gave_up_ms"),
    row("fetch, no TLS answer: 10.0 s, UND_ERR_CONNECT_TIMEOUT", "which-timeout", "fetch-no-tls", "error"),
    row("node:http, blackholed address: 75.0 s", "which-timeout", "http-blackhole", "gave_up_ms"),
    row("AbortSignal.timeout(2000), silent server: 2,007 ms", "which-timeout", "abort-silent", "gave_up_ms"),
    row("AbortSignal.timeout(3000), trickling body: 3,004 ms", "which-timeout", "abort-trickle", "gave_up_ms"),
    row("undici headersTimeout 2,000: fires at 2,502 ms", "which-timeout", "undici-headers-timeout", "gave_up_ms"),
    row("undici connect timeout 1,000: fires at 1,501 ms", "which-timeout", "undici-connect-timeout", "gave_up_ms"),
    row("Ch. 1 Part 3: a 2 s timeout that never left the pool, 2,003 ms", "which-timeout", "pool-wait", "gave_up_ms"),
    row(
        "Ch. 2 Part 1, \"Fixed 1 s\": peak after recovery, all 40 clients, capacity 8",
        "retry-storm",
        "fixed",
        "peak_after_recovery",
    ),
    row("\"Exponential\": still 40 in one tick", "retry-storm", "exponential", "peak_after_recovery"),
    row("\"Exp + jitter\": under the capacity of 8", "retry-storm", "jitter", "peak_after_recovery"),
    row(
        "a retry budget, \"e.g. 10%\" of normal traffic (a 4 s outage gives 12–16%)",
        "retry-storm",
        "budget",
        "outage_retry_pct",
    ),
    row("3 × 3 × 3 = 27 calls for one user action", "retry-storm", "three-layers", "max_calls_per_user_action"),
    row("Ch. 2 Part 3, the fix set to None: 3 charges", "double-click", "double-click", "charges"),
    row("Disable: 2", "double-click", "disable", "charges"),
    row("Idempotency key: 1", "double-click", "key", "charges"),
    row("\"Measured: three failures, three charges\", no key: 3", "double-click", "part3-table", "charges"),
    row("the same key on every attempt: 1 charge, one 409", "double-click", "part3-table-key", "conflicts_409"),
    row("the same key: the stored 200 replayed", "double-click", "part3-table-key", "replays"),
    row(
        "Ch. 2 Part 4, the duplicate's `INSERT … ON CONFLICT` blocked 2.5 s behind a 3 s transaction",
        "double-click",
        "part4-wait",
        "claim_wait_ms",
    ),
    row("then it read the stored response: one charge", "double-click", "part4-wait", "charges"),
    row(
        "`lock_timeout = '200ms'`: the duplicate fails after 200 ms (55P03)",
        "double-click",
        "part4-lock-timeout",
        "claim_wait_ms",
    ),
    row(
        "Ch. 2 Break 1, the charge timed out: same key, 409 while the first runs, \"processing\" not \"failed\"",
        "double-click",
        "ch2-break-1",
        "conflicts_409",
    ),
    row(
        "the recovery job settles the pending order with the same key: no second charge",
        "double-click",
        "ch2-break-1",
        "recovery_charges",
    ),
    row("the buyer clicks again: the stored charge replayed, one charge", "double-click", "ch2-break-1", "charges"),
    row(
        "Ch. 2 Break 4, same key, same millisecond: the second waits for the first's commit (held 3 s)",
        "double-click",
        "ch2-break-4",
        "claim_wait_ms",
    ),
    row("then reads the stored response", "double-click", "ch2-break-4", "replays"),
    row(
        "a short lock_timeout: 409 after 200 ms instead of holding a connection",
        "double-click",
        "ch2-break-4-lock-timeout",
        "claim_wait_ms",
    ),
    row(
        "external work: claim and pending committed first, a derived provider key, a recovery job: one charge",
        "double-click",
        "ch2-break-4-external",
        "charges",
    ),
    row(
        "Part 4, \"if the first rolls back, the second gets the claim and does the work\": with the card charge inside that transaction, a second charge",
        "double-click",
        "rollback-external",
        "charges",
    ),
    row(
        "the same rollback with the claim and pending order committed first: one charge",
        "double-click",
        "rollback-committed-first",
        "charges",
    ),
    row("Ch. 2 Part 5, ack then process: loses work", "at-least-once", "ack-first", "lost"),
    row("process then ack: duplicates", "at-least-once", "process-first", "duplicated"),
    row(
        "process, record the ID and ack in one transaction: effectively once",
        "at-least-once",
        "txn-dedupe",
        "effectively_once",
    ),
    row("dedupe on the delivery ID: the republished copies get through", "at-least-once", "delivery-id", "duplicated"),
    row("a dedupe window shorter than the redeliveries", "at-least-once", "short-window", "duplicated"),
    row("jobs longer than the visibility timeout", "at-least-once", "long-jobs", "duplicated"),
    row("the same jobs, the lease extended while they run", "at-least-once", "long-jobs-lease", "duplicated"),
    row(
        "Ch. 1 Part 5, \"a timeout at p99 fails 1% of normal requests\": the fitted tail at 180 ms",
        "choosing-numbers",
        "at-p99",
        "tail_at_timeout_pct",
    ),
    row("the same: healthy calls that timed out in the run", "choosing-numbers", "at-p99", "timeout_rate_pct"),
    row(
        "pricing p50 40, p99 180, p99.9 310 ms → 500 ms: healthy calls slower than it",
        "choosing-numbers",
        "chapter",
        "tail_at_timeout_pct",
    ),
    row(
        "\"a 2 s budget and a 500 ms per-attempt timeout, at most three attempts fit\"",
        "choosing-numbers",
        "chapter",
        "attempts_fit",
    ),
    row("\"5 parallel calls … 1 − 0.99⁵ ≈ 4.9%\"", "choosing-numbers", "fan-out-5", "slow_request_theory_pct"),
    row("the same, measured over 3,000 requests", "choosing-numbers", "fan-out-5", "slow_request_pct"),
    row(
        "Break 2: \"two calls times three attempts times 2 s, 12 s\"",
        "choosing-numbers",
        "ch1-break-2",
        "worst_wait_ms",
    ),
    row(
        "Break 2, the fix: a 2 s route deadline, nothing waits longer",
        "choosing-numbers",
        "ch1-break-2-fixed",
        "worst_wait_ms",
    ),
    row(
        "Break 4: \"if p99 drifts to 450 ms the number is wrong\": the timeout-rate alert (more than 0.2% of a \
         minute's attempts timed out, at least 10 of them, for 30 s) fires after the drift",
        "choosing-numbers",
        "drift",
        "alert_after_drift_ms",
    ),
    row(
        "the same alert on the healthy dependency, four hours: it never fires",
        "choosing-numbers",
        "chapter",
        "alert_fired_at_ms",
    )
    .lasting(14_400_000),
    row(
        "\"a connect timeout below that allows no second try\": SYNs sent again at 900 ms",
        "choosing-numbers",
        "connect-below-syn",
        "syn_retransmits",
    ),
];

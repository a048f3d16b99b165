//! The deadline chain's declaration: its modes, parameters, presets and metrics.

use crate::sim::Value;
use crate::sim::scenario::SweepDefault;
use crate::sim::{ParamSpec, Preset};

crate::choice! {
    /// How a hop limits its call, and whether it stops when its caller leaves.
    pub enum Mode {
        Fixed = ("fixed", "Fixed timeouts",
            "Each call has its own timeout, and every hop keeps working after its caller has left."),
        Propagated = ("propagated", "Propagated budget",
            "The time left travels with each call; each hop makes it its own deadline and stops when its \
             caller leaves."),
    }
}

crate::config! {
    /// What the deadline-chain model reads from its parameters.
    ///
    /// Where the defaults come from. Work (200, 300, 3,000 ms), the user's 2 s, the fixed
    /// timeouts (1.8 s, 2 s) and the 50 ms reserve are the chapter's; the browser's 10 s is Part
    /// 5's "browser 10 s > … API route deadline 2 s". The small delays are the measured run's:
    /// `timer_late_ms` 1 is Node's usual timer lateness and is what makes C's 1,448 ms
    /// (1,450 − 2 × 1 for A's and B's work timers); `net_ms` 1 is a local hop (Part 5: "inside a
    /// region a connect takes about 1 ms"); `handling_ms` 2.5 and `abort_ms` 2 are fitted to the
    /// chapter's table, which puts every figure within 3.5 ms. Closer is impossible: the table's
    /// two B give-up times differ by 546 ms, but both of B's waits start when B calls C, so they
    /// must differ by 2,000 − 1,448 = 552 ms.
    pub struct DeadlineChainConfig in PARAMS {
        pub mode: Mode = ParamSpec::choice("mode", "Mode", Mode::OPTIONS, Mode::Fixed as usize,
            "How each hop limits its call to the next one, and whether it stops when its caller leaves: \
             'Propagated budget' turns on both switches below, 'Fixed timeouts' leaves them to you."),
        pub budget_header: bool = ParamSpec::toggle("budget_header", "Send the budget on", false,
            "With fixed timeouts: each hop still sends the time left in a header, makes it its deadline and waits \
             at most that long for its call (always on with a propagated budget).")
            .only_with(DeadlineChainConfig::mode, &["fixed"], "a propagated budget always sends it"),
        pub listen_for_close: bool = ParamSpec::toggle("listen_for_close", "Stop when the caller leaves", false,
            "With fixed timeouts: each hop still listens for its caller's connection closing and aborts its work or \
             its call (always on with a propagated budget).")
            .only_with(DeadlineChainConfig::mode, &["fixed"], "a propagated budget always listens"),
        pub user_budget_ms: f64 = ParamSpec::number("user_budget_ms", "User's budget", "ms", 2000.0,
            (100.0, 10_000.0, 50.0),
            "How long the user waits for the answer. With a propagated budget A (the edge) starts the \
             budget from it; with fixed timeouts nothing carries it: it only marks when an answer stops \
             being useful."),
        pub a_work_ms: f64 = ParamSpec::number("a_work_ms", "A's work", "ms", 200.0, (0.0, 5000.0, 10.0),
            "What A does before it calls B."),
        pub b_work_ms: f64 = ParamSpec::number("b_work_ms", "B's work", "ms", 300.0, (0.0, 5000.0, 10.0),
            "What B does before it calls C."),
        pub c_work_ms: f64 = ParamSpec::number("c_work_ms", "C's work", "ms", 3000.0, (0.0, 10_000.0, 10.0),
            "What C needs before it commits and answers."),
        pub reserve_ms: f64 = ParamSpec::number("reserve_ms", "Reserve", "ms", 50.0, (0.0, 500.0, 5.0),
            "With a propagated budget: a hop sets its deadline this much before its arrival plus the budget \
             it was told, keeping time for the wire and for writing its own reply."),
        pub edge_reserve: bool = ParamSpec::toggle("edge_reserve", "A keeps a reserve too", false,
            "Off (the chapter's run): A takes the user's whole budget as its deadline, so the \
             chain holds one reserve and C is told about 1,448 ms. On: A subtracts the reserve as \
             well, every deadline moves 50 ms earlier."),
        pub stop_at_deadline: bool = ParamSpec::toggle("stop_at_deadline", "Work stops at its own deadline", false,
            "Off (the chapter's run): a hop's own work stops only when its caller leaves; its \
             deadline bounds its outbound call. On: the work also stops when the hop's own \
             deadline passes, and the hop answers 504."),
        pub a_to_b_timeout_ms: f64 = ParamSpec::number("a_to_b_timeout_ms", "A→B timeout", "ms", 1800.0,
            (0.0, 10_000.0, 50.0),
            "A's limit on its call to B; 0 means none. With a propagated budget it is a cap: the call \
             waits for the budget left or this, whichever is shorter.").zero_means("none"),
        pub b_to_c_timeout_ms: f64 = ParamSpec::number("b_to_c_timeout_ms", "B→C timeout", "ms", 2000.0,
            (0.0, 10_000.0, 50.0),
            "B's limit on its call to C; 0 means none. With a propagated budget it is a cap, as for A.").zero_means("none"),
        pub browser_timeout_ms: f64 = ParamSpec::number("browser_timeout_ms", "Browser gives up after", "ms",
            10_000.0, (0.0, 30_000.0, 100.0),
            "When the user's browser closes the connection if no answer came; 0 means never. \
             Chapter 1 Part 5: the browser's 10 s is longer than the API's 2 s deadline.").zero_means("never"),
        pub net_ms: f64 = ParamSpec::number("net_ms", "Network, one way", "ms", 1.0, (0.0, 50.0, 0.1),
            "Time a request, an answer or a connection close spends on the wire between two hops."),
        pub handling_ms: f64 = ParamSpec::number("handling_ms", "Message handling", "ms", 2.5, (0.0, 50.0, 0.1),
            "Time from a message arriving to the receiver's code running on it: HTTP parsing, \
             middleware, an event-loop turn."),
        pub timer_late_ms: f64 = ParamSpec::number("timer_late_ms", "Timer lateness", "ms", 1.0, (0.0, 20.0, 0.1),
            "How late every timer fires (work, call timeouts, deadlines). Node's timers fire \
             about 1 ms late."),
        pub abort_ms: f64 = ParamSpec::number("abort_ms", "Abort takes", "ms", 2.0, (0.0, 20.0, 0.1),
            "Time from an abort signal firing (timeout, deadline, caller left) to the work \
             stopping or the waiting code giving up. The connection closes at once."),
        pub jitter_ms: f64 = ParamSpec::number("jitter_ms", "Network jitter", "ms", 0.0, (0.0, 20.0, 0.1),
            "Random extra delay per message, anywhere from nothing to this. 0 gives the same run \
             for every seed (the chapter's, within 3.5 ms); above 0 the seed matters."),
    }
}

pub(super) const DEFAULT_DURATION_MS: u64 = 4000;

pub(super) static PRESETS: &[Preset] = &[
    Preset {
        id: "fixed",
        label: "Fixed timeouts",
        description: "A→B 1.8 s, B→C 2 s, no cancellation: the user gets 504 at about 2 s, C commits at \
                      3.5 s for nobody.",
        values: &[(DeadlineChainConfig::mode, "fixed")],
    },
    Preset {
        id: "propagated",
        label: "Propagated budget",
        description: "The budget travels as a header and a hop stops when its caller leaves: B's 504 \
                      reaches the user before 2 s and C stops.",
        values: &[(DeadlineChainConfig::mode, "propagated")],
    },
    Preset {
        id: "wrong-order",
        label: "Timeouts in the wrong order",
        description: "Inner timeouts longer than outer ones: the browser gives up at 2 s, A at 3.2 s, \
                      and B relays C's answer to nobody.",
        values: &[
            (DeadlineChainConfig::mode, "fixed"),
            (DeadlineChainConfig::browser_timeout_ms, "2000"),
            (DeadlineChainConfig::a_to_b_timeout_ms, "3000"),
            (DeadlineChainConfig::b_to_c_timeout_ms, "4000"),
        ],
    },
    Preset {
        id: "ordered",
        label: "Fixed, in the right order",
        description: "B→C shorter than A→B: the user hears B's 504 in time, but C still commits for nobody.",
        values: &[(DeadlineChainConfig::mode, "fixed"), (DeadlineChainConfig::b_to_c_timeout_ms, "1400")],
    },
    Preset {
        id: "every-hop",
        label: "The middleware at every hop",
        description: "Propagated, with A keeping a reserve and every hop's work stopping at its own \
                      deadline: C gives up first and its 504 travels back.",
        values: &[(DeadlineChainConfig::mode, "propagated"), (DeadlineChainConfig::edge_reserve, "true"), (DeadlineChainConfig::stop_at_deadline, "true")],
    },
    Preset {
        id: "ch1-break-3",
        label: "Chapter 1, Break 3: the browser gave up after 2 s",
        description: "Fixed timeouts, nobody listens for the close: the browser gives up at 2 s and C finishes its \
                      3 s of work about 1.5 s after the user's error.",
        values: &[("mode", "fixed"), ("browser_timeout_ms", "2000")],
    },
    Preset {
        id: "ch1-break-3-follow-up",
        label: "Break 3, the follow-up: a write that already committed",
        description: "Every hop now stops when its caller leaves, and C's write takes 1.49 s: it commits just after \
                      the browser gave up, before the close reaches it. Cancellation narrows the window; it cannot \
                      close it.",
        values: &[("mode", "fixed"), ("browser_timeout_ms", "2000"), ("listen_for_close", "true"), ("c_work_ms", "1490")],
    },
];

crate::metrics! {
    /// What a deadline-chain run reports: the CLI's JSON, the stat cards, the sweeps.
    pub struct DeadlineChainMetrics in METRICS {
        pub user_answer_ms: Option<f64> = ("A answered the user at", "ms",
            "When A sent the user its answer (null if the user heard nothing); the user's lane marks when \
             it arrived, a network hop later."),
        pub user_status: Option<i64> = ("User got", "",
            "The HTTP status the user received."),
        pub user_answer_from: String = ("Answer came from", "",
            "The hop whose answer A relayed: A, B or C (none if the user heard nothing)."),
        pub user_in_budget: Option<bool> = ("Within the user's budget", "",
            "Whether the answer came within the user's budget."),
        pub user_gave_up_ms: Option<f64> = ("Browser gave up at", "ms",
            "When the browser closed the connection without an answer."),
        pub a_gives_up_ms: Option<f64> = ("A gives up on B", "ms",
            "When A stopped waiting for B without an answer."),
        pub b_gives_up_ms: Option<f64> = ("B gives up on C", "ms",
            "When B stopped waiting for C without an answer."),
        pub b_budget_told_ms: Option<i64> = ("B was told", "ms",
            "The budget A sent B in the header (propagated mode)."),
        pub c_budget_told_ms: Option<i64> = ("C was told", "ms",
            "The budget B sent C in the header (propagated mode)."),
        pub c_end_ms: Option<f64> = ("C's work ended", "ms",
            "When C committed or was stopped."),
        pub c_outcome: String = ("C's work", "",
            "committed, stopped, working, or not called."),
        pub wasted_work_ms: f64 = ("Work done for nobody", "ms",
            "Work done by all hops after the user stopped waiting: after an answer within the \
               user's budget, after the browser gave up, or after the budget ran out, whichever \
               came first."),
        pub work_after_caller_left_ms: f64 = ("Work after the caller left", "ms",
            "Work each hop did after its own caller hung up, summed."),
        pub hops: Value = ("Hops", "",
            "Per hop: budget, deadline, work, call, give-up and answer."),
        pub commit_window_ms: Option<f64> = ("Commit-before-abort window", "ms",
            "From the first hang-up in the chain (the browser closing, or a hop giving up on its call) to the end \
               of C's work, committed or stopped: a commit in it lands for a user who got an error. Without \
               cancellation it lasts until C finishes; with it, until the close reaches C and the abort takes \
               effect (none if nobody hung up while C worked)."),
    }
}

pub(super) static HEADLINE: &[&str] = &[DeadlineChainMetrics::user_answer_ms.key(), DeadlineChainMetrics::b_gives_up_ms.key(), DeadlineChainMetrics::c_end_ms.key(), DeadlineChainMetrics::wasted_work_ms.key()];

pub(super) const SWEEP: SweepDefault = SweepDefault {
    x: DeadlineChainConfig::user_budget_ms,
    from: 500.0,
    to: 5000.0,
    steps: 15,
    by: Some(DeadlineChainConfig::mode),
    metric: DeadlineChainMetrics::wasted_work_ms.key(),
};


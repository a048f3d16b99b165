//! deadline-chain's facts (issue 24, item 2): by value at the chapter's presets, and against the
//! metrics for any parameters, each claim the words make with its precondition: the verdict and
//! the notes, the chapter's table beside this run, and every moment listed. No test here reads
//! a sentence: its choices are typed values in the facts.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use resilience_lab::scenarios::deadline_chain::{
    self, CHAPTER_FIXED, CWork, DeadlineChainFacts, Happened, Party, Reason, SPEC, StoppedWaiting, TableCell,
    TableClaim, TableLine, TableRow, UserGot, after_shown,
};
use resilience_lab::sim::{Host, MS, Micros, Params, Simulation};

type DeadlineChain = Host<deadline_chain::DeadlineChain>;

/// Long enough for everything to end: the largest work and timeouts add up to about 30 s.
const PROP_RUN_MS: u64 = 45_000;

fn facts_at(preset: &str) -> DeadlineChainFacts {
    facts_with(SPEC.configured(preset, &[]), 7)
}

fn facts_with(p: Params, seed: u64) -> DeadlineChainFacts {
    let mut sim = DeadlineChain::new(&p, seed, SPEC.duration_for(&p) * MS);
    sim.run_to_end();
    sim.facts_now()
}

fn with(preset: &str, sets: &[(&str, &str)]) -> Params {
    let mut p = SPEC.configured(preset, &[]);
    for (k, v) in sets {
        p.set_text(k, v).expect("valid setting");
    }
    p
}

/// A time in µs as the table shows it: whole ms.
fn shown(us: Micros) -> f64 {
    (ms(us)).round()
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
    let p = SPEC.configured("fixed", &[]);
    let sim = DeadlineChain::new(&p, 7, SPEC.duration_for(&p) * MS);
    let f = sim.facts_now();
    assert_eq!((f.user, f.user_stopped_at_us, f.c_work), (UserGot::NotStarted, None, CWork::NotCalledYet));
}

/// Fixed timeouts so long that C's 200 comes back: it reaches the user 1,521 ms after their
/// 2,000 ms ran out, and C's commit, 1,514 ms after it, was for nobody.
#[test]
fn an_answer_after_the_budget_is_too_late_and_cs_commit_for_nobody() {
    let f = facts_with(with("fixed", &[("a_to_b_timeout_ms", "0"), ("b_to_c_timeout_ms", "0")]), 1);
    let UserGot::Answered { status: 200, origin: Party::Hop(2), at_us, in_budget: false, late_by_us } = f.user else {
        panic!("{:?}", f.user)
    };
    assert_eq!((shown(at_us), shown(late_by_us)), (3521.0, 1521.0));
    assert_eq!(f.user_stopped_why, Some(StoppedWaiting::BudgetRanOut));
    let CWork::Committed { at_us, for_nobody_by_us: Some(by) } = f.c_work else { panic!("{:?}", f.c_work) };
    assert_eq!((shown(at_us), shown(by)), (3514.0, 1514.0));
    assert!(f.wasted_ms >= ms(by), "C's work for nobody is part of it");
}

fn line(f: &DeadlineChainFacts, row: TableRow) -> Option<TableLine> {
    f.table.iter().find(|l| l.row == row).copied()
}

/// The chapter's table: this run's column beside the chapter's measured run, and the claim
/// that compares them.
#[test]
fn the_table_sets_this_run_beside_the_chapters_and_says_how_far_apart() {
    let fixed = facts_with(SPEC.configured("fixed", &[]), 1);
    let answer = line(&fixed, TableRow::Answer).expect("row");
    assert!(matches!(answer.this, TableCell::Answered { status: 504, origin: Party::Hop(0), .. }), "{answer:?}");
    assert_eq!((answer.this.shown_ms(), answer.chapter.shown_ms()), (Some(2008.0), Some(2004.0)));
    assert_eq!(line(&fixed, TableRow::BGivesUp).expect("row").chapter, CHAPTER_FIXED.b_gives_up);
    let c = line(&fixed, TableRow::CWork).expect("row");
    assert!(matches!(c.this, TableCell::Committed { for_nobody: true, .. }), "{c:?}");
    assert_eq!(c.chapter, TableCell::Committed { at_ms: 3510.0, for_nobody: true });
    assert!(line(&fixed, TableRow::CTold).is_none(), "the chapter gives no figure for fixed timeouts");
    // 2,008 beside 2,004, 2,512 beside 2,509, 3,514 beside 3,510: within 4 ms, as shown.
    assert_eq!(fixed.table_claim, TableClaim::Same { most_apart_ms: Some(4.0) });

    let propagated = facts_with(SPEC.configured("propagated", &[]), 1);
    let answer = line(&propagated, TableRow::Answer).expect("row");
    assert!(matches!(answer.this, TableCell::Answered { status: 504, origin: Party::Hop(1), .. }), "{answer:?}");
    assert_eq!((answer.this.shown_ms(), answer.chapter.shown_ms()), (Some(1964.0), Some(1966.0)));
    let told = line(&propagated, TableRow::CTold).expect("the chapter gives what C was told");
    assert_eq!((told.this, told.chapter), (TableCell::Told { ms: 1448.0 }, TableCell::Told { ms: 1448.0 }));
    assert_eq!(propagated.table_claim, TableClaim::Same { most_apart_ms: Some(3.0) });

    // Other settings: the rows that say something else are named.
    let wrong = facts_with(SPEC.configured("wrong-order", &[]), 1);
    let TableClaim::Differs { rows, .. } = &wrong.table_claim else { panic!("{:?}", wrong.table_claim) };
    assert_eq!(rows[..2], [TableRow::Answer, TableRow::BGivesUp]);

    // Mid-run the column fills in.
    let mut early = DeadlineChain::new(&SPEC.configured("fixed", &[]), 1, 4000 * MS);
    early.advance(1000 * MS, u64::MAX);
    let f = early.facts_now();
    assert_eq!(line(&f, TableRow::Answer).expect("row").this, TableCell::NotYet);
    assert_eq!(f.table_claim, TableClaim::FillingIn);
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
                prop_assert!(by > 0 && stop + by == at_us, "{:?}", f);
                // C's work from when it started (or the user stopped waiting) to its commit is
                // part of the work for nobody (each figure to 0.1 ms). It can be none: C's work
                // may take no time, and its commit still lands after the user left.
                let c_received = sim.lanes()[2].received.expect("C worked");
                prop_assert!(f.wasted_ms + 0.15 >= ms(at_us - stop.max(c_received)), "{:?}", f);
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

/// Two times in ms the same to within the metrics' rounding.
fn near(a: f64, b: Option<f64>) -> bool {
    b.is_some_and(|b| (a - b).abs() < 0.051)
}

/// This run's cells of the chapter's table, against the metrics; the chapter's column as the
/// chapter measured it; and the claim, from the cells.
fn check_table(sim: &DeadlineChain, f: &DeadlineChainFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    let chapter = sim.chapter_run();
    let after_user_left = |t: Micros| f.user_stopped_at_us.is_some_and(|s| after_shown(s, t));
    for l in &f.table {
        let (this, theirs) = (l.this, l.chapter);
        match l.row {
            TableRow::Answer => {
                prop_assert_eq!(theirs, chapter.answer);
                match this {
                    TableCell::Answered { status, origin, at_ms } => {
                        prop_assert_eq!(Some(i64::from(status)), m.user_status);
                        prop_assert_eq!(origin.name(), m.user_answer_from.as_str());
                        prop_assert!(near(at_ms, m.user_answer_ms));
                    }
                    TableCell::BrowserGaveUp { at_ms } => {
                        prop_assert!(m.user_answer_ms.is_none() && near(at_ms, m.user_gave_up_ms))
                    }
                    TableCell::NotYet => prop_assert!(m.user_answer_ms.is_none() && m.user_gave_up_ms.is_none()),
                    other => prop_assert!(false, "{:?} in A's row", other),
                }
            }
            TableRow::BGivesUp => {
                prop_assert_eq!(theirs, chapter.b_gives_up);
                match this {
                    TableCell::GaveUpOnC { at_ms, after_user_left: late } => {
                        let g = f.b_gave_up.expect("B gave up");
                        prop_assert!(near(at_ms, m.b_gives_up_ms));
                        prop_assert_eq!(late, after_user_left(g.at_us));
                    }
                    TableCell::NeverCalledC => prop_assert_eq!(m.c_outcome.as_str(), "not called"),
                    TableCell::CAnswered => {
                        prop_assert!(m.b_gives_up_ms.is_none() && m.c_outcome != "not called", "{:?}", m)
                    }
                    TableCell::NotYet => prop_assert!(m.b_gives_up_ms.is_none()),
                    other => prop_assert!(false, "{:?} in B's row", other),
                }
            }
            TableRow::CWork => {
                prop_assert_eq!(theirs, chapter.c_work);
                match this {
                    TableCell::Committed { at_ms, for_nobody } => {
                        prop_assert!(m.c_outcome == "committed" && near(at_ms, m.c_end_ms));
                        let nobody = matches!(f.c_work, CWork::Committed { for_nobody_by_us: Some(_), .. });
                        prop_assert_eq!(for_nobody, nobody);
                    }
                    TableCell::Stopped { at_ms, why } => {
                        prop_assert!(matches!(f.c_work, CWork::Stopped { why: w, .. } if w == why), "{:?}", f.c_work);
                        prop_assert!(near(at_ms, m.c_end_ms));
                    }
                    TableCell::Working => prop_assert_eq!(m.c_outcome.as_str(), "working"),
                    TableCell::NotStarted => prop_assert_eq!(m.c_outcome.as_str(), "not called"),
                    other => prop_assert!(false, "{:?} in C's row", other),
                }
            }
            TableRow::CTold => {
                prop_assert_eq!(Some(theirs), chapter.c_told);
                match this {
                    TableCell::Told { ms } => prop_assert_eq!(Some(ms as i64), m.c_budget_told_ms),
                    TableCell::NoHeader | TableCell::NotYet => prop_assert!(m.c_budget_told_ms.is_none()),
                    other => prop_assert!(false, "{:?} in what C was told", other),
                }
            }
        }
    }
    let rows: Vec<TableRow> = f.table.iter().map(|l| l.row).collect();
    let told = [TableRow::Answer, TableRow::BGivesUp, TableRow::CWork, TableRow::CTold];
    prop_assert_eq!(&rows[..], &told[..if chapter.c_told.is_some() { 4 } else { 3 }]);
    check_claim(f)
}

/// The claim: every row as the chapter's, and the largest gap between two times shown side by
/// side; or the rows that read otherwise, named once the run has ended.
fn check_claim(f: &DeadlineChainFacts) -> Result<(), TestCaseError> {
    let (same, differ): (Vec<&TableLine>, Vec<&TableLine>) =
        f.table.iter().partition(|l| l.this.same_but_time(&l.chapter));
    let most = same.iter().filter_map(|l| Some((l.this.shown_ms()? - l.chapter.shown_ms()?).abs())).reduce(f64::max);
    let differ: Vec<TableRow> = differ.iter().map(|l| l.row).collect();
    match &f.table_claim {
        TableClaim::Same { most_apart_ms } => prop_assert!(differ.is_empty() && *most_apart_ms == most),
        TableClaim::FillingIn => prop_assert!(!differ.is_empty() && !f.finished),
        TableClaim::Differs { rows, most_apart_ms } => {
            prop_assert!(f.finished && *rows == differ && *most_apart_ms == most, "{:?}", f.table_claim)
        }
    }
    // Two answers read alike exactly when their status and who produced it agree.
    for l in &f.table {
        if let (
            TableCell::Answered { status: s1, origin: o1, .. },
            TableCell::Answered { status: s2, origin: o2, .. },
        ) = (l.this, l.chapter)
        {
            prop_assert_eq!(l.this.same_but_time(&l.chapter), s1 == s2 && o1 == o2);
        }
    }
    Ok(())
}

/// Every moment listed has happened, in time order, and says what the metrics and the other
/// facts say.
fn check_moments(sim: &DeadlineChain, f: &DeadlineChainFacts) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    let first = f.moments.first().expect("the request leaves at 0");
    prop_assert_eq!((first.at_us, first.what), (0, Happened::RequestLeft { budget_us: f.user_budget_us }));
    prop_assert!(f.moments.windows(2).all(|w| w[0].at_us <= w[1].at_us), "not in time order");
    prop_assert!(f.moments.iter().all(|mo| mo.at_us <= f.now_us), "a moment after now");
    let count = |p: &dyn Fn(&Happened) -> bool| f.moments.iter().filter(|mo| p(&mo.what)).count();
    prop_assert_eq!(count(&|h| matches!(h, Happened::UserGot { .. })), usize::from(m.user_status.is_some()));
    prop_assert_eq!(count(&|h| matches!(h, Happened::BrowserGaveUp)), usize::from(m.user_gave_up_ms.is_some()));
    for mo in &f.moments {
        let at = mo.at_us;
        match mo.what {
            Happened::UserGot { status, origin } => {
                prop_assert_eq!(Some(i64::from(status)), m.user_status);
                prop_assert_eq!(origin.name(), m.user_answer_from.as_str());
            }
            Happened::BrowserGaveUp => prop_assert_eq!(Some(ms(at)), m.user_gave_up_ms),
            Happened::BudgetRanOut => {
                prop_assert_eq!(at, f.user_budget_us);
                prop_assert_eq!(f.user_stopped_why, Some(StoppedWaiting::BudgetRanOut));
            }
            Happened::WorkFinished { hop: 2 } => {
                prop_assert!(matches!(f.c_work, CWork::Committed { at_us, .. } if at_us == at), "{:?}", f.c_work)
            }
            Happened::WorkStopped { hop: 2, why } => {
                prop_assert!(
                    matches!(f.c_work, CWork::Stopped { at_us, why: w } if at_us == at && why == Some(w)),
                    "{:?}",
                    f.c_work
                )
            }
            Happened::GaveUp { hop, why } if hop < 2 => {
                let gave_up = if hop == 0 { f.a_gave_up } else { f.b_gave_up };
                prop_assert_eq!(gave_up.map(|g| (g.at_us, Some(g.why))), Some((at, why)));
            }
            Happened::CallerLeft { listens, .. } => prop_assert_eq!(listens, f.listens_for_close),
            Happened::HungUp { hop, on } => {
                prop_assert_eq!(on, hop + 1);
                prop_assert!(f.first_hang_up.is_some_and(|h| h.at_us <= at));
            }
            Happened::ReceivedWithBudget { hop: 2, budget_ms, .. } => {
                prop_assert_eq!(Some(budget_ms), m.c_budget_told_ms)
            }
            Happened::CallSent { hop: 1, header_ms, .. } => prop_assert_eq!(header_ms, m.c_budget_told_ms),
            _ => {}
        }
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
            check_table(&sim, &f)?;
            check_moments(&sim, &f)?;
            sim.run_to_end();
        }
    }
}

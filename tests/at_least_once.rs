//! The at-least-once scenario against Chapter 2, Part 5: the order-of-operations table (ack then
//! process loses work, process then ack duplicates it, a transaction with the event ID is
//! effectively once) and the details interviewers push on (dedupe on the event ID, a window
//! that outlasts redelivery, jobs longer than the visibility timeout).
//!
//! Every preset test runs several seeds; every run checks the invariants (fates add up, the
//! ledger is the sum of its credits, every message is acked or dead-lettered) and that it
//! settled before its end.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use resilience_lab::scenarios::at_least_once::{
    AtLeastOnce as Model, AtLeastOnceFacts, Cause, DedupeOn, EventRecord, Fate, Guarantee, Order, Outcome, SPEC,
    TIMELINE_CAP, TIMELINE_FIRST,
};
use resilience_lab::sim::base::{MAX_DURATION_MS, MAX_RUN_LENGTH_MS};
use resilience_lab::sim::{Host, MS, Model as _, Params, Simulation, Value};

type AtLeastOnce = Host<Model>;

const SEEDS: [u64; 7] = [1, 2, 3, 4, 5, 7, 42];

/// A run to the end of its own length, checked and required to have settled.
fn run(p: &Params, seed: u64) -> AtLeastOnce {
    let mut sim = AtLeastOnce::new(p, seed, SPEC.duration_for(p) * MS);
    sim.run_to_end();
    check(&sim).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    check_settled(&sim).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    sim
}

fn preset_runs(preset: &str) -> impl Iterator<Item = (u64, AtLeastOnce)> {
    let p = SPEC.configured(preset, &[]);
    SEEDS.into_iter().map(move |seed| (seed, run(&p, seed)))
}

fn value(sim: &AtLeastOnce, key: &str) -> Value {
    sim.metrics().into_iter().find(|(k, _)| *k == key).unwrap_or_else(|| panic!("no metric {key}")).1
}

fn int(sim: &AtLeastOnce, key: &str) -> i64 {
    match value(sim, key) {
        Value::Int(n) => n,
        other => panic!("{key} is {other:?}"),
    }
}

fn count(sim: &AtLeastOnce, key: &str) -> u64 {
    int(sim, key) as u64
}

fn reading(sim: &AtLeastOnce, key: &str) -> String {
    sim.reading().into_iter().find(|(k, _)| *k == key).unwrap_or_else(|| panic!("no reading {key}")).1
}

/// What holds at any moment of any run.
fn check(sim: &AtLeastOnce) -> Result<(), TestCaseError> {
    let c = sim.config();
    let events = sim.event_records();
    let fates = sim.fates();
    let (lost, duplicated, once) = (count(sim, "lost"), count(sim, "duplicated"), count(sim, "effectively_once"));
    prop_assert_eq!(
        (lost, duplicated, once, count(sim, "pending")),
        (fates.lost, fates.duplicated, fates.once, fates.pending)
    );
    let parked = count(sim, "in_dead_letter_queue");
    prop_assert_eq!(parked, fates.dead_lettered);
    prop_assert_eq!(lost + parked + duplicated + once + fates.pending, c.messages as u64, "fates add up to the events");
    let by_fate = |f: Fate| events.iter().filter(|e| e.fate() == f).count() as u64;
    prop_assert_eq!((by_fate(Fate::Lost), by_fate(Fate::Duplicated), by_fate(Fate::Once)), (lost, duplicated, once));
    prop_assert_eq!(by_fate(Fate::DeadLettered), parked);
    // A parked event had a copy dead-lettered; only a redrive moves messages back, each at most once.
    prop_assert!(events.iter().filter(|e| e.fate() == Fate::DeadLettered).all(|e| e.dead_lettered()));
    let redriven = count(sim, "redriven");
    prop_assert!(redriven <= count(sim, "dead_lettered"));
    if !c.redrive {
        prop_assert_eq!(redriven, 0);
    }

    // The ledger is the sum of the credits applied, and the expected balance that of the events.
    let credited: i64 = events.iter().map(|e| e.amount() as i64 * e.credits() as i64).sum();
    prop_assert_eq!(sim.ledger_balance(), credited);
    prop_assert_eq!(int(sim, "ledger_balance"), credited);
    prop_assert_eq!(int(sim, "expected_balance"), events.iter().map(|e| e.amount() as i64).sum::<i64>());
    let extra: u64 = events.iter().map(|e| e.credits().saturating_sub(1) as u64).sum();
    prop_assert_eq!(count(sim, "extra_credits"), extra);
    prop_assert_eq!(sim.extra_credits_by_cause().total(), extra);
    prop_assert_eq!(count(sim, "skipped_as_duplicate"), sim.skipped_by_cause().total());
    if c.order != Order::TxnDedupe {
        prop_assert_eq!(count(sim, "skipped_as_duplicate"), 0, "only the transaction dedupes");
    }

    // Every message published is held, acked or dead-lettered, and was delivered until then.
    let broker = sim.broker_totals();
    prop_assert_eq!(broker.published, broker.acked + broker.dead_lettered + broker.held);
    prop_assert_eq!(count(sim, "dead_lettered"), broker.dead_lettered);
    let deliveries = count(sim, "deliveries");
    prop_assert!(deliveries >= broker.acked + c.max_deliveries as u64 * broker.dead_lettered);
    prop_assert!(count(sim, "redeliveries") <= deliveries);
    prop_assert!(count(sim, "crashes_between") <= count(sim, "crashes"));
    let consumer_crashes: u64 = sim.consumers().iter().map(|k| k.crashes).sum();
    prop_assert_eq!(consumer_crashes, count(sim, "crashes"));
    let delivered: u64 = sim.consumers().iter().map(|k| k.delivered).sum();
    prop_assert_eq!(delivered, deliveries);

    // Bounded memory, whatever the settings.
    prop_assert!(sim.timeline().len() <= TIMELINE_CAP);
    prop_assert!(sim.chart().len() <= 1200);
    prop_assert!(sim.in_progress().count() <= c.consumers as usize);
    let copies = c.messages as usize * 3;
    prop_assert!(sim.queued_events() <= 4 * copies + 4 * c.consumers as usize + 2, "{} queued", sim.queued_events());
    check_timeline(sim)
}

/// Each recorded delivery's steps follow each other in time, and only a crash cuts one short;
/// a delivery in progress has begun its current step, which ends (as planned) later.
fn check_timeline(sim: &AtLeastOnce) -> Result<(), TestCaseError> {
    let now = sim.now();
    for (r, running) in sim.timeline().iter().map(|r| (r, false)).chain(sim.in_progress().map(|r| (r, true))) {
        let mut t = r.received_at;
        for (i, s) in r.steps().iter().enumerate() {
            let current = running && i + 1 == r.steps().len();
            prop_assert!(s.start >= t && s.end >= s.start && s.start <= now, "{:?}", r);
            prop_assert!(
                current || (s.end <= now && s.completed != (r.outcome == Outcome::Crashed && i + 1 == r.steps().len())),
                "{:?}",
                r
            );
            t = s.end;
        }
        prop_assert_eq!(r.credited, r.credit_number > 0);
        prop_assert_eq!(running, r.outcome == Outcome::Running, "{:?}", r);
    }
    Ok(())
}

/// A run that reached its own length: nothing is left anywhere, and it settled before the end.
fn check_settled(sim: &AtLeastOnce) -> Result<(), TestCaseError> {
    prop_assert_eq!(sim.fates().pending, 0, "unsettled at the end of a {} ms run", sim.end() / MS);
    prop_assert_eq!(sim.broker_totals().held, 0);
    prop_assert_eq!(sim.in_progress().count(), 0);
    prop_assert!(sim.settled_at().is_some_and(|t| t <= sim.end()));
    prop_assert!(sim.event_records().iter().all(EventRecord::settled));
    prop_assert_eq!(sim.published(), sim.config().messages as u64);
    prop_assert_eq!(sim.broker_totals().published, sim.broker_totals().acked + sim.broker_totals().dead_lettered);
    Ok(())
}

// ---- The dead-letter queue: parked, not lost ----

/// SQS moves a message to the dead-letter queue after `maxReceiveCount` receives, so that it
/// can be looked at and re-driven
/// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html):
/// the probe, crashes on 20% of deliveries and one delivery allowed, parks events
/// there and loses none when the consumer processes first; the guarantee is not called
/// at-most-once.
#[test]
fn dead_lettered_events_are_parked_not_lost() {
    for seed in [1, 7, 42] {
        let sim = run(&SPEC.configured("process-first", &[("crash_rate", "20"), ("max_deliveries", "1")]), seed);
        let parked = count(&sim, "in_dead_letter_queue");
        assert!(parked > 50, "seed {seed}: {parked} parked");
        assert_eq!(count(&sim, "lost"), 0, "seed {seed}: a dead-lettered message is not a lost one");
        assert!(count(&sim, "dead_lettered") >= parked);
        assert_eq!(sim.guarantee(), Guarantee::Parked);
        assert_eq!(value(&sim, "guarantee"), Value::Text("parked".into()));
        let waiting: i64 =
            sim.event_records().iter().filter(|e| e.fate() == Fate::DeadLettered).map(|e| e.amount() as i64).sum();
        assert_eq!(sim.expected_balance() - sim.ledger_balance(), waiting, "the ledger is short what waits there");
        // Ack first still loses the events a crash after the ack dropped; those are lost.
        let ack_first = run(&SPEC.configured("ack-first", &[("crash_rate", "20"), ("max_deliveries", "1")]), seed);
        assert_eq!(count(&ack_first, "lost"), ack_first.lost_after_ack());
        assert!(count(&ack_first, "lost") > 0 && count(&ack_first, "in_dead_letter_queue") > 0);
    }
}

/// SQS's redrive moves dead-lettered messages back to the source queue, where "all redriven
/// messages are considered new messages" with a new message ID
/// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-configure-dead-letter-queue-redrive.html):
/// a dedupe on the producer's event ID skips the ones already credited, a dedupe on the
/// broker's delivery ID credits them again.
#[test]
fn a_redrive_brings_parked_events_back_as_new_messages() {
    let base = [("crash_rate", "20"), ("max_deliveries", "1")];
    for seed in [1, 7] {
        let parked = run(&SPEC.configured("txn-dedupe", &base), seed);
        let with = [base[0], base[1], ("redrive", "true")];
        let redriven = run(&SPEC.configured("txn-dedupe", &with), seed);
        assert_eq!(count(&redriven, "redriven"), count(&parked, "dead_lettered"), "seed {seed}: each moved back once");
        assert!(count(&redriven, "in_dead_letter_queue") < count(&parked, "in_dead_letter_queue") / 3);
        assert_eq!(count(&redriven, "duplicated"), 0, "event-ID dedupe skips the re-driven copies");
        assert!(redriven.skipped_by_cause().get(Cause::Redriven) > 0);
        let by_delivery =
            run(&SPEC.configured("txn-dedupe", &[with[0], with[1], with[2], ("dedupe_on", "delivery-id")]), seed);
        assert!(by_delivery.duplicated_among(EventRecord::redriven) > 0, "a new delivery ID is not recognised");
        // Settled only after the re-driven messages came back, an hour later.
        assert!(redriven.settled_at().unwrap() > 3_600_000 * MS);
    }
}

// ---- The chapter's table, one row per order ----

/// Ack, then process: a crash after the ack and before the credit loses the event (the broker
/// has deleted the message); no event is credited twice. At the defaults about 20 crashes,
/// half of them in the middle: 11 lost at seed 7, and at least 3 in every seed.
#[test]
fn ack_then_process_loses_events_and_duplicates_none() {
    for (seed, sim) in preset_runs("ack-first") {
        let lost = count(&sim, "lost");
        assert!(lost >= 3, "seed {seed}: lost {lost}");
        assert_eq!(count(&sim, "duplicated"), 0, "seed {seed}");
        // Each crash in the middle loses its event: nothing else loses one at the defaults.
        assert_eq!(lost, count(&sim, "crashes_between"), "seed {seed}");
        assert_eq!(lost, sim.lost_after_ack(), "seed {seed}");
        let missing: i64 =
            sim.event_records().iter().filter(|e| e.fate() == Fate::Lost).map(|e| e.amount() as i64).sum();
        assert_eq!(
            sim.expected_balance() - sim.ledger_balance(),
            missing,
            "seed {seed}: the ledger is short the lost amounts"
        );
        assert_eq!(sim.guarantee(), Guarantee::AtMostOnce);
        assert_eq!(sim.chapter_row().guarantee, Guarantee::AtMostOnce);
    }
}

/// Process, then ack: a crash after the credit and before the ack brings the message back and
/// the credit runs again; nothing is lost.
#[test]
fn process_then_ack_loses_none_and_duplicates_some() {
    for (seed, sim) in preset_runs("process-first") {
        let duplicated = count(&sim, "duplicated");
        assert!(duplicated >= 3, "seed {seed}: duplicated {duplicated}");
        assert_eq!(count(&sim, "lost"), 0, "seed {seed}");
        assert_eq!(
            duplicated,
            sim.duplicated_among(EventRecord::crashed_in_middle),
            "seed {seed}: all from the middle"
        );
        assert!(duplicated <= count(&sim, "crashes_between"));
        assert!(sim.ledger_balance() > sim.expected_balance());
        assert_eq!(sim.guarantee(), Guarantee::AtLeastOnce);
    }
}

/// The default order is process then ack: the defaults are the process-first preset.
#[test]
fn defaults_are_process_then_ack_with_crashes_the_only_fault() {
    let d = SPEC.defaults();
    assert_eq!(d, SPEC.configured("process-first", &[]));
    for id in ["producer_republish_rate", "late_redelivery_rate", "long_job_rate"] {
        assert_eq!(d.get(id), 0.0, "{id}");
    }
    assert_eq!(d.get("crash_rate"), 2.0);
    assert_eq!((d.get("messages"), d.get("visibility_timeout_ms"), d.get("work_ms")), (1000.0, 30_000.0, 200.0));
    assert_eq!(d.get("dedupe_window_ms"), 24.0 * 3_600_000.0);
    assert_eq!(d.get("redelivery_after_ms"), 4.0 * 24.0 * 3_600_000.0);
}

/// Process and record the event ID in one transaction, then ack: the message a crash in the
/// middle brings back finds its ID and is skipped; the ledger matches to the dollar.
#[test]
fn txn_dedupe_loses_none_duplicates_none_and_skips_the_redeliveries() {
    for (seed, sim) in preset_runs("txn-dedupe") {
        assert_eq!((count(&sim, "lost"), count(&sim, "duplicated")), (0, 0), "seed {seed}");
        assert_eq!(count(&sim, "effectively_once"), 1000);
        let skipped = count(&sim, "skipped_as_duplicate");
        assert!(skipped > 0, "seed {seed}");
        assert_eq!(
            skipped,
            sim.skipped_by_cause().get(Cause::AfterMiddleCrash),
            "seed {seed}: only crashes bring copies"
        );
        assert!(skipped >= count(&sim, "crashes_between"), "seed {seed}: every crash in the middle is skipped");
        assert_eq!(sim.ledger_balance(), sim.expected_balance(), "seed {seed}");
        assert_eq!(sim.guarantee(), Guarantee::EffectivelyOnce);
    }
}

/// The same seed draws the same crashes whatever the order, so the three rows compare like
/// with like: the first deliveries crash at the same places.
#[test]
fn the_orders_see_the_same_crashes_for_a_seed() {
    for seed in SEEDS {
        let runs: Vec<AtLeastOnce> =
            ["ack-first", "process-first", "txn-dedupe"].map(|p| run(&SPEC.configured(p, &[]), seed)).into();
        let first_crash =
            |sim: &AtLeastOnce| sim.timeline().iter().find(|r| r.outcome == Outcome::Crashed).map(|r| r.number);
        assert_eq!(first_crash(&runs[0]), first_crash(&runs[1]), "seed {seed}");
        assert_eq!(first_crash(&runs[1]), first_crash(&runs[2]), "seed {seed}");
    }
}

// ---- The details interviewers push on ----

/// Dedupe on the producer's event ID, not the broker's delivery ID: the outbox's republishes
/// carry new delivery IDs, so a store keyed on them credits every republished event twice;
/// keyed on the event ID, it skips them all.
#[test]
fn delivery_id_lets_the_outbox_republishes_through_and_event_id_stops_them() {
    for (seed, sim) in preset_runs("delivery-id") {
        let republished = count(&sim, "republished");
        assert!(republished >= 20, "seed {seed}: 5% of 1,000");
        assert_eq!(count(&sim, "duplicated"), republished, "seed {seed}: every republished event twice");
        assert_eq!(sim.duplicated_among(EventRecord::republished), republished);
        assert_eq!(count(&sim, "lost"), 0);
        let by_event = run(&SPEC.configured("event-id", &[]), seed);
        assert_eq!((count(&by_event, "duplicated"), count(&by_event, "lost")), (0, 0), "seed {seed}");
        assert!(
            by_event.skipped_by_cause().get(Cause::Republished)
                + by_event.skipped_by_cause().get(Cause::AfterEarlyCrash)
                >= republished
        );
        assert_eq!(by_event.ledger_balance(), by_event.expected_balance());
    }
}

/// The dedupe window must outlast redelivery: IDs kept 24 h against a redelivery four days
/// after the ack let every late copy through; a 7-day window skips them all. Four days of
/// simulated time cost a few thousand events: time jumps.
#[test]
fn short_window_lets_late_redeliveries_through_and_a_long_one_does_not() {
    for (seed, sim) in preset_runs("short-window") {
        let late = count(&sim, "late_redeliveries");
        assert!(late >= 20, "seed {seed}: 5% of 1,000");
        assert_eq!(count(&sim, "duplicated"), late, "seed {seed}: every late copy credited again");
        assert_eq!(sim.duplicated_among(EventRecord::redelivered_late), late);
        assert!(sim.end() > 4 * 24 * 3_600 * 1_000_000, "the run covers the redelivery");
        assert!(sim.settled_at().unwrap() > 4 * 24 * 3_600 * 1_000_000);
        assert!(sim.events() < 20_000, "seed {seed}: {} events for four days", sim.events());
        let long = run(&SPEC.configured("long-window", &[]), seed);
        assert_eq!((count(&long, "duplicated"), count(&long, "lost")), (0, 0), "seed {seed}");
        assert_eq!(count(&long, "late_redeliveries"), late, "seed {seed}: the same late copies...");
        assert!(count(&long, "skipped_as_duplicate") >= late, "seed {seed}: ...all skipped");
    }
}

/// Jobs longer than the visibility timeout are redelivered while still running: a duplicate
/// with no crash at all. Renewing the lease while working prevents it.
#[test]
fn long_jobs_are_credited_twice_without_a_crash_unless_the_lease_is_extended() {
    for (seed, sim) in preset_runs("long-jobs") {
        assert_eq!(count(&sim, "crashes"), 0);
        let duplicated = count(&sim, "duplicated");
        assert!(duplicated >= 3, "seed {seed}: duplicated {duplicated}");
        assert_eq!(sim.duplicated_among(|e| e.is_long_job() && e.lease_outlived()), duplicated, "seed {seed}");
        assert!(count(&sim, "leases_outlived") >= duplicated);
        assert_eq!(count(&sim, "lost"), 0);
        let leased = run(&SPEC.configured("long-jobs-lease", &[]), seed);
        assert_eq!((count(&leased, "duplicated"), count(&leased, "redeliveries")), (0, 0), "seed {seed}");
        assert_eq!(count(&leased, "leases_outlived"), 0);
        assert!(count(&leased, "lease_renewals") > 0);
    }
}

/// Every preset settles well inside its own run length, and the run length is not absurdly
/// longer than the run needs (the page plays it).
#[test]
fn every_preset_settles_before_its_end() {
    for preset in SPEC.presets {
        for (seed, sim) in preset_runs(preset.id) {
            let settled = sim.settled_at().unwrap();
            assert!(
                sim.end() <= 4 * settled + 60 * 1_000_000,
                "{} seed {seed}: end {} settled {settled}",
                preset.id,
                sim.end()
            );
        }
    }
}

// ---- The reading ----

/// Each preset's guarantee (by id, as the metric), and the fact its reading's telling sentence
/// is rendered from: a crash after the ack, a crash after the credit, redeliveries the store
/// skipped, the republished copies' new or shared IDs, the window short of or past the late
/// copies, the leases that ran out, or the renewals that kept them.
#[test]
fn the_reading_names_each_presets_guarantee_and_table_row() {
    type Claim = fn(&AtLeastOnceFacts) -> bool;
    let expect: [(&str, &str, Claim); 9] = [
        ("ack-first", "at-most-once", |f| f.order == Order::AckThenProcess && f.crashes_between > 0),
        ("process-first", "at-least-once", |f| f.order == Order::ProcessThenAck && f.crashes_between > 0),
        ("txn-dedupe", "effectively-once", |f| f.after_middle_crash.skipped > 0),
        ("delivery-id", "at-least-once", |f| f.republished > 0 && f.dedupe == Some(DedupeOn::DeliveryId)),
        ("event-id", "effectively-once", |f| f.republished > 0 && f.dedupe == Some(DedupeOn::EventId)),
        ("short-window", "at-least-once", |f| {
            f.late_redeliveries > 0
                && f.dedupe.is_some()
                && !f.window_outlasts_redelivery
                && f.dedupe_window_ms == 86_400_000.0
        }),
        ("long-window", "effectively-once", |f| f.late_redeliveries > 0 && f.window_outlasts_redelivery),
        ("long-jobs", "at-least-once", |f| f.leases_outlived > 0),
        ("long-jobs-lease", "effectively-once", |f| f.leases_outlived == 0 && f.lease_renewals > 0),
    ];
    for (preset, guarantee, claim) in expect {
        let sim = run(&SPEC.configured(preset, &[]), 7);
        let f = sim.facts_now();
        assert_eq!(reading(&sim, "guarantee"), guarantee, "{preset}");
        assert_eq!(value(&sim, "guarantee"), Value::Text(guarantee.into()));
        assert_eq!(f.guarantee.id(), guarantee, "{preset}");
        assert!(claim(&f), "{preset}: {f:?}");
        check_facts(&f, &sim).unwrap_or_else(|e| panic!("{preset}: {e}"));
        assert_eq!(sim.run_row().guarantee.id(), guarantee);
    }
}

/// Issue 24, case 9: ack-first without a crash in the middle shows "effectively once", which
/// says nothing of the order: the row says untested and is not marked against the chapter's;
/// the long window's late copies are told by event, so the copies and what came of them agree.
#[test]
fn an_untested_order_says_so_and_late_copies_are_told_by_event() {
    for preset in ["ack-first", "process-first"] {
        let sim = run(&SPEC.configured(preset, &[("crash_rate", "0")]), 7);
        let row = sim.run_row();
        assert_eq!(row.guarantee, Guarantee::EffectivelyOnce, "{preset}");
        assert!(!row.judged && !row.agrees, "{preset}");
        // The untested sentence, and the chapter's guarantee it names.
        let f = sim.facts_now();
        assert!(!f.tested && !f.judged, "{preset}");
        assert_eq!(f.chapter_guarantee, sim.chapter_row().guarantee, "{preset}");
        assert_ne!(f.chapter_guarantee, Guarantee::EffectivelyOnce, "{preset}");
    }
    let tested = run(&SPEC.configured("ack-first", &[]), 7).run_row();
    assert!(tested.judged && tested.agrees && tested.guarantee == Guarantee::AtMostOnce);
    let long = run(&SPEC.configured("long-window", &[]), 7);
    let f = long.facts_now();
    assert_eq!(f.late_redeliveries, count(&long, "late_redeliveries"));
    assert!(f.late_redeliveries > 1, "{}", f.late_redeliveries);
    // "no event of theirs was credited twice", told by event.
    assert_eq!(f.late_copies.duplicated, 0);
    assert_eq!(long.duplicated_among(EventRecord::redelivered_late), 0);
}

/// Each fact the reading is rendered from, against the run's own numbers: the sentences say
/// these and nothing else (`AtLeastOnceFacts`), so a true fact is a true claim.
fn check_facts(f: &AtLeastOnceFacts, sim: &AtLeastOnce) -> Result<(), TestCaseError> {
    let c = sim.config();
    let fates = sim.fates();
    let row = sim.run_row();
    // The table's row is the facts' (at the run's end, where only `ended` can differ).
    prop_assert_eq!(&row, &AtLeastOnceFacts { ended: true, ..f.clone() }.run_row());
    // An order is "untested" only when no crash fell between its two steps, and the row is left
    // unmarked only when it shows better than the chapter's without such a crash.
    prop_assert_eq!(f.tested, count(sim, "crashes_between") > 0);
    prop_assert!(f.judged || (!f.tested && f.guarantee == Guarantee::EffectivelyOnce));
    prop_assert_eq!(f.chapter_guarantee, sim.chapter_row().guarantee);
    // A marked row agrees with the chapter's exactly when it shows the chapter's guarantee.
    prop_assert_eq!(row.agrees, row.guarantee == sim.chapter_row().guarantee);

    // The outcome: which guarantee, in numbers, and the ledger.
    let guarantee = sim.guarantee();
    prop_assert_eq!(f.guarantee, guarantee);
    prop_assert_eq!(reading(sim, "guarantee"), guarantee.id());
    prop_assert_eq!(
        (f.lost, f.duplicated, f.parked, f.once, f.pending),
        (fates.lost, fates.duplicated, fates.dead_lettered, fates.once, fates.pending)
    );
    let clean = fates.lost == 0 && fates.duplicated == 0;
    prop_assert_eq!(guarantee == Guarantee::EffectivelyOnce, clean && fates.dead_lettered == 0);
    prop_assert_eq!(guarantee == Guarantee::Parked, clean && fates.dead_lettered > 0);
    prop_assert_eq!(matches!(guarantee, Guarantee::AtMostOnce | Guarantee::Neither), fates.lost > 0);
    prop_assert_eq!(matches!(guarantee, Guarantee::AtLeastOnce | Guarantee::Neither), fates.duplicated > 0);
    let difference = sim.ledger_balance() - sim.expected_balance();
    prop_assert_eq!((f.ledger, f.ledger_difference), (sim.ledger_balance(), difference));
    prop_assert_eq!((f.ledger, f.ledger_difference), (int(sim, "ledger_balance"), int(sim, "ledger_difference")));
    let settled = sim.settled_at().is_some();
    prop_assert_eq!(f.settled, settled);
    prop_assert_eq!(f.messages, c.messages as u64);
    match guarantee {
        Guarantee::EffectivelyOnce if settled => {
            prop_assert_eq!(difference, 0, "effectively once, yet the ledger is off");
            prop_assert_eq!(f.once, f.messages, "all credited exactly once");
        }
        Guarantee::AtMostOnce => prop_assert!(difference < 0, "lost events leave the ledger short"),
        Guarantee::AtLeastOnce if settled && fates.dead_lettered == 0 => {
            prop_assert!(difference > 0, "double credits leave the ledger over")
        }
        Guarantee::Parked => prop_assert!(difference < 0, "parked events leave the ledger short"),
        _ => {}
    }

    // The crashes: how many, before and between the two steps that matter, and what the
    // middle ones did in this order.
    let between = count(sim, "crashes_between");
    prop_assert_eq!((f.crashes, f.crashes_between), (count(sim, "crashes"), between));
    prop_assert!(f.crashes_between <= f.crashes);
    // Issue 24, case 6: a crash that used up a delivery did not "change nothing" (the early
    // crashes' clause branches on the dead-lettered count).
    prop_assert_eq!(f.dead_lettered, count(sim, "dead_lettered"));
    prop_assert_eq!(f.visibility_timeout_ms, c.visibility_timeout_ms);
    // Issue 24, case 2: the window is blamed only for copies the store had forgotten.
    let middle = sim.extra_credits_by_cause().get(Cause::AfterMiddleCrash);
    prop_assert_eq!(f.middle_recredits, middle);
    let window_blamed_for_late = f.late_redeliveries > 0 && f.dedupe.is_some() && !f.window_outlasts_redelivery;
    if f.crashes > 0 && window_blamed_for_late {
        prop_assert!(sim.extra_credits_by_cause().total() > 0, "{:?}", f);
    }
    let lost = sim.lost_after_ack();
    prop_assert_eq!(f.lost_after_ack, lost);
    prop_assert!(lost <= between && lost <= fates.lost);
    let again = sim.duplicated_among(EventRecord::crashed_in_middle);
    prop_assert_eq!(f.after_middle_crash.duplicated, again);
    prop_assert!(again <= between);
    prop_assert_eq!(f.after_middle_crash.skipped, sim.skipped_by_cause().get(Cause::AfterMiddleCrash));
    prop_assert_eq!(f.order, c.order);
    prop_assert_eq!(f.dedupe, (c.order == Order::TxnDedupe).then_some(c.dedupe_on));

    // Each fault's sentence, present only when it happened, with its counts.
    prop_assert_eq!((f.dead_lettered, f.redriven), (count(sim, "dead_lettered"), count(sim, "redriven")));
    prop_assert_eq!(f.max_deliveries, c.max_deliveries as u64);
    prop_assert_eq!(f.republished, count(sim, "republished"));
    prop_assert_eq!(f.republished_copies.duplicated, sim.duplicated_among(EventRecord::republished));
    prop_assert!(f.republished_copies.duplicated <= f.republished);
    prop_assert_eq!(f.late_redeliveries, count(sim, "late_redeliveries"));
    prop_assert_eq!(f.late_copies.duplicated, sim.duplicated_among(EventRecord::redelivered_late));
    prop_assert_eq!(f.window_outlasts_redelivery, c.dedupe_window_ms > c.redelivery_after_ms);
    prop_assert_eq!(
        (f.leases_outlived, f.lease_renewals),
        (count(sim, "leases_outlived"), count(sim, "lease_renewals"))
    );
    prop_assert_eq!(f.outlived_copies.duplicated, sim.duplicated_among(EventRecord::lease_outlived));
    prop_assert_eq!(f.redriven_copies.duplicated, sim.duplicated_among(EventRecord::redriven));
    prop_assert_eq!(f.ended, sim.now() >= sim.end());
    // Chapter 2, Break 3's answer, only when this run shows it, with the copies skipped.
    let skipped = count(sim, "skipped_as_duplicate");
    prop_assert_eq!(f.skipped, skipped);
    let shows = c.order == Order::TxnDedupe && c.dedupe_on == DedupeOn::EventId && skipped > 0 && clean;
    prop_assert_eq!(f.shows_break_3(), shows);
    Ok(())
}

/// Checks every claim of the reading against the run's own numbers, through the facts it is
/// rendered from.
fn check_reading(sim: &AtLeastOnce) -> Result<(), TestCaseError> {
    let words = sim.words_now();
    prop_assert!(!words.answer.is_empty() && !words.crash_in_the_middle.is_empty());
    check_facts(&sim.facts_now(), sim)
}

// ---- Properties over the whole parameter space ----

/// Parameter values from fractions of each declared range (the ends as often as not).
fn draw(fractions: &[f64]) -> Params {
    let mut p = SPEC.defaults();
    for (spec, &f) in SPEC.params.iter().zip(fractions) {
        p.set(spec.id, spec.at_fraction(f));
    }
    p
}

fn fractions() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(prop_oneof![2 => 0.0..1.0f64, 1 => Just(0.0), 1 => Just(1.0)], SPEC.params.len())
}

/// Fewer events keep the cases quick; every other parameter spans its range.
fn smaller(mut p: Params, messages: u32) -> Params {
    p.set("messages", messages as f64);
    p
}

/// A case proptest found: with the outbox republishing most events, every crash a restart of
/// a minute and every copy dead-lettered then re-driven, the run's length counted only the
/// producer's messages coming back, and the run ended 57 s before it settled.
#[test]
fn a_redrive_brings_back_the_outboxs_copies_too_and_the_run_waits_for_them() {
    let fractions =
        [0.0, 0.0, 0.808, 1.0, 0.0, 0.9425, 0.738, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.7737, 0.0, 0.0];
    let p = smaller(draw(&fractions), 53);
    let length_ms = SPEC.duration_for(&p);
    let mut sim = AtLeastOnce::new(&p, 2127266945347769217, length_ms * MS);
    while !sim.finished() {
        sim.advance(sim.end(), 1);
    }
    assert!(count(&sim, "redriven") > 0 && count(&sim, "republished") > 0);
    check_settled(&sim).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(64) })]

    /// For any parameters: the invariants after every step (steps of a few events, as a
    /// page's frames), time never going back, and, when the run's own length was not cut at
    /// the 30-day ceiling, everything settled by the end; the same seed gives the same run.
    #[test]
    fn invariants_hold_for_any_parameters(
        fractions in fractions(),
        messages in prop_oneof![1u32..50, 50u32..=5000],
        seed in any::<u64>(),
        caps in prop::collection::vec(1u64..400, 1..6),
    ) {
        let p = smaller(draw(&fractions), messages);
        let length_ms = SPEC.duration_for(&p);
        let mut sim = AtLeastOnce::new(&p, seed, length_ms * MS);
        let mut i = 0;
        while !sim.finished() {
            let before = sim.now();
            sim.advance(sim.end(), caps[i % caps.len()]);
            prop_assert!(sim.now() >= before, "time went back from {} to {}", before, sim.now());
            // Every step at first, then one in 16 (a check reads every event).
            if i < 100 || i % 16 == 0 {
                check(&sim)?;
            }
            i += 1;
        }
        check(&sim)?;
        check_reading(&sim)?;
        if length_ms < MAX_RUN_LENGTH_MS {
            check_settled(&sim)?;
        }
        let mut again = AtLeastOnce::new(&p, seed, length_ms * MS);
        again.run_to_end();
        prop_assert_eq!(again.metrics(), sim.metrics());
        prop_assert_eq!(again.reading(), sim.reading());
        prop_assert_eq!(format!("{:?}", again.timeline()), format!("{:?}", sim.timeline()));
    }

    /// The reading's claims hold part-way through a run too (a page reads it every frame).
    #[test]
    fn the_reading_holds_mid_run(
        fractions in fractions(),
        seed in any::<u64>(),
        share in 0.0..1.0f64,
    ) {
        let p = smaller(draw(&fractions), 300);
        let mut sim = AtLeastOnce::new(&p, seed, SPEC.duration_for(&p) * MS);
        let until = (sim.end() as f64 * share) as u64;
        sim.advance(until, u64::MAX);
        check(&sim)?;
        check_reading(&sim)?;
    }
}

/// Mid-run, the fates count only what is final: an event is lost or once only when no copy
/// is left, duplicated as soon as its second credit lands.
#[test]
fn fates_are_final_when_counted() {
    let p = SPEC.configured("short-window", &[]);
    let mut sim = AtLeastOnce::new(&p, 3, SPEC.duration_for(&p) * MS);
    let mut last = sim.fates();
    while !sim.finished() {
        sim.advance(sim.end(), 50);
        let now = sim.fates();
        assert!(now.lost >= last.lost && now.duplicated >= last.duplicated && now.once >= last.once);
        last = now;
    }
    assert_eq!(last.pending, 0);
}

// ---- The timeline and the ledger view ----

/// The timeline keeps the first deliveries and then those of events something happened to,
/// each with its steps; a crash is marked where it cut a step.
#[test]
fn the_timeline_shows_the_first_deliveries_and_every_crash() {
    let sim = run(&SPEC.configured("ack-first", &[]), 7);
    let timeline = sim.timeline();
    assert!(timeline.len() <= TIMELINE_CAP);
    let numbers: Vec<u32> = timeline.iter().map(|r| r.number).collect();
    assert!((0..TIMELINE_FIRST).all(|n| numbers.contains(&n)), "the first deliveries are all there");
    let crashed = timeline.iter().filter(|r| r.outcome == Outcome::Crashed).count() as u64;
    assert_eq!(crashed, count(&sim, "crashes"), "every crash is on the timeline");
    for r in timeline.iter().filter(|r| r.outcome == Outcome::Crashed && r.number >= TIMELINE_FIRST) {
        let steps: Vec<_> = r.steps().iter().map(|s| (s.step, s.completed)).collect();
        assert!(!steps.last().unwrap().1, "{r:?}");
    }
    // Ack then process: a delivery acks first, then works.
    let done = timeline.iter().find(|r| r.outcome == Outcome::Done).unwrap();
    assert_eq!(done.steps().len(), 2);
    assert!(done.acked && done.credited && done.credit_number == 1);
}

#[test]
fn every_lost_or_duplicated_event_shows_on_the_ledger_view() {
    for preset in ["ack-first", "delivery-id"] {
        let sim = run(&SPEC.configured(preset, &[]), 7);
        let records = sim.event_records();
        assert_eq!(records.len(), 1000);
        let lost = records.iter().filter(|e| e.credits() == 0).count() as u64;
        let twice = records.iter().filter(|e| e.credits() >= 2).count() as u64;
        assert_eq!((lost, twice), (count(&sim, "lost"), count(&sim, "duplicated")), "{preset}");
        assert!(records.iter().all(|e| (1..=100).contains(&e.amount())));
    }
}

// ---- Run length ----

/// A run with a four-day redelivery is longer than a reader may ask for, and its own length
/// still covers it; an extreme setting is cut at the 30-day ceiling, and the page and the CLI
/// keep their 4 h limit for durations a reader types.
#[test]
fn run_lengths_cover_late_redeliveries_and_stay_bounded() {
    let short = SPEC.configured("short-window", &[]);
    assert!(SPEC.duration_for(&short) > MAX_DURATION_MS);
    assert!(SPEC.duration_for(&SPEC.defaults()) < 600_000);
    let mut extreme = SPEC.configured("short-window", &[("redelivery_after_ms", "1209600000"), ("messages", "5000")]);
    extreme.set_text("publish_rate", "1").unwrap();
    extreme.set_text("work_ms", "5000").unwrap();
    extreme.set_text("consumers", "1").unwrap();
    extreme.set_text("crash_rate", "100").unwrap();
    extreme.set_text("restart_ms", "60000").unwrap();
    extreme.set_text("max_deliveries", "20").unwrap();
    assert_eq!(SPEC.duration_for(&extreme), MAX_RUN_LENGTH_MS);
    let mut sim = SPEC.start(&extreme, 1, SPEC.duration_for(&extreme));
    sim.run_to_end();
    assert_eq!(sim.now(), MAX_RUN_LENGTH_MS * MS);
}

/// A run can be cut short: nothing breaks, and the reading says what is left.
#[test]
fn a_short_run_reports_what_is_not_settled() {
    let p = SPEC.defaults();
    let mut sim = AtLeastOnce::new(&p, 7, 20_000 * MS);
    sim.run_to_end();
    check(&sim).unwrap();
    let pending = sim.fates().pending;
    assert!(pending > 700, "{pending}");
    // "… not settled when the run ended".
    let f = sim.facts_now();
    assert!(f.pending == pending && f.ended && !f.settled, "{f:?}");
    assert_eq!(value(&sim, "settled_at_ms"), Value::Null);
}

// ---- The command line ----

fn cli(args: &[&str]) -> (i32, String, String) {
    let out =
        std::process::Command::new(env!("CARGO_BIN_EXE_resilience-lab")).args(args).output().expect("the binary runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8");
    (out.status.code().expect("exited"), text(out.stdout), text(out.stderr))
}

fn cli_json(args: &[&str]) -> serde_json::Value {
    let (status, stdout, stderr) = cli(args);
    assert_eq!(status, 0, "{args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {stdout}"))
}

/// `run at-least-once --preset ack-first --json`: the metric keys at the top level,
/// the fates adding up, the run as long as its own length, and the reading's guarantee.
#[test]
fn cli_runs_ack_first_as_json() {
    let out = cli_json(&["run", "at-least-once", "--preset", "ack-first", "--json"]);
    let n = |k: &str| out[k].as_i64().unwrap_or_else(|| panic!("{k} is not an integer: {}", out[k]));
    for key in ["deliveries", "redeliveries", "skipped_as_duplicate", "crashes", "ledger_balance", "expected_balance"] {
        n(key);
    }
    assert!(n("lost") > 0);
    assert_eq!(n("duplicated"), 0);
    assert_eq!(n("lost") + n("duplicated") + n("effectively_once"), 1000);
    assert_eq!(n("pending"), 0);
    assert!(n("ledger_balance") < n("expected_balance"));
    assert_eq!(out["duration_ms"], SPEC.duration_for(&SPEC.configured("ack-first", &[])));
    assert_eq!(out["params"]["order"], "ack-then-process");
    assert_eq!(out["reading"]["guarantee"], "at-most-once");
    assert_eq!(out["guarantee"], "at-most-once");
}

/// A four-day redelivery runs through the command line in one go, longer than the 4 h a reader
/// may ask for at the defaults; past the limit, and for an unknown choice, a notice names the
/// value used instead, as the page does.
#[test]
fn cli_runs_days_but_keeps_the_readers_limits() {
    let out = cli_json(&["run", "at-least-once", "--preset", "short-window", "--seed", "7", "--json"]);
    assert!(out["duration_ms"].as_u64().unwrap() > MAX_DURATION_MS);
    assert!(out["duplicated"].as_i64().unwrap() > 0);
    assert_eq!(out["reading"]["guarantee"], "at-least-once");
    let short = cli_json(&["run", "at-least-once", "--json", "--duration-ms", "5000"]);
    assert_eq!(short["duration_ms"], 5000);
    assert!(short["pending"].as_i64().unwrap() > 0);

    let too_long = (MAX_DURATION_MS + 1).to_string();
    let (status, stdout, stderr) = cli(&["run", "at-least-once", "--json", "--duration-ms", &too_long]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stderr.starts_with("notice: duration_ms:") && stderr.contains(&MAX_DURATION_MS.to_string()), "{stderr}");
    let out: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["duration_ms"], MAX_DURATION_MS);
    let (status, _, stderr) = cli(&["run", "at-least-once", "--set", "order=whenever"]);
    assert_eq!(status, 0);
    assert!(stderr.contains("order") && stderr.contains("txn-dedupe") && stderr.lines().count() == 1, "{stderr}");
}

/// Issue 24, case 2: with the delivery ID as the dedupe key, the events credited twice were
/// republished copies (new delivery IDs), not redeliveries the store had forgotten: the reading
/// does not blame the window, whatever it is, and the copies go when the outbox stops republishing.
#[test]
fn delivery_id_dedupe_blames_the_copies_not_the_window() {
    for window in ["86400000", "2592000000"] {
        let sim = run(&SPEC.configured("delivery-id", &[("dedupe_window_ms", window)]), 7);
        assert!(count(&sim, "duplicated") > 0, "the preset credits some events twice");
        let f = sim.facts_now();
        assert!(!blames_the_window(&f), "window {window}: {f:?}");
        // "The outbox republished … under new delivery IDs", the copies credited twice.
        assert!(f.republished > 0 && f.republished_copies.duplicated > 0, "{f:?}");
        assert_eq!(f.republished, count(&sim, "republished"));
    }
    let quiet = run(&SPEC.configured("delivery-id", &[("producer_republish_rate", "0")]), 7);
    assert_eq!(count(&quiet, "republished"), 0);
    let f = quiet.facts_now();
    assert!(f.republished == 0 && !blames_the_window(&f), "{f:?}");
}

/// Whether the reading says the store "keeps IDs for" its window only: for a redelivery after a
/// crash in the middle credited again, or for late copies the window does not outlast.
fn blames_the_window(f: &AtLeastOnceFacts) -> bool {
    let middle = f.order == Order::TxnDedupe && f.crashes_between > 0 && f.middle_recredits > 0;
    let late = f.late_redeliveries > 0 && f.dedupe.is_some() && !f.window_outlasts_redelivery;
    middle || late
}

/// Issue 24, cases 6 and 9: every delivery crashes; the messages are dead-lettered after their
/// allowed deliveries. The reading counts crashes, not consumers, and does not say the early
/// crashes changed nothing.
#[test]
fn dead_lettering_crashes_are_counted_as_crashes() {
    let sim = run(&SPEC.configured("txn-dedupe", &[("crash_rate", "100")]), 7);
    assert_eq!(reading(&sim, "guarantee"), "parked");
    assert!(count(&sim, "dead_lettered") > 0);
    // "Consumers crashed N times mid-message", N the crashes; the early crashes' clause says
    // they used up deliveries (not "changed nothing") as messages were dead-lettered.
    let f = sim.facts_now();
    assert_eq!(f.guarantee, Guarantee::Parked);
    assert_eq!(f.crashes, count(&sim, "crashes"));
    assert!(f.crashes > f.crashes_between && f.dead_lettered > 0, "{f:?}");
}

// ---- Chapter 2, Break 3: double credits from the queue ----

/// "I'd record the producer's event ID in a processed_messages table in the same transaction as
/// the ledger insert, with a unique constraint, and acknowledge only after commit. A redelivery
/// then finds the ID and does nothing." Every source of a second delivery is on: crashes after
/// the commit, outbox republishes, late redeliveries days later; the IDs are kept 30 days.
#[test]
fn break_3_the_event_id_in_the_ledgers_transaction_stops_every_double_credit() {
    for (seed, sim) in preset_runs("ch2-break-3") {
        assert_eq!((count(&sim, "lost"), count(&sim, "duplicated")), (0, 0), "seed {seed}");
        assert_eq!(count(&sim, "effectively_once"), 1000, "seed {seed}");
        assert_eq!(int(&sim, "ledger_difference"), 0, "seed {seed}");
        assert!(count(&sim, "republished") > 20 && count(&sim, "late_redeliveries") > 20, "seed {seed}");
        assert!(count(&sim, "crashes_between") > 0, "seed {seed}");
        let by_cause = sim.skipped_by_cause();
        for cause in [Cause::Republished, Cause::Late, Cause::AfterMiddleCrash] {
            assert!(by_cause.get(cause) > 0, "seed {seed}: no {cause:?} copy skipped");
        }
        assert_eq!(reading(&sim, "guarantee"), "effectively-once");
        assert!(sim.facts_now().shows_break_3(), "seed {seed}");
    }
    // The same copies with the credit first and the ack after, no dedupe: double credits, the
    // interviewer's symptom; and ack first, the follow-up: "a crash after the ack loses the credit".
    let p = SPEC.configured("ch2-break-3", &[("order", "process-then-ack")]);
    let twice = run(&p, 7);
    assert!(count(&twice, "duplicated") > 50, "{}", count(&twice, "duplicated"));
    assert!(!twice.facts_now().shows_break_3());
    let p = SPEC.configured("ch2-break-3", &[("order", "ack-then-process")]);
    assert!(count(&run(&p, 7), "lost") > 0);
}

// ---- The figure's picture (issue 44): the broker, the consumers and the ledger, as held ----

mod picture {
    use super::*;
    use resilience_lab::scenarios::at_least_once::{ConsumerNow, ConsumerState, Entry, MOST_READY_DRAWN};

    /// The picture at the model's present against the metrics, the fates and what the broker
    /// and the consumers hold.
    fn check_picture(sim: &AtLeastOnce) -> Result<(), TestCaseError> {
        let drawn = sim.picture(sim.now());
        let fates = sim.fates();
        prop_assert_eq!(drawn.at, sim.now());
        prop_assert_eq!(drawn.duplicated() as u64, count(sim, "duplicated"));
        prop_assert_eq!(drawn.lost() as u64, count(sim, "lost"));
        let entries = |kind: Entry| drawn.ledger.iter().filter(|e| **e == kind).count() as u64;
        prop_assert_eq!(entries(Entry::Parked), count(sim, "in_dead_letter_queue"));
        prop_assert_eq!(drawn.ledger.len() as u32, sim.config().messages);
        prop_assert_eq!(entries(Entry::Unpublished), sim.config().messages as u64 - sim.published());
        let credited = sim.event_records().iter().filter(|e| e.credits() > 0).count() as u64;
        prop_assert_eq!(entries(Entry::Once) + entries(Entry::Twice), credited);
        prop_assert!(entries(Entry::Once) >= fates.once, "settled once are among those credited once");
        prop_assert_eq!(drawn.ledger_balance, int(sim, "ledger_balance"));
        prop_assert_eq!(drawn.expected_balance, int(sim, "expected_balance"));
        prop_assert_eq!(drawn.crashes, count(sim, "crashes"));
        prop_assert_eq!(drawn.redeliveries, count(sim, "redeliveries"));
        prop_assert_eq!(drawn.dead_letter_queue, count(sim, "dead_lettered") - count(sim, "redriven"));

        // The broker: what is drawn is held, all of it but a re-drive's copy, which waits in
        // the dead-letter queue.
        prop_assert_eq!(drawn.ready.len() as u64, drawn.ready_total.min(MOST_READY_DRAWN as u64));
        prop_assert!(drawn.ready_after_crash + drawn.ready_after_lease <= drawn.ready_total);
        let shown = drawn.ready_total + drawn.leased_working + drawn.orphans + drawn.outbox + drawn.late;
        let held = sim.broker_totals().held;
        if sim.config().redrive {
            prop_assert!(shown <= held && held <= shown + drawn.dead_letter_queue, "{} drawn, {} held", shown, held);
        } else {
            prop_assert_eq!(shown, held);
        }
        let visibility = (sim.config().visibility_timeout_ms * 1000.0) as u64;
        prop_assert_eq!(drawn.next_orphan.is_some(), drawn.orphans > 0);
        if let Some(o) = drawn.next_orphan {
            prop_assert!(
                o.until > sim.now() && o.until <= sim.now() + visibility + 1,
                "a lease still running: {:?}",
                o
            );
        }

        // The consumers, one for one.
        prop_assert_eq!(drawn.consumers.len(), sim.consumers().len());
        for (now, c) in drawn.consumers.iter().zip(sim.consumers()) {
            let same = match now {
                ConsumerNow::Idle => c.state == ConsumerState::Idle,
                ConsumerNow::Busy { .. } => c.state == ConsumerState::Busy,
                ConsumerNow::Restarting => c.state == ConsumerState::Restarting,
            };
            prop_assert!(same, "{:?} drawn for {:?}", now, c.state);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(48) })]

        /// For any parameters, at any moment, the picture is the model's state.
        #[test]
        fn the_picture_is_the_models_state(fractions in fractions(), seed in any::<u64>(), share in 0.0..1.0f64) {
            let p = smaller(draw(&fractions), 300);
            let mut sim = AtLeastOnce::new(&p, seed, SPEC.duration_for(&p) * MS);
            sim.advance((sim.end() as f64 * share) as u64, u64::MAX);
            check_picture(&sim)?;
        }
    }

    /// The chapter's run (process, then ack): a crash leaves a lease running out, the message
    /// comes back, and a double credit lands in the ledger; every preset's picture holds.
    #[test]
    fn a_crash_brings_a_message_back_and_the_ledger_shows_the_double_credit() {
        for preset in SPEC.presets.iter().map(|p| p.id) {
            let p = SPEC.configured(preset, &[]);
            let mut sim = AtLeastOnce::new(&p, 1, SPEC.duration_for(&p) * MS);
            let (mut orphaned, mut came_back, mut doubled) = (false, false, false);
            while !sim.finished() {
                sim.advance(sim.end(), 40);
                check_picture(&sim).unwrap_or_else(|e| panic!("{preset} at {} µs: {e}", sim.now()));
                let drawn = sim.picture(sim.now());
                orphaned |= drawn.orphans > 0;
                came_back |= drawn
                    .consumers
                    .iter()
                    .any(|c| matches!(c, ConsumerNow::Busy { cause, .. } if *cause != Cause::First));
                doubled |= drawn.duplicated() > 0;
            }
            if preset == "process-first" {
                assert!(orphaned && came_back && doubled, "{preset}: {orphaned} {came_back} {doubled}");
            }
        }
    }
}

/// SQS moves a message to the dead-letter queue on the receive that would exceed its
/// `maxReceiveCount`, not when its lease runs out ("When the ReceiveCount for a message exceeds
/// the maxReceiveCount for a queue, Amazon SQS moves the message to the dead-letter queue",
/// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html).
/// One receive allowed, jobs longer than the lease: a lone consumer acks its message before
/// anyone receives it again, so nothing is dead-lettered; with 16 consumers a free one's
/// receive comes first and moves it (the holder still credits: parked, not lost, and not
/// redelivered).
#[test]
fn dead_letter_on_the_receive_past_the_limit_not_at_the_lease_expiry() {
    for seed in [1, 7, 42] {
        let alone = run(&SPEC.configured("long-jobs", &[("max_deliveries", "1"), ("consumers", "1")]), seed);
        assert!(int(&alone, "leases_outlived") > 0, "seed {seed}");
        assert_eq!(int(&alone, "dead_lettered"), 0, "seed {seed}");
        assert_eq!(int(&alone, "effectively_once"), 1000, "seed {seed}");
        let many = run(&SPEC.configured("long-jobs", &[("max_deliveries", "1")]), seed);
        let moved = int(&many, "dead_lettered");
        assert!(moved > 0 && moved <= int(&many, "leases_outlived"), "seed {seed}: {moved}");
        assert_eq!(int(&many, "redeliveries"), 0, "seed {seed}");
    }
}

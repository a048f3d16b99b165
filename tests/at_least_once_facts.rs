//! The at-least-once reading's facts: by value at the chapter's presets (seed 7), and against
//! the metrics over random parameters, with each sentence's claim checked through the typed
//! fact its renderer branches on (no test reads the English).

use proptest::prelude::*;
use resilience_lab::scenarios::at_least_once::{
    AtLeastOnce as Model, AtLeastOnceFacts, Copies, DedupeOn, Guarantee, Order, SPEC,
};
use resilience_lab::sim::{Host, MS, Params, Simulation};

type AtLeastOnce = Host<Model>;

fn run(p: &Params, seed: u64) -> AtLeastOnce {
    let mut sim = AtLeastOnce::new(p, seed, SPEC.duration_for(p) * MS);
    sim.run_to_end();
    sim
}

fn facts_at(preset: &str, set: &[(&str, &str)]) -> AtLeastOnceFacts {
    let sim = run(&SPEC.configured(preset, set), 7);
    sim.facts_now()
}

/// Issue 24, case 2: the duplicates came through the republished copies the delivery ID does
/// not recognise, not through the 24 h window (no late copy in this preset).
#[test]
fn delivery_id_duplicates_come_from_the_republished_copies() {
    let f = facts_at("delivery-id", &[]);
    assert_eq!(f.guarantee, Guarantee::AtLeastOnce);
    assert_eq!(f.dedupe, Some(DedupeOn::DeliveryId));
    assert_eq!((f.republished, f.republished_copies.duplicated), (52, 52));
    assert_eq!(f.duplicated, 52);
    assert_eq!(f.late_redeliveries, 0);
    assert_eq!(f.after_middle_crash, Copies { duplicated: 2, skipped: 11 });
    assert_eq!(f.middle_recredits, 0, "the middle crashes' events were re-credited by another copy");
}

/// Issue 24, case 6: every delivery crashes; the uncredited events were dead-lettered after 5
/// deliveries and wait there, none lost to the order.
#[test]
fn crashing_every_delivery_parks_events_it_does_not_lose_them() {
    let f = facts_at("txn-dedupe", &[("crash_rate", "100")]);
    assert_eq!(f.guarantee, Guarantee::Parked);
    assert_eq!((f.lost, f.lost_after_ack, f.parked), (0, 0, 31));
    assert_eq!((f.dead_lettered, f.max_deliveries), (1000, 5));
    assert_eq!((f.crashes, f.crashes_between), (5000, 2573));
    assert!(f.shows_break_3());
}

/// Issue 24, case 9: 61 late copies, no event of theirs credited twice (told by event, not by
/// the deliveries skipped as late).
#[test]
fn long_window_late_copies_are_told_by_event() {
    let f = facts_at("long-window", &[]);
    assert_eq!(f.guarantee, Guarantee::EffectivelyOnce);
    assert_eq!(f.late_redeliveries, 61);
    assert_eq!(f.late_copies.duplicated, 0);
    assert!(f.window_outlasts_redelivery);
    assert!(f.settled && f.ended && f.judged);
}

/// `run --json` will carry the facts: choices by their parameter ids, counts as numbers.
#[test]
fn facts_serialize_with_the_parameters_ids() {
    let json = serde_json::to_value(facts_at("delivery-id", &[])).unwrap();
    assert_eq!(json["order"], "txn-dedupe");
    assert_eq!(json["dedupe"], "delivery-id");
    assert_eq!(json["guarantee"], "at-least-once");
    assert_eq!(json["republished_copies"]["duplicated"], 52);
}

#[test]
fn the_chapters_orders_at_their_presets() {
    let ack = facts_at("ack-first", &[]);
    assert_eq!(
        (ack.order, ack.guarantee, ack.lost, ack.lost_after_ack),
        (Order::AckThenProcess, Guarantee::AtMostOnce, 11, 11)
    );
    let process = facts_at("process-first", &[]);
    assert_eq!(
        (process.guarantee, process.duplicated, process.after_middle_crash.duplicated),
        (Guarantee::AtLeastOnce, 11, 11)
    );
    let txn = facts_at("txn-dedupe", &[]);
    assert_eq!((txn.guarantee, txn.dedupe, txn.skipped), (Guarantee::EffectivelyOnce, Some(DedupeOn::EventId), 11));
    let lease = facts_at("long-jobs-lease", &[]);
    assert_eq!((lease.tested, lease.judged, lease.lease_renewals), (false, false, 39));
    assert_eq!(lease.chapter_guarantee, Guarantee::AtLeastOnce);
}

fn draw(fractions: &[f64], messages: u32) -> Params {
    let mut p = SPEC.defaults();
    for (spec, &f) in SPEC.params.iter().zip(fractions) {
        p.set(spec.id, spec.at_fraction(f));
    }
    p.set("messages", messages as f64);
    p
}

fn fractions() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(prop_oneof![2 => 0.0..1.0f64, 1 => Just(0.0), 1 => Just(1.0)], SPEC.params.len())
}

/// Each fact against the metrics, and each claim's precondition.
fn check(f: &AtLeastOnceFacts, sim: &AtLeastOnce) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    prop_assert_eq!(f.guarantee.id(), m.guarantee.as_str());
    prop_assert_eq!(
        (f.lost, f.duplicated, f.once, f.pending, f.parked),
        (m.lost, m.duplicated, m.effectively_once, m.pending, m.in_dead_letter_queue)
    );
    prop_assert_eq!((f.ledger, f.ledger_difference), (m.ledger_balance, m.ledger_difference));
    prop_assert_eq!((f.crashes, f.crashes_between), (m.crashes, m.crashes_between));
    prop_assert_eq!((f.dead_lettered, f.redriven, f.republished), (m.dead_lettered, m.redriven, m.republished));
    prop_assert_eq!(
        (f.late_redeliveries, f.leases_outlived, f.lease_renewals),
        (m.late_redeliveries, m.leases_outlived, m.lease_renewals)
    );
    prop_assert_eq!(f.skipped, m.skipped_as_duplicate);
    prop_assert_eq!(f.settled, m.settled_at_ms.is_some());
    prop_assert_eq!(f.tested, f.crashes_between > 0);
    // The guarantee's words: "lost" and "twice" only when they happened; parked only with a
    // dead-letter queue that holds some.
    prop_assert_eq!(f.lost > 0, matches!(f.guarantee, Guarantee::AtMostOnce | Guarantee::Neither));
    prop_assert_eq!(f.duplicated > 0, matches!(f.guarantee, Guarantee::AtLeastOnce | Guarantee::Neither));
    prop_assert!(f.guarantee != Guarantee::Parked || (f.parked > 0 && f.dead_lettered > 0));
    // A crash after the ack is the only cause of loss, and only ack-first has one.
    prop_assert!(f.lost_after_ack <= f.crashes_between);
    prop_assert_eq!(f.lost, f.lost_after_ack);
    prop_assert!(f.order == Order::AckThenProcess || f.lost == 0);
    // The causes of each duplicate are events that cause touched, so none names more than
    // happened; without a dedupe store nothing is skipped.
    let causes = [f.after_middle_crash, f.republished_copies, f.late_copies, f.outlived_copies, f.redriven_copies];
    prop_assert!(causes.iter().all(|c| c.duplicated <= f.duplicated));
    prop_assert!(causes.iter().map(|c| c.skipped).sum::<u64>() <= f.skipped);
    prop_assert!(f.dedupe.is_some() || f.skipped == 0);
    prop_assert!(f.republished_copies.duplicated <= f.republished);
    prop_assert!(f.outlived_copies.duplicated <= f.leases_outlived);
    prop_assert!(f.redriven_copies.duplicated <= f.redriven);
    prop_assert!(f.after_middle_crash.duplicated <= f.crashes_between);
    prop_assert!(f.middle_recredits == 0 || f.dedupe.is_none() || f.after_middle_crash.duplicated > 0);
    prop_assert!(!f.shows_break_3() || (f.lost == 0 && f.duplicated == 0 && f.skipped > 0));
    prop_assert!(f.judged || (!f.tested && f.guarantee == Guarantee::EffectivelyOnce));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(48) })]

    #[test]
    fn facts_agree_with_the_metrics_for_any_parameters(
        fractions in fractions(),
        messages in 1u32..400,
        seed in any::<u64>(),
        share in prop_oneof![Just(1.0), 0.0..1.0f64],
    ) {
        let p = draw(&fractions, messages);
        let mut sim = AtLeastOnce::new(&p, seed, SPEC.duration_for(&p) * MS);
        sim.advance((sim.end() as f64 * share) as u64, u64::MAX);
        let f = sim.facts_now();
        check(&f, &sim)?;
        prop_assert_eq!(f.ended, sim.now() >= sim.end());
    }
}

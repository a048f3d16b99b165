//! The double-click reading's facts: by value at the chapter's presets and the cases
//! (seed 7), and against the metrics over random parameters, each sentence's claim checked
//! through the typed fact its renderer branches on (no test reads the English).

use proptest::prelude::*;
use resilience_lab::scenarios::double_click::{
    self, BuyerOutcome, Claim, DoubleClickFacts, Fix, KeyStore, Reenabled, SPEC,
};
use resilience_lab::sim::{Host, MS, Simulation};

type DoubleClick = Host<double_click::DoubleClick>;

fn facts_at(preset: &str, set: &[(&str, &str)]) -> DoubleClickFacts {
    let p = SPEC.configured(preset, set);
    let mut sim = DoubleClick::new(&p, 7, SPEC.duration_for(&p) * MS);
    sim.run_to_end();
    sim.facts_now()
}

#[test]
fn the_chapters_three_two_one_are_its_runs() {
    for (fix, charges) in [("none", 3), ("disable", 2), ("key", 1)] {
        let f = facts_at("double-click", &[("fix", fix)]);
        assert!(f.chapters_run && f.settled, "fix {fix}");
        assert_eq!(f.chapter_charges, Some(charges), "fix {fix}");
        assert_eq!(f.charge_ids.len() as u64, charges, "fix {fix}");
    }
    let key = facts_at("key", &[]);
    assert_eq!(
        (key.keys_used, key.buyer, key.receipt, key.story_matches_card),
        (1, BuyerOutcome::Paid, Some(1), Some(true))
    );
}

/// Issue 24, case 11: a crash with the key in a separate store is not the chapter's run, so
/// the chapter's "1, one key" is not said.
#[test]
fn crash_separate_store_is_not_the_chapters_run() {
    let f = facts_at("crash-separate-store", &[]);
    assert_eq!((f.fix, f.key_store, f.crash_after_charge), (Fix::Key, KeyStore::Separate, true));
    assert!(!f.chapters_run);
    assert_eq!(f.chapter_charges, None);
    assert_eq!(f.charge_ids, vec![1]);
    assert_eq!((f.buyer, f.story_matches_card), (BuyerOutcome::Processing, Some(true)));
}

/// Issue 24, case 11: with 100 ms attempts the button comes back at 539.974 ms (jittered), before the second
/// click at 600 ms, which starts a new payment: 4 charges, not the chapter's 2.
#[test]
fn a_short_timeout_re_enables_the_button_before_the_second_click() {
    let f = facts_at("disable", &[("attempt_timeout_ms", "100")]);
    assert_eq!(f.charge_ids, vec![1, 2, 3, 4]);
    assert_eq!(f.reenabled, Some(Reenabled { at: 539_974, click_at: 600 * MS }));
    assert_eq!((f.purchases, f.chapters_run, f.chapter_charges), (2, false, None));
    assert_eq!((f.buyer, f.story_matches_card), (BuyerOutcome::Failed, Some(false)));
}

/// Issue 24, case 11: two requests with one key in the same millisecond, read then insert:
/// both charge (no unique constraint decides), and it is not the chapter's run.
#[test]
fn same_ms_race_charges_through_one_key() {
    let f = facts_at("same-ms-race", &[]);
    assert!(f.same_ms_clicks);
    assert_eq!((f.fix, f.claim, f.keys_used), (Fix::Key, Claim::ReadThenInsert, 1));
    assert_eq!(f.charge_ids, vec![1, 2, 3]);
    assert_eq!((f.chapters_run, f.chapter_charges), (false, None));
    let atomic = facts_at("same-ms-atomic", &[]);
    assert_eq!((atomic.claim, atomic.charge_ids.len()), (Claim::Atomic, 1));
}

/// `run --json` will carry the facts: choices by their parameter ids, times in µs.
#[test]
fn facts_serialize_with_the_parameters_ids() {
    let json = serde_json::to_value(facts_at("disable", &[("attempt_timeout_ms", "100")])).unwrap();
    assert_eq!(json["fix"], "disable");
    assert_eq!(json["buyer"], "failed");
    assert_eq!(json["key_store"], "same-transaction");
    assert_eq!(json["reenabled"]["click_at"], 600_000);
}

/// Each fact against the metrics, and each claim's precondition.
fn check(f: &DoubleClickFacts, sim: &DoubleClick) -> Result<(), TestCaseError> {
    let m = sim.metrics_now();
    prop_assert_eq!(f.charge_ids.len() as u64, m.charges);
    prop_assert_eq!(f.buyer.as_str(), m.client_outcome.as_str());
    let ids = f.charge_ids.iter().map(|id| format!("ch_{id}")).collect::<Vec<_>>().join(", ");
    prop_assert_eq!(ids, m.charge_ids);
    // "Receipt ch_N": a charge on the card.
    prop_assert!(f.buyer != BuyerOutcome::Paid || f.receipt.is_some_and(|r| f.charge_ids.contains(&r)));
    // The judgement comes only once settled, and "the truth" only when the card agrees.
    prop_assert_eq!(f.story_matches_card.is_some(), f.settled);
    prop_assert!(!f.settled || f.in_progress == 0);
    if f.story_matches_card == Some(true) {
        let charges = f.charge_ids.len();
        prop_assert!(matches!(
            (f.buyer, charges),
            (BuyerOutcome::Paid | BuyerOutcome::Processing, 1) | (BuyerOutcome::Failed | BuyerOutcome::Rejected, 0)
        ));
    }
    // "The button came back at …, so the click at … started a new payment".
    if let Some(Reenabled { at, click_at }) = f.reenabled {
        prop_assert_eq!(f.fix, Fix::Disable);
        prop_assert!(at <= click_at && f.purchases >= 2);
    }
    // "The chapter: N": only on the chapter's run, whose count it is.
    prop_assert!(f.chapter_charges.is_none() || f.chapters_run);
    if f.chapters_run && f.settled {
        prop_assert_eq!(f.chapter_charges, Some(m.charges));
    }
    // Keys: none without a key fix; one key per purchase at most with it (from the first
    // click on: a run paused before it has sent nothing).
    prop_assert_eq!(f.keys_used == 0, f.clicks == 0 || matches!(f.fix, Fix::None | Fix::Disable));
    if f.fix == Fix::Key {
        prop_assert!(f.keys_used <= f.purchases);
    }
    // A same-millisecond race on an atomic claim, with the key's row in the charge's
    // transaction: the unique constraint lets one request charge.
    if f.fix == Fix::Key && f.claim == Claim::Atomic && f.key_store == KeyStore::SameTransaction {
        prop_assert!(m.charges <= 1);
    }
    Ok(())
}

fn fix_name() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["none", "disable", "key", "key-per-click", "key-per-attempt"])
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(48) })]

    #[test]
    fn facts_agree_with_the_metrics_for_any_parameters(
        fix in fix_name(),
        second_click_ms in prop_oneof![1 => Just(0u32), 3 => 0u32..=500],
        // Short timeouts often, so a disabled button comes back before the second click.
        timeout in prop_oneof![10u32..=30, 30u32..=300],
        retries in 0u32..=3,
        handler in 0u32..=300,
        claim in prop::sample::select(vec!["atomic", "read-then-insert"]),
        store in prop::sample::select(vec!["same-transaction", "separate"]),
        crash in any::<bool>(),
        preset in prop::sample::select(vec!["double-click", "part3-table", "disable", "key"]),
        seed in any::<u64>(),
        share in prop_oneof![Just(1.0), 0.0..1.0f64],
    ) {
        let set = [
            ("fix", fix.to_string()),
            ("second_click_ms", (second_click_ms * 10).to_string()),
            ("attempt_timeout_ms", (timeout * 10).to_string()),
            ("retries", retries.to_string()),
            ("handler_ms", (handler * 10).to_string()),
            ("claim", claim.to_string()),
            ("key_store", store.to_string()),
            ("crash_after_charge", crash.to_string()),
        ];
        // Half the cases keep the preset's own values, so the chapter's runs come up too.
        let n = if seed % 2 == 0 { 1 } else { set.len() };
        let set: Vec<(&str, &str)> = set[..n].iter().map(|(k, v)| (*k, v.as_str())).collect();
        let p = SPEC.configured(preset, &set);
        let mut sim = DoubleClick::new(&p, seed, SPEC.duration_for(&p) * MS);
        let end = (SPEC.duration_for(&p) as f64 * share) as u64 * MS;
        sim.advance(end, u64::MAX);
        let f = sim.facts_now();
        check(&f, &sim)?;
    }
}

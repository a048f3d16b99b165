//! Chapter 2, "When the interviewer breaks it", Breaks 1 and 4 (issue 28): the page's
//! "processing" state, the claim held by the first request's transaction, and the
//! external-provider pattern (claim and pending order committed first, the provider key derived
//! from the order or fresh per attempt, the provider's key window, the recovery job). Every
//! number comes from the run; the tests check the mechanism, not a table of outcomes.

use super::*;
use resilience_lab::scenarios::double_click::{ProviderCallKey, RecoveryChargeWhy, RecoverySettled, ReplayedTo};
use resilience_lab::sim::Model;

/// Break 1: "the client retries with the same idempotency key ... if the first attempt is still
/// running it returns 409 ... if it finished it replays the stored response. If time runs out,
/// the UI says 'processing' rather than 'failed', and the order settles asynchronously from ...
/// a reconciliation job."
#[test]
fn ch2_break_1_same_key_409_processing_then_recovery_and_replay() {
    for seed in SEEDS {
        let sim = run(&SPEC.configured("ch2-break-1", &[]), seed);
        let t = sim.timeline();
        let click1: Vec<_> = t.attempts.iter().filter(|a| a.click == 0).map(|a| a.outcome).collect();
        assert_eq!(
            click1,
            [AttemptOutcome::Timeout, AttemptOutcome::Conflict, AttemptOutcome::Conflict],
            "seed {seed}"
        );
        assert_eq!(t.clicks[0].outcome, BuyerOutcome::Processing, "'processing', not 'failed'");
        // The first 409 came while the first request's provider call was still running.
        let first_409 = t.attempts.iter().find(|a| a.outcome == AttemptOutcome::Conflict).unwrap();
        assert!(first_409.end.unwrap() < t.ledger[0].at + 20 * MS);
        assert_eq!(t.clicks[0].processing_from, first_409.end);
        // The worker died after the provider charged: the order stayed pending until the
        // recovery job called the provider with the order's key, which it recognised.
        assert!(t.server[0].crashed);
        assert_eq!(t.recoveries.len(), 1);
        let r = &t.recoveries[0];
        assert_eq!(r.provider_key, ProviderCallKey::Order(1));
        assert_eq!((r.charge, r.new_charge), (Some(1), false));
        assert_eq!(r.start - r.pending_since, 3000 * MS);
        assert_eq!(count(&sim, "recovery_charges"), 0);
        // The buyer clicks again later: the same key, the stored charge replayed.
        let last = t.attempts.last().unwrap();
        assert_eq!((last.click, last.outcome), (1, AttemptOutcome::Ok { charge: 1, replayed: true }));
        assert!(last.start > r.end.unwrap());
        assert_eq!((count(&sim, "charges"), text(&sim, "client_outcome").as_str()), (1, "paid"));
        assert_eq!(sim.story_matches_card(sim.now()), Some(true));
        // "The page shows “Processing…”, not an error": a 409 with a retry left.
        let processing =
            |w: &What| matches!(w, What::AttemptEnded { end: AttemptEnd::Conflict, retries_left: true, .. });
        assert!(count_events(&sim, processing) >= 1, "seed {seed}");
        // "The recovery job finds key k1's order still pending, 3,000 ms after it committed".
        let finds = What::RecoveryCalls { key: 1, pending_for: 3000 * MS, with: ProviderCallKey::Order(1) };
        assert_eq!(count_events(&sim, |w| *w == finds), 1, "seed {seed}");
        // "(ch_1, 3,000 ms ago, within its 24 h key window): it returns ch_1 to the recovery job".
        let returns = What::ProviderReplayed {
            to: ReplayedTo::RecoveryJob,
            key: ProviderCallKey::Order(1),
            charge: 1,
            ago: 3000 * MS,
            window_ms: 24.0 * 3_600_000.0,
        };
        assert_eq!(count_events(&sim, |w| *w == returns), 1, "seed {seed}");
        // "The recovery job settled 1 order still pending: the provider recognised the order's key
        // and charged nothing more."
        assert_eq!(sim.facts_now().recovery, Some(RecoverySettled { orders: 1, charged_again: 0 }));
    }
    // Without the recovery job the order stays pending: the later click gets 409 too.
    let stuck = run(&SPEC.configured("ch2-break-1", &[("recovery_after_ms", "0")]), 1);
    assert_eq!(*outcomes(&stuck).last().unwrap(), AttemptOutcome::Conflict);
    assert!(stuck.timeline().recoveries.is_empty() && stuck.facts_now().recovery.is_none());
    // With the recovery job, an answer that never came is 'processing'; without one, 'failed'.
    let timed_out = [("second_click", "false"), ("retries", "0"), ("crash_after_charge", "false")];
    let with_job = run(&SPEC.configured("ch2-break-1", &timed_out), 1);
    assert_eq!(outcomes(&with_job), [AttemptOutcome::Timeout]);
    assert_eq!(text(&with_job, "client_outcome"), "processing");
    let mut no_job = timed_out.to_vec();
    no_job.push(("recovery_after_ms", "0"));
    assert_eq!(text(&run(&SPEC.configured("ch2-break-1", &no_job), 1), "client_outcome"), "failed");
}

/// While the helper waits after a 409, the page says "processing" (the buyer_sees line), and
/// only then: before the 409 it says "Please wait".
#[test]
fn the_page_shows_processing_between_a_409_and_the_retry() {
    let p = SPEC.configured("part3-table-key", &[]);
    let mut sim = DoubleClick::new(&p, 1, SPEC.duration_for(&p) * MS);
    sim.advance(1100 * MS, u64::MAX);
    // "Please wait…": a timeout is not a 409.
    let f = sim.facts_now();
    assert_eq!((f.buyer, f.processing_409), (BuyerOutcome::Waiting, false), "a timeout is not a 409");
    let conflict = run(&p, 1).timeline().attempts[1].end.unwrap();
    sim.advance(conflict + 1, u64::MAX);
    // "Processing… Your payment is in progress".
    let f = sim.facts_now();
    assert_eq!((f.buyer, f.processing_409), (BuyerOutcome::Waiting, true));
    sim.run_to_end();
    // "Thank you! Receipt ch_1."
    let f = sim.facts_now();
    assert_eq!((f.buyer, f.receipt), (BuyerOutcome::Paid, Some(1)));
}

/// Break 4: "INSERT … ON CONFLICT DO NOTHING. Exactly one gets the row. ... if the first is still
/// in its transaction, the second insert waits until it commits, then gets no row and reads the
/// stored response." Same millisecond, the first holds its transaction 3 s (`claim_hold_ms`).
#[test]
fn ch2_break_4_the_second_waits_for_the_commit_then_reads_the_stored_response() {
    for seed in SEEDS {
        let sim = run(&SPEC.configured("ch2-break-4", &[]), seed);
        let t = sim.timeline();
        assert_eq!(t.server[0].arrived, t.server[1].arrived, "the same millisecond");
        assert_eq!(t.ledger[0].at - t.server[0].arrived, 3000 * MS, "the transaction is held 3 s, not 1.5 s");
        assert_eq!(t.server[1].waited_until, Some(t.ledger[0].at));
        assert_eq!(t.server[1].result, ServerResult::Replayed { charge: 1 });
        assert_eq!(metric(&sim, "claim_wait_ms"), Value::Num(3000.0));
        assert_eq!((count(&sim, "charges"), count(&sim, "replays"), count(&sim, "conflicts_409")), (1, 1, 0));
        // "… after waiting 3,000 ms, gets no row", and "claims key k1, and starts charging the card;
        // its transaction, with the claim, stays open at least 3,000 ms."
        let woke = |w: &What| matches!(w, What::WaitEnded { key: Some(1), how: WaitEnd::Replayed { charge: 1 }, waited, .. } if *waited == 3000 * MS);
        assert_eq!(count_events(&sim, woke), 1, "seed {seed}");
        let held = |w: &What| matches!(w, What::Received { key: Some(1), how: Received::ClaimsAndChargesHeld { hold }, .. } if *hold == 3000 * MS);
        assert_eq!(count_events(&sim, held), 1, "seed {seed}");
    }
    // The hold is the transaction's, not the handler's: with no hold the wait is the handler's 1.5 s.
    let short = run(&SPEC.configured("ch2-break-4", &[("claim_hold_ms", "0")]), 1);
    assert_eq!(metric(&short, "claim_wait_ms"), Value::Num(1500.0));
    // A handler longer than the hold: the transaction commits when the work is done.
    let long = run(&SPEC.configured("ch2-break-4", &[("handler_ms", "4000")]), 1);
    assert_eq!(metric(&long, "claim_wait_ms"), Value::Num(4000.0));
}

/// "set a short lock_timeout on the claim so a duplicate returns 409 quickly instead of holding
/// a connection": 200 ms, SQLSTATE 55P03, then a retry that reads the stored response.
#[test]
fn ch2_break_4_a_short_lock_timeout_answers_409_at_once() {
    for seed in SEEDS {
        let sim = run(&SPEC.configured("ch2-break-4-lock-timeout", &[]), seed);
        let t = sim.timeline();
        let waits: Vec<_> = t.server.iter().filter_map(|s| s.waited_until.map(|w| w - s.arrived)).collect();
        assert!(!waits.is_empty() && waits.iter().all(|&w| w == 200 * MS), "seed {seed}: {waits:?}");
        assert!(t.server.iter().filter(|s| s.waited_until.is_some()).all(|s| s.lock_timed_out));
        assert_eq!(metric(&sim, "claim_wait_ms"), Value::Num(200.0));
        assert_eq!(count(&sim, "conflicts_409") as usize, waits.len());
        assert_eq!(*outcomes(&sim).last().unwrap(), AttemptOutcome::Ok { charge: 1, replayed: true });
        assert!(t.server.last().unwrap().arrived > t.ledger[0].at, "the replay came after the commit");
        assert_eq!((count(&sim, "charges"), text(&sim, "client_outcome").as_str()), (1, "paid"));
        // "… the lock timeout cancels its insert (SQLSTATE 55P03)", once per wait.
        let cancelled = |w: &What| matches!(w, What::WaitEnded { how: WaitEnd::LockTimeout, .. });
        assert_eq!(count_events(&sim, cancelled), waits.len(), "seed {seed}");
    }
}

/// The follow-up: "I commit the claim and a pending record first, call the provider with a key
/// derived from that record ... A crash leaves a pending row that a recovery job resumes with the
/// same provider key." A fresh key per attempt, or a recovery after the provider's key window,
/// charges again.
#[test]
fn ch2_break_4_external_work_derived_key_against_a_fresh_key_and_the_window() {
    for seed in SEEDS {
        let sim = run(&SPEC.configured("ch2-break-4-external", &[]), seed);
        let t = sim.timeline();
        // The duplicate waited only for the short claim transaction, then read "processing".
        assert_eq!(metric(&sim, "claim_wait_ms"), Value::Num(50.0), "seed {seed}");
        assert_eq!(t.server[1].result, ServerResult::Conflict);
        assert!(!t.server[1].lock_timed_out);
        assert_eq!(t.server[0].claim_committed, Some(t.server[0].arrived + 50 * MS));
        assert_eq!((count(&sim, "charges"), count(&sim, "recovery_charges")), (1, 0));
        assert_eq!(text(&sim, "client_outcome"), "processing");
        assert_eq!(sim.story_matches_card(sim.now()), Some(true));
        // "… gets no row and reads the order processing. The server answers 409."
        let processing = |w: &What| matches!(w, What::WaitEnded { how: WaitEnd::OrderProcessing, .. });
        assert_eq!(count_events(&sim, processing), 1, "seed {seed}");

        let fresh = run(&SPEC.configured("ch2-break-4-external", &[("provider_key", "per-attempt")]), seed);
        assert_eq!((count(&fresh, "charges"), count(&fresh, "recovery_charges")), (2, 1));
        assert_eq!(fresh.story_matches_card(fresh.now()), Some(false));
        // "its calls charged the card 1 time"
        assert_eq!(fresh.facts_now().recovery.map(|r| r.charged_again), Some(1));
        assert_eq!(fresh.facts_now().recovery.map(|r| r.charged_again), Some(count(&fresh, "recovery_charges") as u64));

        // The first charge is 1,500 ms after the claim committed; the recovery job calls 3,000 ms
        // after it and its call ends 1,500 ms later: 3 s after the first charge. A window of 2 s
        // has passed by then, one of 4 s has not.
        let past = run(&SPEC.configured("ch2-break-4-external", &[("provider_key_window_ms", "2000")]), seed);
        assert_eq!((count(&past, "charges"), count(&past, "recovery_charges")), (2, 1));
        // "… past the provider's 2,000 ms key window, so the provider charges again".
        let past_window = |w: &What| matches!(w, What::RecoveryCharged { why: Some(RecoveryChargeWhy::Forgotten(f)), .. } if f.window_ms == 2000.0);
        assert_eq!(count_events(&past, past_window), 1, "seed {seed}");
        let within = run(&SPEC.configured("ch2-break-4-external", &[("provider_key_window_ms", "4000")]), seed);
        assert_eq!(count(&within, "charges"), 1);
    }
}

/// The provider's deduplication, wherever two calls for one order reach it: a claim taken over
/// after its expiry, and a read-then-insert race. Derived key: one charge within the window;
/// fresh per attempt: a charge per call; past the window: charged again.
#[test]
fn the_provider_charges_once_per_derived_key_within_its_window() {
    let takeover = [("claim_ttl_ms", "500")];
    for seed in SEEDS {
        let per_attempt = run(&SPEC.configured("crash-separate-store", &takeover), seed);
        assert_eq!(count(&per_attempt, "charges"), 2, "two calls, two fresh keys, two charges");
        let mut derived = takeover.to_vec();
        derived.push(("provider_key", "derived"));
        let sim = run(&SPEC.configured("crash-separate-store", &derived), seed);
        assert_eq!(count(&sim, "charges"), 1, "seed {seed}");
        assert!(sim.timeline().server[1].provider_replayed);
        assert_eq!(*outcomes(&sim).last().unwrap(), AttemptOutcome::Ok { charge: 1, replayed: false });
        derived.push(("provider_key_window_ms", "1000"));
        let within = run(&SPEC.configured("crash-separate-store", &derived), seed);
        assert_eq!(count(&within, "charges"), 1, "the takeover is well within 1 s of the first charge");

        let race = run(&SPEC.configured("same-ms-race", &[("provider_key", "derived")]), seed);
        assert_eq!(count(&race, "charges"), 1, "the provider is the last net under a racy claim");
        let fresh = run(&SPEC.configured("same-ms-race", &[("provider_key", "per-attempt")]), seed);
        assert_eq!(count(&fresh, "charges"), 3);
    }
    // A window shorter than the gap between the calls: the second charges again.
    let short = [
        ("claim_ttl_ms", "500"),
        ("provider_key", "derived"),
        ("provider_key_window_ms", "1000"),
        ("handler_ms", "1200"),
    ];
    let sim = run(&SPEC.configured("crash-separate-store", &short), 1);
    let t = sim.timeline();
    assert!(t.ledger.len() == 2 && t.ledger[1].at - t.ledger[0].at >= 1000 * MS, "{:?}", t.ledger);
}

/// The new settings drawn over their ranges, with the timings of the other property tests.
pub(super) fn provider_settings() -> impl Strategy<Value = Vec<(&'static str, String)>> {
    (
        prop_oneof![Just(0u32), 1u32..=300],
        prop::sample::select(vec!["derived", "per-attempt"]),
        prop_oneof![Just(0u32), 1u32..=100],
        prop_oneof![Just(86_400u32), 1u32..=10],
        (
            prop::sample::select(vec!["wait", "committed-first"]),
            prop::sample::select(vec!["same-transaction", "separate"]),
        ),
        (prop::sample::select(vec!["atomic", "read-then-insert"]), any::<bool>(), prop_oneof![Just(0u32), 1u32..=30]),
        prop_oneof![Just(0u32), 1u32..=100],
    )
        .prop_map(|(hold, key, recovery, window, (key_claim, store), (claim, crash, ttl), lock)| {
            vec![
                ("claim_hold_ms", (hold * 10).to_string()),
                ("provider_key", key.to_string()),
                ("recovery_after_ms", (recovery * 100).to_string()),
                ("provider_key_window_ms", (window * 1000).to_string()),
                ("key_claim", key_claim.to_string()),
                ("key_store", store.to_string()),
                ("claim", claim.to_string()),
                ("crash_after_charge", crash.to_string()),
                ("claim_ttl_ms", (ttl * 100).to_string()),
                ("lock_timeout_ms", (lock * 10).to_string()),
            ]
        })
}

pub(super) fn joined(a: &[(&'static str, String)], b: &[(&'static str, String)], fix: &str) -> Params {
    let mut p = with(a, &[("fix", fix)]);
    for (k, v) in b {
        p.set_text(k, v).unwrap();
    }
    p
}

/// Every provider call that has ended, by a request or by the recovery job: its key, whether it
/// charged, and the charge it answered with.
fn provider_calls(sim: &DoubleClick) -> Vec<(ProviderCallKey, bool, u32)> {
    let t = sim.timeline();
    let requests = t.server.iter().filter_map(|s| match (s.provider_key, s.result) {
        (Some(k), ServerResult::Charged { charge }) => Some((k, !s.provider_replayed, charge)),
        _ => None,
    });
    let jobs = t.recoveries.iter().filter_map(|r| Some((r.provider_key, r.new_charge, r.charge?)));
    requests.chain(jobs).collect()
}

/// The key that made each charge, in charge order.
fn charge_keys(sim: &DoubleClick) -> Vec<ProviderCallKey> {
    let calls = provider_calls(sim);
    (1..=sim.charges() as u32)
        .map(|id| calls.iter().find(|(_, new, c)| *new && *c == id).expect("every charge has its call").0)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any setting: no panic, the same run for the same seed, and the charges are the provider's
    /// own: one per call that charged, each a call whose key was new to it or past its window;
    /// with a key derived from one order and a window longer than the run, one charge at most
    /// whatever the claim, the store, a crash or an expiry; fresh keys charge on every call. The
    /// recovery job calls only for orders still pending, once each, and settles them all.
    #[test]
    fn provider_charges_and_recovery_hold_their_invariants(t in timings(), s in provider_settings(), seed in any::<u64>(),
                                                          fix in prop::sample::select(vec!["key", "none", "key-per-click"])) {
        let p = joined(&t, &s, fix);
        let mut a = DoubleClick::new(&p, seed, SETTLE);
        a.run_to_end();
        let mut b = DoubleClick::new(&p, seed, SETTLE);
        b.run_to_end();
        prop_assert_eq!(a.metrics(), b.metrics());
        let c = DoubleClickConfig::from_params(&p);
        let calls = provider_calls(&a);
        let charged = calls.iter().filter(|(_, new, _)| *new).count();
        prop_assert_eq!(a.charges(), charged);
        let tl = a.timeline();
        prop_assert_eq!(count(&a, "recovery_charges") as usize, tl.ledger.iter().filter(|l| l.by_recovery).count());
        prop_assert_eq!(count(&a, "recovery_charges") as usize, tl.recoveries.iter().filter(|r| r.new_charge).count());
        if c.provider_key == double_click::ProviderKey::PerAttempt {
            prop_assert!(calls.iter().all(|(_, new, _)| *new), "a fresh key always charges");
        } else if fix == "key" && c.provider_key_window_ms >= 86_400_000.0 {
            // (The one charge may be the recovery job's: its call can reach the provider while
            // a slow worker's call for the same order is still on its way.)
            prop_assert!(a.charges() <= 1, "{}", a.summary());
        }
        // A repeated key charged again only past the window.
        let keys = charge_keys(&a);
        for (i, l) in tl.ledger.iter().enumerate() {
            if let Some(j) = (0..i).rev().find(|&j| keys[j] == keys[i]) {
                prop_assert!(l.at - tl.ledger[j].at >= (c.provider_key_window_ms * MS as f64) as u64);
            }
        }
        // The recovery job: only with one, at most once per pending order, each call ended.
        if c.recovery_after_ms == 0.0 {
            prop_assert!(tl.recoveries.is_empty());
        }
        prop_assert!(tl.recoveries.iter().all(|r| r.end.is_some() && r.start - r.pending_since == (c.recovery_after_ms * MS as f64) as u64));
        for (i, r) in tl.recoveries.iter().enumerate() {
            prop_assert!(tl.recoveries[..i].iter().all(|x| (x.key, x.pending_since) != (r.key, r.pending_since)));
        }
        prop_assert!(a.settled(a.now()), "{}", a.summary());
        // No wait on a held claim outlasts the lock timeout (when set), or else the holder's
        // transaction: its work or its hold, whichever is longer.
        let longest = tl.server.iter().filter_map(|s| s.waited_until.map(|w| w - s.arrived)).max().unwrap_or(0);
        prop_assert_eq!(metric(&a, "claim_wait_ms"), Value::num(longest as f64 / MS as f64));
        let held = (c.handler_ms + c.handler_spread_ms).max(c.claim_hold_ms);
        let bound = if c.lock_timeout_ms > 0.0 { c.lock_timeout_ms } else { held };
        prop_assert!(longest as f64 <= bound * MS as f64 + 1.0, "waited {} µs", longest);
        // With a key and a recovery job, the page never says "failed": the order will settle.
        if fix == "key" && c.recovery_after_ms > 0.0 {
            prop_assert!(a.buyer_outcome() != BuyerOutcome::Failed);
        }
        check_readings(&a)?;
        check_new_sentences(&a)?;
    }

    /// At any moment of any run, the new sentences are said exactly when their facts hold.
    #[test]
    fn the_new_sentences_appear_only_when_their_facts_hold(t in timings(), s in provider_settings(), seed in any::<u64>(),
                                                          stop_ms in 0u64..8000) {
        let p = joined(&t, &s, "key");
        let mut sim = DoubleClick::new(&p, seed, SPEC.duration_for(&p) * MS);
        sim.advance(stop_ms * MS, u64::MAX);
        check_new_sentences(&sim)?;
        sim.run_to_end();
        check_new_sentences(&sim)?;
    }
}

/// Each new sentence against the records it speaks of.
fn check_new_sentences(sim: &DoubleClick) -> Result<(), TestCaseError> {
    let t = sim.timeline();
    let now = sim.now();
    let events = |pick: fn(&What) -> bool| count_events(sim, pick);
    // "The recovery job finds key …", and "The recovery job records ch_…".
    prop_assert_eq!(events(|w| matches!(w, What::RecoveryCalls { .. })), t.recoveries.len());
    prop_assert_eq!(
        events(|w| matches!(w, What::RecoveryRecords { .. })),
        t.recoveries.iter().filter(|r| r.end.is_some()).count()
    );
    // "… and takes no money".
    let replays = t.server.iter().filter(|s| s.provider_replayed && s.end.is_some_and(|e| e <= now)).count()
        + t.recoveries.iter().filter(|r| r.end.is_some() && !r.new_charge).count();
    prop_assert_eq!(events(|w| matches!(w, What::ProviderReplayed { .. })), replays);
    // "… key window, so the provider charges again": only for a key that charged before.
    let forgotten = events(|w| {
        matches!(
            w,
            What::Charged { forgotten: Some(_), .. }
                | What::RecoveryCharged { why: Some(RecoveryChargeWhy::Forgotten(_)), .. }
        )
    }) > 0;
    let keys = charge_keys(sim);
    let past_window = (0..keys.len()).any(|i| keys[..i].contains(&keys[i]));
    prop_assert_eq!(forgotten, past_window);
    // "… in a transaction it holds open …".
    prop_assert_eq!(
        events(|w| matches!(w, What::Received { how: Received::ClaimsPending { .. }, .. })),
        t.server.iter().filter(|s| s.claim_held).count()
    );
    let c = sim.config();
    let held_with_the_charge = c.claim_hold_ms > 0.0
        && c.key_claim == double_click::KeyClaim::Wait
        && c.key_store == double_click::KeyStore::SameTransaction
        && c.claim == double_click::Claim::Atomic;
    let charging = t.server.iter().filter(|s| {
        matches!(s.result, ServerResult::Running | ServerResult::Charged { .. })
            && s.waited_until.is_none()
            && sim.timeline().attempts[s.attempt].key.is_some()
    });
    // "… with the claim, stays open at least …".
    prop_assert_eq!(
        events(|w| matches!(w, What::Received { how: Received::ClaimsAndChargesHeld { .. }, .. })),
        if held_with_the_charge { charging.count() } else { 0 }
    );
    // "The claim on key … and its pending order commit, …".
    prop_assert_eq!(
        events(|w| matches!(w, What::ClaimCommitted { .. })),
        t.server.iter().filter(|s| s.claim_committed.is_some()).count()
    );
    // "The page shows “Processing…”, not an error": a 409 with a retry left.
    let shown = events(|w| matches!(w, What::AttemptEnded { end: AttemptEnd::Conflict, retries_left: true, .. }));
    let retried_409s =
        t.attempts.iter().filter(|a| a.outcome == AttemptOutcome::Conflict && a.number <= sim.config().retries).count();
    prop_assert_eq!(shown, retried_409s);
    let waiting_after_409 = sim.buyer_outcome() == BuyerOutcome::Waiting
        && t.clicks
            .iter()
            .rev()
            .find(|c| c.effect == ClickEffect::Started)
            .is_some_and(|c| c.processing_from.is_some());
    let f = sim.facts_now();
    // buyer_sees says "Processing…" exactly then.
    prop_assert_eq!(f.buyer == BuyerOutcome::Waiting && f.processing_409, waiting_after_409);
    // The recovery sentence is said once the job settled an order, and says how many of its
    // calls charged anew ("charged nothing more" when none did).
    let done: Vec<_> = t.recoveries.iter().filter(|r| r.end.is_some()).collect();
    let settled = (!done.is_empty()).then(|| RecoverySettled {
        orders: done.len() as u64,
        charged_again: done.iter().filter(|r| r.new_charge).count() as u64,
    });
    prop_assert_eq!(f.recovery, settled);
    if let Some(r) = f.recovery {
        prop_assert!(r.charged_again <= sim.metrics_now().recovery_charges);
    }
    Ok(())
}

//! Issue 45, "one moment on screen", cases 2, 11 and 12: what the words quote is the run's at
//! the moment they are read. cascade's /checkout percentiles count the clients still waiting
//! and say so; at-least-once says "none twice" only of now, and where a parked event's money is.

use proptest::prelude::*;
use resilience_lab::format;
use resilience_lab::scenarios::{at_least_once, cascade};
use resilience_lab::sim::{Host, MS, Micros, Params, Simulation, Value};

type Cascade = Host<cascade::Cascade>;
type AtLeastOnce = Host<at_least_once::AtLeastOnce>;

fn sentence(sim: &dyn Simulation, key: &str) -> String {
    sim.reading().into_iter().find(|(k, _)| *k == key).map(|(_, v)| v).unwrap_or_else(|| panic!("no reading {key}"))
}

/// A value as its card shows it: the text the words must quote.
fn card_ms(ms: Option<f64>) -> String {
    format::quantity_text(&ms.map_or(Value::Null, Value::num), "ms")
}

/// A metric as the report and the card round it (`Value::num`).
fn tenth(ms: Option<f64>) -> Option<f64> {
    ms.map(|x| (x * 10.0).round() / 10.0)
}

fn cascade_at(p: &Params, seed: u64, at: Micros) -> Cascade {
    let mut sim = Cascade::new(p, seed, cascade::SPEC.duration_for(p) * MS);
    sim.advance(at, u64::MAX);
    sim
}

/// Case 2: at 4 s of the chapter's run 4 checkouts got through in about 9 ms and 35 still wait,
/// the oldest for 3.6 s. The p99 beside "35 waiting" was 9.2 ms, the four's; counting each
/// waiting client at its wait so far it is 3,490 ms, and the card, the note and the verdict say
/// so. Once every client has its answer or gave up, the two are the same.
#[test]
fn cascade_checkout_p99_counts_the_clients_still_waiting() {
    let p = cascade::SPEC.defaults();
    let sim = cascade_at(&p, 1, 4_000 * MS);
    let m = sim.metrics_now();
    assert_eq!((m.checkout_ok, m.checkout_waiting, tenth(m.checkout_p99_ms)), (4, 35, Some(9.2)));
    assert_eq!(tenth(m.checkout_p99_ms_with_waiting), Some(3489.8));
    assert_eq!(tenth(m.checkout_p50_ms_with_waiting), Some(1581.1));
    let verdict = sentence(&sim, "verdict");
    assert!(verdict.contains("4 of 39 checkouts succeeded, p99 3,490 ms."), "{verdict}");
    assert!(verdict.contains("The p99 counts 35 still waiting at their wait so far."), "{verdict}");
    assert_eq!(sentence(&sim, "note_p99"), "p50 1,581 ms; counts 35 still waiting at their wait so far");
    assert_eq!(sentence(&sim, "row_ok"), "4 of 39, p99 3,490 ms; it counts 35 still waiting at their wait so far");
    let mut sim = sim;
    sim.run_to_end();
    let m = sim.metrics_now();
    assert_eq!(m.checkout_waiting, 0);
    assert_eq!(m.checkout_p99_ms_with_waiting, m.checkout_p99_ms);
    assert_eq!(m.checkout_p50_ms_with_waiting, m.checkout_p50_ms);
}

/// Case 11: at 25 s of the chapter's run three events were credited and their consumer crashed
/// before the ack. "None twice" is of now, and the words say that those three are unacked; the
/// broker had not delivered them again, so "the broker redelivered it" was not true yet either.
#[test]
fn at_least_once_mid_run_says_none_twice_only_of_now() {
    let p = at_least_once::SPEC.defaults();
    let mut sim = AtLeastOnce::new(&p, 1, at_least_once::SPEC.duration_for(&p) * MS);
    sim.advance(25_000 * MS, u64::MAX);
    let f = sim.facts_now();
    assert_eq!((f.once, f.credited_unacked, f.crashes_between), (242, 3, 3));
    let answer = sentence(&sim, "answer");
    assert!(answer.starts_with("Effectively once so far: 242 events credited exactly once, none lost, none twice yet. 3 more events were credited once, and a crash between the credit and the ack left their messages unacked"), "{answer}");
    assert!(!answer.contains("the broker redelivered it"), "{answer}");
}

/// Case 12: every delivery crashes, the dedupe store keeps every event from a second credit,
/// and 30 events end in the dead-letter queue. The ledger's shortfall is their money, and the
/// sentence says where it is.
#[test]
fn at_least_once_parked_money_is_where_the_words_say() {
    let mut p = at_least_once::SPEC.defaults();
    p.set_text("crash_rate", "100").unwrap();
    p.set_text("order", "txn-dedupe").unwrap();
    let mut sim = AtLeastOnce::new(&p, 1, at_least_once::SPEC.duration_for(&p) * MS);
    sim.run_to_end();
    let f = sim.facts_now();
    assert_eq!((f.lost, f.parked, f.parked_usd, f.ledger_difference), (0, 30, 1817, -1817));
    let answer = sentence(&sim, "answer");
    assert!(
        answer.starts_with("Nothing lost or credited twice, but 30 events were never credited: the ledger is $1,817 short, their amounts, parked in the dead-letter queue."),
        "{answer}"
    );
}

fn draw(spec: &resilience_lab::sim::ScenarioSpec, fractions: &[f64]) -> Params {
    let mut p = spec.defaults();
    for (param, &f) in spec.params.iter().zip(fractions) {
        p.set(param.id, param.at_fraction(f));
    }
    p
}

fn fractions(n: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(prop_oneof![2 => 0.0..1.0f64, 1 => Just(0.0), 1 => Just(1.0)], n)
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(48) })]

    /// cascade, any parameters, seed and moment: the percentiles the words quote are the cards'
    /// at that moment, rendered as the cards render them, and the count they say is counted.
    #[test]
    fn cascade_words_quote_the_cards_of_their_moment(
        fractions in fractions(cascade::SPEC.params.len()),
        seed in 0u64..1000,
        part in 0.0..1.0f64,
    ) {
        let p = draw(&cascade::SPEC, &fractions);
        let end = cascade::SPEC.duration_for(&p) * MS;
        let sim = cascade_at(&p, seed, (end as f64 * part) as Micros);
        let m = sim.metrics_now();
        let f = sim.facts_now();
        prop_assert_eq!(f.checkout.p99_with_waiting_ms, tenth(m.checkout_p99_ms_with_waiting));
        prop_assert_eq!(f.checkout.p50_with_waiting_ms, tenth(m.checkout_p50_ms_with_waiting));
        prop_assert_eq!(m.checkout_p50_ms_with_waiting.is_some(), m.checkout_arrived > 0);
        if m.checkout_waiting == 0 {
            prop_assert_eq!(m.checkout_p99_ms_with_waiting, m.checkout_p99_ms);
        }
        let note = sentence(&sim, "note_p99");
        if m.checkout_arrived > 0 {
            let p50 = format!("p50 {}", card_ms(m.checkout_p50_ms_with_waiting));
            prop_assert!(note.starts_with(&p50), "{} / {}", note, p50);
        }
        let waiting = m.checkout_waiting;
        let counts = match waiting {
            1 => "1 still waiting at its wait so far".to_string(),
            n => format!("{} still waiting at their wait so far", format::count(n)),
        };
        prop_assert_eq!(waiting > 0 && m.checkout_arrived > 0, note.contains(&counts), "{}", note);
        let verdict = sentence(&sim, "verdict");
        if let Some(i) = verdict.find("checkouts succeeded, p99 ") {
            let p99 = format!("p99 {}", card_ms(m.checkout_p99_ms_with_waiting));
            prop_assert!(verdict[i..].contains(&p99), "{} / {}", verdict, p99);
            prop_assert_eq!(waiting > 0, verdict.contains(&format!("The p99 counts {counts}.")), "{}", verdict);
        }
    }

    /// at-least-once, any parameters, seed and moment: no "none twice" while an event credited
    /// once waits unacked after a crash in the middle, unless the words say so; the parked
    /// money and the rest add up to what the ledger is short.
    #[test]
    fn at_least_once_claims_only_what_is_true_now(
        fractions in fractions(at_least_once::SPEC.params.len()),
        messages in 1u32..400,
        seed in any::<u64>(),
        share in prop_oneof![Just(1.0), 0.0..1.0f64],
    ) {
        let mut p = draw(&at_least_once::SPEC, &fractions);
        p.set("messages", messages as f64);
        let mut sim = AtLeastOnce::new(&p, seed, at_least_once::SPEC.duration_for(&p) * MS);
        sim.advance((sim.end() as f64 * share) as u64, u64::MAX);
        let f = sim.facts_now();
        let answer = sentence(&sim, "answer");
        if answer.contains("none twice.") {
            prop_assert_eq!(f.credited_unacked, 0, "{}", answer);
        }
        if f.credited_unacked > 0 {
            prop_assert!(!f.settled);
        }
        if f.settled {
            prop_assert_eq!((f.credited_unacked, f.uncredited_usd), (0, 0));
        }
        if f.guarantee == at_least_once::Guarantee::Parked {
            // None lost or twice: what the ledger lacks is the parked money and the money not credited yet.
            prop_assert_eq!(-f.ledger_difference, f.parked_usd + f.uncredited_usd);
            let parked = format!("${}", format::group(f.parked_usd));
            prop_assert!(f.uncredited_usd == 0 || answer.contains(&parked), "{}", answer);
        }
        if f.parked > 0 && f.dead_lettered > 0 {
            let with = format!("there with {} ${}.", format::plural(f.parked, "its", "their"), format::group(f.parked_usd));
            prop_assert!(answer.contains(&with), "{} / {}", answer, with);
        }
    }
}

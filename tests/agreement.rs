//! Issue 45, item 6: a number the words state is the card that shows the same quantity, for
//! every scenario, at random moments of runs with random parameters.
//!
//! Which sentence quotes which card is declared once, in each scenario's `QUOTES` (the pages
//! read the same declaration: a quoted card changes with the words and carries
//! `data-quoted-by`). For each declared pair this checks, at every moment drawn:
//! - the card's text, rendered as the card renders it (`format::quantity`), is in the sentence;
//! - or the sentence does not quote that quantity then: no number of the card's unit in it is
//!   within [`NEAR`] of the card's value (a near miss, as "3,260 ms" in the verdict beside
//!   "3,326 ms" on the card was: issue 45, case 1).
//!
//! and at the end of the defaults' run that the sentence does quote the card, so that each
//! declared pair is one the page really shows.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use resilience_lab::format;
use resilience_lab::scenarios::ALL;
use resilience_lab::sim::{MS, Params, Reading, ScenarioSpec, Simulation, Value};

/// How close a number of the same unit must be to a card's value to be taken for a quote of it.
const NEAR: f64 = 0.03;

/// The same for a count: one reading often counts sets inside one another ("597 events credited
/// more than once … 297 of them through a late redelivery"), close without being the same.
const NEAR_COUNT: f64 = 0.01;

/// A number a sentence states: its digits as written ("3,260", "57.6") and what follows or
/// precedes it ("ms", "%", "×", "$", or the next word: "requests").
#[derive(Debug, PartialEq)]
struct Stated {
    text: String,
    value: f64,
    unit: String,
}

/// Every number in `sentence`, with its unit. A digit inside a word or an id ("ch_1", "k1",
/// "p99") starts none.
fn stated(sentence: &str) -> Vec<Stated> {
    let c: Vec<char> = sentence.chars().collect();
    let digit_at = |i: usize| c.get(i).is_some_and(char::is_ascii_digit);
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let inside_word = i > 0 && (c[i - 1].is_alphanumeric() || matches!(c[i - 1], '_' | '.' | ','));
        if !digit_at(i) || inside_word {
            i += 1;
            continue;
        }
        let start = i;
        while digit_at(i) || (matches!(c.get(i), Some(',' | '.')) && digit_at(i + 1)) {
            i += 1;
        }
        let text: String = c[start..i].iter().collect();
        let unit = match (start.checked_sub(1).map(|p| c[p]), c.get(i)) {
            (Some(p @ ('×' | '$')), _) => p.to_string(),
            (_, Some(s @ ('%' | '×'))) => s.to_string(),
            (_, Some(' ')) => c[i + 1..].iter().take_while(|ch| ch.is_alphabetic()).collect(),
            _ => String::new(),
        };
        out.push(Stated { value: text.replace(',', "").parse().expect("digits"), text, unit });
    }
    out
}

/// A card as the page shows it: its number's text and its unit as a sentence writes it.
#[derive(Debug)]
struct Card {
    text: String,
    value: f64,
    unit: &'static str,
}

fn card(value: &Value, unit: &'static str) -> Option<Card> {
    let (text, shown_unit) = format::quantity(value, unit);
    if !matches!(value, Value::Int(_) | Value::Num(_)) {
        return None;
    }
    let text = text.trim_start_matches('$').to_string();
    let value = text.replace(',', "").parse().ok()?;
    let unit = match shown_unit {
        _ if unit == "$" || unit == "¢" => "$",
        "× normal" => "×",
        u => u,
    };
    Some(Card { text, value, unit })
}

/// Whether a sentence's unit word is the card's unit: the same sign, or the noun a count's unit
/// stands for ("requests" for "req").
fn same_unit(card: &str, said: &str) -> bool {
    let noun = match card {
        "req" | "req/s" => "request",
        "calls" | "calls/tick" => "call",
        "events" => "event",
        "connections" => "connection",
        "orders" => "order",
        "attempts" => "attempt",
        "times" | "time" => "time",
        unit => return unit == said,
    };
    said == card || said.starts_with(noun)
}

/// Whether a count's card needs its unit beside its number in a sentence: a duration, a share, a
/// ratio and money do ("2,008" alone could be anything); a count reads "34 waiting" as well as
/// "34 requests".
fn unit_needed(unit: &str) -> bool {
    matches!(unit, "ms" | "min" | "h" | "days" | "%" | "×" | "$")
}

/// The card's text is in the sentence.
fn quotes(sentence: &[Stated], card: &Card) -> bool {
    sentence.iter().any(|s| s.text == card.text && (!unit_needed(card.unit) || s.unit == card.unit))
}

/// What else a number in a sentence may state: the run's settings and its other metrics.
#[derive(Default)]
struct Others {
    /// Each parameter's value and unit ("each client gave up after 42,100 ms" beside a p99 of
    /// 42,109 ms states the timeout, not the p99).
    settings: Vec<(f64, &'static str)>,
    /// Every metric's card ("68 events lost" beside 69 effectively once states the lost).
    cards: Vec<Card>,
}

/// A number of the card's unit near the card's value, but not its text, nor a setting or
/// another metric stated exactly.
fn near_miss<'a>(sentence: &'a [Stated], card: &Card, others: &Others) -> Option<&'a Stated> {
    if card.unit.is_empty() || card.value == 0.0 || quotes(sentence, card) {
        return None;
    }
    let setting = |s: &Stated| others.settings.iter().any(|&(v, unit)| v == s.value && unit == s.unit);
    let other = |s: &Stated| others.cards.iter().any(|c| c.text == s.text && same_unit(c.unit, &s.unit));
    let near = if unit_needed(card.unit) { NEAR } else { NEAR_COUNT };
    sentence.iter().find(|s| {
        same_unit(card.unit, &s.unit) && ((s.value - card.value) / card.value).abs() <= near && !setting(s) && !other(s)
    })
}

/// Checks every declared pair at the run's present moment.
fn agree_now(spec: &ScenarioSpec, params: &Params, sim: &dyn Simulation, case: &str) -> Result<(), TestCaseError> {
    let metrics = sim.metrics();
    let others = Others {
        settings: spec.params.iter().map(|p| (params.get(p.id), p.unit)).collect(),
        cards: spec.metrics.iter().zip(&metrics).filter_map(|(m, (_, v))| card(v, m.unit)).collect(),
    };
    let reading = sim.reading();
    for quote in spec.quotes {
        let Some((_, sentence)) = reading.iter().find(|(k, _)| *k == quote.reading) else { continue };
        let (numbers, lead) =
            (stated(sentence), stated(format::sentences(sentence).first().copied().unwrap_or_default()));
        for &key in quote.metrics {
            let (_, value) = metrics.iter().find(|(k, _)| *k == key).expect("declared metrics are reported");
            let Some(card) = card(value, spec.metric(key).expect("a declared metric").unit) else { continue };
            // A count is looked for in the first sentence, the one beside the card: the sentences
            // after it count sets inside one another ("989 events were credited more than once"
            // beside 981 credited once), close without being the same.
            let numbers = if unit_needed(card.unit) { &numbers } else { &lead };
            if let Some(miss) = near_miss(numbers, &card, &others) {
                return Err(TestCaseError::fail(format!(
                    "{} {case} at {} ms: the card {key} shows {} {} but `{}` says {} {}: {sentence}",
                    spec.id,
                    sim.now() / MS,
                    card.text,
                    card.unit,
                    quote.reading,
                    miss.text,
                    miss.unit
                )));
            }
        }
    }
    Ok(())
}

/// Random parameters in each declared range, as tests/properties.rs draws them (ends as often
/// as not), a random seed and moments anywhere in the run.
fn cases() -> impl Strategy<Value = (Vec<f64>, u64, Vec<f64>)> {
    let fraction = prop_oneof![2 => 0.0..1.0f64, 1 => Just(0.0), 1 => Just(1.0)];
    (prop::collection::vec(fraction, 64), any::<u64>(), prop::collection::vec(0.0..1.0f64, 3))
}

fn draw(spec: &ScenarioSpec, fractions: &[f64]) -> Params {
    let mut p = spec.defaults();
    for (ps, &f) in spec.params.iter().zip(fractions) {
        p.set(ps.id, ps.at_fraction(f));
    }
    p
}

/// The parameters that differ from the defaults, as a link's query reads them.
fn changed(spec: &ScenarioSpec, params: &Params) -> String {
    let defaults = spec.defaults();
    let set: Vec<String> = spec
        .params
        .iter()
        .filter(|p| params.get(p.id) != defaults.get(p.id))
        .map(|p| format!("{}={}", p.id, params.get(p.id)))
        .collect();
    format!("?sim={}&{}", spec.id, set.join("&"))
}

#[test]
fn words_quote_the_cards_at_random_moments_and_settings() {
    let mut failed = Vec::new();
    for spec in ALL {
        let result = TestRunner::new(Config { cases: 24, failure_persistence: None, ..Config::default() }).run(
            &cases(),
            |(fractions, seed, mut moments)| {
                let params = draw(spec, &fractions);
                let mut sim = spec.start(&params, seed, spec.duration_for(&params));
                let end = sim.end();
                moments.sort_by(f64::total_cmp);
                for f in moments.into_iter().chain([1.0]) {
                    sim.advance((end as f64 * f) as u64, u64::MAX);
                    agree_now(spec, &params, sim.as_ref(), &format!("{} seed {seed}", changed(spec, &params)))?;
                }
                Ok(())
            },
        );
        match result {
            Ok(()) => {}
            Err(TestError::Fail(why, _)) => failed.push(why.to_string()),
            Err(e) => failed.push(e.to_string()),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Each declared pair is one the words really quote: at the end of the defaults' run, or of a
/// preset's (slow-server's timeouts are quoted only with a timeout set), the sentence has the
/// card's text.
#[test]
fn each_declared_quote_is_quoted_at_the_end_of_a_chapter_run() {
    for spec in ALL {
        let runs: Vec<(Vec<(&str, Value)>, Reading)> = std::iter::once(spec.defaults())
            .chain(spec.presets.iter().map(|p| {
                let mut params = spec.defaults();
                params.apply_preset(p).expect("presets apply");
                params
            }))
            .map(|params| {
                let mut sim = spec.start(&params, 1, spec.duration_for(&params));
                sim.run_to_end();
                (sim.metrics(), sim.reading())
            })
            .collect();
        for quote in spec.quotes {
            for &key in quote.metrics {
                let unit = spec.metric(key).unwrap_or_else(|| panic!("{}: no metric {key}", spec.id)).unit;
                let quoted = runs.iter().any(|(metrics, reading)| {
                    let value = &metrics.iter().find(|(k, _)| *k == key).expect("declared metrics are reported").1;
                    let sentence = reading.iter().find(|(k, _)| *k == quote.reading);
                    matches!((card(value, unit), sentence), (Some(card), Some((_, s))) if quotes(&stated(s), &card))
                });
                assert!(
                    quoted,
                    "{}: `{}` never quotes {key} at the end of the defaults' or a preset's run",
                    spec.id, quote.reading
                );
            }
        }
    }
}

/// The check catches what it is for: issue 45's case 1 as it was (the verdict a quarter second
/// older than the card beside it), and a sentence that quotes another quantity passes.
#[test]
fn a_near_miss_is_caught() {
    let verdict =
        stated("p99 went from 56.6 ms before the slowdown (153 requests) to 3,260 ms after it (736 requests): ×57.6.");
    let after = card(&Value::num(3326.0), "ms").unwrap();
    assert_eq!(near_miss(&verdict, &after, &Others::default()).map(|s| s.text.as_str()), Some("3,260"));
    let before = card(&Value::num(56.6), "ms").unwrap();
    assert!(quotes(&verdict, &before) && near_miss(&verdict, &before, &Others::default()).is_none());
    // 2,008 ms on the card, and the user's 2,000 ms in the same sentence: quoted, not missed.
    let answer = stated("A answered the user with a 504 at 2,008 ms, 7.5 ms after the user's 2,000 ms had run out.");
    let deadline = stated("The user's 2,000 ms had run out.");
    assert!(near_miss(&answer, &card(&Value::num(2008.0), "ms").unwrap(), &Others::default()).is_none());
    assert!(near_miss(&answer, &card(&Value::num(2011.0), "ms").unwrap(), &Others::default()).is_some());
    // The user's 2,000 ms is a setting: a card of 1,990 ms is not quoted by it.
    assert!(near_miss(&deadline, &card(&Value::num(1990.0), "ms").unwrap(), &Others::default()).is_some());
    assert!(
        near_miss(
            &deadline,
            &card(&Value::num(1990.0), "ms").unwrap(),
            &Others { settings: vec![(2000.0, "ms")], ..Others::default() }
        )
        .is_none()
    );
    // Counts: "246 events" on the card; 238 would be 3.3% off, 244 is caught.
    let once = stated("Effectively once so far: 244 events credited once, none twice.");
    let effectively_once = card(&Value::count(246), "events").unwrap();
    assert!(near_miss(&once, &effectively_once, &Others::default()).is_some());
    // Unless 244 is another metric's card: then the sentence states that one.
    let lost = Others { cards: vec![card(&Value::count(244), "events").unwrap()], ..Others::default() };
    assert!(near_miss(&once, &effectively_once, &lost).is_none());
    assert_eq!(
        stated("×1.5 and 18.6× normal, $1,817 short, 12% of k1's ch_1"),
        vec![
            Stated { text: "1.5".into(), value: 1.5, unit: "×".into() },
            Stated { text: "18.6".into(), value: 18.6, unit: "×".into() },
            Stated { text: "1,817".into(), value: 1817.0, unit: "$".into() },
            Stated { text: "12".into(), value: 12.0, unit: "%".into() },
        ]
    );
}

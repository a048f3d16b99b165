//! Properties every scenario in `scenarios::ALL` must have, whatever it models: its
//! declaration is consistent, and for any parameter values in the declared ranges a run does
//! not panic, reports every declared metric as a finite number (or null, text, a list), is a
//! pure function of its seed, and never lets simulated time go backwards or past the end, in
//! whatever frame sizes the page advances it. New scenarios are covered by being registered.

use std::collections::HashSet;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use resilience_lab::format;
use resilience_lab::scenarios::{self, ALL};
use resilience_lab::sim::base::{MAX_DURATION_MS, MIN_DURATION_MS};
use resilience_lab::sim::{MS, ParamKind, Params, ScenarioSpec, Simulation, Value};
use resilience_lab::url::RESERVED;

/// Enough random fractions for the largest declaration.
const MAX_PARAMS: usize = 64;

/// One random fraction per parameter: the ends of the range as often as not, since edges are
/// where models break.
fn fractions() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(prop_oneof![2 => 0.0..1.0f64, 1 => Just(0.0), 1 => Just(1.0)], MAX_PARAMS)
}

/// Parameter values from fractions of each declared range, snapped to the step; choices and
/// toggles drawn by index.
fn draw(spec: &ScenarioSpec, fractions: &[f64]) -> Params {
    let mut p = spec.defaults();
    for (ps, &f) in spec.params.iter().zip(fractions) {
        p.set(ps.id, ps.at_fraction(f));
        let got = p.get(ps.id);
        assert!(got >= ps.min && got <= ps.max, "{}: {got} outside the range", ps.id);
    }
    p
}

/// Every numeric metric finite, in nested lists too.
fn finite(key: &str, v: &Value) -> Result<(), TestCaseError> {
    match v {
        Value::Num(x) => prop_assert!(x.is_finite(), "metric {key} is {x}"),
        Value::List(rows) => {
            for row in rows {
                for (k, v) in row {
                    finite(&format!("{key}.{k}"), v)?;
                }
            }
        }
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Text(_) => {}
    }
    Ok(())
}

fn check_metrics(spec: &ScenarioSpec, metrics: &[(&'static str, Value)]) -> Result<(), TestCaseError> {
    let reported: Vec<&str> = metrics.iter().map(|(k, _)| *k).collect();
    let declared: Vec<&str> = spec.metrics.iter().map(|m| m.key).collect();
    for key in &declared {
        prop_assert_eq!(reported.iter().filter(|k| *k == key).count(), 1, "{}: metric {} reported once", spec.id, key);
    }
    for key in &reported {
        prop_assert!(declared.contains(key), "{}: metric {} is not declared", spec.id, key);
    }
    for (k, v) in metrics {
        finite(k, v)?;
    }
    Ok(())
}

/// A frame as the page makes one: advance by `step_ms` of simulated time, at most `cap` events.
#[derive(Clone, Debug)]
struct Frame {
    step_us: u64,
    cap: u64,
}

/// Frames of any length, from none to half a second, and tiny event caps; the last frame of
/// the cycle is long so that a run always gets to its end in a bounded number of calls.
fn frames() -> impl Strategy<Value = Vec<Frame>> {
    let frame = (prop_oneof![Just(0u64), 1u64..1_000, 1_000u64..500_000], 1u64..64)
        .prop_map(|(step_us, cap)| Frame { step_us, cap });
    let long = (100_000u64..500_000, 1u64..64).prop_map(|(step_us, cap)| Frame { step_us, cap });
    (prop::collection::vec(frame, 0..15), long).prop_map(|(mut frames, long)| {
        frames.push(long);
        frames
    })
}

#[derive(Clone, Debug)]
struct Case {
    fractions: Vec<f64>,
    seed: u64,
    duration_ms: u64,
    frames: Vec<Frame>,
}

fn cases() -> impl Strategy<Value = Case> {
    (fractions(), any::<u64>(), MIN_DURATION_MS..=4_000u64, frames())
        .prop_map(|(fractions, seed, duration_ms, frames)| Case { fractions, seed, duration_ms, frames })
}

/// Runs `case` frame by frame to the end (cycling through its frames), checking the clock and
/// the event cap at every call; returns the final metrics.
fn stepped(spec: &ScenarioSpec, params: &Params, case: &Case) -> Result<Vec<(&'static str, Value)>, TestCaseError> {
    let mut sim = spec.start(params, case.seed, case.duration_ms);
    let end = sim.end();
    prop_assert_eq!(end, case.duration_ms * MS);
    prop_assert_eq!(sim.now(), 0);
    let mut total = 0;
    let mut calls = 0u64;
    while !sim.finished() {
        let frame = &case.frames[calls as usize % case.frames.len()];
        let before = sim.now();
        let until = before + frame.step_us;
        let step = sim.advance(until, frame.cap);
        let now = sim.now();
        prop_assert!(now >= before, "{}: time went back from {} to {}", spec.id, before, now);
        prop_assert!(now <= end, "{}: time {} passed the end {}", spec.id, now, end);
        prop_assert!(now <= until.max(before), "{}: advanced to {} past {}", spec.id, now, until);
        prop_assert!(step.events <= frame.cap, "{}: {} events over the cap {}", spec.id, step.events, frame.cap);
        if step.reached {
            prop_assert_eq!(now, until.min(end).max(before), "{}: reached but the clock is elsewhere", spec.id);
        } else {
            prop_assert_eq!(step.events, frame.cap, "{}: stopped short of {} without hitting the cap", spec.id, until);
        }
        total += step.events;
        calls += 1;
        if calls.is_multiple_of(16) {
            check_metrics(spec, &sim.metrics())?; // mid-run metrics are shown live
        }
    }
    prop_assert_eq!(sim.now(), end);
    prop_assert_eq!(total, sim.events(), "{}: events() disagrees with what advance reported", spec.id);
    Ok(sim.metrics())
}

fn run_once(spec: &ScenarioSpec, params: &Params, seed: u64, duration_ms: u64) -> (u64, Vec<(&'static str, Value)>) {
    let mut sim = spec.start(params, seed, duration_ms);
    sim.run_to_end();
    (sim.events(), sim.metrics())
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() })
}

/// For every scenario, random parameters in range, random seed and duration: no panic, every
/// declared metric present and finite, the clock monotone and capped, the event cap obeyed;
/// the same seed gives the same metrics, and advancing in small frames gives exactly what one
/// run to the end gives (the page and the CLI agree).
#[test]
fn every_scenario_runs_cleanly_and_deterministically() {
    for spec in ALL {
        runner(48)
            .run(&cases(), |case| {
                let params = draw(spec, &case.fractions);
                let metrics = stepped(spec, &params, &case)?;
                check_metrics(spec, &metrics)?;
                let (events_a, a) = run_once(spec, &params, case.seed, case.duration_ms);
                let (events_b, b) = run_once(spec, &params, case.seed, case.duration_ms);
                prop_assert_eq!(&a, &b, "{}: same seed, different metrics", spec.id);
                prop_assert_eq!(events_a, events_b);
                prop_assert_eq!(&metrics, &a, "{}: frame by frame differs from one go", spec.id);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("scenario {}: {e}", spec.id));
    }
}

/// The defaults of every scenario and every preset run at the default duration.
#[test]
fn every_preset_runs_at_its_default_duration() {
    for spec in ALL {
        for preset in std::iter::once(None).chain(spec.presets.iter().map(Some)) {
            let mut params = spec.defaults();
            if let Some(p) = preset {
                params.apply_preset(p).unwrap_or_else(|e| panic!("{} preset {}: {e}", spec.id, p.id));
            }
            let mut sim = spec.start(&params, 1, spec.default_duration_ms);
            sim.run_to_end();
            let metrics = sim.metrics();
            check_metrics(spec, &metrics)
                .unwrap_or_else(|e| panic!("{} preset {:?}: {e}", spec.id, preset.map(|p| p.id)));
        }
    }
}

/// The one declaration is consistent: ids unique and usable in URLs, defaults inside their
/// ranges and on the step grid, presets applying cleanly, text for every label.
#[test]
fn declarations_are_consistent() {
    let mut scenario_ids = HashSet::new();
    let snake = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    for spec in ALL {
        assert!(scenario_ids.insert(spec.id), "scenario id {} twice", spec.id);
        assert!(std::ptr::eq(scenarios::find(spec.id).unwrap(), spec));
        assert!(spec.id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'), "{}", spec.id);
        assert!(!spec.title.is_empty() && !spec.chapter.is_empty() && !spec.summary.is_empty(), "{}", spec.id);
        assert!((MIN_DURATION_MS..=MAX_DURATION_MS).contains(&spec.default_duration_ms), "{}", spec.id);
        assert!(spec.params.len() <= MAX_PARAMS, "{}: raise MAX_PARAMS", spec.id);

        let mut param_ids = HashSet::new();
        for p in spec.params {
            let at = format!("{}.{}", spec.id, p.id);
            assert!(param_ids.insert(p.id), "{at}: parameter id twice");
            assert!(!RESERVED.contains(&p.id), "{at}: id is reserved for the URL");
            assert!(snake(p.id), "{at}: ids are snake_case (they go into URLs and --set)");
            assert!(!p.label.is_empty() && !p.help.is_empty(), "{at}: label and help text");
            assert!(p.min.is_finite() && p.max.is_finite() && p.min < p.max, "{at}: range {}..{}", p.min, p.max);
            assert!(p.step > 0.0 && p.step.is_finite(), "{at}: step {}", p.step);
            assert!(
                p.default >= p.min && p.default <= p.max,
                "{at}: default {} outside {}..{}",
                p.default,
                p.min,
                p.max
            );
            assert_eq!(p.sanitize(p.default), p.default, "{at}: default is off the step grid");
            match p.kind {
                ParamKind::Choice(options) => {
                    let ids: Vec<&str> = options.iter().map(|o| o.id).collect();
                    assert!(!ids.is_empty(), "{at}");
                    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len(), "{at}: option twice");
                    assert!(ids.iter().all(|id| !id.is_empty() && !id.contains(['&', '=', '#', ' '])), "{at}: {ids:?}");
                    assert!(options.iter().all(|o| !o.label.is_empty() && !o.help.is_empty()), "{at}: option text");
                }
                ParamKind::Toggle => assert!(p.default == 0.0 || p.default == 1.0, "{at}"),
                ParamKind::Number => {
                    // Every value on the grid must survive being written out and read back.
                    for v in [p.min, p.default, p.max] {
                        assert_eq!(p.parse(&p.format(v)), Ok(v), "{at}: {v} does not round-trip as text");
                    }
                }
            }
        }

        let mut metric_keys = HashSet::new();
        for m in spec.metrics {
            assert!(metric_keys.insert(m.key), "{}: metric {} twice", spec.id, m.key);
            assert!(snake(m.key), "{}: metric key {} is snake_case", spec.id, m.key);
            assert!(!m.label.is_empty() && !m.help.is_empty(), "{}: metric {} needs label and help", spec.id, m.key);
        }

        for key in spec.headline {
            assert!(metric_keys.contains(key), "{}: headline metric {key} is not declared", spec.id);
        }

        let mut preset_ids = HashSet::new();
        for preset in spec.presets {
            let at = format!("{} preset {}", spec.id, preset.id);
            assert!(preset_ids.insert(preset.id), "{at}: twice");
            assert!(!preset.label.is_empty() && !preset.description.is_empty(), "{at}");
            let mut params = spec.defaults();
            params.apply_preset(preset).unwrap_or_else(|e| panic!("{at}: {e}"));
            for (spec_param, v) in spec.params.iter().zip(params.values()) {
                assert!(*v >= spec_param.min && *v <= spec_param.max, "{at}: {} = {v}", spec_param.id);
            }
        }
    }
}

/// Where a help text, label or preset description uses notation a reader may not know, if any:
/// an identifier (`fixed_ms`, backticks), code-like powers (`2^attempt`) or an unexplained
/// abbreviation. The issue found "fixed_ms", "2^attempt", "CV" and "undici `connections`".
fn notation(text: &str) -> Option<String> {
    if text.contains('`') || text.contains('^') {
        return Some(text.to_string());
    }
    let words = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    // Names a reader meets on the page or in the chapters: charge ids (ch_1) on the receipts,
    // error codes (UND_ERR_SOCKET) and Linux's tcp_syn_retries, which the article quotes.
    let named = |w: &str| {
        w.strip_prefix("ch_").is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            || w.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
            || w == "tcp_syn_retries"
    };
    words.map(str::to_string).find(|w| {
        w.contains('_') && !named(w) || ["CV", "RTT", "RPS", "FIFO"].contains(&w.as_str()) && !explained(text, w)
    })
}

/// An abbreviation is explained when the words it stands for come with it.
fn explained(text: &str, abbreviation: &str) -> bool {
    let meaning = match abbreviation {
        "FIFO" => "first in",
        "RTT" => "round trip",
        _ => return false,
    };
    text.to_lowercase().contains(meaning)
}

/// Every text a reader sees from the declaration is in their words.
#[test]
fn declarations_speak_plainly() {
    for spec in ALL {
        let mut texts: Vec<(String, &str)> = vec![("summary".into(), spec.summary)];
        for p in spec.params {
            texts.push((format!("{} label", p.id), p.label));
            texts.push((format!("{} help", p.id), p.help));
            if let ParamKind::Choice(options) = p.kind {
                for o in options {
                    texts.push((format!("{}={} label", p.id, o.id), o.label));
                    texts.push((format!("{}={} help", p.id, o.id), o.help));
                }
            }
        }
        for preset in spec.presets {
            texts.push((format!("preset {}", preset.id), preset.label));
            texts.push((format!("preset {}", preset.id), preset.description));
        }
        for m in spec.metrics {
            texts.push((format!("metric {}", m.key), m.label));
            texts.push((format!("metric {}", m.key), m.help));
        }
        let unplain: Vec<String> =
            texts.iter().filter_map(|(at, text)| Some(format!("{at}: {:?} in {text}", notation(text)?))).collect();
        assert!(unplain.is_empty(), "{}:\n{}", spec.id, unplain.join("\n"));
    }
}

mod slow_server {
    use super::*;
    use resilience_lab::scenarios::slow_server::{SPEC, SlowServer as Model};
    use resilience_lab::sim::Host;

    type SlowServer = Host<Model>;

    fn count(metrics: &[(&'static str, Value)], key: &str) -> i64 {
        match metrics.iter().find(|(k, _)| *k == key) {
            Some((_, Value::Int(n))) => *n,
            other => panic!("{key}: {other:?}"),
        }
    }

    fn check(sim: &SlowServer) -> Result<(), TestCaseError> {
        let m = sim.metrics();
        let (arrived, completed, timed_out, in_flight) =
            (count(&m, "arrived"), count(&m, "completed"), count(&m, "timed_out"), count(&m, "in_flight_end"));
        let refused = count(&m, "backlog_full");
        prop_assert_eq!(arrived, completed + timed_out + refused + in_flight, "conservation at {} µs", sim.now());
        let served: u64 = sim.servers().iter().map(|s| s.served()).sum();
        prop_assert!(completed as u64 <= served, "completed {} but servers served {}", completed, served);
        for s in sim.servers() {
            prop_assert!(s.outstanding() <= s.max_outstanding());
        }
        if sim.servers().len() > 1 {
            prop_assert_eq!(count(&m, "b_queue"), sim.servers()[1].outstanding() as i64);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(64) })]

        /// arrived = completed + timed out + refused + in flight, after every frame, for any parameters;
        /// the slowdown and B's ejection are placed inside the run so that they happen.
        #[test]
        fn conservation_for_random_parameters(
            fractions in fractions(),
            moments in (0.0..1.0f64, 0.0..1.0f64),
            seed in any::<u64>(),
            duration_ms in 200u64..4_000,
            caps in prop::collection::vec(1u64..200, 1..8),
        ) {
            let mut params = draw(&SPEC, &fractions);
            params.set("slow_at_ms", moments.0 * duration_ms as f64);
            params.set("eject_after_ms", moments.1 * duration_ms as f64);
            let mut sim = SlowServer::new(&params, seed, duration_ms * MS);
            let mut i = 0;
            while !sim.finished() {
                let step = caps[i % caps.len()];
                sim.advance(sim.now() + step * 100, step);
                check(&sim)?;
                i += 1;
            }
        }
    }
}

/// The readings the pages show as their verdict (kit `Verdict`): a lead of at most
/// `VERDICT_WORDS` words, the rest behind "Why?". Its first sentence must fit, for any
/// parameters in range and at every preset.
const VERDICTS: [&str; 5] = ["verdict", "answer", "ratio", "first", "failover_outcome"];

fn check_leads(spec: &ScenarioSpec, params: &Params, seed: u64, duration_ms: u64) -> Result<(), TestCaseError> {
    let mut sim = spec.start(params, seed, duration_ms);
    sim.run_to_end();
    for (key, text) in sim.reading().iter().filter(|(k, _)| VERDICTS.contains(k)) {
        let (lead, _) = format::lead(text, format::VERDICT_WORDS);
        let words = lead.split_whitespace().count();
        prop_assert!(words <= format::VERDICT_WORDS, "{} {key}: a lead of {words} words: {lead}", spec.id);
    }
    Ok(())
}

#[test]
fn verdicts_lead_with_a_short_sentence() {
    for spec in ALL {
        for preset in spec.presets {
            let mut params = spec.defaults();
            params.apply_preset(preset).unwrap();
            check_leads(spec, &params, 7, spec.default_duration_ms)
                .unwrap_or_else(|e| panic!("{} preset {}: {e}", spec.id, preset.id));
        }
        runner(32)
            .run(&cases(), |case| check_leads(spec, &draw(spec, &case.fractions), case.seed, case.duration_ms))
            .unwrap_or_else(|e| panic!("scenario {}: {e}", spec.id));
    }
}

/// `.cargo/config.toml` fixes the property tests' seed (README, "Testing"), so CI draws the same
/// cases every run; a seed set in the environment wins, to explore others.
#[test]
fn property_tests_draw_a_fixed_seed() {
    let seed = std::env::var("PROPTEST_RNG_SEED").expect("cargo sets it from .cargo/config.toml");
    let fixed = seed.parse::<u64>().expect("a number");
    assert_eq!(ProptestConfig::default().rng_seed, proptest::test_runner::RngSeed::Fixed(fixed));
}

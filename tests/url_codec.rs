//! The URL codec: every state survives encode → decode unchanged, and no query string, however
//! hostile, makes decoding panic or yield a value outside the declared ranges; whatever is
//! ignored or corrected is named in a notice.

use proptest::prelude::*;
use resilience_lab::scenarios::{self, ALL};
use resilience_lab::sim::base::{MAX_DURATION_MS, MIN_DURATION_MS};
use resilience_lab::sim::{ParamKind, ScenarioSpec};
use resilience_lab::url::{self, At, Autoplay, DEFAULT_SEED, RESERVED, SPEEDS, State, SweepView, Theme};

fn slow() -> &'static ScenarioSpec {
    scenarios::find("slow-server").unwrap()
}

fn decode(query: &str) -> (State, Vec<String>) {
    let (state, notices) = url::decode(query, Some(slow()));
    (state.expect("a default scenario was given"), notices)
}

/// Decodes and expects exactly one notice, which must mention every one of `names`.
fn one_notice(query: &str, names: &[&str]) -> State {
    let (state, notices) = decode(query);
    assert_eq!(notices.len(), 1, "{query}: {notices:?}");
    for name in names {
        assert!(notices[0].contains(name), "{query}: notice {:?} does not name {name}", notices[0]);
    }
    state
}

/// What every decoded state must satisfy, whatever the input.
fn assert_sane(state: &State, notices: &[String]) {
    let spec = state.scenario;
    assert!(ALL.iter().any(|s| s.id == spec.id));
    assert_eq!(state.params.specs().len(), spec.params.len());
    for (p, &v) in spec.params.iter().zip(state.params.values()) {
        assert!(v.is_finite() && v >= p.min && v <= p.max, "{}: {v} outside {}..{}", p.id, p.min, p.max);
        assert_eq!(p.sanitize(v), v, "{}: {v} is off the step grid", p.id);
    }
    if let Some(preset) = state.preset {
        assert!(spec.preset(preset).is_some());
    }
    assert!(SPEEDS.contains(&state.speed), "speed {}", state.speed);
    assert!((MIN_DURATION_MS..=MAX_DURATION_MS).contains(&state.duration()));
    for id in state.controls.iter().flatten() {
        assert!(spec.param(id).is_some(), "control {id}");
    }
    for n in notices {
        // Notices are shown in a banner: one line, short, whatever was typed.
        assert!(!n.contains('\n') && !n.contains('\r'), "{n:?}");
        assert!(n.chars().count() < 400, "notice of {} characters", n.chars().count());
    }
    // What was decoded encodes to a link that decodes to the same state, silently.
    let again = url::encode(state);
    let (round, notices) = url::decode(&again, None);
    assert_eq!(round.as_ref(), Some(state), "{again}");
    assert!(notices.is_empty(), "{again}: {notices:?}");
}

#[test]
fn defaults_encode_to_just_the_scenario() {
    for spec in ALL {
        let state = State::new(spec);
        assert_eq!(url::encode(&state), format!("sim={}", spec.id));
        let (decoded, notices) = url::decode(&format!("?sim={}", spec.id), None);
        assert_eq!(decoded, Some(state));
        assert!(notices.is_empty());
    }
}

#[test]
fn a_full_state_reads_back() {
    let (state, notices) = decode(
        "?sim=slow-server&preset=least-outstanding&rate=60&b_fails=true&seed=7&duration_ms=5000&speed=4&embed=1&controls=rate,timeout_ms&autoplay=1",
    );
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(state.preset, Some("least-outstanding"));
    assert_eq!(state.params.choice("policy"), "least-outstanding");
    assert_eq!(state.params.get("rate"), 60.0);
    assert!(state.params.flag("b_fails"));
    assert_eq!((state.seed, state.duration_ms, state.speed), (7, Some(5000), 4.0));
    assert!(state.embed && state.autoplay == Autoplay::OnLoad);
    assert_eq!(decode("?sim=slow-server&autoplay=view").0.autoplay, Autoplay::InView);
    assert_eq!(decode("?sim=slow-server&autoplay=0").0.autoplay, Autoplay::Off);
    assert_eq!(state.controls, Some(vec!["rate", "timeout_ms"]));
    // Keys and values may be percent-encoded, '+' is a space, and the last repeat wins.
    let (state, notices) = decode("r%61te=%2060&rate=70&policy=two%2Dchoices");
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(state.params.get("rate"), 70.0);
    assert_eq!(state.params.choice("policy"), "two-choices");
}

#[test]
fn what_a_figure_shows_reads_back_and_round_trips() {
    let query =
        "sim=slow-server&embed=1&controls=policy&presets=chapter,least-outstanding&show=latency,table&chart=in-flight";
    let (state, notices) = decode(query);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(state.presets, vec!["chapter", "least-outstanding"]);
    assert_eq!(state.show, vec!["latency".to_string(), "table".to_string()]);
    assert_eq!(state.chart.as_deref(), Some("in-flight"));
    assert_eq!(url::encode(&state), query);
    // An unknown preset is left out with a notice; a repeated one counts once; a part name is
    // only checked for its spelling here (the page says which parts it has).
    let state = one_notice("?presets=chapter,nope,chapter", &["nope", "least-outstanding"]);
    assert_eq!(state.presets, vec!["chapter"]);
    let state = one_notice("?show=ok,<b>&chart=x", &["<b>"]);
    assert_eq!((state.show, state.chart.as_deref()), (vec!["ok".to_string()], Some("x")));
}

#[test]
fn unknown_keys_are_ignored_with_a_notice() {
    let state = one_notice("?sim=slow-server&bogus=1", &["bogus"]);
    assert_eq!(state.params, slow().defaults());
    one_notice("?sim=slow-server&controls=rate,bogus", &["bogus"]);
}

#[test]
fn out_of_range_values_are_clamped_with_a_notice() {
    let state = one_notice("?rate=99999", &["rate", "99999", "3000"]);
    assert_eq!(state.params.get("rate"), 3000.0);
    let state = one_notice("?rate=-1e308", &["rate", "1"]);
    assert_eq!(state.params.get("rate"), 1.0);
    let state = one_notice("?slowdown=50.3", &["slowdown"]); // out of range and off the grid
    assert_eq!(state.params.get("slowdown"), 50.0);
    let state = one_notice("?duration_ms=5", &["duration_ms", &MIN_DURATION_MS.to_string()]);
    assert_eq!(state.duration_ms, Some(MIN_DURATION_MS));
    let state = one_notice("?duration_ms=1e30", &["duration_ms", &MAX_DURATION_MS.to_string()]);
    assert_eq!(state.duration_ms, Some(MAX_DURATION_MS));
    let state = one_notice("?speed=5", &["speed", "4"]);
    assert_eq!(state.speed, 4.0);
}

/// A value between the slider's steps snaps to the nearest step, and a notice says so: the same
/// rule and words as the command line's (`tests/cli.rs`), so a link gives one run everywhere.
#[test]
fn in_range_values_snap_to_the_step_with_a_notice() {
    let (state, notices) = decode("?slowdown=2.7&servers=2.5");
    assert_eq!(
        notices,
        ["slowdown: 2.7 is between the steps of 0.5×; using 2.5.", "servers: 2.5 is not a whole number; using 3."]
    );
    assert_eq!(state.params.get("slowdown"), 2.5);
    assert_eq!(state.params.get("servers"), 3.0);
}

#[test]
fn wrong_types_keep_the_default_with_a_notice() {
    for (query, names) in [
        ("?rate=abc", &["rate", "abc", "150"][..]),
        ("?rate=NaN", &["rate", "NaN"]),
        ("?rate=1e400", &["rate"]),
        ("?rate=", &["rate"]),
        ("?b_fails=maybe", &["b_fails", "maybe", "true or false"]),
        ("?policy=fastest", &["policy", "fastest", "round-robin", "least-outstanding"]),
        ("?seed=-1", &["seed", "-1"]),
        ("?seed=1.5", &["seed"]),
        ("?duration_ms=soon", &["duration_ms", "soon"]),
        ("?speed=fast", &["speed", "fast"]),
    ] {
        let state = one_notice(query, names);
        assert_eq!(state.params, slow().defaults(), "{query}");
        assert_eq!((state.seed, state.duration(), state.speed), (DEFAULT_SEED, slow().default_duration_ms, 1.0));
    }
    // A wrong value keeps what the preset gives, not the declaration's default.
    let state = one_notice("?preset=least-outstanding&policy=fastest", &["policy", "least-outstanding"]);
    assert_eq!(state.params.choice("policy"), "least-outstanding");
}

#[test]
fn unknown_scenario_or_preset_is_named() {
    let (state, notices) = url::decode("?sim=nope&rate=60", None);
    assert!(state.is_none());
    assert_eq!(notices.len(), 1);
    assert!(notices[0].contains("nope") && notices[0].contains("slow-server"), "{notices:?}");
    // With a default scenario, the page shows that one and still reads the rest.
    let state = one_notice("?sim=nope&rate=60", &["nope", "slow-server"]);
    assert_eq!(state.scenario.id, "slow-server");
    assert_eq!(state.params.get("rate"), 60.0);
    let state = one_notice("?preset=nope", &["nope", "least-outstanding"]);
    assert_eq!(state.preset, None);
    // No scenario named and no default: nothing to show, nothing to complain about.
    assert_eq!(url::decode("", None), (None, vec![]));
}

#[test]
fn hostile_input_is_contained() {
    let huge = "9".repeat(10_000);
    let script = "<script>alert(1)</script>";
    for query in [
        format!("?rate={huge}"),
        format!("?{huge}={huge}"),
        format!("?sim={huge}"),
        format!("?rate={script}&{script}=1&sim={script}&preset={script}"),
        "?%".into(),
        "?rate=%".into(),
        "?rate=%4".into(),
        "?rate=%zz&%%%=%%".into(),
        "?rate=%C3%28&policy=%FF%FE".into(),
        "?&&&==&=&?sim=slow-server?rate=60".into(),
        "é".repeat(3000),
        format!("?controls={}", ",".repeat(5000)),
    ] {
        let (state, notices) = decode(&query);
        assert_sane(&state, &notices);
    }
    // A value longer than any real state needs is ignored, and that is reported by name.
    let (_, notices) = decode(&format!("?rate={huge}"));
    assert!(notices.iter().any(|n| n.contains("'rate' is too long")), "{notices:?}");
}

/// A random state of a random scenario: preset or none, each parameter either the baseline's
/// or a random value in range on the grid, any seed, a speed the player offers, a duration in
/// range, embed and autoplay flags, a theme, a moment to open at, and a random list of visible
/// controls.
fn states() -> impl Strategy<Value = State> {
    (0..ALL.len()).prop_flat_map(|i| {
        let spec = ALL[i];
        (
            prop::option::of(0..spec.presets.len().max(1)),
            prop::collection::vec((any::<bool>(), prop_oneof![0.0..1.0f64, Just(0.0), Just(1.0)]), spec.params.len()),
            any::<u64>(),
            0..SPEEDS.len(),
            prop::option::of(MIN_DURATION_MS..=MAX_DURATION_MS),
            (
                any::<bool>(),
                prop_oneof![Just(Autoplay::Off), Just(Autoplay::OnLoad), Just(Autoplay::InView)],
                prop_oneof![Just(Theme::Auto), Just(Theme::Light), Just(Theme::Dark)],
                prop::option::of(prop_oneof![Just(At::End), (0u64..100_000_000).prop_map(At::Ms)]),
            ),
            prop::option::of(prop::collection::vec(0..spec.params.len(), 0..4)),
            prop::option::of((
                any::<prop::sample::Index>(),
                any::<prop::sample::Index>(),
                any::<prop::sample::Index>(),
                1..=50usize,
            )),
        )
            .prop_map(
                move |(preset, values, seed, speed, duration_ms, (embed, autoplay, theme, at), controls, sweep)| {
                    let mut state = State::new(spec);
                    state.preset = preset.and_then(|p| spec.presets.get(p)).map(|p| p.id);
                    state.params = state.baseline();
                    for (p, (change, f)) in spec.params.iter().zip(values) {
                        if change {
                            // `set` snaps to the step grid; choices and toggles to an index.
                            state.params.set(p.id, p.min + f * (p.max - p.min));
                        }
                    }
                    state.seed = seed;
                    state.speed = SPEEDS[speed];
                    state.duration_ms = duration_ms;
                    state.embed = embed;
                    state.autoplay = autoplay;
                    state.theme = theme;
                    state.at = at;
                    state.controls = controls.map(|c| c.into_iter().map(|i| spec.params[i].id).collect());
                    state.sweep = sweep.map(|(x, by, metric, seeds)| {
                        let numeric: Vec<_> = spec.params.iter().filter(|p| p.kind == ParamKind::Number).collect();
                        let choices: Vec<_> =
                            spec.params.iter().filter(|p| matches!(p.kind, ParamKind::Choice(_))).collect();
                        let by = (!choices.is_empty()).then(|| by.get(&choices).id).filter(|_| by.index(2) == 0);
                        SweepView { x: x.get(&numeric).id, by, metric: metric.get(spec.metrics).key, seeds }
                    });
                    state
                },
            )
    })
}

/// Query strings built from the codec's own vocabulary and from junk, so that random input
/// reaches every branch: reserved keys, real parameter ids, numbers of every size, percent
/// escapes, separators.
fn queries() -> impl Strategy<Value = String> {
    let mut keys: Vec<String> = RESERVED.iter().map(|s| s.to_string()).collect();
    for spec in ALL {
        keys.extend(spec.params.iter().map(|p| p.id.to_string()));
        keys.extend(spec.metrics.iter().map(|m| m.key.to_string()));
    }
    let key = prop_oneof![4 => prop::sample::select(keys), 1 => ".{0,12}"];
    let mut words: Vec<String> = [
        "NaN", "inf", "-1e308", "1e400", "-0", "0", "1", "true", "on", "%", "%4", "%zz", "%00", "<script>", "+", ",",
        "&", "=",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for spec in ALL {
        words.push(spec.id.to_string());
        words.extend(spec.presets.iter().map(|p| p.id.to_string()));
        for p in spec.params {
            if let ParamKind::Choice(options) = p.kind {
                words.extend(options.iter().map(|o| o.id.to_string()));
            }
        }
    }
    let value = prop_oneof![
        3 => prop::sample::select(words),
        2 => any::<f64>().prop_map(|x| x.to_string()),
        2 => any::<i64>().prop_map(|x| x.to_string()),
        2 => ".*",
        1 => "[0-9a-f%,.+-]{0,40}",
    ];
    prop::collection::vec((key, value), 0..12).prop_map(|pairs| {
        let body: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("?{}", body.join("&"))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(512) })]

    #[test]
    fn every_state_round_trips(state in states()) {
        let query = url::encode(&state);
        let (decoded, notices) = url::decode(&query, None);
        prop_assert_eq!(decoded.as_ref(), Some(&state), "{}", query);
        prop_assert!(notices.is_empty(), "{}: {:?}", query, notices);
        // The leading '?' is optional, and a default scenario does not override the named one.
        let (decoded, _) = url::decode(&format!("?{query}"), Some(ALL[ALL.len() - 1]));
        prop_assert_eq!(decoded.as_ref(), Some(&state));
        // Only what differs from the baseline is written.
        let base = state.baseline();
        for (p, (b, v)) in state.scenario.params.iter().zip(base.values().iter().zip(state.params.values())) {
            let key = format!("&{}=", p.id);
            prop_assert_eq!(query.contains(&key), b != v, "{}: {}", query, p.id);
        }
    }

    #[test]
    fn any_string_decodes_to_a_sane_state(query in ".*") {
        let (state, notices) = decode(&query);
        assert_sane(&state, &notices);
    }

    #[test]
    fn any_bytes_decode_to_a_sane_state(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let (state, notices) = decode(&String::from_utf8_lossy(&bytes));
        assert_sane(&state, &notices);
    }

    #[test]
    fn any_query_decodes_to_a_sane_state(query in queries()) {
        let (state, notices) = decode(&query);
        assert_sane(&state, &notices);
        let (state, notices) = url::decode(&query, None);
        if let Some(state) = state {
            assert_sane(&state, &notices);
        }
    }
}

#[test]
fn the_sweep_view_is_in_the_link() {
    let (state, notices) =
        url::decode("?sim=slow-server&sweep=rate&by=policy&sweep_metric=completed&sweep_seeds=7", None);
    assert!(notices.is_empty(), "{notices:?}");
    let view = state.unwrap().sweep.unwrap();
    assert_eq!(view, SweepView { x: "rate", by: Some("policy"), metric: "completed", seeds: 7 });
    // The default sweep needs only its name; other parameters drop the default lines.
    let (state, _) = url::decode("?sim=slow-server&sweep=slowdown", None);
    assert_eq!(state.unwrap().sweep.unwrap(), SweepView::default_for(slow()));
    let (state, _) = url::decode("?sim=slow-server&sweep=rate", None);
    assert_eq!(state.unwrap().sweep.unwrap().by, None);
    for (query, names) in [
        ("?sim=slow-server&sweep=policy", &["sweep", "policy"][..]),
        ("?sim=slow-server&sweep=rate&by=rate", &["by", "rate"]),
        ("?sim=slow-server&sweep=rate&sweep_metric=nope", &["sweep_metric", "nope"]),
        ("?sim=slow-server&sweep=rate&sweep_seeds=500", &["sweep_seeds", "500"]),
    ] {
        let (state, notices) = url::decode(query, None);
        assert_eq!(notices.len(), 1, "{query}: {notices:?}");
        assert!(names.iter().all(|n| notices[0].contains(n)), "{query}: {}", notices[0]);
        assert!(state.unwrap().sweep.is_some(), "{query}: the sweep view still opens");
    }
}

#[test]
fn a_query_names_a_key_as_the_decoder_reads_it() {
    assert!(url::names("?sim=slow-server&speed=4", "speed"));
    assert!(url::names("sim=slow-server&sp%65ed=4", "speed"), "a percent-encoded key is the same key");
    assert!(url::names("?speed", "speed"), "a key without a value is named");
    assert!(!url::names("?sim=slow-server&rate=60", "speed"));
    assert!(!url::names("?sim=speed", "speed"), "a value is not a key");
    assert!(!url::names("", "speed"));
}

/// Issue 46: a chapter's Markdown renderer escapes a copied snippet's `&amp;` again, so the
/// browser's link has `&amp;` and every key after the first starts with `amp;`. The link is read
/// as its author meant it (an embed stays an embed), with one notice saying so.
#[test]
fn a_link_escaped_twice_is_read_as_meant() {
    let meant = "?sim=slow-server&embed=1&controls=policy,slowdown,timeout_ms";
    let (want, none) = decode(meant);
    assert!(none.is_empty(), "{none:?}");
    for query in [
        meant.replace('&', "&amp;"),
        meant.replace('&', "&amp;amp;"),
        meant.replace('&', "&amp%3B"),
        "?sim=slow-server&amp;embed&amp;controls=policy,slowdown,timeout_ms".to_string(),
    ] {
        let (state, notices) = decode(&query);
        assert_eq!(state, want, "{query}");
        assert!(state.embed, "{query}: still an embed");
        assert_eq!(notices, [url::ESCAPED_TWICE], "{query}");
        assert!(url::names(&query, "embed"), "{query}: names reads it too");
        assert_eq!(url::pairs(&query)[1].0, "embed", "{query}: and pairs");
    }
    // The notice comes first, before any about the settings themselves.
    let (state, notices) = decode("?sim=slow-server&amp;rate=99999&amp;bogus=1");
    assert_eq!(state.params.get("rate"), 3000.0);
    assert_eq!(notices.len(), 3, "{notices:?}");
    assert_eq!(notices[0], url::ESCAPED_TWICE);
    assert!(notices[2].contains("'bogus'"), "{notices:?}");
}

/// Issue 46: `theme=light|dark|auto` forces a page's colour scheme; anything else is auto, with a
/// notice; the link keeps it.
#[test]
fn the_theme_is_in_the_link() {
    for (query, theme) in
        [("", Theme::Auto), ("&theme=auto", Theme::Auto), ("&theme=dark", Theme::Dark), ("&theme=light", Theme::Light)]
    {
        let (state, notices) = decode(&format!("?sim=slow-server&embed=1{query}"));
        assert!(notices.is_empty(), "{query}: {notices:?}");
        assert_eq!(state.theme, theme, "{query}");
        assert_sane(&state, &notices);
    }
    let (state, _) = decode("?sim=slow-server&theme=dark");
    assert_eq!(url::encode(&state), "sim=slow-server&theme=dark");
    let state = one_notice("?sim=slow-server&theme=blue", &["theme", "'blue'", "light, dark or auto", "auto"]);
    assert_eq!(state.theme, Theme::Auto);
}

/// Issue 46, item 3: `at=end` or `at=<ms>` opens a figure at that moment; anything else opens it
/// at the start, with a notice; the link keeps it.
#[test]
fn the_moment_to_open_at_is_in_the_link() {
    for (query, at) in
        [("", None), ("&at=end", Some(At::End)), ("&at=2500", Some(At::Ms(2500))), ("&at=0", Some(At::Ms(0)))]
    {
        let (state, notices) = decode(&format!("?sim=cascade{query}"));
        assert!(notices.is_empty(), "{query}: {notices:?}");
        assert_eq!(state.at, at, "{query}");
        assert_sane(&state, &notices);
    }
    let (state, _) = decode("?sim=cascade&at=end");
    assert_eq!(url::encode(&state), "sim=cascade&at=end");
    // A time past the run's end is its end.
    assert_eq!(At::Ms(99_000).micros(15_500_000), 15_500_000);
    assert_eq!(At::Ms(2_500).micros(15_500_000), 2_500_000);
    assert_eq!(At::End.micros(15_500_000), 15_500_000);
    for bad in ["soon", "-5", "NaN", ""] {
        let state = one_notice(&format!("?sim=cascade&at={bad}"), &["at:", "neither end nor a time in ms", "start"]);
        assert_eq!(state.at, None, "{bad}");
    }
}

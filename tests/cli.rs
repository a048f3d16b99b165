//! The command-line tool as a user runs it: `list`, `run ... --json`, and one-line errors with
//! exit status 2 for bad input.

use std::process::Command;

use resilience_lab::scenarios::{self, ALL};
use resilience_lab::sim::{ParamKind, ScenarioSpec};
use resilience_lab::url;
use serde_json::{Value as Json, json};

struct Output {
    status: i32,
    stdout: String,
    stderr: String,
}

fn cli(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_resilience-lab")).args(args).output().expect("the binary runs");
    Output {
        status: out.status.code().expect("exited, not killed by a signal"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    }
}

fn ok(args: &[&str]) -> String {
    let out = cli(args);
    assert_eq!(out.status, 0, "{args:?} failed: {}", out.stderr);
    assert!(out.stderr.is_empty(), "{args:?} wrote to stderr: {}", out.stderr);
    out.stdout
}

/// Runs and parses stdout as exactly one JSON value.
fn json(args: &[&str]) -> Json {
    let stdout = ok(args);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: not one JSON value ({e}): {stdout}"))
}

/// Asserts a usage error: status 2, nothing on stdout, one line on stderr that names each of
/// `names`, and no panic.
fn usage_error(args: &[&str], names: &[&str]) {
    let out = cli(args);
    assert_eq!(out.status, 2, "{args:?}: status {} ({})", out.status, out.stderr);
    assert!(out.stdout.is_empty(), "{args:?} printed {}", out.stdout);
    let line = out.stderr.strip_suffix('\n').unwrap_or(&out.stderr);
    assert!(!line.is_empty() && !line.contains('\n'), "{args:?}: not one line: {:?}", out.stderr);
    assert!(!line.contains("panicked") && !line.contains("RUST_BACKTRACE"), "{args:?}: {line}");
    for name in names {
        assert!(line.contains(name), "{args:?}: {line:?} does not name {name}");
    }
}

fn slow() -> &'static ScenarioSpec {
    scenarios::find("slow-server").unwrap()
}

#[test]
fn list_prints_every_scenario_with_its_parameters_and_presets() {
    let out = ok(&["list"]);
    // One block per scenario, separated by blank lines, headed by its id.
    let sections: Vec<&str> = out.split("\n\n").filter(|s| !s.trim().is_empty()).collect();
    assert_eq!(sections.len(), ALL.len(), "{out}");
    for (section, spec) in sections.iter().zip(ALL) {
        assert!(section.starts_with(&format!("{}  {}", spec.id, spec.title)), "{section}");
        for p in spec.params {
            let line = section
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{} ", p.id)))
                .unwrap_or_else(|| panic!("{}: parameter {} not listed", spec.id, p.id));
            assert!(line.contains(&p.format(p.default)) && line.contains(&p.allowed()), "{line}");
            assert!(line.contains(p.unit), "{line}");
        }
        let presets = section.lines().find(|l| l.trim_start().starts_with("presets:")).expect("a presets line");
        for preset in spec.presets {
            assert!(presets.contains(preset.id), "{}: preset {} not listed", spec.id, preset.id);
        }
    }
}

#[test]
fn list_json_describes_every_declaration() {
    let all = json(&["list", "--json"]);
    let all = all.as_array().expect("an array");
    assert_eq!(all.len(), ALL.len());
    for (j, spec) in all.iter().zip(ALL) {
        assert_eq!(j["id"], spec.id);
        assert_eq!(j["default_duration_ms"], spec.default_duration_ms);
        let params = j["params"].as_array().unwrap();
        assert_eq!(params.len(), spec.params.len());
        for (jp, p) in params.iter().zip(spec.params) {
            assert_eq!(jp["id"], p.id);
            assert_eq!(
                (jp["min"].as_f64(), jp["max"].as_f64(), jp["step"].as_f64()),
                (Some(p.min), Some(p.max), Some(p.step))
            );
            assert_eq!(jp["unit"], p.unit);
            assert!(!jp["help"].as_str().unwrap().is_empty());
            match p.kind {
                ParamKind::Number => assert_eq!(jp["default"].as_f64(), Some(p.default)),
                ParamKind::Toggle => assert_eq!(jp["default"].as_bool(), Some(p.default == 1.0)),
                ParamKind::Choice(options) => {
                    assert_eq!(jp["default"], p.format(p.default));
                    assert_eq!(jp["options"].as_array().unwrap().len(), options.len());
                }
            }
        }
        let presets: Vec<&str> = j["presets"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
        assert_eq!(presets, spec.presets.iter().map(|p| p.id).collect::<Vec<_>>());
        let metrics: Vec<&str> = j["metrics"].as_array().unwrap().iter().map(|m| m["key"].as_str().unwrap()).collect();
        assert_eq!(metrics, spec.metrics.iter().map(|m| m.key).collect::<Vec<_>>());
    }
}

/// `run <scenario> --json` for every scenario: one object with the scenario, the seed, every
/// parameter (typed: numbers, booleans, option names) and every declared metric.
#[test]
fn run_json_has_the_documented_shape_for_every_scenario() {
    for spec in ALL {
        let out = json(&["run", spec.id, "--json", "--duration-ms", "1000"]);
        assert_eq!(out["scenario"], spec.id);
        assert_eq!(out["seed"], 1);
        assert_eq!(out["duration_ms"], 1000);
        let params = out["params"].as_object().expect("params is an object");
        assert_eq!(params.len(), spec.params.len(), "{}: {params:?}", spec.id);
        for p in spec.params {
            let v = &params[p.id];
            match p.kind {
                ParamKind::Number => assert_eq!(v.as_f64(), Some(p.default), "{}.{}", spec.id, p.id),
                ParamKind::Toggle => assert_eq!(v.as_bool(), Some(p.default == 1.0), "{}.{}", spec.id, p.id),
                ParamKind::Choice(_) => assert_eq!(v, &p.format(p.default), "{}.{}", spec.id, p.id),
            }
        }
        for m in spec.metrics {
            assert!(out.get(m.key).is_some(), "{}: metric {} missing", spec.id, m.key);
        }
    }
}

#[test]
fn run_json_slow_server_numbers() {
    let out = json(&["run", "slow-server", "--json"]);
    let n = |k: &str| out[k].as_i64().unwrap_or_else(|| panic!("{k} is not an integer"));
    assert_eq!(n("arrived"), n("completed") + n("timed_out") + n("in_flight_end"));
    assert_eq!(out["duration_ms"], 20_000);
    // 150 requests per second for 20 s.
    assert!((2700..3300).contains(&n("arrived")), "{}", n("arrived"));
    let servers = out["servers"].as_array().unwrap();
    let names: Vec<&str> = servers.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["A", "B", "C"]);
    for s in servers {
        for k in ["served", "max_queue", "final_queue"] {
            assert!(s[k].is_u64(), "{k} in {s}");
        }
    }
    assert!(out["p99_ms_after"].as_f64().unwrap() > 10.0 * out["p99_ms_before"].as_f64().unwrap());
}

/// `run retry-storm --json` prints the run's reading: the verdict, the budget's explanation and
/// the calls per user action, each as the page shows it.
#[test]
fn run_json_retry_storm_prints_its_reading() {
    let out = json(&["run", "retry-storm", "--preset", "budget", "--json"]);
    let reading = out["reading"].as_object().expect("a reading object");
    for key in ["verdict", "prediction", "backoff", "traffic", "budget", "layers", "summary", "peak_note"] {
        assert!(reading.get(key).and_then(|v| v.as_str()).is_some_and(|s| !s.is_empty()), "reading.{key}: {out}");
    }
    // The facts the budget's sentence restates: the retry share sat above the budget because
    // the window still held user calls made before the outage.
    let facts = &out["facts"];
    assert_eq!(facts["outage_retries"]["why"], "window-reaches-back", "{facts}");
    assert!(facts["budget_window"]["firsts_before_outage"].as_u64().unwrap() > 0, "{facts}");
    // And the layers' sentence: 3 × 3 × 3 = 27 calls for one user action.
    let facts = &json(&["run", "retry-storm", "--preset", "three-layers", "--json"])["facts"];
    assert_eq!((&facts["layers"], &facts["attempts_per_layer"]), (&json!(3), &json!(3)), "{facts}");
    assert_eq!(facts["most_calls_per_action"], 27, "{facts}");
    let out = json(&["run", "retry-storm", "--set", "max_attempts=1", "--json"]);
    assert_eq!(out["amplification"], 1.0);
}

/// `run --json` prints the facts the reading rests on, typed: for retry-storm, the waves after
/// recovery (as the metric counts them) and whether the outage lined the clients up; an outage
/// from 0 lines nothing up (issue 24, case 4).
#[test]
fn run_json_prints_the_facts() {
    let out = json(&["run", "retry-storm", "--preset", "fixed", "--json"]);
    let facts = out["facts"].as_object().expect("a facts object");
    assert_eq!(facts["waves"], out["waves_after_recovery"]);
    assert!(facts["lined_up"]["together"]["calls"].as_u64().unwrap() > 0, "{}", out["facts"]);
    let out = json(&["run", "retry-storm", "--preset", "fixed", "--set", "down_from_ms=0", "--json"]);
    assert_eq!(out["facts"]["lined_up"], "nothing-in-flight");
    for spec in resilience_lab::scenarios::ALL {
        let out = json(&["run", spec.id, "--duration-ms", "2000", "--json"]);
        assert!(out["facts"].is_object(), "{}: facts is an object", spec.id);
    }
}

#[test]
fn at_ms_stops_the_run_at_a_moment_as_a_paused_page_shows_it() {
    let out = json(&["run", "cascade", "--at-ms", "430", "--json"]);
    assert_eq!(out["at_ms"], 430.0);
    assert_eq!(out["facts"]["now_us"], 430_000);
    // The same moment in-process: the run started for its whole length, advanced to 430 ms.
    let spec = scenarios::find("cascade").unwrap();
    let mut sim = spec.start(&spec.defaults(), out["seed"].as_u64().unwrap(), out["duration_ms"].as_u64().unwrap());
    sim.advance(430_000, u64::MAX);
    let reading: serde_json::Map<String, Json> =
        sim.reading().into_iter().map(|(k, v)| (k.to_string(), Json::String(v))).collect();
    assert_eq!(out["reading"], Json::Object(reading));
    assert!(out["facts"]["started"] == true && out["facts"]["load_ended"] == false, "{}", out["facts"]);
    // Past the end is the end; a full run prints no at_ms.
    let end = json(&["run", "cascade", "--at-ms", "1e12", "--json"]);
    assert_eq!(end["at_ms"].as_f64(), Some(end["duration_ms"].as_f64().unwrap()));
    assert!(json(&["run", "cascade", "--json"]).get("at_ms").is_none());
    usage_error(&["run", "cascade", "--at-ms", "soon"], &["--at-ms", "soon"]);
    usage_error(&["run", "cascade", "--at-ms", "-1"], &["--at-ms"]);
}

#[test]
fn the_seed_changes_the_run_and_repeats_it_exactly() {
    let a = ok(&["run", "slow-server", "--json", "--seed", "7"]);
    let b = ok(&["run", "slow-server", "--json", "--seed", "7"]);
    let c = ok(&["run", "slow-server", "--json", "--seed", "8"]);
    assert_eq!(a, b, "same seed, different output");
    assert_ne!(a, c, "the seed is ignored");
    let a: Json = serde_json::from_str(&a).unwrap();
    assert_eq!(a["seed"], 7);
    // The default seed is the URL's default, so a bare run and --seed 1 agree.
    assert_eq!(ok(&["run", "slow-server", "--json"]), ok(&["run", "slow-server", "--json", "--seed", "1"]));
}

#[test]
fn presets_sets_and_durations_apply() {
    let out = json(&["run", "slow-server", "--json", "--preset", "least-outstanding", "--duration-ms", "3000"]);
    assert_eq!(out["preset"], "least-outstanding");
    assert_eq!(out["params"]["policy"], "least-outstanding");
    assert_eq!(out["duration_ms"], 3000);
    assert!(out["arrived"].as_i64().unwrap() < 600);

    let out =
        json(&["run", "slow-server", "--json", "--set", "rate=60", "--set", "b_fails=true", "--set", "policy=random"]);
    assert_eq!(out["params"]["rate"], 60.0);
    assert_eq!(out["params"]["b_fails"], true);
    assert_eq!(out["params"]["policy"], "random");
    // --set wins over the preset it is applied on.
    let out = json(&["run", "slow-server", "--json", "--preset", "timeout", "--set", "timeout_ms=800"]);
    assert_eq!(out["params"]["timeout_ms"], 800.0);
    for preset in slow().presets {
        json(&["run", "slow-server", "--json", "--preset", preset.id, "--duration-ms", "500"]);
    }
}

/// A link, bare query or full URL, runs exactly what the same settings given as options run.
#[test]
fn url_agrees_with_options() {
    let by_set = ok(&["run", "slow-server", "--json", "--set", "rate=60"]);
    assert_eq!(ok(&["run", "slow-server", "--json", "--url", "?sim=slow-server&rate=60"]), by_set);
    assert_eq!(ok(&["run", "slow-server", "--json", "--url", "sim=slow-server&rate=60"]), by_set);
    assert_eq!(
        ok(&["run", "slow-server", "--json", "--url", "http://127.0.0.1:8080/slow-server?sim=slow-server&rate=60"]),
        by_set
    );

    let by_options = ok(&[
        "run",
        "slow-server",
        "--json",
        "--preset",
        "b-fails",
        "--set",
        "rate=120",
        "--seed",
        "5",
        "--duration-ms",
        "4000",
    ]);
    let by_url = ok(&[
        "run",
        "slow-server",
        "--json",
        "--url",
        "?sim=slow-server&preset=b-fails&rate=120&seed=5&duration_ms=4000",
    ]);
    assert_eq!(by_url, by_options);
    // The share link the text output prints runs the same thing again.
    let text =
        ok(&["run", "slow-server", "--preset", "b-fails", "--set", "rate=120", "--seed", "5", "--duration-ms", "4000"]);
    let share = text.lines().find_map(|l| l.trim().strip_prefix("share: ")).expect("a share line");
    assert_eq!(ok(&["run", "slow-server", "--json", "--url", share]), by_options);
    // Options after --url refine it.
    let refined = json(&["run", "slow-server", "--json", "--url", "?sim=slow-server&rate=60", "--set", "servers=4"]);
    assert_eq!((refined["params"]["rate"].as_f64(), refined["params"]["servers"].as_f64()), (Some(60.0), Some(4.0)));
}

/// A link's `at=` is the moment `run` reports, as `--at-ms` is (which wins over it); `at=end`
/// is the whole run.
#[test]
fn a_links_moment_is_the_runs_moment() {
    let by_option = ok(&["run", "cascade", "--json", "--at-ms", "2500"]);
    assert_eq!(ok(&["run", "cascade", "--json", "--url", "?sim=cascade&at=2500"]), by_option);
    assert_eq!(ok(&["run", "cascade", "--json", "--url", "?sim=cascade&at=9000", "--at-ms", "2500"]), by_option);
    assert_eq!(ok(&["run", "cascade", "--json", "--url", "?sim=cascade&at=end"]), ok(&["run", "cascade", "--json"]));
    assert_eq!(json(&["run", "cascade", "--json", "--url", "?sim=cascade&at=2500"])["at_ms"], 2500.0);
}

#[test]
fn bad_input_is_one_line_naming_what_is_allowed_with_status_2() {
    let ids: Vec<&str> = ALL.iter().map(|s| s.id).collect();
    let params: Vec<&str> = slow().params.iter().map(|p| p.id).collect();
    let presets: Vec<&str> = slow().presets.iter().map(|p| p.id).collect();
    usage_error(&["run", "nope"], &[&["nope"][..], &ids].concat());
    usage_error(&["run"], &ids);
    usage_error(&["run", "slow-server", "--set", "bogus=1"], &[&["bogus"][..], &params].concat());
    usage_error(&["run", "slow-server", "--set", "rate"], &["key=value"]);
    usage_error(&["run", "slow-server", "--seed"], &["--seed"]);
    usage_error(&["run", "slow-server", "--preset", "nope"], &[&["nope"][..], &presets].concat());
    usage_error(&["run", "slow-server", "--frobnicate"], &["--frobnicate", "--preset", "--set", "--seed", "--json"]);
    usage_error(&["run", "slow-server", "--url", "?sim=double-click"], &["double-click", "slow-server"]);
    usage_error(&["run", "--url", "http://127.0.0.1:8080/"], &["needs a scenario", "sim="]);
    usage_error(&["run", "slow-server", "--url", "http://127.0.0.1:8080/lab/"], &["--url", "no query"]);
    usage_error(&["sweep", "slow-server", "--seed", "3"], &["--seed", "--seeds"]);
    usage_error(
        &["sweep", "double-click", "--metric", "client_outcome"],
        &["client_outcome", "not a number", "charges"],
    );
    usage_error(&["sweep", "slow-server", "--metric", "nope"], &["nope", "p99_ms_after"]);
    usage_error(&["sweep", "slow-server", "--x", "rate"], &["--x", "rate", "<from>..<to>"]);
    usage_error(&["frobnicate"], &["list", "run"]);
    usage_error(&["list", "--frobnicate"], &["--json"]);
    usage_error(&[], &["usage"]);
    // An error message never runs past one short line, whatever was typed.
    let out = cli(&["run", "slow-server", "--set", &format!("{}=1", "x".repeat(5000))]);
    assert!(out.stderr.len() < 1000, "{} bytes", out.stderr.len());
}

/// Runs, expecting status 0 and exactly these notices on stderr (one line each, "notice: ").
fn with_notices(args: &[&str], notices: &[&str]) -> Json {
    let out = cli(args);
    assert_eq!(out.status, 0, "{args:?} failed: {}", out.stderr);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), notices.len(), "{args:?}: {:?}", out.stderr);
    for (line, want) in lines.iter().zip(notices) {
        assert!(line.starts_with("notice: ") && line.contains(want), "{args:?}: {line:?} does not say {want:?}");
    }
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e})"))
}

/// A value that cannot be used as written is read by the page's rule, on the command line as in
/// a link: the same notice, the same value (and the run goes on with it).
#[test]
fn values_are_read_as_the_page_reads_them() {
    let cases: &[(&str, &str, serde_json::Value)] = &[
        ("servers=2.5", "servers: 2.5 is not a whole number; using 3.", 3.0.into()),
        ("rate=99999", "rate: 99999 is outside a whole number from 1 to 3000 req/s; using 3000.", 3000.0.into()),
        ("rate=0", "using 1.", 1.0.into()),
        (
            "rate=abc",
            "rate: 'abc' is not allowed; expected a whole number from 1 to 3000 req/s; using 150.",
            150.0.into(),
        ),
        ("rate=NaN", "using 150.", 150.0.into()),
        ("timeout_ms=305", "timeout_ms: 305 is between the steps of 10 ms; using 310.", 310.0.into()),
        (
            "policy=fastest",
            "expected one of round-robin, random, least-outstanding, two-choices; using round-robin.",
            "round-robin".into(),
        ),
        ("b_fails=maybe", "expected true or false; using false.", false.into()),
    ];
    for (set, notice, value) in cases {
        let (id, text) = set.split_once('=').unwrap();
        let by_set = with_notices(&["run", "slow-server", "--json", "--duration-ms", "500", "--set", set], &[notice]);
        assert_eq!(by_set["params"][id], *value, "{set}");
        let link = format!("?sim=slow-server&duration_ms=500&{id}={text}");
        let by_url = with_notices(&["run", "slow-server", "--json", "--url", &link], &[notice]);
        assert_eq!(by_url, by_set, "{set}: the link and --set differ");
    }
    let long = format!("rate={}", "9".repeat(5000));
    let out = cli(&["run", "slow-server", "--json", "--duration-ms", "500", "--set", &long]);
    assert!(out.status == 0 && out.stderr.len() < 300, "{}", out.stderr);
    with_notices(&["run", "slow-server", "--json", "--seed", "-1"], &["seed: '-1' is not a whole number from 0 to"]);
    let d = with_notices(&["run", "slow-server", "--json", "--duration-ms", "5"], &["duration_ms: 5 is not"]);
    assert_eq!(d["duration_ms"], 100);
}

/// The order of application is the documented one, whatever order the options are written in:
/// the URL, then `--preset`, then each `--set`.
#[test]
fn the_url_then_the_preset_then_each_set() {
    let out = json(&[
        "run",
        "slow-server",
        "--json",
        "--url",
        "?sim=slow-server&timeout_ms=300&rate=60",
        "--preset",
        "timeout",
    ]);
    assert_eq!((out["params"]["timeout_ms"].as_f64(), out["params"]["rate"].as_f64()), (Some(500.0), Some(60.0)));
    let out = json(&["run", "slow-server", "--json", "--set", "timeout_ms=800", "--preset", "timeout"]);
    assert_eq!(out["params"]["timeout_ms"], 800.0);
}

/// What an author pastes: an iframe's src with `&amp;`, a fragment, the scenario taken from the
/// link when the command names none, and the embed's own settings accepted.
#[test]
fn url_takes_what_an_author_pastes() {
    let by_set = ok(&["run", "slow-server", "--json", "--set", "rate=60"]);
    let pasted = "https://example.org/lab/?sim=slow-server&amp;embed=1&amp;controls=policy,slowdown&amp;rate=60#figure";
    assert_eq!(ok(&["run", "slow-server", "--json", "--url", pasted]), by_set);
    assert_eq!(ok(&["run", "--url", pasted, "--json"]), by_set);
    // Issue 46: the src of a chapter whose Markdown escaped it twice (`&amp;amp;`) gives the same
    // run, with the page's one notice on stderr; a misspelt name in it is still an error.
    let twice = pasted.replace("&amp;", "&amp;amp;");
    let run = with_notices(&["run", "--url", &twice, "--json"], &[url::ESCAPED_TWICE]);
    assert_eq!(run, serde_json::from_str::<Json>(&by_set).unwrap());
    usage_error(&["run", "--url", "?sim=retry-storm&amp;preset=jiter"], &["unknown preset 'jiter'"]);
}

/// A run cut short of what its settings need says so; the longest run a preset needs is
/// accepted back by `--duration-ms` and `--url`.
#[test]
fn long_runs_and_cut_runs() {
    let full = json(&["run", "at-least-once", "--preset", "long-window", "--json"]);
    let d = full["duration_ms"].as_u64().unwrap();
    assert!(d > 14_400_000, "{d}");
    assert_eq!(full["full_duration_ms"], d);
    let again = json(&["run", "at-least-once", "--preset", "long-window", "--json", "--duration-ms", &d.to_string()]);
    assert_eq!(again["duration_ms"], d);
    let link = format!("?sim=at-least-once&preset=long-window&duration_ms={d}");
    assert_eq!(json(&["run", "at-least-once", "--json", "--url", &link])["duration_ms"], d);
    let text = ok(&["run", "at-least-once", "--preset", "long-window", "--duration-ms", "14400000"]);
    assert!(text.contains("cut: the run stops at 4 h, before the"), "{text}");
}

/// `run cascade --json` prints the run's reading, the sentences its page shows, and the facts
/// they are rendered from (here the chapter's row, and a 5 s timeout that is not the chapter's
/// 300 ms).
#[test]
fn run_json_cascade_reading() {
    let out = json(&["run", "cascade", "--json"]);
    let reading = out["reading"].as_object().expect("reading is an object");
    for key in ["verdict", "row_label", "row_home", "row_ok", "row_failed"] {
        assert!(reading.get(key).and_then(|v| v.as_str()).is_some_and(|s| !s.is_empty()), "reading.{key}: {out}");
    }
    // The chapter's row: 4 of 99 /checkout requests succeeded, those sent first; 95 failed.
    let checkout = &out["facts"]["checkout"];
    assert_eq!((&checkout["arrived"], &checkout["ok"], &checkout["failed"]), (&json!(99), &json!(4), &json!(95)));
    assert!(checkout["successes_first_sent_us"].as_u64().is_some_and(|t| t < 500_000), "{checkout}");
    // A 5 s timeout caps /home's wait, so its count stays flat, and not at the 300 ms run's 15;
    // every /checkout succeeds, its p99 4.x s.
    let facts = &json(&["run", "cascade", "--json", "--preset", "timeout", "--set", "recs_timeout_ms=5000"])["facts"];
    assert_eq!(facts["little"], "timeout-caps", "{facts}");
    assert!(facts["home_growth_per_s"].as_f64().unwrap().abs() < 1.0, "{facts}");
    assert_ne!(facts["home_in_flight"], 15, "{facts}");
    let checkout = &facts["checkout"];
    assert_eq!((&checkout["arrived"], &checkout["ok"]), (&json!(99), &json!(99)), "{checkout}");
    assert!((4000.0..5000.0).contains(&checkout["p99_ms"].as_f64().unwrap()), "{checkout}");
}

/// A reader that closes the pipe early (`| head -1`) ends the command quietly: status 0, no
/// panic, nothing on stderr. The output is larger than a pipe holds (64 KiB), so the command is
/// still writing when the pipe closes.
#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let sweep = ["sweep", "slow-server", "--x", "rate=1..1000:1000", "--seeds", "1", "--duration-ms", "100", "--json"];
    for args in [&["list", "--json"][..], &sweep] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_resilience-lab"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let mut first = [0u8; 16];
        child.stdout.as_mut().unwrap().read_exact(&mut first).expect("some output");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("it ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && stderr.is_empty(), "{args:?}: {:?} {stderr}", out.status);
    }
}

/// Issue 46: a link's names are errors on every path, as `--preset` and `--set` are: `run --url`
/// and `sweep --url` exit 2 on an unknown simulation, preset or parameter, with the message the
/// option gives for the same name.
#[test]
fn a_links_unknown_names_are_errors_as_the_options_are() {
    let message = |args: &[&str]| {
        let out = cli(args);
        assert_eq!(out.status, 2, "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?} printed {}", out.stdout);
        out.stderr
    };
    for command in ["run", "sweep"] {
        let same = |link: &str, option: &[&str]| {
            let by_link = message(&[command, "--url", link]);
            let mut args = vec![command];
            args.extend_from_slice(option);
            assert_eq!(by_link, message(&args), "{command} --url '{link}'");
        };
        same("?sim=retry-storm&preset=jiter", &["retry-storm", "--preset", "jiter"]);
        same("?sim=retry-storm&presets=fixed,jiter", &["retry-storm", "--preset", "jiter"]);
        same("?sim=retry-storm&clientz=3", &["retry-storm", "--set", "clientz=3"]);
        same("?sim=retry-stor&preset=jitter", &["retry-stor"]);
        same("https://example.org/lab/?sim=slow-server&amp;rat=3", &["slow-server", "--set", "rat=3"]);
    }
    // A value out of range is the page's notice and the nearest value, not an error.
    with_notices(&["run", "--url", "?sim=retry-storm&clients=100000", "--duration-ms", "500", "--json"], &["clients"]);
}

/// Issue 46: a course pins its numbers to a version: `--version` and `version` in `run --json`
/// say the crate's (the page's `data-version` is checked in tests/browser/embed.test.mjs).
#[test]
fn the_version_is_the_crates() {
    let want = env!("CARGO_PKG_VERSION");
    assert_eq!(ok(&["--version"]), format!("resilience-lab {want}\n"));
    assert_eq!(json(&["run", "slow-server", "--duration-ms", "500", "--json"])["version"], json!(want));
}

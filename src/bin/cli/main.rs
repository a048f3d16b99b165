//! `resilience-lab`: run any scenario headless and print its numbers.
//!
//!     resilience-lab list [--json]
//!     resilience-lab run [<scenario>] [--preset NAME] [--url QUERY] [--set key=value]...
//!                        [--seed N] [--duration-ms D] [--at-ms T] [--json]
//!     resilience-lab sweep [<scenario>] [--x <param>=<from>..<to>[:<steps>] [--by <param>]
//!                        [--seeds K] [--metric <key>]... [--preset P] [--set k=v]...
//!                        [--duration-ms D] [--threads N] [--json|--csv]
//!     resilience-lab bench [--quick] [--json] [--fingerprints]
//!     resilience-lab numbers [--csv|--json|--markdown]
//!     resilience-lab figure [<scenario>] [--preset P] [--url QUERY] [--set k=v]... [--seed N]
//!                        [--duration-ms D] [--at-ms T] (--svg|--png) [--width PX] [--theme light|dark]
//!
//! Every error is one line naming what is allowed, with exit status 2. A value that cannot be
//! used as written is read as the page reads it: a notice on stderr, and the nearest value.

#[cfg(not(target_arch = "wasm32"))]
mod figure;
#[cfg(not(target_arch = "wasm32"))]
mod numbers;
#[cfg(not(target_arch = "wasm32"))]
mod out;
#[cfg(not(target_arch = "wasm32"))]
mod settings;
#[cfg(not(target_arch = "wasm32"))]
mod sweep;

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::process::ExitCode;

    use super::out::outln;
    use super::settings::{self, Settings};
    use resilience_lab::report::{RunReport, ScenarioDescription};
    use resilience_lab::sim::{Simulation, Value};
    use resilience_lab::url;
    use resilience_lab::{format, scenarios};

    const USAGE: &str = "usage: resilience-lab --version | resilience-lab list [--json] | resilience-lab run [<scenario>] [--preset NAME] \
        [--url QUERY] [--set key=value]... [--seed N] [--duration-ms D] [--at-ms T] [--json] | resilience-lab sweep [<scenario>] \
        --x <param>=<from>..<to>[:<steps>] [--by <param>] [--seeds K] [--metric <key>]... [--preset P] [--set k=v]... \
        [--duration-ms D] [--threads N] [--json|--csv] | resilience-lab bench [--quick] [--json] [--fingerprints] \
        | resilience-lab numbers [--csv|--json|--markdown] | resilience-lab figure [<scenario>] [--preset P] [--url QUERY] \
        [--set k=v]... [--seed N] [--duration-ms D] [--at-ms T] (--svg|--png) [--width PX] [--theme light|dark]";

    pub fn main() -> ExitCode {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let result = match args.first().map(String::as_str) {
            Some("list") => list(&args[1..]),
            Some("run") => run(&args[1..]),
            Some("sweep") => super::sweep::sweep(&args[1..]),
            Some("bench") => bench(&args[1..]),
            Some("numbers") => super::numbers::numbers(&args[1..]),
            Some("figure") => super::figure::figure(&args[1..]),
            Some("-V" | "--version" | "version") => {
                outln!("resilience-lab {}", resilience_lab::VERSION);
                Ok(())
            }
            Some("-h" | "--help" | "help") => {
                outln!("{USAGE}");
                Ok(())
            }
            Some(other) => Err(format!(
                "unknown command '{}'; expected list, run, sweep, figure, bench, numbers or --version",
                short(other)
            )),
            None => Err(USAGE.to_string()),
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("error: {message}");
                ExitCode::from(2)
            }
        }
    }

    pub fn short(s: &str) -> String {
        resilience_lab::sim::params::shorten(s)
    }

    fn list(args: &[String]) -> Result<(), String> {
        let json_out = match args {
            [] => false,
            [flag] if flag == "--json" => true,
            _ => return Err(format!("list takes only --json; got '{}'", short(&args.join(" ")))),
        };
        if json_out {
            let all: Vec<ScenarioDescription> = scenarios::ALL.iter().map(|s| ScenarioDescription::of(s)).collect();
            outln!("{}", serde_json::to_string_pretty(&all).expect("JSON of plain values"));
            return Ok(());
        }
        for s in scenarios::ALL {
            outln!("{}  {}  ({})", s.id, s.title, s.chapter);
            outln!("  parameters:");
            for p in s.params {
                let unit = if p.unit.is_empty() { String::new() } else { format!(" {}", p.unit) };
                outln!("    {:<20} default {}{unit}; {}", p.id, p.format(p.default), p.allowed());
            }
            outln!("  presets: {}", s.presets.iter().map(|p| p.id).collect::<Vec<_>>().join(", "));
            outln!("  metrics: {}", s.metrics.iter().map(|m| m.key).collect::<Vec<_>>().join(", "));
            outln!("");
        }
        Ok(())
    }

    /// `--at-ms T`: a moment of the run, in ms (to the microsecond), at most its end.
    fn at_moment(text: &str, end_us: u64) -> Result<f64, String> {
        let ms = text.trim().parse::<f64>().ok().filter(|t| t.is_finite() && *t >= 0.0);
        let ms = ms.ok_or_else(|| format!("--at-ms: '{}' is not a time in ms from 0", short(text)))?;
        Ok(ms.min(end_us as f64 / 1000.0))
    }

    fn ms_to_us(ms: f64) -> u64 {
        (ms * 1000.0).round() as u64
    }

    /// A run played to the moment asked for: its settings, that moment in ms (None: the end).
    pub struct Played {
        pub state: url::State,
        pub at_ms: Option<f64>,
        pub sim: Box<dyn Simulation>,
    }

    /// A run as `run` and `figure` play it: the scenario and settings from `args` (`--at-ms` and
    /// `flags`, which are given to `flag`, besides the shared ones), played to `--at-ms`, else
    /// to the link's `at=`, else to its end.
    pub fn played(
        args: &[String],
        command: &str,
        flags: &str,
        mut flag: impl FnMut(&str, &mut std::slice::Iter<String>) -> Result<bool, String>,
    ) -> Result<Played, String> {
        let (named, rest) = settings::scenario(args)?;
        let mut settings = Settings::default();
        let mut at = None;
        let mut rest = rest.iter();
        while let Some(arg) = rest.next() {
            if arg == "--at-ms" {
                at = Some(settings::value(arg, &mut rest)?.clone());
            } else if !flag(arg, &mut rest)? && !settings.take(arg, &mut rest)? {
                return Err(format!(
                    "unknown option '{}'; expected {}, --at-ms or {flags}",
                    short(arg),
                    settings::OPTIONS
                ));
            }
        }
        let scenario = settings.scenario(named, command)?;
        let (state, notices) = settings.into_state(scenario)?;
        settings::warn(&notices);
        let mut sim = scenario.start(&state.params, state.seed, state.duration());
        // `--at-ms`, else the link's `at=` (a time; `at=end` is the whole run, as without one).
        let at_ms = match at {
            Some(a) => Some(at_moment(&a, sim.end())?),
            None => match state.at {
                Some(url::At::Ms(ms)) => Some((ms as f64).min(sim.end() as f64 / 1000.0)),
                Some(url::At::End) | None => None,
            },
        };
        match at_ms {
            // A moment of the run as the page shows it paused there: the run goes on after it.
            Some(ms) => {
                while sim.now() < ms_to_us(ms) && !sim.finished() {
                    sim.advance(ms_to_us(ms), u64::MAX);
                }
            }
            None => sim.run_to_end(),
        }
        Ok(Played { state, at_ms, sim })
    }

    fn run(args: &[String]) -> Result<(), String> {
        let mut json = false;
        let Played { state, at_ms, sim } = played(args, "run", "--json", |arg, _| {
            json |= arg == "--json";
            Ok(arg == "--json")
        })?;
        let scenario = state.scenario;
        let metrics = sim.metrics();
        let reading = sim.reading();
        if json {
            let report = RunReport { at_ms, ..RunReport::new(&state, &metrics, &reading, sim.facts()) };
            outln!("{}", serde_json::to_string_pretty(&report).expect("JSON of plain values"));
            return Ok(());
        }
        outln!(
            "{} ({}), seed {}, {} simulated, {} events",
            scenario.id,
            scenario.title,
            state.seed,
            format::span_ms(state.duration() as f64),
            format::count(sim.events())
        );
        if state.is_cut() {
            outln!(
                "  cut: the run stops at {}, before the {} its settings need; what happens after that is not in these numbers",
                format::span_ms(state.duration() as f64),
                format::span_ms(state.full_duration() as f64)
            );
        }
        outln!("  share: ?{}", url::encode(&state));
        for (key, value) in &metrics {
            let spec = scenario.metric(key);
            let shown = match value {
                Value::List(_) => human(value),
                _ => format::quantity_text(value, spec.map_or("", |m| m.unit)),
            };
            outln!("  {key:<28} {shown}");
        }
        for (key, sentence) in &reading {
            outln!("  reading.{key}: {sentence}");
        }
        Ok(())
    }

    fn human(v: &Value) -> String {
        match v {
            Value::List(rows) => rows
                .iter()
                .map(|r| r.iter().map(|(k, v)| format!("{k}={}", human(v))).collect::<Vec<_>>().join(" "))
                .collect::<Vec<_>>()
                .join("; "),
            other => format::value(other),
        }
    }

    fn bench(args: &[String]) -> Result<(), String> {
        let (mut quick, mut json) = (false, false);
        for a in args {
            match a.as_str() {
                "--quick" => quick = true,
                "--json" => json = true,
                "--fingerprints" => {
                    super::out::write(format_args!("{}", resilience_lab::bench::fingerprints()));
                    return Ok(());
                }
                other => return Err(format!("bench takes --quick, --json or --fingerprints; got '{}'", short(other))),
            }
        }
        super::out::write(format_args!("{}", resilience_lab::bench::native_report(quick, json)));
        Ok(())
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    native::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}

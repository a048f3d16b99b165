//! `resilience-lab`: run any scenario headless and print its numbers.
//!
//!     resilience-lab list [--json]
//!     resilience-lab run <scenario> [--preset NAME] [--url QUERY] [--set key=value]...
//!                        [--seed N] [--duration-ms D] [--json]
//!     resilience-lab sweep <scenario> --x <param>=<from>..<to>[:<steps>] [--by <param>]
//!                        [--seeds K] [--metric <key>]... [--preset P] [--set k=v]...
//!                        [--duration-ms D] [--threads N] [--json|--csv]
//!     resilience-lab bench [--quick] [--json] [--fingerprints]
//!
//! Every error is one line naming what is allowed, with exit status 2.

#[cfg(not(target_arch = "wasm32"))]
mod settings;
#[cfg(not(target_arch = "wasm32"))]
mod sweep;

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::process::ExitCode;

    use super::settings::{self, Settings};
    use resilience_lab::report::{RunReport, ScenarioDescription};
    use resilience_lab::scenarios;
    use resilience_lab::sim::Value;
    use resilience_lab::url;

    const USAGE: &str = "usage: resilience-lab list [--json] | resilience-lab run <scenario> [--preset NAME] \
        [--url QUERY] [--set key=value]... [--seed N] [--duration-ms D] [--json] | resilience-lab sweep <scenario> \
        --x <param>=<from>..<to>[:<steps>] [--by <param>] [--seeds K] [--metric <key>]... [--preset P] [--set k=v]... \
        [--duration-ms D] [--threads N] [--json|--csv] | resilience-lab bench [--quick] [--json] [--fingerprints]";

    pub fn main() -> ExitCode {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let result = match args.first().map(String::as_str) {
            Some("list") => list(&args[1..]),
            Some("run") => run(&args[1..]),
            Some("sweep") => super::sweep::sweep(&args[1..]),
            Some("bench") => bench(&args[1..]),
            Some("-h" | "--help" | "help") => {
                println!("{USAGE}");
                Ok(())
            }
            Some(other) => Err(format!("unknown command '{}'; expected list, run, sweep or bench", short(other))),
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
            println!("{}", serde_json::to_string_pretty(&all).expect("JSON of plain values"));
            return Ok(());
        }
        for s in scenarios::ALL {
            println!("{}  {}  ({})", s.id, s.title, s.chapter);
            println!("  parameters:");
            for p in s.params {
                let unit = if p.unit.is_empty() { String::new() } else { format!(" {}", p.unit) };
                println!("    {:<20} default {}{unit}; {}", p.id, p.format(p.default), p.allowed());
            }
            println!("  presets: {}", s.presets.iter().map(|p| p.id).collect::<Vec<_>>().join(", "));
            println!("  metrics: {}", s.metrics.iter().map(|m| m.key).collect::<Vec<_>>().join(", "));
            println!();
        }
        Ok(())
    }

    fn run(args: &[String]) -> Result<(), String> {
        let (scenario, rest) = settings::scenario(args, "run")?;
        let mut settings = Settings::default();
        let mut json = false;
        let mut rest = rest.iter();
        while let Some(arg) = rest.next() {
            if arg == "--json" {
                json = true;
            } else if !settings.take(arg, &mut rest)? {
                return Err(format!("unknown option '{}'; expected {}, or --json", short(arg), settings::OPTIONS));
            }
        }
        let state = settings.into_state(scenario)?;
        let scenario = state.scenario;
        let mut sim = scenario.start(&state.params, state.seed, state.duration());
        sim.run_to_end();
        let metrics = sim.metrics();
        if json {
            let reading = sim.reading();
            let report = RunReport::new(&state, &metrics, &reading);
            println!("{}", serde_json::to_string_pretty(&report).expect("JSON of plain values"));
        } else {
            println!(
                "{} ({}), seed {}, {} ms simulated, {} events",
                scenario.id,
                scenario.title,
                state.seed,
                state.duration(),
                sim.events()
            );
            println!("  share: ?{}", url::encode(&state));
            for (key, value) in &metrics {
                let unit = scenario.metric(key).map_or("", |m| m.unit);
                println!("  {key:<28} {} {unit}", human(value));
            }
            for (key, sentence) in sim.reading() {
                println!("  reading.{key}: {sentence}");
            }
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
            Value::Null => "—".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Num(x) => x.to_string(),
            Value::Text(t) => t.clone(),
        }
    }

    fn bench(args: &[String]) -> Result<(), String> {
        let (mut quick, mut json) = (false, false);
        for a in args {
            match a.as_str() {
                "--quick" => quick = true,
                "--json" => json = true,
                "--fingerprints" => {
                    print!("{}", resilience_lab::bench::fingerprints());
                    return Ok(());
                }
                other => return Err(format!("bench takes --quick, --json or --fingerprints; got '{}'", short(other))),
            }
        }
        resilience_lab::bench::print_native_report(quick, json);
        Ok(())
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    native::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}

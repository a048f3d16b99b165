//! `resilience-lab`: run any scenario headless and print its numbers.
//!
//!     resilience-lab list [--json]
//!     resilience-lab run <scenario> [--preset NAME] [--url QUERY] [--set key=value]...
//!                        [--seed N] [--duration-ms D] [--json]
//!     resilience-lab bench [--quick] [--json] [--fingerprints]
//!
//! Every error is one line naming what is allowed, with exit status 2.

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::process::ExitCode;

    use resilience_lab::scenarios;
    use resilience_lab::sim::scenario::{MAX_DURATION_MS, MIN_DURATION_MS};
    use resilience_lab::sim::{ParamKind, ScenarioSpec, Value};
    use resilience_lab::url;
    use serde_json::{Map, Value as Json, json};

    const USAGE: &str = "usage: resilience-lab list [--json] | resilience-lab run <scenario> [--preset NAME] \
        [--url QUERY] [--set key=value]... [--seed N] [--duration-ms D] [--json] | resilience-lab bench [--quick] [--json] [--fingerprints]";

    pub fn main() -> ExitCode {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let result = match args.first().map(String::as_str) {
            Some("list") => list(&args[1..]),
            Some("run") => run(&args[1..]),
            Some("bench") => bench(&args[1..]),
            Some("-h" | "--help" | "help") => {
                println!("{USAGE}");
                Ok(())
            }
            Some(other) => Err(format!("unknown command '{}'; expected list, run or bench", short(other))),
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

    fn short(s: &str) -> String {
        resilience_lab::sim::params::shorten(s)
    }

    fn list(args: &[String]) -> Result<(), String> {
        let json_out = match args {
            [] => false,
            [flag] if flag == "--json" => true,
            _ => return Err(format!("list takes only --json; got '{}'", short(&args.join(" ")))),
        };
        if json_out {
            let all: Vec<Json> = scenarios::ALL.iter().map(|s| describe(s)).collect();
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

    fn describe(s: &ScenarioSpec) -> Json {
        let params: Vec<Json> = s
            .params
            .iter()
            .map(|p| {
                let mut o = json!({
                    "id": p.id, "label": p.label, "unit": p.unit, "default": param_json(p.kind, p.default, &p.format(p.default)),
                    "min": p.min, "max": p.max, "step": p.step, "help": p.help,
                });
                o["kind"] = match p.kind {
                    ParamKind::Number => json!("number"),
                    ParamKind::Toggle => json!("toggle"),
                    ParamKind::Choice(options) => {
                        o["options"] = json!(options);
                        json!("choice")
                    }
                };
                o
            })
            .collect();
        json!({
            "id": s.id, "title": s.title, "chapter": s.chapter, "summary": s.summary,
            "default_duration_ms": s.default_duration_ms,
            "params": params,
            "presets": s.presets.iter().map(|p| json!({"id": p.id, "label": p.label, "description": p.description,
                "values": p.values.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<Map<_, _>>()})).collect::<Vec<_>>(),
            "metrics": s.metrics.iter().map(|m| json!({"key": m.key, "label": m.label, "unit": m.unit, "help": m.help})).collect::<Vec<_>>(),
        })
    }

    fn param_json(kind: ParamKind, value: f64, text: &str) -> Json {
        match kind {
            ParamKind::Number => json!(value),
            ParamKind::Toggle => json!(value >= 0.5),
            ParamKind::Choice(_) => json!(text),
        }
    }

    fn value_json(v: &Value) -> Json {
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => json!(b),
            Value::Int(i) => json!(i),
            Value::Num(x) => json!(x),
            Value::Text(t) => json!(t),
            Value::List(rows) => Json::Array(
                rows.iter().map(|r| Json::Object(r.iter().map(|(k, v)| (k.to_string(), value_json(v))).collect())).collect(),
            ),
        }
    }

    /// What `run` was asked for, checked against the scenario's declaration.
    struct RunRequest {
        state: url::State,
        json: bool,
    }

    fn parse_run(args: &[String]) -> Result<RunRequest, String> {
        let mut it = args.iter();
        let id = it.next().ok_or_else(|| format!("run needs a scenario: one of {}", scenarios::ids()))?;
        let scenario = scenarios::find(id)
            .ok_or_else(|| format!("unknown scenario '{}'; expected one of {}", short(id), scenarios::ids()))?;
        let mut state = url::State::new(scenario);
        let mut sets: Vec<(String, String)> = Vec::new();
        let mut preset: Option<String> = None;
        let mut query: Option<String> = None;
        let mut json = false;
        let mut seed = None;
        let mut duration = None;
        while let Some(arg) = it.next() {
            let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
            match arg.as_str() {
                "--json" => json = true,
                "--seed" => {
                    let v = value("--seed")?;
                    seed = Some(v.parse::<u64>().map_err(|_| format!("--seed: '{}' is not a whole number from 0 to {}", short(&v), u64::MAX))?);
                }
                "--duration-ms" => {
                    let v = value("--duration-ms")?;
                    let d = v.parse::<u64>().ok().filter(|d| (MIN_DURATION_MS..=MAX_DURATION_MS).contains(d)).ok_or_else(|| {
                        format!("--duration-ms: '{}' is not allowed; expected a whole number from {MIN_DURATION_MS} to {MAX_DURATION_MS}", short(&v))
                    })?;
                    duration = Some(d);
                }
                "--preset" => preset = Some(value("--preset")?),
                "--url" => query = Some(value("--url")?),
                "--set" => {
                    let v = value("--set")?;
                    let (k, val) = v.split_once('=').ok_or_else(|| format!("--set: '{}' is not key=value", short(&v)))?;
                    sets.push((k.trim().to_string(), val.to_string()));
                }
                other => {
                    return Err(format!(
                        "unknown option '{}'; expected --preset, --url, --set, --seed, --duration-ms or --json",
                        short(other)
                    ));
                }
            }
        }
        if let Some(q) = query {
            let q = q.rsplit_once('?').map_or(q.as_str(), |(_, q)| q).to_string();
            let (decoded, notices) = url::decode(&q, Some(scenario));
            let decoded = decoded.expect("a default scenario was given");
            if decoded.scenario.id != scenario.id {
                return Err(format!("--url names scenario '{}' but the command runs '{}'", decoded.scenario.id, scenario.id));
            }
            if let Some(n) = notices.first() {
                return Err(format!("--url: {n}"));
            }
            state = decoded;
        }
        if let Some(p) = preset {
            let found = scenario.preset(&p).ok_or_else(|| {
                format!("unknown preset '{}' for {}; expected one of {}", short(&p), scenario.id,
                    scenario.presets.iter().map(|p| p.id).collect::<Vec<_>>().join(", "))
            })?;
            // Keep what --url changed relative to its own preset, on top of the new preset.
            let url_base = state.baseline();
            state.preset = Some(found.id);
            let mut params = state.baseline();
            for (i, spec) in scenario.params.iter().enumerate() {
                if state.params.values()[i] != url_base.values()[i] {
                    params.set(spec.id, state.params.values()[i]);
                }
            }
            state.params = params;
        }
        for (k, v) in &sets {
            state.params.set_text(k, v).map_err(|e| match e {
                resilience_lab::sim::params::SetError::UnknownParam(id) => format!(
                    "unknown parameter '{id}' for {}; expected one of {}",
                    scenario.id,
                    scenario.params.iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
                ),
                other => other.to_string(),
            })?;
        }
        if let Some(s) = seed {
            state.seed = s;
        }
        if let Some(d) = duration {
            state.duration_ms = d;
        }
        Ok(RunRequest { state, json })
    }

    fn run(args: &[String]) -> Result<(), String> {
        let RunRequest { state, json } = parse_run(args)?;
        let scenario = state.scenario;
        let mut sim = scenario.start(&state.params, state.seed, state.duration_ms);
        sim.run_to_end();
        let metrics = sim.metrics();
        if json {
            println!("{}", serde_json::to_string_pretty(&report(&state, &metrics)).expect("JSON of plain values"));
        } else {
            println!("{} ({}), seed {}, {} ms simulated, {} events", scenario.id, scenario.title, state.seed, state.duration_ms, sim.events());
            println!("  share: ?{}", url::encode(&state));
            for (key, value) in &metrics {
                let unit = scenario.metric(key).map_or("", |m| m.unit);
                println!("  {key:<28} {} {unit}", human(value));
            }
        }
        Ok(())
    }

    fn report(state: &url::State, metrics: &[(&'static str, Value)]) -> Json {
        let params: Map<String, Json> =
            state.params.formatted().map(|(spec, text)| (spec.id.to_string(), param_json(spec.kind, state.params.get(spec.id), &text))).collect();
        let metrics_obj: Map<String, Json> = metrics.iter().map(|(k, v)| (k.to_string(), value_json(v))).collect();
        let mut out = Map::new();
        out.insert("scenario".into(), json!(state.scenario.id));
        out.insert("seed".into(), json!(state.seed));
        out.insert("duration_ms".into(), json!(state.duration_ms));
        out.insert("preset".into(), json!(state.preset));
        out.insert("params".into(), Json::Object(params));
        // Metrics at the top level (as the issues name them) and grouped, for tools that want one object.
        for (k, v) in &metrics_obj {
            out.insert(k.clone(), v.clone());
        }
        out.insert("metrics".into(), Json::Object(metrics_obj));
        Json::Object(out)
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

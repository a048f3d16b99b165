//! The settings `run` and `sweep` share: a scenario, then `--url`, `--preset`, `--set`,
//! `--seed` and `--duration-ms`, applied in that order (the URL, then the preset, then each set).

use resilience_lab::scenarios;
use resilience_lab::sim::ScenarioSpec;
use resilience_lab::sim::params::{SetError, shorten};
use resilience_lab::sim::scenario::{MAX_DURATION_MS, MIN_DURATION_MS};
use resilience_lab::url;

/// The shared options, for error messages.
pub const OPTIONS: &str = "--preset, --url, --set, --seed, --duration-ms";

/// The scenario named first, and the arguments after it.
pub fn scenario<'a>(args: &'a [String], command: &str) -> Result<(&'static ScenarioSpec, &'a [String]), String> {
    let id = args.first().ok_or_else(|| format!("{command} needs a scenario: one of {}", scenarios::ids()))?;
    let scenario = scenarios::find(id)
        .ok_or_else(|| format!("unknown scenario '{}'; expected one of {}", shorten(id), scenarios::ids()))?;
    Ok((scenario, &args[1..]))
}

/// The value after an option.
pub fn value<'a>(name: &str, rest: &mut impl Iterator<Item = &'a String>) -> Result<&'a String, String> {
    rest.next().ok_or_else(|| format!("{name} needs a value"))
}

#[derive(Default)]
pub struct Settings {
    sets: Vec<(String, String)>,
    preset: Option<String>,
    query: Option<String>,
    seed: Option<u64>,
    duration: Option<u64>,
}

impl Settings {
    /// Takes `arg` (and its value from `rest`) if it is a shared option; false if it is not.
    pub fn take<'a>(&mut self, arg: &str, rest: &mut impl Iterator<Item = &'a String>) -> Result<bool, String> {
        match arg {
            "--seed" => {
                let v = value(arg, rest)?;
                let seed = v
                    .parse::<u64>()
                    .map_err(|_| format!("--seed: '{}' is not a whole number from 0 to {}", shorten(v), u64::MAX))?;
                self.seed = Some(seed);
            }
            "--duration-ms" => {
                let v = value(arg, rest)?;
                let d = v.parse::<u64>().ok().filter(|d| (MIN_DURATION_MS..=MAX_DURATION_MS).contains(d));
                self.duration = Some(d.ok_or_else(|| {
                    format!(
                        "--duration-ms: '{}' is not allowed; expected a whole number from {MIN_DURATION_MS} to {MAX_DURATION_MS}",
                        shorten(v)
                    )
                })?);
            }
            "--preset" => self.preset = Some(value(arg, rest)?.clone()),
            "--url" => self.query = Some(value(arg, rest)?.clone()),
            "--set" => {
                let v = value(arg, rest)?;
                let (k, val) = v.split_once('=').ok_or_else(|| format!("--set: '{}' is not key=value", shorten(v)))?;
                self.sets.push((k.trim().to_string(), val.to_string()));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The state these settings give, checked against the scenario's declaration.
    pub fn into_state(self, scenario: &'static ScenarioSpec) -> Result<url::State, String> {
        let mut state = match self.query {
            Some(q) => from_url(scenario, &q)?,
            None => url::State::new(scenario),
        };
        if let Some(p) = self.preset {
            apply_preset(&mut state, &p)?;
        }
        for (k, v) in &self.sets {
            state.params.set_text(k, v).map_err(|e| match e {
                SetError::UnknownParam(id) => format!(
                    "unknown parameter '{id}' for {}; expected one of {}",
                    scenario.id,
                    scenario.params.iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
                ),
                other => other.to_string(),
            })?;
        }
        if let Some(s) = self.seed {
            state.seed = s;
        }
        if let Some(d) = self.duration {
            state.duration_ms = Some(d);
        }
        Ok(state)
    }
}

fn from_url(scenario: &'static ScenarioSpec, query: &str) -> Result<url::State, String> {
    let q = query.rsplit_once('?').map_or(query, |(_, q)| q);
    let (decoded, notices) = url::decode(q, Some(scenario));
    let decoded = decoded.expect("a default scenario was given");
    if decoded.scenario.id != scenario.id {
        return Err(format!("--url names scenario '{}' but the command runs '{}'", decoded.scenario.id, scenario.id));
    }
    match notices.first() {
        Some(n) => Err(format!("--url: {n}")),
        None => Ok(decoded),
    }
}

/// Applies a preset, keeping what `--url` changed relative to its own preset on top of it.
fn apply_preset(state: &mut url::State, id: &str) -> Result<(), String> {
    let scenario = state.scenario;
    let found = scenario.preset(id).ok_or_else(|| {
        format!(
            "unknown preset '{}' for {}; expected one of {}",
            shorten(id),
            scenario.id,
            scenario.presets.iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
        )
    })?;
    let url_base = state.baseline();
    state.preset = Some(found.id);
    let mut params = state.baseline();
    for (i, spec) in scenario.params.iter().enumerate() {
        if state.params.values()[i] != url_base.values()[i] {
            params.set(spec.id, state.params.values()[i]);
        }
    }
    state.params = params;
    Ok(())
}

//! The settings `run` and `sweep` share: a scenario, then `--url`, `--preset`, `--set`,
//! `--seed` and `--duration-ms`, applied in that order (the URL, then the preset, then each set),
//! whatever order they are written in. A value is read by the page's rule: one not usable as
//! written gives a notice and the nearest allowed value, as the page does for the same link.

use resilience_lab::scenarios;
use resilience_lab::sim::ScenarioSpec;
use resilience_lab::sim::params::shorten;
use resilience_lab::url;

/// The shared options, for error messages.
pub const OPTIONS: &str = "--preset, --url, --set, --seed, --duration-ms";

/// The scenario named first, if one is (an option comes first when `--url` names it), and the
/// arguments after it.
pub fn scenario(args: &[String]) -> Result<(Option<&'static ScenarioSpec>, &[String]), String> {
    match args.first() {
        Some(id) if !id.starts_with("--") => Ok((Some(find_scenario(id)?), &args[1..])),
        _ => Ok((None, args)),
    }
}

fn find_scenario(id: &str) -> Result<&'static ScenarioSpec, String> {
    scenarios::find(id)
        .ok_or_else(|| format!("unknown scenario '{}'; expected one of {}", shorten(id), scenarios::ids()))
}

fn unknown_preset(scenario: &ScenarioSpec, id: &str) -> String {
    let known: Vec<&str> = scenario.presets.iter().map(|p| p.id).collect();
    format!("unknown preset '{}' for {}; expected one of {}", shorten(id), scenario.id, known.join(", "))
}

fn unknown_parameter(scenario: &ScenarioSpec, id: &str) -> String {
    let known: Vec<&str> = scenario.params.iter().map(|p| p.id).collect();
    format!("unknown parameter '{}' for {}; expected one of {}", shorten(id), scenario.id, known.join(", "))
}

/// A link's names are errors here, as `--preset` and `--set` are: the page shows a notice and
/// goes on, but a command whose link names a misspelt preset would print another run's numbers
/// and exit 0. Checks the simulation, the preset, the presets and every other key.
fn known_names(scenario: &ScenarioSpec, query: &str) -> Result<(), String> {
    for (key, value) in url::pairs(query) {
        match key.as_str() {
            "sim" => {
                find_scenario(&value)?;
            }
            "preset" | "presets" => {
                let ids = value.split(',').map(str::trim).filter(|id| !id.is_empty());
                if let Some(id) = ids.into_iter().find(|id| scenario.preset(id).is_none()) {
                    return Err(unknown_preset(scenario, id));
                }
            }
            key if url::RESERVED.contains(&key) || scenario.param(key).is_some() => {}
            key => return Err(unknown_parameter(scenario, key)),
        }
    }
    Ok(())
}

/// Prints each notice on stderr: the run goes on with the value the notice names.
pub fn warn(notices: &[String]) {
    for n in notices {
        eprintln!("notice: {n}");
    }
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
    seed: Option<String>,
    duration: Option<String>,
}

impl Settings {
    /// Takes `arg` (and its value from `rest`) if it is a shared option; false if it is not.
    pub fn take<'a>(&mut self, arg: &str, rest: &mut impl Iterator<Item = &'a String>) -> Result<bool, String> {
        match arg {
            "--seed" => self.seed = Some(value(arg, rest)?.clone()),
            "--duration-ms" => self.duration = Some(value(arg, rest)?.clone()),
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

    /// The scenario these settings run: the one named, or else the one `--url` names.
    pub fn scenario(
        &self,
        named: Option<&'static ScenarioSpec>,
        command: &str,
    ) -> Result<&'static ScenarioSpec, String> {
        if let Some(s) = named {
            return Ok(s);
        }
        let query = self.query.as_deref().and_then(url::pasted_query);
        if let Some(id) = query.as_deref().and_then(|q| url::pairs(q).into_iter().rev().find(|(k, _)| k == "sim")) {
            return find_scenario(&id.1);
        }
        let from_url = query.and_then(|q| url::decode(&q, None).0);
        from_url.map(|s| s.scenario).ok_or_else(|| {
            format!("{command} needs a scenario (or a --url naming one with sim=): one of {}", scenarios::ids())
        })
    }

    /// The state these settings give, applied in order (the URL, the preset, each `--set`, the
    /// seed, the duration), with the notices a value not used as written gives: the same
    /// notices, and the same values, as the page gives for the same link.
    pub fn into_state(self, scenario: &'static ScenarioSpec) -> Result<(url::State, Vec<String>), String> {
        let (mut state, mut notices) = match self.query {
            Some(q) => from_url(scenario, &q)?,
            None => (url::State::new(scenario), Vec::new()),
        };
        if let Some(p) = self.preset {
            apply_preset(&mut state, &p)?;
        }
        for (k, v) in &self.sets {
            let spec = scenario.param(k).ok_or_else(|| unknown_parameter(scenario, k))?;
            let (value, notice) = spec.read(v, state.params.get(spec.id));
            state.params.set(spec.id, value);
            notices.extend(notice);
        }
        if let Some(s) = self.seed {
            match s.trim().parse::<u64>() {
                Ok(seed) => state.seed = seed,
                Err(_) => notices.push(format!(
                    "seed: '{}' is not a whole number from 0 to {}; using {}.",
                    shorten(&s),
                    u64::MAX,
                    state.seed
                )),
            }
        }
        if let Some(d) = self.duration {
            let (duration, notice) = url::read_duration(&d, &state);
            state.duration_ms = duration.or(state.duration_ms);
            notices.extend(notice);
        }
        Ok((state, notices))
    }
}

/// The state a pasted link gives, with the page's notices for it.
fn from_url(scenario: &'static ScenarioSpec, pasted: &str) -> Result<(url::State, Vec<String>), String> {
    let query = url::pasted_query(pasted)
        .ok_or_else(|| format!("--url: '{}' has no query (expected a link with ?sim=…)", shorten(pasted)))?;
    known_names(scenario, &query)?;
    let (decoded, notices) = url::decode(&query, Some(scenario));
    let decoded = decoded.expect("a default scenario was given");
    if decoded.scenario.id != scenario.id {
        return Err(format!("--url names scenario '{}' but the command runs '{}'", decoded.scenario.id, scenario.id));
    }
    Ok((decoded, notices))
}

/// Applies a preset on top of the state so far (the URL's values): each value the preset sets
/// replaces the URL's, the others stay.
fn apply_preset(state: &mut url::State, id: &str) -> Result<(), String> {
    let scenario = state.scenario;
    let found = scenario.preset(id).ok_or_else(|| unknown_preset(scenario, id))?;
    state.preset = Some(found.id);
    state.params.apply_preset(found).map_err(|e| format!("preset {}: {e}", found.id))
}
